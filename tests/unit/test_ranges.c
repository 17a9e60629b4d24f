/*
** test_ranges.c — value ranges: printing, set operations and bound() for
** every expression kind, with infinities.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "expr.h"
#include "ranges.h"

typedef struct { const char *name; int64_t lo, hi; } symrange;

static bool lookup(void *ud, const sdb_expr *sym, sdb_range *out) {
  for (const symrange *r = ud; r->name; r++)
    if (!strcmp(r->name, sym->name)) { *out = sdb_range_make(r->lo, r->hi); return true; }
  return false;
}

static const symrange env[] = {
  {"s0", 2, SDB_PINF}, {"s1", 2, 10}, {"u0", 0, SDB_PINF}, {"u1", -3, 4},
  {"u2", SDB_NINF, SDB_PINF}, {"b", 0, 1}, {NULL, 0, 0},
};

static void check_bound(const char *text, const char *want) {
  char err[128], buf[SDB_RANGE_STRLEN];
  const sdb_expr *e = sdb_parse(text, err, sizeof err);
  if (!e) fail_msg("parse %s: %s", text, err);
  sdb_range r = sdb_bound(e, lookup, (void *)env);
  sdb_range_str(r, buf, sizeof buf);
  if (strcmp(buf, want)) fail_msg("bound(%s) = %s, expected %s", text, buf, want);
}

static void test_printing(void **state) {
  (void)state;
  char buf[SDB_RANGE_STRLEN];
  assert_string_equal(sdb_range_str(sdb_range_make(0, SDB_PINF), buf, sizeof buf), "[0, int_oo]");
  assert_string_equal(sdb_range_str(sdb_range_unknown(), buf, sizeof buf), "[-int_oo, int_oo]");
  assert_string_equal(sdb_range_str(sdb_range_make(2, 5), buf, sizeof buf), "[2, 5]");
  assert_string_equal(sdb_range_str(sdb_range_bool(0, 1), buf, sizeof buf), "[False, True]");
  assert_string_equal(sdb_range_str(sdb_range_bool(1, 1), buf, sizeof buf), "[True, True]");
}

static void test_set_ops(void **state) {
  (void)state;
  sdb_range a = sdb_range_make(0, 10), b = sdb_range_make(5, SDB_PINF);
  sdb_range i = sdb_range_intersect(a, b), u = sdb_range_union(a, b);
  assert_int_equal(i.lo, 5);
  assert_int_equal(i.hi, 10);
  assert_int_equal(u.lo, 0);
  assert_true(u.hi == SDB_PINF);
  assert_true(sdb_range_is_empty(sdb_range_intersect(sdb_range_make(0, 1), sdb_range_make(3, 4))));
  assert_true(sdb_range_is_singleton(sdb_range_make(3, 3)));
  assert_false(sdb_range_is_singleton(sdb_range_make(SDB_PINF, SDB_PINF)));
}

static void test_bound_arith(void **state) {
  (void)state;
  check_bound("s0", "[2, int_oo]");
  check_bound("7", "[7, 7]");
  check_bound("s0 + s1", "[4, int_oo]");
  check_bound("s1 - s0", "[-int_oo, 8]");
  check_bound("2*s1 + 1", "[5, 21]");
  check_bound("-s1", "[-10, -2]");
  check_bound("s1*u1", "[-30, 40]");
  check_bound("u1**2", "[0, 16]");
  check_bound("u1**3", "[-27, 64]");
  check_bound("s0*s1", "[4, int_oo]");
  check_bound("u2 + 1", "[-int_oo, int_oo]");
  check_bound("zz", "[-int_oo, int_oo]");      /* unknown symbol */
  check_bound("s0*9223372036854775806", "[int_oo, int_oo]");  /* saturates */
}

static void test_bound_div_mod(void **state) {
  (void)state;
  check_bound("s1//2", "[1, 5]");
  check_bound("u1//2", "[-2, 2]");
  check_bound("u1//s1", "[-2, 2]");
  check_bound("s0//s1", "[0, int_oo]");
  check_bound("u1//(-2)", "[-2, 1]");
  check_bound("s1//u1", "[-10, 10]");          /* divisor straddles 0 */
  check_bound("Mod(u2, 4)", "[0, 3]");
  check_bound("Mod(s1, 16)", "[2, 10]");       /* already reduced */
  check_bound("Mod(u0, s1)", "[0, 9]");
  check_bound("Mod(u2, -4)", "[-3, 0]");
  check_bound("Mod(u2, u1)", "[-2, 3]");
}

static void test_bound_minmax_rel(void **state) {
  (void)state;
  check_bound("Max(1, u0)", "[1, int_oo]");
  check_bound("Min(s1, u1)", "[-3, 4]");
  check_bound("Max(s1, u1, 3)", "[3, 10]");
  check_bound("u0 >= 0", "[True, True]");
  check_bound("u0 < 0", "[False, False]");
  check_bound("u1 < 0", "[False, True]");
  check_bound("s0 > 1", "[True, True]");
  check_bound("Eq(s0, 1)", "[False, False]");
  check_bound("Ne(s0, 1)", "[True, True]");
  check_bound("Eq(u1, 1)", "[False, True]");
  check_bound("Eq(s1 - s1 + 3, 3)", "[True, True]");
  check_bound("(u0 >= 0) & (u1 < 10)", "[True, True]");
  check_bound("(u0 >= 0) & (u1 < 0)", "[False, True]");
  check_bound("(u0 < 0) & (u1 < 0)", "[False, False]");
  check_bound("(u0 < 0) | (u1 < 0)", "[False, True]");
  check_bound("(u0 < 0) | (s0 >= 2)", "[True, True]");
  check_bound("~((u0 < 0) | (u1 < 0))", "[False, True]");
  check_bound("Eq(s0 + 1, s0 + u1)", "[False, True]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_printing),
    cmocka_unit_test(test_set_ops),
    cmocka_unit_test(test_bound_arith),
    cmocka_unit_test(test_bound_div_mod),
    cmocka_unit_test(test_bound_minmax_rel),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("ranges", tests, NULL, NULL);
  sdb_expr_reset();
  return rc;
}
