/*
** render_dot.h — a run's graphs as Graphviz DOT, drawn from the view.
**
** One digraph per file. Each compile is a cluster ("compile 1 (f)"); in it
** each graph the view lists is a cluster, and a cond or wrap body is
** nested inside the cluster of the graph it was traced from ("trace >
** cond.true_branch" inside "trace"). A node's box shows its line as
** print_readable writes it (name, metadata, call) and the unbacked
** bindings recorded on it; edges go from each node to the nodes that use
** it, and dashed edges from a parent graph's node to the body placeholder
** it was lifted into. Only the view is read, so live runs and replays draw
** alike.
*/
#ifndef REPL_RENDER_DOT_H
#define REPL_RENDER_DOT_H

#include "view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Write the graphs at step `step` of t: of the compile current there, or
** of every compile up to there when all is set. 0, or -1 when nothing was
** written (no graph nodes; *why says so) or on a write error (errno). */
int repl_dot_write(FILE *f, sdb_timeline *t, size_t step, bool all, const char **why);

/* The same into the file at path ("-": stdout). 0, or -1 with *why. */
int repl_dot_save(sdb_timeline *t, size_t step, bool all, const char *path, const char **why);

/* The first step k <= step + 1 whose compile (sdb_view_compile) is >= c:
** compile c's phase_start is event k - 1. A binary search. */
size_t repl_compile_first_step(sdb_timeline *t, size_t step, unsigned c);

#endif
