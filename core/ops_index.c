/*
** ops_index.c — indexing (index_select, gather, scatter, narrow, select, slice, index)
** and copies (clone, detach).
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

/* ------------------------------------------------------------------------
** Indexing
** ---------------------------------------------------------------------- */

bool is_index_dtype(sdb_dtype d) { return d == SDB_I64 || d == SDB_I32; }

/* index_select(dim, index): the size along dim becomes index.numel() */
int m_index_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->ndim > 1)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "index_select(): Index is supposed to be a vector");
  if (!is_index_dtype(idx->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "index_select(): Expected dtype int32 or int64 for index");
  const sdb_expr *shape[MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
  const sdb_expr *numel = sdb_fake_numel(idx);
  if (!numel) return sdb_err_expr(err);
  if (x->ndim) shape[dim] = numel;
  return out_new(m, x->dtype, sdb_fake_device(x), shape, x->ndim, x->requires_grad, out, err);
}

/* gather(dim, index): the shape of index */
int m_gather(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->dtype != SDB_I64)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "gather(): Expected dtype int64 for index");
  if (idx->ndim != x->ndim && !(x->ndim <= 1 && idx->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "Index tensor must have the same number of dimensions as input tensor");
  return out_new(m, x->dtype, sdb_fake_device(x), idx->sizes, idx->ndim, x->requires_grad, out, err);
}

/* scatter(dim, index, src|value): the shape of self */
int m_scatter(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  const sdb_value *src = ah_get(a, 3, "src");
  if (!src) src = ah_get(a, KW, "value");
  if (!src || (src->kind != SDB_V_TENSOR && !is_number(src)))
    return bad_arg(op, "src", 3, "Tensor or number", src, err);
  if ((rc = ah_reject(op, a, KW, "reduce", NULL, err))) return rc;
  if (idx->dtype != SDB_I64)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "scatter(): Expected dtype int64 for index");
  if (idx->ndim != x->ndim && !(x->ndim <= 1 && idx->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "Index tensor must have the same number of dimensions as self tensor");
  bool rg = x->requires_grad || (src->kind == SDB_V_TENSOR && src->tensor->requires_grad);
  return out_like(m, x, x->dtype, NULL, rg, out, err);
}

/* narrow(dim, start, length): a view */
int m_narrow(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "narrow() cannot be applied to a 0-dim tensor.");
  int64_t dim = 0;
  const sdb_expr *start = NULL, *len = NULL;
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (!rc) rc = ah_int(op, a, 2, "start", NULL, &start, err);
  if (!rc) rc = ah_int(op, a, 3, "length", NULL, &len, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (rc) return rc;
  sdb_shape_env *env = m->env;
  const sdb_expr *size = x->sizes[dim];
  if ((rc = tcheck(m, sdb_ge(len, sdb_int(0)), strdup("narrow(): length must be non-negative."), err)))
    return rc;
  const sdb_expr *in_range = sdb_and(sdb_le(sdb_neg(size), start), sdb_le(start, size));
  if (!static_true(m, in_range))
    rc = tcheck_as(m, in_range,
                   msgf(env, "start out of range (expected to be in range of [{e}, {e}], but got {e})",
                        sdb_neg(size), size, start), SDB_E_SHAPE, "IndexError", err);
  if (rc) return rc;
  if ((start->kind == SDB_INT && start->ival < 0) ||
      (start->kind != SDB_INT && sdb_guard_or_false(env, sdb_lt(start, sdb_int(0)))))
    start = sdb_add(start, size);
  if (!start) return sdb_err_expr(err);
  const sdb_expr *fits = sdb_le(start, sdb_sub(size, len));
  if (!static_true(m, fits))
    rc = tcheck(m, fits, msgf(env, "start ({e}) + length ({e}) exceeds dimension size ({e}).", start, len, size),
                err);
  if (rc) return rc;
  vmeta r;
  vmeta_of(x, &r);
  r.sizes[dim] = len;
  r.offset = sdb_add(sdb_fake_offset(x), sdb_mul(start, sdb_fake_strides(x)[dim]));
  if (!r.offset) return sdb_err_expr(err);
  return out_vmeta(m, x, &r, out, err);
}

/* fake_impls.meta_select: the offset is known when the sign of the index
** is (guard_or_false), else it is a fresh unbacked symbol. */
int select_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x, int64_t dim,
                const sdb_expr *index, vmeta *r, sdb_err *err) {
  sdb_shape_env *env = m->env;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "select() cannot be applied to a 0-dim tensor.");
  int64_t d = 0;
  int rc = ah_wrap_dim(op, dim, x->ndim, &d, err);
  if (rc) return rc;
  const sdb_expr *size = x->sizes[d];
  const sdb_expr *inr = sdb_and(sdb_le(sdb_neg(size), index), sdb_lt(index, size));
  if (!inr) return sdb_err_expr(err);
  if (sdb_maybe_evaluate_static(env, inr) == sdb_false())
    return fail_cond(m, inr, SDB_E_SHAPE, "IndexError",
                     msgf(env, "select(): index {e} out of range for tensor of size {s} at dimension {d}",
                          index, x->sizes, x->ndim, d), err);
  const sdb_expr *off = NULL;
  if (sdb_guard_or_false(env, sdb_ge(index, sdb_int(0))))
    off = sdb_add(sdb_fake_offset(x), sdb_mul(index, sdb_fake_strides(x)[d]));
  else if (sdb_guard_or_false(env, sdb_lt(index, sdb_int(0))))
    off = sdb_add(sdb_fake_offset(x), sdb_mul(sdb_add(index, size), sdb_fake_strides(x)[d]));
  else if (!(off = sdb_create_unbacked_symint(env)))
    return oom(err);
  if (!off) return sdb_err_expr(err);
  r->n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (i == d) continue;
    r->sizes[r->n] = x->sizes[i];
    r->strides[r->n++] = sdb_fake_strides(x)[i];
  }
  r->offset = off;
  return SDB_OK;
}

int m_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t dim = 0;
  const sdb_expr *index = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_int(op, a, 2, "index", NULL, &index, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = select_meta(m, op, x, dim, index, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* Is x one of the arguments of e (a Min or Max of kind k)? */
static bool has_arg(const sdb_expr *e, sdb_kind k, const sdb_expr *x) {
  if (e->kind != k) return false;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (e->args[i] == x) return true;
  return false;
}

/* min/max decided statically when possible (Min(a, b) <= b, Max(a, b) >=
** b), else a Min/Max expression */
static const sdb_expr *smin(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (has_arg(a, SDB_MAX, b)) return b;
  if (has_arg(b, SDB_MAX, a)) return a;
  if (known_true(env, sdb_le(a, b))) return a;
  if (known_true(env, sdb_le(b, a))) return b;
  return sdb_min(a, b);
}
const sdb_expr *smax(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (has_arg(a, SDB_MIN, b)) return b;
  if (has_arg(b, SDB_MIN, a)) return a;
  if (known_true(env, sdb_le(a, b))) return b;
  if (known_true(env, sdb_le(b, a))) return a;
  return sdb_max(a, b);
}

/* fake_impls._compute_slice_index: a slice bound resolved against size
** when guard_or_false can tell where it lies (in range, wrapped from the
** end, clamped), as Min/Max when only its sign is known, else NULL. */
static const sdb_expr *slice_index(sdb_shape_env *env, const sdb_expr *size, const sdb_expr *v) {
  const sdb_expr *zero = sdb_int(0), *nsize = sdb_neg(size);
  if (!nsize) return NULL;
  if (sdb_guard_or_false(env, sdb_and(sdb_ge(v, zero), sdb_le(v, size)))) return v;
  if (sdb_guard_or_false(env, sdb_and(sdb_lt(v, zero), sdb_ge(v, nsize)))) return sdb_add(v, size);
  if (sdb_guard_or_false(env, sdb_lt(v, nsize))) return zero;
  if (sdb_guard_or_false(env, sdb_gt(v, size))) return size;
  if (sdb_guard_or_false(env, sdb_ge(v, zero))) return smin(env, v, size);
  if (sdb_guard_or_false(env, sdb_lt(v, zero))) return smax(env, sdb_add(v, size), zero);
  return NULL;
}

/* slice(dim=0, start=None, end=None, step=1): a view, as fake_impls'
** slice_forward computes it. A size (or storage offset) that cannot be
** resolved from the bounds is a fresh unbacked symbol with PyTorch's
** torch._check's on it (0 <= size <= the dim; offset >= 0). */
int m_slice(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 5, err))) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "slice() cannot be applied to a 0-dim tensor.");
  int64_t dim = 0, step = 1;
  const sdb_expr *start = NULL;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, false, &dim, err))) return rc;
  const sdb_value *sv = ah_get(a, 2, "start");
  if (sv && sv->kind != SDB_V_NONE && !sdb_value_is_int(sv)) return bad_arg(op, "start", 2, "int", sv, err);
  const sdb_value *ev = ah_get(a, 3, "end");
  if (ev && ev->kind != SDB_V_NONE && !sdb_value_is_int(ev)) return bad_arg(op, "end", 3, "int", ev, err);
  if ((rc = ah_const_int(op, a, 4, "step", 1, false, &step, err))) return rc;
  if (step <= 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "slice step must be positive");
  sdb_shape_env *env = m->env;
  const sdb_expr *size = x->sizes[dim];
  bool has_start = sv && sv->kind != SDB_V_NONE;
  if (has_start) start = int_expr(sv);
  const sdb_expr *s = has_start ? slice_index(env, size, start) : sdb_int(0);
  const sdb_expr *e;
  if (!ev || ev->kind == SDB_V_NONE || (ev->expr->kind == SDB_INT && ev->expr->ival >= INT64_MAX / 2))
    e = size;
  else
    e = slice_index(env, size, int_expr(ev));
  const sdb_expr *len = NULL;
  if (s && e) {
    const sdb_expr *stepm1 = sdb_int(step - 1), *st = sdb_int(step);
    /* Min(v, size) <= size and v <= Max(v, 0) hold by construction (sympy
    ** decides them; our ranges alone would not) */
    if (has_arg(s, SDB_MIN, e) || has_arg(e, SDB_MAX, s) || sdb_guard_or_false(env, sdb_ge(e, s)))
      len = sdb_floordiv(sdb_add(sdb_sub(e, s), stepm1), st);
    else if (sdb_guard_or_false(env, sdb_ge(s, e)))
      len = sdb_int(0);
    else   /* ordered neither way statically: max(end - start, 0), no new symbol */
      len = sdb_floordiv(sdb_add(smax(env, sdb_sub(e, s), sdb_int(0)), stepm1), st);
    if (!len) return sdb_err_expr(err);
  } else {
    len = sdb_create_unbacked_symint(env);
    if (!len) return sdb_err_expr(err);
    if ((rc = tcheck_as(m, sdb_ge(len, sdb_int(0)), NULL, SDB_E_SHAPE, "RuntimeError", err))) return rc;
    if ((rc = tcheck_as(m, sdb_le(len, size), NULL, SDB_E_SHAPE, "RuntimeError", err))) return rc;
  }
  vmeta r;
  vmeta_of(x, &r);
  r.sizes[dim] = len;
  r.strides[dim] = sdb_mul(sdb_fake_strides(x)[dim], sdb_int(step));
  if (s) {
    r.offset = sdb_add(sdb_fake_offset(x), sdb_mul(s, sdb_fake_strides(x)[dim]));
  } else {
    r.offset = sdb_create_unbacked_symint(env);
    if (!r.offset) return sdb_err_expr(err);
    if ((rc = tcheck_as(m, sdb_ge(r.offset, sdb_int(0)), NULL, SDB_E_SHAPE, "RuntimeError", err))) return rc;
  }
  if (!r.strides[dim] || !r.offset) return sdb_err_expr(err);
  return out_vmeta(m, x, &r, out, err);
}

/* index(self, indices): advanced indexing with a boolean mask (its size is
** mask.nonzero()'s, memoized on the mask) or with integer index tensors
** (broadcast together; None entries keep a dim). */
int m_index(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  const sdb_value *iv = ah_get(a, 1, "indices");
  if (!iv) return bad_arg(op, "indices", 1, "tuple of Tensors", NULL, err);
  const sdb_value *items = iv;
  size_t ni = 1;
  if (iv->kind == SDB_V_LIST || iv->kind == SDB_V_TUPLE) { items = iv->items; ni = iv->n; }
  /* expand boolean masks into their nonzero columns, as meta_index does */
  const sdb_expr *shape[MAX_DIMS], *bshape[MAX_DIMS];
  int nb = 0, pos = 0, first = -1, last = -1, indexed = 0;
  bool adjacent = true, any = false;
  for (size_t k = 0; k < ni; k++) {
    const sdb_value *v = &items[k];
    if (v->kind == SDB_V_NONE) { pos++; continue; }
    if (v->kind != SDB_V_TENSOR) return bad_arg(op, "indices", 1, "tuple of Tensors or None", v, err);
    sdb_fake *t = v->tensor;
    const sdb_expr *ishape[MAX_DIMS];
    int in = 0, span = 1;
    if (t->dtype == SDB_BOOL || t->dtype == SDB_U8) {
      if (pos + t->ndim > x->ndim)
        return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                           "too many indices for tensor of dimension %d (got %d)", x->ndim, pos + t->ndim);
      for (int j = 0; j < t->ndim; j++) {
        rc = tcheck_as(m, sdb_eq(t->sizes[j], x->sizes[pos + j]),
                       msgf(m->env, "The shape of the mask {s} at index {d} does not match the shape of "
                                    "the indexed tensor {s} at index {d}", t->sizes, t->ndim, (int64_t)j,
                            x->sizes, x->ndim, (int64_t)(pos + j)), SDB_E_SHAPE, "IndexError", err);
        if (rc) return rc;
      }
      const sdb_expr *nnz = NULL;
      if ((rc = nonzero_nnz(m, t, &nnz, err))) return rc;
      ishape[in++] = nnz;
      span = t->ndim;
    } else if (is_index_dtype(t->dtype)) {
      if (pos + 1 > x->ndim)
        return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                           "too many indices for tensor of dimension %d (got %d)", x->ndim, pos + 1);
      for (int j = 0; j < t->ndim; j++) ishape[in++] = t->sizes[j];
    } else {
      return sdb_err_set(err, SDB_E_INVALID, "IndexError",
                         "tensors used as indices must be long, int, byte or bool tensors");
    }
    if (any) {
      const sdb_expr *tmp[MAX_DIMS];
      int nt = 0;
      if ((rc = sdb_broadcast_shapes(m->env, bshape, nb, ishape, in, tmp, &nt, err))) return rc;
      for (int i = 0; i < nt; i++) bshape[i] = tmp[i];
      nb = nt;
      if (last != pos) adjacent = false;
    } else {
      for (int i = 0; i < in; i++) bshape[i] = ishape[i];
      nb = in;
      first = pos;
    }
    any = true;
    pos += span;
    last = pos;
    indexed += span;
  }
  if (!any) return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                               "index(): at least one index tensor is needed");
  if (pos > x->ndim)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "too many indices for tensor of dimension %d (got %d)",
                       x->ndim, pos);
  /* the indexed dims are [first, last) when adjacent */
  if (x->ndim - indexed + nb > MAX_DIMS)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "index(): too many dims");
  int n = 0;
  if (adjacent) {
    for (int i = 0; i < first; i++) shape[n++] = x->sizes[i];
    for (int i = 0; i < nb; i++) shape[n++] = bshape[i];
    for (int i = last; i < x->ndim; i++) shape[n++] = x->sizes[i];
  } else {
    /* broadcast dims first, then the dims no tensor indexed */
    for (int i = 0; i < nb; i++) shape[n++] = bshape[i];
    int p = 0;
    for (size_t k = 0; k < ni; k++) {
      const sdb_value *v = &items[k];
      if (v->kind == SDB_V_NONE) shape[n++] = x->sizes[p++];
      else p += v->tensor->dtype == SDB_BOOL || v->tensor->dtype == SDB_U8 ? v->tensor->ndim : 1;
    }
    for (int i = p; i < x->ndim; i++) shape[n++] = x->sizes[i];
  }
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
}

/* clone(): a new tensor, same layout when dense */
int m_clone(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  const sdb_value *mf = ah_get(a, KW, "memory_format");
  if (mf && mf->kind == SDB_V_STR && strstr(mf->str, "contiguous_format"))
    return out_new(m, x->dtype, sdb_fake_device(x), x->sizes, x->ndim, x->requires_grad, out, err);
  if (mf && mf->kind != SDB_V_NONE && !(mf->kind == SDB_V_STR && strstr(mf->str, "preserve_format")))
    return ah_reject(op, a, KW, "memory_format", "only preserve_format and contiguous_format", err);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* detach(): an alias that does not require grad */
int m_detach(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  sdb_fake *r = mk_view(m, x, x->sizes, sdb_fake_strides(x), x->ndim, sdb_fake_offset(x), err);
  if (!r) return fail_code(err);
  r->requires_grad = false;
  return give(out, r);
}
