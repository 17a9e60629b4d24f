/*
** lsdb_apis.c — PyTorch's guard-free helpers under PyTorch's names:
** torch.fx.experimental.symbolic_shapes.guard_size_oblivious,
** guard_or_false, guard_or_true, statically_known_true,
** statically_known_false, and torch.sym_max / sym_min / sym_ite. The
** decisions themselves (and their `oblivious` events) are core/decide's.
*/
#include "lsdb_rt.h"
#include "decide.h"
#include "intern.h"

#include <lauxlib.h>
#include <stdlib.h>

/* a Lua boolean passes through, as a Python bool does in PyTorch */
static int l_guard_size_oblivious(lua_State *L) {
  if (lua_isboolean(L, 1)) { lua_settop(L, 1); return 1; }
  const sdb_expr *b = lsdb_bool_operand(L, 1);
  sdb_err err = SDB_ERR_INIT;
  bool v = false;
  if (sdb_guard_size_oblivious(lsdb_current_env(L), b, &v, &err)) return lsdb_raise(L, &err);
  lua_pushboolean(L, v);
  return 1;
}

static int guard_or(lua_State *L, bool dflt) {
  if (lua_isboolean(L, 1)) { lua_settop(L, 1); return 1; }
  lua_pushboolean(L, sdb_decide_guard_or(lsdb_current_env(L), lsdb_bool_operand(L, 1), dflt));
  return 1;
}
static int l_guard_or_false(lua_State *L) { return guard_or(L, false); }
static int l_guard_or_true(lua_State *L) { return guard_or(L, true); }

static int known(lua_State *L, bool want) {
  if (lua_isboolean(L, 1)) { lua_pushboolean(L, lua_toboolean(L, 1) == want); return 1; }
  lua_pushboolean(L, sdb_decide_statically_known(lsdb_current_env(L), lsdb_bool_operand(L, 1), want));
  return 1;
}
static int l_statically_known_true(lua_State *L) { return known(L, true); }
static int l_statically_known_false(lua_State *L) { return known(L, false); }

/* "u0", "3": an operand as the call was written */
static const char *operand_text(const sdb_expr *e) {
  char *s = sdb_expr_str(e);
  const char *r = sdb_intern(s ? s : "?");
  free(s);
  return r;
}

static int push_result(lua_State *L, const sdb_expr *r) {
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  sdb_value v = sdb_is_bool(r) ? sdb_value_bool(r) : sdb_value_int(r);
  lsdb_push_value(L, &v, NULL);   /* an op using it proxies the expression */
  return 1;
}

/* torch.sym_max(a, b) / torch.sym_min(a, b): Max/Min with no guard */
static int minmax(lua_State *L, bool max) {
  const char *fn = max ? "sym_max" : "sym_min";
  if (lua_isinteger(L, 1) && lua_isinteger(L, 2)) {
    lua_Integer a = lua_tointeger(L, 1), b = lua_tointeger(L, 2);
    lua_pushinteger(L, max ? (a > b ? a : b) : (a < b ? a : b));
    return 1;
  }
  const sdb_expr *a = lsdb_sym_operand(L, 1, fn), *b = lsdb_sym_operand(L, 2, fn);
  const sdb_expr *r = max ? sdb_max(a, b) : sdb_min(a, b);
  if (!r) return luaL_error(L, "%s", sdb_expr_error());
  sdb_shape_env *env = lsdb_current_env(L);
  const sdb_expr *s = sdb_simplify(env, r);
  if (s) r = s;
  sdb_decision_note(env, sdb_internf("%s(%s, %s)", fn, operand_text(a), operand_text(b)), r,
                    sdb_is_const(r) || r->kind == SDB_SYM
                      ? max ? "one operand is known to be the larger, no guard" : "one operand is known to be the smaller, no guard"
                      : "built symbolically, no guard");
  return push_result(L, r);
}
static int l_sym_max(lua_State *L) { return minmax(L, true); }
static int l_sym_min(lua_State *L) { return minmax(L, false); }

/* torch.sym_ite(c, a, b): a if c else b, with no guard on c. PyTorch
** builds Piecewise((a, c), (b, True)); shapedb has no Piecewise, so an
** undecided c with differing branches is refused (README: Not yet). */
static int l_sym_ite(lua_State *L) {
  lua_settop(L, 3);
  if (lua_isboolean(L, 1)) {
    lua_pushvalue(L, lua_toboolean(L, 1) ? 2 : 3);
    return 1;
  }
  const sdb_expr *c = lsdb_bool_operand(L, 1);
  sdb_shape_env *env = lsdb_current_env(L);
  bool ints = !lua_isboolean(L, 2);
  const sdb_expr *a = ints ? lsdb_sym_operand(L, 2, "sym_ite") : sdb_bool(lua_toboolean(L, 2));
  const sdb_expr *b = ints ? lsdb_sym_operand(L, 3, "sym_ite") : lsdb_bool_operand(L, 3);
  const char *call = sdb_internf("sym_ite(%s, %s, %s)", operand_text(c), operand_text(a), operand_text(b));
  const sdb_expr *st = sdb_maybe_evaluate_static(env, c);
  if (st && sdb_is_const(st)) {
    bool v = st->kind == SDB_TRUE;
    sdb_decision_note(env, call, v ? a : b,
                      v ? "the condition is known to be True, no guard"
                        : "the condition is known to be False, no guard");
    lua_pushvalue(L, v ? 2 : 3);
    return 1;
  }
  if (a == b) {
    sdb_decision_note(env, call, a, "both branches are equal, no guard");
    lua_pushvalue(L, 2);
    return 1;
  }
  char *ct = sdb_expr_str(c);
  luaL_where(L, 1);   /* the user's line */
  lua_pushfstring(L, "NotImplementedError: torch.sym_ite(%s, ...): the condition is not known "
                     "statically and PyTorch's answer, Piecewise((a, c), (b, True)), is not "
                     "modelled by shapedb", ct ? ct : "?");
  free(ct);
  lua_concat(L, 2);
  return lua_error(L);
}

void lsdb_open_apis(lua_State *L) {
  static const luaL_Reg top[] = {
    {"sym_max", l_sym_max}, {"sym_min", l_sym_min}, {"sym_ite", l_sym_ite}, {NULL, NULL},
  };
  static const luaL_Reg ss[] = {
    {"guard_size_oblivious", l_guard_size_oblivious},
    {"guard_or_false", l_guard_or_false}, {"guard_or_true", l_guard_or_true},
    {"statically_known_true", l_statically_known_true},
    {"statically_known_false", l_statically_known_false},
    {NULL, NULL},
  };
  luaL_setfuncs(L, top, 0);
  /* torch.fx.experimental.symbolic_shapes, as PyTorch spells the module */
  lua_newtable(L);                       /* fx */
  lua_newtable(L);                       /* experimental */
  luaL_newlib(L, ss);                    /* symbolic_shapes */
  lua_setfield(L, -2, "symbolic_shapes");
  lua_setfield(L, -2, "experimental");
  lua_setfield(L, -2, "fx");
}
