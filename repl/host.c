/*
** host.c — the embedded Lua state (see host.h). Modelled on lua.c:
** errors carry a traceback made inside the message handler, where the
** stack still exists, and Ctrl-C becomes a Lua error raised from a hook.
*/
#include "host.h"
#include "runlimit.h"
#include "lsdb.h"

#include <lauxlib.h>
#include <lualib.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

const char *repl_progname = "shapedb";

volatile sig_atomic_t repl_host_interrupted;

/* The state the handler hooks: the outermost pcall's, unless a debugger
** pointed it at the coroutine it is resuming. */
static lua_State *volatile pcall_L;
static lua_State *volatile target_L;
/* The hook the interrupt displaced, put back when it fires. Written only
** by the signal handler, read only by stop_hook, which it installs. */
static lua_Hook displaced_hook;
static int displaced_mask, displaced_count;
static int pcall_depth;
static struct sigaction outer_action;

/* One field key or value, shortly: strings quoted and cut, numbers and
** booleans as Lua prints them, anything else by its type. */
static void add_short(luaL_Buffer *b, lua_State *L, int idx, bool key) {
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: {
    size_t n;
    const char *str = lua_tolstring(L, idx, &n);
    if (key) { luaL_addlstring(b, str, n > 40 ? 40 : n); break; }
    luaL_addchar(b, '"');
    luaL_addlstring(b, str, n > 60 ? 60 : n);
    if (n > 60) luaL_addstring(b, "...");
    luaL_addchar(b, '"');
    break;
  }
  case LUA_TNUMBER:
  case LUA_TBOOLEAN:
    lua_pushvalue(L, idx);
    luaL_addstring(b, lua_type(L, idx) == LUA_TBOOLEAN
                        ? (lua_toboolean(L, idx) ? "true" : "false")
                        : lua_tostring(L, -1));
    lua_pop(L, 1);
    break;
  default:
    if (key) luaL_addchar(b, '[');
    luaL_addstring(b, luaL_typename(L, idx));
    if (key) luaL_addchar(b, ']');
  }
}

void repl_host_describe(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (luaL_callmeta(L, idx, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return;
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_tolstring(L, idx, NULL);
    return;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "error object is a table: {");
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (n++ == 8) {
      lua_pop(L, 2);
      luaL_addstring(&b, ", ...");
      break;
    }
    if (n > 1) luaL_addstring(&b, ", ");
    /* lua_next needs the key untouched: work on copies */
    lua_pushvalue(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING) {
      add_short(&b, L, -1, true);
    } else {
      luaL_addchar(&b, '[');
      add_short(&b, L, -1, false);
      luaL_addchar(&b, ']');
    }
    lua_pop(L, 1);
    luaL_addstring(&b, " = ");
    add_short(&b, L, -1, false);
    lua_pop(L, 1);
  }
  luaL_addchar(&b, '}');
  luaL_pushresult(&b);
}

static void format_value(lua_State *L, int idx, int flags, int depth, luaL_Buffer *b);

static int tostring_protected(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

/* tostring that cannot raise: a failing __tostring gives the type name */
static void add_tostring(lua_State *L, int idx, luaL_Buffer *b) {
  lua_pushcfunction(L, tostring_protected);
  lua_pushvalue(L, idx);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
    lua_pop(L, 1);
    lua_pushstring(L, luaL_typename(L, idx));
  }
  luaL_addvalue(b);
}

/* Keys in a stable order: numbers, then strings, then the rest by name. */
static int key_rank(lua_State *L, int i) {
  int t = lua_type(L, i);
  return t == LUA_TNUMBER ? 0 : t == LUA_TSTRING ? 1 : 2;
}

static int key_less(lua_State *L) {
  int ra = key_rank(L, 1), rb = key_rank(L, 2);
  if (ra != rb) lua_pushboolean(L, ra < rb);
  else if (ra < 2) lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
  else lua_pushboolean(L, strcmp(luaL_typename(L, 1), luaL_typename(L, 2)) < 0);
  return 1;
}

/* A table's contents, bounded: {1, 2, a = 3}; ten entries, three levels */
static void format_table(lua_State *L, int idx, int flags, int depth, luaL_Buffer *b) {
  if (depth > 2) {
    luaL_addstring(b, "{...}");
    return;
  }
  luaL_addchar(b, '{');
  lua_Integer len = (lua_Integer)lua_rawlen(L, idx), shown = 0;
  for (lua_Integer i = 1; i <= len && shown < 10; i++, shown++) {
    if (i > 1) luaL_addstring(b, ", ");
    lua_rawgeti(L, idx, i);
    format_value(L, lua_gettop(L), flags | REPL_FMT_QUOTE, depth + 1, b);
    lua_pop(L, 1);
  }
  /* the other keys, sorted: the hash order changes from run to run */
  lua_newtable(L);
  int keys = lua_gettop(L);
  lua_Integer nk = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (!(lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= len)) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, keys, ++nk);
    }
  }
  repl_lib_field(L, "table", "sort");
  lua_pushvalue(L, keys);
  lua_pushcfunction(L, key_less);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) lua_pop(L, 1);
  for (lua_Integer i = 1; i <= nk; i++) {
    if (shown >= 10) {
      luaL_addstring(b, ", ...");
      break;
    }
    if (shown++) luaL_addstring(b, ", ");
    lua_rawgeti(L, keys, i);
    int k = lua_gettop(L);
    if (lua_type(L, k) == LUA_TSTRING) {
      lua_pushvalue(L, k);
      luaL_addvalue(b);
    } else {
      luaL_addchar(b, '[');
      format_value(L, k, flags | REPL_FMT_QUOTE, depth + 1, b);
      luaL_addchar(b, ']');
    }
    luaL_addstring(b, " = ");
    lua_pushvalue(L, k);
    lua_rawget(L, idx);
    format_value(L, lua_gettop(L), flags | REPL_FMT_QUOTE, depth + 1, b);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);   /* keys */
  if (len > 10) luaL_addstring(b, ", ...");
  luaL_addchar(b, '}');
}

static void format_value(lua_State *L, int idx, int flags, int depth, luaL_Buffer *b) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING:
      if (flags & REPL_FMT_QUOTE) {
        repl_lib_field(L, "string", "format");
        lua_pushliteral(L, "%q");
        lua_pushvalue(L, idx);
        if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
          lua_pop(L, 1);
          lua_pushliteral(L, "\"?\"");
        }
        luaL_addvalue(b);
        return;
      }
      break;
    case LUA_TTABLE:
      if (luaL_getmetafield(L, idx, "__tostring") == LUA_TNIL) {
        format_table(L, idx, flags, depth, b);
        return;
      }
      lua_pop(L, 1);
      break;
    case LUA_TUSERDATA:
      if ((flags & REPL_FMT_META) && luaL_testudata(L, idx, "shapedb.Tensor")) {
        if (lua_getfield(L, idx, "meta") == LUA_TFUNCTION) {
          lua_pushvalue(L, idx);
          if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
            luaL_addvalue(b);
            return;
          }
        }
        lua_pop(L, 1);
      }
      break;
    default:
      break;
  }
  add_tostring(L, idx, b);
}

void repl_host_format(lua_State *L, int idx, int flags) {
  idx = lua_absindex(L, idx);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  format_value(L, idx, flags, 0, &b);
  luaL_pushresult(&b);
}

static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    /* an object with __tostring carries its own traceback (TraceError);
    ** a plain table gets one, after its fields */
    if (luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) {
      lua_pop(L, 1);
      repl_host_describe(L, 1);
      return 1;
    }
    repl_host_describe(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE) return 1;
    msg = lua_tostring(L, -1);
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, displaced_hook, displaced_mask, displaced_count);
  luaL_error(L, "interrupted!");
}

/* Only a flag and a hook: nothing else is safe here. Going back to the
** default disposition first means a second Ctrl-C kills a program stuck in
** C code, which no hook can reach. */
static void on_sigint(int sig) {
  lua_State *L = target_L ? target_L : pcall_L;
  signal(sig, SIG_DFL);
  repl_host_interrupted = 1;
  if (L) {
    displaced_hook = lua_gethook(L);
    displaced_mask = lua_gethookmask(L);
    displaced_count = lua_gethookcount(L);
    lua_sethook(L, stop_hook,
                LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
  }
}

void repl_host_stop_lua(void) {
  lua_State *L = target_L ? target_L : pcall_L;
  if (!L) return;
  displaced_hook = lua_gethook(L);
  displaced_mask = lua_gethookmask(L);
  displaced_count = lua_gethookcount(L);
  lua_sethook(L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

void repl_host_interrupt_target(lua_State *co) { target_L = co; }

void repl_host_clear_interrupt(void) { repl_host_interrupted = 0; }

void repl_lib_field(lua_State *L, const char *lib, const char *field) {
  const char *keys[2] = {lib, field};
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);   /* the registry has no metatable */
  for (int i = 0; i < 2; i++) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pushstring(L, keys[i]);
      lua_rawget(L, -2);
    } else {
      lua_pushnil(L);
    }
    lua_remove(L, -2);
  }
}

int repl_host_pcall(lua_State *L, int nargs, int nresults) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  if (pcall_depth++ == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    repl_host_interrupted = 0;
    pcall_L = L;
    sigaction(SIGINT, &sa, &outer_action);
  }
  repl_limits_begin(L);
  int status = lua_pcall(L, nargs, nresults, base);
  repl_limits_end(L);
  if (--pcall_depth == 0) {
    sigaction(SIGINT, &outer_action, NULL);
    pcall_L = NULL;
  }
  lua_remove(L, base);
  return status;
}

void repl_host_report(lua_State *L, int status) {
  if (status == LUA_OK) return;
  if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
    /* an error object that escaped the message handler (an error in
    ** error handling, say): its __tostring or its fields */
    repl_host_describe(L, -1);
    lua_remove(L, -2);
  }
  const char *msg = repl_limits_message(lua_tostring(L, -1));
  fflush(stdout);
  fprintf(stderr, "%s: %s\n", repl_progname, msg ? msg : "(error)");
  fflush(stderr);
  lua_pop(L, 1);
}

static int open_all(lua_State *L) {
  luaL_openlibs(L);
  luaL_requiref(L, "shapedb", luaopen_shapedb, 1);
  lua_pop(L, 1);
  return 0;
}

lua_State *repl_host_new(void) {
  lua_State *L = luaL_newstate();
  if (!L) return NULL;
  repl_limits_install(L);
  lua_pushcfunction(L, open_all);
  int status = repl_host_pcall(L, 0, 0);
  if (status != LUA_OK) {
    repl_host_report(L, status);
    lua_close(L);
    return NULL;
  }
  /* Tracing makes many short-lived userdata (argument boxes, tensors,
  ** SymInts): Lua 5.4's generational collector takes them young, 15-20%
  ** less CPU than the incremental default on a 100k-op trace (make bench).
  ** Entered once the libraries are loaded: loading only adds live objects,
  ** so a collector in generational mode from the start finds its first
  ** major collections "bad" (little freed) and keeps collecting in full
  ** until one is good, which on a million-op trace came late or never. */
  lua_gc(L, LUA_GCGEN, 0, 0);
  repl_limits_watch_events(lsdb_events(L));
  return L;
}

void repl_host_free(lua_State *L) {
  if (L) lua_close(L);
}

int repl_host_dostring(lua_State *L, const char *chunk, const char *name) {
  int status = luaL_loadbuffer(L, chunk, strlen(chunk), name);
  if (status == LUA_OK) status = repl_host_pcall(L, 0, 0);
  repl_host_report(L, status);
  return status;
}

typedef struct {
  FILE *f;
  size_t total;
  const char *why;      /* set when the read stopped early */
  int skip_first;       /* the first line is a '#' comment (#!shebang) */
  char buf[BUFSIZ];
} file_reader;

static const char *read_chunk(lua_State *L, void *ud, size_t *size) {
  file_reader *r = ud;
  (void)L;
  *size = 0;
  if (r->why || feof(r->f)) return NULL;
  if (repl_host_interrupted) { r->why = "interrupted"; return NULL; }
  size_t n = fread(r->buf, 1, sizeof r->buf, r->f);
  if (n == 0 && ferror(r->f)) { r->why = strerror(errno ? errno : EIO); return NULL; }
  r->total += n;
  if (r->total > REPL_FILE_MAX) { r->why = "file too large (over 16 MiB)"; return NULL; }
  size_t off = 0;
  if (r->skip_first) {
    /* Keep the newline so line numbers stay right, as lauxlib does. */
    while (off < n && r->buf[off] != '\n') off++;
    r->skip_first = off == n;
  }
  *size = n - off;
  return r->buf + off;
}

int repl_host_loadfile(lua_State *L, const char *path) {
  file_reader *r = malloc(sizeof *r);
  if (!r) return luaL_loadfile(L, path);   /* it fails the same way */
  r->f = fopen(path, "r");
  if (!r->f) {
    lua_pushfstring(L, "cannot open %s: %s", path, strerror(errno));
    free(r);
    return LUA_ERRFILE;
  }
  r->total = 0;
  r->why = NULL;
  errno = 0;
  int c = getc(r->f);
  r->skip_first = c == '#';
  if (c != EOF) ungetc(c, r->f);
  lua_pushfstring(L, "@%s", path);
  int status = lua_load(L, read_chunk, r, lua_tostring(L, -1), "t");
  lua_remove(L, -2);
  if (r->why) {
    lua_pop(L, 1);
    lua_pushfstring(L, "cannot read %s: %s", path, r->why);
    status = LUA_ERRFILE;
  }
  fclose(r->f);
  free(r);
  return status;
}

int repl_host_dofile(lua_State *L, const char *path, char **argv, int argc) {
  if (argv) {
    lua_createtable(L, argc, 1);
    for (int i = 0; i < argc; i++) {
      lua_pushstring(L, argv[i]);
      lua_rawseti(L, -2, i);
    }
    lua_setglobal(L, "arg");
  }
  int status = repl_host_loadfile(L, path);
  if (status == LUA_OK) {
    int n = 0;
    for (int i = 1; i < argc; i++, n++) lua_pushstring(L, argv[i]);
    status = repl_host_pcall(L, n, 0);
  }
  repl_host_report(L, status);
  return status;
}
