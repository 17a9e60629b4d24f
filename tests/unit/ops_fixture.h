/*
** ops_fixture.h — the fixture test_ops and test_ops_views share (the
** operator table's tests, split by op family). Each test gets a fresh
** ShapeEnv (duck sizing on) with an event stream and a FakeTensorMode;
** inputs are fakified from L['name'] with a size spec ("5,!2": 5
** duck-sized, 2 static; "d5" DYNAMIC; "u5" UNBACKED). Results and inputs
** live in per-test pools freed by the teardown. Ops are called through
** OP/OPK/ERR/ERRK, results checked against exact strings (META, STRIDED,
** OFFSET, GUARDS, ASSERTS).
*/
#ifndef OPS_FIXTURE_H
#define OPS_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "event.h"
#include "expr.h"
#include "fake.h"
#include "ops.h"
#include "shape_env.h"
#include "source.h"
#include "symctx.h"
#include "value.h"

/* ------------------------------------------------------------------------
** Fixture
** ---------------------------------------------------------------------- */

#define POOL 512

typedef struct fx {
  sdb_events *ev;
  sdb_shape_env *env;
  sdb_fake_mode *m;
  sdb_value vals[POOL];
  size_t nvals;
  sdb_fake *fakes[POOL];
  size_t nfakes;
  char *strs[POOL];
  size_t nstrs;
} fx;

static fx *F;

static inline void env_new(bool duck) {
  sdb_shape_env_opts o = sdb_shape_env_default_opts();
  o.duck_shape = duck;
  F->ev = sdb_events_new();
  F->env = sdb_shape_env_new(F->ev, &o);
  F->m = sdb_fake_mode_new(F->env, "test");
  assert_non_null(F->m);
}

static inline void env_free(void) {
  for (size_t i = 0; i < F->nvals; i++) sdb_value_free(&F->vals[i]);
  for (size_t i = 0; i < F->nfakes; i++) sdb_fake_unref(F->fakes[i]);
  for (size_t i = 0; i < F->nstrs; i++) free(F->strs[i]);
  F->nvals = F->nfakes = F->nstrs = 0;
  sdb_fake_mode_free(F->m);
  sdb_shape_env_free(F->env);
  sdb_events_free(F->ev);
}

static inline int setup(void **state) {
  F = calloc(1, sizeof *F);
  if (!F) return -1;
  env_new(true);
  *state = F;
  return 0;
}

static inline int teardown(void **state) {
  (void)state;
  env_free();
  free(F);
  F = NULL;
  return 0;
}

/* A fresh ShapeEnv and mode in the middle of a test (duck sizing off). */
static inline void no_duck(void) {
  env_free();
  env_new(false);
}

static inline const char *keep(char *s) {
  assert_non_null(s);
  assert_true(F->nstrs < POOL);
  F->strs[F->nstrs++] = s;
  return s;
}

/* ------------------------------------------------------------------------
** Inputs and values
** ---------------------------------------------------------------------- */

/* Fakify L[name] with sizes from spec: "5,!2,d3,u4" (duck, static,
** dynamic, unbacked); "" is 0-dim. */
static inline sdb_fake *Xg(const char *name, sdb_dtype dt, const char *spec, bool rg) {
  int64_t sizes[16];
  int n = 0;
  sdb_symctx *ctx = sdb_symctx_new(false, 16, SDB_DIM_DUCK);
  assert_non_null(ctx);
  for (const char *p = spec; *p;) {
    sdb_dim_dynamic d = SDB_DIM_DUCK;
    if (*p == '!') { d = SDB_DIM_STATIC; p++; }
    else if (*p == 'd') { d = SDB_DIM_DYNAMIC; p++; }
    else if (*p == 'u') { d = SDB_DIM_UNBACKED; p++; }
    char *end;
    sizes[n] = strtoll(p, &end, 10);
    assert_true(end != p);
    ctx->sizes[n].dynamic = d;
    n++;
    p = *end == ',' ? end + 1 : end;
  }
  sdb_fake *t = NULL;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_fakify(F->m, sizes, n, dt, "cpu", rg, sdb_source_local(name), ctx, &t, &err);
  sdb_symctx_free(ctx);
  if (rc) fail_msg("fakify %s: %s", name, err.msg);
  assert_true(F->nfakes < POOL);
  F->fakes[F->nfakes++] = t;
  return t;
}
static inline sdb_fake *X(const char *name, sdb_dtype dt, const char *spec) { return Xg(name, dt, spec, false); }

static inline sdb_value T(sdb_fake *t) { return sdb_value_tensor(t); }
static inline sdb_value I(int64_t v) { return sdb_value_int64(v); }
static inline sdb_value E(const sdb_expr *e) { assert_non_null(e); return sdb_value_int(e); }
static inline sdb_value Fl(double d) { return sdb_value_float(d); }
static inline sdb_value B(bool b) { return sdb_value_bool(sdb_bool(b)); }
static inline sdb_value S(const char *s) { return sdb_value_string(s); }
static inline sdb_value N(void) { return SDB_VALUE_NONE; }

/* A list of n ints. */
static inline sdb_value L(int n, ...) {
  sdb_value v = sdb_value_seq(SDB_V_LIST, (size_t)n);
  v.kind = SDB_V_LIST;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) v.items[i] = sdb_value_int64(va_arg(ap, int));
  va_end(ap);
  return v;
}
/* A list of n expressions. */
static inline sdb_value LE(int n, ...) {
  sdb_value v = sdb_value_seq(SDB_V_LIST, (size_t)n);
  v.kind = SDB_V_LIST;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) v.items[i] = sdb_value_int(va_arg(ap, const sdb_expr *));
  va_end(ap);
  return v;
}
/* A list of n tensors. */
static inline sdb_value LT(int n, ...) {
  sdb_value v = sdb_value_seq(SDB_V_LIST, (size_t)n);
  v.kind = SDB_V_LIST;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) v.items[i] = sdb_value_tensor(va_arg(ap, sdb_fake *));
  va_end(ap);
  return v;
}
/* A list of arbitrary values (taken). */
static inline sdb_value LV(int n, ...) {
  sdb_value v = sdb_value_seq(SDB_V_LIST, (size_t)n);
  v.kind = SDB_V_LIST;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) v.items[i] = va_arg(ap, sdb_value);
  va_end(ap);
  return v;
}

/* ------------------------------------------------------------------------
** Calling ops
** ---------------------------------------------------------------------- */

#define A(...) (sdb_value[]){__VA_ARGS__}, (sizeof((sdb_value[]){__VA_ARGS__}) / sizeof(sdb_value))
#define K(...) (sdb_kwarg[]){__VA_ARGS__}, (sizeof((sdb_kwarg[]){__VA_ARGS__}) / sizeof(sdb_kwarg))
#define NK NULL, 0

static inline void free_args(sdb_value *pos, size_t npos, sdb_kwarg *kw, size_t nkw) {
  for (size_t i = 0; i < npos; i++) sdb_value_free(&pos[i]);
  for (size_t i = 0; i < nkw; i++) sdb_value_free(&kw[i].value);
}

static inline int run(const char *op, sdb_value *pos, size_t npos, sdb_kwarg *kw, size_t nkw,
               sdb_value *out, sdb_err *err) {
  sdb_args a = {pos, npos, kw, nkw};
  int rc = sdb_op_call_name(F->m, op, &a, out, err);
  free_args(pos, npos, kw, nkw);
  return rc;
}

/* Call op; it must succeed. The result lives until teardown. */
static inline sdb_value *callk(const char *op, sdb_value *pos, size_t npos, sdb_kwarg *kw, size_t nkw) {
  sdb_err err = SDB_ERR_INIT;
  sdb_value out;
  int rc = run(op, pos, npos, kw, nkw, &out, &err);
  if (rc) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", err.msg ? err.msg : "?");
    sdb_err_clear(&err);
    fail_msg("%s failed (%d): %s", op, rc, msg);
  }
  assert_true(F->nvals < POOL);
  F->vals[F->nvals] = out;
  return &F->vals[F->nvals++];
}

/* Call op; it must fail. Returns the message (kept until teardown). */
static inline const char *errk(const char *op, sdb_value *pos, size_t npos, sdb_kwarg *kw, size_t nkw,
                        int *code) {
  sdb_err err = SDB_ERR_INIT;
  sdb_value out;
  int rc = run(op, pos, npos, kw, nkw, &out, &err);
  if (!rc) {
    char *s = sdb_value_text(&out);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s ? s : "?");
    free(s);
    sdb_value_free(&out);
    fail_msg("%s succeeded with %s, expected an error", op, buf);
  }
  assert_true(out.kind == SDB_V_NONE);
  if (code) *code = rc;
  const char *m = keep(err.msg ? strdup(err.msg) : strdup("?"));
  sdb_err_clear(&err);
  return m;
}

#define OP(name, ...) callk(name, A(__VA_ARGS__), NK)
#define OPK(name, kws, ...) callk(name, A(__VA_ARGS__), kws)
#define ERR(name, ...) errk(name, A(__VA_ARGS__), NK, NULL)
#define ERRK(name, kws, ...) errk(name, A(__VA_ARGS__), kws, NULL)

/* ------------------------------------------------------------------------
** Assertions
** ---------------------------------------------------------------------- */

static inline sdb_fake *TEN(const sdb_value *v) {
  assert_non_null(v);
  if (v->kind != SDB_V_TENSOR) fail_msg("expected a tensor, got kind %d", (int)v->kind);
  return v->tensor;
}

static inline void check_meta(const sdb_value *v, bool strides, const char *want) {
  char *s = sdb_fake_meta_str(TEN(v), strides);
  assert_non_null(s);
  if (strcmp(s, want)) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    free(s);
    fail_msg("metadata is %s, expected %s", buf, want);
  }
  free(s);
}
#define META(v, want) check_meta((v), false, (want))
#define STRIDED(v, want) check_meta((v), true, (want))

static inline void check_text(const sdb_value *v, const char *want) {
  char *s = sdb_value_text(v);
  assert_non_null(s);
  if (strcmp(s, want)) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    free(s);
    fail_msg("value is %s, expected %s", buf, want);
  }
  free(s);
}

static inline void check_expr(const sdb_expr *e, const char *want) {
  assert_non_null(e);
  const sdb_expr *s = sdb_simplify(F->env, e);
  char *t = sdb_expr_str(s ? s : e);
  assert_non_null(t);
  if (strcmp(t, want)) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", t);
    free(t);
    fail_msg("expression is %s, expected %s", buf, want);
  }
  free(t);
}
#define OFFSET(v, want) check_expr(sdb_fake_offset(TEN(v)), (want))

/* The expressions at(0..n) joined by "; " ("" for none) must read want;
** what names them in the failure. */
static inline void check_joined(const char *what, size_t n, const sdb_expr *(*at)(size_t),
                                const char *want) {
  sdb_buf b = SDB_BUF_INIT;
  for (size_t i = 0; i < n; i++) {
    char *s = sdb_expr_str(at(i));
    sdb_buf_printf(&b, "%s%s", i ? "; " : "", s);
    free(s);
  }
  char *got = sdb_buf_take(&b);
  if (strcmp(got, want)) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", got);
    free(got);
    fail_msg("%s are '%s', expected '%s'", what, buf, want);
  }
  free(got);
}

static inline const sdb_expr *guard_expr(size_t i) { return sdb_guard_at(F->env, i)->expr; }
static inline const sdb_expr *assert_expr(size_t i) { return sdb_assert_at(F->env, i)->expr; }

/* Every guard, in order, joined by "; " ("" for none). */
#define GUARDS(want) check_joined("guards", sdb_guard_count(F->env), guard_expr, (want))
/* Every runtime assert, in order, joined by "; ". */
#define ASSERTS(want) check_joined("runtime asserts", sdb_assert_count(F->env), assert_expr, (want))

/* The range of an unbacked symbol, "[0, 12]". */
static inline void check_range(const sdb_expr *sym, const char *want) {
  char buf[SDB_RANGE_STRLEN];
  sdb_range_str(sdb_symbol_range(F->env, sym), buf, sizeof buf);
  assert_string_equal(buf, want);
}

/* How many events of a kind the stream holds. */
static inline size_t count_events(sdb_event_kind k) {
  size_t n = 0;
  for (size_t i = 0; i < sdb_events_count(F->ev); i++)
    if (sdb_events_at(F->ev, i)->kind == k) n++;
  return n;
}

static inline const sdb_expr *SZ(const sdb_value *v, int i) { return TEN(v)->sizes[i]; }

#endif
