/*
** debug_pictures.c — the debugger's pictures: `dump dot FILE` (the graphs
** as Graphviz DOT, render_dot.c) and `info timeline` (every symbol's life
** across the events, render_timeline.c). The renderers read only the view;
** this file hands them the debugger's timeline and cursor.
*/
#include "debug.h"
#include "render_dot.h"
#include "render_html.h"
#include "render_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int repl_dot_save(sdb_timeline *t, size_t step, bool all, const char *path,
                  const char **why) {
  *why = NULL;
  if (!strcmp(path, "-")) {
    int rc = repl_dot_write(stdout, t, step, all, why);
    if (rc != 0 && !*why) *why = strerror(errno);
    return rc;
  }
  /* a temporary file beside it, renamed over it once complete: a full disk
  ** leaves the old file as it was, not half of a new one */
  size_t n = strlen(path) + 16;
  char *tmp = malloc(n);
  if (!tmp) { *why = "out of memory"; return -1; }
  snprintf(tmp, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    *why = strerror(errno);
    if (fd >= 0) { close(fd); unlink(tmp); }
    free(tmp);
    return -1;
  }
  fchmod(fd, 0644);
  int rc = repl_dot_write(f, t, step, all, why);
  if (rc != 0 && !*why) *why = strerror(errno);
  if (fclose(f) != 0 && rc == 0) {
    *why = strerror(errno);
    rc = -1;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    *why = strerror(errno);
    rc = -1;
  }
  if (rc != 0) unlink(tmp);
  free(tmp);
  return rc;
}

static int cmd_dump_dot(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  dbg *d = dbg_of(s);
  bool all = a->argc > 1 && !strcmp(a->argv[1], "all");
  if (a->argc > 1 && !all) {
    repl_error(s, "dump dot: expected `all` after the file name, not '%s'", a->argv[1]);
    return -1;
  }
  const char *why;
  if (repl_dot_save(d->tl, d->cur, all, a->argv[0], &why) != 0) {
    repl_error(s, "dump dot: %s: %s", a->argv[0], why);
    return -1;
  }
  if (strcmp(a->argv[0], "-"))
    printf("Wrote the graphs of %s to %s (render: dot -Tsvg %s -o graphs.svg).\n",
           all ? "every compile so far" : "this compile", a->argv[0], a->argv[0]);
  return 0;
}

static int cmd_info_timeline(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  dbg *d = dbg_of(s);
  repl_timeline_opts o = {0};
  o.width = 0;
  o.unicode = repl_timeline_locale_utf8();
  o.color = repl_use_color(s, stdout);
  for (int i = 0; i < a->argc; i++) {
    if (!strcmp(a->argv[i], "ascii")) o.unicode = false;
    else if (!strncmp(a->argv[i], "width=", 6)) o.width = atoi(a->argv[i] + 6);
    else {
      repl_error(s, "info timeline: unknown option '%s' (ascii, width=N)", a->argv[i]);
      return -1;
    }
  }
  if (o.width <= 0) o.width = repl_timeline_terminal_width();
  char *text = repl_timeline_render(d->tl, d->cur, &o);
  if (!text) {
    repl_error(s, "info timeline: out of memory");
    return -1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}

int dbg_report_html(repl_session *s, const char *dir) {
  dbg *d = dbg_of(s);
  if (!dir) {
    repl_error(s, "report html: which directory? (report html DIR)");
    return -1;
  }
  const char *why;
  const char *title = d->import ? sdb_tt_path(sdb_tti_reader(d->import)) : dbg_program(d);
  int n = repl_html_write(dir, d->tl, d->cur, title ? title : d->label, d->import, &why);
  if (n < 0) {
    repl_error(s, "report html: %s: %s", dir, why);
    return -1;
  }
  printf("Wrote %s/index.html and %d compile page%s (open it in a browser).\n", dir, n,
         n == 1 ? "" : "s");
  return 0;
}

static const repl_cmd dump_cmds[] = {
  { "dump", NULL, "files", "dump dot FILE [all]",
    "write pictures of the run to a file",
    "`dump dot FILE` writes the graphs of the compile at the cursor as\n"
    "Graphviz DOT: one cluster per graph, cond and wrap bodies nested inside\n"
    "the graph they were traced from, each node with its metadata and the\n"
    "unbacked bindings recorded on it, dashed edges from a parent graph's\n"
    "node to the placeholder it was lifted into. `all`: every compile so\n"
    "far. FILE `-` writes to standard output. Render with `dot -Tsvg`.\n"
    "\nExample:\n"
    "  (shapedb) dump dot graphs.dot\n"
    "  (shapedb) dump dot all.dot all\n",
    NULL, REPL_COMPLETE_SUBCOMMAND, NULL, 0, -1, false },
};

static const repl_cmd dump_sub[] = {
  { "dot", NULL, "files", "dump dot FILE [all]",
    "the graphs as Graphviz DOT",
    "The graphs of the compile at the cursor (or of every compile so far,\n"
    "with `all`) as one Graphviz digraph. See `help dump`.\n"
    "\nExample:\n"
    "  (shapedb) dump dot graphs.dot\n",
    cmd_dump_dot, REPL_COMPLETE_FILE, NULL, 1, 2, false },
};

static const repl_cmd timeline_cmds[] = {
  { "timeline", NULL, "data", "info timeline [ascii]",
    "every symbol's life across the events of this compile",
    "One row per symbol of the compile at the cursor, one column per event\n"
    "(or per group of events, to fit the width): where it was created (c),\n"
    "pending (=), bound (b), lifted into a subgraph (l), renamed (r, joined to\n"
    "the row of the new name below it), in a guard or assert (g), defined by\n"
    "a buffer (d). The cursor's column is marked |. Unicode on a UTF-8\n"
    "locale (`ascii` forces plain text), colour only on a terminal.\n"
    "\nExample:\n"
    "  (shapedb) info timeline\n"
    "  (shapedb) info timeline ascii width=60\n",
    cmd_info_timeline, REPL_COMPLETE_NONE, NULL, 0, 2, false },
};

void dbg_pictures_init(void) {
  repl_cmd_register(dump_cmds, sizeof dump_cmds / sizeof dump_cmds[0]);
  repl_cmd_register_sub("dump", dump_sub, sizeof dump_sub / sizeof dump_sub[0]);
  repl_cmd_register_sub("info", timeline_cmds, sizeof timeline_cmds / sizeof timeline_cmds[0]);
}
