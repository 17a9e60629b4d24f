/*
** ops.c — operator meta functions (see ops.h).
**
** Each meta function mirrors PyTorch's: torch/_subclasses/fake_impls.py for
** the data-dependent ops, torch/_meta_registrations.py, torch/_refs and
** torch/_decomp for the rest (the C++ kernels' checks where no Python meta
** exists). Guards are taken (and symbols allocated) in the same places, so
** the events a trace produces read like PyTorch's logs.
**
** Layout: argument helpers; shared helpers (messages, torch._check, type
** promotion, views); then one section per family of operators; the table
** last. A meta function never leaves a half-built value in *out on error
** (sdb_op_call frees it anyway).
*/
#include "ops.h"
#include "buf.h"
#include "intern.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 64
#define KW ((size_t)-1)    /* keyword-only argument: no position */

/* ------------------------------------------------------------------------
** Argument helpers
** ---------------------------------------------------------------------- */

const sdb_value *ah_get(const sdb_args *a, size_t i, const char *name) {
  if (name)
    for (size_t k = 0; k < a->nkw; k++)
      if (!strcmp(a->kw[k].name, name)) return &a->kw[k].value;
  if (i < a->npos) return &a->pos[i];
  return NULL;
}

static const char *vkind_name(sdb_vkind k) {
  switch (k) {
    case SDB_V_NONE: return "None";
    case SDB_V_INT: return "int";
    case SDB_V_BOOL: return "bool";
    case SDB_V_FLOAT: return "float";
    case SDB_V_TENSOR: return "Tensor";
    case SDB_V_LIST: return "list";
    case SDB_V_TUPLE: return "tuple";
    default: return "str";
  }
}

/* An int value's expression (True/False count as 1/0). */
static const sdb_expr *int_expr(const sdb_value *v) {
  if (v->expr->kind == SDB_TRUE) return sdb_int(1);
  if (v->expr->kind == SDB_FALSE) return sdb_int(0);
  return v->expr;
}

static int bad_arg(const sdb_op *op, const char *name, size_t i, const char *want,
                   const sdb_value *got, sdb_err *err) {
  if (!got)
    return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() missing required argument '%s' (pos %zu)",
                       op->name, name ? name : "?", i == KW ? 0 : i);
  return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                     "%s(): argument '%s' (position %zu) must be %s, not %s",
                     op->name, name ? name : "?", i == KW ? 0 : i + 1, want, vkind_name(got->kind));
}

int ah_tensor(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
              sdb_fake **out, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind != SDB_V_TENSOR) return bad_arg(op, name, i, "Tensor", v, err);
  *out = v->tensor;
  return SDB_OK;
}

int ah_int(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
           const sdb_expr *dflt, const sdb_expr **out, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind == SDB_V_NONE) {
    if (!dflt) return bad_arg(op, name, i, "int", NULL, err);
    *out = dflt;
    return SDB_OK;
  }
  if (!sdb_value_is_int(v)) return bad_arg(op, name, i, "int", v, err);
  *out = int_expr(v);
  return SDB_OK;
}

int ah_const_int(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                 int64_t dflt, bool required, int64_t *out, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind == SDB_V_NONE) {
    if (required) return bad_arg(op, name, i, "int", NULL, err);
    *out = dflt;
    return SDB_OK;
  }
  if (!sdb_value_is_const_int(v, out)) {
    if (v->kind == SDB_V_INT)
      return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                         "%s(): argument '%s' must be a constant int here, not a SymInt",
                         op->name, name ? name : "?");
    return bad_arg(op, name, i, "int", v, err);
  }
  return SDB_OK;
}

int ah_bool(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
            bool dflt, bool *out, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind == SDB_V_NONE) { *out = dflt; return SDB_OK; }
  int64_t b;
  if (!sdb_value_is_const_int(v, &b)) return bad_arg(op, name, i, "bool", v, err);
  *out = b != 0;
  return SDB_OK;
}

int ah_dtype(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
             int *out, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  *out = -1;
  if (!v || v->kind == SDB_V_NONE) return SDB_OK;
  if (v->kind != SDB_V_STR) return bad_arg(op, name, i, "dtype", v, err);
  *out = sdb_dtype_from_name(v->str);
  if (*out < 0)
    return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s(): unknown dtype '%s'", op->name, v->str);
  return SDB_OK;
}

int ah_sizes(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
             const sdb_expr **out, int cap, int *n, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  *n = 0;
  if (v && (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE)) {
    if (v->n > (size_t)cap) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
    for (size_t k = 0; k < v->n; k++) {
      if (!sdb_value_is_int(&v->items[k])) return bad_arg(op, name, i, "a list of ints", &v->items[k], err);
      out[(*n)++] = int_expr(&v->items[k]);
    }
    return SDB_OK;
  }
  bool positional = i < a->npos && v == a->pos + i;
  if (v && !positional) {              /* a keyword that is not a list */
    if (!sdb_value_is_int(v)) return bad_arg(op, name, i, "a list of ints", v, err);
    out[(*n)++] = int_expr(v);
    return SDB_OK;
  }
  for (size_t k = i; k < a->npos; k++) {
    if (!sdb_value_is_int(&a->pos[k])) return bad_arg(op, name, k, "int", &a->pos[k], err);
    if (*n == cap) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
    out[(*n)++] = int_expr(&a->pos[k]);
  }
  return SDB_OK;
}

/* PyTorch's maybe_wrap_dim, with its message (no op name in it). */
int ah_wrap_dim(const sdb_op *op, int64_t dim, int ndim, int64_t *out, sdb_err *err) {
  (void)op;
  int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n)
    return sdb_err_set(err, SDB_E_INVALID, "IndexError",
                       "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                       (long long)-n, (long long)(n - 1), (long long)dim);
  *out = dim < 0 ? dim + n : dim;
  return SDB_OK;
}

/* A dim argument: one int or a list/tuple of ints, or (varargs) every
** positional argument from i on; each wrapped into [0, ndim). *n = -1 when
** absent or None. Duplicates are left to the caller (messages differ). */
static int ah_dims(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                   int ndim, bool varargs, int64_t *dims, int *n, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  *n = -1;
  if (!v || v->kind == SDB_V_NONE) return SDB_OK;
  const sdb_value *items = v;
  size_t cnt = 1;
  if (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE) {
    items = v->items;
    cnt = v->n;
  } else if (varargs && i < a->npos && v == a->pos + i) {
    cnt = a->npos - i;
  }
  if (cnt > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
  for (size_t k = 0; k < cnt; k++) {
    int64_t d = 0;
    if (!sdb_value_is_const_int(&items[k], &d)) {
      if (items[k].kind == SDB_V_INT)
        return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                           "%s(): argument '%s' must be a constant int here, not a SymInt",
                           op->name, name ? name : "dim");
      return bad_arg(op, name, i, "int or list of ints", &items[k], err);
    }
    int rc = ah_wrap_dim(op, d, ndim, &dims[k], err);
    if (rc) return rc;
  }
  *n = (int)cnt;
  return SDB_OK;
}

/* One dim argument (required unless dflt_ok), wrapped over ndim. */
static int ah_dim(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                  int ndim, int64_t dflt, bool required, int64_t *out, sdb_err *err) {
  int64_t d = 0;
  int rc = ah_const_int(op, a, i, name, dflt, required, &d, err);
  if (rc) return rc;
  return ah_wrap_dim(op, d, ndim, out, err);
}

/* A list/tuple of tensors (cat, stack). */
static int ah_tensor_list(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                          const sdb_value **items, size_t *n, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || (v->kind != SDB_V_LIST && v->kind != SDB_V_TUPLE))
    return bad_arg(op, name, i, "tuple of Tensors", v, err);
  for (size_t k = 0; k < v->n; k++)
    if (v->items[k].kind != SDB_V_TENSOR)
      return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                         "%s(): argument '%s' (position %zu) must be tuple of Tensors, not %s",
                         op->name, name, i + 1, vkind_name(v->items[k].kind));
  *items = v->items;
  *n = v->n;
  return SDB_OK;
}

/* An argument that must not be given (a combination we do not model). */
static int ah_reject(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                     const char *why, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind == SDB_V_NONE) return SDB_OK;
  return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                     "%s(): argument '%s' is not supported%s%s", op->name, name, why ? ": " : "",
                     why ? why : "");
}

/* Too many positional arguments is an error, never silently ignored. */
static int ah_max_pos(const sdb_op *op, const sdb_args *a, size_t max, sdb_err *err) {
  if (a->npos <= max) return SDB_OK;
  return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                     "%s() takes at most %zu positional arguments but %zu were given",
                     op->name, max, a->npos);
}

/* ------------------------------------------------------------------------
** Shared helpers: errors, messages, torch._check
** ---------------------------------------------------------------------- */

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

/* The expression as str(SymInt) prints it: replacements applied. */
static const sdb_expr *shown(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr *s = env ? sdb_simplify(env, e) : NULL;
  return s ? s : e;
}

static void put_expr(sdb_buf *b, sdb_shape_env *env, const sdb_expr *e) {
  char *t = e ? sdb_expr_str(shown(env, e)) : NULL;
  sdb_buf_puts(b, t ? t : "?");
  free(t);
}

static void put_shape_env(sdb_buf *b, sdb_shape_env *env, const sdb_expr *const *s, int n) {
  sdb_buf_putc(b, '[');
  for (int i = 0; i < n; i++) {
    if (i) sdb_buf_puts(b, ", ");
    put_expr(b, env, s[i]);
  }
  sdb_buf_putc(b, ']');
}

static void put_shape(sdb_buf *b, const sdb_expr *const *s, int n) {
  put_shape_env(b, NULL, s, n);
}

/* A message with placeholders: {e} an expression, {s} a shape (pointer and
** int count), {d} an int64_t, {t} a string, {T} a shape as Python prints a
** tuple ("(6,)"). Malloc'ed (NULL on OOM). */
static char *msgf(sdb_shape_env *env, const char *fmt, ...) {
  sdb_buf b = SDB_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  for (const char *p = fmt; *p; p++) {
    if (p[0] == '{' && p[1] && p[2] == '}') {
      bool done = true;
      switch (p[1]) {
        case 'e': put_expr(&b, env, va_arg(ap, const sdb_expr *)); break;
        case 's': {
          const sdb_expr *const *s = va_arg(ap, const sdb_expr *const *);
          int n = va_arg(ap, int);
          put_shape_env(&b, env, s, n);
          break;
        }
        case 'T': {
          const sdb_expr *const *s = va_arg(ap, const sdb_expr *const *);
          int n = va_arg(ap, int);
          sdb_buf_putc(&b, '(');
          for (int i = 0; i < n; i++) {
            if (i) sdb_buf_puts(&b, ", ");
            put_expr(&b, env, s[i]);
          }
          sdb_buf_puts(&b, n == 1 ? ",)" : ")");
          break;
        }
        case 'd': sdb_buf_printf(&b, "%lld", (long long)va_arg(ap, int64_t)); break;
        case 't': sdb_buf_puts(&b, va_arg(ap, const char *)); break;
        default: done = false;
      }
      if (done) { p += 2; continue; }
    }
    sdb_buf_putc(&b, *p);
  }
  va_end(ap);
  return sdb_buf_take(&b);
}

static const char *const check_default_msg =
  "Expected cond to be True, but got False. (Could this error message be "
  "improved? If so, please report an enhancement request to PyTorch.)";

/* An error about `cond`, located at the user's line. Takes msg. */
static int fail_cond(sdb_fake_mode *m, const sdb_expr *cond, int code, const char *kind,
                     char *msg, sdb_err *err) {
  if (!msg) msg = strdup(check_default_msg);
  int rc = sdb_err_take(err, code, kind, msg);
  if (err) {
    sdb_loc loc = {NULL, 0, NULL};
    if (m && m->env && sdb_events_locate(sdb_shape_env_events(m->env), &loc)) {
      err->file = loc.file;
      err->line = loc.line;
    }
    err->cond = cond;
  }
  return rc;
}

/* torch._check(cond, msg) as the meta functions use it: decided statically
** -> nothing, or the error; only backed symbols left -> a guard on the
** hints (and the error when it is false); unbacked -> a deferred runtime
** assert (sdb_check). The error carries PyTorch's message exactly. Takes
** ownership of msg (NULL: torch._check's default message). */
static int tcheck_as(sdb_fake_mode *m, const sdb_expr *cond, char *msg, int code,
                     const char *kind, sdb_err *err) {
  if (!cond) { free(msg); return sdb_err_expr(err); }
  sdb_shape_env *env = m->env;
  bool ok = true;
  const sdb_expr *st = sdb_maybe_evaluate_static(env, cond);
  if (st) {
    ok = st->kind == SDB_TRUE;
  } else {
    const sdb_expr *s = sdb_simplify(env, cond);
    if (!s) { free(msg); return sdb_err_expr(err); }
    if (sdb_has_unbacked(env, s)) {
      int rc = sdb_check(env, cond, msg, err);
      free(msg);
      return rc;
    }
    int rc = sdb_guard_bool(env, cond, &ok, err);
    if (rc) { free(msg); return rc; }
  }
  if (ok) { free(msg); return SDB_OK; }
  return fail_cond(m, cond, code, kind, msg, err);
}

static int tcheck(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err) {
  return tcheck_as(m, cond, msg, SDB_E_SHAPE, "RuntimeError", err);
}

/* A check PyTorch's meta does not make (the eager kernel does): an error
** only when statically false; no guard, no assert. Takes msg. */
static int static_check(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err) {
  if (!cond) { free(msg); return sdb_err_expr(err); }
  const sdb_expr *st = sdb_maybe_evaluate_static(m->env, cond);
  if (st && st->kind == SDB_FALSE) return fail_cond(m, cond, SDB_E_SHAPE, "RuntimeError", msg, err);
  free(msg);
  return SDB_OK;
}

static bool known_true(sdb_shape_env *env, const sdb_expr *e) {
  return e && sdb_statically_known_true(env, e);
}
/* Not known to be false: what guard_or_true assumes when undecided. */
static bool maybe_true(sdb_shape_env *env, const sdb_expr *e) {
  return !e || !sdb_statically_known_true(env, sdb_not(e));
}
static bool is_const_val(const sdb_expr *e, int64_t v) {
  return e && e->kind == SDB_INT && e->ival == v;
}

/* ------------------------------------------------------------------------
** Shared helpers: dtypes and type promotion
** ---------------------------------------------------------------------- */

/* c10's ScalarType names, as PyTorch's error messages print them. */
static const char *scalar_name(sdb_dtype d) {
  static const char *const names[SDB_DTYPE_COUNT] = {
    "Float", "Half", "BFloat16", "Double", "Long", "Int", "Short", "Char", "Byte", "Bool",
  };
  return d < SDB_DTYPE_COUNT ? names[d] : "?";
}

typedef enum { CAT_BOOL, CAT_INT, CAT_FLOAT } dcat;
static dcat cat_of(sdb_dtype d) {
  return d == SDB_BOOL ? CAT_BOOL : sdb_dtype_is_floating(d) ? CAT_FLOAT : CAT_INT;
}

/* torch.result_type: dimensioned tensors decide; zero-dim tensors only when
** of a higher category (bool < integral < floating); Python numbers only
** when of a higher category, then as int64 / the default float32. */
typedef struct promo {
  bool has[3];
  sdb_dtype dt[3];
} promo;

static void promo_add(promo *p, const sdb_value *v) {
  int tier;
  sdb_dtype d;
  if (!v) return;
  if (v->kind == SDB_V_TENSOR) { tier = v->tensor->ndim > 0 ? 0 : 1; d = v->tensor->dtype; }
  else if (v->kind == SDB_V_FLOAT) { tier = 2; d = SDB_F32; }
  else if (v->kind == SDB_V_BOOL) { tier = 2; d = SDB_BOOL; }
  else if (v->kind == SDB_V_INT) { tier = 2; d = SDB_I64; }
  else return;
  p->dt[tier] = p->has[tier] ? sdb_dtype_promote(p->dt[tier], d) : d;
  p->has[tier] = true;
}

static sdb_dtype promo_result(const promo *p) {
  int t0 = p->has[0] ? 0 : p->has[1] ? 1 : p->has[2] ? 2 : -1;
  if (t0 < 0) return SDB_F32;
  sdb_dtype r = p->dt[t0];
  for (int t = t0 + 1; t < 3; t++)
    if (p->has[t] && cat_of(p->dt[t]) > cat_of(r)) r = p->dt[t];
  return r;
}

/* can_cast(from, to): no floating -> integral, no non-bool -> bool. */
static bool can_cast(sdb_dtype from, sdb_dtype to) {
  if (sdb_dtype_is_floating(from) && !sdb_dtype_is_floating(to)) return false;
  if (from != SDB_BOOL && to == SDB_BOOL) return false;
  return true;
}

static int cast_error(sdb_dtype from, sdb_dtype to, sdb_err *err) {
  return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                     "result type %s can't be cast to the desired output type %s",
                     scalar_name(from), scalar_name(to));
}

static int not_implemented_for(const char *kernel, sdb_dtype d, sdb_err *err) {
  return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "\"%s\" not implemented for '%s'",
                     kernel, scalar_name(d));
}

/* ------------------------------------------------------------------------
** Shared helpers: making outputs
** ---------------------------------------------------------------------- */

sdb_fake *sdb_meta_empty(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                         const sdb_expr *const *sizes, int ndim, sdb_err *err) {
  sdb_fake *t = sdb_fake_new(m, dtype, device, sizes, ndim);
  if (!t) sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
  return t;
}

/* Hand t (whose reference we own) to *out. */
static int give(sdb_value *out, sdb_fake *t) {
  *out = sdb_value_tensor(t);
  sdb_fake_unref(t);
  return SDB_OK;
}

static int fail_code(sdb_err *err) { return err && err->code ? err->code : SDB_E_EXPR; }

/* A fresh contiguous tensor into *out. */
static int out_new(sdb_fake_mode *m, sdb_dtype dt, const char *device,
                   const sdb_expr *const *sizes, int n, bool rg, sdb_value *out, sdb_err *err) {
  sdb_fake *r = sdb_meta_empty(m, dt, device, sizes, n, err);
  if (!r) return fail_code(err);
  r->requires_grad = rg && sdb_dtype_is_floating(dt);
  return give(out, r);
}

/* A view of x (shares its storage and version counter). */
static sdb_fake *mk_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
                         const sdb_expr *const *strides, int n, const sdb_expr *offset,
                         sdb_err *err) {
  sdb_fake *r = sdb_fake_new_strided(m, x->dtype, x->device, sizes, strides, n, offset, x->storage);
  if (!r) {
    sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a view: %s", sdb_expr_error());
    return NULL;
  }
  r->requires_grad = x->requires_grad;
  return r;
}

static int out_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
                    const sdb_expr *const *strides, int n, const sdb_expr *offset,
                    sdb_value *out, sdb_err *err) {
  sdb_fake *r = mk_view(m, x, sizes, strides, n, offset, err);
  if (!r) return fail_code(err);
  return give(out, r);
}

/* The strides an output "like x" gets (preserve_format): x's own when x is
** dense and non-overlapping (a permutation of a contiguous layout, decided
** statically), else contiguous. */
static int like_strides(sdb_shape_env *env, const sdb_fake *x, const sdb_expr **st) {
  if (x->ndim == 0 || sdb_fake_is_contiguous(env, x))
    return sdb_contiguous_strides(x->sizes, x->ndim, st);
  bool used[MAX_DIMS] = {false};
  const sdb_expr *acc = sdb_int(1);
  for (int k = 0; k < x->ndim; k++) {
    int pick = -1;
    for (int i = x->ndim - 1; i >= 0 && pick < 0; i--)
      if (!used[i] && known_true(env, sdb_eq(x->strides[i], acc))) pick = i;
    if (pick < 0) return sdb_contiguous_strides(x->sizes, x->ndim, st);
    used[pick] = true;
    acc = sdb_mul(acc, x->sizes[pick]);
    if (!acc) return -1;
  }
  for (int i = 0; i < x->ndim; i++) st[i] = x->strides[i];
  return 0;
}

/* A fresh tensor with x's sizes (and its layout when dense), dtype dt. */
static int out_like(sdb_fake_mode *m, sdb_fake *x, sdb_dtype dt, const char *device, bool rg,
                    sdb_value *out, sdb_err *err) {
  const sdb_expr *st[MAX_DIMS];
  if (like_strides(m->env, x, st)) return sdb_err_expr(err);
  sdb_fake *r = sdb_fake_new_strided(m, dt, device ? device : x->device, x->sizes, st, x->ndim,
                                     sdb_int(0), NULL);
  if (!r) return sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
  r->requires_grad = rg && sdb_dtype_is_floating(dt);
  return give(out, r);
}

static const sdb_expr *prod_of(const sdb_expr *const *v, int n) {
  const sdb_expr *p = sdb_int(1);
  for (int i = 0; i < n && p; i++) p = sdb_mul(p, v[i]);
  return p;
}

/* ------------------------------------------------------------------------
** Broadcasting
** ---------------------------------------------------------------------- */

int sdb_broadcast_shapes(sdb_shape_env *env, const sdb_expr *const *a, int na,
                         const sdb_expr *const *b, int nb, const sdb_expr **out,
                         int *nout, sdb_err *err) {
  int n = na > nb ? na : nb;
  if (n > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "too many dims");
  for (int i = 0; i < n; i++) out[i] = sdb_int(1);
  const sdb_expr *const *shapes[2] = {a, b};
  int lens[2] = {na, nb};
  for (int arg = 0; arg < 2; arg++) {
    for (int idx = -1; idx >= -lens[arg]; idx--) {
      const sdb_expr *s = shapes[arg][lens[arg] + idx];
      const sdb_expr **c = &out[n + idx];
      if (sdb_guard_or_false(env, sdb_eq(*c, sdb_int(1)))) {
        *c = s;
        continue;
      }
      if (!sdb_guard_or_true(env, sdb_ne(s, sdb_int(1)))) continue;
      const sdb_expr *same = sdb_eq(*c, s);
      if (!same) return sdb_err_expr(err);
      if (sdb_has_unbacked(env, sdb_simplify(env, same))) {
        /* undecidable: take the non-broadcast path and assert it at runtime */
        int rc = sdb_check(env, same, NULL, err);
        if (rc) return rc;
        continue;
      }
      bool differ;
      int rc = sdb_guard_bool(env, sdb_ne(*c, s), &differ, err);
      if (rc) return rc;
      if (differ) {
        sdb_buf m = SDB_BUF_INIT;
        char *ss = sdb_expr_str(s);
        sdb_buf_printf(&m, "Attempting to broadcast a dimension of length %s at %d! "
                           "Mismatching argument at index %d had ", ss ? ss : "?", idx, arg);
        free(ss);
        put_shape(&m, shapes[arg], lens[arg]);
        sdb_buf_puts(&m, "; but expected shape should be broadcastable to ");
        put_shape(&m, out, n);
        return sdb_err_take(err, SDB_E_SHAPE, "RuntimeError", sdb_buf_take(&m));
      }
    }
  }
  *nout = n;
  return SDB_OK;
}

/* Python's `shape_a == shape_b` on sizes: the lengths, then one comparison
** (a guard when backed) per dim until one differs. fmt gets both shapes. */
static int same_shape(sdb_fake_mode *m, const sdb_expr *const *a, int na, const sdb_expr *const *b,
                      int nb, const char *fmt, sdb_err *err) {
  int rc = SDB_OK;
  if (na != nb) return tcheck(m, sdb_false(), msgf(m->env, fmt, a, na, b, nb), err);
  for (int i = 0; i < na && !rc; i++)
    rc = tcheck(m, sdb_eq(b[i], a[i]), msgf(m->env, fmt, a, na, b, nb), err);
  return rc;
}

/* check_inplace_broadcast: `other` must broadcast to exactly self's shape. */
static int inplace_broadcast(sdb_fake_mode *m, const sdb_expr *const *self, int ns,
                             const sdb_expr *const *other, int no, sdb_err *err) {
  const sdb_expr *b[MAX_DIMS];
  int nb = 0;
  int rc = sdb_broadcast_shapes(m->env, self, ns, other, no, b, &nb, err);
  if (rc) return rc;
  return same_shape(m, self, ns, b, nb, "output with shape {s} doesn't match the broadcast shape {s}", err);
}

/* ------------------------------------------------------------------------
** Elementwise binary ops with broadcasting
** ---------------------------------------------------------------------- */

typedef enum {
  BIN_ARITH,      /* add, sub, mul, pow, remainder, floor_divide */
  BIN_DIV,        /* div, true_divide: integral results become float32 */
  BIN_COMPARE,    /* gt, ..., logical_and/or: bool */
  BIN_BITWISE,    /* bitwise_and: integral or bool only */
  BIN_TENSORS     /* maximum, minimum: two tensors */
} bin_kind;

typedef struct bin_res {
  sdb_fake *self;               /* the tensor operand (device) */
  const sdb_expr *shape[MAX_DIMS];
  int n;
  sdb_dtype dt;
  bool rg;
} bin_res;

static bool is_number(const sdb_value *v) {
  return v->kind == SDB_V_INT || v->kind == SDB_V_FLOAT || v->kind == SDB_V_BOOL;
}

static int binary_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_value *x,
                       const sdb_value *y, bin_kind kind, bin_res *r, sdb_err *err) {
  if (!x || !y) return bad_arg(op, x ? "other" : "self", x ? 1 : 0, "Tensor or number", NULL, err);
  if (kind == BIN_TENSORS) {
    if (x->kind != SDB_V_TENSOR) return bad_arg(op, "self", 0, "Tensor", x, err);
    if (y->kind != SDB_V_TENSOR) return bad_arg(op, "other", 1, "Tensor", y, err);
  }
  if (x->kind != SDB_V_TENSOR && y->kind == SDB_V_TENSOR) {   /* 2 * t */
    const sdb_value *t = x; x = y; y = t;
  }
  if (x->kind != SDB_V_TENSOR) return bad_arg(op, "self", 0, "Tensor", x, err);
  sdb_fake *tx = x->tensor;
  r->self = tx;
  r->n = tx->ndim;
  if (y->kind == SDB_V_TENSOR) {
    int rc = sdb_broadcast_shapes(m->env, tx->sizes, tx->ndim, y->tensor->sizes, y->tensor->ndim,
                                  r->shape, &r->n, err);
    if (rc) return rc;
  } else if (is_number(y)) {
    for (int i = 0; i < r->n; i++) r->shape[i] = tx->sizes[i];
  } else {
    return bad_arg(op, "other", 1, "Tensor or number", y, err);
  }
  promo p = {{false}, {SDB_F32}};
  promo_add(&p, x);
  promo_add(&p, y);
  r->dt = promo_result(&p);
  if (kind == BIN_BITWISE && cat_of(r->dt) == CAT_FLOAT) {
    char kernel[64];
    snprintf(kernel, sizeof kernel, "%s_cpu", op->name);
    return not_implemented_for(kernel, r->dt, err);
  }
  if (kind == BIN_COMPARE) r->dt = SDB_BOOL;
  else if (kind == BIN_DIV && !sdb_dtype_is_floating(r->dt)) r->dt = SDB_F32;
  r->rg = kind != BIN_COMPARE && (tx->requires_grad ||
          (y->kind == SDB_V_TENSOR && y->tensor->requires_grad));
  return SDB_OK;
}

static int binary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                  sdb_value *out, sdb_err *err, bin_kind kind) {
  bin_res r;
  int rc = binary_meta(m, op, ah_get(a, 0, "self"), ah_get(a, 1, "other"), kind, &r, err);
  if (rc) return rc;
  return out_new(m, r.dt, r.self->device, r.shape, r.n, r.rg, out, err);
}

static int m_arith(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_ARITH);
}
/* rounding_mode "trunc"/"floor" keeps the promoted dtype; None is true
** division. Sets *kind. */
static int rounding_mode(const sdb_op *op, const sdb_args *a, bin_kind *kind, sdb_err *err) {
  const sdb_value *rm = ah_get(a, KW, "rounding_mode");
  *kind = BIN_DIV;
  if (!rm || rm->kind == SDB_V_NONE) return SDB_OK;
  if (rm->kind != SDB_V_STR || (strcmp(rm->str, "trunc") && strcmp(rm->str, "floor")))
    return sdb_err_set(err, SDB_E_INVALID, "ValueError",
                       "%s expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'",
                       op->name, rm->kind == SDB_V_STR ? rm->str : vkind_name(rm->kind));
  *kind = BIN_ARITH;
  return SDB_OK;
}

static int m_div(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_kind kind = BIN_DIV;
  int rc = rounding_mode(op, a, &kind, err);
  if (rc) return rc;
  return binary(m, op, a, out, err, kind);
}
static int m_compare(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_COMPARE);
}
static int m_bitwise(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_BITWISE);
}
static int m_tensors(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_TENSORS);
}

/* where(condition, self, other): all three broadcast; self and other
** promote (numbers allowed). */
static int m_where(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                   sdb_err *err) {
  sdb_fake *c = NULL;
  int rc = ah_tensor(op, a, 0, "condition", &c, err);
  if (rc) return rc;
  const sdb_value *x = ah_get(a, 1, "self"), *y = ah_get(a, 2, "other");
  if (!x || !y)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "where(): the one-argument form (nonzero(as_tuple=True)) is not supported; "
                       "pass condition, self and other");
  if (c->dtype != SDB_BOOL)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                       scalar_name(c->dtype));
  const sdb_expr *shape[MAX_DIMS], *tmp[MAX_DIMS];
  int n = c->ndim;
  for (int i = 0; i < n; i++) shape[i] = c->sizes[i];
  const sdb_value *ops[2] = {x, y};
  bool rg = false;
  for (int k = 0; k < 2; k++) {
    if (ops[k]->kind == SDB_V_TENSOR) {
      int nn = 0;
      rc = sdb_broadcast_shapes(m->env, shape, n, ops[k]->tensor->sizes, ops[k]->tensor->ndim, tmp, &nn, err);
      if (rc) return rc;
      for (int i = 0; i < nn; i++) shape[i] = tmp[i];
      n = nn;
      rg = rg || ops[k]->tensor->requires_grad;
    } else if (!is_number(ops[k])) {
      return bad_arg(op, k ? "other" : "self", (size_t)k + 1, "Tensor or number", ops[k], err);
    }
  }
  promo p = {{false}, {SDB_F32}};
  promo_add(&p, x);
  promo_add(&p, y);
  return out_new(m, promo_result(&p), c->device, shape, n, rg, out, err);
}

/* masked_fill(self, mask, value): self and mask broadcast (expand_outplace),
** the result keeps self's dtype. */
static int mask_value_check(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                            sdb_fake **x, sdb_fake **mask, sdb_err *err) {
  (void)m;
  int rc = ah_tensor(op, a, 0, "self", x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mask", mask, err);
  if (rc) return rc;
  if ((*mask)->dtype != SDB_BOOL)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                       scalar_name((*mask)->dtype));
  const sdb_value *v = ah_get(a, 2, "value");
  if (!v) return bad_arg(op, "value", 2, "Tensor or number", NULL, err);
  if (v->kind == SDB_V_TENSOR) {
    if (v->tensor->ndim != 0)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                         v->tensor->ndim);
  } else if (!is_number(v)) {
    return bad_arg(op, "value", 2, "Tensor or number", v, err);
  }
  return ah_max_pos(op, a, 3, err);
}

static int m_masked_fill(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                         sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = mask_value_check(m, op, a, &x, &mask, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = sdb_broadcast_shapes(m->env, mask->sizes, mask->ndim, x->sizes, x->ndim, shape, &n, err)))
    return rc;
  return out_new(m, x->dtype, x->device, shape, n, x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** Elementwise unary ops
** ---------------------------------------------------------------------- */

typedef enum {
  UN_SAME,        /* neg, abs, relu, floor, ceil, round, sign */
  UN_FLOAT,       /* sin, exp, sqrt, sigmoid, ...: integral -> float32 */
  UN_BOOL,        /* logical_not */
  UN_INTEGRAL     /* bitwise_not: integral or bool only */
} un_kind;

static int unary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                 sdb_err *err, un_kind kind) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 1, err))) return rc;
  sdb_dtype dt = x->dtype;
  switch (kind) {
    case UN_SAME:
      if (x->dtype == SDB_BOOL && !strcmp(op->name, "neg"))
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.");
      break;
    case UN_FLOAT:
      if (!sdb_dtype_is_floating(dt)) dt = SDB_F32;
      break;
    case UN_BOOL:
      dt = SDB_BOOL;
      break;
    case UN_INTEGRAL:
      if (sdb_dtype_is_floating(dt)) return not_implemented_for("bitwise_not_cpu", dt, err);
      break;
  }
  return out_like(m, x, dt, NULL, x->requires_grad, out, err);
}

static int m_un_same(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_SAME);
}
static int m_un_float(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_FLOAT);
}
static int m_un_bool(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_BOOL);
}
static int m_un_integral(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_INTEGRAL);
}

/* clamp(self, min=None, max=None): numbers or tensors; type promotion over
** all three, tensors broadcast. */
static int clamp_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, bin_res *r,
                      sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *lo = ah_get(a, 1, "min"), *hi = ah_get(a, 2, "max");
  if (lo && lo->kind == SDB_V_NONE) lo = NULL;
  if (hi && hi->kind == SDB_V_NONE) hi = NULL;
  if (!lo && !hi)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "torch.clamp: At least one of 'min' or 'max' must not be None");
  r->self = x;
  r->n = x->ndim;
  for (int i = 0; i < x->ndim; i++) r->shape[i] = x->sizes[i];
  r->rg = x->requires_grad;
  promo p = {{false}, {SDB_F32}};
  sdb_value xv = SDB_VALUE_NONE;
  xv.kind = SDB_V_TENSOR;
  xv.tensor = x;
  promo_add(&p, &xv);
  const sdb_value *bounds[2] = {lo, hi};
  for (int k = 0; k < 2; k++) {
    const sdb_value *v = bounds[k];
    if (!v) continue;
    if (v->kind == SDB_V_TENSOR) {
      const sdb_expr *tmp[MAX_DIMS];
      int nn = 0;
      rc = sdb_broadcast_shapes(m->env, r->shape, r->n, v->tensor->sizes, v->tensor->ndim, tmp, &nn, err);
      if (rc) return rc;
      for (int i = 0; i < nn; i++) r->shape[i] = tmp[i];
      r->n = nn;
      r->rg = r->rg || v->tensor->requires_grad;
    } else if (!is_number(v)) {
      return bad_arg(op, k ? "max" : "min", (size_t)k + 1, "Tensor or number", v, err);
    }
    promo_add(&p, v);
  }
  r->dt = promo_result(&p);
  return SDB_OK;
}

static int m_clamp(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_res r;
  int rc = clamp_meta(m, op, a, &r, err);
  if (rc) return rc;
  return out_new(m, r.dt, r.self->device, r.shape, r.n, r.rg, out, err);
}

/* The activation functions of torch.nn.functional: floating inputs only
** (the eager kernels are not implemented for integral dtypes). */
static int float_only(const sdb_op *op, const char *kernel, sdb_dtype dt, sdb_err *err) {
  (void)op;
  if (sdb_dtype_is_floating(dt)) return SDB_OK;
  return not_implemented_for(kernel, dt, err);
}

static int m_gelu(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  const sdb_value *ap = ah_get(a, 1, "approximate");
  if (ap && ap->kind != SDB_V_NONE &&
      (ap->kind != SDB_V_STR || (strcmp(ap->str, "none") && strcmp(ap->str, "tanh"))))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "approximate argument must be either none or tanh.");
  if ((rc = float_only(op, "GeluKernelImpl", x->dtype, err))) return rc;
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

static int m_silu(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, 1, "inplace", "use silu_ semantics elsewhere", err))) return rc;
  if ((rc = float_only(op, "silu_cpu", x->dtype, err))) return rc;
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* softmax/log_softmax(self, dim, dtype=None) */
static int m_softmax(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err))) return rc;
  int dtype = -1;
  if ((rc = ah_dtype(op, a, 2, "dtype", &dtype, err))) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : x->dtype;
  char kernel[64];
  snprintf(kernel, sizeof kernel, "%s_lastdim_kernel_impl", op->name);
  if ((rc = float_only(op, kernel, dt, err))) return rc;
  return out_like(m, x, dt, NULL, x->requires_grad, out, err);
}

/* dropout(self, p=0.5, train=True): a fresh tensor like self (in eval mode
** PyTorch hands back the input itself; we give a new tensor either way). */
static int m_dropout(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  double p = 0.5;
  const sdb_value *pv = ah_get(a, 1, "p");
  if (pv && pv->kind != SDB_V_NONE) {
    int64_t ip;
    if (pv->kind == SDB_V_FLOAT && !pv->expr) p = pv->fval;
    else if (sdb_value_is_const_int(pv, &ip)) p = (double)ip;
    else return bad_arg(op, "p", 1, "float", pv, err);
  }
  if (p < 0.0 || p > 1.0)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError",
                       "dropout probability has to be between 0 and 1, but got %g", p);
  bool train = true;
  const char *tname = ah_get(a, KW, "training") ? "training" : "train";
  if ((rc = ah_bool(op, a, 2, tname, true, &train, err))) return rc;
  if ((rc = ah_reject(op, a, KW, "inplace", "use dropout_", err))) return rc;
  if (train && p > 0.0 && !sdb_dtype_is_floating(x->dtype)) return cast_error(SDB_F32, x->dtype, err);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** Dtype conversions
** ---------------------------------------------------------------------- */

static bool looks_like_device(const char *s) {
  static const char *const kinds[] = {"cpu", "cuda", "meta", "mps", "xpu", "hpu"};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    size_t n = strlen(kinds[i]);
    if (!strncmp(s, kinds[i], n) && (s[n] == 0 || s[n] == ':')) return true;
  }
  return false;
}

/* The result of converting x: the same tensor when nothing changes (as
** PyTorch's to() returns self), else a fresh tensor with x's layout. */
static int convert(sdb_fake_mode *m, sdb_fake *x, sdb_dtype dt, const char *device, bool copy,
                   sdb_value *out, sdb_err *err) {
  const char *dev = device ? sdb_intern(device) : x->device;
  if (!copy && dt == x->dtype && dev == x->device) {
    *out = sdb_value_tensor(x);
    return SDB_OK;
  }
  return out_like(m, x, dt, dev, x->requires_grad, out, err);
}

/* to(dtype) / to(device[, dtype]) / to(other) / to(dtype=, device=, copy=) */
static int m_to(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 5, err))) return rc;
  int dtype = -1, nbools = 0;
  const char *device = NULL;
  bool copy = false;
  for (size_t i = 1; i < a->npos; i++) {
    const sdb_value *v = &a->pos[i];
    if (v->kind == SDB_V_BOOL) {             /* non_blocking, then copy */
      int64_t b = 0;
      if (!sdb_value_is_const_int(v, &b)) return bad_arg(op, "copy", i, "bool", v, err);
      if (nbools++ == 1) copy = b != 0;
    } else if (v->kind == SDB_V_TENSOR) {
      dtype = v->tensor->dtype;
      device = v->tensor->device;
    } else if (v->kind == SDB_V_STR) {
      int d = sdb_dtype_from_name(v->str);
      if (d >= 0) dtype = d;
      else if (looks_like_device(v->str)) device = v->str;
      else
        return sdb_err_set(err, SDB_E_INVALID, "TypeError", "to(): unknown dtype or device '%s'", v->str);
    } else if (v->kind != SDB_V_NONE) {
      return bad_arg(op, "dtype", i, "dtype, device or Tensor", v, err);
    }
  }
  int kd = -1;
  if ((rc = ah_dtype(op, a, KW, "dtype", &kd, err))) return rc;
  if (kd >= 0) dtype = kd;
  const sdb_value *dv = ah_get(a, KW, "device");
  if (dv && dv->kind == SDB_V_STR) device = dv->str;
  else if (dv && dv->kind != SDB_V_NONE) return bad_arg(op, "device", KW, "str", dv, err);
  if ((rc = ah_bool(op, a, KW, "copy", copy, &copy, err))) return rc;
  return convert(m, x, dtype >= 0 ? (sdb_dtype)dtype : x->dtype, device, copy, out, err);
}

/* long(), float(), bool(), int(), double(), half(): to(dtype) by name. */
static int m_to_named(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 1, err))) return rc;
  int d = sdb_dtype_from_name(op->name);
  if (d < 0) return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s(): no such dtype", op->name);
  return convert(m, x, (sdb_dtype)d, NULL, false, out, err);
}

static int m_type_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  return convert(m, x, o->dtype, NULL, false, out, err);
}

/* ------------------------------------------------------------------------
** Reductions
** ---------------------------------------------------------------------- */

/* The dims reduced over (dim at position di; absent, None or [] = all) and
** keepdim (position ki). */
static int red_dims(const sdb_op *op, const sdb_args *a, size_t di, size_t ki, const sdb_fake *x,
                    bool *mask, bool *all, bool *keepdim, sdb_err *err) {
  int64_t dims[MAX_DIMS];
  int nd = -1;
  int rc = ah_dims(op, a, di, "dim", x->ndim, false, dims, &nd, err);
  if (rc) return rc;
  for (int i = 0; i < MAX_DIMS; i++) mask[i] = false;
  *all = nd <= 0;
  for (int k = 0; k < nd; k++) {
    if (mask[dims[k]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "dim %lld appears multiple times in the list of dims", (long long)dims[k]);
    mask[dims[k]] = true;
  }
  return ah_bool(op, a, ki, "keepdim", false, keepdim, err);
}

static void red_shape(const sdb_fake *x, const bool *mask, bool all, bool keepdim,
                      const sdb_expr **shape, int *n) {
  *n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (all || mask[i]) {
      if (keepdim) shape[(*n)++] = sdb_int(1);
    } else {
      shape[(*n)++] = x->sizes[i];
    }
  }
}

typedef enum {
  RED_SUM,      /* sum: integral -> int64 */
  RED_SAME,     /* amax, amin */
  RED_MEAN,     /* mean: floating only */
  RED_PROD,     /* prod: one dim, integral -> int64 */
  RED_BOOL      /* any, all */
} red_kind;

/* op(self, dim=None, keepdim=False, *, dtype=None) */
static int reduction(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                     sdb_value *out, sdb_err *err, red_kind kind) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if (kind == RED_PROD) {
    const sdb_value *dv = ah_get(a, 1, "dim");
    if (dv && (dv->kind == SDB_V_LIST || dv->kind == SDB_V_TUPLE))
      return bad_arg(op, "dim", 1, "int", dv, err);
  }
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  int dtype = -1;
  bool has_dtype = kind == RED_SUM || kind == RED_MEAN || kind == RED_PROD;
  if (has_dtype && (rc = ah_dtype(op, a, 3, "dtype", &dtype, err))) return rc;
  if ((rc = ah_max_pos(op, a, has_dtype ? 4 : 3, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  sdb_dtype dt = x->dtype;
  switch (kind) {
    case RED_SUM: case RED_PROD:
      dt = dtype >= 0 ? (sdb_dtype)dtype : sdb_dtype_is_integral(x->dtype) ? SDB_I64 : x->dtype;
      break;
    case RED_SAME:
      break;
    case RED_MEAN:
      if (dtype >= 0 && !sdb_dtype_is_floating((sdb_dtype)dtype))
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "mean(): could not infer output dtype. Optional dtype must be either "
                           "a floating point or complex dtype. Got: %s", scalar_name((sdb_dtype)dtype));
      if (dtype < 0 && !sdb_dtype_is_floating(x->dtype))
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: %s", scalar_name(x->dtype));
      if (dtype >= 0) dt = (sdb_dtype)dtype;
      break;
    case RED_BOOL:
      dt = x->dtype == SDB_U8 ? SDB_U8 : SDB_BOOL;
      break;
  }
  return out_new(m, dt, x->device, shape, n, x->requires_grad, out, err);
}

static int m_sum(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_SUM);
}
static int m_red_same(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_SAME);
}
static int m_mean(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_MEAN);
}
static int m_prod(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_PROD);
}
static int m_red_bool(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, RED_BOOL);
}

/* max/min(self) -> 0-dim; max/min(self, dim, keepdim) -> (values, indices);
** max/min(self, other) -> maximum/minimum. */
static int m_maxmin(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (!d) d = ah_get(a, KW, "other");
  if (d && d->kind == SDB_V_TENSOR) {
    bin_res r;
    sdb_value self = SDB_VALUE_NONE;
    self.kind = SDB_V_TENSOR;
    self.tensor = x;
    if ((rc = binary_meta(m, op, &self, d, BIN_TENSORS, &r, err))) return rc;
    return out_new(m, r.dt, x->device, r.shape, r.n, r.rg, out, err);
  }
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  if (!d || d->kind == SDB_V_NONE) {
    if ((rc = ah_reject(op, a, 2, "keepdim", "keepdim needs a dim", err))) return rc;
    return out_new(m, x->dtype, x->device, NULL, 0, x->requires_grad, out, err);
  }
  if (d->kind == SDB_V_LIST || d->kind == SDB_V_TUPLE) return bad_arg(op, "dim", 1, "int", d, err);
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, 2);
  if (t.kind != SDB_V_TUPLE) return oom(err);
  rc = out_new(m, x->dtype, x->device, shape, n, x->requires_grad, &t.items[0], err);
  if (!rc) rc = out_new(m, SDB_I64, x->device, shape, n, false, &t.items[1], err);
  if (rc) { sdb_value_free(&t); return rc; }
  *out = t;
  return SDB_OK;
}

/* argmax/argmin(self, dim=None, keepdim=False) -> int64 */
static int m_argmaxmin(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (d && (d->kind == SDB_V_LIST || d->kind == SDB_V_TUPLE)) return bad_arg(op, "dim", 1, "int", d, err);
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 1, 2, x, mask, &all, &keepdim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, SDB_I64, x->device, shape, n, false, out, err);
}

/* std/var(self, dim=None, unbiased=True, keepdim=False, *, correction=None);
** also std(self, unbiased). */
static int m_stdvar(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 4, err))) return rc;
  bool mask[MAX_DIMS] = {false}, all = true, keepdim = false, unbiased = true;
  const sdb_value *d = ah_get(a, 1, "dim");
  if (d && d->kind == SDB_V_BOOL && a->npos == 2) {          /* std(self, unbiased) */
    if ((rc = ah_bool(op, a, 1, "unbiased", true, &unbiased, err))) return rc;
  } else {
    if ((rc = red_dims(op, a, 1, 3, x, mask, &all, &keepdim, err))) return rc;
    if ((rc = ah_bool(op, a, 2, "unbiased", true, &unbiased, err))) return rc;
  }
  const sdb_value *c = ah_get(a, KW, "correction");
  if (c && c->kind != SDB_V_NONE && !is_number(c)) return bad_arg(op, "correction", KW, "number", c, err);
  if (!sdb_dtype_is_floating(x->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "std and var only support floating point and complex dtypes");
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, x->dtype, x->device, shape, n, x->requires_grad, out, err);
}

/* norm(self, p=2, dim=None, keepdim=False, dtype=None): vector norms. */
static int m_norm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 5, err))) return rc;
  const sdb_value *p = ah_get(a, 1, "p");
  if (p && p->kind == SDB_V_STR && strcmp(p->str, "fro"))
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "norm(): p='%s' (a matrix norm) is not supported", p->str);
  if (p && p->kind != SDB_V_NONE && p->kind != SDB_V_STR && !is_number(p))
    return bad_arg(op, "p", 1, "number", p, err);
  bool mask[MAX_DIMS], all = true, keepdim = false;
  if ((rc = red_dims(op, a, 2, 3, x, mask, &all, &keepdim, err))) return rc;
  int dtype = -1;
  if ((rc = ah_dtype(op, a, 4, "dtype", &dtype, err))) return rc;
  if (!sdb_dtype_is_floating(x->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                       scalar_name(x->dtype));
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  red_shape(x, mask, all, keepdim, shape, &n);
  return out_new(m, dtype >= 0 ? (sdb_dtype)dtype : x->dtype, x->device, shape, n,
                 x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** Views and shape ops
** ---------------------------------------------------------------------- */

/* Sizes, strides and offset of a view being built. */
typedef struct vmeta {
  const sdb_expr *sizes[MAX_DIMS + 1], *strides[MAX_DIMS + 1];
  int n;
  const sdb_expr *offset;
} vmeta;

static void vmeta_of(const sdb_fake *x, vmeta *r) {
  r->n = x->ndim;
  for (int i = 0; i < x->ndim; i++) {
    r->sizes[i] = x->sizes[i];
    r->strides[i] = x->strides[i];
  }
  r->offset = x->storage_offset;
}

static int out_vmeta(sdb_fake_mode *m, sdb_fake *x, const vmeta *r, sdb_value *out, sdb_err *err) {
  return out_view(m, x, r->sizes, r->strides, r->n, r->offset, out, err);
}

/* _prims_common.infer_size: resolve one -1 (a FloorDiv of the numels) with
** the torch._check's it makes, in place. `over`, when set, is the message
** of every failure (unflatten's). */
static int infer_size(sdb_fake_mode *m, const sdb_expr **shape, int n, const sdb_expr *numel,
                      const char *over, sdb_err *err) {
  sdb_shape_env *env = m->env;
  char *given = msgf(env, "{s}", shape, n);
  if (!given) return oom(err);
  int inferred = -1, rc = SDB_OK;
  const sdb_expr *newsize = sdb_int(1);
  for (int i = 0; i < n && !rc; i++) {
    const sdb_expr *d = shape[i];
    bool minus1 = is_const_val(d, -1) ||
                  (d->kind != SDB_INT && sdb_guard_or_false(env, sdb_eq(d, sdb_int(-1))));
    if (minus1) {
      if (inferred >= 0) {
        rc = sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "only one dimension can be inferred");
        break;
      }
      inferred = i;
      continue;
    }
    rc = tcheck(m, sdb_ge(d, sdb_int(0)),
                over ? strdup(over)
                     : msgf(env, "invalid shape dimension {e}. If this was symbolic, it was assumed "
                                 "to not be -1.If this was meant to be inferred, please explicitly "
                                 "pass in -1.", d), err);
    newsize = sdb_mul(newsize, d);
    if (!newsize) rc = sdb_err_expr(err);
  }
  if (!rc && inferred < 0) {
    rc = tcheck(m, sdb_eq(numel, newsize),
                over ? strdup(over) : msgf(env, "shape '{t}' is invalid for input of size {e}", given, numel),
                err);
  } else if (!rc) {
    char *bad = over ? strdup(over) : msgf(env, "shape '{t}' is invalid for input of size {e}", given, numel);
    char *zero = over ? strdup(over)
               : known_true(env, sdb_eq(numel, sdb_int(0)))
                 ? msgf(env, "cannot reshape tensor of 0 elements into shape {t} because the "
                             "unspecified dimension size -1 can be any value and is ambiguous", given)
                 : strdup(bad);
    rc = tcheck(m, sdb_ne(newsize, sdb_int(0)), zero, err);
    if (!rc) rc = tcheck(m, sdb_eq(sdb_mod(numel, newsize), sdb_int(0)), bad, err);
    else free(bad);
    if (!rc) {
      shape[inferred] = sdb_floordiv(numel, newsize);
      if (!shape[inferred]) rc = sdb_err_expr(err);
      else rc = tcheck(m, sdb_ge(shape[inferred], sdb_int(0)), NULL, err);
    }
  }
  free(given);
  return rc;
}

/* _compute_stride (TensorUtils computeStride) with the size-oblivious
** decisions made statically, never by guarding. false: no view exists. */
static bool compute_stride(sdb_shape_env *env, const sdb_fake *x, const sdb_expr *const *ns,
                           int nn, const sdb_expr **out) {
  const sdb_expr *const *os = x->sizes, *const *ost = x->strides;
  int on = x->ndim;
  if (on == 0) {
    for (int i = 0; i < nn; i++) out[i] = sdb_int(1);
    return true;
  }
  const sdb_expr *numel = prod_of(os, on);
  if (!numel) return false;
  bool zero = known_true(env, sdb_eq(numel, sdb_int(0)));
  if (zero) {
    bool same = on == nn;
    for (int i = 0; same && i < on; i++) same = known_true(env, sdb_eq(os[i], ns[i]));
    if (same) {
      for (int i = 0; i < nn; i++) out[i] = ost[i];
      return true;
    }
    for (int d = nn - 1; d >= 0; d--)
      out[d] = d == nn - 1 ? sdb_int(1) : sdb_mul(sdb_max(ns[d + 1], sdb_int(1)), out[d + 1]);
    return true;
  }
  int view_d = nn - 1;
  const sdb_expr *chunk_base = ost[on - 1], *tensor_numel = sdb_int(1), *view_numel = sdb_int(1);
  for (int td = on - 1; td >= 0; td--) {
    tensor_numel = sdb_mul(tensor_numel, os[td]);
    if (!tensor_numel) return false;
    if (td == 0 || (maybe_true(env, sdb_ne(os[td - 1], sdb_int(1))) &&
                    maybe_true(env, sdb_ne(ost[td - 1], sdb_mul(tensor_numel, chunk_base))))) {
      while (view_d >= 0 && (maybe_true(env, sdb_lt(view_numel, tensor_numel)) ||
                             known_true(env, sdb_eq(ns[view_d], sdb_int(1))))) {
        out[view_d] = sdb_mul(view_numel, chunk_base);
        view_numel = sdb_mul(view_numel, ns[view_d]);
        if (!out[view_d] || !view_numel) return false;
        view_d--;
      }
      if (maybe_true(env, sdb_ne(view_numel, tensor_numel))) return false;
      if (td > 0) {
        chunk_base = ost[td - 1];
        tensor_numel = sdb_int(1);
        view_numel = sdb_int(1);
      }
    }
  }
  return view_d == -1;
}

/* view/reshape of x to an already inferred shape: contiguous strides when
** x is contiguous, else _compute_stride; with no view possible, reshape
** copies and view fails as the fake-tensor view does. */
static int view_core(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **shape, int n,
                     bool allow_copy, sdb_value *out, sdb_err *err) {
  sdb_shape_env *env = m->env;
  int rc = SDB_OK;
  if (x->ndim == 0)
    for (int i = 0; i < n && !rc; i++) rc = tcheck(m, sdb_eq(shape[i], sdb_int(1)), NULL, err);
  if (n == 0)
    for (int i = 0; i < x->ndim && !rc; i++) rc = tcheck(m, sdb_eq(x->sizes[i], sdb_int(1)), NULL, err);
  if (rc) return rc;
  const sdb_expr *st[MAX_DIMS];
  if (sdb_fake_is_contiguous(env, x)) {
    if (sdb_contiguous_strides(shape, n, st)) return sdb_err_expr(err);
  } else if (!compute_stride(env, x, shape, n, st)) {
    if (allow_copy) return out_new(m, x->dtype, x->device, shape, n, x->requires_grad, out, err);
    return fail_cond(m, NULL, SDB_E_SHAPE, "ValueError",
                     msgf(env, "Cannot view a tensor with shape torch.Size({s}) and strides {T} as a "
                               "tensor with shape {T}!", x->sizes, x->ndim, x->strides, x->ndim, shape, n),
                     err);
  }
  return out_view(m, x, shape, st, n, x->storage_offset, out, err);
}

/* view(*shape) / reshape(*shape): varargs or one list, one -1 inferred. */
static int view_or_reshape(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                           sdb_err *err, bool allow_copy) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *first = ah_get(a, 1, "shape");
  if (!first) first = ah_get(a, KW, "size");
  if (!first) return bad_arg(op, "shape", 1, "tuple of ints", NULL, err);
  if (first->kind == SDB_V_STR)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "%s(): reinterpreting as dtype '%s' is not supported", op->name, first->str);
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = ah_sizes(op, a, 1, ah_get(a, KW, "size") ? "size" : "shape", shape, MAX_DIMS, &n, err)))
    return rc;
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  if ((rc = infer_size(m, shape, n, numel, NULL, err))) return rc;
  return view_core(m, x, shape, n, allow_copy, out, err);
}

static int m_view(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_or_reshape(m, op, a, out, err, false);
}
static int m_reshape(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_or_reshape(m, op, a, out, err, true);
}

/* view_as / reshape_as(self, other) */
static int view_as_common(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                          sdb_err *err, bool allow_copy) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  for (int i = 0; i < o->ndim; i++) shape[i] = o->sizes[i];
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  if ((rc = infer_size(m, shape, o->ndim, numel, NULL, err))) return rc;
  return view_core(m, x, shape, o->ndim, allow_copy, out, err);
}
static int m_view_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_as_common(m, op, a, out, err, false);
}
static int m_reshape_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return view_as_common(m, op, a, out, err, true);
}

/* flatten(start_dim=0, end_dim=-1): a view when possible */
static int m_flatten(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t s = 0, e = 0;
  if ((rc = ah_dim(op, a, 1, "start_dim", x->ndim, 0, false, &s, err))) return rc;
  if ((rc = ah_dim(op, a, 2, "end_dim", x->ndim, -1, false, &e, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  if (x->ndim == 0) {
    shape[0] = sdb_int(1);
    return view_core(m, x, shape, 1, true, out, err);
  }
  if (s > e)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) {
    vmeta r;
    vmeta_of(x, &r);
    return out_vmeta(m, x, &r, out, err);
  }
  int n = 0;
  for (int i = 0; i < s; i++) shape[n++] = x->sizes[i];
  shape[n] = prod_of(x->sizes + s, (int)(e - s + 1));
  if (!shape[n++]) return sdb_err_expr(err);
  for (int i = (int)e + 1; i < x->ndim; i++) shape[n++] = x->sizes[i];
  return view_core(m, x, shape, n, true, out, err);
}

/* unflatten(dim, sizes) */
static int m_unflatten(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err))) return rc;
  const sdb_value *sv = ah_get(a, 2, "sizes");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "sizes", 2, "tuple of ints", sv, err);
  const sdb_expr *sizes[MAX_DIMS];
  int ns = 0;
  if ((rc = ah_sizes(op, a, 2, "sizes", sizes, MAX_DIMS, &ns, err))) return rc;
  if (ns == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "unflatten: sizes must be non-empty");
  if (x->ndim == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "unflatten: input must be at least 1-D");
  if (x->ndim - 1 + ns > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "unflatten(): too many dims");
  char *over = msgf(m->env, "unflatten: Provided sizes {s} don't multiply up to the size of dim {d} "
                            "({e}) in the input tensor", sizes, ns, (int64_t)dim, x->sizes[dim]);
  if (!over) return oom(err);
  rc = infer_size(m, sizes, ns, x->sizes[dim], over, err);
  free(over);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  for (int i = 0; i < dim; i++) shape[n++] = x->sizes[i];
  for (int i = 0; i < ns; i++) shape[n++] = sizes[i];
  for (int i = (int)dim + 1; i < x->ndim; i++) shape[n++] = x->sizes[i];
  return view_core(m, x, shape, n, false, out, err);
}

static int unsqueeze_meta(const sdb_op *op, const sdb_fake *x, int64_t dim, vmeta *r, sdb_err *err) {
  if (x->ndim >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
  int64_t d = 0;
  int rc = ah_wrap_dim(op, dim, x->ndim + 1, &d, err);
  if (rc) return rc;
  const sdb_expr *st = d >= x->ndim ? sdb_int(1) : sdb_mul(x->sizes[d], x->strides[d]);
  if (!st) return sdb_err_expr(err);
  r->n = 0;
  for (int i = 0; i <= x->ndim; i++) {
    if (i == d) {
      r->sizes[r->n] = sdb_int(1);
      r->strides[r->n++] = st;
    }
    if (i < x->ndim) {
      r->sizes[r->n] = x->sizes[i];
      r->strides[r->n++] = x->strides[i];
    }
  }
  r->offset = x->storage_offset;
  return SDB_OK;
}

static int m_unsqueeze(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = unsqueeze_meta(op, x, dim, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* squeeze(self[, dim]): a dim goes only when it is statically 1 (a
** symbolic size is squeezed only when known to be 1, as PyTorch's
** guard_or_false decides for unbacked sizes; backed sizes are >= 2). */
static int squeeze_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, const sdb_fake *x,
                        vmeta *r, sdb_err *err) {
  int64_t dims[MAX_DIMS];
  int nd = -1;
  int rc = ah_dims(op, a, 1, "dim", x->ndim, true, dims, &nd, err);
  if (rc) return rc;
  bool which[MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) which[i] = nd < 0;
  for (int k = 0; k < nd; k++)
    if (x->ndim) which[dims[k]] = true;
  r->n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (which[i] && known_true(m->env, sdb_eq(x->sizes[i], sdb_int(1)))) continue;
    r->sizes[r->n] = x->sizes[i];
    r->strides[r->n++] = x->strides[i];
  }
  r->offset = x->storage_offset;
  return SDB_OK;
}

static int m_squeeze(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = squeeze_meta(m, op, a, x, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

static int transpose_meta(const sdb_op *op, const sdb_fake *x, int64_t d0, int64_t d1, vmeta *r,
                          sdb_err *err) {
  int64_t a0 = 0, a1 = 0;
  int rc = ah_wrap_dim(op, d0, x->ndim, &a0, err);
  if (!rc) rc = ah_wrap_dim(op, d1, x->ndim, &a1, err);
  if (rc) return rc;
  vmeta_of(x, r);
  if (x->ndim == 0) return SDB_OK;
  r->sizes[a0] = x->sizes[a1];
  r->sizes[a1] = x->sizes[a0];
  r->strides[a0] = x->strides[a1];
  r->strides[a1] = x->strides[a0];
  return SDB_OK;
}

static int transpose_args(const sdb_op *op, const sdb_args *a, sdb_fake **x, int64_t *d0,
                          int64_t *d1, sdb_err *err) {
  int rc = ah_tensor(op, a, 0, "self", x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim0", 0, true, d0, err);
  if (!rc) rc = ah_const_int(op, a, 2, "dim1", 0, true, d1, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  return rc;
}

static int m_transpose(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t d0 = 0, d1 = 0;
  int rc = transpose_args(op, a, &x, &d0, &d1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = transpose_meta(op, x, d0, d1, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

static int t_meta(const sdb_op *op, const sdb_fake *x, vmeta *r, sdb_err *err) {
  if (x->ndim > 2)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "%s() expects a tensor with <= 2 dimensions, but self is %dD", op->name, x->ndim);
  if (x->ndim < 2) {
    vmeta_of(x, r);
    return SDB_OK;
  }
  return transpose_meta(op, x, 0, 1, r, err);
}

static int m_t(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = t_meta(op, x, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

static int permute_core(sdb_fake_mode *m, sdb_fake *x, const int64_t *dims, int nd,
                        sdb_value *out, sdb_err *err) {
  if (nd != x->ndim)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "permute(sparse_coo): number of dimensions in the tensor input does not match "
                       "the length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                       "equal to len(dims) = %d", x->ndim, nd);
  bool seen[MAX_DIMS] = {false};
  vmeta r;
  r.n = nd;
  r.offset = x->storage_offset;
  for (int i = 0; i < nd; i++) {
    if (seen[dims[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "permute(): duplicate dims are not allowed.");
    seen[dims[i]] = true;
    r.sizes[i] = x->sizes[dims[i]];
    r.strides[i] = x->strides[dims[i]];
  }
  return out_vmeta(m, x, &r, out, err);
}

static int m_permute(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 1, "dims", x->ndim, true, dims, &nd, err))) return rc;
  if (nd < 0) return bad_arg(op, "dims", 1, "tuple of ints", NULL, err);
  return permute_core(m, x, dims, nd, out, err);
}

/* movedim(source, destination): ints or lists */
static int m_movedim(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t src[MAX_DIMS], dst[MAX_DIMS];
  int ns = -1, nd = -1;
  if ((rc = ah_dims(op, a, 1, "source", x->ndim, false, src, &ns, err))) return rc;
  if ((rc = ah_dims(op, a, 2, "destination", x->ndim, false, dst, &nd, err))) return rc;
  if (ns < 0) return bad_arg(op, "source", 1, "int or tuple of ints", NULL, err);
  if (nd < 0) return bad_arg(op, "destination", 2, "int or tuple of ints", NULL, err);
  if (ns != nd)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "movedim: Invalid source or destination dims: source (%d dims) should contain "
                       "the same number of dims as destination (%d dims)", ns, nd);
  int64_t order[MAX_DIMS];
  bool src_used[MAX_DIMS] = {false}, dst_used[MAX_DIMS] = {false};
  for (int i = 0; i < ns; i++) {
    if (src_used[src[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "movedim: repeated dim in `source`");
    if (dst_used[dst[i]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "movedim: repeated dim in `destination`");
    src_used[src[i]] = dst_used[dst[i]] = true;
    order[dst[i]] = src[i];
  }
  int next = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (dst_used[i]) continue;
    while (src_used[next]) next++;
    order[i] = next++;
  }
  return permute_core(m, x, order, x->ndim, out, err);
}

static const char *legacy_type(sdb_dtype d) {
  static const char *const names[SDB_DTYPE_COUNT] = {
    "FloatTensor", "HalfTensor", "BFloat16Tensor", "DoubleTensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
  };
  return d < SDB_DTYPE_COUNT ? names[d] : "Tensor";
}

/* inferExpandGeometry: -1 keeps a size; a size that differs from the
** target must be 1 (a guard when backed; with unbacked sizes, a size
** not known to be 1 is asserted equal at runtime). */
static int expand_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x,
                       const sdb_expr *const *target, int nt, vmeta *r, sdb_err *err) {
  (void)op;
  sdb_shape_env *env = m->env;
  if (nt < x->ndim)
    return fail_cond(m, NULL, SDB_E_SHAPE, "RuntimeError",
                     msgf(env, "expand(torch.{t}{{s}}, size={s}): the number of sizes provided ({d}) must "
                               "be greater or equal to the number of dimensions in the tensor ({d})",
                          legacy_type(x->dtype), x->sizes, x->ndim, target, nt, (int64_t)nt,
                          (int64_t)x->ndim), err);
  if (nt > MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "expand(): too many dims");
  r->n = nt;
  r->offset = x->storage_offset;
  for (int i = nt - 1; i >= 0; i--) {
    int dim = i - (nt - x->ndim);
    const sdb_expr *size = dim >= 0 ? x->sizes[dim] : sdb_int(1);
    const sdb_expr *stride = dim >= 0 ? x->strides[dim]
                           : i == nt - 1 ? sdb_int(1) : sdb_mul(r->sizes[i + 1], r->strides[i + 1]);
    const sdb_expr *t = target[i];
    if (is_const_val(t, -1)) {
      if (dim < 0)
        return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                           "The expanded size of the tensor (-1) isn't allowed in a leading, "
                           "non-existing dimension %d", i);
      t = size;
    }
    const sdb_expr *ne = sdb_ne(size, t);
    if (!ne || !stride) return sdb_err_expr(err);
    char *msg = msgf(env, "The expanded size of the tensor ({e}) must match the existing size ({e}) at "
                          "non-singleton dimension {d}.  Target sizes: {s}.  Tensor sizes: {s}",
                     t, size, (int64_t)i, target, nt, x->sizes, x->ndim);
    if (!msg) return oom(err);
    const sdb_expr *st = sdb_maybe_evaluate_static(env, ne);
    const sdb_expr *s = st ? st : sdb_simplify(env, ne);
    bool differ;
    int rc = SDB_OK;
    if (!s) { free(msg); return sdb_err_expr(err); }
    if (!st && sdb_has_unbacked(env, s)) {
      if (sdb_guard_or_false(env, sdb_eq(size, sdb_int(1)))) {
        differ = true;
      } else {
        differ = false;
        rc = sdb_check(env, sdb_eq(size, t), msg, err);
        if (rc) { free(msg); return rc; }
      }
    } else if ((rc = sdb_guard_bool(env, ne, &differ, err))) {
      free(msg);
      return rc;
    }
    if (differ) {
      rc = tcheck(m, sdb_eq(size, sdb_int(1)), msg, err);
      if (rc) return rc;
      size = t;
      stride = sdb_int(0);
    } else {
      free(msg);
    }
    r->sizes[i] = size;
    r->strides[i] = stride;
  }
  return SDB_OK;
}

static int m_expand(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "implicit", NULL, err))) return rc;
  const sdb_expr *target[MAX_DIMS];
  int nt = 0;
  if ((rc = ah_sizes(op, a, 1, "size", target, MAX_DIMS, &nt, err))) return rc;
  vmeta r;
  if ((rc = expand_meta(m, op, x, target, nt, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

static int m_expand_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = expand_meta(m, op, x, o->sizes, o->ndim, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* contiguous(): self when already contiguous (statically), else a copy */
static int m_contiguous(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_value *mf = ah_get(a, 1, "memory_format");
  if (mf && mf->kind != SDB_V_NONE &&
      (mf->kind != SDB_V_STR || (strcmp(mf->str, "contiguous_format") && strcmp(mf->str, "torch.contiguous_format"))))
    return ah_reject(op, a, 1, "memory_format", "only torch.contiguous_format is modelled", err);
  if (sdb_fake_is_contiguous(m->env, x)) {
    *out = sdb_value_tensor(x);
    return SDB_OK;
  }
  return out_new(m, x->dtype, x->device, x->sizes, x->ndim, x->requires_grad, out, err);
}

/* flip(dims), roll(shifts, dims=None): same shape, a new tensor */
static int m_flip(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 1, "dims", x->ndim, true, dims, &nd, err))) return rc;
  if (nd < 0) return bad_arg(op, "dims", 1, "tuple of ints", NULL, err);
  bool seen[MAX_DIMS] = {false};
  for (int k = 0; k < nd; k++) {
    if (seen[dims[k]])
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "dim %lld appears multiple times in the list of dims", (long long)dims[k]);
    seen[dims[k]] = true;
  }
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

static int m_roll(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *sh = ah_get(a, 1, "shifts");
  if (!sh) return bad_arg(op, "shifts", 1, "int or tuple of ints", NULL, err);
  size_t nshift = sh->kind == SDB_V_LIST || sh->kind == SDB_V_TUPLE ? sh->n : 1;
  if (nshift == 1 && !(sh->kind == SDB_V_LIST || sh->kind == SDB_V_TUPLE) && !sdb_value_is_int(sh))
    return bad_arg(op, "shifts", 1, "int or tuple of ints", sh, err);
  int64_t dims[MAX_DIMS];
  int nd = -1;
  if ((rc = ah_dims(op, a, 2, "dims", x->ndim, false, dims, &nd, err))) return rc;
  if (nd < 0 && nshift != 1)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "shifts and dimensions must align. shifts: %zu, dims:0", nshift);
  if (nd >= 0 && (size_t)nd != nshift)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "shifts and dimensions must align. shifts: %zu, dims:%d", nshift, nd);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* as_strided(size, stride, storage_offset=None): a view with exactly that
** layout over self's storage. */
static int m_as_strided(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 4, err))) return rc;
  const sdb_value *sv = ah_get(a, 1, "size"), *tv = ah_get(a, 2, "stride");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE)) return bad_arg(op, "size", 1, "tuple of ints", sv, err);
  if (!tv || (tv->kind != SDB_V_LIST && tv->kind != SDB_V_TUPLE)) return bad_arg(op, "stride", 2, "tuple of ints", tv, err);
  const sdb_expr *sizes[MAX_DIMS], *strides[MAX_DIMS], *off = NULL;
  int ns = 0, nt = 0;
  if ((rc = ah_sizes(op, a, 1, "size", sizes, MAX_DIMS, &ns, err))) return rc;
  if ((rc = ah_sizes(op, a, 2, "stride", strides, MAX_DIMS, &nt, err))) return rc;
  if (ns != nt)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "mismatch in length of strides and shape");
  if ((rc = ah_int(op, a, 3, "storage_offset", x->storage_offset, &off, err))) return rc;
  for (int i = 0; i < ns && !rc; i++)
    rc = tcheck(m, sdb_ge(strides[i], sdb_int(0)),
                msgf(m->env, "as_strided: Negative strides are not supported at the moment, got strides: {s}",
                     strides, nt), err);
  if (rc) return rc;
  return out_view(m, x, sizes, strides, ns, off, out, err);
}

/* ------------------------------------------------------------------------
** Matrix products
** ---------------------------------------------------------------------- */

static int same_dtype(const sdb_fake *x, const sdb_fake *y, sdb_err *err) {
  if (x->dtype == y->dtype) return SDB_OK;
  return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                     "mat1 and mat2 must have the same dtype, but got %s and %s",
                     scalar_name(x->dtype), scalar_name(y->dtype));
}

/* meta_mm's torch._check on [n, m1] X [m2, p] */
static int mm_check(sdb_fake_mode *m, const sdb_expr *n, const sdb_expr *m1, const sdb_expr *m2,
                    const sdb_expr *p, sdb_err *err) {
  return tcheck(m, sdb_eq(m1, m2),
                msgf(m->env, "a and b must have same reduction dim, but got [{e}, {e}] X [{e}, {e}].",
                     n, m1, m2, p), err);
}

/* common_meta_baddbmm_bmm's check on [bs, rows, k] and [b2, k2, cols] */
static int bmm_check(sdb_fake_mode *m, const sdb_expr *bs, const sdb_expr *k, const sdb_expr *b2,
                     const sdb_expr *k2, sdb_err *err) {
  return tcheck(m, sdb_and(sdb_eq(b2, bs), sdb_eq(k2, k)),
                msgf(m->env, "Expected size for first two dimensions of batch2 tensor to be: "
                             "[{e}, {e}] but got: [{e}, {e}].", bs, k, b2, k2), err);
}

/* meta_mv's check on [r, c] @ [v] */
static int mv_check(sdb_fake_mode *m, const sdb_expr *r, const sdb_expr *c, const sdb_expr *v,
                    sdb_err *err) {
  return tcheck(m, sdb_eq(c, v), msgf(m->env, "size mismatch, got input ({e}x{e}), vec ({e})", r, c, v), err);
}

static int m_mm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim != 2) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "a must be 2D");
  if (y->ndim != 2) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "b must be 2D");
  if ((rc = same_dtype(x, y, err))) return rc;
  if ((rc = mm_check(m, x->sizes[0], x->sizes[1], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[2] = {x->sizes[0], y->sizes[1]};
  return out_new(m, x->dtype, x->device, shape, 2, x->requires_grad || y->requires_grad, out, err);
}

static int m_bmm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim != 3) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "batch1 must be a 3D tensor");
  if (y->ndim != 3) return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "batch2 must be a 3D tensor");
  if (x->dtype != y->dtype)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "expected scalar type %s but found %s",
                       sdb_dtype_name(x->dtype), sdb_dtype_name(y->dtype));
  if ((rc = bmm_check(m, x->sizes[0], x->sizes[2], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[3] = {x->sizes[0], x->sizes[1], y->sizes[2]};
  return out_new(m, x->dtype, x->device, shape, 3, x->requires_grad || y->requires_grad, out, err);
}

/* torch.matmul as torch/_decomp's matmul takes it apart: dot, mv, mm, the
** folded mm/mv when one side is a contiguous stack of matrices, else a
** broadcast bmm. The checks (and messages) are those of the product it
** becomes. `t1_rg` / `t2_rg` stand for requires_grad (should_fold). */
static int matmul_shape(sdb_fake_mode *m, const sdb_fake *t1, const sdb_fake *t2,
                        const sdb_expr *const *s1, int d1, const sdb_expr *const *s2, int d2,
                        const sdb_expr **shape, int *n, sdb_err *err) {
  sdb_shape_env *env = m->env;
  int rc;
  *n = 0;
  if (d1 == 0 || d2 == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
  if (d1 == 1 && d2 == 1)
    return static_check(m, sdb_eq(s1[0], s2[0]),
                        msgf(env, "inconsistent tensor size, expected tensor [{e}] and src [{e}] to have "
                                  "the same number of elements, but got {e} and {e} elements respectively",
                             s1[0], s2[0], s1[0], s2[0]), err);
  if (d1 == 2 && d2 == 1) {
    if ((rc = mv_check(m, s1[0], s1[1], s2[0], err))) return rc;
    shape[(*n)++] = s1[0];
    return SDB_OK;
  }
  if (d1 == 1 && d2 == 2) {
    if ((rc = mm_check(m, sdb_int(1), s1[0], s2[0], s2[1], err))) return rc;
    shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  if (d1 == 2 && d2 == 2) {
    if ((rc = mm_check(m, s1[0], s1[1], s2[0], s2[1], err))) return rc;
    shape[(*n)++] = s1[0];
    shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  /* should_fold */
  bool big1 = d1 >= d2;
  const sdb_fake *tb = big1 ? t1 : t2, *ts = big1 ? t2 : t1;
  int db = big1 ? d1 : d2, dsm = big1 ? d2 : d1;
  bool fold = false;
  if (db >= 3 && dsm <= 2) {
    if (ts && ts->requires_grad) fold = true;
    else if (d1 == 2) fold = false;
    else fold = tb && sdb_fake_is_contiguous(env, tb);
  }
  if (fold && d1 >= d2) {                /* t1 folded into [prod(batch, n), m1] */
    const sdb_expr *folded = prod_of(s1, d1 - 1);
    if (!folded) return sdb_err_expr(err);
    if (d2 == 2) rc = mm_check(m, folded, s1[d1 - 1], s2[0], s2[1], err);
    else rc = mv_check(m, folded, s1[d1 - 1], s2[0], err);
    if (rc) return rc;
    for (int i = 0; i < d1 - 1; i++) shape[(*n)++] = s1[i];
    if (d2 == 2) shape[(*n)++] = s2[1];
    return SDB_OK;
  }
  if (fold) {                            /* t2.mT folded; t1 on the other side */
    const sdb_expr *mt[MAX_DIMS];
    for (int i = 0; i < d2; i++) mt[i] = s2[i];
    mt[d2 - 2] = s2[d2 - 1];
    mt[d2 - 1] = s2[d2 - 2];
    const sdb_expr *folded = prod_of(mt, d2 - 1);
    if (!folded) return sdb_err_expr(err);
    if (d1 == 2) rc = mm_check(m, folded, mt[d2 - 1], s1[1], s1[0], err);
    else rc = mv_check(m, folded, mt[d2 - 1], s1[0], err);
    if (rc) return rc;
    for (int i = 0; i < d2 - 2; i++) shape[(*n)++] = s2[i];
    if (d1 == 2) shape[(*n)++] = s1[0];
    shape[(*n)++] = s2[d2 - 1];
    return SDB_OK;
  }
  /* broadcast bmm */
  const sdb_expr *nn = d1 > 1 ? s1[d1 - 2] : sdb_int(1), *m1 = s1[d1 - 1];
  const sdb_expr *m2 = d2 > 1 ? s2[d2 - 2] : s2[d2 - 1];
  const sdb_expr *p = d2 > 1 ? s2[d2 - 1] : sdb_int(1);
  int nb1 = d1 > 2 ? d1 - 2 : 0, nb2 = d2 > 2 ? d2 - 2 : 0;
  if (d1 == 3 && d2 == 3) (void)sdb_guard_or_true(env, sdb_ne(s1[0], s2[0]));
  const sdb_expr *batch[MAX_DIMS];
  int nb = 0;
  if ((rc = sdb_broadcast_shapes(env, s1, nb1, s2, nb2, batch, &nb, err))) return rc;
  const sdb_expr *bprod = prod_of(batch, nb);
  if (!bprod) return sdb_err_expr(err);
  if ((rc = bmm_check(m, bprod, m1, bprod, m2, err))) return rc;
  for (int i = 0; i < nb; i++) shape[(*n)++] = batch[i];
  if (d1 > 1) shape[(*n)++] = nn;
  if (d2 > 1) shape[(*n)++] = p;
  return SDB_OK;
}

static int m_matmul(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if ((rc = same_dtype(x, y, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = matmul_shape(m, x, y, x->sizes, x->ndim, y->sizes, y->ndim, shape, &n, err))) return rc;
  return out_new(m, x->dtype, x->device, shape, n, x->requires_grad || y->requires_grad, out, err);
}

/* linear(input, weight, bias=None): addmm for 2-D input with a bias, else
** matmul(input, weight.t()) and the bias added in place. */
static int m_linear(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *w = NULL, *b = NULL;
  int rc = ah_tensor(op, a, 0, "input", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "weight", &w, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  const sdb_value *bv = ah_get(a, 2, "bias");
  if (bv && bv->kind == SDB_V_TENSOR) b = bv->tensor;
  else if (bv && bv->kind != SDB_V_NONE) return bad_arg(op, "bias", 2, "Tensor", bv, err);
  if (x->ndim == 0 || w->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "both arguments to linear need to be at least 1D, but they are %dD and %dD",
                       x->ndim, w->ndim);
  vmeta wt;
  if ((rc = t_meta(op, w, &wt, err))) return rc;
  if ((rc = same_dtype(x, w, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  sdb_fake wtf = *w;            /* weight.t() as matmul sees it (contiguity, grad) */
  wtf.sizes = wt.sizes;
  wtf.strides = wt.strides;
  wtf.ndim = wt.n;
  if ((rc = matmul_shape(m, x, &wtf, x->sizes, x->ndim, wt.sizes, wt.n, shape, &n, err))) return rc;
  if (b) {
    if (x->ndim == 2) {         /* addmm: self.expand((n, p)) */
      vmeta e;
      if ((rc = expand_meta(m, op, b, shape, n, &e, err))) return rc;
    } else if ((rc = inplace_broadcast(m, shape, n, b->sizes, b->ndim, err))) {
      return rc;
    }
  }
  bool rg = x->requires_grad || w->requires_grad || (b && b->requires_grad);
  return out_new(m, x->dtype, x->device, shape, n, rg, out, err);
}

/* addmm(self, mat1, mat2, *, beta=1, alpha=1) */
static int m_addmm(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *s = NULL, *x = NULL, *y = NULL;
  int rc = ah_tensor(op, a, 0, "self", &s, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mat1", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "mat2", &y, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  if (x->ndim != 2)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "mat1 must be a matrix, got %d-D tensor", x->ndim);
  if (y->ndim != 2)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "mat2 must be a matrix, got %d-D tensor", y->ndim);
  if ((rc = same_dtype(x, y, err))) return rc;
  if ((rc = mm_check(m, x->sizes[0], x->sizes[1], y->sizes[0], y->sizes[1], err))) return rc;
  const sdb_expr *shape[2] = {x->sizes[0], y->sizes[1]};
  vmeta e;
  if ((rc = expand_meta(m, op, s, shape, 2, &e, err))) return rc;
  bool rg = s->requires_grad || x->requires_grad || y->requires_grad;
  return out_new(m, x->dtype, x->device, shape, 2, rg, out, err);
}

/* ------------------------------------------------------------------------
** Joining, splitting and indexing
** ---------------------------------------------------------------------- */

/* cat(tensors, dim=0), as torch._refs.cat and prims.cat check it: 1-D
** empty tensors are skipped (legacy), other dims must match. */
static int m_cat(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *ts = NULL;
  size_t nt = 0;
  int rc = ah_tensor_list(op, a, 0, "tensors", &ts, &nt, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  if (nt == 0)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "cat expects at least one tensor, but received zero!");
  for (size_t i = 0; i < nt; i++)
    if (ts[i].tensor->ndim == 0)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                         "zero-dimensional tensor (at position %zu) cannot be concatenated", i);
  const sdb_fake *example = NULL;
  for (size_t i = 0; i < nt; i++) {
    const sdb_fake *t = ts[i].tensor;
    if (t->ndim == 1) continue;
    if (!example) { example = t; continue; }
    if (t->ndim != example->ndim)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                         "Number of dimensions of tensors must match.  Expected %d-D tensors, but got "
                         "%d-D for tensor number %zu in the list", example->ndim, t->ndim, i);
  }
  if (!example) example = ts[0].tensor;
  sdb_fake *kept[256];
  size_t nk = 0;
  if (nt > 256) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "cat(): too many tensors");
  promo p = {{false}, {SDB_F32}};
  bool rg = false;
  for (size_t i = 0; i < nt; i++) {
    sdb_fake *t = ts[i].tensor;
    promo_add(&p, &ts[i]);
    rg = rg || t->requires_grad;
    bool empty1 = t->ndim == 1 && sdb_guard_or_false(m->env, sdb_eq(t->sizes[0], sdb_int(0)));
    if (t->ndim != example->ndim) {
      if (!empty1)
        return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                           "Number of dimensions of tensors must match.  Expected %d-D tensors, but got "
                           "1-D for tensor number %zu in the list", example->ndim, i);
      continue;
    }
    if (empty1) continue;
    kept[nk++] = t;
  }
  sdb_dtype dt = promo_result(&p);
  if (nk == 0) {
    const sdb_expr *zero = sdb_int(0);
    return out_new(m, dt, ts[0].tensor->device, &zero, 1, rg, out, err);
  }
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", kept[0]->ndim, 0, false, &dim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS], *parts[256];
  int nd = kept[0]->ndim;
  for (int d = 0; d < nd; d++) shape[d] = kept[0]->sizes[d];
  for (size_t k = 0; k < nk; k++) {
    for (int d = 0; d < nd; d++) {
      if (d == dim) continue;
      if (k == 0) continue;
      rc = tcheck(m, sdb_eq(kept[k]->sizes[d], shape[d]),
                  msgf(m->env, "Sizes of tensors must match except in dimension {d}. Expected {e} in "
                               "dimension {d} but got {e} for tensor number {d} in the list",
                       dim, shape[d], (int64_t)d, kept[k]->sizes[d], (int64_t)k), err);
      if (rc) return rc;
    }
    parts[k] = kept[k]->sizes[dim];
  }
  shape[dim] = sdb_add_n(parts, nk);
  if (!shape[dim]) return sdb_err_expr(err);
  return out_new(m, dt, kept[0]->device, shape, nd, rg, out, err);
}

/* stack(tensors, dim=0): equal shapes, a new dim of len(tensors) */
static int m_stack(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *ts = NULL;
  size_t nt = 0;
  int rc = ah_tensor_list(op, a, 0, "tensors", &ts, &nt, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  if (nt == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "stack expects a non-empty TensorList");
  const sdb_fake *t0 = ts[0].tensor;
  if (t0->ndim >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "stack(): too many dims");
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 1, "dim", t0->ndim + 1, 0, false, &dim, err))) return rc;
  promo p = {{false}, {SDB_F32}};
  bool rg = false;
  for (size_t i = 0; i < nt; i++) {
    const sdb_fake *t = ts[i].tensor;
    promo_add(&p, &ts[i]);
    rg = rg || t->requires_grad;
    char fmt[128];
    snprintf(fmt, sizeof fmt, "stack expects each tensor to be equal size, but got {s} at entry 0 and {s} "
                              "at entry %zu", i);
    if ((rc = same_shape(m, t0->sizes, t0->ndim, t->sizes, t->ndim, fmt, err))) return rc;
  }
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  for (int d = 0; d <= t0->ndim; d++) {
    if (d == dim) shape[n++] = sdb_int((int64_t)nt);
    if (d < t0->ndim) shape[n++] = t0->sizes[d];
  }
  return out_new(m, promo_result(&p), t0->device, shape, n, rg, out, err);
}

/* Views of x along dim with the given lengths, one after the other. */
static int split_views(sdb_fake_mode *m, sdb_fake *x, int64_t dim, const sdb_expr *const *lens,
                       size_t count, sdb_value *out, sdb_err *err) {
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, count);
  if (count && t.kind != SDB_V_TUPLE) return oom(err);
  t.kind = SDB_V_TUPLE;
  const sdb_expr *start = sdb_int(0);
  for (size_t k = 0; k < count; k++) {
    vmeta r;
    vmeta_of(x, &r);
    r.sizes[dim] = lens[k];
    r.offset = sdb_add(x->storage_offset, sdb_mul(start, x->strides[dim]));
    start = sdb_add(start, lens[k]);
    int rc = r.offset && start ? out_vmeta(m, x, &r, &t.items[k], err) : sdb_err_expr(err);
    if (rc) { sdb_value_free(&t); return rc; }
  }
  *out = t;
  return SDB_OK;
}

/* split of x along dim in pieces of split_size (the last one shorter):
** the number of pieces is an int, so it is guarded on when symbolic. */
static int split_by_size(sdb_fake_mode *m, const sdb_op *op, sdb_fake *x, int64_t dim,
                         const sdb_expr *ss, sdb_value *out, sdb_err *err) {
  (void)op;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "split expects at least a 1-dimensional tensor");
  const sdb_expr *size = x->sizes[dim];
  int rc = tcheck(m, sdb_ge(ss, sdb_int(0)),
                  msgf(m->env, "split expects split_size be non-negative, but got split_size={e}", ss), err);
  if (rc) return rc;
  int64_t num = 1;
  if (!known_true(m->env, sdb_eq(ss, sdb_int(0)))) {
    const sdb_expr *cnt = sdb_floordiv(sdb_sub(sdb_add(size, ss), sdb_int(1)), ss);
    if (!cnt) return sdb_err_expr(err);
    if ((rc = sdb_guard_int(m->env, cnt, &num, err))) return rc;
    if (num < 1) num = 1;
  } else {
    rc = tcheck(m, sdb_eq(size, sdb_int(0)),
                msgf(m->env, "split_size can only be 0 if dimension size is 0, but got dimension size of {e}",
                     size), err);
    if (rc) return rc;
  }
  if (num > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "split(): more than 4096 pieces");
  const sdb_expr **lens = calloc((size_t)num, sizeof *lens);
  if (!lens) return oom(err);
  for (int64_t k = 0; k < num - 1; k++) lens[k] = ss;
  lens[num - 1] = sdb_sub(size, sdb_mul(ss, sdb_int(num - 1)));
  rc = lens[num - 1] ? split_views(m, x, dim, lens, (size_t)num, out, err) : sdb_err_expr(err);
  free(lens);
  return rc;
}

/* split(split_size_or_sections, dim=0) -> a tuple of views */
static int m_split(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  int64_t dim = 0;
  if ((rc = ah_dim(op, a, 2, "dim", x->ndim, 0, false, &dim, err))) return rc;
  const sdb_value *sv = ah_get(a, 1, "split_size_or_sections");
  if (!sv) sv = ah_get(a, KW, "split_size");
  if (!sv) return bad_arg(op, "split_size_or_sections", 1, "int or list of ints", NULL, err);
  if (sv->kind == SDB_V_LIST || sv->kind == SDB_V_TUPLE) {
    if (x->ndim == 0)
      return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "split expects at least a 1-dimensional tensor");
    const sdb_expr *lens[MAX_DIMS * 4];
    if (sv->n > sizeof lens / sizeof lens[0])
      return sdb_err_set(err, SDB_E_INVALID, "ValueError", "split(): too many sections");
    for (size_t k = 0; k < sv->n; k++) {
      if (!sdb_value_is_int(&sv->items[k])) return bad_arg(op, "split_size_or_sections", 1, "list of ints", &sv->items[k], err);
      lens[k] = int_expr(&sv->items[k]);
    }
    for (size_t k = 0; k < sv->n; k++) {
      rc = tcheck(m, sdb_ge(lens[k], sdb_int(0)),
                  msgf(m->env, "split_with_sizes expects split_sizes have only non-negative entries, "
                               "but got split_sizes={s}", lens, (int)sv->n), err);
      if (rc) return rc;
    }
    const sdb_expr *sum = sdb_add_n(lens, sv->n);
    const sdb_expr *size = x->sizes[dim];
    rc = tcheck(m, sdb_eq(sum, size),
                msgf(m->env, "split_with_sizes expects split_sizes to sum exactly to {e} (input tensor's "
                             "size at dimension {d}), but got split_sizes={s}", size, dim, lens, (int)sv->n),
                err);
    if (rc) return rc;
    return split_views(m, x, dim, lens, sv->n, out, err);
  }
  if (!sdb_value_is_int(sv)) return bad_arg(op, "split_size_or_sections", 1, "int or list of ints", sv, err);
  return split_by_size(m, op, x, dim, int_expr(sv), out, err);
}

/* chunk(chunks, dim=0): split by ceil(size / chunks) */
static int m_chunk(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t chunks = 0, dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "chunks", 0, true, &chunks, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
  if ((rc = ah_dim(op, a, 2, "dim", x->ndim, 0, false, &dim, err))) return rc;
  const sdb_expr *size = x->sizes[dim];
  const sdb_expr *ss = sdb_floordiv(sdb_add(size, sdb_int(chunks - 1)), sdb_int(chunks));
  if (!ss) return sdb_err_expr(err);
  bool both_zero = false;
  if ((rc = sdb_guard_bool(m->env, sdb_eq(ss, sdb_int(0)), &both_zero, err))) return rc;
  if (both_zero && (rc = sdb_guard_bool(m->env, sdb_eq(size, sdb_int(0)), &both_zero, err))) return rc;
  if (both_zero) {                     /* chunks of an empty dim: chunks pieces of 0 */
    if (chunks > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "chunk(): too many pieces");
    const sdb_expr **lens = calloc((size_t)chunks, sizeof *lens);
    if (!lens) return oom(err);
    for (int64_t k = 0; k < chunks; k++) lens[k] = sdb_int(0);
    rc = split_views(m, x, dim, lens, (size_t)chunks, out, err);
    free(lens);
    return rc;
  }
  return split_by_size(m, op, x, dim, ss, out, err);
}

static int select_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x, int64_t dim,
                       const sdb_expr *index, vmeta *r, sdb_err *err);

/* unbind(dim=0): as many selects as the size, which must be known (it is
** guarded on, as PyTorch's int(size) does; unbacked -> data-dependent) */
static int m_unbind(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_INVALID, "IndexError", "Dimension specified as 0 but tensor has no dimensions");
  int64_t dim = 0, count = 0;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, false, &dim, err))) return rc;
  if ((rc = sdb_guard_int(m->env, x->sizes[dim], &count, err))) return rc;
  if (count > 4096) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "unbind(): more than 4096 pieces");
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, (size_t)count);
  if (count && t.kind != SDB_V_TUPLE) return oom(err);
  t.kind = SDB_V_TUPLE;
  for (int64_t k = 0; k < count; k++) {
    vmeta r;
    rc = select_meta(m, op, x, dim, sdb_int(k), &r, err);
    if (!rc) rc = out_vmeta(m, x, &r, &t.items[k], err);
    if (rc) { sdb_value_free(&t); return rc; }
  }
  *out = t;
  return SDB_OK;
}

static bool is_index_dtype(sdb_dtype d) { return d == SDB_I64 || d == SDB_I32; }

/* index_select(dim, index): the size along dim becomes index.numel() */
static int m_index_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->ndim > 1)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "index_select(): Index is supposed to be a vector");
  if (!is_index_dtype(idx->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "index_select(): Expected dtype int32 or int64 for index");
  const sdb_expr *shape[MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
  const sdb_expr *numel = sdb_fake_numel(idx);
  if (!numel) return sdb_err_expr(err);
  if (x->ndim) shape[dim] = numel;
  return out_new(m, x->dtype, x->device, shape, x->ndim, x->requires_grad, out, err);
}

/* gather(dim, index): the shape of index */
static int m_gather(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->dtype != SDB_I64)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "gather(): Expected dtype int64 for index");
  if (idx->ndim != x->ndim && !(x->ndim <= 1 && idx->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "Index tensor must have the same number of dimensions as input tensor");
  return out_new(m, x->dtype, x->device, idx->sizes, idx->ndim, x->requires_grad, out, err);
}

/* scatter(dim, index, src|value): the shape of self */
static int m_scatter(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  const sdb_value *src = ah_get(a, 3, "src");
  if (!src) src = ah_get(a, KW, "value");
  if (!src || (src->kind != SDB_V_TENSOR && !is_number(src)))
    return bad_arg(op, "src", 3, "Tensor or number", src, err);
  if ((rc = ah_reject(op, a, KW, "reduce", NULL, err))) return rc;
  if (idx->dtype != SDB_I64)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "scatter(): Expected dtype int64 for index");
  if (idx->ndim != x->ndim && !(x->ndim <= 1 && idx->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError",
                       "Index tensor must have the same number of dimensions as self tensor");
  bool rg = x->requires_grad || (src->kind == SDB_V_TENSOR && src->tensor->requires_grad);
  return out_like(m, x, x->dtype, NULL, rg, out, err);
}

/* narrow(dim, start, length): a view */
static int m_narrow(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "narrow() cannot be applied to a 0-dim tensor.");
  int64_t dim = 0;
  const sdb_expr *start = NULL, *len = NULL;
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (!rc) rc = ah_int(op, a, 2, "start", NULL, &start, err);
  if (!rc) rc = ah_int(op, a, 3, "length", NULL, &len, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (rc) return rc;
  sdb_shape_env *env = m->env;
  const sdb_expr *size = x->sizes[dim];
  if ((rc = tcheck(m, sdb_ge(len, sdb_int(0)), strdup("narrow(): length must be non-negative."), err)))
    return rc;
  rc = tcheck_as(m, sdb_and(sdb_le(sdb_neg(size), start), sdb_le(start, size)),
                 msgf(env, "start out of range (expected to be in range of [{e}, {e}], but got {e})",
                      sdb_neg(size), size, start), SDB_E_SHAPE, "IndexError", err);
  if (rc) return rc;
  if ((start->kind == SDB_INT && start->ival < 0) ||
      (start->kind != SDB_INT && sdb_guard_or_false(env, sdb_lt(start, sdb_int(0)))))
    start = sdb_add(start, size);
  if (!start) return sdb_err_expr(err);
  rc = tcheck(m, sdb_le(start, sdb_sub(size, len)),
              msgf(env, "start ({e}) + length ({e}) exceeds dimension size ({e}).", start, len, size), err);
  if (rc) return rc;
  vmeta r;
  vmeta_of(x, &r);
  r.sizes[dim] = len;
  r.offset = sdb_add(x->storage_offset, sdb_mul(start, x->strides[dim]));
  if (!r.offset) return sdb_err_expr(err);
  return out_vmeta(m, x, &r, out, err);
}

/* fake_impls.meta_select: the offset is known when the sign of the index
** is (guard_or_false), else it is a fresh unbacked symbol. */
static int select_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_fake *x, int64_t dim,
                       const sdb_expr *index, vmeta *r, sdb_err *err) {
  sdb_shape_env *env = m->env;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "select() cannot be applied to a 0-dim tensor.");
  int64_t d = 0;
  int rc = ah_wrap_dim(op, dim, x->ndim, &d, err);
  if (rc) return rc;
  const sdb_expr *size = x->sizes[d];
  const sdb_expr *inr = sdb_and(sdb_le(sdb_neg(size), index), sdb_lt(index, size));
  if (!inr) return sdb_err_expr(err);
  if (sdb_maybe_evaluate_static(env, inr) == sdb_false())
    return fail_cond(m, inr, SDB_E_SHAPE, "IndexError",
                     msgf(env, "select(): index {e} out of range for tensor of size {s} at dimension {d}",
                          index, x->sizes, x->ndim, d), err);
  const sdb_expr *off = NULL;
  if (sdb_guard_or_false(env, sdb_ge(index, sdb_int(0))))
    off = sdb_add(x->storage_offset, sdb_mul(index, x->strides[d]));
  else if (sdb_guard_or_false(env, sdb_lt(index, sdb_int(0))))
    off = sdb_add(x->storage_offset, sdb_mul(sdb_add(index, size), x->strides[d]));
  else if (!(off = sdb_create_unbacked_symint(env)))
    return oom(err);
  if (!off) return sdb_err_expr(err);
  r->n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (i == d) continue;
    r->sizes[r->n] = x->sizes[i];
    r->strides[r->n++] = x->strides[i];
  }
  r->offset = off;
  return SDB_OK;
}

static int m_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int64_t dim = 0;
  const sdb_expr *index = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_int(op, a, 2, "index", NULL, &index, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = select_meta(m, op, x, dim, index, &r, err))) return rc;
  return out_vmeta(m, x, &r, out, err);
}

/* Is x one of the arguments of e (a Min or Max of kind k)? */
static bool has_arg(const sdb_expr *e, sdb_kind k, const sdb_expr *x) {
  if (e->kind != k) return false;
  for (uint32_t i = 0; i < e->nargs; i++)
    if (e->args[i] == x) return true;
  return false;
}

/* min/max decided statically when possible (Min(a, b) <= b, Max(a, b) >=
** b), else a Min/Max expression */
static const sdb_expr *smin(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (has_arg(a, SDB_MAX, b)) return b;
  if (has_arg(b, SDB_MAX, a)) return a;
  if (known_true(env, sdb_le(a, b))) return a;
  if (known_true(env, sdb_le(b, a))) return b;
  return sdb_min(a, b);
}
static const sdb_expr *smax(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (has_arg(a, SDB_MIN, b)) return b;
  if (has_arg(b, SDB_MIN, a)) return a;
  if (known_true(env, sdb_le(a, b))) return b;
  if (known_true(env, sdb_le(b, a))) return a;
  return sdb_max(a, b);
}

/* A slice bound: negative wraps by size (decided by guard_or_false when
** symbolic), then clamped into [0, size] with Max/Min. */
static const sdb_expr *slice_bound(sdb_shape_env *env, const sdb_expr *v, const sdb_expr *size) {
  bool neg = v->kind == SDB_INT ? v->ival < 0 : sdb_guard_or_false(env, sdb_lt(v, sdb_int(0)));
  if (neg) v = smax(env, sdb_add(v, size), sdb_int(0));
  return smin(env, v, size);
}

/* slice(dim=0, start=None, end=None, step=1): a view, bounds clamped */
static int m_slice(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 5, err))) return rc;
  if (x->ndim == 0)
    return sdb_err_set(err, SDB_E_SHAPE, "RuntimeError", "slice() cannot be applied to a 0-dim tensor.");
  int64_t dim = 0, step = 1;
  const sdb_expr *start = NULL, *end = NULL;
  if ((rc = ah_dim(op, a, 1, "dim", x->ndim, 0, false, &dim, err))) return rc;
  if ((rc = ah_int(op, a, 2, "start", sdb_int(0), &start, err))) return rc;
  const sdb_value *ev = ah_get(a, 3, "end");
  if (ev && ev->kind != SDB_V_NONE && !sdb_value_is_int(ev)) return bad_arg(op, "end", 3, "int", ev, err);
  if ((rc = ah_const_int(op, a, 4, "step", 1, false, &step, err))) return rc;
  if (step <= 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "slice step must be positive");
  sdb_shape_env *env = m->env;
  const sdb_expr *size = x->sizes[dim];
  const sdb_expr *s = slice_bound(env, start, size);
  if (!ev || ev->kind == SDB_V_NONE || (ev->expr->kind == SDB_INT && ev->expr->ival >= INT64_MAX / 2))
    end = size;
  else
    end = slice_bound(env, int_expr(ev), size);
  const sdb_expr *e = smax(env, end, s);
  if (!s || !e) return sdb_err_expr(err);
  const sdb_expr *len = sdb_sub(e, s);
  if (step != 1) len = sdb_floordiv(sdb_add(len, sdb_int(step - 1)), sdb_int(step));
  vmeta r;
  vmeta_of(x, &r);
  r.sizes[dim] = len;
  r.strides[dim] = sdb_mul(x->strides[dim], sdb_int(step));
  r.offset = sdb_add(x->storage_offset, sdb_mul(s, x->strides[dim]));
  if (!len || !r.strides[dim] || !r.offset) return sdb_err_expr(err);
  return out_vmeta(m, x, &r, out, err);
}

static int nonzero_nnz(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **out, sdb_err *err);

/* index(self, indices): advanced indexing with a boolean mask (its size is
** mask.nonzero()'s, memoized on the mask) or with integer index tensors
** (broadcast together; None entries keep a dim). */
static int m_index(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 2, err))) return rc;
  const sdb_value *iv = ah_get(a, 1, "indices");
  if (!iv) return bad_arg(op, "indices", 1, "tuple of Tensors", NULL, err);
  const sdb_value *items = iv;
  size_t ni = 1;
  if (iv->kind == SDB_V_LIST || iv->kind == SDB_V_TUPLE) { items = iv->items; ni = iv->n; }
  /* expand boolean masks into their nonzero columns, as meta_index does */
  const sdb_expr *shape[MAX_DIMS], *bshape[MAX_DIMS];
  int nb = 0, pos = 0, first = -1, last = -1, indexed = 0;
  bool adjacent = true, any = false;
  for (size_t k = 0; k < ni; k++) {
    const sdb_value *v = &items[k];
    if (v->kind == SDB_V_NONE) { pos++; continue; }
    if (v->kind != SDB_V_TENSOR) return bad_arg(op, "indices", 1, "tuple of Tensors or None", v, err);
    sdb_fake *t = v->tensor;
    const sdb_expr *ishape[MAX_DIMS];
    int in = 0, span = 1;
    if (t->dtype == SDB_BOOL || t->dtype == SDB_U8) {
      if (pos + t->ndim > x->ndim)
        return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                           "too many indices for tensor of dimension %d (got %d)", x->ndim, pos + t->ndim);
      for (int j = 0; j < t->ndim; j++) {
        rc = tcheck_as(m, sdb_eq(t->sizes[j], x->sizes[pos + j]),
                       msgf(m->env, "The shape of the mask {s} at index {d} does not match the shape of "
                                    "the indexed tensor {s} at index {d}", t->sizes, t->ndim, (int64_t)j,
                            x->sizes, x->ndim, (int64_t)(pos + j)), SDB_E_SHAPE, "IndexError", err);
        if (rc) return rc;
      }
      const sdb_expr *nnz = NULL;
      if ((rc = nonzero_nnz(m, t, &nnz, err))) return rc;
      ishape[in++] = nnz;
      span = t->ndim;
    } else if (is_index_dtype(t->dtype)) {
      if (pos + 1 > x->ndim)
        return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                           "too many indices for tensor of dimension %d (got %d)", x->ndim, pos + 1);
      for (int j = 0; j < t->ndim; j++) ishape[in++] = t->sizes[j];
    } else {
      return sdb_err_set(err, SDB_E_INVALID, "IndexError",
                         "tensors used as indices must be long, int, byte or bool tensors");
    }
    if (any) {
      const sdb_expr *tmp[MAX_DIMS];
      int nt = 0;
      if ((rc = sdb_broadcast_shapes(m->env, bshape, nb, ishape, in, tmp, &nt, err))) return rc;
      for (int i = 0; i < nt; i++) bshape[i] = tmp[i];
      nb = nt;
      if (last != pos) adjacent = false;
    } else {
      for (int i = 0; i < in; i++) bshape[i] = ishape[i];
      nb = in;
      first = pos;
    }
    any = true;
    pos += span;
    last = pos;
    indexed += span;
  }
  if (!any) return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                               "index(): at least one index tensor is needed");
  if (pos > x->ndim)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "too many indices for tensor of dimension %d (got %d)",
                       x->ndim, pos);
  /* the indexed dims are [first, last) when adjacent */
  if (x->ndim - indexed + nb > MAX_DIMS)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "index(): too many dims");
  int n = 0;
  if (adjacent) {
    for (int i = 0; i < first; i++) shape[n++] = x->sizes[i];
    for (int i = 0; i < nb; i++) shape[n++] = bshape[i];
    for (int i = last; i < x->ndim; i++) shape[n++] = x->sizes[i];
  } else {
    /* broadcast dims first, then the dims no tensor indexed */
    for (int i = 0; i < nb; i++) shape[n++] = bshape[i];
    int p = 0;
    for (size_t k = 0; k < ni; k++) {
      const sdb_value *v = &items[k];
      if (v->kind == SDB_V_NONE) shape[n++] = x->sizes[p++];
      else p += v->tensor->dtype == SDB_BOOL || v->tensor->dtype == SDB_U8 ? v->tensor->ndim : 1;
    }
    for (int i = p; i < x->ndim; i++) shape[n++] = x->sizes[i];
  }
  return out_new(m, x->dtype, x->device, shape, n, x->requires_grad, out, err);
}

/* clone(): a new tensor, same layout when dense */
static int m_clone(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  const sdb_value *mf = ah_get(a, KW, "memory_format");
  if (mf && mf->kind == SDB_V_STR && strstr(mf->str, "contiguous_format"))
    return out_new(m, x->dtype, x->device, x->sizes, x->ndim, x->requires_grad, out, err);
  if (mf && mf->kind != SDB_V_NONE && !(mf->kind == SDB_V_STR && strstr(mf->str, "preserve_format")))
    return ah_reject(op, a, KW, "memory_format", "only preserve_format and contiguous_format", err);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* detach(): an alias that does not require grad */
static int m_detach(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  sdb_fake *r = mk_view(m, x, x->sizes, x->strides, x->ndim, x->storage_offset, err);
  if (!r) return fail_code(err);
  r->requires_grad = false;
  return give(out, r);
}

static int repeat_core(sdb_fake_mode *m, const sdb_op *op, sdb_fake *x, const sdb_expr *const *reps,
                       int nr, sdb_value *out, sdb_err *err) {
  (void)op;
  if (nr < x->ndim)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const sdb_expr *shape[MAX_DIMS];
  int pad = nr - x->ndim;
  for (int i = 0; i < nr; i++) {
    int rc = tcheck(m, sdb_ge(reps[i], sdb_int(0)),
                    msgf(m->env, "Trying to create tensor with negative dimension {e}: {s}", reps[i], reps, nr),
                    err);
    if (rc) return rc;
    shape[i] = i < pad ? reps[i] : sdb_mul(reps[i], x->sizes[i - pad]);
    if (!shape[i]) return sdb_err_expr(err);
  }
  return out_new(m, x->dtype, x->device, shape, nr, x->requires_grad, out, err);
}

/* repeat(*sizes) */
static int m_repeat(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *reps[MAX_DIMS];
  int nr = 0;
  if ((rc = ah_sizes(op, a, 1, "repeats", reps, MAX_DIMS, &nr, err))) return rc;
  return repeat_core(m, op, x, reps, nr, out, err);
}

/* tile(dims): repeat with dims padded by leading 1s */
static int m_tile(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *dims[MAX_DIMS], *reps[MAX_DIMS];
  int nd = 0;
  if ((rc = ah_sizes(op, a, 1, "dims", dims, MAX_DIMS, &nd, err))) return rc;
  int nr = nd < x->ndim ? x->ndim : nd;
  for (int i = 0; i < nr; i++) reps[i] = i < nr - nd ? sdb_int(1) : dims[i - (nr - nd)];
  return repeat_core(m, op, x, reps, nr, out, err);
}

/* ------------------------------------------------------------------------
** Factories
** ---------------------------------------------------------------------- */

/* The dtype=, device= and requires_grad= keywords of a factory. */
static int factory_kw(const sdb_op *op, const sdb_args *a, int *dtype, const char **device,
                      bool *rg, sdb_err *err) {
  int rc = ah_dtype(op, a, KW, "dtype", dtype, err);
  if (rc) return rc;
  const sdb_value *dv = ah_get(a, KW, "device");
  if (dv && dv->kind == SDB_V_STR) {
    if (!looks_like_device(dv->str))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "Expected one of cpu, cuda, meta, mps, xpu, hpu device type at start of device "
                         "string: %s", dv->str);
    *device = dv->str;
  } else if (dv && dv->kind != SDB_V_NONE) {
    return bad_arg(op, "device", KW, "str", dv, err);
  }
  const sdb_value *lv = ah_get(a, KW, "layout");
  if (lv && lv->kind != SDB_V_NONE && !(lv->kind == SDB_V_STR && strstr(lv->str, "strided")))
    return ah_reject(op, a, KW, "layout", "only torch.strided is modelled", err);
  return ah_bool(op, a, KW, "requires_grad", false, rg, err);
}

/* check_size_nonnegative: a guard or a runtime assert when symbolic */
static int check_sizes(sdb_fake_mode *m, const sdb_expr *const *sizes, int n, sdb_err *err) {
  for (int i = 0; i < n; i++) {
    int rc = tcheck(m, sdb_ge(sizes[i], sdb_int(0)),
                    msgf(m->env, "Trying to create tensor with negative dimension {e}: {s}", sizes[i], sizes, n),
                    err);
    if (rc) return rc;
  }
  return SDB_OK;
}

static int make_factory(sdb_fake_mode *m, sdb_dtype dt, const char *device,
                        const sdb_expr *const *sizes, int n, bool rg, sdb_value *out, sdb_err *err) {
  int rc = check_sizes(m, sizes, n, err);
  if (rc) return rc;
  if (rg && !sdb_dtype_is_floating(dt))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Only Tensors of floating point and complex dtype can require gradients");
  sdb_fake *r = sdb_meta_empty(m, dt, device, sizes, n, err);
  if (!r) return fail_code(err);
  r->requires_grad = rg;
  return give(out, r);
}

/* The dtype of a fill value: bool -> bool, int -> int64, float -> float32. */
static int fill_dtype(const sdb_op *op, const sdb_value *v, size_t i, sdb_dtype *dt, sdb_err *err) {
  if (!v) return bad_arg(op, "fill_value", i, "number", NULL, err);
  if (v->kind == SDB_V_BOOL) *dt = SDB_BOOL;
  else if (v->kind == SDB_V_INT) *dt = SDB_I64;
  else if (v->kind == SDB_V_FLOAT) *dt = SDB_F32;
  else if (v->kind == SDB_V_TENSOR && v->tensor->ndim == 0) *dt = v->tensor->dtype;
  else return bad_arg(op, "fill_value", i, "number", v, err);
  return SDB_OK;
}

/* zeros/ones/empty/randn/rand(*size, dtype=None, device=None, requires_grad=False) */
static int m_factory(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  int rc = ah_sizes(op, a, 0, ah_get(a, KW, "size") ? "size" : NULL, sizes, MAX_DIMS, &n, err);
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (rc) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : SDB_F32;
  if (!strcmp(op->name, "randn") && !sdb_dtype_is_floating(dt)) return not_implemented_for("normal_kernel_cpu", dt, err);
  if (!strcmp(op->name, "rand") && !sdb_dtype_is_floating(dt)) return not_implemented_for("check_uniform_bounds", dt, err);
  return make_factory(m, dt, device, sizes, n, rg, out, err);
}

/* full(size, fill_value, *, dtype=None, ...) */
static int m_full(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *sv = ah_get(a, 0, "size");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "size", 0, "tuple of ints", sv, err);
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  sdb_dtype dt = SDB_F32;
  int rc = ah_sizes(op, a, 0, "size", sizes, MAX_DIMS, &n, err);
  if (!rc) rc = fill_dtype(op, ah_get(a, 1, "fill_value"), 1, &dt, err);
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : dt, device, sizes, n, rg, out, err);
}

/* randint(high, size) / randint(low, high, size): int64 */
static int m_randint(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  size_t si = a->npos >= 3 ? 2 : 1;
  const sdb_value *sv = ah_get(a, si, "size");
  if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
    return bad_arg(op, "size", si, "tuple of ints", sv, err);
  const sdb_expr *lo = sdb_int(0), *hi = NULL;
  int rc = SDB_OK;
  if (si == 2) rc = ah_int(op, a, 0, "low", NULL, &lo, err);
  if (!rc) rc = ah_int(op, a, si - 1, "high", NULL, &hi, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  rc = static_check(m, sdb_lt(lo, hi),
                    msgf(m->env, "random_ expects 'from' to be less than 'to', but got from={e} >= to={e}", lo, hi),
                    err);
  if (rc) return rc;
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = ah_sizes(op, a, si, "size", sizes, MAX_DIMS, &n, err))) return rc;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : SDB_I64, device, sizes, n, rg, out, err);
}

/* zeros_like/ones_like/empty_like/rand_like/randn_like(self, *, dtype=, device=),
** full_like(self, fill_value, ...) */
static int m_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool full = !strcmp(op->name, "full_like");
  if (full) {
    sdb_dtype ignored = SDB_F32;
    if ((rc = fill_dtype(op, ah_get(a, 1, "fill_value"), 1, &ignored, err))) return rc;
  }
  if ((rc = ah_max_pos(op, a, full ? 2 : 1, err))) return rc;
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  const sdb_value *mf = ah_get(a, KW, "memory_format");
  if (mf && mf->kind != SDB_V_NONE && !(mf->kind == SDB_V_STR && strstr(mf->str, "preserve_format")))
    return ah_reject(op, a, KW, "memory_format", "only preserve_format is modelled", err);
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : x->dtype;
  if (!strncmp(op->name, "rand", 4) && !sdb_dtype_is_floating(dt))
    return not_implemented_for(op->name[4] == 'n' ? "normal_kernel_cpu" : "check_uniform_bounds", dt, err);
  if (rg && !sdb_dtype_is_floating(dt))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "Only Tensors of floating point and complex dtype can require gradients");
  return out_like(m, x, dt, device, rg, out, err);
}

/* new_empty/new_zeros/new_ones(self, size, ...), new_full(self, size, fill_value, ...):
** self's dtype and device unless given. */
static int m_new(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool full = !strcmp(op->name, "new_full");
  const sdb_expr *sizes[MAX_DIMS];
  int n = 0, dtype = -1;
  const char *device = x->device;
  bool rg = false;
  if (full) {
    const sdb_value *sv = ah_get(a, 1, "size");
    if (!sv || (sv->kind != SDB_V_LIST && sv->kind != SDB_V_TUPLE))
      return bad_arg(op, "size", 1, "tuple of ints", sv, err);
    sdb_dtype ignored = SDB_F32;
    if ((rc = fill_dtype(op, ah_get(a, 2, "fill_value"), 2, &ignored, err))) return rc;
    if ((rc = ah_max_pos(op, a, 3, err))) return rc;
    rc = ah_sizes(op, a, 1, "size", sizes, MAX_DIMS, &n, err);
  } else {
    rc = ah_sizes(op, a, 1, ah_get(a, KW, "size") ? "size" : NULL, sizes, MAX_DIMS, &n, err);
  }
  if (!rc) rc = factory_kw(op, a, &dtype, &device, &rg, err);
  if (rc) return rc;
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : x->dtype, device, sizes, n, rg, out, err);
}

/* eye(n, m=None, *, dtype=None, ...) */
static int m_eye(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_expr *sizes[2] = {NULL, NULL};
  int rc = ah_int(op, a, 0, "n", NULL, &sizes[0], err);
  if (!rc) rc = ah_int(op, a, 1, "m", sizes[0], &sizes[1], err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  for (int i = 0; i < 2; i++) {
    rc = tcheck(m, sdb_ge(sizes[i], sdb_int(0)),
                msgf(m->env, i ? "m must be greater or equal to 0, got {e}" : "n must be greater or equal to 0, got {e}",
                     sizes[i]), err);
    if (rc) return rc;
  }
  return make_factory(m, dtype >= 0 ? (sdb_dtype)dtype : SDB_F32, device, sizes, 2, rg, out, err);
}

/* arange(end) / arange(start, end, step=1): int64 for ints, float32 when
** any is a float; length ceil((end - start) / step) as a FloorDiv. */
static int m_arange(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  int rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  const sdb_value *v[3] = {NULL, NULL, NULL};   /* start, end, step */
  if (a->npos == 1 && !ah_get(a, KW, "end")) {
    v[1] = &a->pos[0];
    v[2] = ah_get(a, KW, "step");
  } else {
    v[0] = ah_get(a, 0, "start");
    v[1] = ah_get(a, 1, "end");
    v[2] = ah_get(a, 2, "step");
  }
  if (!v[1]) return bad_arg(op, "end", 1, "number", NULL, err);
  static const char *const names[3] = {"start", "end", "step"};
  bool any_float = false;
  for (int k = 0; k < 3; k++) {
    if (!v[k] || v[k]->kind == SDB_V_NONE) { v[k] = NULL; continue; }
    if (v[k]->kind == SDB_V_FLOAT) any_float = true;
    else if (!sdb_value_is_int(v[k])) return bad_arg(op, names[k], (size_t)k, "number", v[k], err);
  }
  int dtype = -1;
  const char *device = NULL;
  bool rg = false;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype : any_float ? SDB_F32 : SDB_I64;
  const sdb_expr *len = NULL;
  if (any_float) {
    double d[3] = {0.0, 0.0, 1.0};
    for (int k = 0; k < 3; k++) {
      if (!v[k]) continue;
      int64_t iv;
      if (v[k]->kind == SDB_V_FLOAT && !v[k]->expr) d[k] = v[k]->fval;
      else if (sdb_value_is_const_int(v[k], &iv)) d[k] = (double)iv;
      else
        return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                           "arange(): a symbolic '%s' with float arguments is not supported", names[k]);
    }
    if (d[2] == 0.0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "step must be nonzero");
    if ((d[2] > 0 && d[1] < d[0]) || (d[2] < 0 && d[1] > d[0]))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "upper bound and larger bound inconsistent with step sign");
    double l = ceil((d[1] - d[0]) / d[2]);
    if (!(l >= 0 && l < 9.0e15))
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "arange(): invalid length %g", l);
    len = sdb_int((int64_t)l);
  } else {
    const sdb_expr *start = sdb_int(0), *end = NULL;
    int64_t step = 1;
    if (v[0]) start = int_expr(v[0]);
    end = int_expr(v[1]);
    if (v[2] && !sdb_value_is_const_int(v[2], &step))
      return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                         "arange(): a symbolic step is not supported");
    if (step == 0) return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "step must be nonzero");
    rc = tcheck(m, step > 0 ? sdb_ge(end, start) : sdb_le(end, start),
                strdup("upper bound and larger bound inconsistent with step sign"), err);
    if (rc) return rc;
    const sdb_expr *span = sdb_sub(end, start);
    len = sdb_floordiv(sdb_add(span, sdb_int(step > 0 ? step - 1 : step + 1)), sdb_int(step));
    if (!len) return sdb_err_expr(err);
  }
  return make_factory(m, dt, device, &len, 1, rg, out, err);
}

/* The shape of nested lists (rectangular) and the kind of their numbers. */
static int data_shape(const sdb_op *op, const sdb_value *v, int depth, const sdb_expr **shape,
                      int *n, bool *fixed, int *kind, sdb_err *err) {
  if (v->kind == SDB_V_LIST || v->kind == SDB_V_TUPLE) {
    if (depth >= MAX_DIMS) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
    if (!*fixed && depth == *n) shape[(*n)++] = sdb_int((int64_t)v->n);
    else if (depth >= *n || shape[depth]->ival != (int64_t)v->n)
      return sdb_err_set(err, SDB_E_INVALID, "ValueError",
                         "expected sequence of length %lld at dim %d (got %zu)",
                         depth < *n ? (long long)shape[depth]->ival : 0LL, depth, v->n);
    if (v->n == 0) *fixed = true;
    for (size_t k = 0; k < v->n; k++) {
      int rc = data_shape(op, &v->items[k], depth + 1, shape, n, fixed, kind, err);
      if (rc) return rc;
    }
    return SDB_OK;
  }
  if (v->kind == SDB_V_TENSOR)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "%s(): tensors inside the data are not supported", op->name);
  if (!is_number(v)) return bad_arg(op, "data", 0, "a number or a list of numbers", v, err);
  if (!*fixed) *fixed = true;
  else if (depth != *n)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "expected sequence of length %lld at dim %d (got a number)",
                       depth < *n ? (long long)shape[depth]->ival : 0LL, depth);
  int k = v->kind == SDB_V_BOOL ? 0 : v->kind == SDB_V_INT ? 1 : 2;
  if (k > *kind) *kind = k;
  return SDB_OK;
}

/* tensor(data, *, dtype=None, device=None, requires_grad=False): a number is
** 0-dim, (nested) lists give constant sizes; bool -> bool, int -> int64,
** float -> float32 (an empty list is float32). */
static int m_tensor(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  const sdb_value *d = ah_get(a, 0, "data");
  if (!d) return bad_arg(op, "data", 0, "a number or a list of numbers", NULL, err);
  int rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0, kind = -1, dtype = -1;
  bool fixed = false, rg = false;
  const char *device = NULL;
  if ((rc = data_shape(op, d, 0, shape, &n, &fixed, &kind, err))) return rc;
  if ((rc = factory_kw(op, a, &dtype, &device, &rg, err))) return rc;
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype
               : kind == 0 ? SDB_BOOL : kind == 1 ? SDB_I64 : SDB_F32;
  return make_factory(m, dt, device, shape, n, rg, out, err);
}

/* ------------------------------------------------------------------------
** Data-dependent ops (fake_impls.py)
** ---------------------------------------------------------------------- */

static int emit_memo_hit(sdb_fake_mode *m, const sdb_expr *sym, const char *what) {
  sdb_event e = {0};
  e.kind = SDB_EV_MEMO_HIT;
  e.sym = sym;
  e.text = what;
  sdb_emit(sdb_shape_env_events(m->env), &e);
  return 0;
}

/* The upper bound of numel for a data-dependent size: exact when static,
** the bound of the product otherwise (int_oo when unbounded, where PyTorch
** says sys.maxsize - 1). */
static int64_t numel_upper(sdb_fake_mode *m, const sdb_expr *numel) {
  if (numel->kind == SDB_INT) return numel->ival;
  return sdb_bound_in(m->env, numel).hi;
}

/* nonzero's size: u in [0, numel], size-like, memoized per epoch and
** version; 0 without a symbol when numel is statically 0. */
static int nonzero_nnz(sdb_fake_mode *m, sdb_fake *x, const sdb_expr **out, sdb_err *err) {
  const sdb_expr *nnz = sdb_memo_get(x, &x->nonzero_memo);
  if (nnz) {
    emit_memo_hit(m, nnz, "nonzero");
  } else {
    const sdb_expr *numel = sdb_fake_numel(x);
    if (!numel) return sdb_err_expr(err);
    if (numel->kind == SDB_INT && numel->ival == 0) nnz = sdb_int(0);
    else nnz = sdb_create_unbacked_size(m->env, 0, numel_upper(m, numel));
    if (!nnz) return oom(err);
    sdb_memo_set(x, &x->nonzero_memo, nnz);
  }
  *out = nnz;
  return SDB_OK;
}

/* nonzero: i64[u0, ndim] with strides (1, u0) */
static int m_nonzero(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                     sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "as_tuple", "use unbind(1) on the result", err))) return rc;
  const sdb_expr *nnz = NULL;
  if ((rc = nonzero_nnz(m, x, &nnz, err))) return rc;
  const sdb_expr *sizes[2] = {nnz, sdb_int(x->ndim)};
  const sdb_expr *strides[2] = {sdb_int(1), nnz};
  sdb_fake *r = sdb_fake_new_strided(m, SDB_I64, x->device, sizes, strides, 2, sdb_int(0), NULL);
  if (!r) return oom(err);
  return give(out, r);
}

/* item: an unbacked int / float / bool by dtype, memoized per epoch */
static int m_item(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                  sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *numel = sdb_fake_numel(x);
  if (numel && numel->kind == SDB_INT && numel->ival != 1)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "a Tensor with %lld elements cannot be converted to Scalar",
                       (long long)numel->ival);
  const sdb_expr *r = sdb_memo_get(x, &x->item_memo);
  if (r) {
    emit_memo_hit(m, r->kind == SDB_EQ ? r->args[0] : r, "item");
  } else {
    if (sdb_dtype_is_floating(x->dtype)) r = sdb_create_unbacked_symfloat(m->env);
    else if (x->dtype == SDB_BOOL) r = sdb_create_unbacked_symbool(m->env);
    else r = sdb_create_unbacked_symint(m->env);
    if (!r) return oom(err);
    sdb_memo_set(x, &x->item_memo, r);
  }
  if (sdb_dtype_is_floating(x->dtype)) *out = sdb_value_symfloat(r);
  else if (x->dtype == SDB_BOOL) *out = sdb_value_bool(r);
  else *out = sdb_value_int(r);
  return SDB_OK;
}

/* masked_select(self, mask): 1-D of a fresh size, no memo; the range is
** [0, numel] only when numel > 2 (PyTorch's quirk: otherwise unbounded). */
static int m_masked_select(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                           sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "mask", &mask, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  if (mask->dtype != SDB_BOOL)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "masked_select: expected BoolTensor for mask");
  const sdb_expr *numel = sdb_fake_numel(x);
  if (!numel) return sdb_err_expr(err);
  int64_t num = numel_upper(m, numel);
  const sdb_expr *nnz = sdb_create_unbacked_size(m->env, 0, num > 2 ? num : SDB_PINF);
  if (!nnz) return oom(err);
  return out_new(m, x->dtype, x->device, &nnz, 1, x->requires_grad, out, err);
}

/* _unique: values of a fresh size (memoized on self when dim is None and
** not consecutive: there is no unique_consecutive memo slot), inverse and
** counts when asked. */
static int unique_common(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                         sdb_err *err, bool consecutive) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool sorted = true, inv = false, counts = false;
  size_t base = consecutive ? 1 : 2;
  if (!consecutive && (rc = ah_bool(op, a, 1, "sorted", true, &sorted, err))) return rc;
  if ((rc = ah_bool(op, a, base, "return_inverse", false, &inv, err))) return rc;
  if ((rc = ah_bool(op, a, base + 1, "return_counts", false, &counts, err))) return rc;
  if ((rc = ah_max_pos(op, a, base + 3, err))) return rc;
  const sdb_value *dv = ah_get(a, base + 2, "dim");
  bool has_dim = dv && dv->kind != SDB_V_NONE;
  int64_t dim = 0;
  if (has_dim && (rc = ah_dim(op, a, base + 2, "dim", x->ndim, 0, true, &dim, err))) return rc;
  /* no symbol when the whole tensor is statically empty; the bound is the
  ** numel (or the size along dim) when static, else unbounded */
  const sdb_expr *total = sdb_fake_numel(x);
  const sdb_expr *numel = has_dim ? (x->ndim ? x->sizes[dim] : sdb_int(1)) : total;
  if (!numel || !total) return sdb_err_expr(err);
  bool memo = !has_dim && !consecutive;
  const sdb_expr *nnz = memo ? sdb_memo_get(x, &x->unique_memo) : NULL;
  if (nnz) {
    emit_memo_hit(m, nnz, "unique");
  } else {
    if (total->kind == SDB_INT && total->ival == 0) nnz = sdb_int(0);
    else nnz = sdb_create_unbacked_size(m->env, 0, numel->kind == SDB_INT ? numel->ival : SDB_PINF);
    if (!nnz) return oom(err);
    if (memo) sdb_memo_set(x, &x->unique_memo, nnz);
  }
  sdb_value vals = SDB_VALUE_NONE, iv = SDB_VALUE_NONE, cv = SDB_VALUE_NONE;
  if (!has_dim) {
    rc = out_new(m, x->dtype, x->device, &nnz, 1, false, &vals, err);
  } else {
    const sdb_expr *shape[MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
    if (x->ndim) shape[dim] = nnz;
    rc = out_new(m, x->dtype, x->device, shape, x->ndim, false, &vals, err);
  }
  /* inverse and counts are arg.new_empty(...) in fake_impls: self's dtype
  ** (eager gives int64; the fake tensors PyTorch traces with do not) */
  if (!rc && inv) {
    if (has_dim) rc = out_new(m, x->dtype, x->device, &numel, 1, false, &iv, err);
    else rc = out_new(m, x->dtype, x->device, x->sizes, x->ndim, false, &iv, err);
  }
  if (!rc && counts) rc = out_new(m, x->dtype, x->device, &nnz, 1, false, &cv, err);
  if (rc) {
    sdb_value_free(&vals);
    sdb_value_free(&iv);
    sdb_value_free(&cv);
    return rc;
  }
  (void)sorted;
  if (!inv && !counts) {
    *out = vals;
    return SDB_OK;
  }
  sdb_value t = sdb_value_seq(SDB_V_TUPLE, 1 + (size_t)inv + (size_t)counts);
  if (t.kind != SDB_V_TUPLE) {
    sdb_value_free(&vals);
    sdb_value_free(&iv);
    sdb_value_free(&cv);
    return oom(err);
  }
  size_t k = 0;
  t.items[k++] = vals;
  if (inv) t.items[k++] = iv;
  if (counts) t.items[k++] = cv;
  *out = t;
  return SDB_OK;
}

static int m_unique(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unique_common(m, op, a, out, err, false);
}
static int m_unique_consecutive(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                                sdb_err *err) {
  return unique_common(m, op, a, out, err, true);
}

/* repeat_interleave(repeats) (repeats a 1-D int tensor) -> [u], u fresh,
** size-like in [0, int_oo], no memo; self.repeat_interleave(repeats, dim=None)
** with an int (sizes multiply) or a tensor (the dim becomes a fresh u). */
static int m_repeat_interleave(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                               sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *rv = ah_get(a, 1, "repeats");
  const sdb_value *osz = ah_get(a, KW, "output_size");
  if (osz && osz->kind != SDB_V_NONE && !sdb_value_is_int(osz)) return bad_arg(op, "output_size", KW, "int", osz, err);
  const sdb_expr *given = osz && osz->kind != SDB_V_NONE ? int_expr(osz) : NULL;
  if (!rv || rv->kind == SDB_V_NONE) {                 /* torch.repeat_interleave(repeats) */
    if (x->ndim != 1 || !sdb_dtype_is_integral(x->dtype) || x->dtype == SDB_BOOL)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "repeat_interleave only accept 1D vector as repeat");
    const sdb_expr *u = given ? given : sdb_create_unbacked_size(m->env, 0, SDB_PINF);
    if (!u) return oom(err);
    return out_new(m, x->dtype, x->device, &u, 1, false, out, err);
  }
  const sdb_value *dv = ah_get(a, 2, "dim");
  bool has_dim = dv && dv->kind != SDB_V_NONE;
  int64_t dim = 0;
  if (has_dim && (rc = ah_dim(op, a, 2, "dim", x->ndim, 0, true, &dim, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  const sdb_expr *size;
  if (has_dim && x->ndim) {
    for (int i = 0; i < x->ndim; i++) shape[i] = x->sizes[i];
    n = x->ndim;
    size = x->sizes[dim];
  } else {
    size = sdb_fake_numel(x);
    n = 1;
    dim = 0;
    if (!size) return sdb_err_expr(err);
  }
  if (rv->kind == SDB_V_TENSOR) {
    sdb_fake *r = rv->tensor;
    if (r->ndim > 1 || !sdb_dtype_is_integral(r->dtype) || r->dtype == SDB_BOOL)
      return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                         "repeat_interleave only accept 1D vector as repeat");
    const sdb_expr *rn = sdb_fake_numel(r);
    if (!rn) return sdb_err_expr(err);
    if (!known_true(m->env, sdb_eq(rn, sdb_int(1)))) {
      rc = tcheck(m, sdb_eq(rn, size),
                  msgf(m->env, "repeats must have the same size as input along dim, but got repeats.size(0) "
                               "= {e} and input.size({d}) = {e}", rn, dim, size), err);
      if (rc) return rc;
    }
    shape[dim] = given ? given : sdb_create_unbacked_size(m->env, 0, SDB_PINF);
    if (!shape[dim]) return oom(err);
  } else if (sdb_value_is_int(rv)) {
    rc = tcheck(m, sdb_ge(int_expr(rv), sdb_int(0)), strdup("repeats can not be negative"), err);
    if (rc) return rc;
    shape[dim] = sdb_mul(size, int_expr(rv));
    if (!shape[dim]) return sdb_err_expr(err);
  } else {
    return bad_arg(op, "repeats", 1, "Tensor or int", rv, err);
  }
  return out_new(m, x->dtype, x->device, shape, n, x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** In-place ops: they mutate self's metadata or data, always bump the
** version counter (invalidating memos) and return self itself.
** ---------------------------------------------------------------------- */

static int inplace_done(sdb_fake *x, sdb_value *out) {
  sdb_fake_bump_version(x);
  *out = sdb_value_tensor(x);
  return SDB_OK;
}

/* New metadata in place (bumps the version once). */
static int inplace_meta(sdb_fake *x, const vmeta *r, sdb_value *out, sdb_err *err) {
  if (sdb_fake_set_metadata(x, r->sizes, r->strides, r->n, r->offset)) return oom(err);
  *out = sdb_value_tensor(x);
  return SDB_OK;
}

/* The result of an in-place elementwise op must keep self's shape and fit
** self's dtype. */
static int inplace_result(sdb_fake_mode *m, sdb_fake *x, const bin_res *r, sdb_err *err) {
  int rc = same_shape(m, x->sizes, x->ndim, r->shape, r->n,
                      "output with shape {s} doesn't match the broadcast shape {s}", err);
  if (rc) return rc;
  if (!can_cast(r->dt, x->dtype)) return cast_error(r->dt, x->dtype, err);
  if (r->rg && sdb_dtype_is_floating(x->dtype)) x->requires_grad = true;
  return SDB_OK;
}

static int binary_inplace(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                          sdb_err *err, bin_kind kind) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 3, err))) return rc;
  const sdb_value *alpha = ah_get(a, 2, "alpha");
  if (alpha && alpha->kind != SDB_V_NONE && !is_number(alpha)) return bad_arg(op, "alpha", 2, "number", alpha, err);
  bin_res r;
  if ((rc = binary_meta(m, op, ah_get(a, 0, "self"), ah_get(a, 1, "other"), kind, &r, err))) return rc;
  if ((rc = inplace_result(m, x, &r, err))) return rc;
  return inplace_done(x, out);
}

static int m_arith_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary_inplace(m, op, a, out, err, BIN_ARITH);
}
static int m_div_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_kind kind = BIN_DIV;
  int rc = rounding_mode(op, a, &kind, err);
  if (rc) return rc;
  return binary_inplace(m, op, a, out, err, kind);
}

/* fill_(value) */
static int m_fill_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  const sdb_value *v = ah_get(a, 1, "value");
  if (!v) return bad_arg(op, "value", 1, "number", NULL, err);
  if (v->kind == SDB_V_TENSOR && v->tensor->ndim != 0)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.",
                       v->tensor->ndim);
  if (v->kind != SDB_V_TENSOR && !is_number(v)) return bad_arg(op, "value", 1, "number", v, err);
  return inplace_done(x, out);
}

/* zero_(), relu_() */
static int m_plain_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  return inplace_done(x, out);
}

/* normal_(mean=0, std=1), uniform_(from=0, to=1): floating only */
static int m_random_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  for (size_t i = 1; i < a->npos; i++)
    if (!is_number(&a->pos[i])) return bad_arg(op, i == 1 ? "mean" : "std", i, "number", &a->pos[i], err);
  if (!sdb_dtype_is_floating(x->dtype))
    return not_implemented_for(op->name[0] == 'n' ? "normal_kernel_cpu" : "check_uniform_bounds", x->dtype, err);
  return inplace_done(x, out);
}

/* copy_(src, non_blocking=False): src broadcasts to self (expand_copy) */
static int m_copy_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *src = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "src", &src, err);
  if (!rc) rc = ah_max_pos(op, a, 3, err);
  if (rc) return rc;
  vmeta e;
  if ((rc = expand_meta(m, op, src, x->sizes, x->ndim, &e, err))) return rc;
  if (src->requires_grad && sdb_dtype_is_floating(x->dtype)) x->requires_grad = true;
  return inplace_done(x, out);
}

/* clamp_(min=None, max=None) */
static int m_clamp_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_res r;
  int rc = clamp_meta(m, op, a, &r, err);
  if (rc) return rc;
  if ((rc = inplace_result(m, r.self, &r, err))) return rc;
  return inplace_done(r.self, out);
}

static int m_unsqueeze_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_const_int(op, a, 1, "dim", 0, true, &dim, err);
  if (!rc) rc = ah_max_pos(op, a, 2, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = unsqueeze_meta(op, x, dim, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

static int m_squeeze_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = squeeze_meta(m, op, a, x, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

static int m_transpose_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int64_t d0 = 0, d1 = 0;
  int rc = transpose_args(op, a, &x, &d0, &d1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = transpose_meta(op, x, d0, d1, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

static int m_t_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  (void)m;
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_max_pos(op, a, 1, err);
  if (rc) return rc;
  vmeta r;
  if ((rc = t_meta(op, x, &r, err))) return rc;
  return inplace_meta(x, &r, out, err);
}

/* resize_(*sizes): contiguous strides; the storage grows (to a Max when it
** cannot be decided statically, never by guarding) */
static int m_resize_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, KW, "memory_format", NULL, err))) return rc;
  vmeta r;
  if ((rc = ah_sizes(op, a, 1, "size", r.sizes, MAX_DIMS, &r.n, err))) return rc;
  if ((rc = check_sizes(m, r.sizes, r.n, err))) return rc;
  if (sdb_contiguous_strides(r.sizes, r.n, r.strides)) return sdb_err_expr(err);
  r.offset = x->storage_offset;
  const sdb_expr *need = sdb_add(x->storage_offset, prod_of(r.sizes, r.n));
  if (!need) return sdb_err_expr(err);
  if (!known_true(m->env, sdb_le(need, x->storage->nelems))) {
    const sdb_expr *grown = smax(m->env, x->storage->nelems, need);
    if (!grown) return sdb_err_expr(err);
    x->storage->nelems = shown(m->env, grown);
  }
  return inplace_meta(x, &r, out, err);
}

/* masked_fill_(mask, value): mask broadcasts to self */
static int m_masked_fill_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = mask_value_check(m, op, a, &x, &mask, err);
  if (rc) return rc;
  if ((rc = inplace_broadcast(m, x->sizes, x->ndim, mask->sizes, mask->ndim, err))) return rc;
  return inplace_done(x, out);
}

/* The checks of index_add(_)/index_copy(_)(dim, index, source); *self. */
static int index_put_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_fake **self,
                          sdb_err *err) {
  sdb_fake *x = NULL, *idx = NULL, *src = NULL;
  int64_t dim = 0;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 2, "index", &idx, err);
  if (!rc) rc = ah_tensor(op, a, 3, "source", &src, err);
  if (!rc) rc = ah_max_pos(op, a, 4, err);
  if (!rc) rc = ah_dim(op, a, 1, "dim", x->ndim, 0, true, &dim, err);
  if (rc) return rc;
  if (idx->ndim > 1)
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError", "%s(): Index is supposed to be a vector", op->name);
  if (!is_index_dtype(idx->dtype))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "%s(): Expected dtype int32/int64 for index", op->name);
  if (src->ndim != x->ndim && !(x->ndim <= 1 && src->ndim <= 1))
    return sdb_err_set(err, SDB_E_SHAPE, "IndexError",
                       "%s(): Source/destination tensor must have same slice shapes.", op->name);
  if (x->ndim && src->ndim) {
    const sdb_expr *n = sdb_fake_numel(idx);
    rc = tcheck(m, sdb_eq(n, src->sizes[dim]),
                msgf(m->env, "{t}(): Number of indices ({e}) should be equal to source.size(dim) ({e})",
                     op->name, n, src->sizes[dim]), err);
    if (rc) return rc;
  }
  if (!can_cast(src->dtype, x->dtype) && src->dtype != x->dtype)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                       "%s(): self (%s) and source (%s) must have the same scalar type", op->name,
                       scalar_name(x->dtype), scalar_name(src->dtype));
  const sdb_value *alpha = ah_get(a, KW, "alpha");
  if (alpha && alpha->kind != SDB_V_NONE && !is_number(alpha)) return bad_arg(op, "alpha", KW, "number", alpha, err);
  *self = x;
  return SDB_OK;
}

static int m_index_put_like_(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                             sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = index_put_like(m, op, a, &x, err);
  if (rc) return rc;
  return inplace_done(x, out);
}

/* index_add / index_copy: the functional forms, self's shape */
static int m_index_put_like(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                            sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = index_put_like(m, op, a, &x, err);
  if (rc) return rc;
  bool rg = x->requires_grad || ah_get(a, 3, "source")->tensor->requires_grad;
  return out_like(m, x, x->dtype, NULL, rg, out, err);
}

/* ------------------------------------------------------------------------
** The table
** ---------------------------------------------------------------------- */

#define F_ONLY SDB_OP_FUNCTION_ONLY
#define M_ONLY SDB_OP_METHOD_ONLY
#define INPL (SDB_OP_INPLACE | SDB_OP_METHOD_ONLY)
#define FACT (SDB_OP_FACTORY | SDB_OP_FUNCTION_ONLY)
#define DD SDB_OP_DATA_DEPENDENT

static const sdb_op op_table[] = {
  /* elementwise binary */
  {"add", "aten.add.Tensor", m_arith, 0, "add(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"sub", "aten.sub.Tensor", m_arith, 0, "sub(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"mul", "aten.mul.Tensor", m_arith, 0, "mul(Tensor self, Tensor|Number other) -> Tensor"},
  {"div", "aten.div.Tensor", m_div, 0, "div(Tensor self, Tensor|Number other, *, str? rounding_mode=None) -> Tensor"},
  {"true_divide", "aten.div.Tensor", m_div, 0, "true_divide(Tensor self, Tensor|Number other) -> Tensor"},
  {"floor_divide", "aten.floor_divide.default", m_arith, 0, "floor_divide(Tensor self, Tensor|Number other) -> Tensor"},
  {"remainder", "aten.remainder.Tensor", m_arith, 0, "remainder(Tensor self, Tensor|Number other) -> Tensor"},
  {"pow", "aten.pow.Tensor_Tensor", m_arith, 0, "pow(Tensor self, Tensor|Number other) -> Tensor"},
  {"maximum", "aten.maximum.default", m_tensors, 0, "maximum(Tensor self, Tensor other) -> Tensor"},
  {"minimum", "aten.minimum.default", m_tensors, 0, "minimum(Tensor self, Tensor other) -> Tensor"},
  {"gt", "aten.gt.Tensor", m_compare, 0, "gt(Tensor self, Tensor|Number other) -> Tensor"},
  {"ge", "aten.ge.Tensor", m_compare, 0, "ge(Tensor self, Tensor|Number other) -> Tensor"},
  {"lt", "aten.lt.Tensor", m_compare, 0, "lt(Tensor self, Tensor|Number other) -> Tensor"},
  {"le", "aten.le.Tensor", m_compare, 0, "le(Tensor self, Tensor|Number other) -> Tensor"},
  {"eq", "aten.eq.Tensor", m_compare, 0, "eq(Tensor self, Tensor|Number other) -> Tensor"},
  {"ne", "aten.ne.Tensor", m_compare, 0, "ne(Tensor self, Tensor|Number other) -> Tensor"},
  {"logical_and", "aten.logical_and.default", m_compare, 0, "logical_and(Tensor self, Tensor|Number other) -> Tensor"},
  {"logical_or", "aten.logical_or.default", m_compare, 0, "logical_or(Tensor self, Tensor|Number other) -> Tensor"},
  {"bitwise_and", "aten.bitwise_and.Tensor", m_bitwise, 0, "bitwise_and(Tensor self, Tensor|Number other) -> Tensor"},
  {"where", "aten.where.self", m_where, 0, "where(Tensor condition, Tensor|Number self, Tensor|Number other) -> Tensor"},
  {"masked_fill", "aten.masked_fill.Scalar", m_masked_fill, 0,
   "masked_fill(Tensor self, Tensor mask, Tensor|Number value) -> Tensor"},
  /* elementwise unary */
  {"sin", "aten.sin.default", m_un_float, 0, "sin(Tensor self) -> Tensor"},
  {"cos", "aten.cos.default", m_un_float, 0, "cos(Tensor self) -> Tensor"},
  {"tan", "aten.tan.default", m_un_float, 0, "tan(Tensor self) -> Tensor"},
  {"exp", "aten.exp.default", m_un_float, 0, "exp(Tensor self) -> Tensor"},
  {"log", "aten.log.default", m_un_float, 0, "log(Tensor self) -> Tensor"},
  {"sqrt", "aten.sqrt.default", m_un_float, 0, "sqrt(Tensor self) -> Tensor"},
  {"rsqrt", "aten.rsqrt.default", m_un_float, 0, "rsqrt(Tensor self) -> Tensor"},
  {"tanh", "aten.tanh.default", m_un_float, 0, "tanh(Tensor self) -> Tensor"},
  {"sigmoid", "aten.sigmoid.default", m_un_float, 0, "sigmoid(Tensor self) -> Tensor"},
  {"neg", "aten.neg.default", m_un_same, 0, "neg(Tensor self) -> Tensor"},
  {"abs", "aten.abs.default", m_un_same, 0, "abs(Tensor self) -> Tensor"},
  {"relu", "aten.relu.default", m_un_same, 0, "relu(Tensor self) -> Tensor"},
  {"floor", "aten.floor.default", m_un_same, 0, "floor(Tensor self) -> Tensor"},
  {"ceil", "aten.ceil.default", m_un_same, 0, "ceil(Tensor self) -> Tensor"},
  {"round", "aten.round.default", m_un_same, 0, "round(Tensor self) -> Tensor"},
  {"sign", "aten.sign.default", m_un_same, 0, "sign(Tensor self) -> Tensor"},
  {"logical_not", "aten.logical_not.default", m_un_bool, 0, "logical_not(Tensor self) -> Tensor"},
  {"bitwise_not", "aten.bitwise_not.default", m_un_integral, 0, "bitwise_not(Tensor self) -> Tensor"},
  {"clamp", "aten.clamp.default", m_clamp, 0, "clamp(Tensor self, Number|Tensor? min=None, Number|Tensor? max=None) -> Tensor"},
  {"gelu", "aten.gelu.default", m_gelu, F_ONLY, "gelu(Tensor self, *, str approximate='none') -> Tensor"},
  {"silu", "aten.silu.default", m_silu, F_ONLY, "silu(Tensor self, bool inplace=False) -> Tensor"},
  {"softmax", "aten._softmax.default", m_softmax, 0, "softmax(Tensor self, int dim, *, dtype=None) -> Tensor"},
  {"log_softmax", "aten._log_softmax.default", m_softmax, 0, "log_softmax(Tensor self, int dim, *, dtype=None) -> Tensor"},
  {"dropout", "aten.dropout.default", m_dropout, F_ONLY, "dropout(Tensor self, float p=0.5, bool train=True, *, bool training=True, bool inplace=False) -> Tensor"},
  /* dtype conversions */
  {"to", "aten._to_copy.default", m_to, M_ONLY,
   "to(Tensor self, dtype|str device|Tensor other, bool non_blocking=False, bool copy=False, *, dtype=None, device=None) -> Tensor"},
  {"long", "aten._to_copy.default", m_to_named, M_ONLY, "long(Tensor self) -> Tensor"},
  {"float", "aten._to_copy.default", m_to_named, M_ONLY, "float(Tensor self) -> Tensor"},
  {"bool", "aten._to_copy.default", m_to_named, M_ONLY, "bool(Tensor self) -> Tensor"},
  {"int", "aten._to_copy.default", m_to_named, M_ONLY, "int(Tensor self) -> Tensor"},
  {"double", "aten._to_copy.default", m_to_named, M_ONLY, "double(Tensor self) -> Tensor"},
  {"half", "aten._to_copy.default", m_to_named, M_ONLY, "half(Tensor self) -> Tensor"},
  {"type_as", "aten._to_copy.default", m_type_as, M_ONLY, "type_as(Tensor self, Tensor other) -> Tensor"},
  /* reductions */
  {"sum", "aten.sum.dim_IntList", m_sum, 0,
   "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"mean", "aten.mean.dim", m_mean, 0,
   "mean(Tensor self, int[]? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"amax", "aten.amax.default", m_red_same, 0, "amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor"},
  {"amin", "aten.amin.default", m_red_same, 0, "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor"},
  {"max", "aten.max.dim", m_maxmin, 0,
   "max(Tensor self, int? dim=None|Tensor other, bool keepdim=False) -> Tensor | (Tensor values, Tensor indices)"},
  {"min", "aten.min.dim", m_maxmin, 0,
   "min(Tensor self, int? dim=None|Tensor other, bool keepdim=False) -> Tensor | (Tensor values, Tensor indices)"},
  {"argmax", "aten.argmax.default", m_argmaxmin, 0, "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"},
  {"argmin", "aten.argmin.default", m_argmaxmin, 0, "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"},
  {"prod", "aten.prod.dim_int", m_prod, 0, "prod(Tensor self, int? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
  {"any", "aten.any.dims", m_red_bool, 0, "any(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"},
  {"all", "aten.all.dims", m_red_bool, 0, "all(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"},
  {"std", "aten.std.correction", m_stdvar, 0,
   "std(Tensor self, int[]? dim=None, bool unbiased=True, bool keepdim=False, *, correction=None) -> Tensor"},
  {"var", "aten.var.correction", m_stdvar, 0,
   "var(Tensor self, int[]? dim=None, bool unbiased=True, bool keepdim=False, *, correction=None) -> Tensor"},
  {"norm", "aten.linalg_vector_norm.default", m_norm, 0,
   "norm(Tensor self, Number p=2, int[]? dim=None, bool keepdim=False, dtype=None) -> Tensor"},
  /* views and shape ops */
  {"view", "aten.view.default", m_view, SDB_OP_VIEW | M_ONLY, "view(Tensor self, int... shape|int[] size) -> Tensor"},
  {"reshape", "aten.view.default", m_reshape, SDB_OP_VIEW, "reshape(Tensor self, int... shape|int[] size) -> Tensor (a view when possible)"},
  {"view_as", "aten.view.default", m_view_as, SDB_OP_VIEW | M_ONLY, "view_as(Tensor self, Tensor other) -> Tensor"},
  {"reshape_as", "aten.view.default", m_reshape_as, SDB_OP_VIEW | M_ONLY, "reshape_as(Tensor self, Tensor other) -> Tensor"},
  {"flatten", "aten.view.default", m_flatten, SDB_OP_VIEW, "flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor"},
  {"unflatten", "aten.view.default", m_unflatten, SDB_OP_VIEW, "unflatten(Tensor self, int dim, int[] sizes) -> Tensor"},
  {"unsqueeze", "aten.unsqueeze.default", m_unsqueeze, SDB_OP_VIEW, "unsqueeze(Tensor self, int dim) -> Tensor"},
  {"squeeze", "aten.squeeze.dims", m_squeeze, SDB_OP_VIEW, "squeeze(Tensor self, int[]? dim=None) -> Tensor"},
  {"permute", "aten.permute.default", m_permute, SDB_OP_VIEW, "permute(Tensor self, int... dims) -> Tensor"},
  {"transpose", "aten.transpose.int", m_transpose, SDB_OP_VIEW, "transpose(Tensor self, int dim0, int dim1) -> Tensor"},
  {"t", "aten.t.default", m_t, SDB_OP_VIEW, "t(Tensor self) -> Tensor"},
  {"movedim", "aten.permute.default", m_movedim, SDB_OP_VIEW, "movedim(Tensor self, int|int[] source, int|int[] destination) -> Tensor"},
  {"expand", "aten.expand.default", m_expand, SDB_OP_VIEW | M_ONLY, "expand(Tensor self, int... size, *, bool implicit=False) -> Tensor"},
  {"expand_as", "aten.expand.default", m_expand_as, SDB_OP_VIEW | M_ONLY, "expand_as(Tensor self, Tensor other) -> Tensor"},
  {"as_strided", "aten.as_strided.default", m_as_strided, SDB_OP_VIEW,
   "as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) -> Tensor"},
  {"contiguous", "aten.clone.default", m_contiguous, M_ONLY, "contiguous(Tensor self, memory_format=torch.contiguous_format) -> Tensor (self when contiguous)"},
  {"flip", "aten.flip.default", m_flip, 0, "flip(Tensor self, int[] dims) -> Tensor"},
  {"roll", "aten.roll.default", m_roll, 0, "roll(Tensor self, int|int[] shifts, int|int[]? dims=None) -> Tensor"},
  /* matrix products */
  {"mm", "aten.mm.default", m_mm, 0, "mm(Tensor self, Tensor mat2) -> Tensor"},
  {"bmm", "aten.bmm.default", m_bmm, 0, "bmm(Tensor self, Tensor mat2) -> Tensor"},
  {"matmul", "aten.matmul.default", m_matmul, 0, "matmul(Tensor self, Tensor other) -> Tensor"},
  {"linear", "aten.linear.default", m_linear, F_ONLY, "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"},
  {"addmm", "aten.addmm.default", m_addmm, 0, "addmm(Tensor self, Tensor mat1, Tensor mat2, *, beta=1, alpha=1) -> Tensor"},
  /* joining, splitting, indexing */
  {"cat", "aten.cat.default", m_cat, F_ONLY, "cat(Tensor[] tensors, int dim=0) -> Tensor"},
  {"stack", "aten.stack.default", m_stack, F_ONLY, "stack(Tensor[] tensors, int dim=0) -> Tensor"},
  {"split", "aten.split.Tensor", m_split, SDB_OP_VIEW,
   "split(Tensor self, int|int[] split_size_or_sections|int split_size, int dim=0) -> Tensor[] (views)"},
  {"chunk", "aten.split.Tensor", m_chunk, SDB_OP_VIEW, "chunk(Tensor self, int chunks, int dim=0) -> Tensor[] (views)"},
  {"unbind", "aten.unbind.int", m_unbind, SDB_OP_VIEW, "unbind(Tensor self, int dim=0) -> Tensor[] (views)"},
  {"index_add", "aten.index_add.default", m_index_put_like, 0,
   "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Number alpha=1) -> Tensor"},
  {"index_copy", "aten.index_copy.default", m_index_put_like, 0,
   "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"},
  {"index_select", "aten.index_select.default", m_index_select, 0,
   "index_select(Tensor self, int dim, Tensor index) -> Tensor"},
  {"gather", "aten.gather.default", m_gather, 0, "gather(Tensor self, int dim, Tensor index) -> Tensor"},
  {"scatter", "aten.scatter.src", m_scatter, 0, "scatter(Tensor self, int dim, Tensor index, Tensor src|Number value, *, str? reduce=None) -> Tensor"},
  {"narrow", "aten.narrow.default", m_narrow, SDB_OP_VIEW, "narrow(Tensor self, int dim, int start, int length) -> Tensor"},
  {"select", "aten.select.int", m_select, SDB_OP_VIEW, "select(Tensor self, int dim, int index) -> Tensor"},
  {"slice", "aten.slice.Tensor", m_slice, SDB_OP_VIEW,
   "slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor"},
  {"index", "aten.index.Tensor", m_index, M_ONLY, "index(Tensor self, Tensor?[] indices) -> Tensor"},
  {"clone", "aten.clone.default", m_clone, 0, "clone(Tensor self, *, memory_format=None) -> Tensor"},
  {"detach", "aten.detach.default", m_detach, SDB_OP_VIEW, "detach(Tensor self) -> Tensor"},
  {"repeat", "aten.repeat.default", m_repeat, M_ONLY, "repeat(Tensor self, int... repeats) -> Tensor"},
  {"tile", "aten.repeat.default", m_tile, 0, "tile(Tensor self, int... dims) -> Tensor"},
  /* factories */
  {"arange", "aten.arange.start_step", m_arange, FACT,
   "arange(Number start=0, Number end, Number step=1, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"tensor", "aten.lift_fresh_copy.default", m_tensor, FACT, "tensor(Number|list data, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"zeros", "aten.zeros.default", m_factory, FACT, "zeros(int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"ones", "aten.ones.default", m_factory, FACT, "ones(int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"empty", "aten.empty.memory_format", m_factory, FACT, "empty(int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"randn", "aten.randn.default", m_factory, FACT, "randn(int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"rand", "aten.rand.default", m_factory, FACT, "rand(int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"full", "aten.full.default", m_full, FACT, "full(int[] size, Number fill_value, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"randint", "aten.randint.low", m_randint, FACT,
   "randint(int low=0, int high, int[] size, *, dtype=int64, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"eye", "aten.eye.default", m_eye, FACT, "eye(int n, int? m=None, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"zeros_like", "aten.zeros_like.default", m_like, FACT, "zeros_like(Tensor self, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"ones_like", "aten.ones_like.default", m_like, FACT, "ones_like(Tensor self, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"empty_like", "aten.empty_like.default", m_like, FACT, "empty_like(Tensor self, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"full_like", "aten.full_like.default", m_like, FACT,
   "full_like(Tensor self, Number fill_value, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"rand_like", "aten.rand_like.default", m_like, FACT, "rand_like(Tensor self, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"randn_like", "aten.randn_like.default", m_like, FACT, "randn_like(Tensor self, *, dtype=None, device=None, layout=None, bool requires_grad=False, memory_format=None) -> Tensor"},
  {"new_empty", "aten.new_empty.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_empty(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"new_zeros", "aten.new_zeros.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_zeros(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"new_ones", "aten.new_ones.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_ones(Tensor self, int... size, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  {"new_full", "aten.new_full.default", m_new, SDB_OP_FACTORY | M_ONLY,
   "new_full(Tensor self, int[] size, Number fill_value, *, dtype=None, device=None, layout=None, bool requires_grad=False) -> Tensor"},
  /* data-dependent */
  {"nonzero", "aten.nonzero.default", m_nonzero, DD, "nonzero(Tensor self, *, bool as_tuple=False) -> Tensor"},
  {"item", "aten._local_scalar_dense.default", m_item, DD | M_ONLY, "item(Tensor self) -> Scalar"},
  {"masked_select", "aten.masked_select.default", m_masked_select, DD,
   "masked_select(Tensor self, Tensor mask) -> Tensor"},
  {"unique", "aten._unique2.default", m_unique, DD,
   "unique(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None) -> Tensor | tuple"},
  {"unique_consecutive", "aten.unique_consecutive.default", m_unique_consecutive, DD,
   "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> Tensor | tuple"},
  {"repeat_interleave", "aten.repeat_interleave.Tensor", m_repeat_interleave, DD,
   "repeat_interleave(Tensor repeats | Tensor self, Tensor|int repeats, int? dim=None, *, int? output_size=None) -> Tensor"},
  /* in-place */
  {"add_", "aten.add_.Tensor", m_arith_, INPL, "add_(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"sub_", "aten.sub_.Tensor", m_arith_, INPL, "sub_(Tensor self, Tensor|Number other, *, Number alpha=1) -> Tensor"},
  {"mul_", "aten.mul_.Tensor", m_arith_, INPL, "mul_(Tensor self, Tensor|Number other) -> Tensor"},
  {"div_", "aten.div_.Tensor", m_div_, INPL, "div_(Tensor self, Tensor|Number other, *, str? rounding_mode=None) -> Tensor"},
  {"fill_", "aten.fill_.Scalar", m_fill_, INPL, "fill_(Tensor self, Number|Tensor value) -> Tensor"},
  {"zero_", "aten.zero_.default", m_plain_, INPL, "zero_(Tensor self) -> Tensor"},
  {"normal_", "aten.normal_.default", m_random_, INPL, "normal_(Tensor self, float mean=0, float std=1) -> Tensor"},
  {"uniform_", "aten.uniform_.default", m_random_, INPL, "uniform_(Tensor self, float from=0, float to=1) -> Tensor"},
  {"copy_", "aten.copy_.default", m_copy_, INPL, "copy_(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"},
  {"clamp_", "aten.clamp_.default", m_clamp_, INPL, "clamp_(Tensor self, Number? min=None, Number? max=None) -> Tensor"},
  {"relu_", "aten.relu_.default", m_plain_, INPL, "relu_(Tensor self) -> Tensor"},
  {"unsqueeze_", "aten.unsqueeze_.default", m_unsqueeze_, INPL, "unsqueeze_(Tensor self, int dim) -> Tensor"},
  {"squeeze_", "aten.squeeze_.dims", m_squeeze_, INPL, "squeeze_(Tensor self, int[]? dim=None) -> Tensor"},
  {"transpose_", "aten.transpose_.default", m_transpose_, INPL, "transpose_(Tensor self, int dim0, int dim1) -> Tensor"},
  {"t_", "aten.t_.default", m_t_, INPL, "t_(Tensor self) -> Tensor"},
  {"resize_", "aten.resize_.default", m_resize_, INPL, "resize_(Tensor self, int... size, *, memory_format=None) -> Tensor"},
  {"masked_fill_", "aten.masked_fill_.Scalar", m_masked_fill_, INPL,
   "masked_fill_(Tensor self, Tensor mask, Number|Tensor value) -> Tensor"},
  {"index_add_", "aten.index_add_.default", m_index_put_like_, INPL,
   "index_add_(Tensor self, int dim, Tensor index, Tensor source, *, Number alpha=1) -> Tensor"},
  {"index_copy_", "aten.index_copy_.default", m_index_put_like_, INPL,
   "index_copy_(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"},
};

#define NOPS (sizeof op_table / sizeof op_table[0])

const sdb_op *sdb_op_find(const char *name) {
  for (size_t i = 0; i < NOPS; i++)
    if (!strcmp(op_table[i].name, name)) return &op_table[i];
  return NULL;
}

size_t sdb_op_count(void) { return NOPS; }
const sdb_op *sdb_op_at(size_t i) { return i < NOPS ? &op_table[i] : NULL; }

/* Is `name` a parameter of the signature (before "->")? A name is a word
** after ' ', '(', '*' or '|' and before '=', ',', ')' or '|'. */
static bool sig_has_param(const char *sig, const char *name) {
  const char *arrow = strstr(sig, "->");
  size_t n = strlen(name), lim = arrow ? (size_t)(arrow - sig) : strlen(sig);
  if (n == 0) return false;
  for (const char *p = strstr(sig, name); p && (size_t)(p - sig) + n <= lim; p = strstr(p + 1, name)) {
    char before = p == sig ? '(' : p[-1], after = p[n];
    if ((before == ' ' || before == '(' || before == '*' || before == '|') &&
        (after == '=' || after == ',' || after == ')' || after == '|'))
      return true;
  }
  return false;
}

int sdb_op_call(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                sdb_value *out, sdb_err *err) {
  *out = SDB_VALUE_NONE;
  /* the signature lists the keywords an op understands: any other is an
  ** error, never silently ignored */
  for (size_t k = 0; k < a->nkw; k++)
    if (!a->kw[k].name || !sig_has_param(op->signature, a->kw[k].name))
      return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() got an unexpected keyword argument '%s'",
                         op->name, a->kw[k].name ? a->kw[k].name : "?");
  sdb_events *ev = m && m->env ? sdb_shape_env_events(m->env) : NULL;
  sdb_events_push_op(ev, op->name);
  int rc = op->meta(m, op, a, out, err);
  sdb_events_pop_op(ev);
  if (rc) sdb_value_free(out);
  return rc;
}

int sdb_op_call_name(sdb_fake_mode *m, const char *name, const sdb_args *a,
                     sdb_value *out, sdb_err *err) {
  const sdb_op *op = sdb_op_find(name);
  if (!op) {
    *out = SDB_VALUE_NONE;
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError", "unsupported operator: %s", name);
  }
  return sdb_op_call(m, op, a, out, err);
}
