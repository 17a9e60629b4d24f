/*
** test_ops.c — the operator table (core/ops): the table itself, and the
** output metadata and strides of the elementwise, reduction, matrix,
** factory and data-dependent operators, the guards, runtime asserts and
** unbacked symbols they take, PyTorch's error messages, memos, and
** in-place semantics (the same tensor back, metadata changed in place,
** versions bumped), against exact strings. Views, reshapes, joining,
** splitting and indexing are test_ops_views's; the fixture both use
** (a fresh ShapeEnv and FakeTensorMode per test, inputs from a size spec)
** is ops_fixture.h.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "event.h"
#include "expr.h"
#include "fake.h"
#include "ops.h"
#include "shape_env.h"
#include "source.h"
#include "symctx.h"
#include "value.h"

#include "ops_fixture.h"

/* ------------------------------------------------------------------------
** The table
** ---------------------------------------------------------------------- */

static void test_table(void **state) {
  (void)state;
  static const char *const names[] = {
    "to", "long", "float", "bool", "int", "double", "half", "type_as",
    "sin", "cos", "tan", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "neg", "abs", "relu",
    "floor", "ceil", "round", "sign", "logical_not", "bitwise_not", "clamp", "gelu", "silu",
    "softmax", "log_softmax", "dropout",
    "pow", "maximum", "minimum", "remainder", "floor_divide", "true_divide", "logical_and",
    "logical_or", "bitwise_and", "where", "masked_fill",
    "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "any", "all", "std", "var", "norm",
    "view", "reshape", "flatten", "unflatten", "unsqueeze", "squeeze", "permute", "transpose", "t",
    "contiguous", "expand", "expand_as", "view_as", "reshape_as", "flip", "roll", "movedim", "as_strided",
    "mm", "bmm", "matmul", "linear", "addmm",
    "cat", "stack", "split", "chunk", "unbind", "index_select", "gather", "scatter", "narrow", "select",
    "slice", "index", "clone", "detach", "repeat", "tile",
    "arange", "tensor", "zeros", "ones", "empty", "full", "randn", "rand", "randint", "zeros_like",
    "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "new_empty", "new_zeros",
    "new_ones", "new_full", "eye",
    "masked_select", "unique", "unique_consecutive", "repeat_interleave", "nonzero", "item",
    "add_", "sub_", "mul_", "div_", "fill_", "zero_", "normal_", "uniform_", "copy_", "clamp_", "relu_",
    "unsqueeze_", "squeeze_", "transpose_", "t_", "resize_", "masked_fill_", "index_add_", "index_copy_",
    "index_add", "index_copy",
    "add", "sub", "mul", "div", "gt", "ge", "lt", "le", "eq", "ne", "sum",
    "erf", "erfc", "alias", "scalar_tensor",
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const sdb_op *op = sdb_op_find(names[i]);
    if (!op) fail_msg("no operator %s", names[i]);
    assert_non_null(op->meta);
    assert_non_null(op->signature);
    assert_true(!strncmp(op->aten, "aten.", 5));
    assert_true(!strncmp(op->signature, names[i], strlen(names[i])));
  }
  /* names are unique */
  for (size_t i = 0; i < sdb_op_count(); i++)
    for (size_t j = i + 1; j < sdb_op_count(); j++)
      assert_string_not_equal(sdb_op_at(i)->name, sdb_op_at(j)->name);
  assert_null(sdb_op_at(sdb_op_count()));
  assert_null(sdb_op_find("frobnicate"));
  /* flags */
  assert_int_equal(sdb_op_find("add_")->flags, SDB_OP_INPLACE | SDB_OP_METHOD_ONLY);
  assert_true(sdb_op_find("view")->flags & SDB_OP_VIEW);
  assert_true(sdb_op_find("select")->flags & SDB_OP_VIEW);
  assert_false(sdb_op_find("clone")->flags & SDB_OP_VIEW);
  assert_int_equal(sdb_op_find("zeros")->flags, SDB_OP_FACTORY | SDB_OP_FUNCTION_ONLY);
  assert_int_equal(sdb_op_find("new_zeros")->flags, SDB_OP_FACTORY | SDB_OP_METHOD_ONLY);
  assert_true(sdb_op_find("unique")->flags & SDB_OP_DATA_DEPENDENT);
  assert_true(sdb_op_find("repeat_interleave")->flags & SDB_OP_DATA_DEPENDENT);
  assert_string_equal(sdb_op_find("mm")->aten, "aten.mm.default");
  /* an unknown operator is an error naming it */
  int code = 0;
  const char *m = errk("frobnicate", NULL, 0, NULL, 0, &code);
  assert_string_equal(m, "unsupported operator: frobnicate");
  assert_int_equal(code, SDB_E_UNSUPPORTED);
}

static void test_argument_errors(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  assert_string_equal(ERR("sin", I(3)), "sin(): argument 'self' (position 1) must be Tensor, not int");
  assert_string_equal(ERR("sin", T(x), I(1)), "sin() takes at most 1 positional arguments but 2 were given");
  assert_string_equal(ERR("to", T(x), S("float33")), "to(): unknown dtype or device 'float33'");
  assert_string_equal(ERR("transpose", T(x), E(x->sizes[0]), I(1)),
                      "transpose(): argument 'dim0' must be a constant int here, not a SymInt");
  assert_string_equal(ERR("transpose", T(x), I(2), I(1)),
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  assert_string_equal(ERR("softmax", T(x)), "softmax() missing required argument 'dim' (pos 1)");
  assert_string_equal(ERR("mean", T(x), S("zero")),
                      "mean(): argument 'dim' (position 2) must be int or list of ints, not str");
  assert_string_equal(ERRK("zeros", K({"layout", S("torch.sparse_coo")}), I(2)),
                      "zeros(): argument 'layout' is not supported: only torch.strided is modelled");
  GUARDS("");
}

/* ------------------------------------------------------------------------
** Elementwise
** ---------------------------------------------------------------------- */

static void test_binary_broadcast_and_promotion(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "5,2"), *y = X("y", SDB_F32, "2");
  META(OP("add", T(x), T(y)), "f32[s0, s1]");
  sdb_fake *xi = X("xi", SDB_I64, "5,2"), *b = X("b", SDB_BOOL, "5,2");
  META(OP("add", T(xi), Fl(2.5)), "f32[s0, s1]");
  META(OP("mul", Fl(2.5), T(xi)), "f32[s0, s1]");
  META(OP("add", T(b), I(1)), "i64[s0, s1]");
  META(OP("add", T(b), B(true)), "b8[s0, s1]");
  META(OP("add", T(xi), B(true)), "i64[s0, s1]");
  sdb_fake *z64 = X("z", SDB_F64, "");
  META(OP("add", T(xi), T(z64)), "f64[s0, s1]");      /* zero-dim of a higher category */
  META(OP("add", T(x), T(z64)), "f32[s0, s1]");       /* same category: dims win */
  sdb_fake *h = X("h", SDB_F16, "2");
  META(OP("add", T(h), Fl(1.5)), "f16[s1]");
  META(OP("sub", T(xi), T(b)), "i64[s0, s1]");
  META(OP("div", T(xi), I(2)), "f32[s0, s1]");
  META(OP("true_divide", T(xi), T(xi)), "f32[s0, s1]");
  META(OP("floor_divide", T(xi), I(2)), "i64[s0, s1]");
  META(OP("remainder", T(xi), I(3)), "i64[s0, s1]");
  META(OP("remainder", T(xi), Fl(1.5)), "f32[s0, s1]");
  META(OP("pow", T(xi), I(2)), "i64[s0, s1]");
  META(OP("pow", T(xi), Fl(0.5)), "f32[s0, s1]");
  META(OP("pow", T(x), T(y)), "f32[s0, s1]");
  META(OP("maximum", T(xi), T(x)), "f32[s0, s1]");
  META(OP("minimum", T(xi), T(b)), "i64[s0, s1]");
  assert_string_equal(ERR("maximum", T(x), I(2)),
                      "maximum(): argument 'other' (position 2) must be Tensor, not int");
  META(OP("logical_and", T(x), T(b)), "b8[s0, s1]");
  META(OP("logical_or", T(xi), I(0)), "b8[s0, s1]");
  static const char *const cmps[] = {"gt", "ge", "lt", "le", "eq", "ne"};
  for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++) {
    META(OP(cmps[i], T(x), Fl(0.5)), "b8[s0, s1]");
    META(OP(cmps[i], T(xi), T(y)), "b8[s0, s1]");
  }
  sdb_fake *i32 = X("i32", SDB_I32, "2");
  META(OP("bitwise_and", T(i32), T(i32)), "i32[s1]");
  META(OP("bitwise_and", T(b), T(b)), "b8[s0, s1]");
  assert_string_equal(ERR("bitwise_and", T(x), T(x)), "\"bitwise_and_cpu\" not implemented for 'Float'");
  /* requires_grad flows through arithmetic, not through comparisons */
  sdb_fake *g = Xg("g", SDB_F32, "2", true);
  assert_true(TEN(OP("mul", T(g), T(x)))->requires_grad);
  assert_false(TEN(OP("gt", T(g), T(x)))->requires_grad);
  GUARDS("");
  /* a static mismatch */
  sdb_fake *p = X("p", SDB_F32, "!3"), *q = X("q", SDB_F32, "!4");
  assert_string_equal(ERR("add", T(p), T(q)),
                      "Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at "
                      "index 1 had [4]; but expected shape should be broadcastable to [3]");
}

/* broadcasting [s0] with [s1] of equal hints, duck sizing off: Eq(s0, s1) */
static void test_binary_guards_no_duck(void **state) {
  (void)state;
  no_duck();
  sdb_fake *x = X("x", SDB_F32, "3"), *y = X("y", SDB_F32, "3");
  META(OP("add", T(x), T(y)), "f32[s0]");
  GUARDS("Eq(s0, s1)");
  /* now decided: no second guard */
  META(OP("mul", T(y), T(x)), "f32[s0]");
  GUARDS("Eq(s0, s1)");
  /* different hints: the guard and the error */
  sdb_fake *z = X("z", SDB_F32, "4");
  assert_string_equal(ERR("sub", T(x), T(z)),
                      "Attempting to broadcast a dimension of length s2 at -1! Mismatching argument at "
                      "index 1 had [s2]; but expected shape should be broadcastable to [s0]");
  GUARDS("Eq(s0, s1); Ne(s0, s2)");
  /* an unbacked size is asserted at runtime instead */
  sdb_fake *u = X("u", SDB_F32, "u3");
  META(OP("add", T(x), T(u)), "f32[s0]");
  ASSERTS("Eq(s0, u0)");
}

static void test_where_masked_fill(void **state) {
  (void)state;
  sdb_fake *c = X("c", SDB_BOOL, "4,!1"), *x = X("x", SDB_F32, "3"), *xi = X("xi", SDB_I64, "3");
  META(OP("where", T(c), T(x), Fl(0.0)), "f32[s0, s1]");
  META(OP("where", T(c), T(xi), I(0)), "i64[s0, s1]");
  META(OP("where", T(c), T(xi), Fl(0.5)), "f32[s0, s1]");
  META(OP("where", T(c), I(1), Fl(0.5)), "f32[s0, 1]");
  META(OP("where", T(c), T(xi), T(x)), "f32[s0, s1]");
  assert_string_equal(ERR("where", T(x), T(x), T(x)),
                      "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  sdb_fake *y = X("y", SDB_F32, "4,3"), *mask = X("mask", SDB_BOOL, "3");
  META(OP("masked_fill", T(y), T(mask), Fl(1.0)), "f32[s0, s1]");
  META(OP("masked_fill", T(xi), T(c), I(7)), "i64[s0, s1]");   /* expands like expand_outplace */
  assert_string_equal(ERR("masked_fill", T(y), T(y), I(0)),
                      "masked_fill_ only supports boolean masks, but got mask with dtype Float");
  assert_string_equal(ERR("masked_fill", T(y), T(mask), T(x)),
                      "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).");
  GUARDS("");
}

static void test_unary(void **state) {
  (void)state;
  sdb_fake *xi = X("xi", SDB_I64, "3,4"), *x = X("x", SDB_F32, "3,4"), *h = X("h", SDB_F16, "3");
  sdb_fake *b = X("b", SDB_BOOL, "3");
  static const char *const floats[] = {"sin", "cos", "tan", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid"};
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
    META(OP(floats[i], T(xi)), "f32[s0, s1]");
    META(OP(floats[i], T(h)), "f16[s0]");
    META(OP(floats[i], T(b)), "f32[s0]");
  }
  static const char *const same[] = {"neg", "abs", "relu", "floor", "ceil", "round", "sign"};
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    META(OP(same[i], T(xi)), "i64[s0, s1]");
    META(OP(same[i], T(x)), "f32[s0, s1]");
  }
  assert_string_equal(ERR("neg", T(b)),
                      "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                      "to invert a mask, use the `~` or `logical_not()` operator instead.");
  META(OP("logical_not", T(x)), "b8[s0, s1]");
  META(OP("bitwise_not", T(b)), "b8[s0]");
  META(OP("bitwise_not", T(xi)), "i64[s0, s1]");
  assert_string_equal(ERR("bitwise_not", T(x)), "\"bitwise_not_cpu\" not implemented for 'Float'");
  /* elementwise outputs keep a dense input's layout */
  sdb_value *xt = OP("t", T(x));
  STRIDED(OP("sin", T(TEN(xt))), "f32[s1, s0][1, s1]");
  STRIDED(OP("neg", T(TEN(xt))), "f32[s1, s0][1, s1]");
  GUARDS("");
}

static void test_clamp_and_activations(void **state) {
  (void)state;
  sdb_fake *xi = X("xi", SDB_I64, "3,4"), *x = Xg("x", SDB_F32, "3,4", true);
  META(OP("clamp", T(xi), I(0), I(5)), "i64[s0, s1]");
  META(OP("clamp", T(xi), Fl(0.5)), "f32[s0, s1]");
  META(OPK("clamp", K({"max", I(2)}), T(xi)), "i64[s0, s1]");
  sdb_fake *lo = X("lo", SDB_F32, "4");
  META(OP("clamp", T(xi), T(lo)), "f32[s0, s1]");
  assert_string_equal(ERR("clamp", T(xi)), "torch.clamp: At least one of 'min' or 'max' must not be None");
  assert_string_equal(ERR("clamp", T(xi), N(), N()), "torch.clamp: At least one of 'min' or 'max' must not be None");
  sdb_value *g = OP("gelu", T(x));
  META(g, "f32[s0, s1]");
  assert_true(TEN(g)->requires_grad);
  META(OPK("gelu", K({"approximate", S("tanh")}), T(x)), "f32[s0, s1]");
  assert_string_equal(ERRK("gelu", K({"approximate", S("erf")}), T(x)),
                      "approximate argument must be either none or tanh.");
  assert_string_equal(ERR("gelu", T(xi)), "\"GeluKernelImpl\" not implemented for 'Long'");
  META(OP("silu", T(x)), "f32[s0, s1]");
  assert_string_equal(ERR("silu", T(xi)), "\"silu_cpu\" not implemented for 'Long'");
  META(OP("softmax", T(x), I(-1)), "f32[s0, s1]");
  META(OP("log_softmax", T(x), I(0)), "f32[s0, s1]");
  META(OPK("softmax", K({"dtype", S("float64")}), T(xi), I(1)), "f64[s0, s1]");
  assert_string_equal(ERR("softmax", T(xi), I(1)), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  assert_string_equal(ERR("log_softmax", T(x), I(2)),
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  /* F.dropout(input, p, training, inplace): FX prints all four */
  META(OP("dropout", T(x), Fl(0.1), B(true), B(false)), "f32[s0, s1]");
  assert_string_equal(ERR("dropout", T(x), Fl(0.1), B(true), B(true)),
                      "dropout(): argument 'inplace' is not supported: use dropout_");
  sdb_value *d = OP("dropout", T(x), Fl(0.25), B(true));
  META(d, "f32[s0, s1]");
  assert_ptr_not_equal(TEN(d)->storage, x->storage);
  META(OPK("dropout", K({"training", B(false)}), T(x)), "f32[s0, s1]");
  assert_string_equal(ERR("dropout", T(x), Fl(1.5)),
                      "dropout probability has to be between 0 and 1, but got 1.5");
  assert_string_equal(ERR("dropout", T(xi), Fl(0.5)),
                      "result type Float can't be cast to the desired output type Long");
  GUARDS("");
}

/* Inputs with the strides of a real tensor (a logged graph's annotation):
** made symbolic as ShapeEnv._compute_symbolic_stride does. */
static sdb_fake *strided_input(const char *name, const int64_t *sizes, const int64_t *strides,
                               int n, sdb_dim_dynamic d) {
  sdb_symctx *ctx = sdb_symctx_new(false, (size_t)n, d);
  assert_non_null(ctx);
  sdb_fake *t = NULL;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_fakify_strided(F->m, sizes, strides, n, SDB_F32, "cpu", false,
                              sdb_source_local(name), ctx, &t, &err);
  sdb_symctx_free(ctx);
  if (rc) fail_msg("fakify %s: %s", name, err.msg);
  assert_true(F->nfakes < POOL);
  F->fakes[F->nfakes++] = t;
  return t;
}

static void test_fakify_strides(void **state) {
  (void)state;
  /* channels-last, static: the strides as they are */
  int64_t cl[] = {1, 320, 128, 128}, cls[] = {5242880, 1, 40960, 320};
  sdb_value v = T(strided_input("x", cl, cls, 4, SDB_DIM_STATIC));
  STRIDED(&v, "f32[1, 320, 128, 128][5242880, 1, 40960, 320]");
  sdb_value_free(&v);
  /* channels-last, dynamic: each stride a product of the sizes before it
  ** in stride order (the candidates), no symbol of its own */
  int64_t cd[] = {2, 3, 4, 5}, cds[] = {60, 1, 15, 3};
  v = T(strided_input("y", cd, cds, 4, SDB_DIM_DUCK));
  STRIDED(&v, "f32[s0, s1, s2, s3][s1*s2*s3, 1, s1*s3, s1]");
  sdb_value_free(&v);
  /* transposed: [s4, s5] with strides [1, s4] */
  int64_t td[] = {6, 8}, tds[] = {1, 6};
  v = T(strided_input("z", td, tds, 2, SDB_DIM_DUCK));
  STRIDED(&v, "f32[s4, s5][1, s4]");
  sdb_value_free(&v);
  /* a padded row (stride 10 for 8 columns) is no candidate: a symbol of
  ** its own, s7 (8 is s5 again: duck sizing) */
  int64_t pd[] = {7, 8}, pds[] = {10, 1};
  v = T(strided_input("w", pd, pds, 2, SDB_DIM_DUCK));
  STRIDED(&v, "f32[s6, s5][s7, 1]");
  sdb_value_free(&v);
  /* contiguous strides given: the same expressions as no strides */
  int64_t cg[] = {9, 11}, cgs[] = {11, 1};
  v = T(strided_input("c", cg, cgs, 2, SDB_DIM_DUCK));
  STRIDED(&v, "f32[s8, s9][s9, 1]");
  sdb_value_free(&v);
}

/* Elementwise results take their strides as compute_elementwise_output_strides
** does: contiguous operands give contiguous, channels-last ones channels-last,
** otherwise the first operand that orders two dims decides. */
static void test_elementwise_strides(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "5,3");
  sdb_value *xt = OP("t", T(x));
  STRIDED(xt, "f32[s1, s0][1, s1]");
  STRIDED(OP("mul", T(TEN(xt)), I(2)), "f32[s1, s0][1, s1]");             /* keeps the transpose */
  STRIDED(OP("neg", T(TEN(xt))), "f32[s1, s0][1, s1]");
  sdb_value *xc = OP("contiguous", T(TEN(xt)));
  STRIDED(OP("add", T(TEN(xt)), T(TEN(xc))), "f32[s1, s0][1, s1]");              /* the first decides */
  STRIDED(OP("add", T(TEN(xc)), T(TEN(xt))), "f32[s1, s0][s0, 1]");
  /* nonzero's (1, u0): kept by arithmetic on it, as PyTorch's slow path */
  sdb_value *nz = OP("nonzero", T(x));
  STRIDED(nz, "i64[u0, 2][1, u0]");
  STRIDED(OP("mul", T(TEN(nz)), I(2)), "i64[u0, 2][1, u0]");
  /* broadcasting contiguous operands: contiguous */
  sdb_fake *c = X("c", SDB_F32, "!5,!1"), *r = X("r", SDB_F32, "!1,!3");
  STRIDED(OP("add", T(c), T(r)), "f32[5, 3][3, 1]");
  /* channels-last 4-d operands stay channels-last */
  int64_t cl[] = {2, 3, 4, 5}, cls[] = {60, 1, 15, 3};
  sdb_value v = T(strided_input("n", cl, cls, 4, SDB_DIM_STATIC));
  STRIDED(OP("mul", T(v.tensor), T(v.tensor)), "f32[2, 3, 4, 5][60, 1, 15, 3]");
  sdb_value_free(&v);
  GUARDS("");
}

/* Ops that real TORCH_TRACE graphs use (aot and inductor graphs) */
static void test_log_ops(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "5,3"), *xi = X("xi", SDB_I64, "5,3");
  META(OP("erf", T(xi)), "f32[s0, s1]");
  META(OP("erfc", T(x)), "f32[s0, s1]");
  META(OPK("relu", K({"inplace", B(false)}), T(x)), "f32[s0, s1]");
  assert_string_equal(ERRK("relu", K({"inplace", B(true)}), T(x)),
                      "relu(): argument 'inplace' is not supported: use relu_");
  sdb_value *al = OP("alias", T(x));
  STRIDED(al, "f32[s0, s1][s1, 1]");
  assert_ptr_equal(TEN(al)->storage, x->storage);
  META(OPK("scalar_tensor", K({"dtype", S("torch.float64")}, {"pin_memory", B(false)}), I(1)), "f64[]");
  META(OP("scalar_tensor", Fl(0.5)), "f32[]");
  META(OP("convert_element_type", T(x), S("torch.float16")), "f16[s0, s1]");
  META(OPK("full", K({"pin_memory", B(false)}), L(2, 2, 3), Fl(1.0)), "f32[2, 3]");
  /* channels-last */
  sdb_fake *n = X("n", SDB_F32, "!2,!3,!4,!5");
  sdb_value *cl = OP("contiguous", T(n), S("torch.channels_last"));
  STRIDED(cl, "f32[2, 3, 4, 5][60, 1, 15, 3]");
  assert_ptr_equal(TEN(OP("contiguous", T(TEN(cl)), S("channels_last"))), TEN(cl));
  assert_string_equal(ERR("contiguous", T(x), S("torch.channels_last")),
                      "required rank 4 tensor to use channels_last format");
  GUARDS("");
}

static void test_conversions(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  META(OP("to", T(x), S("float64")), "f64[s0, s1]");
  META(OP("to", T(x), S("torch.int64")), "i64[s0, s1]");
  META(OPK("to", K({"dtype", S("torch.bool")}), T(x)), "b8[s0, s1]");
  /* nothing changes: the same tensor, as PyTorch's to() returns self */
  assert_ptr_equal(TEN(OP("to", T(x), S("float32"))), x);
  assert_ptr_not_equal(TEN(OPK("to", K({"copy", B(true)}), T(x), S("float32"))), x);
  sdb_value *cp = OP("to", T(x), S("float32"), B(false), B(true));      /* non_blocking, copy */
  assert_ptr_not_equal(TEN(cp), x);
  META(cp, "f32[s0, s1]");
  sdb_value *c = OP("to", T(x), S("cuda:0"));
  char *r = sdb_fake_repr(TEN(c));
  assert_string_equal(r, "FakeTensor(..., device='cuda:0', size=(s0, s1))");
  free(r);
  sdb_value *cd = OP("to", T(x), S("cuda"), S("float16"));
  META(cd, "f16[s0, s1]");
  assert_string_equal(sdb_fake_device(TEN(cd)), "cuda");
  sdb_fake *o = X("o", SDB_I32, "2");
  META(OP("to", T(x), T(o)), "i32[s0, s1]");
  META(OP("long", T(x)), "i64[s0, s1]");
  META(OP("float", T(o)), "f32[s2]");
  META(OP("bool", T(x)), "b8[s0, s1]");
  META(OP("int", T(x)), "i32[s0, s1]");
  META(OP("double", T(x)), "f64[s0, s1]");
  META(OP("half", T(x)), "f16[s0, s1]");
  META(OP("type_as", T(x), T(o)), "i32[s0, s1]");
  assert_ptr_equal(TEN(OP("float", T(x))), x);
  /* conversions keep the layout of a transposed input */
  STRIDED(OP("double", T(TEN(OP("t", T(x))))), "f64[s1, s0][1, s1]");
  GUARDS("");
}

/* ------------------------------------------------------------------------
** Reductions
** ---------------------------------------------------------------------- */

static void test_reductions(void **state) {
  (void)state;
  sdb_fake *x = Xg("x", SDB_F32, "3,4,5", true), *xi = X("xi", SDB_I64, "3,4,5"), *b = X("b", SDB_BOOL, "3");
  META(OP("sum", T(xi)), "i64[]");
  META(OP("sum", T(x), I(1)), "f32[s0, s2]");
  META(OP("mean", T(x)), "f32[]");
  sdb_value *mn = OP("mean", T(x), L(2, 0, -1), B(true));
  META(mn, "f32[1, s1, 1]");
  assert_true(TEN(mn)->requires_grad);
  META(OPK("mean", K({"dtype", S("float64")}), T(xi), I(0)), "f64[s1, s2]");
  assert_string_equal(ERR("mean", T(xi)),
                      "mean(): could not infer output dtype. Input dtype must be either a floating point "
                      "or complex dtype. Got: Long");
  assert_string_equal(ERRK("mean", K({"dtype", S("int32")}), T(x)),
                      "mean(): could not infer output dtype. Optional dtype must be either a floating point "
                      "or complex dtype. Got: Int");
  META(OP("amax", T(xi), L(2, 1, 2)), "i64[s0]");
  META(OP("amin", T(x), I(-1), B(true)), "f32[s0, s1, 1]");
  META(OP("amax", T(x)), "f32[]");
  /* max/min: a 0-dim value, or (values, indices) along a dim */
  META(OP("max", T(x)), "f32[]");
  check_text(OP("max", T(x), I(1)), "(f32[s0, s2], i64[s0, s2])");
  check_text(OP("min", T(xi), I(0), B(true)), "(i64[1, s1, s2], i64[1, s1, s2])");
  check_text(OPK("min", K({"keepdim", B(true)}), T(x), I(-1)), "(f32[s0, s1, 1], i64[s0, s1, 1])");
  sdb_fake *y = X("y", SDB_F32, "5");
  META(OP("max", T(xi), T(y)), "f32[s0, s1, s2]");
  assert_string_equal(ERR("max", T(x), L(2, 0, 1)), "max(): argument 'dim' (position 2) must be int, not list");
  META(OP("argmax", T(x)), "i64[]");
  META(OP("argmax", T(x), I(1)), "i64[s0, s2]");
  sdb_value *am = OP("argmin", T(x), I(2), B(true));
  META(am, "i64[s0, s1, 1]");
  assert_false(TEN(am)->requires_grad);
  META(OP("prod", T(xi)), "i64[]");
  META(OP("prod", T(b)), "i64[]");
  META(OP("prod", T(x), I(0)), "f32[s1, s2]");
  assert_string_equal(ERR("prod", T(x), L(2, 0, 1)), "prod(): argument 'dim' (position 2) must be int, not list");
  META(OP("any", T(x)), "b8[]");
  META(OP("all", T(xi), I(1)), "b8[s0, s2]");
  META(OP("any", T(x), L(2, 0, 2), B(true)), "b8[1, s1, 1]");
  META(OP("std", T(x)), "f32[]");
  META(OP("std", T(x), I(1), B(true), B(true)), "f32[s0, 1, s2]");
  META(OPK("var", K({"keepdim", B(true)}, {"correction", I(0)}), T(x), L(1, 0)), "f32[1, s1, s2]");
  META(OP("var", T(x), B(false)), "f32[]");
  assert_string_equal(ERR("std", T(xi)), "std and var only support floating point and complex dtypes");
  META(OP("norm", T(x)), "f32[]");
  META(OP("norm", T(x), I(2), I(1)), "f32[s0, s2]");
  META(OPK("norm", K({"dim", L(2, 1, 2)}, {"keepdim", B(true)}), T(x)), "f32[s0, 1, 1]");
  assert_string_equal(ERR("norm", T(xi)),
                      "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
  assert_string_equal(ERR("sum", T(x), L(2, 1, -2)), "dim 1 appears multiple times in the list of dims");
  assert_string_equal(ERR("sum", T(x), I(3)),
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  /* a 0-dim input reduces over dim 0 / -1 */
  sdb_fake *s = X("s", SDB_F32, "");
  META(OP("sum", T(s), I(0)), "f32[]");
  GUARDS("");
}


/* ------------------------------------------------------------------------
** Matrix products
** ---------------------------------------------------------------------- */

static void test_mm_bmm(void **state) {
  (void)state;
  sdb_fake *a = X("a", SDB_F32, "2,3"), *b = X("b", SDB_F32, "3,5");
  META(OP("mm", T(a), T(b)), "f32[s0, s2]");
  GUARDS("");
  sdb_fake *p = X("p", SDB_F32, "!2,!3"), *q = X("q", SDB_F32, "!4,!5");
  assert_string_equal(ERR("mm", T(p), T(q)), "a and b must have same reduction dim, but got [2, 3] X [4, 5].");
  assert_string_equal(ERR("mm", T(a), T(TEN(OP("sum", T(b), I(0))))), "b must be 2D");
  sdb_fake *bi = X("bi", SDB_I64, "3,5");
  assert_string_equal(ERR("mm", T(a), T(bi)), "mat1 and mat2 must have the same dtype, but got Float and Long");
  sdb_fake *ba = X("ba", SDB_F32, "6,2,3"), *bb = X("bb", SDB_F32, "6,3,5");
  META(OP("bmm", T(ba), T(bb)), "f32[s3, s0, s2]");
  sdb_fake *bc = X("bc", SDB_F32, "!2,!3,!4"), *bd = X("bd", SDB_F32, "!2,!5,!4");
  assert_string_equal(ERR("bmm", T(bc), T(bd)),
                      "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
  assert_string_equal(ERR("bmm", T(a), T(b)), "batch1 must be a 3D tensor");
  GUARDS("");
}

/* the reduction dim check: a guard when backed, a runtime assert when not */
static void test_mm_guards(void **state) {
  (void)state;
  no_duck();
  sdb_fake *a = X("a", SDB_F32, "2,3"), *b = X("b", SDB_F32, "3,4");
  META(OP("mm", T(a), T(b)), "f32[s0, s3]");
  GUARDS("Eq(s1, s2)");
  sdb_fake *c = X("c", SDB_F32, "5,6");
  assert_string_equal(ERR("mm", T(a), T(c)), "a and b must have same reduction dim, but got [s0, s1] X [s4, s5].");
  GUARDS("Eq(s1, s2); Ne(s1, s4)");
  sdb_fake *u = X("u", SDB_F32, "!2,u3"), *v = X("v", SDB_F32, "u3,!4");
  META(OP("mm", T(u), T(v)), "f32[2, 4]");
  ASSERTS("Eq(u0, u1)");
  assert_string_equal(sdb_assert_at(F->env, 0)->msg, "a and b must have same reduction dim, but got [2, u0] X [u1, 4].");
  assert_string_equal(sdb_assert_at(F->env, 0)->prov.op, "mm");
}

static void test_matmul(void **state) {
  (void)state;
  sdb_fake *v = X("v", SDB_F32, "3"), *m = X("m", SDB_F32, "2,3"), *n = X("n", SDB_F32, "3,5");
  META(OP("matmul", T(v), T(v)), "f32[]");
  META(OP("matmul", T(m), T(v)), "f32[s1]");
  META(OP("matmul", T(v), T(n)), "f32[s2]");
  META(OP("matmul", T(m), T(n)), "f32[s1, s2]");
  sdb_fake *b3 = X("b3", SDB_F32, "4,2,3");
  META(OP("matmul", T(b3), T(n)), "f32[s3, s1, s2]");           /* folded into one mm */
  META(OP("matmul", T(b3), T(v)), "f32[s3, s1]");
  sdb_fake *b4 = X("b4", SDB_F32, "!1,3,5");
  META(OP("matmul", T(b3), T(b4)), "f32[s3, s1, s2]");          /* batch broadcast, bmm */
  META(OP("matmul", T(m), T(b4)), "f32[1, s1, s2]");
  META(OP("matmul", T(v), T(b4)), "f32[1, s2]");
  GUARDS("");
  /* messages of the product matmul becomes */
  sdb_fake *p = X("p", SDB_F32, "!2,!3,!4"), *q = X("q", SDB_F32, "!5,!6");
  assert_string_equal(ERR("matmul", T(p), T(q)), "a and b must have same reduction dim, but got [6, 4] X [5, 6].");
  sdb_fake *r = X("r", SDB_F32, "!2,!5,!6");
  assert_string_equal(ERR("matmul", T(p), T(r)),
                      "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
  sdb_fake *w = X("w", SDB_F32, "!5");
  assert_string_equal(ERR("matmul", T(q), T(w)), "size mismatch, got input (5x6), vec (5)");
  assert_string_equal(ERR("matmul", T(w), T(TEN(OP("sum", T(w))))),
                      "both arguments to matmul need to be at least 1D, but they are 1D and 0D");
  sdb_fake *w6 = X("w6", SDB_F32, "!6");
  assert_string_equal(ERR("matmul", T(w), T(w6)),
                      "inconsistent tensor size, expected tensor [5] and src [6] to have the same number of "
                      "elements, but got 5 and 6 elements respectively");
}

static void test_linear_addmm(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "8,16"), *w = Xg("w", SDB_F32, "!4,16", true), *b = X("b", SDB_F32, "!4");
  sdb_value *y = OP("linear", T(x), T(w), T(b));
  META(y, "f32[s0, 4]");
  assert_true(TEN(y)->requires_grad);
  sdb_fake *x3 = X("x3", SDB_F32, "2,8,16");
  META(OP("linear", T(x3), T(w)), "f32[s2, s0, 4]");
  META(OPK("linear", K({"bias", T(b)}), T(x3), T(w)), "f32[s2, s0, 4]");
  sdb_fake *wv = X("wv", SDB_F32, "16");
  META(OP("linear", T(x), T(wv)), "f32[s0]");
  GUARDS("");
  sdb_fake *p = X("p", SDB_F32, "!2,!6"), *q = X("q", SDB_F32, "!3,!3"), *qb = X("qb", SDB_F32, "!3");
  assert_string_equal(ERR("linear", T(p), T(q), T(qb)),
                      "a and b must have same reduction dim, but got [2, 6] X [3, 3].");
  sdb_fake *big = X("big", SDB_F32, "!1,!3,!234,!13"), *w8 = X("w8", SDB_F32, "!8,!3");
  assert_string_equal(ERR("linear", T(big), T(w8)),
                      "a and b must have same reduction dim, but got [702, 13] X [3, 8].");
  sdb_fake *bad = X("bad", SDB_F32, "!5");
  assert_string_equal(ERR("linear", T(p), T(TEN(OP("view", T(q), I(-1)))), T(bad)),
                      "size mismatch, got input (2x6), vec (9)");
  sdb_fake *s = X("s", SDB_F32, "!1,!4"), *m1 = X("m1", SDB_F32, "5,16");
  META(OP("addmm", T(s), T(m1), T(TEN(OP("t", T(w))))), "f32[s3, 4]");
  sdb_fake *s3 = X("s3", SDB_F32, "!3");
  assert_string_equal(ERR("addmm", T(s3), T(m1), T(TEN(OP("t", T(w))))),
                      "The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                      "dimension 1.  Target sizes: [s3, 4].  Tensor sizes: [3]");
}


/* ------------------------------------------------------------------------
** Factories
** ---------------------------------------------------------------------- */

static void test_arange(void **state) {
  (void)state;
  META(OP("arange", I(5)), "i64[5]");
  META(OP("arange", I(1), I(10), I(3)), "i64[3]");
  META(OP("arange", I(10), I(0), I(-3)), "i64[4]");
  META(OP("arange", Fl(0.0), Fl(1.0), Fl(0.25)), "f32[4]");
  META(OP("arange", Fl(2.5)), "f32[3]");
  META(OPK("arange", K({"step", I(2)}), I(5)), "i64[3]");
  META(OPK("arange", K({"start", I(2)}, {"end", I(5)}), N()), "i64[3]");
  META(OPK("arange", K({"dtype", S("float64")}), I(4)), "f64[4]");
  sdb_fake *x = X("x", SDB_F32, "7");
  const sdb_expr *s0 = x->sizes[0];
  META(OP("arange", E(s0)), "i64[s0]");
  META(OP("arange", I(1), E(s0)), "i64[s0 - 1]");
  META(OP("arange", I(0), E(s0), I(2)), "i64[((s0 + 1)//2)]");
  GUARDS("");
  assert_string_equal(ERR("arange", I(5), I(1)), "upper bound and larger bound inconsistent with step sign");
  assert_string_equal(ERR("arange", I(0), I(5), I(0)), "step must be nonzero");
  assert_string_equal(ERR("arange", I(0), I(5), E(s0)), "arange(): a symbolic step is not supported");
  /* a symbolic end below the start: guarded */
  META(OP("arange", I(3), E(s0)), "i64[s0 - 3]");
  GUARDS("s0 >= 3");
  const char *m = ERR("arange", I(9), E(s0));
  assert_string_equal(m, "upper bound and larger bound inconsistent with step sign");
  GUARDS("s0 >= 3; s0 < 9");
}

static void test_factories(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_I32, "3,4");
  META(OP("tensor", I(3)), "i64[]");
  META(OP("tensor", Fl(2.5)), "f32[]");
  META(OP("tensor", B(true)), "b8[]");
  META(OP("tensor", L(3, 1, 2, 3)), "i64[3]");
  META(OP("tensor", LV(2, L(2, 1, 2), LV(2, I(3), Fl(4.5)))), "f32[2, 2]");
  META(OP("tensor", LV(2, B(true), B(false))), "b8[2]");
  META(OP("tensor", LV(0)), "f32[0]");
  META(OPK("tensor", K({"dtype", S("int8")}), L(2, 1, 2)), "i8[2]");
  assert_string_equal(ERR("tensor", LV(2, L(2, 1, 2), L(3, 1, 2, 3))), "expected sequence of length 2 at dim 1 (got 3)");
  META(OP("zeros", I(2), E(x->sizes[0])), "f32[2, s0]");
  META(OPK("ones", K({"dtype", S("int64")}), L(2, 2, 3)), "i64[2, 3]");
  sdb_value *em = OP("empty", I(4));
  STRIDED(em, "f32[4][1]");
  META(OP("full", L(1, 2), I(7)), "i64[2]");
  META(OP("full", L(2, 2, 2), Fl(1.5)), "f32[2, 2]");
  META(OP("full", L(1, 2), B(true)), "b8[2]");
  META(OPK("full", K({"dtype", S("float16")}), L(1, 2), I(7)), "f16[2]");
  META(OP("randn", I(3)), "f32[3]");
  sdb_value *rg = OPK("rand", K({"requires_grad", B(true)}), L(2, 3, 3));
  META(rg, "f32[3, 3]");
  assert_true(TEN(rg)->requires_grad);
  assert_string_equal(ERRK("randn", K({"dtype", S("int64")}), I(3)), "\"normal_kernel_cpu\" not implemented for 'Long'");
  assert_string_equal(ERRK("zeros", K({"dtype", S("int64")}, {"requires_grad", B(true)}), I(3)),
                      "Only Tensors of floating point and complex dtype can require gradients");
  META(OP("randint", I(10), L(1, 3)), "i64[3]");
  META(OP("randint", I(3), I(10), L(2, 2, 2)), "i64[2, 2]");
  assert_string_equal(ERR("randint", I(5), I(3), L(1, 2)),
                      "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
  META(OP("zeros_like", T(x)), "i32[s0, s1]");
  META(OPK("ones_like", K({"dtype", S("float32")}), T(x)), "f32[s0, s1]");
  META(OP("empty_like", T(x)), "i32[s0, s1]");
  META(OP("full_like", T(x), I(3)), "i32[s0, s1]");
  assert_string_equal(ERR("rand_like", T(x)), "\"check_uniform_bounds\" not implemented for 'Int'");
  META(OPK("rand_like", K({"dtype", S("float64")}), T(x)), "f64[s0, s1]");
  META(OPK("randn_like", K({"dtype", S("float16")}), T(x)), "f16[s0, s1]");
  STRIDED(OP("empty_like", T(TEN(OP("t", T(x))))), "i32[s1, s0][1, s1]");
  META(OP("new_empty", T(x), L(2, 2, 3)), "i32[2, 3]");
  META(OP("new_zeros", T(x), I(2)), "i32[2]");
  META(OPK("new_ones", K({"dtype", S("bool")}), T(x), I(2), I(5)), "b8[2, 5]");
  META(OP("new_full", T(x), L(1, 2), Fl(3.5)), "i32[2]");
  META(OP("eye", I(3)), "f32[3, 3]");
  META(OP("eye", I(2), E(x->sizes[1])), "f32[2, s1]");
  sdb_value *dev = OPK("zeros", K({"device", S("cuda:0")}), I(2));
  assert_string_equal(sdb_fake_device(TEN(dev)), "cuda:0");
  assert_string_equal(ERR("zeros", I(-1), I(2)), "Trying to create tensor with negative dimension -1: [-1, 2]");
  assert_string_equal(ERR("full", I(2), I(1)), "full(): argument 'size' (position 1) must be tuple of ints, not int");
  GUARDS("");
  /* a data-dependent size: asserted non-negative at runtime */
  sdb_fake *n = X("n", SDB_I64, "");
  sdb_value *it = OP("item", T(n));
  META(OP("zeros", E(it->expr), I(2)), "f32[u0, 2]");
  ASSERTS("u0 >= 0");
  GUARDS("");
}



/* unbacked sizes flow through shape ops without guards; equalities that
** cannot be decided become runtime asserts */
static void test_unbacked_shapes(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "u4,!2"), *y = X("y", SDB_F32, "u5,!2");
  META(OP("cat", LT(2, x, y)), "f32[u0 + u1, 2]");
  check_text(OP("split", T(x), I(1), I(1)), "(f32[u0, 1], f32[u0, 1])");
  STRIDED(OP("expand", T(TEN(OP("unsqueeze", T(x), I(0)))), I(3), I(-1), I(-1)), "f32[3, u0, 2][0, 2, 1]");
  META(OP("slice", T(x), I(0), I(1)), "f32[u0 - Min(1, u0), 2]");
  META(OP("sum", T(x), I(0)), "f32[2]");
  META(OP("flatten", T(x)), "f32[2*u0]");
  sdb_value *nz = OP("nonzero", T(TEN(OP("sum", T(x), I(1)))));
  sdb_value *col = OP("select", T(TEN(nz)), I(1), I(0));
  STRIDED(col, "i64[u2][1]");
  check_range(SZ(nz, 0), "[0, int_oo]");
  META(OP("index_select", T(y), I(0), T(TEN(col))), "f32[u2, 2]");
  GUARDS("");
  ASSERTS("");
  META(OP("cat", LT(2, x, y), I(1)), "f32[u0, 4]");
  ASSERTS("Eq(u0, u1)");
  GUARDS("");
}

/* ------------------------------------------------------------------------
** Data-dependent ops
** ---------------------------------------------------------------------- */

/* nonzero: one symbol per epoch and version */
static void test_nonzero_memo(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!3,!4");
  sdb_value *a = OP("nonzero", T(x));
  STRIDED(a, "i64[u0, 2][1, u0]");
  check_range(SZ(a, 0), "[0, 12]");
  assert_true(sdb_symbol(F->env, SZ(a, 0))->size_like);
  assert_true(sdb_is_pending(F->env, SZ(a, 0)));
  META(OP("nonzero", T(x)), "i64[u0, 2]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 1);
  /* the events say which op made the symbol and hit the memo */
  for (size_t i = 0; i < sdb_events_count(F->ev); i++) {
    const sdb_event *ev = sdb_events_at(F->ev, i);
    if (ev->kind == SDB_EV_CREATE_UNBACKED || ev->kind == SDB_EV_MEMO_HIT) {
      assert_string_equal(sdb_event_op(ev), "nonzero");
      assert_ptr_equal(sdb_event_sym(ev), SZ(a, 0));
    }
  }
  /* a new epoch: a new symbol */
  sdb_fake_mode_bump_epoch(F->m);
  META(OP("nonzero", T(x)), "i64[u1, 2]");
  META(OP("nonzero", T(x)), "i64[u1, 2]");
  /* an in-place op on the input: its version changed, a new symbol */
  OP("add_", T(x), I(1));
  META(OP("nonzero", T(x)), "i64[u2, 2]");
  /* ... also through a view, which shares the version counter */
  sdb_value *v = OP("view", T(x), I(-1));
  OP("mul_", T(TEN(v)), I(2));
  META(OP("nonzero", T(x)), "i64[u3, 2]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 2);
  /* symbolic numel: the bound of the product; numel 0: no symbol */
  sdb_fake *s = X("s", SDB_F32, "5");
  sdb_value *ns = OP("nonzero", T(s));
  META(ns, "i64[u4, 1]");
  check_range(SZ(ns, 0), "[0, int_oo]");
  sdb_fake *e = X("e", SDB_F32, "!0,!3");
  META(OP("nonzero", T(e)), "i64[0, 2]");
  GUARDS("");
}

static void test_masked_select(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!3,!4"), *mask = X("mask", SDB_BOOL, "!3,!4");
  sdb_value *a = OP("masked_select", T(x), T(mask));
  META(a, "f32[u0]");
  check_range(SZ(a, 0), "[0, 12]");
  assert_true(sdb_symbol(F->env, SZ(a, 0))->size_like);
  /* no memo */
  META(OP("masked_select", T(x), T(mask)), "f32[u1]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 0);
  /* PyTorch's quirk: with numel <= 2 the range stays unbounded */
  sdb_fake *two = X("two", SDB_F32, "!2"), *m2 = X("m2", SDB_BOOL, "!2");
  check_range(SZ(OP("masked_select", T(two), T(m2)), 0), "[0, int_oo]");
  sdb_fake *z = X("z", SDB_F32, "!0");
  META(OP("masked_select", T(z), T(TEN(OP("bool", T(z))))), "f32[u3]");   /* always a symbol */
  assert_string_equal(ERR("masked_select", T(x), T(x)), "masked_select: expected BoolTensor for mask");
  GUARDS("");
}

static void test_unique(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_I64, "!3,!4");
  sdb_value *a = OP("unique", T(x));
  META(a, "i64[u0]");
  check_range(SZ(a, 0), "[0, 12]");
  META(OP("unique", T(x)), "i64[u0]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 1);
  check_text(OPK("unique", K({"return_inverse", B(true)}, {"return_counts", B(true)}), T(x)),
             "(i64[u0], i64[3, 4], i64[u0])");
  check_text(OP("unique", T(x), B(true), B(false), B(true)), "(i64[u0], i64[u0])");
  check_text(OPK("unique", K({"return_inverse", B(true)}), T(x)), "(i64[u0], i64[3, 4])");
  /* with a dim: no memo */
  check_text(OPK("unique", K({"dim", I(1)}), T(x)), "i64[3, u1]");
  check_text(OPK("unique", K({"dim", I(1)}), T(x)), "i64[3, u2]");
  check_range(sdb_sym("u2"), "[0, 4]");
  /* consecutive: not memoized here */
  META(OP("unique_consecutive", T(x)), "i64[u3]");
  check_text(OPK("unique_consecutive", K({"return_counts", B(true)}), T(x)), "(i64[u4], i64[u4])");
  /* after an in-place op the memo is stale */
  OP("zero_", T(x));
  META(OP("unique", T(x)), "i64[u5]");
  /* inverse and counts have self's dtype, as fake_impls makes them */
  sdb_fake *fx_ = X("fx", SDB_F32, "!3");
  check_text(OPK("unique", K({"return_inverse", B(true)}, {"return_counts", B(true)}), T(fx_)),
             "(f32[u6], f32[3], f32[u6])");
  /* a statically empty tensor: no symbol, even along a non-empty dim */
  sdb_fake *e = X("e", SDB_F32, "!0,!4");
  check_text(OPK("unique", K({"dim", I(1)}), T(e)), "f32[0, 0]");
  /* symbolic numel: unbounded */
  sdb_fake *s = X("s", SDB_F32, "5");
  sdb_value *us = OP("unique", T(s));
  META(us, "f32[u7]");
  check_range(SZ(us, 0), "[0, int_oo]");
  GUARDS("");
}

static void test_repeat_interleave(void **state) {
  (void)state;
  sdb_fake *r = X("r", SDB_I64, "!3");
  sdb_value *a = OP("repeat_interleave", T(r));
  META(a, "i64[u0]");
  check_range(SZ(a, 0), "[0, int_oo]");
  assert_true(sdb_symbol(F->env, SZ(a, 0))->size_like);
  META(OP("repeat_interleave", T(r)), "i64[u1]");            /* no memo */
  META(OPK("repeat_interleave", K({"output_size", I(9)}), T(r)), "i64[9]");
  sdb_fake *x = X("x", SDB_F32, "!3,5");
  META(OP("repeat_interleave", T(x), I(2)), "f32[6*s0]");
  META(OP("repeat_interleave", T(x), I(2), I(1)), "f32[3, 2*s0]");
  META(OP("repeat_interleave", T(x), T(r), I(0)), "f32[u2, s0]");
  assert_string_equal(ERR("repeat_interleave", T(x)), "repeat_interleave only accept 1D vector as repeat");
  sdb_fake *r2 = X("r2", SDB_I64, "!2");
  assert_string_equal(ERR("repeat_interleave", T(x), T(r2), I(0)),
                      "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and "
                      "input.size(0) = 3");
  GUARDS("");
}

static void test_item(void **state) {
  (void)state;
  sdb_fake *i = X("i", SDB_I64, ""), *f = X("f", SDB_F32, "!1"), *b = X("b", SDB_BOOL, "");
  check_text(OP("item", T(i)), "u0");
  check_text(OP("item", T(i)), "u0");
  check_text(OP("item", T(f)), "zuf0");
  check_text(OP("item", T(b)), "Eq(u1, 1)");
  sdb_fake *many = X("many", SDB_F32, "!3");
  assert_string_equal(ERR("item", T(many)), "a Tensor with 3 elements cannot be converted to Scalar");
}

/* ------------------------------------------------------------------------
** In-place ops
** ---------------------------------------------------------------------- */

static int64_t version(const sdb_fake *t) { return t->storage->version; }

static void test_inplace_binary(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4"), *xi = X("xi", SDB_I64, "3,4"), *y = X("y", SDB_F32, "4");
  int64_t v0 = version(x);
  sdb_value *r = OP("add_", T(x), T(y));
  assert_ptr_equal(TEN(r), x);
  assert_int_equal(version(x), v0 + 1);
  sdb_value *r2 = OPK("sub_", K({"alpha", I(2)}), T(x), I(1));
  assert_ptr_equal(TEN(r2), x);
  META(r2, "f32[s0, s1]");
  sdb_value *r3 = OP("mul_", T(x), Fl(0.5));
  assert_ptr_equal(TEN(r3), x);
  META(r3, "f32[s0, s1]");
  sdb_value *r4 = OP("div_", T(x), T(y));
  assert_ptr_equal(TEN(r4), x);
  META(r4, "f32[s0, s1]");
  assert_int_equal(version(x), v0 + 4);
  META(r, "f32[s0, s1]");
  assert_ptr_equal(TEN(OP("add_", T(xi), B(true))), xi);
  assert_ptr_equal(TEN(OP("mul_", T(xi), T(TEN(OP("sum", T(xi)))))), xi);
  int64_t vi = version(xi);
  assert_string_equal(ERR("div_", T(xi), I(2)), "result type Float can't be cast to the desired output type Long");
  assert_string_equal(ERR("add_", T(xi), Fl(1.5)), "result type Float can't be cast to the desired output type Long");
  assert_string_equal(ERR("add_", T(xi), T(x)), "result type Float can't be cast to the desired output type Long");
  sdb_fake *b = X("b", SDB_BOOL, "3,4");
  assert_string_equal(ERR("mul_", T(b), I(2)), "result type Long can't be cast to the desired output type Bool");
  assert_int_equal(version(xi), vi);                      /* failures do not mutate */
  sdb_fake *row = X("row", SDB_F32, "!3"), *mat = X("mat", SDB_F32, "!2,!3");
  assert_string_equal(ERR("add_", T(row), T(mat)), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  /* other requires grad: self does afterwards */
  sdb_fake *g = Xg("g", SDB_F32, "4", true);
  OP("mul_", T(x), T(g));
  assert_true(x->requires_grad);
  GUARDS("");
}

static void test_inplace_misc(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4"), *xi = X("xi", SDB_I64, "3,4");
  int64_t v = version(x);
  sdb_value *f = OP("fill_", T(x), Fl(1.0));
  assert_ptr_equal(TEN(f), x);
  META(f, "f32[s0, s1]");
  assert_ptr_equal(TEN(OP("fill_", T(x), T(TEN(OP("sum", T(x)))))), x);
  assert_string_equal(ERR("fill_", T(x), T(x)),
                      "fill_ only supports 0-dimension value tensor but got tensor with 2 dimensions.");
  static const char *const plain[] = {"zero_", "normal_", "uniform_", "relu_"};
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    sdb_value *r = OP(plain[i], T(x));
    assert_ptr_equal(TEN(r), x);
    META(r, "f32[s0, s1]");
  }
  assert_ptr_equal(TEN(OP("uniform_", T(x), Fl(-1.0), Fl(1.0))), x);
  assert_string_equal(ERR("normal_", T(xi)), "\"normal_kernel_cpu\" not implemented for 'Long'");
  assert_string_equal(ERR("uniform_", T(xi)), "\"check_uniform_bounds\" not implemented for 'Long'");
  sdb_value *cl = OP("clamp_", T(x), Fl(0.0), Fl(1.0));
  assert_ptr_equal(TEN(cl), x);
  META(cl, "f32[s0, s1]");
  META(OP("clamp_", T(xi), I(0)), "i64[s0, s1]");
  assert_string_equal(ERR("clamp_", T(xi), Fl(0.5)), "result type Float can't be cast to the desired output type Long");
  sdb_fake *src = X("src", SDB_I64, "4");
  sdb_value *cp = OP("copy_", T(x), T(src));
  assert_ptr_equal(TEN(cp), x);
  META(cp, "f32[s0, s1]");
  sdb_fake *bad = X("bad", SDB_F32, "!5");
  assert_string_equal(ERR("copy_", T(x), T(bad)),
                      "The expanded size of the tensor (s1) must match the existing size (5) at non-singleton "
                      "dimension 1.  Target sizes: [s0, s1].  Tensor sizes: [5]");
  sdb_fake *mask = X("mask", SDB_BOOL, "4");
  sdb_value *mf = OP("masked_fill_", T(x), T(mask), Fl(0.0));
  assert_ptr_equal(TEN(mf), x);
  META(mf, "f32[s0, s1]");
  sdb_fake *big = X("big", SDB_BOOL, "!2,3,4");
  assert_string_equal(ERR("masked_fill_", T(x), T(big), I(0)),
                      "output with shape [s0, s1] doesn't match the broadcast shape [2, s0, s1]");
  sdb_fake *idx = X("idx", SDB_I64, "!2"), *srcs = X("srcs", SDB_F32, "!2,4");
  sdb_value *ia = OP("index_add_", T(x), I(0), T(idx), T(srcs));
  assert_ptr_equal(TEN(ia), x);
  META(ia, "f32[s0, s1]");
  sdb_value *ic = OP("index_copy_", T(x), I(0), T(idx), T(srcs));
  assert_ptr_equal(TEN(ic), x);
  META(ic, "f32[s0, s1]");
  assert_string_equal(ERR("index_copy_", T(x), I(0), T(srcs), T(srcs)),
                      "index_copy_(): Index is supposed to be a vector");
  /* the functional forms: a new tensor of self's shape */
  sdb_value *fa = OPK("index_add", K({"source", T(srcs)}, {"alpha", I(2)}), T(x), I(0), T(idx));
  META(fa, "f32[s0, s1]");
  assert_ptr_not_equal(TEN(fa)->storage, x->storage);
  META(OP("index_copy", T(xi), I(1), T(TEN(OP("select", T(idx), I(0), I(0)))), T(TEN(OP("unsqueeze", T(TEN(OP("sum", T(xi), I(1)))), I(1))))),
       "i64[s0, s1]");
  META(OP("clone", T(x)), "f32[s0, s1]");
  assert_int_equal(version(x), v + 12);
  GUARDS("Ne(s1, 5)");                                    /* copy_'s expand compared s1 with 5 */
}

/* in-place view ops change the same tensor's metadata */
static void test_inplace_metadata(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  int64_t v = version(x);
  sdb_value *u = OP("unsqueeze_", T(x), I(0));
  assert_ptr_equal(TEN(u), x);
  STRIDED(u, "f32[1, s0, s1][s0*s1, s1, 1]");
  assert_int_equal(version(x), v + 1);
  OP("squeeze_", T(x), I(0));
  STRIDED(OP("clone", T(x)), "f32[s0, s1][s1, 1]");
  OP("transpose_", T(x), I(0), I(1));
  {
    char *s = sdb_fake_meta_str(x, true);
    assert_string_equal(s, "f32[s1, s0][1, s1]");
    free(s);
  }
  OP("t_", T(x));
  {
    char *s = sdb_fake_meta_str(x, true);
    assert_string_equal(s, "f32[s0, s1][s1, 1]");
    free(s);
  }
  assert_int_equal(version(x), v + 4);
  /* shapes are interned: back at its first shape, x shares its sizes and
  ** strides with any tensor of that shape, and not with a transposed one */
  sdb_fake *c = TEN(OP("clone", T(x)));
  assert_ptr_equal(c->sizes, x->sizes);
  assert_ptr_equal(sdb_fake_strides(c), sdb_fake_strides(x));
  sdb_fake *tx = TEN(OP("transpose", T(x), I(0), I(1)));
  assert_ptr_not_equal(tx->sizes, x->sizes);
  assert_ptr_equal(tx->sizes[0], x->sizes[1]);
  /* the device lives with the shape: the same shape on another device is
  ** another block, and an in-place change of shape keeps the device */
  sdb_fake *g = TEN(OP("to", T(x), S("cuda:1")));
  assert_string_equal(sdb_fake_device(g), "cuda:1");
  assert_ptr_not_equal(g->sizes, x->sizes);
  OP("unsqueeze_", T(g), I(0));
  assert_string_equal(sdb_fake_device(g), "cuda:1");
  assert_string_equal(sdb_fake_device(x), "cpu");
  sdb_fake *sum = TEN(OP("sum", T(x)));
  sdb_fake *z = TEN(OP("to", T(sum), S("cuda:1")));   /* 0-dim: a block of no sizes */
  assert_int_equal(z->ndim, 0);
  assert_string_equal(sdb_fake_device(z), "cuda:1");
  /* resize_ grows the storage */
  sdb_fake *r = X("r", SDB_F32, "!2");
  OP("resize_", T(r), I(3), I(4));
  {
    char *s = sdb_fake_meta_str(r, true);
    assert_string_equal(s, "f32[3, 4][4, 1]");
    free(s);
  }
  check_expr(r->storage->nelems, "12");
  OP("resize_", T(r), L(1, 2));
  check_expr(r->storage->nelems, "12");
  META(OP("view", T(r), I(-1)), "f32[2]");
  sdb_fake *q = X("q", SDB_F32, "!2");
  OP("resize_", T(q), E(x->sizes[0]));
  check_expr(q->storage->nelems, "s0");                   /* s0 >= 2 */
  assert_string_equal(ERR("resize_", T(r), I(-2)), "Trying to create tensor with negative dimension -2: [-2]");
  GUARDS("");
}

/* after x:unsqueeze_(0) and x:add_(1) the same fake tensor no longer looks
** like the input did: its metadata changed and its version moved on */
static void test_inplace_freshness(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  char *before = sdb_fake_meta_str(x, true);
  int64_t v = version(x);
  sdb_value *n0 = OP("nonzero", T(x));
  META(n0, "i64[u0, 2]");
  sdb_value *a = OP("unsqueeze_", T(x), I(0));
  sdb_value *b = OP("add_", T(TEN(a)), I(1));
  assert_ptr_equal(TEN(a), x);
  assert_ptr_equal(TEN(b), x);
  char *after = sdb_fake_meta_str(x, true);
  assert_string_equal(before, "f32[s0, s1][s1, 1]");
  assert_string_equal(after, "f32[1, s0, s1][s0*s1, s1, 1]");
  assert_string_not_equal(before, after);
  free(before);
  free(after);
  assert_int_equal(version(x), v + 2);
  META(OP("nonzero", T(x)), "i64[u1, 3]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 0);
  GUARDS("");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T_(test_table),
    T_(test_argument_errors),
    T_(test_binary_broadcast_and_promotion),
    T_(test_binary_guards_no_duck),
    T_(test_where_masked_fill),
    T_(test_unary),
    T_(test_clamp_and_activations),
    T_(test_fakify_strides),
    T_(test_elementwise_strides),
    T_(test_log_ops),
    T_(test_conversions),
    T_(test_reductions),
    T_(test_mm_bmm),
    T_(test_mm_guards),
    T_(test_matmul),
    T_(test_linear_addmm),
    T_(test_unbacked_shapes),
    T_(test_arange),
    T_(test_factories),
    T_(test_nonzero_memo),
    T_(test_masked_select),
    T_(test_unique),
    T_(test_repeat_interleave),
    T_(test_item),
    T_(test_inplace_binary),
    T_(test_inplace_misc),
    T_(test_inplace_metadata),
    T_(test_inplace_freshness),
#undef T_
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("ops", tests, NULL, NULL);
  sdb_expr_reset();
  return rc;
}
