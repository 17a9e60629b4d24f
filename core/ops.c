/*
** ops.c — the operator table and dispatch (see ops.h).
**
** The table is the one place that lists every operator: its name, ATen
** overload, meta function, flags and signature. The meta functions live in
** one file per family (ops_elementwise.c, ops_reduce.c, ops_view.c,
** ops_matmul.c, ops_join.c, ops_index.c, ops_factory.c, ops_datadep.c,
** ops_inplace.c), with their shared helpers in ops_common.c and
** ops_impl.h.
*/
#include "ops_impl.h"


/* ------------------------------------------------------------------------
** The table
** ---------------------------------------------------------------------- */

#define F_ONLY SDB_OP_FUNCTION_ONLY
#define M_ONLY SDB_OP_METHOD_ONLY
#define INPL (SDB_OP_INPLACE | SDB_OP_METHOD_ONLY)
#define FACT (SDB_OP_FACTORY | SDB_OP_FUNCTION_ONLY)
#define DD SDB_OP_DATA_DEPENDENT

static const sdb_op op_table[] = {
  /* elementwise binary */
  {"add", "aten.add.Tensor", m_arith, 0, "add(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"sub", "aten.sub.Tensor", m_arith, 0, "sub(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"mul", "aten.mul.Tensor", m_arith, 0, "mul(Tensor self, Tensor|Number other) -> Tensor"},
  {"div", "aten.div.Tensor", m_div, 0, "div(Tensor self, Tensor|Number other, *, str? rounding_mode=None) -> Tensor"},
  {"true_divide", "aten.div.Tensor", m_div, 0, "true_divide(Tensor self, Tensor|Number other) -> Tensor"},
  {"floor_divide", "aten.floor_divide.default", m_arith, 0, "floor_divide(Tensor self, Tensor|Number other) -> Tensor"},
  {"remainder", "aten.remainder.Tensor", m_arith, 0, "remainder(Tensor self, Tensor|Number other) -> Tensor"},
  {"pow", "aten.pow.Tensor_Tensor", m_arith, 0, "pow(Tensor self, Tensor|Number other) -> Tensor"},
  {"maximum", "aten.maximum.default", m_tensors, 0, "maximum(Tensor self, Tensor other) -> Tensor"},
  {"minimum", "aten.minimum.default", m_tensors, 0, "minimum(Tensor self, Tensor other) -> Tensor"},
  {"gt", "aten.gt.Tensor", m_compare, 0, "gt(Tensor self, Tensor|Number other) -> Tensor"},
  {"ge", "aten.ge.Tensor", m_compare, 0, "ge(Tensor self, Tensor|Number other) -> Tensor"},
  {"lt", "aten.lt.Tensor", m_compare, 0, "lt(Tensor self, Tensor|Number other) -> Tensor"},
  {"le", "aten.le.Tensor", m_compare, 0, "le(Tensor self, Tensor|Number other) -> Tensor"},
  {"eq", "aten.eq.Tensor", m_compare, 0, "eq(Tensor self, Tensor|Number other) -> Tensor"},
  {"ne", "aten.ne.Tensor", m_compare, 0, "ne(Tensor self, Tensor|Number other) -> Tensor"},
  {"logical_and", "aten.logical_and.default", m_compare, 0, "logical_and(Tensor self, Tensor|Number other) -> Tensor"},
  {"logical_or", "aten.logical_or.default", m_compare, 0, "logical_or(Tensor self, Tensor|Number other) -> Tensor"},
  {"bitwise_and", "aten.bitwise_and.Tensor", m_bitwise, 0, "bitwise_and(Tensor self, Tensor|Number other) -> Tensor"},
  {"where", "aten.where.self", m_where, 0, "where(Tensor condition, Tensor|Number self, Tensor|Number other) -> Tensor"},
  {"masked_fill", "aten.masked_fill.Scalar", m_masked_fill, 0,
   "masked_fill(Tensor self, Tensor mask, Tensor|Number value) -> Tensor"},
  /* elementwise unary */
  {"sin", "aten.sin.default", m_un_float, 0, "sin(Tensor self) -> Tensor"},
  {"cos", "aten.cos.default", m_un_float, 0, "cos(Tensor self) -> Tensor"},
  {"tan", "aten.tan.default", m_un_float, 0, "tan(Tensor self) -> Tensor"},
  {"exp", "aten.exp.default", m_un_float, 0, "exp(Tensor self) -> Tensor"},
  {"log", "aten.log.default", m_un_float, 0, "log(Tensor self) -> Tensor"},
  {"sqrt", "aten.sqrt.default", m_un_float, 0, "sqrt(Tensor self) -> Tensor"},
  {"rsqrt", "aten.rsqrt.default", m_un_float, 0, "rsqrt(Tensor self) -> Tensor"},
  {"tanh", "aten.tanh.default", m_un_float, 0, "tanh(Tensor self) -> Tensor"},
  {"sigmoid", "aten.sigmoid.default", m_un_float, 0, "sigmoid(Tensor self) -> Tensor"},
  {"erf", "aten.erf.default", m_un_float, 0, "erf(Tensor self) -> Tensor"},
  {"erfc", "aten.erfc.default", m_un_float, 0, "erfc(Tensor self) -> Tensor"},
  {"neg", "aten.neg.default", m_un_same, 0, "neg(Tensor self) -> Tensor"},
  {"abs", "aten.abs.default", m_un_same, 0, "abs(Tensor self) -> Tensor"},
  {"relu", "aten.relu.default", m_relu, 0, "relu(Tensor self, bool inplace=False) -> Tensor"},
  {"floor", "aten.floor.default", m_un_same, 0, "floor(Tensor self) -> Tensor"},
  {"ceil", "aten.ceil.default", m_un_same, 0, "ceil(Tensor self) -> Tensor"},
  {"round", "aten.round.default", m_un_same, 0, "round(Tensor self) -> Tensor"},
  {"sign", "aten.sign.default", m_un_same, 0, "sign(Tensor self) -> Tensor"},
  {"logical_not", "aten.logical_not.default", m_un_bool, 0, "logical_not(Tensor self) -> Tensor"},
  {"bitwise_not", "aten.bitwise_not.default", m_un_integral, 0, "bitwise_not(Tensor self) -> Tensor"},
  {"clamp", "aten.clamp.default", m_clamp, 0, "clamp(Tensor self, Number|Tensor? min=None, Number|Tensor? max=None) -> Tensor"},
  {"gelu", "aten.gelu.default", m_gelu, F_ONLY, "gelu(Tensor self, *, str approximate='none') -> Tensor"},
  {"silu", "aten.silu.default", m_silu, F_ONLY, "silu(Tensor self, bool inplace=False) -> Tensor"},
  {"softmax", "aten._softmax.default", m_softmax, 0, "softmax(Tensor self, int dim, *, dtype=None) -> Tensor"},
  {"log_softmax", "aten._log_softmax.default", m_softmax, 0, "log_softmax(Tensor self, int dim, *, dtype=None) -> Tensor"},
  {"dropout", "aten.dropout.default", m_dropout, F_ONLY, "dropout(Tensor self, float p=0.5, bool train=True, bool inplace=False, *, bool training=True) -> Tensor"},
  {"alias", "aten.alias.default", m_alias, SDB_OP_VIEW | SDB_OP_FUNCTION_ONLY, "alias(Tensor self) -> Tensor"},
  /* dtype conversions */
  {"convert_element_type", "prims.convert_element_type.default", m_convert_element_type,
   SDB_OP_FUNCTION_ONLY, "convert_element_type(Tensor self, dtype dtype) -> Tensor"},
  {"to", "aten._to_copy.default", m_to, M_ONLY,
   "to(Tensor self, dtype|str device|Tensor other, bool non_blocking=False, bool copy=False, *, dtype=None, device=None) -> Tensor"},
  {"long", "aten._to_copy.default", m_to_named, M_ONLY, "long(Tensor self) -> Tensor"},
  {"float", "aten._to_copy.default", m_to_named, M_ONLY, "float(Tensor self) -> Tensor"},
  {"bool", "aten._to_copy.default", m_to_named, M_ONLY, "bool(Tensor self) -> Tensor"},
  {"int", "aten._to_copy.default", m_to_named, M_ONLY, "int(Tensor self) -> Tensor"},
  {"double", "aten._to_copy.default", m_to_named, M_ONLY, "double(Tensor self) -> Tensor"},
  {"half", "aten._to_copy.default", m_to_named, M_ONLY, "half(Tensor self) -> Tensor"},
  {"type_as", "aten._to_copy.default", m_type_as, M_ONLY, "type_as(Tensor self, Tensor other) -> Tensor"},
  /* reductions */
  {"sum", "aten.sum.dim_IntList", m_sum, 0,
   "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"mean", "aten.mean.dim", m_mean, 0,
   "mean(Tensor self, int[]? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"amax", "aten.amax.default", m_red_same, 0, "amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor"},
  {"amin", "aten.amin.default", m_red_same, 0, "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor"},
  {"max", "aten.max.dim", m_maxmin, 0,
   "max(Tensor self, int? dim=None|Tensor other, bool keepdim=False) -> Tensor | (Tensor values, Tensor indices)"},
  {"min", "aten.min.dim", m_maxmin, 0,
   "min(Tensor self, int? dim=None|Tensor other, bool keepdim=False) -> Tensor | (Tensor values, Tensor indices)"},
  {"argmax", "aten.argmax.default", m_argmaxmin, 0, "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"},
  {"argmin", "aten.argmin.default", m_argmaxmin, 0, "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"},
  {"prod", "aten.prod.dim_int", m_prod, 0, "prod(Tensor self, int? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"any", "aten.any.dims", m_red_bool, 0, "any(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"},
  {"all", "aten.all.dims", m_red_bool, 0, "all(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"},
  {"std", "aten.std.correction", m_stdvar, 0,
   "std(Tensor self, int[]? dim=None, bool unbiased=True, bool keepdim=False, *, correction=None) -> Tensor"},
  {"var", "aten.var.correction", m_stdvar, 0,
   "var(Tensor self, int[]? dim=None, bool unbiased=True, bool keepdim=False, *, correction=None) -> Tensor"},
  {"norm", "aten.linalg_vector_norm.default", m_norm, 0,
   "norm(Tensor self, Number p=2, int[]? dim=None, bool keepdim=False, dtype=None) -> Tensor"},
  /* views and shape ops */
  {"view", "aten.view.default", m_view, SDB_OP_VIEW | M_ONLY, "view(Tensor self, int... shape|int[] size) -> Tensor"},
  {"reshape", "aten.view.default", m_reshape, SDB_OP_VIEW, "reshape(Tensor self, int... shape|int[] size) -> Tensor (a view when possible)"},
  {"view_as", "aten.view.default", m_view_as, SDB_OP_VIEW | M_ONLY, "view_as(Tensor self, Tensor other) -> Tensor"},
  {"reshape_as", "aten.view.default", m_reshape_as, SDB_OP_VIEW | M_ONLY, "reshape_as(Tensor self, Tensor other) -> Tensor"},
  {"flatten", "aten.view.default", m_flatten, SDB_OP_VIEW, "flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor"},
  {"unflatten", "aten.view.default", m_unflatten, SDB_OP_VIEW, "unflatten(Tensor self, int dim, int[] sizes) -> Tensor"},
  {"unsqueeze", "aten.unsqueeze.default", m_unsqueeze, SDB_OP_VIEW, "unsqueeze(Tensor self, int dim) -> Tensor"},
  {"squeeze", "aten.squeeze.dims", m_squeeze, SDB_OP_VIEW, "squeeze(Tensor self, int[]? dim=None) -> Tensor"},
  {"permute", "aten.permute.default", m_permute, SDB_OP_VIEW, "permute(Tensor self, int... dims) -> Tensor"},
  {"transpose", "aten.transpose.int", m_transpose, SDB_OP_VIEW, "transpose(Tensor self, int dim0, int dim1) -> Tensor"},
  {"t", "aten.t.default", m_t, SDB_OP_VIEW, "t(Tensor self) -> Tensor"},
  {"movedim", "aten.permute.default", m_movedim, SDB_OP_VIEW, "movedim(Tensor self, int|int[] source, int|int[] destination) -> Tensor"},
  {"expand", "aten.expand.default", m_expand, SDB_OP_VIEW | M_ONLY, "expand(Tensor self, int... size, *, bool implicit=False) -> Tensor"},
  {"expand_as", "aten.expand.default", m_expand_as, SDB_OP_VIEW | M_ONLY, "expand_as(Tensor self, Tensor other) -> Tensor"},
  {"as_strided", "aten.as_strided.default", m_as_strided, SDB_OP_VIEW,
   "as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) -> Tensor"},
  {"contiguous", "aten.clone.default", m_contiguous, M_ONLY, "contiguous(Tensor self, memory_format=torch.contiguous_format) -> Tensor (self when already in that format)"},
  {"flip", "aten.flip.default", m_flip, 0, "flip(Tensor self, int[] dims) -> Tensor"},
  {"roll", "aten.roll.default", m_roll, 0, "roll(Tensor self, int|int[] shifts, int|int[]? dims=None) -> Tensor"},
  /* matrix products */
  {"mm", "aten.mm.default", m_mm, 0, "mm(Tensor self, Tensor mat2) -> Tensor"},
  {"bmm", "aten.bmm.default", m_bmm, 0, "bmm(Tensor self, Tensor mat2) -> Tensor"},
  {"matmul", "aten.matmul.default", m_matmul, 0, "matmul(Tensor self, Tensor other) -> Tensor"},
  {"linear", "aten.linear.default", m_linear, F_ONLY, "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"},
  {"addmm", "aten.addmm.default", m_addmm, 0, "addmm(Tensor self, Tensor mat1, Tensor mat2, *, beta=1, alpha=1) -> Tensor"},
  /* joining, splitting, indexing */
  {"cat", "aten.cat.default", m_cat, F_ONLY, "cat(Tensor[] tensors, int dim=0) -> Tensor"},
  {"stack", "aten.stack.default", m_stack, F_ONLY, "stack(Tensor[] tensors, int dim=0) -> Tensor"},
  {"split", "aten.split.Tensor", m_split, SDB_OP_VIEW,
   "split(Tensor self, int|int[] split_size_or_sections|int split_size, int dim=0) -> Tensor[] (views)"},
  {"chunk", "aten.split.Tensor", m_chunk, SDB_OP_VIEW, "chunk(Tensor self, int chunks, int dim=0) -> Tensor[] (views)"},
  {"unbind", "aten.unbind.int", m_unbind, SDB_OP_VIEW, "unbind(Tensor self, int dim=0) -> Tensor[] (views)"},
  {"index_add", "aten.index_add.default", m_index_put_like, 0,
   "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Number alpha=1) -> Tensor"},
  {"index_copy", "aten.index_copy.default", m_index_put_like, 0,
   "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"},
  {"index_select", "aten.index_select.default", m_index_select, 0,
   "index_select(Tensor self, int dim, Tensor index) -> Tensor"},
  {"gather", "aten.gather.default", m_gather, 0, "gather(Tensor self, int dim, Tensor index) -> Tensor"},
  {"scatter", "aten.scatter.src", m_scatter, 0, "scatter(Tensor self, int dim, Tensor index, Tensor src|Number value, *, str? reduce=None) -> Tensor"},
  {"narrow", "aten.narrow.default", m_narrow, SDB_OP_VIEW, "narrow(Tensor self, int dim, int start, int length) -> Tensor"},
  {"select", "aten.select.int", m_select, SDB_OP_VIEW, "select(Tensor self, int dim, int index) -> Tensor"},
  {"slice", "aten.slice.Tensor", m_slice, SDB_OP_VIEW,
   "slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor"},
  {"index", "aten.index.Tensor", m_index, M_ONLY, "index(Tensor self, Tensor?[] indices) -> Tensor"},
  {"clone", "aten.clone.default", m_clone, 0, "clone(Tensor self, *, memory_format=None) -> Tensor"},
  {"detach", "aten.detach.default", m_detach, SDB_OP_VIEW, "detach(Tensor self) -> Tensor"},
  {"repeat", "aten.repeat.default", m_repeat, M_ONLY, "repeat(Tensor self, int... repeats) -> Tensor"},
  {"tile", "aten.repeat.default", m_tile, 0, "tile(Tensor self, int... dims) -> Tensor"},
  /* factories */
  {"arange", "aten.arange.start_step", m_arange, FACT,
   "arange(Number start=0, Number end, Number step=1, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"tensor", "aten.lift_fresh_copy.default", m_tensor, FACT, "tensor(Number|list data, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"zeros", "aten.zeros.default", m_factory, FACT, "zeros(int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"ones", "aten.ones.default", m_factory, FACT, "ones(int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"empty", "aten.empty.memory_format", m_factory, FACT, "empty(int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"randn", "aten.randn.default", m_factory, FACT, "randn(int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"rand", "aten.rand.default", m_factory, FACT, "rand(int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"scalar_tensor", "aten.scalar_tensor.default", m_scalar_tensor, FACT,
   "scalar_tensor(Number s, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"full", "aten.full.default", m_full, FACT, "full(int[] size, Number fill_value, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"randint", "aten.randint.low", m_randint, FACT,
   "randint(int low=0, int high, int[] size, *, dtype=int64, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"eye", "aten.eye.default", m_eye, FACT, "eye(int n, int? m=None, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"zeros_like", "aten.zeros_like.default", m_like, FACT, "zeros_like(Tensor self, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"ones_like", "aten.ones_like.default", m_like, FACT, "ones_like(Tensor self, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"empty_like", "aten.empty_like.default", m_like, FACT, "empty_like(Tensor self, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"full_like", "aten.full_like.default", m_like, FACT,
   "full_like(Tensor self, Number fill_value, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"rand_like", "aten.rand_like.default", m_like, FACT, "rand_like(Tensor self, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"randn_like", "aten.randn_like.default", m_like, FACT, "randn_like(Tensor self, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"new_empty", "aten.new_empty.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_empty(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"new_zeros", "aten.new_zeros.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_zeros(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"new_ones", "aten.new_ones.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_ones(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  {"new_full", "aten.new_full.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_full(Tensor self, int[] size, Number fill_value, *, dtype=None, device=None, layout=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor"},
  /* data-dependent */
  {"nonzero", "aten.nonzero.default", m_nonzero, DD, "nonzero(Tensor self, *, bool as_tuple=False) -> Tensor"},
  {"item", "aten._local_scalar_dense.default", m_item, DD | M_ONLY, "item(Tensor self) -> Scalar"},
  {"masked_select", "aten.masked_select.default", m_masked_select, DD,
   "masked_select(Tensor self, Tensor mask) -> Tensor"},
  {"unique", "aten._unique2.default", m_unique, DD,
   "unique(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None) -> Tensor | tuple"},
  {"unique_consecutive", "aten.unique_consecutive.default", m_unique_consecutive, DD,
   "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> Tensor | tuple"},
  {"repeat_interleave", "aten.repeat_interleave.Tensor", m_repeat_interleave, DD,
   "repeat_interleave(Tensor repeats | Tensor self, Tensor|int repeats, int? dim=None, *, int? output_size=None) -> Tensor"},
  /* in-place */
  {"add_", "aten.add_.Tensor", m_arith_, INPL, "add_(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"sub_", "aten.sub_.Tensor", m_arith_, INPL, "sub_(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"mul_", "aten.mul_.Tensor", m_arith_, INPL, "mul_(Tensor self, Tensor|Number other) -> Tensor"},
  {"div_", "aten.div_.Tensor", m_div_, INPL, "div_(Tensor self, Tensor|Number other, *, str? rounding_mode=None) -> Tensor"},
  {"fill_", "aten.fill_.Scalar", m_fill_, INPL, "fill_(Tensor self, Number|Tensor value) -> Tensor"},
  {"zero_", "aten.zero_.default", m_plain_, INPL, "zero_(Tensor self) -> Tensor"},
  {"normal_", "aten.normal_.default", m_random_, INPL, "normal_(Tensor self, float mean=0, float std=1) -> Tensor"},
  {"uniform_", "aten.uniform_.default", m_random_, INPL, "uniform_(Tensor self, float from=0, float to=1) -> Tensor"},
  {"copy_", "aten.copy_.default", m_copy_, INPL, "copy_(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"},
  {"clamp_", "aten.clamp_.default", m_clamp_, INPL, "clamp_(Tensor self, Number? min=None, Number? max=None) -> Tensor"},
  {"relu_", "aten.relu_.default", m_plain_, INPL, "relu_(Tensor self) -> Tensor"},
  {"unsqueeze_", "aten.unsqueeze_.default", m_unsqueeze_, INPL, "unsqueeze_(Tensor self, int dim) -> Tensor"},
  {"squeeze_", "aten.squeeze_.dims", m_squeeze_, INPL, "squeeze_(Tensor self, int[]? dim=None) -> Tensor"},
  {"transpose_", "aten.transpose_.default", m_transpose_, INPL, "transpose_(Tensor self, int dim0, int dim1) -> Tensor"},
  {"t_", "aten.t_.default", m_t_, INPL, "t_(Tensor self) -> Tensor"},
  {"resize_", "aten.resize_.default", m_resize_, INPL, "resize_(Tensor self, int... size, *, memory_format=None) -> Tensor"},
  {"masked_fill_", "aten.masked_fill_.Scalar", m_masked_fill_, INPL,
   "masked_fill_(Tensor self, Tensor mask, Number|Tensor value) -> Tensor"},
  {"index_add_", "aten.index_add_.default", m_index_put_like_, INPL,
   "index_add_(Tensor self, int dim, Tensor index, Tensor source, *, Number alpha=1) -> Tensor"},
  {"index_copy_", "aten.index_copy_.default", m_index_put_like_, INPL,
   "index_copy_(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"},
};

#define NOPS (sizeof op_table / sizeof op_table[0])

/* Operators defined while the program runs (torch.library.custom_op):
** after the table, each allocated once and never moved, so graph nodes and
** Lua closures may keep pointers to them. Redefining a name updates it in
** place (a program run again defines its ops again). */
typedef struct custom_op {
  sdb_op op;               /* first: a custom_op is an sdb_op */
  void *ud;
} custom_op;

static custom_op **customs;
static size_t ncustoms, capcustoms;

const sdb_op *sdb_op_define(const char *qualname, sdb_meta_fn meta, void *ud, sdb_err *err) {
  const char *sep = strstr(qualname, "::");
  if (!sep || sep == qualname || !sep[2] || strchr(sep + 2, ':') || strchr(qualname, '.'))
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "Expected there to be a namespace in "
                       "%s, i.e. The operator name should look something like ns::foo", qualname),
           NULL;
  for (size_t i = 0; i < ncustoms; i++)
    if (!strcmp(customs[i]->op.name, qualname)) {
      customs[i]->op.meta = meta;
      customs[i]->ud = ud;
      return &customs[i]->op;
    }
  if (ncustoms == capcustoms) {
    size_t cap = capcustoms ? 2 * capcustoms : 8;
    custom_op **nc = realloc(customs, cap * sizeof *nc);
    if (!nc) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory"), NULL;
    customs = nc;
    capcustoms = cap;
  }
  custom_op *c = calloc(1, sizeof *c);
  if (!c) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory"), NULL;
  /* "mylib::foo" is aten-style "mylib.foo.default" in graphs */
  c->op.name = sdb_intern(qualname);
  c->op.aten = sdb_internf("%.*s.%s.default", (int)(sep - qualname), qualname, sep + 2);
  c->op.meta = meta;
  c->op.flags = SDB_OP_CUSTOM | SDB_OP_FUNCTION_ONLY | SDB_OP_DATA_DEPENDENT;
  c->op.signature = sdb_internf("%s(*args) -> Tensor", qualname);
  c->ud = ud;
  if (!c->op.name || !c->op.aten || !c->op.signature) {
    free(c);
    return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory"), NULL;
  }
  customs[ncustoms++] = c;
  return &c->op;
}

void *sdb_op_ud(const sdb_op *op) {
  return op && (op->flags & SDB_OP_CUSTOM) ? ((const custom_op *)(const void *)op)->ud : NULL;
}

/* The table's names and aten names, interned, to their ops: every node
** of every phase looks its op up, often twice. The first op of a name
** wins, as the linear search this replaces returned it. */
static sdb_map by_name = SDB_MAP_INIT, by_aten = SDB_MAP_INIT;
static bool indexed;

/* Out of memory half way, the maps go and the next lookup tries again: a
** map missing some ops would have answered "no such op" for good. */
static void index_table(void) {
  if (indexed) return;
  for (size_t i = 0; i < NOPS; i++) {
    const char *n = sdb_intern(op_table[i].name), *a = sdb_intern(op_table[i].aten);
    if (!n || (op_table[i].aten && !a) ||
        (!sdb_map_get(&by_name, n) && !sdb_map_put(&by_name, n, (void *)&op_table[i])) ||
        (a && !sdb_map_get(&by_aten, a) && !sdb_map_put(&by_aten, a, (void *)&op_table[i]))) {
      sdb_map_free(&by_name);
      sdb_map_free(&by_aten);
      return;
    }
  }
  indexed = true;
}

/* the table through its map, then the custom ops (name or aten name) */
static const sdb_op *find_by(sdb_map *m, const char *key, bool aten) {
  index_table();
  const char *ik = indexed ? sdb_intern_at(key) : NULL;
  const sdb_op *op = ik ? sdb_map_get(m, ik) : NULL;
  /* no memory for the index or the key: the table itself, scanned (an op
  ** that exists must never read as unsupported; found by tests/repl/oom.sh) */
  for (size_t i = 0; !ik && !op && i < NOPS; i++) {
    const char *k = aten ? op_table[i].aten : op_table[i].name;
    if (k && !strcmp(k, key)) op = &op_table[i];
  }
  for (size_t i = 0; !op && i < ncustoms; i++)
    if (!strcmp(aten ? customs[i]->op.aten : customs[i]->op.name, key)) op = &customs[i]->op;
  return op;
}

const sdb_op *sdb_op_find(const char *name) { return find_by(&by_name, name, false); }
const sdb_op *sdb_op_find_aten(const char *aten) { return find_by(&by_aten, aten, true); }

size_t sdb_op_count(void) { return NOPS + ncustoms; }
const sdb_op *sdb_op_at(size_t i) {
  return i < NOPS ? &op_table[i] : i < NOPS + ncustoms ? &customs[i - NOPS]->op : NULL;
}

/* Is `name` a parameter of the signature (before "->")? A name is a word
** after ' ', '(', '*' or '|' and before '=', ',', ')' or '|'. */
/* where parameter `name` is in the signature's text, or -1 */
static long sig_param_pos(const char *sig, const char *name) {
  const char *arrow = strstr(sig, "->");
  size_t n = strlen(name), lim = arrow ? (size_t)(arrow - sig) : strlen(sig);
  if (n == 0) return -1;
  for (const char *p = strstr(sig, name); p && (size_t)(p - sig) + n <= lim; p = strstr(p + 1, name)) {
    char before = p == sig ? '(' : p[-1], after = p[n];
    if ((before == ' ' || before == '(' || before == '*' || before == '|') &&
        (after == '=' || after == ',' || after == ')' || after == '|'))
      return (long)(p - sig);
  }
  return -1;
}

static bool sig_has_param(const char *sig, const char *name) { return sig_param_pos(sig, name) >= 0; }

long sdb_op_param_pos(const sdb_op *op, const char *name) {
  return op && op->signature && name ? sig_param_pos(op->signature, name) : -1;
}

int sdb_op_call(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                sdb_value *out, sdb_err *err) {
  *out = SDB_VALUE_NONE;
  /* the signature lists the keywords an op understands: any other is an
  ** error, never silently ignored */
  for (size_t k = 0; k < a->nkw; k++)
    if (!a->kw[k].name || !sig_has_param(op->signature, a->kw[k].name))
      return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() got an unexpected keyword argument '%s'",
                         op->name, a->kw[k].name ? a->kw[k].name : "?");
  sdb_events *ev = m && m->env ? sdb_shape_env_events(m->env) : NULL;
  sdb_events_push_op(ev, op->name);
  int rc = op->meta(m, op, a, out, err);
  sdb_events_pop_op(ev);
  if (rc) sdb_value_free(out);
  return rc;
}

int sdb_op_call_name(sdb_fake_mode *m, const char *name, const sdb_args *a,
                     sdb_value *out, sdb_err *err) {
  const sdb_op *op = sdb_op_find(name);
  if (!op) {
    *out = SDB_VALUE_NONE;
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError", "unsupported operator: %s", name);
  }
  return sdb_op_call(m, op, a, out, err);
}
