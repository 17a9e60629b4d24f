/*
** aot.c — the aot-compile phase (see aot.h): an interpreter over the Dynamo
** graph that builds the functional aten graph.
*/
#include "aot.h"
#include "arena.h"
#include "buf.h"
#include "hop.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a Dynamo node became: its new value and the aot node computing it. */
typedef struct {
  sdb_value v;
  sdb_node *node;
  sdb_node **items;          /* an inlined body's outputs: the node of each element */
  uint32_t last_use;         /* 1 + the index of the last node of its graph reading it, or 0 */
  bool set;                  /* has a value: not before its node ran (an entry may exist
                                only for last_use), nor after its last use freed it */
} aotval;

typedef struct {
  sdb_shape_env *env;
  sdb_events *ev;
  sdb_fake_mode *mode;
  sdb_graph *out;            /* NULL: metadata analysis, nothing is built */
  sdb_idmap val;             /* Dynamo node -> aotval* (by node id from the graph's first) */
  sdb_buf *mutations;
  /* inputs of the root graph, to notice input mutations */
  sdb_fake **in_tensors;
  sdb_node **in_nodes;
  sdb_node **latest;         /* the functional value that replaces input i */
  const char **in_names;
  size_t nin;
  /* inlining a body (wrap) into the graph being built: its placeholders
  ** are these nodes of the caller, and its outputs come back as nodes */
  sdb_node **inline_in;
  sdb_node **inline_out;     /* filled by run_graph, one per output element */
  bool inlining;
  sdb_buf line;              /* scratch: the line of the node being placed */
  /* the aotvals, of the whole run (a branch's interp shares its caller's):
  ** a malloc each left, once freed, a 64-byte hole per node among the
  ** nodes and tensors aot made, which lowering's larger blocks never fill */
  sdb_arena *mem;
} interp;

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

void sdb_aot_result_free(sdb_aot_result *r) {
  if (!r) return;
  sdb_graph_free(r->graph);
  sdb_fake_mode_free(r->mode);
  free(r->mutations);
  r->graph = NULL;
  r->mode = NULL;
  r->mutations = NULL;
}

const sdb_op *sdb_node_target_op(const sdb_node *n) {
  if (n->op == SDB_N_CALL_METHOD) return sdb_op_find(n->target);
  /* an OpOverload: torch.ops.mylib.foo.default */
  if (n->op == SDB_N_CALL_FUNCTION && !strncmp(n->target, "torch.ops.", 10))
    return sdb_op_find_aten(n->target + 10);
  if (n->op == SDB_N_CALL_FUNCTION && !strncmp(n->target, "torch.", 6) &&
      !strchr(n->target + 6, '.'))
    return sdb_op_find(n->target + 6);
  if (n->op == SDB_N_CALL_FUNCTION && !strncmp(n->target, "operator.", 9)) {
    static const char *const map[][2] = {
      {"operator.add", "add"}, {"operator.sub", "sub"}, {"operator.mul", "mul"},
      {"operator.truediv", "div"}, {"operator.neg", "neg"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
      if (!strcmp(map[i][0], n->target)) return sdb_op_find(map[i][1]);
  }
  return NULL;
}

/* The values of g's nodes start empty. Its nodes after the placeholders
** were made one after another, their ids nearly dense; a placeholder may
** be newer (a symbol lifted to the front), so the slots start at the
** least id of those and of the first node after them. */
static void vals_init(interp *it, const sdb_graph *g) {
  uint32_t base = 0;
  if (g && g->n) {
    size_t np = sdb_graph_num_placeholders(g);
    base = g->nodes[np < g->n ? np : 0]->id;
    for (size_t i = 0; i < np; i++)
      if (g->nodes[i]->id < base) base = g->nodes[i]->id;
  }
  /* its nodes and the subgraphs' made among them: ids mostly below
  ** base + 2n (an assert the trace's last pass put early in the graph
  ** has one of the last ids) */
  sdb_idmap_init_span(&it->val, base, g ? 2 * g->n + 4096 : 0);
}

static aotval *entry_of(const interp *it, const sdb_node *n) {
  return sdb_idmap_get(&it->val, n->id, n);
}

static aotval *val_of(const interp *it, const sdb_node *n) {
  aotval *a = entry_of(it, n);
  return a && a->set ? a : NULL;
}

static aotval *new_entry(interp *it, const sdb_node *n) {
  aotval *a = sdb_arena_alloc(it->mem, sizeof *a, _Alignof(aotval));
  if (!a) return NULL;
  memset(a, 0, sizeof *a);
  return sdb_idmap_put(&it->val, n->id, n, a) ? a : NULL;
}

static void interp_free(interp *it) {
  const void *k;
  void *v;
  for (size_t i = 0; sdb_idmap_next(&it->val, &i, &k, &v);) {
    aotval *a = v;
    sdb_value_free(&a->v);
    free(a->items);
  }
  sdb_idmap_free(&it->val);
  sdb_buf_free(&it->line);
}

static aotval *set_val(interp *it, const sdb_node *n, const sdb_value *v, sdb_node *node) {
  aotval *a = entry_of(it, n);
  if (!a) {
    if (!(a = new_entry(it, n))) return NULL;
  } else {
    sdb_value_free(&a->v);
    free(a->items);
    a->items = NULL;
  }
  a->v = SDB_VALUE_NONE;
  if (v && !sdb_value_copy_checked(&a->v, v)) return NULL;
  a->node = node;
  a->set = true;
  return a;
}

/* --- resolving arguments ------------------------------------------------------ */

static int resolve(interp *it, const sdb_arg *a, sdb_value *out, sdb_err *err) {
  switch (a->kind) {
    case SDB_A_CONST: {
      sdb_value c = sdb_arg_value(a);
      return sdb_value_copy_checked(out, &c) ? SDB_OK : oom(err);
    }
    case SDB_A_NODE: {
      aotval *v = val_of(it, a->node);
      if (!v) return sdb_err_set(err, SDB_E_INVALID, "AssertionError", "aot: %s has no value", a->node->name);
      return sdb_value_copy_checked(out, &v->v) ? SDB_OK : oom(err);
    }
    case SDB_A_SEQ:
      *out = sdb_value_seq(a->tuple ? SDB_V_TUPLE : SDB_V_LIST, a->n);
      if (a->n && !out->items) return oom(err);
      for (size_t i = 0; i < a->n; i++) {
        int rc = resolve(it, &a->items[i], &out->items[i], err);
        if (rc) { sdb_value_free(out); return rc; }
      }
      return SDB_OK;
  }
  return SDB_OK;
}

/* The same argument for the aot graph: nodes mapped. */
static int map_arg(interp *it, const sdb_arg *a, sdb_arg *out, sdb_err *err) {
  switch (a->kind) {
    case SDB_A_CONST: {
      sdb_value c = sdb_arg_value(a);
      *out = sdb_arg_const(sdb_value_copy(&c));
      break;
    }
    case SDB_A_NODE: {
      aotval *v = val_of(it, a->node);
      if (v && v->node) *out = sdb_arg_node(v->node);
      else if (v) *out = sdb_arg_const(sdb_value_copy(&v->v));   /* a constant now */
      else return sdb_err_set(err, SDB_E_INVALID, "AssertionError", "aot: %s has no value", a->node->name);
      break;
    }
    case SDB_A_SEQ:
      *out = sdb_arg_seq(a->n, a->tuple);
      if (a->n && !out->items) return oom(err);
      for (size_t i = 0; i < a->n; i++) {
        int rc = map_arg(it, &a->items[i], &out->items[i], err);
        if (rc) { sdb_arg_free(out); return rc; }
      }
      break;
  }
  return SDB_OK;
}

static sdb_arg *map_args(interp *it, const sdb_node *n, sdb_err *err) {
  sdb_arg *args = calloc(n->nargs ? n->nargs : 1, sizeof *args);
  if (!args) { oom(err); return NULL; }
  for (size_t i = 0; i < n->nargs; i++) {
    if (map_arg(it, &n->args[i], &args[i], err)) {
      for (size_t k = 0; k < i; k++) sdb_arg_free(&args[k]);
      free(args);
      return NULL;
    }
  }
  return args;
}

/* --- placing aot nodes ------------------------------------------------------------ */

/* node_placed, as the tracer's: where the node went is part of it. */
static void announce(interp *it, sdb_node *node) {
  sdb_event_in e;
  sdb_event_more more;
  if (!sdb_node_placed_event(it->out, node, &it->line, &e, &more))
    sdb_events_note_lost(it->ev);   /* placed, but with no line */
  sdb_emit(it->ev, &e);
}

static void bindings_event(interp *it, sdb_node *node) {
  size_t n = sdb_node_bindings(node)->n;
  const sdb_expr **syms = calloc(n + 1, sizeof *syms);
  const char **texts = calloc(n + 1, sizeof *texts);
  if (!syms || !texts) {
    free(syms);
    free(texts);
    sdb_events_note_lost(it->ev);
    return;
  }
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
  sdb_emit(it->ev, &e);
  free(syms);
  free(texts);
}

/* A node in the aot graph; args owned by the graph. Records the bindings
** of the fresh symbols its value carries (make_fx does it as it traces).
** kwfrom: the node whose arguments args maps one for one, so its keyword
** names are theirs (NULL: none is a keyword argument). */
static sdb_node *emit_node_kw(interp *it, const char *target, const char *hint, sdb_arg *args,
                              size_t nargs, const sdb_node *kwfrom, const sdb_value *v,
                              sdb_err *err) {
  if (!it->out) {
    for (size_t i = 0; i < nargs; i++) sdb_arg_free(&args[i]);
    free(args);
    return NULL;
  }
  sdb_node *node = sdb_graph_call_kw(it->out, NULL, SDB_N_CALL_FUNCTION, target, hint, args, nargs,
                                     kwfrom ? sdb_node_kwnames(kwfrom) : NULL,
                                     kwfrom ? kwfrom->nkw : 0, v);
  if (!node) { oom(err); return NULL; }
  sdb_node_locate(node, it->ev);
  announce(it, node);
  if (v && sdb_pending_count(it->env)) {
    sdb_bindings found;
    if (sdb_compute_unbacked_bindings(it->env, v, true, &found, err)) return NULL;
    if (!sdb_node_set_bindings(node, &found)) { oom(err); return NULL; }
    if (sdb_node_bindings(node)->n) bindings_event(it, node);
    sdb_bindings tmp;
    int rc = sdb_compute_unbacked_bindings(it->env, v, false, &tmp, err);
    sdb_bindings_free(&tmp);
    if (rc) return NULL;
  }
  return node;
}

static sdb_node *emit_node(interp *it, const char *target, const char *hint, sdb_arg *args,
                           size_t nargs, const sdb_value *v, sdb_err *err) {
  return emit_node_kw(it, target, hint, args, nargs, NULL, v, err);
}

/* --- functionalization --------------------------------------------------------------- */

/* The out-of-place op for an in-place one, and the aten name to print.
** *self_only: the functional form takes just self (a clone-like result). */
static const sdb_op *functional_of(const sdb_op *op, const char **aten, bool *self_only) {
  static const struct { const char *inplace, *functional, *aten; bool self_only; } special[] = {
    {"fill_", "full_like", "aten.fill.Scalar", false},
    {"zero_", "zeros_like", "aten.zeros_like.default", true},
    {"normal_", "randn_like", "aten.normal_functional.default", true},
    {"uniform_", "rand_like", "aten.uniform.default", true},
    {"copy_", "clone", "aten.copy.default", true},
    {"resize_", "new_empty", "aten.resize.default", false},
    {"index_add_", "index_add", "aten.index_add.default", false},
    {"index_copy_", "index_copy", "aten.index_copy.default", false},
  };
  *self_only = false;
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
    if (!strcmp(op->name, special[i].inplace)) {
      *aten = special[i].aten;
      *self_only = special[i].self_only;
      return sdb_op_find(special[i].functional);
    }
  char name[64];
  size_t len = strlen(op->name);
  if (len < 2 || len >= sizeof name || op->name[len - 1] != '_') return NULL;
  memcpy(name, op->name, len - 1);
  name[len - 1] = '\0';
  const sdb_op *f = sdb_op_find(name);
  if (f) *aten = f->aten;
  return f;
}

static long input_index(interp *it, const sdb_fake *t) {
  for (size_t i = 0; i < it->nin; i++)
    if (it->in_tensors[i] && it->in_tensors[i]->storage == t->storage) return (long)i;
  return -1;
}

/* make_fx names a node after its op overload packet: aten.view.default -> view */
static void aten_packet(const char *aten, char *out, size_t cap) {
  /* the namespace goes: aten.view.default, mylib.foo.default */
  const char *dot = strchr(aten, '.');
  const char *p = dot && strchr(dot + 1, '.') ? dot + 1 : aten;
  size_t n = strcspn(p, ".");
  if (n >= cap) n = cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
}

/* --- the interpreter ------------------------------------------------------------------ */

static int run_graph(interp *it, const sdb_graph *g, const sdb_value *inputs, size_t nin,
                     sdb_value *outputs, sdb_err *err);

static int build_args(const sdb_node *n, const sdb_value *vals, sdb_args *a, sdb_value *pos,
                      sdb_kwarg *kw) {
  a->pos = pos;
  a->kw = kw;
  a->npos = a->nkw = 0;
  for (size_t i = 0; i < n->nargs; i++) {
    if (sdb_node_kw(n, i)) {
      kw[a->nkw].name = sdb_node_kw(n, i);
      kw[a->nkw].value = vals[i];
      a->nkw++;
    } else {
      pos[a->npos++] = vals[i];
    }
  }
  return SDB_OK;
}

static const sdb_expr *expr_of(const sdb_value *v) {
  return v->kind == SDB_V_INT || v->kind == SDB_V_BOOL ? v->expr : NULL;
}

/* operator.* and torch.sym_* on symbolic values */
static const sdb_expr *sym_apply(const char *target, const sdb_value *vals, size_t n) {
  const sdb_expr *a = n > 0 ? expr_of(&vals[0]) : NULL, *b = n > 1 ? expr_of(&vals[1]) : NULL;
  if (!a) return NULL;
  if (!strcmp(target, "operator.neg")) return sdb_neg(a);
  if (!strcmp(target, "torch.sym_not")) return sdb_not(a);
  if (!b) return NULL;
  static const struct { const char *t; const sdb_expr *(*f)(const sdb_expr *, const sdb_expr *); } fns[] = {
    {"operator.add", sdb_add}, {"operator.sub", sdb_sub}, {"operator.mul", sdb_mul},
    {"operator.floordiv", sdb_floordiv}, {"operator.mod", sdb_mod}, {"operator.eq", sdb_eq},
    {"operator.ne", sdb_ne}, {"operator.lt", sdb_lt}, {"operator.le", sdb_le},
    {"operator.gt", sdb_gt}, {"operator.ge", sdb_ge}, {"operator.and_", sdb_and},
    {"operator.or_", sdb_or}, {"torch.sym_max", sdb_max}, {"torch.sym_min", sdb_min},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(fns[i].t, target)) return fns[i].f(a, b);
  if (!strcmp(target, "operator.pow") && b->kind == SDB_INT) return sdb_pow(a, b->ival);
  return NULL;
}

/* sizes/strides read off a tensor: size(), sym_size.int, numel ... */
static const sdb_expr *accessor_value(const sdb_node *n, const sdb_value *vals) {
  const char *t = n->target;
  if (vals[0].kind != SDB_V_TENSOR) return NULL;
  const sdb_fake *x = vals[0].tensor;
  int64_t d = 0;
  bool has_dim = n->nargs > 1 && sdb_value_is_const_int(&vals[1], &d);
  if (has_dim && d < 0) d += x->ndim;
  if (has_dim && (d < 0 || d >= x->ndim)) return NULL;
  if (!strcmp(t, "torch.ops.aten.sym_size.int") || (n->op == SDB_N_CALL_METHOD && !strcmp(t, "size") && has_dim))
    return x->sizes[d];
  if (!strcmp(t, "torch.ops.aten.sym_stride.int") || (n->op == SDB_N_CALL_METHOD && !strcmp(t, "stride") && has_dim))
    return sdb_fake_strides(x)[d];
  if (!strcmp(t, "torch.ops.aten.sym_storage_offset.default") ||
      (n->op == SDB_N_CALL_METHOD && !strcmp(t, "storage_offset")))
    return sdb_fake_offset(x);
  if (n->op == SDB_N_CALL_METHOD && !strcmp(t, "numel")) return sdb_fake_numel(x);
  return NULL;
}

static int rebind(interp *it, const sdb_node *n, const sdb_value *v, sdb_err *err) {
  if (!it->out || !sdb_node_bindings(n)->n) return SDB_OK;
  return sdb_rebind_unbacked(it->env, sdb_node_bindings(n), v, "aot retrace", err);
}

static int run_cond(interp *it, const sdb_node *n, const sdb_value *vals, sdb_err *err) {
  /* args: pred, true subgraph, false subgraph, (operands...) */
  const sdb_graph *subs[2] = {sdb_node_sub(n->args[1].node), sdb_node_sub(n->args[2].node)};
  const sdb_value *ops = &vals[3];
  sdb_value outs[2] = {SDB_VALUE_NONE, SDB_VALUE_NONE};
  sdb_graph *built[2] = {NULL, NULL};
  int rc = SDB_OK;
  for (int b = 0; b < 2 && rc == SDB_OK; b++) {
    interp child = *it;
    vals_init(&child, subs[b]);
    child.line = (sdb_buf)SDB_BUF_INIT;
    child.nin = 0;
    /* a branch is a subgraph of its own even inside an inlined wrap body:
    ** it must not take the body's inputs or leave outputs to inline
    ** (that leaked, found by the random programs) */
    child.inlining = false;
    child.inline_in = NULL;
    child.inline_out = NULL;
    if (it->out) {
      built[b] = sdb_graph_new_sub(it->out, b ? "false_graph" : "true_graph");
      if (!built[b]) {   /* found by tests/repl/oom.sh */
        interp_free(&child);
        rc = oom(err);
        break;
      }
      if (it->ev) sdb_graph_on_erase(built[b], sdb_node_erased_event, it->ev);
      child.out = built[b];
    }
    sdb_ignore_fresh_push(it->env);
    rc = run_graph(&child, subs[b], ops->items, ops->n, &outs[b], err);
    sdb_ignore_fresh_pop(it->env);
    interp_free(&child);
    sdb_fake_mode_bump_epoch(it->mode);
  }
  sdb_value merged = SDB_VALUE_NONE;
  if (rc == SDB_OK) rc = sdb_cond_merge(it->mode, &outs[0], &outs[1], &merged, err);
  if (rc == SDB_OK && it->out) {
    sdb_node *attrs[2];
    for (int b = 0; b < 2; b++) {
      attrs[b] = sdb_graph_call(it->out, SDB_N_GET_ATTR, built[b]->name, built[b]->name, NULL, 0, NULL);
      if (attrs[b] && !sdb_node_set_sub(attrs[b], built[b])) attrs[b] = NULL;   /* out of memory */
    }
    sdb_arg *args = calloc(5, sizeof *args);
    if (!args || !attrs[0] || !attrs[1]) { free(args); rc = oom(err); }
    else {
      if ((rc = map_arg(it, &n->args[0], &args[0], err)) == SDB_OK &&
          (rc = map_arg(it, &n->args[3], &args[3], err)) == SDB_OK) {
        args[1] = sdb_arg_node(attrs[0]);
        args[2] = sdb_arg_node(attrs[1]);
        sdb_node *node = emit_node(it, "torch.ops.higher_order.cond", "cond", args, 4, &merged, err);
        if (!node) rc = err && err->code ? err->code : SDB_E_INVALID;
        else if ((rc = rebind(it, n, &merged, err)) == SDB_OK && !set_val(it, n, &merged, node)) rc = oom(err);
      } else {
        for (int k = 0; k < 4; k++) sdb_arg_free(&args[k]);
        free(args);
      }
    }
  } else if (rc == SDB_OK && !set_val(it, n, &merged, NULL)) {
    rc = oom(err);
  }
  sdb_value_free(&merged);
  sdb_value_free(&outs[0]);
  sdb_value_free(&outs[1]);
  return rc;
}

static int run_node(interp *it, const sdb_node *n, sdb_err *err) {
  if (n->op == SDB_N_PLACEHOLDER || n->op == SDB_N_OUTPUT) return SDB_OK;
  /* a subgraph attribute: no value of its own (cond and wrap read its
  ** graph through the node), but resolving their arguments must find it */
  if (n->op == SDB_N_GET_ATTR) return set_val(it, n, NULL, NULL) ? SDB_OK : oom(err);
  sdb_events_push_op_ref(it->ev, n->name_ref);
  /* its events (and errors) at the user's line that made the node */
  sdb_loc at = sdb_node_loc(n);
  sdb_events_push_loc(it->ev, &at);
  int rc = SDB_OK;
  sdb_value vals[64];
  size_t nv = n->nargs < 64 ? n->nargs : 64;
  for (size_t i = 0; i < nv; i++) vals[i] = SDB_VALUE_NONE;
  for (size_t i = 0; i < nv && rc == SDB_OK; i++) rc = resolve(it, &n->args[i], &vals[i], err);
  if (rc) goto out;
  const char *t = n->target;
  const sdb_op *op = sdb_node_target_op(n);
  bool has_tensor = false;
  for (size_t i = 0; i < nv; i++) has_tensor = has_tensor || vals[i].kind == SDB_V_TENSOR;
  if (!strcmp(t, "torch.ops.higher_order.cond")) {
    rc = run_cond(it, n, vals, err);
  } else if (!strcmp(t, "torch.ops.higher_order.wrap")) {
    /* make_fx traces through wrap: the body is inlined, its placeholders
    ** standing for the operands' nodes and its outputs read back by node */
    sdb_value outs = SDB_VALUE_NONE;
    interp child = *it;
    vals_init(&child, sdb_node_sub(n->args[0].node));
    child.line = (sdb_buf)SDB_BUF_INIT;
    child.nin = 0;
    child.inlining = it->out != NULL;
    child.inline_in = NULL;
    child.inline_out = NULL;
    if (child.inlining) {
      child.inline_in = calloc(nv, sizeof *child.inline_in);
      if (!child.inline_in) { rc = oom(err); goto out; }
      for (size_t i = 1; i < nv; i++) {
        aotval *a = n->args[i].kind == SDB_A_NODE ? val_of(it, n->args[i].node) : NULL;
        child.inline_in[i - 1] = a ? a->node : NULL;
      }
    }
    rc = run_graph(&child, sdb_node_sub(n->args[0].node), &vals[1], nv - 1, &outs, err);
    interp_free(&child);
    free(child.inline_in);
    aotval *a = rc == SDB_OK ? set_val(it, n, &outs, NULL) : NULL;
    if (rc == SDB_OK && !a) rc = oom(err);
    if (a) a->items = child.inline_out;
    else free(child.inline_out);
    sdb_value_free(&outs);
  } else if (!strcmp(t, "operator.getitem")) {
    int64_t k = 0;
    const sdb_value *seq = &vals[0];
    if ((seq->kind != SDB_V_TUPLE && seq->kind != SDB_V_LIST) || !sdb_value_is_const_int(&vals[1], &k) ||
        k < 0 || (size_t)k >= seq->n) {
      rc = sdb_err_set(err, SDB_E_INVALID, "AssertionError", "aot: bad getitem %s", n->name);
      goto out;
    }
    sdb_node *node = NULL;
    aotval *sv = n->args[0].kind == SDB_A_NODE ? val_of(it, n->args[0].node) : NULL;
    if (sv && !sv->node && sv->items) {
      node = sv->items[k];   /* an element of an inlined body: its own node */
    } else if (it->out) {
      sdb_arg *args = map_args(it, n, err);
      if (!args) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
      node = emit_node_kw(it, "operator.getitem", "getitem", args, n->nargs, n, &seq->items[k], err);
      if (!node) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
    }
    if (!set_val(it, n, &seq->items[k], node)) rc = oom(err);
  } else if (!strcmp(t, "torch._check") || !strcmp(t, "torch._check_is_size")) {
    /* evaluated again on the ShapeEnv; make_fx records no node for it */
    const sdb_expr *e = expr_of(&vals[0]);
    if (e) rc = !strcmp(t, "torch._check") ? sdb_check(it->env, e, NULL, err) : sdb_check_is_size(it->env, e, err);
  } else if (!strcmp(t, "torch.ops.aten._assert_scalar.default")) {
    if (it->out) {
      sdb_arg *args = map_args(it, n, err);
      if (!args) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
      sdb_node *node = emit_node_kw(it, t, "_assert_scalar", args, n->nargs, n, NULL, err);
      if (!node) rc = err && err->code ? err->code : SDB_E_OOM;
      else node->impure = true;
    }
  } else if (accessor_value(n, vals)) {
    sdb_value v = sdb_value_int(accessor_value(n, vals));
    sdb_node *node = NULL;
    if (it->out) {
      sdb_arg *args = calloc(3, sizeof *args);
      if (!args) { rc = oom(err); goto out; }
      if ((rc = map_arg(it, &n->args[0], &args[0], err))) { free(args); goto out; }
      size_t na = 1;
      const char *target = "torch.ops.aten.sym_size.int", *hint = "sym_size_int";
      if (strstr(t, "stride")) { target = "torch.ops.aten.sym_stride.int"; hint = "sym_stride_int"; }
      else if (strstr(t, "storage_offset")) { target = "torch.ops.aten.sym_storage_offset.default"; hint = "sym_storage_offset"; }
      else if (!strcmp(t, "numel")) { target = "torch.ops.aten.sym_numel.default"; hint = "sym_numel"; }
      if (n->nargs > 1) args[na++] = sdb_arg_const(sdb_value_copy(&vals[1]));
      node = emit_node(it, target, hint, args, na, &v, err);
      if (!node) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
    }
    if (!set_val(it, n, &v, node)) rc = oom(err);
  } else if (!has_tensor && sym_apply(t, vals, nv)) {
    const sdb_expr *e = sym_apply(t, vals, nv);
    sdb_value v = sdb_is_bool(e) ? sdb_value_bool(e) : sdb_value_int(e);
    sdb_node *node = NULL;
    if (it->out) {
      sdb_arg *args = map_args(it, n, err);
      if (!args) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
      node = emit_node_kw(it, t, n->name, args, n->nargs, n, &v, err);
      if (!node) { rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
    }
    if (!set_val(it, n, &v, node)) rc = oom(err);
  } else if (op) {
    const sdb_op *run = op;
    const char *aten = op->aten;
    bool inplace = (op->flags & SDB_OP_INPLACE) != 0;
    bool self_only = false;
    if (inplace) {
      run = functional_of(op, &aten, &self_only);
      if (!run) {
        rc = sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                         "aot: no functional form for %s", op->name);
        goto out;
      }
    }
    sdb_value pos[64];
    sdb_kwarg kw[64];
    sdb_args a;
    build_args(n, vals, &a, pos, kw);
    if (self_only) { a.npos = a.npos ? 1 : 0; a.nkw = 0; }
    sdb_value v;
    rc = sdb_op_call(it->mode, run, &a, &v, err);
    if (rc) goto out;
    sdb_node *node = NULL;
    if (it->out) {
      sdb_arg *args = map_args(it, n, err);
      if (!args) { sdb_value_free(&v); rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
      char target[128], hint[64];
      sdb_strcat2(target, sizeof target, "torch.ops.", aten ? aten : run->name);
      aten_packet(aten ? aten : run->name, hint, sizeof hint);
      node = emit_node_kw(it, target, hint, args, n->nargs, n, &v, err);
      if (!node) { sdb_value_free(&v); rc = err && err->code ? err->code : SDB_E_OOM; goto out; }
    }
    rc = rebind(it, n, &v, err);
    if (rc == SDB_OK && !set_val(it, n, &v, node)) rc = oom(err);
    if (rc == SDB_OK && inplace && n->nargs && n->args[0].kind == SDB_A_NODE) {
      /* functionalization: the mutated value now reads as the new one */
      if (!set_val(it, n->args[0].node, &v, node)) rc = oom(err);
      long ix = vals[0].kind == SDB_V_TENSOR ? input_index(it, vals[0].tensor) : -1;
      if (ix >= 0 && it->out) {
        bool meta = vals[0].tensor->ndim != v.tensor->ndim;
        for (int d = 0; !meta && d < v.tensor->ndim; d++) meta = vals[0].tensor->sizes[d] != v.tensor->sizes[d];
        sdb_buf_printf(it->mutations, "input %s mutated in place by %s%s\n", it->in_names[ix], op->name,
                       meta ? " (metadata mutation)" : "");
        it->latest[ix] = node;
      }
    }
    sdb_value_free(&v);
  } else {
    rc = sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError", "aot: cannot retrace %s (%s)",
                     n->name, t);
  }
out:
  /* any failure while replaying the node is at the user's line that made it */
  if (rc && err && !err->file && sdb_node_at(n)) {
    err->file = sdb_node_at(n)->file;
    err->line = sdb_node_at(n)->line;
  }
  for (size_t i = 0; i < nv; i++) sdb_value_free(&vals[i]);
  sdb_events_pop_loc(it->ev);
  sdb_events_pop_op(it->ev);
  return rc;
}

/* Marks each node read by arg a as last read by node 1 + ix (the graph is
** walked from its end, so the first mark is the last use). */
static bool mark_last_use(interp *it, const sdb_arg *a, uint32_t ix) {
  if (a->kind == SDB_A_SEQ) {
    for (size_t i = 0; i < a->n; i++)
      if (!mark_last_use(it, &a->items[i], ix)) return false;
  } else if (a->kind == SDB_A_NODE && a->node) {
    aotval *x = entry_of(it, a->node);
    if (!x && !(x = new_entry(it, a->node))) return false;
    if (!x->last_use) x->last_use = ix + 1;
  }
  return true;
}

/* Frees the values node ix read last, as FX's generated code sets each
** value to None after its last use: a pass holds the live values only,
** not one per node (the metadata pass held every tensor of the graph at
** once, a ninth of an inductor compile's peak). A placeholder's value
** stays: the metadata pass starts from the root's. */
static void free_last_uses(interp *it, const sdb_arg *a, uint32_t ix) {
  if (a->kind == SDB_A_SEQ) {
    for (size_t i = 0; i < a->n; i++) free_last_uses(it, &a->items[i], ix);
  } else if (a->kind == SDB_A_NODE && a->node && a->node->op != SDB_N_PLACEHOLDER) {
    aotval *x = val_of(it, a->node);
    if (x && x->last_use == ix + 1) {
      sdb_value_free(&x->v);
      x->set = false;   /* a read past the last use is "has no value", not a silent None */
    }
  }
}

/* Interpret g with inputs bound to its placeholders (subgraphs), or with
** the root's placeholders already set. Fills *outputs with a tuple. */
static int run_graph(interp *it, const sdb_graph *g, const sdb_value *inputs, size_t nin,
                     sdb_value *outputs, sdb_err *err) {
  size_t np = sdb_graph_num_placeholders(g);
  if (inputs) {
    for (size_t i = 0; i < np && i < nin; i++) {
      sdb_node *ph = NULL;
      if (it->inlining) {
        ph = it->inline_in[i];
      } else if (it->out) {
        char name[32];
        snprintf(name, sizeof name, "arg%zu_1", i);
        ph = sdb_graph_placeholder(it->out, name, name, &inputs[i], NULL);
        if (!ph) return oom(err);
      }
      if (!set_val(it, g->nodes[i], &inputs[i], ph)) return oom(err);
    }
  }
  for (size_t i = g->n; i-- > np;)
    for (size_t k = 0; k < g->nodes[i]->nargs; k++)
      if (!mark_last_use(it, &g->nodes[i]->args[k], (uint32_t)i)) return oom(err);
  for (size_t i = np; i < g->n; i++) {
    const sdb_node *n = g->nodes[i];
    int rc = run_node(it, n, err);
    if (rc) return rc;
    if (n->op != SDB_N_OUTPUT)
      for (size_t k = 0; k < n->nargs; k++) free_last_uses(it, &n->args[k], (uint32_t)i);
  }
  const sdb_node *outn = sdb_graph_output_node(g);
  if (!outn || !outn->nargs) { *outputs = sdb_value_seq(SDB_V_TUPLE, 0); return SDB_OK; }
  int rc = resolve(it, &outn->args[0], outputs, err);
  if (rc) return rc;
  if (it->inlining) {
    /* the caller reads the outputs by node; no output node, no epilogue */
    const sdb_arg *o = &outn->args[0];
    size_t n = o->kind == SDB_A_SEQ ? o->n : 1;
    it->inline_out = calloc(n + 1, sizeof *it->inline_out);
    if (!it->inline_out) return oom(err);
    for (size_t i = 0; i < n; i++) {
      const sdb_arg *e = o->kind == SDB_A_SEQ ? &o->items[i] : o;
      aotval *a = e->kind == SDB_A_NODE ? val_of(it, e->node) : NULL;
      it->inline_out[i] = a ? a->node : NULL;
    }
    return SDB_OK;
  }
  if (it->out) {
    /* input mutations are copied back at the end (AOT's epilogue) */
    for (size_t i = 0; i < it->nin; i++) {
      if (!it->latest[i]) continue;
      sdb_arg *args = calloc(2, sizeof *args);
      if (!args) return oom(err);
      args[0] = sdb_arg_node(it->in_nodes[i]);
      args[1] = sdb_arg_node(it->latest[i]);
      sdb_node *c = emit_node(it, "torch.ops.aten.copy_.default", "copy_", args, 2, NULL, err);
      if (!c) return err && err->code ? err->code : SDB_E_OOM;
      c->impure = true;
    }
    sdb_arg *args = calloc(1, sizeof *args);
    if (!args) return oom(err);
    if ((rc = map_arg(it, &outn->args[0], &args[0], err))) { free(args); return rc; }
    sdb_node *o = sdb_graph_output(it->out, args, 1);
    if (!o) return oom(err);
    announce(it, o);
  }
  return SDB_OK;
}

static void phase(sdb_events *ev, sdb_event_kind k, const char *text) {
  sdb_events_set_phase(ev, SDB_PHASE_AOT);
  sdb_event_in e = {0};
  e.kind = k;
  e.text = text;
  sdb_emit(ev, &e);
}

int sdb_aot_compile(sdb_shape_env *env, const sdb_graph *dynamo, const sdb_aot_input *inputs,
                    size_t ninputs, sdb_aot_result *out, sdb_err *err) {
  sdb_events *ev = sdb_shape_env_events(env);
  memset(out, 0, sizeof *out);
  phase(ev, SDB_EV_PHASE_START, "aot_autograd");
  sdb_events_set_tracer(ev, "aot", 0);
  int rc = SDB_OK;
  out->mode = sdb_fake_mode_new(env, "fresh");
  out->graph = sdb_graph_new("GraphModule");
  if (out->graph && ev) sdb_graph_on_erase(out->graph, sdb_node_erased_event, ev);
  sdb_buf mutations = SDB_BUF_INIT;
  sdb_arena mem = SDB_ARENA_INIT, meta_mem = SDB_ARENA_INIT;
  interp it = {.env = env, .ev = ev, .mode = out->mode, .out = out->graph, .mutations = &mutations,
               .nin = ninputs, .line = SDB_BUF_INIT, .mem = &mem};
  vals_init(&it, dynamo);
  it.in_tensors = calloc(ninputs + 1, sizeof *it.in_tensors);
  it.in_nodes = calloc(ninputs + 1, sizeof *it.in_nodes);
  it.latest = calloc(ninputs + 1, sizeof *it.latest);
  it.in_names = calloc(ninputs + 1, sizeof *it.in_names);
  sdb_value *invals = calloc(ninputs + 1, sizeof *invals);
  if (!out->mode || !out->graph || !it.in_tensors || !it.in_nodes || !it.latest || !it.in_names || !invals) {
    rc = oom(err);
    goto done;
  }
  /* a fresh propagation from scratch: no memo survives it */
  sdb_fake_mode_bump_epoch(out->mode);
  /* re-fakify: the stateful contexts give back the same symbols, and each
  ** input as it was before the trace ran (seed 000) */
  for (size_t i = 0; i < ninputs; i++) {
    const sdb_aot_input *in = &inputs[i];
    it.in_names[i] = in->argname;
    if (in->is_tensor) {
      sdb_fake *t = NULL;
      rc = sdb_fakify(out->mode, in->sizes, in->ndim, in->dtype, in->device, in->requires_grad,
                      in->source, in->ctx, &t, err);
      if (rc) goto done;
      invals[i] = sdb_value_tensor(t);
      it.in_tensors[i] = t;
      sdb_fake_unref(t);
      char *meta = sdb_fake_meta_str(t, false);
      if (!meta) sdb_events_note_lost(ev);   /* refakified, but with no meta */
      sdb_event_in e = {0};
      e.kind = SDB_EV_REFAKIFIED;
      e.text = in->source ? in->source->name : in->argname;
      e.detail = meta;
      sdb_emit(ev, &e);
      free(meta);
    } else {
      invals[i] = sdb_value_int(in->symint);
    }
  }
  /* the Dynamo graph's placeholders, in order: symbols and inputs */
  size_t np = sdb_graph_num_placeholders(dynamo);
  for (size_t p = 0; p < np; p++) {
    const sdb_node *ph = dynamo->nodes[p];
    const sdb_value *v = &ph->example;
    for (size_t i = 0; i < ninputs; i++)
      if (inputs[i].placeholder == ph) v = &invals[i];
    char name[32];
    snprintf(name, sizeof name, "arg%zu_1", p);
    sdb_node *aph = sdb_graph_placeholder(out->graph, name, name, v, sdb_node_source(ph));
    if (!aph || !set_val(&it, ph, v, aph)) { rc = oom(err); goto done; }
    for (size_t i = 0; i < ninputs; i++)
      if (inputs[i].placeholder == ph) it.in_nodes[i] = aph;
    announce(&it, aph);
  }
  sdb_value outs = SDB_VALUE_NONE;
  rc = run_graph(&it, dynamo, NULL, 0, &outs, err);
  sdb_value_free(&outs);
  if (rc) goto done;
  sdb_graph_dce(out->graph);
  out->mutations = mutations.len ? sdb_buf_take(&mutations) : NULL;
  /* metadata analysis: the same graph again under ignore_fresh_unbacked_symbols,
  ** from a new epoch; it leaves no pending symbols and renames nothing */
  {
    sdb_event_in e = {0};
    e.kind = SDB_EV_NOTE;
    e.detail = "metadata analysis (run_functionalized_fw_and_collect_metadata) under ignore_fresh_unbacked_symbols";
    sdb_emit(ev, &e);
    sdb_fake_mode_bump_epoch(out->mode);
    sdb_ignore_fresh_push(env);
    interp meta = {.env = env, .ev = ev, .mode = out->mode, .mutations = &mutations, .line = SDB_BUF_INIT,
                   .mem = &meta_mem};
    vals_init(&meta, dynamo);
    for (size_t p = 0; p < np && rc == SDB_OK; p++) {
      aotval *a = val_of(&it, dynamo->nodes[p]);
      if (!a || !set_val(&meta, dynamo->nodes[p], &a->v, NULL)) rc = oom(err);
    }
    /* the first pass's values are done with: not held through the second */
    interp_free(&it);
    sdb_arena_free(&mem);
    sdb_value mouts = SDB_VALUE_NONE;
    if (rc == SDB_OK) rc = run_graph(&meta, dynamo, NULL, 0, &mouts, err);
    sdb_value_free(&mouts);
    interp_free(&meta);
    sdb_arena_free(&meta_mem);
    sdb_ignore_fresh_pop(env);
  }
done:
  interp_free(&it);
  sdb_arena_free(&mem);
  for (size_t i = 0; invals && i < ninputs; i++) sdb_value_free(&invals[i]);
  free(invals);
  free(it.in_tensors);
  free(it.in_nodes);
  free(it.latest);
  free(it.in_names);
  sdb_buf_free(&mutations);
  sdb_events_set_tracer(ev, "trace", 0);
  if (rc == SDB_OK) {
    sdb_graph_seal(out->graph);   /* complete: lowering only reads it */
    phase(ev, SDB_EV_PHASE_END, "aot_autograd");
  }
  return rc;
}
