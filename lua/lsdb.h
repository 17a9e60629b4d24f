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

#include "err.h"
#include "expr.h"
#include "source.h"

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

/* --- lsdb.c ------------------------------------------------------------ */
/* luaL_testudata / luaL_checkudata, faster: every op checks the type of
** each argument, and the library looks the metatable up in the registry by
** name each time. These remember each name's metatable per state (from
** luaopen_shapedb on; a thread of a state without them falls back). */
void *lsdb_testudata(lua_State *L, int idx, const char *tname);
void *lsdb_checkudata(lua_State *L, int idx, const char *tname);
/* The innermost frame of user code on L's stack (a Lua file, not the
** embedded library): an sdb_locate_fn whose ud is a lua_State*. */
#include "event.h"
bool lsdb_locate(void *L, sdb_loc *out);
/* The user's frames on L's stack (Lua files, not C or the embedded
** library), innermost first, one per line: "#0  model at nonzero.lua:6".
** Interned; NULL when there are none. */
const char *lsdb_user_stack(lua_State *L);
/* While the C part of an op call or of a phase runs, no Lua runs and the
** stack stays put: lsdb_user_stack reads it once for the events of the
** scope (a debugger records it per event: a walk of the whole stack was
** three fifths of a traced run under the debugger). Scopes nest; a Lua
** callback inside one (a custom op's fake kernel) is run between
** lsdb_stack_suspend and lsdb_stack_resume. */
void lsdb_stack_still(lua_State *L, bool on);
int lsdb_stack_suspend(lua_State *L);
void lsdb_stack_resume(lua_State *L, int was);
/* Lua called into C: no scope can be open (one left open by an error
** that unwound through it is closed here). */
void lsdb_stack_settle(lua_State *L);
/* Raise err as a Lua error ("Kind: message") and clear it. Its condition
** (err->cond) is kept in the registry under LSDB_LAST_ERROR_COND. */
#define LSDB_LAST_ERROR_COND "shapedb.last_error_cond"
/* ... and where core located it, as {msg = , file = , line = , func = }
** (an error in a later phase at the node's user line) */
#define LSDB_LAST_ERROR_LOC "shapedb.last_error_loc"
int lsdb_raise(lua_State *L, sdb_err *err);
/* lsdb_fixit.c: a data-dependent error's "To fix the error" block in Lua
** with the names the user's frame gives cond's symbols (code: the user's
** line), or NULL when a symbol has none. Malloc'ed. */
char *lsdb_fixit(lua_State *L, const struct sdb_expr *cond, const char *code);

/* --- lsdb_shape_env.c ------------------------------------------------------ */
#define LSDB_SHAPE_ENV "shapedb.ShapeEnv"
#define LSDB_SOURCE "shapedb.Source"
#define LSDB_SYMCTX "shapedb.SymbolicContext"
void lsdb_open_shape_env(lua_State *L);
const sdb_source *lsdb_check_source(lua_State *L, int idx);
/* An sdb_source_value_fn reading the values table at the top of the Lua
** stack ud: { x = {5, 2}, n = 3, ["L['y'].size()[0]"] = 4 }. */
int lsdb_source_value(void *ud, const sdb_source *src, int64_t *out);
void lsdb_push_source(lua_State *L, const sdb_source *s);

/* --- lsdb_torch.c ------------------------------------------------------------ */
/* The global `torch` table, tensors, SymInts, and the trace primitives
** (shapedb._trace_begin, shapedb.events, shapedb.bindings) into the module
** table at the top of the stack. */
void lsdb_open_torch(lua_State *L);
sdb_events *lsdb_events(lua_State *L);   /* the program's event stream */
/* The thread events are located in from now on: the debugger resumes the
** program's thread, where C code may emit before any Lua call says so. */
void lsdb_set_thread(lua_State *L, lua_State *thread);

#endif
