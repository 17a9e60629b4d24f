/*
** err.c — error records (see err.h).
*/
#include "err.h"
#include "buf.h"
#include "expr.h"

#include <stdlib.h>
#include <string.h>

unsigned long sdb_nomem_count;

int sdb_err_setv(sdb_err *e, int code, const char *kind, const char *fmt, va_list ap) {
  if (!e) return code;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_vprintf(&b, fmt, ap);
  return sdb_err_take(e, code, kind, sdb_buf_take(&b));
}

int sdb_err_set(sdb_err *e, int code, const char *kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sdb_err_setv(e, code, kind, fmt, ap);
  va_end(ap);
  return code;
}

int sdb_err_take(sdb_err *e, int code, const char *kind, char *msg) {
  if (!e) { free(msg); return code; }
  free(e->msg);
  e->code = code;
  e->kind = kind;
  e->msg = msg;
  e->file = NULL;
  e->line = 0;
  e->cond = NULL;
  return code;
}

void sdb_err_copy(sdb_err *dst, const sdb_err *src) {
  if (!dst || dst == src) return;
  free(dst->msg);
  *dst = *src;
  dst->msg = src->msg ? strdup(src->msg) : NULL;
}

void sdb_err_clear(sdb_err *e) {
  if (!e) return;
  free(e->msg);
  *e = (sdb_err)SDB_ERR_INIT;
}

int sdb_err_expr(sdb_err *e) {
  if (!strcmp(sdb_expr_error(), "out of memory"))
    return sdb_err_set(e, SDB_E_OOM, "MemoryError", "out of memory");
  return sdb_err_set(e, SDB_E_EXPR, "ExpressionError", "%s", sdb_expr_error());
}
