/*
** debug_info.c — what the debugger shows about the state at the cursor:
** the `info` panels, `explain`, `where`, `list`, `display` and `report`.
** Everything here reads the view (core/view.h), never the live program, so
** it shows the same at any step, forwards or back.
*/
#include "cancel.h"
#include "debug.h"
#include "host.h"

#include "intern.h"
#include "srcfile.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "trace phase, nonzero.lua:7, event 12" */
static void put_where(const sdb_event *e) {
  printf("%s phase", sdb_phase_name(e->phase));
  if (sdb_event_site(e)->file) printf(", %s:%d", dbg_basename(sdb_event_site(e)->file), sdb_event_site(e)->line);
  printf(", event %u", e->seq);
}

static void put_expr(const sdb_expr *e) {
  char *s = e ? sdb_expr_str(e) : NULL;
  fputs(s ? s : repl_oom_text(), stdout);
  free(s);
}

static void put_symset(const sdb_expr *const *syms, size_t n) {
  putchar('{');
  for (size_t i = 0; i < n; i++) printf("%s%s", i ? ", " : "", syms[i]->name);
  putchar('}');
}

/* ------------------------------------------------------------------------
** info panels
** ---------------------------------------------------------------------- */

static int info_pending(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  const sdb_expr *const *pend;
  size_t n = sdb_view_pending(v, &pend);
  printf("pending: ");
  put_symset(pend, n);
  if (!n) {
    printf(" (no fresh unbacked symbol is waiting for a binding)\n");
    return 0;
  }
  putchar('\n');
  for (size_t i = 0; i < n; i++) {
    sdb_view_sym info;
    if (!sdb_view_symbol(v, pend[i], &info) || !info.creation) {
      printf("  %s\n", pend[i]->name);
      continue;
    }
    const sdb_event *e = info.creation;
    char r[SDB_RANGE_STRLEN];
    printf("  %s  %s, created by %s (", pend[i]->name,
           info.has_range ? sdb_range_str(info.range, r, sizeof r) : "[-int_oo, int_oo]",
           sdb_event_op(e) ? sdb_event_op(e) : "create_unbacked_symint");
    put_where(e);
    printf(")\n");
  }
  return 0;
}

static int info_bindings(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  size_t ng = sdb_view_graph_count(v);
  int shown = 0;
  for (size_t g = 0; g < ng; g++) {
    const char *graph = sdb_view_graph_at(v, g);
    size_t nn = sdb_view_node_count(v, graph);
    bool header = false;
    for (size_t i = 0; i < nn; i++) {
      sdb_view_node node;
      if (!sdb_view_node_at(v, graph, i, &node) || !node.bindings) continue;
      if (!header) printf("graph %s:\n", graph);
      header = true;
      const sdb_event *b = node.bindings;
      printf("  %%%s:", node.name);
      for (uint32_t k = 0; k < sdb_event_nsyms(b); k++) {
        const char *path = sdb_event_texts(b) && sdb_event_texts(b)[k] ? sdb_event_texts(b)[k] : "";
        printf(" %s: %s", sdb_event_syms(b)[k]->name, *path ? path : "<value>");
        if (k + 1 < sdb_event_nsyms(b)) putchar(',');
      }
      printf("  (event %u)\n", b->seq);
      shown++;
    }
  }
  if (!shown) printf("No unbacked bindings at this step.\n");
  return 0;
}

/* The guards or runtime asserts so far, one per line with where each was
** added (asserts also say their key symbol and message). */
static void list_facts(const sdb_view *v, sdb_event_kind kind, const char *what) {
  size_t n = sdb_view_count(v, kind);
  if (!n) printf("No %s at this step.\n", what);
  else printf("%s (%zu):\n", what, n);
  for (size_t i = 0; i < n; i++) {
    const sdb_event *e = sdb_view_at(v, kind, i);
    printf("  ");
    put_expr(sdb_event_expr(e));
    printf("  (");
    put_where(e);
    if (kind == SDB_EV_RUNTIME_ASSERT && sdb_event_sym(e)) printf(", on %s", sdb_event_sym(e)->name);
    printf(")\n");
    if (kind == SDB_EV_RUNTIME_ASSERT && sdb_event_detail(e))
      printf("      message: %s\n", sdb_event_detail(e));
  }
}

static int info_guards(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  list_facts(v, SDB_EV_GUARD_ADDED, "guards");
  const char *const *installed;
  size_t ni = sdb_view_installed_guards(v, &installed);
  if (ni) {
    printf("installed guard set (%zu):\n", ni);
    for (size_t i = 0; i < ni; i++) printf("  %s\n", installed[i]);
  }
  return 0;
}

static int info_replacements(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  size_t n = sdb_view_replacement_count(v);
  if (!n) printf("No replacements at this step.\n");
  for (size_t i = 0; i < n; i++) {
    const sdb_event *e = sdb_view_replacement_at(v, i);
    printf("  %s -> ", sdb_event_sym(e) ? sdb_event_sym(e)->name : "?");
    put_expr(sdb_event_expr(e));
    const char *why = sdb_event_detail(e);
    printf("  (%s%s", why ? why : "", why ? ", " : "");
    put_where(e);
    printf(")\n");
  }
  return 0;
}

static int info_asserts(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  list_facts(dbg_view(dbg_of(s)), SDB_EV_RUNTIME_ASSERT, "runtime asserts");
  return 0;
}

/* One line of `info symbols`: what the symbol is now. */
static void symbol_status(const sdb_view_sym *in, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
#define ADD(...) do { if (n < cap) n += (size_t)snprintf(out + n, cap - n, __VA_ARGS__); } while (0)
  if (!in->unbacked && in->has_hint) ADD("hint %lld", (long long)in->hint);
  if (in->source) ADD("%s%s", n ? ", " : "", in->source);
  if (in->size_like) ADD("%ssize-like", n ? ", " : "");
  if (in->pending) ADD("%spending", n ? ", " : "");
  if (in->keypath) ADD("%sbound %s", n ? ", " : "", *in->keypath ? in->keypath : "<value>");
  if (in->binding && sdb_event_text(in->binding)) ADD(" on %%%s", sdb_event_text(in->binding));
  if (in->replacement) {
    char *r = sdb_expr_str(in->replacement);
    ADD("%sreplaced by %s", n ? ", " : "", r ? r : repl_oom_text());
    free(r);
  }
  if (!in->created) ADD("%smentioned only", n ? ", " : "");
#undef ADD
}

static int info_symbols(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  size_t n = sdb_view_symbol_count(v);
  if (!n) {
    printf("No symbols at this step.\n");
    return 0;
  }
  printf("%-6s %-14s %-18s %s\n", "Sym", "Kind", "Range", "Status");
  for (size_t i = 0; i < n; i++) {
    sdb_view_sym in;
    if (!sdb_view_symbol(v, sdb_view_symbol_at(v, i), &in)) continue;
    char kind[32], r[SDB_RANGE_STRLEN], st[512];
    snprintf(kind, sizeof kind, "%s %s", in.unbacked ? "unbacked" : "backed",
             in.type ? in.type : "int");
    symbol_status(&in, st, sizeof st);
    printf("%-6s %-14s %-18s %s\n", in.sym->name, kind,
           in.has_range ? sdb_range_str(in.range, r, sizeof r) : "-", st);
  }
  return 0;
}

static int info_ranges(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  size_t n = sdb_view_symbol_count(v);
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    sdb_view_sym in;
    if (!sdb_view_symbol(v, sdb_view_symbol_at(v, i), &in) || !in.has_range) continue;
    char r[SDB_RANGE_STRLEN];
    printf("  %-6s %s%s\n", in.sym->name, sdb_range_str(in.range, r, sizeof r),
           in.size_like ? "  (size-like)" : "");
    shown++;
  }
  if (!shown) printf("No value ranges at this step.\n");
  return 0;
}

static int info_tracers(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  const sdb_view *v = dbg_view(dbg_of(s));
  const char *path = sdb_view_tracer(v);
  if (!path) {
    printf("No tracer is active at this step (phase %s).\n", sdb_phase_name(sdb_view_phase(v)));
    return 0;
  }
  /* the path lists tracers outermost first: "trace > cond.true_branch" */
  int depth = 0;
  const char *p = path;
  for (;;) {
    const char *sep = strstr(p, " > ");
    size_t len = sep ? (size_t)(sep - p) : strlen(p);
    printf("  #%d %.*s%s\n", depth, (int)len, p, depth == 0 ? "  (root)" : "");
    depth++;
    if (!sep) break;
    p = sep + 3;
  }
  return 0;
}

/* The graph shown by default: the innermost tracer's; after tracing, the
** aot graph in the aot and lower phases, else the root graph. */
static const char *default_graph(const sdb_view *v) {
  const char *tracer = sdb_view_tracer_graph(v);
  sdb_phase ph = sdb_view_phase(v);
  const char *want = tracer ? tracer
                   : ph == SDB_PHASE_AOT || ph == SDB_PHASE_LOWER ? "aot" : "trace";
  size_t ng = sdb_view_graph_count(v);
  for (size_t g = 0; g < ng; g++)
    if (!strcmp(sdb_view_graph_at(v, g), want)) return sdb_view_graph_at(v, g);
  for (size_t g = 0; g < ng; g++)
    if (!strcmp(sdb_view_graph_at(v, g), "trace")) return sdb_view_graph_at(v, g);
  return ng ? sdb_view_graph_at(v, ng - 1) : NULL;
}

static int info_graph(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  int rc = dbg_import_graph(dbg_of(s), a);   /* `info graph 0/1 aot_forward` */
  if (rc != 1) return rc;
  const sdb_view *v = dbg_view(dbg_of(s));
  size_t ng = sdb_view_graph_count(v);
  if (!ng) {
    printf("No graph nodes at this step.\n");
    return 0;
  }
  const char *graph = NULL;
  if (a->argc > 0) {
    /* the full name, else the first graph whose name ends in "> NAME" */
    size_t len = strlen(a->rest);
    for (size_t g = 0; g < ng && !graph; g++) {
      if (!strcmp(sdb_view_graph_at(v, g), a->rest)) graph = sdb_view_graph_at(v, g);
    }
    for (size_t g = 0; g < ng && !graph; g++) {
      const char *name = sdb_view_graph_at(v, g);
      size_t nl = strlen(name);
      if (nl > len + 2 && !strcmp(name + nl - len, a->rest) && !strncmp(name + nl - len - 2, "> ", 2))
        graph = name;
    }
    if (!graph) {
      repl_error(s, "info graph: no graph '%s' at this step; there are:", a->rest);
      for (size_t g = 0; g < ng; g++) fprintf(stderr, "  %s\n", sdb_view_graph_at(v, g));
      return -1;
    }
  } else {
    graph = default_graph(v);
  }
  size_t nn = sdb_view_node_count(v, graph);
  printf("graph %s (%zu node%s so far):\n", graph, nn, nn == 1 ? "" : "s");
  sdb_view_renames *ren = sdb_view_renames_new(v);
  for (size_t i = 0; i < nn; i++) {
    sdb_view_node node;
    if (!sdb_view_node_at(v, graph, i, &node)) continue;
    /* under the names the symbols go by now (renamed since placed) */
    const char *text = sdb_view_node_line(&node) ? sdb_view_node_line(&node) : node.name;
    char *line = sdb_view_renames_apply(ren, text);
    fputs("    ", stdout);   /* one line per node: no printf for a 100k-node graph */
    fputs(line ? line : text, stdout);
    putchar('\n');
    free(line);
    const sdb_event *b = node.bindings;
    for (uint32_t k = 0; b && k < sdb_event_nsyms(b); k++) {
      const char *path = sdb_event_texts(b) && sdb_event_texts(b)[k] ? sdb_event_texts(b)[k] : "";
      char *sym = sdb_view_renames_apply(ren, sdb_event_syms(b)[k]->name);
      printf("    # %s: %s\n", sym ? sym : sdb_event_syms(b)[k]->name, *path ? path : "<value>");
      free(sym);
    }
  }
  sdb_view_renames_free(ren);
  if (ng > 1) {
    printf("other graphs:");
    for (size_t g = 0; g < ng; g++)
      if (strcmp(sdb_view_graph_at(v, g), graph)) printf(" [%s]", sdb_view_graph_at(v, g));
    putchar('\n');
  }
  return 0;
}

static int info_phases(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  dbg *d = dbg_of(s);
  unsigned c0 = dbg_base_compile(d);   /* seeks: before taking the view */
  const sdb_view *v = dbg_view(d);
  size_t ns = sdb_view_count(v, SDB_EV_PHASE_START);
  size_t ne = sdb_view_count(v, SDB_EV_PHASE_END);
  /* this run's phases only: earlier runs are in `info program` */
  size_t first = 0;
  while (first < ns && sdb_view_at(v, SDB_EV_PHASE_START, first)->seq < d->base) first++;
  if (first == ns) {
    printf("No phase has started at this step.\n");
    return 0;
  }
  /* pair starts with ends: the ends come in nesting order */
  size_t ie = 0;
  for (size_t i = first; i < ns; i++) {
    const sdb_event *st = sdb_view_at(v, SDB_EV_PHASE_START, i);
    const sdb_event *next = i + 1 < ns ? sdb_view_at(v, SDB_EV_PHASE_START, i + 1) : NULL;
    const sdb_event *en = NULL;
    while (ie < ne) {
      const sdb_event *cand = sdb_view_at(v, SDB_EV_PHASE_END, ie);
      if (cand->seq < st->seq) { ie++; continue; }
      if (!next || cand->seq < next->seq) { en = cand; ie++; }
      break;
    }
    printf("  %-7s events %u-", sdb_phase_name(st->phase), st->seq);
    if (en) printf("%-6u", en->seq);
    else printf("%-6s", "");
    if (sdb_event_text(st)) printf(" %s", sdb_event_text(st));
    if (!en) printf("  <- now");
    putchar('\n');
  }
  printf("now: phase %s", sdb_phase_name(sdb_view_phase(v)));
  if (sdb_view_tracer(v)) printf(", tracer %s", sdb_view_tracer(v));
  unsigned cn = sdb_view_compile(v);
  printf(", compile %u\n", cn > c0 ? cn - c0 : cn);
  return 0;
}

/* `info events [N|all]`: the events around the cursor (or N), the current
** one marked, in the batch log's format. */
static int info_events(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  size_t len = dbg_length(d);
  if (len == 0) {
    printf("No events yet.\n");
    return 0;
  }
  size_t center = d->cur ? d->cur - 1 : 0, from, to;
  if (a->argc && !strcmp(a->argv[0], "all")) {
    from = 0;
    to = len;
  } else {
    if (a->argc) {
      char *end;
      long n = strtol(a->argv[0], &end, 10);
      if (*end || n < 0 || (size_t)n >= len) {
        repl_error(s, "info %s: expected `all` or an event number below %zu, got '%s'", c->name, len,
                   a->argv[0]);
        return -1;
      }
      center = (size_t)n;
    }
    from = center > 5 ? center - 5 : 0;
    to = center + 6 < len ? center + 6 : len;
  }
  const sdb_view *v = dbg_view(d);
  if (!d->cur && from == 0) printf("=> (before the first event)\n");   /* where gdb marks it: first */
  for (size_t i = from; i < to; i++) {
    /* Ctrl-C stops a long listing (`info events all` of a million) */
    if (((i - from) & 1023) == 1023 && sdb_cancelled()) {
      fflush(stdout);
      printf("Interrupted after %zu of %zu events listed.\n", i - from, to - from);
      return -1;
    }
    const sdb_event *e = sdb_view_event_at(v, i);
    char *line = e ? sdb_event_format(e) : NULL;
    char *nl = line ? strchr(line, '\n') : NULL;
    if (nl) *nl = '\0';
    bool here = d->cur && i == d->cur - 1;
    printf("%s%5zu  %s%s\n", here ? "=>" : "  ", i, line ? line : repl_oom_text(), nl ? " [...]" : "");
    free(line);
  }
  return 0;
}

static int info_program(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  dbg *d = dbg_of(s);
  if (d->replay) {
    printf("replay: %s\n", d->replay);
    printf("program: %s (not loaded: a replay has no program)\n",
           d->replay_program ? d->replay_program : "unknown");
  } else if (s->program) {
    printf("live run\n");
    printf("program: %s\n", s->program);
    if (s->prog_argc > 0) {
      printf("arguments:");
      for (int i = 0; i < s->prog_argc; i++) printf(" %s", s->prog_argv[i]);
      putchar('\n');
    }
  } else {
    printf("no program loaded\n");
  }
  static const char *const states[] = {
    "not running", "loaded, not started", "paused", "finished", "failed"
  };
  printf("state: %s", states[d->prog]);
  if (d->label && d->prog != PROG_NONE) printf(" (%s)", d->label);
  putchar('\n');
  size_t len = dbg_length(d);
  printf("events: %zu recorded, this run from event %zu; cursor ", len, d->base);
  if (d->cur) printf("after event %zu\n", d->cur - 1);
  else printf("before the first event\n");
  /* earlier live runs (ended: a replay or a new run came after them):
  ** their events are kept; `info events N` still reads them */
  for (size_t i = 0; i < d->nruns; i++) {
    const struct dbg_run *r = &d->runs[i];
    if (r->to <= r->from || (r->from == d->base && !d->replay)) continue;
    printf("earlier run %zu: events %zu-%zu, %s\n", i + 1, r->from, r->to - 1, r->label);
  }
  return 0;
}

static int info_display(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c; (void)a;
  dbg *d = dbg_of(s);
  if (!d->ndisplays) {
    printf("There are no auto-display expressions now.\n");
    return 0;
  }
  printf("Auto-display expressions now in effect:\nNum Enb Expression\n");
  for (size_t i = 0; i < d->ndisplays; i++)
    printf("%-3d %-3s %s\n", d->displays[i].num, d->displays[i].enabled ? "y" : "n",
           d->displays[i].what);
  return 0;
}

/* ------------------------------------------------------------------------
** explain, where, list
** ---------------------------------------------------------------------- */

static int cmd_explain(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  /* on an imported log, a guard's text gives its expression tree */
  if (d->import && (a->argc > 1 || strpbrk(a->rest, "(<>=+*-/")))
    return dbg_import_explain(d, a->rest, false);
  /* a condition or a guard's text (explained as a tree on imported logs
  ** only): say what explain takes, with the whole text the user gave */
  bool all_syms = a->argc > 1;
  for (int i = 0; all_syms && i < a->argc; i++) all_syms = dbg_symbol_shaped(a->argv[i]);
  if (all_syms) {
    repl_error(s, "%s: one symbol at a time (`%s %s`, then `%s %s`)", c->name, c->name, a->argv[0],
               c->name, a->argv[1]);
    return -1;
  }
  if (a->argc > 1 || strpbrk(a->rest, "(<>=+*-/")) {
    repl_error(s, "%s: '%s' is not a symbol: explain takes one symbol (u0, s1) and tells its life; "
                  "`why %s` says why a condition is or is not known (a guard's expression tree is "
                  "explained on imported TORCH_TRACE logs)", c->name, a->rest, a->rest);
    return -1;
  }
  const sdb_expr *sym = dbg_symbol_arg(d, c->name, a->argv[0]);
  if (!sym) return -1;
  char *text = sdb_view_explain(dbg_view(d), sym);
  fputs(text ? text : repl_oom_text(), stdout);   /* NULL only for want of memory */
  free(text);
  if (d->import) dbg_import_explain(d, a->argv[0], true);
  return 0;
}

/* The Lua stack recorded at event seq, or the event's own location. An
** error is recorded where it was reported, after its stack unwound; its
** event keeps the line that raised it. */
static void print_stack_at(dbg *d, const sdb_event *e) {
  const char *stack = e->seq < d->nstacks ? d->stacks[e->seq] : NULL;
  if (e->kind == SDB_EV_ERROR && sdb_event_site(e)->file) {
    printf("raised at %s:%d%s%s\n", dbg_basename(sdb_event_site(e)->file), sdb_event_site(e)->line, sdb_event_site(e)->func ? " in " : "",
           sdb_event_site(e)->func ? sdb_event_site(e)->func : "");
    if (stack) printf("reported from:\n%s\n", stack);
    return;
  }
  if (stack) printf("%s\n", stack);
  else if (sdb_event_site(e)->file) printf("#0  %s at %s:%d\n", sdb_event_site(e)->func ? sdb_event_site(e)->func : "?", dbg_basename(sdb_event_site(e)->file), sdb_event_site(e)->line);
  else if (d->import) printf("(the log gives this record no stack)\n");
  else printf("(no Lua code on the stack: the %s phase runs without the program)\n",
              sdb_phase_name(e->phase));
}

static int cmd_where(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  const sdb_view *v = dbg_view(d);
  const sdb_event *e = NULL;
  if (a->argc == 0) {
    e = sdb_view_event(v);
    if (!e) {
      if (d->prog == PROG_PAUSED && d->paused_line > 0)   /* stopped before any event */
        printf("No events yet: the program is paused at %s:%d, before its first event.\n",
               dbg_basename(d->paused_file ? d->paused_file : "?"), d->paused_line);
      else
        printf("No events yet: the program has not started.\n");
      return 0;
    }
    printf("event %u, %s phase:\n", e->seq, sdb_phase_name(e->phase));
    print_stack_at(d, e);
    return 0;
  }
  const char *what = a->rest;
  sdb_view_sym in;
  const sdb_expr *sym = sdb_sym(a->argv[0]);
  if (a->argc == 1 && sym && sdb_view_symbol(v, sym, &in) && in.creation) {
    e = in.creation;
    printf("%s was created by %s at event %u, %s phase:\n", sym->name,
           sdb_event_op(e) ? sdb_event_op(e) : e->kind == SDB_EV_CREATE_SYMBOL ? "fakifying an input" : "?",
           e->seq, sdb_phase_name(e->phase));
    print_stack_at(d, e);
    return 0;
  }
  /* a guard or runtime assert whose text contains `what` */
  static const sdb_event_kind kinds[] = { SDB_EV_GUARD_ADDED, SDB_EV_RUNTIME_ASSERT };
  int found = 0;
  for (size_t k = 0; k < 2; k++) {
    size_t n = sdb_view_count(v, kinds[k]);
    for (size_t i = 0; i < n; i++) {
      const sdb_event *g = sdb_view_at(v, kinds[k], i);
      char *text = sdb_event_expr(g) ? sdb_expr_str(sdb_event_expr(g)) : NULL;
      if (text && strstr(text, what)) {
        printf("%s%s %s was added at event %u, %s phase:\n", found ? "\n" : "",
               k == 0 ? "guard" : "runtime assert", text, g->seq, sdb_phase_name(g->phase));
        print_stack_at(d, g);
        found++;
      }
      free(text);
    }
  }
  if (!found) {
    repl_error(s, "%s: no symbol, guard or runtime assert matches '%s' at this step", c->name, what);
    return -1;
  }
  return 0;
}

static void list_lines(dbg *d, const char *file, int from, int to, int mark) {
  int count = sdb_srcfile_count(file);
  if (to > count) to = count;
  for (int i = from; i <= to; i++) {
    const char *text = sdb_srcfile_line_raw(file, i);
    printf("%s%-4d%s %s\n", i == mark ? "->" : "  ", i, "", text ? text : "");
  }
  d->list_file = file;
  d->list_next = to + 1;
}

static int cmd_list(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  const sdb_event *e = sdb_view_event(dbg_view(d));
  const char *file = d->list_file ? d->list_file : dbg_program(d);
  /* the arrow: the program's line at a stop made by Ctrl-C, else the
  ** event's line, in that file only */
  const char *mark_file = e ? sdb_event_site(e)->file : NULL;
  int mark = e && sdb_event_site(e)->file ? sdb_event_site(e)->line : -1;
  if (d->interrupted_at == d->cur + 1 && d->paused_line > 0) {
    mark_file = d->paused_file;
    mark = d->paused_line;
  }
  int from = d->list_next > 0 ? d->list_next : 1;
  if (a->argc) {
    const char *w = a->argv[0];
    const char *colon = strrchr(w, ':');
    char *end;
    long line = strtol(colon ? colon + 1 : w, &end, 10);
    if (*end || line <= 0) {
      repl_error(s, "%s: expected LINE or FILE:LINE, got '%s'", c->name, w);
      return -1;
    }
    if (colon) file = sdb_intern_n(w, (size_t)(colon - w));
    else if (!file) file = dbg_program(d);
    int count = file ? sdb_srcfile_count(file) : -1;
    if (count >= 0 && line > count) {
      repl_error(s, "%s: line %ld is past the end of %s (%d lines)", c->name, line,
                 dbg_basename(file), count);
      return -1;
    }
    from = line > 5 ? (int)line - 5 : 1;
  }
  if (!file) {
    repl_error(s, "%s: no program loaded and no event with a location yet", c->name);
    return -1;
  }
  int count = sdb_srcfile_count(file);
  if (count < 0) {
    repl_error(s, "%s: cannot read %s: %s", c->name, file, sdb_srcfile_error(file));
    return -1;
  }
  if (from > count) {
    repl_error(s, "%s: line %d is past the end of %s (%d lines)", c->name, from,
               dbg_basename(file), count);
    return -1;
  }
  if (!mark_file || strcmp(mark_file, file)) mark = -1;
  list_lines(d, file, from, from + 9, mark);
  return 0;
}

/* ------------------------------------------------------------------------
** display
** ---------------------------------------------------------------------- */

/* A display is an info panel's name, or an expression for `print`. */
static void show_display(dbg *d, const dbg_display *disp) {
  repl_session *s = d->s;
  int n;
  bool exact;
  const repl_cmd *panel = repl_cmd_find("info", disp->what, strlen(disp->what), &n, &exact);
  printf("%d: %s\n", disp->num, disp->what);
  if (panel && panel->exec && exact) {
    repl_args none = { 0, NULL, "" };
    panel->exec(s, panel, &none);
  } else {
    dbg_ask_display(d, disp->what);   /* its errors say display:, not print: */
  }
}

void dbg_run_displays(dbg *d) {
  for (size_t i = 0; i < d->ndisplays; i++)
    if (d->displays[i].enabled) show_display(d, &d->displays[i]);
}

static int cmd_display(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)c;
  if (a->argc == 0) {
    if (!d->ndisplays) printf("Nothing to display (`display pending`, `display u0 + 1`).\n");
    dbg_run_displays(d);
    return 0;
  }
  /* refused now, not at every stop: a misspelt panel, an expression that
  ** does not parse. A unique prefix of a panel is stored as its name. */
  const char *what = a->rest;
  int nm;
  bool exact;
  const repl_cmd *panel = repl_cmd_find("info", what, strlen(what), &nm, &exact);
  if (panel && panel->exec && !exact && nm == 1) what = panel->name;
  else if (!(panel && panel->exec && exact)) {
    size_t wl = strspn(what, "abcdefghijklmnopqrstuvwxyz_-");
    bool word = wl > 0 && !what[wl];
    char err[160];
    if (word) {   /* a lone word that is not a symbol name (s0, u12) */
      const char *sug = repl_cmd_suggest("info", what, wl);
      repl_error(s, "%s: no info panel '%s'%s%s%s (`info` lists the panels; an expression works too: `display u0 + 1`)",
                 c->name, what, sug ? ", did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
      return -1;
    }
    if (!sdb_parse(what, err, sizeof err)) {
      repl_error(s, "%s: %s", c->name, err);
      return -1;
    }
  }
  d->displays = realloc(d->displays, (d->ndisplays + 1) * sizeof *d->displays);
  if (!d->displays) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  dbg_display *disp = &d->displays[d->ndisplays++];
  disp->num = ++d->next_display;
  disp->what = strdup(what);
  disp->enabled = true;
  if (!disp->what) exit(1);
  show_display(d, disp);
  return 0;
}

static int cmd_undisplay(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  if (a->argc == 0) {
    for (size_t i = 0; i < d->ndisplays; i++) free(d->displays[i].what);
    d->ndisplays = 0;
    return 0;
  }
  int rc = 0;
  for (int k = 0; k < a->argc; k++) {
    char *end;
    long n = strtol(a->argv[k], &end, 10);
    size_t i = 0;
    while (i < d->ndisplays && (*end || d->displays[i].num != n)) i++;
    if (i == d->ndisplays) {
      repl_error(s, "%s: no display number %s", c->name, a->argv[k]);
      rc = -1;
      continue;
    }
    free(d->displays[i].what);
    memmove(&d->displays[i], &d->displays[i + 1], (d->ndisplays - i - 1) * sizeof *d->displays);
    d->ndisplays--;
  }
  return rc;
}

/* `report`: what `shapedb FILE.lua` prints after the program. */
static int cmd_report(repl_session *s, const repl_cmd *c, const repl_args *a) {
  lua_State *L = s->L;
  (void)c;
  if (a->argc && !strcmp(a->argv[0], "html")) return dbg_report_html(s, a->argc > 1 ? a->argv[1] : NULL);
  if (a->argc > 1 || (a->argc && strcmp(a->argv[0], "quiet"))) {
    repl_error(s, "usage: %s", c->usage);
    return -1;
  }
  bool quiet = a->argc && !strcmp(a->argv[0], "quiet");
  repl_lib_field(L, "shapedb", "report");
  repl_lib_field(L, "io", "stdout");
  lua_pushboolean(L, quiet);
  fflush(stdout);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
    repl_error(s, "report: %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  lua_Integer ncompiles = lua_tointeger(L, -1);
  lua_pop(L, 1);
  fflush(stdout);
  /* the per-compile part comes from the live program's compiles: a replay
  ** (or an imported log) has their events only, and says where they are */
  dbg *d = dbg_of(s);
  if (!ncompiles && d->replay && dbg_length(d) > 0)
    printf("(a replay has the run's events, not its compiles: `info graph`, `info bindings` and "
           "`info guards` show each at a step, `report html DIR` all of them)\n");
  return 0;
}

/* ------------------------------------------------------------------------
** Registration
** ---------------------------------------------------------------------- */

static const char *const report_words[] = { "quiet", "html", NULL };

static const repl_cmd info_cmds[] = {
  { "pending", NULL, "data", "info pending",
    "the fresh unbacked symbols waiting for a binding",
    "List the pending fresh unbacked symbols: created by an operator whose\n"
    "output has not yet been placed in the graph, where its key path will be\n"
    "recorded (compute_unbacked_bindings). Each with its range and creation.\n"
    "A symbol still pending when its node is placed is the error\n"
    "PendingUnbackedSymbolNotFound.\n"
    "\nExample:\n"
    "  (shapedb) info pending\n"
    "  pending: {u0}\n",
    info_pending, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "bindings", NULL, "data", "info bindings",
    "the unbacked bindings recorded on graph nodes",
    "For each graph node that defines unbacked symbols, the key path from the\n"
    "node's output to each symbol (`u0: .size()[0]`; `<value>` for item()).\n"
    "\nExample:\n"
    "  (shapedb) info bindings\n"
    "  graph trace:\n"
    "    %nonzero: u0: .size()[0]  (event 12)\n",
    info_bindings, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "guards", "g", "data", "info guards",
    "the guards taken, with phase and Lua line",
    "List the guards added so far in this compile, with the phase and the Lua\n"
    "line that took them, and the installed guard set once there is one.\n"
    "\nExample:\n"
    "  (shapedb) info guards\n",
    info_guards, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "replacements", NULL, "data", "info replacements",
    "the symbol replacements in force",
    "List the replacements in force (s1 -> s0 after Eq(s0, s1); u1 -> u0 after\n"
    "a rename), with the reason and where they were made.\n"
    "\nExample:\n"
    "  (shapedb) info replacements\n",
    info_replacements, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "asserts", NULL, "data", "info asserts",
    "the deferred runtime asserts",
    "List the deferred runtime asserts (torch._check on unbacked symbols),\n"
    "each with the symbol it is keyed on and where it was added.\n"
    "\nExample:\n"
    "  (shapedb) info asserts\n",
    info_asserts, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "symbols", NULL, "data", "info symbols",
    "every symbol: kind, range, status",
    "A table of the symbols of the current compile: backed or unbacked, value\n"
    "range, and status (hint and source, size-like, pending, bound, replaced).\n"
    "\nExample:\n"
    "  (shapedb) info symbols\n",
    info_symbols, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "ranges", NULL, "data", "info ranges",
    "the value range of each symbol",
    "The value range of each symbol at this step, and which are size-like.\n"
    "\nExample:\n"
    "  (shapedb) info ranges\n",
    info_ranges, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "tracers", NULL, "stack", "info tracers",
    "the tracer stack (trace > cond.true_branch)",
    "The stack of tracers at this step, outermost first: the root tracer and\n"
    "any subgraph tracers a higher-order op (cond, wrap) opened.\n"
    "\nExample:\n"
    "  (shapedb) info tracers\n",
    info_tracers, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "graph", NULL, "data", "info graph [NAME]",
    "the nodes of a graph so far",
    "The nodes placed so far in the current tracer's graph (or the graph\n"
    "NAME: `trace`, `cond.true_branch`, `aot`), with their unbacked bindings.\n"
    "\nExample:\n"
    "  (shapedb) info graph\n"
    "  (shapedb) info graph aot\n",
    info_graph, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "phases", NULL, "status", "info phases",
    "the phases so far, with their event ranges",
    "The phases started so far (trace, aot, lower, guards) with the events\n"
    "each spans, and where the cursor is.\n"
    "\nExample:\n"
    "  (shapedb) info phases\n",
    info_phases, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "events", NULL, "status", "info events [N|all]",
    "the events around the cursor (or N, or all)",
    "The events around the cursor in the batch log's format, the current one\n"
    "marked with =>; around event N; or all of them.\n"
    "\nExample:\n"
    "  (shapedb) info events\n",
    info_events, REPL_COMPLETE_NONE, NULL, 0, 1, false },
  { "program", NULL, "status", "info program",
    "the program, its state and the cursor",
    "The loaded program and its arguments, whether it is running, paused or\n"
    "finished, how many events were recorded and where the cursor is.\n"
    "\nExample:\n"
    "  (shapedb) info program\n",
    info_program, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "display", NULL, "status", "info display",
    "what is shown at every stop",
    "The auto-display list (`display`), with numbers for `undisplay`.\n"
    "\nExample:\n"
    "  (shapedb) info display\n",
    info_display, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

static const repl_cmd show_cmds[] = {
  { "explain", "e", "data", "explain SYM|GUARD",
    "the whole life of a symbol",
    "Everything that happened to SYM up to this step: created by which op at\n"
    "which line, pending until which node, bound with which key path, lifted\n"
    "into which subgraphs, renamed from or to, defined by which buffer, and in\n"
    "which guards and asserts it appears. On a TORCH_TRACE log (`replay`),\n"
    "also the expression trees the log's expression_created records give for\n"
    "it, and `explain GUARD` (as logged: Eq(s0, 3)) shows that guard's tree.\n"
    "\nExample:\n"
    "  (shapedb) explain u0\n",
    cmd_explain, REPL_COMPLETE_SYMBOL, NULL, 1, -1, false },
  { "where", "bt backtrace", "stack", "where [SYM|GUARD]",
    "the Lua stack here, or where SYM or a guard came from",
    "Without arguments, the Lua stack of the program at the current event.\n"
    "With a symbol, the stack and phase where it was created; with text, the\n"
    "same for every guard or runtime assert whose text contains it. Live runs\n"
    "record the whole user stack; otherwise only the innermost line is known.\n"
    "\nExample:\n"
    "  (shapedb) where u0\n"
    "  (shapedb) where Eq(s0\n",
    cmd_where, REPL_COMPLETE_SYMBOL, NULL, 0, -1, false },
  { "list", "l", "files", "list [LINE|FILE:LINE]",
    "the program's source around the current event",
    "List ten source lines around the current event's line (marked ->);\n"
    "again to continue; around LINE or FILE:LINE.\n"
    "\nExample:\n"
    "  (shapedb) list\n"
    "  (shapedb) list nonzero.lua:1\n",
    cmd_list, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "display", NULL, "status", "display [PANEL|EXPR]",
    "show a panel or an expression at every stop",
    "Show PANEL (an `info` panel: pending, guards, bindings, ...) or the\n"
    "expression EXPR (as `print` shows it) at every stop. Without arguments,\n"
    "show them all now. `undisplay N` removes one.\n"
    "\nExample:\n"
    "  (shapedb) display pending\n"
    "  (shapedb) display u0 + 1\n",
    cmd_display, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "undisplay", NULL, "status", "undisplay [N...]",
    "stop showing displays (all without N)",
    "Remove the displays numbered N (all of them without arguments).\n"
    "\nExample:\n"
    "  (shapedb) undisplay 1\n",
    cmd_undisplay, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "report", NULL, "data", "report [quiet|html DIR]",
    "the batch report: event log, graphs, bindings, guards",
    "Print the report the non-interactive run prints after the program: the\n"
    "event log, then per compiled function its graphs, bindings and guards\n"
    "(only those with `quiet`). `report html DIR` writes it as a static HTML\n"
    "report instead (DIR/index.html, a page per compile with the symbol\n"
    "timeline, the graphs, guards and every symbol's explain), up to the\n"
    "cursor.\n"
    "\nExample:\n"
    "  (shapedb) report quiet\n"
    "  (shapedb) report html out\n",
    cmd_report, REPL_COMPLETE_WORDS, report_words, 0, 2, false },
};

void dbg_info_init(void) {
  repl_cmd_register_sub("info", info_cmds, sizeof info_cmds / sizeof info_cmds[0]);
  repl_cmd_register(show_cmds, sizeof show_cmds / sizeof show_cmds[0]);
}
