/*
** test_axioms.c — the ShapeEnv's axioms (what its guards and runtime
** asserts imply) are kept up to date incrementally; they must always be
** what rebuilding them from every fact gives, key for key, in the same
** order, made at the same moments. sdb_shape_env_check_axioms is the
** oracle: it refreshes the way a static evaluation does and compares with
** the full rebuild (also no node the rebuild would intern that the
** incremental build did not, no replacement target moved).
**
** Directed cases pin each way the incremental build can go (append a new
** fact, re-simplify every fact after a replacement, re-simplify the facts
** that facts_rewrite touched after a range/divisibility/new symbol, and
** stay stale when nothing bumped the version); random sequences mix them.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "intern.h"
#include "shape_env.h"

static const sdb_expr *P(const char *text) {
  char err[128];
  const sdb_expr *e = sdb_parse(text, err, sizeof err);
  if (!e) fail_msg("parse %s: %s", text, err);
  return e;
}

static const sdb_expr *backed(sdb_shape_env *env, const char *input, int64_t dim,
                              int64_t hint) {
  sdb_dim_spec dyn = {SDB_DIM_DYNAMIC, false, false, 0, 0, false};
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *s;
  if (sdb_create_symbol(env, hint, sdb_source_size(sdb_source_local(input), dim), &dyn,
                        NULL, &s, &err))
    fail_msg("create_symbol: %s", err.msg);
  return s;
}

static void check_ok(sdb_shape_env *env, const char *text) {
  sdb_err err = SDB_ERR_INIT;
  if (sdb_check(env, P(text), NULL, &err)) fail_msg("check(%s): %s", text, err.msg);
}

static void eval_ok(sdb_shape_env *env, const char *text) {
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *out;
  if (sdb_evaluate(env, P(text), &out, &err)) fail_msg("evaluate(%s): %s", text, err.msg);
}

static bool known(sdb_shape_env *env, const char *text) {
  return sdb_statically_known_true(env, P(text));
}

/* A new fact only adds its own implications. */
static void test_append(void **state) {
  (void)state;
  sdb_shape_env *env = sdb_shape_env_new(NULL, NULL);
  backed(env, "x", 0, 5);
  backed(env, "x", 1, 7);
  eval_ok(env, "2*s0 < s1 + 9");
  assert_true(known(env, "2*s0 < s1 + 9"));
  assert_true(known(env, "2*s0 <= s1 + 9"));
  assert_false(known(env, "Eq(2*s0, s1 + 9)"));
  eval_ok(env, "s0 + 1 < s1");
  assert_true(known(env, "s0 + 1 < s1"));
  assert_int_equal(sdb_shape_env_check_axioms(env), 0);
  sdb_shape_env_free(env);
}

/* A replacement changes how earlier facts read: every one is
** re-simplified (s1 -> s0 turns s1 < s2 + 5 into s0 < s2 + 5). */
static void test_replacement_resimplifies(void **state) {
  (void)state;
  sdb_shape_env *env = sdb_shape_env_new(NULL, NULL);
  backed(env, "x", 0, 4);
  backed(env, "x", 1, 4);
  backed(env, "x", 2, 9);
  eval_ok(env, "s1 < s2 + 5");
  assert_false(known(env, "s0 < s2 + 5"));
  eval_ok(env, "Eq(s0, s1)");
  assert_non_null(sdb_replacement_of(env, P("s1")));
  assert_true(known(env, "s0 < s2 + 5"));
  assert_int_equal(sdb_shape_env_check_axioms(env), 0);
  sdb_shape_env_free(env);
}

/* A range makes facts_rewrite turn Mod(u0, 10) into u0: the fact
** Mod(u0, 10) <= u1 now implies u0 <= u1, and the axioms are rebuilt from
** that fact on (its key changed; later facts' keys go after it). */
static void test_range_resimplifies_rewritten(void **state) {
  (void)state;
  sdb_shape_env *env = sdb_shape_env_new(NULL, NULL);
  sdb_create_unbacked_symint(env);
  sdb_create_unbacked_symint(env);
  sdb_create_unbacked_symint(env);
  check_ok(env, "Mod(u0, 10) <= u1");
  check_ok(env, "u2 < u1");
  assert_false(known(env, "u0 <= u1"));
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_constrain_range(env, P("u0"), 0, 9, NULL, &err), 0);
  assert_true(known(env, "u0 <= u1"));
  assert_true(known(env, "u2 < u1"));
  assert_int_equal(sdb_shape_env_check_axioms(env), 0);
  /* divisibility: Eq(Mod(u2, 4), 0) rewrites Mod(u2, 4) in earlier facts */
  check_ok(env, "Mod(u2, 4) < u1 + 3");
  check_ok(env, "Eq(Mod(u2, 4), 0)");
  assert_true(known(env, "0 < u1 + 3"));
  assert_int_equal(sdb_shape_env_check_axioms(env), 0);
  sdb_shape_env_free(env);
}

/* Creating a symbol never bumped the version: a fact that named u1 before
** it existed stays as it was simplified until something else does, then
** reads u1's range like every other fact. */
static void test_new_symbol_stays_stale(void **state) {
  (void)state;
  sdb_shape_env *env = sdb_shape_env_new(NULL, NULL);
  sdb_create_unbacked_symint(env);                   /* u0 */
  check_ok(env, "Mod(u1, 4) <= u0");                 /* u1 not yet created */
  assert_false(known(env, "u1 <= u0"));
  assert_string_equal(sdb_create_unbacked_size(env, 0, 3)->name, "u1");
  assert_false(known(env, "u1 <= u0"));              /* stale, as always */
  sdb_create_unbacked_symint(env);                   /* u2 */
  check_ok(env, "u2 <= u0");                         /* bumps the version */
  assert_true(known(env, "u1 <= u0"));
  assert_int_equal(sdb_shape_env_check_axioms(env), 0);
  sdb_shape_env_free(env);
}

/* --- random sequences ------------------------------------------------------ */

#define MAXSYM 32

typedef struct {
  sdb_shape_env *env;
  uint64_t rng;
  const sdb_expr *b[MAXSYM], *u[MAXSYM];
  int nb, nu, ninputs;
} world;

static unsigned rnd(world *w, unsigned n) {
  w->rng = w->rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(w->rng >> 33) % n;
}

static void new_backed(world *w) {
  if (w->nb == MAXSYM) return;
  char name[16];
  snprintf(name, sizeof name, "x%d", w->ninputs++);
  w->b[w->nb++] = backed(w->env, name, 0, 2 + rnd(w, 8));
}

static void new_unbacked(world *w) {
  if (w->nu == MAXSYM) return;
  w->u[w->nu++] = rnd(w, 2) ? sdb_create_unbacked_symint(w->env)
                            : sdb_create_unbacked_size(w->env, 0, 2 + rnd(w, 30));
}

/* A symbol; with `unbacked`, sometimes one not created yet (by name). */
static const sdb_expr *pick(world *w, bool unbacked) {
  if (unbacked && rnd(w, 16) == 0) {
    char name[16];
    snprintf(name, sizeof name, "u%d", w->nu + (int)rnd(w, 2));
    return sdb_sym(name);
  }
  if (unbacked && w->nu && rnd(w, 3)) return w->u[rnd(w, (unsigned)w->nu)];
  return w->b[rnd(w, (unsigned)w->nb)];
}

static const sdb_expr *term(world *w, bool unbacked) {
  const sdb_expr *x = pick(w, unbacked);
  switch (rnd(w, 9)) {
    case 0: return x;
    case 1: return sdb_mul(sdb_int(2 + rnd(w, 3)), x);
    case 2: return sdb_add(x, sdb_int((int64_t)rnd(w, 7) - 3));
    case 3: return sdb_mod(x, sdb_int(2 + rnd(w, 6)));
    case 4: return sdb_floordiv(x, sdb_int(2 + rnd(w, 4)));
    case 5: return sdb_max(x, sdb_int(rnd(w, 6)));
    case 6: return sdb_min(x, pick(w, unbacked));
    case 7: return sdb_add(x, pick(w, unbacked));
    default: return sdb_int(rnd(w, 10));
  }
}

static const sdb_expr *relation(world *w, bool unbacked) {
  const sdb_expr *a = term(w, unbacked), *b = term(w, unbacked);
  if (!a || !b) return NULL;
  switch (rnd(w, 6)) {
    case 0: return sdb_lt(a, b);
    case 1: return sdb_le(a, b);
    case 2: return sdb_eq(a, b);
    case 3: return sdb_ne(a, b);
    case 4: return sdb_gt(a, b);
    default: return sdb_ge(a, b);
  }
}

/* One step; errors (a false check, a data-dependent guard) are part of
** the game and only cleared. */
static void step(world *w) {
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *e, *out;
  switch (rnd(w, 14)) {
    case 0: case 1: case 2:   /* a guard on hints */
      if ((e = relation(w, false))) sdb_evaluate(w->env, e, &out, &err);
      break;
    case 3:                   /* equal hints make a replacement */
      e = sdb_eq(pick(w, false), pick(w, false));
      if (e) sdb_evaluate(w->env, e, &out, &err);
      break;
    case 4: case 5:           /* a runtime assert (or a guard) */
      if ((e = relation(w, true)) && sdb_is_bool(e)) sdb_check(w->env, e, NULL, &err);
      break;
    case 6:                   /* divisibility */
      if (w->nu) {
        e = sdb_eq(sdb_mod(w->u[rnd(w, (unsigned)w->nu)], sdb_int(2 + rnd(w, 4))), sdb_int(0));
        if (e && sdb_is_bool(e)) sdb_check(w->env, e, NULL, &err);
      }
      break;
    case 7:                   /* a range */
      if (w->nu) {
        int64_t lo = (int64_t)rnd(w, 11) - 5;
        sdb_constrain_range(w->env, w->u[rnd(w, (unsigned)w->nu)], lo, lo + rnd(w, 40),
                            NULL, &err);
      }
      break;
    case 8:                   /* a new symbol: no version bump */
      if (rnd(w, 2)) new_backed(w);
      else new_unbacked(w);
      break;
    case 9: case 10:          /* static questions refresh the axioms */
      if ((e = relation(w, true)) && sdb_is_bool(e)) sdb_statically_known_true(w->env, e);
      break;
    case 11:                  /* rebind to a fresh unbacked symbol */
      if (w->nu && w->nu < MAXSYM) {
        const sdb_expr *old = w->u[rnd(w, (unsigned)w->nu)];
        new_unbacked(w);
        sdb_rename_unbacked_to(w->env, old, w->u[w->nu - 1], NULL, &err);
      }
      break;
    case 12:
      if (w->nu) {
        const sdb_expr *x = w->u[rnd(w, (unsigned)w->nu)];
        if (rnd(w, 4)) sdb_check_is_size(w->env, x, &err);
        else sdb_eliminate_unbacked(w->env, x, sdb_int(rnd(w, 5)), &err);
      }
      break;
    default:                  /* a fact the ranges already decide, or not */
      if ((e = relation(w, false)) && sdb_is_bool(e)) sdb_check(w->env, e, NULL, &err);
      break;
  }
  sdb_err_clear(&err);
}

static void test_random_sequences(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    world w;
    memset(&w, 0, sizeof w);
    w.rng = seed;
    w.env = sdb_shape_env_new(NULL, NULL);
    for (int i = 0; i < 4; i++) new_backed(&w);
    for (int i = 0; i < 3; i++) new_unbacked(&w);
    for (int i = 0; i < 150; i++) {
      step(&w);
      /* not after every step: how stale the axioms get between refreshes
      ** is part of what is tested */
      if (rnd(&w, 3) == 0 && sdb_shape_env_check_axioms(w.env) != 0)
        fail_msg("seed %llu, step %d: incremental axioms differ from a full rebuild",
                 (unsigned long long)seed, i);
    }
    assert_int_equal(sdb_shape_env_check_axioms(w.env), 0);
    sdb_shape_env_free(w.env);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_append),
    cmocka_unit_test(test_replacement_resimplifies),
    cmocka_unit_test(test_range_resimplifies_rewritten),
    cmocka_unit_test(test_new_symbol_stays_stale),
    cmocka_unit_test(test_random_sequences),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("axioms", tests, NULL, NULL);
  sdb_expr_reset();
  sdb_intern_reset();
  return rc;
}
