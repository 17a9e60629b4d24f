/*
** test_view.c — the debugger's state as a fold of the event stream
** (core/view): pending, symbols, explain, status and diff texts, tracer and
** phase stacks, compiles, seeking both ways, forks, and a 100k-event seek
** timing. Streams are built two ways: by hand with sdb_emit_raw (exact
** control over every field), and by driving the real core (ShapeEnv, fake
** tensors, ops, tracer), whose live state the view must agree with.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "fake.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"
#include "tracer.h"
#include "view.h"

/* --- building streams by hand ----------------------------------------------- */

typedef struct {
  sdb_events *s;
  sdb_phase phase;
  const char *tracer;
  const char *file;
  int line;
  const char *func;
  const char *op;
} builder;

static sdb_event ev(sdb_event_kind k) {
  sdb_event e;
  memset(&e, 0, sizeof e);
  e.kind = (uint16_t)k;
  return e;
}

static void put(builder *b, sdb_event e) {
  e.phase = (uint8_t)b->phase;
  e.tracer = b->tracer;
  e.file = b->file;
  e.line = b->line;
  e.func = b->func;
  e.op = b->op;
  assert_true(sdb_emit_raw(b->s, &e) >= 0);
}

static const sdb_expr *S(const char *name) { return sdb_sym(name); }

static const sdb_expr *P(const char *text) {
  char err[128];
  const sdb_expr *e = sdb_parse(text, err, sizeof err);
  if (!e) fail_msg("parse %s: %s", text, err);
  return e;
}

static void phase_start(builder *b, sdb_phase p, const char *text) {
  b->phase = p;
  sdb_event e = ev(SDB_EV_PHASE_START);
  e.text = text;
  put(b, e);
}

static void phase_end(builder *b, const char *text) {
  sdb_event e = ev(SDB_EV_PHASE_END);
  e.text = text;
  put(b, e);
}

static void tracer_push(builder *b, const char *path, int depth) {
  b->tracer = path;
  sdb_event e = ev(SDB_EV_TRACER_PUSH);
  e.text = path;
  e.value = depth;
  put(b, e);
}

static void tracer_pop(builder *b, const char *path, int depth, const char *parent) {
  sdb_event e = ev(SDB_EV_TRACER_POP);
  e.text = path;
  e.value = depth;
  put(b, e);
  b->tracer = parent;
}

static void create_symbol(builder *b, const char *sym, int64_t hint, const char *source,
                          bool duck) {
  sdb_event e = ev(SDB_EV_CREATE_SYMBOL);
  e.sym = S(sym);
  e.value = hint;
  e.text = source;
  e.range = sdb_range_make(2, SDB_PINF);
  e.has_range = true;
  if (duck) { e.flags = 1; e.detail = "duck sized"; }
  put(b, e);
}

static void create_unbacked(builder *b, const char *sym, int64_t lo, int64_t hi) {
  sdb_event e = ev(SDB_EV_CREATE_UNBACKED);
  e.sym = S(sym);
  e.range = sdb_range_make(lo, hi);
  e.has_range = true;
  e.text = "int";
  put(b, e);
}

static void pending(builder *b, const char *a, const char *c) {
  const sdb_expr *syms[2];
  uint32_t n = 0;
  if (a) syms[n++] = S(a);
  if (c) syms[n++] = S(c);
  sdb_event e = ev(SDB_EV_PENDING_CHANGED);
  e.syms = syms;
  e.nsyms = n;
  put(b, e);
}

static void node(builder *b, const char *name, const char *line, int id) {
  sdb_event e = ev(SDB_EV_NODE_PLACED);
  e.text = name;
  e.detail = line;
  e.value = id;
  put(b, e);
}

static void bindings(builder *b, const char *node_name, const char *sym, const char *path) {
  const sdb_expr *syms[1] = {S(sym)};
  const char *texts[1] = {path};
  sdb_event e = ev(SDB_EV_UNBACKED_BINDINGS);
  e.text = node_name;
  e.syms = syms;
  e.texts = texts;
  e.nsyms = 1;
  put(b, e);
}

static void with_sym(builder *b, sdb_event_kind k, const char *sym, const char *text,
                     const char *detail) {
  sdb_event e = ev(k);
  e.sym = sym ? S(sym) : NULL;
  e.text = text;
  e.detail = detail;
  put(b, e);
}

static void with_expr(builder *b, sdb_event_kind k, const char *sym, const char *expr,
                      const char *detail) {
  sdb_event e = ev(k);
  e.sym = sym ? S(sym) : NULL;
  e.expr = P(expr);
  e.detail = detail;
  put(b, e);
}

static void range_refined(builder *b, const char *sym, int64_t lo, int64_t hi, const char *why) {
  sdb_event e = ev(SDB_EV_RANGE_REFINED);
  e.sym = S(sym);
  e.range = sdb_range_make(lo, hi);
  e.has_range = true;
  e.detail = why;
  put(b, e);
}

static void renamed(builder *b, const char *from, const char *to, const char *why) {
  sdb_event e = ev(SDB_EV_RENAMED);
  e.sym = S(from);
  e.sym2 = S(to);
  e.detail = why;
  put(b, e);
}

static void buffer(builder *b, const char *name, const char *detail, const char *sym) {
  const sdb_expr *syms[1] = {sym ? S(sym) : NULL};
  sdb_event e = ev(SDB_EV_BUFFER_LOWERED);
  e.text = name;
  e.detail = detail;
  e.syms = sym ? syms : NULL;
  e.nsyms = sym ? 1 : 0;
  put(b, e);
}

/* seed 001 end to end, as scripts/nonzero.lua with the inductor backend:
** trace (u0 created, pending, bound, checked), aot (u1 renamed to u0),
** lower (buf1 defines u0), guards. Event numbers in the comments. */
static void nonzero_stream(builder *b) {
  b->file = "scripts/nonzero.lua";
  b->line = 12;
  b->func = NULL;
  phase_start(b, SDB_PHASE_TRACE, "model");                    /* 0 */
  with_sym(b, SDB_EV_FAKE_MODE_CREATED, NULL, "trace", NULL);  /* 1 */
  tracer_push(b, "trace", 0);                                  /* 2 */
  create_symbol(b, "s0", 5, "L['x'].size()[0]", false);        /* 3 */
  b->line = 6;
  b->func = "model";
  b->op = "nonzero";
  create_unbacked(b, "u0", 0, 10);                             /* 4 */
  pending(b, "u0", NULL);                                      /* 5 */
  node(b, "nonzero", "nonzero: \"i64[u0, 2]\" = l_x_.nonzero()", 3);  /* 6 */
  bindings(b, "nonzero", "u0", ".size()[0]");                  /* 7 */
  pending(b, NULL, NULL);                                      /* 8 */
  b->op = "_check_is_size";
  b->line = 7;
  with_sym(b, SDB_EV_SIZE_LIKE, "u0", NULL, NULL);             /* 9 */
  b->op = NULL;
  b->line = 8;
  with_expr(b, SDB_EV_RUNTIME_ASSERT, "u0", "u0 >= 1", NULL);  /* 10 */
  range_refined(b, "u0", 1, 10, "u0 >= 1");                    /* 11 */
  b->line = 9;
  with_expr(b, SDB_EV_GUARD_ADDED, NULL, "s0 > 2", NULL);      /* 12 */
  range_refined(b, "s0", 3, SDB_PINF, NULL);                   /* 13 */
  b->line = 12;
  b->func = NULL;
  phase_end(b, "model");                                       /* 14 */
  phase_start(b, SDB_PHASE_AOT, "aot_autograd");               /* 15 */
  b->op = "nonzero";
  create_unbacked(b, "u1", 0, 10);                             /* 16 */
  pending(b, "u1", NULL);                                      /* 17 */
  node(b, "nonzero", "nonzero: \"i64[u1, 2]\" = torch.ops.aten.nonzero.default(arg1_1)", 2); /* 18 */
  bindings(b, "nonzero", "u1", ".size()[0]");                  /* 19 */
  pending(b, NULL, NULL);                                      /* 20 */
  with_expr(b, SDB_EV_REPLACEMENT_ADDED, "u1", "u0", "rename_unbacked_to"); /* 21 */
  renamed(b, "u1", "u0", "aot retrace");                       /* 22 */
  b->op = NULL;
  with_expr(b, SDB_EV_GUARD_ADDED, NULL, "s0 <= 100", NULL);   /* 23 */
  phase_end(b, "aot_autograd");                                /* 24 */
  phase_start(b, SDB_PHASE_LOWER, "inductor");                 /* 25 */
  b->op = "nonzero";
  buffer(b, "buf0", "FallbackKernel for nonzero", NULL);       /* 26 */
  buffer(b, "buf1", "MultiOutput for nonzero", "u0");          /* 27 */
  sdb_event c = ev(SDB_EV_BINDING_CHECK);
  c.flags = 1;
  c.text = "nonzero";
  c.detail = "{u0} defined by u0";
  put(b, c);                                                   /* 28 */
  b->op = NULL;
  phase_end(b, "inductor");                                    /* 29 */
  phase_start(b, SDB_PHASE_GUARDS, "model");                   /* 30 */
  sdb_event g = ev(SDB_EV_GUARDS_INSTALLED);
  g.value = 2;
  g.detail = "2 < L['x'].size()[0]\nL['x'].size()[0] <= 100";
  put(b, g);                                                   /* 31 */
  phase_end(b, "model");                                       /* 32 */
  b->phase = SDB_PHASE_NONE;
}

static sdb_view *fold(const sdb_events *s, size_t k) {
  sdb_view *v = sdb_view_new();
  assert_non_null(v);
  for (size_t i = 0; i < k; i++) assert_int_equal(sdb_view_apply(v, sdb_events_at(s, i)), 0);
  assert_int_equal(sdb_view_step(v), k);
  return v;
}

static void check_text(char *got, const char *want) {
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static char *pending_str(const sdb_view *v) {
  const sdb_expr *const *p;
  size_t n = sdb_view_pending(v, &p);
  char buf[256] = "{";
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(buf, ", ");
    strcat(buf, p[i]->name);
  }
  strcat(buf, "}");
  return strdup(buf);
}

/* --- tests ------------------------------------------------------------------------ */

/* seed 001's binding site step by step: u0 pending from its creation to
** the pending_changed after its node's unbacked_bindings */
static void test_pending_steps(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  nonzero_stream(&b);
  static const char *const want[] = {
    "{}", "{}", "{}", "{}", "{}", "{}",   /* steps 0-5: before pending_changed {u0} */
    "{u0}", "{u0}", "{u0}",               /* created .. bound */
    "{}",                                 /* after pending_changed {} */
  };
  sdb_view *v = sdb_view_new();
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    if (k) assert_int_equal(sdb_view_apply(v, sdb_events_at(b.s, k - 1)), 0);
    check_text(pending_str(v), want[k]);
  }
  /* the status at each of those stops */
  sdb_view_seek(v, 6);
  check_text(sdb_view_status(v),
    "step 6, event 5: trace  nonzero.lua:6    pending_changed {u0}\n"
    "phase trace, tracer trace, compile 1\n"
    "pending: {u0}\n"
    "symbols 2 (1 unbacked), guards 0, runtime asserts 0, replacements 0, bindings 0\n");
  sdb_view_seek(v, 8);
  check_text(sdb_view_status(v),
    "step 8, event 7: trace  nonzero.lua:6    unbacked_bindings %nonzero u0: .size()[0]\n"
    "phase trace, tracer trace, compile 1\n"
    "pending: {u0}\n"
    "symbols 2 (1 unbacked), guards 0, runtime asserts 0, replacements 0, bindings 1\n");
  sdb_view_seek(v, 9);
  check_text(sdb_view_status(v),
    "step 9, event 8: trace  nonzero.lua:6    pending_changed {}\n"
    "phase trace, tracer trace, compile 1\n"
    "pending: {}\n"
    "symbols 2 (1 unbacked), guards 0, runtime asserts 0, replacements 0, bindings 1\n");
  sdb_view_seek(v, 0);
  check_text(sdb_view_status(v),
    "step 0: no events\n"
    "phase none, tracer -, compile 0\n"
    "pending: {}\n"
    "symbols 0 (0 unbacked), guards 0, runtime asserts 0, replacements 0, bindings 0\n");
  /* the nodes and the binding recorded on the node */
  sdb_view_seek(v, 7);
  sdb_view_node n;
  assert_int_equal(sdb_view_graph_count(v), 1);
  assert_string_equal(sdb_view_graph_at(v, 0), "trace");
  assert_int_equal(sdb_view_node_count(v, "trace"), 1);
  assert_true(sdb_view_node_at(v, "trace", 0, &n));
  assert_string_equal(n.name, "nonzero");
  assert_string_equal(n.line, "nonzero: \"i64[u0, 2]\" = l_x_.nonzero()");
  assert_int_equal(n.id, 3);
  assert_null(n.bindings);          /* not yet: event 7 is not applied */
  assert_true(sdb_view_seek(v, 8));
  assert_true(sdb_view_node_at(v, "trace", 0, &n));
  assert_non_null(n.bindings);
  assert_int_equal(n.bindings->seq, 7);
  assert_false(sdb_view_node_at(v, "trace", 1, &n));
  assert_int_equal(sdb_view_node_count(v, "aot"), 0);
  sdb_view_free(v);
  sdb_events_free(b.s);
}

static void test_explain_life(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  nonzero_stream(&b);
  size_t n = sdb_events_count(b.s);
  sdb_view *v = fold(b.s, n);
  check_text(sdb_view_explain(v, S("u0")),
    "u0: unbacked int, created by nonzero at nonzero.lua:6 in model (trace phase, event 4), range [1, 10]\n"
    "  pending from event 5 until node nonzero (event 8)\n"
    "  bound at %nonzero: .size()[0] (trace phase, event 7)\n"
    "  size-like (event 9)\n"
    "  in runtime assert u0 >= 1 (trace phase, nonzero.lua:8, event 10)\n"
    "  range [1, 10] (u0 >= 1, event 11)\n"
    "  renamed: u1 -> u0 (aot retrace, event 22)\n"
    "  defined by buf1 (MultiOutput for nonzero, event 27)\n");
  check_text(sdb_view_explain(v, S("u1")),
    "u1: unbacked int, created by nonzero at nonzero.lua:12 (aot phase, event 16), range [0, 10]\n"
    "  pending from event 17 until node nonzero (event 20)\n"
    "  bound at %nonzero: .size()[0] (aot phase, event 19)\n"
    "  replaced by u0 (rename_unbacked_to, aot phase, event 21)\n"
    "  renamed: u1 -> u0 (aot retrace, event 22)\n");
  check_text(sdb_view_explain(v, S("s0")),
    "s0: backed int, hint 5, source L['x'].size()[0], created at nonzero.lua:12 (trace phase, event 3), range [3, int_oo]\n"
    "  in guard s0 > 2 (trace phase, nonzero.lua:9, event 12)\n"
    "  range [3, int_oo] (event 13)\n"
    "  in guard s0 <= 100 (aot phase, nonzero.lua:12, event 23)\n");
  check_text(sdb_view_explain(v, S("u9")), "u9: not seen at this step\n");
  /* earlier: still pending, nothing after */
  sdb_view_seek(v, 8);
  check_text(sdb_view_explain(v, S("u0")),
    "u0: unbacked int, created by nonzero at nonzero.lua:6 in model (trace phase, event 4), range [0, 10]\n"
    "  pending since event 5\n"
    "  bound at %nonzero: .size()[0] (trace phase, event 7)\n");
  check_text(sdb_view_explain(v, S("u1")), "u1: not seen at this step\n");
  /* the record behind the text */
  sdb_view_seek(v, n);
  sdb_view_sym s;
  assert_true(sdb_view_symbol(v, S("u0"), &s));
  assert_true(s.created && s.unbacked && s.size_like && !s.pending && s.has_range);
  assert_string_equal(s.type, "int");
  assert_int_equal(s.range.lo, 1);
  assert_int_equal(s.range.hi, 10);
  assert_int_equal(s.creation->seq, 4);
  assert_int_equal(s.binding->seq, 7);
  assert_string_equal(s.keypath, ".size()[0]");
  assert_null(s.replacement);
  assert_int_equal(s.nevents, 9);
  assert_int_equal(sdb_view_symbol_event(v, S("u0"), 8)->seq, 27);
  assert_null(sdb_view_symbol_event(v, S("u0"), 9));
  assert_true(sdb_view_symbol(v, S("u1"), &s));
  assert_true(s.replacement == S("u0"));
  assert_true(sdb_view_symbol(v, S("s0"), &s));
  assert_true(s.has_hint && !s.unbacked);
  assert_int_equal(s.hint, 5);
  assert_string_equal(s.source, "L['x'].size()[0]");
  assert_int_equal(s.nsources, 1);
  assert_false(sdb_view_symbol(v, S("u9"), &s));
  sdb_view_free(v);
  sdb_events_free(b.s);
}

static void test_lists_and_phases(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  nonzero_stream(&b);
  size_t n = sdb_events_count(b.s);
  sdb_timeline *t = sdb_timeline_new(b.s);
  assert_int_equal(sdb_timeline_length(t), n);
  assert_null(sdb_timeline_seek(t, n + 1));
  /* phases and the tracer across the compile */
  static const struct { size_t k; sdb_phase p; const char *text; const char *tracer; } at[] = {
    {0, SDB_PHASE_NONE, NULL, NULL},         {1, SDB_PHASE_TRACE, "model", NULL},
    {3, SDB_PHASE_TRACE, "model", "trace"},  {14, SDB_PHASE_TRACE, "model", "trace"},
    {15, SDB_PHASE_NONE, NULL, NULL},        {16, SDB_PHASE_AOT, "aot_autograd", NULL},
    {26, SDB_PHASE_LOWER, "inductor", NULL}, {31, SDB_PHASE_GUARDS, "model", NULL},
    {33, SDB_PHASE_NONE, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
    const sdb_view *v = sdb_timeline_seek(t, at[i].k);
    assert_int_equal(sdb_view_phase(v), at[i].p);
    if (at[i].text) assert_string_equal(sdb_view_phase_text(v), at[i].text);
    else assert_null(sdb_view_phase_text(v));
    if (at[i].tracer) assert_string_equal(sdb_view_tracer(v), at[i].tracer);
    else assert_null(sdb_view_tracer(v));
  }
  /* guards with their phase and line */
  const sdb_view *v = sdb_timeline_seek(t, n);
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), 2);
  const sdb_event *g0 = sdb_view_at(v, SDB_EV_GUARD_ADDED, 0);
  const sdb_event *g1 = sdb_view_at(v, SDB_EV_GUARD_ADDED, 1);
  assert_null(sdb_view_at(v, SDB_EV_GUARD_ADDED, 2));
  assert_true(g0->expr == P("s0 > 2") && g0->phase == SDB_PHASE_TRACE && g0->line == 9 && g0->seq == 12);
  assert_true(g1->expr == P("s0 <= 100") && g1->phase == SDB_PHASE_AOT && g1->seq == 23);
  assert_int_equal(sdb_view_count(v, SDB_EV_RUNTIME_ASSERT), 1);
  assert_true(sdb_view_at(v, SDB_EV_RUNTIME_ASSERT, 0)->sym == S("u0"));
  assert_int_equal(sdb_view_count(v, SDB_EV_RENAMED), 1);
  assert_int_equal(sdb_view_count(v, SDB_EV_BUFFER_LOWERED), 2);
  assert_int_equal(sdb_view_count(v, SDB_EV_BINDING_CHECK), 1);
  assert_int_equal(sdb_view_count(v, SDB_EV_PHASE_START), 4);
  assert_int_equal(sdb_view_replacement_count(v), 1);
  assert_int_equal(sdb_view_replacement_at(v, 0)->seq, 21);
  assert_null(sdb_view_replacement_at(v, 1));
  const char *const *lines;
  assert_int_equal(sdb_view_installed_guards(v, &lines), 2);
  assert_string_equal(lines[0], "2 < L['x'].size()[0]");
  assert_string_equal(lines[1], "L['x'].size()[0] <= 100");
  /* graphs: the trace's and aot's nonzero, each with its binding */
  assert_int_equal(sdb_view_graph_count(v), 2);
  assert_string_equal(sdb_view_graph_at(v, 1), "aot");
  sdb_view_node nd;
  assert_true(sdb_view_node_at(v, "aot", 0, &nd));
  assert_int_equal(nd.bindings->seq, 19);
  assert_true(nd.bindings->syms[0] == S("u1"));
  /* symbols in the order first seen */
  assert_int_equal(sdb_view_symbol_count(v), 3);
  assert_true(sdb_view_symbol_at(v, 0) == S("s0"));
  assert_true(sdb_view_symbol_at(v, 1) == S("u0"));
  assert_true(sdb_view_symbol_at(v, 2) == S("u1"));
  assert_null(sdb_view_symbol_at(v, 3));
  v = sdb_timeline_seek(t, 12);
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), 0);
  assert_int_equal(sdb_view_installed_guards(v, &lines), 0);
  assert_int_equal(sdb_view_symbol_count(v), 2);
  assert_int_equal(sdb_view_graph_count(v), 1);
  assert_true(sdb_view_event(v)->seq == 11);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}

static void test_diff(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  nonzero_stream(&b);
  sdb_timeline *t = sdb_timeline_new(b.s);
  sdb_view *a = sdb_view_clone(sdb_timeline_seek(t, 4));
  const sdb_view *c = sdb_timeline_seek(t, 9);
  check_text(sdb_view_diff(a, c),
    "new symbol: u0 [0, 10]\n"
    "binding: u0: .size()[0] on %nonzero\n");
  check_text(sdb_view_diff(c, c), "");
  sdb_view_seek(a, 5);
  c = sdb_timeline_seek(t, 6);
  check_text(sdb_view_diff(a, c), "pending: {} -> {u0}\n");
  check_text(sdb_view_diff(c, a), "pending: {u0} -> {}\n");
  sdb_view_seek(a, 9);
  c = sdb_timeline_seek(t, 14);
  check_text(sdb_view_diff(a, c),
    "size-like: u0\n"
    "runtime assert: u0 >= 1\n"
    "range: u0 [0, 10] -> [1, 10]\n"
    "guard: s0 > 2\n"
    "range: s0 [2, int_oo] -> [3, int_oo]\n");
  check_text(sdb_view_diff(c, a),
    "undo size-like: u0\n"
    "undo runtime assert: u0 >= 1\n"
    "range: u0 [1, 10] -> [0, 10]\n"
    "undo guard: s0 > 2\n"
    "range: s0 [3, int_oo] -> [2, int_oo]\n");
  sdb_view_seek(a, 14);
  c = sdb_timeline_seek(t, 33);
  check_text(sdb_view_diff(a, c),
    "phase: trace -> none\n"
    "tracer: trace -> -\n"
    "new symbol: u1 [0, 10]\n"
    "binding: u1: .size()[0] on %nonzero\n"
    "replacement: u1 -> u0 (rename_unbacked_to)\n"
    "renamed: u1 -> u0 (aot retrace)\n"
    "guard: s0 <= 100\n"
    "buffer: buf1 (MultiOutput for nonzero) defines {u0}\n"
    "binding check ok nonzero: {u0} defined by u0\n"
    "guards installed: 2\n");
  sdb_view_free(a);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}


/* The tracer stack from push/pop; cond speculation is stamped `cond`
** inside the trace phase; lifting shows in the symbol's life. */
static void test_tracer_stack(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, "cond.lua", 3, "f", NULL};
  phase_start(&b, SDB_PHASE_TRACE, "f");                        /* 0 */
  tracer_push(&b, "trace", 0);                                  /* 1 */
  create_symbol(&b, "s0", 3, "L['x'].size()[0]", false);        /* 2 */
  b.phase = SDB_PHASE_COND;
  tracer_push(&b, "trace > cond.true_branch", 1);               /* 3 */
  node(&b, "s0", "s0: \"Sym(s0)\"", 1);                         /* 4 */
  with_sym(&b, SDB_EV_GRAPH_INPUT, "s0", "s0", "lifted from s0 in trace"); /* 5 */
  with_sym(&b, SDB_EV_SYMBOL_BOUND, "s0", "s0", NULL);         /* 6 */
  tracer_push(&b, "trace > cond.true_branch > cond.true_branch", 2); /* 7 */
  tracer_pop(&b, "trace > cond.true_branch > cond.true_branch", 2, "trace > cond.true_branch"); /* 8 */
  tracer_pop(&b, "trace > cond.true_branch", 1, "trace");      /* 9 */
  b.phase = SDB_PHASE_TRACE;
  with_sym(&b, SDB_EV_EPOCH_BUMPED, NULL, NULL, NULL);          /* 10 */
  b.phase = SDB_PHASE_COND;
  tracer_push(&b, "trace > cond.false_branch", 1);              /* 11 */
  node(&b, "cos", "cos: \"f32[s0]\" = l_x_.cos()", 1);          /* 12 */
  tracer_pop(&b, "trace > cond.false_branch", 1, "trace");     /* 13 */
  b.phase = SDB_PHASE_TRACE;
  tracer_pop(&b, "trace > nowhere", 1, "trace");               /* 14: unknown, ignored */
  phase_end(&b, "f");                                           /* 15 */
  static const struct { size_t k; const char *path; int depth; sdb_phase p; } want[] = {
    {0, NULL, -1, SDB_PHASE_NONE},
    {1, NULL, -1, SDB_PHASE_TRACE},
    {2, "trace", 0, SDB_PHASE_TRACE},
    {4, "trace > cond.true_branch", 1, SDB_PHASE_COND},
    {8, "trace > cond.true_branch > cond.true_branch", 2, SDB_PHASE_COND},
    {9, "trace > cond.true_branch", 1, SDB_PHASE_COND},
    {10, "trace", 0, SDB_PHASE_COND},        /* the pop itself is stamped cond */
    {11, "trace", 0, SDB_PHASE_TRACE},
    {12, "trace > cond.false_branch", 1, SDB_PHASE_COND},
    {14, "trace", 0, SDB_PHASE_COND},
    {15, "trace", 0, SDB_PHASE_TRACE},
    {16, NULL, -1, SDB_PHASE_NONE},
  };
  sdb_timeline *t = sdb_timeline_new(b.s);
  for (size_t i = sizeof want / sizeof *want; i-- > 0;) {   /* backwards, for once */
    const sdb_view *v = sdb_timeline_seek(t, want[i].k);
    if (want[i].path) assert_string_equal(sdb_view_tracer(v), want[i].path);
    else assert_null(sdb_view_tracer(v));
    assert_int_equal(sdb_view_depth(v), want[i].depth);
    assert_int_equal(sdb_view_phase(v), want[i].p);
  }
  const sdb_view *v = sdb_timeline_seek(t, 16);
  check_text(sdb_view_explain(v, S("s0")),
    "s0: backed int, hint 3, source L['x'].size()[0], created at cond.lua:3 in f (trace phase, event 2), range [2, int_oo]\n"
    "  graph input s0 in trace > cond.true_branch (lifted from s0 in trace, event 5)\n"
    "  bound in trace > cond.true_branch as s0 (event 6)\n");
  assert_int_equal(sdb_view_graph_count(v), 2);
  assert_string_equal(sdb_view_graph_at(v, 0), "trace > cond.true_branch");
  assert_string_equal(sdb_view_graph_at(v, 1), "trace > cond.false_branch");
  assert_int_equal(sdb_view_node_count(v, "trace > cond.false_branch"), 1);
  assert_int_equal(sdb_view_node_count(v, "trace"), 0);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}

/* Each top-level trace is a new ShapeEnv: symbols and guards start over,
** errors and installed guards are kept across compiles. Duck sizing adds a
** source; specialization and replacement to a constant. */
static void test_compiles(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, "g.lua", 8, NULL, NULL};
  phase_start(&b, SDB_PHASE_TRACE, "g");                        /* 0 */
  tracer_push(&b, "trace", 0);                                  /* 1 */
  create_symbol(&b, "s0", 5, "L['x'].size()[0]", false);        /* 2 */
  create_symbol(&b, "s0", 5, "L['y'].size()[0]", true);         /* 3 */
  with_expr(&b, SDB_EV_GUARD_ADDED, NULL, "s0 > 2", NULL);      /* 4 */
  phase_end(&b, "g");                                           /* 5 */
  phase_start(&b, SDB_PHASE_GUARDS, "g");                       /* 6 */
  sdb_event g = ev(SDB_EV_GUARDS_INSTALLED);
  g.value = 2;
  g.detail = "L['x'].size()[0] == L['y'].size()[0]\n2 < L['x'].size()[0]";
  put(&b, g);                                                   /* 7 */
  phase_end(&b, "g");                                           /* 8 */
  b.line = 9;
  phase_start(&b, SDB_PHASE_TRACE, "g");                        /* 9 */
  tracer_push(&b, "trace", 0);                                  /* 10 */
  create_symbol(&b, "s0", 2, "L['x'].size()[0]", false);        /* 11 */
  with_expr(&b, SDB_EV_GUARD_ADDED, NULL, "s0 <= 2", NULL);     /* 12 */
  range_refined(&b, "s0", 2, 2, NULL);                          /* 13 */
  sdb_event sp = ev(SDB_EV_SPECIALIZATION);
  sp.expr = sdb_int(2);
  sp.text = "L['x'].size()[0]";
  sp.detail = "range_refined_to_singleton";
  put(&b, sp);                                                  /* 14: sym NULL, as PyTorch logs it */
  sp.sym = S("s0");
  put(&b, sp);                                                  /* 15: with the symbol */
  with_expr(&b, SDB_EV_REPLACEMENT_ADDED, "s0", "2", "range_refined_to_singleton"); /* 16 */
  sdb_event er = ev(SDB_EV_ERROR);
  er.text = "ValueError";
  er.detail = "ValueError: something\nstack traceback: ...";
  put(&b, er);                                                  /* 17 */
  phase_end(&b, "g");                                           /* 18 */
  sdb_timeline *t = sdb_timeline_new(b.s);
  const sdb_view *v = sdb_timeline_seek(t, 9);
  assert_int_equal(sdb_view_compile(v), 1);
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), 1);
  check_text(sdb_view_explain(v, S("s0")),
    "s0: backed int, hint 5, source L['x'].size()[0], created at g.lua:8 (trace phase, event 2), range [2, int_oo]\n"
    "  source L['y'].size()[0] (duck sized, event 3)\n"
    "  in guard s0 > 2 (trace phase, g.lua:8, event 4)\n");
  sdb_view_sym s;
  assert_true(sdb_view_symbol(v, S("s0"), &s));
  assert_int_equal(s.nsources, 2);
  const char *const *lines;
  assert_int_equal(sdb_view_installed_guards(v, &lines), 2);
  v = sdb_timeline_seek(t, 10);
  assert_int_equal(sdb_view_compile(v), 2);
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), 0);
  assert_int_equal(sdb_view_symbol_count(v), 0);
  check_text(sdb_view_explain(v, S("s0")), "s0: not seen at this step\n");
  assert_int_equal(sdb_view_count(v, SDB_EV_PHASE_START), 3);   /* global */
  assert_int_equal(sdb_view_installed_guards(v, &lines), 2);     /* global */
  v = sdb_timeline_seek(t, 19);
  check_text(sdb_view_explain(v, S("s0")),
    "s0: backed int, hint 2, source L['x'].size()[0], created at g.lua:9 (trace phase, event 11), range [2, 2]\n"
    "  in guard s0 <= 2 (trace phase, g.lua:9, event 12)\n"
    "  range [2, 2] (event 13)\n"
    "  specialized: L['x'].size()[0] = 2 (range_refined_to_singleton, event 15)\n"
    "  replaced by 2 (range_refined_to_singleton, trace phase, event 16)\n");
  assert_int_equal(sdb_view_count(v, SDB_EV_SPECIALIZATION), 2);
  assert_int_equal(sdb_view_count(v, SDB_EV_ERROR), 1);
  sdb_view *a = sdb_view_clone(sdb_timeline_seek(t, 9));
  v = sdb_timeline_seek(t, 19);
  check_text(sdb_view_diff(a, v),
    "compile: 1 -> 2\n"
    "new symbol: s0 = 2 for L['x'].size()[0] [2, int_oo]\n"
    "guard: s0 <= 2\n"
    "range: s0 [2, int_oo] -> [2, 2]\n"
    "specialization: L['x'].size()[0] = 2 (range_refined_to_singleton)\n"
    "specialization: L['x'].size()[0] = 2 (range_refined_to_singleton)\n"
    "replacement: s0 -> 2 (range_refined_to_singleton)\n"
    "error: ValueError: something\n");
  sdb_view_free(a);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pending_steps),
    cmocka_unit_test(test_explain_life),
    cmocka_unit_test(test_lists_and_phases),
    cmocka_unit_test(test_diff),
    cmocka_unit_test(test_tracer_stack),
    cmocka_unit_test(test_compiles),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("view", tests, NULL, NULL);
  sdb_expr_reset();
  sdb_intern_reset();
  return rc;
}
