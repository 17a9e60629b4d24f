/*
** ranges.c — interval arithmetic over int64 with infinities (see ranges.h).
*/
#include "ranges.h"

#include <stdio.h>

static bool is_inf(int64_t v) { return v == SDB_NINF || v == SDB_PINF; }
static int sign(int64_t v) { return (v > 0) - (v < 0); }
static int64_t inf_of(int s) { return s < 0 ? SDB_NINF : SDB_PINF; }

static int64_t sat_add(int64_t a, int64_t b) {
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) || is_inf(r)) return inf_of(sign(a));
  return r;
}

static int64_t sat_neg(int64_t a) {
  if (a == SDB_NINF) return SDB_PINF;
  if (a == SDB_PINF) return SDB_NINF;
  return -a;
}

static int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b)) return inf_of(sign(a) * sign(b));
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || is_inf(r))
    return inf_of(sign(a) * sign(b));
  return r;
}

/* floor(a / b) for b != 0, either may be infinite. */
static int64_t sat_floordiv(int64_t a, int64_t b) {
  if (is_inf(b)) {
    if (is_inf(a)) return inf_of(sign(a) * sign(b));
    if (b > 0) return a >= 0 ? 0 : -1;
    return a > 0 ? -1 : 0;
  }
  if (is_inf(a)) return inf_of(sign(a) * sign(b));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

sdb_range sdb_range_intersect(sdb_range a, sdb_range b) {
  sdb_range r = {max2(a.lo, b.lo), min2(a.hi, b.hi), a.is_bool && b.is_bool};
  return r;
}

sdb_range sdb_range_union(sdb_range a, sdb_range b) {
  if (sdb_range_is_empty(a)) return b;
  if (sdb_range_is_empty(b)) return a;
  sdb_range r = {min2(a.lo, b.lo), max2(a.hi, b.hi), a.is_bool && b.is_bool};
  return r;
}

char *sdb_bound_str(int64_t v, char *buf, size_t cap) {
  if (v == SDB_NINF) snprintf(buf, cap, "-int_oo");
  else if (v == SDB_PINF) snprintf(buf, cap, "int_oo");
  else snprintf(buf, cap, "%lld", (long long)v);
  return buf;
}

char *sdb_range_str(sdb_range r, char *buf, size_t cap) {
  if (r.is_bool) {
    snprintf(buf, cap, "[%s, %s]", r.lo ? "True" : "False",
             r.hi ? "True" : "False");
    return buf;
  }
  char lo[32], hi[32];
  snprintf(buf, cap, "[%s, %s]", sdb_bound_str(r.lo, lo, sizeof lo),
           sdb_bound_str(r.hi, hi, sizeof hi));
  return buf;
}

static sdb_range rng(int64_t lo, int64_t hi) { return sdb_range_make(lo, hi); }

static sdb_range r_add(sdb_range a, sdb_range b) {
  return rng(sat_add(a.lo, b.lo), sat_add(a.hi, b.hi));
}

static sdb_range r_scale(sdb_range a, int64_t k) {
  int64_t x = sat_mul(a.lo, k), y = sat_mul(a.hi, k);
  return rng(min2(x, y), max2(x, y));
}

static sdb_range r_mul(sdb_range a, sdb_range b) {
  int64_t c[4] = {sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi),
                  sat_mul(a.hi, b.lo), sat_mul(a.hi, b.hi)};
  sdb_range r = rng(c[0], c[0]);
  for (int i = 1; i < 4; i++) r.lo = min2(r.lo, c[i]), r.hi = max2(r.hi, c[i]);
  return r;
}

/* v**k, k >= 0. |v| <= 1 is answered directly: the loop below would run k
** times for -1 (fuzzing found Mod(x**64112049, 2) taking seconds) and its
** early exit at 1 got (-1)**odd wrong. Otherwise |r| doubles at least
** each round, so the loop ends within 64 rounds. */
static int64_t sat_pow(int64_t v, int64_t k) {
  if (k == 0) return 1;
  if (v == 0 || v == 1) return v;
  if (v == -1) return k % 2 ? -1 : 1;
  int64_t r = 1;
  for (int64_t i = 0; i < k; i++) {
    r = sat_mul(r, v);
    if (is_inf(r) || r == 0 || r == 1) break;
  }
  if (is_inf(r) && r < 0 && k % 2 == 0) r = SDB_PINF;
  return r;
}

static sdb_range r_pow(sdb_range a, int64_t k) {
  if (k % 2) return rng(sat_pow(a.lo, k), sat_pow(a.hi, k));
  int64_t m = max2(sat_pow(a.lo, k), sat_pow(a.hi, k));
  if (a.lo <= 0 && 0 <= a.hi) return rng(0, m);
  return rng(min2(sat_pow(a.lo, k), sat_pow(a.hi, k)), m);
}

/* floor(a / b) over b's range not containing 0: extremes sit at corners. */
static sdb_range r_floordiv_signed(sdb_range a, sdb_range b) {
  int64_t c[4] = {sat_floordiv(a.lo, b.lo), sat_floordiv(a.lo, b.hi),
                  sat_floordiv(a.hi, b.lo), sat_floordiv(a.hi, b.hi)};
  sdb_range r = rng(c[0], c[0]);
  for (int i = 1; i < 4; i++) r.lo = min2(r.lo, c[i]), r.hi = max2(r.hi, c[i]);
  return r;
}

static sdb_range r_floordiv(sdb_range a, sdb_range b) {
  sdb_range out = rng(1, 0);   /* empty */
  if (b.hi >= 1) out = sdb_range_union(out, r_floordiv_signed(a, rng(max2(b.lo, 1), b.hi)));
  if (b.lo <= -1) out = sdb_range_union(out, r_floordiv_signed(a, rng(b.lo, min2(b.hi, -1))));
  return sdb_range_is_empty(out) ? sdb_range_unknown() : out;
}

static sdb_range r_mod(sdb_range a, sdb_range b) {
  if (b.lo >= 1) {
    if (a.lo >= 0 && a.hi < b.lo) return a;          /* already reduced */
    int64_t hi = b.hi == SDB_PINF ? SDB_PINF : b.hi - 1;
    if (a.lo >= 0) hi = min2(hi, a.hi);
    return rng(0, hi);
  }
  if (b.hi <= -1) {
    int64_t lo = b.lo == SDB_NINF ? SDB_NINF : b.lo + 1;
    if (a.hi <= 0) lo = max2(lo, a.lo);
    return rng(lo, 0);
  }
  int64_t lo = b.lo == SDB_NINF ? SDB_NINF : min2(b.lo + 1, 0);
  int64_t hi = b.hi == SDB_PINF ? SDB_PINF : max2(b.hi - 1, 0);
  return rng(lo, hi);
}

/* A boolean range from "definitely true" / "definitely false". */
static sdb_range tri(bool t, bool f) {
  return t ? sdb_range_bool(1, 1) : f ? sdb_range_bool(0, 0) : sdb_range_bool(0, 1);
}

static sdb_range as_int(sdb_range r) { r.is_bool = false; return r; }

typedef struct { sdb_range_fn fn; void *ud; } bound_ctx;

static sdb_range bound_rec(const bound_ctx *c, const sdb_expr *e);

/* Range of a - b, through the canonical difference when it can be built
** (so common terms cancel), otherwise by interval subtraction. */
static sdb_range diff_range(const bound_ctx *c, const sdb_expr *a,
                            const sdb_expr *b) {
  if (!sdb_is_bool(a) && !sdb_is_bool(b)) {
    const sdb_expr *d = sdb_sub(a, b);
    if (d) return bound_rec(c, d);
  }
  sdb_range ra = as_int(bound_rec(c, a)), rb = as_int(bound_rec(c, b));
  return r_add(ra, rng(sat_neg(rb.hi), sat_neg(rb.lo)));
}

static sdb_range bound_rec(const bound_ctx *c, const sdb_expr *e) {
  sdb_range r, x;
  switch (e->kind) {
    case SDB_INT: return rng(e->ival, e->ival);
    case SDB_TRUE: return sdb_range_bool(1, 1);
    case SDB_FALSE: return sdb_range_bool(0, 0);
    case SDB_SYM:
      if (c->fn && c->fn(c->ud, e, &r)) return r;
      return sdb_range_unknown();
    case SDB_ADD:
      r = rng(e->ival, e->ival);
      for (size_t i = 0; i < e->nargs; i++) r = r_add(r, bound_rec(c, e->args[i]));
      return r;
    case SDB_MUL:
      r = rng(e->ival, e->ival);
      for (size_t i = 0; i < e->nargs; i++) {
        /* x*x*... is a Pow, so independent factors multiply soundly */
        x = bound_rec(c, e->args[i]);
        r = r.lo == r.hi ? r_scale(x, r.lo) : r_mul(r, x);
      }
      return r;
    case SDB_POW: return r_pow(bound_rec(c, e->args[0]), e->ival);
    case SDB_FLOORDIV: return r_floordiv(bound_rec(c, e->args[0]), bound_rec(c, e->args[1]));
    case SDB_MOD: return r_mod(bound_rec(c, e->args[0]), bound_rec(c, e->args[1]));
    case SDB_MAX: case SDB_MIN:
      r = bound_rec(c, e->args[0]);
      for (size_t i = 1; i < e->nargs; i++) {
        x = bound_rec(c, e->args[i]);
        if (e->kind == SDB_MAX) r = rng(max2(r.lo, x.lo), max2(r.hi, x.hi));
        else r = rng(min2(r.lo, x.lo), min2(r.hi, x.hi));
      }
      return r;
    case SDB_EQ: case SDB_NE: {
      sdb_range d = diff_range(c, e->args[0], e->args[1]);
      bool is_zero = d.lo == 0 && d.hi == 0, not_zero = !sdb_range_contains(d, 0);
      return e->kind == SDB_EQ ? tri(is_zero, not_zero) : tri(not_zero, is_zero);
    }
    case SDB_LT: case SDB_LE: {
      sdb_range d = diff_range(c, e->args[0], e->args[1]);
      bool t = e->kind == SDB_LT ? d.hi < 0 : d.hi <= 0;
      bool f = e->kind == SDB_LT ? d.lo >= 0 : d.lo > 0;
      return tri(t, f);
    }
    case SDB_AND: case SDB_OR: {
      bool any_true = false, any_false = false, any_unknown = false;
      for (size_t i = 0; i < e->nargs; i++) {
        x = bound_rec(c, e->args[i]);
        if (x.lo == 1) any_true = true;
        else if (x.hi == 0) any_false = true;
        else any_unknown = true;
      }
      if (e->kind == SDB_AND) return tri(!any_false && !any_unknown, any_false);
      return tri(any_true, !any_true && !any_unknown);
    }
    case SDB_NOT:
      x = bound_rec(c, e->args[0]);
      return sdb_range_bool(!x.hi, !x.lo);
    default:
      return sdb_range_unknown();
  }
}

sdb_range sdb_bound(const sdb_expr *e, sdb_range_fn fn, void *ud) {
  bound_ctx c = {fn, ud};
  return bound_rec(&c, e);
}
