/*
** ops_reduce.c — reductions (sum, mean, max/min, std/var, norm, ...).
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** Reductions
** ---------------------------------------------------------------------- */

/* The dims reduced over (dim at position di; absent, None or [] = all) and
** keepdim (position ki). */
static int red_dims(const sdb_op *op, const sdb_args *a, size_t di, size_t ki, const sdb_fake *x,
                    bool *mask, bool *all, bool *keepdim, sdb_err *err) {
  int64_t dims[MAX_DIMS];
  int nd = -1;
  int rc = ah_dims(op, a, di, "dim", x->ndim, false, dims, &nd, err);
  if (rc) return rc;
  for (int i = 0; i < MAX_DIMS; i++) mask[i] = false;
  *all = nd <= 0;
  for (int k = 0; k < nd; k++) {
    if (mask[dims[k]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "dim %lld appears multiple times in the list of dims", (long long)dims[k]);
    mask[dims[k]] = true;
  }
  return ah_bool(op, a, ki, "keepdim", false, keepdim, err);
}

static void red_shape(const sdb_fake *x, const bool *mask, bool all, bool keepdim,
                      const sdb_expr **shape, int *n) {
  *n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (all || mask[i]) {
      if (keepdim) shape[(*n)++] = sdb_int(1);
    } else {
      shape[(*n)++] = x->sizes[i];
    }
  }
}

/* op(self, dim=None, keepdim=False, *, dtype=None) */
int reduction(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
              sdb_value *out, sdb_err *err, red_kind kind) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if (kind == RED_PROD) {
    const sdb_value *dv = ah_get(a, 1, "dim");
    if (dv && (dv->kind == SDB_V_LIST || dv->kind == SDB_V_TUPLE))
      return bad_arg(op, "dim", 1, "int", dv, err);
  }
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  int dtype = -1;
  bool has_dtype = kind == RED_SUM || kind == RED_MEAN || kind == RED_PROD;
  if (has_dtype && (rc = ah_dtype(op, a, 3, "dtype", &dtype, err))) return rc;
  if ((rc = ah_max_pos(op, a, has_dtype ? 4 : 3, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  sdb_dtype dt = x->dtype;
  switch (kind) {
    case RED_SUM: case RED_PROD:
      dt = dtype >= 0 ? (sdb_dtype)dtype : sdb_dtype_is_integral(x->dtype) ? SDB_I64 : x->dtype;
      break;
    case RED_SAME:
      break;
    case RED_MEAN:
      if (dtype >= 0 && !sdb_dtype_is_floating((sdb_dtype)dtype))
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "mean(): could not infer output dtype. Optional dtype must be either "
                           "a floating point or complex dtype. Got: %s", scalar_name((sdb_dtype)dtype));
      if (dtype < 0 && !sdb_dtype_is_floating(x->dtype))
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: %s", scalar_name(x->dtype));
      if (dtype >= 0) dt = (sdb_dtype)dtype;
      break;
    case RED_BOOL:
      dt = x->dtype == SDB_U8 ? SDB_U8 : SDB_BOOL;
      break;
  }
  return out_new(m, dt, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
}

int m_sum(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_SUM);
}
int m_red_same(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_SAME);
}
int m_mean(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_MEAN);
}
int m_prod(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_PROD);
}
int m_red_bool(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_BOOL);
}

/* max/min(self) -> 0-dim; max/min(self, dim, keepdim) -> (values, indices);
** max/min(self, other) -> maximum/minimum. */
int m_maxmin(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (!d) d = ah_get(a, KW, "other");
  if (d && d->kind == SDB_V_TENSOR) {
    bin_res r;
    sdb_value self = SDB_VALUE_NONE;
    self.kind = SDB_V_TENSOR;
    self.tensor = x;
    if ((rc = binary_meta(m, op, &self, d, BIN_TENSORS, &r, err))) return rc;
    return out_new(m, r.dt, sdb_fake_device(x), r.shape, r.n, r.rg, out, err);
  }
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  if (!d || d->kind == SDB_V_NONE) {
    if ((rc = ah_reject(op, a, 2, "keepdim", "keepdim needs a dim", err))) return rc;
    return out_new(m, x->dtype, sdb_fake_device(x), NULL, 0, x->requires_grad, out, err);
  }
  if (d->kind == SDB_V_LIST || d->kind == SDB_V_TUPLE) return bad_arg(op, "dim", 1, "int", d, err);
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, 2);
  if (t.kind != SDB_V_TUPLE) return oom(err);
  rc = out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, &t.items[0], err);
  if (!rc) rc = out_new(m, SDB_I64, sdb_fake_device(x), shape, n, false, &t.items[1], err);
  if (rc) { sdb_value_free(&t); return rc; }
  *out = t;
  return SDB_OK;
}

/* argmax/argmin(self, dim=None, keepdim=False) -> int64 */
int m_argmaxmin(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (d && (d->kind == SDB_V_LIST || d->kind == SDB_V_TUPLE)) return bad_arg(op, "dim", 1, "int", d, err);
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, SDB_I64, sdb_fake_device(x), shape, n, false, out, err);
}

/* std/var(self, dim=None, unbiased=True, keepdim=False, *, correction=None);
** also std(self, unbiased). */
int m_stdvar(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 4, err))) return rc;
  bool mask[MAX_DIMS] = {false}, all = true, keepdim = false, unbiased = true;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (d && d->kind == SDB_V_BOOL && a->npos == 2) {          /* std(self, unbiased) */
    if ((rc = ah_bool(op, a, 1, "unbiased", true, &unbiased, err))) return rc;
  } else {
    if ((rc = red_dims(op, a, 1, 3, x, mask, &all, &keepdim, err))) return rc;
    if ((rc = ah_bool(op, a, 2, "unbiased", true, &unbiased, err))) return rc;
  }
  const sdb_value *c = ah_get(a, KW, "correction");
  if (c && c->kind != SDB_V_NONE && !is_number(c)) return bad_arg(op, "correction", KW, "number", c, err);
  if (!sdb_dtype_is_floating(x->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "std and var only support floating point and complex dtypes");
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
}

/* norm(self, p=2, dim=None, keepdim=False, dtype=None): vector norms. */
int m_norm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 5, err))) return rc;
  const sdb_value *p = ah_get(a, 1, "p");
  if (p && p->kind == SDB_V_STR && strcmp(p->str, "fro"))
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "norm(): p='%s' (a matrix norm) is not supported", p->str);
  if (p && p->kind != SDB_V_NONE && p->kind != SDB_V_STR && !is_number(p))
    return bad_arg(op, "p", 1, "number", p, err);
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 2, 3, x, mask, &all, &keepdim, err))) return rc;
  int dtype = -1;
  if ((rc = ah_dtype(op, a, 4, "dtype", &dtype, err))) return rc;
  if (!sdb_dtype_is_floating(x->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                       scalar_name(x->dtype));
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, dtype >= 0 ? (sdb_dtype)dtype : x->dtype, sdb_fake_device(x), shape, n,
                 x->requires_grad, out, err);
}
