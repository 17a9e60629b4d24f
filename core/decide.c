/*
** decide.c — guard-free decisions as events (see decide.h).
*/
#include "decide.h"
#include "intern.h"

#include <stdlib.h>

static const char *bool_text(bool v) { return v ? "True" : "False"; }

static void emit_decision(sdb_shape_env *env, const char *fn, const sdb_expr *b,
                          const char *result, bool guarded, const char *why) {
  sdb_event_in e = {0};
  e.kind = SDB_EV_OBLIVIOUS;
  e.text = sdb_intern(fn);
  sdb_event_more more = {.expr = b, .text2 = sdb_intern(result)};
  e.more = &more;
  e.detail = why;
  e.flags = guarded ? SDB_EVF_GUARDED : 0;
  sdb_emit(sdb_shape_env_events(env), &e);
}

/* "u0, u1": the size-like unbacked symbols of e, or NULL if none */
static const char *size_like_of(sdb_shape_env *env, const sdb_expr *e) {
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  if (n <= 0) return NULL;
  const char *acc = NULL;
  for (long i = 0; i < n; i++) {
    const sdb_symbol_info *s = sdb_symbol(env, fs[i]);
    if (!s || !s->unbacked || !s->size_like) continue;
    acc = acc ? sdb_internf("%s, %s", acc, fs[i]->name) : fs[i]->name;
  }
  free(fs);
  return acc;
}

int sdb_guard_size_oblivious(sdb_shape_env *env, const sdb_expr *b, bool *out, sdb_err *err) {
  if (!b) return sdb_err_expr(err);
  const sdb_expr *st = sdb_maybe_evaluate_static(env, b);
  if (st && sdb_is_const(st)) {
    *out = st->kind == SDB_TRUE;
    emit_decision(env, "guard_size_oblivious", b, bool_text(*out), false, "decided statically, no guard");
    return SDB_OK;
  }
  st = sdb_maybe_evaluate_static_oblivious(env, b);
  if (st && sdb_is_const(st)) {
    *out = st->kind == SDB_TRUE;
    const char *syms = size_like_of(env, b);
    emit_decision(env, "guard_size_oblivious", b, bool_text(*out), false,
                  sdb_internf("size-oblivious: size-like %s taken as >= 2, no guard",
                              syms ? syms : "symbols"));
    return SDB_OK;
  }
  /* not decided size-obliviously: a plain guard (or the DDE) */
  int rc = sdb_guard_bool(env, b, out, err);
  if (rc) return rc;
  emit_decision(env, "guard_size_oblivious", b, bool_text(*out), true,
                "not decided size-obliviously: guarded on the hints");
  return SDB_OK;
}

bool sdb_decide_guard_or(sdb_shape_env *env, const sdb_expr *b, bool dflt) {
  const char *fn = dflt ? "guard_or_true" : "guard_or_false";
  const sdb_expr *st = b ? sdb_maybe_evaluate_static(env, b) : NULL;
  if (st && sdb_is_const(st)) {
    bool v = st->kind == SDB_TRUE;
    emit_decision(env, fn, b, bool_text(v), false, "decided statically, no guard");
    return v;
  }
  const sdb_expr *s = b ? sdb_simplify(env, b) : NULL;
  bool v;
  if (s && !sdb_has_unbacked(env, s) && sdb_guard_bool(env, b, &v, NULL) == SDB_OK) {
    emit_decision(env, fn, b, bool_text(v), true, "guarded on the hints");
    return v;
  }
  /* PyTorch's debug log for the fallback, word for word */
  char *text = b ? sdb_expr_str(b) : NULL;
  emit_decision(env, fn, b, bool_text(dflt), false,
                sdb_internf("could not evaluate %s due to data dependency, it was assumed to be %s "
                            "with no runtime assertions", text ? text : "?", bool_text(dflt)));
  free(text);
  return dflt;
}

bool sdb_decide_statically_known(sdb_shape_env *env, const sdb_expr *b, bool want) {
  const char *fn = want ? "statically_known_true" : "statically_known_false";
  const sdb_expr *st = b ? sdb_maybe_evaluate_static(env, b) : NULL;
  if (st && sdb_is_const(st)) {
    bool v = (st->kind == SDB_TRUE) == want;
    emit_decision(env, fn, b, bool_text(v), false,
                  sdb_internf("simplifies to %s, no guard", bool_text(st->kind == SDB_TRUE)));
    return v;
  }
  emit_decision(env, fn, b, "False", false, "not known statically, no guard");
  return false;
}

void sdb_decision_note(sdb_shape_env *env, const char *call, const sdb_expr *result,
                       const char *why) {
  char *text = result ? sdb_expr_str(result) : NULL;
  emit_decision(env, call, NULL, text ? text : "?", false, why);
  free(text);
}
