/*
** ops_impl.h — private to the operator files (core/ops*.c).
**
** Each meta function mirrors PyTorch's: torch/_subclasses/fake_impls.py for
** the data-dependent ops, torch/_meta_registrations.py, torch/_refs and
** torch/_decomp for the rest (the C++ kernels' checks where no Python meta
** exists). Guards are taken (and symbols allocated) in the same places, so
** the events a trace produces read like PyTorch's logs. A meta function
** never leaves a half-built value in *out on error (sdb_op_call frees it
** anyway).
**
** This header holds what the families share: the helpers of ops_common.c,
** the types several families use, and the meta functions the table in
** ops.c names, grouped by the file that defines them. These names have
** external linkage only so the families can share them: nothing outside
** core/ops*.c includes this header.
*/
#ifndef SDB_OPS_IMPL_H
#define SDB_OPS_IMPL_H

#include "ops.h"
#include "buf.h"
#include "intern.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 64
#define KW ((size_t)-1)    /* keyword-only argument: no position */

typedef enum { CAT_BOOL, CAT_INT, CAT_FLOAT } dcat;

/* torch.result_type: dimensioned tensors decide; zero-dim tensors only when
** of a higher category (bool < integral < floating); Python numbers only
** when of a higher category, then as int64 / the default float32. */
typedef struct promo {
  bool has[3];
  sdb_dtype dt[3];
} promo;

typedef enum {
  BIN_ARITH,      /* add, sub, mul, pow, remainder, floor_divide */
  BIN_DIV,        /* div, true_divide: integral results become float32 */
  BIN_COMPARE,    /* gt, ..., logical_and/or: bool */
  BIN_BITWISE,    /* bitwise_and: integral or bool only */
  BIN_TENSORS     /* maximum, minimum: two tensors */
} bin_kind;

typedef struct bin_res {
  sdb_fake *self;               /* the tensor operand (device) */
  const sdb_expr *shape[MAX_DIMS];
  int n;
  sdb_dtype dt;
  bool rg;
} bin_res;

typedef enum {
  UN_SAME,        /* neg, abs, relu, floor, ceil, round, sign */
  UN_FLOAT,       /* sin, exp, sqrt, sigmoid, ...: integral -> float32 */
  UN_BOOL,        /* logical_not */
  UN_INTEGRAL     /* bitwise_not: integral or bool only */
} un_kind;

typedef enum {
  RED_SUM,      /* sum: integral -> int64 */
  RED_SAME,     /* amax, amin */
  RED_MEAN,     /* mean: floating only */
  RED_PROD,     /* prod: one dim, integral -> int64 */
  RED_BOOL      /* any, all */
} red_kind;

/* Sizes, strides and offset of a view being built. */
typedef struct vmeta {
  const sdb_expr *sizes[MAX_DIMS + 1], *strides[MAX_DIMS + 1];
  int n;
  const sdb_expr *offset;
} vmeta;

/* ops_common.c */
const char *vkind_name(sdb_vkind k);
const sdb_expr *int_expr(const sdb_value *v);
int bad_arg(const sdb_op *op, const char *name, size_t i, const char *want,
            const sdb_value *got, sdb_err *err);
int ah_dims(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
            int ndim, bool varargs, int64_t *dims, int *n, sdb_err *err);
int ah_dim(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
           int ndim, int64_t dflt, bool required, int64_t *out, sdb_err *err);
int ah_tensor_list(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                   const sdb_value **items, size_t *n, sdb_err *err);
int ah_reject(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
              const char *why, sdb_err *err);
int ah_max_pos(const sdb_op *op, const sdb_args *a, size_t max, sdb_err *err);
int oom(sdb_err *err);
const sdb_expr *shown(sdb_shape_env *env, const sdb_expr *e);
char *msgf(sdb_shape_env *env, const char *fmt, ...);
int fail_cond(sdb_fake_mode *m, const sdb_expr *cond, int code, const char *kind,
              char *msg, sdb_err *err);
int tcheck_as(sdb_fake_mode *m, const sdb_expr *cond, char *msg, int code,
              const char *kind, sdb_err *err);
int tcheck(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err);
/* cond is statically true: a torch._check that cannot fail, whose message
** need not be built (formatting it was most of a passing check's cost) */
bool static_true(sdb_fake_mode *m, const sdb_expr *cond);
int static_check(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err);
bool known_true(sdb_shape_env *env, const sdb_expr *e);
bool maybe_true(sdb_shape_env *env, const sdb_expr *e);
bool is_const_val(const sdb_expr *e, int64_t v);
const char *scalar_name(sdb_dtype d);
dcat cat_of(sdb_dtype d);
void promo_add(promo *p, const sdb_value *v);
sdb_dtype promo_result(const promo *p);
bool can_cast(sdb_dtype from, sdb_dtype to);
int cast_error(sdb_dtype from, sdb_dtype to, sdb_err *err);
int not_implemented_for(const char *kernel, sdb_dtype d, sdb_err *err);
int give(sdb_value *out, sdb_fake *t);
int fail_code(sdb_err *err);
int out_new(sdb_fake_mode *m, sdb_dtype dt, const char *device,
            const sdb_expr *const *sizes, int n, bool rg, sdb_value *out, sdb_err *err);
sdb_fake *mk_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
                  const sdb_expr *const *strides, int n, const sdb_expr *offset,
                  sdb_err *err);
int out_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
             const sdb_expr *const *strides, int n, const sdb_expr *offset,
             sdb_value *out, sdb_err *err);
/* The strides of an elementwise result (torch/_prims_common's
** compute_elementwise_output_strides over its tensor operands, CPU scalars
** aside, each broadcast to SHAPE): contiguous, channels-last, or the
** operands' dim order (nonzero's (1, u0) stays so). 0, or -1 on an
** expression error. */
int elementwise_strides(sdb_shape_env *env, sdb_fake *const *ops, int nops,
                        const sdb_expr *const *shape, int n, const sdb_expr **st);
int out_elementwise(sdb_fake_mode *m, sdb_fake *const *ops, int nops, const bin_res *r,
                    sdb_value *out, sdb_err *err);
int out_like(sdb_fake_mode *m, sdb_fake *x, sdb_dtype dt, const char *device, bool rg,
             sdb_value *out, sdb_err *err);
const sdb_expr *prod_of(const sdb_expr *const *v, int n);
int same_shape(sdb_fake_mode *m, const sdb_expr *const *a, int na, const sdb_expr *const *b,
               int nb, const char *fmt, sdb_err *err);
int inplace_broadcast(sdb_fake_mode *m, const sdb_expr *const *self, int ns,
                      const sdb_expr *const *other, int no, sdb_err *err);

/* ops_elementwise.c */
bool is_number(const sdb_value *v);
int binary_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_value *x,
                const sdb_value *y, bin_kind kind, bin_res *r, sdb_err *err);
int binary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
           sdb_value *out, sdb_err *err, bin_kind kind);
int rounding_mode(const sdb_op *op, const sdb_args *a, bin_kind *kind, sdb_err *err);
int mask_value_check(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                     sdb_fake **x, sdb_fake **mask, sdb_err *err);
int unary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
          sdb_err *err, un_kind kind);
int clamp_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, bin_res *r,
               sdb_err *err);
bool looks_like_device(const char *s);

/* ops_reduce.c */
int reduction(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
              sdb_value *out, sdb_err *err, red_kind kind);

/* ops_view.c */
void vmeta_of(const sdb_fake *x, vmeta *r);
int out_vmeta(sdb_fake_mode *m, sdb_fake *x, const vmeta *r, sdb_value *out, sdb_err *err);
int unsqueeze_meta(const sdb_op *op, const sdb_fake *x, int64_t dim, vmeta *r, sdb_err *err);
int squeeze_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, const sdb_fake *x,
                 vmeta *r, sdb_err *err);
int transpose_meta(const sdb_op *op, const sdb_fake *x, int64_t d0, int64_t d1, vmeta *r,
                   sdb_err *err);
int transpose_args(const sdb_op *op, const sdb_args *a, sdb_fake **x, int64_t *d0,
                   int64_t *d1, sdb_err *err);
int t_meta(const sdb_op *op, const sdb_fake *x, vmeta *r, sdb_err *err);
int expand_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x,
                const sdb_expr *const *target, int nt, vmeta *r, sdb_err *err);

/* ops_index.c */
bool is_index_dtype(sdb_dtype d);
int select_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x, int64_t dim,
                const sdb_expr *index, vmeta *r, sdb_err *err);
const sdb_expr *smax(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b);

/* ops_factory.c */
int check_sizes(sdb_fake_mode *m, const sdb_expr *const *sizes, int n, sdb_err *err);

/* ops_datadep.c */
int nonzero_nnz(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **out, sdb_err *err);

/* Meta functions, as the table calls them. */
#define SDB_META(name) \
  int name(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err)

/* ops_elementwise.c */
SDB_META(m_arith); SDB_META(m_div); SDB_META(m_compare); SDB_META(m_bitwise);
SDB_META(m_tensors); SDB_META(m_where); SDB_META(m_masked_fill); SDB_META(m_un_same); SDB_META(m_relu); SDB_META(m_alias);
SDB_META(m_convert_element_type); SDB_META(m_scalar_tensor);
SDB_META(m_un_float); SDB_META(m_un_bool); SDB_META(m_un_integral); SDB_META(m_clamp);
SDB_META(m_gelu); SDB_META(m_silu); SDB_META(m_softmax); SDB_META(m_dropout); SDB_META(m_to);
SDB_META(m_to_named); SDB_META(m_type_as);

/* ops_reduce.c */
SDB_META(m_sum); SDB_META(m_red_same); SDB_META(m_mean); SDB_META(m_prod); SDB_META(m_red_bool);
SDB_META(m_maxmin); SDB_META(m_argmaxmin); SDB_META(m_stdvar); SDB_META(m_norm);

/* ops_view.c */
SDB_META(m_view); SDB_META(m_reshape); SDB_META(m_view_as); SDB_META(m_reshape_as);
SDB_META(m_flatten); SDB_META(m_unflatten); SDB_META(m_unsqueeze); SDB_META(m_squeeze);
SDB_META(m_transpose); SDB_META(m_t); SDB_META(m_permute); SDB_META(m_movedim);
SDB_META(m_expand); SDB_META(m_expand_as); SDB_META(m_contiguous); SDB_META(m_flip);
SDB_META(m_roll); SDB_META(m_as_strided);

/* ops_matmul.c */
SDB_META(m_mm); SDB_META(m_bmm); SDB_META(m_matmul); SDB_META(m_linear); SDB_META(m_addmm);

/* ops_join.c */
SDB_META(m_cat); SDB_META(m_stack); SDB_META(m_split); SDB_META(m_chunk); SDB_META(m_unbind);
SDB_META(m_repeat); SDB_META(m_tile);

/* ops_index.c */
SDB_META(m_index_select); SDB_META(m_gather); SDB_META(m_scatter); SDB_META(m_narrow);
SDB_META(m_select); SDB_META(m_slice); SDB_META(m_index); SDB_META(m_clone); SDB_META(m_detach);

/* ops_factory.c */
SDB_META(m_factory); SDB_META(m_full); SDB_META(m_randint); SDB_META(m_like); SDB_META(m_new);
SDB_META(m_eye); SDB_META(m_arange); SDB_META(m_tensor);

/* ops_datadep.c */
SDB_META(m_nonzero); SDB_META(m_item); SDB_META(m_masked_select); SDB_META(m_unique);
SDB_META(m_unique_consecutive); SDB_META(m_repeat_interleave);

/* ops_inplace.c */
SDB_META(m_arith_); SDB_META(m_div_); SDB_META(m_fill_); SDB_META(m_plain_);
SDB_META(m_random_); SDB_META(m_copy_); SDB_META(m_clamp_); SDB_META(m_unsqueeze_);
SDB_META(m_squeeze_); SDB_META(m_transpose_); SDB_META(m_t_); SDB_META(m_resize_);
SDB_META(m_masked_fill_); SDB_META(m_index_put_like_); SDB_META(m_index_put_like);

#endif
