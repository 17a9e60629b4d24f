/*
** render_html.c — the static HTML report (see render_html.h).
**
** Each page is built in memory and written once; a failed write names the
** file. Compiles are found as the timeline numbers them (each top-level
** trace phase starts one); a compile's state is the view at its last
** event, so the report of a run cut short shows what had happened.
*/
#include "render_html.h"
#include "render_dot.h"
#include "render_timeline.h"

#include "buf.h"
#include "cancel.h"
#include "expr.h"
#include "torch_trace_import.h"

#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char css[] =
  "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:110em}"
  "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
  "code,pre,td.m{font:12px/1.4 ui-monospace,monospace}"
  "pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"
  "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:baseline}"
  "th{background:#f0f0f0}.ok{color:#070}.bad{color:#b00}.muted{color:#777}"
  "ins{background:#dfd;text-decoration:none}del{background:#fdd}"
  "svg text{font:11px ui-monospace,monospace}"
  ".m-created{fill:#2a2}.m-pending{fill:#e90}.m-bound{fill:#14c}.m-lifted{fill:#58c}"
  ".m-renamed,.m-renamed-to,.m-join{fill:#0aa}.m-guard{fill:#a3a}.m-replaced{fill:#099}"
  ".m-buffer{fill:#070}.m-other{fill:#888}.m-alive{fill:#ccc}"
  "nav a{margin-right:1em}details{margin:.2em 0}";

static void esc(sdb_buf *b, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
      case '<': sdb_buf_puts(b, "&lt;"); break;
      case '>': sdb_buf_puts(b, "&gt;"); break;
      case '&': sdb_buf_puts(b, "&amp;"); break;
      case '"': sdb_buf_puts(b, "&quot;"); break;
      default: sdb_buf_putc(b, *s);
    }
  }
}

static void esc_expr(sdb_buf *b, const sdb_expr *e) {
  char *s = e ? sdb_expr_str(e) : NULL;
  esc(b, s ? s : "?");
  free(s);
}

static void page_head(sdb_buf *b, const char *title) {
  sdb_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
  esc(b, title);
  sdb_buf_printf(b, "</title>\n<style>%s</style></head><body>\n", css);
}

static void where(sdb_buf *b, const sdb_event *e) {
  if (sdb_event_site(e)->file) {
    const char *base = strrchr(sdb_event_site(e)->file, '/');
    esc(b, base ? base + 1 : sdb_event_site(e)->file);
    sdb_buf_printf(b, ":%d", (int)sdb_event_site(e)->line);
  } else {
    sdb_buf_puts(b, "<span class=\"muted\">-</span>");
  }
}

/* Through a temporary file renamed over the old one once complete: a full
** disk leaves a page of an earlier report whole, not cut short. */
static int write_file(const char *dir, const char *name, sdb_buf *b, const char **why) {
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f && fd >= 0) { close(fd); unlink(tmp); fd = -1; }
  if (f) fchmod(fd, 0644);
  bool ok = f && fwrite(sdb_buf_cstr(b), 1, b->len, f) == b->len;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    *why = strerror(errno);
    if (f) unlink(tmp);
  }
  return ok ? 0 : -1;
}

/* `dot -Tsvg in -o out.tmp`, renamed onto out when dot succeeds, so a
** failing dot or a full disk keeps an earlier out whole; false when
** Graphviz is missing or fails. */
static bool run_dot(const char *in, const char *out) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  char *argv[] = {"dot", "-Tsvg", (char *)in, "-o", tmp, NULL};
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1 /* O_WRONLY */, 0);
  int rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return false;
  int st;
  bool ok = waitpid(pid, &st, 0) >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (ok && rename(tmp, out) != 0) ok = false;
  if (!ok) remove(tmp);
  return ok;
}

/* --- one compile ------------------------------------------------------------ */

typedef struct compile_info {
  unsigned n;
  const char *fn;
  size_t lo, hi;           /* events [lo, hi) */
  size_t nsyms, nunbacked, nguards, nasserts, nerrors;
  const char *recompile;   /* the reason it was compiled again, or NULL */
  const char *const *installed;
  size_t ninstalled;
  const sdb_tti_compile *tc; /* the log's compile, on an imported log */
} compile_info;

static size_t count_in(const sdb_view *v, sdb_event_kind k, size_t lo, size_t hi);

static void timeline_svg(sdb_buf *b, sdb_timeline *t, const compile_info *c) {
  repl_timeline_grid g;
  if (repl_timeline_build(t, c->hi, 240, &g) != 0 || !g.nrows) {
    sdb_buf_puts(b, "<p class=\"muted\">No symbols.</p>\n");
    repl_timeline_grid_free(&g);
    return;
  }
  /* wide cells when there are few columns, so short compiles read too */
  const int cw = g.ncols < 60 ? 14 : g.ncols < 120 ? 8 : 6, rh = 16, lw = 60;
  sdb_buf_printf(b, "<p>Events %zu-%zu, one column = %zu event%s.</p>\n", g.lo, g.hi - 1, g.per,
                 g.per == 1 ? "" : "s");
  sdb_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" role=\"img\">\n",
                 (size_t)lw + g.ncols * cw + 10, g.nrows * rh + 8);
  for (size_t i = 0; i < g.nrows; i++) {
    size_t y = i * rh + 4;
    sdb_buf_printf(b, "<text x=\"2\" y=\"%zu\">", y + 11);
    esc(b, g.syms[i]->name);
    sdb_buf_puts(b, "</text>\n");
    const unsigned char *cells = g.cells + i * g.ncols;
    for (size_t x = 0; x < g.ncols; x++) {
      int m = cells[x];
      if (m == REPL_TL_NONE) continue;
      const char *name = repl_timeline_mark_name(m);
      size_t px = (size_t)lw + x * cw;
      if (m == REPL_TL_ALIVE)
        sdb_buf_printf(b, "<rect class=\"m-alive\" x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"2\"/>\n",
                       px, y + 7, cw);
      else if (m == REPL_TL_PENDING || m == REPL_TL_JOIN)
        sdb_buf_printf(b, "<rect class=\"m-%s\" x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\"/>\n", name,
                       px, m == REPL_TL_JOIN ? y : y + 4, m == REPL_TL_JOIN ? 2 : cw,
                       m == REPL_TL_JOIN ? rh : 8);
      else
        sdb_buf_printf(b, "<circle class=\"m-%s\" cx=\"%zu\" cy=\"%zu\" r=\"3\"><title>%s %s, event %zu</title></circle>\n",
                       name, px + cw / 2, y + 8, g.syms[i]->name, name, g.lo + x * g.per);
    }
  }
  sdb_buf_puts(b, "</svg>\n<p>");
  static const int legend[] = {REPL_TL_CREATED, REPL_TL_PENDING, REPL_TL_BOUND, REPL_TL_LIFTED,
                               REPL_TL_RENAMED_FROM, REPL_TL_GUARD, REPL_TL_REPLACED,
                               REPL_TL_DEFINED, REPL_TL_OTHER};
  for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
    sdb_buf_printf(b, "<svg width=\"10\" height=\"10\"><circle class=\"m-%s\" cx=\"5\" cy=\"5\" r=\"4\"/></svg> %s &nbsp;",
                   repl_timeline_mark_name(legend[i]), repl_timeline_mark_name(legend[i]));
  sdb_buf_puts(b, "</p>\n");
  repl_timeline_grid_free(&g);
}

static void facts_table(sdb_buf *b, const sdb_view *v, sdb_event_kind kind, const char *what) {
  size_t n = sdb_view_count(v, kind);
  sdb_buf_printf(b, "<h2>%s (%zu)</h2>\n", what, n);
  if (!n) return;
  sdb_buf_puts(b, "<table><tr><th>expression</th><th>phase</th><th>where</th><th>event</th></tr>\n");
  for (size_t i = 0; i < n; i++) {
    const sdb_event *e = sdb_view_at(v, kind, i);
    sdb_buf_puts(b, "<tr><td class=\"m\">");
    esc_expr(b, sdb_event_expr(e));
    sdb_buf_printf(b, "</td><td>%s</td><td class=\"m\">", sdb_phase_name((sdb_phase)e->phase));
    where(b, e);
    sdb_buf_printf(b, "</td><td>%u</td></tr>\n", e->seq);
  }
  sdb_buf_puts(b, "</table>\n");
}

/* Lines of a only (-) and of b only (+), both sorted. */
static void guard_diff(sdb_buf *b, const compile_info *prev, const compile_info *c) {
  sdb_buf_printf(b, "<p>Guard set against compile <a href=\"compile-%u.html\">%u</a>:</p>\n<pre>",
                 prev->n, prev->n);
  size_t changes = 0;
  for (size_t i = 0; i < prev->ninstalled; i++) {
    bool kept = false;
    for (size_t j = 0; j < c->ninstalled && !kept; j++) kept = !strcmp(prev->installed[i], c->installed[j]);
    if (kept) continue;
    sdb_buf_puts(b, "<del>- ");
    esc(b, prev->installed[i]);
    sdb_buf_puts(b, "</del>\n");
    changes++;
  }
  for (size_t j = 0; j < c->ninstalled; j++) {
    bool old = false;
    for (size_t i = 0; i < prev->ninstalled && !old; i++) old = !strcmp(prev->installed[i], c->installed[j]);
    if (old) continue;
    sdb_buf_puts(b, "<ins>+ ");
    esc(b, c->installed[j]);
    sdb_buf_puts(b, "</ins>\n");
    changes++;
  }
  if (!changes) sdb_buf_puts(b, "(the same guards)\n");
  sdb_buf_puts(b, "</pre>\n");
}

/* Was p an earlier compile of c's function? On a log, the same frame id
** (PyTorch's [frame/attempt] numbering); on a run, the same function. */
static bool same_function(const compile_info *p, const compile_info *c) {
  if (p->tc && c->tc)
    return p->tc->cid.frame == c->tc->cid.frame && p->tc->cid.ca == c->tc->cid.ca;
  return p->fn && c->fn && !strcmp(p->fn, c->fn);
}

/* The log's own texts for one compile: its graphs and generated code, as
** `info graph ID KIND` prints them. */
static void log_graphs(sdb_buf *b, const sdb_tti_compile *tc) {
  sdb_buf_printf(b, "<h2>Graphs and code in the log (%zu)</h2>\n", tc->ngraphs);
  for (size_t g = 0; g < tc->ngraphs; g++) {
    const sdb_tti_graph *gr = &tc->graphs[g];
    sdb_buf_puts(b, g == 0 ? "<details open><summary>" : "<details><summary>");
    esc(b, gr->kind);
    sdb_buf_printf(b, " <span class=\"muted\">(log line %ld)</span></summary><pre>", gr->line);
    esc(b, gr->text);
    sdb_buf_puts(b, "</pre></details>\n");
  }
}

static int compile_page(const char *dir, sdb_timeline *t, const compile_info *cs, size_t i,
                        const char **why) {
  const compile_info *c = &cs[i];
  sdb_buf b = SDB_BUF_INIT;
  char title[256];
  snprintf(title, sizeof title, "compile %u (%s)", c->n, c->fn ? c->fn : "?");
  if (c->tc && c->tc->func)
    snprintf(title, sizeof title, "compile %s %s", c->tc->id, c->tc->func);
  else if (c->tc)
    snprintf(title, sizeof title, "compile %s", c->tc->id);
  page_head(&b, title);
  sdb_buf_puts(&b, "<nav><a href=\"index.html\">index</a>");
  if (i > 0) sdb_buf_printf(&b, "<a href=\"compile-%u.html\">previous compile</a>", cs[i - 1].n);
  sdb_buf_puts(&b, "</nav>\n<h1>");
  esc(&b, title);
  sdb_buf_printf(&b, "</h1>\n<p>Events %zu-%zu: %zu symbols (%zu unbacked), %zu guards, %zu runtime asserts.</p>\n",
                 c->lo, c->hi ? c->hi - 1 : 0, c->nsyms, c->nunbacked, c->nguards, c->nasserts);

  if (c->tc) {
    const sdb_tti_compile *tc = c->tc;
    sdb_buf_puts(&b, "<p>");
    if (tc->file) {
      sdb_buf_puts(&b, "<code>");
      esc(&b, tc->file);
      sdb_buf_printf(&b, ":%ld</code>, ", tc->lineno);
    }
    sdb_buf_printf(&b, "from log line %ld: <span class=\"%s\">", tc->first_line,
                   strcmp(tc->status, "failed") ? "ok" : "bad");
    esc(&b, tc->status);
    sdb_buf_puts(&b, "</span></p>\n");
    if (tc->fail_type || tc->fail_reason) {
      sdb_buf_puts(&b, "<h2 class=\"bad\">Failure</h2>\n<pre>");
      esc(&b, tc->fail_type ? tc->fail_type : "");
      if (tc->fail_type && tc->fail_reason) sdb_buf_puts(&b, ": ");
      esc(&b, tc->fail_reason ? tc->fail_reason : "");
      sdb_buf_puts(&b, "</pre>\n");
    }
  }
  if (c->recompile) {
    sdb_buf_puts(&b, "<h2>Why it was compiled again</h2>\n<pre>");
    esc(&b, c->recompile);
    sdb_buf_puts(&b, "</pre>\n");
    for (size_t p = i; p-- > 0;)
      if (same_function(&cs[p], c)) {
        guard_diff(&b, &cs[p], c);
        break;
      }
  }

  sdb_buf_puts(&b, "<h2>Symbol timeline</h2>\n");
  timeline_svg(&b, t, c);

  const sdb_view *v = sdb_timeline_seek(t, c->hi);
  if (c->tc) log_graphs(&b, c->tc);
  size_t ngraphs = v ? sdb_view_graph_count(v) : 0;
  if (!c->tc || ngraphs) sdb_buf_puts(&b, "<h2>Graphs</h2>\n");
  char dotname[64], svgname[64], dotpath[4200], svgpath[4200];
  snprintf(dotname, sizeof dotname, "compile-%u.dot", c->n);
  snprintf(svgname, sizeof svgname, "compile-%u.svg", c->n);
  snprintf(dotpath, sizeof dotpath, "%s/%s", dir, dotname);
  snprintf(svgpath, sizeof svgpath, "%s/%s", dir, svgname);
  const char *dwhy;
  if ((!c->tc || ngraphs) && repl_dot_save(t, c->hi, false, dotpath, &dwhy) == 0) {
    if (run_dot(dotpath, svgpath))
      sdb_buf_printf(&b, "<p><img src=\"%s\" alt=\"the graphs of this compile\" style=\"max-width:100%%\"></p>\n", svgname);
    else
      sdb_buf_printf(&b, "<p class=\"muted\">Graphviz's <code>dot</code> is not installed: the graphs are "
                         "in <a href=\"%s\">%s</a> and as text below.</p>\n", dotname, dotname);
  }
  v = sdb_timeline_seek(t, c->hi);
  size_t ng = v ? sdb_view_graph_count(v) : 0;
  sdb_view_renames *ren = v ? sdb_view_renames_new(v) : NULL;
  for (size_t g = 0; g < ng; g++) {
    const char *graph = sdb_view_graph_at(v, g);
    size_t nn = sdb_view_node_count(v, graph);
    sdb_buf_puts(&b, g == 0 ? "<details open><summary>" : "<details><summary>");
    esc(&b, graph);
    sdb_buf_printf(&b, " (%zu nodes)</summary><pre>", nn);
    for (size_t k = 0; k < nn; k++) {
      sdb_view_node node;
      if (!sdb_view_node_at(v, graph, k, &node)) continue;
      const char *text = sdb_view_node_line(&node) ? sdb_view_node_line(&node) : node.name;
      char *line = sdb_view_renames_apply(ren, text);   /* names now */
      esc(&b, line ? line : text);
      free(line);
      sdb_buf_putc(&b, '\n');
      for (uint32_t s = 0; node.bindings && s < sdb_event_nsyms(node.bindings); s++) {
        const char *path = sdb_event_texts(node.bindings) && sdb_event_texts(node.bindings)[s] ? sdb_event_texts(node.bindings)[s] : "";
        sdb_buf_puts(&b, "# ");
        char *sym = sdb_view_renames_apply(ren, sdb_event_syms(node.bindings)[s]->name);
        esc(&b, sym ? sym : sdb_event_syms(node.bindings)[s]->name);
        free(sym);
        sdb_buf_puts(&b, ": ");
        esc(&b, *path ? path : "<value>");
        sdb_buf_putc(&b, '\n');
      }
    }
    sdb_buf_puts(&b, "</pre></details>\n");
  }
  sdb_view_renames_free(ren);

  facts_table(&b, v, SDB_EV_GUARD_ADDED, "Guards");
  facts_table(&b, v, SDB_EV_RUNTIME_ASSERT, "Runtime asserts");
  sdb_buf_printf(&b, "<h2>Installed guard set (%zu)</h2>\n", c->ninstalled);
  if (c->tc && c->tc->installed_from)
    sdb_buf_printf(&b, "<p class=\"muted\">From the log's <code>%s</code>, sorted.</p>\n",
                   c->tc->installed_from);
  sdb_buf_puts(&b, "<pre>");
  for (size_t k = 0; k < c->ninstalled; k++) {
    esc(&b, c->installed[k]);
    sdb_buf_putc(&b, '\n');
  }
  sdb_buf_puts(&b, "</pre>\n");

  size_t ns = v ? sdb_view_symbol_count(v) : 0;
  sdb_buf_printf(&b, "<h2>Symbols (%zu)</h2>\n", ns);
  for (size_t k = 0; k < ns; k++) {
    const sdb_expr *sym = sdb_view_symbol_at(v, k);
    char *text = sdb_view_explain(v, sym);
    sdb_buf_puts(&b, "<details><summary><code>");
    esc(&b, sym->name);
    sdb_buf_puts(&b, "</code></summary><pre>");
    esc(&b, text ? text : "");
    sdb_buf_puts(&b, "</pre></details>\n");
    free(text);
  }
  if (c->nerrors) {
    sdb_buf_printf(&b, "<h2 class=\"bad\">Errors (%zu)</h2>\n", c->nerrors);
    size_t ne = sdb_view_count(v, SDB_EV_ERROR);
    for (size_t k = 0; k < ne; k++) {
      const sdb_event *e = sdb_view_at(v, SDB_EV_ERROR, k);
      if (e->seq < c->lo || e->seq >= c->hi) continue;
      sdb_buf_puts(&b, "<p class=\"m\">");
      where(&b, e);
      sdb_buf_puts(&b, "</p><pre>");
      esc(&b, sdb_event_text(e));
      sdb_buf_puts(&b, ": ");
      esc(&b, sdb_event_detail(e));
      sdb_buf_puts(&b, "</pre>\n");
    }
  }
  size_t nb = count_in(v, SDB_EV_GRAPH_BREAK, c->lo, c->hi);
  if (nb) {
    /* an imported log's dynamo_graph_break_reason: where, why, the whole text */
    sdb_buf_printf(&b, "<h2>Graph breaks (%zu)</h2>\n", nb);
    size_t total = sdb_view_count(v, SDB_EV_GRAPH_BREAK);
    for (size_t k = 0; k < total; k++) {
      const sdb_event *e = sdb_view_at(v, SDB_EV_GRAPH_BREAK, k);
      if (e->seq < c->lo || e->seq >= c->hi) continue;
      sdb_buf_puts(&b, "<p class=\"m\">");
      where(&b, e);
      sdb_buf_puts(&b, "</p><details><summary>");
      esc(&b, sdb_event_text(e) ? sdb_event_text(e) : "graph break");
      sdb_buf_puts(&b, "</summary><pre>");
      esc(&b, sdb_event_detail(e) ? sdb_event_detail(e) : "");
      sdb_buf_puts(&b, "</pre></details>\n");
    }
  }
  sdb_buf_puts(&b, "</body></html>\n");
  char name[64];
  snprintf(name, sizeof name, "compile-%u.html", c->n);
  int rc = write_file(dir, name, &b, why);
  sdb_buf_free(&b);
  return rc;
}

/* --- the index -------------------------------------------------------------- */

static size_t count_in(const sdb_view *v, sdb_event_kind k, size_t lo, size_t hi) {
  size_t n = 0, total = sdb_view_count(v, k);
  for (size_t i = 0; i < total; i++) {
    const sdb_event *e = sdb_view_at(v, k, i);
    if (e->seq >= lo && e->seq < hi) n++;
  }
  return n;
}

/* A compile's status cell: the log's status and reason on an import, else
** what the run's events say. */
static void status_cell(sdb_buf *b, const compile_info *c) {
  const sdb_tti_compile *tc = c->tc;
  if (tc) {
    bool failed = !strcmp(tc->status, "failed");
    sdb_buf_printf(b, "<span class=\"%s\">", failed ? "bad" : "ok");
    esc(b, tc->status);
    if (tc->fail_type) {
      sdb_buf_puts(b, ": ");
      esc(b, tc->fail_type);
    }
    sdb_buf_puts(b, "</span>");
    if (tc->recompile_reason) {
      sdb_buf_puts(b, ", recompile: ");
      esc(b, tc->recompile_reason);
    }
    if (tc->graph_breaks)
      sdb_buf_printf(b, ", %ld graph break%s", tc->graph_breaks, tc->graph_breaks == 1 ? "" : "s");
    return;
  }
  if (c->nerrors) sdb_buf_printf(b, "<span class=\"bad\">failed (%zu error%s)</span>", c->nerrors,
                                 c->nerrors == 1 ? "" : "s");
  else sdb_buf_puts(b, "<span class=\"ok\">ok</span>");
  if (c->recompile) sdb_buf_puts(b, ", recompile");
}

static int index_page(const char *dir, sdb_timeline *t, size_t step, const char *title,
                      const sdb_tti *imp, const compile_info *cs, size_t ncs, const char **why) {
  sdb_buf b = SDB_BUF_INIT;
  char head[512];
  snprintf(head, sizeof head, "shapedb report: %s", title ? title : "run");
  page_head(&b, head);
  sdb_buf_puts(&b, "<h1>");
  esc(&b, head);
  sdb_buf_printf(&b, "</h1>\n<p>%zu events, %zu compile%s.</p>\n", step, ncs, ncs == 1 ? "" : "s");
  sdb_buf_puts(&b, "<h2>Compiles</h2>\n<table><tr><th>compile</th><th>function</th><th>events</th>"
                   "<th>symbols</th><th>unbacked</th><th>guards</th><th>runtime asserts</th><th>status</th></tr>\n");
  for (size_t i = 0; i < ncs; i++) {
    const compile_info *c = &cs[i];
    if (c->tc) {
      sdb_buf_printf(&b, "<tr><td><a href=\"compile-%u.html\">", c->n);
      esc(&b, c->tc->id);
      sdb_buf_puts(&b, "</a></td><td class=\"m\">");
      esc(&b, c->tc->func ? c->tc->func : "?");
      if (c->tc->file) {
        const char *base = strrchr(c->tc->file, '/');
        sdb_buf_puts(&b, " <span class=\"muted\">(");
        esc(&b, base ? base + 1 : c->tc->file);
        sdb_buf_printf(&b, ":%ld)</span>", c->tc->lineno);
      }
    } else {
      sdb_buf_printf(&b, "<tr><td><a href=\"compile-%u.html\">%u</a></td><td class=\"m\">", c->n, c->n);
      esc(&b, c->fn ? c->fn : "?");
    }
    sdb_buf_printf(&b, "</td><td>%zu-%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>",
                   c->lo, c->hi ? c->hi - 1 : 0, c->nsyms, c->nunbacked, c->nguards, c->nasserts);
    status_cell(&b, c);
    sdb_buf_puts(&b, "</td></tr>\n");
  }
  sdb_buf_puts(&b, "</table>\n");
  if (imp) {
    /* what was read and what was skipped, as `info records` says it */
    char *records = sdb_tti_records_text(imp);
    sdb_buf_puts(&b, "<h2>Records</h2>\n<pre>");
    esc(&b, records ? records : "");
    sdb_buf_puts(&b, "</pre>\n");
    free(records);
  }

  const sdb_view *v = sdb_timeline_seek(t, step);
  size_t np = v ? sdb_view_count(v, SDB_EV_PHASE_START) : 0;
  sdb_buf_printf(&b, "<h2>Phases (%zu)</h2>\n<table><tr><th>event</th><th>phase</th><th>what</th><th>where</th></tr>\n", np);
  for (size_t i = 0; i < np; i++) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_PHASE_START, i);
    sdb_buf_printf(&b, "<tr><td>%u</td><td>%s</td><td class=\"m\">", e->seq, sdb_phase_name((sdb_phase)e->phase));
    esc(&b, sdb_event_text(e));
    sdb_buf_puts(&b, "</td><td class=\"m\">");
    where(&b, e);
    sdb_buf_puts(&b, "</td></tr>\n");
  }
  sdb_buf_puts(&b, "</table>\n");

  size_t nr = v ? sdb_view_count(v, SDB_EV_RECOMPILE) : 0;
  sdb_buf_printf(&b, "<h2>Recompiles (%zu)</h2>\n", nr);
  for (size_t i = 0; i < nr; i++) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_RECOMPILE, i);
    sdb_buf_printf(&b, "<p>event %u, ", e->seq);
    where(&b, e);
    sdb_buf_puts(&b, "</p><pre>");
    esc(&b, sdb_event_detail(e));
    sdb_buf_puts(&b, "</pre>\n");
  }
  size_t ne = v ? sdb_view_count(v, SDB_EV_ERROR) : 0;
  sdb_buf_printf(&b, "<h2>Errors (%zu)</h2>\n", ne);
  for (size_t i = 0; i < ne; i++) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_ERROR, i);
    sdb_buf_printf(&b, "<p>event %u, ", e->seq);
    where(&b, e);
    sdb_buf_puts(&b, "</p><pre>");
    esc(&b, sdb_event_text(e));
    sdb_buf_puts(&b, ": ");
    esc(&b, sdb_event_detail(e));
    sdb_buf_puts(&b, "</pre>\n");
  }
  sdb_buf_puts(&b, "<p class=\"muted\">Written by shapedb from the run's events.</p>\n</body></html>\n");
  int rc = write_file(dir, "index.html", &b, why);
  sdb_buf_free(&b);
  return rc;
}

/* mkdir -p: the report folder's parents are made too, as tlparse -o does. */
static int make_dirs(const char *dir) {
  char path[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(path, dir, n + 1);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int repl_html_write(const char *dir, sdb_timeline *t, size_t step, const char *title,
                    const sdb_tti *imp, const char **why) {
  *why = NULL;
  if (make_dirs(dir) != 0) {
    *why = strerror(errno);
    return -1;
  }
  size_t len = sdb_timeline_length(t);
  if (sdb_cancelled()) {   /* Ctrl-C: the earlier report stays whole */
    *why = "interrupted";
    return -1;
  }
  if (step > len) step = len;
  const sdb_view *at = sdb_timeline_seek(t, step);
  unsigned last = at ? sdb_view_compile(at) : 0;
  compile_info *cs = calloc(last ? last : 1, sizeof *cs);
  if (!cs) {
    *why = "out of memory";
    return -1;
  }
  size_t ncs = 0;
  for (unsigned n = 1; n <= last; n++) {
    compile_info *c = &cs[ncs];
    size_t first = repl_compile_first_step(t, step, n);
    size_t next = n < last ? repl_compile_first_step(t, step, n + 1) : step + 1;
    c->n = n;
    c->lo = first - 1;
    c->hi = next - 1;
    const sdb_view *sv = sdb_timeline_seek(t, first);
    const sdb_event *pe = sv ? sdb_view_event(sv) : NULL;
    c->fn = pe && pe->kind == SDB_EV_PHASE_START ? sdb_event_text(pe) : NULL;
    c->tc = imp ? sdb_tti_compile_of_event(imp, c->lo) : NULL;
    const sdb_view *v = sdb_timeline_seek(t, c->hi);
    if (!v) continue;
    c->nsyms = sdb_view_symbol_count(v);
    for (size_t k = 0; k < c->nsyms; k++) {
      sdb_view_sym info;
      if (sdb_view_symbol(v, sdb_view_symbol_at(v, k), &info) && info.unbacked) c->nunbacked++;
    }
    c->nguards = sdb_view_count(v, SDB_EV_GUARD_ADDED);
    c->nasserts = sdb_view_count(v, SDB_EV_RUNTIME_ASSERT);
    c->nerrors = count_in(v, SDB_EV_ERROR, c->lo, c->hi);
    /* the recompile that led here: the last one before its phase_start */
    size_t nr = sdb_view_count(v, SDB_EV_RECOMPILE);
    for (size_t k = nr; k-- > 0;) {
      const sdb_event *e = sdb_view_at(v, SDB_EV_RECOMPILE, k);
      if (e->seq < c->lo) {
        if (ncs > 0 && e->seq >= cs[ncs - 1].lo) c->recompile = sdb_event_detail(e);
        break;
      }
    }
    /* the guard set installed within this compile's events */
    const char *const *inst;
    size_t ni = sdb_view_installed_guards(v, &inst);
    if (c->tc) {
      c->installed = (const char *const *)c->tc->installed;
      c->ninstalled = c->tc->ninstalled;
      c->recompile = c->tc->recompile_reason;
    } else if (ni && count_in(v, SDB_EV_GUARDS_INSTALLED, c->lo, c->hi)) {
      c->installed = inst;
      c->ninstalled = ni;
    }
    ncs++;
  }
  unsigned long lost = sdb_tstore_losses();
  int rc = index_page(dir, t, step, title, imp, cs, ncs, why);
  for (size_t i = 0; i < ncs && rc == 0; i++) rc = compile_page(dir, t, cs, i, why);
  free(cs);
  if (rc == 0 && sdb_tstore_losses() != lost) {   /* a line read as "?" */
    *why = "out of memory: some of its lines are missing (shown as ?)";
    rc = -1;
  }
  return rc == 0 ? (int)ncs : -1;
}
