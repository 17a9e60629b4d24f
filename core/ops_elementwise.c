/*
** ops_elementwise.c — elementwise operators: binary with broadcasting, unary, activations,
** dtype conversions.
**
** Part of the operator model; see ops.h and ops_impl.h. The table in ops.c
** lists every operator.
*/
#include "ops_impl.h"

#include <stdio.h>

/* ------------------------------------------------------------------------
** Elementwise binary ops with broadcasting
** ---------------------------------------------------------------------- */

bool is_number(const sdb_value *v) {
  return v->kind == SDB_V_INT || v->kind == SDB_V_FLOAT || v->kind == SDB_V_BOOL;
}

int binary_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_value *x,
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

/* The result of an elementwise op: r's shape, dtype and device, strides
** from its tensor operands (elementwise_strides). */
int out_elementwise(sdb_fake_mode *m, sdb_fake *const *ops, int nops, const bin_res *r,
                    sdb_value *out, sdb_err *err) {
  const sdb_expr *st[MAX_DIMS];
  if (elementwise_strides(m->env, ops, nops, r->shape, r->n, st)) return sdb_err_expr(err);
  sdb_fake *t = sdb_fake_new_strided(m, r->dt, sdb_fake_device(r->self), r->shape, st, r->n, sdb_int(0),
                                     NULL);
  if (!t) return sdb_err_set(err, SDB_E_EXPR, "RuntimeError", "cannot make a tensor: %s", sdb_expr_error());
  t->requires_grad = r->rg && sdb_dtype_is_floating(r->dt);
  return give(out, t);
}

int binary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
           sdb_value *out, sdb_err *err, bin_kind kind) {
  bin_res r;
  const sdb_value *x = ah_get(a, 0, "self"), *y = ah_get(a, 1, "other");
  int rc = binary_meta(m, op, x, y, kind, &r, err);
  if (rc) return rc;
  sdb_fake *ops[2];
  int nops = 0;
  if (x->kind == SDB_V_TENSOR) ops[nops++] = x->tensor;
  if (y->kind == SDB_V_TENSOR) ops[nops++] = y->tensor;
  return out_elementwise(m, ops, nops, &r, out, err);
}

int m_arith(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_ARITH);
}
/* rounding_mode "trunc"/"floor" keeps the promoted dtype; None is true
** division. Sets *kind. */
int rounding_mode(const sdb_op *op, const sdb_args *a, bin_kind *kind, sdb_err *err) {
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

int m_div(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_kind kind = BIN_DIV;
  int rc = rounding_mode(op, a, &kind, err);
  if (rc) return rc;
  return binary(m, op, a, out, err, kind);
}
int m_compare(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_COMPARE);
}
int m_bitwise(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_BITWISE);
}
int m_tensors(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return binary(m, op, a, out, err, BIN_TENSORS);
}

/* where(condition, self, other): all three broadcast; self and other
** promote (numbers allowed). */
int m_where(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
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
  return out_new(m, promo_result(&p), sdb_fake_device(c), shape, n, rg, out, err);
}

/* masked_fill(self, mask, value): self and mask broadcast (expand_outplace),
** the result keeps self's dtype. */
int mask_value_check(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
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

int m_masked_fill(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                  sdb_err *err) {
  sdb_fake *x = NULL, *mask = NULL;
  int rc = mask_value_check(m, op, a, &x, &mask, err);
  if (rc) return rc;
  const sdb_expr *shape[MAX_DIMS];
  int n = 0;
  if ((rc = sdb_broadcast_shapes(m->env, mask->sizes, mask->ndim, x->sizes, x->ndim, shape, &n, err)))
    return rc;
  return out_new(m, x->dtype, sdb_fake_device(x), shape, n, x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** Elementwise unary ops
** ---------------------------------------------------------------------- */

int unary(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
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

int m_un_same(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_SAME);
}
/* relu(input, inplace=False): F.relu's flag; in place is relu_ */
int m_relu(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bool inplace = false;
  int rc = ah_bool(op, a, 1, "inplace", false, &inplace, err);
  if (rc) return rc;
  if (inplace)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "relu(): argument 'inplace' is not supported: use relu_");
  sdb_args one = {a->pos, a->npos > 1 ? 1 : a->npos, NULL, 0};
  return unary(m, op, &one, out, err, UN_SAME);
}

int m_un_float(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_FLOAT);
}
int m_un_bool(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_BOOL);
}
int m_un_integral(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  return unary(m, op, a, out, err, UN_INTEGRAL);
}

/* clamp(self, min=None, max=None): numbers or tensors; type promotion over
** all three, tensors broadcast. */
int clamp_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, bin_res *r,
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

int m_clamp(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  bin_res r;
  int rc = clamp_meta(m, op, a, &r, err);
  if (rc) return rc;
  return out_new(m, r.dt, sdb_fake_device(r.self), r.shape, r.n, r.rg, out, err);
}

/* The activation functions of torch.nn.functional: floating inputs only
** (the eager kernels are not implemented for integral dtypes). */
static int float_only(const sdb_op *op, const char *kernel, sdb_dtype dt, sdb_err *err) {
  (void)op;
  if (sdb_dtype_is_floating(dt)) return SDB_OK;
  return not_implemented_for(kernel, dt, err);
}

int m_gelu(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
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

int m_silu(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_reject(op, a, 1, "inplace", "use silu_ semantics elsewhere", err))) return rc;
  if ((rc = float_only(op, "silu_cpu", x->dtype, err))) return rc;
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* softmax/log_softmax(self, dim, dtype=None) */
int m_softmax(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
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
int m_dropout(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  /* F.dropout(input, p, training, inplace), as FX prints it positionally */
  if ((rc = ah_max_pos(op, a, 4, err))) return rc;
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
  bool inplace = false;
  if ((rc = ah_bool(op, a, 3, "inplace", false, &inplace, err))) return rc;
  if (inplace)
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "NotImplementedError",
                       "%s(): argument 'inplace' is not supported: use dropout_", op->name);
  if (train && p > 0.0 && !sdb_dtype_is_floating(x->dtype)) return cast_error(SDB_F32, x->dtype, err);
  return out_like(m, x, x->dtype, NULL, x->requires_grad, out, err);
}

/* ------------------------------------------------------------------------
** Dtype conversions
** ---------------------------------------------------------------------- */

bool looks_like_device(const char *s) {
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
  const char *dev = device ? sdb_intern(device) : sdb_fake_device(x);
  if (!copy && dt == x->dtype && dev == sdb_fake_device(x)) {
    *out = sdb_value_tensor(x);
    return SDB_OK;
  }
  return out_like(m, x, dt, dev, x->requires_grad, out, err);
}

/* to(dtype) / to(device[, dtype]) / to(other) / to(dtype=, device=, copy=) */
/* prims.convert_element_type(x, dtype): a new tensor of that dtype with
** x's layout (what aot graphs write for .to(dtype)) */
int m_convert_element_type(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                           sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  int dt = -1;
  if ((rc = ah_dtype(op, a, 1, "dtype", &dt, err))) return rc;
  if (dt < 0) return bad_arg(op, "dtype", 1, "dtype", ah_get(a, 1, "dtype"), err);
  return out_like(m, x, (sdb_dtype)dt, NULL, x->requires_grad, out, err);
}

int m_to(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
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
      device = sdb_fake_device(v->tensor);
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
int m_to_named(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (rc) return rc;
  if ((rc = ah_max_pos(op, a, 1, err))) return rc;
  int d = sdb_dtype_from_name(op->name);
  if (d < 0) return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s(): no such dtype", op->name);
  return convert(m, x, (sdb_dtype)d, NULL, false, out, err);
}

int m_type_as(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out, sdb_err *err) {
  sdb_fake *x = NULL, *o = NULL;
  int rc = ah_tensor(op, a, 0, "self", &x, err);
  if (!rc) rc = ah_tensor(op, a, 1, "other", &o, err);
  if (rc) return rc;
  return convert(m, x, o->dtype, NULL, false, out, err);
}
