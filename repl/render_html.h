/*
** render_html.h — a static HTML report of a run, drawn from the view.
**
** DIR/index.html lists the phases, the compiles (function, events,
** symbols, guards, status), recompiles with their reasons and errors;
** DIR/compile-N.html shows one compile: why it was compiled (the recompile
** reason and the guard diff against the previous compile of the same
** function), the symbol timeline as SVG, its graphs (as SVG rendered by
** Graphviz's `dot` when it is installed, always as text too), the guards
** and runtime asserts with where each came from, the installed guard set,
** and every symbol's `explain`. Plain HTML and CSS, no script, every link
** relative: it opens from file://. Live runs, saved traces and imported
** logs report alike, since only the events are read.
*/
#ifndef REPL_RENDER_HTML_H
#define REPL_RENDER_HTML_H

#include "torch_trace_import.h"
#include "view.h"

#include <stddef.h>

/* Write the report of the first `step` events of t into dir (created if
** missing). title names the run (the program's file). Returns the number
** of compile pages written (>= 0), or -1 with *why (a static string or
** strerror's) naming what failed. imp, when the events were imported from
** a TORCH_TRACE log, adds what only the log has: compile ids ([0/1]),
** statuses and failure reasons, the logged graphs and code, the installed
** guards and the records read and skipped. */
int repl_html_write(const char *dir, sdb_timeline *t, size_t step, const char *title,
                    const sdb_tti *imp, const char **why);

#endif
