/*
** render_timeline.c — every symbol's life across a compile's events (see
** render_timeline.h).
**
** The picture is drawn from the view at the compile's last step, so rows
** show the symbol's whole life, and the cursor is only a marked column.
** Each cell keeps the strongest mark of the events it covers (a creation
** beats a binding beats a guard ...), so compressing many events into one
** column never hides the rare ones behind the common ones.
*/
#include "render_timeline.h"
#include "render_dot.h"

#include "buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum { M_NONE = REPL_TL_NONE, M_ALIVE = REPL_TL_ALIVE, M_JOIN = REPL_TL_JOIN,
       M_PENDING = REPL_TL_PENDING, M_OTHER = REPL_TL_OTHER, M_GUARD = REPL_TL_GUARD,
       M_REPLACED = REPL_TL_REPLACED, M_LIFTED = REPL_TL_LIFTED, M_BOUND = REPL_TL_BOUND,
       M_DEFINED = REPL_TL_DEFINED, M_RENAMED_TO = REPL_TL_RENAMED_TO,
       M_RENAMED_FROM = REPL_TL_RENAMED_FROM, M_CREATED = REPL_TL_CREATED,
       M_COUNT = REPL_TL_MARKS };

static const char *const mark_name[M_COUNT] = {
  "none", "alive", "join", "pending", "other", "guard", "replaced", "lifted",
  "bound", "buffer", "renamed-to", "renamed", "created"};

const char *repl_timeline_mark_name(int m) {
  return m >= 0 && m < M_COUNT ? mark_name[m] : "none";
}

static const char *const mark_utf8[M_COUNT] = {
  " ", "\u2500", "\u2502", "\u2550", "\u2022", "\u25aa", "\u2261", "\u21b3",
  "\u25c6", "\u25a0", "\u2570", "\u256e", "\u25cf"};
static const char mark_ascii[M_COUNT] = {
  ' ', '-', ':', '=', '+', 'g', 's', 'l', 'b', 'd', 'r', 'r', 'c'};
/* SGR colours by mark (only with colour on) */
static const char *const mark_sgr[M_COUNT] = {
  NULL, "2", "36", "33", NULL, "35", "36", "34", "1;34", "32", "36", "36", "1;32"};

typedef struct row {
  const sdb_expr *sym;
  unsigned char *cells;
  const sdb_expr *renamed_to;   /* the name it was renamed to, or NULL */
  size_t renamed_col;           /* ... at this column */
} row;

static void mark(row *r, size_t col, int m) {
  if (r->cells[col] < m) r->cells[col] = (unsigned char)m;
}

static bool in_syms(const sdb_event *e, const sdb_expr *sym) {
  for (uint32_t i = 0; i < sdb_event_nsyms(e); i++)
    if (sdb_event_syms(e)[i] == sym) return true;
  return false;
}

static int mark_of(const sdb_event *e, const sdb_expr *sym) {
  switch ((sdb_event_kind)e->kind) {
    case SDB_EV_CREATE_SYMBOL: case SDB_EV_CREATE_UNBACKED: return M_CREATED;
    case SDB_EV_UNBACKED_BINDINGS: return M_BOUND;
    case SDB_EV_SYMBOL_BOUND: case SDB_EV_GRAPH_INPUT: return M_LIFTED;
    case SDB_EV_RENAMED: return sdb_event_sym(e) == sym ? M_RENAMED_FROM : M_RENAMED_TO;
    case SDB_EV_GUARD_ADDED: case SDB_EV_RUNTIME_ASSERT: return M_GUARD;
    case SDB_EV_REPLACEMENT_ADDED: case SDB_EV_SPECIALIZATION: return M_REPLACED;
    case SDB_EV_BUFFER_LOWERED: return M_DEFINED;
    default: return M_OTHER;
  }
}

bool repl_timeline_locale_utf8(void) {
  const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
  for (size_t i = 0; i < 3; i++) {
    const char *v = getenv(vars[i]);
    if (!v || !*v) continue;   /* an empty one defers to the next */
    const char *dot = strchr(v, '.');
    return dot && (!strncasecmp(dot + 1, "utf-8", 5) || !strncasecmp(dot + 1, "utf8", 4));
  }
  return false;
}

int repl_timeline_terminal_width(void) {
  struct winsize ws;
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  const char *c = getenv("COLUMNS");
  int n = c ? atoi(c) : 0;
  return n > 0 ? n : 80;
}

static void put_mark(sdb_buf *b, int m, const repl_timeline_opts *o) {
  bool sgr = o->color && mark_sgr[m];
  if (sgr) sdb_buf_printf(b, "\033[%sm", mark_sgr[m]);
  if (o->unicode) sdb_buf_puts(b, mark_utf8[m]);
  else sdb_buf_putc(b, mark_ascii[m]);
  if (sgr) sdb_buf_puts(b, "\033[0m");
}

static void put_cursor(sdb_buf *b, const repl_timeline_opts *o, bool head) {
  if (o->color) sdb_buf_puts(b, "\033[1;31m");
  if (o->unicode) sdb_buf_puts(b, head ? "\u25bc" : "\u2503");
  else sdb_buf_putc(b, head ? 'v' : '|');
  if (o->color) sdb_buf_puts(b, "\033[0m");
}

/* Rows in the order symbols were first seen, except that a symbol
** something was renamed to goes below every symbol renamed to it, and
** the rows in between carry a line from the renaming down to it: the
** rows then read as one line (u1 ╮ ... ╰ u0). */
static void order_rows(row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].renamed_to) continue;
    size_t j = 0;
    while (j < n && rows[j].sym != rows[i].renamed_to) j++;
    if (j == n || j > i) continue;
    row moved = rows[j];
    memmove(&rows[j], &rows[j + 1], (i - j) * sizeof *rows);
    rows[i] = moved;   /* the source is now at i - 1 */
    i--;
  }
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].renamed_to) continue;
    for (size_t k = i + 1; k < n && rows[k].sym != rows[i].renamed_to; k++)
      if (rows[k].cells[rows[i].renamed_col] <= M_ALIVE) rows[k].cells[rows[i].renamed_col] = M_JOIN;
  }
}

void repl_timeline_grid_free(repl_timeline_grid *g) {
  if (!g) return;
  free(g->syms);
  free(g->cells);
  g->syms = NULL;
  g->cells = NULL;
}

int repl_timeline_build(sdb_timeline *t, size_t cursor, size_t max_cols, repl_timeline_grid *g) {
  memset(g, 0, sizeof *g);
  size_t len = sdb_timeline_length(t);
  if (cursor > len) cursor = len;
  g->cursor = cursor;
  g->cursor_col = -1;
  const sdb_view *at = sdb_timeline_seek(t, cursor);
  unsigned c = at ? sdb_view_compile(at) : 0;
  size_t first = repl_compile_first_step(t, len, c);
  size_t next = repl_compile_first_step(t, len, c + 1);
  g->compile = c;
  g->lo = first ? first - 1 : 0;                   /* its phase_start */
  g->hi = next <= len ? next - 1 : len;
  const sdb_view *v = sdb_timeline_seek(t, g->hi);
  if (first && v) {
    const sdb_event *pe = sdb_view_event_at(v, g->lo);
    if (pe && pe->kind == SDB_EV_PHASE_START) g->fn = sdb_event_text(pe);
  }
  size_t nsyms = v && g->hi > g->lo ? sdb_view_symbol_count(v) : 0;
  if (!nsyms) return 0;
  size_t nev = g->hi - g->lo;
  if (max_cols < 1) max_cols = 1;
  g->per = (nev + max_cols - 1) / max_cols;
  g->ncols = (nev + g->per - 1) / g->per;
  /* the cursor's column: the current event's (event cursor - 1) */
  if (cursor > g->lo && cursor <= g->hi) g->cursor_col = (long)((cursor - 1 - g->lo) / g->per);

  row *rows = calloc(nsyms, sizeof *rows);
  g->cells = calloc(nsyms, g->ncols);
  g->syms = calloc(nsyms, sizeof *g->syms);
  if (!rows || !g->cells || !g->syms) {
    free(rows);
    repl_timeline_grid_free(g);
    return -1;
  }
  size_t lo = g->lo, hi = g->hi, per = g->per, ncols = g->ncols;
  for (size_t i = 0; i < nsyms; i++) {
    row *r = &rows[i];
    r->sym = sdb_view_symbol_at(v, i);
    r->cells = g->cells + i * ncols;
    sdb_view_sym info;
    if (!sdb_view_symbol(v, r->sym, &info)) continue;
    bool pending = false;
    size_t alive_from = SIZE_MAX, pend_from = 0;
    for (size_t k = 0; k < info.nevents; k++) {
      const sdb_event *e = sdb_view_symbol_event(v, r->sym, k);
      if (!e || e->seq < lo || e->seq >= hi) continue;
      size_t col = (e->seq - lo) / per;
      if (alive_from == SIZE_MAX) alive_from = col;
      if (e->kind == SDB_EV_PENDING_CHANGED) {
        bool now = in_syms(e, r->sym);
        if (now && !pending) pend_from = col;
        if (!now && pending)
          for (size_t x = pend_from; x < col; x++) mark(r, x, M_PENDING);
        pending = now;
        continue;
      }
      if (e->kind == SDB_EV_RENAMED && sdb_event_sym(e) == r->sym) {
        r->renamed_to = sdb_event_sym2(e);
        r->renamed_col = col;
      }
      mark(r, col, mark_of(e, r->sym));
    }
    if (pending)
      for (size_t x = pend_from; x < ncols; x++) mark(r, x, M_PENDING);
    for (size_t x = alive_from; x < ncols && alive_from != SIZE_MAX; x++) mark(r, x, M_ALIVE);
  }
  order_rows(rows, nsyms);
  /* the cells in drawing order: rows[] points into g->cells out of order */
  unsigned char *sorted = malloc(nsyms * ncols);
  if (!sorted) {
    free(rows);
    repl_timeline_grid_free(g);
    return -1;
  }
  for (size_t i = 0; i < nsyms; i++) {
    memcpy(sorted + i * ncols, rows[i].cells, ncols);
    g->syms[i] = rows[i].sym;
  }
  free(g->cells);
  g->cells = sorted;
  g->nrows = nsyms;
  free(rows);
  return 0;
}

char *repl_timeline_render(sdb_timeline *t, size_t cursor, const repl_timeline_opts *o) {
  /* the label column is the longest symbol name: build once to learn it */
  repl_timeline_grid g;
  if (repl_timeline_build(t, cursor, 1, &g) != 0) return NULL;
  size_t label = 2;
  for (size_t i = 0; i < g.nrows; i++)
    if (strlen(g.syms[i]->name) > label) label = strlen(g.syms[i]->name);
  repl_timeline_grid_free(&g);
  size_t avail = o->width > (int)label + 12 ? (size_t)o->width - label - 2 : 10;
  if (repl_timeline_build(t, cursor, avail, &g) != 0) return NULL;

  sdb_buf b = SDB_BUF_INIT;
  if (g.compile)
    sdb_buf_printf(&b, "timeline of compile %u%s%s%s", g.compile, g.fn ? " (" : "",
                   g.fn ? g.fn : "", g.fn ? ")" : "");
  else
    sdb_buf_puts(&b, "timeline");
  if (!g.nrows) {
    sdb_buf_puts(&b, g.hi <= g.lo ? ": no events yet\n" : ": no symbols\n");
    repl_timeline_grid_free(&g);
    return sdb_buf_take(&b);
  }
  sdb_buf_printf(&b, ", events %zu-%zu (1 column = %zu event%s)", g.lo, g.hi - 1, g.per,
                 g.per == 1 ? "" : "s");
  if (g.cursor == 0) sdb_buf_puts(&b, ", cursor before the first event\n");
  else sdb_buf_printf(&b, ", cursor after event %zu\n", g.cursor - 1);

  /* the axis: the cursor's head, then each row */
  sdb_buf_printf(&b, "%*s  ", (int)label, "");
  for (size_t x = 0; x < g.ncols; x++) {
    if ((long)x == g.cursor_col) put_cursor(&b, o, true);
    else sdb_buf_putc(&b, ' ');
  }
  sdb_buf_putc(&b, '\n');
  for (size_t i = 0; i < g.nrows; i++) {
    const unsigned char *cells = g.cells + i * g.ncols;
    sdb_buf_printf(&b, "%-*s  ", (int)label, g.syms[i]->name);
    size_t end = g.ncols;
    while (end > 0 && cells[end - 1] == M_NONE && (long)end - 1 != g.cursor_col) end--;
    for (size_t x = 0; x < end; x++) {
      int m = cells[x];
      if ((long)x == g.cursor_col && (m == M_NONE || m == M_ALIVE)) put_cursor(&b, o, false);
      else put_mark(&b, m, o);
    }
    sdb_buf_putc(&b, '\n');
  }
  repl_timeline_grid_free(&g);
  /* the legend, in the marks' own glyphs */
  static const struct { int m; const char *what; } legend[] = {
    {M_CREATED, "created"}, {M_PENDING, "pending"}, {M_BOUND, "bound"},
    {M_LIFTED, "lifted/bound in a tracer"}, {M_RENAMED_FROM, "renamed (joined to the new name below)"}, {M_GUARD, "guard/assert"},
    {M_REPLACED, "replaced"}, {M_DEFINED, "buffer"}, {M_OTHER, "other"}};
  for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
    sdb_buf_puts(&b, i ? "  " : "");
    put_mark(&b, legend[i].m, o);
    sdb_buf_printf(&b, " %s", legend[i].what);
  }
  sdb_buf_putc(&b, '\n');
  return sdb_buf_take(&b);
}
