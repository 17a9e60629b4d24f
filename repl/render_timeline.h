/*
** render_timeline.h — every symbol's life across the events of a compile,
** as text: one row per symbol, one column per event or group of events.
**
**   timeline of compile 1 (rows), events 0-23 (1 column = 1 event), cursor after event 9
**                          v
**   u0  ......c==b-----g---|----
**
** Marks (Unicode, then ASCII): created ● c, pending ═ =, bound ◆ b, lifted
** into a subgraph ↳ l, renamed ╮ r (the new name's row, right below,
** starts ╰ r), in a guard or runtime assert ▪ g, replaced or specialized
** ≡ s, defined by a buffer ■ d, anything else touching it • +, alive ─ -.
** The cursor's column is marked on the axis and wherever the row is
** otherwise blank. Reads only the view, so live runs, saved traces and
** imported logs draw alike.
*/
#ifndef REPL_RENDER_TIMELINE_H
#define REPL_RENDER_TIMELINE_H

#include "view.h"

#include <stdbool.h>
#include <stddef.h>

/* Marks, weakest first: a cell keeps the strongest of its events'. */
enum { REPL_TL_NONE, REPL_TL_ALIVE, REPL_TL_JOIN, REPL_TL_PENDING, REPL_TL_OTHER,
       REPL_TL_GUARD, REPL_TL_REPLACED, REPL_TL_LIFTED, REPL_TL_BOUND, REPL_TL_DEFINED,
       REPL_TL_RENAMED_TO, REPL_TL_RENAMED_FROM, REPL_TL_CREATED, REPL_TL_MARKS };

/* The picture before it is drawn: rows of marks, one per column. */
typedef struct repl_timeline_grid {
  unsigned compile;          /* 0: events before any compile */
  const char *fn;            /* the compiled function's name, or NULL */
  size_t lo, hi;             /* the compile's events [lo, hi) */
  size_t per, ncols;         /* events per column, columns */
  size_t cursor;             /* the step */
  long cursor_col;           /* the current event's column, or -1 */
  size_t nrows;
  const sdb_expr **syms;     /* nrows symbols, in drawing order */
  unsigned char *cells;      /* nrows * ncols marks */
} repl_timeline_grid;

/* Build the grid of the compile current at `cursor`, at most max_cols
** columns wide. 0, or -1 on OOM. Free with repl_timeline_grid_free. */
int repl_timeline_build(sdb_timeline *t, size_t cursor, size_t max_cols, repl_timeline_grid *g);
void repl_timeline_grid_free(repl_timeline_grid *g);
/* A mark's name ("created", "pending", ...), for legends and CSS classes. */
const char *repl_timeline_mark_name(int mark);

typedef struct repl_timeline_opts {
  int width;       /* columns of the whole picture (labels included) */
  bool unicode;    /* box-drawing marks; else ASCII */
  bool color;      /* ANSI colours on the marks and the cursor */
} repl_timeline_opts;

/* The timeline of the compile current at step `cursor` of t, all of its
** events (those after the cursor too), with the cursor marked. Malloc'ed;
** NULL on OOM. */
char *repl_timeline_render(sdb_timeline *t, size_t cursor, const repl_timeline_opts *o);

/* Whether the locale's character set is UTF-8 (LC_ALL, LC_CTYPE, LANG). */
bool repl_timeline_locale_utf8(void);
/* The terminal's width when stdout is one, else $COLUMNS, else 80. */
int repl_timeline_terminal_width(void);

#endif
