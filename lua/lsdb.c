/*
** lsdb.c — luaopen_shapedb: builds the `shapedb` module table from every
** binding file, then runs the embedded Lua-side library on top of it.
*/
#include "lsdb.h"

#include "intern.h"

#include <stdio.h>
#include <string.h>

struct lsdb_embedded { const char *name; const char *text; };
extern const struct lsdb_embedded lsdb_embedded[];

/* Embedded library files run in name order; each receives the module
** table as its first argument (`local shapedb = ...`). */
int lsdb_load_prelude(lua_State *L) {
  int mod = lua_gettop(L);
  for (const struct lsdb_embedded *f = lsdb_embedded; f->name; f++) {
    char chunk[64];
    snprintf(chunk, sizeof chunk, "=[shapedb %s.lua]", f->name);
    if (luaL_loadbuffer(L, f->text, strlen(f->text), chunk) != LUA_OK)
      return lua_error(L);
    lua_pushvalue(L, mod);
    lua_call(L, 1, 0);
  }
  return 0;
}

bool lsdb_locate(void *ud, sdb_loc *out) {
  lua_State *L = ud;
  lua_Debug ar;
  for (int level = 0; L && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sln", &ar)) continue;
    if (ar.source[0] != '@' || ar.currentline <= 0) continue;   /* C or embedded */
    out->file = sdb_intern(ar.source + 1);
    out->line = ar.currentline;
    if (ar.name) out->func = sdb_intern(ar.name);
    else if (*ar.what == 'm') out->func = sdb_intern("main chunk");
    else out->func = sdb_internf("function <%s:%d>", ar.short_src, ar.linedefined);
    return true;
  }
  return false;
}

int lsdb_raise(lua_State *L, sdb_err *err) {
  lua_pushfstring(L, "%s: %s", err->kind ? err->kind : "Error", err->msg ? err->msg : "?");
  sdb_err_clear(err);
  return lua_error(L);
}

int luaopen_shapedb(lua_State *L) {
  lua_newtable(L);
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  lsdb_open_expr(L);
  lsdb_open_shape_env(L);
  lsdb_open_torch(L);
  lsdb_load_prelude(L);
  return 1;
}
