/*
** lower.c — lowering the aot graph to buffers and wrapper code (see lower.h).
*/
#include "lower.h"
#include "buf.h"
#include "intern.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
  "Pointwise", "Reduction", "ExternKernel", "ReinterpretView", "FallbackKernel",
  "MultiOutput", "DynamicScalar", "Conditional", "MutationOutput",
  "DynamicSelectStorageOffset",
};

const char *sdb_ibuf_kind_name(sdb_ibuf_kind k) {
  return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

void sdb_lowered_free(sdb_lowered *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++) free(l->bufs[i].defines);
  free(l->bufs);
  free(l->wrapper);
  l->bufs = NULL;
  l->wrapper = NULL;
  l->n = 0;
}

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

/* A runtime assert to place once every unbacked symbol in it is bound. */
typedef struct {
  const sdb_expr *expr;
  const char *msg;
} pending_assert;

typedef struct {
  sdb_fake_mode *mode;
  sdb_shape_env *env;
  sdb_events *ev;
  const sdb_lower_opts *opts;
  sdb_lowered *out;
  size_t cap;
  /* aot node -> its name in the wrapper (interned): by node id over the
  ** graph's span of ids (a slot per node, where a map cost three words
  ** and doubling; a tenth of the lowering's peak), ref for an id outside */
  const char **refv;
  uint32_t ref_base, nref;
  sdb_map ref;
  sdb_map cond_out;            /* cond node -> 1 + index of its first MultiOutput buffer */
  sdb_map bound;               /* symbol (resolved) -> non-NULL once the wrapper binds it */
  pending_assert *asserts;
  size_t nasserts, capasserts;
  sdb_buf code;
} lowering;

/* --- helpers ------------------------------------------------------------------ */

static const sdb_op *op_of_aten(const char *target) {
  if (strncmp(target, "torch.ops.", 10)) return NULL;
  return sdb_op_find_aten(target + 10);   /* the first in the table, then custom ops */
}

static bool is_reduction(const char *name) {
  static const char *const r[] = {"sum", "mean", "amax", "amin", "max", "min", "prod", "any",
                                  "all", "argmax", "argmin", "std", "var", "norm", "softmax",
                                  "log_softmax"};
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (!strcmp(r[i], name)) return true;
  return false;
}

static bool is_extern(const char *name) {
  return !strcmp(name, "mm") || !strcmp(name, "bmm") || !strcmp(name, "matmul") ||
         !strcmp(name, "addmm") || !strcmp(name, "linear");
}

/* The kind of buffer an op lowers to, remembered per op (the name
** compares were a strcmp chain per node lowered). An op keeps its name
** and flags for the process's life: custom ops are redefined in place. */
static sdb_ibuf_kind buffer_kind(const sdb_op *op) {
  static struct { const sdb_op *op; sdb_ibuf_kind kind; } cache[128];
  size_t h = (size_t)(((uintptr_t)op >> 4) * 2654435761u) & 127;
  if (cache[h].op == op) return cache[h].kind;
  sdb_ibuf_kind kind = (op->flags & SDB_OP_VIEW) ? SDB_IB_VIEW
                     : is_reduction(op->name) ? SDB_IB_REDUCTION
                     : is_extern(op->name) ? SDB_IB_EXTERN : SDB_IB_POINTWISE;
  cache[h].op = op;
  cache[h].kind = kind;
  return kind;
}

/* Wrapper text of an expression, names resolved through the ShapeEnv. */
static void put_expr(lowering *lw, sdb_buf *b, const sdb_expr *e) {
  const sdb_expr *s = sdb_simplify(lw->env, e);
  char *t = sdb_expr_str_py(s ? s : e, NULL, NULL);
  if (t) sdb_buf_puts(b, t);
  else b->failed = true;   /* out of memory: the code says it is incomplete */
  free(t);
}

static void put_shape(lowering *lw, sdb_buf *b, const sdb_expr *const *v, int n) {
  sdb_buf_putc(b, '(');
  for (int i = 0; i < n; i++) {
    put_expr(lw, b, v[i]);
    sdb_buf_puts(b, ", ");
  }
  sdb_buf_putc(b, ')');
}

static const char *ref_of(lowering *lw, const sdb_node *n) {
  const char *r = n->id - lw->ref_base < lw->nref ? lw->refv[n->id - lw->ref_base]
                                                  : sdb_map_get(&lw->ref, n);
  return r ? r : n->name;
}

static void set_ref(lowering *lw, const sdb_node *n, const char *name) {
  if (n->id - lw->ref_base < lw->nref) lw->refv[n->id - lw->ref_base] = name;
  else sdb_map_put(&lw->ref, n, (void *)name);
}

/* The slots for the graph's ids, when they are not spread much wider than
** its nodes (they are numbered as made; a graph made in one pass holds a
** run of them). Without them every name goes in the map. */
static void ref_slots(lowering *lw, const sdb_graph *g) {
  if (!g->n) return;
  uint32_t lo = g->nodes[0]->id, hi = lo;
  for (size_t i = 1; i < g->n; i++) {
    if (g->nodes[i]->id < lo) lo = g->nodes[i]->id;
    if (g->nodes[i]->id > hi) hi = g->nodes[i]->id;
  }
  size_t span = (size_t)(hi - lo) + 1;
  if (span > 4 * g->n + 1024 || !(lw->refv = calloc(span, sizeof *lw->refv))) return;
  lw->ref_base = lo;
  lw->nref = (uint32_t)span;
}

/* kw: the argument's keyword name, or NULL */
static void put_arg(lowering *lw, sdb_buf *b, const sdb_arg *a, const char *kw) {
  if (kw) sdb_buf_printf(b, "%s=", kw);
  switch (a->kind) {
    case SDB_A_NODE:
      /* a symbolic value is its expression (item()'s buffer is None) */
      if ((a->node->example.kind == SDB_V_INT || a->node->example.kind == SDB_V_BOOL ||
           a->node->example.kind == SDB_V_FLOAT) && a->node->example.expr)
        put_expr(lw, b, a->node->example.expr);
      else
        sdb_buf_puts(b, ref_of(lw, a->node));
      break;
    case SDB_A_CONST: {
      sdb_value v = sdb_arg_value(a);
      char *s = sdb_value_text(&v);
      if (!s) b->failed = true;
      else if (v.kind == SDB_V_STR) sdb_buf_printf(b, "'%s'", s);
      else sdb_buf_puts(b, s);
      free(s);
      break;
    }
    case SDB_A_SEQ:
      sdb_buf_putc(b, a->tuple ? '(' : '[');
      for (size_t i = 0; i < a->n; i++) {
        if (i) sdb_buf_puts(b, ", ");
        put_arg(lw, b, &a->items[i], NULL);
      }
      if (a->tuple && a->n == 1) sdb_buf_putc(b, ',');   /* Python's 1-tuple */
      sdb_buf_putc(b, a->tuple ? ')' : ']');
      break;
  }
}

static void put_args(lowering *lw, sdb_buf *b, const sdb_node *n) {
  for (size_t i = 0; i < n->nargs; i++) {
    if (i) sdb_buf_puts(b, ", ");
    put_arg(lw, b, &n->args[i], sdb_node_kw(n, i));
  }
}

static void put_meta_comment(sdb_buf *b, const sdb_value *v) {
  if (v->kind != SDB_V_TENSOR) return;
  char *m = sdb_fake_meta_str(v->tensor, false);
  sdb_buf_putc(b, ' ');
  if (m) sdb_buf_puts(b, m);
  else b->failed = true;   /* out of memory: the code says it is incomplete */
  free(m);
}

static sdb_ibuf *new_buf(lowering *lw, sdb_ibuf_kind kind, const sdb_node *origin) {
  if (lw->out->n == lw->cap) {
    size_t cap = lw->cap ? lw->cap * 2 : 16;
    sdb_ibuf *v = realloc(lw->out->bufs, cap * sizeof *v);
    if (!v) return NULL;
    lw->out->bufs = v;
    lw->cap = cap;
  }
  sdb_ibuf *b = &lw->out->bufs[lw->out->n];
  memset(b, 0, sizeof *b);
  b->name = sdb_intern_num("buf", 3, (unsigned long)lw->out->n);
  b->kind = kind;
  b->origin = origin;
  lw->out->n++;
  return b;
}

/* b defines what src binds (a copy); false on OOM */
static bool take_defines(sdb_ibuf *b, const sdb_bindings *src) {
  sdb_bindings c;
  if (!sdb_bindings_copy(&c, src)) return false;
  b->defines = c.v;
  b->ndefines = (uint32_t)c.n;
  return true;
}

static void buffer_event(lowering *lw, const sdb_ibuf *b) {
  size_t n = b->ndefines;
  const sdb_expr **syms = calloc(n + 1, sizeof *syms);
  if (!syms) { sdb_events_note_lost(lw->ev); return; }
  for (size_t i = 0; i < n; i++) syms[i] = sdb_resolve_renamed(lw->env, b->defines[i].sym);
  sdb_event_in e = {0};
  e.kind = SDB_EV_BUFFER_LOWERED;
  e.text = b->name;
  /* "pointwise for add_3": unique to the buffer, so the stream keeps a
  ** copy (sdb_event_owns_detail) and it is not interned */
  char space[256];
  sdb_buf d = sdb_buf_on(space, sizeof space);
  sdb_buf_cat(&d, sdb_ibuf_kind_name(b->kind), " for ", b->origin ? b->origin->name : "?",
              (const char *)NULL);
  e.detail = sdb_buf_cstr(&d);
  if (d.failed) sdb_events_note_lost(lw->ev);
  sdb_event_more more = {.syms = syms, .nsyms = (uint32_t)n};
  e.more = &more;
  sdb_emit(lw->ev, &e);
  sdb_buf_free(&d);
  free(syms);
}

static bool add_assert(lowering *lw, const sdb_expr *e, const char *msg) {
  if (lw->nasserts == lw->capasserts) {
    size_t cap = lw->capasserts ? lw->capasserts * 2 : 16;
    pending_assert *v = realloc(lw->asserts, cap * sizeof *v);
    if (!v) return false;
    lw->asserts = v;
    lw->capasserts = cap;
  }
  lw->asserts[lw->nasserts].expr = e;
  lw->asserts[lw->nasserts].msg = sdb_intern(msg);
  lw->nasserts++;
  return true;
}

/* Are all unbacked symbols of e bound in the wrapper so far? */
static bool all_bound(lowering *lw, const sdb_expr *e) {
  const sdb_expr *s = sdb_simplify(lw->env, e);
  const sdb_expr **fs;
  long n = sdb_free_symbols(s ? s : e, &fs);
  bool ok = true;
  for (long i = 0; i < n && ok; i++)
    if (sdb_is_unbacked(lw->env, fs[i]) && !sdb_map_has(&lw->bound, sdb_resolve_renamed(lw->env, fs[i])))
      ok = false;
  free(fs);
  return ok;
}

/* Runtime asserts go right where their symbols become known. */
/* Place the asserts whose symbols are all bound now, in the order they
** came; the rest stay, in order. Placed ones leave the list: a pass over
** every assert of the program per flush made a 1M-op lowering spend a
** tenth of its time here. */
static void flush_asserts(lowering *lw) {
  size_t keep = 0;
  for (size_t i = 0; i < lw->nasserts; i++) {
    pending_assert *a = &lw->asserts[i];
    if (!all_bound(lw, a->expr)) {
      lw->asserts[keep++] = *a;
      continue;
    }
    sdb_buf_puts(&lw->code, "    if not (");
    put_expr(lw, &lw->code, a->expr);
    sdb_buf_printf(&lw->code, "):\n        raise RuntimeError(\"%s\")\n", a->msg);
  }
  lw->nasserts = keep;
}

/* `u0 = buf1.size(0)` for each symbol a buffer defines. */
static void codegen_defs(lowering *lw, const sdb_ibuf *b) {
  for (size_t i = 0; i < b->ndefines; i++) {
    const sdb_expr *s = sdb_resolve_renamed(lw->env, b->defines[i].sym);
    char path[256];
    sdb_keypath_call_str(b->defines[i].path, path, sizeof path);
    if (b->kind == SDB_IB_DYNAMIC_SCALAR) sdb_buf_printf(&lw->code, "    %s = %s.item()\n", s->name, b->name);
    else sdb_buf_printf(&lw->code, "    %s = %s%s\n", s->name, b->name, path);
    /* out of memory: the code fails as incomplete */
    if (!sdb_map_put(&lw->bound, s, (void *)s)) lw->code.failed = true;
  }
  flush_asserts(lw);
}

/* select at an unbacked index has an unbacked storage offset, which the
** view needs before it exists: Inductor's DynamicSelectStorageOffset
** computes it from the index first (a negative index counts from the end)
** and defines the symbol the select node binds. */
static int dynamic_select_offset(lowering *lw, const sdb_node *n, sdb_err *err) {
  const sdb_value *x = n->nargs > 0 && n->args[0].kind == SDB_A_NODE ? &n->args[0].node->example : NULL;
  int64_t dim = 0;
  const sdb_expr *idx = NULL;
  if (n->nargs > 2) {
    sdb_value d = sdb_arg_value(&n->args[1]), i = sdb_arg_value(&n->args[2]);
    sdb_value_is_const_int(&d, &dim);
    if (n->args[2].kind == SDB_A_NODE) idx = n->args[2].node->example.expr;
    else if (i.kind == SDB_V_INT) idx = i.expr;
  }
  if (!x || x->kind != SDB_V_TENSOR || !idx || dim < 0 || dim >= x->tensor->ndim) return SDB_OK;
  const sdb_fake *t = x->tensor;
  sdb_ibuf *b = new_buf(lw, SDB_IB_DYNAMIC_SELECT, n);
  if (!b || !take_defines(b, sdb_node_bindings(n))) return oom(err);
  for (size_t i = 0; i < b->ndefines; i++) {
    const sdb_expr *s = sdb_resolve_renamed(lw->env, b->defines[i].sym);
    sdb_buf_printf(&lw->code, "    %s = ", s->name);
    put_expr(lw, &lw->code, sdb_fake_offset(t));
    sdb_buf_puts(&lw->code, " + ");
    put_expr(lw, &lw->code, sdb_fake_strides(t)[dim]);
    sdb_buf_puts(&lw->code, " * (");
    put_expr(lw, &lw->code, idx);
    sdb_buf_puts(&lw->code, " if ");
    put_expr(lw, &lw->code, idx);
    sdb_buf_puts(&lw->code, " >= 0 else ");
    put_expr(lw, &lw->code, sdb_add(idx, t->sizes[dim]));
    sdb_buf_printf(&lw->code, ")  # DynamicSelectStorageOffset %s\n", b->name);
    /* out of memory: the code fails as incomplete */
    if (!sdb_map_put(&lw->bound, s, (void *)s)) lw->code.failed = true;
  }
  buffer_event(lw, b);
  flush_asserts(lw);
  return SDB_OK;
}

static void binding_check_event(lowering *lw, bool ok, const sdb_node *n, const char *detail) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_BINDING_CHECK;
  e.flags = ok;
  e.text = n->name;
  e.detail = detail;
  sdb_emit(lw->ev, &e);
}

/* seed 003's invariant: every binding of the node is defined by its buffers */
static int check_invariant(lowering *lw, const sdb_node *n, size_t first_buf, sdb_err *err) {
  if (!sdb_node_bindings(n)->n) return SDB_OK;
  sdb_buf have = SDB_BUF_INIT, want = SDB_BUF_INIT, bufs = SDB_BUF_INIT;
  const sdb_expr *missing = NULL;
  for (size_t i = 0; i < sdb_node_bindings(n)->n; i++) {
    const sdb_expr *s = sdb_resolve_renamed(lw->env, sdb_node_bindings(n)->v[i].sym);
    sdb_buf_printf(&want, "%s%s", i ? ", " : "", s->name);
    bool found = false;
    for (size_t k = first_buf; k < lw->out->n && !found; k++)
      for (size_t d = 0; d < lw->out->bufs[k].ndefines && !found; d++)
        found = sdb_resolve_renamed(lw->env, lw->out->bufs[k].defines[d].sym) == s;
    if (!found && !missing) missing = s;
  }
  int nh = 0;
  for (size_t k = first_buf; k < lw->out->n; k++) {
    const sdb_ibuf *b = &lw->out->bufs[k];
    sdb_buf_printf(&bufs, "  %s = %s(...)  # defines {", b->name, sdb_ibuf_kind_name(b->kind));
    for (size_t d = 0; d < b->ndefines; d++) {
      const sdb_expr *s = sdb_resolve_renamed(lw->env, b->defines[d].sym);
      sdb_buf_printf(&bufs, "%s%s", d ? ", " : "", s->name);
      sdb_buf_printf(&have, "%s%s", nh++ ? ", " : "", s->name);
    }
    sdb_buf_puts(&bufs, "}\n");
  }
  int rc = SDB_OK;
  if (missing) {
    char *line = sdb_node_str(n);
    rc = sdb_err_set(err, SDB_E_INVARIANT, "AssertionError",
                     "failed {%s} >= {%s} (inductor >= fx)\nfx node is: %s\n"
                     "unbacked symbol %s bound by node '%s' is not defined by the buffers its "
                     "lowering produced; new operations are:\n\n%s",
                     sdb_buf_cstr(&have), sdb_buf_cstr(&want), line ? line : n->name, missing->name,
                     n->name, bufs.len ? sdb_buf_cstr(&bufs) : "  (none)\n");
    free(line);
    binding_check_event(lw, false, n, err ? err->msg : "failed");
  } else {
    char *d = NULL;
    sdb_buf msg = SDB_BUF_INIT;
    sdb_buf_printf(&msg, "{%s} defined by %s", sdb_buf_cstr(&want), sdb_buf_cstr(&have));
    d = sdb_buf_take(&msg);
    if (!d || want.failed || have.failed) sdb_events_note_lost(lw->ev);   /* its detail */
    binding_check_event(lw, true, n, d);
    free(d);
  }
  sdb_buf_free(&have);
  sdb_buf_free(&want);
  sdb_buf_free(&bufs);
  return rc;
}

/* --- lowering one node ---------------------------------------------------------------- */

/* process_kernel: run the op again on fresh fake inputs (as Inductor does,
** since it may have changed strides). New unbacked symbols are renamed
** back to the node's; one nothing renames (a memo the retrace could not
** see) "rides", with a deferred assert that it equals the old value. */
static int repropagate(lowering *lw, const sdb_node *n, const sdb_op *op, sdb_ibuf *mo,
                       sdb_err *err) {
  sdb_value vals[16];
  sdb_kwarg kws[16];
  size_t npos = 0, nkw = 0;
  int rc = SDB_OK;
  for (size_t i = 0; i < n->nargs && i < 16; i++) {
    const sdb_arg *a = &n->args[i];
    sdb_value v = SDB_VALUE_NONE;
    if (a->kind == SDB_A_NODE) {
      const sdb_value *ex = &a->node->example;
      if (ex->kind == SDB_V_TENSOR) {
        const sdb_fake *t = ex->tensor;
        sdb_fake *fresh = sdb_fake_new_strided(lw->mode, t->dtype, sdb_fake_device(t), t->sizes,
                                               sdb_fake_strides(t), t->ndim, sdb_fake_offset(t), NULL);
        if (!fresh) { rc = oom(err); goto out; }
        v = sdb_value_tensor(fresh);
        sdb_fake_unref(fresh);
      } else {
        v = sdb_value_copy(ex);
      }
    } else if (a->kind == SDB_A_CONST) {
      sdb_value c = sdb_arg_value(a);
      v = sdb_value_copy(&c);
    }
    if (sdb_node_kw(n, i)) { kws[nkw].name = sdb_node_kw(n, i); kws[nkw++].value = v; }
    else vals[npos++] = v;
  }
  sdb_args args = {vals, npos, kws, nkw};
  sdb_value nv = SDB_VALUE_NONE;
  if ((rc = sdb_op_call(lw->mode, op, &args, &nv, err))) goto out;
  rc = sdb_rebind_unbacked(lw->env, sdb_node_bindings(n), &nv, "process_kernel re-propagation", err);
  if (rc == SDB_OK) {
    sdb_bindings found;   /* set, even on an error, and then the buffer's to free */
    rc = sdb_compute_unbacked_bindings(lw->env, &nv, false, &found, err);
    mo->defines = found.v;
    mo->ndefines = (uint32_t)found.n;
  }
  /* symbols that nothing renamed: a memo hit in the trace made them one */
  for (size_t i = 0; rc == SDB_OK && i < mo->ndefines; i++) {
    const sdb_expr *fresh = mo->defines[i].sym;
    if (sdb_resolve_renamed(lw->env, fresh) != fresh) continue;
    const sdb_expr *old = sdb_keypath_get(lw->env, &n->example, mo->defines[i].path, NULL);
    if (!old || old == fresh || !sdb_has_unbacked(lw->env, old)) continue;
    const sdb_expr *eq = sdb_eq(sdb_simplify(lw->env, old), fresh);
    if (!eq) { rc = sdb_err_expr(err); break; }
    rc = sdb_check(lw->env, eq, "the memoized call and the re-propagated one agree", err);
    if (rc == SDB_OK) {
      char *es = sdb_expr_str(eq);
      sdb_buf m = SDB_BUF_INIT;
      sdb_buf_printf(&m, "Runtime assertion failed for expression %s (a memoized %s call and its re-propagation agree)",
                     es ? es : "?", op->name);
      free(es);
      if (!add_assert(lw, eq, sdb_buf_cstr(&m))) rc = oom(err);
      sdb_buf_free(&m);
    }
  }
  sdb_value_free(&nv);
out:
  for (size_t i = 0; i < npos; i++) sdb_value_free(&vals[i]);
  for (size_t i = 0; i < nkw; i++) sdb_value_free(&kws[i].value);
  return rc;
}

static int lower_node(lowering *lw, const sdb_node *n, sdb_err *err) {
  sdb_buf *c = &lw->code;
  size_t first = lw->out->n;
  const char *t = n->target;
  if (n->op == SDB_N_PLACEHOLDER || n->op == SDB_N_GET_ATTR || n->op == SDB_N_OUTPUT) return SDB_OK;
  if (!strcmp(t, "torch.ops.aten._assert_scalar.default")) {
    const sdb_node *cond = n->nargs && n->args[0].kind == SDB_A_NODE ? n->args[0].node : NULL;
    const char *msg = n->nargs > 1 && n->args[1].kind == SDB_A_CONST && n->args[1].vkind == SDB_V_STR
                    ? n->args[1].str : "assertion";
    if (cond && cond->example.expr && !add_assert(lw, cond->example.expr, msg)) return oom(err);
    flush_asserts(lw);
    return SDB_OK;
  }
  if (n->example.kind != SDB_V_TENSOR && n->example.kind != SDB_V_TUPLE &&
      strcmp(t, "torch.ops.aten._local_scalar_dense.default") && strcmp(t, "torch.ops.aten.copy_.default")) {
    /* a SymInt computed from others: Inductor keeps it as an expression */
    return SDB_OK;
  }
  bool planted = lw->opts && lw->opts->plant_missing_binding &&
                 !strcmp(lw->opts->plant_missing_binding, n->name);
  if (!strcmp(t, "torch.ops.aten.copy_.default")) {
    sdb_ibuf *b = new_buf(lw, SDB_IB_MUTATION, n);
    if (!b) return oom(err);
    sdb_buf_printf(c, "    %s.copy_(%s)  # input mutation\n", ref_of(lw, n->args[0].node), ref_of(lw, n->args[1].node));
    buffer_event(lw, b);
    return SDB_OK;
  }
  if (!strcmp(t, "operator.getitem")) {
    /* an element of a Conditional is the MultiOutput the cond made for it */
    uintptr_t mo = n->nargs > 1 && n->args[0].kind == SDB_A_NODE
                 ? (uintptr_t)sdb_map_get(&lw->cond_out, n->args[0].node) : 0;
    int64_t idx = 0;
    sdb_value i1 = n->nargs > 1 ? sdb_arg_value(&n->args[1]) : SDB_VALUE_NONE;
    if (mo && sdb_value_is_const_int(&i1, &idx) && idx >= 0) {
      set_ref(lw, n, lw->out->bufs[mo - 1 + (size_t)idx].name);
      return SDB_OK;
    }
    /* an element of a multi-output kernel: a MultiOutput buffer */
    sdb_ibuf *b = new_buf(lw, SDB_IB_MULTIOUTPUT, n);
    if (!b) return oom(err);
    int64_t k = 0;
    sdb_value_is_const_int(&i1, &k);
    sdb_buf_printf(c, "    %s = %s[%lld]  # MultiOutput", b->name, ref_of(lw, n->args[0].node), (long long)k);
    put_meta_comment(c, &n->example);
    sdb_buf_putc(c, '\n');
    set_ref(lw, n, b->name);
    buffer_event(lw, b);
    return check_invariant(lw, n, first, err);
  }
  if (!strcmp(t, "torch.ops.higher_order.cond")) {
    sdb_ibuf *b = new_buf(lw, SDB_IB_CONDITIONAL, n);
    if (!b) return oom(err);
    sdb_buf_printf(c, "    %s = torch.cond(", b->name);
    put_args(lw, c, n);
    sdb_buf_puts(c, ")  # Conditional\n");
    buffer_event(lw, b);
    set_ref(lw, n, b->name);
    /* each output through a MultiOutput, which defines the merged symbols */
    if (!sdb_map_put(&lw->cond_out, n, (void *)(uintptr_t)(lw->out->n + 1)))
      return oom(err);   /* its getitems would lower as buffers of their own */
    for (size_t i = 0; i < n->example.n; i++) {
      sdb_ibuf *mo = new_buf(lw, SDB_IB_MULTIOUTPUT, n);
      if (!mo) return oom(err);
      const char *cond_name = lw->out->bufs[first].name;
      sdb_buf_printf(c, "    %s = %s[%zu]  # MultiOutput", mo->name, cond_name, i);
      put_meta_comment(c, &n->example.items[i]);
      sdb_buf_putc(c, '\n');
      if (!planted) {
        for (size_t k = 0; k < sdb_node_bindings(n)->n; k++) {
          const sdb_keypath *p = sdb_node_bindings(n)->v[k].path;
          if (!p->n || p->k[0].kind != SDB_KEY_INDEX || p->k[0].index != (int64_t)i) continue;
          sdb_keypath rest = *p;   /* the path inside output i */
          memmove(&rest.k[0], &rest.k[1], (size_t)(rest.n - 1) * sizeof rest.k[0]);
          rest.n--;
          sdb_binding bd = {sdb_node_bindings(n)->v[k].sym, sdb_keypath_intern(&rest)};
          if (!bd.path) return oom(err);
          sdb_binding *v = realloc(mo->defines, (mo->ndefines + 1) * sizeof *v);
          if (!v) return oom(err);
          mo->defines = v;
          mo->defines[mo->ndefines++] = bd;
        }
      }
      buffer_event(lw, mo);
      codegen_defs(lw, mo);
    }
    return check_invariant(lw, n, first, err);
  }
  const sdb_op *op = op_of_aten(t);
  if (!op) return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                              "lowering: no lowering for %s (%s)", n->name, t);
  if (!strcmp(op->name, "item")) {
    sdb_ibuf *b = new_buf(lw, SDB_IB_DYNAMIC_SCALAR, n);
    if (!b) return oom(err);
    if (!planted && !take_defines(b, sdb_node_bindings(n))) return oom(err);
    buffer_event(lw, b);
    set_ref(lw, n, b->name);
    /* DynamicScalar reads its input; the buffer itself is never used */
    const char *src = n->nargs ? ref_of(lw, n->args[0].node) : "?";
    for (size_t i = 0; i < b->ndefines; i++) {
      const sdb_expr *s = sdb_resolve_renamed(lw->env, b->defines[i].sym);
      sdb_buf_printf(c, "    %s = %s.item()  # DynamicScalar %s\n", s->name, src, b->name);
      /* out of memory: the code fails as incomplete */
      if (!sdb_map_put(&lw->bound, s, (void *)s)) lw->code.failed = true;
    }
    sdb_buf_printf(c, "    %s = None\n", b->name);
    flush_asserts(lw);
    return check_invariant(lw, n, first, err);
  }
  if (op->flags & SDB_OP_DATA_DEPENDENT) {
    sdb_ibuf *fb = new_buf(lw, SDB_IB_FALLBACK, n);
    if (!fb) return oom(err);
    sdb_buf_printf(c, "    %s = %s(", fb->name, t);
    put_args(lw, c, n);
    sdb_buf_puts(c, ")  # FallbackKernel\n");
    buffer_event(lw, fb);
    sdb_ibuf *mo = new_buf(lw, SDB_IB_MULTIOUTPUT, n);
    if (!mo) return oom(err);
    fb = &lw->out->bufs[first];   /* new_buf may have moved it */
    int rc = repropagate(lw, n, op, mo, err);
    if (rc) return rc;
    if (planted) {
      free(mo->defines);
      mo->defines = NULL;
      mo->ndefines = 0;
    }
    sdb_buf_printf(c, "    %s = %s  # MultiOutput", mo->name, fb->name);
    put_meta_comment(c, &n->example);
    sdb_buf_putc(c, '\n');
    buffer_event(lw, mo);
    set_ref(lw, n, mo->name);
    codegen_defs(lw, mo);
    return check_invariant(lw, n, first, err);
  }
  sdb_ibuf_kind kind = buffer_kind(op);
  if (kind == SDB_IB_VIEW && !strcmp(op->name, "select") && sdb_node_bindings(n)->n && !planted) {
    int rc = dynamic_select_offset(lw, n, err);
    if (rc) return rc;
  }
  sdb_ibuf *b = new_buf(lw, kind, n);
  if (!b) return oom(err);
  if (kind == SDB_IB_VIEW && n->example.kind == SDB_V_TENSOR) {
    const sdb_fake *v = n->example.tensor;
    sdb_buf_cat(c, "    ", b->name, " = reinterpret_tensor(", n->nargs ? ref_of(lw, n->args[0].node) : "?",
                ", ", (const char *)NULL);
    put_shape(lw, c, v->sizes, v->ndim);
    sdb_buf_puts(c, ", ");
    put_shape(lw, c, sdb_fake_strides(v), v->ndim);
    sdb_buf_puts(c, ", ");
    put_expr(lw, c, sdb_fake_offset(v));
    sdb_buf_puts(c, ")  # ReinterpretView\n");
  } else {
    const char *prefix = kind == SDB_IB_EXTERN ? "extern_kernels." : kind == SDB_IB_REDUCTION ? "reduction_" : "pointwise_";
    sdb_buf_cat(c, "    ", b->name, " = ", prefix, op->name, "(", (const char *)NULL);
    put_args(lw, c, n);
    sdb_buf_cat(c, ")  # ", sdb_ibuf_kind_name(kind), (const char *)NULL);
    put_meta_comment(c, &n->example);
    sdb_buf_putc(c, '\n');
  }
  buffer_event(lw, b);
  set_ref(lw, n, b->name);
  return check_invariant(lw, n, first, err);
}

static void phase(sdb_events *ev, sdb_event_kind k) {
  sdb_events_set_phase(ev, SDB_PHASE_LOWER);
  sdb_event_in e = {0};
  e.kind = k;
  e.text = "inductor";
  sdb_emit(ev, &e);
}

int sdb_lower(sdb_fake_mode *mode, const sdb_graph *aot, const sdb_lower_opts *opts,
              sdb_lowered *out, sdb_err *err) {
  memset(out, 0, sizeof *out);
  lowering lw;
  memset(&lw, 0, sizeof lw);
  lw.mode = mode;
  lw.env = mode->env;
  lw.ev = sdb_shape_env_events(mode->env);
  lw.opts = opts;
  lw.out = out;
  ref_slots(&lw, aot);
  phase(lw.ev, SDB_EV_PHASE_START);
  sdb_events_set_tracer(lw.ev, "lower", 0);
  /* the signature: inputs, and backed symbols bound from them */
  size_t np = sdb_graph_num_placeholders(aot);
  sdb_buf_puts(&lw.code, "def call(args):\n    ");
  for (size_t i = 0; i < np; i++) sdb_buf_printf(&lw.code, "%s%s", i ? ", " : "", aot->nodes[i]->name);
  sdb_buf_printf(&lw.code, "%s = args\n    args.clear()\n", np == 1 ? "," : "");
  for (size_t i = 0; i < np; i++) {
    const sdb_node *ph = aot->nodes[i];
    set_ref(&lw, ph, ph->name);
    if (ph->example.kind == SDB_V_INT && ph->example.expr && ph->example.expr->kind == SDB_SYM) {
      sdb_buf_printf(&lw.code, "    %s = %s\n", ph->example.expr->name, ph->name);
      if (!sdb_map_put(&lw.bound, ph->example.expr, (void *)ph->example.expr)) lw.code.failed = true;
    }
  }
  int rc = SDB_OK;
  for (size_t i = np; i < aot->n && rc == SDB_OK; i++) {
    sdb_events_push_op_ref(lw.ev, aot->nodes[i]->name_ref);
    sdb_loc at = sdb_node_loc(aot->nodes[i]);
    sdb_events_push_loc(lw.ev, &at);
    rc = lower_node(&lw, aot->nodes[i], err);
    if (rc && err && !err->file && at.file) {   /* at the user's line */
      err->file = at.file;
      err->line = at.line;
    }
    sdb_events_pop_loc(lw.ev);
    sdb_events_pop_op(lw.ev);
  }
  if (rc == SDB_OK) {
    flush_asserts(&lw);
    const sdb_node *o = sdb_graph_output_node(aot);
    sdb_buf_puts(&lw.code, "    return (");
    if (o && o->nargs && o->args[0].kind == SDB_A_SEQ)
      for (size_t i = 0; i < o->args[0].n; i++) {
        put_arg(&lw, &lw.code, &o->args[0].items[i], NULL);
        sdb_buf_puts(&lw.code, ", ");
      }
    sdb_buf_puts(&lw.code, ")\n");
    out->wrapper = sdb_buf_take(&lw.code);
    if (!out->wrapper) rc = oom(err);   /* the code, or a piece of it, found no memory */
  }
  sdb_buf_free(&lw.code);
  sdb_map_free(&lw.ref);
  free(lw.refv);
  sdb_map_free(&lw.cond_out);
  sdb_map_free(&lw.bound);
  free(lw.asserts);
  sdb_events_set_tracer(lw.ev, "trace", 0);
  if (rc == SDB_OK) phase(lw.ev, SDB_EV_PHASE_END);
  return rc;
}
