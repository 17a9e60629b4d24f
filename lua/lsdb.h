/*
** lsdb.h — the Lua binding of core/: the `shapedb` module.
**
** Each lsdb_*.c file binds one core module and registers its functions in
** the module table through an lsdb_open_* function. Only this layer raises
** Lua errors; core/ returns status codes.
*/
#ifndef LSDB_H
#define LSDB_H

#include <lua.h>
#include <lauxlib.h>

#include "expr.h"

int luaopen_shapedb(lua_State *L);

/* Run the embedded Lua-side library (the lua/ .lua files) into the module table at
** the top of the stack. */
int lsdb_load_prelude(lua_State *L);

/* --- lsdb_expr.c ------------------------------------------------------- */
#define LSDB_EXPR "shapedb.Expr"
void lsdb_open_expr(lua_State *L);              /* fields into table at -1 */
void lsdb_push_expr(lua_State *L, const sdb_expr *e);
/* Expr userdata, Lua integer (or integral float), boolean, or sympy text.
** Raises a Lua error naming the argument otherwise. */
const sdb_expr *lsdb_check_expr(lua_State *L, int idx);
const sdb_expr *lsdb_to_expr(lua_State *L, int idx);   /* NULL if not one */
/* Raise the builder's error if e is NULL; return e otherwise. */
const sdb_expr *lsdb_checked(lua_State *L, const sdb_expr *e);

#endif
