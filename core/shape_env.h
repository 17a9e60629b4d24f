/*
** shape_env.h — PyTorch's ShapeEnv (torch/fx/experimental/symbolic_shapes.py)
** in C: what is known about every size.
**
** Backed symbols s0, s1, ... come from a source with a hint; unbacked
** symbols u0, u1, ... have none. evaluate() decides an expression
** statically when it can (replacements, value ranges, divisibility, known
** facts), otherwise guards on the hints, and when an unbacked symbol is left
** fails with GuardOnDataDependentSymNode. check() is torch._check: a
** deferred runtime assert that also refines ranges. Every change of state is
** an event on the stream given at creation (NULL: no events).
**
** Ownership: the ShapeEnv owns its tables; expressions, sources and strings
** it hands out are interned and outlive it.
*/
#ifndef SDB_SHAPE_ENV_H
#define SDB_SHAPE_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "event.h"
#include "expr.h"
#include "ranges.h"
#include "source.h"
#include "symctx.h"

typedef struct sdb_shape_env sdb_shape_env;

/* Where something happened: the phase, the operator and the user's line. */
typedef struct sdb_prov {
  sdb_phase phase;
  const char *op;      /* interned, may be NULL */
  sdb_loc loc;         /* file may be NULL */
  long seq;            /* the event that recorded it, -1 without a stream */
} sdb_prov;

typedef enum { SDB_SYM_INT, SDB_SYM_BOOL, SDB_SYM_FLOAT } sdb_sym_type;

typedef struct sdb_symbol_info {
  const sdb_expr *sym;
  bool unbacked;
  sdb_sym_type type;
  bool size_like;
  bool has_hint;
  int64_t hint;
  sdb_range range;
  const sdb_source **sources;   /* backed: every source, the first is canonical */
  size_t nsources;
  size_t index;                 /* creation order among all symbols */
  sdb_prov created;
} sdb_symbol_info;

typedef struct sdb_guard {
  const sdb_expr *expr;         /* as taken: `Eq(s0, s1)`, `s0 < 5` */
  sdb_prov prov;
} sdb_guard;

typedef struct sdb_runtime_assert {
  const sdb_expr *expr;
  const sdb_expr *key;          /* unbacked symbol with the highest index, or NULL */
  const char *msg;              /* interned */
  sdb_prov prov;
} sdb_runtime_assert;

typedef struct sdb_replacement {
  const sdb_expr *sym;
  const sdb_expr *target;
  const char *reason;           /* "solve", "trivial_lhs", "rename_unbacked_to", ... */
  sdb_prov prov;
} sdb_replacement;

typedef struct sdb_specialization {
  const sdb_source *source;
  int64_t value;
  const char *reason;           /* "0/1 specialization", "static", ... */
  sdb_prov prov;
} sdb_specialization;

typedef struct sdb_renaming {
  const sdb_expr *from, *to;
  const char *why;
  sdb_prov prov;
} sdb_renaming;

/* (source, expression) pairs in the order inputs were fakified: what
** produce_guards renders against. */
typedef struct sdb_tracked {
  const sdb_source *source;
  const sdb_expr *expr;
  sdb_prov prov;           /* where the input was fakified */
} sdb_tracked;

typedef struct sdb_shape_env_opts {
  bool duck_shape;              /* default true */
  bool specialize_zero_one;     /* default true */
} sdb_shape_env_opts;

sdb_shape_env_opts sdb_shape_env_default_opts(void);
sdb_shape_env *sdb_shape_env_new(sdb_events *events, const sdb_shape_env_opts *opts);
void sdb_shape_env_free(sdb_shape_env *env);
sdb_events *sdb_shape_env_events(const sdb_shape_env *env);

/* --- symbols -------------------------------------------------------------- */

/* A size/stride/int from `source` with hint `hint`. The result is a symbol,
** or an Integer when the dim is specialized (0/1, STATIC). spec may be NULL
** (DUCK); ctx, when stateful, is consulted and filled (seed 000). */
int sdb_create_symbol(sdb_shape_env *env, int64_t hint, const sdb_source *source,
                      const sdb_dim_spec *spec, sdb_symctx *ctx,
                      const sdb_expr **out, sdb_err *err);
/* Record (source, expr) for produce_guards without creating a symbol (a
** stride computed from sizes, for instance). */
bool sdb_track(sdb_shape_env *env, const sdb_source *source, const sdb_expr *e);

const sdb_expr *sdb_create_unbacked_symint(sdb_shape_env *env);
const sdb_expr *sdb_create_unbacked_symbool(sdb_shape_env *env); /* Eq(uN, 1) */
/* An unbacked size for a data-dependent output (nonzero, unique, ...):
** created directly with range [lo, hi] and size-like, as
** _constrain_range_for_size right after allocation leaves it. */
const sdb_expr *sdb_create_unbacked_size(sdb_shape_env *env, int64_t lo, int64_t hi);
const sdb_expr *sdb_create_unbacked_symfloat(sdb_shape_env *env);

const sdb_symbol_info *sdb_symbol(const sdb_shape_env *env, const sdb_expr *sym);
size_t sdb_symbol_count(const sdb_shape_env *env);
const sdb_symbol_info *sdb_symbol_at(const sdb_shape_env *env, size_t i);
bool sdb_is_unbacked(const sdb_shape_env *env, const sdb_expr *sym);
sdb_range sdb_symbol_range(const sdb_shape_env *env, const sdb_expr *sym);
/* Do free symbols of e include one without a hint? */
bool sdb_has_unbacked(const sdb_shape_env *env, const sdb_expr *e);

/* --- pending fresh unbacked symbols (seed 001) ------------------------------ */
size_t sdb_pending_count(const sdb_shape_env *env);
const sdb_expr *sdb_pending_at(const sdb_shape_env *env, size_t i);
bool sdb_is_pending(const sdb_shape_env *env, const sdb_expr *sym);
void sdb_pending_clear(sdb_shape_env *env);         /* emits pending_changed {} */
/* Drop the listed symbols from pending (they were bound). */
void sdb_pending_remove(sdb_shape_env *env, const sdb_expr *const *syms, size_t n);
/* ignore_fresh_unbacked_symbols(): nested scopes, nothing becomes pending. */
void sdb_ignore_fresh_push(sdb_shape_env *env);
void sdb_ignore_fresh_pop(sdb_shape_env *env);
bool sdb_ignoring_fresh(const sdb_shape_env *env);

/* --- reasoning ---------------------------------------------------------------- */

/* Apply replacements and the facts that rewrite (divisibility, ranges). */
const sdb_expr *sdb_simplify(sdb_shape_env *env, const sdb_expr *e);
/* Decide e without guarding: a constant, or NULL when not known. */
const sdb_expr *sdb_maybe_evaluate_static(sdb_shape_env *env, const sdb_expr *e);
bool sdb_statically_known_true(sdb_shape_env *env, const sdb_expr *e);
/* The same, size-obliviously: a size-like unbacked symbol counts as >= 2
** (so Eq(u0, 1) is False). Records nothing; core/decide builds on it. */
const sdb_expr *sdb_maybe_evaluate_static_oblivious(sdb_shape_env *env, const sdb_expr *e);
/* The range of e under the current ranges and replacements. */
sdb_range sdb_bound_in(sdb_shape_env *env, const sdb_expr *e);
/* For tests: bring the axioms (what guards and asserts imply) up to date,
** as the next static evaluation would, and compare them with a rebuild
** from scratch. 0 equal, 1 different, -1 out of memory. Building with
** -DSDB_CHECK_AXIOMS makes every refresh assert that it is not 1. */
int sdb_shape_env_check_axioms(sdb_shape_env *env);

/* Decide e: statically if possible, else by hints with a guard recorded;
** with an unbacked symbol left, SDB_E_DATA_DEPENDENT (PyTorch's message).
** *out is True/False for booleans, an Integer for integers. */
int sdb_evaluate(sdb_shape_env *env, const sdb_expr *e, const sdb_expr **out,
                 sdb_err *err);
int sdb_guard_bool(sdb_shape_env *env, const sdb_expr *e, bool *out, sdb_err *err);
int sdb_guard_int(sdb_shape_env *env, const sdb_expr *e, int64_t *out, sdb_err *err);
/* guard_or_false / guard_or_true: decide statically, else guard on hints
** when every symbol is backed, else assume the default and record nothing
** (PyTorch logs "could not evaluate ... it was assumed to be False"). */
bool sdb_guard_or_false(sdb_shape_env *env, const sdb_expr *e);
bool sdb_guard_or_true(sdb_shape_env *env, const sdb_expr *e);
/* The value under hints, without a guard (size_hint); DDE if unbacked. */
int sdb_size_hint(sdb_shape_env *env, const sdb_expr *e, int64_t *out, sdb_err *err);

/* torch._check(e, msg): decided statically -> nothing; false -> error; no
** unbacked symbols -> a normal guard; else a deferred runtime assert that
** refines ranges and may add replacements. msg may be NULL. */
int sdb_check(sdb_shape_env *env, const sdb_expr *e, const char *msg, sdb_err *err);
/* torch._check_is_size(u): _check(u >= 0), then size-like with [0, int_oo]. */
int sdb_check_is_size(sdb_shape_env *env, const sdb_expr *e, sdb_err *err);
/* Intersect a symbol's range with [lo, hi] (SDB_NINF / SDB_PINF for none). */
int sdb_constrain_range(sdb_shape_env *env, const sdb_expr *sym, int64_t lo,
                        int64_t hi, const char *why, sdb_err *err);
/* Mark an unbacked symbol size-like (refines to [0, int_oo]). */
int sdb_mark_size_like(sdb_shape_env *env, const sdb_expr *sym, sdb_err *err);

/* _rename_unbacked_to: orig -> new as a replacement and a renaming; a
** replacement orig had is re-applied to new (seed 003). */
int sdb_rename_unbacked_to(sdb_shape_env *env, const sdb_expr *orig,
                           const sdb_expr *new_sym, const char *why, sdb_err *err);
/* _eliminate_unbacked: orig becomes a replacement for a non-symbol value. */
int sdb_eliminate_unbacked(sdb_shape_env *env, const sdb_expr *orig,
                           const sdb_expr *value, sdb_err *err);
/* Follow renamings: the name an old binding's symbol goes by now. */
const sdb_expr *sdb_resolve_renamed(const sdb_shape_env *env, const sdb_expr *sym);

/* --- what is recorded ------------------------------------------------------------ */
size_t sdb_guard_count(const sdb_shape_env *env);
const sdb_guard *sdb_guard_at(const sdb_shape_env *env, size_t i);
size_t sdb_assert_count(const sdb_shape_env *env);
const sdb_runtime_assert *sdb_assert_at(const sdb_shape_env *env, size_t i);
size_t sdb_replacement_count(const sdb_shape_env *env);
const sdb_replacement *sdb_replacement_at(const sdb_shape_env *env, size_t i);
const sdb_expr *sdb_replacement_of(const sdb_shape_env *env, const sdb_expr *sym);
size_t sdb_specialization_count(const sdb_shape_env *env);
const sdb_specialization *sdb_specialization_at(const sdb_shape_env *env, size_t i);
size_t sdb_renaming_count(const sdb_shape_env *env);
const sdb_renaming *sdb_renaming_at(const sdb_shape_env *env, size_t i);
size_t sdb_tracked_count(const sdb_shape_env *env);
const sdb_tracked *sdb_tracked_at(const sdb_shape_env *env, size_t i);

/* --- rebuilding a ShapeEnv from a record (core/probe) ----------------------------- */

/* Declare sym as a record says it stands: unbacked or backed (with hint),
** its type, range and size-likeness, with no source and no event. The
** s/u/zuf counter passes its number, so symbols created later never reuse
** the name. SDB_E_INVALID if sym is not a symbol or is already declared. */
int sdb_declare_symbol(sdb_shape_env *env, const sdb_expr *sym, bool unbacked,
                       sdb_sym_type type, bool has_hint, int64_t hint,
                       sdb_range range, bool size_like, sdb_err *err);
/* Record the replacement sym -> target as it stands, with no range
** propagation and no event (the declared ranges already reflect it).
** SDB_E_INVALID when it would make a cycle (target leads back to sym). */
int sdb_restore_replacement(sdb_shape_env *env, const sdb_expr *sym,
                            const sdb_expr *target, const char *reason,
                            sdb_err *err);

/* --- guards in source form ----------------------------------------------------------- */

typedef enum {
  SDB_SG_EQUALITY,   /* source == expr (duck sizing, replacement) */
  SDB_SG_GUARD,      /* a recorded guard not implied by the ranges */
  SDB_SG_RANGE,      /* lo <= source [<= hi] for a backed symbol */
  SDB_SG_STATIC      /* a static tensor property (checked, not printed by PyTorch) */
} sdb_shape_guard_kind;

typedef struct sdb_shape_guard {
  sdb_shape_guard_kind kind;
  const sdb_source *source;     /* EQUALITY, RANGE, STATIC */
  const sdb_expr *expr;         /* EQUALITY: the value; GUARD: the guard */
  const sdb_expr *sym;          /* RANGE */
  sdb_range range;              /* RANGE */
  const char *text;             /* PyTorch's python rendering, interned */
  sdb_prov prov;                /* where it was taken */
} sdb_shape_guard;

typedef struct sdb_shape_guards {
  sdb_shape_guard *v;
  size_t n;
} sdb_shape_guards;

/* produce_guards: the equalities between inputs, the guards not implied by
** ranges, then the range of each backed symbol, printed against sources
** (`L['x'].size()[0] == L['y'].size()[0]`, `2 <= L['x'].size()[0]`).
** Static tensor properties are included as SDB_SG_STATIC entries (Dynamo
** checks them through TENSOR_MATCH). Free with sdb_shape_guards_free. */
int sdb_produce_guards(sdb_shape_env *env, sdb_shape_guards *out, sdb_err *err);
void sdb_shape_guards_free(sdb_shape_guards *g);

/* The value of a source in a new call; return 0 and set *out, or -1. */
typedef int (*sdb_source_value_fn)(void *ud, const sdb_source *src, int64_t *out);

/* Check every guard against new inputs. Returns the number of failing
** guards (0 = hit); the index of each failure goes in failed[] (up to
** cap), and a PyTorch-style reason per failure in reasons (joined by
** newlines, may be NULL). -1 with err on a missing input value. */
int sdb_check_guards(const sdb_shape_guards *g, sdb_source_value_fn value_of,
                     void *ud, size_t *failed, size_t cap, char **reasons,
                     sdb_err *err);

#endif
