/*
** shape_env_guards.c — produce_guards and check_guards (see shape_env.h):
** the guards a compile installs, from the ShapeEnv's sources, guards and
** ranges, and their check against a call's inputs.
*/
#include "shape_env.h"
#include "shape_env_impl.h"
#include "buf.h"
#include "intern.h"
#include "map.h"

#include <stdlib.h>

typedef struct {
  sdb_shape_guard *v;
  size_t n, cap;
  sdb_map sym_source;    /* symbol -> first source */
} guard_builder;

static const char *source_name_of(void *ud, const sdb_expr *sym) {
  const sdb_source *s = sdb_map_get(ud, sym);
  return s ? s->name : NULL;
}

static bool push_guard(guard_builder *gb, sdb_shape_guard g) {
  if (!GROW(gb->v, gb->n, gb->cap)) return false;
  gb->v[gb->n++] = g;
  return true;
}

/* the guard's Python text (interned), NULL on OOM */
static const char *py_text(guard_builder *gb, const sdb_expr *e) {
  char *s = sdb_expr_str_py(e, source_name_of, &gb->sym_source);
  const char *r = s ? sdb_intern(s) : NULL;
  free(s);
  return r;
}

int sdb_produce_guards(sdb_shape_env *env, sdb_shape_guards *out, sdb_err *err) {
  guard_builder gb = {NULL, 0, 0, SDB_MAP_INIT};
  out->v = NULL;
  out->n = 0;
  if (env->spoiled) return sdb_se_oom(err);
  /* a guard kept, or dropped, because simplifying or evaluating it ran
  ** out of memory would pass for the real list (sdb_se_nomem_begin) */
  unsigned long noted = sdb_se_nomem_begin();
  /* 0. what each tracked input is now (replacements applied), and the
  **    first source of every symbol */
  const sdb_expr **now = sdb_noted(calloc(env->ntracked + 1, sizeof *now));
  if (!now) return sdb_se_oom(err);
  for (size_t i = 0; i < env->ntracked; i++) {
    now[i] = sdb_simplify(env, env->tracked[i].expr);
    if (!now[i]) now[i] = env->tracked[i].expr;
    if (now[i]->kind == SDB_SYM && !sdb_map_has(&gb.sym_source, now[i]) &&
        !sdb_map_put(&gb.sym_source, now[i], (void *)env->tracked[i].source))
      goto nomem;   /* a later source would stand for the symbol: other guards */
  }
  /* 1. input equalities; an input fakified twice (trace, then aot's
  **    re-fakification) is still one input, guarded once */
  sdb_map said = SDB_MAP_INIT;
  for (size_t i = 0; i < env->ntracked; i++) {
    const sdb_source *src = env->tracked[i].source;
    const sdb_expr *e = now[i];
    if (e->kind == SDB_SYM && sdb_map_get(&gb.sym_source, e) == src) continue;
    sdb_shape_guard g = {0};
    g.source = src;
    g.expr = e;
    g.prov = env->tracked[i].prov;
    const sdb_expr *raw = env->tracked[i].expr;
    if (e->kind == SDB_INT && sdb_source_is_tensor_property(src) && raw->kind == SDB_INT) {
      g.kind = SDB_SG_STATIC;   /* TENSOR_MATCH checks it; not a shape guard */
      g.text = sdb_internf("%s == %lld", src->name, (long long)e->ival);
    } else {
      g.kind = SDB_SG_EQUALITY;
      const char *pt = py_text(&gb, e);
      g.text = pt ? sdb_internf("%s == %s", src->name, pt) : NULL;
      /* provenance: the replacement that made them equal (or specialized a
      ** symbolic dim, shown rather than left to TENSOR_MATCH) */
      const sdb_replacement *r = raw->kind == SDB_SYM ? sdb_map_get(&env->repl, raw) : NULL;
      if (r) g.prov = r->prov;
    }
    if (g.text && sdb_map_has(&said, g.text)) continue;
    if (!g.text || !sdb_map_put(&said, g.text, (void *)g.text) || !push_guard(&gb, g)) {
      sdb_map_free(&said);
      goto nomem;
    }
  }
  sdb_map_free(&said);
  /* 2. guards not implied by what we know without them */
  sdb_map issued = SDB_MAP_INIT;
  for (size_t i = 0; i < env->nguards; i++) {
    const sdb_guard *gd = &env->guards[i];
    if (sdb_se_evaluate_static(env, gd->expr, false)) continue;
    const sdb_expr *s = sdb_se_simplify_with(env, gd->expr, false);
    if (!s || sdb_map_has(&issued, s)) continue;
    sdb_shape_guard g = {0};
    g.kind = SDB_SG_GUARD;
    g.expr = s;
    g.text = py_text(&gb, s);
    g.prov = gd->prov;
    if (!g.text || !sdb_map_put(&issued, s, (void *)s) || !push_guard(&gb, g)) {
      sdb_map_free(&issued);
      goto nomem;
    }
  }
  sdb_map_free(&issued);
  /* 3. the range of every symbol an input carries */
  for (size_t i = 0; i < gb.sym_source.len; i++) {
    const sdb_expr *sym = gb.sym_source.keys[i];
    const sdb_source *src = gb.sym_source.vals[i];
    const sdb_symbol_info *si = sdb_se_info_of(env, sym);
    if (!si) continue;
    sdb_range r = si->range;
    if (r.lo == SDB_NINF && r.hi == SDB_PINF) continue;
    sdb_shape_guard g = {0};
    g.kind = SDB_SG_RANGE;
    g.source = src;
    g.sym = sym;
    g.range = r;
    g.prov = si->created;
    if (r.lo != SDB_NINF && r.hi != SDB_PINF)
      g.text = sdb_internf("%lld <= %s and %s <= %lld", (long long)r.lo, src->name,
                           src->name, (long long)r.hi);
    else if (r.lo != SDB_NINF)
      g.text = sdb_internf("%lld <= %s", (long long)r.lo, src->name);
    else
      g.text = sdb_internf("%s <= %lld", src->name, (long long)r.hi);
    if (!g.text || !push_guard(&gb, g)) goto nomem;
  }
  if (sdb_se_nomem_end(env, noted)) goto nomem;
  free(now);
  sdb_map_free(&gb.sym_source);
  out->v = gb.v;
  out->n = gb.n;
  return SDB_OK;
nomem:
  free(now);
  free(gb.v);
  sdb_map_free(&gb.sym_source);
  return sdb_se_oom(err);
}

void sdb_shape_guards_free(sdb_shape_guards *g) {
  if (!g) return;
  free(g->v);
  g->v = NULL;
  g->n = 0;
}

typedef struct {
  const sdb_shape_guards *g;
  sdb_source_value_fn value_of;
  void *ud;
  sdb_map sym_range;     /* symbol -> its first RANGE guard */
  bool indexed;          /* sym_range is complete (false: out of memory) */
} check_ctx;

/* A symbol's value in the new call: the value of the source of its first
** RANGE guard. Looked up in sym_range, built once per check_guards call;
** scanning the guards for every symbol of every guard made a call
** quadratic in the inputs. Without the index (out of memory) the scan is
** still the answer. */
static int sym_value(void *ud, const sdb_expr *sym, int64_t *out) {
  const check_ctx *c = ud;
  if (c->indexed) {
    const sdb_shape_guard *g = sdb_map_get(&c->sym_range, sym);
    return g ? c->value_of(c->ud, g->source, out) : -1;
  }
  for (size_t i = 0; i < c->g->n; i++) {
    const sdb_shape_guard *g = &c->g->v[i];
    if (g->kind == SDB_SG_RANGE && g->sym == sym) return c->value_of(c->ud, g->source, out);
  }
  return -1;
}

/* The first RANGE guard of each symbol wins, as in the scan. */
static bool index_range_guards(check_ctx *c) {
  for (size_t i = 0; i < c->g->n; i++) {
    const sdb_shape_guard *g = &c->g->v[i];
    if (g->kind != SDB_SG_RANGE || sdb_map_has(&c->sym_range, g->sym)) continue;
    if (!sdb_map_put(&c->sym_range, g->sym, (void *)g)) return false;
  }
  return true;
}

int sdb_check_guards(const sdb_shape_guards *g, sdb_source_value_fn value_of,
                     void *ud, size_t *failed, size_t cap, char **reasons,
                     sdb_err *err) {
  check_ctx c = {g, value_of, ud, SDB_MAP_INIT, false};
  c.indexed = index_range_guards(&c);
  sdb_buf why = SDB_BUF_INIT;
  int nfail = 0;
  for (size_t i = 0; i < g->n; i++) {
    const sdb_shape_guard *sg = &g->v[i];
    int64_t v = 0, w = 0;
    bool ok = true;
    char msg[256];
    if (sg->kind != SDB_SG_GUARD && value_of(ud, sg->source, &v) != 0) {
      sdb_buf_free(&why);
      sdb_map_free(&c.sym_range);
      return sdb_err_set(err, SDB_E_INVALID, "KeyError", "no value given for %s", sg->source->name);
    }
    switch (sg->kind) {
      case SDB_SG_RANGE:
        ok = sdb_range_contains(sg->range, v);
        break;
      case SDB_SG_STATIC:
        ok = v == sg->expr->ival;
        break;
      case SDB_SG_EQUALITY: case SDB_SG_GUARD:
        if (sdb_eval(sg->expr, sym_value, &c, &w, msg, sizeof msg) != 0) {
          sdb_buf_free(&why);
          sdb_map_free(&c.sym_range);
          return sdb_err_set(err, SDB_E_INVALID, "KeyError", "cannot check %s: %s", sg->text, msg);
        }
        ok = sg->kind == SDB_SG_EQUALITY ? v == w : w != 0;
        break;
    }
    if (ok) continue;
    if (failed && (size_t)nfail < cap) failed[nfail] = i;
    if (why.len) sdb_buf_putc(&why, '\n');
    if (sg->kind == SDB_SG_STATIC) {
      const sdb_source *root = sg->source->base;
      const char *what = sg->source->kind == SDB_SRC_SIZE ? "size"
                       : sg->source->kind == SDB_SRC_STRIDE ? "stride" : "storage_offset";
      if (sg->source->kind == SDB_SRC_STORAGE_OFFSET)
        sdb_buf_printf(&why, "tensor '%s' %s mismatch. expected %lld, actual %lld",
                       root ? root->name : "?", what, (long long)sg->expr->ival, (long long)v);
      else
        sdb_buf_printf(&why, "tensor '%s' %s mismatch at index %lld. expected %lld, actual %lld",
                       root ? root->name : "?", what, (long long)sg->source->idx,
                       (long long)sg->expr->ival, (long long)v);
    } else {
      sdb_buf_puts(&why, sg->text);
    }
    nfail++;
  }
  if (reasons) *reasons = sdb_buf_take(&why);
  else sdb_buf_free(&why);
  sdb_map_free(&c.sym_range);
  return nfail;
}
