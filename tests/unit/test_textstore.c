/*
** test_textstore.c — text named by 32-bit references (core/textstore):
** each string read back whole through its reference alone, across many
** chunks and among long strings with chunks of their own; stores side by
** side; compressed chunks read back; a freed store's chunk indexes taken
** by the next store; an event stream whose placed nodes' lines live
** there; and a stream that lost an event, which is not saved.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "long_text.h"

#include "event.h"
#include "textstore.h"
#include "trace_io.h"

#include <unistd.h>

#define NSTR 60000   /* past a dozen chunks */

static void line_of(char *buf, size_t cap, size_t i, int store) {
  snprintf(buf, cap, "add_%zu: \"f32[s0, %zu]\" = torch.ops.aten.add.Tensor(x, y)  # %d", i, i % 97,
           store);
}

static char *long_text(size_t i) {   /* a quarter chunk and more: a chunk of its own */
  return long_text_of(i, 17000, 40000);
}

/* Two stores filled in turn: every reference reads back its own string,
** long ones included, and neither store's strings are the other's. */
static void test_read_back(void **state) {
  (void)state;
  sdb_tstore t[2] = {SDB_TSTORE_INIT, SDB_TSTORE_INIT};
  sdb_tref *refs = calloc(NSTR, sizeof *refs);
  assert_non_null(refs);
  char buf[128];
  for (size_t i = 0; i < NSTR; i++) {
    if (i % 5000 == 17) {
      char *s = long_text(i);
      assert_true(sdb_tstore_put(&t[i % 2], s, &refs[i]));
      free(s);
    } else {
      line_of(buf, sizeof buf, i, (int)(i % 2));
      assert_true(sdb_tstore_put(&t[i % 2], buf, &refs[i]));
    }
    assert_int_not_equal(refs[i], 0);
  }
  for (size_t i = 0; i < NSTR; i++) {
    if (i % 5000 == 17) {
      char *s = long_text(i);
      assert_string_equal(sdb_tref_str(refs[i]), s);
      free(s);
    } else {
      line_of(buf, sizeof buf, i, (int)(i % 2));
      assert_string_equal(sdb_tref_str(refs[i]), buf);
    }
  }
  sdb_tref none = 1;
  assert_true(sdb_tstore_put(&t[0], NULL, &none));
  assert_int_equal(none, 0);
  assert_null(sdb_tref_str(0));
  assert_true(t[0].n > 12 && t[1].n > 12);
  sdb_tstore_free(&t[0]);
  sdb_tstore_free(&t[1]);
  assert_int_equal(t[0].n, 0);
  free(refs);
}

/* A full chunk is compressed; a peek reads it and leaves it so, a read
** makes it plain for good. A put of a string that is in the full chunk
** itself (a line copied from its own stream) copies it before that chunk
** is compressed. */
static void test_compressed_chunks(void **state) {
  (void)state;
  sdb_tstore t = SDB_TSTORE_INIT;
  char buf[128];
  sdb_tref refs[4096];
  size_t n = 0;
  line_of(buf, sizeof buf, n, 7);
  assert_true(sdb_tstore_put(&t, buf, &refs[n]));
  uint32_t index = refs[0] >> 16;
  while (t.cur == index) {   /* until the first chunk is full and sealed */
    assert_true(n + 1 < 4096);
    line_of(buf, sizeof buf, ++n, 7);
    assert_true(sdb_tstore_put(&t, buf, &refs[n]));
  }
  assert_null(sdb_tstore_chunks_[index]);   /* compressed */
  for (size_t k = 0; k < n; k++) {          /* refs[n] is in the next chunk */
    line_of(buf, sizeof buf, k, 7);
    assert_string_equal(sdb_tref_peek(refs[k]), buf);
  }
  assert_null(sdb_tstore_chunks_[index]);   /* still */
  for (size_t k = 0; k < n; k++) {
    line_of(buf, sizeof buf, k, 7);
    assert_string_equal(sdb_tref_str(refs[k]), buf);
  }
  assert_non_null(sdb_tstore_chunks_[index]);   /* plain for good */
  /* the chunk being filled, filled with copies of its own last string:
  ** the put that finds it full copies from it before it is compressed */
  sdb_tref r = refs[n];
  uint32_t cur = t.cur;
  while (t.cur == cur) assert_true(sdb_tstore_put(&t, sdb_tref_str(r), &r));
  line_of(buf, sizeof buf, n, 7);
  assert_string_equal(sdb_tref_str(r), buf);
  assert_string_equal(sdb_tref_str(refs[n]), buf);   /* the sealed chunk, made plain again */
  sdb_tstore_free(&t);
}

/* A freed store gives its chunks' indexes back: the next store takes
** them, so a REPL that runs a program again and again does not use up
** the 65,535 indexes. */
static void test_indexes_reused(void **state) {
  (void)state;
  uint32_t high = 0, first = 0;
  for (int round = 0; round < 200; round++) {
    sdb_tstore t = SDB_TSTORE_INIT;
    char buf[128];
    sdb_tref r = 0;
    for (size_t i = 0; i < 3000; i++) {   /* about 4 chunks */
      line_of(buf, sizeof buf, i, round);
      assert_true(sdb_tstore_put(&t, buf, &r));
    }
    assert_string_equal(sdb_tref_str(r), buf);
    for (size_t i = 0; i < t.n; i++)
      if (t.ids[i] > high) high = t.ids[i];
    sdb_tstore_free(&t);
    if (!round) first = high;
  }
  assert_int_equal(high, first);   /* every round took the first round's indexes */
}

/* A stream keeps a placed node's line in its store, and a copy made from
** another stream's event (a saved trace replayed, a view's history) is
** its own: it outlives the stream it came from. */
static void test_stream_lines(void **state) {
  (void)state;
  sdb_events *a = sdb_events_new(), *b = sdb_events_new();
  char line[64];
  snprintf(line, sizeof line, "add_3: \"f32[s0]\" = torch.ops.aten.add.Tensor(x, y)");
  sdb_event_in e = {0};
  e.kind = SDB_EV_NODE_PLACED;
  e.text = "add_3";
  e.detail = line;
  e.value = 3;
  assert_true(sdb_emit_raw(a, &e) >= 0);
  line[0] = 'X';   /* the stream's copy is not the caller's buffer */
  const sdb_event *got = sdb_events_at(a, 0);
  assert_string_equal(sdb_event_detail(got), "add_3: \"f32[s0]\" = torch.ops.aten.add.Tensor(x, y)");
  assert_ptr_equal(sdb_event_text(got), sdb_intern("add_3"));
  sdb_event_in u = sdb_event_unpack(got);
  assert_true(sdb_emit_raw(b, &u) >= 0);
  sdb_events_free(a);
  const sdb_event *copy = sdb_events_at(b, 0);
  assert_string_equal(sdb_event_detail(copy), "add_3: \"f32[s0]\" = torch.ops.aten.add.Tensor(x, y)");
  assert_int_equal(sdb_event_value(copy), 3);
  /* a note's detail is interned, not copied */
  sdb_event_in n = {0};
  n.kind = SDB_EV_NOTE;
  n.detail = "a note";
  assert_true(sdb_emit_raw(b, &n) >= 0);
  assert_ptr_equal(sdb_event_detail(sdb_events_at(b, 1)), sdb_intern("a note"));
  sdb_events_free(b);
}

/* A stream that lost an event for want of memory (an emitter's line it
** could not make, an event it could not append) is no trace of its run:
** saving it fails and leaves the old file as it was. */
static void test_lost_events_not_saved(void **state) {
  (void)state;
  char path[] = "/tmp/sdb_test_lost_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "old\n", 4), 4);
  close(fd);
  sdb_events *s = sdb_events_new();
  sdb_event_in e = {0};
  e.kind = SDB_EV_NOTE;
  e.detail = "a note";
  assert_true(sdb_emit_raw(s, &e) >= 0);
  sdb_trace_meta meta;
  memset(&meta, 0, sizeof meta);
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_events_lost(s), 0);
  sdb_events_note_lost(s);
  assert_int_equal(sdb_events_lost(s), 1);
  assert_int_equal(sdb_trace_write(path, &meta, s, 0, sdb_events_count(s), NULL, 0, &err), -1);
  char want[256];
  snprintf(want, sizeof want, "cannot write %s: 1 event of the run could not be kept (out of memory)",
           path);
  assert_string_equal(err.msg, want);
  sdb_err_clear(&err);
  FILE *f = fopen(path, "r");
  char got[16] = "";
  assert_non_null(fgets(got, sizeof got, f));
  fclose(f);
  assert_string_equal(got, "old\n");
  unlink(path);
  sdb_events_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_read_back),
    cmocka_unit_test(test_compressed_chunks),
    cmocka_unit_test(test_indexes_reused),
    cmocka_unit_test(test_stream_lines),
    cmocka_unit_test(test_lost_events_not_saved),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
