/*
** bench_core.c — how fast the core is, by workload (`make bench`).
**
** Each row times one workload several times and reports the median time
** per operation; the median, not the mean, so one run disturbed by the
** other core's load does not move the number. Setup (sources, symbols,
** input tensors, event streams to fold) happens outside the timed region
** unless it is the thing measured. Nothing here asserts a time: numbers
** are for people to read, never pass/fail (timed tests are flaky on a
** loaded 2-core machine).
**
** Output is one tab-separated row per workload on stdout:
**   key  group  description  size  microseconds-per-op
** tests/bench/run.sh joins these with the Lua end-to-end rows and the
** sympy baseline (by key) and prints the table. The keys that
** tests/bench/sympy_baseline.py also prints must stay in step with it.
**
** Usage: bench_core [--quick] [KEY-PREFIX...]
**   --quick  one run of each at a twentieth of the size: a smoke test under
**            the sanitizers, where the numbers mean nothing
**   KEY-PREFIX  run only the rows whose key starts so (`env.check` to
**            profile one workload under perf)
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event.h"
#include "expr.h"
#include "fake.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"
#include "shape_env.h"
#include "source.h"
#include "value.h"
#include "view.h"

/* Odd so the median is one run, not an average of two. */
static int runs = 5;

/* --- timing ------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One run of a workload: returns microseconds per op for `n` ops. */
typedef double (*run_fn)(long n);

/* Key prefixes given on the command line: only those rows run. */
static char **only;
static int nonly;

static bool selected(const char *key) {
  if (nonly == 0) return true;
  for (int i = 0; i < nonly; i++)
    if (strncmp(key, only[i], strlen(only[i])) == 0) return true;
  return false;
}

/* `size` says the work size: a printf format given n ("%ld exprs"), or a
** fixed text when the work is not n (per-call rows). */
static void row(const char *key, const char *group, const char *desc,
                const char *size, run_fn fn, long n) {
  if (!selected(key)) return;
  double t[16];
  int r = runs < 16 ? runs : 16;
  for (int i = 0; i < r; i++) t[i] = fn(n);
  qsort(t, (size_t)r, sizeof t[0], cmp_double);
  char sz[64];
  if (strstr(size, "%ld")) snprintf(sz, sizeof sz, size, n);
  else snprintf(sz, sizeof sz, "%s", size);
  printf("%s\t%s\t%s\t%s\t%.6g\n", key, group, desc, sz, t[r / 2]);
  fflush(stdout);
}

static void die(const char *what, const sdb_err *err) {
  fprintf(stderr, "bench_core: %s failed: %s\n", what,
          err && err->msg ? err->msg : sdb_expr_error());
  exit(1);
}

/* A sink the optimiser cannot see through, so timed results are "used". */
static volatile uintptr_t sink;

/* --- symbols ------------------------------------------------------------ */

#define NSYM 16
static const sdb_expr *S[NSYM];

/* s0, s1, ... into v[0..n) */
static void name_syms(const sdb_expr **v, int n) {
  char name[16];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "s%d", i);
    v[i] = sdb_sym(name);
  }
}

static void make_syms(void) { name_syms(S, NSYM); }

/* ========================================================================
** 1. Expression building with hash-consing
** ====================================================================== */

/* 3*a + k*b + c + k: a typical linear size expression, built with the
** same operator sequence as the Python baseline (left to right). */
static const sdb_expr *lin(long i, int64_t k) {
  const sdb_expr *a = S[i % NSYM], *b = S[(i + 3) % NSYM], *c = S[(i + 7) % NSYM];
  const sdb_expr *K = sdb_int(k);
  return sdb_add(sdb_add(sdb_add(sdb_mul(sdb_int(3), a), sdb_mul(K, b)), c), K);
}

/* All new: each expression has its own constant, so every Add and the
** k*b term are new nodes. The table starts empty each run (reset), as in
** a fresh process; its growth is part of the cost. */
static double run_build_new(long n) {
  sdb_expr_reset();
  make_syms();
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *e = lin(i, 5 + i);
    if (!e) die("build", NULL);
    sink += (uintptr_t)e;
  }
  return (now_s() - t0) * 1e6 / (double)n;
}

/* Hits: the same 100 expressions rebuilt over and over; every builder call
** finds its node. 100 keeps the Python baseline inside sympy's default
** cache (1000 entries), so both sides measure their hit path. */
#define HIT_SET 100
static double run_build_hit(long n) {
  sdb_expr_reset();
  make_syms();
  const sdb_expr *first[HIT_SET];
  for (long i = 0; i < HIT_SET; i++) first[i] = lin(i, 5 + i);
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *e = lin(i % HIT_SET, 5 + i % HIT_SET);
    if (e != first[i % HIT_SET]) die("hash-consing (a rebuilt expression is a new pointer)", NULL);
    sink += (uintptr_t)e;
  }
  return (now_s() - t0) * 1e6 / (double)n;
}

/* The shapes PyTorch's ShapeEnv was slow on with sympy (issue #20): a Max
** or Min over 100 sizes (a padded batch, the largest of many inputs), a
** sum of 64 sizes built term by term (cat of 64 tensors), and a FloorDiv
** nested 20 deep (a stack of stride-2 convolutions: x = (x + 1)//2 + 1).
** Each build is new (its own k), so both sides build rather than hit. */
#define NWIDE 100
static const sdb_expr *W[NWIDE];

static void make_wide(void) { name_syms(W, NWIDE); }

static const sdb_expr *wide_max(long k, bool max) {
  const sdb_expr *a[NWIDE];
  for (int i = 0; i < NWIDE; i++) a[i] = sdb_add(W[i], sdb_int(k + i));
  return max ? sdb_max_n(a, NWIDE) : sdb_min_n(a, NWIDE);
}

static const sdb_expr *long_sum(long k) {
  const sdb_expr *e = sdb_int(k);
  for (int i = 0; i < 64; i++) e = sdb_add(e, W[i]);
  return e;
}

static const sdb_expr *nested_floordiv(long k) {
  const sdb_expr *e = sdb_add(W[0], sdb_int(k));
  for (int i = 0; i < 20; i++) e = sdb_add(sdb_floordiv(sdb_add(e, sdb_int(1)), sdb_int(2)), sdb_int(1));
  return e;
}

static double run_shape(long n, int which) {
  sdb_expr_reset();
  make_wide();
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    long k = 1000 + i;
    const sdb_expr *e = which == 0 ? wide_max(k, true) : which == 1 ? wide_max(k, false)
                      : which == 2 ? long_sum(k) : nested_floordiv(k);
    if (!e) die("pathological shape", NULL);
    sink += (uintptr_t)e;
  }
  return (now_s() - t0) * 1e6 / (double)n;
}
static double run_max100(long n) { return run_shape(n, 0); }
static double run_min100(long n) { return run_shape(n, 1); }
static double run_sum64(long n) { return run_shape(n, 2); }
static double run_floordiv20(long n) { return run_shape(n, 3); }

/* ========================================================================
** 2. Canonical simplification and printing
** ====================================================================== */

/* Six shapes of expression that fill PyTorch logs, parameterised by k:
**   a*b*c                numel / contiguous stride
**   (a + 2*k - 3)//2 + 1 conv output size (padding k, kernel 3, stride 2)
**   Mod(a*b + k, 8)      alignment check
**   Max(1, a - k)        clamped size
**   Eq(a*b, k*c)         reshape/view equality
**   a*b + k*a*c - b      strided offset */
#define NSHAPES 6
static const sdb_expr *shape_expr(long i) {
  const sdb_expr *a = S[i % NSYM], *b = S[(i + 5) % NSYM], *c = S[(i + 9) % NSYM];
  int64_t k = 2 + (i / NSHAPES) % 50;
  switch (i % NSHAPES) {
    case 0: return sdb_mul(sdb_mul(a, b), c);
    case 1: return sdb_add(sdb_floordiv(sdb_add(a, sdb_int(2 * k - 3)), sdb_int(2)), sdb_int(1));
    case 2: return sdb_mod(sdb_add(sdb_mul(a, b), sdb_int(k)), sdb_int(8));
    case 3: return sdb_max(sdb_int(1), sdb_sub(a, sdb_int(k)));
    case 4: return sdb_eq(sdb_mul(a, b), sdb_mul(sdb_int(k), c));
    default: return sdb_sub(sdb_add(sdb_mul(a, b), sdb_mul(sdb_mul(sdb_int(k), a), c)), b);
  }
}

static double run_build_str(long n) {
  sdb_expr_reset();
  make_syms();
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *e = shape_expr(i);
    char *s = e ? sdb_expr_str(e) : NULL;
    if (!s) die("build+str", NULL);
    sink += (uintptr_t)s[0];
    free(s);
  }
  return (now_s() - t0) * 1e6 / (double)n;
}

static double run_str(long n) {
  sdb_expr_reset();
  make_syms();
  const sdb_expr *pre[600];
  for (long i = 0; i < 600; i++) pre[i] = shape_expr(i);
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    char *s = sdb_expr_str(pre[i % 600]);
    if (!s) die("str", NULL);
    sink += (uintptr_t)s[0];
    free(s);
  }
  return (now_s() - t0) * 1e6 / (double)n;
}

/* ========================================================================
** 3. ShapeEnv
** ====================================================================== */

/* A ShapeEnv with its event stream, as the Lua front end always has one:
** emitting events is part of what every operation costs. */
typedef struct {
  sdb_events *ev;
  sdb_shape_env *env;
  sdb_fake_mode *mode;
} world;

static world world_new(void) {
  world w;
  w.ev = sdb_events_new();
  w.env = sdb_shape_env_new(w.ev, NULL);
  w.mode = sdb_fake_mode_new(w.env, "trace");
  if (!w.ev || !w.env || !w.mode) die("ShapeEnv setup", NULL);
  return w;
}

static void world_free(world *w) {
  sdb_fake_mode_free(w->mode);
  sdb_shape_env_free(w->env);
  sdb_events_free(w->ev);
}

/* Sizes of inputs: 64 distinct hints (2..65) spread over many dims, so
** most creations are duck-sizing hits on an existing symbol. */
static int64_t dim_hint(long i) { return 2 + (i * 7919) % 64; }

static const sdb_source **input_sources(long n) {
  const sdb_source **src = malloc((size_t)n * sizeof *src);
  char name[32];
  for (long i = 0; i < n; i++) {
    snprintf(name, sizeof name, "x%ld", i / 2);
    src[i] = sdb_source_size(sdb_source_local(name), i % 2);
  }
  return src;
}

static double run_create_duck(long n) {
  const sdb_source **src = input_sources(n);   /* interned: cheap after run 1 */
  world w = world_new();
  sdb_err err = SDB_ERR_INIT;
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *e;
    if (sdb_create_symbol(w.env, dim_hint(i), src[i], NULL, NULL, &e, &err))
      die("create_symbol", &err);
    sink += (uintptr_t)e;
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  world_free(&w);
  free(src);
  return us;
}

/* 64 backed symbols s0..s63 with hints 2..65 (no duck sharing: distinct). */
#define NBACKED 64
static const sdb_expr *backed[NBACKED];

static void make_backed(world *w) {
  sdb_err err = SDB_ERR_INIT;
  char name[32];
  for (int i = 0; i < NBACKED; i++) {
    snprintf(name, sizeof name, "b%d", i);
    if (sdb_create_symbol(w->env, 2 + i, sdb_source_size(sdb_source_local(name), 0),
                          NULL, NULL, &backed[i], &err))
      die("create_symbol", &err);
  }
}

/* A relation that only the hints decide: 2*s_j < s_l + c. Distinct c per
** i makes each one a new guard. */
static const sdb_expr *hint_rel(long i) {
  const sdb_expr *a = backed[(i * 5 + 1) % NBACKED], *b = backed[(i * 11 + 3) % NBACKED];
  return sdb_lt(sdb_mul(sdb_int(2), a), sdb_add(b, sdb_int(40 + i)));
}

/* evaluate() that (almost always) ends in a new guard: simplify, static attempt
** (ranges, axioms), evaluate by hints, record the guard (an event), learn
** from it (_maybe_guard_rel). */
static double run_eval_new_guard(long n) {
  world w = world_new();
  make_backed(&w);
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr **rel = malloc((size_t)n * sizeof *rel);
  for (long i = 0; i < n; i++) rel[i] = hint_rel(i);
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *out;
    if (sdb_evaluate(w.env, rel[i], &out, &err)) die("evaluate", &err);
    sink += (uintptr_t)out;
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  /* no count check: a few relations end up decided by ranges that earlier
  ** guards refined (about 3%), which is the ShapeEnv doing its job */
  free(rel);
  world_free(&w);
  return us;
}

/* evaluate() decided without a new guard: after 200 guards and two
** replacements (Eq of equal-hinted dynamic dims), a mix of relations the
** ranges decide (s >= 2), that go through a replacement, and that repeat a
** guard already taken (the axioms). The common case inside one trace:
** the same broadcasting/size checks asked again and again. */
static double run_eval_static(long n) {
  world w = world_new();
  make_backed(&w);
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *out;
  for (long i = 0; i < 200; i++)
    if (sdb_evaluate(w.env, hint_rel(i), &out, &err)) die("evaluate", &err);
  /* two dynamic (non-duck) dims with the hint of b3: Eq is a replacement */
  sdb_dim_spec dyn = {SDB_DIM_DYNAMIC, false, false, 0, 0, false};
  const sdb_expr *d0, *d1;
  if (sdb_create_symbol(w.env, 5, sdb_source_size(sdb_source_local("dyn"), 0), &dyn, NULL, &d0, &err) ||
      sdb_create_symbol(w.env, 5, sdb_source_size(sdb_source_local("dyn"), 1), &dyn, NULL, &d1, &err))
    die("create_symbol", &err);
  if (sdb_evaluate(w.env, sdb_eq(d0, backed[3]), &out, &err) ||
      sdb_evaluate(w.env, sdb_eq(d1, d0), &out, &err))
    die("evaluate", &err);
  size_t guards = sdb_guard_count(w.env);
  const sdb_expr *q[64];
  for (int i = 0; i < 64; i++) {
    switch (i % 4) {
      case 0: q[i] = sdb_ge(backed[i], sdb_int(2)); break;               /* ranges */
      case 1: q[i] = sdb_eq(sdb_mul(d1, sdb_int(2)), sdb_add(backed[3], d0)); break;  /* replacements */
      case 2: q[i] = hint_rel(i * 3 % 200); break;                        /* a known guard */
      default: q[i] = sdb_lt(backed[i], sdb_add(backed[i], sdb_int(1))); break;  /* canonical form */
    }
  }
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    if (sdb_evaluate(w.env, q[i % 64], &out, &err)) die("evaluate", &err);
    sink += (uintptr_t)out;
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  if (sdb_guard_count(w.env) != guards) {
    fprintf(stderr, "bench_core: static evaluation recorded %zu new guards\n",
            sdb_guard_count(w.env) - guards);
    exit(1);
  }
  world_free(&w);
  return us;
}

/* statically_known_true on unbacked questions (the data-dependent-friendly
** API): u0..u63 size-like with u <= s0 asserted, asked things some known
** (u >= 0, u < s0 + 1), some not (Eq(u, 0), u + 1 < s0). */
static double run_skt(long n) {
  world w = world_new();
  make_backed(&w);
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *u[64], *q[64];
  for (int i = 0; i < 64; i++) {
    u[i] = sdb_create_unbacked_size(w.env, 0, SDB_PINF);
    if (sdb_check(w.env, sdb_le(u[i], backed[0]), NULL, &err)) die("check", &err);
  }
  sdb_pending_clear(w.env);
  for (int i = 0; i < 64; i++) {
    switch (i % 4) {
      case 0: q[i] = sdb_ge(u[i], sdb_int(0)); break;
      case 1: q[i] = sdb_lt(u[i], sdb_add(backed[0], sdb_int(1))); break;
      case 2: q[i] = sdb_eq(u[i], sdb_int(0)); break;
      default: q[i] = sdb_lt(sdb_add(u[i], sdb_int(1)), backed[0]); break;
    }
  }
  long known = 0;
  double t0 = now_s();
  for (long i = 0; i < n; i++) known += sdb_statically_known_true(w.env, q[i % 64]);
  double us = (now_s() - t0) * 1e6 / (double)n;
  sink += (uintptr_t)known;
  world_free(&w);
  return us;
}

/* torch._check on unbacked symbols: each a deferred runtime assert that
** refines a range (u_i <= s_j) — n asserts over n/2 symbols. */
static double run_check(long n) {
  world w = world_new();
  make_backed(&w);
  sdb_err err = SDB_ERR_INIT;
  long nu = (n + 1) / 2;
  const sdb_expr **u = malloc((size_t)nu * sizeof *u);
  for (long i = 0; i < nu; i++) u[i] = sdb_create_unbacked_symint(w.env);
  sdb_pending_clear(w.env);
  const sdb_expr **c = malloc((size_t)n * sizeof *c);
  for (long i = 0; i < n; i++)
    c[i] = i % 2 ? sdb_le(u[i / 2], sdb_add(backed[i % NBACKED], sdb_int(7)))
                 : sdb_ge(u[i / 2], sdb_int(0));
  double t0 = now_s();
  for (long i = 0; i < n; i++)
    if (sdb_check(w.env, c[i], NULL, &err)) die("check", &err);
  double us = (now_s() - t0) * 1e6 / (double)n;
  if (sdb_assert_count(w.env) != (size_t)n) {
    fprintf(stderr, "bench_core: expected %ld runtime asserts, got %zu\n", n, sdb_assert_count(w.env));
    exit(1);
  }
  free(c);
  free(u);
  world_free(&w);
  return us;
}

/* produce_guards for N fakified 2-d inputs (duck-sized, 64 distinct
** sizes) after a guard per input pair: equalities, guards, ranges. The op
** is one produce_guards call; `n` is the number of inputs. */
static void guards_world(long n, world *w, sdb_fake ***ts) {
  *w = world_new();
  sdb_err err = SDB_ERR_INIT;
  *ts = malloc((size_t)n * sizeof **ts);
  char name[32];
  for (long i = 0; i < n; i++) {
    int64_t sz[2] = {dim_hint(2 * i), dim_hint(2 * i + 1)};
    snprintf(name, sizeof name, "x%ld", i);
    if (sdb_fakify(w->mode, sz, 2, SDB_F32, "cpu", false, sdb_source_local(name), NULL,
                   &(*ts)[i], &err))
      die("fakify", &err);
  }
  for (long i = 0; i + 1 < n; i++) {
    const sdb_expr *out;
    const sdb_expr *r = sdb_lt((*ts)[i]->sizes[0], sdb_add((*ts)[i + 1]->sizes[1], sdb_int(30 + i)));
    if (sdb_evaluate(w->env, r, &out, &err)) die("evaluate", &err);
  }
}

static void guards_world_free(long n, world *w, sdb_fake **ts) {
  for (long i = 0; i < n; i++) sdb_fake_unref(ts[i]);
  free(ts);
  world_free(w);
}

static long produce_n;
static double run_produce_guards(long reps) {
  world w;
  sdb_fake **ts;
  guards_world(produce_n, &w, &ts);
  sdb_err err = SDB_ERR_INIT;
  double t0 = now_s();
  for (long r = 0; r < reps; r++) {
    sdb_shape_guards g;
    if (sdb_produce_guards(w.env, &g, &err)) die("produce_guards", &err);
    sink += g.n;
    sdb_shape_guards_free(&g);
  }
  double us = (now_s() - t0) * 1e6 / (double)reps;
  guards_world_free(produce_n, &w, ts);
  return us;
}

/* Checking the produced guards against a new call's sizes (a cache hit:
** every guard passes) — what each call of a compiled function pays. */
static int hit_value(void *ud, const sdb_source *src, int64_t *out) {
  (void)ud;
  /* the same sizes as fakified: L['x<i>'].size()[d] */
  long i = strtol(sdb_source_root(src)->ident + 1, NULL, 10);
  if (src->kind == SDB_SRC_SIZE) { *out = dim_hint(2 * i + src->idx); return 0; }
  if (src->kind == SDB_SRC_STRIDE) { *out = src->idx == 0 ? dim_hint(2 * i + 1) : 1; return 0; }
  if (src->kind == SDB_SRC_STORAGE_OFFSET) { *out = 0; return 0; }
  return -1;
}

static double run_check_guards(long reps) {
  world w;
  sdb_fake **ts;
  guards_world(produce_n, &w, &ts);
  sdb_err err = SDB_ERR_INIT;
  sdb_shape_guards g;
  if (sdb_produce_guards(w.env, &g, &err)) die("produce_guards", &err);
  double t0 = now_s();
  for (long r = 0; r < reps; r++) {
    int fails = sdb_check_guards(&g, hit_value, NULL, NULL, 0, NULL, &err);
    if (fails != 0) {
      fprintf(stderr, "bench_core: check_guards: %d failures on the hinted sizes (%s)\n",
              fails, err.msg ? err.msg : "");
      exit(1);
    }
  }
  double us = (now_s() - t0) * 1e6 / (double)reps;
  sdb_shape_guards_free(&g);
  guards_world_free(produce_n, &w, ts);
  return us;
}

/* ========================================================================
** 4. Unbacked symbols: nonzero-like allocation and binding
** ====================================================================== */

/* create_unbacked_size + an i64[u, 2] output + compute_unbacked_bindings
** (finds u at .size()[0], clears pending): the bookkeeping every
** data-dependent op does, without the operator itself. */
static double run_unbacked_bind(long n) {
  world w = world_new();
  sdb_err err = SDB_ERR_INIT;
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    const sdb_expr *u = sdb_create_unbacked_size(w.env, 0, 100);
    const sdb_expr *sizes[2] = {u, sdb_int(2)};
    sdb_fake *t = sdb_fake_new(w.mode, SDB_I64, "cpu", sizes, 2);
    if (!u || !t) die("unbacked output", NULL);
    sdb_value v = sdb_value_tensor(t);
    sdb_bindings b;
    if (sdb_compute_unbacked_bindings(w.env, &v, false, &b, &err)) die("compute_unbacked_bindings", &err);
    sink += b.n;
    sdb_bindings_free(&b);
    sdb_value_free(&v);
    sdb_fake_unref(t);
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  if (sdb_pending_count(w.env) != 0) die("pending left over", NULL);
  world_free(&w);
  return us;
}

/* The real nonzero meta function (x: f32[s0, s1] -> i64[u, 2], range from
** numel, memo) and its bindings. Each call gets its own input tensor so
** the nonzero memo never answers. */
static double run_nonzero(long n) {
  world w = world_new();
  sdb_err err = SDB_ERR_INIT;
  int64_t sz[2] = {5, 7};
  sdb_fake *x;
  if (sdb_fakify(w.mode, sz, 2, SDB_F32, "cpu", false, sdb_source_local("x"), NULL, &x, &err))
    die("fakify", &err);
  sdb_fake **in = malloc((size_t)n * sizeof *in);
  for (long i = 0; i < n; i++) in[i] = sdb_fake_new(w.mode, SDB_F32, "cpu", (const sdb_expr *const *)x->sizes, 2);
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    sdb_value arg = sdb_value_tensor(in[i]), out;
    sdb_args a = {&arg, 1, NULL, 0};
    if (sdb_op_call_name(w.mode, "nonzero", &a, &out, &err)) die("nonzero", &err);
    sdb_bindings b;
    if (sdb_compute_unbacked_bindings(w.env, &out, false, &b, &err)) die("compute_unbacked_bindings", &err);
    sink += b.n;
    sdb_bindings_free(&b);
    sdb_value_free(&out);
    sdb_value_free(&arg);
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  for (long i = 0; i < n; i++) sdb_fake_unref(in[i]);
  free(in);
  sdb_fake_unref(x);
  world_free(&w);
  return us;
}

/* ========================================================================
** 6. The debugger's view: folding events and seeking
** ====================================================================== */

/* A stream of about n events shaped like long nonzero traces: per compile
** a phase, a tracer, s0, then 400 x (unbacked symbol, pending, node,
** binding, pending cleared, runtime assert, guard). Built once per size
** with sdb_emit_raw and reused by every run. */
static sdb_events *view_stream;
static size_t view_stream_n;

static void put(sdb_events *s, sdb_event_in *e, sdb_phase ph, const char *tracer, int line) {
  e->phase = (uint8_t)ph;
  sdb_event_set_site(e, sdb_site_get(tracer, 0, "big.lua", line, "f"));
  if (sdb_emit_raw(s, e) < 0) die("emit", NULL);
}

static void build_view_stream(long n) {
  sdb_events *s = sdb_events_new();
  const char *tracer = sdb_intern("trace");
  char name[32], node_name[32], line[128];
  for (int c = 0; (long)sdb_events_count(s) < n; c++) {
    sdb_event_in e;
    memset(&e, 0, sizeof e);
    e.kind = SDB_EV_PHASE_START; e.text = sdb_intern("f");
    put(s, &e, SDB_PHASE_TRACE, NULL, 1);
    memset(&e, 0, sizeof e);
    e.kind = SDB_EV_TRACER_PUSH; e.text = tracer;
    put(s, &e, SDB_PHASE_TRACE, tracer, 1);
    memset(&e, 0, sizeof e);
    e.kind = SDB_EV_CREATE_SYMBOL; e.value = 1000 + c;
    e.text = sdb_intern("L['x'].size()[0]");
    sdb_event_more s0_range = {.sym = sdb_sym("s0"), .has_range = true, .range = sdb_range_make(2, SDB_PINF)};
    e.more = &s0_range;
    put(s, &e, SDB_PHASE_TRACE, tracer, 1);
    for (int i = 0; i < 400; i++) {
      snprintf(name, sizeof name, "u%d", i);
      snprintf(node_name, sizeof node_name, "nonzero_%d", i);
      const sdb_expr *u = sdb_sym(name);
      memset(&e, 0, sizeof e);
      sdb_event_more u_range = {.sym = u, .has_range = true, .range = sdb_range_make(0, SDB_PINF)};
      e.kind = SDB_EV_CREATE_UNBACKED; e.more = &u_range; e.text = sdb_intern("int");
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      memset(&e, 0, sizeof e);
      sdb_event_more u_pending = {.syms = &u, .nsyms = 1};
      e.kind = SDB_EV_PENDING_CHANGED; e.more = &u_pending;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      snprintf(line, sizeof line, "%s: \"i64[%s, 1]\" = l_x_.nonzero()", node_name, name);
      memset(&e, 0, sizeof e);
      e.kind = SDB_EV_NODE_PLACED; e.text = sdb_intern(node_name); e.detail = sdb_intern(line); e.value = i;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      const char *path = sdb_intern(".size()[0]");
      memset(&e, 0, sizeof e);
      e.kind = SDB_EV_UNBACKED_BINDINGS; e.text = sdb_intern(node_name);
      sdb_event_more u_path = {.syms = &u, .texts = &path, .nsyms = 1};
      e.more = &u_path;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      memset(&e, 0, sizeof e);
      e.kind = SDB_EV_PENDING_CHANGED;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      memset(&e, 0, sizeof e);
      sdb_event_more le = {.sym = u, .expr = sdb_le(u, sdb_sym("s0"))};
      e.kind = SDB_EV_RUNTIME_ASSERT; e.more = &le;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
      memset(&e, 0, sizeof e);
      sdb_event_more lt = {.expr = sdb_lt(sdb_int(i + 2), sdb_sym("s0"))};
      e.kind = SDB_EV_GUARD_ADDED; e.more = &lt;
      put(s, &e, SDB_PHASE_TRACE, tracer, i + 2);
    }
    memset(&e, 0, sizeof e);
    e.kind = SDB_EV_PHASE_END; e.text = sdb_intern("f");
    put(s, &e, SDB_PHASE_TRACE, tracer, 1);
  }
  view_stream = s;
  view_stream_n = sdb_events_count(s);
}

/* Folding: a fresh timeline folds the whole stream; per event. */
static double run_view_fold(long n) {
  (void)n;
  double t0 = now_s();
  sdb_timeline *t = sdb_timeline_new(view_stream);
  if (!t || sdb_timeline_length(t) != view_stream_n) die("fold", NULL);
  double us = (now_s() - t0) * 1e6 / (double)view_stream_n;
  sdb_timeline_free(t);
  return us;
}

/* Random seeks over the folded stream; `with_text`: also render what a
** debugger stop prints (status, and the life of a symbol). */
static double seeks(long n, bool with_text) {
  sdb_timeline *t = sdb_timeline_new(view_stream);
  if (!t || sdb_timeline_length(t) != view_stream_n) die("fold", NULL);
  const sdb_expr *u7 = sdb_sym("u7");
  uint32_t x = 12345;
  double t0 = now_s();
  for (long i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    const sdb_view *v = sdb_timeline_seek(t, x % (view_stream_n + 1));
    if (!v) die("seek", NULL);
    if (with_text) {
      char *st = sdb_view_status(v), *ex = sdb_view_explain(v, u7);
      if (!st || !ex) die("status/explain", NULL);
      sink += (uintptr_t)st[0] + (uintptr_t)ex[0];
      free(st);
      free(ex);
    } else {
      sink += sdb_view_step(v);
    }
  }
  double us = (now_s() - t0) * 1e6 / (double)n;
  sdb_timeline_free(t);
  return us;
}
static double run_view_seek(long n) { return seeks(n, false); }
static double run_view_seek_text(long n) { return seeks(n, true); }

/* ======================================================================== */

int main(int argc, char **argv) {
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  only = argv + 1 + quick;
  nonly = argc - 1 - quick;
  /* --quick shrinks every size too: under the sanitizers only the
  ** absence of reports matters */
  long q = quick ? 20 : 1;
  if (quick) runs = 1;

  row("expr.build_new", "1 expressions", "build 3*a + k*b + c + k, all new nodes",
      "%ld exprs", run_build_new, 20000 / q);
  /* 200k hits are 3 ms: 20k (0.3 ms a run) read 208x in one full bench
  ** and 313-361x in five runs of the row alone minutes later */
  row("expr.build_hit", "1 expressions", "rebuild the same expr (hash-cons hits)",
      "%ld rebuilds", run_build_hit, 200000 / q);
  row("expr.max100", "1 expressions", "Max(s0 + k, ..., s99 + k+99)", "%ld exprs", run_max100, 200 / q);
  row("expr.min100", "1 expressions", "Min(s0 + k, ..., s99 + k+99)", "%ld exprs", run_min100, 200 / q);
  row("expr.sum64", "1 expressions", "k + s0 + ... + s63, term by term", "%ld exprs", run_sum64, 2000 / q);
  row("expr.floordiv20", "1 expressions", "x = (x + 1)//2 + 1, 20 deep", "%ld exprs",
      run_floordiv20, 2000 / q);

  row("print.build_str", "2 canonical form + str", "build + str() of 6 typical shape exprs",
      "%ld exprs", run_build_str, 12000 / q);
  row("print.str", "2 canonical form + str", "str() of a built expr",
      "%ld exprs", run_str, 12000 / q);

  row("env.create_duck", "3 ShapeEnv", "create_symbol, duck sizing (64 distinct)",
      "%ld dims", run_create_duck, 4000 / q);
  /* the rows ending _100 show how the cost per op grows with the guards or
  ** asserts already taken (the other size is the row after) */
  row("env.evaluate_new_100", "3 ShapeEnv", "evaluate -> new guard",
      "%ld guards", run_eval_new_guard, 100 / (quick ? 10 : 1));
  row("env.evaluate_new", "3 ShapeEnv", "evaluate -> new guard",
      "%ld guards", run_eval_new_guard, 1000 / q);
  row("env.evaluate_static", "3 ShapeEnv", "evaluate decided statically (no guard)",
      "%ld evals", run_eval_static, 20000 / q);
  row("env.skt", "3 ShapeEnv", "statically_known_true on unbacked exprs",
      "%ld queries", run_skt, 20000 / q);
  row("env.check_100", "3 ShapeEnv", "torch._check -> runtime assert",
      "%ld asserts", run_check, 100 / (quick ? 10 : 1));
  row("env.check", "3 ShapeEnv", "torch._check -> runtime assert",
      "%ld asserts", run_check, 1000 / q);
  /* produce/check_guards: an op is one call over all inputs */
  produce_n = 100 / (quick ? 10 : 1);
  char what[64];
  snprintf(what, sizeof what, "%ld inputs", produce_n);
  row("env.produce_guards", "3 ShapeEnv", "produce_guards (per call)", what,
      run_produce_guards, 50 / q);
  row("env.check_guards_100", "3 ShapeEnv", "check_guards, all pass (per call)", what,
      run_check_guards, 50 / q);
  produce_n = 400 / (quick ? 10 : 1);
  snprintf(what, sizeof what, "%ld inputs", produce_n);
  row("env.check_guards", "3 ShapeEnv", "check_guards, all pass (per call)", what,
      run_check_guards, 20 / q);

  row("unbacked.bind", "4 unbacked", "create_unbacked_size + bindings",
      "%ld ops", run_unbacked_bind, 5000 / q);
  row("unbacked.nonzero", "4 unbacked", "nonzero meta + bindings",
      "%ld ops", run_nonzero, 5000 / q);

  if (selected("view")) build_view_stream(100000 / q);
  snprintf(what, sizeof what, "%zu events", view_stream_n);
  row("view.fold", "6 debugger view", "fold events into a timeline (per event)", what,
      run_view_fold, 1);
  row("view.seek", "6 debugger view", "random seek", "%ld seeks", run_view_seek, 10000 / q);
  row("view.seek_text", "6 debugger view", "random seek + status + explain",
      "%ld seeks", run_view_seek_text, 1000 / q);

  if (view_stream) sdb_events_free(view_stream);
  sdb_expr_reset();
  sdb_source_reset();
  sdb_sites_reset();
  sdb_intern_reset();
  return 0;
}
