/*
** expr_walk.c — walks over built expressions (see expr.h): rebuild from
** parts, substitution, free symbols and evaluation, each visiting a
** shared subexpression once.
*/
#include "expr.h"
#include "expr_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Rebuild, substitution, free symbols
** ---------------------------------------------------------------------- */

const sdb_expr *sdb_rebuild(sdb_kind kind, int64_t ival,
                            const sdb_expr *const *args, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  switch (kind) {
    case SDB_INT: return sdb_int(ival);
    case SDB_TRUE: return sdb_true();
    case SDB_FALSE: return sdb_false();
    case SDB_ADD: {
      const sdb_expr *s = sdb_add_n(args, n);
      return ival ? sdb_add(s, sdb_int(ival)) : s;
    }
    case SDB_MUL: {
      const sdb_expr *p = sdb_mul_n(args, n);
      return ival != 1 ? sdb_mul(sdb_int(ival), p) : p;
    }
    case SDB_POW: return sdb_pow(args[0], ival);
    case SDB_FLOORDIV: return sdb_floordiv(args[0], args[1]);
    case SDB_MOD: return sdb_mod(args[0], args[1]);
    case SDB_MAX: return sdb_max_n(args, n);
    case SDB_MIN: return sdb_min_n(args, n);
    case SDB_EQ: return sdb_eq(args[0], args[1]);
    case SDB_NE: return sdb_ne(args[0], args[1]);
    case SDB_LT: case SDB_LE: return sdb_ex_inequality(kind, args[0], args[1], ival != 0);
    case SDB_AND: return sdb_and_n(args, n);
    case SDB_OR: return sdb_or_n(args, n);
    case SDB_NOT: return sdb_not(args[0]);
    default: return sdb_ex_fail("cannot rebuild a %s", sdb_kind_name(kind));
  }
}

/* A pointer->pointer memo so shared subexpressions are visited once. Its
** first slots are inside it (free_symbols and subs run many times per op
** on small expressions: two callocs each were a tenth of their cost); it
** must not be copied once used. Zero-initialised. */
#define MEMO_INLINE 32
typedef struct {
  const sdb_expr **keys;
  const sdb_expr **vals;
  size_t cap, len;
  const sdb_expr *ikeys[MEMO_INLINE], *ivals[MEMO_INLINE];
} memo;

static bool memo_get(const memo *m, const sdb_expr *k, const sdb_expr **v) {
  if (!m->cap) return false;
  for (size_t j = k->id & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
    if (m->keys[j] == k) { *v = m->vals[j]; return true; }
  return false;
}

static bool memo_put(memo *m, const sdb_expr *k, const sdb_expr *v) {
  if (!m->cap) {   /* zero-initialised: the inline slots are empty */
    m->keys = m->ikeys;
    m->vals = m->ivals;
    m->cap = MEMO_INLINE;
  }
  if (m->len * 2 >= m->cap) {
    size_t cap = m->cap * 2;
    const sdb_expr **nk = sdb_noted(calloc(cap, sizeof *nk)), **nv = sdb_noted(calloc(cap, sizeof *nv));
    if (!nk || !nv) { free(nk); free(nv); return false; }
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t j = m->keys[i]->id & (cap - 1);
      while (nk[j]) j = (j + 1) & (cap - 1);
      nk[j] = m->keys[i];
      nv[j] = m->vals[i];
    }
    if (m->keys != m->ikeys) {
      free(m->keys);
      free(m->vals);
    }
    m->keys = nk;
    m->vals = nv;
    m->cap = cap;
  }
  size_t j = k->id & (m->cap - 1);
  while (m->keys[j]) j = (j + 1) & (m->cap - 1);
  m->keys[j] = k;
  m->vals[j] = v;
  m->len++;
  return true;
}

static void memo_free(memo *m) {
  if (m->keys == m->ikeys) return;
  free(m->keys);
  free(m->vals);
}

typedef struct {
  const sdb_expr *const *syms;
  const sdb_expr *const *vals;
  size_t n;
  memo seen;
} subs_ctx;

static const sdb_expr *subs_rec(subs_ctx *c, const sdb_expr *e) {
  if (e->kind == SDB_SYM) {
    for (size_t i = 0; i < c->n; i++)
      if (c->syms[i] == e) return c->vals[i];
    return e;
  }
  if (e->nargs == 0) return e;
  const sdb_expr *r;
  if (memo_get(&c->seen, e, &r)) return r;
  const sdb_expr *small[8];
  const sdb_expr **args = e->nargs <= 8 ? small : sdb_noted(malloc(e->nargs * sizeof *args));
  if (!args) return sdb_ex_fail("out of memory");
  bool changed = false;
  r = NULL;
  for (size_t i = 0; i < e->nargs; i++) {
    args[i] = subs_rec(c, e->args[i]);
    if (!args[i]) goto out;
    changed |= args[i] != e->args[i];
  }
  r = changed ? sdb_rebuild((sdb_kind)e->kind, e->ival, args, e->nargs) : e;
  if (r && !memo_put(&c->seen, e, r)) r = sdb_ex_fail("out of memory");
out:
  if (args != small) free(args);
  return r;
}

const sdb_expr *sdb_subs(const sdb_expr *e, const sdb_expr *const *syms,
                         const sdb_expr *const *vals, size_t n) {
  if (!e) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!syms[i] || !vals[i]) return NULL;
    if (syms[i]->kind != SDB_SYM) return sdb_ex_fail("subs: %s is not a symbol", sdb_kind_name(syms[i]->kind));
  }
  subs_ctx c = {syms, vals, n, {0}};
  const sdb_expr *r = subs_rec(&c, e);
  memo_free(&c.seen);
  return r;
}

static bool collect_syms(const sdb_expr *e, memo *seen, exprvec *out) {
  const sdb_expr *dummy;
  if (e->kind == SDB_SYM) {
    if (memo_get(seen, e, &dummy)) return true;
    return memo_put(seen, e, e) && ev_push(out, e);
  }
  if (e->nargs == 0 || memo_get(seen, e, &dummy)) return true;
  for (size_t i = 0; i < e->nargs; i++)
    if (!collect_syms(e->args[i], seen, out)) return false;
  return memo_put(seen, e, e);
}

long sdb_free_symbols(const sdb_expr *e, const sdb_expr ***out) {
  *out = NULL;
  if (e->kind != SDB_SYM && e->nargs == 0) return 0;
  memo seen = {0};
  exprvec v;
  ev_init(&v);
  long n = -1;
  if (collect_syms(e, &seen, &v)) {
    sdb_sort_n(v.v, v.n, sizeof *v.v, sdb_ex_expr_qsort_cmp);
    n = (long)v.n;
    if (n) {
      *out = sdb_noted(malloc(v.n * sizeof **out));
      if (*out) memcpy(*out, v.v, v.n * sizeof **out);
      else n = -1;
    }
  }
  memo_free(&seen);
  ev_free(&v);
  return n;
}

bool sdb_has_symbol(const sdb_expr *e, const sdb_expr *sym) {
  if (e == sym) return true;
  for (size_t i = 0; i < e->nargs; i++)
    if (sdb_has_symbol(e->args[i], sym)) return true;
  return false;
}

bool sdb_has_symbol_prefix(const sdb_expr *e, const char *prefix) {
  if (e->kind == SDB_SYM) return strncmp(e->name, prefix, strlen(prefix)) == 0;
  for (size_t i = 0; i < e->nargs; i++)
    if (sdb_has_symbol_prefix(e->args[i], prefix)) return true;
  return false;
}

/* ------------------------------------------------------------------------
** Evaluation
** ---------------------------------------------------------------------- */

typedef struct {
  sdb_lookup_fn lookup;
  void *ud;
  char *err;
  size_t errlen;
} eval_ctx;

static int eval_fail(eval_ctx *c, const char *fmt, ...) {
  if (c->err && c->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int eval_rec(eval_ctx *c, const sdb_expr *e, int64_t *out) {
  int64_t x, y;
  switch (e->kind) {
    case SDB_INT: *out = e->ival; return 0;
    case SDB_TRUE: *out = 1; return 0;
    case SDB_FALSE: *out = 0; return 0;
    case SDB_SYM:
      if (c->lookup && c->lookup(c->ud, e, out) == 0) return 0;
      return eval_fail(c, "no value for symbol %s", e->name);
    case SDB_ADD:
      x = e->ival;
      for (size_t i = 0; i < e->nargs; i++) {
        if (eval_rec(c, e->args[i], &y)) return -1;
        if (sdb_add_ov(x, y, &x)) return eval_fail(c, "integer overflow in evaluation");
      }
      *out = x;
      return 0;
    case SDB_MUL:
      x = e->ival;
      for (size_t i = 0; i < e->nargs; i++) {
        if (eval_rec(c, e->args[i], &y)) return -1;
        if (sdb_mul_ov(x, y, &x)) return eval_fail(c, "integer overflow in evaluation");
      }
      *out = x;
      return 0;
    case SDB_POW:
      if (eval_rec(c, e->args[0], &y)) return -1;
      x = 1;
      for (int64_t i = 0; i < e->ival; i++)
        if (sdb_mul_ov(x, y, &x)) return eval_fail(c, "integer overflow in evaluation");
      *out = x;
      return 0;
    case SDB_FLOORDIV: case SDB_MOD:
      if (eval_rec(c, e->args[0], &x) || eval_rec(c, e->args[1], &y)) return -1;
      if (y == 0) return eval_fail(c, "division by zero");
      if (e->kind == SDB_FLOORDIV) {
        if (x == INT64_MIN && y == -1) return eval_fail(c, "integer overflow in evaluation");
        *out = py_floordiv(x, y);
      } else {
        *out = py_mod(x, y);
      }
      return 0;
    case SDB_MAX: case SDB_MIN:
      for (size_t i = 0; i < e->nargs; i++) {
        if (eval_rec(c, e->args[i], &y)) return -1;
        if (i == 0 || (e->kind == SDB_MAX ? y > x : y < x)) x = y;
      }
      *out = x;
      return 0;
    case SDB_EQ: case SDB_NE: case SDB_LT: case SDB_LE:
      if (eval_rec(c, e->args[0], &x) || eval_rec(c, e->args[1], &y)) return -1;
      *out = e->kind == SDB_EQ ? x == y : e->kind == SDB_NE ? x != y
           : e->kind == SDB_LT ? x < y : x <= y;
      return 0;
    case SDB_AND: case SDB_OR:
      for (size_t i = 0; i < e->nargs; i++) {
        if (eval_rec(c, e->args[i], &y)) return -1;
        if (e->kind == SDB_AND && !y) { *out = 0; return 0; }
        if (e->kind == SDB_OR && y) { *out = 1; return 0; }
      }
      *out = e->kind == SDB_AND;
      return 0;
    case SDB_NOT:
      if (eval_rec(c, e->args[0], &y)) return -1;
      *out = !y;
      return 0;
    default:
      return eval_fail(c, "cannot evaluate %s", sdb_kind_name((sdb_kind)e->kind));
  }
}

int sdb_eval(const sdb_expr *e, sdb_lookup_fn lookup, void *ud, int64_t *out,
             char *err, size_t errlen) {
  eval_ctx c = {lookup, ud, err, errlen};
  return eval_rec(&c, e, out);
}
