/*
** ops_matmul.c — matrix products (mm, bmm, matmul, linear, addmm).
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** Matrix products
** ---------------------------------------------------------------------- */

static int same_dtype(const sdb_fake *x, const sdb_fake *y, sdb_err *err) {
  if (x->dtype == y->dtype) return SDB_OK;
  return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                     "mat1 and mat2 must have the same dtype, but got %s and %s",
                     scalar_name(x->dtype), scalar_name(y->dtype));
}

/* meta_mm's torch._check on [n, m1] X [m2, p] */
static int mm_check(sdb_fake_mode *m, const sdb_expr *n, const sdb_expr *m1, const sdb_expr *m2,
                    const sdb_expr *p, sdb_err *err) {
  return tcheck(m, sdb_eq(m1, m2),
                msgf(m->env, "a and b must have same reduction dim, but got [{e}, {e}] X [{e}, {e}].",
                     n, m1, m2, p), err);
}

/* common_meta_baddbmm_bmm's check on [bs, rows, k] and [b2, k2, cols] */
static int bmm_check(sdb_fake_mode *m, const sdb_expr *bs, const sdb_expr *k, const sdb_expr *b2,
                     const sdb_expr *k2, sdb_err *err) {
  return tcheck(m, sdb_and(sdb_eq(b2, bs), sdb_eq(k2, k)),
                msgf(m->env, "Expected size for first two dimensions of batch2 tensor to be: "
                             "[{e}, {e}] but got: [{e}, {e}].", bs, k, b2, k2), err);
}

/* meta_mv's check on [r, c] @ [v] */
static int mv_check(sdb_fake_mode *m, const sdb_expr *r, const sdb_expr *c, const sdb_expr *v,
                    sdb_err *err) {
  return tcheck(m, sdb_eq(c, v), msgf(m->env, "size mismatch, got input ({e}x{e}), vec ({e})", r, c, v), err);
}

int m_mm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim != 2) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "a must be 2D");
  if (y->ndim != 2) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "b must be 2D");
  if ((rc = same_dtype(x, y, err))) return rc;
  if ((rc = mm_check(m, x->sizes[0], x->sizes[1], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[2] = {x->sizes[0], y->sizes[1]};
  return out_new(m, x->dtype, sdb_fake_device(x), shape, 2, x->requires_grad || y->requires_grad, out, err);
}

int m_bmm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim != 3) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "batch1 must be a 3D tensor");
  if (y->ndim != 3) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "batch2 must be a 3D tensor");
  if (x->dtype != y->dtype)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "expected scalar type %s but found %s",
                       sdb_dtype_name(x->dtype), sdb_dtype_name(y->dtype));
  if ((rc = bmm_check(m, x->sizes[0], x->sizes[2], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[3] = {x->sizes[0], x->sizes[1], y->sizes[2]};
  return out_new(m, x->dtype, sdb_fake_device(x), shape, 3, x->requires_grad || y->requires_grad, out, err);
}

/* torch.matmul as torch/_decomp's matmul takes it apart: dot, mv, mm, the
** folded mm/mv when one side is a contiguous stack of matrices, else a
** broadcast bmm. The checks (and messages) are those of the product it
** becomes. `t1_rg` / `t2_rg` stand for requires_grad (should_fold). */
static int matmul_shape(sdb_fake_mode *m, const sdb_fake *t1, const sdb_fake *t2,
                        const sdb_expr *const *s1, int d1, const sdb_expr *const *s2, int d2,
                        const sdb_expr **shape, int *n, sdb_err *err) {
  sdb_shape_env *env = m->env;
  int rc;
  *n = 0;
  if (d1 == 0 || d2 == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
  if (d1 == 1 && d2 == 1)
    return static_check(m, sdb_eq(s1[0], s2[0]),
                        msgf(env, "inconsistent tensor size, expected tensor [{e}] and src [{e}] to have "
                                  "the same number of elements, but got {e} and {e} elements respectively",
                             s1[0], s2[0], s1[0], s2[0]), err);
  if (d1 == 2 && d2 == 1) {
    if ((rc = mv_check(m, s1[0], s1[1], s2[0], err))) return rc;
    shape[(*n)++] = s1[0];
    return SDB_OK;
  }
  if (d1 == 1 && d2 == 2) {
    if ((rc = mm_check(m, sdb_int(1), s1[0], s2[0], s2[1], err))) return rc;
    shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  if (d1 == 2 && d2 == 2) {
    if ((rc = mm_check(m, s1[0], s1[1], s2[0], s2[1], err))) return rc;
    shape[(*n)++] = s1[0];
    shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  /* should_fold */
  bool big1 = d1 >= d2;
  const sdb_fake *tb = big1 ? t1 : t2, *ts = big1 ? t2 : t1;
  int db = big1 ? d1 : d2, dsm = big1 ? d2 : d1;
  bool fold = false;
  if (db >= 3 && dsm <= 2) {
    if (ts && ts->requires_grad) fold = true;
    else if (d1 == 2) fold = false;
    else fold = tb && sdb_fake_is_contiguous(env, tb);
  }
  if (fold && d1 >= d2) {                /* t1 folded into [prod(batch, n), m1] */
    const sdb_expr *folded = prod_of(s1, d1 - 1);
    if (!folded) return sdb_err_expr(err);
    if (d2 == 2) rc = mm_check(m, folded, s1[d1 - 1], s2[0], s2[1], err);
    else rc = mv_check(m, folded, s1[d1 - 1], s2[0], err);
    if (rc) return rc;
    for (int i = 0; i < d1 - 1; i++) shape[(*n)++] = s1[i];
    if (d2 == 2) shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  if (fold) {                            /* t2.mT folded; t1 on the other side */
    const sdb_expr *mt[MAX_DIMS];
    for (int i = 0; i < d2; i++) mt[i] = s2[i];
    mt[d2 - 2] = s2[d2 - 1];
    mt[d2 - 1] = s2[d2 - 2];
    const sdb_expr *folded = prod_of(mt, d2 - 1);
    if (!folded) return sdb_err_expr(err);
    if (d1 == 2) rc = mm_check(m, folded, mt[d2 - 1], s1[1], s1[0], err);
    else rc = mv_check(m, folded, mt[d2 - 1], s1[0], err);
    if (rc) return rc;
    for (int i = 0; i < d2 - 2; i++) shape[(*n)++] = s2[i];
    if (d1 == 2) shape[(*n)++] = s1[0];
    shape[(*n)++] = s2[d2 - 1];
    return SDB_OK;
  }
  /* broadcast bmm */
  const sdb_expr *nn = d1 > 1 ? s1[d1 - 2] : sdb_int(1), *m1 = s1[d1 - 1];
  const sdb_expr *m2 = d2 > 1 ? s2[d2 - 2] : s2[d2 - 1];
  const sdb_expr *p = d2 > 1 ? s2[d2 - 1] : sdb_int(1);
  int nb1 = d1 > 2 ? d1 - 2 : 0, nb2 = d2 > 2 ? d2 - 2 : 0;
  if (d1 == 3 && d2 == 3) (void)sdb_guard_or_true(env, sdb_ne(s1[0], s2[0]));
  const sdb_expr *batch[MAX_DIMS];
  int nb = 0;
  if ((rc = sdb_broadcast_shapes(env, s1, nb1, s2, nb2, batch, &nb, err))) return rc;
  const sdb_expr *bprod = prod_of(batch, nb);
  if (!bprod) return sdb_err_expr(err);
  if ((rc = bmm_check(m, bprod, m1, bprod, m2, err))) return rc;
  for (int i = 0; i < nb; i++) shape[(*n)++] = batch[i];
  if (d1 > 1) shape[(*n)++] = nn;
  if (d2 > 1) shape[(*n)++] = p;
  return SDB_OK;
}

int m_matmul(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if ((rc = same_dtype(x, y, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = matmul_shape(m, x, y, x->sizes, x->ndim, y->sizes, y->ndim, shape, &n, err))) return rc;
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad || y->requires_grad, out, err);
}

/* linear(input, weight, bias=None): addmm for 2-D input with a bias, else
** matmul(input, weight.t()) and the bias added in place. */
int m_linear(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *w = NULL, *b = NULL;
  int rc = ah_tensor(op, a, 0, "input", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "weight", &w, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  const sdb_value *bv = ah_get(a, 2, "bias");
  if (bv && bv->kind == SDB_V_TENSOR) b = bv->tensor;
  else if (bv && bv->kind != SDB_V_NONE) return bad_arg(op, "bias", 2, "Tensor", bv, err);
  if (x->ndim == 0 || w->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "both arguments to linear need to be at least 1D, but they are %dD and %dD",
                       x->ndim, w->ndim);
  vmeta wt;
  if ((rc = t_meta(op, w, &wt, err))) return rc;
  if ((rc = same_dtype(x, w, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  /* weight.t() as matmul sees it: the shape of wt, the grad of w. A 2-D
  ** second operand is never the one whose contiguity decides folding
  ** (that is the one of 3 dims and more), so w itself stands for it. */
  if ((rc = matmul_shape(m, x, w, x->sizes, x->ndim, wt.sizes, wt.n, shape, &n, err))) return rc;
  if (b) {
    if (x->ndim == 2) {         /* addmm: self.expand((n, p)) */
      vmeta e;
      if ((rc = expand_meta(m, op, b, shape, n, &e, err))) return rc;
    } else if ((rc = inplace_broadcast(m, shape, n, b->sizes, b->ndim, err))) {
      return rc;
    }
  }
  bool rg = x->requires_grad || w->requires_grad || (b && b->requires_grad);
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, rg, out, err);
}

/* addmm(self, mat1, mat2, *, beta=1, alpha=1) */
int m_addmm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *s = NULL, *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &s, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat1", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  if (x->ndim != 2)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "mat1 must be a matrix, got %d-D tensor", x->ndim);
  if (y->ndim != 2)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "mat2 must be a matrix, got %d-D tensor", y->ndim);
  if ((rc = same_dtype(x, y, err))) return rc;
  if ((rc = mm_check(m, x->sizes[0], x->sizes[1], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[2] = {x->sizes[0], y->sizes[1]};
  vmeta e;
  if ((rc = expand_meta(m, op, s, shape, 2, &e, err))) return rc;
  bool rg = s->requires_grad || x->requires_grad || y->requires_grad;
  return out_new(m, x->dtype, sdb_fake_device(x), shape, 2, rg, out, err);
}
