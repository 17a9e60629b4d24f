/*
** ops_common.c — shared helpers of the operator families: argument readers, messages
** and torch._check, dtype promotion, output constructors, broadcasting.
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

#include <stdarg.h>

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

const char *vkind_name(sdb_vkind k) {
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
const sdb_expr *int_expr(const sdb_value *v) {
  if (v->expr->kind == SDB_TRUE) return sdb_int(1);
  if (v->expr->kind == SDB_FALSE) return sdb_int(0);
  return v->expr;
}

int bad_arg(const sdb_op *op, const char *name, size_t i, const char *want,
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
int ah_dims(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
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
int ah_dim(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
           int ndim, int64_t dflt, bool required, int64_t *out, sdb_err *err) {
  int64_t d = 0;
  int rc = ah_const_int(op, a, i, name, dflt, required, &d, err);
  if (rc) return rc;
  return ah_wrap_dim(op, d, ndim, out, err);
}

/* A list/tuple of tensors (cat, stack). */
int ah_tensor_list(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
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
int ah_reject(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
              const char *why, sdb_err *err) {
  const sdb_value *v = ah_get(a, i, name);
  if (!v || v->kind == SDB_V_NONE) return SDB_OK;
  return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                     "%s(): argument '%s' is not supported%s%s", op->name, name, why ? ": " : "",
                     why ? why : "");
}

/* Too many positional arguments is an error, never silently ignored. */
int ah_max_pos(const sdb_op *op, const sdb_args *a, size_t max, sdb_err *err) {
  if (a->npos <= max) return SDB_OK;
  return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                     "%s() takes at most %zu positional arguments but %zu were given",
                     op->name, max, a->npos);
}

/* ------------------------------------------------------------------------
** Shared helpers: errors, messages, torch._check
** ---------------------------------------------------------------------- */

int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

/* The expression as str(SymInt) prints it: replacements applied. */
const sdb_expr *shown(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr *s = env ? sdb_simplify(env, e) : NULL;
  return s ? s : e;
}

static void put_expr(sdb_buf *b, sdb_shape_env *env, const sdb_expr *e) {
  if (e) sdb_expr_put(b, shown(env, e));
  else sdb_buf_putc(b, '?');
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
char *msgf(sdb_shape_env *env, const char *fmt, ...) {
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
int fail_cond(sdb_fake_mode *m, const sdb_expr *cond, int code, const char *kind,
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
int tcheck_as(sdb_fake_mode *m, const sdb_expr *cond, char *msg, int code,
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

int tcheck(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err) {
  return tcheck_as(m, cond, msg, SDB_E_SHAPE, "RuntimeError", err);
}

bool static_true(sdb_fake_mode *m, const sdb_expr *cond) {
  if (!cond) return false;
  if (cond->kind == SDB_TRUE) return true;
  const sdb_expr *st = sdb_maybe_evaluate_static(m->env, cond);
  return st && st->kind == SDB_TRUE;
}

/* A check PyTorch's meta does not make (the eager kernel does): an error
** only when statically false; no guard, no assert. Takes msg. */
int static_check(sdb_fake_mode *m, const sdb_expr *cond, char *msg, sdb_err *err) {
  if (!cond) { free(msg); return sdb_err_expr(err); }
  const sdb_expr *st = sdb_maybe_evaluate_static(m->env, cond);
  if (st && st->kind == SDB_FALSE) return fail_cond(m, cond, SDB_E_SHAPE, "RuntimeError", msg, err);
  free(msg);
  return SDB_OK;
}

bool known_true(sdb_shape_env *env, const sdb_expr *e) {
  return e && sdb_statically_known_true(env, e);
}
/* Not known to be false: what guard_or_true assumes when undecided. */
bool maybe_true(sdb_shape_env *env, const sdb_expr *e) {
  return !e || !sdb_statically_known_true(env, sdb_not(e));
}
bool is_const_val(const sdb_expr *e, int64_t v) {
  return e && e->kind == SDB_INT && e->ival == v;
}

/* ------------------------------------------------------------------------
** Shared helpers: dtypes and type promotion
** ---------------------------------------------------------------------- */

/* c10's ScalarType names, as PyTorch's error messages print them. */
const char *scalar_name(sdb_dtype d) {
  static const char *const names[SDB_DTYPE_COUNT] = {
    "Float", "Half", "BFloat16", "Double", "Long", "Int", "Short", "Char", "Byte", "Bool",
  };
  return d < SDB_DTYPE_COUNT ? names[d] : "?";
}

dcat cat_of(sdb_dtype d) {
  return d == SDB_BOOL ? CAT_BOOL : sdb_dtype_is_floating(d) ? CAT_FLOAT : CAT_INT;
}

void promo_add(promo *p, const sdb_value *v) {
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

sdb_dtype promo_result(const promo *p) {
  int t0 = p->has[0] ? 0 : p->has[1] ? 1 : p->has[2] ? 2 : -1;
  if (t0 < 0) return SDB_F32;
  sdb_dtype r = p->dt[t0];
  for (int t = t0 + 1; t < 3; t++)
    if (p->has[t] && cat_of(p->dt[t]) > cat_of(r)) r = p->dt[t];
  return r;
}

/* can_cast(from, to): no floating -> integral, no non-bool -> bool. */
bool can_cast(sdb_dtype from, sdb_dtype to) {
  if (sdb_dtype_is_floating(from) && !sdb_dtype_is_floating(to)) return false;
  if (from != SDB_BOOL && to == SDB_BOOL) return false;
  return true;
}

int cast_error(sdb_dtype from, sdb_dtype to, sdb_err *err) {
  return sdb_err_set(err, SDB_E_INVALID, "RuntimeError",
                     "result type %s can't be cast to the desired output type %s",
                     scalar_name(from), scalar_name(to));
}

int not_implemented_for(const char *kernel, sdb_dtype d, sdb_err *err) {
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
int give(sdb_value *out, sdb_fake *t) {
  *out = sdb_value_tensor(t);
  sdb_fake_unref(t);
  return SDB_OK;
}

int fail_code(sdb_err *err) { return err && err->code ? err->code : SDB_E_EXPR; }

/* A fresh contiguous tensor into *out. */
int out_new(sdb_fake_mode *m, sdb_dtype dt, const char *device,
            const sdb_expr *const *sizes, int n, bool rg, sdb_value *out, sdb_err *err) {
  sdb_fake *r = sdb_meta_empty(m, dt, device, sizes, n, err);
  if (!r) return fail_code(err);
  r->requires_grad = rg && sdb_dtype_is_floating(dt);
  return give(out, r);
}

/* A view of x (shares its storage and version counter). */
sdb_fake *mk_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
                  const sdb_expr *const *strides, int n, const sdb_expr *offset,
                  sdb_err *err) {
  sdb_fake *r = sdb_fake_new_strided(m, x->dtype, sdb_fake_device(x), sizes, strides, n, offset, x->storage);
  if (!r) {
    sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a view: %s", sdb_expr_error());
    return NULL;
  }
  r->requires_grad = x->requires_grad;
  return r;
}

int out_view(sdb_fake_mode *m, sdb_fake *x, const sdb_expr *const *sizes,
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
      if (!used[i] && known_true(env, sdb_eq(sdb_fake_strides(x)[i], acc))) pick = i;
    if (pick < 0) return sdb_contiguous_strides(x->sizes, x->ndim, st);
    used[pick] = true;
    acc = sdb_mul(acc, x->sizes[pick]);
    if (!acc) return -1;
  }
  for (int i = 0; i < x->ndim; i++) st[i] = sdb_fake_strides(x)[i];
  return 0;
}

/* should_swap's ge: a >= b for sizes and strides (both >= 0), decided
** without guarding on unbacked symbols. */
/* guard_or_false of an expression that may have failed to build (NULL). */
static bool gof(sdb_shape_env *env, const sdb_expr *e) { return e && sdb_guard_or_false(env, e); }

/* Is e zero, from what needs no ShapeEnv query (an integer, a symbol
** whose range excludes 0)? 1 yes, 0 no, -1 ask. */
static int zero_at_once(sdb_shape_env *env, const sdb_expr *e) {
  if (e->kind == SDB_INT) return e->ival == 0;
  if (e->kind == SDB_SYM) {
    const sdb_symbol_info *si = sdb_symbol(env, e);
    if (si && (si->range.lo >= 1 || si->range.hi <= -1)) return 0;
  }
  return -1;
}

static bool sym_ge(sdb_shape_env *env, const sdb_expr *a, const sdb_expr *b) {
  int zb = zero_at_once(env, b), za;
  if (zb == 1 || (zb < 0 && gof(env, sdb_eq(b, sdb_int(0))))) return true;
  za = zero_at_once(env, a);
  if (za == 1 || (za < 0 && gof(env, sdb_eq(a, sdb_int(0))))) return false;
  if (a->kind == SDB_INT && b->kind == SDB_INT) return a->ival >= b->ival || a->ival % b->ival == 0;
  return gof(env, sdb_ge(a, b)) ||
         gof(env, sdb_eq(sdb_mod(a, b), sdb_int(0)));
}

/* is_contiguous_or_false / is_channels_last_contiguous (torch/_prims_common):
** the dims in ORDER, innermost first, must be dense; size-1 dims are
** skipped; undecidable answers are "no" (guard_or_false, guard_or_true). */
/* guard_or_false(size == 1), answered first from what needs no ShapeEnv
** query: an integer, or a symbol whose range starts past 1 (every op of a
** long model asks this of every dim) */
static bool size_is_one(sdb_shape_env *env, const sdb_expr *size) {
  if (size->kind == SDB_INT) return size->ival == 1;
  if (size->kind == SDB_SYM) {
    const sdb_symbol_info *si = sdb_symbol(env, size);
    if (si && si->range.lo >= 2) return false;
  }
  const sdb_expr *one = sdb_eq(size, sdb_int(1));
  return one && gof(env, one);
}

/* guard_or_true(size != 1), the same way */
static bool size_not_one(sdb_shape_env *env, const sdb_expr *size) {
  if (size->kind == SDB_INT) return size->ival != 1;
  if (size->kind == SDB_SYM) {
    const sdb_symbol_info *si = sdb_symbol(env, size);
    if (si && si->range.lo >= 2) return true;
  }
  return sdb_guard_or_true(env, sdb_ne(size, sdb_int(1)));
}

static bool dense_in_order(sdb_shape_env *env, const sdb_expr *const *sizes,
                           const sdb_expr *const *strides, const int *order, int n) {
  const sdb_expr *expected = sdb_int(1);
  for (int k = 0; k < n; k++) {
    int i = order[k];
    if (size_is_one(env, sizes[i])) continue;
    if (strides[i] == expected) {   /* the same expression: no question to ask */
      expected = sdb_mul(expected, sizes[i]);
      if (!expected) return false;
      continue;
    }
    const sdb_expr *ne = sdb_ne(strides[i], expected);
    if (!ne || (!ne || sdb_guard_or_true(env, ne))) return false;
    expected = sdb_mul(expected, sizes[i]);
    if (!expected) return false;
  }
  return true;
}

int elementwise_strides(sdb_shape_env *env, sdb_fake *const *ops, int nops,
                        const sdb_expr *const *shape, int n, const sdb_expr **st) {
  enum { MAX_OPS = 8 };
  const sdb_expr *es[MAX_OPS][MAX_DIMS];
  int k = 0;
  for (int j = 0; j < nops && k < MAX_OPS; j++) {
    const sdb_fake *t = ops[j];
    if (!t || (t->ndim == 0 && !strcmp(sdb_fake_device(t), "cpu"))) continue;   /* CPU scalars */
    /* the operand as broadcast to the result: expanded dims have stride 0 */
    for (int d = 0; d < n; d++) {
      int od = d - (n - t->ndim);
      bool expanded = od < 0 || (sdb_is_int(t->sizes[od]) && t->sizes[od]->ival == 1 &&
                                 !(sdb_is_int(shape[d]) && shape[d]->ival == 1));
      es[k][d] = expanded ? sdb_int(0) : sdb_fake_strides(t)[od];
    }
    k++;
  }
  if (k == 0 || n <= 1) return sdb_contiguous_strides(shape, n, st);
  int rev[MAX_DIMS], cl[4] = {1, 3, 2, 0};
  for (int i = 0; i < n; i++) rev[i] = n - 1 - i;
  bool contiguous = true, channels_last = n == 4;
  for (int j = 0; j < k; j++) {
    contiguous = contiguous && dense_in_order(env, shape, es[j], rev, n);
    channels_last = channels_last && dense_in_order(env, shape, es[j], cl, n);
  }
  if (contiguous && !channels_last) return sdb_contiguous_strides(shape, n, st);
  if (channels_last && !contiguous) {
    const sdb_expr *acc = sdb_int(1);
    for (int q = 0; q < 4; q++) {
      st[cl[q]] = acc;
      if (!(acc = sdb_mul(acc, shape[cl[q]]))) return -1;
    }
    return 0;
  }
  /* compute_elementwise_output_logical_to_physical_perm: an insertion
  ** sort of the dims, innermost first, by the operands' strides (the first
  ** operand that orders two dims decides; zero strides say nothing) */
  int perm[MAX_DIMS];
  for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
  for (int i = 1; i < n; i++) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; d0--) {
      int cmp = 0, a = perm[d0], b = perm[d1];
      for (int j = 0; j < k && !cmp; j++) {
        const sdb_expr *sa = es[j][a], *sb = es[j][b];
        int za = zero_at_once(env, sa), zb = za == 1 ? 1 : zero_at_once(env, sb);
        if (za == 1 || zb == 1 || (za < 0 && gof(env, sdb_eq(sa, sdb_int(0)))) ||
            (zb < 0 && gof(env, sdb_eq(sb, sdb_int(0)))))
          continue;
        if (sa == sb || gof(env, sdb_eq(sa, sb))) {
          if (!sym_ge(env, shape[b], shape[a])) cmp = 1;
          continue;
        }
        if (sym_ge(env, sb, sa)) cmp = -1;
        else if (sym_ge(env, sa, sb)) cmp = 1;
      }
      if (cmp > 0) {
        perm[d0] = b;
        perm[d1] = a;
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  /* logical to physical is perm reversed; contiguous in that order */
  const sdb_expr *acc = sdb_int(1);
  for (int i = 0; i < n; i++) {
    st[perm[i]] = acc;
    if (!(acc = sdb_mul(acc, shape[perm[i]]))) return -1;
  }
  return 0;
}

/* A fresh tensor with x's sizes (and its layout when dense), dtype dt. */
int out_like(sdb_fake_mode *m, sdb_fake *x, sdb_dtype dt, const char *device, bool rg,
             sdb_value *out, sdb_err *err) {
  const sdb_expr *st[MAX_DIMS];
  if (like_strides(m->env, x, st)) return sdb_err_expr(err);
  sdb_fake *r = sdb_fake_new_strided(m, dt, device ? device : sdb_fake_device(x), x->sizes, st, x->ndim,
                                     sdb_int(0), NULL);
  if (!r) return sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
  r->requires_grad = rg && sdb_dtype_is_floating(dt);
  return give(out, r);
}

const sdb_expr *prod_of(const sdb_expr *const *v, int n) {
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
      if (size_is_one(env, *c)) {
        *c = s;
        continue;
      }
      if (!size_not_one(env, s)) continue;
      if (*c == s) continue;   /* the same size: nothing to broadcast or check */
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
int same_shape(sdb_fake_mode *m, const sdb_expr *const *a, int na, const sdb_expr *const *b,
               int nb, const char *fmt, sdb_err *err) {
  int rc = SDB_OK;
  if (na != nb) return tcheck(m, sdb_false(), msgf(m->env, fmt, a, na, b, nb), err);
  for (int i = 0; i < na && !rc; i++)
    rc = tcheck(m, sdb_eq(b[i], a[i]), msgf(m->env, fmt, a, na, b, nb), err);
  return rc;
}

/* check_inplace_broadcast: `other` must broadcast to exactly self's shape. */
int inplace_broadcast(sdb_fake_mode *m, const sdb_expr *const *self, int ns,
                      const sdb_expr *const *other, int no, sdb_err *err) {
  const sdb_expr *b[MAX_DIMS];
  int nb = 0;
  int rc = sdb_broadcast_shapes(m->env, self, ns, other, no, b, &nb, err);
  if (rc) return rc;
  return same_shape(m, self, ns, b, nb, "output with shape {s} doesn't match the broadcast shape {s}", err);
}
