/*
** expr_internal.h — what expr.c shares with expr_rel.c, expr_walk.c and
** expr_text.c (the builders, the walks, and the printers and parser of the
** same expressions), and nothing else uses.
*/
#ifndef SDB_EXPR_INTERNAL_H
#define SDB_EXPR_INTERNAL_H

#include "expr.h"
#include "err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Checked int64 arithmetic: true on overflow (never UB). */
static inline bool sdb_add_ov(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline bool sdb_mul_ov(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

/* Python semantics: floor division and modulo with the divisor's sign.
** Caller guarantees b != 0 and !(a == INT64_MIN && b == -1). */
static inline int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t py_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* A growable array of expressions for builders (stack first, heap when
** large). */
typedef struct {
  const sdb_expr **v;
  size_t n, cap;
  const sdb_expr *small[16];
} exprvec;

static inline void ev_init(exprvec *t) { t->v = t->small; t->n = 0; t->cap = 16; }
static inline void ev_free(exprvec *t) { if (t->v != t->small) free(t->v); }
static inline bool ev_push(exprvec *t, const sdb_expr *e) {
  if (t->n == t->cap) {
    size_t cap = t->cap * 2;
    const sdb_expr **v = t->v == t->small ? sdb_noted(malloc(cap * sizeof *v))
                                          : sdb_noted(realloc(t->v, cap * sizeof *v));
    if (!v) return false;
    if (t->v == t->small) memcpy(v, t->small, sizeof t->small);
    t->v = v;
    t->cap = cap;
  }
  t->v[t->n++] = e;
  return true;
}

/* expr.c: qsort for the short arrays canonicalisation sorts (stable). */
void sdb_sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* expr.c's, for expr_rel.c and expr_walk.c */
/* set the message sdb_expr_error returns; NULL */
const sdb_expr *sdb_ex_fail(const char *fmt, ...);
/* Find or create the node. `args` must already be canonical. */
const sdb_expr *sdb_ex_intern(uint8_t kind, int64_t ival, const char *name,
                              const sdb_expr *const *args, size_t n);
/* e, or NULL with an error when e is a boolean */
const sdb_expr *sdb_ex_need_int(const sdb_expr *e, const char *op);
/* qsort callbacks over expression pointers: sdb_expr_cmp, and sympy's
** ordered() (smaller trees first) */
int sdb_ex_expr_qsort_cmp(const void *a, const void *b);
int sdb_ex_ordered_qsort_cmp(const void *a, const void *b);

/* expr_rel.c's, for expr_walk.c: Lt/Le of a and b; flip: built as Gt/Ge */
const sdb_expr *sdb_ex_inequality(sdb_kind kind, const sdb_expr *a,
                                  const sdb_expr *b, bool flip);

/* expr_text.c: forget the printed forms it caches (sdb_expr_reset). */
void sdb_expr_text_reset(void);

#endif
