/*
** fuzz_torch_trace_import.c — libFuzzer target: a TORCH_TRACE log imported
** into an event stream (core/torch_trace_import), then folded by the view
** the debugger uses (every step, backwards and forwards), with the
** lookups `info compiles`/`info graph` make. Any bytes: no crash, no hang.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "event.h"
#include "torch_trace_import.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_torch_trace_import: check failed: %s\n", #c); abort(); } } while (0)

static char path[64];

/* the scratch file goes when the run ends */
static void remove_scratch(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/sdb-fuzz-tti-%ld.log", (long)getpid());
    atexit(remove_scratch);
  }
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  sdb_events *ev = sdb_events_new();
  if (!ev) return 0;
  sdb_tti *t = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tti_import(path, ev, &t, &err) != 0) {   /* t, when what was read is kept */
    sdb_err_clear(&err);
    sdb_tti_free(t);
    sdb_events_free(ev);
    return 0;
  }
  for (size_t i = 0; i < sdb_tti_ncompiles(t); i++) {
    const sdb_tti_compile *c = sdb_tti_compile_at(t, i);
    CHECK(c && c->id);
    CHECK(sdb_tti_find(t, c->id) != NULL);
    for (size_t g = 0; g < c->ngraphs; g++) CHECK(sdb_tti_graph_find(c, c->graphs[g].kind));
  }
  sdb_timeline *tl = sdb_timeline_new(ev);
  if (tl) {
    size_t n = sdb_timeline_length(tl);
    for (size_t k = 0; k < n; k++) {
      CHECK(sdb_timeline_seek(tl, k) != NULL);
      sdb_tti_compile_of_event(t, k);
    }
    if (n) CHECK(sdb_timeline_seek(tl, 0) != NULL);
    sdb_timeline_free(tl);
  }
  sdb_tti_free(t);
  sdb_events_free(ev);
  return 0;
}
