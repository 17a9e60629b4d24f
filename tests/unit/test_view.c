/*
** test_view.c — the debugger's state as a fold of the event stream
** (core/view): pending, symbols, explain, status and diff texts, tracer and
** phase stacks, compiles, seeking both ways, forks, and a 100k-event seek
** timing. Streams are built two ways: by hand with sdb_emit_raw (exact
** control over every field), and by driving the real core (ShapeEnv, fake
** tensors, ops, tracer), whose live state the view must agree with.
** Graphs and the event stream on their own are test_graph's.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"
#include "aot.h"
#include "lower.h"
#include "tracer.h"
#include "view.h"
#include "nonzero_input.h"

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

static sdb_event_in ev(sdb_event_kind k) {
  sdb_event_in e;
  memset(&e, 0, sizeof e);
  e.kind = (uint16_t)k;
  return e;
}

static void put(builder *b, sdb_event_in e) {
  e.phase = (uint8_t)b->phase;
  sdb_event_set_site(&e, sdb_site_get(b->tracer, 0, b->file, b->line, b->func));
  sdb_event_set_op(&e, b->op);
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
  sdb_event_in e = ev(SDB_EV_PHASE_START);
  e.text = text;
  put(b, e);
}

static void phase_end(builder *b, const char *text) {
  sdb_event_in e = ev(SDB_EV_PHASE_END);
  e.text = text;
  put(b, e);
}

static void tracer_push(builder *b, const char *path, int depth) {
  b->tracer = path;
  sdb_event_in e = ev(SDB_EV_TRACER_PUSH);
  e.text = path;
  e.value = depth;
  put(b, e);
}

static void tracer_pop(builder *b, const char *path, int depth, const char *parent) {
  sdb_event_in e = ev(SDB_EV_TRACER_POP);
  e.text = path;
  e.value = depth;
  put(b, e);
  b->tracer = parent;
}

static void create_symbol(builder *b, const char *sym, int64_t hint, const char *source,
                          bool duck) {
  sdb_event_in e = ev(SDB_EV_CREATE_SYMBOL);
  e.value = hint;
  e.text = source;
  sdb_event_more e_more = {.sym = S(sym), .has_range = true, .range = sdb_range_make(2, SDB_PINF)};
  e.more = &e_more;
  if (duck) { e.flags = 1; e.detail = "duck sized"; }
  put(b, e);
}

static void create_unbacked(builder *b, const char *sym, int64_t lo, int64_t hi) {
  sdb_event_in e = ev(SDB_EV_CREATE_UNBACKED);
  sdb_event_more e_more = {.sym = S(sym), .has_range = true, .range = sdb_range_make(lo, hi)};
  e.more = &e_more;
  e.text = "int";
  put(b, e);
}

static void pending(builder *b, const char *a, const char *c) {
  const sdb_expr *syms[2];
  uint32_t n = 0;
  if (a) syms[n++] = S(a);
  if (c) syms[n++] = S(c);
  sdb_event_in e = ev(SDB_EV_PENDING_CHANGED);
  sdb_event_more more = {.syms = syms, .nsyms = n};
  e.more = &more;
  put(b, e);
}

static void node(builder *b, const char *name, const char *line, int id) {
  sdb_event_in e = ev(SDB_EV_NODE_PLACED);
  e.text = name;
  e.detail = line;
  e.value = id;
  put(b, e);
}

static void bindings(builder *b, const char *node_name, const char *sym, const char *path) {
  const sdb_expr *syms[1] = {S(sym)};
  const char *texts[1] = {path};
  sdb_event_in e = ev(SDB_EV_UNBACKED_BINDINGS);
  e.text = node_name;
  sdb_event_more e_more = {.syms = syms, .texts = texts, .nsyms = 1};
  e.more = &e_more;
  put(b, e);
}

static void with_sym(builder *b, sdb_event_kind k, const char *sym, const char *text,
                     const char *detail) {
  sdb_event_in e = ev(k);
  sdb_event_more e_sym = {.sym = sym ? S(sym) : NULL};
  e.more = &e_sym;
  e.text = text;
  e.detail = detail;
  put(b, e);
}

static void with_expr(builder *b, sdb_event_kind k, const char *sym, const char *expr,
                      const char *detail) {
  sdb_event_in e = ev(k);
  sdb_event_more more = {.sym = sym ? S(sym) : NULL, .expr = P(expr)};
  e.more = &more;
  e.detail = detail;
  put(b, e);
}

static void range_refined(builder *b, const char *sym, int64_t lo, int64_t hi, const char *why) {
  sdb_event_in e = ev(SDB_EV_RANGE_REFINED);
  sdb_event_more e_more = {.sym = S(sym), .has_range = true, .range = sdb_range_make(lo, hi)};
  e.more = &e_more;
  e.detail = why;
  put(b, e);
}

static void renamed(builder *b, const char *from, const char *to, const char *why) {
  sdb_event_in e = ev(SDB_EV_RENAMED);
  sdb_event_more e_more = {.sym = S(from), .sym2 = S(to)};
  e.more = &e_more;
  e.detail = why;
  put(b, e);
}

static void buffer(builder *b, const char *name, const char *detail, const char *sym) {
  const sdb_expr *syms[1] = {sym ? S(sym) : NULL};
  sdb_event_in e = ev(SDB_EV_BUFFER_LOWERED);
  e.text = name;
  e.detail = detail;
  sdb_event_more more = {.syms = sym ? syms : NULL, .nsyms = sym ? 1 : 0};
  e.more = &more;
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
  sdb_event_in c = ev(SDB_EV_BINDING_CHECK);
  c.flags = 1;
  c.text = "nonzero";
  c.detail = "{u0} defined by u0";
  put(b, c);                                                   /* 28 */
  b->op = NULL;
  phase_end(b, "inductor");                                    /* 29 */
  phase_start(b, SDB_PHASE_GUARDS, "model");                   /* 30 */
  sdb_event_in g = ev(SDB_EV_GUARDS_INSTALLED);
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
  assert_string_equal(sdb_view_node_line(&n), "nonzero: \"i64[u0, 2]\" = l_x_.nonzero()");
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
    "  pending from event 5 until event 8, bound by node nonzero (event 7)\n"
    "  bound at %nonzero: .size()[0] (trace phase, event 7)\n"
    "  size-like (event 9)\n"
    "  in runtime assert u0 >= 1 (trace phase, nonzero.lua:8, event 10)\n"
    "  range [1, 10] (u0 >= 1, event 11)\n"
    "  renamed: u1 -> u0 (aot retrace, event 22)\n"
    "  defined by buf1 (MultiOutput for nonzero, event 27)\n");
  check_text(sdb_view_explain(v, S("u1")),
    "u1: unbacked int, created by nonzero at nonzero.lua:12 (aot phase, event 16), range [0, 10]\n"
    "  pending from event 17 until event 20, bound by node nonzero (event 19)\n"
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
  /* `break symbol u0`: which steps stop */
  {
    char got[128] = "", num[8];
    for (size_t k = 0; k <= n; k++) {
      sdb_view_seek(v, k);
      if (sdb_view_touches(v, S("u0"))) { snprintf(num, sizeof num, " %zu", k - 1); strcat(got, num); }
    }
    assert_string_equal(got, " 4 5 7 8 9 10 11 22 27");
    assert_false(sdb_view_touches(v, S("u9")));
    sdb_view_seek(v, n);
  }
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
  assert_true(sdb_event_expr(g0) == P("s0 > 2") && g0->phase == SDB_PHASE_TRACE);
  assert_true(sdb_event_site(g0)->line == 9 && g0->seq == 12);
  assert_true(sdb_event_expr(g1) == P("s0 <= 100") && g1->phase == SDB_PHASE_AOT && g1->seq == 23);
  assert_int_equal(sdb_view_count(v, SDB_EV_RUNTIME_ASSERT), 1);
  assert_true(sdb_event_sym(sdb_view_at(v, SDB_EV_RUNTIME_ASSERT, 0)) == S("u0"));
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
  assert_true(sdb_event_syms(nd.bindings)[0] == S("u1"));
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

/* A line placed before renamings reads under the names at the step: each
** word goes through the renamings in their order (u3 -> u1, then u1 -> u0
** makes u3 u0; a later u5 -> u3 makes u5 u3, not u0), whole words only,
** and the folded map answers as the one-off does. */
static void test_renamed_words(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  renamed(&b, "u3", "u1", "retrace");
  renamed(&b, "u1", "u0", "retrace");
  renamed(&b, "u5", "u3", "retrace");
  sdb_timeline *t = sdb_timeline_new(b.s);
  const char *line = "add: \"Sym(u3 + u5)\" = u3 + u5 + u30 + xu3";
  const char *want = "add: \"Sym(u0 + u3)\" = u0 + u3 + u30 + xu3";
  const sdb_view *v = sdb_timeline_seek(t, 3);
  char *one = sdb_view_renamed(v, line);
  assert_non_null(one);
  assert_string_equal(one, want);
  sdb_view_renames *r = sdb_view_renames_new(v);
  char *many = sdb_view_renames_apply(r, line);
  assert_non_null(many);
  assert_string_equal(many, want);
  assert_null(sdb_view_renames_apply(r, "s0 + u30"));   /* nothing renamed in it */
  sdb_view_renames_free(r);
  free(one);
  free(many);
  /* after the first two only: u5 is still u5 */
  v = sdb_timeline_seek(t, 2);
  one = sdb_view_renamed(v, "u3 + u5");
  assert_string_equal(one, "u0 + u5");
  free(one);
  assert_null(sdb_view_renames_new(sdb_timeline_seek(t, 0)));
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
  sdb_event_in g = ev(SDB_EV_GUARDS_INSTALLED);
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
  sdb_event_in sp = ev(SDB_EV_SPECIALIZATION);
  sdb_event_more two = {.expr = sdb_int(2)};
  sp.more = &two;
  sp.text = "L['x'].size()[0]";
  sp.detail = "range_refined_to_singleton";
  put(&b, sp);                                                  /* 14: sym NULL, as PyTorch logs it */
  two.sym = S("s0");
  put(&b, sp);                                                  /* 15: with the symbol */
  with_expr(&b, SDB_EV_REPLACEMENT_ADDED, "s0", "2", "range_refined_to_singleton"); /* 16 */
  sdb_event_in er = ev(SDB_EV_ERROR);
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

/* Guard checks and recompiles run between phases: the phase is their
** stamp; a multi-line message keeps the status and diff one line each. */
static void test_guard_checks(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, "g.lua", 9, NULL, NULL};
  phase_start(&b, SDB_PHASE_GUARDS, "g");                        /* 0 */
  sdb_event_in g = ev(SDB_EV_GUARDS_INSTALLED);
  g.value = 1;
  g.detail = "2 < L['x'].size()[0]";
  put(&b, g);                                                    /* 1 */
  phase_end(&b, "g");                                            /* 2 */
  sdb_event_in c = ev(SDB_EV_GUARD_CHECK);
  c.flags = 1;
  c.text = "0/0";
  c.detail = "cache hit: reusing the compiled entry";
  put(&b, c);                                                    /* 3 */
  b.line = 10;
  c.flags = 0;
  c.detail = "2 < x.size()[0]";
  put(&b, c);                                                    /* 4 */
  sdb_event_in r = ev(SDB_EV_RECOMPILE);
  r.text = "g";
  r.detail = "Recompiling function g in g.lua:1\n    triggered by the following guard failure(s):\n    - 0/0: 2 < x.size()[0]";
  put(&b, r);                                                    /* 5 */
  sdb_timeline *t = sdb_timeline_new(b.s);
  const sdb_view *v = sdb_timeline_seek(t, 3);
  assert_int_equal(sdb_view_phase(v), SDB_PHASE_NONE);          /* right after phase_end */
  sdb_view *a = sdb_view_clone(v);
  v = sdb_timeline_seek(t, 6);
  assert_int_equal(sdb_view_phase(v), SDB_PHASE_GUARDS);
  check_text(sdb_view_status(v),
    "step 6, event 5: guards g.lua:10         recompile g: Recompiling function g in g.lua:1\n"
    "phase guards, tracer -, compile 0\n"
    "pending: {}\n"
    "symbols 0 (0 unbacked), guards 0, runtime asserts 0, replacements 0, bindings 0\n");
  check_text(sdb_view_diff(a, v),
    "phase: none -> guards\n"
    "guard check ok 0/0: cache hit: reusing the compiled entry\n"
    "guard check FAILED 0/0: 2 < x.size()[0]\n"
    "recompile g: Recompiling function g in g.lua:1\n");
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_CHECK), 2);
  assert_int_equal(sdb_view_count(v, SDB_EV_RECOMPILE), 1);
  assert_false(sdb_view_at(v, SDB_EV_GUARD_CHECK, 1)->flags);
  sdb_view_free(a);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}

/* --- the real core --------------------------------------------------------------- */

typedef struct { const char *file; int line; const char *func; } here;

static bool locate(void *ud, sdb_loc *out) {
  here *h = ud;
  out->file = sdb_intern(h->file);
  out->line = h->line;
  out->func = sdb_intern(h->func);
  return true;
}

static void real_phase(sdb_events *s, sdb_event_kind k, sdb_phase p, const char *text) {
  sdb_events_set_phase(s, p);
  sdb_event_in e = ev(k);
  e.text = text;
  assert_true(sdb_emit(s, &e) >= 0);
}

static sdb_value call(sdb_tracer *tr, const char *op, sdb_value *self) {
  sdb_args a = {self, 1, NULL, 0};
  sdb_value out;
  sdb_node *n = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tracer_call(tr, sdb_op_find(op), true, &a, &out, &n, &err)) fail_msg("%s: %s", op, err.msg);
  return out;
}

/* A graph's node names in its own order (interned: compare by pointer). */
typedef struct { const char *v[64]; size_t n; } namelist;

static void graph_names(const sdb_graph *g, namelist *out) {
  assert_true(g->n <= 64);
  out->n = g->n;
  for (size_t i = 0; i < g->n; i++) out->v[i] = g->nodes[i]->name;
}

/* How real_nonzero_run drives the core. dead: nonzero.lua as Lua traces it
** (`size = nonzero.size(0)` and an impure `_check_is_size(size)` node) plus
** a dead `x.sum()`, so DCE erases a node in the trace and one in aot (the
** retraced size's sym_size_int_1). The graphs' node names at the end go to
** trace and aot when set. */
typedef struct { bool dead; namelist *trace, *aot; } nzrun;

static sdb_events *real_nonzero_run(const nzrun *o);

/* scripts/nonzero.lua through the C core as lua/lsdb_torch.c drives it:
** trace (nonzero, _check_is_size, a guard), aot (u1 renamed to u0),
** lower (buf1 defines u0), in one stream with user locations. */
static sdb_events *real_nonzero(void) {
  nzrun o = {false, NULL, NULL};
  return real_nonzero_run(&o);
}

static sdb_events *real_nonzero_run(const nzrun *o) {
  sdb_events *ev = sdb_events_new();
  static here h;
  h = (here){"scripts/nonzero.lua", 12, NULL};
  sdb_events_set_locator(ev, locate, &h);
  sdb_err err = SDB_ERR_INIT;
  real_phase(ev, SDB_EV_PHASE_START, SDB_PHASE_TRACE, "model");
  sdb_shape_env *env = sdb_shape_env_new(ev, NULL);
  sdb_fake_mode *mode = sdb_fake_mode_new(env, "trace");
  sdb_graph *g = sdb_graph_new("GraphModule");
  sdb_tracer *tr = sdb_tracer_new(NULL, "trace", g, mode);
  sdb_symctx *ctx = sdb_symctx_new(true, 2, SDB_DIM_STATIC);
  sdb_aot_input in;
  assert_true(ctx && nonzero_input(&in, ctx));
  sdb_fake *x = NULL;
  if (sdb_fakify(mode, in.sizes, 2, SDB_F32, "cpu", false, in.source, ctx, &x, &err))
    fail_msg("fakify: %s", err.msg);
  in.placeholder = sdb_tracer_input_tensor(tr, x, "x", in.source, &err);
  assert_non_null(in.placeholder);
  h = (here){"scripts/nonzero.lua", 6, "model"};
  sdb_value xv = sdb_value_tensor(x);
  sdb_value idx = call(tr, "nonzero", &xv);
  h.line = 7;
  if (o->dead) {
    sdb_value args[2] = {sdb_value_copy(&idx), sdb_value_int64(0)};
    sdb_value ex = sdb_value_int(idx.tensor->sizes[0]);
    sdb_node *size = sdb_tracer_node(tr, SDB_N_CALL_METHOD, "size", "size", args, NULL, 2, &ex, false, &err);
    assert_non_null(size);
    sdb_map_put(&tr->sym_proxy, ex.expr, size);
    sdb_value_free(&args[0]);
    assert_non_null(sdb_tracer_node(tr, SDB_N_CALL_FUNCTION, "torch._check_is_size", "_check_is_size",
                                    &ex, NULL, 1, NULL, true, &err));
  }
  if (sdb_check_is_size(env, idx.tensor->sizes[0], &err)) fail_msg("check: %s", err.msg);
  if (sdb_check(env, sdb_le(idx.tensor->sizes[0], sdb_int(8)), "at most 8", &err)) fail_msg("%s", err.msg);
  h.line = 8;
  bool big = false;
  if (sdb_guard_bool(env, sdb_gt(x->sizes[0], sdb_int(2)), &big, &err)) fail_msg("guard: %s", err.msg);
  assert_true(big);
  if (o->dead) {
    sdb_value unused = call(tr, "sum", &xv);
    sdb_value_free(&unused);
  }
  sdb_value total = call(tr, "sum", &idx);
  h = (here){"scripts/nonzero.lua", 12, NULL};
  sdb_value outs = sdb_value_seq(SDB_V_TUPLE, 1);
  outs.items[0] = total;
  if (!sdb_tracer_output(tr, &outs, &err) || sdb_tracer_finalize(tr, &err)) fail_msg("finish: %s", err.msg);
  if (o->trace) graph_names(g, o->trace);
  real_phase(ev, SDB_EV_PHASE_END, SDB_PHASE_TRACE, "model");
  sdb_events_set_phase(ev, SDB_PHASE_NONE);
  sdb_aot_result aot;
  if (sdb_aot_compile(env, g, &in, 1, &aot, &err)) fail_msg("aot: %s", err.msg);
  if (o->aot) graph_names(aot.graph, o->aot);
  sdb_events_set_phase(ev, SDB_PHASE_NONE);
  sdb_lowered low;
  if (sdb_lower(aot.mode, aot.graph, NULL, &low, &err)) fail_msg("lower: %s", err.msg);
  sdb_events_set_phase(ev, SDB_PHASE_NONE);
  /* the view's fold agrees with the live ShapeEnv it never looks at */
  sdb_view *v = fold(ev, sdb_events_count(ev));
  const sdb_expr *const *p;
  assert_int_equal(sdb_view_pending(v, &p), sdb_pending_count(env));
  assert_int_equal(sdb_view_symbol_count(v), sdb_symbol_count(env));
  for (size_t i = 0; i < sdb_symbol_count(env); i++) {
    const sdb_symbol_info *si = sdb_symbol_at(env, i);
    sdb_view_sym s;
    assert_true(sdb_view_symbol(v, si->sym, &s));
    assert_int_equal(s.unbacked, si->unbacked);
    assert_true(s.has_range);
    assert_true(s.range.lo == si->range.lo && s.range.hi == si->range.hi);
    assert_true(!s.size_like || si->size_like);   /* create_unbacked carries no size-like flag */
    assert_int_equal(s.creation->seq, si->created.seq);
    assert_true(s.replacement == sdb_replacement_of(env, si->sym));
  }
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), sdb_guard_count(env));
  for (size_t i = 0; i < sdb_guard_count(env); i++) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_GUARD_ADDED, i);
    assert_true(sdb_event_expr(e) == sdb_guard_at(env, i)->expr);
    assert_int_equal(e->seq, sdb_guard_at(env, i)->prov.seq);
  }
  assert_int_equal(sdb_view_count(v, SDB_EV_RUNTIME_ASSERT), sdb_assert_count(env));
  assert_int_equal(sdb_view_count(v, SDB_EV_RENAMED), sdb_renaming_count(env));
  assert_int_equal(sdb_view_replacement_count(v), sdb_replacement_count(env));
  for (size_t i = 0; i < sdb_replacement_count(env); i++) {
    const sdb_event *e = sdb_view_replacement_at(v, i);
    assert_true(sdb_event_sym(e) == sdb_replacement_at(env, i)->sym);
    assert_true(sdb_event_expr(e) == sdb_replacement_at(env, i)->target);
  }
  sdb_view_free(v);
  sdb_lowered_free(&low);
  sdb_aot_result_free(&aot);
  sdb_value_free(&outs);
  sdb_value_free(&idx);
  sdb_value_free(&xv);
  nonzero_free(x, tr, g, ctx, mode, env);
  return ev;
}

static void test_real_core(void **state) {
  (void)state;
  sdb_events *ev = real_nonzero();
  size_t n = sdb_events_count(ev);
  assert_int_equal(n, 65);
  sdb_view *v = fold(ev, n);
  check_text(sdb_view_explain(v, S("u0")),
    "u0: unbacked int, created by nonzero at nonzero.lua:6 in model (trace phase, event 9), range [0, 8]\n"
    "  pending from event 10 until event 13, bound by node nonzero (event 12)\n"
    "  bound at %nonzero: .size()[0] (trace phase, event 12)\n"
    "  in runtime assert u0 <= 8 (trace phase, nonzero.lua:7, event 14)\n"
    "  range [0, 8] (u0 <= 8, event 15)\n"
    "  bound in trace as sym_size_int (event 21)\n"
    "  renamed: u1 -> u0 (aot retrace, event 40)\n"
    "  renamed: u3 -> u0 (process_kernel re-propagation, event 58)\n"
    "  defined by buf1 (MultiOutput for nonzero, event 60)\n");
  check_text(sdb_view_explain(v, S("u1")),
    "u1: unbacked int, created by nonzero at nonzero.lua:6 in model (aot phase, event 33), range [0, 8]\n"
    "  pending from event 34 until event 37, bound by node nonzero (event 36)\n"
    "  bound at %nonzero: .size()[0] (aot phase, event 36)\n"
    "  range [0, 8] (rename_unbacked_to, event 38)\n"
    "  replaced by u0 (rename_unbacked_to, aot phase, event 39)\n"
    "  renamed: u1 -> u0 (aot retrace, event 40)\n");
  check_text(sdb_view_explain(v, S("u2")),   /* metadata analysis: never pending */
    "u2: unbacked int, created by nonzero at nonzero.lua:6 in model (aot phase, event 50), range [0, int_oo]\n");
  check_text(sdb_view_explain(v, S("u3")),   /* process_kernel's: renamed, never bound */
    "u3: unbacked int, created by nonzero at nonzero.lua:6 in model (lower phase, event 54), range [0, 8]\n"
    "  pending from event 55 until event 59, renamed to u0 (event 58)\n"
    "  range [0, 8] (rename_unbacked_to, event 56)\n"
    "  replaced by u0 (rename_unbacked_to, lower phase, event 57)\n"
    "  renamed: u3 -> u0 (process_kernel re-propagation, event 58)\n");
  check_text(sdb_view_explain(v, S("s0")),
    "s0: backed int, hint 5, source L['x'].size()[0], created at nonzero.lua:12 (trace phase, event 3), range [3, int_oo]\n"
    "  graph input s0 in trace (event 5)\n"
    "  bound in trace as s0 (event 6)\n"
    "  in guard s0 > 2 (trace phase, nonzero.lua:8, event 16)\n"
    "  range [3, int_oo] (s0 > 2, event 17)\n");
  check_text(sdb_view_status(v),
    "step 65, event 64: none   nonzero.lua:12   tracer_pop trace\n"
    "phase none, tracer -, compile 1\n"
    "pending: {}\n"
    "symbols 5 (4 unbacked), guards 1, runtime asserts 1, replacements 2, bindings 2\n");
  /* a stop inside lowering, after process_kernel's fresh u3 */
  sdb_view_seek(v, 56);
  check_text(sdb_view_status(v),
    "step 56, event 55: lower  nonzero.lua:6    pending_changed {u3}\n"
    "phase lower, tracer -, compile 1\n"
    "pending: {u3}\n"
    "symbols 5 (4 unbacked), guards 1, runtime asserts 1, replacements 1, bindings 2\n");
  sdb_view *prev = sdb_view_clone(v);
  sdb_view_seek(prev, 53);
  check_text(sdb_view_diff(prev, v), "pending: {} -> {u3}\nnew symbol: u3 [0, int_oo]\n");
  sdb_view_seek(prev, 61);
  check_text(sdb_view_diff(v, prev),
    "pending: {u3} -> {}\n"
    "range: u3 [0, int_oo] -> [0, 8]\n"
    "replacement: u3 -> u0 (rename_unbacked_to)\n"
    "renamed: u3 -> u0 (process_kernel re-propagation)\n"
    "buffer: buf1 (MultiOutput for nonzero) defines {u0}\n");
  /* the aot graph holds nonzero with its binding of u1 */
  sdb_view_seek(v, n);
  sdb_view_node nd;
  assert_int_equal(sdb_view_graph_count(v), 2);
  assert_int_equal(sdb_view_node_count(v, "aot"), 10);
  assert_true(sdb_view_node_at(v, "aot", 2, &nd));
  assert_string_equal(nd.name, "nonzero");
  assert_non_null(nd.bindings);
  assert_true(sdb_event_syms(nd.bindings)[0] == S("u1"));
  sdb_view_free(prev);
  sdb_view_free(v);
  sdb_events_free(ev);
}

/* The view's node names of a graph, space-separated. */
static char *view_nodes(const sdb_view *v, const char *graph) {
  char *out = calloc(1, 4096);
  size_t n = sdb_view_node_count(v, graph);
  for (size_t i = 0; i < n; i++) {
    sdb_view_node nd;
    assert_true(sdb_view_node_at(v, graph, i, &nd));
    if (i) strcat(out, " ");
    strcat(out, nd.name);
  }
  assert_false(sdb_view_node_at(v, graph, n, &(sdb_view_node){0}));
  return out;
}

static char *names_str(const namelist *l) {
  char *out = calloc(1, 4096);
  for (size_t i = 0; i < l->n; i++) {
    if (i) strcat(out, " ");
    strcat(out, l->v[i]);
  }
  return out;
}

/* The first event of kind k named `text` in phase p at or after `from`. */
static size_t find_event(const sdb_events *ev, sdb_event_kind k, sdb_phase p, const char *text,
                         size_t from) {
  for (size_t i = from; i < sdb_events_count(ev); i++) {
    const sdb_event *e = sdb_events_at(ev, i);
    if (e->kind == k && e->phase == p && !strcmp(sdb_event_text(e), text)) return i;
  }
  fail_msg("no %s %s", sdb_event_name(k), text);
  return 0;
}

/* The graphs as the view lists them are the real ones: asserts right after
** the node binding their symbol, dead nodes gone; before the asserts, the
** placement so far; before an erasure, the node again. */
static void test_graph_order(void **state) {
  (void)state;
  namelist tg, ag;
  nzrun o = {true, &tg, &ag};
  sdb_events *ev = real_nonzero_run(&o);
  size_t n = sdb_events_count(ev);
  sdb_view *v = fold(ev, n);
  char *want = names_str(&tg);
  assert_string_equal(want, "s0 l_x_ nonzero sym_size_int ge _assert_scalar_default le "
                            "_assert_scalar_default_1 size _check_is_size sum_2 output");
  check_text(view_nodes(v, "trace"), want);
  free(want);
  want = names_str(&ag);
  assert_string_equal(want, "arg0_1 arg1_1 nonzero sym_size_int ge _assert_scalar le "
                            "_assert_scalar_1 sum_1 output");
  check_text(view_nodes(v, "aot"), want);
  free(want);
  /* the events say where: after the binding node, after each other */
  size_t ssi = find_event(ev, SDB_EV_NODE_PLACED, SDB_PHASE_TRACE, "sym_size_int", 0);
  assert_string_equal(sdb_event_text2(sdb_events_at(ev, ssi)), "nonzero");
  assert_string_equal(sdb_event_text2(sdb_events_at(ev, find_event(ev, SDB_EV_NODE_PLACED, SDB_PHASE_TRACE, "ge", ssi))),
                      "sym_size_int");
  assert_null(sdb_event_text2(sdb_events_at(ev, find_event(ev, SDB_EV_NODE_PLACED, SDB_PHASE_TRACE, "output", 0))));
  /* before the pass: the placement so far, the dead sum_1 still there */
  sdb_view_seek(v, ssi);
  check_text(view_nodes(v, "trace"), "s0 l_x_ nonzero size _check_is_size sum_1 sum_2 output");
  sdb_view_seek(v, ssi + 1);
  check_text(view_nodes(v, "trace"), "s0 l_x_ nonzero sym_size_int size _check_is_size sum_1 sum_2 output");
  /* DCE: gone at the step after node_erased, back one step before */
  size_t er = find_event(ev, SDB_EV_NODE_ERASED, SDB_PHASE_TRACE, "sum_1", 0);
  check_text(sdb_event_summary(sdb_events_at(ev, er)), "node_erased sum_1 (dead code)");
  sdb_view_seek(v, er + 1);
  check_text(view_nodes(v, "trace"), "s0 l_x_ nonzero sym_size_int ge _assert_scalar_default le "
                                     "_assert_scalar_default_1 size _check_is_size sum_2 output");
  sdb_view_seek(v, er);
  check_text(view_nodes(v, "trace"), "s0 l_x_ nonzero sym_size_int ge _assert_scalar_default le "
                                     "_assert_scalar_default_1 size _check_is_size sum_1 sum_2 output");
  sdb_view_node nd;
  assert_true(sdb_view_node_at(v, "trace", 2, &nd));   /* bindings still matched by name */
  assert_string_equal(nd.name, "nonzero");
  assert_non_null(nd.bindings);
  assert_true(sdb_event_syms(nd.bindings)[0] == S("u0"));
  /* aot: the retraced size is dead there */
  er = find_event(ev, SDB_EV_NODE_ERASED, SDB_PHASE_AOT, "sym_size_int_1", 0);
  sdb_view_seek(v, er);
  assert_int_equal(sdb_view_node_count(v, "aot"), ag.n + 1);
  sdb_view_seek(v, er + 1);
  assert_int_equal(sdb_view_node_count(v, "aot"), ag.n);
  /* erasure touches no symbol */
  assert_false(sdb_view_touches(v, S("u0")));
  assert_false(sdb_view_touches(v, S("u1")));
  sdb_view_free(v);
  sdb_events_free(ev);
}

/* Anchors by hand: at the front, after a node, after one the graph never
** had (the end); an erasure by id where names repeat (aot's subgraphs share
** the "aot" key); folding and seeking agree at every step. */
static void test_node_order_by_hand(void **state) {
  (void)state;
  builder b = {sdb_events_new(), SDB_PHASE_TRACE, "trace > cond.true_branch", "c.lua", 1, NULL, NULL};
  phase_start(&b, SDB_PHASE_TRACE, "f");                       /* 0 */
  node(&b, "l_x_", "l_x_", 10);                                 /* 1 */
  sdb_event_in e = ev(SDB_EV_NODE_PLACED);
  sdb_event_more anchor = {0};
  e.more = &anchor;
  e.text = "s0";
  e.value = 11;
  e.flags = SDB_EVF_AT_START;
  put(&b, e);                                                   /* 2 */
  e.text = "s1";
  e.value = 12;
  e.flags = 0;
  anchor.text2 = "s0";
  put(&b, e);                                                   /* 3 */
  node(&b, "mul", "mul", 13);                                   /* 4 */
  e.text = "add";
  e.value = 14;
  anchor.text2 = "nowhere";
  put(&b, e);                                                   /* 5 */
  e.text = "sub";
  e.value = 15;
  anchor.text2 = "l_x_";
  put(&b, e);                                                   /* 6 */
  sdb_event_in x = ev(SDB_EV_NODE_ERASED);
  x.text = "mul";
  x.value = 13;
  x.detail = "dead code";
  put(&b, x);                                                   /* 7 */
  b.phase = SDB_PHASE_AOT;
  node(&b, "sum", "sum", 20);                                   /* 8 */
  node(&b, "sum", "sum (a subgraph's)", 21);                    /* 9 */
  x.text = "sum";
  x.value = 20;
  put(&b, x);                                                   /* 10 */
  x.text = "never_placed";
  x.value = 99;
  put(&b, x);                                                   /* 11 */
  static const char *const want[][2] = {
    {"", ""}, {"", ""}, {"l_x_", ""}, {"s0 l_x_", ""}, {"s0 s1 l_x_", ""},
    {"s0 s1 l_x_ mul", ""}, {"s0 s1 l_x_ mul add", ""}, {"s0 s1 l_x_ sub mul add", ""},
    {"s0 s1 l_x_ sub add", ""}, {"s0 s1 l_x_ sub add", "sum"},
    {"s0 s1 l_x_ sub add", "sum sum"}, {"s0 s1 l_x_ sub add", "sum"}, {"s0 s1 l_x_ sub add", "sum"},
  };
  size_t n = sdb_events_count(b.s);
  assert_int_equal(n, 12);
  sdb_view *back = fold(b.s, n);
  for (size_t k = 0; k <= n; k++) {
    sdb_view *v = fold(b.s, k);
    size_t j = n - k;   /* seeking backwards */
    assert_true(sdb_view_seek(back, j));
    check_text(view_nodes(v, "trace > cond.true_branch"), want[k][0]);
    check_text(view_nodes(v, "aot"), want[k][1]);
    check_text(view_nodes(back, "trace > cond.true_branch"), want[j][0]);
    check_text(view_nodes(back, "aot"), want[j][1]);
    sdb_view_free(v);
  }
  sdb_view_seek(back, n);
  sdb_view_node nd;
  assert_true(sdb_view_node_at(back, "aot", 0, &nd));
  assert_int_equal(nd.id, 21);   /* the one erased was #20 */
  assert_string_equal(sdb_view_node_line(&nd), "sum (a subgraph's)");
  sdb_view *before = fold(b.s, 7), *after = fold(b.s, 8);
  check_text(sdb_view_diff(before, after), "");   /* an erasure is no stop-worthy change */
  sdb_view_free(before);
  sdb_view_free(after);
  sdb_view_free(back);
  sdb_events_free(b.s);
}

/* Every texts (and graph listing) at step k is the same whether k was
** reached by folding from 0, by seeking backwards from the end or forwards
** from the start. */
static char *all_texts(const sdb_view *v, const sdb_view *prev) {
  static const char *const names[] = {"s0", "s1", "u0", "u1", "u2", "u3", "u4"};
  size_t cap = 1 << 16;
  char *out = calloc(1, cap);
  char *t = sdb_view_status(v);
  strncat(out, t, cap - strlen(out) - 1);
  free(t);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    t = sdb_view_explain(v, S(names[i]));
    strncat(out, t, cap - strlen(out) - 1);
    free(t);
  }
  for (size_t g = 0; g < sdb_view_graph_count(v); g++) {
    t = view_nodes(v, sdb_view_graph_at(v, g));
    strncat(out, t, cap - strlen(out) - 1);
    strncat(out, "\n", cap - strlen(out) - 1);
    free(t);
  }
  if (prev) {
    t = sdb_view_diff(prev, v);
    strncat(out, t, cap - strlen(out) - 1);
    free(t);
    t = sdb_view_diff(v, prev);
    strncat(out, t, cap - strlen(out) - 1);
    free(t);
  }
  return out;
}

static void seek_both_ways(sdb_events *ev) {
  size_t n = sdb_events_count(ev);
  char **want = calloc(n + 1, sizeof *want);
  for (size_t k = 0; k <= n; k++) {
    sdb_view *v = fold(ev, k), *p = k ? fold(ev, k - 1) : NULL;
    want[k] = all_texts(v, p);
    sdb_view_free(p);
    sdb_view_free(v);
  }
  sdb_timeline *t = sdb_timeline_new(ev);
  sdb_view *prev = sdb_view_new();
  for (size_t pass = 0; pass < 3; pass++) {
    for (size_t i = 0; i <= n; i++) {
      /* backwards from the end, forwards, then a stride that jumps around */
      size_t k = pass == 0 ? n - i : pass == 1 ? i : (i * 37) % (n + 1);
      const sdb_view *v = sdb_timeline_seek(t, k);
      assert_non_null(v);
      assert_int_equal(sdb_view_step(v), k);
      sdb_view_free(prev);
      prev = sdb_view_clone(v);
      if (k) sdb_view_seek(prev, k - 1);
      char *got = all_texts(v, k ? prev : NULL);
      assert_string_equal(got, want[k]);
      free(got);
    }
  }
  sdb_view_free(prev);
  sdb_timeline_free(t);
  for (size_t k = 0; k <= n; k++) free(want[k]);
  free(want);
  sdb_events_free(ev);
}

static void test_seek_both_ways(void **state) {
  (void)state;
  seek_both_ways(real_nonzero());
  nzrun o = {true, NULL, NULL};   /* with node erasures */
  seek_both_ways(real_nonzero_run(&o));
}

/* An event applied again at its own step follows the history, also when
** it was built by hand with no site (the stream and the view spell
** "nowhere" the same) or with binding paths but no symbols (they count
** only beside symbols). Found in review: both forked the history. */
static void test_follow_bare_events(void **state) {
  (void)state;
  const char *paths[1] = {"x"};
  sdb_event_more more = {.texts = paths};
  sdb_event_in a = ev(SDB_EV_NOTE), b = ev(SDB_EV_NOTE);
  a.detail = "first";
  a.more = &more;
  b.detail = "second";
  sdb_events *ab = sdb_events_new();   /* a view folds a stream's events */
  assert_true(sdb_emit_raw(ab, &a) >= 0);
  assert_true(sdb_emit_raw(ab, &b) >= 0);
  sdb_view *v = sdb_view_new();
  assert_int_equal(sdb_view_apply(v, sdb_events_at(ab, 0)), 0);
  assert_int_equal(sdb_view_apply(v, sdb_events_at(ab, 1)), 0);
  assert_true(sdb_view_seek(v, 0));
  assert_int_equal(sdb_view_apply(v, sdb_events_at(ab, 0)), 0);
  assert_int_equal(sdb_view_apply(v, sdb_events_at(ab, 1)), 0);
  assert_int_equal(sdb_view_length(v), 2);
  assert_string_equal(sdb_event_detail(sdb_view_event_at(v, 1)), "second");
  sdb_events_free(ab);   /* the view's events are its own copies */
  /* the same through another stream: append gives a site-less event "nowhere" */
  sdb_events *s = sdb_events_new();
  assert_true(sdb_emit_raw(s, &a) >= 0);
  assert_true(sdb_emit_raw(s, &b) >= 0);
  assert_true(sdb_event_site(sdb_events_at(s, 1)) == sdb_site_get(NULL, 0, NULL, 0, NULL));
  assert_true(sdb_view_seek(v, 1));
  assert_int_equal(sdb_view_apply(v, sdb_events_at(s, 1)), 0);
  assert_int_equal(sdb_view_length(v), 2);
  assert_string_equal(sdb_event_detail(sdb_view_event_at(v, 1)), "second");
  sdb_events_free(s);
  sdb_view_free(v);
}

/* Clones share the history; applying a different event forks a private
** copy and leaves the others as they were; reset follows the history. */
static void test_clone_and_fork(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, NULL, 0, NULL, NULL};
  nonzero_stream(&b);
  size_t n = sdb_events_count(b.s);
  sdb_view *v = fold(b.s, n);
  sdb_view *c = sdb_view_clone(v);
  assert_true(sdb_view_seek(c, 5));
  assert_false(sdb_view_seek(c, n + 1));
  assert_int_equal(sdb_view_length(c), n);
  /* the same event: follows the shared history */
  assert_int_equal(sdb_view_apply(c, sdb_events_at(b.s, 5)), 0);
  assert_int_equal(sdb_view_step(c), 6);
  assert_int_equal(sdb_view_length(c), n);
  check_text(pending_str(c), "{u0}");
  /* a different one: a fork at step 6 with its own event 6 */
  builder o = {sdb_events_new(), SDB_PHASE_TRACE, "trace", "other.lua", 1, NULL, NULL};
  for (size_t i = 0; i < 6; i++) {
    sdb_event_in u = sdb_event_unpack(sdb_events_at(b.s, i));
    sdb_emit_raw(o.s, &u);
  }
  pending(&o, "u0", "u5");
  assert_int_equal(sdb_view_apply(c, sdb_events_at(o.s, 6)), 0);
  assert_int_equal(sdb_view_step(c), 7);
  assert_int_equal(sdb_view_length(c), 7);
  check_text(pending_str(c), "{u0, u5}");
  check_text(pending_str(v), "{}");
  assert_int_equal(sdb_view_length(v), n);
  sdb_view_seek(v, 7);
  check_text(pending_str(v), "{u0}");
  check_text(sdb_view_explain(c, S("u5")),
    "u5: unbacked int, first seen at event 6 (no create event)\n"
    "  pending since event 6\n");
  /* reset, and the same stream again: no fork */
  sdb_view_reset(v);
  assert_int_equal(sdb_view_step(v), 0);
  for (size_t i = 0; i < n; i++) assert_int_equal(sdb_view_apply(v, sdb_events_at(b.s, i)), 0);
  assert_int_equal(sdb_view_length(v), n);
  /* the event copies outlive the stream that gave them */
  sdb_events_free(o.s);
  sdb_events_free(b.s);
  assert_int_equal(sdb_event_nsyms(sdb_view_event(c)), 2);
  check_text(sdb_view_explain(v, S("u1")),
    "u1: unbacked int, created by nonzero at nonzero.lua:12 (aot phase, event 16), range [0, 10]\n"
    "  pending from event 17 until event 20, bound by node nonzero (event 19)\n"
    "  bound at %nonzero: .size()[0] (aot phase, event 19)\n"
    "  replaced by u0 (rename_unbacked_to, aot phase, event 21)\n"
    "  renamed: u1 -> u0 (aot retrace, event 22)\n");
  sdb_view_free(c);
  sdb_view_free(v);
  sdb_view_free(NULL);
  sdb_timeline_free(NULL);
}

/* A long stream (100k events: compiles of nonzero-like traces with guards,
** asserts and nodes): folding it and seeking to
** scattered steps stays exact (timing is `make bench`'s job, not a test's). */
static void test_big_stream(void **state) {
  (void)state;
  builder b = {sdb_events_new(), 0, NULL, "big.lua", 1, "f", NULL};
  char name[32], node_name[32], line[128], guard[64];
  unsigned compiles = 0;
  for (int c = 0; sdb_events_count(b.s) < 100000; c++) {
    compiles++;
    b.tracer = NULL;
    phase_start(&b, SDB_PHASE_TRACE, "f");
    tracer_push(&b, "trace", 0);
    create_symbol(&b, "s0", 1000 + c, "L['x'].size()[0]", false);
    for (int i = 0; i < 400; i++) {
      snprintf(name, sizeof name, "u%d", i);
      snprintf(node_name, sizeof node_name, "nonzero_%d", i);
      snprintf(line, sizeof line, "%s: \"i64[%s, 1]\" = l_x_.nonzero()", node_name, name);
      snprintf(guard, sizeof guard, "s0 > %d", i + 2);
      b.line = i + 2;
      create_unbacked(&b, name, 0, SDB_PINF);
      pending(&b, name, NULL);
      node(&b, node_name, line, i);
      bindings(&b, node_name, name, ".size()[0]");
      pending(&b, NULL, NULL);
      snprintf(line, sizeof line, "%s <= s0", name);
      with_expr(&b, SDB_EV_RUNTIME_ASSERT, name, line, NULL);
      with_expr(&b, SDB_EV_GUARD_ADDED, NULL, guard, NULL);
    }
    phase_end(&b, "f");
  }
  size_t n = sdb_events_count(b.s);
  sdb_timeline *t = sdb_timeline_new(b.s);
  assert_int_equal(sdb_timeline_length(t), n);
  /* seek to 1000 scattered steps, and read a status and an explain at each */
  uint32_t x = 12345;
  for (int i = 0; i < 1000; i++) {
    x = x * 1103515245u + 12345u;
    size_t k = x % (n + 1);
    const sdb_view *v = sdb_timeline_seek(t, k);
    assert_non_null(v);
    assert_int_equal(sdb_view_step(v), k);
    char *st = sdb_view_status(v);
    char *ex = sdb_view_explain(v, S("u7"));
    assert_non_null(st);
    assert_non_null(ex);
    free(st);
    free(ex);
  }
  const sdb_view *v = sdb_timeline_seek(t, n);
  assert_int_equal(sdb_view_compile(v), compiles);
  assert_int_equal(sdb_view_symbol_count(v), 401);
  assert_int_equal(sdb_view_count(v, SDB_EV_GUARD_ADDED), 400);
  sdb_timeline_free(t);
  sdb_events_free(b.s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pending_steps),
    cmocka_unit_test(test_explain_life),
    cmocka_unit_test(test_lists_and_phases),
    cmocka_unit_test(test_renamed_words),
    cmocka_unit_test(test_diff),
    cmocka_unit_test(test_tracer_stack),
    cmocka_unit_test(test_compiles),
    cmocka_unit_test(test_guard_checks),
    cmocka_unit_test(test_real_core),
    cmocka_unit_test(test_graph_order),
    cmocka_unit_test(test_node_order_by_hand),
    cmocka_unit_test(test_seek_both_ways),
    cmocka_unit_test(test_follow_bare_events),
    cmocka_unit_test(test_clone_and_fork),
    cmocka_unit_test(test_big_stream),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("view", tests, NULL, NULL);
  sdb_expr_reset();
  sdb_sites_reset();
  sdb_intern_reset();
  return rc;
}
