/*
** test_cancel.c — Ctrl-C in core's long reads (cancel.h): with the watched
** flag raised, reading a saved trace or a TORCH_TRACE log stops at the
** line it reached with an "interrupted" error; lowered, both read. Folding
** an event stream into the debugger's timeline stops too, keeping what it
** folded, while any position already reachable can still be sought.
*/
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cancel.h"
#include "event.h"
#include "torch_trace.h"
#include "trace_io.h"
#include "view.h"

static volatile sig_atomic_t flag;

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_saved_trace(void **state) {
  (void)state;
  char path[64];
  snprintf(path, sizeof path, "/tmp/sdb-cancel-%ld.jsonl", (long)getpid());
  write_file(path, "{\"format\": \"shapedb-trace\", \"version\": 1}\n"
                   "{\"event\": \"note\", \"phase\": \"trace\", \"text\": \"a\"}\n"
                   "{\"event\": \"note\", \"phase\": \"trace\", \"text\": \"b\"}\n");
  sdb_cancel_watch(&flag);
  for (int raised = 1; raised >= 0; raised--) {
    flag = raised;
    sdb_events *ev = sdb_events_new();
    sdb_trace_meta meta;
    sdb_trace_report rep;
    sdb_err err = SDB_ERR_INIT;
    int rc = sdb_trace_read(path, ev, &meta, NULL, NULL, &rep, &err);
    if (raised) {
      assert_int_equal(rc, -1);
      char want[128];
      snprintf(want, sizeof want, "%s:1: interrupted (the 0 events before it are loaded)", path);
      assert_string_equal(err.msg, want);
      assert_int_equal(sdb_events_count(ev), 0);
    } else {
      assert_int_equal(rc, 0);
      assert_int_equal(sdb_events_count(ev), 2);
    }
    sdb_err_clear(&err);
    sdb_trace_meta_clear(&meta);
    sdb_trace_report_clear(&rep);
    sdb_events_free(ev);
  }
  sdb_cancel_watch(NULL);
  unlink(path);
}

static void test_torch_trace(void **state) {
  (void)state;
  char path[64];
  snprintf(path, sizeof path, "/tmp/sdb-cancel-%ld.log", (long)getpid());
  write_file(path, "V1124 10:00:00.000000 1 a.py:1] {\"str\": [\"a.py\", 0]}\n"
                   "V1124 10:00:00.000001 1 a.py:1] {\"str\": [\"b.py\", 1]}\n");
  sdb_cancel_watch(&flag);
  for (int raised = 1; raised >= 0; raised--) {
    flag = raised;
    sdb_tt_reader *r = NULL;
    sdb_err err = SDB_ERR_INIT;
    assert_int_equal(sdb_tt_open(path, &r, &err), 0);
    const sdb_tt_record *rec;
    int rc, n = 0;
    while ((rc = sdb_tt_next(r, &rec, &err)) > 0) n++;
    if (raised) {
      assert_true(rc < 0);
      char want[128];
      snprintf(want, sizeof want, "%s:1: interrupted (0 records read)", path);
      assert_string_equal(err.msg, want);
    } else {
      assert_int_equal(rc, 0);
      assert_int_equal(n, 2);
    }
    sdb_err_clear(&err);
    sdb_tt_close(r);
  }
  sdb_cancel_watch(NULL);
  unlink(path);
}

static void test_timeline(void **state) {
  (void)state;
  sdb_events *ev = sdb_events_new();
  assert_non_null(ev);
  for (int i = 0; i < 10000; i++) {
    sdb_event_in e = {0};
    e.kind = SDB_EV_NOTE;
    e.text = "n";
    assert_true(sdb_emit(ev, &e) >= 0);
  }
  sdb_timeline *t = sdb_timeline_new(ev);
  assert_non_null(t);
  sdb_cancel_watch(&flag);
  flag = 1;
  assert_int_equal(sdb_timeline_length(t), 0);    /* stopped before the first */
  assert_non_null(sdb_timeline_seek(t, 5000));     /* folded as far as asked */
  assert_int_equal(sdb_timeline_length(t), 5000);
  assert_null(sdb_timeline_seek(t, 10001));
  flag = 0;
  assert_int_equal(sdb_timeline_length(t), 10000);
  sdb_cancel_watch(NULL);
  sdb_timeline_free(t);
  sdb_events_free(ev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_timeline),
    cmocka_unit_test(test_saved_trace),
    cmocka_unit_test(test_torch_trace),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
