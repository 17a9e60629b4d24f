/*
** trace_io.h — saved traces: an event stream written to a JSON Lines file
** and read back, so a run can be stepped through later without its
** program (docs/trace-format.md describes the format).
**
** Line 1 is a header: {"format": "shapedb-trace", "version": 1, the
** shapedb version, when it was written, the program and its arguments, how
** the run ended, the number of events, the text of every Lua file the
** events name (so `list` and stop lines work without the files), options}.
** Every further line is one event (event.h's record, field by field, with
** its kind under "event", PyTorch's structured-log names where one exists)
** plus the Lua stack recorded at it, if any. Expressions are written as
** trees (ints, symbol names, [kind, ival, args...]) and rebuilt through
** expr.h's builders, so a replayed event holds the same interned pointers
** a live one would. Nothing in a trace is executed: it is data.
**
** Writing is atomic: a temporary file in the target's folder, fsync,
** rename. A failure leaves the previous file as it was and says why.
** Reading streams the file line by line into an sdb_events (one line in
** memory at a time besides the events themselves).
*/
#ifndef SDB_TRACE_IO_H
#define SDB_TRACE_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "event.h"

#define SDB_TRACE_FORMAT "shapedb-trace"
#define SDB_TRACE_VERSION 1

/* One Lua file's text, as the run saw it. */
typedef struct sdb_trace_source {
  char *file;        /* the name events use (as loaded: "scripts/nonzero.lua") */
  char *text;        /* the whole file */
} sdb_trace_source;

/* The header. Strings are owned (malloc'ed) once read; for writing the
** caller's pointers are only read. */
typedef struct sdb_trace_meta {
  int version;               /* format version (SDB_TRACE_VERSION when written) */
  char *shapedb;             /* version of the writer */
  char *written;             /* UTC time, ISO 8601 ("2026-11-24T10:50:00Z") */
  char *program;             /* the program's path, or NULL (`run LUA`, -e) */
  char **args;               /* its arguments */
  size_t nargs;
  char *end;                 /* how the run stood: "finished", "failed",
                                "paused" (saved while paused) or "running" */
  char *error;               /* the error a failed run ended with, or NULL */
  size_t events;             /* events the writer wrote */
  sdb_trace_source *sources; /* read: the files; write: extra files to embed */
  size_t nsources;
  char *options;             /* a JSON object's text, or NULL */
} sdb_trace_meta;

void sdb_trace_meta_clear(sdb_trace_meta *m);   /* frees what a read filled */

/* Write events [from, to) of s to path, with the Lua stack text of event
** seq at stacks[seq] (NULL or seq >= nstacks: none). The sources written
** are m->sources plus every file an event names or m->program, read
** through srcfile.h (files it cannot read are left out). m->version,
** ->written and ->events are filled in by the writer. 0, or -1 with err
** ("cannot write run.jsonl: No space left on device; the old file is
** unchanged") and path untouched. */
int sdb_trace_write(const char *path, const sdb_trace_meta *m, const sdb_events *s,
                    size_t from, size_t to, const char *const *stacks, size_t nstacks,
                    sdb_err *err);

/* Tests: make the writer fail with EIO after writing `bytes` bytes
** (-1: never), to check that a failed save keeps the old file. */
void sdb_trace_fail_after(long bytes);

/* Does path look like a saved trace (it starts with a JSON object)? */
bool sdb_trace_sniff(const char *path);

/* What a read met besides errors. */
typedef struct sdb_trace_report {
  size_t loaded;           /* events appended */
  size_t unknown;          /* events of kinds this version does not know, skipped */
  char *unknown_kinds;     /* their names, ", "-separated (owned), or NULL */
  char *warning;           /* a truncated last line (owned), or NULL */
  long bad_line;           /* the line of the error read returned, or 0;
                              1: the header, the trace is refused */
} sdb_trace_report;
void sdb_trace_report_clear(sdb_trace_report *r);

/* Called for each event read that has a recorded stack: seq is its
** position in `out`. */
typedef void (*sdb_trace_stack_fn)(void *ud, size_t seq, const char *stack);

/* Read path: the header into *meta, the events appended to out with
** sdb_emit_raw (its sinks see them), the stacks through on_stack (may be
** NULL). 0 when the whole file loaded (a truncated last line is only a
** warning in rep); -1 with err "FILE:LINE: reason" at the first bad line
** (the events before it stay appended, meta is filled if the header was
** good). A header from a newer format version, or a file that is not a
** saved trace, is refused at line 1 with nothing appended. */
int sdb_trace_read(const char *path, sdb_events *out, sdb_trace_meta *meta,
                   sdb_trace_stack_fn on_stack, void *ud, sdb_trace_report *rep,
                   sdb_err *err);
/* The same, naming the file NAME in errors (a spooled pipe, see spool.h). */
int sdb_trace_read_as(const char *path, const char *name, sdb_events *out,
                      sdb_trace_meta *meta, sdb_trace_stack_fn on_stack, void *ud,
                      sdb_trace_report *rep, sdb_err *err);

#endif
