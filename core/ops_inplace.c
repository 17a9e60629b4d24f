/*
** ops_inplace.c — in-place operators: they mutate self's metadata or data.
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** In-place ops: they mutate self's metadata or data, always bump the
** version counter (invalidating memos) and return self itself.
** ---------------------------------------------------------------------- */

static int inplace_done(sdb_fake *x, sdb_value *out) {
  sdb_fake_bump_version(x);
  *out = sdb_value_tensor(x);
  return SDB_OK;
}

/* New metadata in place (bumps the version once). */
static int inplace_meta(sdb_fake *x, const vmeta *r, sdb_value *out, sdb_err *err) {
  if (sdb_fake_set_metadata(x, r->sizes, r->strides, r->n, r->offset)) return oom(err);
  *out = sdb_value_tensor(x);
  return SDB_OK;
}

/* The result of an in-place elementwise op must keep self's shape and fit
** self's dtype. */
static int inplace_result(sdb_fake_mode *m, sdb_fake *x, const bin_res *r, sdb_err *err) {
  int rc = same_shape(m, x->sizes, x->ndim, r->shape, r->n,
                      "output with shape {s} doesn't match the broadcast shape {s}", err);
  if (rc) return rc;
  if (!can_cast(r->dt, x->dtype)) return cast_error(r->dt, x->dtype, err);
  if (r->rg && sdb_dtype_is_floating(x->dtype)) x->requires_grad = true;
  return SDB_OK;
}

static int binary_inplace(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                          sdb_err *err, bin_kind kind) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *alpha = ah_get(a, 2, "alpha");
  if (alpha && alpha->kind != SDB_V_NONE && !is_number(alpha)) return bad_arg(op, "alpha", 2, "number", alpha, err);
  bin_res r;
  if ((rc = binary_meta(m, op, ah_get(a, 0, "self"), ah_get(a, 1, "other"), kind, &r, err))) return rc;
  if ((rc = inplace_result(m, x, &r, err))) return rc;
  return inplace_done(x, out);
}

int m_arith_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary_inplace(m, op, a, out, err, BIN_ARITH);
}
int m_div_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_kind kind = BIN_DIV;
  int rc = rounding_mode(op, a, &kind, err);
  if (rc) return rc;
  return binary_inplace(m, op, a, out, err, kind);
}

/* fill_(value) */
int m_fill_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  const sdb_value *v = ah_get(a, 1, "value");
  if (!v) return bad_arg(op, "value", 1, "number", NULL, err);
  if (v->kind == SDB_V_TENSOR && v->tensor->ndim != 0)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.",
                       v->tensor->ndim);
  if (v->kind != SDB_V_TENSOR && !is_number(v)) return bad_arg(op, "value", 1, "number", v, err);
  return inplace_done(x, out);
}

/* zero_(), relu_() */
int m_plain_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  return inplace_done(x, out);
}

/* normal_(mean=0, std=1), uniform_(from=0, to=1): floating only */
int m_random_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  for (size_t i = 1; i < a->npos; i++)
    if (!is_number(&a->pos[i])) return bad_arg(op, i == 1 ? "mean" : "std", i, "number", &a->pos[i], err);
  if (!sdb_dtype_is_floating(x->dtype))
    return not_implemented_for(op->name[0] == 'n' ? "normal_kernel_cpu" : "check_uniform_bounds", x->dtype, err);
  return inplace_done(x, out);
}

/* copy_(src, non_blocking=False): src broadcasts to self (expand_copy) */
int m_copy_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *src = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "src", &src, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  vmeta e;
  if ((rc = expand_meta(m, op, src, x->sizes, x->ndim, &e, err))) return rc;
  if (src->requires_grad && sdb_dtype_is_floating(x->dtype)) x->requires_grad = true;
  return inplace_done(x, out);
}

/* clamp_(min=None, max=None) */
int m_clamp_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_res r;
  int rc = clamp_meta(m, op, a, &r, err);
  if (rc) return rc;
  if ((rc = inplace_result(m, r.self, &r, err))) return rc;
  return inplace_done(r.self, out);
}

int m_unsqueeze_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = unsqueeze_meta(op, x, dim, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

int m_squeeze_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = squeeze_meta(m, op, a, x, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

int m_transpose_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int64_t d0 = 0, d1 = 0;
  int rc = transpose_args(op, a, &x, &d0, &d1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = transpose_meta(op, x, d0, d1, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

int m_t_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = t_meta(op, x, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

/* resize_(*sizes): contiguous strides; the storage grows (to a Max when it
** cannot be decided statically, never by guarding) */
int m_resize_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "memory_format", NULL, err))) return rc;
  vmeta r;
  if ((rc = ah_sizes(op, a, 1, "size", r.sizes, MAX_DIMS, &r.n, err))) return rc;
  if ((rc = check_sizes(m, r.sizes, r.n, err))) return rc;
  if (sdb_contiguous_strides(r.sizes, r.n, r.strides)) return sdb_err_expr(err);
  r.offset = sdb_fake_offset(x);
  const sdb_expr *need = sdb_add(sdb_fake_offset(x), prod_of(r.sizes, r.n));
  if (!need) return sdb_err_expr(err);
  if (!known_true(m->env, sdb_le(need, x->storage->nelems))) {
    const sdb_expr *grown = smax(m->env, x->storage->nelems, need);
    if (!grown) return sdb_err_expr(err);
    x->storage->nelems = shown(m->env, grown);
  }
  return inplace_meta(x, &r, out, err);
}

/* masked_fill_(mask, value): mask broadcasts to self */
int m_masked_fill_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = mask_value_check(m, op, a, &x, &mask, err);
  if (rc) return rc;
  if ((rc = inplace_broadcast(m, x->sizes, x->ndim, mask->sizes, mask->ndim, err))) return rc;
  return inplace_done(x, out);
}

/* The checks of index_add(_)/index_copy(_)(dim, index, source); *self. */
static int index_put_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_fake **self,
                          sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL, *src = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_tensor(op, a, 3, "source", &src, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->ndim > 1)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "%s(): Index is supposed to be a vector", op->name);
  if (!is_index_dtype(idx->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "%s(): Expected dtype int32/int64 for index", op->name);
  if (src->ndim != x->ndim && !(x->ndim <= 1 && src->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                       "%s(): Source/destination tensor must have same slice shapes.", op->name);
  if (x->ndim && src->ndim) {
    const sdb_expr *n = sdb_fake_numel(idx);
    rc = tcheck(m, sdb_eq(n, src->sizes[dim]),
                msgf(m->env, "{t}(): Number of indices ({e}) should be equal to source.size(dim) ({e})",
                     op->name, n, src->sizes[dim]), err);
    if (rc) return rc;
  }
  if (!can_cast(src->dtype, x->dtype) && src->dtype != x->dtype)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "%s(): self (%s) and source (%s) must have the same scalar type", op->name,
                       scalar_name(x->dtype), scalar_name(src->dtype));
  const sdb_value *alpha = ah_get(a, KW, "alpha");
  if (alpha && alpha->kind != SDB_V_NONE && !is_number(alpha)) return bad_arg(op, "alpha", KW, "number", alpha, err);
  *self = x;
  return SDB_OK;
}

int m_index_put_like_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                      sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = index_put_like(m, op, a, &x, err);
  if (rc) return rc;
  return inplace_done(x, out);
}

/* index_add / index_copy: the functional forms, self's shape */
int m_index_put_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                     sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = index_put_like(m, op, a, &x, err);
  if (rc) return rc;
  bool rg = x->requires_grad || ah_get(a, 3, "source")->tensor->requires_grad;
  return out_like(m, x, x->dtype, NULL, rg, out, err);
}
