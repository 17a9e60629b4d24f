/*
** value.c — operator/graph values (see value.h).
*/
#include "value.h"
#include "buf.h"
#include "fake.h"
#include "intern.h"

#include <stdlib.h>
#include <string.h>

sdb_value sdb_value_int(const sdb_expr *e) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_INT;
  v.expr = e;
  return v;
}

sdb_value sdb_value_int64(int64_t i) { return sdb_value_int(sdb_int(i)); }

sdb_value sdb_value_bool(const sdb_expr *e) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_BOOL;
  v.expr = e;
  return v;
}

sdb_value sdb_value_float(double f) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_FLOAT;
  v.fval = f;
  return v;
}

sdb_value sdb_value_symfloat(const sdb_expr *sym) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_FLOAT;
  v.expr = sym;
  return v;
}

sdb_value sdb_value_string(const char *s) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_STR;
  v.str = sdb_intern(s);
  return v;
}

sdb_value sdb_value_tensor(sdb_fake *t) {
  sdb_value v = SDB_VALUE_NONE;
  v.kind = SDB_V_TENSOR;
  v.tensor = sdb_fake_ref(t);
  return v;
}

sdb_value sdb_value_seq(sdb_vkind kind, size_t n) {
  sdb_value v = SDB_VALUE_NONE;
  v.items = n ? calloc(n, sizeof *v.items) : NULL;
  if (n && !v.items) return v;
  v.kind = kind;
  v.n = n;
  return v;
}

bool sdb_value_copy_checked(sdb_value *out, const sdb_value *v) {
  *out = *v;
  if (v->kind == SDB_V_TENSOR) out->tensor = sdb_fake_ref(v->tensor);
  if (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE) {
    *out = sdb_value_seq(v->kind, v->n);
    bool ok = out->kind == v->kind;
    for (size_t i = 0; ok && i < out->n; i++) ok = sdb_value_copy_checked(&out->items[i], &v->items[i]);
    if (!ok) {   /* the items copied so far go back; no half copy */
      sdb_value_free(out);
      return false;
    }
  }
  return true;
}

sdb_value sdb_value_copy(const sdb_value *v) {
  sdb_value c;
  sdb_value_copy_checked(&c, v);
  return c;
}

void sdb_value_free(sdb_value *v) {
  if (!v) return;
  if (v->kind == SDB_V_TENSOR) sdb_fake_unref(v->tensor);
  if (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE) {
    for (size_t i = 0; i < v->n; i++) sdb_value_free(&v->items[i]);
    free(v->items);
  }
  *v = SDB_VALUE_NONE;
}

bool sdb_value_is_int(const sdb_value *v) {
  return v->kind == SDB_V_INT ||
         (v->kind == SDB_V_BOOL && v->expr && sdb_is_const(v->expr));
}

bool sdb_value_is_const_int(const sdb_value *v, int64_t *out) {
  if (v->kind == SDB_V_INT && v->expr && v->expr->kind == SDB_INT) {
    *out = v->expr->ival;
    return true;
  }
  if (v->kind == SDB_V_BOOL && v->expr && (v->expr->kind == SDB_TRUE || v->expr->kind == SDB_FALSE)) {
    *out = v->expr->kind == SDB_TRUE;
    return true;
  }
  return false;
}

static void put(sdb_buf *b, const sdb_value *v) {
  char *s = NULL;
  switch (v->kind) {
    case SDB_V_NONE: sdb_buf_puts(b, "None"); break;
    /* a text that could not be made for want of memory fails the buffer
    ** (the caller says so) rather than reading "?" */
    case SDB_V_INT: case SDB_V_BOOL:
      s = v->expr ? sdb_expr_str(v->expr) : NULL;
      if (s) sdb_buf_puts(b, s);
      else if (v->expr) b->failed = true;
      else sdb_buf_puts(b, "?");
      break;
    case SDB_V_FLOAT:
      if (!v->expr) sdb_buf_printf(b, "%.17g", v->fval);
      else if ((s = sdb_expr_str(v->expr))) sdb_buf_puts(b, s);
      else b->failed = true;
      break;
    case SDB_V_TENSOR:
      s = sdb_fake_meta_str(v->tensor, false);
      if (s) sdb_buf_puts(b, s);
      else b->failed = true;
      break;
    case SDB_V_LIST: case SDB_V_TUPLE:
      sdb_buf_putc(b, v->kind == SDB_V_LIST ? '[' : '(');
      for (size_t i = 0; i < v->n; i++) {
        if (i) sdb_buf_puts(b, ", ");
        put(b, &v->items[i]);
      }
      if (v->kind == SDB_V_TUPLE && v->n == 1) sdb_buf_putc(b, ',');
      sdb_buf_putc(b, v->kind == SDB_V_LIST ? ']' : ')');
      break;
    case SDB_V_STR: sdb_buf_puts(b, v->str ? v->str : ""); break;
  }
  free(s);
}

char *sdb_value_text(const sdb_value *v) {
  sdb_buf b = SDB_BUF_INIT;
  put(&b, v);
  return sdb_buf_take(&b);
}
