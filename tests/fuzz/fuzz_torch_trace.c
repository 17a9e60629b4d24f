/*
** fuzz_torch_trace.c — libFuzzer target: the TORCH_TRACE reader. Any
** bytes (a log, a corrupted log, a gzip stream, binary noise) are read to
** the end: records come out well-formed or become problems, never a crash
** or a hang. The reader takes a path, so each input goes to a scratch
** file first.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "jsonline.h"
#include "torch_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_torch_trace: check failed: %s\n", #c); abort(); } } while (0)

static char path[64];

/* the scratch file goes when the run ends */
static void remove_scratch(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/sdb-fuzz-tt-%ld.log", (long)getpid());
    atexit(remove_scratch);
  }
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  sdb_tt_reader *r = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tt_open(path, &r, &err) != 0) {
    sdb_err_clear(&err);
    return 0;
  }
  const sdb_tt_record *rec;
  int rc;
  long n = 0;
  while ((rc = sdb_tt_next(r, &rec, &err)) > 0) {
    n++;
    CHECK(rec->kind && rec->meta);
    char buf[64];
    sdb_tt_cid_str(&rec->cid, buf, sizeof buf);
    sdb_tt_cid cid;
    /* a compile id prints as text that reads back as itself */
    if (rec->has_cid) {
      CHECK(sdb_tt_cid_parse(buf, &cid) == 0);
      CHECK(sdb_tt_cid_eq(&cid, &rec->cid));
    }
    /* stack frames, the way the importer reads them */
    const cJSON *stack = sdb_jl_get(rec->meta, "stack");
    if (!stack) stack = sdb_jl_get(rec->root, "stack");
    sdb_tt_frame frame;
    if (cJSON_IsArray(stack))
      for (const cJSON *fr = stack->child; fr; fr = fr->next) sdb_tt_frame_get(r, fr, &frame);
  }
  sdb_err_clear(&err);
  CHECK(sdb_tt_nrecords(r) == n);
  for (size_t i = 0; i < sdb_tt_nproblems(r); i++)
    CHECK(sdb_tt_problem_at(r, i)->what);
  sdb_tt_close(r);
  return 0;
}
