/*
** retrace.c — run an sdb_fx_graph through the model and compare each node
** with PyTorch's annotation. One frame per graph being run (the root, then
** each cond/wrap body in a child tracer); values live in the frame, indexed
** by node. Symbols of the annotations map to ours through `ren` (theirs ->
** ours) and `rev` (ours -> theirs), kept one-to-one.
*/
#include "retrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fake.h"
#include "graph.h"
#include "hop.h"
#include "intern.h"
#include "map.h"
#include "ops.h"
#include "shape_env.h"
#include "source.h"
#include "srcfile.h"
#include "symctx.h"
#include "tracer.h"

typedef struct src_line {
  const char *file;
  int line;
  const char *code;
} src_line;

typedef struct rctx {
  sdb_events *ev;
  sdb_shape_env *env;
  sdb_fake_mode *mode;
  sdb_graph *graph;
  sdb_retrace *out;
  const sdb_retrace_opts *opts;
  sdb_map ren;              /* their symbol -> our expr */
  sdb_map rev;              /* our symbol -> their symbol */
  sdb_loc loc;              /* the node being run */
  int64_t next_hint;
  int depth;
  src_line *lines;          /* `# File:` lines seen, for `list` */
  size_t nlines;
} rctx;

typedef struct frame {
  const sdb_fx_graph *g;
  sdb_tracer *tr;
  sdb_value *vals;          /* per node */
  const sdb_fx_graph **subs;/* per node: get_attr of a nested class */
  bool *opaque;             /* per node: an unsupported op without annotation */
} frame;

static bool locate(void *ud, sdb_loc *out) {
  rctx *c = ud;
  if (!c->loc.file) return false;
  *out = c->loc;
  return true;
}

static long node_index(const frame *f, const sdb_fx_node *n) {
  for (size_t i = 0; i < f->g->n; i++)
    if (f->g->nodes[i] == n) return (long)i;
  return -1;
}

static int fail_node(const sdb_fx_node *n, sdb_err *err, int code, const char *fmt, const char *a) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a);
  return sdb_err_set(err, code, code == SDB_E_UNSUPPORTED ? "Unsupported" : "RetraceError",
                     "payload line %d (%s): %s", n->pline, n->name, msg);
}

/* --- symbols ------------------------------------------------------------------- */

static const sdb_expr *parse_their(const char *text, sdb_err *err) {
  char msg[256];
  const sdb_expr *e = sdb_parse(text, msg, sizeof msg);
  if (!e) sdb_err_set(err, SDB_E_INVALID, "RetraceError", "cannot read '%s': %s", text, msg);
  return e;
}

static void map_sym(rctx *c, const sdb_expr *theirs, const sdb_expr *ours) {
  sdb_map_put(&c->ren, theirs, (void *)ours);
  if (sdb_is_sym(ours)) sdb_map_put(&c->rev, ours, (void *)theirs);
}

/* Their expression in our symbols; unknown symbols are made (unbacked) when
** `create`, else NULL is returned with *missing set. */
static const sdb_expr *to_ours(rctx *c, const sdb_expr *theirs, bool create, bool *missing) {
  const sdb_expr **fs = NULL;
  long n = sdb_free_symbols(theirs, &fs);
  if (n < 0) return NULL;
  const sdb_expr **vals = n ? calloc((size_t)n, sizeof *vals) : NULL;
  for (long i = 0; i < n; i++) {
    const sdb_expr *o = sdb_map_get(&c->ren, fs[i]);
    if (!o && create) {
      o = sdb_create_unbacked_symint(c->env);
      if (o) map_sym(c, fs[i], o);
    }
    if (!o) {
      if (missing) *missing = true;
      free(fs);
      free(vals);
      return NULL;
    }
    vals[i] = o;
  }
  const sdb_expr *r = n ? sdb_subs(theirs, fs, vals, (size_t)n) : theirs;
  free(fs);
  free(vals);
  return r;
}

static bool same(rctx *c, const sdb_expr *a, const sdb_expr *ours) {
  if (!a || !ours) return false;
  if (a == ours) return true;
  const sdb_expr *s = sdb_simplify(c->env, ours);
  const sdb_expr *t = sdb_simplify(c->env, a);
  return s == t || s == a || t == ours;
}

/* Does their text equal our expression, renaming at most one new symbol? */
static bool unify(rctx *c, const char *text, const sdb_expr *ours) {
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *theirs = parse_their(text, &err);
  sdb_err_clear(&err);
  if (!theirs || !ours) return false;
  bool missing = false;
  const sdb_expr *t = to_ours(c, theirs, false, &missing);
  if (t) return same(c, t, ours);
  /* One symbol of theirs not seen yet: try it as the one symbol of ours
  ** nobody claimed. */
  const sdb_expr **tf = NULL, **of = NULL;
  long nt = sdb_free_symbols(theirs, &tf), no = sdb_free_symbols(ours, &of);
  const sdb_expr *tnew = NULL, *onew = NULL;
  int ct = 0, co = 0;
  for (long i = 0; i < nt; i++)
    if (!sdb_map_has(&c->ren, tf[i])) tnew = tf[i], ct++;
  for (long i = 0; i < no; i++)
    if (!sdb_map_has(&c->rev, of[i])) onew = of[i], co++;
  free(tf);
  free(of);
  if (ct != 1 || co != 1) return false;
  map_sym(c, tnew, onew);
  t = to_ours(c, theirs, false, NULL);
  if (t && same(c, t, ours)) return true;
  /* undo: the map keeps positions, so point the trial entries at nothing */
  sdb_map_put(&c->ren, tnew, NULL);
  sdb_map_put(&c->rev, onew, NULL);
  return false;
}

/* --- comparing ------------------------------------------------------------------ */

static const char *our_text(const sdb_value *v) {
  if (v->kind == SDB_V_TENSOR) {
    char *m = sdb_fake_meta_str(v->tensor, true);
    const char *r = sdb_internf("%s%s", m ? m : "?", sdb_fake_device(v->tensor));
    free(m);
    return r;
  }
  if ((v->kind == SDB_V_INT || v->kind == SDB_V_BOOL) && v->expr) {
    char *s = sdb_expr_str(v->expr);
    const char *r = sdb_internf("Sym(%s)", s ? s : "?");
    free(s);
    return r;
  }
  char *s = sdb_value_text(v);
  const char *r = sdb_intern(s ? s : "?");
  free(s);
  return r;
}

/* NULL when it matches, else what differs. */
static const char *compare(rctx *c, const sdb_value *v, const sdb_fx_meta *m) {
  if (m->kind == SDB_FXM_SYM) {
    if ((v->kind != SDB_V_INT && v->kind != SDB_V_BOOL) || !v->expr) return "kind";
    return unify(c, m->sym, v->expr) ? NULL : "value";
  }
  if (v->kind != SDB_V_TENSOR) return "kind";
  const sdb_fake *t = v->tensor;
  if ((int)t->dtype != m->dtype) return "dtype";
  if (t->ndim != m->ndim) return "sizes";
  for (int i = 0; i < m->ndim; i++)
    if (!unify(c, m->sizes[i], t->sizes[i])) return "sizes";
  if (m->strides)
    for (int i = 0; i < m->ndim; i++)
      if (!unify(c, m->strides[i], sdb_fake_strides(t)[i])) return "strides";
  if (m->device && strcmp(m->device, sdb_fake_device(t))) return "device";
  return NULL;
}

static void diverge(rctx *c, const frame *f, const sdb_fx_node *n, const char *what,
                    const sdb_value *v) {
  sdb_retrace *r = c->out;
  sdb_retrace_div *nd = realloc(r->divs, (r->ndivs + 1) * sizeof *nd);
  if (!nd) return;
  r->divs = nd;
  sdb_retrace_div *d = &r->divs[r->ndivs++];
  d->graph = f->g->name;
  d->node = n->name;
  d->pline = n->pline;
  d->what = what;
  d->pytorch = n->meta.text;
  d->shapedb = our_text(v);
  r->diverged++;
  sdb_event_in e = {0};
  e.kind = SDB_EV_DIVERGENCE;
  e.text = n->name;
  sdb_event_more more = {.text2 = what};
  e.more = &more;
  e.detail = sdb_internf("%s differ: PyTorch %s, shapedb %s", what, d->pytorch, d->shapedb);
  sdb_emit(c->ev, &e);
}

static void check_node(rctx *c, const frame *f, const sdb_fx_node *n, const sdb_value *v) {
  if (n->meta.kind == SDB_FXM_NONE) return;
  const char *what = compare(c, v, &n->meta);
  if (what) diverge(c, f, n, what, v);
  else c->out->matched++;
}

/* --- values from annotations ------------------------------------------------------ */

/* A value standing for an annotation (an unsupported op's result, a
** parameter): sizes and strides in our symbols, unknown ones unbacked. */
static int from_meta(rctx *c, const sdb_fx_node *n, sdb_value *out, sdb_err *err) {
  const sdb_fx_meta *m = &n->meta;
  if (m->kind == SDB_FXM_SYM) {
    const sdb_expr *e = parse_their(m->sym, err);
    if (!e) return SDB_E_INVALID;
    e = to_ours(c, e, true, NULL);
    if (!e) return sdb_err_expr(err);
    *out = sdb_is_bool(e) ? sdb_value_bool(e) : sdb_value_int(e);
    return SDB_OK;
  }
  const sdb_expr *sizes[64], *strides[64];
  if (m->ndim > 64) return fail_node(n, err, SDB_E_INVALID, "%s: too many dims", m->text);
  for (int i = 0; i < m->ndim; i++) {
    const sdb_expr *e = parse_their(m->sizes[i], err);
    if (!e || !(sizes[i] = to_ours(c, e, true, NULL))) return err->code ? err->code : sdb_err_expr(err);
  }
  if (m->strides) {
    for (int i = 0; i < m->ndim; i++) {
      const sdb_expr *e = parse_their(m->strides[i], err);
      if (!e || !(strides[i] = to_ours(c, e, true, NULL))) return err->code ? err->code : sdb_err_expr(err);
    }
  } else if (sdb_contiguous_strides(sizes, m->ndim, strides)) {
    return sdb_err_expr(err);
  }
  sdb_fake *t = sdb_fake_new_strided(c->mode, (sdb_dtype)m->dtype, m->device ? m->device : "cpu",
                                     sizes, strides, m->ndim, sdb_int(0), NULL);
  if (!t) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  *out = sdb_value_tensor(t);
  sdb_fake_unref(t);
  return SDB_OK;
}

/* --- arguments ------------------------------------------------------------------ */

static int to_value(const frame *f, const sdb_fx_arg *a, sdb_value *out) {
  switch (a->kind) {
    case SDB_FXA_NONE: *out = SDB_VALUE_NONE; return 0;
    case SDB_FXA_BOOL: *out = sdb_value_bool(sdb_bool(a->ival)); return 0;
    case SDB_FXA_INT: *out = sdb_value_int64(a->ival); return 0;
    case SDB_FXA_FLOAT: *out = sdb_value_float(a->fval); return 0;
    case SDB_FXA_STR:
    case SDB_FXA_DTYPE:
    case SDB_FXA_DEVICE:
    case SDB_FXA_ATTR: *out = sdb_value_string(a->str); return 0;
    case SDB_FXA_ELLIPSIS: *out = sdb_value_string("..."); return 0;
    case SDB_FXA_NODE: {
      long i = node_index(f, a->node);
      if (i < 0 || f->subs[i] || f->opaque[i]) return -1;
      *out = sdb_value_copy(&f->vals[i]);
      return 0;
    }
    case SDB_FXA_DICT:
      return -1;
    case SDB_FXA_TUPLE:
    case SDB_FXA_LIST:
    case SDB_FXA_SLICE: {
      if (a->kind == SDB_FXA_SLICE) return -1;
      *out = sdb_value_seq(a->kind == SDB_FXA_TUPLE ? SDB_V_TUPLE : SDB_V_LIST, a->n);
      for (size_t i = 0; i < a->n; i++)
        if (to_value(f, &a->items[i], &out->items[i])) {
          sdb_value_free(out);
          return -1;
        }
      return 0;
    }
  }
  return -1;
}

typedef struct argv_ {
  sdb_value *pos;
  size_t npos;
  sdb_kwarg *kw;
  size_t nkw;
  const char **names;       /* kw names parallel to all values (for nodes) */
  sdb_value *all;
  size_t nall;
} argv_;

static void argv_free(argv_ *a) {
  for (size_t i = 0; i < a->nall; i++) sdb_value_free(&a->all[i]);
  free(a->all);
  free(a->pos);
  free(a->kw);
  free(a->names);
  memset(a, 0, sizeof *a);
}

/* Node args (from index `from`) -> values; -1 when one cannot be a value. */
static int build_args(const frame *f, const sdb_fx_node *n, size_t from, argv_ *a) {
  memset(a, 0, sizeof *a);
  size_t k = n->nargs > from ? n->nargs - from : 0;
  a->all = calloc(k + 1, sizeof *a->all);
  a->pos = calloc(k + 1, sizeof *a->pos);
  a->kw = calloc(k + 1, sizeof *a->kw);
  a->names = calloc(k + 1, sizeof *a->names);
  if (!a->all || !a->pos || !a->kw || !a->names) return -1;
  for (size_t i = 0; i < k; i++) {
    const sdb_fx_arg *x = &n->args[from + i];
    if (to_value(f, x, &a->all[i])) return -1;
    a->nall = i + 1;
    a->names[i] = x->kw;
    if (x->kw) a->kw[a->nkw++] = (sdb_kwarg){x->kw, a->all[i]};
    else a->pos[a->npos++] = a->all[i];
  }
  return 0;
}

/* --- nodes ------------------------------------------------------------------------ */

static int run_graph(rctx *c, const sdb_fx_graph *g, sdb_tracer *tr, const sdb_value *inputs,
                     size_t ninputs, sdb_value *result, sdb_err *err);

static void unsupported(rctx *c, const char *op) {
  sdb_retrace *r = c->out;
  r->unsupported++;
  for (size_t i = 0; i < r->nops; i++)
    if (r->ops[i].op == op) {
      r->ops[i].count++;
      goto note;
    }
  sdb_retrace_unsupported *no = realloc(r->ops, (r->nops + 1) * sizeof *no);
  if (!no) return;
  r->ops = no;
  r->ops[r->nops++] = (sdb_retrace_unsupported){op, 1};
note:;
  sdb_event_in e = {0};
  e.kind = SDB_EV_NOTE;
  e.detail = sdb_internf("unsupported op: %s", op);
  sdb_emit(c->ev, &e);
}

/* The op-table name for a call target, or NULL. */
static const sdb_op *table_op(const char *target, bool method) {
  if (method) return sdb_op_find(target);
  /* an OpOverload the table or a custom op (torch.library) has */
  if (!strncmp(target, "torch.ops.", 10)) {
    const sdb_op *op = sdb_op_find_aten(target + 10);
    if (op) return op;
    /* Dynamo calls the packet, torch.ops.mylib.foo: its default overload */
    const char *dot = strchr(target + 10, '.');
    if (dot && !strchr(dot + 1, '.') && (op = sdb_op_find_aten(sdb_internf("%s.default", target + 10))))
      return op;
  }
  if (!strncmp(target, "torch.ops.aten.", 15) || !strncmp(target, "torch.ops.prims.", 16)) {
    const sdb_op *op = sdb_op_find_aten(target + 10);   /* "aten.nonzero.default" */
    if (op) return op;
    char name[128];
    const char *base = strchr(target + 10, '.') + 1;   /* after "aten." or "prims." */
    const char *dot = strchr(base, '.');
    size_t n = dot ? (size_t)(dot - base) : strlen(base);
    if (n >= sizeof name) return NULL;
    memcpy(name, base, n);
    name[n] = 0;
    return sdb_op_find(name);
  }
  static const char *const prefixes[] = {"torch.nn.functional.", "torch._C._nn.",
                                         "torch.functional.", "torch.", NULL};
  for (int i = 0; prefixes[i]; i++) {
    size_t n = strlen(prefixes[i]);
    if (!strncmp(target, prefixes[i], n) && !strchr(target + n, '.')) {
      const sdb_op *op = sdb_op_find(target + n);
      if (op && !(op->flags & SDB_OP_METHOD_ONLY)) return op;
    }
  }
  return NULL;
}

static const char *operator_tensor_op(const char *target) {
  static const struct { const char *t, *op; } m[] = {
    {"operator.add", "add"}, {"operator.sub", "sub"}, {"operator.mul", "mul"},
    {"operator.truediv", "div"}, {"operator.floordiv", "floor_divide"},
    {"operator.mod", "remainder"}, {"operator.pow", "pow"}, {"operator.matmul", "matmul"},
    {"operator.eq", "eq"}, {"operator.ne", "ne"}, {"operator.lt", "lt"},
    {"operator.le", "le"}, {"operator.gt", "gt"}, {"operator.ge", "ge"},
    {"operator.and_", "bitwise_and"}, {"operator.neg", "neg"}, {"operator.invert", "bitwise_not"},
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
    if (!strcmp(m[i].t, target)) return m[i].op;
  return NULL;
}

/* SymInt arithmetic and comparisons (operator.* on ints): NULL when not one. */
static const sdb_expr *sym_binop(const char *target, const sdb_expr *a, const sdb_expr *b) {
  if (!strcmp(target, "operator.add")) return sdb_add(a, b);
  if (!strcmp(target, "operator.sub")) return sdb_sub(a, b);
  if (!strcmp(target, "operator.mul")) return sdb_mul(a, b);
  if (!strcmp(target, "operator.floordiv")) return sdb_floordiv(a, b);
  if (!strcmp(target, "operator.mod")) return sdb_mod(a, b);
  if (!strcmp(target, "operator.eq")) return sdb_eq(a, b);
  if (!strcmp(target, "operator.ne")) return sdb_ne(a, b);
  if (!strcmp(target, "operator.lt")) return sdb_lt(a, b);
  if (!strcmp(target, "operator.le")) return sdb_le(a, b);
  if (!strcmp(target, "operator.gt")) return sdb_gt(a, b);
  if (!strcmp(target, "operator.ge")) return sdb_ge(a, b);
  if (!strcmp(target, "operator.and_")) return sdb_and(a, b);
  if (!strcmp(target, "operator.or_")) return sdb_or(a, b);
  return NULL;
}

static bool has_tensor(const argv_ *a) {
  for (size_t i = 0; i < a->nall; i++)
    if (a->all[i].kind == SDB_V_TENSOR) return true;
  return false;
}

/* A node whose value we computed ourselves (sizes, SymInt arithmetic). */
static int place_value(frame *f, const sdb_fx_node *n, sdb_node_op op, const argv_ *a,
                       const sdb_value *v, bool impure, sdb_err *err) {
  if (v->kind != SDB_V_TENSOR && v->expr && sdb_is_const(v->expr) && !impure) return SDB_OK;
  sdb_node *gn = sdb_tracer_node(f->tr, op, n->target, n->name, a->all, a->names, a->nall, v,
                                 impure, err);
  if (!gn) return err->code ? err->code : SDB_E_OOM;
  if (v->kind != SDB_V_TENSOR && v->expr && !sdb_is_const(v->expr))
    sdb_map_put(&f->tr->sym_proxy, v->expr, gn);
  return SDB_OK;
}

static int run_hop(rctx *c, frame *f, const sdb_fx_node *n, bool is_cond, sdb_value *out,
                   sdb_err *err) {
  size_t first = is_cond ? 1 : 0, nb = is_cond ? 2 : 1;
  if (n->nargs < first + nb + (is_cond ? 1 : 0))
    return fail_node(n, err, SDB_E_INVALID, "%s: too few arguments", n->target);
  const sdb_fx_graph *bodies[2] = {NULL, NULL};
  for (size_t i = 0; i < nb; i++) {
    const sdb_fx_arg *a = &n->args[first + i];
    long k = a->kind == SDB_FXA_NODE ? node_index(f, a->node) : -1;
    if (k < 0 || !f->subs[k])
      return fail_node(n, err, SDB_E_INVALID, "%s: a body is not a nested class", n->target);
    bodies[i] = f->subs[k];
  }
  /* operands: cond's list/tuple, or wrap's remaining arguments */
  sdb_value ops = SDB_VALUE_NONE;
  if (is_cond) {
    if (to_value(f, &n->args[3], &ops) || (ops.kind != SDB_V_TUPLE && ops.kind != SDB_V_LIST)) {
      sdb_value_free(&ops);
      return fail_node(n, err, SDB_E_INVALID, "%s: unreadable operands", n->target);
    }
  } else {
    ops = sdb_value_seq(SDB_V_TUPLE, n->nargs - 1);
    for (size_t i = 1; i < n->nargs; i++)
      if (to_value(f, &n->args[i], &ops.items[i - 1])) {
        sdb_value_free(&ops);
        return fail_node(n, err, SDB_E_INVALID, "%s: unreadable operands", n->target);
      }
  }
  sdb_value pred = SDB_VALUE_NONE;
  if (is_cond && to_value(f, &n->args[0], &pred)) {
    sdb_value_free(&ops);
    return fail_node(n, err, SDB_E_INVALID, "%s: unreadable predicate", n->target);
  }
  const char *kind = is_cond ? "cond" : "wrap";
  sdb_branch br[2];
  memset(br, 0, sizeof br);
  sdb_version_snapshot snap = {0};
  int rc = SDB_OK;
  sdb_tracer *tr = f->tr;
  for (size_t i = 0; i < nb && !rc; i++) {
    const char *base = is_cond ? (i ? "cond_false" : "cond_true") : "wrap_body";
    const char *tname = is_cond ? (i ? "cond.false_branch" : "cond.true_branch") : "wrap.body";
    sdb_graph *sg = sdb_graph_new_sub(tr->graph, base);
    if (!sg) { rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory"); break; }
    if (is_cond && (rc = sdb_snapshot_versions(tr, &snap, err))) break;
    sdb_phase saved = sdb_events_phase(c->ev);
    if (is_cond) sdb_events_set_phase(c->ev, SDB_PHASE_COND);
    sdb_tracer *child = sdb_tracer_new(tr, tname, sg, c->mode);
    if (!child) { rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory"); break; }
    if (is_cond) sdb_ignore_fresh_push(c->env);
    br[i].name = sdb_intern(base);
    br[i].graph = sg;
    sdb_value res = SDB_VALUE_NONE;
    sdb_loc saved_loc = c->loc;
    rc = run_graph(c, bodies[i], child, ops.items, ops.n, &res, err);
    c->loc = saved_loc;
    if (!rc && res.kind != SDB_V_TUPLE) {
      sdb_value t = sdb_value_seq(SDB_V_TUPLE, 1);
      t.items[0] = res;
      res = t;
    }
    if (!rc && !sdb_tracer_output(child, &res, err)) rc = err->code ? err->code : SDB_E_OOM;
    if (!rc && is_cond) rc = sdb_hop_check_branch(c->ev, br[i].name, &snap, &res, err);
    if (!rc) {
      sdb_graph_dce(child->graph);
      rc = sdb_branch_collect_inputs(&br[i], child, err);
    }
    if (!rc && !sdb_value_copy_checked(&br[i].outputs, &res))
      rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    sdb_value_free(&res);
    sdb_tracer_free(child);
    if (is_cond) sdb_ignore_fresh_pop(c->env);
    sdb_events_set_phase(c->ev, saved);
    sdb_snapshot_free(&snap);
    if (!rc && is_cond) sdb_fake_mode_bump_epoch(c->mode);
  }
  sdb_value merged = SDB_VALUE_NONE;
  sdb_node **opn = NULL;
  size_t nopn = 0;
  if (!rc) {
    if (is_cond) {
      sdb_events_push_op(c->ev, "cond");
      rc = sdb_cond_merge(c->mode, &br[0].outputs, &br[1].outputs, &merged, err);
      sdb_events_pop_op(c->ev);
    } else {
      if (!sdb_value_copy_checked(&merged, &br[0].outputs))
        rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    }
  }
  if (!rc) rc = sdb_hop_signature(br, nb, &opn, &nopn, err);
  if (!rc && is_cond) {
    sdb_event_in e = {0};
    e.kind = SDB_EV_AUTOGRAD;
    e.text = "cond";
    e.detail = "no operand requires grad: autograd is skipped";
    sdb_emit(c->ev, &e);
  }
  if (!rc) {
    sdb_node *attrs[2] = {NULL, NULL};
    for (size_t i = 0; i < nb; i++) {
      attrs[i] = sdb_graph_call(tr->graph, SDB_N_GET_ATTR, br[i].graph->name, br[i].graph->name,
                                NULL, 0, NULL);
      if (attrs[i] && !sdb_node_set_sub(attrs[i], br[i].graph)) attrs[i] = NULL;   /* out of memory */
      if (attrs[i]) sdb_tracer_adopt_node(tr, attrs[i], NULL, err);
    }
    size_t na = is_cond ? 4 : 1 + nopn, k = 0;
    sdb_arg *args = calloc(na + 1, sizeof *args);
    if (!args || !attrs[0] || (is_cond && !attrs[1])) {
      free(args);
      rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    } else {
      if (is_cond && (rc = sdb_tracer_arg(tr, &pred, &args[k++], err))) {
        free(args);
        args = NULL;
      }
      if (args) {
        if (is_cond) {
          args[k++] = sdb_arg_node(attrs[0]);
          args[k++] = sdb_arg_node(attrs[1]);
          args[k] = sdb_arg_seq(nopn, true);
          for (size_t i = 0; i < args[k].n; i++) args[k].items[i] = sdb_arg_node(opn[i]);
          k++;
        } else {
          args[k++] = sdb_arg_node(attrs[0]);
          for (size_t i = 0; i < nopn; i++) args[k++] = sdb_arg_node(opn[i]);
        }
        if (is_cond && args[k - 1].n != nopn) {   /* the operands' tuple: out of memory */
          for (size_t i = 0; i < k; i++) sdb_arg_free(&args[i]);
          free(args);
          args = NULL;
          rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
        }
      }
      if (args) {
        sdb_events_push_op(c->ev, kind);
        const char *target = is_cond ? "torch.ops.higher_order.cond" : "torch.ops.higher_order.wrap";
        sdb_node *gn = sdb_graph_call(tr->graph, SDB_N_CALL_FUNCTION, target, kind, args, k, &merged);
        if (!gn || !sdb_tracer_adopt_node(tr, gn, &merged, err))
          rc = err->code ? err->code : sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
        sdb_events_pop_op(c->ev);
      }
    }
  }
  free(opn);
  for (size_t i = 0; i < nb; i++) sdb_branch_clear(&br[i]);
  sdb_value_free(&ops);
  sdb_value_free(&pred);
  if (rc) {
    sdb_value_free(&merged);
    return rc;
  }
  *out = merged;
  return SDB_OK;
}

/* One step of basic indexing on *cur: OP(cur, args...) replaces it. */
static int index_step(const frame *f, const char *op, sdb_value *cur, sdb_value *args, size_t nargs,
                      sdb_err *err) {
  sdb_value all[5];
  all[0] = *cur;
  for (size_t i = 0; i < nargs; i++) all[i + 1] = args[i];
  sdb_args sa = {all, nargs + 1, NULL, 0};
  sdb_value res;
  sdb_node *gn;
  int rc = sdb_tracer_call(f->tr, sdb_op_find(op), false, &sa, &res, &gn, err);
  if (rc) return rc;
  sdb_value_free(cur);
  *cur = res;
  return SDB_OK;
}

/* x[idx] on a tensor, as Dynamo prints it (`l_x_[slice(None, 3, None)]`,
** `l_x_[(Ellipsis, None, 0)]`): PyTorch's applySlicing, left to right over
** the dims: an int selects (the dim goes), a slice slices (a full one is
** skipped), None unsqueezes, Ellipsis skips the dims no index names.
** 1: not basic indexing (a tensor or list index: advanced indexing). */
static int tensor_getitem(const frame *f, const sdb_fx_arg *xa, const sdb_fx_arg *ix,
                          sdb_value *out, sdb_err *err) {
  const sdb_fx_arg *items = ix->kind == SDB_FXA_TUPLE ? ix->items : ix;
  size_t n = ix->kind == SDB_FXA_TUPLE ? ix->n : 1;
  sdb_value cur;
  if (to_value(f, xa, &cur)) return 1;
  if (cur.kind != SDB_V_TENSOR) {
    sdb_value_free(&cur);
    return 1;
  }
  int consumed = 0;
  for (size_t i = 0; i < n; i++) {
    sdb_fx_akind k = items[i].kind;
    if (k == SDB_FXA_SLICE || k == SDB_FXA_INT || k == SDB_FXA_BOOL) consumed++;
    else if (k == SDB_FXA_NODE) {
      sdb_value v;
      if (to_value(f, &items[i], &v)) { sdb_value_free(&cur); return 1; }
      bool scalar = v.kind == SDB_V_INT;
      sdb_value_free(&v);
      if (!scalar) { sdb_value_free(&cur); return 1; }
      consumed++;
    } else if (k != SDB_FXA_NONE && k != SDB_FXA_ELLIPSIS) {
      sdb_value_free(&cur);
      return 1;
    }
  }
  int rc = SDB_OK;
  int64_t dim = 0, ndim = cur.tensor->ndim;
  for (size_t i = 0; i < n && !rc; i++) {
    const sdb_fx_arg *it = &items[i];
    if (it->kind == SDB_FXA_NONE) {
      sdb_value d = sdb_value_int64(dim);
      rc = index_step(f, "unsqueeze", &cur, &d, 1, err);
      dim++;
    } else if (it->kind == SDB_FXA_ELLIPSIS) {
      dim += ndim - consumed;   /* the dims no index names */
    } else if (it->kind == SDB_FXA_SLICE) {
      sdb_value b[3];
      for (int j = 0; j < 3; j++)
        if (to_value(f, &it->items[j], &b[j])) {
          for (int k = 0; k < j; k++) sdb_value_free(&b[k]);
          sdb_value_free(&cur);
          return 1;
        }
      int64_t st = 1;
      bool full = b[0].kind == SDB_V_NONE && b[1].kind == SDB_V_NONE &&
                  (b[2].kind == SDB_V_NONE || (sdb_value_is_const_int(&b[2], &st) && st == 1));
      if (!full) {
        sdb_value args[4] = {sdb_value_int64(dim), b[0], b[1],
                             b[2].kind == SDB_V_NONE ? sdb_value_int64(1) : b[2]};
        rc = index_step(f, "slice", &cur, args, 4, err);
      }
      for (int j = 0; j < 3; j++) sdb_value_free(&b[j]);
      dim++;
    } else {
      sdb_value v;
      if (to_value(f, it, &v)) { sdb_value_free(&cur); return 1; }
      sdb_value args[2] = {sdb_value_int64(dim), v};
      rc = index_step(f, "select", &cur, args, 2, err);
      sdb_value_free(&v);
    }
  }
  if (rc) {
    sdb_value_free(&cur);
    return rc;
  }
  *out = cur;
  return SDB_OK;
}

static int run_call(rctx *c, frame *f, const sdb_fx_node *n, size_t idx, sdb_err *err) {
  sdb_value *out = &f->vals[idx];
  const char *t = n->target;
  bool method = n->op == SDB_FX_CALL_METHOD;
  int rc = SDB_OK;
  if (!method && (!strcmp(t, "torch.ops.higher_order.cond") || !strcmp(t, "torch.ops.higher_order.wrap")))
    return run_hop(c, f, n, t[23] == 'c', out, err);
  /* grad mode switches in Dynamo graphs touch no shape */
  if (!method && (!strcmp(t, "torch._C._set_grad_enabled") ||
                  !strcmp(t, "torch.autograd.grad_mode._enter_inference_mode") ||
                  !strcmp(t, "torch.autograd.grad_mode._exit_inference_mode"))) {
    *out = SDB_VALUE_NONE;
    return SDB_OK;
  }
  /* x[...] on a tensor: basic indexing, decomposed as PyTorch does */
  if (!method && !strcmp(t, "operator.getitem") && n->nargs == 2 && !n->args[0].kw) {
    int r = tensor_getitem(f, &n->args[0], &n->args[1], out, err);
    if (r <= 0) return r;
  }
  argv_ a;
  if (build_args(f, n, 0, &a)) {
    argv_free(&a);
    goto unsupported;
  }
  /* sizes: x.size(d), torch.ops.aten.sym_size.int(x, d) */
  if ((method && !strcmp(t, "size")) || !strcmp(t, "torch.ops.aten.sym_size.int") ||
      !strcmp(t, "torch.ops.aten.sym_stride.int") || (method && !strcmp(t, "stride"))) {
    bool stride = strstr(t, "stride") != NULL;
    int64_t d;
    if (a.npos == 2 && a.pos[0].kind == SDB_V_TENSOR && sdb_value_is_const_int(&a.pos[1], &d)) {
      const sdb_fake *x = a.pos[0].tensor;
      if (d < 0) d += x->ndim;
      if (d < 0 || d >= x->ndim) {
        argv_free(&a);
        return fail_node(n, err, SDB_E_SHAPE, "%s: dimension out of range", t);
      }
      *out = sdb_value_int(stride ? sdb_fake_strides(x)[d] : x->sizes[d]);
      rc = place_value(f, n, method ? SDB_N_CALL_METHOD : SDB_N_CALL_FUNCTION, &a, out, false, err);
      argv_free(&a);
      return rc;
    }
    argv_free(&a);
    goto unsupported;
  }
  /* asserts: torch._check(b), torch._check_is_size(n), _assert_scalar(b, msg) */
  if (!strcmp(t, "torch._check") || !strcmp(t, "torch._check_is_size") ||
      !strcmp(t, "torch.ops.aten._assert_scalar.default")) {
    bool is_size = !strcmp(t, "torch._check_is_size");
    if (a.npos < 1 || !a.pos[0].expr) {
      argv_free(&a);
      goto unsupported;
    }
    const char *msg = a.npos > 1 && a.pos[1].kind == SDB_V_STR ? a.pos[1].str : NULL;
    /* Dynamo's _assert_scalar nodes come from its own deferred asserts: the
    ** check records the assert; finalize writes the node again. */
    sdb_events_push_op(c->ev, is_size ? "_check_is_size" : "_check");
    rc = is_size ? sdb_check_is_size(c->env, a.pos[0].expr, err)
                 : sdb_check(c->env, a.pos[0].expr, t[6] == 'o' ? NULL : msg, err);
    sdb_events_pop_op(c->ev);
    if (!rc && t[6] != 'o' && !sdb_is_const(a.pos[0].expr)) {
      sdb_value none = SDB_VALUE_NONE;
      rc = place_value(f, n, SDB_N_CALL_FUNCTION, &a, &none, true, err);
    }
    argv_free(&a);
    return rc;
  }
  if (!method && !strncmp(t, "operator.", 9)) {
    if (!strcmp(t, "operator.getitem") && a.npos == 2 && a.pos[0].kind != SDB_V_TENSOR) {
      int64_t i;
      const sdb_value *s = &a.pos[0];
      if ((s->kind == SDB_V_TUPLE || s->kind == SDB_V_LIST) && sdb_value_is_const_int(&a.pos[1], &i) &&
          i >= -(int64_t)s->n && i < (int64_t)s->n) {
        *out = sdb_value_copy(&s->items[i < 0 ? i + (int64_t)s->n : i]);
        argv_free(&a);
        return SDB_OK;
      }
    }
    if (!has_tensor(&a)) {
      const sdb_expr *e = NULL;
      if (a.npos == 2 && a.pos[0].expr && a.pos[1].expr &&
          a.pos[0].kind != SDB_V_FLOAT && a.pos[1].kind != SDB_V_FLOAT)
        e = sym_binop(t, a.pos[0].expr, a.pos[1].expr);
      else if (a.npos == 1 && a.pos[0].expr && !strcmp(t, "operator.neg"))
        e = sdb_neg(a.pos[0].expr);
      else if (a.npos == 1 && a.pos[0].expr && !strcmp(t, "operator.not_"))
        e = sdb_not(a.pos[0].expr);
      if (e) {
        *out = sdb_is_bool(e) ? sdb_value_bool(e) : sdb_value_int(e);
        rc = place_value(f, n, SDB_N_CALL_FUNCTION, &a, out, false, err);
        argv_free(&a);
        return rc;
      }
    } else if (!strcmp(t, "operator.getitem") && a.npos == 2) {
      int64_t i;
      if (sdb_value_is_const_int(&a.pos[1], &i)) {
        /* x[i] is x.select(0, i) */
        sdb_value sel[3] = {sdb_value_copy(&a.pos[0]), sdb_value_int64(0), sdb_value_int64(i)};
        sdb_args sa = {sel, 3, NULL, 0};
        sdb_node *gn;
        rc = sdb_tracer_call(f->tr, sdb_op_find("select"), true, &sa, out, &gn, err);
        for (int k = 0; k < 3; k++) sdb_value_free(&sel[k]);
        argv_free(&a);
        return rc;
      }
    } else if (operator_tensor_op(t)) {
      const sdb_op *op = sdb_op_find(operator_tensor_op(t));
      if (op) {
        sdb_args sa = {a.pos, a.npos, a.kw, a.nkw};
        sdb_node *gn;
        rc = sdb_tracer_call(f->tr, op, false, &sa, out, &gn, err);
        argv_free(&a);
        return rc;
      }
    }
    argv_free(&a);
    goto unsupported;
  }
  const sdb_op *op = table_op(t, method);
  if (op) {
    sdb_args sa = {a.pos, a.npos, a.kw, a.nkw};
    sdb_node *gn;
    rc = sdb_tracer_call(f->tr, op, method, &sa, out, &gn, err);
    argv_free(&a);
    return rc;
  }
  argv_free(&a);
unsupported:
  unsupported(c, method ? sdb_internf("Tensor.%s", t) : t);
  if (n->meta.kind == SDB_FXM_NONE) {
    f->opaque[idx] = true;
    return SDB_OK;
  }
  if ((rc = from_meta(c, n, out, err))) return rc;
  /* the node stands in the graph with what arguments it could keep */
  if (build_args(f, n, 0, &a)) {
    argv_free(&a);
    memset(&a, 0, sizeof a);
  }
  rc = place_value(f, n, method ? SDB_N_CALL_METHOD : SDB_N_CALL_FUNCTION, &a, out, false, err);
  argv_free(&a);
  return rc;
}

/* --- placeholders ----------------------------------------------------------------- */

static const char *argname_of(const sdb_fx_node *n) {
  const char *t = n->target;
  size_t len = strlen(t);
  if (len > 3 && (t[0] == 'L' || t[0] == 'G') && t[1] == '_' && t[len - 1] == '_')
    return sdb_intern_n(t + 2, len - 3);
  return t;
}

static int64_t hint_for_ex(rctx *c, const char *sym, bool *real) {
  int64_t h;
  if (real) *real = false;
  if (c->opts && c->opts->hint && !c->opts->hint(c->opts->hint_ud, sym, &h)) {
    if (real) *real = true;
    return h;
  }
  /* distinct even hints > 1: no accidental duck sizing or 0/1 specialization,
  ** and views by 2 stay exact */
  h = c->next_hint;
  c->next_hint += 2;
  return h;
}

static int64_t hint_for(rctx *c, const char *sym) { return hint_for_ex(c, sym, NULL); }

/* The hints of their symbols while an input is made: its own sizes' symbols,
** then those already mapped to ours. */
typedef struct { rctx *c; const sdb_expr *const *theirs; const int64_t *sizes; int n; } hints;

static int their_hint(void *ud, const sdb_expr *sym, int64_t *out) {
  const hints *h = ud;
  for (int i = 0; i < h->n; i++)
    if (h->theirs[i] == sym) return *out = h->sizes[i], 0;
  const sdb_expr *mapped = sdb_map_get(&h->c->ren, sym);
  sdb_err e = SDB_ERR_INIT;
  int rc = mapped && !sdb_size_hint(h->c->env, mapped, out, &e) ? 0 : -1;
  sdb_err_clear(&e);
  return rc;
}

/* The real strides the annotation implies (channels-last, transposed), or
** NULL when it has none or one cannot be evaluated: then contiguous. */
static const int64_t *stride_hints(rctx *c, const sdb_fx_meta *m, const sdb_expr *const *theirs,
                                   const int64_t *sizes, int64_t *out) {
  if (!m->strides) return NULL;
  hints h = { c, theirs, sizes, m->ndim };
  for (int i = 0; i < m->ndim; i++) {
    sdb_err e = SDB_ERR_INIT;
    const sdb_expr *s = parse_their(m->strides[i], &e);
    sdb_err_clear(&e);
    char why[64];
    if (!s || sdb_eval(s, their_hint, &h, &out[i], why, sizeof why) || out[i] < 0) return NULL;
  }
  return out;
}

static int root_tensor_input(rctx *c, frame *f, const sdb_fx_node *n, size_t idx, sdb_err *err) {
  const sdb_fx_meta *m = &n->meta;
  if (m->ndim > 64) return fail_node(n, err, SDB_E_INVALID, "%s: too many dims", m->text);
  int64_t sizes[64];
  sdb_symctx *ctx = sdb_symctx_new(false, (size_t)m->ndim, SDB_DIM_STATIC);
  if (!ctx) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  const sdb_expr *theirs[64];
  for (int i = 0; i < m->ndim; i++) {
    const sdb_expr *e = parse_their(m->sizes[i], err);
    if (!e) {
      sdb_symctx_free(ctx);
      return SDB_E_INVALID;
    }
    theirs[i] = e;
    const sdb_expr *mapped = sdb_map_get(&c->ren, e);
    if (sdb_is_int(e)) {
      sizes[i] = e->ival;
    } else if (sdb_is_sym(e) && e->name[0] == 'u') {
      ctx->sizes[i].dynamic = SDB_DIM_UNBACKED;
      sizes[i] = hint_for(c, e->name);
    } else if (mapped) {
      int64_t h;
      sdb_err e2 = SDB_ERR_INIT;
      sizes[i] = sdb_size_hint(c->env, mapped, &h, &e2) ? 2 : h;
      sdb_err_clear(&e2);
      ctx->sizes[i].dynamic = SDB_DIM_DUCK;
    } else {
      /* duck sizing with one hint per symbol of theirs: a symbol that
      ** comes back (two inputs of size s0) is ours again, as in PyTorch.
      ** With the log's real values two of their symbols can share a value
      ** (PyTorch kept them apart: mark_dynamic, automatic dynamic), so
      ** each is a symbol of its own then, not a duck. */
      bool real;
      sizes[i] = hint_for_ex(c, sdb_is_sym(e) ? e->name : m->sizes[i], &real);
      ctx->sizes[i].dynamic = real ? SDB_DIM_DYNAMIC : SDB_DIM_DUCK;
    }
  }
  sdb_fake *t = NULL;
  const sdb_source *src = sdb_source_local(argname_of(n));
  int64_t real_strides[64];
  const int64_t *strides = stride_hints(c, m, theirs, sizes, real_strides);
  int rc = sdb_fakify_strided(c->mode, sizes, strides, m->ndim, (sdb_dtype)m->dtype,
                              m->device ? m->device : "cpu", false, src, ctx, &t, err);
  sdb_symctx_free(ctx);
  if (rc) return rc;
  for (int i = 0; i < m->ndim; i++)
    if (!sdb_is_int(theirs[i]) && sdb_is_sym(theirs[i]) && !sdb_map_get(&c->ren, theirs[i]))
      map_sym(c, theirs[i], t->sizes[i]);
  sdb_node *ph = sdb_tracer_input_tensor(f->tr, t, argname_of(n), src, err);
  if (!ph) {
    sdb_fake_unref(t);
    return err->code ? err->code : SDB_E_OOM;
  }
  f->vals[idx] = sdb_value_tensor(t);
  sdb_fake_unref(t);
  return SDB_OK;
}

static int root_sym_input(rctx *c, frame *f, const sdb_fx_node *n, size_t idx, sdb_err *err) {
  const sdb_expr *e = parse_their(n->meta.sym, err);
  if (!e) return SDB_E_INVALID;
  bool missing = false;
  const sdb_expr *o = to_ours(c, e, false, &missing);
  if (!o) {
    if (!sdb_is_sym(e)) return fail_node(n, err, SDB_E_INVALID, "cannot make an input of Sym(%s)", n->meta.sym);
    if (e->name[0] == 'u') {
      o = sdb_create_unbacked_symint(c->env);
    } else {
      sdb_dim_spec spec = sdb_symctx_dim(NULL, 0);
      spec.dynamic = SDB_DIM_DYNAMIC;
      spec.unspecified = true;
      const sdb_source *src = sdb_source_local(argname_of(n));
      if (sdb_create_symbol(c->env, hint_for(c, e->name), src, &spec, NULL, &o, err)) return err->code;
      if (!sdb_tracer_input_symint(f->tr, o, argname_of(n), src, err)) return err->code ? err->code : SDB_E_OOM;
    }
    if (!o) return sdb_err_expr(err);
    map_sym(c, e, o);
  }
  f->vals[idx] = sdb_value_int(o);
  return SDB_OK;
}

/* --- graphs ---------------------------------------------------------------------- */

static void set_loc(rctx *c, const sdb_fx_node *n) {
  if (n->file && n->code && n->line > 0 && c->nlines < 100000) {
    src_line *v = realloc(c->lines, (c->nlines + 1) * sizeof *v);
    if (v) {
      c->lines = v;
      c->lines[c->nlines++] = (src_line){n->file, n->line, n->code};
    }
  }
  c->loc.file = n->file;
  c->loc.line = n->line;
  c->loc.func = n->fn;
}

static int run_graph(rctx *c, const sdb_fx_graph *g, sdb_tracer *tr, const sdb_value *inputs,
                     size_t ninputs, sdb_value *result, sdb_err *err) {
  if (++c->depth > 64) {
    c->depth--;
    return sdb_err_set(err, SDB_E_INVALID, "RetraceError", "bodies nested too deeply");
  }
  frame f = {g, tr, calloc(g->n + 1, sizeof(sdb_value)), calloc(g->n + 1, sizeof(sdb_fx_graph *)),
             calloc(g->n + 1, sizeof(bool))};
  int rc = SDB_OK;
  if (!f.vals || !f.subs || !f.opaque) rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  size_t nph = 0;
  /* root inputs: tensors first so their symbols name Sym(s0) inputs */
  if (!rc && !inputs) {
    for (size_t i = 0; i < g->n && !rc; i++) {
      const sdb_fx_node *n = g->nodes[i];
      if (n->op != SDB_FX_PLACEHOLDER) continue;
      set_loc(c, n);
      if (n->meta.kind == SDB_FXM_TENSOR) rc = root_tensor_input(c, &f, n, i, err);
      else if (n->meta.kind == SDB_FXM_NONE)
        rc = fail_node(n, err, SDB_E_INVALID, "input %s has no shape annotation (older PyTorch "
                       "versions log graphs without shapes): nothing to re-run it with",
                       n->target);
    }
    for (size_t i = 0; i < g->n && !rc; i++) {
      const sdb_fx_node *n = g->nodes[i];
      if (n->op == SDB_FX_PLACEHOLDER && n->meta.kind == SDB_FXM_SYM) {
        set_loc(c, n);
        rc = root_sym_input(c, &f, n, i, err);
      }
    }
  }
  for (size_t i = 0; i < g->n && !rc; i++) {
    const sdb_fx_node *n = g->nodes[i];
    set_loc(c, n);
    switch (n->op) {
      case SDB_FX_PLACEHOLDER:
        if (inputs) {
          if (nph >= ninputs) {
            rc = fail_node(n, err, SDB_E_INVALID, "%s: more inputs than operands", g->name);
            break;
          }
          f.vals[i] = sdb_value_copy(&inputs[nph]);
        }
        nph++;
        c->out->nodes++;
        check_node(c, &f, n, &f.vals[i]);
        break;
      case SDB_FX_GET_ATTR: {
        const sdb_fx_graph *sub = sdb_fx_graph_sub(g, n->target);
        if (sub) {
          f.subs[i] = sub;
          break;
        }
        c->out->nodes++;
        if (n->meta.kind == SDB_FXM_NONE) {
          rc = fail_node(n, err, SDB_E_INVALID, "self.%s is neither a nested class nor annotated", n->target);
          break;
        }
        /* a parameter or buffer: what the annotation says */
        if ((rc = from_meta(c, n, &f.vals[i], err))) break;
        argv_ none;
        memset(&none, 0, sizeof none);
        rc = place_value(&f, n, SDB_N_GET_ATTR, &none, &f.vals[i], false, err);
        if (!rc) check_node(c, &f, n, &f.vals[i]);
        break;
      }
      case SDB_FX_CALL_FUNCTION:
      case SDB_FX_CALL_METHOD: {
        c->out->nodes++;
        long before = c->out->unsupported;
        rc = run_call(c, &f, n, i, err);
        if (!rc && c->out->unsupported == before && !f.opaque[i]) check_node(c, &f, n, &f.vals[i]);
        break;
      }
      case SDB_FX_OUTPUT:
        if (n->nargs == 0) *result = sdb_value_seq(SDB_V_TUPLE, 0);
        else if (to_value(&f, &n->args[0], result))
          rc = fail_node(n, err, SDB_E_INVALID, "%s", "the output names a value the retrace could not make");
        break;
    }
    if (rc && !err->line && n->file) {
      err->file = n->file;
      err->line = n->line;
    }
  }
  for (size_t i = 0; f.vals && i < g->n; i++) sdb_value_free(&f.vals[i]);
  free(f.vals);
  free(f.subs);
  free(f.opaque);
  c->depth--;
  return rc;
}

/* The model's Python files are rarely on this machine: serve the lines the
** comments quote (others empty) so `list` shows them; a readable file wins. */
static void remember_lines(rctx *c) {
  for (size_t i = 0; i < c->nlines; i++) {
    const char *file = c->lines[i].file;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = c->lines[j].file == file;
    if (seen || sdb_srcfile_count(file) >= 0) continue;
    int max = 0;
    for (size_t j = i; j < c->nlines; j++)
      if (c->lines[j].file == file && c->lines[j].line > max) max = c->lines[j].line;
    const char **text = calloc((size_t)max + 1, sizeof *text);
    if (!text) return;
    for (size_t j = i; j < c->nlines; j++)
      if (c->lines[j].file == file) text[c->lines[j].line - 1] = c->lines[j].code;
    sdb_buf b = SDB_BUF_INIT;
    for (int k = 0; k < max; k++) {
      sdb_buf_puts(&b, text[k] ? text[k] : "");
      sdb_buf_putc(&b, '\n');
    }
    if (!b.failed) sdb_srcfile_set_text(file, sdb_buf_cstr(&b));
    sdb_buf_free(&b);
    free(text);
  }
}

int sdb_retrace_run(const sdb_fx_graph *g, sdb_events *ev, const sdb_retrace_opts *opts,
                    sdb_retrace *out, sdb_err *err) {
  memset(out, 0, sizeof *out);
  rctx c;
  memset(&c, 0, sizeof c);
  c.ev = ev;
  c.out = out;
  c.opts = opts;
  c.next_hint = 4;
  sdb_events_set_locator(ev, locate, &c);
  sdb_phase phase = opts && opts->phase != SDB_PHASE_NONE ? opts->phase : SDB_PHASE_TRACE;
  sdb_events_set_phase(ev, phase);
  sdb_event_in e = {0};
  e.kind = SDB_EV_PHASE_START;
  e.text = opts && opts->name ? opts->name : "retrace";
  sdb_emit(ev, &e);
  sdb_shape_env_opts so = sdb_shape_env_default_opts();
  c.env = sdb_shape_env_new(ev, &so);
  c.mode = c.env ? sdb_fake_mode_new(c.env, "trace") : NULL;
  c.graph = sdb_graph_new("GraphModule");
  const char *trname = phase == SDB_PHASE_AOT ? "aot" : phase == SDB_PHASE_LOWER ? "lower" : "trace";
  sdb_tracer *tr = c.mode && c.graph ? sdb_tracer_new(NULL, trname, c.graph, c.mode) : NULL;
  int rc = SDB_OK;
  sdb_value result = SDB_VALUE_NONE;
  if (!tr) rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  if (!rc) rc = run_graph(&c, g, tr, NULL, 0, &result, err);
  if (!rc) {
    if (result.kind != SDB_V_TUPLE) {
      sdb_value t = sdb_value_seq(SDB_V_TUPLE, 1);
      t.items[0] = result;
      result = t;
    }
    if (!sdb_tracer_output(tr, &result, err)) rc = err->code ? err->code : SDB_E_OOM;
  }
  if (!rc) rc = sdb_tracer_finalize(tr, err);
  if (rc) {
    sdb_event_in x = {0};
    x.kind = SDB_EV_ERROR;
    x.text = err->kind;
    x.detail = sdb_intern(err->msg ? err->msg : "error");
    sdb_emit(ev, &x);
  }
  if (c.graph) {
    sdb_print_opts po = {true, true, false, true};
    out->graph_text = sdb_graph_print(c.graph, &po);
  }
  sdb_value_free(&result);
  c.loc.file = NULL;
  e.kind = SDB_EV_PHASE_END;
  sdb_emit(ev, &e);
  sdb_events_set_phase(ev, SDB_PHASE_NONE);
  sdb_events_set_locator(ev, NULL, NULL);
  sdb_tracer_free(tr);
  sdb_graph_free(c.graph);
  sdb_fake_mode_free(c.mode);
  sdb_shape_env_free(c.env);
  sdb_map_free(&c.ren);
  sdb_map_free(&c.rev);
  remember_lines(&c);
  free(c.lines);
  return rc;
}

void sdb_retrace_clear(sdb_retrace *r) {
  if (!r) return;
  free(r->divs);
  free(r->ops);
  free(r->graph_text);
  memset(r, 0, sizeof *r);
}

char *sdb_retrace_summary(const sdb_retrace *r) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_printf(&b, "retrace: %ld nodes, %ld matched, %ld diverged, %ld unsupported ops\n",
                 r->nodes, r->matched, r->diverged, r->unsupported);
  for (size_t i = 0; i < r->nops; i++)
    sdb_buf_printf(&b, "  unsupported op: %s (x%ld)\n", r->ops[i].op, r->ops[i].count);
  sdb_buf_cstr(&b);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}

char *sdb_retrace_divergences_text(const sdb_retrace *r) {
  sdb_buf b = SDB_BUF_INIT;
  if (!r->ndivs) sdb_buf_puts(&b, "No divergences: every annotated node matched.\n");
  for (size_t i = 0; i < r->ndivs; i++) {
    const sdb_retrace_div *d = &r->divs[i];
    sdb_buf_printf(&b, "%zu  %s.%s (payload line %d): %s differ\n", i + 1, d->graph, d->node,
                   d->pline, d->what);
    sdb_buf_printf(&b, "     PyTorch  %s\n     shapedb  %s\n", d->pytorch, d->shapedb);
  }
  sdb_buf_cstr(&b);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}
