/*
** expr_rel.c — Max/Min, relations and logic (see expr.h): the builders
** whose canonical forms compare or fold their arguments, on the table and
** the arithmetic of expr.c.
*/
#include "expr.h"
#include "expr_internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------
** Max and Min
** ---------------------------------------------------------------------- */

/* An argument of Max/Min as non-constant terms plus a constant: the terms
** of a sum, or the argument itself. */
static const sdb_expr *const *nonconst_terms(const sdb_expr *const *x, size_t *n) {
  if ((*x)->kind == SDB_ADD) { *n = (*x)->nargs; return (*x)->args; }
  *n = 1;
  return x;
}
static int64_t const_part(const sdb_expr *x) { return x->kind == SDB_ADD ? x->ival : 0; }

/* Any total order on the non-constant terms (by creation id); equal means
** the two differ by a constant. */
static int nonconst_qsort_cmp(const void *pa, const void *pb) {
  size_t na, nb;
  const sdb_expr *const *a = nonconst_terms(pa, &na), *const *b = nonconst_terms(pb, &nb);
  if (na != nb) return na < nb ? -1 : 1;
  for (size_t i = 0; i < na; i++)
    if (a[i] != b[i]) return a[i]->id < b[i]->id ? -1 : 1;
  return 0;
}

static const sdb_expr *minmax_n(sdb_kind kind, const sdb_expr *const *in,
                                size_t n) {
  const char *nm = kind == SDB_MAX ? "Max" : "Min";
  if (n == 0) return sdb_ex_fail("%s needs at least one argument", nm);
  for (size_t i = 0; i < n; i++) {
    if (!in[i]) return NULL;
    if (!sdb_ex_need_int(in[i], nm)) return NULL;
  }
  exprvec v;
  ev_init(&v);
  const sdb_expr *r = NULL;
  bool have_const = false;
  int64_t best = 0;
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *x = in[i];
    size_t m = x->kind == kind ? x->nargs : 1;
    for (size_t j = 0; j < m; j++) {
      const sdb_expr *y = x->kind == kind ? x->args[j] : x;
      if (y->kind == SDB_INT) {
        if (!have_const || (kind == SDB_MAX ? y->ival > best : y->ival < best))
          best = y->ival;
        have_const = true;
      } else if (!ev_push(&v, y)) {
        sdb_ex_fail("out of memory");
        goto out;
      }
    }
  }
  if (have_const && !ev_push(&v, sdb_int(best))) { sdb_ex_fail("out of memory"); goto out; }
  /* Drop duplicates and arguments dominated by another that differs from it
  ** by a constant (Max(x, x + 1) = x + 1). Two canonical arguments differ by
  ** a constant exactly when their non-constant terms are the same, so sort
  ** by those terms and keep the best of each run: O(n log n), where
  ** comparing every pair made Max/Min of many arguments cubic to build. */
  sdb_sort_n(v.v, v.n, sizeof *v.v, nonconst_qsort_cmp);
  for (size_t i = 0; i + 1 < v.n; i++) {
    if (nonconst_qsort_cmp(&v.v[i], &v.v[i + 1]) != 0) continue;
    int64_t ci = const_part(v.v[i]), cj = const_part(v.v[i + 1]);
    bool keep_i = kind == SDB_MAX ? ci >= cj : ci <= cj;
    if (keep_i) v.v[i + 1] = v.v[i];   /* carry the best along the run */
    v.v[i] = NULL;
  }
  size_t w = 0;
  for (size_t i = 0; i < v.n; i++)
    if (v.v[i]) v.v[w++] = v.v[i];
  v.n = w;
  if (v.n == 1) { r = v.v[0]; goto out; }
  sdb_sort_n(v.v, v.n, sizeof *v.v, sdb_ex_expr_qsort_cmp);
  r = sdb_ex_intern((uint8_t)kind, 0, NULL, v.v, v.n);
out:
  ev_free(&v);
  return r;
}

const sdb_expr *sdb_max_n(const sdb_expr *const *a, size_t n) { return minmax_n(SDB_MAX, a, n); }
const sdb_expr *sdb_min_n(const sdb_expr *const *a, size_t n) { return minmax_n(SDB_MIN, a, n); }
const sdb_expr *sdb_max(const sdb_expr *a, const sdb_expr *b) {
  return minmax_n(SDB_MAX, (const sdb_expr *[]){a, b}, 2);
}
const sdb_expr *sdb_min(const sdb_expr *a, const sdb_expr *b) {
  return minmax_n(SDB_MIN, (const sdb_expr *[]){a, b}, 2);
}

/* ------------------------------------------------------------------------
** Relations
** ---------------------------------------------------------------------- */

static const sdb_expr *equality(sdb_kind kind, const sdb_expr *a,
                                const sdb_expr *b) {
  if (!a || !b) return NULL;
  bool eq = kind == SDB_EQ;
  if (sdb_is_bool(a) || sdb_is_bool(b)) {
    if (!sdb_is_bool(a) || !sdb_is_bool(b))
      return sdb_ex_fail("%s compares a boolean with an integer", eq ? "Eq" : "Ne");
    if (a == b) return sdb_bool(eq);
    if (b->kind == SDB_TRUE || b->kind == SDB_FALSE) {
      const sdb_expr *t = a; a = b; b = t;
    }
    if (a->kind == SDB_TRUE) return eq ? b : sdb_not(b);
    if (a->kind == SDB_FALSE) return eq ? sdb_not(b) : b;
  } else {
    const sdb_expr *d = sdb_sub(a, b);
    if (!d) return NULL;
    if (d->kind == SDB_INT) return sdb_bool((d->ival == 0) == eq);
    if (a->kind == SDB_INT) { const sdb_expr *t = a; a = b; b = t; }
  }
  if (a->kind != SDB_INT && b->kind != SDB_INT && sdb_expr_cmp(a, b) > 0) {
    const sdb_expr *t = a; a = b; b = t;
  }
  return sdb_ex_intern((uint8_t)kind, 0, NULL, (const sdb_expr *[]){a, b}, 2);
}

const sdb_expr *sdb_eq(const sdb_expr *a, const sdb_expr *b) { return equality(SDB_EQ, a, b); }
const sdb_expr *sdb_ne(const sdb_expr *a, const sdb_expr *b) { return equality(SDB_NE, a, b); }

/* flip: built as Gt/Ge (b > a, b >= a); kept only for printing. */
const sdb_expr *sdb_ex_inequality(sdb_kind kind, const sdb_expr *a,
                                  const sdb_expr *b, bool flip) {
  if (!a || !b) return NULL;
  const char *nm = kind == SDB_LT ? "Lt" : "Le";
  if (!sdb_ex_need_int(a, nm) || !sdb_ex_need_int(b, nm)) return NULL;
  const sdb_expr *d = sdb_sub(a, b);
  if (!d) return NULL;
  if (d->kind == SDB_INT)
    return sdb_bool(kind == SDB_LT ? d->ival < 0 : d->ival <= 0);
  return sdb_ex_intern((uint8_t)kind, flip, NULL, (const sdb_expr *[]){a, b}, 2);
}

const sdb_expr *sdb_lt(const sdb_expr *a, const sdb_expr *b) { return sdb_ex_inequality(SDB_LT, a, b, false); }
const sdb_expr *sdb_le(const sdb_expr *a, const sdb_expr *b) { return sdb_ex_inequality(SDB_LE, a, b, false); }
const sdb_expr *sdb_gt(const sdb_expr *a, const sdb_expr *b) { return sdb_ex_inequality(SDB_LT, b, a, true); }
const sdb_expr *sdb_ge(const sdb_expr *a, const sdb_expr *b) { return sdb_ex_inequality(SDB_LE, b, a, true); }

const sdb_expr *sdb_rel_canon(const sdb_expr *e) {
  if (!e) return NULL;
  switch (e->kind) {
    case SDB_LT: case SDB_LE:
      return e->ival ? sdb_ex_inequality((sdb_kind)e->kind, e->args[0], e->args[1], false) : e;
    case SDB_AND: case SDB_OR: case SDB_NOT: {
      const sdb_expr *small[8], **args = e->nargs <= 8 ? small : sdb_noted(malloc(e->nargs * sizeof *args));
      if (!args) return sdb_ex_fail("out of memory");
      bool same = true;
      for (size_t i = 0; i < e->nargs; i++) {
        args[i] = sdb_rel_canon(e->args[i]);
        if (!args[i]) { if (args != small) free(args); return NULL; }
        same = same && args[i] == e->args[i];
      }
      const sdb_expr *r = same ? e : sdb_rebuild((sdb_kind)e->kind, e->ival, args, e->nargs);
      if (args != small) free(args);
      return r;
    }
    default: return e;
  }
}

/* ------------------------------------------------------------------------
** Logic
** ---------------------------------------------------------------------- */

const sdb_expr *sdb_not(const sdb_expr *a) {
  if (!a) return NULL;
  if (!sdb_is_bool(a)) return sdb_ex_fail("Not expects a boolean expression");
  switch (a->kind) {
    case SDB_TRUE: return sdb_false();
    case SDB_FALSE: return sdb_true();
    case SDB_NOT: return a->args[0];
    case SDB_EQ: return sdb_ne(a->args[0], a->args[1]);
    case SDB_NE: return sdb_eq(a->args[0], a->args[1]);
    /* sympy's negated: Not(a < b) is a >= b, Not(a > b) is a <= b */
    case SDB_LT: return sdb_ex_inequality(SDB_LE, a->args[1], a->args[0], !a->ival);
    case SDB_LE: return sdb_ex_inequality(SDB_LT, a->args[1], a->args[0], !a->ival);
    default: return sdb_ex_intern(SDB_NOT, 0, NULL, &a, 1);
  }
}

static const sdb_expr *logic_n(sdb_kind kind, const sdb_expr *const *in,
                               size_t n) {
  const char *nm = kind == SDB_AND ? "And" : "Or";
  uint8_t identity = kind == SDB_AND ? SDB_TRUE : SDB_FALSE;
  uint8_t absorb = kind == SDB_AND ? SDB_FALSE : SDB_TRUE;
  for (size_t i = 0; i < n; i++) {
    if (!in[i]) return NULL;
    if (!sdb_is_bool(in[i])) return sdb_ex_fail("%s expects boolean expressions", nm);
  }
  exprvec v;
  ev_init(&v);
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *x = in[i];
    size_t m = x->kind == kind ? x->nargs : 1;
    for (size_t j = 0; j < m; j++) {
      const sdb_expr *y = x->kind == kind ? x->args[j] : x;
      if (y->kind == absorb) { r = y; goto out; }
      if (y->kind == identity) continue;
      if (!ev_push(&v, y)) { sdb_ex_fail("out of memory"); goto out; }
    }
  }
  sdb_sort_n(v.v, v.n, sizeof *v.v, sdb_ex_ordered_qsort_cmp);
  size_t w = 0;
  for (size_t i = 0; i < v.n; i++)
    if (!w || v.v[w - 1] != v.v[i]) v.v[w++] = v.v[i];
  v.n = w;
  for (size_t i = 0; i < v.n; i++) {   /* x & ~x = False, x | ~x = True */
    const sdb_expr *nx = sdb_not(v.v[i]);
    if (!nx) goto out;
    for (size_t j = 0; j < v.n; j++)
      if (v.v[j] == nx) { r = sdb_ex_intern(absorb, 0, NULL, NULL, 0); goto out; }
  }
  if (v.n == 0) r = sdb_ex_intern(identity, 0, NULL, NULL, 0);
  else if (v.n == 1) r = v.v[0];
  else r = sdb_ex_intern((uint8_t)kind, 0, NULL, v.v, v.n);
out:
  ev_free(&v);
  return r;
}

const sdb_expr *sdb_and_n(const sdb_expr *const *a, size_t n) { return logic_n(SDB_AND, a, n); }
const sdb_expr *sdb_or_n(const sdb_expr *const *a, size_t n) { return logic_n(SDB_OR, a, n); }
const sdb_expr *sdb_and(const sdb_expr *a, const sdb_expr *b) {
  return logic_n(SDB_AND, (const sdb_expr *[]){a, b}, 2);
}
const sdb_expr *sdb_or(const sdb_expr *a, const sdb_expr *b) {
  return logic_n(SDB_OR, (const sdb_expr *[]){a, b}, 2);
}
