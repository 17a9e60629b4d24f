/*
** test_jsonline.c — one JSON line through cJSON or jansson: both readers
** must give the same tree and the same refusals, whichever reads the line.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonline.h"

static sdb_jsonline jl = SDB_JSONLINE_INIT;
static json_error_t je;

static cJSON *parse(const char *s) { return sdb_jl_parse(&jl, s, strlen(s), &je); }

/* The line is refused, with jansson's reason */
static void refused(const char *s, const char *reason) {
  memset(&je, 0, sizeof je);
  assert_null(parse(s));
  if (!strstr(je.text, reason)) fail_msg("%s: reason \"%s\", not \"%s\"", s, je.text, reason);
}

static void test_plain(void **state) {
  (void)state;
  cJSON *j = parse("{\"kind\": {\"a\": [1, \"two\", 3.5, true, null]}, \"frame_id\": 4}");
  assert_non_null(j);
  assert_string_equal(j->child->string, "kind");
  const cJSON *a = sdb_jl_get(sdb_jl_get(j, "kind"), "a");
  assert_int_equal(sdb_jl_len(a), 5);
  assert_int_equal(sdb_jl_int0(a->child), 1);
  assert_string_equal(sdb_jl_str(a->child->next), "two");
  int64_t v = 99;
  assert_false(sdb_jl_int(a->child->next->next, &v));   /* 3.5 is no integer */
  assert_false(sdb_jl_int(a->child->next, &v));         /* nor is a string */
  assert_int_equal(v, 99);
  assert_int_equal(sdb_jl_int0(sdb_jl_get(j, "frame_id")), 4);
  assert_null(sdb_jl_get(j, "missing"));
  assert_null(sdb_jl_get(a, "a"));                       /* not an object */
  assert_int_equal(sdb_jl_len(j), 0);                    /* not an array */
}

/* integers a double cannot hold go through jansson, exact */
static void test_big_integers(void **state) {
  (void)state;
  cJSON *j = parse("{\"id\": 9007199254740993, \"neg\": -9223372036854775807, \"small\": 7}");
  assert_non_null(j);
  int64_t v;
  assert_true(sdb_jl_int(sdb_jl_get(j, "id"), &v));
  assert_true(v == INT64_C(9007199254740993));
  assert_true(sdb_jl_int(sdb_jl_get(j, "neg"), &v));
  assert_true(v == -INT64_C(9223372036854775807));
  assert_int_equal(sdb_jl_int0(sdb_jl_get(j, "small")), 7);
}

/* what cJSON alone would take, jansson refuses, with its reason */
static void test_refusals(void **state) {
  (void)state;
  refused("{\"a\": 07}", "invalid token");            /* leading zero */
  refused("{\"a\": [1.]}", "invalid token");          /* dot, no digit */
  refused("{\"a\": \"x\\u0000y\"}", "\\u0000 is not allowed");
  refused("{\"a\": \"x\\u00zzy\"}", "invalid escape");
  refused("{\"a\": -.5}", "invalid token");          /* strtod reads it */
  refused("5", "'[' or '{' expected");                 /* jansson wants a tree */
  refused("\"text\"", "'[' or '{' expected");
  refused("{\"a\": \"tab\there\"}", "control character");
  refused("{\"a\": \"\xff\"}", "unable to decode byte 0xff");
  refused("{\"a\": 1} trailing", "end of file expected");
  refused("{\"a\": ", "");
  /* a line that only looks like those is read all the same */
  cJSON *j = parse("{\"loc\": \"x[:, 07] and 1. too\", \"n\": 0, \"f\": 0.5}");
  assert_non_null(j);
  assert_string_equal(sdb_jl_str(sdb_jl_get(j, "loc")), "x[:, 07] and 1. too");
}

/* UTF-8 text is read by jansson and handed on as the same tree */
static void test_utf8(void **state) {
  (void)state;
  cJSON *j = parse("{\"loc\": \"assert x == \xcf\x80\", \"line\": 3}");
  assert_non_null(j);
  assert_string_equal(sdb_jl_str(sdb_jl_get(j, "loc")), "assert x == \xcf\x80");
  assert_int_equal(sdb_jl_int0(sdb_jl_get(j, "line")), 3);
}

/* of duplicate keys the last counts, as in jansson and Python */
static void test_duplicates(void **state) {
  (void)state;
  cJSON *j = parse("{\"k\": {}, \"frame_id\": 0, \"x\": 1, \"frame_id\": 1}");
  assert_non_null(j);
  assert_int_equal(sdb_jl_int0(sdb_jl_get(j, "frame_id")), 1);
  const cJSON *first = j->child->next;
  assert_string_equal(first->string, "frame_id");
  assert_false(sdb_jl_repeated(j, first));              /* walked here, as jansson does */
  assert_false(sdb_jl_repeated(j, first->next));        /* "x" */
  assert_true(sdb_jl_repeated(j, first->next->next));   /* the later frame_id */
  /* the same line through jansson (a byte past 0x7f sends it there) */
  j = parse("{\"k\": {}, \"frame_id\": 0, \"x\": \"\xc3\xa9\", \"frame_id\": 1}");
  assert_non_null(j);
  assert_int_equal(sdb_jl_int0(sdb_jl_get(j, "frame_id")), 1);
}

/* a tree lives until the next line; what is kept is copied with malloc */
static void test_lifetime(void **state) {
  (void)state;
  cJSON *j = parse("{\"keep\": [\"a\", 2]}");
  assert_non_null(j);
  cJSON *kept = cJSON_Duplicate(sdb_jl_get(j, "keep"), 1);
  assert_non_null(parse("{\"other\": 1}"));
  assert_string_equal(sdb_jl_str(kept->child), "a");
  assert_int_equal(sdb_jl_int0(kept->child->next), 2);
  cJSON_Delete(kept);
  /* a thousand lines reuse the arena's first chunk */
  for (int i = 0; i < 1000; i++) assert_non_null(parse("{\"a\": [1, 2, 3], \"b\": \"text\"}"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_plain),
    cmocka_unit_test(test_big_integers),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_utf8),
    cmocka_unit_test(test_duplicates),
    cmocka_unit_test(test_lifetime),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sdb_jl_free(&jl);
  return rc;
}
