/*
** err.h — errors as values. A core function that can fail returns a
** negative sdb_status and fills an sdb_err: a PyTorch-style kind name, a
** message (owned, heap), and the user's Lua location when one is known.
*/
#ifndef SDB_ERR_H
#define SDB_ERR_H

#include <stdarg.h>

struct sdb_expr;

typedef enum sdb_status {
  SDB_OK = 0,
  SDB_E_DATA_DEPENDENT = -1,   /* GuardOnDataDependentSymNode */
  SDB_E_PENDING_NOT_FOUND = -2,/* PendingUnbackedSymbolNotFound */
  SDB_E_CONSTRAINT = -3,       /* ConstraintViolationError / failed check */
  SDB_E_INVALID = -4,          /* bad argument, wrong kind of expression */
  SDB_E_OOM = -5,
  SDB_E_UNSUPPORTED = -6,      /* unsupported operator */
  SDB_E_SHAPE = -7,            /* shape mismatch in an operator */
  SDB_E_HOP = -8,              /* higher-order op check (cond) */
  SDB_E_INVARIANT = -9,        /* binding invariant in lowering */
  SDB_E_EXPR = -10             /* expression builder failed (overflow...) */
} sdb_status;

typedef struct sdb_err {
  int code;                    /* sdb_status, SDB_OK when clear */
  const char *kind;            /* "GuardOnDataDependentSymNode", ... (static) */
  char *msg;                   /* owned */
  const char *file;            /* interned user location, or NULL */
  int line;
  const struct sdb_expr *cond; /* the expression a DDE is about, or NULL */
} sdb_err;

#define SDB_ERR_INIT {0, NULL, NULL, NULL, 0, NULL}

/* Set code/kind/message (replacing any previous message); returns code. */
int sdb_err_set(sdb_err *e, int code, const char *kind, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
int sdb_err_setv(sdb_err *e, int code, const char *kind, const char *fmt, va_list ap);
/* Take ownership of a malloc'ed message. */
int sdb_err_take(sdb_err *e, int code, const char *kind, char *msg);
/* Copy src into dst (dst's old message freed). */
void sdb_err_copy(sdb_err *dst, const sdb_err *src);
void sdb_err_clear(sdb_err *e);
/* The expression builders' last error as an SDB_E_EXPR. */
int sdb_err_expr(sdb_err *e);

/* Allocations of the core's that failed, over the whole run. A step that
** must not pass such a failure off as an answer ("not known", nothing
** learned) compares the count before and after it (shape_env_impl.h).
** The modules it runs through note each failure where they allocate:
** sdb_noted(malloc(n)). errno cannot tell: glibc's malloc leaves ENOMEM
** behind when brk fails and mmap then succeeds (always under valgrind). */
extern unsigned long sdb_nomem_count;
static inline void *sdb_noted(void *p) {
  if (!p) sdb_nomem_count++;
  return p;
}

#endif
