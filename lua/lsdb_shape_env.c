/*
** lsdb_shape_env.c — ShapeEnv, Source and SymbolicContext userdata.
**
**   local env = shapedb.shape_env{ duck_shape = true }
**   local s0 = env:create_symbol(5, "L['x'].size()[0]")
**   local u0 = env:create_unbacked_symint()
**   env:check(u0:ge(0)); env:evaluate(s0:gt(2)); env:produce_guards()
**
** A ShapeEnv userdata owns its core ShapeEnv and, unless it was given one,
** its event stream. Before every core call the binding records which Lua
** thread is running, so events and errors carry the user's file:line.
*/
#include "lsdb.h"
#include "buf.h"
#include "intern.h"
#include "shape_env.h"
#include "symctx.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  sdb_shape_env *env;
  sdb_events *ev;
  bool owns_ev;
  lua_State *L;          /* the thread of the current call, for the locator */
} lenv;

static bool env_locate(void *ud, sdb_loc *out) {
  lenv *e = ud;
  return lsdb_locate(e->L, out);
}

static lenv *check_env(lua_State *L, int idx) {
  lenv *e = lsdb_checkudata(L, idx, LSDB_SHAPE_ENV);
  if (!e->env) luaL_error(L, "ShapeEnv is closed");
  e->L = L;
  return e;
}

static int env_gc(lua_State *L) {
  lenv *e = lsdb_checkudata(L, 1, LSDB_SHAPE_ENV);
  sdb_shape_env_free(e->env);
  if (e->owns_ev) sdb_events_free(e->ev);
  e->env = NULL;
  e->ev = NULL;
  return 0;
}

static bool opt_bool(lua_State *L, int t, const char *k, bool dflt) {
  if (lua_type(L, t) != LUA_TTABLE) return dflt;
  lua_getfield(L, t, k);
  bool v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* shapedb.shape_env{ duck_shape = true, specialize_zero_one = true } */
static int l_shape_env(lua_State *L) {
  sdb_shape_env_opts o = sdb_shape_env_default_opts();
  o.duck_shape = opt_bool(L, 1, "duck_shape", true);
  o.specialize_zero_one = opt_bool(L, 1, "specialize_zero_one", true);
  lenv *e = lua_newuserdatauv(L, sizeof *e, 0);
  memset(e, 0, sizeof *e);
  luaL_setmetatable(L, LSDB_SHAPE_ENV);
  e->ev = sdb_events_new();
  e->owns_ev = true;
  e->env = e->ev ? sdb_shape_env_new(e->ev, &o) : NULL;
  if (!e->env) return luaL_error(L, "out of memory");
  sdb_events_set_phase(e->ev, SDB_PHASE_TRACE);
  sdb_events_set_locator(e->ev, env_locate, e);
  return 1;
}

/* --- sources -------------------------------------------------------------- */

void lsdb_push_source(lua_State *L, const sdb_source *s) {
  const sdb_source **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = s;
  luaL_setmetatable(L, LSDB_SOURCE);
}

const sdb_source *lsdb_check_source(lua_State *L, int idx) {
  const sdb_source **box = lsdb_testudata(L, idx, LSDB_SOURCE);
  if (box) return *box;
  const char *name = luaL_checkstring(L, idx);
  const sdb_source *s = sdb_source_parse(name);
  if (!s) luaL_error(L, "not a source name: %s (expected e.g. L['x'].size()[0])", name);
  return s;
}

/* shapedb.source("x") -> L['x'];  shapedb.source("L['x'].size()[0]") */
static int l_source(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const sdb_source *s = strchr(name, '[') ? sdb_source_parse(name) : sdb_source_local(name);
  if (!s) return luaL_error(L, "not a source name: %s", name);
  lsdb_push_source(L, s);
  return 1;
}

static int src_size(lua_State *L) {
  lsdb_push_source(L, sdb_source_size(lsdb_check_source(L, 1), luaL_checkinteger(L, 2)));
  return 1;
}
static int src_stride(lua_State *L) {
  lsdb_push_source(L, sdb_source_stride(lsdb_check_source(L, 1), luaL_checkinteger(L, 2)));
  return 1;
}
static int src_storage_offset(lua_State *L) {
  lsdb_push_source(L, sdb_source_storage_offset(lsdb_check_source(L, 1)));
  return 1;
}
static int src_index(lua_State *L) {
  lsdb_push_source(L, sdb_source_index(lsdb_check_source(L, 1), luaL_checkinteger(L, 2)));
  return 1;
}
static int src_attr(lua_State *L) {
  lsdb_push_source(L, sdb_source_attr(lsdb_check_source(L, 1), luaL_checkstring(L, 2)));
  return 1;
}
static int src_tostring(lua_State *L) {
  lua_pushstring(L, lsdb_check_source(L, 1)->name);
  return 1;
}
static int src_eq(lua_State *L) {
  const sdb_source **a = lsdb_testudata(L, 1, LSDB_SOURCE), **b = lsdb_testudata(L, 2, LSDB_SOURCE);
  lua_pushboolean(L, a && b && *a == *b);
  return 1;
}

/* --- symbolic contexts -------------------------------------------------------- */

typedef struct { sdb_symctx *ctx; } lctx;

static sdb_symctx *check_ctx(lua_State *L, int idx) {
  lctx *c = lsdb_checkudata(L, idx, LSDB_SYMCTX);
  if (!c->ctx) luaL_error(L, "SymbolicContext is closed");
  return c->ctx;
}

static int ctx_gc(lua_State *L) {
  lctx *c = lsdb_checkudata(L, 1, LSDB_SYMCTX);
  sdb_symctx_free(c->ctx);
  c->ctx = NULL;
  return 0;
}

static sdb_dim_dynamic check_dyn(lua_State *L, int idx) {
  const char *s = luaL_checkstring(L, idx);
  int d = sdb_dim_dynamic_from_name(s);
  if (d < 0) luaL_error(L, "unknown dim kind '%s' (DYNAMIC, DUCK, STATIC or UNBACKED)", s);
  return (sdb_dim_dynamic)d;
}

/* shapedb.symbolic_context{ "DYNAMIC", "STATIC", stateful = true }
** A dim entry may be a table { "DYNAMIC", min = 2, max = 64 }. */
static int l_symbolic_context(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  size_t n = lua_rawlen(L, 1);
  lctx *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->ctx = NULL;
  luaL_setmetatable(L, LSDB_SYMCTX);
  c->ctx = sdb_symctx_new(opt_bool(L, 1, "stateful", false), n, SDB_DIM_DUCK);
  if (!c->ctx) return luaL_error(L, "out of memory");
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    sdb_dim_spec *d = &c->ctx->sizes[i];
    if (lua_istable(L, -1)) {
      lua_rawgeti(L, -1, 1);
      d->dynamic = check_dyn(L, -1);
      lua_pop(L, 1);
      lua_getfield(L, -1, "min");
      if (!lua_isnil(L, -1)) { d->has_min = true; d->min = luaL_checkinteger(L, -1); }
      lua_pop(L, 1);
      lua_getfield(L, -1, "max");
      if (!lua_isnil(L, -1)) { d->has_max = true; d->max = luaL_checkinteger(L, -1); }
      lua_pop(L, 1);
    } else {
      d->dynamic = check_dyn(L, -1);
    }
    lua_pop(L, 1);
  }
  return 1;
}

static int ctx_tostring(lua_State *L) {
  sdb_symctx *c = check_ctx(L, 1);
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_printf(&b, "%sSymbolicContext(dynamic_sizes=[", c->stateful ? "Stateful" : "Stateless");
  for (size_t i = 0; i < c->ndims; i++)
    sdb_buf_printf(&b, "%sDimDynamic.%s", i ? ", " : "", sdb_dim_dynamic_name(c->sizes[i].dynamic));
  sdb_buf_puts(&b, "])");
  lua_pushstring(L, sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return 1;
}

/* --- ShapeEnv methods ---------------------------------------------------------- */

static int fail(lua_State *L, sdb_err *err) { return lsdb_raise(L, err); }

/* env:create_symbol(hint, source [, { dynamic = "DUCK", min =, max =,
**                                     context = ctx, dim = i, unspecified = b }]) */
static int m_create_symbol(lua_State *L) {
  lenv *e = check_env(L, 1);
  lua_Integer hint = luaL_checkinteger(L, 2);
  const sdb_source *src = lsdb_check_source(L, 3);
  sdb_dim_spec spec = sdb_symctx_dim(NULL, 0);
  sdb_symctx *ctx = NULL;
  if (lua_istable(L, 4)) {
    lua_getfield(L, 4, "context");
    if (!lua_isnil(L, -1)) {
      ctx = check_ctx(L, -1);
      lua_getfield(L, 4, "dim");
      spec = sdb_symctx_dim(ctx, (size_t)luaL_optinteger(L, -1, 0));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, 4, "dynamic");
    if (!lua_isnil(L, -1)) spec.dynamic = check_dyn(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 4, "min");
    if (!lua_isnil(L, -1)) { spec.has_min = true; spec.min = luaL_checkinteger(L, -1); }
    lua_pop(L, 1);
    lua_getfield(L, 4, "max");
    if (!lua_isnil(L, -1)) { spec.has_max = true; spec.max = luaL_checkinteger(L, -1); }
    lua_pop(L, 1);
    spec.unspecified = opt_bool(L, 4, "unspecified", false);
  }
  const sdb_expr *out;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_create_symbol(e->env, hint, src, &spec, ctx, &out, &err)) return fail(L, &err);
  lsdb_push_expr(L, out);
  return 1;
}

static int m_create_unbacked_symint(lua_State *L) {
  lenv *e = check_env(L, 1);
  lsdb_push_expr(L, lsdb_checked(L, sdb_create_unbacked_symint(e->env)));
  return 1;
}
static int m_create_unbacked_symbool(lua_State *L) {
  lenv *e = check_env(L, 1);
  lsdb_push_expr(L, lsdb_checked(L, sdb_create_unbacked_symbool(e->env)));
  return 1;
}
static int m_create_unbacked_symfloat(lua_State *L) {
  lenv *e = check_env(L, 1);
  lsdb_push_expr(L, lsdb_checked(L, sdb_create_unbacked_symfloat(e->env)));
  return 1;
}

static int m_evaluate(lua_State *L) {
  lenv *e = check_env(L, 1);
  const sdb_expr *x = lsdb_check_expr(L, 2), *out;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_evaluate(e->env, x, &out, &err)) return fail(L, &err);
  lsdb_push_expr(L, out);
  return 1;
}

static int m_guard_bool(lua_State *L) {
  lenv *e = check_env(L, 1);
  bool v;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_guard_bool(e->env, lsdb_check_expr(L, 2), &v, &err)) return fail(L, &err);
  lua_pushboolean(L, v);
  return 1;
}

static int m_guard_int(lua_State *L) {
  lenv *e = check_env(L, 1);
  int64_t v;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_guard_int(e->env, lsdb_check_expr(L, 2), &v, &err)) return fail(L, &err);
  lua_pushinteger(L, v);
  return 1;
}

static int m_size_hint(lua_State *L) {
  lenv *e = check_env(L, 1);
  int64_t v;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_size_hint(e->env, lsdb_check_expr(L, 2), &v, &err)) return fail(L, &err);
  lua_pushinteger(L, v);
  return 1;
}

static int m_statically_known_true(lua_State *L) {
  lenv *e = check_env(L, 1);
  lua_pushboolean(L, sdb_statically_known_true(e->env, lsdb_check_expr(L, 2)));
  return 1;
}

static int m_maybe_evaluate_static(lua_State *L) {
  lenv *e = check_env(L, 1);
  const sdb_expr *r = sdb_maybe_evaluate_static(e->env, lsdb_check_expr(L, 2));
  if (r) lsdb_push_expr(L, r);
  else lua_pushnil(L);
  return 1;
}

static int m_simplify(lua_State *L) {
  lenv *e = check_env(L, 1);
  lsdb_push_expr(L, lsdb_checked(L, sdb_simplify(e->env, lsdb_check_expr(L, 2))));
  return 1;
}

static void push_range(lua_State *L, sdb_range r) {
  char buf[SDB_RANGE_STRLEN];
  lua_createtable(L, 0, 3);
  if (r.lo != SDB_NINF) { lua_pushinteger(L, r.lo); lua_setfield(L, -2, "lo"); }
  if (r.hi != SDB_PINF) { lua_pushinteger(L, r.hi); lua_setfield(L, -2, "hi"); }
  lua_pushstring(L, sdb_range_str(r, buf, sizeof buf));
  lua_setfield(L, -2, "text");
  luaL_setmetatable(L, "shapedb.Range");
}

static int m_bound(lua_State *L) {
  lenv *e = check_env(L, 1);
  push_range(L, sdb_bound_in(e->env, lsdb_check_expr(L, 2)));
  return 1;
}

static int m_range(lua_State *L) {
  lenv *e = check_env(L, 1);
  const sdb_expr *s = lsdb_check_expr(L, 2);
  if (s->kind != SDB_SYM || !sdb_symbol(e->env, s))
    return luaL_error(L, "%s is not a symbol of this ShapeEnv", lua_tostring(L, 2) ? lua_tostring(L, 2) : "argument");
  push_range(L, sdb_symbol_range(e->env, s));
  return 1;
}

static int m_check(lua_State *L) {
  lenv *e = check_env(L, 1);
  sdb_err err = SDB_ERR_INIT;
  if (sdb_check(e->env, lsdb_check_expr(L, 2), luaL_optstring(L, 3, NULL), &err)) return fail(L, &err);
  return 0;
}

static int m_check_is_size(lua_State *L) {
  lenv *e = check_env(L, 1);
  sdb_err err = SDB_ERR_INIT;
  if (sdb_check_is_size(e->env, lsdb_check_expr(L, 2), &err)) return fail(L, &err);
  return 0;
}

static int64_t opt_bound(lua_State *L, int idx, int64_t inf) {
  return lua_isnoneornil(L, idx) ? inf : luaL_checkinteger(L, idx);
}

static int m_constrain_range(lua_State *L) {
  lenv *e = check_env(L, 1);
  sdb_err err = SDB_ERR_INIT;
  if (sdb_constrain_range(e->env, lsdb_check_expr(L, 2), opt_bound(L, 3, SDB_NINF),
                          opt_bound(L, 4, SDB_PINF), "constrain_range", &err))
    return fail(L, &err);
  return 0;
}

static int m_rename_unbacked_to(lua_State *L) {
  lenv *e = check_env(L, 1);
  sdb_err err = SDB_ERR_INIT;
  if (sdb_rename_unbacked_to(e->env, lsdb_check_expr(L, 2), lsdb_check_expr(L, 3),
                             luaL_optstring(L, 4, NULL), &err))
    return fail(L, &err);
  return 0;
}

static int m_pending(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_pending_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lsdb_push_expr(L, sdb_pending_at(e->env, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_pending_clear(lua_State *L) {
  sdb_pending_clear(check_env(L, 1)->env);
  return 0;
}

/* env:ignore_fresh_unbacked_symbols(fn, ...) runs fn in the scope */
static int m_ignore_fresh(lua_State *L) {
  lenv *e = check_env(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  int nargs = lua_gettop(L) - 2;
  sdb_ignore_fresh_push(e->env);
  int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
  e = check_env(L, 1);
  sdb_ignore_fresh_pop(e->env);
  if (status != LUA_OK) return lua_error(L);
  return lua_gettop(L) - 1;
}

static void set_prov(lua_State *L, const sdb_prov *p) {
  lua_pushstring(L, sdb_phase_name(p->phase));
  lua_setfield(L, -2, "phase");
  if (p->op) { lua_pushstring(L, p->op); lua_setfield(L, -2, "op"); }
  if (p->loc.file) {
    lua_pushstring(L, p->loc.file);
    lua_setfield(L, -2, "file");
    lua_pushinteger(L, p->loc.line);
    lua_setfield(L, -2, "line");
  }
}

/* Records print as their main expression; the table has the details. */
static int record_tostring(lua_State *L) {
  lua_getfield(L, 1, "text");
  return 1;
}

static void new_record(lua_State *L, const char *text) {
  lua_createtable(L, 0, 8);
  lua_pushstring(L, text);
  lua_setfield(L, -2, "text");
  luaL_setmetatable(L, "shapedb.Record");
}

static void push_record_expr(lua_State *L, const sdb_expr *e, const char *field) {
  lsdb_push_expr(L, e);
  lua_setfield(L, -2, field);
}

static char *str_of(const sdb_expr *e) {
  char *s = sdb_expr_str(e);
  return s ? s : strdup("?");
}

static int m_guards(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_guard_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_guard *g = sdb_guard_at(e->env, i);
    char *s = str_of(g->expr);
    new_record(L, s);
    free(s);
    push_record_expr(L, g->expr, "expr");
    set_prov(L, &g->prov);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_runtime_asserts(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_assert_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_runtime_assert *a = sdb_assert_at(e->env, i);
    char *s = str_of(a->expr);
    new_record(L, s);
    free(s);
    push_record_expr(L, a->expr, "expr");
    if (a->key) push_record_expr(L, a->key, "key");
    if (a->msg) { lua_pushstring(L, a->msg); lua_setfield(L, -2, "msg"); }
    set_prov(L, &a->prov);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_replacements(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_replacement_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_replacement *r = sdb_replacement_at(e->env, i);
    char *a = str_of(r->sym), *b = str_of(r->target);
    char *text = malloc(strlen(a) + strlen(b) + 5);
    if (text) sprintf(text, "%s -> %s", a, b);
    new_record(L, text ? text : "?");
    free(a);
    free(b);
    free(text);
    push_record_expr(L, r->sym, "sym");
    push_record_expr(L, r->target, "target");
    lua_pushstring(L, r->reason);
    lua_setfield(L, -2, "reason");
    set_prov(L, &r->prov);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_renamings(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_renaming_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_renaming *r = sdb_renaming_at(e->env, i);
    lua_pushfstring(L, "%s -> %s", r->from->name, r->to->name);
    new_record(L, lua_tostring(L, -1));
    lua_remove(L, -2);
    push_record_expr(L, r->from, "from");
    push_record_expr(L, r->to, "to");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_specializations(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_specialization_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_specialization *s = sdb_specialization_at(e->env, i);
    lua_pushfstring(L, "%s = %I (%s)", s->source ? s->source->name : "?", (lua_Integer)s->value, s->reason);
    new_record(L, lua_tostring(L, -1));
    lua_remove(L, -2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_symbols(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_symbol_count(e->env);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const sdb_symbol_info *s = sdb_symbol_at(e->env, i);
    char r[SDB_RANGE_STRLEN];
    lua_pushfstring(L, "%s %s", s->sym->name, sdb_range_str(s->range, r, sizeof r));
    new_record(L, lua_tostring(L, -1));
    lua_remove(L, -2);
    push_record_expr(L, s->sym, "sym");
    lua_pushboolean(L, s->unbacked);
    lua_setfield(L, -2, "unbacked");
    lua_pushboolean(L, s->size_like);
    lua_setfield(L, -2, "size_like");
    if (s->has_hint) { lua_pushinteger(L, s->hint); lua_setfield(L, -2, "hint"); }
    if (s->nsources) { lua_pushstring(L, s->sources[0]->name); lua_setfield(L, -2, "source"); }
    push_range(L, s->range);
    lua_setfield(L, -2, "range");
    set_prov(L, &s->created);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* env:produce_guards() -> { "L['x'].size()[0] == L['y'].size()[0]", ... }
** (static tensor properties are left out, as in PyTorch) */
static int m_produce_guards(lua_State *L) {
  lenv *e = check_env(L, 1);
  sdb_shape_guards g;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_produce_guards(e->env, &g, &err)) return fail(L, &err);
  lua_createtable(L, (int)g.n, 0);
  int k = 0;
  for (size_t i = 0; i < g.n; i++) {
    if (g.v[i].kind == SDB_SG_STATIC) continue;
    lua_pushstring(L, g.v[i].text);
    lua_rawseti(L, -2, ++k);
  }
  sdb_shape_guards_free(&g);
  return 1;
}

/* Values for check_guards: { x = {5, 2}, n = 3, ["L['y'].size()[0]"] = 4 }.
** A tensor's strides are contiguous and its storage offset 0 unless given
** by full source name. The values table is at the top of L's stack. */
int lsdb_source_value(void *ud, const sdb_source *src, int64_t *out) {
  lua_State *L = ud;
  int t = lua_gettop(L);   /* the values table */
  lua_getfield(L, t, src->name);
  if (lua_isinteger(L, -1)) { *out = lua_tointeger(L, -1); lua_pop(L, 1); return 0; }
  lua_pop(L, 1);
  const sdb_source *root = sdb_source_root(src);
  if (!root || !root->ident) return -1;
  lua_getfield(L, t, root->ident);
  int rc = -1;
  if (src == root && lua_isinteger(L, -1)) { *out = lua_tointeger(L, -1); rc = 0; }
  else if (lua_istable(L, -1) && src->base == root) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (src->kind == SDB_SRC_SIZE && src->idx < n) {
      lua_rawgeti(L, -1, src->idx + 1);
      *out = lua_tointeger(L, -1);
      lua_pop(L, 1);
      rc = 0;
    } else if (src->kind == SDB_SRC_STRIDE && src->idx < n) {
      int64_t st = 1;
      for (lua_Integer d = n - 1; d > src->idx; d--) {
        lua_rawgeti(L, -1, d + 1);
        st *= lua_tointeger(L, -1);
        lua_pop(L, 1);
      }
      *out = st;
      rc = 0;
    } else if (src->kind == SDB_SRC_STORAGE_OFFSET) {
      *out = 0;
      rc = 0;
    }
  }
  lua_pop(L, 1);
  return rc;
}

/* env:check_guards(values) -> true | false, { reasons... } */
static int m_check_guards(lua_State *L) {
  lenv *e = check_env(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  sdb_shape_guards g;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_produce_guards(e->env, &g, &err)) return fail(L, &err);
  char *reasons = NULL;
  int n = sdb_check_guards(&g, lsdb_source_value, L, NULL, 0, &reasons, &err);
  sdb_shape_guards_free(&g);
  if (n < 0) { free(reasons); return fail(L, &err); }
  lua_pushboolean(L, n == 0);
  lua_newtable(L);
  int k = 0;
  for (char *p = reasons, *nl; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
    nl = strchr(p, '\n');
    lua_pushlstring(L, p, nl ? (size_t)(nl - p) : strlen(p));
    lua_rawseti(L, -2, ++k);
  }
  free(reasons);
  return 2;
}

/* env:events() -> { "create_symbol s0 = 5 for L['x'].size()[0] [2, int_oo]", ... } */
static int m_events(lua_State *L) {
  lenv *e = check_env(L, 1);
  size_t n = sdb_events_count(e->ev);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    char *s = sdb_event_summary(sdb_events_at(e->ev, i));
    if (!s) return luaL_error(L, "out of memory: cannot print event %d", (int)i);
    lua_pushstring(L, s);
    free(s);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_is_unbacked(lua_State *L) {
  lenv *e = check_env(L, 1);
  lua_pushboolean(L, sdb_is_unbacked(e->env, lsdb_check_expr(L, 2)));
  return 1;
}

static int env_tostring(lua_State *L) {
  lenv *e = check_env(L, 1);
  lua_pushfstring(L, "ShapeEnv(%d symbols, %d guards, %d pending)",
                  (int)sdb_symbol_count(e->env), (int)sdb_guard_count(e->env),
                  (int)sdb_pending_count(e->env));
  return 1;
}

static const luaL_Reg env_methods[] = {
  {"create_symbol", m_create_symbol},
  {"create_unbacked_symint", m_create_unbacked_symint},
  {"create_unbacked_symbool", m_create_unbacked_symbool},
  {"create_unbacked_symfloat", m_create_unbacked_symfloat},
  {"evaluate", m_evaluate}, {"guard_bool", m_guard_bool}, {"guard_int", m_guard_int},
  {"size_hint", m_size_hint},
  {"statically_known_true", m_statically_known_true},
  {"maybe_evaluate_static", m_maybe_evaluate_static},
  {"simplify", m_simplify}, {"bound", m_bound}, {"range", m_range},
  {"check", m_check}, {"check_is_size", m_check_is_size},
  {"constrain_range", m_constrain_range},
  {"rename_unbacked_to", m_rename_unbacked_to},
  {"pending", m_pending}, {"pending_clear", m_pending_clear},
  {"ignore_fresh_unbacked_symbols", m_ignore_fresh},
  {"guards", m_guards}, {"runtime_asserts", m_runtime_asserts},
  {"replacements", m_replacements}, {"renamings", m_renamings},
  {"specializations", m_specializations}, {"symbols", m_symbols},
  {"produce_guards", m_produce_guards}, {"check_guards", m_check_guards},
  {"events", m_events}, {"is_unbacked", m_is_unbacked},
  {NULL, NULL}
};

static const luaL_Reg src_methods[] = {
  {"size", src_size}, {"stride", src_stride}, {"storage_offset", src_storage_offset},
  {"index", src_index}, {"attr", src_attr}, {NULL, NULL}
};

static const luaL_Reg module_fns[] = {
  {"shape_env", l_shape_env}, {"source", l_source},
  {"symbolic_context", l_symbolic_context}, {NULL, NULL}
};

void lsdb_open_shape_env(lua_State *L) {
  luaL_newmetatable(L, LSDB_SHAPE_ENV);
  lua_pushcfunction(L, env_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, env_gc);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, env_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, env_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  luaL_newmetatable(L, LSDB_SOURCE);
  lua_pushcfunction(L, src_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, src_eq);
  lua_setfield(L, -2, "__eq");
  luaL_newlib(L, src_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  luaL_newmetatable(L, LSDB_SYMCTX);
  lua_pushcfunction(L, ctx_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, ctx_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);

  luaL_newmetatable(L, "shapedb.Record");
  lua_pushcfunction(L, record_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);

  luaL_setfuncs(L, module_fns, 0);
}
