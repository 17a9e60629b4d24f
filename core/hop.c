/*
** hop.c — cond and wrap around speculated subgraphs (see hop.h).
*/
#include "hop.h"
#include "buf.h"
#include "fake.h"
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

void sdb_branch_clear(sdb_branch *b) {
  free(b->inputs);
  b->inputs = NULL;
  b->ninputs = 0;
  sdb_value_free(&b->outputs);
}

int sdb_branch_collect_inputs(sdb_branch *b, const sdb_tracer *child, sdb_err *err) {
  if (child->oom) return oom(err);   /* what it lifted may be missing from its maps */
  const sdb_graph *g = child->graph;
  size_t np = sdb_graph_num_placeholders(g);
  free(b->inputs);
  b->inputs = calloc(np + 1, sizeof *b->inputs);
  b->ninputs = 0;
  if (!b->inputs) return oom(err);
  for (size_t i = 0; i < np; i++) {
    sdb_node *ph = g->nodes[i];
    /* find the parent proxy this placeholder was lifted from */
    for (size_t k = 0; k < child->lifted_freevars.len; k++) {
      if (child->lifted_freevars.vals[k] != ph) continue;
      b->inputs[b->ninputs].parent = (sdb_node *)child->lifted_freevars.keys[k];
      b->inputs[b->ninputs].ph = ph;
      b->ninputs++;
      break;
    }
  }
  return SDB_OK;
}

/* --- versions --------------------------------------------------------------- */

int sdb_snapshot_versions(const sdb_tracer *parent, sdb_version_snapshot *s, sdb_err *err) {
  (void)err;
  s->parent = parent;
  s->serial = sdb_fake_mutation_serial();
  s->first_new_storage = sdb_fake_next_storage_id();
  return SDB_OK;
}

void sdb_snapshot_free(sdb_version_snapshot *s) {
  s->parent = NULL;
}

static bool uses_storage(const sdb_fake *t, const void *st) { return t->storage == st; }

/* Does a tensor some ancestor tracer knows use this storage? */
static bool ancestor_uses(const sdb_version_snapshot *s, const sdb_storage *st) {
  for (const sdb_tracer *t = s->parent; t; t = t->parent)
    if (sdb_tracer_any_tensor(t, uses_storage, st)) return true;
  return false;
}

static bool bumped_since(const sdb_fake *t, const void *serial) {
  return t->storage && t->storage->bumped > *(const uint64_t *)serial;
}

/* Was a tensor some ancestor knows mutated since the snapshot? */
static bool ancestor_mutated(const sdb_version_snapshot *s) {
  for (const sdb_tracer *t = s->parent; t; t = t->parent)
    if (sdb_tracer_any_tensor(t, bumped_since, &s->serial)) return true;
  return false;
}

static void hop_check_event(sdb_events *ev, bool ok, const char *name, const char *what) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_HOP_CHECK;
  e.flags = ok;
  e.text = name;
  e.detail = what;
  sdb_emit(ev, &e);
}

static void collect_tensors(const sdb_value *v, sdb_fake **out, size_t *n, size_t cap) {
  if (v->kind == SDB_V_TENSOR && *n < cap) out[(*n)++] = v->tensor;
  if (v->kind == SDB_V_TUPLE || v->kind == SDB_V_LIST)
    for (size_t i = 0; i < v->n; i++) collect_tensors(&v->items[i], out, n, cap);
}

int sdb_hop_check_branch(sdb_events *ev, const char *name, const sdb_version_snapshot *before,
                         const sdb_value *outputs, sdb_err *err) {
  sdb_fake *outs[256];
  size_t nout = 0;
  collect_tensors(outputs, outs, &nout, 256);
  /* aliasing: an output sharing storage with an input or another output */
  for (size_t i = 0; i < nout; i++) {
    bool alias = false;
    const sdb_storage *st = outs[i]->storage;
    if (st && st->id < before->first_new_storage) alias = ancestor_uses(before, st);
    for (size_t k = 0; k < i && !alias; k++) alias = outs[i]->storage == outs[k]->storage;
    if (alias) {
      hop_check_event(ev, false, name, "aliasing");
      return sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s might be aliasing the input or the output!", name);
    }
  }
  hop_check_event(ev, true, name, "no input or output aliasing");
  /* mutation: a version counter moved (views share it, so a mutation
  ** through a view is caught) */
  if (sdb_fake_mutation_serial() != before->serial && ancestor_mutated(before)) {
    hop_check_event(ev, false, name, "input mutation");
    return sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s might be modifying the input!", name);
  }
  hop_check_event(ev, true, name, "no input mutation");
  return SDB_OK;
}

/* --- cond's output merge ------------------------------------------------------------ */

/* pytree's TreeSpec repr for our outputs: leaves are `*` */
static void put_spec(sdb_buf *b, const sdb_value *v, int indent) {
  if (v->kind != SDB_V_TUPLE && v->kind != SDB_V_LIST) {
    sdb_buf_puts(b, v->kind == SDB_V_NONE ? "None" : "*");
    return;
  }
  sdb_buf_printf(b, "TreeSpec(%s, None, [", v->kind == SDB_V_TUPLE ? "tuple" : "list");
  indent += 2;
  for (size_t i = 0; i < v->n; i++) {
    if (i) sdb_buf_printf(b, ",\n%*s", indent, "");
    put_spec(b, &v->items[i], indent);
  }
  sdb_buf_puts(b, "])");
}

static bool same_structure(const sdb_value *a, const sdb_value *b) {
  bool seq_a = a->kind == SDB_V_TUPLE || a->kind == SDB_V_LIST;
  bool seq_b = b->kind == SDB_V_TUPLE || b->kind == SDB_V_LIST;
  if (seq_a != seq_b) return false;
  if (!seq_a) return (a->kind == SDB_V_NONE) == (b->kind == SDB_V_NONE);
  if (a->kind != b->kind || a->n != b->n) return false;
  for (size_t i = 0; i < a->n; i++)
    if (!same_structure(&a->items[i], &b->items[i])) return false;
  return true;
}

static sdb_range side_bound(sdb_shape_env *env, const sdb_expr *e) {
  return sdb_bound_in(env, e);
}

/* A fresh unbacked symbol for an output that differs between branches,
** with the union of their ranges (min_max). Not size-like. */
static const sdb_expr *fresh_merged(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b,
                                    const char *why, sdb_err *err) {
  sdb_range ra = side_bound(env, a), rb = side_bound(env, b);
  const sdb_expr *u = sdb_create_unbacked_symint(env);
  if (!u) { oom(err); return NULL; }
  int64_t lo = ra.lo < rb.lo ? ra.lo : rb.lo, hi = ra.hi > rb.hi ? ra.hi : rb.hi;
  if (sdb_constrain_range(env, u, lo, hi, "cond output: union of the branches' ranges", err)) return NULL;
  sdb_event_in e = {0};
  e.kind = SDB_EV_COND_OUTPUT_SYMBOL;
  sdb_event_more e_more = {.sym = u, .has_range = true, .range = sdb_symbol_range(env, u)};
  e.more = &e_more;
  e.detail = why;
  sdb_emit(sdb_shape_env_events(env), &e);
  return u;
}

static char *why_differs(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  char *sa = sdb_expr_str(a), *sb = sdb_expr_str(b);
  sdb_buf w = SDB_BUF_INIT;
  if (sdb_has_unbacked(env, a) || sdb_has_unbacked(env, b))
    sdb_buf_printf(&w, "true branch %s, false branch %s: an unbacked symbol leaks out of a branch",
                   sa ? sa : "?", sb ? sb : "?");
  else
    sdb_buf_printf(&w, "true branch %s, false branch %s differ", sa ? sa : "?", sb ? sb : "?");
  free(sa);
  free(sb);
  return sdb_buf_take(&w);
}

/* a < b for argsort_sym: decided size-obliviously (a size-like unbacked
** symbol is >= 2), else evaluated as evaluate_expr would (a guard, or the
** data-dependent error) */
static int less(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b, bool *out, sdb_err *err) {
  const sdb_expr *e = sdb_lt(a, b);
  if (!e) return sdb_err_expr(err);
  const sdb_expr *st = sdb_is_const(e) ? e : sdb_maybe_evaluate_static_oblivious(env, e);
  if (st && sdb_is_const(st)) { *out = st->kind == SDB_TRUE; return SDB_OK; }
  return sdb_guard_bool(env, e, out, err);
}

/* get_fill_order with argsort_sym: the dims by ascending stride; equal
** strides put the higher dim first (as argsort does). */
static int fill_order(sdb_shape_env *env, const sdb_fake *t, int *order, sdb_err *err) {
  for (int i = 0; i < t->ndim; i++) {
    int j = i;
    order[j] = i;
    while (j > 0) {   /* insertion: does dim order[j] go before order[j - 1]? */
      int x = order[j], y = order[j - 1];
      bool lt, gt;
      int rc = less(env, sdb_fake_strides(t)[x], sdb_fake_strides(t)[y], &lt, err);
      if (!rc && !lt) rc = less(env, sdb_fake_strides(t)[y], sdb_fake_strides(t)[x], &gt, err);
      if (rc) return rc;
      bool before = lt || (!gt && x > y);
      if (!before) break;
      order[j] = y;
      order[j - 1] = x;
      j--;
    }
  }
  return SDB_OK;
}

static void put_tuple(sdb_buf *b, const sdb_expr *const *v, int n) {
  sdb_buf_putc(b, '(');
  for (int i = 0; i < n; i++) {
    char *s = sdb_expr_str(v[i]);
    sdb_buf_printf(b, "%s%s", i ? ", " : "", s ? s : "?");
    free(s);
  }
  sdb_buf_puts(b, n == 1 ? ",)" : ")");
}

static void put_size(sdb_buf *b, const sdb_fake *t) {
  sdb_buf_puts(b, "torch.Size([");
  for (int i = 0; i < t->ndim; i++) {
    char *s = sdb_expr_str(t->sizes[i]);
    sdb_buf_printf(b, "%s%s", i ? ", " : "", s ? s : "?");
    free(s);
  }
  sdb_buf_puts(b, "])");
}

/* stride expression -> the merged stride it stands for */
typedef struct stride_map {
  const sdb_expr *key[64], *val[64];
  int n;
} stride_map;

static const sdb_expr *map_get(const stride_map *m, const sdb_expr *k) {
  for (int i = 0; i < m->n; i++)
    if (m->key[i] == k) return m->val[i];
  return NULL;
}

static void map_set(stride_map *m, const sdb_expr *k, const sdb_expr *v) {
  for (int i = 0; i < m->n; i++)
    if (m->key[i] == k) { m->val[i] = v; return; }
  if (m->n < 64) { m->key[m->n] = k; m->val[m->n++] = v; }
}

/* cond.py's _bound_stride: the merged strides, as
** symbolic_shapes._compute_symbolic_stride builds them over the merged
** sizes. Both outputs must order their dims alike by stride; walking
** that order up from stride 1, each stride must be the product of the
** smaller ones' sizes (a dense layout), zero strides stay zero. */
static int bound_stride(sdb_shape_env *env, const sdb_fake *ta, const sdb_fake *tb,
                        const sdb_expr *const *sizes, const sdb_expr **strides, sdb_err *err) {
  int n = ta->ndim, oa[64], ob[64];
  int rc = fill_order(env, ta, oa, err);
  if (!rc) rc = fill_order(env, tb, ob, err);
  if (rc) return rc;
  const char *kind = NULL;
  for (int r = 0; r < n && !kind; r++)
    if (oa[r] != ob[r]) kind = "order";
  stride_map ma = {0}, mb = {0};
  for (int r = 0; r < n && !kind; r++) {
    int i = oa[r];
    const sdb_expr *av = sdb_simplify(env, sdb_fake_strides(ta)[i]);
    const sdb_expr *bv = sdb_simplify(env, sdb_fake_strides(tb)[i]);
    if (!av || !bv) return sdb_err_expr(err);
    if (av->kind == SDB_INT && av->ival == 0) {
      if (!(bv->kind == SDB_INT && bv->ival == 0)) { kind = "zero"; break; }
      strides[i] = sdb_int(0);
      continue;
    }
    const sdb_expr *have = map_get(&ma, av);
    if (have) {
      if (map_get(&mb, bv) != have) { kind = "dense"; break; }
      strides[i] = have;
    } else if (av->kind == SDB_INT && av->ival == 1) {
      if (!(bv->kind == SDB_INT && bv->ival == 1)) { kind = "dense"; break; }
      map_set(&ma, av, sdb_int(1));
      map_set(&mb, bv, sdb_int(1));
      strides[i] = sdb_int(1);
    } else {
      kind = "dense";
      break;
    }
    const sdb_expr *next = sdb_mul(strides[i], sizes[i]);
    const sdb_expr *ka = sdb_mul(av, sdb_simplify(env, ta->sizes[i]));
    const sdb_expr *kb = sdb_mul(bv, sdb_simplify(env, tb->sizes[i]));
    if (!next || !ka || !kb) return sdb_err_expr(err);
    map_set(&ma, ka, next);
    map_set(&mb, kb, next);
  }
  if (!kind) return SDB_OK;
  sdb_buf b = SDB_BUF_INIT;
  if (!strcmp(kind, "order")) {
    sdb_buf_puts(&b, "The sorted order of strides of the two branches' output doesn't match."
                     "this indicates the contiguousness of the two branches are different. "
                     "True branch has stride ");
    put_tuple(&b, sdb_fake_strides(ta), n);
    sdb_buf_puts(&b, " but false branch has stride ");
    put_tuple(&b, sdb_fake_strides(tb), n);
    sdb_buf_puts(&b, ".Consider using contiguous() to make the two branches have the same contiguousness.");
  } else {
    sdb_buf_puts(&b, "It seems one of cond's output stride is not a simple accumulative multiplication "
                     "of sizes. This could be because cond returns a slice of a tensor, which is not "
                     "dense in memory. True branch has size ");
    put_size(&b, ta);
    sdb_buf_puts(&b, ", stride ");
    put_tuple(&b, sdb_fake_strides(ta), n);
    sdb_buf_puts(&b, " and false branch has size ");
    put_size(&b, tb);
    sdb_buf_puts(&b, " stride ");
    put_tuple(&b, sdb_fake_strides(tb), n);
    sdb_buf_puts(&b, ". Hint: can call t.contiguous(). ");
  }
  if (b.failed) { sdb_buf_free(&b); return oom(err); }
  return sdb_err_take(err, SDB_E_HOP, "RuntimeError", sdb_buf_take(&b));
}

static int merge_leaf(sdb_fake_mode *m, const sdb_value *a, const sdb_value *b, sdb_value *out,
                      sdb_err *err) {
  sdb_shape_env *env = m->env;
  const char *prefix = "When merging two branches' output in torch.cond, ";
  if (a->kind == SDB_V_NONE && b->kind == SDB_V_NONE) { *out = SDB_VALUE_NONE; return SDB_OK; }
  if (a->kind == SDB_V_INT && b->kind == SDB_V_INT) {
    const sdb_expr *sa = sdb_simplify(env, a->expr), *sb = sdb_simplify(env, b->expr);
    if (sa && sa == sb && sa->kind == SDB_INT) { *out = sdb_value_int(sa); return SDB_OK; }
    char *why = why_differs(env, a->expr, b->expr);
    const sdb_expr *u = fresh_merged(env, a->expr, b->expr, why, err);
    free(why);
    if (!u) return err && err->code ? err->code : SDB_E_INVALID;
    *out = sdb_value_int(u);
    return SDB_OK;
  }
  if (a->kind != SDB_V_TENSOR || b->kind != SDB_V_TENSOR) {
    const sdb_value *bad = a->kind != SDB_V_TENSOR && a->kind != SDB_V_INT ? a : b;
    if (bad->kind != SDB_V_TENSOR && bad->kind != SDB_V_INT)
      return sdb_err_set(err, SDB_E_HOP, "RuntimeError",
                         "Expected branches to return a possibly nested pytree of tensors or constant ints.");
    return sdb_err_set(err, SDB_E_HOP, "RuntimeError",
                       "%s expected same type but got %s and %s.", prefix,
                       a->kind == SDB_V_TENSOR ? "Tensor" : "int", b->kind == SDB_V_TENSOR ? "Tensor" : "int");
  }
  sdb_fake *ta = a->tensor, *tb = b->tensor;
  if (ta->dtype != tb->dtype)
    return sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s expected same dtype but got %s and %s.",
                       prefix, sdb_dtype_name(ta->dtype), sdb_dtype_name(tb->dtype));
  if (strcmp(sdb_fake_device(ta), sdb_fake_device(tb)))
    return sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s expected same device but got %s and %s.",
                       prefix, sdb_fake_device(ta), sdb_fake_device(tb));
  if (ta->ndim != tb->ndim)
    return sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s expected same dim but got %d and %d.",
                       prefix, ta->ndim, tb->ndim);
  const sdb_expr *oa = sdb_simplify(env, sdb_fake_offset(ta)), *ob = sdb_simplify(env, sdb_fake_offset(tb));
  if (!oa || !ob) return sdb_err_expr(err);
  if (oa != ob) {
    char *xa = sdb_expr_str(oa), *xb = sdb_expr_str(ob);
    int rc = sdb_err_set(err, SDB_E_HOP, "RuntimeError", "%s expected same storage_offset but got %s and %s.",
                         prefix, xa ? xa : "?", xb ? xb : "?");
    free(xa);
    free(xb);
    return rc;
  }
  const sdb_expr *sizes[64];
  for (int i = 0; i < ta->ndim && i < 64; i++) {
    const sdb_expr *sa = sdb_simplify(env, ta->sizes[i]), *sb = sdb_simplify(env, tb->sizes[i]);
    if (!sa || !sb) return sdb_err_expr(err);
    if (!sdb_has_unbacked(env, sa) && !sdb_has_unbacked(env, sb) && sa == sb) {
      sizes[i] = sa;
      continue;
    }
    char *why = why_differs(env, sa, sb);
    sizes[i] = fresh_merged(env, sa, sb, why, err);
    free(why);
    if (!sizes[i]) return err && err->code ? err->code : SDB_E_INVALID;
  }
  const sdb_expr *strides[64];
  int rc = bound_stride(env, ta, tb, sizes, strides, err);
  if (rc) return rc;
  sdb_fake *r = sdb_fake_new_strided(m, ta->dtype, sdb_fake_device(ta), sizes, strides, ta->ndim, sdb_int(0),
                                     NULL);
  if (!r) return oom(err);
  r->requires_grad = ta->requires_grad || tb->requires_grad;
  *out = sdb_value_tensor(r);
  sdb_fake_unref(r);
  return SDB_OK;
}

static int merge_rec(sdb_fake_mode *m, const sdb_value *a, const sdb_value *b, sdb_value *out,
                     sdb_err *err) {
  if (a->kind != SDB_V_TUPLE && a->kind != SDB_V_LIST) return merge_leaf(m, a, b, out, err);
  *out = sdb_value_seq(a->kind, a->n);
  if (a->n && !out->items) return oom(err);
  for (size_t i = 0; i < a->n; i++) {
    int rc = merge_rec(m, &a->items[i], &b->items[i], &out->items[i], err);
    if (rc) { sdb_value_free(out); return rc; }
  }
  return SDB_OK;
}

int sdb_cond_merge(sdb_fake_mode *m, const sdb_value *a, const sdb_value *b,
                   sdb_value *out, sdb_err *err) {
  *out = SDB_VALUE_NONE;
  if (!same_structure(a, b)) {
    sdb_buf sa = SDB_BUF_INIT, sb = SDB_BUF_INIT;
    put_spec(&sa, a, 0);
    put_spec(&sb, b, 0);
    int rc = sdb_err_set(err, SDB_E_HOP, "RuntimeError",
                         "Unmatched output spec from torch.cond branches: true branch tree_spec %s "
                         "vs false branch tree_spec %s.", sdb_buf_cstr(&sa), sdb_buf_cstr(&sb));
    sdb_buf_free(&sa);
    sdb_buf_free(&sb);
    return rc;
  }
  return merge_rec(m, a, b, out, err);
}

/* --- one signature for every branch -------------------------------------------------- */

static sdb_node *input_for(const sdb_branch *b, const sdb_node *parent) {
  for (size_t i = 0; i < b->ninputs; i++)
    if (b->inputs[i].parent == parent) return b->inputs[i].ph;
  return NULL;
}

static int by_parent_name(const void *a, const void *b) {
  return strcmp((*(sdb_node *const *)a)->name, (*(sdb_node *const *)b)->name);
}

/* Dynamo's _merge_graph_inputs for cond: the parent proxies both branches
** lifted, sorted by name, then those only the true branch lifted, then
** those only the false branch lifted (each part sorted). Every branch
** graph gets a new placeholder per input, named after the parent proxy
** (suffixed _true_branch / _false_branch for the unique ones) and replacing
** the one it lifted: FX names it l_x__1 when l_x_ is still taken, and
** prints `l_x__1 = l_x_`. wrap has one body: its lifting order stands. */
static size_t merge_order(sdb_branch *branches, size_t n, sdb_node **order, size_t *part_end) {
  size_t k = 0;
  for (size_t i = 0; i < branches[0].ninputs; i++) {
    sdb_node *p = branches[0].inputs[i].parent;
    bool everywhere = true;
    for (size_t b = 1; b < n; b++) everywhere = everywhere && input_for(&branches[b], p);
    if (everywhere) order[k++] = p;
  }
  qsort(order, k, sizeof *order, by_parent_name);
  part_end[0] = k;
  for (size_t b = 0; b < n; b++) {
    size_t start = k;
    for (size_t i = 0; i < branches[b].ninputs; i++) {
      sdb_node *p = branches[b].inputs[i].parent;
      bool listed = false;
      for (size_t j = 0; j < k && !listed; j++) listed = order[j] == p;
      if (!listed) order[k++] = p;
    }
    qsort(order + start, k - start, sizeof *order, by_parent_name);
    part_end[b + 1] = k;
  }
  return k;
}

static const char *branch_suffix(const sdb_branch *b) {
  const char *us = strrchr(b->name, '_');   /* cond_true -> _true_branch */
  return sdb_internf("%s_branch", us ? us : "_");
}

int sdb_hop_signature(sdb_branch *branches, size_t n, sdb_node ***operands,
                      size_t *noperands, sdb_err *err) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += branches[i].ninputs;
  sdb_node **order = calloc(total + 1, sizeof *order);
  size_t *part_end = calloc(n + 1, sizeof *part_end);
  if (!order || !part_end) { free(order); free(part_end); return oom(err); }
  size_t k = 0;
  bool merge = n > 1;
  if (merge) k = merge_order(branches, n, order, part_end);
  else for (size_t i = 0; n && i < branches[0].ninputs; i++) order[k++] = branches[0].inputs[i].parent;
  /* every branch graph gets exactly these placeholders, in this order */
  int rc = SDB_OK;
  for (size_t b = 0; b < n && rc == SDB_OK; b++) {
    sdb_node **phs = calloc(k + 1, sizeof *phs);
    if (!phs) { rc = oom(err); break; }
    size_t part = 0;
    for (size_t i = 0; i < k && rc == SDB_OK; i++) {
      while (merge && i >= part_end[part]) part++;
      const char *target = !merge || part == 0 ? order[i]->name
                         : sdb_internf("%s%s", order[i]->name, branch_suffix(&branches[part - 1]));
      phs[i] = input_for(&branches[b], order[i]);
      if (phs[i] && merge) {           /* replaced by a placeholder of the new name */
        phs[i]->target = target;
        const char *name = sdb_graph_unique_name(branches[b].graph, target);
        sdb_iref ref = sdb_intern_ref(name);
        if (!name || !ref) { rc = oom(err); break; }
        phs[i]->name = name;
        phs[i]->name_ref = ref;
      } else if (!phs[i]) {            /* an input this branch does not use */
        phs[i] = sdb_graph_placeholder(branches[b].graph, target, target, &order[i]->example, NULL);
        if (!phs[i]) rc = oom(err);
      }
    }
    if (rc == SDB_OK && sdb_graph_set_placeholders(branches[b].graph, phs, k))
      rc = sdb_err_set(err, SDB_E_INVALID, "AssertionError", "%s has placeholders that were not lifted",
                       branches[b].name);
    free(phs);
  }
  free(part_end);
  if (rc) { free(order); return rc; }
  *operands = order;
  *noperands = k;
  return SDB_OK;
}
