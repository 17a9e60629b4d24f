/*
** lsdb_sym.c — SymInt / SymBool / SymFloat userdata: arithmetic and
** comparison metamethods (a comparison takes a guard through the ShapeEnv,
** as bool(SymBool) does), torch.sym_and/sym_or/sym_not, and torch._check /
** torch._check_is_size. Split out of lsdb_torch.c (pure move); the helpers
** both share are declared in lsdb_rt.h.
*/
#include "lsdb_rt.h"
#include "buf.h"
#include "fake.h"
#include "graph.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"
#include "shape_env.h"
#include "srcfile.h"
#include "tracer.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** SymInt / SymBool / SymFloat
** ---------------------------------------------------------------------- */

lsym *lsdb_test_sym(lua_State *L, int idx) {
  lsym *s = lsdb_testudata(L, idx, LSDB_SYMINT);
  if (!s) s = lsdb_symbool_use(L, idx);
  if (!s) s = lsdb_testudata(L, idx, LSDB_SYMFLOAT);
  return s;
}

/* An int-valued operand: SymInt, Lua integer, or Expr. */
static const sdb_expr *sym_operand(lua_State *L, int idx, const char *op) {
  lsym *s = lsdb_own_sym(L, lsdb_testudata(L, idx, LSDB_SYMINT));
  if (s) return s->e;
  if (lua_isinteger(L, idx)) return sdb_int(lua_tointeger(L, idx));
  if (lsdb_testudata(L, idx, LSDB_SYMBOOL))
    luaL_error(L, "%s: a SymBool is not an integer (use torch.sym_int(b) or b:bool())", op);
  if (lua_type(L, idx) == LUA_TNUMBER)
    luaL_error(L, "%s: SymInt arithmetic with a float is not modelled (use an integer)", op);
  if (lsdb_testudata(L, idx, LSDB_SYMFLOAT))
    luaL_error(L, "%s: SymFloat arithmetic and comparisons are not modelled (a SymFloat comes "
                  "from item() on a floating-point tensor; an integer tensor gives a SymInt)", op);
  const sdb_expr *e = lsdb_to_expr(L, idx);
  if (e && !sdb_is_bool(e)) return e;
  luaL_error(L, "%s: expected a SymInt or an integer, got %s", op, luaL_typename(L, idx));
  return NULL;
}

/* a (op) b on SymInts: the expression, and while tracing the operator node. */
static int sym_binop(lua_State *L, const sdb_expr *(*build)(const sdb_expr *, const sdb_expr *),
                     const char *target, const char *hint, bool result_bool) {
  /* a tensor on either side: the tensor operator handles it */
  if (lsdb_testudata(L, 1, LSDB_TENSOR) || lsdb_testudata(L, 2, LSDB_TENSOR)) {
    if (!strcmp(hint, "add")) return lsdb_t_add(L);
    if (!strcmp(hint, "sub")) return lsdb_t_sub(L);
    if (!strcmp(hint, "mul")) return lsdb_t_mul(L);
    return luaL_error(L, "%s between a SymInt and a tensor is not supported", hint);
  }
  const sdb_expr *a = sym_operand(L, 1, hint), *b = sym_operand(L, 2, hint);
  const sdb_expr *r = build(a, b);
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  lruntime *rt = lsdb_runtime(L);
  sdb_value ex = result_bool ? sdb_value_bool(r) : sdb_value_int(r);
  sdb_node *node = NULL;
  if (rt->active && !sdb_is_const(r)) {
    sdb_tracer *tr = rt->active->tracer;
    lsdb_adopt_proxy(L, 1, tr);
    lsdb_adopt_proxy(L, 2, tr);
    sdb_value args[2] = {sdb_value_int(a), sdb_value_int(b)};
    sdb_err err = SDB_ERR_INIT;
    node = sdb_tracer_node(tr, SDB_N_CALL_FUNCTION, target, hint, args, NULL, 2, &ex, false, &err);
    if (!node) return lsdb_raise(L, &err);
    sdb_map_put(&tr->sym_proxy, r, node);
  }
  lsdb_push_scalar(L, &ex, node);
  return 1;
}

static int s_add(lua_State *L) { return sym_binop(L, sdb_add, "operator.add", "add", false); }
static int s_sub(lua_State *L) { return sym_binop(L, sdb_sub, "operator.sub", "sub", false); }
static int s_mul(lua_State *L) { return sym_binop(L, sdb_mul, "operator.mul", "mul", false); }
static int s_idiv(lua_State *L) { return sym_binop(L, sdb_floordiv, "operator.floordiv", "floordiv", false); }
static int s_mod(lua_State *L) { return sym_binop(L, sdb_mod, "operator.mod", "mod", false); }
static int s_lt_b(lua_State *L) { return sym_binop(L, sdb_lt, "operator.lt", "lt", true); }
static int s_le_b(lua_State *L) { return sym_binop(L, sdb_le, "operator.le", "le", true); }
static int s_gt_b(lua_State *L) { return sym_binop(L, sdb_gt, "operator.gt", "gt", true); }
static int s_ge_b(lua_State *L) { return sym_binop(L, sdb_ge, "operator.ge", "ge", true); }
static int s_eq_b(lua_State *L) { return sym_binop(L, sdb_eq, "operator.eq", "eq", true); }
static int s_ne_b(lua_State *L) { return sym_binop(L, sdb_ne, "operator.ne", "ne", true); }

static int s_unm(lua_State *L) {
  lua_settop(L, 1);
  lua_pushinteger(L, -1);
  lua_insert(L, 1);
  return s_mul(L);
}

/* bool(SymBool): the guard (or the data-dependent error) happens here. */
static bool guard(lua_State *L, const sdb_expr *e) {
  sdb_err err = SDB_ERR_INIT;
  bool v = false;
  if (sdb_guard_bool(lsdb_current_env(L), e, &v, &err)) lsdb_raise(L, &err);
  return v;
}

/* Was the comparison written with `>` (or `>=` when `eq`)? Lua compiles
** `a > b` as `b < a` and calls __lt(b, a) either way, but PyTorch keeps the
** orientation written (Gt(s1, s0) prints `s1 > s0`), so read the user's
** line: only `>` there means Gt, only `<` means Lt. On a line with both, or
** none (a comparison made elsewhere), a number on the left means Gt, as
** `n > 2` is far likelier than `2 < n`. */
static bool written_greater(lua_State *L, bool eq) {
  sdb_loc loc = {NULL, 0, NULL};
  const char *code = lsdb_locate(L, &loc) ? sdb_srcfile_line(loc.file, loc.line) : NULL;
  int gt = 0, lt = 0;
  for (const char *p = code; p && *p; p++) {
    if (p[0] == '-' && p[1] == '-') break;                       /* comment */
    if (p[0] == '"' || p[0] == '\'') {                           /* string */
      char q = *p++;
      while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
      if (!*p) break;
      continue;
    }
    if ((p[0] != '<' && p[0] != '>') || p[1] == p[0]) {          /* << >> */
      if ((p[0] == '<' || p[0] == '>') && p[1]) p++;
      continue;
    }
    bool is_eq = p[1] == '=';
    if (is_eq == eq) { if (p[0] == '>') gt++; else lt++; }
    if (is_eq) p++;
  }
  if (gt && !lt) return true;
  if (lt && !gt) return false;
  return lua_type(L, 1) == LUA_TNUMBER && lua_type(L, 2) != LUA_TNUMBER;
}

/* Lua turns the result of < and <= into a boolean at once: take the guard. */
static int s_lt(lua_State *L) {
  const sdb_expr *a = sym_operand(L, 1, "<"), *b = sym_operand(L, 2, "<");
  const sdb_expr *r = written_greater(L, false) ? sdb_gt(b, a) : sdb_lt(a, b);
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  lua_pushboolean(L, guard(L, r));
  return 1;
}

static int s_le(lua_State *L) {
  const sdb_expr *a = sym_operand(L, 1, "<="), *b = sym_operand(L, 2, "<=");
  const sdb_expr *r = written_greater(L, true) ? sdb_ge(b, a) : sdb_le(a, b);
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  lua_pushboolean(L, guard(L, r));
  return 1;
}

/* __eq only runs between two userdata: SymInt == SymInt guards Eq. */
static int s_eq(lua_State *L) {
  lsym *a = lsdb_test_sym(L, 1), *b = lsdb_test_sym(L, 2);
  if (!a || !b) { lua_pushboolean(L, 0); return 1; }
  lsdb_own_sym(L, a);
  lsdb_own_sym(L, b);
  const sdb_expr *r = sdb_eq(a->e, b->e);
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  lua_pushboolean(L, guard(L, r));
  return 1;
}

static int s_tostring(lua_State *L) {
  lsym *s = lsdb_test_sym(L, 1);
  if (!s) return luaL_typeerror(L, 1, "SymInt");
  const sdb_expr *e = s->env ? sdb_simplify(s->env, s->e) : s->e;
  char *t = sdb_expr_str(e ? e : s->e);
  lua_pushstring(L, t ? t : "?");
  free(t);
  return 1;
}

static int s_concat(lua_State *L) {
  for (int i = 1; i <= 2; i++) {
    if (lsdb_test_sym(L, i)) { lua_pushcfunction(L, s_tostring); lua_pushvalue(L, i); lua_call(L, 1, 1); }
    else lua_pushstring(L, luaL_tolstring(L, i, NULL));
  }
  lua_concat(L, 2);
  lua_replace(L, 1);
  lua_settop(L, 1);
  return 1;
}

/* n:guard_int() -> a Lua integer (Python's int(n)); guards */
static int s_guard_int(lua_State *L) {
  lsym *s = lsdb_own_sym(L, lsdb_checkudata(L, 1, LSDB_SYMINT));
  sdb_err err = SDB_ERR_INIT;
  int64_t v;
  if (sdb_guard_int(lsdb_current_env(L), s->e, &v, &err)) return lsdb_raise(L, &err);
  lua_pushinteger(L, v);
  return 1;
}

/* b:bool() -> a Lua boolean (Python's bool(b)); guards */
static int s_bool(lua_State *L) {
  lsym *s = lsdb_own_sym(L, lsdb_checkudata(L, 1, LSDB_SYMBOOL));
  lsdb_symbool_mark_used(L, 1, s);
  lua_pushboolean(L, guard(L, s->e));
  return 1;
}

/* n:expr() -> the Expr (for shapedb.bound, printing, teaching) */
static int s_expr(lua_State *L) {
  lsym *s = lsdb_test_sym(L, 1);
  if (!s) return luaL_typeerror(L, 1, "SymInt");
  lsdb_push_expr(L, s->e);
  return 1;
}

static int s_node(lua_State *L) {
  lsym *s = lsdb_test_sym(L, 1);
  if (s && s->node) lua_pushstring(L, s->node->name);
  else lua_pushnil(L);
  return 1;
}

/* The SymBool combinators: torch.sym_and / sym_or / sym_not */
static const sdb_expr *bool_operand(lua_State *L, int idx) {
  lsym *s = lsdb_symbool_use(L, idx);
  if (s) return s->e;
  if (lua_isboolean(L, idx)) return sdb_bool(lua_toboolean(L, idx));
  const sdb_expr *e = lsdb_to_expr(L, idx);
  if (e && sdb_is_bool(e)) return e;
  luaL_typeerror(L, idx, "SymBool or boolean");
  return NULL;
}

static int bool_combine(lua_State *L, bool and_) {
  int n = lua_gettop(L);
  const sdb_expr *acc = sdb_bool(and_);
  for (int i = 1; i <= n; i++) acc = and_ ? sdb_and(acc, bool_operand(L, i)) : sdb_or(acc, bool_operand(L, i));
  if (!acc) return luaL_error(L, "%s", sdb_expr_error());
  lruntime *rt = lsdb_runtime(L);
  sdb_value ex = sdb_value_bool(acc);
  sdb_node *node = NULL;
  if (rt->active && !sdb_is_const(acc)) {
    sdb_tracer *tr = rt->active->tracer;
    for (int i = 1; i <= n; i++) lsdb_adopt_proxy(L, i, tr);
    sdb_err err = SDB_ERR_INIT;
    node = sdb_tracer_proxy_expr(tr, acc, &err);
    if (!node) return lsdb_raise(L, &err);
  }
  lsdb_push_scalar(L, &ex, node);
  return 1;
}

/* for lsdb_apis.c */
const sdb_expr *lsdb_bool_operand(lua_State *L, int idx) { return bool_operand(L, idx); }
const sdb_expr *lsdb_sym_operand(lua_State *L, int idx, const char *op) { return sym_operand(L, idx, op); }

static int l_sym_and(lua_State *L) { return bool_combine(L, true); }
static int l_sym_or(lua_State *L) { return bool_combine(L, false); }

static int l_sym_not(lua_State *L) {
  const sdb_expr *e = sdb_not(bool_operand(L, 1));
  if (!e) return luaL_error(L, "%s", sdb_expr_error());
  lruntime *rt = lsdb_runtime(L);
  sdb_value ex = sdb_value_bool(e);
  sdb_node *node = NULL;
  if (rt->active && !sdb_is_const(e)) {
    lsdb_adopt_proxy(L, 1, rt->active->tracer);
    sdb_err err = SDB_ERR_INIT;
    node = sdb_tracer_proxy_expr(rt->active->tracer, e, &err);
    if (!node) return lsdb_raise(L, &err);
  }
  lsdb_push_scalar(L, &ex, node);
  return 1;
}

/* torch._check(cond [, msg]) and torch._check_is_size(n): evaluated now on
** the ShapeEnv (a guard or a deferred runtime assert), recorded in the
** graph as Dynamo records them. */
static int check_common(lua_State *L, bool is_size) {
  lruntime *rt = lsdb_runtime(L);
  sdb_shape_env *env = lsdb_current_env(L);
  const sdb_expr *e;
  if (is_size) {
    e = sym_operand(L, 1, "torch._check_is_size");
  } else {
    if (lua_isboolean(L, 1)) {
      if (lua_toboolean(L, 1)) return 0;
      return luaL_error(L, "RuntimeError: %s", luaL_optstring(L, 2,
                        "Expected cond to be True, but got False. (Could this error message be improved? "
                        "If so, please report an enhancement request to PyTorch.)"));
    }
    if (lsdb_testudata(L, 1, LSDB_SYMINT) || lua_isinteger(L, 1))
      return luaL_error(L, "torch._check expects a condition; build one without deciding it, "
                           "e.g. torch._check(n:ge(0)) (n >= 0 would take a guard first)");
    e = bool_operand(L, 1);
  }
  const char *msg = is_size ? NULL : luaL_optstring(L, 2, NULL);
  if (rt->active && !sdb_is_const(e)) {
    sdb_tracer *tr = rt->active->tracer;
    lsdb_adopt_proxy(L, 1, tr);
    sdb_value args[1] = {is_size ? sdb_value_int(e) : sdb_value_bool(e)};
    sdb_err err = SDB_ERR_INIT;
    sdb_node *n = sdb_tracer_node(tr, SDB_N_CALL_FUNCTION, is_size ? "torch._check_is_size" : "torch._check",
                                  is_size ? "_check_is_size" : "_check", args, NULL, 1, NULL, true, &err);
    if (!n) return lsdb_raise(L, &err);
  }
  sdb_err err = SDB_ERR_INIT;
  sdb_events_push_op(sdb_shape_env_events(env), is_size ? "_check_is_size" : "_check");
  int rc = is_size ? sdb_check_is_size(env, e, &err) : sdb_check(env, e, msg, &err);
  sdb_events_pop_op(sdb_shape_env_events(env));
  if (rc) return lsdb_raise(L, &err);
  return 0;
}

static int l_check(lua_State *L) { return check_common(L, false); }
static int l_check_is_size(lua_State *L) { return check_common(L, true); }

static const luaL_Reg sym_meta[] = {
  {"__add", s_add}, {"__sub", s_sub}, {"__mul", s_mul}, {"__idiv", s_idiv},
  {"__mod", s_mod}, {"__unm", s_unm}, {"__lt", s_lt}, {"__le", s_le},
  {"__eq", s_eq}, {"__tostring", s_tostring}, {"__concat", s_concat}, {NULL, NULL}
};

static const luaL_Reg sym_methods[] = {
  {"lt", s_lt_b}, {"le", s_le_b}, {"gt", s_gt_b}, {"ge", s_ge_b}, {"eq", s_eq_b},
  {"ne", s_ne_b}, {"guard_int", s_guard_int}, {"bool", s_bool}, {"expr", s_expr},
  {"node", s_node}, {NULL, NULL}
};

static const luaL_Reg torch_fns[] = {
  {"_check", l_check}, {"_check_is_size", l_check_is_size},
  {"sym_and", l_sym_and}, {"sym_or", l_sym_or}, {"sym_not", l_sym_not},
  {NULL, NULL}
};

static void new_sym_type(lua_State *L, const char *name, const char *pretty) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, sym_meta, 0);
  luaL_newlib(L, sym_methods);
  lua_setfield(L, -2, "__index");
  lua_pushstring(L, pretty);
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}

void lsdb_open_sym(lua_State *L) {
  new_sym_type(L, LSDB_SYMINT, "SymInt");
  new_sym_type(L, LSDB_SYMBOOL, "SymBool");
  new_sym_type(L, LSDB_SYMFLOAT, "SymFloat");
}

void lsdb_sym_torch_fns(lua_State *L) { luaL_setfuncs(L, torch_fns, 0); }
