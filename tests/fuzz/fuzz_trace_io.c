/*
** fuzz_trace_io.c — libFuzzer target: the saved-trace reader
** (core/trace_io). Any bytes are read; what loads is then
**   - folded by the view the debugger steps with (every step, with the
**     status line, the diff from the step before, and at the end every
**     symbol's explanation and every graph's nodes), and
**   - written back and read again: the reader must accept all the writer
**     writes, with the same number of events, and writing what it read a
**     second time must give the same bytes (write . read is a fixpoint).
** No crash, no hang, no sanitizer report. The reader takes a path, so each
** input goes to a scratch file first.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "event.h"
#include "trace_io.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_trace_io: check failed: %s\n", #c); abort(); } } while (0)

static char in_path[64], out1[64], out2[64];

/* the scratch files go when the run ends */
static void remove_scratch(void) {
  unlink(in_path);
  unlink(out1);
  unlink(out2);
}

/* the stacks a read hands over, by event position */
typedef struct { const char **v; size_t n; } stacks;
static void on_stack(void *ud, size_t seq, const char *stack) {
  stacks *s = ud;
  if (seq >= s->n) {
    size_t n = seq + 1;
    const char **v = realloc(s->v, n * sizeof *v);
    if (!v) return;
    for (size_t i = s->n; i < n; i++) v[i] = NULL;
    s->v = v;
    s->n = n;
  }
  s->v[seq] = stack;
}

static void fold(const sdb_events *ev) {
  sdb_timeline *tl = sdb_timeline_new(ev);
  if (!tl) return;
  size_t n = sdb_timeline_length(tl);
  sdb_view *prev = NULL;
  for (size_t k = 0; k <= n; k++) {
    const sdb_view *v = sdb_timeline_seek(tl, k);
    CHECK(v != NULL);
    free(sdb_view_status(v));
    if (prev) free(sdb_view_diff(prev, v));
    sdb_view_free(prev);
    prev = sdb_view_clone(v);
  }
  if (prev) {
    /* backwards over the whole run, as `reverse-continue` does */
    const sdb_view *v0 = sdb_timeline_seek(tl, 0);
    CHECK(v0 != NULL);
    free(sdb_view_diff(prev, v0));
    const sdb_view *v = sdb_timeline_seek(tl, n);
    CHECK(v != NULL);
    for (size_t i = 0; i < sdb_view_symbol_count(v); i++)
      free(sdb_view_explain(v, sdb_view_symbol_at(v, i)));
    for (size_t g = 0; g < sdb_view_graph_count(v); g++) {
      const char *graph = sdb_view_graph_at(v, g);
      sdb_view_node node;
      for (size_t i = 0; i < sdb_view_node_count(v, graph); i++)
        CHECK(sdb_view_node_at(v, graph, i, &node));
    }
  }
  sdb_view_free(prev);
  sdb_timeline_free(tl);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  size_t got;
  while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) { free(b); b = NULL; }
      b = nb;
    }
  }
  fclose(f);
  *len = n;
  return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!in_path[0]) {
    long pid = (long)getpid();
    snprintf(in_path, sizeof in_path, "/tmp/sdb-fuzz-tio-%ld.jsonl", pid);
    snprintf(out1, sizeof out1, "/tmp/sdb-fuzz-tio-%ld-1.jsonl", pid);
    snprintf(out2, sizeof out2, "/tmp/sdb-fuzz-tio-%ld-2.jsonl", pid);
    atexit(remove_scratch);
  }
  FILE *f = fopen(in_path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);

  sdb_events *ev = sdb_events_new();
  if (!ev) return 0;
  sdb_trace_meta meta;
  sdb_trace_report rep;
  sdb_err err = SDB_ERR_INIT;
  stacks st = { NULL, 0 };
  int rc = sdb_trace_read(in_path, ev, &meta, on_stack, &st, &rep, &err);
  CHECK(rep.loaded == sdb_events_count(ev));
  CHECK(rc == 0 || (err.msg && err.msg[0]));
  CHECK(rc == 0 || rep.bad_line > 0);
  sdb_err_clear(&err);
  fold(ev);

  /* what was read (all of it, or the part before a bad line) goes back
  ** out; a header that was refused leaves nothing to write */
  if (meta.version) {
    size_t n = sdb_events_count(ev);
    if (sdb_trace_write(out1, &meta, ev, 0, n, st.v, st.n, &err) == 0) {
      sdb_events *ev2 = sdb_events_new();
      sdb_trace_meta meta2;
      sdb_trace_report rep2;
      stacks st2 = { NULL, 0 };
      CHECK(ev2 != NULL);
      int rc2 = sdb_trace_read(out1, ev2, &meta2, on_stack, &st2, &rep2, &err);
      if (rc2 != 0) fprintf(stderr, "fuzz_trace_io: a written trace does not read back: %s\n", err.msg ? err.msg : "?");
      CHECK(rc2 == 0);
      CHECK(rep2.loaded == n && !rep2.unknown && !rep2.warning);
      CHECK(meta2.nsources >= meta.nsources);
      CHECK(sdb_trace_write(out2, &meta2, ev2, 0, n, st2.v, st2.n, &err) == 0);
      size_t l1, l2;
      char *b1 = slurp(out1, &l1), *b2 = slurp(out2, &l2);
      if (b1 && b2 && (l1 != l2 || memcmp(b1, b2, l1))) {
        fprintf(stderr, "fuzz_trace_io: writing what was read back changes the trace\n");
        abort();
      }
      free(b1);
      free(b2);
      free(st2.v);
      sdb_trace_meta_clear(&meta2);
      sdb_trace_report_clear(&rep2);
      sdb_events_free(ev2);
    }
    sdb_err_clear(&err);
  }
  free(st.v);
  sdb_trace_meta_clear(&meta);
  sdb_trace_report_clear(&rep);
  sdb_events_free(ev);
  return 0;
}
