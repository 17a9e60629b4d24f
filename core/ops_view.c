/*
** ops_view.c — views and shape ops (view/reshape, squeeze, transpose, permute, expand,
** as_strided, ...).
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** Views and shape ops
** ---------------------------------------------------------------------- */

void vmeta_of(const sdb_fake *x, vmeta *r) {
  r->n = x->ndim;
  for (int i = 0; i < x->ndim; i++) {
    r->sizes[i] = x->sizes[i];
    r->strides[i] = sdb_fake_strides(x)[i];
  }
  r->offset = sdb_fake_offset(x);
}

int out_vmeta(sdb_fake_mode *m, sdb_fake *x, const vmeta *r, sdb_value *out, sdb_err *err) {
  return out_view(m, x, r->sizes, r->strides, r->n, r->offset, out, err);
}

/* _prims_common.infer_size: resolve one -1 (a FloorDiv of the numels) with
** the torch._check's it makes, in place. `over`, when set, is the message
** of every failure (unflatten's). */
static int infer_size(sdb_fake_mode *m, const sdb_expr **shape, int n, const sdb_expr *numel,
                      const char *over, sdb_err *err) {
  sdb_shape_env *env = m->env;
  char *given = NULL;   /* the shape as given, printed only for a message */
  int inferred = -1, rc = SDB_OK;
  const sdb_expr *newsize = sdb_int(1);
  for (int i = 0; i < n && !rc; i++) {
    const sdb_expr *d = shape[i];
    bool minus1 = is_const_val(d, -1) ||
                  (d->kind != SDB_INT && sdb_guard_or_false(env, sdb_eq(d, sdb_int(-1))));
    if (minus1) {
      if (inferred >= 0) {
        rc = sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "only one dimension can be inferred");
        break;
      }
      inferred = i;
      continue;
    }
    const sdb_expr *nonneg = sdb_ge(d, sdb_int(0));
    if (!static_true(m, nonneg))
      rc = tcheck(m, nonneg,
                  over ? strdup(over)
                       : msgf(env, "invalid shape dimension {e}. If this was symbolic, it was assumed "
                                   "to not be -1.If this was meant to be inferred, please explicitly "
                                   "pass in -1.", d), err);
    newsize = sdb_mul(newsize, d);
    if (!newsize) rc = sdb_err_expr(err);
  }
  /* the messages (and the shape as given, printed) only for a check the
  ** ShapeEnv cannot decide true statically: a view's usual case decides
  ** them all, and formatting them was a fifth of a view */
  const sdb_expr *whole = !rc && inferred < 0 ? sdb_eq(numel, newsize) : NULL;
  const sdb_expr *nonzero = !rc && inferred >= 0 ? sdb_ne(newsize, sdb_int(0)) : NULL;
  const sdb_expr *divides = nonzero ? sdb_eq(sdb_mod(numel, newsize), sdb_int(0)) : NULL;
  bool talk = !rc && (inferred < 0 ? !static_true(m, whole)
                                   : !static_true(m, nonzero) || !static_true(m, divides));
  if (talk && !(given = msgf(env, "{s}", shape, n))) rc = oom(err);
  if (!rc && inferred < 0) {
    if (talk)
      rc = tcheck(m, whole,
                  over ? strdup(over) : msgf(env, "shape '{t}' is invalid for input of size {e}", given, numel),
                  err);
  } else if (!rc) {
    char *bad = !talk ? NULL
              : over ? strdup(over) : msgf(env, "shape '{t}' is invalid for input of size {e}", given, numel);
    char *zero = !talk ? NULL
               : over ? strdup(over)
               : known_true(env, sdb_eq(numel, sdb_int(0)))
                 ? msgf(env, "cannot reshape tensor of 0 elements into shape {t} because the "
                             "unspecified dimension size -1 can be any value and is ambiguous", given)
                 : strdup(bad);
    rc = tcheck(m, nonzero, zero, err);
    if (!rc) rc = tcheck(m, divides, bad, err);
    else free(bad);
    if (!rc) {
      shape[inferred] = sdb_floordiv(numel, newsize);
      if (!shape[inferred]) rc = sdb_err_expr(err);
      else rc = tcheck(m, sdb_ge(shape[inferred], sdb_int(0)), NULL, err);
    }
  }
  free(given);
  return rc;
}

/* _compute_stride (TensorUtils computeStride) with the size-oblivious
** decisions made statically, never by guarding. false: no view exists. */
static bool compute_stride(sdb_shape_env *env, const sdb_fake *x, const sdb_expr *const *ns,
                           int nn, const sdb_expr **out) {
  const sdb_expr *const *os = x->sizes, *const *ost = sdb_fake_strides(x);
  int on = x->ndim;
  if (on == 0) {
    for (int i = 0; i < nn; i++) out[i] = sdb_int(1);
    return true;
  }
  const sdb_expr *numel = prod_of(os, on);
  if (!numel) return false;
  bool zero = known_true(env, sdb_eq(numel, sdb_int(0)));
  if (zero) {
    bool same = on == nn;
    for (int i = 0; same && i < on; i++) same = known_true(env, sdb_eq(os[i], ns[i]));
    if (same) {
      for (int i = 0; i < nn; i++) out[i] = ost[i];
      return true;
    }
    for (int d = nn - 1; d >= 0; d--)
      out[d] = d == nn - 1 ? sdb_int(1) : sdb_mul(sdb_max(ns[d + 1], sdb_int(1)), out[d + 1]);
    return true;
  }
  int view_d = nn - 1;
  const sdb_expr *chunk_base = ost[on - 1], *tensor_numel = sdb_int(1), *view_numel = sdb_int(1);
  for (int td = on - 1; td >= 0; td--) {
    tensor_numel = sdb_mul(tensor_numel, os[td]);
    if (!tensor_numel) return false;
    if (td == 0 || (maybe_true(env, sdb_ne(os[td - 1], sdb_int(1))) &&
                    maybe_true(env, sdb_ne(ost[td - 1], sdb_mul(tensor_numel, chunk_base))))) {
      while (view_d >= 0 && (maybe_true(env, sdb_lt(view_numel, tensor_numel)) ||
                             known_true(env, sdb_eq(ns[view_d], sdb_int(1))))) {
        out[view_d] = sdb_mul(view_numel, chunk_base);
        view_numel = sdb_mul(view_numel, ns[view_d]);
        if (!out[view_d] || !view_numel) return false;
        view_d--;
      }
      if (maybe_true(env, sdb_ne(view_numel, tensor_numel))) return false;
      if (td > 0) {
        chunk_base = ost[td - 1];
        tensor_numel = sdb_int(1);
        view_numel = sdb_int(1);
      }
    }
  }
  return view_d == -1;
}

/* view/reshape of x to an already inferred shape: contiguous strides when
** x is contiguous, else _compute_stride; with no view possible, reshape
** copies and view fails as the fake-tensor view does. */
static int view_core(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **shape, int n,
                     bool allow_copy, sdb_value *out, sdb_err *err) {
  sdb_shape_env *env = m->env;
  int rc = SDB_OK;
  if (x->ndim == 0)
    for (int i = 0; i < n && !rc; i++) rc = tcheck(m, sdb_eq(shape[i], sdb_int(1)), NULL, err);
  if (n == 0)
    for (int i = 0; i < x->ndim && !rc; i++) rc = tcheck(m, sdb_eq(x->sizes[i], sdb_int(1)), NULL, err);
  if (rc) return rc;
  const sdb_expr *st[MAX_DIMS];
  if (sdb_fake_is_contiguous(env, x)) {
    if (sdb_contiguous_strides(shape, n, st)) return sdb_err_expr(err);
  } else if (!compute_stride(env, x, shape, n, st)) {
    if (allow_copy) return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
    return fail_cond(m, NULL, SDB_E_SHAPE, "ValueError",
                     msgf(env, "Cannot view a tensor with shape torch.Size({s}) and strides {T} as a "
                               "tensor with shape {T}!",
                          x->sizes, x->ndim, sdb_fake_strides(x), x->ndim, shape, n),
                     err);
  }
  return out_view(m, x, shape, st, n, sdb_fake_offset(x), out, err);
}

/* view(*shape) / reshape(*shape): varargs or one list, one -1 inferred. */
static int view_or_reshape(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                           sdb_err *err, bool allow_copy) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *first = ah_get(a, 1, "shape");
  if (!first) first = ah_get(a, KW, "size");
  if (!first) return bad_arg(op, "shape", 1, "tuple of ints", NULL, err);
  if (first->kind == SDB_V_STR)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "%s(): reinterpreting as dtype '%s' is not supported", op->name, first->str);
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = ah_sizes(op, a, 1, ah_get(a, KW, "size") ? "size" : "shape", shape, MAX_DIMS, &n, err)))
    return rc;
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  if ((rc = infer_size(m, shape, n, numel, NULL, err))) return rc;
  return view_core(m, x, shape, n, allow_copy, out, err);
}

int m_view(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_or_reshape(m, op, a, out, err, false);
}
int m_reshape(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_or_reshape(m, op, a, out, err, true);
}

/* view_as / reshape_as(self, other) */
static int view_as_common(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                          sdb_err *err, bool allow_copy) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  for (int i = 0; i < o->ndim; i++) shape[i] = o->sizes[i];
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  if ((rc = infer_size(m, shape, o->ndim, numel, NULL, err))) return rc;
  return view_core(m, x, shape, o->ndim, allow_copy, out, err);
}
int m_view_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_as_common(m, op, a, out, err, false);
}
int m_reshape_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_as_common(m, op, a, out, err, true);
}

/* flatten(start_dim=0, end_dim=-1): a view when possible */
int m_flatten(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t s = 0, e = 0;
  if ((rc = ah_dim(op, a, 1, "start_dim", x->ndim, 0, false, &s, err))) return rc;
  if ((rc = ah_dim(op, a, 2, "end_dim", x->ndim, -1, false, &e, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  if (x->ndim == 0) {
    shape[0] = sdb_int(1);
    return view_core(m, x, shape, 1, true, out, err);
  }
  if (s > e)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) {
    vmeta r;
    vmeta_of(x, &r);
    return out_vmeta(m, x, &r, out, err);
  }
  int n = 0;
  for (int i = 0; i < s; i++) shape[n++] = x->sizes[i];
  shape[n] = prod_of(x->sizes + s, (int)(e - s + 1));
  if (!shape[n++]) return sdb_err_expr(err);
  for (int i = (int)e + 1; i < x->ndim; i++) shape[n++] = x->sizes[i];
  return view_core(m, x, shape, n, true, out, err);
}

/* unflatten(dim, sizes) */
int m_unflatten(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err))) return rc;
  const sdb_value *sv = ah_get(a, 2, "sizes");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "sizes", 2, "tuple of ints", sv, err);
  const sdb_expr *sizes[MAX_DIMS];
  int ns = 0;
  if ((rc = ah_sizes(op, a, 2, "sizes", sizes, MAX_DIMS, &ns, err))) return rc;
  if (ns == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "unflatten: sizes must be non-empty");
  if (x->ndim == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "unflatten: input must be at least 1-D");
  if (x->ndim - 1 + ns > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "unflatten(): too many dims");
  char *over = msgf(m->env, "unflatten: Provided sizes {s} don't multiply up to the size of dim {d} "
                            "({e}) in the input tensor", sizes, ns, (int64_t)dim, x->sizes[dim]);
  if (!over) return oom(err);
  rc = infer_size(m, sizes, ns, x->sizes[dim], over, err);
  free(over);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  for (int i = 0; i < dim; i++) shape[n++] = x->sizes[i];
  for (int i = 0; i < ns; i++) shape[n++] = sizes[i];
  for (int i = (int)dim + 1; i < x->ndim; i++) shape[n++] = x->sizes[i];
  return view_core(m, x, shape, n, false, out, err);
}

int unsqueeze_meta(const sdb_op *op, const sdb_fake *x, int64_t dim, vmeta *r, sdb_err *err) {
  if (x->ndim >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
  int64_t d = 0;
  int rc = ah_wrap_dim(op, dim, x->ndim + 1, &d, err);
  if (rc) return rc;
  const sdb_expr *st = d >= x->ndim ? sdb_int(1) : sdb_mul(x->sizes[d], sdb_fake_strides(x)[d]);
  if (!st) return sdb_err_expr(err);
  r->n = 0;
  for (int i = 0; i <= x->ndim; i++) {
    if (i == d) {
      r->sizes[r->n] = sdb_int(1);
      r->strides[r->n++] = st;
    }
    if (i < x->ndim) {
      r->sizes[r->n] = x->sizes[i];
      r->strides[r->n++] = sdb_fake_strides(x)[i];
    }
  }
  r->offset = sdb_fake_offset(x);
  return SDB_OK;
}

int m_unsqueeze(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = unsqueeze_meta(op, x, dim, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* squeeze(self[, dim]): a dim goes only when it is statically 1 (a
** symbolic size is squeezed only when known to be 1, as PyTorch's
** guard_or_false decides for unbacked sizes; backed sizes are >= 2). */
int squeeze_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, const sdb_fake *x,
                 vmeta *r, sdb_err *err) {
  int64_t dims[MAX_DIMS];
  int nd = -1;
  int rc = ah_dims(op, a, 1, "dim", x->ndim, true, dims, &nd, err);
  if (rc) return rc;
  bool which[MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) which[i] = nd < 0;
  for (int k = 0; k < nd; k++)
    if (x->ndim) which[dims[k]] = true;
  r->n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (which[i] && known_true(m->env, sdb_eq(x->sizes[i], sdb_int(1)))) continue;
    r->sizes[r->n] = x->sizes[i];
    r->strides[r->n++] = sdb_fake_strides(x)[i];
  }
  r->offset = sdb_fake_offset(x);
  return SDB_OK;
}

int m_squeeze(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = squeeze_meta(m, op, a, x, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

int transpose_meta(const sdb_op *op, const sdb_fake *x, int64_t d0, int64_t d1, vmeta *r,
                   sdb_err *err) {
  int64_t a0 = 0, a1 = 0;
  int rc = ah_wrap_dim(op, d0, x->ndim, &a0, err);
  if (!rc) rc = ah_wrap_dim(op, d1, x->ndim, &a1, err);
  if (rc) return rc;
  vmeta_of(x, r);
  if (x->ndim == 0) return SDB_OK;
  r->sizes[a0] = x->sizes[a1];
  r->sizes[a1] = x->sizes[a0];
  r->strides[a0] = sdb_fake_strides(x)[a1];
  r->strides[a1] = sdb_fake_strides(x)[a0];
  return SDB_OK;
}

int transpose_args(const sdb_op *op, const sdb_args *a, sdb_fake **x, int64_t *d0,
                   int64_t *d1, sdb_err *err) {
  int rc = ah_tensor(op, a, 0, "self", x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim0", 0, true, d0, err);
  if (!rc) rc = ah_const_int(op, a, 2, "dim1", 0, true, d1, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  return rc;
}

int m_transpose(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t d0 = 0, d1 = 0;
  int rc = transpose_args(op, a, &x, &d0, &d1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = transpose_meta(op, x, d0, d1, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

int t_meta(const sdb_op *op, const sdb_fake *x, vmeta *r, sdb_err *err) {
  if (x->ndim > 2)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "%s() expects a tensor with <= 2 dimensions, but self is %dD", op->name, x->ndim);
  if (x->ndim < 2) {
    vmeta_of(x, r);
    return SDB_OK;
  }
  return transpose_meta(op, x, 0, 1, r, err);
}

int m_t(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = t_meta(op, x, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

static int permute_core(sdb_fake_mode *m, sdb_fake *x, const int64_t *dims, int nd,
                        sdb_value *out, sdb_err *err) {
  if (nd != x->ndim)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "permute(sparse_coo): number of dimensions in the tensor input does not match "
                       "the length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                       "equal to len(dims) = %d", x->ndim, nd);
  bool seen[MAX_DIMS] = {false};
  vmeta r;
  r.n = nd;
  r.offset = sdb_fake_offset(x);
  for (int i = 0; i < nd; i++) {
    if (seen[dims[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "permute(): duplicate dims are not allowed.");
    seen[dims[i]] = true;
    r.sizes[i] = x->sizes[dims[i]];
    r.strides[i] = sdb_fake_strides(x)[dims[i]];
  }
  return out_vmeta(m, x, &r, out, err);
}

int m_permute(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 1, "dims", x->ndim, true, dims, &nd, err))) return rc;
  if (nd < 0) return bad_arg(op, "dims", 1, "tuple of ints", NULL, err);
  return permute_core(m, x, dims, nd, out, err);
}

/* movedim(source, destination): ints or lists */
int m_movedim(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t src[MAX_DIMS], dst[MAX_DIMS];
  int ns = -1, nd = -1;
  if ((rc = ah_dims(op, a, 1, "source", x->ndim, false, src, &ns, err))) return rc;
  if ((rc = ah_dims(op, a, 2, "destination", x->ndim, false, dst, &nd, err))) return rc;
  if (ns < 0) return bad_arg(op, "source", 1, "int or tuple of ints", NULL, err);
  if (nd < 0) return bad_arg(op, "destination", 2, "int or tuple of ints", NULL, err);
  if (ns != nd)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "movedim: Invalid source or destination dims: source (%d dims) should contain "
                       "the same number of dims as destination (%d dims)", ns, nd);
  int64_t order[MAX_DIMS];
  bool src_used[MAX_DIMS] = {false}, dst_used[MAX_DIMS] = {false};
  for (int i = 0; i < ns; i++) {
    if (src_used[src[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "movedim: repeated dim in `source`");
    if (dst_used[dst[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "movedim: repeated dim in `destination`");
    src_used[src[i]] = dst_used[dst[i]] = true;
    order[dst[i]] = src[i];
  }
  int next = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (dst_used[i]) continue;
    while (src_used[next]) next++;
    order[i] = next++;
  }
  return permute_core(m, x, order, x->ndim, out, err);
}

static const char *legacy_type(sdb_dtype d) {
  static const char *const names[SDB_DTYPE_COUNT] = {
    "FloatTensor", "HalfTensor", "BFloat16Tensor", "DoubleTensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
  };
  return d < SDB_DTYPE_COUNT ? names[d] : "Tensor";
}

/* inferExpandGeometry: -1 keeps a size; a size that differs from the
** target must be 1 (a guard when backed; with unbacked sizes, a size
** not known to be 1 is asserted equal at runtime). */
int expand_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x,
                const sdb_expr *const *target, int nt, vmeta *r, sdb_err *err) {
  (void)op;
  sdb_shape_env *env = m->env;
  if (nt < x->ndim)
    return fail_cond(m, NULL, SDB_E_SHAPE, "RuntimeError",
                     msgf(env, "expand(torch.{t}{{s}}, size={s}): the number of sizes provided ({d}) must "
                               "be greater or equal to the number of dimensions in the tensor ({d})",
                          legacy_type(x->dtype), x->sizes, x->ndim, target, nt, (int64_t)nt,
                          (int64_t)x->ndim), err);
  if (nt > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "expand(): too many dims");
  r->n = nt;
  r->offset = sdb_fake_offset(x);
  for (int i = nt - 1; i >= 0; i--) {
    int dim = i - (nt - x->ndim);
    const sdb_expr *size = dim >= 0 ? x->sizes[dim] : sdb_int(1);
    const sdb_expr *stride = dim >= 0 ? sdb_fake_strides(x)[dim]
                           : i == nt - 1 ? sdb_int(1) : sdb_mul(r->sizes[i + 1], r->strides[i + 1]);
    const sdb_expr *t = target[i];
    if (is_const_val(t, -1)) {
      if (dim < 0)
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "The expanded size of the tensor (-1) isn't allowed in a leading, "
                           "non-existing dimension %d", i);
      t = size;
    }
    const sdb_expr *ne = sdb_ne(size, t);
    if (!ne || !stride) return sdb_err_expr(err);
    char *msg = msgf(env, "The expanded size of the tensor ({e}) must match the existing size ({e}) at "
                          "non-singleton dimension {d}.  Target sizes: {s}.  Tensor sizes: {s}",
                     t, size, (int64_t)i, target, nt, x->sizes, x->ndim);
    if (!msg) return oom(err);
    const sdb_expr *st = sdb_maybe_evaluate_static(env, ne);
    const sdb_expr *s = st ? st : sdb_simplify(env, ne);
    bool differ;
    int rc = SDB_OK;
    if (!s) { free(msg); return sdb_err_expr(err); }
    if (!st && sdb_has_unbacked(env, s)) {
      if (sdb_guard_or_false(env, sdb_eq(size, sdb_int(1)))) {
        differ = true;
      } else {
        differ = false;
        rc = sdb_check(env, sdb_eq(size, t), msg, err);
        if (rc) { free(msg); return rc; }
      }
    } else if ((rc = sdb_guard_bool(env, ne, &differ, err))) {
      free(msg);
      return rc;
    }
    if (differ) {
      rc = tcheck(m, sdb_eq(size, sdb_int(1)), msg, err);
      if (rc) return rc;
      size = t;
      stride = sdb_int(0);
    } else {
      free(msg);
    }
    r->sizes[i] = size;
    r->strides[i] = stride;
  }
  return SDB_OK;
}

int m_expand(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "implicit", NULL, err))) return rc;
  const sdb_expr *target[MAX_DIMS];
  int nt = 0;
  if ((rc = ah_sizes(op, a, 1, "size", target, MAX_DIMS, &nt, err))) return rc;
  vmeta r;
  if ((rc = expand_meta(m, op, x, target, nt, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

int m_expand_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = expand_meta(m, op, x, o->sizes, o->ndim, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* contiguous(): self when already contiguous (statically), else a copy */
/* alias(x): a view of x with x's own metadata (aot graphs' views of views) */
int m_alias(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  sdb_fake *r = mk_view(m, x, x->sizes, sdb_fake_strides(x), x->ndim, sdb_fake_offset(x), err);
  return r ? give(out, r) : fail_code(err);
}

/* Channels-last strides of a 4-d (NHWC) or 5-d (NDHWC) shape: C innermost,
** then the spatial dims right to left, then N. */
static int channels_last_strides(const sdb_fake *x, const sdb_expr **st) {
  static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
  const int *order = x->ndim == 4 ? order4 : order5;
  const sdb_expr *acc = sdb_int(1);
  for (int k = 0; k < x->ndim; k++) {
    st[order[k]] = acc;
    if (!(acc = sdb_mul(acc, x->sizes[order[k]]))) return -1;
  }
  return 0;
}

int m_contiguous(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *mf = ah_get(a, 1, "memory_format");
  const char *fmt = mf && mf->kind == SDB_V_STR ? mf->str : NULL;
  if (fmt && !strncmp(fmt, "torch.", 6)) fmt += 6;
  if (fmt && (!strcmp(fmt, "channels_last") || !strcmp(fmt, "channels_last_3d"))) {
    int want = fmt[13] ? 5 : 4;
    if (x->ndim != want)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "required rank %d tensor to use "
                         "%s format", want, fmt);
    const sdb_expr *st[5];
    if (channels_last_strides(x, st)) return sdb_err_expr(err);
    bool same = true;
    for (int i = 0; i < x->ndim && same; i++) {
      const sdb_expr *one = sdb_eq(x->sizes[i], sdb_int(1));
      same = (one && sdb_statically_known_true(m->env, one)) ||
             sdb_statically_known_true(m->env, sdb_eq(sdb_fake_strides(x)[i], st[i]));
    }
    if (same) {
      *out = sdb_value_tensor(x);
      return SDB_OK;
    }
    sdb_fake *r = sdb_fake_new_strided(m, x->dtype, sdb_fake_device(x), x->sizes, st, x->ndim, sdb_int(0),
                                       NULL);
    if (!r) return sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
    r->requires_grad = x->requires_grad;
    return give(out, r);
  }
  if (mf && mf->kind != SDB_V_NONE && (!fmt || strcmp(fmt, "contiguous_format")))
    return ah_reject(op, a, 1, "memory_format", "only torch.contiguous_format and "
                     "torch.channels_last(_3d) are modelled", err);
  if (sdb_fake_is_contiguous(m->env, x)) {
    *out = sdb_value_tensor(x);
    return SDB_OK;
  }
  return out_new(m, x->dtype, sdb_fake_device(x), x->sizes, x->ndim, x->requires_grad, out, err);
}

/* flip(dims), roll(shifts, dims=None): same shape, a new tensor */
int m_flip(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 1, "dims", x->ndim, true, dims, &nd, err))) return rc;
  if (nd < 0) return bad_arg(op, "dims", 1, "tuple of ints", NULL, err);
  bool seen[MAX_DIMS] = {false};
  for (int k = 0; k < nd; k++) {
    if (seen[dims[k]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "dim %lld appears multiple times in the list of dims", (long long)dims[k]);
    seen[dims[k]] = true;
  }
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

int m_roll(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *sh = ah_get(a, 1, "shifts");
  if (!sh) return bad_arg(op, "shifts", 1, "int or tuple of ints", NULL, err);
  size_t nshift = sh->kind == SDB_V_LIST || sh->kind == SDB_V_TUPLE ? sh->n : 1;
  if (nshift == 1 && !(sh->kind == SDB_V_LIST || sh->kind == SDB_V_TUPLE) && !sdb_value_is_int(sh))
    return bad_arg(op, "shifts", 1, "int or tuple of ints", sh, err);
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 2, "dims", x->ndim, false, dims, &nd, err))) return rc;
  if (nd < 0 && nshift != 1)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "shifts and dimensions must align. shifts: %zu, dims:0", nshift);
  if (nd >= 0 && (size_t)nd != nshift)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "shifts and dimensions must align. shifts: %zu, dims:%d", nshift, nd);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* as_strided(size, stride, storage_offset=None): a view with exactly that
** layout over self's storage. */
int m_as_strided(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 4, err))) return rc;
  const sdb_value *sv = ah_get(a, 1, "size"), *tv = ah_get(a, 2, "stride");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE)) return bad_arg(op, "size", 1, "tuple of ints", sv, err);
  if (!tv || (tv->kind != SDB_V_LIST && tv->kind != SDB_V_TUPLE)) return bad_arg(op, "stride", 2, "tuple of ints", tv, err);
  const sdb_expr *sizes[MAX_DIMS], *strides[MAX_DIMS], *off = NULL;
  int ns = 0, nt = 0;
  if ((rc = ah_sizes(op, a, 1, "size", sizes, MAX_DIMS, &ns, err))) return rc;
  if ((rc = ah_sizes(op, a, 2, "stride", strides, MAX_DIMS, &nt, err))) return rc;
  if (ns != nt)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "mismatch in length of strides and shape");
  if ((rc = ah_int(op, a, 3, "storage_offset", sdb_fake_offset(x), &off, err))) return rc;
  for (int i = 0; i < ns && !rc; i++)
    rc = tcheck(m, sdb_ge(strides[i], sdb_int(0)),
                msgf(m->env, "as_strided: Negative strides are not supported at the moment, got strides: {s}",
                     strides, nt), err);
  if (rc) return rc;
  return out_view(m, x, sizes, strides, ns, off, out, err);
}
