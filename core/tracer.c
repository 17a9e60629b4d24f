/*
** tracer.c — (sub)graph tracers (see tracer.h).
**
** Proxies: tensor_proxy maps a fake tensor to the node that produced it;
** sym_proxy maps a symbolic expression (interned, so by pointer) to the
** node whose value it is. A root tracer binds a fresh unbacked symbol
** lazily: the node whose unbacked_bindings name it is remembered, and an
** accessor (`sym_size_int`) is made right after that node the first time
** the symbol is needed (Dynamo's track_unbacked_symbols).
*/
#include "tracer.h"
#include "buf.h"
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where an unbacked symbol can be read off a node's value. */
typedef struct {
  sdb_node *node;
  sdb_keypath path;
} site;

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

static void emit(sdb_tracer *tr, const sdb_event_in *e) {
  if (tr->ev) sdb_emit(tr->ev, e);
}

static void set_tracer_ctx(sdb_tracer *tr) {
  sdb_events_set_tracer(tr->ev, tr->path, tr->depth);
}

/* The graph's erase hook (ud: the stream). DCE runs while this tracer is
** the current one (or in the aot phase, for aot's graphs), so the event
** lands in the graph its nodes were placed in. */
void sdb_node_erased_event(void *ud, const sdb_node *n, const char *why) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_NODE_ERASED;
  e.text = n->name;
  e.detail = why;
  e.value = n->id;
  sdb_emit(ud, &e);
}

sdb_tracer *sdb_tracer_new(sdb_tracer *parent, const char *name, sdb_graph *graph,
                           sdb_fake_mode *mode) {
  sdb_tracer *tr = calloc(1, sizeof *tr);
  if (!tr) return NULL;
  tr->parent = parent;
  tr->name = sdb_intern(name);
  tr->depth = parent ? parent->depth + 1 : 0;
  tr->path = parent ? sdb_internf("%s > %s", parent->path, name) : sdb_intern(name);
  tr->graph = graph;
  tr->mode = mode;
  sdb_idmap_init(&tr->tensor_proxy, sdb_fake_next_id());
  tr->env = mode->env;
  tr->ev = sdb_shape_env_events(mode->env);
  if (tr->ev) sdb_graph_on_erase(graph, sdb_node_erased_event, tr->ev);
  set_tracer_ctx(tr);
  sdb_event_in e = {0};
  e.kind = SDB_EV_TRACER_PUSH;
  e.text = tr->path;
  e.value = tr->depth;
  emit(tr, &e);
  return tr;
}

void sdb_tracer_done(sdb_tracer *tr) {
  if (!tr) return;
  if (!tr->parent) sdb_graph_seal(tr->graph);
  sdb_idmap_free(&tr->tensor_proxy);
  sdb_map_free(&tr->sym_proxy);
  sdb_map_free(&tr->bound_symbols);
  sdb_map_free(&tr->lifted_freevars);
  for (size_t i = 0; i < tr->unbacked_site.len; i++) free(tr->unbacked_site.vals[i]);
  sdb_map_free(&tr->unbacked_site);
  sdb_buf_free(&tr->line);
}

void sdb_tracer_free(sdb_tracer *tr) {
  if (!tr) return;
  sdb_event_in e = {0};
  e.kind = SDB_EV_TRACER_POP;
  e.text = tr->path;
  e.value = tr->depth;
  emit(tr, &e);
  if (tr->parent) set_tracer_ctx(tr->parent);
  else sdb_events_set_tracer(tr->ev, "trace", 0);
  sdb_tracer_done(tr);
  free(tr);
}

/* ------------------------------------------------------------------------
** Node placement
** ---------------------------------------------------------------------- */

/* Called right after n went into its graph: where it went is part of the
** event (asserts go right after the node binding their symbol). */
static void node_placed(sdb_tracer *tr, sdb_node *n) {
  sdb_node_locate(n, tr->ev);
  sdb_event_in e;
  sdb_event_more more;
  if (!sdb_node_placed_event(tr->graph, n, &tr->line, &e, &more))
    sdb_events_note_lost(tr->ev);   /* placed, but with no line */
  /* Stamped with the tracer whose graph it went into: lifting a free
  ** variable into a nested body places placeholders in every enclosing
  ** body on the way, while the innermost tracer is the current one. */
  int depth;
  const char *cur = sdb_events_tracer(tr->ev, &depth);
  set_tracer_ctx(tr);
  sdb_loc at = sdb_node_loc(n);
  if (tr->ev) sdb_emit_at(tr->ev, &e, &at);   /* located once, above */
  if (cur) sdb_events_set_tracer(tr->ev, cur, depth);
}

/* after: place right after that node (NULL: at the graph's insertion point) */
/* kws: the names of the last nkw args (interned) */
static sdb_node *place_kw(sdb_tracer *tr, const sdb_node *after, sdb_node_op op,
                          const char *target, const char *hint, sdb_arg *args, size_t n,
                          const char *const *kws, size_t nkw, const sdb_value *example) {
  sdb_node *node = sdb_graph_call_kw(tr->graph, after, op, target, hint, args, n, kws, nkw, example);
  if (node) node_placed(tr, node);
  return node;
}

static sdb_node *place(sdb_tracer *tr, const sdb_node *after, sdb_node_op op,
                       const char *target, const char *hint, sdb_arg *args, size_t n,
                       const sdb_value *example) {
  return place_kw(tr, after, op, target, hint, args, n, NULL, 0, example);
}

/* n binds symbol s in this tracer (a placeholder or an accessor). */
static void bind_here(sdb_tracer *tr, const sdb_expr *s, sdb_node *n) {
  if (!sdb_map_get(&tr->bound_symbols, s) && !sdb_map_put(&tr->bound_symbols, s, n)) tr->oom = true;
}

sdb_node *sdb_tracer_proxy_of(const sdb_tracer *tr, const sdb_fake *t) {
  return sdb_idmap_get(&tr->tensor_proxy, t->id, t);
}

static bool proxy_put(sdb_tracer *tr, const sdb_fake *t, sdb_node *node) {
  if (sdb_idmap_put(&tr->tensor_proxy, t->id, t, node)) return true;
  tr->oom = true;
  return false;
}

bool sdb_tracer_any_tensor(const sdb_tracer *tr, bool (*fn)(const sdb_fake *t, const void *ud),
                           const void *ud) {
  const void *k;
  void *v;
  for (size_t i = 0; sdb_idmap_next(&tr->tensor_proxy, &i, &k, &v);)
    if (fn(k, ud)) return true;
  return false;
}

static void remember_sym(sdb_tracer *tr, const sdb_expr *e, sdb_node *n) {
  if (e && !sdb_is_const(e) && !sdb_map_get(&tr->sym_proxy, e) && !sdb_map_put(&tr->sym_proxy, e, n))
    tr->oom = true;
}

void sdb_tracer_track(sdb_tracer *tr, const sdb_value *v, sdb_node *node) {
  switch (v->kind) {
    case SDB_V_TENSOR: proxy_put(tr, v->tensor, node); break;
    case SDB_V_INT: case SDB_V_BOOL: case SDB_V_FLOAT:
      remember_sym(tr, v->expr, node);
      /* a fresh unbacked symbol as a value (item()) is bound by its node */
      if (v->expr && v->expr->kind == SDB_SYM && sdb_is_unbacked(tr->env, v->expr))
        bind_here(tr, v->expr, node);
      break;
    default: break;
  }
}

/* ------------------------------------------------------------------------
** Graph inputs and lifting
** ---------------------------------------------------------------------- */

static void graph_input_event(sdb_tracer *tr, sdb_node *ph, const sdb_node *from,
                              const sdb_expr *sym) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_GRAPH_INPUT;
  e.text = ph->name;
  sdb_event_more e_sym = {.sym = sym};
  e.more = &e_sym;
  if (from) e.detail = sdb_internf("lifted from %s in %s", from->name,
                                   tr->parent ? tr->parent->path : "?");
  emit(tr, &e);
}

static void symbol_bound_event(sdb_tracer *tr, const sdb_expr *sym, const sdb_node *n) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_SYMBOL_BOUND;
  sdb_event_more e_sym = {.sym = sym};
  e.more = &e_sym;
  e.text = n->name;
  emit(tr, &e);
}

/* Where a placeholder goes: right before `before` (a lifted tensor's
** symbols precede it: _lift_basic_symbols with before=True), else after
** the last placeholder (create_graph_input). */
static size_t slot_before(const sdb_graph *g, const sdb_node *before) {
  size_t np = sdb_graph_num_placeholders(g);
  for (size_t i = 0; before && i < np; i++)
    if (g->nodes[i] == before) return i;
  return np;
}

static sdb_node *bind_symbol(sdb_tracer *tr, const sdb_expr *s, const sdb_node *before,
                             sdb_err *err);

/* Bind the free symbols of a lifted tensor t not yet bound here, right
** before its placeholder ph: size by size, then the strides, then the
** storage offset, each SymInt's new symbols in sorted order, as
** _lift_basic_symbols walks them. */
static int by_name(const void *a, const void *b) {
  return strcmp((*(const sdb_expr *const *)a)->name, (*(const sdb_expr *const *)b)->name);
}

static int bind_tensor_symbols(sdb_tracer *tr, const sdb_fake *t, const sdb_node *ph, sdb_err *err) {
  const sdb_expr *all[3 * 64 + 1];
  size_t n = 0;
  for (int i = 0; i < t->ndim && n < 64; i++) all[n++] = t->sizes[i];
  for (int i = 0; i < t->ndim && n < 2 * 64; i++) all[n++] = sdb_fake_strides(t)[i];
  all[n++] = sdb_fake_offset(t);
  for (size_t k = 0; k < n; k++) {
    if (sdb_is_const(all[k])) continue;
    const sdb_expr **fs;
    long nf = sdb_free_symbols(all[k], &fs);
    if (nf < 0) return oom(err);
    if (nf > 1) qsort(fs, (size_t)nf, sizeof *fs, by_name);   /* sympy: key=s.name */
    int rc = SDB_OK;
    for (long i = 0; i < nf && rc == SDB_OK; i++) {
      if (sdb_map_get(&tr->bound_symbols, fs[i]) || sdb_map_get(&tr->sym_proxy, fs[i])) continue;
      if (!bind_symbol(tr, fs[i], ph, err)) rc = err && err->code ? err->code : SDB_E_INVALID;
    }
    free(fs);
    if (rc) return rc;
  }
  return SDB_OK;
}

static int record_bindings(sdb_tracer *tr, sdb_node *node, const sdb_value *out, sdb_err *err);

sdb_node *sdb_tracer_input_tensor(sdb_tracer *tr, sdb_fake *t, const char *argname,
                                  const sdb_source *src, sdb_err *err) {
  /* the symbols this input introduces come just before it */
  for (int i = 0; i < t->ndim; i++) {
    const sdb_expr *s = t->sizes[i];
    if (s->kind != SDB_SYM || sdb_map_get(&tr->sym_proxy, s)) continue;
    sdb_value ex = sdb_value_int(s);
    sdb_node *ph = sdb_graph_placeholder(tr->graph, s->name, s->name, &ex, NULL);
    if (!ph) { oom(err); return NULL; }
    remember_sym(tr, s, ph);
    bind_here(tr, s, ph);
    node_placed(tr, ph);
    graph_input_event(tr, ph, NULL, s);
    symbol_bound_event(tr, s, ph);
  }
  char target[160], name[160];
  snprintf(target, sizeof target, "L_%s_", argname);
  snprintf(name, sizeof name, "l_%s_", argname);
  sdb_value ex = sdb_value_tensor(t);
  sdb_node *ph = sdb_graph_placeholder(tr->graph, name, target, &ex, src);
  sdb_value_free(&ex);
  if (!ph) { oom(err); return NULL; }
  proxy_put(tr, t, ph);
  node_placed(tr, ph);
  graph_input_event(tr, ph, NULL, NULL);
  /* mark_unbacked dims: their fresh symbols are bound by this placeholder,
  ** as Dynamo's set_example_value computes bindings for graph inputs */
  ex = sdb_value_tensor(t);
  int rc = record_bindings(tr, ph, &ex, err);
  sdb_value_free(&ex);
  return rc ? NULL : ph;
}

sdb_node *sdb_tracer_input_symint(sdb_tracer *tr, const sdb_expr *e, const char *argname,
                                  const sdb_source *src, sdb_err *err) {
  char target[160], name[160];
  snprintf(target, sizeof target, "L_%s_", argname);
  snprintf(name, sizeof name, "l_%s_", argname);
  sdb_value ex = sdb_value_int(e);
  sdb_node *ph = sdb_graph_placeholder(tr->graph, name, target, &ex, src);
  if (!ph) { oom(err); return NULL; }
  remember_sym(tr, e, ph);
  if (e->kind == SDB_SYM) bind_here(tr, e, ph);
  node_placed(tr, ph);
  graph_input_event(tr, ph, NULL, e->kind == SDB_SYM ? e : NULL);
  if (e->kind == SDB_SYM) symbol_bound_event(tr, e, ph);
  return ph;
}

/* Make the accessor for an unbacked symbol from where a node holds it. */
/* Nodes go right after *cursor, which advances (several accessors of one
** node stay in order). */
static sdb_node *accessor(sdb_tracer *tr, const site *st, const sdb_expr *sym,
                          sdb_node **cursor, sdb_err *err) {
  const sdb_keypath *p = &st->path;
  sdb_node *site_node = st->node;
  sdb_node *cur = site_node, *after = *cursor;
  for (int i = 0; i < p->n; i++) {
    const sdb_key *k = &p->k[i];
    sdb_arg *args = calloc(2, sizeof *args);
    if (!args) { oom(err); return NULL; }
    args[0] = sdb_arg_node(cur);
    const char *target, *hint;
    size_t nargs = 2;
    if ((k->kind == SDB_KEY_SIZE || k->kind == SDB_KEY_STRIDE) && i + 1 < p->n &&
        p->k[i + 1].kind == SDB_KEY_INDEX) {
      bool size = k->kind == SDB_KEY_SIZE;
      target = size ? "torch.ops.aten.sym_size.int" : "torch.ops.aten.sym_stride.int";
      hint = size ? "sym_size_int" : "sym_stride_int";
      args[1] = sdb_arg_const(sdb_value_int64(p->k[++i].index));
    } else if (k->kind == SDB_KEY_STORAGE_OFFSET) {
      target = "torch.ops.aten.sym_storage_offset.default";
      hint = "sym_storage_offset";
      nargs = 1;
    } else if (k->kind == SDB_KEY_INDEX) {
      target = "operator.getitem";
      hint = "getitem";
      args[1] = sdb_arg_const(sdb_value_int64(k->index));
    } else if (k->kind == SDB_KEY_DIVIDE) {
      target = "operator.floordiv";
      hint = "floordiv";
      if (k->divisor->kind == SDB_INT) args[1] = sdb_arg_const(sdb_value_int(k->divisor));
      else {
        sdb_node *d = sdb_tracer_proxy_expr(tr, k->divisor, err);
        if (!d) { free(args); return NULL; }
        args[1] = sdb_arg_node(d);
      }
    } else {
      target = "torch.sym_int";
      hint = "sym_int";
      nargs = 1;
    }
    bool last = i + 1 >= p->n;
    sdb_value ex = last ? sdb_value_int(sym) : SDB_VALUE_NONE;
    cur = place(tr, after, SDB_N_CALL_FUNCTION, target, hint, args, nargs, last ? &ex : NULL);
    if (!cur) { oom(err); return NULL; }
    after = cur;
  }
  *cursor = after;
  remember_sym(tr, sym, cur);
  bind_here(tr, sym, cur);
  symbol_bound_event(tr, sym, cur);
  return cur;
}

/* bound_symbols[s] in this tracer, lifting from the parent when needed.
** Seed 004: a child lifts the parent's binding of the symbol (its
** placeholder), not whatever node last computed the same value. */
static sdb_node *bind_symbol(sdb_tracer *tr, const sdb_expr *s, const sdb_node *before,
                             sdb_err *err) {
  sdb_node *n = sdb_map_get(&tr->bound_symbols, s);
  if (n) return n;
  n = sdb_map_get(&tr->sym_proxy, s);
  if (n) return n;
  site *st = sdb_map_get(&tr->unbacked_site, s);
  if (st) {
    sdb_node *cursor = st->node;
    return accessor(tr, st, s, &cursor, err);
  }
  if (!tr->parent) {
    sdb_err_set(err, SDB_E_INVALID, "AssertionError",
                "symbol %s has no proxy in %s: it is neither an input nor bound by a node",
                s->name, tr->path);
    return NULL;
  }
  sdb_node *pn = bind_symbol(tr->parent, s, NULL, err);
  if (!pn) return NULL;
  sdb_value ex = sdb_value_int(s);
  sdb_node *ph = sdb_graph_placeholder_at(tr->graph, slot_before(tr->graph, before), s->name,
                                          s->name, &ex, NULL);
  if (!ph) { oom(err); return NULL; }
  remember_sym(tr, s, ph);
  bind_here(tr, s, ph);
  if (!sdb_map_put(&tr->lifted_freevars, pn, ph)) tr->oom = true;
  node_placed(tr, ph);
  graph_input_event(tr, ph, pn, s);
  symbol_bound_event(tr, s, ph);
  return ph;
}

sdb_node *sdb_tracer_proxy_tensor(sdb_tracer *tr, sdb_fake *t, sdb_err *err) {
  sdb_node *n = sdb_tracer_proxy_of(tr, t);
  if (n) return n;
  if (tr->oom) { oom(err); return NULL; }   /* its proxy may be the entry that was lost */
  if (!tr->parent) {
    char *m = sdb_fake_meta_str(t, false);
    sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                "tensor %s was not created inside the traced function and is not one of "
                "its inputs (pass it as an argument)", m ? m : "?");
    free(m);
    return NULL;
  }
  /* look it up through the parents; each tracer on the way lifts it */
  sdb_node *pn = sdb_tracer_proxy_tensor(tr->parent, t, err);
  if (!pn) return NULL;
  sdb_value ex = sdb_value_tensor(t);
  sdb_node *ph = sdb_graph_placeholder(tr->graph, pn->name, pn->name, &ex, NULL);
  sdb_value_free(&ex);
  if (!ph) { oom(err); return NULL; }
  proxy_put(tr, t, ph);
  if (!sdb_map_put(&tr->lifted_freevars, pn, ph)) tr->oom = true;
  node_placed(tr, ph);
  graph_input_event(tr, ph, pn, NULL);
  /* seed 004 point 1: a lifted tensor's free symbols are bound too */
  if (bind_tensor_symbols(tr, t, ph, err)) return NULL;
  return ph;
}

sdb_node *sdb_tracer_lift_proxy(sdb_tracer *tr, const sdb_tracer *owner, sdb_node *node,
                                const sdb_value *example, sdb_err *err) {
  if (tr == owner) return node;
  if (!tr->parent) {
    sdb_err_set(err, SDB_E_INVALID, "AssertionError", "%s is not a node of an enclosing tracer of %s",
                node->name, tr->path);
    return NULL;
  }
  const sdb_expr *e = example->expr;
  sdb_node *have = e ? sdb_map_get(&tr->sym_proxy, e) : NULL;
  if (have) return have;
  sdb_node *pn = sdb_tracer_lift_proxy(tr->parent, owner, node, example, err);
  if (!pn) return NULL;
  if ((have = sdb_map_get(&tr->lifted_freevars, pn))) return have;
  sdb_node *ph = sdb_graph_placeholder(tr->graph, pn->name, pn->name, example, NULL);
  if (!ph) { oom(err); return NULL; }
  remember_sym(tr, e, ph);
  bool basic = e && e->kind == SDB_SYM;
  if (basic) bind_here(tr, e, ph);
  if (!sdb_map_put(&tr->lifted_freevars, pn, ph)) tr->oom = true;
  node_placed(tr, ph);
  graph_input_event(tr, ph, pn, basic ? e : NULL);
  if (basic) symbol_bound_event(tr, e, ph);
  return ph;
}

bool sdb_tracer_encloses(const sdb_tracer *outer, const sdb_tracer *tr) {
  for (const sdb_tracer *p = tr ? tr->parent : NULL; p; p = p->parent)
    if (p == outer) return true;
  return false;
}

/* Build nodes computing e from its symbols' proxies (_sympy_interp). */
static sdb_node *interp(sdb_tracer *tr, const sdb_expr *e, sdb_err *err);

static sdb_arg arg_of(sdb_tracer *tr, const sdb_expr *e, sdb_err *err, bool *ok) {
  if (e->kind == SDB_INT) return sdb_arg_const(sdb_value_int(e));
  if (e->kind == SDB_TRUE || e->kind == SDB_FALSE) return sdb_arg_const(sdb_value_bool(e));
  sdb_node *n = interp(tr, e, err);
  *ok = n != NULL;
  return sdb_arg_node(n);
}

/* `a op b` as an operator node at the graph's insertion point. */
static sdb_node *binop(sdb_tracer *tr, const char *target, const char *hint,
                       const sdb_expr *a, const sdb_expr *b, const sdb_expr *result,
                       sdb_err *err) {
  bool ok = true;
  sdb_arg *args = calloc(2, sizeof *args);
  if (!args) { oom(err); return NULL; }
  args[0] = arg_of(tr, a, err, &ok);
  if (ok) args[1] = arg_of(tr, b, err, &ok);
  if (!ok) { sdb_arg_free(&args[0]); free(args); return NULL; }
  sdb_value ex = sdb_is_bool(result) ? sdb_value_bool(result) : sdb_value_int(result);
  sdb_node *n = place(tr, NULL, SDB_N_CALL_FUNCTION, target, hint, args, 2, &ex);
  if (!n) { oom(err); return NULL; }
  remember_sym(tr, result, n);
  return n;
}

static sdb_node *interp(sdb_tracer *tr, const sdb_expr *e, sdb_err *err) {
  sdb_node *n = sdb_map_get(&tr->sym_proxy, e);
  if (n) return n;
  switch (e->kind) {
    case SDB_SYM: return bind_symbol(tr, e, NULL, err);
    case SDB_ADD: {
      /* terms in order, the constant last: (t0 + t1) + c */
      const sdb_expr *acc = e->args[0];
      sdb_node *cur = interp(tr, acc, err);
      for (size_t i = 1; cur && i < e->nargs; i++) {
        const sdb_expr *next = sdb_add(acc, e->args[i]);
        cur = binop(tr, "operator.add", "add", acc, e->args[i], next, err);
        acc = next;
      }
      if (cur && e->ival) cur = binop(tr, "operator.add", "add", acc, sdb_int(e->ival), e, err);
      return cur;
    }
    case SDB_MUL: {
      const sdb_expr *acc = e->args[0];
      sdb_node *cur = interp(tr, acc, err);
      for (size_t i = 1; cur && i < e->nargs; i++) {
        const sdb_expr *next = sdb_mul(acc, e->args[i]);
        cur = binop(tr, "operator.mul", "mul", acc, e->args[i], next, err);
        acc = next;
      }
      if (cur && e->ival != 1) cur = binop(tr, "operator.mul", "mul", acc, sdb_int(e->ival), e, err);
      return cur;
    }
    case SDB_POW: return binop(tr, "operator.pow", "pow", e->args[0], sdb_int(e->ival), e, err);
    case SDB_FLOORDIV: return binop(tr, "operator.floordiv", "floordiv", e->args[0], e->args[1], e, err);
    case SDB_MOD: return binop(tr, "operator.mod", "mod", e->args[0], e->args[1], e, err);
    case SDB_MAX: case SDB_MIN: {
      const sdb_expr *acc = e->args[0];
      sdb_node *cur = interp(tr, acc, err);
      for (size_t i = 1; cur && i < e->nargs; i++) {
        const sdb_expr *next = e->kind == SDB_MAX ? sdb_max(acc, e->args[i]) : sdb_min(acc, e->args[i]);
        cur = binop(tr, e->kind == SDB_MAX ? "torch.sym_max" : "torch.sym_min",
                    e->kind == SDB_MAX ? "sym_max" : "sym_min", acc, e->args[i], next, err);
        acc = next;
      }
      return cur;
    }
    case SDB_EQ: return binop(tr, "operator.eq", "eq", e->args[0], e->args[1], e, err);
    case SDB_NE: return binop(tr, "operator.ne", "ne", e->args[0], e->args[1], e, err);
    case SDB_LT: case SDB_LE: {
      /* Gt(u0, 0) is stored as Lt(0, u0): build it as written */
      bool flip = sdb_rel_flipped(e);
      bool lt = e->kind == SDB_LT;
      const char *t = flip ? (lt ? "operator.gt" : "operator.ge") : (lt ? "operator.lt" : "operator.le");
      const char *h = flip ? (lt ? "gt" : "ge") : (lt ? "lt" : "le");
      return binop(tr, t, h, e->args[flip], e->args[!flip], e, err);
    }
    case SDB_AND: case SDB_OR: {
      const sdb_expr *acc = e->args[0];
      sdb_node *cur = interp(tr, acc, err);
      for (size_t i = 1; cur && i < e->nargs; i++) {
        const sdb_expr *next = e->kind == SDB_AND ? sdb_and(acc, e->args[i]) : sdb_or(acc, e->args[i]);
        cur = binop(tr, e->kind == SDB_AND ? "operator.and_" : "operator.or_",
                    e->kind == SDB_AND ? "and_" : "or_", acc, e->args[i], next, err);
        acc = next;
      }
      return cur;
    }
    default: {
      char *s = sdb_expr_str(e);
      sdb_err_set(err, SDB_E_INVALID, "NotImplementedError", "cannot build a graph node for %s", s ? s : "?");
      free(s);
      return NULL;
    }
  }
}

sdb_node *sdb_tracer_proxy_expr(sdb_tracer *tr, const sdb_expr *e, sdb_err *err) {
  return interp(tr, e, err);
}

int sdb_tracer_arg(sdb_tracer *tr, const sdb_value *v, sdb_arg *out, sdb_err *err) {
  sdb_node *n;
  switch (v->kind) {
    case SDB_V_TENSOR:
      n = sdb_tracer_proxy_tensor(tr, v->tensor, err);
      if (!n) return err && err->code ? err->code : SDB_E_INVALID;
      *out = sdb_arg_node(n);
      return SDB_OK;
    case SDB_V_INT: case SDB_V_BOOL: case SDB_V_FLOAT:
      if (!v->expr || sdb_is_const(v->expr)) { *out = sdb_arg_const(sdb_value_copy(v)); return SDB_OK; }
      n = sdb_tracer_proxy_expr(tr, v->expr, err);
      if (!n) return err && err->code ? err->code : SDB_E_INVALID;
      *out = sdb_arg_node(n);
      return SDB_OK;
    case SDB_V_LIST: case SDB_V_TUPLE:
      *out = sdb_arg_seq(v->n, v->kind == SDB_V_TUPLE);
      if (v->n && !out->items) return oom(err);
      for (size_t i = 0; i < v->n; i++) {
        int rc = sdb_tracer_arg(tr, &v->items[i], &out->items[i], err);
        if (rc) { sdb_arg_free(out); return rc; }
      }
      return SDB_OK;
    default:
      *out = sdb_arg_const(sdb_value_copy(v));
      return SDB_OK;
  }
}

/* ------------------------------------------------------------------------
** Ops and generic nodes
** ---------------------------------------------------------------------- */

static int convert_args(sdb_tracer *tr, const sdb_args *a, sdb_arg **out, size_t *n,
                        sdb_err *err) {
  size_t total = a->npos + a->nkw;
  sdb_arg *args = calloc(total ? total : 1, sizeof *args);
  if (!args) return oom(err);
  for (size_t i = 0; i < total; i++) {
    const sdb_value *v = i < a->npos ? &a->pos[i] : &a->kw[i - a->npos].value;
    int rc = sdb_tracer_arg(tr, v, &args[i], err);
    if (rc) {
      for (size_t k = 0; k < i; k++) sdb_arg_free(&args[k]);
      free(args);
      return rc;
    }
  }
  *out = args;
  *n = total;
  return SDB_OK;
}

/* seed 001's binding site: the pending fresh symbols are found in the
** node's example value and recorded on it; the pending list is cleared. */
static int record_bindings(sdb_tracer *tr, sdb_node *node, const sdb_value *out, sdb_err *err) {
  if (sdb_pending_count(tr->env) == 0) return SDB_OK;
  sdb_bindings found;
  int rc = sdb_compute_unbacked_bindings(tr->env, out, true, &found, err);
  if (rc) return rc;
  if (!sdb_node_set_bindings(node, &found)) return oom(err);
  if (sdb_node_bindings(node)->n) {
    size_t n = sdb_node_bindings(node)->n;
    const sdb_expr **syms = calloc(n, sizeof *syms);
    const char **texts = calloc(n, sizeof *texts);
    if (!syms || !texts) { free(syms); free(texts); return oom(err); }
    for (size_t i = 0; i < n; i++) {
      char ps[256];
      syms[i] = sdb_node_bindings(node)->v[i].sym;
      texts[i] = sdb_intern(sdb_keypath_str(sdb_node_bindings(node)->v[i].path, ps, sizeof ps));
    }
    sdb_event_in e = {0};
    e.kind = SDB_EV_UNBACKED_BINDINGS;
    e.text = node->name;
    sdb_event_more e_more = {.syms = syms, .texts = texts, .nsyms = (uint32_t)n};
    e.more = &e_more;
    emit(tr, &e);
    free(syms);
    free(texts);
  }
  sdb_bindings dummy;
  rc = sdb_compute_unbacked_bindings(tr->env, out, false, &dummy, err);
  sdb_bindings_free(&dummy);
  return rc;
}

/* Remember where each unbacked symbol of a node's value can be read, for
** symbols with no proxy yet: bound ones from the bindings, and (under
** ignore_fresh_unbacked_symbols, where nothing is bound) any other, so a
** nested subgraph can still lift it (track_unbacked_symbols). */
static void note_sites(sdb_tracer *tr, sdb_node *node, const sdb_value *v) {
  for (size_t i = 0; i < sdb_node_bindings(node)->n; i++) {
    const sdb_expr *u = sdb_node_bindings(node)->v[i].sym;
    if (sdb_map_get(&tr->unbacked_site, u)) continue;
    site *st = malloc(sizeof *st);
    if (!st) return;
    st->node = node;
    st->path = *sdb_node_bindings(node)->v[i].path;
    if (!sdb_map_put(&tr->unbacked_site, u, st)) free(st);
  }
  if (v->kind != SDB_V_TENSOR) return;
  const sdb_fake *t = v->tensor;
  for (int i = 0; i < t->ndim; i++) {
    const sdb_expr *u = t->sizes[i];
    if (u->kind != SDB_SYM || !sdb_is_unbacked(tr->env, u)) continue;
    if (sdb_map_get(&tr->sym_proxy, u) || sdb_map_get(&tr->unbacked_site, u)) continue;
    site *st = malloc(sizeof *st);
    if (!st) return;
    st->node = node;
    if (!sdb_keypath_find(v, u, &st->path) || !sdb_map_put(&tr->unbacked_site, u, st)) free(st);
  }
}

/* Tuple outputs: a getitem node per element, so each can be used (DCE
** removes the unused ones). */
void sdb_tracer_track_output(sdb_tracer *tr, sdb_node *node, const sdb_value *out) {
  if (out->kind != SDB_V_TUPLE && out->kind != SDB_V_LIST) {
    sdb_tracer_track(tr, out, node);
    return;
  }
  for (size_t i = 0; i < out->n; i++) {
    const sdb_value *item = &out->items[i];
    if (item->kind != SDB_V_TENSOR && !(item->expr && !sdb_is_const(item->expr))) continue;
    sdb_arg *args = calloc(2, sizeof *args);
    if (!args) { tr->oom = true; return; }
    args[0] = sdb_arg_node(node);
    args[1] = sdb_arg_const(sdb_value_int64((int64_t)i));
    sdb_node *g = place(tr, NULL, SDB_N_CALL_FUNCTION, "operator.getitem", "getitem", args, 2, item);
    if (!g) { tr->oom = true; return; }
    sdb_tracer_track(tr, item, g);
    note_sites(tr, g, item);
  }
}

int sdb_tracer_call(sdb_tracer *tr, const sdb_op *op, bool method, const sdb_args *a,
                    sdb_value *out, sdb_node **node_out, sdb_err *err) {
  *out = SDB_VALUE_NONE;
  if (node_out) *node_out = NULL;
  sdb_arg *args = NULL;
  size_t nargs = 0;
  if (a->nkw > SDB_NODE_MAX_KW)
    return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() got %zu keyword arguments (shapedb keeps at most %d)",
                       op->name, a->nkw, SDB_NODE_MAX_KW);
  const char *kwbuf[8], **kws = a->nkw <= 8 ? kwbuf : malloc(a->nkw * sizeof *kws);
  if (!kws) return oom(err);
  for (size_t i = 0; i < a->nkw; i++)
    if (!(kws[i] = sdb_intern(a->kw[i].name))) {
      if (kws != kwbuf) free(kws);
      return oom(err);
    }
  int rc = convert_args(tr, a, &args, &nargs, err);
  if (rc) {
    if (kws != kwbuf) free(kws);
    return rc;
  }
  /* the meta function and the node's placement are one call of the op
  ** (its first event is where `break op` stops) */
  sdb_events_push_op(tr->ev, op->name);
  rc = sdb_op_call(tr->mode, op, a, out, err);
  if (rc) {
    sdb_events_pop_op(tr->ev);
    for (size_t i = 0; i < nargs; i++) sdb_arg_free(&args[i]);
    free(args);
    if (kws != kwbuf) free(kws);
    return rc;
  }
  char target[160];
  const char *hint = op->name;
  if (op->flags & SDB_OP_CUSTOM) {
    /* Dynamo calls an OpOverload: torch.ops.mylib.foo.default, node foo */
    sdb_strcat2(target, sizeof target, "torch.ops.", op->aten);
    const char *sep = strstr(op->name, "::");
    hint = sep ? sep + 2 : op->name;
  } else if (method) {
    sdb_strcat2(target, sizeof target, "", op->name);
  } else {
    sdb_strcat2(target, sizeof target, "torch.", op->name);
  }
  sdb_node *node = place_kw(tr, NULL, method ? SDB_N_CALL_METHOD : SDB_N_CALL_FUNCTION,
                            target, hint, args, nargs, kws, a->nkw, out);
  if (kws != kwbuf) free(kws);
  if (!node) { sdb_events_pop_op(tr->ev); sdb_value_free(out); return oom(err); }
  node->impure = (op->flags & SDB_OP_INPLACE) != 0;
  rc = record_bindings(tr, node, out, err);
  sdb_events_pop_op(tr->ev);
  if (rc) { sdb_value_free(out); return rc; }
  note_sites(tr, node, out);
  sdb_tracer_track_output(tr, node, out);
  if (tr->oom) { sdb_value_free(out); return oom(err); }
  if (node_out) *node_out = node;
  return SDB_OK;
}

sdb_node *sdb_tracer_node(sdb_tracer *tr, sdb_node_op op, const char *target,
                          const char *name_hint, const sdb_value *vals,
                          const char *const *kwnames, size_t nargs,
                          const sdb_value *example, bool impure, sdb_err *err) {
  /* FX keeps kwargs after args: the named ones must be the last */
  size_t first = nargs;
  while (kwnames && first > 0 && kwnames[first - 1]) first--;
  for (size_t i = 0; kwnames && i < first; i++)
    if (kwnames[i]) {
      sdb_err_set(err, SDB_E_INVALID, "SyntaxError", "positional argument follows keyword argument");
      return NULL;
    }
  size_t nkw = nargs - first;
  if (nkw > SDB_NODE_MAX_KW) {
    sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s got %zu keyword arguments (shapedb keeps at most %d)",
                target, nkw, SDB_NODE_MAX_KW);
    return NULL;
  }
  const char **kws = calloc(nkw ? nkw : 1, sizeof *kws);
  sdb_arg *args = calloc(nargs ? nargs : 1, sizeof *args);
  if (!args || !kws) { free(args); free(kws); oom(err); return NULL; }
  for (size_t i = 0; i < nkw; i++)
    if (!(kws[i] = sdb_intern(kwnames[first + i]))) { free(args); free(kws); oom(err); return NULL; }
  for (size_t i = 0; i < nargs; i++) {
    if (sdb_tracer_arg(tr, &vals[i], &args[i], err)) {
      for (size_t k = 0; k < i; k++) sdb_arg_free(&args[k]);
      free(args);
      free(kws);
      return NULL;
    }
  }
  sdb_node *n = place_kw(tr, NULL, op, target, name_hint, args, nargs, kws, nkw, example);
  free(kws);
  if (!n) { oom(err); return NULL; }
  n->impure = impure;
  if (example) {
    if (record_bindings(tr, n, example, err)) return NULL;
    note_sites(tr, n, example);
    sdb_tracer_track_output(tr, n, example);
  }
  if (tr->oom) { oom(err); return NULL; }
  return n;
}

sdb_node *sdb_tracer_adopt_node(sdb_tracer *tr, sdb_node *node, const sdb_value *example,
                                sdb_err *err) {
  node_placed(tr, node);
  if (!example) return node;
  if (record_bindings(tr, node, example, err)) return NULL;
  note_sites(tr, node, example);
  sdb_tracer_track_output(tr, node, example);
  if (tr->oom) { oom(err); return NULL; }
  return node;
}

sdb_node *sdb_tracer_output(sdb_tracer *tr, const sdb_value *v, sdb_err *err) {
  size_t n = v->kind == SDB_V_TUPLE || v->kind == SDB_V_LIST ? v->n : 1;
  const sdb_value *items = v->kind == SDB_V_TUPLE || v->kind == SDB_V_LIST ? v->items : v;
  sdb_arg *args = calloc(1, sizeof *args);
  if (!args) { oom(err); return NULL; }
  args[0] = sdb_arg_seq(n, true);
  if (n && !args[0].items) { free(args); oom(err); return NULL; }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const sdb_value *it = &items[i];
    bool graph_value = it->kind == SDB_V_TENSOR ||
                       ((it->kind == SDB_V_INT || it->kind == SDB_V_BOOL) && it->expr && !sdb_is_const(it->expr));
    if (!graph_value) continue;   /* constants are not graph outputs */
    if (sdb_tracer_arg(tr, it, &args[0].items[k], err)) {
      args[0].n = k;
      sdb_arg_free(&args[0]);
      free(args);
      return NULL;
    }
    k++;
  }
  args[0].n = k;
  sdb_node *out = sdb_graph_output(tr->graph, args, 1);
  if (!out) { oom(err); return NULL; }
  node_placed(tr, out);
  return out;
}

/* ------------------------------------------------------------------------
** insert_deferred_runtime_asserts
** ---------------------------------------------------------------------- */

/* `cond = <e>` then `_assert_scalar_default(cond, "...")`, after *after. */
static sdb_node *assert_node(sdb_tracer *tr, sdb_node **after, const sdb_expr *e,
                             sdb_map *done, sdb_err *err) {
  if (sdb_map_has(done, e)) return *after;
  if (!sdb_map_put(done, e, (void *)e)) tr->oom = true;
  sdb_graph_insert_after(tr->graph, *after);
  sdb_node *cond = interp(tr, e, err);
  sdb_node *a = NULL;
  if (cond) {
    char *es = sdb_expr_str(e);
    sdb_buf msg = SDB_BUF_INIT;
    if (es)   /* no message with the expression missing from it */
      sdb_buf_printf(&msg, "Runtime assertion failed for expression %s on node '%s'", es, cond->name);
    free(es);
    sdb_arg *args = es && !msg.failed ? calloc(2, sizeof *args) : NULL;
    if (args) {
      args[0] = sdb_arg_node(cond);
      args[1] = sdb_arg_const(sdb_value_string(sdb_buf_cstr(&msg)));
      a = place(tr, NULL, SDB_N_CALL_FUNCTION, "torch.ops.aten._assert_scalar.default",
                "_assert_scalar_default", args, 2, NULL);
    }
    sdb_buf_free(&msg);
    if (!a) oom(err);
    else a->impure = true;
  }
  sdb_graph_insert_at_end(tr->graph);
  if (a) *after = a;
  return a;
}

int sdb_tracer_finalize(sdb_tracer *tr, sdb_err *err) {
  /* the pass builds its own nodes: only graph inputs (and the accessors it
  ** makes) stand for symbols, never a node the user's code made later */
  sdb_map user_proxies = tr->sym_proxy;
  tr->sym_proxy = (sdb_map)SDB_MAP_INIT;
  for (size_t i = 0; i < tr->graph->n; i++) {
    sdb_node *ph = tr->graph->nodes[i];
    if (ph->op == SDB_N_PLACEHOLDER && ph->example.kind == SDB_V_INT) remember_sym(tr, ph->example.expr, ph);
  }
  sdb_map done = SDB_MAP_INIT;
  size_t nasserts = sdb_assert_count(tr->env);
  /* the runtime asserts keyed by each symbol, in order: chains through
  ** next_by_key (index + 1, 0 ends), heads in by_key (a scan of every
  ** assert per binding made this pass quadratic) */
  size_t *next_by_key = calloc(nasserts + 1, sizeof *next_by_key);
  sdb_map by_key = SDB_MAP_INIT, tail = SDB_MAP_INIT;
  if (!next_by_key) goto no_room;
  for (size_t k = 0; k < nasserts; k++) {
    const sdb_runtime_assert *ra = sdb_assert_at(tr->env, k);
    if (!ra->key) continue;
    uintptr_t last = (uintptr_t)sdb_map_get(&tail, ra->key);
    if (last) next_by_key[last - 1] = k + 1;
    else if (!sdb_map_put(&by_key, ra->key, (void *)(uintptr_t)(k + 1))) tr->oom = true;
    if (!sdb_map_put(&tail, ra->key, (void *)(uintptr_t)(k + 1))) tr->oom = true;
  }
  sdb_map_free(&tail);
  /* walk a snapshot: nodes we add are not revisited */
  size_t n = tr->graph->n;
  sdb_node **snap = malloc((n + 1) * sizeof *snap);
  if (!snap) { free(next_by_key); sdb_map_free(&by_key); goto no_room; }
  memcpy(snap, tr->graph->nodes, n * sizeof *snap);
  int rc = SDB_OK;
  sdb_graph_defer(tr->graph);   /* O(1) insertions after each binding node */
  for (size_t i = 0; i < n && rc == SDB_OK; i++) {
    sdb_node *node = snap[i];
    if (!sdb_node_bindings(node)->n) continue;
    sdb_node *after = node;
    /* a placeholder's bindings (mark_unbacked): the asserts go after the
    ** last placeholder, which must stay first in the graph */
    if (node->op == SDB_N_PLACEHOLDER) {
      size_t np = sdb_graph_num_placeholders(tr->graph);
      if (np) after = tr->graph->nodes[np - 1];
    }
    for (size_t b = 0; b < sdb_node_bindings(node)->n && rc == SDB_OK; b++) {
      const sdb_expr *u = sdb_node_bindings(node)->v[b].sym;
      /* the pass binds each symbol afresh from the node's unbacked_bindings
      ** (sym_size_int), whatever Dynamo-level proxies the trace made */
      site st = {node, *sdb_node_bindings(node)->v[b].path};
      sdb_node *acc = accessor(tr, &st, u, &after, err);
      if (!acc) { rc = err && err->code ? err->code : SDB_E_INVALID; break; }
      if (!sdb_map_put(&tr->sym_proxy, u, acc)) tr->oom = true;
    }
    for (size_t b = 0; b < sdb_node_bindings(node)->n && rc == SDB_OK; b++) {
      const sdb_expr *u = sdb_node_bindings(node)->v[b].sym;
      sdb_range r = sdb_symbol_range(tr->env, u);
      const sdb_expr *checks[2] = {NULL, NULL};
      if (r.lo != SDB_NINF) checks[0] = sdb_ge(u, sdb_int(r.lo));
      if (r.hi != SDB_PINF) checks[1] = sdb_le(u, sdb_int(r.hi));
      for (int c = 0; c < 2 && rc == SDB_OK; c++)
        if (checks[c] && !sdb_is_const(checks[c]) && !assert_node(tr, &after, checks[c], &done, err))
          rc = err && err->code ? err->code : SDB_E_INVALID;
      for (uintptr_t k = (uintptr_t)sdb_map_get(&by_key, u); k && rc == SDB_OK; k = next_by_key[k - 1]) {
        const sdb_runtime_assert *ra = sdb_assert_at(tr->env, k - 1);
        if (!assert_node(tr, &after, ra->expr, &done, err)) rc = err && err->code ? err->code : SDB_E_INVALID;
      }
    }
  }
  sdb_graph_undefer(tr->graph);
  free(snap);
  free(next_by_key);
  sdb_map_free(&by_key);
  sdb_map_free(&done);
  sdb_map_free(&tr->sym_proxy);
  tr->sym_proxy = user_proxies;
  sdb_graph_insert_at_end(tr->graph);
  if (rc == SDB_OK && tr->oom) rc = oom(err);   /* an assert or an accessor may be missing */
  if (rc == SDB_OK) sdb_graph_dce(tr->graph);
  return rc;
no_room:   /* the user's proxies back, as the pass found them */
  sdb_map_free(&tr->sym_proxy);
  tr->sym_proxy = user_proxies;
  return oom(err);
}
