/*
** lsdb.c — luaopen_shapedb: builds the `shapedb` module table from every
** binding file, then runs the embedded Lua-side library on top of it.
*/
#include "lsdb.h"

#include "intern.h"
#include "srcfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A function called through xpcall has no name in its frame; torch.compile
** records the names of the functions it traces in a weak table. */
static const char *known_name(lua_State *L, int level, lua_Debug *ar) {
  const char *name = NULL;
  lua_Debug fr;
  if (lua_getstack(L, level, &fr) && lua_getinfo(L, "f", &fr)) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, "shapedb.fn_names") == LUA_TTABLE) {
      lua_pushvalue(L, -2);
      if (lua_rawget(L, -2) == LUA_TSTRING) name = sdb_intern(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  return name ? name : sdb_internf("function <%s:%d>", ar->short_src, ar->linedefined);
}

/* Every event asks where the user's code is. Interning the file and
** finding the function's name (lua_getinfo "n" decodes the caller) cost
** more than the event itself, so both are cached per function definition
** (source string, line defined): a function keeps the name it was first
** reached by, as a Python frame has its code object's name. The file is
** compared on a hit, so a source string reused by another chunk misses. */
typedef struct loc_cache {
  const char *source;      /* the Lua source string (identity) */
  int linedefined;
  const char *file, *func; /* interned */
} loc_cache;

static loc_cache loc_cache_v[512];

static const loc_cache *function_loc(lua_State *L, int level, lua_Debug *ar) {
  uintptr_t h = ((uintptr_t)ar->source >> 4) * 31u + (uintptr_t)ar->linedefined;
  loc_cache *c = &loc_cache_v[h % (sizeof loc_cache_v / sizeof loc_cache_v[0])];
  if (c->source == ar->source && c->linedefined == ar->linedefined && c->file &&
      !strcmp(c->file, ar->source + 1))
    return c;
  if (!lua_getinfo(L, "n", ar)) ar->name = NULL;
  c->source = ar->source;
  c->linedefined = ar->linedefined;
  c->file = sdb_intern(ar->source + 1);
  if (ar->name) c->func = sdb_intern(ar->name);
  else if (*ar->what == 'm') c->func = sdb_intern("main chunk");
  else c->func = known_name(L, level, ar);
  return c;
}

bool lsdb_locate(void *ud, sdb_loc *out) {
  lua_State *L = ud;
  lua_Debug ar;
  for (int level = 0; L && lua_getstack(L, level, &ar); level++) {
    /* the source first: C frames (the op's own, at level 0) and the
    ** embedded library's are passed by it, and the current line (decoded
    ** from the function's line info, the dearer part) is only read for
    ** the user's frame */
    if (!lua_getinfo(L, "S", &ar) || ar.source[0] != '@') continue;
    if (!lua_getinfo(L, "l", &ar) || ar.currentline <= 0) continue;
    const loc_cache *c = function_loc(L, level, &ar);
    out->file = c->file;
    out->line = ar.currentline;
    out->func = c->func;
    return true;
  }
  return false;
}

/* Appends to buf[*len..cap) while it fits; false (nothing more) once not. */
static bool put_str(char *buf, size_t cap, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n >= cap) return false;
  memcpy(buf + *len, s, n + 1);
  *len += n;
  return true;
}

static bool put_int(char *buf, size_t cap, size_t *len, int v) {
  char d[16];
  int n = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do d[n++] = (char)('0' + u % 10); while ((u /= 10) && n < 15);
  if (v < 0) d[n++] = '-';
  char s[17];
  for (int i = 0; i < n; i++) s[i] = d[n - 1 - i];
  s[n] = '\0';
  return put_str(buf, cap, len, s);
}

/* The frames, the source read before the line (C and embedded frames are
** passed by it) and no printf: with "Sln" for every frame and a printf per
** frame this was most of an event's cost under the debugger. A frame's
** name is the one its call used ("n"), as before: the per-function cache
** lsdb_locate keeps would name a call through an alias, a pcall or a
** second closure of one factory after the first one seen. */
static const char *walk_user_stack(lua_State *L) {
  char buf[2048];
  size_t len = 0;
  int n = 0;
  lua_Debug ar;
  buf[0] = '\0';
  for (int level = 0; lua_getstack(L, level, &ar) && len < sizeof buf - 256; level++) {
    if (!lua_getinfo(L, "S", &ar) || ar.source[0] != '@') continue;   /* C or embedded */
    if (!lua_getinfo(L, "l", &ar) || ar.currentline <= 0) continue;
    if (!lua_getinfo(L, "n", &ar)) ar.name = NULL;
    const char *name = ar.name ? ar.name
                     : *ar.what == 'm' ? "main chunk" : known_name(L, level, &ar);
    const char *file = strrchr(ar.source + 1, '/');
    file = file ? file + 1 : ar.source + 1;
    size_t at = len;
    if (!((!n || put_str(buf, sizeof buf, &len, "\n")) && put_str(buf, sizeof buf, &len, "#") &&
          put_int(buf, sizeof buf, &len, n) && put_str(buf, sizeof buf, &len, "  ") &&
          put_str(buf, sizeof buf, &len, name) && put_str(buf, sizeof buf, &len, " at ") &&
          put_str(buf, sizeof buf, &len, file) && put_str(buf, sizeof buf, &len, ":") &&
          put_int(buf, sizeof buf, &len, ar.currentline))) {
      buf[at] = '\0';   /* as snprintf did: a frame that does not fit is left out */
      break;
    }
    n++;
  }
  return n ? sdb_intern(buf) : NULL;
}

/* A data-dependent error's fixes, in Lua with the user's names (where
** every symbol has one), replace core's Python-spelled ones. */
static void lua_fixits(lua_State *L, sdb_err *err) {
  static const char marker[] = "\nTo fix the error, insert one of the following checks before this call:\n";
  char *at = err->msg ? strstr(err->msg, marker) : NULL;
  if (err->code != SDB_E_DATA_DEPENDENT || !err->cond || !at) return;
  const char *code = err->file && err->line > 0 ? sdb_srcfile_line_raw(err->file, err->line) : NULL;
  char *fix = lsdb_fixit(L, err->cond, code);
  if (!fix) return;
  size_t head = (size_t)(at - err->msg), n = strlen(fix);
  char *msg = malloc(head + n + 1);
  if (msg) {
    memcpy(msg, err->msg, head);
    memcpy(msg + head, fix, n + 1);
    free(err->msg);
    err->msg = msg;
  }
  free(fix);
}

int lsdb_raise(lua_State *L, sdb_err *err) {
  lua_fixits(L, err);
  /* the condition a data-dependent error or failed check is about, for
  ** the error event trace:abort emits (the message is only text) */
  if (err->cond) lsdb_push_expr(L, err->cond);
  else lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_COND);
  lua_pushfstring(L, "%s: %s", err->kind ? err->kind : "Error", err->msg ? err->msg : "?");
  if (err->file) {
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "msg");
    lua_pushstring(L, err->file);
    lua_setfield(L, -2, "file");
    lua_pushinteger(L, err->line);
    lua_setfield(L, -2, "line");
  } else {
    lua_pushnil(L);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_LOC);
  sdb_err_clear(err);
  return lua_error(L);
}

/* getmetatable(x) on our userdata gives the type's name, not the table:
** a program cannot call __gc by hand (and then use a freed object) or
** replace a metamethod. The names are what the objects print as. */
static void protect_metatables(lua_State *L) {
  static const char *const names[] = {
    LSDB_EXPR, "shapedb.Range", LSDB_SHAPE_ENV, LSDB_SOURCE, LSDB_SYMCTX,
    "shapedb.Record", "shapedb.Tensor", "shapedb.Size", "shapedb.SymInt",
    "shapedb.SymBool", "shapedb.SymFloat", "shapedb.Trace", "shapedb.runtime",
    "shapedb.Hop", NULL,
  };
  for (const char *const *n = names; *n; n++) {
    if (luaL_getmetatable(L, *n) == LUA_TTABLE) {
      const char *dot = strchr(*n, '.');
      lua_pushstring(L, dot ? dot + 1 : *n);
      lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
  }
}

/* The metatables of our types by name, per state: the main thread's
** extra space points at them and every thread created later copies it.
** Names are matched by pointer (the callers pass the header's literals),
** then by text the first time a pointer is seen. */
typedef struct ut_entry { const char *name; const void *mt; } ut_entry;
typedef struct lsdb_types {
  ut_entry e[32];
  int n;
  /* lsdb_stack_still: how deep, a generation bumped at every change, and
  ** the user stack last read in it */
  int still;
  unsigned long gen, stack_gen;
  lua_State *stack_L;
  const char *stack;
} lsdb_types;

static void types_init(lua_State *L) {
  lsdb_types *ty = lua_newuserdatauv(L, sizeof *ty, 0);
  memset(ty, 0, sizeof *ty);
  lua_setfield(L, LUA_REGISTRYINDEX, "shapedb.types");   /* lives as long as the state */
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  *(lsdb_types **)lua_getextraspace(lua_tothread(L, -1)) = ty;
  *(lsdb_types **)lua_getextraspace(L) = ty;
  lua_pop(L, 1);
}

void lsdb_stack_still(lua_State *L, bool on) {
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (!ty) return;
  ty->still += on ? 1 : -1;
  ty->gen++;
}

int lsdb_stack_suspend(lua_State *L) {
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (!ty) return 0;
  int was = ty->still;
  ty->still = 0;
  ty->gen++;
  return was;
}

void lsdb_stack_resume(lua_State *L, int was) {
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (!ty) return;
  ty->still = was;
  ty->gen++;
}

void lsdb_stack_settle(lua_State *L) {
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (ty && ty->still) {
    ty->still = 0;
    ty->gen++;
  }
}

const char *lsdb_user_stack(lua_State *L) {
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (ty && ty->still > 0 && ty->stack_L == L && ty->stack_gen == ty->gen) return ty->stack;
  const char *s = walk_user_stack(L);
  if (ty && ty->still > 0) {
    ty->stack_L = L;
    ty->stack_gen = ty->gen;
    ty->stack = s;
  }
  return s;
}

void *lsdb_testudata(lua_State *L, int idx, const char *tname) {
  void *p = lua_touserdata(L, idx);
  if (!p) return NULL;
  lsdb_types *ty = *(lsdb_types **)lua_getextraspace(L);
  if (!ty) return luaL_testudata(L, idx, tname);
  if (!lua_getmetatable(L, idx)) return NULL;
  const void *mt = lua_topointer(L, -1);
  lua_pop(L, 1);
  for (int i = 0; i < ty->n; i++)
    if (ty->e[i].name == tname) return mt == ty->e[i].mt ? p : NULL;
  const void *want = NULL;
  if (luaL_getmetatable(L, tname) == LUA_TTABLE) want = lua_topointer(L, -1);
  lua_pop(L, 1);
  if (!want) return NULL;   /* not registered (yet): nothing is of that type */
  if (ty->n < (int)(sizeof ty->e / sizeof ty->e[0])) ty->e[ty->n++] = (ut_entry){tname, want};
  return mt == want ? p : NULL;
}

void *lsdb_checkudata(lua_State *L, int idx, const char *tname) {
  void *p = lsdb_testudata(L, idx, tname);
  return p ? p : luaL_checkudata(L, idx, tname);   /* raises the library's error */
}

int luaopen_shapedb(lua_State *L) {
  types_init(L);
  lua_newtable(L);                        /* function -> name, weak keys */
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, "shapedb.fn_names");
  lua_newtable(L);
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  lsdb_open_expr(L);
  lsdb_open_shape_env(L);
  lsdb_open_torch(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "shapedb.fn_names");
  lua_setfield(L, -2, "_fn_names");
  protect_metatables(L);
  lsdb_load_prelude(L);
  return 1;
}
