/*
** shape_env_facts.c — the facts a ShapeEnv learned from guards and runtime
** asserts, with their implications (the axioms), and static evaluation
** over them (_maybe_evaluate_static). The axioms are brought up to date a
** fact at a time and always equal a rebuild from scratch.
*/
#include "shape_env.h"
#include "shape_env_impl.h"
#include "intern.h"
#include "map.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Facts (axioms): guards and runtime asserts, with their implications
** ---------------------------------------------------------------------- */

/* Implications go either straight into a map (build_axioms) or into a
** fact's list (refresh_axioms). */
typedef struct impl_sink {
  sdb_map *m;
  fact *f;
} impl_sink;

static void axiom(impl_sink *m, const sdb_expr *k, bool v) {
  k = sdb_rel_canon(k);   /* `a > b` and `b < a` are one fact */
  if (!k || sdb_is_const(k)) return;
  if (m->m) { sdb_map_put(m->m, k, (void *)sdb_bool(v)); return; }
  fact *f = m->f;
  if (f->nimpl == f->capimpl) {
    size_t cap = f->capimpl ? f->capimpl * 2 : 8;
    const sdb_expr **nk = sdb_noted(realloc(f->impl, cap * sizeof *nk));
    if (!nk) return;
    f->impl = nk;
    bool *nv = sdb_noted(realloc(f->implv, cap * sizeof *nv));
    if (!nv) return;
    f->implv = nv;
    f->capimpl = cap;
  }
  f->impl[f->nimpl] = k;
  f->implv[f->nimpl++] = v;
}

static void add_implications(impl_sink *m, const sdb_expr *g) {
  if (g->kind == SDB_AND) {
    for (size_t i = 0; i < g->nargs; i++) add_implications(m, g->args[i]);
    return;
  }
  axiom(m, g, true);
  axiom(m, sdb_not(g), false);
  if (g->kind == SDB_LT) {
    const sdb_expr *a = g->args[0], *b = g->args[1];
    axiom(m, sdb_le(a, b), true);
    axiom(m, sdb_ne(a, b), true);
    axiom(m, sdb_eq(a, b), false);
    axiom(m, sdb_lt(b, a), false);
  } else if (g->kind == SDB_EQ && !sdb_is_bool(g->args[0])) {
    const sdb_expr *a = g->args[0], *b = g->args[1];
    axiom(m, sdb_le(a, b), true);
    axiom(m, sdb_le(b, a), true);
    axiom(m, sdb_lt(a, b), false);
    axiom(m, sdb_lt(b, a), false);
  }
}

/* The axioms from scratch: every fact simplified afresh, in order. This is
** the definition; refresh_axioms must always end equal to it, and
** sdb_shape_env_check_axioms (or -DSDB_CHECK_AXIOMS) compares the two. */
static void build_axioms(sdb_shape_env *env, sdb_map *m) {
  impl_sink sink = {m, NULL};
  for (size_t i = 0; i < env->nfacts; i++) {
    const sdb_expr *g = sdb_simplify(env, env->facts[i].expr);
    if (g) add_implications(&sink, g);
  }
}

/* sdb_simplify(f->expr), step by step, to learn whether facts_rewrite ran. */
static const sdb_expr *simplify_fact(sdb_shape_env *env, fact *f, size_t i) {
  const sdb_expr *r = sdb_se_replace(env, f->expr);
  f->rewrites = r && sdb_se_needs_facts(r);
  if (!f->rewrites) return r;
  if (i < env->first_rewrite) env->first_rewrite = i;
  if (!f->listed_rw && GROW(env->rw_facts, env->nrw_facts, env->caprw_facts)) {
    env->rw_facts[env->nrw_facts++] = i;
    f->listed_rw = true;
  }
  return sdb_se_facts_rewrite(env, r, true);
}

/* The axiom's value: the last put of the highest-numbered fact. */
static void ax_settle(sdb_shape_env *env, const sdb_expr *k, const ax_entry *a) {
  const ax_put *best = NULL;
  for (size_t j = 0; j < a->n; j++)
    if (!best || a->p[j].fact >= best->fact) best = &a->p[j];
  void *v = best ? (void *)sdb_bool(best->v) : NULL;
  if (v || sdb_map_has(&env->axioms, k)) sdb_map_put(&env->axioms, k, v);
}

/* Put fact i's implications (f->impl) into the axioms. */
static void ax_assert(sdb_shape_env *env, size_t i) {
  fact *f = &env->facts[i];
  for (size_t j = 0; j < f->nimpl; j++) {
    const sdb_expr *k = f->impl[j];
    ax_entry *a = sdb_map_get(&env->ax_puts, k);
    if (!a) {
      a = sdb_noted(calloc(1, sizeof *a));
      if (!a || !sdb_map_put(&env->ax_puts, k, a)) { free(a); continue; }
    }
    if (!GROW_SMALL(a->p, a->n, a->cap)) continue;
    a->p[a->n].fact = i;
    a->p[a->n++].v = f->implv[j];
    ax_settle(env, k, a);
  }
}

/* Take fact i's implications back out of the axioms. */
static void ax_retract(sdb_shape_env *env, size_t i) {
  fact *f = &env->facts[i];
  for (size_t j = 0; j < f->nimpl; j++) {
    const sdb_expr *k = f->impl[j];
    ax_entry *a = sdb_map_get(&env->ax_puts, k);
    if (!a) continue;
    size_t w = 0;
    for (size_t r = 0; r < a->n; r++)
      if (a->p[r].fact != i) a->p[w++] = a->p[r];
    if (w == a->n) continue;
    a->n = w;
    ax_settle(env, k, a);
  }
  f->nimpl = 0;
}

/* Index fact i under every symbol of e. */
static void index_fact(sdb_shape_env *env, const sdb_expr *e, size_t i) {
  const sdb_expr **fs;
  long n = e ? sdb_free_symbols(e, &fs) : 0;
  if (n <= 0) return;
  for (long j = 0; j < n; j++) {
    idx_vec *v = sdb_map_get(&env->sym_facts, fs[j]);
    if (!v) {
      v = sdb_noted(calloc(1, sizeof *v));
      if (!v || !sdb_map_put(&env->sym_facts, fs[j], v)) { free(v); continue; }
    }
    if (v->n && v->v[v->n - 1] == i) continue;
    if (GROW_SMALL(v->v, v->n, v->cap)) v->v[v->n++] = i;
  }
  free(fs);
}

/* fact i's simp is now g: its implications replace the old ones. */
static void set_simp(sdb_shape_env *env, size_t i, const sdb_expr *g, bool fresh) {
  fact *f = &env->facts[i];
  if (fresh) index_fact(env, f->expr, i);
  else if (g == f->simp) return;
  ax_retract(env, i);
  f->simp = g;
  if (!g) return;
  index_fact(env, g, i);
  impl_sink sink = {NULL, f};
  add_implications(&sink, g);
  ax_assert(env, i);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

static int compare_axioms(sdb_shape_env *env);

/* Bring env->axioms up to date without re-simplifying every fact (which
** made each guard cost O(guards so far), as PyTorch's get_axioms avoids by
** caching and re-simplifying only on _resimplify_floor_div_axioms).
**
** The result must equal build_axioms' as a dict — same keys, same values —
** and be made at the same moments (the first static evaluation after
** `version` moved), so that axioms left stale by a change that never
** bumped `version` stay stale exactly as before. (The order of keys is not
** kept: `axioms` is only looked up; a key no fact puts any more stays with
** a NULL value, which a lookup reads as absent.)
**
** Invariant after a refresh: for i < axioms_nfacts, facts[i].simp is
** sdb_simplify(facts[i].expr) in the current state, and every axiom's value
** is that of the last put by the highest-numbered fact implying it (ax_puts
** says which facts put it). It holds because sdb_simplify is replace() —
** which reads only env->repl — then, when the result has Mod/FloorDiv/Max/
** Min (`rewrites`), facts_rewrite — which reads ranges, the symbol table
** and divisibility. So an old fact's simp can only move if the replacement
** of a symbol in its expr or its simp changed (sym_facts indexes both;
** repl_dirty lists those symbols), or rewrite_gen moved and it `rewrites`
** (rw_facts). Only those are re-simplified, in fact order, and a fact whose
** simp moved swaps its implications: after a rename the cost is the facts
** that mention the renamed symbol, not every guard and assert.
**
** Side effects match too. Re-simplifying an unchanged fact in an unchanged
** state only finds nodes interned when it was last simplified, so new
** nodes are interned in the same order as by the full build (fact by fact,
** simplify then implications) and get the same ids, which break ties in
** the canonical order. find()'s path compression rewrites a replacement
** target only when a symbol on its chain got a new replacement; every fact
** that reaches that symbol mentions it in its simp, so is re-simplified. */
static void refresh_axioms(sdb_shape_env *env) {
  if (env->axioms_version == env->version) return;
  bool rw = env->axioms_rewrite_gen != env->rewrite_gen;
  size_t old = env->axioms_nfacts;
  /* the old facts to re-simplify: those mentioning a symbol whose
  ** replacement changed, and (rw) those that went through facts_rewrite */
  size_t *todo = NULL, ntodo = 0, captodo = 0;
  for (size_t d = 0; d < env->repl_dirty.len; d++) {
    const idx_vec *v = sdb_map_get(&env->sym_facts, env->repl_dirty.keys[d]);
    for (size_t j = 0; v && j < v->n; j++)
      if (v->v[j] < old && GROW(todo, ntodo, captodo)) todo[ntodo++] = v->v[j];
  }
  if (rw)
    for (size_t j = 0; j < env->nrw_facts; j++)
      if (env->rw_facts[j] < old && env->facts[env->rw_facts[j]].rewrites &&
          GROW(todo, ntodo, captodo))
        todo[ntodo++] = env->rw_facts[j];
  if (ntodo > 1) qsort(todo, ntodo, sizeof *todo, cmp_size);
  for (size_t j = 0; j < ntodo; j++) {
    if (j && todo[j] == todo[j - 1]) continue;
    fact *f = &env->facts[todo[j]];
    set_simp(env, todo[j], simplify_fact(env, f, todo[j]), false);
  }
  free(todo);
  for (size_t i = old; i < env->nfacts; i++)
    set_simp(env, i, simplify_fact(env, &env->facts[i], i), true);
  sdb_map_clear(&env->repl_dirty);
  env->axioms_nfacts = env->nfacts;
  env->axioms_repl_gen = env->repl_gen;
  env->axioms_rewrite_gen = env->rewrite_gen;
  env->axioms_version = env->version;
#ifdef SDB_CHECK_AXIOMS
  assert(compare_axioms(env) != 1);   /* the invariant above */
#endif
}

/* Compare the axioms with build_axioms' in the current state: the same
** keys in the same order with the same values, no node the incremental
** build did not already intern, no replacement target moved by path
** compression. 0 equal, 1 different, -1 out of memory. */
static int compare_axioms(sdb_shape_env *env) {
  size_t nrepl = env->repl.len;
  const sdb_expr **targets = sdb_noted(malloc((nrepl + 1) * sizeof *targets));
  if (!targets) return -1;
  for (size_t i = 0; i < nrepl; i++)
    targets[i] = ((const sdb_replacement *)env->repl.vals[i])->target;
  size_t nodes = sdb_expr_count();
  sdb_map m = SDB_MAP_INIT;
  build_axioms(env, &m);
  int rc = sdb_expr_count() != nodes || env->repl.len != nrepl;
  size_t live = 0;
  for (size_t i = 0; i < env->axioms.len; i++) live += env->axioms.vals[i] != NULL;
  rc |= live != m.len;
  for (size_t i = 0; !rc && i < m.len; i++)
    rc = m.vals[i] != sdb_map_get(&env->axioms, m.keys[i]);
  for (size_t i = 0; !rc && i < nrepl; i++)
    rc = targets[i] != ((const sdb_replacement *)env->repl.vals[i])->target;
  sdb_map_free(&m);
  free(targets);
  return rc;
}

int sdb_shape_env_check_axioms(sdb_shape_env *env) {
  refresh_axioms(env);
  return compare_axioms(env);
}

bool sdb_se_add_fact(sdb_shape_env *env, const sdb_expr *g) {
  if (!GROW(env->facts, env->nfacts, env->capfacts)) return false;
  fact *f = &env->facts[env->nfacts++];
  memset(f, 0, sizeof *f);
  f->expr = g;
  env->version++;
  return true;
}

/* _maybe_evaluate_static's last step: each symbol with a finite lower bound
** lo becomes x + (lo - 1) for a fresh x in [1, ...], the relation is
** expanded (safe_expand) and bounded again. So s2*s3 > s3 with sizes >= 2
** is (x2*x3 + x2 > 0): True, and Eq(u2*(u0 + u1), u0*u2 + u1*u2) expands to
** True. -1 unknown, 0 false, 1 true. */
typedef struct {
  sdb_shape_env *env;
  const sdb_expr **fresh;
  sdb_range *ranges;
  size_t n;
} shift_ctx;

static bool shift_range_fn(void *ud, const sdb_expr *sym, sdb_range *out) {
  shift_ctx *c = ud;
  for (size_t i = 0; i < c->n; i++)
    if (c->fresh[i] == sym) { *out = c->ranges[i]; return true; }
  return sdb_se_range_fn(c->env, sym, out);
}

static const sdb_expr *shift_sym(sdb_shape_env *env, long i) {
  static const char prefix[] = "evaluate_static_shape_";
  if (i < 8 && env->shift_syms[i]) return env->shift_syms[i];
  const sdb_expr *s = sdb_sym(sdb_intern_num(prefix, sizeof prefix - 1, (unsigned long)i));
  if (i < 8) env->shift_syms[i] = s;
  return s;
}

static int shifted_bool(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr **syms = NULL;
  long n = sdb_free_symbols(e, &syms);
  if (n < 0) return -1;
  /* a relation has a few symbols: their arrays on the stack (this runs for
  ** every relation the ranges alone do not decide) */
  const sdb_expr *from_s[8], *to_s[8], *fresh_s[8];
  sdb_range ranges_s[8];
  bool heap = n > 8;
  size_t cap = n > 0 ? (size_t)n : 1;
  const sdb_expr **from = heap ? sdb_noted(malloc(cap * sizeof *from)) : from_s;
  const sdb_expr **to = heap ? sdb_noted(malloc(cap * sizeof *to)) : to_s;
  const sdb_expr **fresh = heap ? sdb_noted(malloc(cap * sizeof *fresh)) : fresh_s;
  sdb_range *ranges = heap ? sdb_noted(malloc(cap * sizeof *ranges)) : ranges_s;
  int v = -1;
  if (!from || !to || !fresh || !ranges) goto out;
  size_t k = 0;
  for (long i = 0; i < n; i++) {
    sdb_range r;
    if (!sdb_se_range_fn(env, syms[i], &r) || r.is_bool || r.lo == SDB_NINF || r.lo < -(INT64_C(1) << 62))
      continue;
    int64_t off = r.lo - 1, hi;
    if (r.hi == SDB_PINF || __builtin_sub_overflow(r.hi, off, &hi)) hi = SDB_PINF;
    fresh[k] = shift_sym(env, i);
    ranges[k] = sdb_range_make(1, hi);
    from[k] = syms[i];
    to[k] = sdb_add(fresh[k], sdb_int(off));
    if (!fresh[k] || !to[k]) goto out;
    k++;
  }
  const sdb_expr *x = sdb_expand(k ? sdb_subs(e, from, to, k) : e);
  if (!x) goto out;
  if (x->kind == SDB_TRUE || x->kind == SDB_FALSE) { v = x->kind == SDB_TRUE; goto out; }
  shift_ctx c = {env, fresh, ranges, k};
  sdb_range r = sdb_bound(x, shift_range_fn, &c);
  v = r.lo == 1 ? 1 : r.hi == 0 ? 0 : -1;
out:
  free(syms);
  if (heap) {
    free(from);
    free(to);
    free(fresh);
    free(ranges);
  }
  return v;
}

/* -1 unknown, 0 false, 1 true */
static int static_bool(sdb_shape_env *env, const sdb_expr *e, bool use_axioms) {
  switch (e->kind) {
    case SDB_TRUE: return 1;
    case SDB_FALSE: return 0;
    case SDB_NOT: {
      int v = static_bool(env, e->args[0], use_axioms);
      return v < 0 ? -1 : !v;
    }
    case SDB_AND: case SDB_OR: {
      bool unknown = false;
      for (size_t i = 0; i < e->nargs; i++) {
        int v = static_bool(env, e->args[i], use_axioms);
        if (v < 0) unknown = true;
        else if (e->kind == SDB_AND && v == 0) return 0;
        else if (e->kind == SDB_OR && v == 1) return 1;
      }
      return unknown ? -1 : e->kind == SDB_AND;
    }
    default: break;
  }
  if (use_axioms) {
    refresh_axioms(env);
    const sdb_expr *c = sdb_rel_canon(e);
    const sdb_expr *v = c ? sdb_map_get(&env->axioms, c) : NULL;
    if (v) return v->kind == SDB_TRUE;
  }
  sdb_range r = sdb_se_bound_raw(env, e);
  if (r.lo == 1) return 1;
  if (r.hi == 0) return 0;
  if (e->kind == SDB_EQ || e->kind == SDB_NE || e->kind == SDB_LT || e->kind == SDB_LE)
    return shifted_bool(env, e);
  return -1;
}

/* use_facts=false: only replacements and ranges, not the facts learned from
** guards (axioms, divisibility) — so produce_guards keeps the guards that
** those facts came from. */
const sdb_expr *sdb_se_evaluate_static(sdb_shape_env *env, const sdb_expr *e,
                                       bool use_axioms) {
  if (env->spoiled) return NULL;   /* not known: its caches may be half done */
  const sdb_expr *s = sdb_se_simplify_with(env, e, use_axioms);
  if (!s) return NULL;
  if (sdb_is_const(s)) return s;
  if (sdb_is_bool(s)) {
    int v = static_bool(env, s, use_axioms);
    return v < 0 ? NULL : sdb_bool(v);
  }
  sdb_range r = sdb_se_bound_raw(env, s);
  return sdb_range_is_singleton(r) ? sdb_int(r.lo) : NULL;
}

const sdb_expr *sdb_maybe_evaluate_static(sdb_shape_env *env, const sdb_expr *e) {
  return sdb_se_evaluate_static(env, e, true);
}

const sdb_expr *sdb_maybe_evaluate_static_oblivious(sdb_shape_env *env, const sdb_expr *e) {
  /* the axioms are brought up to date first, with the true ranges: what
  ** they cache must not depend on the size-oblivious view */
  refresh_axioms(env);
  env->size_oblivious = true;
  const sdb_expr *r = sdb_se_evaluate_static(env, e, true);
  env->size_oblivious = false;
  return r;
}

bool sdb_statically_known_true(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr *v = sdb_maybe_evaluate_static(env, e);
  return v && v->kind == SDB_TRUE;
}
