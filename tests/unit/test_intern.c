/*
** test_intern.c — interned strings (core/intern): one pointer per
** distinct string, whatever chunk its bytes went to, long strings in
** blocks of their own among short ones, lookups that add nothing, 32-bit
** references, and a reset that starts over.
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

#include "intern.h"

#define NSTR 150000   /* past a dozen chunks, and through several table doublings */

static void name_of(char *buf, size_t cap, size_t i) {
  snprintf(buf, cap, "%s_%zu", i % 3 ? "add" : "sym_size_int", i);
}

/* A long string (a quarter chunk and more) every few thousand names: it
** takes a chunk of its own, and the short names after it go on filling
** the chunk they were filling. */
static char *long_text(size_t i) { return long_text_of(i, 20000, 50000); }

static void test_one_pointer_each(void **state) {
  (void)state;
  const char **got = calloc(NSTR, sizeof *got);
  assert_non_null(got);
  char buf[64];
  for (size_t i = 0; i < NSTR; i++) {
    if (i % 5000 == 17) {
      char *s = long_text(i);
      got[i] = sdb_intern(s);
      assert_non_null(got[i]);
      assert_ptr_not_equal(got[i], s);
      assert_string_equal(got[i], s);
      free(s);
      continue;
    }
    name_of(buf, sizeof buf, i);
    bool fresh = false;
    got[i] = i % 2 ? sdb_intern(buf) : sdb_intern_num_fresh(buf, strlen(buf), 0, &fresh);
    assert_non_null(got[i]);
    if (i % 2 == 0) {   /* "add_12" then 0: "add_120" is new */
      assert_true(fresh);
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "0");
    }
    assert_string_equal(got[i], buf);
  }
  /* every string again, from another copy of its text: the same pointer */
  for (size_t i = 0; i < NSTR; i++) {
    if (i % 5000 == 17) {
      char *s = long_text(i);
      assert_ptr_equal(sdb_intern(s), got[i]);
      assert_ptr_equal(sdb_intern_lookup(s, strlen(s)), got[i]);
      free(s);
      continue;
    }
    name_of(buf, sizeof buf, i);
    if (i % 2 == 0) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "0");
    char copy[64];
    memcpy(copy, buf, sizeof copy);
    assert_ptr_equal(sdb_intern(copy), got[i]);
    assert_ptr_equal(sdb_intern_n(copy, strlen(copy)), got[i]);
    assert_ptr_equal(sdb_intern_lookup(copy, strlen(copy)), got[i]);
    bool fresh = true;
    if (i % 2 == 0) {
      copy[strlen(copy) - 1] = '\0';
      assert_ptr_equal(sdb_intern_num_fresh(copy, strlen(copy), 0, &fresh), got[i]);
      assert_false(fresh);
    }
  }
  /* a lookup of a string never interned finds nothing and adds nothing */
  assert_null(sdb_intern_lookup("never_interned_1", 16));
  assert_null(sdb_intern_lookup("never_interned_1", 16));
  /* n bytes: a NUL inside ends the string */
  assert_ptr_equal(sdb_intern_n("add_1\0xyz", 9), sdb_intern("add_1"));
  free(got);
  sdb_intern_reset();
}

/* Long strings are numbered apart from the chunks, 64 to each half of a
** reference: 300 of them, short ones between, cross five such groups and
** each stays its own, as the short ones do. */
static void test_many_long(void **state) {
  (void)state;
  enum { N = 300 };
  const char *got[N], *shorts[N];
  char name[32];
  for (size_t i = 0; i < N; i++) {
    char *s = long_text(i * 7);
    got[i] = sdb_intern(s);
    free(s);
    snprintf(name, sizeof name, "relu_%zu", i);
    shorts[i] = sdb_intern(name);
    assert_non_null(got[i]);
    assert_non_null(shorts[i]);
  }
  for (size_t i = 0; i < N; i++) {
    char *s = long_text(i * 7);
    assert_ptr_equal(sdb_intern(s), got[i]);
    assert_ptr_equal(sdb_intern_lookup(s, strlen(s)), got[i]);
    assert_string_equal(got[i], s);
    free(s);
    snprintf(name, sizeof name, "relu_%zu", i);
    assert_ptr_equal(sdb_intern_lookup(name, strlen(name)), shorts[i]);
  }
  sdb_intern_reset();
}

/* A reference names the interned string, short or long, whichever way it
** was asked for: by a pointer the interner handed out (its cache of
** those, or past it a probe), by a fresh copy, or by address. */
static void test_refs(void **state) {
  (void)state;
  assert_int_equal(sdb_intern_ref(NULL), 0);
  assert_int_equal(sdb_intern_at_ref(NULL), 0);
  assert_null(sdb_iref_str(0));
  enum { N = 20000 };
  sdb_iref *refs = calloc(N, sizeof *refs);
  const char **ptrs = calloc(N, sizeof *ptrs);
  assert_true(refs && ptrs);
  char buf[64];
  for (size_t i = 0; i < N; i++) {
    char *big = i % 997 == 0 ? long_text(i) : NULL;   /* long ones among the short */
    if (!big) name_of(buf, sizeof buf, i);
    refs[i] = sdb_intern_ref(big ? big : buf);
    ptrs[i] = sdb_intern(big ? big : buf);
    assert_int_not_equal(refs[i], 0);
    assert_ptr_equal(sdb_iref_str(refs[i]), ptrs[i]);
    free(big);
  }
  for (size_t i = 0; i < N; i++) {   /* most long forgotten by the cache */
    assert_int_equal(sdb_intern_ref(ptrs[i]), refs[i]);
    assert_ptr_equal(sdb_iref_str(refs[i]), ptrs[i]);
  }
  static const char op[] = "nonzero";
  sdb_iref r = sdb_intern_at_ref(op);
  assert_int_equal(sdb_intern_at_ref(op), r);   /* cached */
  assert_int_equal(sdb_intern_ref("nonzero"), r);
  assert_string_equal(sdb_iref_str(r), "nonzero");
  free(refs);
  free(ptrs);
  sdb_intern_reset();
}

/* After a reset the table and the chunks start over: strings intern
** again, as new. */
static void test_reset(void **state) {
  (void)state;
  const char *a = sdb_intern("relu_7");
  assert_string_equal(a, "relu_7");
  sdb_intern_reset();
  assert_null(sdb_intern_lookup("relu_7", 6));
  bool fresh = false;
  const char *b = sdb_intern_num_fresh("relu_", 5, 7, &fresh);
  assert_true(fresh);
  assert_string_equal(b, "relu_7");
  assert_ptr_equal(sdb_intern("relu_7"), b);
  sdb_intern_reset();
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_pointer_each),
    cmocka_unit_test(test_many_long),
    cmocka_unit_test(test_refs),
    cmocka_unit_test(test_reset),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests_name("intern", tests, NULL, NULL);
}
