/*
** debug_save.c — saved traces in the debugger: `save FILE`, `replay FILE`
** on a saved trace (and `shapedb --replay FILE`), --record FILE, and the
** entry point that opens the debugger on events with no program behind
** them (dbg_replay_begin / _stack / _open, documented in debug.h), which
** the TORCH_TRACE importer and retracing can use as well.
*/
#include "debug.h"
#include "host.h"
#include "srcfile.h"
#include "trace_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup0(const char *s) {
  if (!s) return NULL;
  char *c = strdup(s);
  if (!c) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  return c;
}

/* --- the debugger on events with no program ---------------------------------- */

size_t dbg_replay_begin(dbg *d) {
  dbg_kill(d);
  return dbg_length(d);
}

void dbg_replay_stack(dbg *d, size_t seq, const char *stack) {
  if (seq >= d->capstacks) {
    size_t cap = d->capstacks ? d->capstacks : 256;
    while (cap <= seq) cap *= 2;
    const char **v = realloc(d->stacks, cap * sizeof *v);
    if (!v) return;   /* `where` falls back to the event's location */
    d->stacks = v;
    d->capstacks = cap;
  }
  while (d->nstacks <= seq) d->stacks[d->nstacks++] = NULL;
  d->stacks[seq] = stack;
}

int dbg_replay_open(dbg *d, size_t first, const dbg_replay_info *info) {
  free(d->replay);
  free(d->replay_program);
  d->replay = xstrdup0(info->label ? info->label : "a replay");
  d->replay_program = xstrdup0(info->program);
  d->prog = !info->end ? PROG_NONE
          : !strcmp(info->end, "finished") ? PROG_DONE
          : !strcmp(info->end, "failed") ? PROG_FAILED : PROG_NONE;
  free(d->label);
  d->label = xstrdup0(info->program ? dbg_basename(info->program) : NULL);
  size_t len = dbg_length(d);
  d->base = d->cur = first + info->run_from <= len ? first + info->run_from : first;
  d->replay_at_end = false;
  free(d->failure);
  d->failure = xstrdup0(info->failure);
  d->list_file = NULL;
  d->list_next = 0;
  sdb_view_free(d->shown);
  d->shown = sdb_view_clone(dbg_view(d));
  return 0;
}

/* --- replay FILE -------------------------------------------------------------- */

static void on_stack(void *ud, size_t seq, const char *stack) {
  dbg_replay_stack(ud, seq, stack);
}

int dbg_replay_trace(dbg *d, const char *fpath, const char *path) {
  size_t first = dbg_replay_begin(d);
  sdb_trace_meta m;
  sdb_trace_report rep;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_trace_read_as(fpath, path, d->ev, &m, on_stack, d, &rep, &err);
  /* a Ctrl-C stopped the reading and is said below: the events read are
  ** still folded for the debugger (another Ctrl-C stops that) */
  if (err.kind && !strcmp(err.kind, "KeyboardInterrupt")) repl_host_clear_interrupt();
  /* the events read, which the debugger may not all have taken in yet
  ** (its folding stops at a Ctrl-C or for want of memory, and resumes) */
  size_t loaded = sdb_events_count(d->ev) - first;
  if (rc < 0 && rep.bad_line <= 1) {   /* refused at the header: nothing loaded */
    repl_error(d->s, "replay: %s", err.msg ? err.msg : "cannot read the trace");
    sdb_err_clear(&err);
    sdb_trace_report_clear(&rep);
    sdb_trace_meta_clear(&m);
    return -1;
  }
  for (size_t i = 0; i < m.nsources; i++)
    sdb_srcfile_set_text(m.sources[i].file, m.sources[i].text);
  char label[1024];
  snprintf(label, sizeof label, "saved trace %s (format %d, written %s by shapedb %s)", path,
           m.version, m.written ? m.written : "at an unknown time",
           m.shapedb ? m.shapedb : "?");
  const char *end = m.end && (!strcmp(m.end, "finished") || !strcmp(m.end, "failed"))
                    && rc == 0 && !rep.warning ? m.end : NULL;
  long run_from = 0;
  if (m.options) {
    const char *p = strstr(m.options, "\"run_from\":");
    if (p) run_from = strtol(p + 11, NULL, 10);
  }
  dbg_replay_info info = { label, m.program, end, run_from > 0 ? (size_t)run_from : 0,
                           m.error };
  dbg_replay_open(d, first, &info);
  printf("Replaying %s: %zu event%s of %s", path, loaded, loaded == 1 ? "" : "s",
         m.program ? m.program : "a program");
  if (m.end && strcmp(m.end, "finished"))
    printf(" (the run %s when saved)", !strcmp(m.end, "failed") ? "had failed" : !strcmp(m.end, "paused")
                                        ? "was paused" : m.end);
  printf(".\n");
  fflush(stdout);
  if (rep.warning) fprintf(stderr, "warning: %s\n", rep.warning);
  if (rep.unknown)
    fprintf(stderr, "warning: %s: skipped %zu event%s of unknown kind%s (%s)\n", path,
            rep.unknown, rep.unknown == 1 ? "" : "s", rep.unknown == 1 ? "" : "s",
            rep.unknown_kinds ? rep.unknown_kinds : "?");
  if (rc < 0) {
    fflush(stdout);
    repl_error(d->s, "replay: %s", err.msg ? err.msg : "cannot read the trace");
    fprintf(stderr, "(the %zu event%s before line %ld %s loaded)\n", loaded,
            loaded == 1 ? "" : "s", rep.bad_line, loaded == 1 ? "is" : "are");
  }
  sdb_err_clear(&err);
  sdb_trace_report_clear(&rep);
  sdb_trace_meta_clear(&m);
  return rc;
}

/* --- save FILE -------------------------------------------------------------- */

static int save_events(sdb_events *ev, size_t from, size_t to, size_t run_from,
                       const char *program, char **argv, int argc, const char *end,
                       const char *error,
                       const char *const *stacks, size_t nstacks, const char *path,
                       const char **why_out, char **msg) {
  char options[64];
  snprintf(options, sizeof options, "{\"run_from\":%zu}", run_from);
  sdb_trace_meta m;
  memset(&m, 0, sizeof m);
  m.shapedb = (char *)REPL_VERSION;
  m.program = (char *)program;
  m.args = argv;
  m.nargs = argc > 0 ? (size_t)argc : 0;
  m.end = (char *)end;
  m.error = (char *)error;
  m.options = options;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_trace_write(path, &m, ev, from, to, stacks, nstacks, &err);
  (void)why_out;
  if (rc < 0) *msg = xstrdup0(err.msg ? err.msg : "cannot write the trace");
  sdb_err_clear(&err);
  return rc;
}

int dbg_save(dbg *d, const char *path, bool quiet) {
  size_t len = dbg_length(d);
  bool paused = dbg_alive(d);
  const char *end = paused ? "paused" : d->prog == PROG_FAILED ? "failed"
                  : d->prog == PROG_DONE ? "finished" : "finished";
  char *msg = NULL;
  if (save_events(d->ev, 0, len, d->base, dbg_program(d), d->replay ? NULL : d->s->prog_argv,
                  d->replay ? 0 : d->s->prog_argc, end,
                  d->prog == PROG_FAILED ? d->failure : NULL, d->stacks, d->nstacks, path, NULL,
                  &msg) < 0) {
    repl_error(d->s, "save: %s", msg);
    free(msg);
    return -1;
  }
  if (!quiet) {
    printf("Saved %zu event%s to %s", len, len == 1 ? "" : "s", path);
    if (paused) printf(" (the program is paused: what happened so far, up to event %zu)",
                       len ? len - 1 : 0);
    printf(".\n");
  }
  return 0;
}

int dbg_save_stream(sdb_events *ev, const char *program, char **argv, int argc, bool failed,
                    const char *path) {
  char *msg = NULL;
  if (save_events(ev, 0, sdb_events_count(ev), 0, program, argv, argc,
                  failed ? "failed" : "finished", NULL, NULL, 0, path, NULL, &msg) < 0) {
    fprintf(stderr, "shapedb: --record %s\n", msg);
    free(msg);
    return -1;
  }
  return 0;
}

static int cmd_save(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  return dbg_save(dbg_of(s), a->argv[0], false);
}

static const repl_cmd save_cmds[] = {
  { "save", NULL, "running", "save FILE",
    "save the run's events as a trace to replay later",
    "Write every event so far to FILE (JSON Lines, docs/trace-format.md), with\n"
    "the Lua stack at each event and the text of every Lua file they name, so\n"
    "`replay FILE` steps through the same run later without the program. A\n"
    "paused program stays paused: what happened so far is saved. The file is\n"
    "written beside FILE and renamed into place: a failed save keeps the old\n"
    "FILE as it was.\n"
    "\nExample:\n"
    "  (shapedb) save /tmp/nonzero.jsonl\n",
    cmd_save, REPL_COMPLETE_FILE, NULL, 1, 1, false },
};

void dbg_save_init(void) {
  repl_cmd_register(save_cmds, sizeof save_cmds / sizeof save_cmds[0]);
}

void dbg_save_free(dbg *d) {
  free(d->replay);
  free(d->replay_program);
  d->replay = d->replay_program = NULL;
}
