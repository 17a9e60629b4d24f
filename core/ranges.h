/*
** ranges.h — value ranges: closed int64 intervals with -int_oo / int_oo,
** and boolean ranges, plus bound(expr) by interval arithmetic.
**
** INT64_MIN stands for -int_oo and INT64_MAX for int_oo, so every finite
** bound lies strictly between them. Arithmetic saturates to the infinities,
** which keeps every bound sound (an overflowing bound only gets wider).
*/
#ifndef SDB_RANGES_H
#define SDB_RANGES_H

#include "expr.h"

#define SDB_NINF INT64_MIN
#define SDB_PINF INT64_MAX

typedef struct sdb_range {
  int64_t lo, hi;
  bool is_bool;     /* lo, hi in {0, 1}, printed False/True */
} sdb_range;

static inline sdb_range sdb_range_make(int64_t lo, int64_t hi) {
  sdb_range r = {lo, hi, false};
  return r;
}
static inline sdb_range sdb_range_unknown(void) {
  return sdb_range_make(SDB_NINF, SDB_PINF);
}
static inline sdb_range sdb_range_bool(bool lo, bool hi) {
  sdb_range r = {lo, hi, true};
  return r;
}
static inline bool sdb_range_is_empty(sdb_range r) { return r.lo > r.hi; }
static inline bool sdb_range_contains(sdb_range r, int64_t v) {
  return r.lo <= v && v <= r.hi;
}
static inline bool sdb_range_is_singleton(sdb_range r) {
  return r.lo == r.hi && r.lo != SDB_NINF && r.lo != SDB_PINF;
}

sdb_range sdb_range_intersect(sdb_range a, sdb_range b);
sdb_range sdb_range_union(sdb_range a, sdb_range b);

/* "[0, int_oo]", "[-int_oo, 5]", "[False, True]". Returns buf. */
#define SDB_RANGE_STRLEN 64
char *sdb_range_str(sdb_range r, char *buf, size_t cap);
/* One bound as sympy/PyTorch print it: "int_oo", "-int_oo", "5". */
char *sdb_bound_str(int64_t v, char *buf, size_t cap);

/* The range of a symbol: return true and fill *out, or false for unknown. */
typedef bool (*sdb_range_fn)(void *ud, const sdb_expr *sym, sdb_range *out);

/* A sound range for e given the ranges of its symbols. Integer expressions
** give integer ranges, boolean ones give boolean ranges. */
sdb_range sdb_bound(const sdb_expr *e, sdb_range_fn fn, void *ud);

#endif
