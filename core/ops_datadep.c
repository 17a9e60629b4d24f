/*
** ops_datadep.c — data-dependent operators (nonzero, item, masked_select, unique,
** repeat_interleave), as torch/_subclasses/fake_impls.py.
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** Data-dependent ops (fake_impls.py)
** ---------------------------------------------------------------------- */

static int emit_memo_hit(sdb_fake_mode *m, const sdb_expr *sym, const char *what) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_MEMO_HIT;
  sdb_event_more e_sym = {.sym = sym};
  e.more = &e_sym;
  e.text = what;
  sdb_emit(sdb_shape_env_events(m->env), &e);
  return 0;
}

/* The upper bound of numel for a data-dependent size: exact when static,
** the bound of the product otherwise (int_oo when unbounded, where PyTorch
** says sys.maxsize - 1). */
static int64_t numel_upper(sdb_fake_mode *m, const sdb_expr *numel) {
  if (numel->kind == SDB_INT) return numel->ival;
  return sdb_bound_in(m->env, numel).hi;
}

/* nonzero's size: u in [0, numel], size-like, memoized per epoch and
** version; 0 without a symbol when numel is statically 0. */
int nonzero_nnz(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **out, sdb_err *err) {
  const sdb_expr *nnz = sdb_memo_get(x, SDB_MEMO_NONZERO);
  if (nnz) {
    emit_memo_hit(m, nnz, "nonzero");
  } else {
    const sdb_expr *numel = sdb_fake_numel(x);
    if (!numel) return sdb_err_expr(err);
    if (numel->kind == SDB_INT && numel->ival == 0) nnz = sdb_int(0);
    else nnz = sdb_create_unbacked_size(m->env, 0, numel_upper(m, numel));
    if (!nnz) return oom(err);
    if (!sdb_memo_set(x, SDB_MEMO_NONZERO, nnz)) return oom(err);
  }
  *out = nnz;
  return SDB_OK;
}

/* nonzero: i64[u0, ndim] with strides (1, u0) */
int m_nonzero(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
              sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "as_tuple", "use unbind(1) on the result", err))) return rc;
  const sdb_expr *nnz = NULL;
  if ((rc = nonzero_nnz(m, x, &nnz, err))) return rc;
  const sdb_expr *sizes[2] = {nnz, sdb_int(x->ndim)};
  const sdb_expr *strides[2] = {sdb_int(1), nnz};
  sdb_fake *r = sdb_fake_new_strided(m, SDB_I64, sdb_fake_device(x), sizes, strides, 2, sdb_int(0), NULL);
  if (!r) return oom(err);
  return give(out, r);
}

/* item: an unbacked int / float / bool by dtype, memoized per epoch */
int m_item(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
           sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *numel = sdb_fake_numel(x);
  if (numel && numel->kind == SDB_INT && numel->ival != 1)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "a Tensor with %lld elements cannot be converted to Scalar",
                       (long long)numel->ival);
  const sdb_expr *r = sdb_memo_get(x, SDB_MEMO_ITEM);
  if (r) {
    emit_memo_hit(m, r->kind == SDB_EQ ? r->args[0] : r, "item");
  } else {
    if (sdb_dtype_is_floating(x->dtype)) r = sdb_create_unbacked_symfloat(m->env);
    else if (x->dtype == SDB_BOOL) r = sdb_create_unbacked_symbool(m->env);
    else r = sdb_create_unbacked_symint(m->env);
    if (!r) return oom(err);
    if (!sdb_memo_set(x, SDB_MEMO_ITEM, r)) return oom(err);
  }
  if (sdb_dtype_is_floating(x->dtype)) *out = sdb_value_symfloat(r);
  else if (x->dtype == SDB_BOOL) *out = sdb_value_bool(r);
  else *out = sdb_value_int(r);
  return SDB_OK;
}

/* masked_select(self, mask): 1-D of a fresh size, no memo; the range is
** [0, numel] only when numel > 2 (PyTorch's quirk: otherwise unbounded). */
int m_masked_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                    sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mask", &mask, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (mask->dtype != SDB_BOOL)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "masked_select: expected BoolTensor for mask");
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  int64_t num = numel_upper(m, numel);
  const sdb_expr *nnz = sdb_create_unbacked_size(m->env, 0, num > 2 ? num : SDB_PINF);
  if (!nnz) return oom(err);
  return out_new(m, x->dtype, sdb_fake_device(x), &nnz, 1, x->requires_grad, out, err);
}

/* _unique: values of a fresh size (memoized on self when dim is None and
** not consecutive: there is no unique_consecutive memo slot), inverse and
** counts when asked. */
static int unique_common(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                         sdb_err *err, bool consecutive) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool sorted = true, inv = false, counts = false;
  size_t base = consecutive ? 1 : 2;
  if (!consecutive && (rc = ah_bool(op, a, 1, "sorted", true, &sorted, err))) return rc;
  if ((rc = ah_bool(op, a, base, "return_inverse", false, &inv, err))) return rc;
  if ((rc = ah_bool(op, a, base + 1, "return_counts", false, &counts, err))) return rc;
  if ((rc = ah_max_pos(op, a, base + 3, err))) return rc;
  const sdb_value *dv = ah_get(a, base + 2, "dim");
  bool has_dim = dv && dv->kind != SDB_V_NONE;
  int64_t dim = 0;
  if (has_dim && (rc = ah_dim(op, a, base + 2, "dim", x->ndim, 0, true, &dim, err))) return rc;
  /* no symbol when the whole tensor is statically empty; the bound is the
  ** numel (or the size along dim) when static, else unbounded */
  const sdb_expr *total = sdb_fake_numel(x);
  const sdb_expr *numel = has_dim ? (x->ndim ? x->sizes[dim] : sdb_int(1)) : total;
  if (!numel || !total) return sdb_err_expr(err);
  bool memo = !has_dim && !consecutive;
  const sdb_expr *nnz = memo ? sdb_memo_get(x, SDB_MEMO_UNIQUE) : NULL;
  if (nnz) {
    emit_memo_hit(m, nnz, "unique");
  } else {
    if (total->kind == SDB_INT && total->ival == 0) nnz = sdb_int(0);
    else nnz = sdb_create_unbacked_size(m->env, 0, numel->kind == SDB_INT ? numel->ival : SDB_PINF);
    if (!nnz) return oom(err);
    if (memo && !sdb_memo_set(x, SDB_MEMO_UNIQUE, nnz)) return oom(err);
  }
  sdb_value vals = SDB_VALUE_NONE, iv = SDB_VALUE_NONE, cv = SDB_VALUE_NONE;
  if (!has_dim) {
    rc = out_new(m, x->dtype, sdb_fake_device(x), &nnz, 1, false, &vals, err);
  } else {
    const sdb_expr *shape[MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
    if (x->ndim) shape[dim] = nnz;
    rc = out_new(m, x->dtype, sdb_fake_device(x), shape, x->ndim, false, &vals, err);
  }
  /* inverse and counts are arg.new_empty(...) in fake_impls: self's dtype
  ** (eager gives int64; the fake tensors PyTorch traces with do not) */
  if (!rc && inv) {
    if (has_dim) rc = out_new(m, x->dtype, sdb_fake_device(x), &numel, 1, false, &iv, err);
    else rc = out_new(m, x->dtype, sdb_fake_device(x), x->sizes, x->ndim, false, &iv, err);
  }
  if (!rc && counts) rc = out_new(m, x->dtype, sdb_fake_device(x), &nnz, 1, false, &cv, err);
  if (rc) {
    sdb_value_free(&vals);
    sdb_value_free(&iv);
    sdb_value_free(&cv);
    return rc;
  }
  (void)sorted;
  if (!inv && !counts) {
    *out = vals;
    return SDB_OK;
  }
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, 1 + (size_t)inv + (size_t)counts);
  if (t.kind != SDB_V_TUPLE) {
    sdb_value_free(&vals);
    sdb_value_free(&iv);
    sdb_value_free(&cv);
    return oom(err);
  }
  size_t k = 0;
  t.items[k++] = vals;
  if (inv) t.items[k++] = iv;
  if (counts) t.items[k++] = cv;
  *out = t;
  return SDB_OK;
}

int m_unique(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unique_common(m, op, a, out, err, false);
}
int m_unique_consecutive(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                         sdb_err *err) {
  return unique_common(m, op, a, out, err, true);
}

/* repeat_interleave(repeats) (repeats a 1-D int tensor) -> [u], u fresh,
** size-like in [0, int_oo], no memo; self.repeat_interleave(repeats, dim=None)
** with an int (sizes multiply) or a tensor (the dim becomes a fresh u). */
int m_repeat_interleave(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                        sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *rv = ah_get(a, 1, "repeats");
  const sdb_value *osz = ah_get(a, KW, "output_size");
  if (osz && osz->kind != SDB_V_NONE && !sdb_value_is_int(osz)) return bad_arg(op, "output_size", KW, "int", osz, err);
  const sdb_expr *given = osz && osz->kind != SDB_V_NONE ? int_expr(osz) : NULL;
  if (!rv || rv->kind == SDB_V_NONE) {                 /* torch.repeat_interleave(repeats) */
    if (x->ndim != 1 || !sdb_dtype_is_integral(x->dtype) || x->dtype == SDB_BOOL)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "repeat_interleave only accept 1D vector as repeat");
    const sdb_expr *u = given ? given : sdb_create_unbacked_size(m->env, 0, SDB_PINF);
    if (!u) return oom(err);
    return out_new(m, x->dtype, sdb_fake_device(x), &u, 1, false, out, err);
  }
  const sdb_value *dv = ah_get(a, 2, "dim");
  bool has_dim = dv && dv->kind != SDB_V_NONE;
  int64_t dim = 0;
  if (has_dim && (rc = ah_dim(op, a, 2, "dim", x->ndim, 0, true, &dim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  const sdb_expr *size;
  if (has_dim && x->ndim) {
    for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
    n = x->ndim;
    size = x->sizes[dim];
  } else {
    size = sdb_fake_numel(x);
    n = 1;
    dim = 0;
    if (!size) return sdb_err_expr(err);
  }
  if (rv->kind == SDB_V_TENSOR) {
    sdb_fake *r = rv->tensor;
    if (r->ndim > 1 || !sdb_dtype_is_integral(r->dtype) || r->dtype == SDB_BOOL)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "repeat_interleave only accept 1D vector as repeat");
    const sdb_expr *rn = sdb_fake_numel(r);
    if (!rn) return sdb_err_expr(err);
    if (!known_true(m->env, sdb_eq(rn, sdb_int(1)))) {
      rc = tcheck(m, sdb_eq(rn, size),
                  msgf(m->env, "repeats must have the same size as input along dim, but got repeats.size(0) "
                               "= {e} and input.size({d}) = {e}", rn, dim, size), err);
      if (rc) return rc;
    }
    shape[dim] = given ? given : sdb_create_unbacked_size(m->env, 0, SDB_PINF);
    if (!shape[dim]) return oom(err);
  } else if (sdb_value_is_int(rv)) {
    rc = tcheck(m, sdb_ge(int_expr(rv), sdb_int(0)), strdup("repeats can not be negative"), err);
    if (rc) return rc;
    shape[dim] = sdb_mul(size, int_expr(rv));
    if (!shape[dim]) return sdb_err_expr(err);
  } else {
    return bad_arg(op, "repeats", 1, "Tensor or int", rv, err);
  }
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
}
