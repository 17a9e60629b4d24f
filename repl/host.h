/*
** host.h — the embedded Lua 5.4 state: creation with the shapedb module
** loaded as a global, and running chunks and files under a traceback
** handler, as lua.c does.
*/
#ifndef REPL_HOST_H
#define REPL_HOST_H

#include <lua.h>

/* A fresh state with the standard libraries and `shapedb` as a global (also
** in package.loaded). NULL on out of memory. */
lua_State *repl_host_new(void);
void repl_host_free(lua_State *L);

/* Run a chunk / file with a traceback handler. Return LUA_OK, or an error
** status with the message (and traceback) printed to stderr, prefixed with
** `progname: `. `argv`, if given, becomes the global `arg` table as lua.c
** builds it (arg[0] is the script). */
int repl_host_dostring(lua_State *L, const char *chunk, const char *name);
int repl_host_dofile(lua_State *L, const char *path, char **argv, int argc);

/* Call the function at the top of the stack with nargs arguments below it,
** under the traceback handler. Leaves the error message on the stack. */
int repl_host_pcall(lua_State *L, int nargs, int nresults);

/* Print the error on top of the stack to stderr and pop it. */
void repl_host_report(lua_State *L, int status);

extern const char *repl_progname;

#endif
