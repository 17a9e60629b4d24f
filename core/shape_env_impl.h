/*
** shape_env_impl.h — the ShapeEnv's state, for the files that implement
** it (shape_env.c, shape_env_facts.c, shape_env_guards.c); nothing else
** includes this.
*/
#ifndef SDB_SHAPE_ENV_IMPL_H
#define SDB_SHAPE_ENV_IMPL_H

#include "shape_env.h"
#include "map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* A growable array of T: `arr`, `n`, `cap` fields named by prefix.
** GROW_SMALL starts at 2, for the arrays kept per symbol or per key (most
** hold one or two entries, and there is one per unbacked symbol). */
#define GROW(arr, n, cap)                                                    \
  ((n) < (cap) ? true : grow_array((void **)&(arr), &(cap), sizeof *(arr), 16))
#define GROW_SMALL(arr, n, cap)                                              \
  ((n) < (cap) ? true : grow_array((void **)&(arr), &(cap), sizeof *(arr), 2))

static inline bool grow_array(void **arr, size_t *cap, size_t elem, size_t first) {
  size_t ncap = *cap ? *cap * 2 : first;
  void *p = sdb_noted(realloc(*arr, ncap * elem));
  if (!p) return false;
  *arr = p;
  *cap = ncap;
  return true;
}

/* A guard or runtime assert, with its simplified form as of the last
** refresh_axioms. */
typedef struct fact {
  const sdb_expr *expr;          /* as recorded */
  const sdb_expr *simp;          /* sdb_simplify(expr) then; NULL on OOM */
  bool rewrites;                 /* simp went through facts_rewrite */
  bool listed_rw;                /* in env->rw_facts */
  /* the implications of simp as put in `axioms` (key, value), in order */
  const sdb_expr **impl; bool *implv; size_t nimpl, capimpl;
} fact;

/* Which facts put an axiom: (fact index, value) in put order. The axiom's
** value is that of the last put by the highest-numbered fact, as if the
** facts were put in order; NULL in `axioms` when no fact puts it. */
typedef struct ax_put { size_t fact; bool v; } ax_put;
typedef struct ax_entry { ax_put *p; size_t n, cap; } ax_entry;
typedef struct idx_vec { size_t *v; size_t n, cap; } idx_vec;

struct sdb_shape_env {
  /* shifted_bool's stand-ins, evaluate_static_shape_0.., made once */
  const sdb_expr *shift_syms[8];
  sdb_events *ev;
  sdb_shape_env_opts opts;
  bool size_oblivious;           /* static evaluation takes size-like unbacked >= 2 */

  sdb_map syms;                  /* sym -> sdb_symbol_info* (creation order) */
  sdb_map val_to_var;            /* sdb_int(hint) -> sym, for duck sizing */
  sdb_map repl;                  /* sym -> sdb_replacement* */
  sdb_map divisible;             /* Mod(x, k) known to be 0 -> non-NULL */
  sdb_map renamed;               /* orig sym -> new sym */

  sdb_guard *guards; size_t nguards, capguards;
  sdb_runtime_assert *asserts; size_t nasserts, capasserts;
  sdb_specialization *specs; size_t nspecs, capspecs;
  sdb_renaming *renames; size_t nrenames, caprenames;
  sdb_tracked *tracked; size_t ntracked, captracked;
  const sdb_expr **pending; size_t npending, cappending;
  fact *facts; size_t nfacts, capfacts;

  /* The axioms are rebuilt lazily: the first static evaluation after
  ** `version` moves brings them up to date (see refresh_axioms). `version`
  ** says *when* that happens, so it bumps exactly where it always has (a
  ** new fact, a replacement, a range, divisibility, size-likeness, a
  ** declared symbol); repl_gen and rewrite_gen say *what* has to be
  ** re-simplified then. */
  sdb_map axioms;                /* simplified boolean -> True/False */
  unsigned version;
  unsigned axioms_version;
  unsigned repl_gen;             /* bumps when env->repl changes */
  unsigned rewrite_gen;          /* bumps when what facts_rewrite reads changes:
                                 ** ranges, divisibility, the symbol table */
  unsigned axioms_repl_gen, axioms_rewrite_gen;   /* as of the last refresh */
  size_t axioms_nfacts;          /* facts[0..axioms_nfacts) are in `axioms` */
  bool spoiled;                  /* a step ran out of memory (sdb_se_nomem_end) */
  size_t first_rewrite;          /* no fact below this index has `rewrites` */
  sdb_map ax_puts;               /* axiom key -> ax_entry* */
  sdb_map sym_facts;             /* symbol -> idx_vec* of facts whose expr or simp
                                 ** mention it (may repeat; ascending) */
  sdb_map repl_dirty;            /* symbols whose replacement changed since the
                                 ** last refresh */
  size_t *rw_facts; size_t nrw_facts, caprw_facts;   /* facts ever `rewrites` */
  int ignore_fresh;
  int next_s, next_u, next_zuf;
  /* replace() remembered per expression while the replacements stand
  ** (every static evaluation starts with it; most ask about the same
  ** sizes again) */
  struct { const sdb_expr *e, *r; unsigned gen; } replaced[1024];
};

/* Out of memory inside the reasoning. Many of its steps answer "not
** known", or learn nothing, when an allocation fails part way (simplify,
** the axioms, the ranges a guard refines), and that must not pass for the
** real answer: a check would add its runtime assert twice, a guard would
** be issued that the lost range made look needed. A step is run between
** sdb_se_nomem_begin and sdb_se_nomem_end, which says whether any
** allocation failed in it (sdb_noted, err.h). A step that failed may have
** left what it caches incomplete (the axioms are marked fresh even when a
** fact could not be simplified again), so the ShapeEnv is spoiled: every
** later step fails too, rather than answer from them. */
static inline unsigned long sdb_se_nomem_begin(void) { return sdb_nomem_count; }
static inline bool sdb_se_nomem_end(sdb_shape_env *env, unsigned long before) {
  if (sdb_nomem_count != before) env->spoiled = true;
  return env->spoiled;
}

/* shape_env.c's, for shape_env_guards.c and shape_env_facts.c */
sdb_symbol_info *sdb_se_info_of(const sdb_shape_env *env, const sdb_expr *sym);
int sdb_se_oom(sdb_err *err);
/* replacements, then rewrites by ranges and (use_divisible) divisibility */
const sdb_expr *sdb_se_simplify_with(sdb_shape_env *env, const sdb_expr *e, bool use_divisible);
/* shape_env.c's, for shape_env_facts.c: sdb_se_simplify_with's two steps
** (every free symbol by its representative; the rewrites, and whether an
** expression has anything for them to rewrite), and a symbol's range and
** an expression's bounds from the symbols' ranges alone */
const sdb_expr *sdb_se_replace(sdb_shape_env *env, const sdb_expr *e);
const sdb_expr *sdb_se_facts_rewrite(sdb_shape_env *env, const sdb_expr *e, bool use_divisible);
bool sdb_se_needs_facts(const sdb_expr *e);
bool sdb_se_range_fn(void *ud, const sdb_expr *sym, sdb_range *out);
sdb_range sdb_se_bound_raw(sdb_shape_env *env, const sdb_expr *e);

/* shape_env_facts.c's, for shape_env.c and shape_env_guards.c */
/* e's value when it is known statically (a constant), else NULL; use_axioms
** false leaves out the facts learned from guards (produce_guards) */
const sdb_expr *sdb_se_evaluate_static(sdb_shape_env *env, const sdb_expr *e, bool use_axioms);
/* a guard or runtime assert becomes a fact (read at the next refresh) */
bool sdb_se_add_fact(sdb_shape_env *env, const sdb_expr *g);

#endif
