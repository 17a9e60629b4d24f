/*
** ops_factory.c — factories (zeros, full, arange, eye, *_like, new_*, tensor, ...).
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

#include <math.h>

/* ------------------------------------------------------------------------
** Factories
** ---------------------------------------------------------------------- */

/* The dtype=, device= and requires_grad= keywords of a factory. */
static int factory_kw(const sdb_op *op, const sdb_args *a, int *dtype, const char **device,
                      bool *rg, sdb_err *err) {
  int rc = ah_dtype(op, a, KW, "dtype", dtype, err);
  if (rc) return rc;
  const sdb_value *dv = ah_get(a, KW, "device");
  if (dv && dv->kind == SDB_V_STR) {
    if (!looks_like_device(dv->str))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "Expected one of cpu, cuda, meta, mps, xpu, hpu device type at start of device "
                         "string: %s", dv->str);
    *device = dv->str;
  } else if (dv && dv->kind != SDB_V_NONE) {
    return bad_arg(op, "device", KW, "str", dv, err);
  }
  const sdb_value *lv = ah_get(a, KW, "layout");
  if (lv && lv->kind != SDB_V_NONE && !(lv->kind == SDB_V_STR && strstr(lv->str, "strided")))
    return ah_reject(op, a, KW, "layout", "only torch.strided is modelled", err);
  /* pinned host memory changes no metadata; aot graphs pass pin_memory=False */
  bool pinned;
  int rc2 = ah_bool(op, a, KW, "pin_memory", false, &pinned, err);
  if (rc2) return rc2;
  return ah_bool(op, a, KW, "requires_grad", false, rg, err);
}

/* check_size_nonnegative: a guard or a runtime assert when symbolic */
int check_sizes(sdb_fake_mode *m, const sdb_expr *const *sizes, int n, sdb_err *err) {
  for (int i = 0; i < n; i++) {
    int rc = tcheck(m, sdb_ge(sizes[i], sdb_int(0)),
                    msgf(m->env, "Trying to create tensor with negative dimension {e}: {s}", sizes[i], sizes, n),
                    err);
    if (rc) return rc;
  }
  return SDB_OK;
}

static int make_factory(sdb_fake_mode *m, sdb_dtype dt, const char *device,
                        const sdb_expr *const *sizes, int n, bool rg, sdb_value *out, sdb_err *err) {
  int rc = check_sizes(m, sizes, n, err);
  if (rc) return rc;
  if (rg && !sdb_dtype_is_floating(dt))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Only Tensors of floating point and complex dtype can require gradients");
  sdb_fake *r = sdb_meta_empty(m, dt, device, sizes, n, err);
  if (!r) return fail_code(err);
  r->requires_grad = rg;
  return give(out, r);
}

/* The dtype of a fill value: bool -> bool, int -> int64, float -> float32. */
static int fill_dtype(const sdb_op *op, const sdb_value *v, size_t i, sdb_dtype *dt, sdb_err *err) {
  if (!v) return bad_arg(op, "fill_value", i, "number", NULL, err);
  if (v->kind == SDB_V_BOOL) *dt = SDB_BOOL;
  else if (v->kind == SDB_V_INT) *dt = SDB_I64;
  else if (v->kind == SDB_V_FLOAT) *dt = SDB_F32;
  else if (v->kind == SDB_V_TENSOR && v->tensor->ndim == 0) *dt = v->tensor->dtype;
  else return bad_arg(op, "fill_value", i, "number", v, err);
  return SDB_OK;
}

/* zeros/ones/empty/randn/rand(*size, dtype=None, device=None, requires_grad=False) */
int m_factory(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  int rc = ah_sizes(op, a, 0, ah_get(a, KW, "size") ? "size" : NULL, sizes, MAX_DIMS, &n, err);
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (rc) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : SDB_F32;
  if (!strcmp(op->name, "randn") && !sdb_dtype_is_floating(dt)) return not_implemented_for("normal_kernel_cpu", dt, err);
  if (!strcmp(op->name, "rand") && !sdb_dtype_is_floating(dt)) return not_implemented_for("check_uniform_bounds", dt, err);
  return make_factory(m, dt, device, sizes, n, rg, out, err);
}

/* full(size, fill_value, *, dtype=None, ...) */
int m_full(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *sv = ah_get(a, 0, "size");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "size", 0, "tuple of ints", sv, err);
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  sdb_dtype dt = SDB_F32;
  int rc = ah_sizes(op, a, 0, "size", sizes, MAX_DIMS, &n, err);
  if (!rc) rc = fill_dtype(op, ah_get(a, 1, "fill_value"), 1, &dt, err);
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : dt, device, sizes, n, rg, out, err);
}

/* scalar_tensor(s, dtype=None, ...): a 0-dim tensor (float32 unless told) */
int m_scalar_tensor(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                    sdb_err *err) {
  const sdb_value *s = ah_get(a, 0, "s");
  if (!s || !is_number(s)) return bad_arg(op, "s", 0, "number", s, err);
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  int rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : SDB_F32, device, NULL, 0, rg, out, err);
}

/* randint(high, size) / randint(low, high, size): int64 */
int m_randint(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  size_t si = a->npos >= 3 ? 2 : 1;
  const sdb_value *sv = ah_get(a, si, "size");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "size", si, "tuple of ints", sv, err);
  const sdb_expr *lo = sdb_int(0), *hi = NULL;
  int rc = SDB_OK;
  if (si == 2) rc = ah_int(op, a, 0, "low", NULL, &lo, err);
  if (!rc) rc = ah_int(op, a, si - 1, "high", NULL, &hi, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  rc = static_check(m, sdb_lt(lo, hi),
                    msgf(m->env, "random_ expects 'from' to be less than 'to', but got from={e} >= to={e}", lo, hi),
                    err);
  if (rc) return rc;
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = ah_sizes(op, a, si, "size", sizes, MAX_DIMS, &n, err))) return rc;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : SDB_I64, device, sizes, n, rg, out, err);
}

/* zeros_like/ones_like/empty_like/rand_like/randn_like(self, *, dtype=, device=),
** full_like(self, fill_value, ...) */
int m_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool full = !strcmp(op->name, "full_like");
  if (full) {
    sdb_dtype ignored = SDB_F32;
    if ((rc = fill_dtype(op, ah_get(a, 1, "fill_value"), 1, &ignored, err))) return rc;
  }
  if ((rc = ah_max_pos(op, a, full ? 2 : 1, err))) return rc;
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  const sdb_value *mf = ah_get(a, KW, "memory_format");
  if (mf && mf->kind != SDB_V_NONE && !(mf->kind == SDB_V_STR && strstr(mf->str, "preserve_format")))
    return ah_reject(op, a, KW, "memory_format", "only preserve_format is modelled", err);
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : x->dtype;
  if (!strncmp(op->name, "rand", 4) && !sdb_dtype_is_floating(dt))
    return not_implemented_for(op->name[4] == 'n' ? "normal_kernel_cpu" : "check_uniform_bounds", dt, err);
  if (rg && !sdb_dtype_is_floating(dt))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Only Tensors of floating point and complex dtype can require gradients");
  return out_like(m, x, dt, device, rg, out, err);
}

/* new_empty/new_zeros/new_ones(self, size, ...), new_full(self, size, fill_value, ...):
** self's dtype and device unless given. */
int m_new(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool full = !strcmp(op->name, "new_full");
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = sdb_fake_device(x);
  bool rg = false;
  if (full) {
    const sdb_value *sv = ah_get(a, 1, "size");
    if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
      return bad_arg(op, "size", 1, "tuple of ints", sv, err);
    sdb_dtype ignored = SDB_F32;
    if ((rc = fill_dtype(op, ah_get(a, 2, "fill_value"), 2, &ignored, err))) return rc;
    if ((rc = ah_max_pos(op, a, 3, err))) return rc;
    rc = ah_sizes(op, a, 1, "size", sizes, MAX_DIMS, &n, err);
  } else {
    rc = ah_sizes(op, a, 1, ah_get(a, KW, "size") ? "size" : NULL, sizes, MAX_DIMS, &n, err);
  }
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (rc) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : x->dtype, device, sizes, n, rg, out, err);
}

/* eye(n, m=None, *, dtype=None, ...) */
int m_eye(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_expr *sizes[2] = {NULL, NULL};
  int rc = ah_int(op, a, 0, "n", NULL, &sizes[0], err);
  if (!rc) rc = ah_int(op, a, 1, "m", sizes[0], &sizes[1], err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  for (int i = 0; i < 2; i++) {
    rc = tcheck(m, sdb_ge(sizes[i], sdb_int(0)),
                msgf(m->env, i ? "m must be greater or equal to 0, got {e}" : "n must be greater or equal to 0, got {e}",
                     sizes[i]), err);
    if (rc) return rc;
  }
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : SDB_F32, device, sizes, 2, rg, out, err);
}

/* arange(end) / arange(start, end, step=1): int64 for ints, float32 when
** any is a float; length ceil((end - start) / step) as a FloorDiv. */
int m_arange(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  int rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  const sdb_value *v[3] = {NULL, NULL, NULL};   /* start, end, step */
  if (a->npos == 1 && !ah_get(a, KW, "end")) {
    v[1] = &a->pos[0];
    v[2] = ah_get(a, KW, "step");
  } else {
    v[0] = ah_get(a, 0, "start");
    v[1] = ah_get(a, 1, "end");
    v[2] = ah_get(a, 2, "step");
  }
  if (!v[1]) return bad_arg(op, "end", 1, "number", NULL, err);
  static const char *const names[3] = {"start", "end", "step"};
  bool any_float = false;
  for (int k = 0; k < 3; k++) {
    if (!v[k] || v[k]->kind == SDB_V_NONE) { v[k] = NULL; continue; }
    if (v[k]->kind == SDB_V_FLOAT) any_float = true;
    else if (!sdb_value_is_int(v[k])) return bad_arg(op, names[k], (size_t)k, "number", v[k], err);
  }
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : any_float ? SDB_F32 : SDB_I64;
  const sdb_expr *len = NULL;
  if (any_float) {
    double d[3] = {0.0, 0.0, 1.0};
    for (int k = 0; k < 3; k++) {
      if (!v[k]) continue;
      int64_t iv;
      if (v[k]->kind == SDB_V_FLOAT && !v[k]->expr) d[k] = v[k]->fval;
      else if (sdb_value_is_const_int(v[k], &iv)) d[k] = (double)iv;
      else
        return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                           "arange(): a symbolic '%s' with float arguments is not supported", names[k]);
    }
    if (d[2] == 0.0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "step must be nonzero");
    if ((d[2] > 0 && d[1] < d[0]) || (d[2] < 0 && d[1] > d[0]))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "upper bound and larger bound inconsistent with step sign");
    double l = ceil((d[1] - d[0]) / d[2]);
    if (!(l >= 0 && l < 9.0e15))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "arange(): invalid length %g", l);
    len = sdb_int((int64_t)l);
  } else {
    const sdb_expr *start = sdb_int(0), *end = NULL;
    int64_t step = 1;
    if (v[0]) start = int_expr(v[0]);
    end = int_expr(v[1]);
    if (v[2] && !sdb_value_is_const_int(v[2], &step))
      return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                         "arange(): a symbolic step is not supported");
    if (step == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "step must be nonzero");
    rc = tcheck(m, step > 0 ? sdb_ge(end, start) : sdb_le(end, start),
                strdup("upper bound and larger bound inconsistent with step sign"), err);
    if (rc) return rc;
    const sdb_expr *span = sdb_sub(end, start);
    len = sdb_floordiv(sdb_add(span, sdb_int(step > 0 ? step - 1 : step + 1)), sdb_int(step));
    if (!len) return sdb_err_expr(err);
  }
  return make_factory(m, dt, device, &len, 1, rg, out, err);
}

/* The shape of nested lists (rectangular) and the kind of their numbers. */
static int data_shape(const sdb_op *op, const sdb_value *v, int depth, const sdb_expr **shape,
                      int *n, bool *fixed, int *kind, sdb_err *err) {
  if (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE) {
    if (depth >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
    if (!*fixed && depth == *n) shape[(*n)++] = sdb_int((int64_t)v->n);
    else if (depth >= *n || shape[depth]->ival != (int64_t)v->n)
      return sdb_err_set(err, SDB_E_INVALID, "ValueError",
                         "expected sequence of length %lld at dim %d (got %zu)",
                         depth < *n ? (long long)shape[depth]->ival : 0LL, depth, v->n);
    if (v->n == 0) *fixed = true;
    for (size_t k = 0; k < v->n; k++) {
      int rc = data_shape(op, &v->items[k], depth + 1, shape, n, fixed, kind, err);
      if (rc) return rc;
    }
    return SDB_OK;
  }
  if (v->kind == SDB_V_TENSOR)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "%s(): tensors inside the data are not supported", op->name);
  if (!is_number(v)) return bad_arg(op, "data", 0, "a number or a list of numbers", v, err);
  if (!*fixed) *fixed = true;
  else if (depth != *n)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "expected sequence of length %lld at dim %d (got a number)",
                       depth < *n ? (long long)shape[depth]->ival : 0LL, depth);
  int k = v->kind == SDB_V_BOOL ? 0 : v->kind == SDB_V_INT ? 1 : 2;
  if (k > *kind) *kind = k;
  return SDB_OK;
}

/* tensor(data, *, dtype=None, device=None, requires_grad=False): a number is
** 0-dim, (nested) lists give constant sizes; bool -> bool, int -> int64,
** float -> float32 (an empty list is float32). */
int m_tensor(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *d = ah_get(a, 0, "data");
  if (!d) return bad_arg(op, "data", 0, "a number or a list of numbers", NULL, err);
  int rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0, kind = -1, dtype = -1;
  bool fixed = false, rg = false;
  const char *device = NULL;
  if ((rc = data_shape(op, d, 0, shape, &n, &fixed, &kind, err))) return rc;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype
               : kind == 0 ? SDB_BOOL : kind == 1 ? SDB_I64 : SDB_F32;
  return make_factory(m, dt, device, shape, n, rg, out, err);
}
