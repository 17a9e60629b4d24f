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
