/*
** ops_join.c — joining and splitting (cat, stack, split, chunk, unbind) and repeats.
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

#include <math.h>
#include <stdio.h>

/* ------------------------------------------------------------------------
** Joining and splitting
** ---------------------------------------------------------------------- */

/* cat(tensors, dim=0), as torch._refs.cat and prims.cat check it: 1-D
** empty tensors are skipped (legacy), other dims must match. */
int m_cat(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *ts = NULL;
  size_t nt = 0;
  int rc = ah_tensor_list(op, a, 0, "tensors", &ts, &nt, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  if (nt == 0)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "cat expects at least one tensor, but received zero!");
  for (size_t i = 0; i < nt; i++)
    if (ts[i].tensor->ndim == 0)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                         "zero-dimensional tensor (at position %zu) cannot be concatenated", i);
  const sdb_fake *example = NULL;
  for (size_t i = 0; i < nt; i++) {
    const sdb_fake *t = ts[i].tensor;
    if (t->ndim == 1) continue;
    if (!example) { example = t; continue; }
    if (t->ndim != example->ndim)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                         "Number of dimensions of tensors must match.  Expected %d-D tensors, but got "
                         "%d-D for tensor number %zu in the list", example->ndim, t->ndim, i);
  }
  if (!example) example = ts[0].tensor;
  sdb_fake *kept[256];
  size_t nk = 0;
  if (nt > 256) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "cat(): too many tensors");
  promo p = {{false}, {SDB_F32}};
  bool rg = false;
  for (size_t i = 0; i < nt; i++) {
    sdb_fake *t = ts[i].tensor;
    promo_add(&p, &ts[i]);
    rg = rg || t->requires_grad;
    bool empty1 = t->ndim == 1 && sdb_guard_or_false(m->env, sdb_eq(t->sizes[0], sdb_int(0)));
    if (t->ndim != example->ndim) {
      if (!empty1)
        return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                           "Number of dimensions of tensors must match.  Expected %d-D tensors, but got "
                           "1-D for tensor number %zu in the list", example->ndim, i);
      continue;
    }
    if (empty1) continue;
    kept[nk++] = t;
  }
  sdb_dtype dt = promo_result(&p);
  if (nk == 0) {
    const sdb_expr *zero = sdb_int(0);
    return out_new(m, dt, sdb_fake_device(ts[0].tensor), &zero, 1, rg, out, err);
  }
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", kept[0]->ndim, 0, false, &dim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS], *parts[256];
  int nd = kept[0]->ndim;
  for (int d = 0; d < nd; d++) shape[d] = kept[0]->sizes[d];
  for (size_t k = 0; k < nk; k++) {
    for (int d = 0; d < nd; d++) {
      if (d == dim) continue;
      if (k == 0) continue;
      const sdb_expr *same = sdb_eq(kept[k]->sizes[d], shape[d]);
      if (!static_true(m, same))
        rc = tcheck(m, same,
                    msgf(m->env, "Sizes of tensors must match except in dimension {d}. Expected {e} in "
                                 "dimension {d} but got {e} for tensor number {d} in the list",
                         dim, shape[d], (int64_t)d, kept[k]->sizes[d], (int64_t)k), err);
      if (rc) return rc;
    }
    parts[k] = kept[k]->sizes[dim];
  }
  shape[dim] = sdb_add_n(parts, nk);
  if (!shape[dim]) return sdb_err_expr(err);
  return out_new(m, dt, sdb_fake_device(kept[0]), shape, nd, rg, out, err);
}

/* stack(tensors, dim=0): equal shapes, a new dim of len(tensors) */
int m_stack(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *ts = NULL;
  size_t nt = 0;
  int rc = ah_tensor_list(op, a, 0, "tensors", &ts, &nt, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  if (nt == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "stack expects a non-empty TensorList");
  const sdb_fake *t0 = ts[0].tensor;
  if (t0->ndim >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "stack(): too many dims");
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", t0->ndim + 1, 0, false, &dim, err))) return rc;
  promo p = {{false}, {SDB_F32}};
  bool rg = false;
  for (size_t i = 0; i < nt; i++) {
    const sdb_fake *t = ts[i].tensor;
    promo_add(&p, &ts[i]);
    rg = rg || t->requires_grad;
    char fmt[128];
    snprintf(fmt, sizeof fmt, "stack expects each tensor to be equal size, but got {s} at entry 0 and {s} "
                              "at entry %zu", i);
    if ((rc = same_shape(m, t0->sizes, t0->ndim, t->sizes, t->ndim, fmt, err))) return rc;
  }
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  for (int d = 0; d <= t0->ndim; d++) {
    if (d == dim) shape[n++] = sdb_int((int64_t)nt);
    if (d < t0->ndim) shape[n++] = t0->sizes[d];
  }
  return out_new(m, promo_result(&p), sdb_fake_device(t0), shape, n, rg, out, err);
}

/* Views of x along dim with the given lengths, one after the other. */
static int split_views(sdb_fake_mode *m, sdb_fake *x, int64_t dim, const sdb_expr *const *lens,
                       size_t count, sdb_value *out, sdb_err *err) {
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, count);
  if (count && t.kind != SDB_V_TUPLE) return oom(err);
  t.kind = SDB_V_TUPLE;
  const sdb_expr *start = sdb_int(0);
  for (size_t k = 0; k < count; k++) {
    vmeta r;
    vmeta_of(x, &r);
    r.sizes[dim] = lens[k];
    r.offset = sdb_add(sdb_fake_offset(x), sdb_mul(start, sdb_fake_strides(x)[dim]));
    start = sdb_add(start, lens[k]);
    int rc = r.offset && start ? out_vmeta(m, x, &r, &t.items[k], err) : sdb_err_expr(err);
    if (rc) { sdb_value_free(&t); return rc; }
  }
  *out = t;
  return SDB_OK;
}

/* split of x along dim in pieces of split_size (the last one shorter):
** the number of pieces is an int, so it is guarded on when symbolic. */
static int split_by_size(sdb_fake_mode *m, const sdb_op *op, sdb_fake *x, int64_t dim,
                         const sdb_expr *ss, sdb_value *out, sdb_err *err) {
  (void)op;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "split expects at least a 1-dimensional tensor");
  const sdb_expr *size = x->sizes[dim];
  int rc = tcheck(m, sdb_ge(ss, sdb_int(0)),
                  msgf(m->env, "split expects split_size be non-negative, but got split_size={e}", ss), err);
  if (rc) return rc;
  int64_t num = 1;
  if (!known_true(m->env, sdb_eq(ss, sdb_int(0)))) {
    const sdb_expr *cnt = sdb_floordiv(sdb_sub(sdb_add(size, ss), sdb_int(1)), ss);
    if (!cnt) return sdb_err_expr(err);
    if ((rc = sdb_guard_int(m->env, cnt, &num, err))) return rc;
    if (num < 1) num = 1;
  } else {
    rc = tcheck(m, sdb_eq(size, sdb_int(0)),
                msgf(m->env, "split_size can only be 0 if dimension size is 0, but got dimension size of {e}",
                     size), err);
    if (rc) return rc;
  }
  if (num > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "split(): more than 4096 pieces");
  const sdb_expr **lens = calloc((size_t)num, sizeof *lens);
  if (!lens) return oom(err);
  for (int64_t k = 0; k < num - 1; k++) lens[k] = ss;
  lens[num - 1] = sdb_sub(size, sdb_mul(ss, sdb_int(num - 1)));
  rc = lens[num - 1] ? split_views(m, x, dim, lens, (size_t)num, out, err) : sdb_err_expr(err);
  free(lens);
  return rc;
}

/* split(split_size_or_sections, dim=0) -> a tuple of views */
int m_split(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 2, "dim", x->ndim, 0, false, &dim, err))) return rc;
  const sdb_value *sv = ah_get(a, 1, "split_size_or_sections");
  if (!sv) sv = ah_get(a, KW, "split_size");
  if (!sv) return bad_arg(op, "split_size_or_sections", 1, "int or list of ints", NULL, err);
  if (sv->kind == SDB_V_LIST || sv->kind == SDB_V_TUPLE) {
    if (x->ndim == 0)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "split expects at least a 1-dimensional tensor");
    const sdb_expr *lens[MAX_DIMS * 4];
    if (sv->n > sizeof lens / sizeof lens[0])
      return sdb_err_set(err, SDB_E_INVALID, "ValueError", "split(): too many sections");
    for (size_t k = 0; k < sv->n; k++) {
      if (!sdb_value_is_int(&sv->items[k])) return bad_arg(op, "split_size_or_sections", 1, "list of ints", &sv->items[k], err);
      lens[k] = int_expr(&sv->items[k]);
    }
    for (size_t k = 0; k < sv->n; k++) {
      rc = tcheck(m, sdb_ge(lens[k], sdb_int(0)),
                  msgf(m->env, "split_with_sizes expects split_sizes have only non-negative entries, "
                               "but got split_sizes={s}", lens, (int)sv->n), err);
      if (rc) return rc;
    }
    const sdb_expr *sum = sdb_add_n(lens, sv->n);
    const sdb_expr *size = x->sizes[dim];
    rc = tcheck(m, sdb_eq(sum, size),
                msgf(m->env, "split_with_sizes expects split_sizes to sum exactly to {e} (input tensor's "
                             "size at dimension {d}), but got split_sizes={s}", size, dim, lens, (int)sv->n),
                err);
    if (rc) return rc;
    return split_views(m, x, dim, lens, sv->n, out, err);
  }
  if (!sdb_value_is_int(sv)) return bad_arg(op, "split_size_or_sections", 1, "int or list of ints", sv, err);
  return split_by_size(m, op, x, dim, int_expr(sv), out, err);
}

/* chunk(chunks, dim=0): split by ceil(size / chunks) */
int m_chunk(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t chunks = 0, dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "chunks", 0, true, &chunks, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
  if ((rc = ah_dim(op, a, 2, "dim", x->ndim, 0, false, &dim, err))) return rc;
  const sdb_expr *size = x->sizes[dim];
  const sdb_expr *ss = sdb_floordiv(sdb_add(size, sdb_int(chunks - 1)), sdb_int(chunks));
  if (!ss) return sdb_err_expr(err);
  bool both_zero = false;
  if ((rc = sdb_guard_bool(m->env, sdb_eq(ss, sdb_int(0)), &both_zero, err))) return rc;
  if (both_zero && (rc = sdb_guard_bool(m->env, sdb_eq(size, sdb_int(0)), &both_zero, err))) return rc;
  if (both_zero) {                     /* chunks of an empty dim: chunks pieces of 0 */
    if (chunks > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "chunk(): too many pieces");
    const sdb_expr **lens = calloc((size_t)chunks, sizeof *lens);
    if (!lens) return oom(err);
    for (int64_t k = 0; k < chunks; k++) lens[k] = sdb_int(0);
    rc = split_views(m, x, dim, lens, (size_t)chunks, out, err);
    free(lens);
    return rc;
  }
  return split_by_size(m, op, x, dim, ss, out, err);
}

/* unbind(dim=0): as many selects as the size, which must be known (it is
** guarded on, as PyTorch's int(size) does; unbacked -> data-dependent) */
int m_unbind(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_INVALID, "IndexError", "Dimension specified as 0 but tensor has no dimensions");
  int64_t dim = 0, count = 0;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, false, &dim, err))) return rc;
  if ((rc = sdb_guard_int(m->env, x->sizes[dim], &count, err))) return rc;
  if (count > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "unbind(): more than 4096 pieces");
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, (size_t)count);
  if (count && t.kind != SDB_V_TUPLE) return oom(err);
  t.kind = SDB_V_TUPLE;
  for (int64_t k = 0; k < count; k++) {
    vmeta r;
    rc = select_meta(m, op, x, dim, sdb_int(k), &r, err);
    if (!rc) rc = out_vmeta(m, x, &r, &t.items[k], err);
    if (rc) { sdb_value_free(&t); return rc; }
  }
  *out = t;
  return SDB_OK;
}

/* ------------------------------------------------------------------------
** Repeats
** ---------------------------------------------------------------------- */

static int repeat_core(sdb_fake_mode *m, const sdb_op *op, sdb_fake *x, const sdb_expr *const *reps,
                       int nr, sdb_value *out, sdb_err *err) {
  (void)op;
  if (nr < x->ndim)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const sdb_expr *shape[MAX_DIMS];
  int pad = nr - x->ndim;
  for (int i = 0; i < nr; i++) {
    int rc = tcheck(m, sdb_ge(reps[i], sdb_int(0)),
                    msgf(m->env, "Trying to create tensor with negative dimension {e}: {s}", reps[i], reps, nr),
                    err);
    if (rc) return rc;
    shape[i] = i < pad ? reps[i] : sdb_mul(reps[i], x->sizes[i - pad]);
    if (!shape[i]) return sdb_err_expr(err);
  }
  return out_new(m, x->dtype, sdb_fake_device(x), shape, nr, x->requires_grad, out, err);
}

/* repeat(*sizes) */
int m_repeat(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *reps[MAX_DIMS];
  int nr = 0;
  if ((rc = ah_sizes(op, a, 1, "repeats", reps, MAX_DIMS, &nr, err))) return rc;
  return repeat_core(m, op, x, reps, nr, out, err);
}

/* tile(dims): repeat with dims padded by leading 1s */
int m_tile(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *dims[MAX_DIMS], *reps[MAX_DIMS];
  int nd = 0;
  if ((rc = ah_sizes(op, a, 1, "dims", dims, MAX_DIMS, &nd, err))) return rc;
  int nr = nd < x->ndim ? x->ndim : nd;
  for (int i = 0; i < nr; i++) reps[i] = i < nr - nd ? sdb_int(1) : dims[i - (nr - nd)];
  return repeat_core(m, op, x, reps, nr, out, err);
}
