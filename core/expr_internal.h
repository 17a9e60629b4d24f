/*
** expr_internal.h — what expr.c shares with expr_text.c (the builders and
** the printers and parser of the same expressions), and nothing else uses.
*/
#ifndef SDB_EXPR_INTERNAL_H
#define SDB_EXPR_INTERNAL_H

#include "expr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Checked int64 arithmetic: true on overflow (never UB). */
static inline bool sdb_add_ov(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline bool sdb_mul_ov(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

/* expr.c: qsort for the short arrays canonicalisation sorts (stable). */
void sdb_sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* expr_text.c: forget the printed forms it caches (sdb_expr_reset). */
void sdb_expr_text_reset(void);

#endif
