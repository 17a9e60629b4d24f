/*
** ops.c — operator meta functions (see ops.h).
**
** Each meta function mirrors PyTorch's: torch/_subclasses/fake_impls.py for
** the data-dependent ops, torch/_meta_registrations.py and torch/_refs for
** the rest. Guards are taken (and symbols allocated) in the same places, so
** the events a trace produces read like PyTorch's logs.
*/
#include "ops.h"
#include "buf.h"
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 64

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

static int bad_arg(const sdb_op *op, const char *name, size_t i, const char *want,
                   const sdb_value *got, sdb_err *err) {
  if (!got)
    return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() missing required argument '%s' (pos %zu)",
                       op->name, name ? name : "?", i);
  return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                     "%s(): argument '%s' (position %zu) must be %s, not %s",
                     op->name, name ? name : "?", i + 1, want, vkind_name(got->kind));
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
  *out = v->expr->kind == SDB_TRUE ? sdb_int(1) : v->expr->kind == SDB_FALSE ? sdb_int(0) : v->expr;
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
      out[(*n)++] = v->items[k].expr;
    }
    return SDB_OK;
  }
  for (size_t k = i; k < a->npos; k++) {
    if (!sdb_value_is_int(&a->pos[k])) return bad_arg(op, name, k, "int", &a->pos[k], err);
    if (*n == cap) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s(): too many dims", op->name);
    out[(*n)++] = a->pos[k].expr;
  }
  return SDB_OK;
}

int ah_wrap_dim(const sdb_op *op, int64_t dim, int ndim, int64_t *out, sdb_err *err) {
  int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n)
    return sdb_err_set(err, SDB_E_INVALID, "IndexError",
                       "%s(): Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                       op->name, (long long)-n, (long long)(n - 1), (long long)dim);
  *out = dim < 0 ? dim + n : dim;
  return SDB_OK;
}

/* ------------------------------------------------------------------------
** Shared meta helpers
** ---------------------------------------------------------------------- */

sdb_fake *sdb_meta_empty(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                         const sdb_expr *const *sizes, int ndim, sdb_err *err) {
  sdb_fake *t = sdb_fake_new(m, dtype, device, sizes, ndim);
  if (!t) sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
  return t;
}

static void put_shape(sdb_buf *b, const sdb_expr *const *s, int n) {
  sdb_buf_putc(b, '[');
  for (int i = 0; i < n; i++) {
    char *t = sdb_expr_str(s[i]);
    sdb_buf_printf(b, "%s%s", i ? ", " : "", t ? t : "?");
    free(t);
  }
  sdb_buf_putc(b, ']');
}

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

/* ------------------------------------------------------------------------
** Elementwise binary ops with broadcasting (add, sub, mul, div, comparisons)
** ---------------------------------------------------------------------- */

typedef enum { BIN_ARITH, BIN_DIV, BIN_COMPARE } bin_kind;

/* The dtype of `t (op) scalar`: a float scalar makes an integral tensor's
** result float32 (the default dtype). */
static sdb_dtype scalar_result(sdb_dtype t, const sdb_value *s) {
  if (s->kind == SDB_V_FLOAT && !sdb_dtype_is_floating(t)) return SDB_F32;
  if (s->kind == SDB_V_BOOL) return t;
  return t == SDB_BOOL && s->kind == SDB_V_INT ? SDB_I64 : t;
}

static int binary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                  sdb_value *out, sdb_err *err, bin_kind kind) {
  const sdb_value *x = ah_get(a, 0, "self"), *y = ah_get(a, 1, "other");
  if (!x || !y) return bad_arg(op, x ? "other" : "self", x ? 1 : 0, "Tensor or number", NULL, err);
  if (x->kind != SDB_V_TENSOR && y->kind == SDB_V_TENSOR) {   /* 2 * t */
    const sdb_value *t = x; x = y; y = t;
  }
  if (x->kind != SDB_V_TENSOR) return bad_arg(op, "self", 0, "Tensor", x, err);
  sdb_fake *tx = x->tensor;
  const sdb_expr *shape[MAX_DIMS];
  int n = tx->ndim;
  sdb_dtype dt;
  if (y->kind == SDB_V_TENSOR) {
    sdb_fake *ty = y->tensor;
    int rc = sdb_broadcast_shapes(m->env, tx->sizes, tx->ndim, ty->sizes, ty->ndim, shape, &n, err);
    if (rc) return rc;
    /* a 0-dim tensor participates like a scalar */
    if (ty->ndim == 0 && tx->ndim > 0) dt = tx->dtype;
    else if (tx->ndim == 0 && ty->ndim > 0) dt = ty->dtype;
    else dt = sdb_dtype_promote(tx->dtype, ty->dtype);
  } else if (y->kind == SDB_V_INT || y->kind == SDB_V_FLOAT || y->kind == SDB_V_BOOL) {
    for (int i = 0; i < n; i++) shape[i] = tx->sizes[i];
    dt = scalar_result(tx->dtype, y);
  } else {
    return bad_arg(op, "other", 1, "Tensor or number", y, err);
  }
  if (kind == BIN_COMPARE) dt = SDB_BOOL;
  else if (kind == BIN_DIV && !sdb_dtype_is_floating(dt)) dt = SDB_F32;
  sdb_fake *r = sdb_meta_empty(m, dt, tx->device, shape, n, err);
  if (!r) return err ? err->code : SDB_E_OOM;
  r->requires_grad = kind != BIN_COMPARE && (tx->requires_grad ||
                     (y->kind == SDB_V_TENSOR && y->tensor->requires_grad));
  *out = sdb_value_tensor(r);
  sdb_fake_unref(r);
  return SDB_OK;
}

static int m_arith(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_ARITH);
}
static int m_div(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_DIV);
}
static int m_compare(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_COMPARE);
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
** the bound of the product otherwise (int_oo when unbounded). */
static int64_t numel_upper(sdb_fake_mode *m, const sdb_expr *numel) {
  if (numel->kind == SDB_INT) return numel->ival;
  return sdb_bound_in(m->env, numel).hi;
}

/* nonzero: i64[u0, ndim], u0 in [0, numel], size-like, memoized per epoch */
static int m_nonzero(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                     sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  const sdb_expr *nnz = sdb_memo_get(x, &x->nonzero_memo);
  if (nnz) {
    emit_memo_hit(m, nnz, "nonzero");
  } else {
    const sdb_expr *numel = sdb_fake_numel(x);
    if (!numel) return sdb_err_expr(err);
    if (numel->kind == SDB_INT && numel->ival == 0) nnz = sdb_int(0);
    else nnz = sdb_create_unbacked_size(m->env, 0, numel_upper(m, numel));
    if (!nnz) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    sdb_memo_set(x, &x->nonzero_memo, nnz);
  }
  const sdb_expr *sizes[2] = {nnz, sdb_int(x->ndim)};
  const sdb_expr *strides[2] = {sdb_int(1), nnz};
  sdb_fake *r = sdb_fake_new_strided(m, SDB_I64, x->device, sizes, strides, 2, sdb_int(0), NULL);
  if (!r) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  *out = sdb_value_tensor(r);
  sdb_fake_unref(r);
  return SDB_OK;
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
    if (!r) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    sdb_memo_set(x, &x->item_memo, r);
  }
  if (sdb_dtype_is_floating(x->dtype)) *out = sdb_value_symfloat(r);
  else if (x->dtype == SDB_BOOL) *out = sdb_value_bool(r);
  else *out = sdb_value_int(r);
  return SDB_OK;
}

/* ------------------------------------------------------------------------
** Reductions
** ---------------------------------------------------------------------- */

/* sum/mean/amax(self, dim=None, keepdim=False, *, dtype=None) */
static int reduction(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                     sdb_value *out, sdb_err *err, bool integral_to_long) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  bool reduce[MAX_DIMS] = {false};
  const sdb_value *dimv = ah_get(a, 1, "dim");
  bool all = !dimv || dimv->kind == SDB_V_NONE;
  if (!all) {
    const sdb_value *items = dimv;
    size_t nd = 1;
    if (dimv->kind == SDB_V_LIST || dimv->kind == SDB_V_TUPLE) { items = dimv->items; nd = dimv->n; }
    if (nd == 0) all = true;
    for (size_t k = 0; k < nd; k++) {
      int64_t d = 0, w = 0;
      if (!sdb_value_is_const_int(&items[k], &d)) return bad_arg(op, "dim", 1, "int or list of ints", &items[k], err);
      if ((rc = ah_wrap_dim(op, d, x->ndim, &w, err))) return rc;
      if (x->ndim) reduce[w] = true;
    }
  }
  bool keepdim;
  if ((rc = ah_bool(op, a, 2, "keepdim", false, &keepdim, err))) return rc;
  int dtype;
  if ((rc = ah_dtype(op, a, 3, "dtype", &dtype, err))) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  for (int i = 0; i < x->ndim; i++) {
    if (all || reduce[i]) {
      if (keepdim) shape[n++] = sdb_int(1);
    } else {
      shape[n++] = x->sizes[i];
    }
  }
  sdb_dtype dt = dtype >= 0 ? (sdb_dtype)dtype
               : integral_to_long && sdb_dtype_is_integral(x->dtype) ? SDB_I64 : x->dtype;
  sdb_fake *r = sdb_meta_empty(m, dt, x->device, shape, n, err);
  if (!r) return err ? err->code : SDB_E_OOM;
  r->requires_grad = x->requires_grad;
  *out = sdb_value_tensor(r);
  sdb_fake_unref(r);
  return SDB_OK;
}

static int m_sum(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return reduction(m, op, a, out, err, true);
}

/* ------------------------------------------------------------------------
** The table
** ---------------------------------------------------------------------- */

static const sdb_op op_table[] = {
  {"add", "aten.add.Tensor", m_arith, 0, "add(Tensor self, Tensor|Number other) -> Tensor"},
  {"sub", "aten.sub.Tensor", m_arith, 0, "sub(Tensor self, Tensor|Number other) -> Tensor"},
  {"mul", "aten.mul.Tensor", m_arith, 0, "mul(Tensor self, Tensor|Number other) -> Tensor"},
  {"div", "aten.div.Tensor", m_div, 0, "div(Tensor self, Tensor|Number other) -> Tensor"},
  {"gt", "aten.gt.Tensor", m_compare, 0, "gt(Tensor self, Tensor|Number other) -> Tensor"},
  {"ge", "aten.ge.Tensor", m_compare, 0, "ge(Tensor self, Tensor|Number other) -> Tensor"},
  {"lt", "aten.lt.Tensor", m_compare, 0, "lt(Tensor self, Tensor|Number other) -> Tensor"},
  {"le", "aten.le.Tensor", m_compare, 0, "le(Tensor self, Tensor|Number other) -> Tensor"},
  {"eq", "aten.eq.Tensor", m_compare, 0, "eq(Tensor self, Tensor|Number other) -> Tensor"},
  {"ne", "aten.ne.Tensor", m_compare, 0, "ne(Tensor self, Tensor|Number other) -> Tensor"},
  {"nonzero", "aten.nonzero.default", m_nonzero, SDB_OP_DATA_DEPENDENT, "nonzero(Tensor self) -> Tensor"},
  {"item", "aten._local_scalar_dense.default", m_item, SDB_OP_DATA_DEPENDENT | SDB_OP_METHOD_ONLY,
   "item(Tensor self) -> Scalar"},
  {"sum", "aten.sum.dim_IntList", m_sum, 0,
   "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, dtype=None) -> Tensor"},
};

#define NOPS (sizeof op_table / sizeof op_table[0])

const sdb_op *sdb_op_find(const char *name) {
  for (size_t i = 0; i < NOPS; i++)
    if (!strcmp(op_table[i].name, name)) return &op_table[i];
  return NULL;
}

size_t sdb_op_count(void) { return NOPS; }
const sdb_op *sdb_op_at(size_t i) { return i < NOPS ? &op_table[i] : NULL; }

int sdb_op_call(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                sdb_value *out, sdb_err *err) {
  *out = SDB_VALUE_NONE;
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
