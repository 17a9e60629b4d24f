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

/* Marks, weakest first: a cell keeps the strongest. */
enum { M_NONE, M_ALIVE, M_JOIN, M_PENDING, M_OTHER, M_GUARD, M_REPLACED, M_LIFTED,
       M_BOUND, M_DEFINED, M_RENAMED_TO, M_RENAMED_FROM, M_CREATED, M_COUNT };

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
  for (uint32_t i = 0; i < e->nsyms; i++)
    if (e->syms[i] == sym) return true;
  return false;
}

static int mark_of(const sdb_event *e, const sdb_expr *sym) {
  switch ((sdb_event_kind)e->kind) {
    case SDB_EV_CREATE_SYMBOL: case SDB_EV_CREATE_UNBACKED: return M_CREATED;
    case SDB_EV_UNBACKED_BINDINGS: return M_BOUND;
    case SDB_EV_SYMBOL_BOUND: case SDB_EV_GRAPH_INPUT: return M_LIFTED;
    case SDB_EV_RENAMED: return e->sym == sym ? M_RENAMED_FROM : M_RENAMED_TO;
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

char *repl_timeline_render(sdb_timeline *t, size_t cursor, const repl_timeline_opts *o) {
  size_t len = sdb_timeline_length(t);
  if (cursor > len) cursor = len;
  sdb_buf b = SDB_BUF_INIT;
  const sdb_view *at = sdb_timeline_seek(t, cursor);
  unsigned c = at ? sdb_view_compile(at) : 0;
  size_t first = repl_compile_first_step(t, len, c);
  size_t lo = first ? first - 1 : 0;                           /* its phase_start */
  size_t next = repl_compile_first_step(t, len, c + 1);
  size_t hi = next <= len ? next - 1 : len;                    /* events [lo, hi) */
  const sdb_view *v = sdb_timeline_seek(t, hi);
  size_t nsyms = v ? sdb_view_symbol_count(v) : 0;
  const char *fn = NULL;
  if (first) {
    const sdb_event *pe = sdb_view_event_at(v, lo);
    if (pe && pe->kind == SDB_EV_PHASE_START) fn = pe->text;
  }
  if (c) sdb_buf_printf(&b, "timeline of compile %u%s%s%s", c, fn ? " (" : "", fn ? fn : "", fn ? ")" : "");
  else sdb_buf_puts(&b, "timeline");
  if (hi <= lo || !nsyms) {
    sdb_buf_puts(&b, hi <= lo ? ": no events yet\n" : ": no symbols\n");
    return sdb_buf_take(&b);
  }

  /* label column: the longest name, and the columns left for events */
  size_t label = 2;
  for (size_t i = 0; i < nsyms; i++) {
    size_t l = strlen(sdb_view_symbol_at(v, i)->name);
    if (l > label) label = l;
  }
  size_t nev = hi - lo;
  size_t avail = o->width > (int)label + 12 ? (size_t)o->width - label - 2 : 10;
  size_t per = (nev + avail - 1) / avail;
  size_t ncols = (nev + per - 1) / per;
  sdb_buf_printf(&b, ", events %zu-%zu (1 column = %zu event%s)", lo, hi - 1, per, per == 1 ? "" : "s");
  if (cursor == 0) sdb_buf_puts(&b, ", cursor before the first event\n");
  else sdb_buf_printf(&b, ", cursor after event %zu\n", cursor - 1);
  /* the cursor's column: the current event's (event cursor - 1) */
  long ccol = cursor > lo && cursor <= hi ? (long)((cursor - 1 - lo) / per) : -1;

  row *rows = calloc(nsyms, sizeof *rows);
  unsigned char *cells = calloc(nsyms, ncols);
  if (!rows || !cells) {
    free(rows);
    free(cells);
    sdb_buf_free(&b);
    return NULL;
  }
  for (size_t i = 0; i < nsyms; i++) {
    row *r = &rows[i];
    r->sym = sdb_view_symbol_at(v, i);
    r->cells = cells + i * ncols;
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
      if (e->kind == SDB_EV_RENAMED && e->sym == r->sym) {
        r->renamed_to = e->sym2;
        r->renamed_col = col;
      }
      mark(r, col, mark_of(e, r->sym));
    }
    if (pending)
      for (size_t x = pend_from; x < ncols; x++) mark(r, x, M_PENDING);
    for (size_t x = alive_from; x < ncols && alive_from != SIZE_MAX; x++) mark(r, x, M_ALIVE);
  }
  order_rows(rows, nsyms);

  /* the axis: the cursor's head, then each row */
  sdb_buf_printf(&b, "%*s  ", (int)label, "");
  for (size_t x = 0; x < ncols; x++) {
    if ((long)x == ccol) put_cursor(&b, o, true);
    else sdb_buf_putc(&b, ' ');
  }
  sdb_buf_putc(&b, '\n');
  for (size_t i = 0; i < nsyms; i++) {
    row *r = &rows[i];
    sdb_buf_printf(&b, "%-*s  ", (int)label, r->sym->name);
    size_t end = ncols;
    while (end > 0 && r->cells[end - 1] == M_NONE && (long)end - 1 != ccol) end--;
    for (size_t x = 0; x < end; x++) {
      int m = r->cells[x];
      if ((long)x == ccol && (m == M_NONE || m == M_ALIVE)) put_cursor(&b, o, false);
      else put_mark(&b, m, o);
    }
    sdb_buf_putc(&b, '\n');
  }
  free(rows);
  free(cells);

  /* the legend, in the marks' own glyphs */
  static const struct { int m; const char *what; } legend[] = {
    {M_CREATED, "created"}, {M_PENDING, "pending"}, {M_BOUND, "bound"},
    {M_LIFTED, "lifted"}, {M_RENAMED_FROM, "renamed (joined to the new name below)"}, {M_GUARD, "guard/assert"},
    {M_REPLACED, "replaced"}, {M_DEFINED, "buffer"}, {M_OTHER, "other"}};
  for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
    sdb_buf_puts(&b, i ? "  " : "");
    put_mark(&b, legend[i].m, o);
    sdb_buf_printf(&b, " %s", legend[i].what);
  }
  sdb_buf_putc(&b, '\n');
  return sdb_buf_take(&b);
}
