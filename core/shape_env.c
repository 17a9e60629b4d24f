/*
** shape_env.c — the ShapeEnv (see shape_env.h).
**
** The rules follow torch/fx/experimental/symbolic_shapes.py:
**   create_symbol      duck sizing, 0/1 specialization, [2, int_oo] ranges
**   evaluate           _maybe_evaluate_static, then hint + guard, else DDE
**   check              guard_or_defer_runtime_assert
**   maybe_guard_rel    _refine_ranges, trivial_solve, solve, divisibility
**   set_replacement    ranges intersected, size-like propagated
**   rename_unbacked_to re-applies the old replacement to the new symbol
**   produce_guards     equalities, surviving guards, then ranges
**                      (shape_env_guards.c, with check_guards)
**   get_axioms         each guard's and assert's implications, kept up to
**                      date a fact at a time (shape_env_facts.c, with
**                      _maybe_evaluate_static)
*/
#include "shape_env.h"
#include "shape_env_impl.h"
#include "buf.h"
#include "intern.h"
#include "map.h"
#include "srcfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



/* ------------------------------------------------------------------------
** Lifetime, provenance, events
** ---------------------------------------------------------------------- */

sdb_shape_env_opts sdb_shape_env_default_opts(void) {
  sdb_shape_env_opts o = {true, true};
  return o;
}

sdb_shape_env *sdb_shape_env_new(sdb_events *events, const sdb_shape_env_opts *opts) {
  sdb_shape_env *env = sdb_noted(calloc(1, sizeof *env));
  if (!env) return NULL;
  env->ev = events;
  env->opts = opts ? *opts : sdb_shape_env_default_opts();
  env->axioms_version = (unsigned)-1;
  env->first_rewrite = SIZE_MAX;
  return env;
}

void sdb_shape_env_free(sdb_shape_env *env) {
  if (!env) return;
  for (size_t i = 0; i < env->syms.len; i++) {
    sdb_symbol_info *s = env->syms.vals[i];
    free(s->sources);
    free(s);
  }
  for (size_t i = 0; i < env->repl.len; i++) free(env->repl.vals[i]);
  sdb_map_free(&env->syms);
  sdb_map_free(&env->val_to_var);
  sdb_map_free(&env->repl);
  sdb_map_free(&env->divisible);
  sdb_map_free(&env->renamed);
  sdb_map_free(&env->axioms);
  for (size_t i = 0; i < env->ax_puts.len; i++) {
    ax_entry *a = env->ax_puts.vals[i];
    free(a->p);
    free(a);
  }
  sdb_map_free(&env->ax_puts);
  for (size_t i = 0; i < env->sym_facts.len; i++) {
    idx_vec *v = env->sym_facts.vals[i];
    free(v->v);
    free(v);
  }
  sdb_map_free(&env->sym_facts);
  sdb_map_free(&env->repl_dirty);
  free(env->rw_facts);
  for (size_t i = 0; i < env->nfacts; i++) {
    free(env->facts[i].impl);
    free(env->facts[i].implv);
  }
  free(env->guards);
  free(env->asserts);
  free(env->specs);
  free(env->renames);
  free(env->tracked);
  free(env->pending);
  free(env->facts);
  free(env);
}

sdb_events *sdb_shape_env_events(const sdb_shape_env *env) { return env->ev; }

static sdb_prov prov_now(sdb_shape_env *env) {
  sdb_prov p;
  p.phase = sdb_events_phase(env->ev);
  p.op = sdb_events_op(env->ev);
  sdb_events_locate(env->ev, &p.loc);
  p.seq = -1;
  return p;
}

static long emit(sdb_shape_env *env, const sdb_event_in *e) {
  return env->ev ? sdb_emit(env->ev, e) : -1;
}

/* e's text for a message or an event's detail; out of memory, "?" (or
** NULL), and the event stream counts what it says as lost. */
static char *estr(sdb_shape_env *env, const sdb_expr *e) {
  char *s = e ? sdb_expr_str(e) : NULL;
  if (s) return s;
  if (e) sdb_events_note_lost(env->ev);
  return sdb_noted(strdup("?"));
}

/* ------------------------------------------------------------------------
** Symbols
** ---------------------------------------------------------------------- */

sdb_symbol_info *sdb_se_info_of(const sdb_shape_env *env, const sdb_expr *sym) {
  return sym && sym->kind == SDB_SYM ? sdb_map_get(&env->syms, sym) : NULL;
}

const sdb_symbol_info *sdb_symbol(const sdb_shape_env *env, const sdb_expr *sym) {
  return sdb_se_info_of(env, sym);
}

size_t sdb_symbol_count(const sdb_shape_env *env) { return env->syms.len; }

const sdb_symbol_info *sdb_symbol_at(const sdb_shape_env *env, size_t i) {
  return i < env->syms.len ? env->syms.vals[i] : NULL;
}

bool sdb_is_unbacked(const sdb_shape_env *env, const sdb_expr *sym) {
  const sdb_symbol_info *s = sdb_se_info_of(env, sym);
  return s ? s->unbacked : (sym->kind == SDB_SYM && !strncmp(sym->name, "u", 1));
}

sdb_range sdb_symbol_range(const sdb_shape_env *env, const sdb_expr *sym) {
  if (env->spoiled) return sdb_range_unknown();   /* maybe half refined: not known */
  const sdb_symbol_info *s = sdb_se_info_of(env, sym);
  return s ? s->range : sdb_range_unknown();
}

bool sdb_has_unbacked(const sdb_shape_env *env, const sdb_expr *e) {
  if (e->kind == SDB_SYM) {
    const sdb_symbol_info *s = sdb_se_info_of(env, e);
    return s ? !s->has_hint : true;
  }
  for (size_t i = 0; i < e->nargs; i++)
    if (sdb_has_unbacked(env, e->args[i])) return true;
  return false;
}

static sdb_symbol_info *new_symbol(sdb_shape_env *env, const sdb_expr *sym) {
  sdb_symbol_info *s = sdb_noted(calloc(1, sizeof *s));
  if (!s) return NULL;
  s->sym = sym;
  s->index = env->syms.len;
  s->created = prov_now(env);
  if (!sdb_map_put(&env->syms, sym, s)) { free(s); return NULL; }
  /* a fact may name a symbol before it exists (built by name); its range
  ** now comes from the table. Not a `version` bump: creating a symbol never
  ** refreshed the axioms by itself, and must not start to. The callers set
  ** s->range before anything can refresh. */
  env->rewrite_gen++;
  return s;
}

static bool add_source(sdb_symbol_info *s, const sdb_source *src) {
  for (size_t i = 0; i < s->nsources; i++)
    if (s->sources[i] == src) return true;
  const sdb_source **v = sdb_noted(realloc(s->sources, (s->nsources + 1) * sizeof *v));
  if (!v) return false;
  v[s->nsources++] = src;
  s->sources = v;
  return true;
}

bool sdb_track(sdb_shape_env *env, const sdb_source *source, const sdb_expr *e) {
  if (!source || !e) return false;
  if (!GROW(env->tracked, env->ntracked, env->captracked)) return false;
  env->tracked[env->ntracked].source = source;
  env->tracked[env->ntracked].expr = e;
  env->tracked[env->ntracked].prov = prov_now(env);
  env->ntracked++;
  return true;
}

int sdb_se_oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

static int record_specialization(sdb_shape_env *env, const sdb_source *src,
                                 const sdb_expr *sym, int64_t value,
                                 const char *reason) {
  if (!GROW(env->specs, env->nspecs, env->capspecs)) return -1;
  sdb_specialization *sp = &env->specs[env->nspecs++];
  sp->source = src;
  sp->value = value;
  sp->reason = sdb_intern(reason);
  sp->prov = prov_now(env);
  sdb_event_in e = {0};
  e.kind = SDB_EV_SPECIALIZATION;
  sdb_event_more more = {.sym = sym, .expr = sdb_int(value)};
  e.more = &more;
  e.text = src ? src->name : NULL;
  e.detail = reason;
  sp->prov.seq = emit(env, &e);
  return 0;
}

static void emit_pending(sdb_shape_env *env) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_PENDING_CHANGED;
  sdb_event_more more = {.syms = env->pending, .nsyms = (uint32_t)env->npending};
  e.more = &more;
  emit(env, &e);
}

int sdb_create_symbol(sdb_shape_env *env, int64_t hint, const sdb_source *source,
                      const sdb_dim_spec *spec, sdb_symctx *ctx,
                      const sdb_expr **out, sdb_err *err) {
  sdb_dim_spec d = spec ? *spec : sdb_symctx_dim(NULL, 0);
  *out = NULL;
  if (env->spoiled) return sdb_se_oom(err);
  if (!source) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "create_symbol needs a source");
  const sdb_expr *cached = sdb_symctx_cached(ctx, env, source);
  if (cached) {
    *out = cached;
    const sdb_symbol_info *ci = sdb_se_info_of(env, cached);
    if (ci && ci->has_hint && ci->hint != hint)
      return sdb_err_set(err, SDB_E_CONSTRAINT, "ConstraintViolationError",
                         "%s is cached as %s with hint %lld, but the input has size %lld",
                         source->name, cached->name, (long long)ci->hint, (long long)hint);
    return sdb_track(env, source, cached) ? SDB_OK : sdb_se_oom(err);
  }
  const sdb_expr *r = NULL;
  if (d.dynamic != SDB_DIM_UNBACKED && d.has_min && d.has_max && d.min == d.max) {
    if (d.min != hint)
      return sdb_err_set(err, SDB_E_CONSTRAINT, "ConstraintViolationError",
                         "Static shape constraint of %lld does not match input size of %lld, for %s",
                         (long long)d.min, (long long)hint, source->name);
    d.dynamic = SDB_DIM_STATIC;
  }
  if (d.dynamic == SDB_DIM_UNBACKED) {
    r = sdb_create_unbacked_symint(env);
    if (!r) return sdb_se_oom(err);
    int rc = sdb_mark_size_like(env, r, err);
    /* mark_unbacked(t, d, min=, max=): the range the user promised */
    if (!rc && (d.has_min || d.has_max))
      rc = sdb_constrain_range(env, r, d.has_min ? d.min : 0, d.has_max ? d.max : SDB_PINF,
                               "mark_unbacked", err);
    if (rc) return rc;
  } else if (d.dynamic == SDB_DIM_STATIC) {
    r = sdb_int(hint);   /* a constant by policy: nothing to record */
    if (!r) return sdb_err_expr(err);
  } else if (!d.unspecified && env->opts.specialize_zero_one && (hint == 0 || hint == 1)) {
    r = sdb_int(hint);
    if (!r || record_specialization(env, source, NULL, hint, "0/1 specialization")) return sdb_se_oom(err);
  } else {
    bool duck = env->opts.duck_shape && d.dynamic == SDB_DIM_DUCK && !d.unspecified &&
                !d.has_min && !d.has_max;
    const sdb_expr *key = sdb_int(hint);
    if (!key) return sdb_err_expr(err);
    const sdb_expr *hit = duck ? sdb_map_get(&env->val_to_var, key) : NULL;
    if (hit) {
      sdb_symbol_info *s = sdb_se_info_of(env, hit);
      if (!add_source(s, source)) return sdb_se_oom(err);
      r = hit;
      sdb_event_in e = {0};
      e.kind = SDB_EV_CREATE_SYMBOL;
      e.flags = 1;
      e.value = hint;
      sdb_event_more e_more = {.sym = hit, .has_range = true, .range = s->range};
      e.more = &e_more;
      e.text = source->name;
      e.detail = "duck sized";
      emit(env, &e);
    } else {
      sdb_range vr = d.unspecified ? sdb_range_unknown()
                   : sdb_range_make(env->opts.specialize_zero_one ? 2 : 0, SDB_PINF);
      if (d.has_min) vr.lo = vr.lo > d.min ? vr.lo : d.min;
      if (d.has_max) vr.hi = vr.hi < d.max ? vr.hi : d.max;
      if (!sdb_range_contains(vr, hint)) {
        char lo[32], hi[32];
        return sdb_err_set(err, SDB_E_CONSTRAINT, "ConstraintViolationError",
                           "%lld not in range [%s, %s]", (long long)hint,
                           sdb_bound_str(vr.lo, lo, sizeof lo), sdb_bound_str(vr.hi, hi, sizeof hi));
      }
      char name[32];
      snprintf(name, sizeof name, "s%d", env->next_s++);
      r = sdb_sym(name);
      if (!r) return sdb_err_expr(err);
      sdb_symbol_info *s = new_symbol(env, r);
      if (!s || !add_source(s, source)) return sdb_se_oom(err);
      s->has_hint = true;
      s->hint = hint;
      s->range = vr;
      if (duck && !sdb_map_put(&env->val_to_var, key, (void *)r)) return sdb_se_oom(err);
      sdb_event_in e = {0};
      e.kind = SDB_EV_CREATE_SYMBOL;
      e.value = hint;
      sdb_event_more e_more = {.sym = r, .has_range = true, .range = vr};
      e.more = &e_more;
      e.text = source->name;
      s->created.seq = emit(env, &e);
    }
  }
  if (!sdb_track(env, source, r) || !sdb_symctx_remember(ctx, env, source, r)) return sdb_se_oom(err);
  *out = r;
  return SDB_OK;
}

static const sdb_expr *create_unbacked(sdb_shape_env *env, const char *prefix,
                                       int *counter, sdb_sym_type type,
                                       sdb_range vr, const char *what,
                                       bool size_like) {
  if (env->spoiled) return NULL;
  char name[32];
  snprintf(name, sizeof name, "%s%d", prefix, (*counter)++);
  const sdb_expr *sym = sdb_sym(name);
  if (!sym) return NULL;
  sdb_symbol_info *s = new_symbol(env, sym);
  if (!s) return NULL;
  s->unbacked = true;
  s->type = type;
  s->range = vr;
  s->size_like = size_like;
  sdb_event_in e = {0};
  e.kind = SDB_EV_CREATE_UNBACKED;
  sdb_event_more e_more = {.sym = sym, .has_range = true, .range = vr};
  e.more = &e_more;
  e.text = what;
  e.flags = size_like ? SDB_EVF_SIZE_LIKE : 0;
  s->created.seq = emit(env, &e);
  if (env->ignore_fresh == 0) {
    if (!GROW(env->pending, env->npending, env->cappending)) return NULL;
    env->pending[env->npending++] = sym;
    emit_pending(env);
  }
  return sym;
}

const sdb_expr *sdb_create_unbacked_symint(sdb_shape_env *env) {
  return create_unbacked(env, "u", &env->next_u, SDB_SYM_INT, sdb_range_unknown(), "int", false);
}

const sdb_expr *sdb_create_unbacked_size(sdb_shape_env *env, int64_t lo, int64_t hi) {
  return create_unbacked(env, "u", &env->next_u, SDB_SYM_INT, sdb_range_make(lo, hi),
                         "int", true);
}

const sdb_expr *sdb_create_unbacked_symbool(sdb_shape_env *env) {
  const sdb_expr *u = create_unbacked(env, "u", &env->next_u, SDB_SYM_BOOL,
                                      sdb_range_make(0, 1), "bool", false);
  return u ? sdb_eq(u, sdb_int(1)) : NULL;
}

const sdb_expr *sdb_create_unbacked_symfloat(sdb_shape_env *env) {
  return create_unbacked(env, "zuf", &env->next_zuf, SDB_SYM_FLOAT,
                         sdb_range_unknown(), "float", false);
}

/* ------------------------------------------------------------------------
** Pending fresh unbacked symbols
** ---------------------------------------------------------------------- */

size_t sdb_pending_count(const sdb_shape_env *env) { return env->npending; }

const sdb_expr *sdb_pending_at(const sdb_shape_env *env, size_t i) {
  return i < env->npending ? env->pending[i] : NULL;
}

bool sdb_is_pending(const sdb_shape_env *env, const sdb_expr *sym) {
  for (size_t i = 0; i < env->npending; i++)
    if (env->pending[i] == sym) return true;
  return false;
}

void sdb_pending_clear(sdb_shape_env *env) {
  if (env->npending == 0) return;
  env->npending = 0;
  emit_pending(env);
}

void sdb_pending_remove(sdb_shape_env *env, const sdb_expr *const *syms, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < env->npending; i++) {
    bool drop = false;
    for (size_t j = 0; j < n; j++) drop |= env->pending[i] == syms[j];
    if (!drop) env->pending[w++] = env->pending[i];
  }
  if (w == env->npending) return;
  env->npending = w;
  emit_pending(env);
}

void sdb_ignore_fresh_push(sdb_shape_env *env) { env->ignore_fresh++; }
void sdb_ignore_fresh_pop(sdb_shape_env *env) { if (env->ignore_fresh > 0) env->ignore_fresh--; }
bool sdb_ignoring_fresh(const sdb_shape_env *env) { return env->ignore_fresh > 0; }

/* ------------------------------------------------------------------------
** Replacements and simplification
** ---------------------------------------------------------------------- */

static const sdb_expr *find(sdb_shape_env *env, const sdb_expr *sym);

/* Replace every free symbol by its representative. */
const sdb_expr *sdb_se_replace(sdb_shape_env *env, const sdb_expr *e) {
  if (!e || env->repl.len == 0 || sdb_is_const(e)) return e;
  if (e->kind == SDB_SYM) return find(env, e);
  size_t slot = ((uintptr_t)e >> 4) & (sizeof env->replaced / sizeof env->replaced[0] - 1);
  if (env->replaced[slot].e == e && env->replaced[slot].gen == env->repl_gen) return env->replaced[slot].r;
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  const sdb_expr **vals = n > 0 ? sdb_noted(malloc((size_t)n * sizeof *vals)) : NULL;
  if (n == 0) return e;
  if (!vals) {   /* out of memory: not e unreplaced */
    free(fs);
    sdb_expr_set_error("out of memory");
    return NULL;
  }
  size_t m = 0;
  for (long i = 0; i < n; i++) {
    const sdb_expr *t = find(env, fs[i]);
    if (t != fs[i]) { fs[m] = fs[i]; vals[m] = t; m++; }
  }
  const sdb_expr *r = m ? sdb_subs(e, fs, vals, m) : e;
  free(fs);
  free(vals);
  if (r) {
    env->replaced[slot].e = e;
    env->replaced[slot].r = r;
    env->replaced[slot].gen = env->repl_gen;
  }
  return r;
}

/* The representative of sym, compressing the path as PyTorch's _find does. */
static const sdb_expr *find(sdb_shape_env *env, const sdb_expr *sym) {
  sdb_replacement *r = sdb_map_get(&env->repl, sym);
  if (!r) return sym;
  const sdb_expr *t = sdb_se_replace(env, r->target);
  if (t && t != r->target) r->target = t;
  return r->target;
}

const sdb_expr *sdb_replacement_of(const sdb_shape_env *env, const sdb_expr *sym) {
  const sdb_replacement *r = sdb_map_get(&env->repl, sym);
  return r ? r->target : NULL;
}

bool sdb_se_range_fn(void *ud, const sdb_expr *sym, sdb_range *out) {
  const sdb_shape_env *env = ud;
  const sdb_symbol_info *s = sdb_se_info_of(env, sym);
  if (!s) return false;
  *out = s->range;
  /* size-oblivious reasoning: a size-like unbacked symbol is taken to be
  ** >= 2 (PyTorch's _maybe_evaluate_static(size_oblivious=True)) */
  if (env->size_oblivious && s->unbacked && s->size_like && out->lo < 2 && out->hi >= 2) out->lo = 2;
  return true;
}

sdb_range sdb_se_bound_raw(sdb_shape_env *env, const sdb_expr *e) {
  return sdb_bound(e, sdb_se_range_fn, env);
}

static bool range_within(sdb_range inner, sdb_range outer) {
  return inner.lo >= outer.lo && inner.hi <= outer.hi;
}

/* Rewrites that need facts: Mod of a divisible, Mod/FloorDiv of an argument
** already below the divisor, Max/Min of arguments ordered by their ranges. */
const sdb_expr *sdb_se_facts_rewrite(sdb_shape_env *env, const sdb_expr *e,
                                     bool use_divisible) {
  if (e->nargs == 0) return e;
  const sdb_expr *small[8];
  const sdb_expr **args = e->nargs <= 8 ? small : sdb_noted(malloc(e->nargs * sizeof *args));
  if (!args) return NULL;
  bool changed = false;
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < e->nargs; i++) {
    args[i] = sdb_se_facts_rewrite(env, e->args[i], use_divisible);
    if (!args[i]) goto out;
    changed |= args[i] != e->args[i];
  }
  r = changed ? sdb_rebuild((sdb_kind)e->kind, e->ival, args, e->nargs) : e;
  if (!r || r->nargs == 0) goto out;
  if ((r->kind == SDB_MOD || r->kind == SDB_FLOORDIV) && r->args[1]->kind == SDB_INT &&
      r->args[1]->ival > 0) {
    if (use_divisible && r->kind == SDB_MOD && sdb_map_has(&env->divisible, r)) {
      r = sdb_int(0);
      goto out;
    }
    sdb_range a = sdb_se_bound_raw(env, r->args[0]);
    if (a.lo >= 0 && a.hi < r->args[1]->ival)
      r = r->kind == SDB_MOD ? r->args[0] : sdb_int(0);
  } else if (r->kind == SDB_MAX || r->kind == SDB_MIN) {
    const sdb_expr *keep[64];
    size_t nk = 0;
    bool dropped = false;
    for (size_t i = 0; i < r->nargs && r->nargs <= 64; i++) {
      bool dominated = false;
      for (size_t j = 0; j < r->nargs && !dominated; j++) {
        if (i == j) continue;
        const sdb_expr *d = sdb_sub(r->args[j], r->args[i]);
        if (!d) continue;
        sdb_range dr = sdb_se_bound_raw(env, d);
        /* arg j is always >= arg i (Max) or <= arg i (Min); ties keep the first */
        if (r->kind == SDB_MAX ? (dr.lo > 0 || (dr.lo == 0 && j < i))
                               : (dr.hi < 0 || (dr.hi == 0 && j < i)))
          dominated = true;
      }
      if (dominated) dropped = true;
      else keep[nk++] = r->args[i];
    }
    if (dropped && nk > 0) r = sdb_rebuild((sdb_kind)r->kind, 0, keep, nk);
  }
out:
  if (args != small) free(args);
  return r;
}

bool sdb_se_needs_facts(const sdb_expr *e) {
  if (e->kind == SDB_MOD || e->kind == SDB_FLOORDIV || e->kind == SDB_MAX || e->kind == SDB_MIN)
    return true;
  for (size_t i = 0; i < e->nargs; i++)
    if (sdb_se_needs_facts(e->args[i])) return true;
  return false;
}

/* Replacements, then rewrites by ranges and (when allowed) divisibility. */
const sdb_expr *sdb_se_simplify_with(sdb_shape_env *env, const sdb_expr *e,
                                     bool use_divisible) {
  if (!e) return NULL;
  const sdb_expr *r = sdb_se_replace(env, e);
  if (r && sdb_se_needs_facts(r)) r = sdb_se_facts_rewrite(env, r, use_divisible);
  return r;
}

const sdb_expr *sdb_simplify(sdb_shape_env *env, const sdb_expr *e) {
  if (env->spoiled) return e;   /* its replacements and facts may be half done */
  return sdb_se_simplify_with(env, e, true);
}

sdb_range sdb_bound_in(sdb_shape_env *env, const sdb_expr *e) {
  if (env->spoiled) return sdb_range_unknown();
  const sdb_expr *s = sdb_simplify(env, e);
  return sdb_se_bound_raw(env, s ? s : e);
}

/* ------------------------------------------------------------------------
** Ranges and replacements
** ---------------------------------------------------------------------- */

static int set_replacement(sdb_shape_env *env, const sdb_expr *a,
                           const sdb_expr *tgt, const char *reason);

/* Narrow sym's range; emits range_refined. A singleton range becomes a
** replacement (range_refined_to_singleton) unless `singleton_ok` is false. */
static void update_range(sdb_shape_env *env, const sdb_expr *sym, sdb_range nr,
                         const char *why, bool singleton_ok) {
  sdb_symbol_info *s = sdb_se_info_of(env, sym);
  if (!s) return;
  nr = sdb_range_intersect(s->range, nr);
  nr.is_bool = false;
  if (sdb_range_is_empty(nr)) return;   /* contradiction: leave the facts to say so */
  if (nr.lo == s->range.lo && nr.hi == s->range.hi) return;
  s->range = nr;
  env->version++;
  env->rewrite_gen++;
  sdb_event_in e = {0};
  e.kind = SDB_EV_RANGE_REFINED;
  sdb_event_more e_more = {.sym = sym, .has_range = true, .range = nr};
  e.more = &e_more;
  e.detail = why;
  emit(env, &e);
  if (singleton_ok && sdb_range_is_singleton(nr) && !sdb_map_has(&env->repl, sym))
    set_replacement(env, sym, sdb_int(nr.lo), "range_refined_to_singleton");
}


/* _refine_ranges: for rel(lhs, rhs) solve for each symbol that occurs
** linearly and intersect its range with what the other side allows. */
static void refine_ranges(sdb_shape_env *env, const sdb_expr *rel) {
  if (rel->kind != SDB_LT && rel->kind != SDB_LE && rel->kind != SDB_EQ) return;
  if (sdb_is_bool(rel->args[0])) return;
  const sdb_expr *d = sdb_sub(rel->args[0], rel->args[1]);
  if (!d) return;
  const sdb_expr **fs;
  long n = sdb_free_symbols(d, &fs);
  if (n <= 0 || n > 5) { free(fs); return; }
  char *why = estr(env, rel);
  for (long i = 0; i < n; i++) {
    int64_t c;
    const sdb_expr *rest;
    if (!sdb_linear_in(d, fs[i], &c, &rest) || c == 0) continue;
    const sdb_expr *neg = sdb_neg(rest);
    if (!neg) continue;
    sdb_range R = sdb_se_bound_raw(env, neg);   /* c*x (rel) -rest, -rest in [A, B] */
    int64_t A = R.lo, B = R.hi;
    if (rel->kind == SDB_LT && B != SDB_PINF) B -= 1;
    sdb_range nr = sdb_range_unknown();
    if (B != SDB_PINF) {                 /* c*x <= B */
      if (c > 0) nr.hi = sdb_floor_div64(B, c);
      else nr.lo = sdb_ceil_div64(B, c);
    }
    if (rel->kind == SDB_EQ && A != SDB_NINF) {   /* c*x >= A */
      if (c > 0) nr.lo = sdb_ceil_div64(A, c);
      else nr.hi = sdb_floor_div64(A, c);
    }
    update_range(env, fs[i], nr, why, true);
  }
  free(why);
  free(fs);
}

static int set_replacement(sdb_shape_env *env, const sdb_expr *a,
                           const sdb_expr *tgt, const char *reason) {
  sdb_replacement *cur = sdb_map_get(&env->repl, a);
  if (cur && cur->target == tgt) return 0;
  if (sdb_has_symbol(tgt, a)) return 0;
  sdb_symbol_info *sa = sdb_se_info_of(env, a);
  if (sa) {
    sdb_range src = sa->range;
    sdb_range tb = sdb_se_bound_raw(env, tgt);
    sdb_symbol_info *sb = tgt->kind == SDB_SYM ? sdb_se_info_of(env, tgt) : NULL;
    if (sb) update_range(env, tgt, src, reason, false);
    update_range(env, a, tb, reason, false);
    if (sb) {
      if (sa->size_like && !sb->size_like) sdb_mark_size_like(env, tgt, NULL);
      else if (sb->size_like && !sa->size_like) sdb_mark_size_like(env, a, NULL);
    }
    if (!range_within(sdb_se_bound_raw(env, tgt), src)) return 0;   /* skipped set_replacement */
  }
  sdb_prov p = prov_now(env);
  if (tgt->kind == SDB_INT) {
    const sdb_source *src0 = sa && sa->nsources ? sa->sources[0] : NULL;
    if (record_specialization(env, src0, a, tgt->ival, reason)) return -1;
  }
  if (!cur) {
    cur = sdb_noted(calloc(1, sizeof *cur));
    if (!cur || !sdb_map_put(&env->repl, a, cur)) { free(cur); return -1; }
  }
  cur->sym = a;
  cur->target = tgt;
  cur->reason = sdb_intern(reason);
  cur->prov = p;
  env->version++;
  env->repl_gen++;
  sdb_map_put(&env->repl_dirty, a, (void *)a);
  sdb_event_in e = {0};
  e.kind = SDB_EV_REPLACEMENT_ADDED;
  sdb_event_more more = {.sym = a, .expr = tgt};
  e.more = &more;
  e.detail = reason;
  cur->prov.seq = emit(env, &e);
  return 0;
}

/* Symbols to try solving for, PyTorch's _smart_symbol_sort descending:
** unbacked (no hint) first, then larger hint, then newer. */
static int solve_order(const void *x, const void *y, void *envp) {
  sdb_shape_env *env = envp;
  const sdb_symbol_info *a = sdb_se_info_of(env, *(const sdb_expr *const *)x);
  const sdb_symbol_info *b = sdb_se_info_of(env, *(const sdb_expr *const *)y);
  int64_t ha = a && a->has_hint ? a->hint : INT64_MAX;
  int64_t hb = b && b->has_hint ? b->hint : INT64_MAX;
  if (ha != hb) return ha > hb ? -1 : 1;
  size_t ia = a ? a->index : 0, ib = b ? b->index : 0;
  return ia > ib ? -1 : ia < ib;
}

static void sort_solve(sdb_shape_env *env, const sdb_expr **v, long n) {
  for (long i = 1; i < n; i++)   /* insertion sort: n <= 5 */
    for (long j = i; j > 0 && solve_order(&v[j], &v[j - 1], env) < 0; j--) {
      const sdb_expr *t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
    }
}

/* _maybe_guard_rel: what a true relation teaches us. */
static void maybe_guard_rel(sdb_shape_env *env, const sdb_expr *g) {
  if (g->kind == SDB_AND) {
    for (size_t i = 0; i < g->nargs; i++) maybe_guard_rel(env, g->args[i]);
    return;
  }
  if (g->kind != SDB_EQ && g->kind != SDB_LT && g->kind != SDB_LE) return;
  if (sdb_is_bool(g->args[0])) return;
  refine_ranges(env, g);
  if (g->kind != SDB_EQ) return;
  const sdb_expr *lhs = g->args[0], *rhs = g->args[1];
  /* Eq(Mod(p, q), 0): p is divisible by q */
  if (lhs->kind == SDB_MOD && rhs->kind == SDB_INT && rhs->ival == 0) {
    sdb_map_put(&env->divisible, lhs, (void *)lhs);
    env->version++;
    env->rewrite_gen++;
    return;
  }
  /* trivial_solve: an unbacked symbol equal to something without unbacked
  ** symbols is replaced by it */
  for (int side = 0; side < 2; side++) {
    const sdb_expr *x = side ? rhs : lhs, *t = side ? lhs : rhs;
    if (x->kind == SDB_SYM && sdb_is_unbacked(env, x) && !sdb_has_unbacked(env, t)) {
      const sdb_expr *tt = sdb_se_replace(env, t);
      if (tt) set_replacement(env, x, tt, side ? "trivial_rhs" : "trivial_lhs");
      return;
    }
  }
  /* solve for the preferred symbol when it occurs linearly with a unit
  ** coefficient; never into an expression with unbacked symbols */
  const sdb_expr *d = sdb_sub(lhs, rhs);
  if (!d) return;
  const sdb_expr **fs;
  long n = sdb_free_symbols(d, &fs);
  if (n <= 0 || n > 5) { free(fs); return; }
  sort_solve(env, fs, n);
  int64_t c;
  const sdb_expr *rest;
  if (sdb_linear_in(d, fs[0], &c, &rest) && (c == 1 || c == -1)) {
    const sdb_expr *sol = c == 1 ? sdb_neg(rest) : rest;   /* x = -rest/c */
    if (sol && !sdb_has_unbacked(env, sol)) {
      const sdb_expr *t = sdb_se_replace(env, sol);
      if (t) set_replacement(env, fs[0], t, "solve");
    }
  }
  free(fs);
}

/* ------------------------------------------------------------------------
** Guards, data-dependent errors, checks
** ---------------------------------------------------------------------- */

/* -1 when out of memory, even part way: what the guard teaches may be
** lost (sdb_se_nomem_begin) */
static long record_guard(sdb_shape_env *env, const sdb_expr *g) {
  if (!GROW(env->guards, env->nguards, env->capguards)) return -1;
  sdb_guard *gd = &env->guards[env->nguards++];
  gd->expr = g;
  gd->prov = prov_now(env);
  sdb_event_in e = {0};
  e.kind = SDB_EV_GUARD_ADDED;
  sdb_event_more more = {.expr = g};
  e.more = &more;
  gd->prov.seq = emit(env, &e);   /* an event it loses, the stream counts */
  unsigned long noted = sdb_se_nomem_begin();
  maybe_guard_rel(env, g);
  bool added = sdb_se_add_fact(env, g);
  return sdb_se_nomem_end(env, noted) || !added ? -1 : 0;
}

static const char *basename_of(const char *path) {
  const char *b = path ? strrchr(path, '/') : NULL;
  return b ? b + 1 : path;
}

static void put_loc(sdb_buf *b, const sdb_prov *p) {
  if (p->loc.file) {
    sdb_buf_printf(b, "%s:%d", basename_of(p->loc.file), p->loc.line);
    if (p->loc.func) sdb_buf_printf(b, " in %s", p->loc.func);
  } else {
    sdb_buf_puts(b, "(no user location)");
  }
}

/* PyTorch's SLoc: `<user code>  # file:line in func (framework loc)` */
static void put_sloc(sdb_buf *b, const sdb_prov *p) {
  const char *code = p->loc.file ? sdb_srcfile_line(p->loc.file, p->loc.line) : NULL;
  if (code) sdb_buf_printf(b, "%s  # ", code);
  put_loc(b, p);
  sdb_buf_printf(b, " (%s phase", sdb_phase_name(p->phase));
  if (p->op) sdb_buf_printf(b, ", in %s", p->op);
  sdb_buf_putc(b, ')');
}

static int hint_lookup(void *ud, const sdb_expr *sym, int64_t *out) {
  const sdb_symbol_info *s = sdb_se_info_of(ud, sym);
  if (!s || !s->has_hint) return -1;
  *out = s->hint;
  return 0;
}

/* expr with backed symbols replaced by their hints (PyTorch's xreplace of
** var_to_val), for the first half of the DDE message */
static const sdb_expr *with_hints(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  if (n <= 0) return e;
  const sdb_expr **vals = sdb_noted(malloc((size_t)n * sizeof *vals));
  size_t m = 0;
  for (long i = 0; vals && i < n; i++) {
    const sdb_symbol_info *s = sdb_se_info_of(env, fs[i]);
    if (s && s->has_hint) { fs[m] = fs[i]; vals[m] = sdb_int(s->hint); m++; }
  }
  const sdb_expr *r = vals && m ? sdb_subs(e, fs, vals, m) : e;
  free(fs);
  free(vals);
  return r ? r : e;
}

static int data_dependent_error(sdb_shape_env *env, const sdb_expr *e,
                                sdb_err *err) {
  /* as the user's SymNode reads it (SymNode.expr applies the replacements):
  ** an aot retrace's u2 renamed to the trace's u0 is named u0 */
  const sdb_expr *re = sdb_se_replace(env, e);
  if (re && !sdb_is_const(re)) e = re;
  sdb_buf b = SDB_BUF_INIT;
  char *hinted = estr(env, with_hints(env, e)), *unhinted = estr(env, e);
  bool is_bool = sdb_is_bool(e);
  sdb_buf_printf(&b, "%s %s (unhinted: %s).  (Size-like symbols: ",
                 is_bool ? "Could not guard on data-dependent expression"
                         : "Could not extract specialized integer from data-dependent expression",
                 hinted, unhinted);
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  int nsize = 0;
  for (long i = 0; i < n; i++) {
    const sdb_symbol_info *s = sdb_se_info_of(env, fs[i]);
    if (s && s->size_like) sdb_buf_printf(&b, "%s%s", nsize++ ? ", " : "", fs[i]->name);
  }
  sdb_buf_puts(&b, nsize ? ")\n\n" : "none)\n\n");
  if (is_bool)
    sdb_buf_puts(&b, "consider using data-dependent friendly APIs such as guard_or_false, "
                     "guard_or_true and statically_known_true.\n");
  sdb_prov here = prov_now(env);
  sdb_buf_puts(&b, "Caused by: ");
  put_sloc(&b, &here);
  sdb_buf_putc(&b, '\n');
  /* what non-strict export adds, and what people find most useful: where
  ** each unbacked symbol came from */
  bool header = false;
  for (long i = 0; i < n; i++) {
    const sdb_symbol_info *s = sdb_se_info_of(env, fs[i]);
    if (!s || !s->unbacked) continue;
    if (!header) sdb_buf_puts(&b, "\nUnbacked symbols in this expression:\n");
    header = true;
    char r[SDB_RANGE_STRLEN];
    sdb_buf_printf(&b, "  %s %s, created by %s at ", fs[i]->name,
                   sdb_range_str(s->range, r, sizeof r),
                   s->created.op ? s->created.op : "create_unbacked_symint");
    put_loc(&b, &s->created);
    sdb_buf_printf(&b, " (%s phase)%s\n", sdb_phase_name(s->created.phase),
                   s->size_like ? ", size-like" : "");
  }
  if (is_bool) {
    const sdb_expr *ne = sdb_not(e);
    char *nes = estr(env, ne);
    sdb_buf_printf(&b, "\nTo fix the error, insert one of the following checks before this call:\n"
                       "  1. torch._check(%s)\n  2. torch._check(%s)", unhinted, nes);
    free(nes);
  }
  free(fs);
  free(hinted);
  free(unhinted);
  int rc = sdb_err_take(err, SDB_E_DATA_DEPENDENT, "GuardOnDataDependentSymNode", sdb_buf_take(&b));
  if (err) {
    err->cond = e;
    err->file = here.loc.file;
    err->line = here.loc.line;
  }
  return rc;
}

/* Static evaluation gives NULL both when e is not known and when it ran
** out of memory part way; only the first may go on to a guard or a runtime
** assert (sdb_se_nomem_begin). SDB_OK with *st NULL means not known. */
static int evaluate_static(sdb_shape_env *env, const sdb_expr *e, const sdb_expr **st,
                           sdb_err *err) {
  unsigned long noted = sdb_se_nomem_begin();
  *st = sdb_maybe_evaluate_static(env, e);
  return sdb_se_nomem_end(env, noted) ? sdb_se_oom(err) : SDB_OK;
}

int sdb_evaluate(sdb_shape_env *env, const sdb_expr *e, const sdb_expr **out,
                 sdb_err *err) {
  *out = NULL;
  if (!e) return sdb_err_expr(err);
  const sdb_expr *st;
  int rc = evaluate_static(env, e, &st, err);
  if (rc) return rc;
  if (st) { *out = st; return SDB_OK; }
  const sdb_expr *s = sdb_simplify(env, e);
  if (!s) return sdb_err_expr(err);
  if (sdb_has_unbacked(env, s)) return data_dependent_error(env, e, err);
  /* the guard is the expression as taken, unless only simplification got
  ** rid of its unbacked symbols (PyTorch keeps orig_expr likewise) */
  if (!sdb_has_unbacked(env, e)) s = e;
  int64_t v;
  char msg[256];
  if (sdb_eval(s, hint_lookup, env, &v, msg, sizeof msg)) {
    char *es = estr(env, s);
    rc = sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "cannot evaluate %s: %s", es, msg);
    free(es);
    return rc;
  }
  const sdb_expr *g;
  if (sdb_is_bool(s)) {
    *out = sdb_bool(v != 0);
    g = v ? s : sdb_not(s);
  } else {
    *out = sdb_int(v);
    g = sdb_eq(s, *out);
  }
  if (!g || !*out) return sdb_err_expr(err);
  if (!sdb_is_const(g) && record_guard(env, g)) return sdb_se_oom(err);
  return SDB_OK;
}

int sdb_guard_bool(sdb_shape_env *env, const sdb_expr *e, bool *out, sdb_err *err) {
  if (!sdb_is_bool(e)) return sdb_err_set(err, SDB_E_INVALID, "TypeError", "expected a boolean expression");
  const sdb_expr *r;
  int rc = sdb_evaluate(env, e, &r, err);
  if (rc == SDB_OK) *out = r->kind == SDB_TRUE;
  return rc;
}

int sdb_guard_int(sdb_shape_env *env, const sdb_expr *e, int64_t *out, sdb_err *err) {
  if (sdb_is_bool(e)) return sdb_err_set(err, SDB_E_INVALID, "TypeError", "expected an integer expression");
  const sdb_expr *r;
  int rc = sdb_evaluate(env, e, &r, err);
  if (rc == SDB_OK) *out = r->ival;
  return rc;
}

static bool guard_or(sdb_shape_env *env, const sdb_expr *e, bool dflt) {
  const sdb_expr *st = sdb_maybe_evaluate_static(env, e);
  if (st) return st->kind == SDB_TRUE;
  const sdb_expr *s = sdb_simplify(env, e);
  if (!s || sdb_has_unbacked(env, s)) return dflt;
  bool v;
  return sdb_guard_bool(env, e, &v, NULL) == SDB_OK ? v : dflt;
}

bool sdb_guard_or_false(sdb_shape_env *env, const sdb_expr *e) { return guard_or(env, e, false); }
bool sdb_guard_or_true(sdb_shape_env *env, const sdb_expr *e) { return guard_or(env, e, true); }

int sdb_size_hint(sdb_shape_env *env, const sdb_expr *e, int64_t *out, sdb_err *err) {
  const sdb_expr *s = sdb_simplify(env, e);
  if (!s) return sdb_err_expr(err);
  const sdb_expr *st;
  int rc = evaluate_static(env, s, &st, err);
  if (rc) return rc;
  if (st && st->kind == SDB_INT) { *out = st->ival; return SDB_OK; }
  if (sdb_has_unbacked(env, s)) return data_dependent_error(env, e, err);
  char msg[256];
  if (sdb_eval(s, hint_lookup, env, out, msg, sizeof msg))
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "%s", msg);
  return SDB_OK;
}

static const char *const check_default_msg =
  "Expected cond to be True, but got False. (Could this error message be "
  "improved? If so, please report an enhancement request to PyTorch.)";

static int check_failed(sdb_shape_env *env, const sdb_expr *e, const char *msg,
                        sdb_err *err) {
  char *s = estr(env, e);
  sdb_prov here = prov_now(env);
  sdb_buf b = SDB_BUF_INIT;
  /* torch._check(cond, msg) raises msg verbatim; the default message also
  ** names the condition, which PyTorch's lambda-less default cannot */
  if (msg) sdb_buf_puts(&b, msg);
  else sdb_buf_printf(&b, "%s\n  torch._check(%s) is false", check_default_msg, s);
  free(s);
  int rc = sdb_err_take(err, SDB_E_CONSTRAINT, "RuntimeError", sdb_buf_take(&b));
  if (err) {
    err->cond = e;
    err->file = here.loc.file;
    err->line = here.loc.line;
  }
  return rc;
}

/* The unbacked int symbol with the highest index (u10 beats u3); false
** when out of memory (not "no such symbol"). */
static bool assert_key(sdb_shape_env *env, const sdb_expr *e, const sdb_expr **key) {
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  if (n < 0) return false;
  const sdb_expr *best = NULL;
  long best_ix = -1;
  for (long i = 0; i < n; i++) {
    const sdb_symbol_info *s = sdb_se_info_of(env, fs[i]);
    if (!s || !s->unbacked || s->type == SDB_SYM_FLOAT || fs[i]->name[0] != 'u') continue;
    long ix = strtol(fs[i]->name + 1, NULL, 10);
    if (ix > best_ix) { best_ix = ix; best = fs[i]; }
  }
  free(fs);
  *key = best;
  return true;
}

int sdb_check(sdb_shape_env *env, const sdb_expr *e, const char *msg, sdb_err *err) {
  if (!e) return sdb_err_expr(err);
  if (!sdb_is_bool(e))
    return sdb_err_set(err, SDB_E_INVALID, "TypeError",
                       "torch._check expects a boolean condition (build one with :ge(), :eq(), ...)");
  const sdb_expr *st;
  int rc = evaluate_static(env, e, &st, err);
  if (rc) return rc;
  if (st) return st->kind == SDB_TRUE ? SDB_OK : check_failed(env, e, msg, err);
  const sdb_expr *s = sdb_simplify(env, e);
  if (!s) return sdb_err_expr(err);
  if (!sdb_has_unbacked(env, s)) {   /* a normal guard */
    bool v;
    rc = sdb_guard_bool(env, s, &v, err);
    if (rc) return rc;
    return v ? SDB_OK : check_failed(env, e, msg, err);
  }
  const sdb_expr *key;
  if (!assert_key(env, s, &key) || !GROW(env->asserts, env->nasserts, env->capasserts))
    return sdb_se_oom(err);
  sdb_runtime_assert *ra = &env->asserts[env->nasserts++];
  ra->expr = s;
  ra->key = key;
  ra->msg = sdb_intern(msg);
  ra->prov = prov_now(env);
  sdb_event_in ev = {0};
  ev.kind = SDB_EV_RUNTIME_ASSERT;
  sdb_event_more more = {.sym = ra->key, .expr = s};
  ev.more = &more;
  ev.detail = msg;
  ra->prov.seq = emit(env, &ev);   /* an event it loses, the stream counts */
  unsigned long noted = sdb_se_nomem_begin();
  maybe_guard_rel(env, s);
  bool added = sdb_se_add_fact(env, s);
  if (sdb_se_nomem_end(env, noted) || !added) return sdb_se_oom(err);
  return SDB_OK;
}

int sdb_mark_size_like(sdb_shape_env *env, const sdb_expr *sym, sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  sdb_symbol_info *s = sdb_se_info_of(env, sym);
  if (!s) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s is not a symbol of this ShapeEnv",
                             sym->kind == SDB_SYM ? sym->name : "expression");
  if (!s->size_like) {
    s->size_like = true;
    env->version++;
    sdb_event_in e = {0};
    e.kind = SDB_EV_SIZE_LIKE;
    sdb_event_more e_sym = {.sym = sym};
    e.more = &e_sym;
    emit(env, &e);
  }
  update_range(env, sym, sdb_range_make(0, SDB_PINF), "size-like", true);
  return SDB_OK;
}

int sdb_check_is_size(sdb_shape_env *env, const sdb_expr *e, sdb_err *err) {
  if (!e) return sdb_err_expr(err);
  int rc = sdb_check(env, sdb_ge(e, sdb_int(0)), NULL, err);
  if (rc) return rc;
  /* _advise_is_size: only a bare unbacked symbol becomes size-like */
  if (e->kind == SDB_SYM && sdb_is_unbacked(env, e)) return sdb_mark_size_like(env, e, err);
  return SDB_OK;
}

int sdb_constrain_range(sdb_shape_env *env, const sdb_expr *sym, int64_t lo,
                        int64_t hi, const char *why, sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  sdb_symbol_info *s = sdb_se_info_of(env, sym);
  if (!s) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "constraining non-Symbols NYI");
  if (hi < lo) {
    char a[32], b[32];
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "Invalid range [%s:%s]",
                       sdb_bound_str(lo, a, sizeof a), sdb_bound_str(hi, b, sizeof b));
  }
  if (s->has_hint && !sdb_range_contains(sdb_range_make(lo, hi), s->hint))
    return sdb_err_set(err, SDB_E_CONSTRAINT, "ValueRangeError", "Invalid value %lld for range [%lld:%lld]",
                       (long long)s->hint, (long long)lo, (long long)hi);
  update_range(env, sym, sdb_range_make(lo, hi), why ? why : "constrain_range", true);
  return SDB_OK;
}

int sdb_rename_unbacked_to(sdb_shape_env *env, const sdb_expr *orig,
                           const sdb_expr *new_sym, const char *why, sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  if (!orig || !new_sym || orig->kind != SDB_SYM || new_sym->kind != SDB_SYM ||
      !sdb_is_unbacked(env, orig) || !sdb_is_unbacked(env, new_sym))
    return sdb_err_set(err, SDB_E_INVALID, "AssertionError",
                       "rename_unbacked_to renames one unbacked symbol to another");
  if (orig == new_sym) return SDB_OK;
  const sdb_replacement *r = sdb_map_get(&env->repl, orig);
  const sdb_expr *dest = r ? r->target : NULL;
  if (dest && sdb_has_unbacked(env, dest)) {
    char *a = estr(env, orig), *b = estr(env, dest);
    int rc = sdb_err_set(err, SDB_E_INVALID, "AssertionError", "%s -> %s", a, b);
    free(a);
    free(b);
    return rc;
  }
  if (set_replacement(env, orig, new_sym, "rename_unbacked_to")) return sdb_se_oom(err);
  if (!sdb_map_put(&env->renamed, orig, (void *)new_sym) ||
      !GROW(env->renames, env->nrenames, env->caprenames))
    return sdb_se_oom(err);
  sdb_renaming *rn = &env->renames[env->nrenames++];
  rn->from = orig;
  rn->to = new_sym;
  rn->why = sdb_intern(why ? why : "rebind_unbacked");
  rn->prov = prov_now(env);
  sdb_event_in e = {0};
  e.kind = SDB_EV_RENAMED;
  sdb_event_more e_more = {.sym = orig, .sym2 = new_sym};
  e.more = &e_more;
  e.detail = rn->why;
  rn->prov.seq = emit(env, &e);
  if (dest && set_replacement(env, new_sym, dest, "rename_unbacked_to_dest")) return sdb_se_oom(err);
  return SDB_OK;
}

int sdb_eliminate_unbacked(sdb_shape_env *env, const sdb_expr *orig,
                           const sdb_expr *value, sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  if (set_replacement(env, orig, value, "eliminate_unbacked")) return sdb_se_oom(err);
  return SDB_OK;
}

const sdb_expr *sdb_resolve_renamed(const sdb_shape_env *env, const sdb_expr *sym) {
  for (int guard = 0; guard < 1000; guard++) {
    const sdb_expr *n = sdb_map_get(&env->renamed, sym);
    if (!n) break;
    sym = n;
  }
  return sym;
}

/* ------------------------------------------------------------------------
** Accessors
** ---------------------------------------------------------------------- */

size_t sdb_guard_count(const sdb_shape_env *env) { return env->nguards; }
const sdb_guard *sdb_guard_at(const sdb_shape_env *env, size_t i) {
  return i < env->nguards ? &env->guards[i] : NULL;
}
size_t sdb_assert_count(const sdb_shape_env *env) { return env->nasserts; }
const sdb_runtime_assert *sdb_assert_at(const sdb_shape_env *env, size_t i) {
  return i < env->nasserts ? &env->asserts[i] : NULL;
}
size_t sdb_replacement_count(const sdb_shape_env *env) { return env->repl.len; }
const sdb_replacement *sdb_replacement_at(const sdb_shape_env *env, size_t i) {
  return i < env->repl.len ? env->repl.vals[i] : NULL;
}
size_t sdb_specialization_count(const sdb_shape_env *env) { return env->nspecs; }
const sdb_specialization *sdb_specialization_at(const sdb_shape_env *env, size_t i) {
  return i < env->nspecs ? &env->specs[i] : NULL;
}
size_t sdb_renaming_count(const sdb_shape_env *env) { return env->nrenames; }
const sdb_renaming *sdb_renaming_at(const sdb_shape_env *env, size_t i) {
  return i < env->nrenames ? &env->renames[i] : NULL;
}
size_t sdb_tracked_count(const sdb_shape_env *env) { return env->ntracked; }
const sdb_tracked *sdb_tracked_at(const sdb_shape_env *env, size_t i) {
  return i < env->ntracked ? &env->tracked[i] : NULL;
}

/* ------------------------------------------------------------------------
** Rebuilding from a record (core/probe)
** ---------------------------------------------------------------------- */

/* Move the counter of sym's family past its number: "u7" -> next_u >= 8. */
static void bump_counter(sdb_shape_env *env, const char *name) {
  int *ctr = NULL;
  const char *num = NULL;
  if (!strncmp(name, "zuf", 3)) { ctr = &env->next_zuf; num = name + 3; }
  else if (name[0] == 'u') { ctr = &env->next_u; num = name + 1; }
  else if (name[0] == 's') { ctr = &env->next_s; num = name + 1; }
  if (!ctr || *num < '0' || *num > '9') return;
  char *end;
  long n = strtol(num, &end, 10);
  if (*end == '\0' && n >= *ctr && n < 1000000000) *ctr = (int)n + 1;
}

int sdb_declare_symbol(sdb_shape_env *env, const sdb_expr *sym, bool unbacked,
                       sdb_sym_type type, bool has_hint, int64_t hint,
                       sdb_range range, bool size_like, sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  if (!sym || sym->kind != SDB_SYM)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "declare_symbol needs a symbol");
  if (sdb_se_info_of(env, sym))
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s is already declared", sym->name);
  sdb_symbol_info *s = new_symbol(env, sym);
  if (!s) return sdb_se_oom(err);
  s->unbacked = unbacked;
  s->type = type;
  s->has_hint = has_hint;
  s->hint = hint;
  range.is_bool = false;
  s->range = range;
  s->size_like = size_like;
  bump_counter(env, sym->name);
  env->version++;
  return SDB_OK;
}

int sdb_restore_replacement(sdb_shape_env *env, const sdb_expr *sym,
                            const sdb_expr *target, const char *reason,
                            sdb_err *err) {
  if (env->spoiled) return sdb_se_oom(err);
  if (!sym || sym->kind != SDB_SYM || !target)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "a replacement maps a symbol to an expression");
  /* find() follows replacements recursively: refuse anything that loops */
  const sdb_expr *t = sdb_se_replace(env, target);
  if (!t) return sdb_se_oom(err);
  if (sdb_has_symbol(t, sym)) {
    char *a = estr(env, target);
    int rc = sdb_err_set(err, SDB_E_INVALID, "ValueError", "replacing %s by %s makes a cycle",
                         sym->name, a);
    free(a);
    return rc;
  }
  sdb_replacement *cur = sdb_map_get(&env->repl, sym);
  if (!cur) {
    cur = sdb_noted(calloc(1, sizeof *cur));
    if (!cur || !sdb_map_put(&env->repl, sym, cur)) { free(cur); return sdb_se_oom(err); }
  }
  cur->sym = sym;
  cur->target = target;
  cur->reason = sdb_intern(reason);
  cur->prov = prov_now(env);
  env->version++;
  env->repl_gen++;
  sdb_map_put(&env->repl_dirty, sym, (void *)sym);
  return SDB_OK;
}
