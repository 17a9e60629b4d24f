/*
** test_idmap.c — the map by object id (core/idmap): what a put stores a
** get finds, whether it went to a slot or to the map beside them, and the
** walk meets every key once.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "idmap.h"

#define NKEYS 30000
static char keys[NKEYS];   /* key i is &keys[i]; its id is ids[i] */
static uint32_t ids[NKEYS];

static void *val(size_t i) { return (void *)(uintptr_t)(i * 7 + 1); }

/* Random ids below, at and far above the base, some put twice: each get
** answers the last put, whichever side of the map holds it, a key never
** put answers NULL, and the walk meets each key once with its value. */
static void test_against_a_plain_map(void **state) {
  (void)state;
  for (unsigned seed = 1; seed <= 5; seed++) {
    unsigned r = seed * 2654435761u;
#define RND(n) ((r = r * 1103515245u + 12345u), (uint32_t)((r >> 8) % (n)))
    uint32_t base = 1000 + RND(1000);
    for (size_t i = 0; i < NKEYS; i++) {
      uint32_t pick = RND(10);
      ids[i] = pick == 0 ? RND(base)                          /* older than the base */
             : pick == 1 ? base + 100000 + RND(1u << 30)      /* far past it: too sparse */
             : base + (uint32_t)i;                            /* the dense run */
    }
    sdb_idmap m;
    sdb_idmap_init(&m, base);
    sdb_map want = SDB_MAP_INIT;
    for (size_t step = 0; step < 2 * NKEYS; step++) {
      size_t i = RND(NKEYS / 2) + (step < NKEYS ? 0 : NKEYS / 4);   /* later keys come later */
      assert_true(sdb_idmap_put(&m, ids[i], &keys[i], val(step)));
      assert_true(sdb_map_put(&want, &keys[i], val(step)));
      size_t j = RND(NKEYS);
      assert_ptr_equal(sdb_idmap_get(&m, ids[j], &keys[j]), sdb_map_get(&want, &keys[j]));
    }
    for (size_t i = 0; i < NKEYS; i++)
      assert_ptr_equal(sdb_idmap_get(&m, ids[i], &keys[i]), sdb_map_get(&want, &keys[i]));
    sdb_map seen = SDB_MAP_INIT;
    const void *k;
    void *v;
    size_t n = 0;
    for (size_t i = 0; sdb_idmap_next(&m, &i, &k, &v); n++) {
      assert_false(sdb_map_has(&seen, k));
      assert_true(sdb_map_put(&seen, k, v));
      assert_ptr_equal(v, sdb_map_get(&want, k));
    }
    assert_int_equal(n, want.len);
    assert_true(m.n > 0 && m.other.len > 0);   /* both sides were used */
    sdb_map_free(&seen);
    sdb_map_free(&want);
    sdb_idmap_free(&m);
#undef RND
  }
}

/* A key whose id had no slot when first put stays where it went: a later
** put of it, once the slots reach its id, must not leave two entries. */
static void test_a_key_stays_where_it_went(void **state) {
  (void)state;
  sdb_idmap m;
  sdb_idmap_init(&m, 0);
  char a, b[20000];
  assert_true(sdb_idmap_put(&m, 10000, &a, val(1)));   /* too far for an empty map */
  assert_int_equal(m.other.len, 1);
  for (uint32_t i = 0; i < 20000; i++)
    if (i != 10000) assert_true(sdb_idmap_put(&m, i, &b[i], val(i)));
  assert_true(m.cap > 10000);
  assert_true(sdb_idmap_put(&m, 10000, &a, val(2)));
  assert_ptr_equal(sdb_idmap_get(&m, 10000, &a), val(2));
  assert_int_equal(m.other.len, 1);
  size_t n = 0;
  const void *k;
  void *v;
  for (size_t i = 0; sdb_idmap_next(&m, &i, &k, &v);) n++;
  assert_int_equal(n, 20000);
  sdb_idmap_free(&m);
}

/* With a span, an id far past the first ones still gets a slot from the
** first put (a graph's late-made assert met early in it): nothing goes to
** the map beside, and every key reads back. */
static void test_span(void **state) {
  (void)state;
  sdb_idmap m;
  sdb_idmap_init_span(&m, 100, 50000);
  static char k[3];
  assert_true(sdb_idmap_put(&m, 100, &k[0], val(0)));
  assert_true(sdb_idmap_put(&m, 40000, &k[1], val(1)));   /* 4n + 4096 would refuse it */
  assert_true(sdb_idmap_put(&m, 90000, &k[2], val(2)));   /* past the span: the map */
  assert_int_equal(m.other.len, 1);
  assert_ptr_equal(sdb_idmap_get(&m, 100, &k[0]), val(0));
  assert_ptr_equal(sdb_idmap_get(&m, 40000, &k[1]), val(1));
  assert_ptr_equal(sdb_idmap_get(&m, 90000, &k[2]), val(2));
  sdb_idmap_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_against_a_plain_map),
    cmocka_unit_test(test_a_key_stays_where_it_went),
    cmocka_unit_test(test_span),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests_name("idmap", tests, NULL, NULL);
}
