/*
** lsdb_expr.c — Expr userdata and shapedb.expr / shapedb.bound.
**
** An Expr userdata boxes one interned core expression. The expression is
** owned by the intern table, so the box needs no __gc; two boxes holding
** the same pointer are equal (__eq compares pointers, which is structural
** equality for hash-consed expressions).
*/
#include "lsdb.h"
#include "ranges.h"

#include <stdlib.h>
#include <string.h>

const sdb_expr *lsdb_checked(lua_State *L, const sdb_expr *e) {
  if (!e) luaL_error(L, "%s", sdb_expr_error());
  return e;
}

void lsdb_push_expr(lua_State *L, const sdb_expr *e) {
  const sdb_expr **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = e;
  luaL_setmetatable(L, LSDB_EXPR);
}

const sdb_expr *lsdb_to_expr(lua_State *L, int idx) {
  const sdb_expr **box = lsdb_testudata(L, idx, LSDB_EXPR);
  if (box) return *box;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
      lua_Integer i;
      if (lua_isinteger(L, idx)) return sdb_int(lua_tointeger(L, idx));
      if (lua_numbertointeger(lua_tonumber(L, idx), &i)) {
        double d = lua_tonumber(L, idx);
        if ((double)i == d) return sdb_int(i);
      }
      return NULL;
    }
    case LUA_TBOOLEAN: return sdb_bool(lua_toboolean(L, idx));
    default: return NULL;
  }
}

const sdb_expr *lsdb_check_expr(lua_State *L, int idx) {
  const sdb_expr *e = lsdb_to_expr(L, idx);
  if (e) return e;
  if (lua_type(L, idx) == LUA_TSTRING) {
    char err[256];
    size_t len;
    const char *text = lua_tolstring(L, idx, &len);
    if (strlen(text) != len)
      luaL_error(L, "cannot parse an expression: NUL byte at column %d",
                 (int)strlen(text) + 1);
    e = sdb_parse(text, err, sizeof err);
    if (!e) {
      /* Quote at most 60 bytes of the text, never half a UTF-8 character. */
      size_t n = sdb_utf8_prefix(text, 60);
      lua_pushlstring(L, text, n);
      luaL_error(L, "cannot parse '%s%s': %s", lua_tostring(L, -1),
                 text[n] ? "..." : "", err);
    }
    return e;
  }
  if (lua_type(L, idx) == LUA_TNUMBER)
    luaL_argerror(L, idx, "expected an integer, got a non-integral number");
  luaL_typeerror(L, idx, "expression");
  return NULL;
}

/* shapedb.expr(text | number | Expr) */
static int l_expr(lua_State *L) {
  lsdb_push_expr(L, lsdb_check_expr(L, 1));
  return 1;
}

/* shapedb.sym(name) */
static int l_sym(lua_State *L) {
  lsdb_push_expr(L, lsdb_checked(L, sdb_sym(luaL_checkstring(L, 1))));
  return 1;
}

typedef const sdb_expr *(*binop)(const sdb_expr *, const sdb_expr *);

static int arith(lua_State *L, binop op) {
  const sdb_expr *a = lsdb_check_expr(L, 1), *b = lsdb_check_expr(L, 2);
  lsdb_push_expr(L, lsdb_checked(L, op(a, b)));
  return 1;
}

static int m_add(lua_State *L) { return arith(L, sdb_add); }
static int m_sub(lua_State *L) { return arith(L, sdb_sub); }
static int m_mul(lua_State *L) { return arith(L, sdb_mul); }
static int m_idiv(lua_State *L) { return arith(L, sdb_floordiv); }
static int m_mod(lua_State *L) { return arith(L, sdb_mod); }
static int m_lt_build(lua_State *L) { return arith(L, sdb_lt); }
static int m_le_build(lua_State *L) { return arith(L, sdb_le); }
static int m_gt_build(lua_State *L) { return arith(L, sdb_gt); }
static int m_ge_build(lua_State *L) { return arith(L, sdb_ge); }
static int m_eq_build(lua_State *L) { return arith(L, sdb_eq); }
static int m_ne_build(lua_State *L) { return arith(L, sdb_ne); }
static int m_and(lua_State *L) { return arith(L, sdb_and); }
static int m_or(lua_State *L) { return arith(L, sdb_or); }
static int m_max(lua_State *L) { return arith(L, sdb_max); }
static int m_min(lua_State *L) { return arith(L, sdb_min); }

static int m_pow(lua_State *L) {
  const sdb_expr *a = lsdb_check_expr(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2);
  lsdb_push_expr(L, lsdb_checked(L, sdb_pow(a, k)));
  return 1;
}

static int m_unm(lua_State *L) {
  lsdb_push_expr(L, lsdb_checked(L, sdb_neg(lsdb_check_expr(L, 1))));
  return 1;
}

static int m_not(lua_State *L) {
  lsdb_push_expr(L, lsdb_checked(L, sdb_not(lsdb_check_expr(L, 1))));
  return 1;
}

static int m_eq(lua_State *L) {
  lua_pushboolean(L, lsdb_to_expr(L, 1) == lsdb_to_expr(L, 2));
  return 1;
}

/* `<` and `<=` must give Lua a boolean now. A bare expression has no
** ShapeEnv to guard with, so only a relation that folds to a constant has
** an answer; otherwise say how to build the relation instead. */
static int decide(lua_State *L, binop op, const char *method) {
  const sdb_expr *a = lsdb_check_expr(L, 1), *b = lsdb_check_expr(L, 2);
  const sdb_expr *r = lsdb_checked(L, op(a, b));
  if (r->kind == SDB_TRUE || r->kind == SDB_FALSE) {
    lua_pushboolean(L, r->kind == SDB_TRUE);
    return 1;
  }
  char *s = sdb_expr_str(r);
  lua_pushfstring(L, "cannot decide %s without a ShapeEnv; build the relation "
                  "with :%s() instead", s ? s : "?", method);
  free(s);
  return lua_error(L);
}
static int m_lt(lua_State *L) { return decide(L, sdb_lt, "lt"); }
static int m_le(lua_State *L) { return decide(L, sdb_le, "le"); }

static void push_str(lua_State *L, const sdb_expr *e) {
  char *s = sdb_expr_str(e);
  if (!s) luaL_error(L, "out of memory");
  lua_pushstring(L, s);
  free(s);
}

static int m_tostring(lua_State *L) {
  push_str(L, lsdb_check_expr(L, 1));
  return 1;
}

static int m_concat(lua_State *L) {
  for (int i = 1; i <= 2; i++) {
    if (lsdb_testudata(L, i, LSDB_EXPR)) push_str(L, lsdb_check_expr(L, i));
    else if (lua_isstring(L, i)) lua_pushvalue(L, i);
    else luaL_typeerror(L, i, "string or expression");
  }
  lua_concat(L, 2);
  return 1;
}

/* Read { name = value, ... } into parallel arrays of symbols and values.
** The arrays live in a userdata on the stack so a Lua error cannot leak. */
typedef struct { size_t n, cap; const sdb_expr *slot[]; } symtab;
#define SYMTAB_SYMS(t) ((t)->slot)
#define SYMTAB_VALS(t) ((t)->slot + (t)->cap)

static symtab *read_map(lua_State *L, int idx, bool want_values) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) { n++; lua_pop(L, 1); }
  symtab *t = lua_newuserdatauv(L, sizeof *t + 2 * n * sizeof t->slot[0], 0);
  t->n = 0;
  t->cap = n;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const sdb_expr *s;
    if (lua_type(L, -2) == LUA_TSTRING) s = lsdb_checked(L, sdb_sym(lua_tostring(L, -2)));
    else s = lsdb_to_expr(L, -2);
    if (t->n == t->cap) luaL_error(L, "table changed while being read");
    if (!s || s->kind != SDB_SYM)
      luaL_error(L, "keys must be symbol names, got %s", luaL_typename(L, -2));
    const sdb_expr *v = want_values ? lsdb_check_expr(L, -1) : NULL;
    SYMTAB_SYMS(t)[t->n] = s;
    SYMTAB_VALS(t)[t->n] = v;
    t->n++;
    lua_pop(L, 1);
  }
  return t;
}

/* e:subs{ s0 = 4, s1 = "s2*2" } */
static int m_subs(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  symtab *t = read_map(L, 2, true);
  lsdb_push_expr(L, lsdb_checked(L, sdb_subs(e, SYMTAB_SYMS(t), SYMTAB_VALS(t), t->n)));
  return 1;
}

static int lookup_values(void *ud, const sdb_expr *sym, int64_t *out) {
  lua_State *L = ud;
  lua_getfield(L, 2, sym->name);
  int ok = 0;
  if (lua_isinteger(L, -1)) *out = lua_tointeger(L, -1);
  else if (lua_type(L, -1) == LUA_TBOOLEAN) *out = lua_toboolean(L, -1);
  else ok = -1;
  lua_pop(L, 1);
  return ok;
}

/* e:eval{ s0 = 4 } -> integer, or boolean for a boolean expression */
static int m_eval(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  if (lua_isnoneornil(L, 2)) lua_newtable(L), lua_replace(L, 2);
  luaL_checktype(L, 2, LUA_TTABLE);
  int64_t v;
  char err[256];
  if (sdb_eval(e, lookup_values, L, &v, err, sizeof err) != 0) {
    char *s = sdb_expr_str(e);
    lua_pushfstring(L, "cannot evaluate %s: %s", s ? s : "?", err);
    free(s);
    return lua_error(L);
  }
  if (sdb_is_bool(e)) lua_pushboolean(L, v != 0);
  else lua_pushinteger(L, v);
  return 1;
}

static int m_free_symbols(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  const sdb_expr **syms;
  long n = sdb_free_symbols(e, &syms);
  if (n < 0) return luaL_error(L, "out of memory");
  lua_createtable(L, (int)n, 0);
  for (long i = 0; i < n; i++) {
    lsdb_push_expr(L, syms[i]);
    lua_rawseti(L, -2, i + 1);
  }
  free(syms);
  return 1;
}

static int m_kind(lua_State *L) {
  lua_pushstring(L, sdb_kind_name((sdb_kind)lsdb_check_expr(L, 1)->kind));
  return 1;
}

static int m_is_bool(lua_State *L) {
  lua_pushboolean(L, sdb_is_bool(lsdb_check_expr(L, 1)));
  return 1;
}

/* e:args() -> the children, for teaching what canonical form looks like */
static int m_args(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  lua_createtable(L, (int)e->nargs, 0);
  for (size_t i = 0; i < e->nargs; i++) {
    lsdb_push_expr(L, e->args[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* e:value() -> the integer or boolean of a constant, nil otherwise */
static int m_value(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  if (e->kind == SDB_INT) lua_pushinteger(L, e->ival);
  else if (e->kind == SDB_TRUE || e->kind == SDB_FALSE) lua_pushboolean(L, e->kind == SDB_TRUE);
  else lua_pushnil(L);
  return 1;
}

/* --- ranges ------------------------------------------------------------ */

#define LSDB_RANGE "shapedb.Range"

static void push_bound(lua_State *L, int64_t v, bool is_bool) {
  if (v == SDB_NINF || v == SDB_PINF) lua_pushnil(L);
  else if (is_bool) lua_pushboolean(L, v != 0);
  else lua_pushinteger(L, v);
}

static void push_range(lua_State *L, sdb_range r) {
  lua_createtable(L, 0, 3);
  push_bound(L, r.lo, r.is_bool);
  lua_setfield(L, -2, "lo");
  push_bound(L, r.hi, r.is_bool);
  lua_setfield(L, -2, "hi");
  lua_pushboolean(L, r.is_bool);
  lua_setfield(L, -2, "is_bool");
  char buf[SDB_RANGE_STRLEN];
  lua_pushstring(L, sdb_range_str(r, buf, sizeof buf));
  lua_setfield(L, -2, "text");
  luaL_setmetatable(L, LSDB_RANGE);
}

static int range_tostring(lua_State *L) {
  lua_getfield(L, 1, "text");
  return 1;
}

static int64_t bound_arg(lua_State *L, int idx, int64_t inf) {
  if (lua_isnil(L, idx)) return inf;
  if (lua_type(L, idx) == LUA_TNUMBER && !lua_isinteger(L, idx)) {
    double d = lua_tonumber(L, idx);
    if (d == 1.0 / 0.0 || d == -1.0 / 0.0) return d > 0 ? SDB_PINF : SDB_NINF;
  }
  if (!lua_isinteger(L, idx)) luaL_error(L, "range bounds must be integers or nil");
  return lua_tointeger(L, idx);
}

static bool lookup_ranges(void *ud, const sdb_expr *sym, sdb_range *out) {
  lua_State *L = ud;
  if (lua_getfield(L, 2, sym->name) != LUA_TTABLE) { lua_pop(L, 1); return false; }
  int t = lua_gettop(L);
  lua_rawgeti(L, t, 1);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_getfield(L, t, "lo"); }
  out->lo = bound_arg(L, -1, SDB_NINF);
  lua_rawgeti(L, t, 2);
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_getfield(L, t, "hi"); }
  out->hi = bound_arg(L, -1, SDB_PINF);
  out->is_bool = false;
  lua_pop(L, 3);
  return true;
}

/* shapedb.bound(e, { s0 = {2, nil}, u0 = {lo = 0} }) -> Range */
static int l_bound(lua_State *L) {
  const sdb_expr *e = lsdb_check_expr(L, 1);
  if (lua_isnoneornil(L, 2)) lua_newtable(L), lua_replace(L, 2);
  luaL_checktype(L, 2, LUA_TTABLE);
  push_range(L, sdb_bound(e, lookup_ranges, L));
  return 1;
}

/* shapedb.expand(e): products of sums multiplied out (safe_expand) */
static int l_expand(lua_State *L) {
  lsdb_push_expr(L, lsdb_checked(L, sdb_expand(lsdb_check_expr(L, 1))));
  return 1;
}

static const luaL_Reg expr_meta[] = {
  {"__add", m_add}, {"__sub", m_sub}, {"__mul", m_mul}, {"__idiv", m_idiv},
  {"__mod", m_mod}, {"__unm", m_unm}, {"__pow", m_pow}, {"__eq", m_eq},
  {"__lt", m_lt}, {"__le", m_le}, {"__tostring", m_tostring},
  {"__concat", m_concat}, {"__band", m_and}, {"__bor", m_or}, {"__bnot", m_not},
  {NULL, NULL}
};

static const luaL_Reg expr_methods[] = {
  {"subs", m_subs}, {"eval", m_eval}, {"free_symbols", m_free_symbols},
  {"lt", m_lt_build}, {"le", m_le_build}, {"gt", m_gt_build},
  {"ge", m_ge_build}, {"eq", m_eq_build}, {"ne", m_ne_build},
  {"kind", m_kind}, {"is_bool", m_is_bool}, {"args", m_args},
  {"value", m_value}, {"max", m_max}, {"min", m_min},
  {NULL, NULL}
};

static const luaL_Reg module_fns[] = {
  {"expr", l_expr}, {"sym", l_sym}, {"bound", l_bound}, {"expand", l_expand},
  {NULL, NULL}
};

void lsdb_open_expr(lua_State *L) {
  luaL_newmetatable(L, LSDB_EXPR);
  luaL_setfuncs(L, expr_meta, 0);
  luaL_newlib(L, expr_methods);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "Expr");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  luaL_newmetatable(L, LSDB_RANGE);
  lua_pushcfunction(L, range_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  luaL_setfuncs(L, module_fns, 0);
}
