/*
** value.h — the values that flow through operators and graphs: None, int
** (an integer expression: a constant or a SymInt), bool (True/False or a
** SymBool), float, tensor (a FakeTensor, reference counted), list, tuple
** and string (dtype names, modes, ...).
**
** Ownership: an sdb_value owns what it holds (a tensor reference, its
** items). sdb_value_copy takes new references; sdb_value_free releases.
** Expressions and strings are interned and never owned.
*/
#ifndef SDB_VALUE_H
#define SDB_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "expr.h"

struct sdb_fake;

typedef enum sdb_vkind {
  SDB_V_NONE,
  SDB_V_INT,      /* expr: Integer or symbolic */
  SDB_V_BOOL,     /* expr: True/False or symbolic */
  SDB_V_FLOAT,    /* fval, or expr = a float symbol (zuf0) */
  SDB_V_TENSOR,   /* tensor */
  SDB_V_LIST,     /* items */
  SDB_V_TUPLE,    /* items */
  SDB_V_STR       /* str (interned) */
} sdb_vkind;

/* 32 bytes: every node holds one (its example value), a long program
** millions; a node's constant arguments are packed smaller (sdb_arg).
** expr stays apart from the union, so "no expression" reads as
** NULL whatever the kind; the other fields are read by kind only. */
typedef struct sdb_value {
  sdb_vkind kind;
  const sdb_expr *expr;        /* INT, BOOL; FLOAT: a float symbol or NULL */
  union {
    struct sdb_fake *tensor;   /* TENSOR */
    struct sdb_value *items;   /* LIST, TUPLE */
    const char *str;           /* STR */
  };
  union {
    double fval;               /* FLOAT */
    size_t n;                  /* LIST, TUPLE */
  };
} sdb_value;

#define SDB_VALUE_NONE ((sdb_value){.kind = SDB_V_NONE})

sdb_value sdb_value_int(const sdb_expr *e);
sdb_value sdb_value_int64(int64_t v);
sdb_value sdb_value_bool(const sdb_expr *e);
sdb_value sdb_value_float(double v);
sdb_value sdb_value_symfloat(const sdb_expr *sym);
sdb_value sdb_value_string(const char *s);
/* Takes a new reference to t. */
sdb_value sdb_value_tensor(struct sdb_fake *t);
/* A list/tuple of n NONE items to fill in; kind is SDB_V_NONE on OOM. */
sdb_value sdb_value_seq(sdb_vkind kind, size_t n);

sdb_value sdb_value_copy(const sdb_value *v);
/* The same, false when there was no memory for a sequence (*out None):
** sdb_value_copy gives None then, which a caller cannot tell apart. */
bool sdb_value_copy_checked(sdb_value *out, const sdb_value *v);
void sdb_value_free(sdb_value *v);

bool sdb_value_is_int(const sdb_value *v);       /* INT (or a BOOL constant) */
bool sdb_value_is_const_int(const sdb_value *v, int64_t *out);

/* PyTorch-style text: 5, s0, True, 1.5, f32[s0, 2], (f32[u0], i64[]),
** [2, s0]. Tensors print their metadata. Malloc'ed. */
char *sdb_value_text(const sdb_value *v);

#endif
