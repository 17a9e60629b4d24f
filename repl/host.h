/*
** host.h — the embedded Lua 5.4 state: creation with the shapedb module
** loaded as a global, and running chunks and files under a traceback
** handler and a Ctrl-C interrupt, as lua.c does.
*/
#ifndef REPL_HOST_H
#define REPL_HOST_H

#include <lua.h>
#include <signal.h>

/* A fresh state with the standard libraries and `shapedb` as a global (also
** in package.loaded). NULL on out of memory. */
lua_State *repl_host_new(void);
void repl_host_free(lua_State *L);

/* luaL_loadfile with limits: text chunks only (malformed bytecode can
** crash Lua), at most REPL_FILE_MAX bytes, read errors are errors (not a
** short chunk), and Ctrl-C stops the read. The message on error is
** "cannot read PATH: why", as luaL_loadfile words it. */
#define REPL_FILE_MAX (16 << 20)
int repl_host_loadfile(lua_State *L, const char *path);

/* Run a chunk / file with a traceback handler. Return LUA_OK, or an error
** status with the message (and traceback) printed to stderr, prefixed with
** `progname: `. `argv`, if given, becomes the global `arg` table as lua.c
** builds it (arg[0] is the script). */
int repl_host_dostring(lua_State *L, const char *chunk, const char *name);
int repl_host_dofile(lua_State *L, const char *path, char **argv, int argc);

/* Call the function at the top of the stack with nargs arguments below it,
** under the traceback handler. Leaves the error message on the stack.
**
** While the outermost such call runs, SIGINT is caught as lua.c catches it:
** the handler only sets a hook on the interrupt target (L itself unless
** repl_host_interrupt_target says otherwise) that raises "interrupted!" at
** the next instruction, and puts back the hook it displaced. A second
** Ctrl-C before that hook fires kills the process. The previous SIGINT
** disposition is restored when the call returns. Nested calls are fine. */
int repl_host_pcall(lua_State *L, int nargs, int nresults);
/* Push lib.field as the library was loaded (package.loaded, read raw), or
** nil: the REPL reads shapedb.report, io.stdout, table.sort... outside
** protected calls, where indexing a global the program reassigned
** (`shapedb = nil`) raised with nothing to catch it and aborted. */
void repl_lib_field(lua_State *L, const char *lib, const char *field);

/* A hook set with lua_sethook applies to one thread only, and a coroutine
** copies its creator's hook only when it is created. A debugger that
** resumes the program in a coroutine points Ctrl-C at that coroutine while
** it runs (NULL: back to the lua_State of the pcall). */
void repl_host_interrupt_target(lua_State *co);

/* Set by Ctrl-C while a pcall runs, and (on a terminal) while a command
** runs outside one; code that loops in C (or pauses at event boundaries)
** can poll it. Cleared by repl_host_clear_interrupt, before each prompt
** and at the start of every outermost pcall. */
extern volatile sig_atomic_t repl_host_interrupted;
void repl_host_clear_interrupt(void);

/* Push a string for the error object at idx: its __tostring when it has
** one, else for a table its fields ("error object is a table: {code = 3,
** msg = \"bad\"}", at most 8 of them, never running a metamethod), else
** luaL_tolstring's text. */
void repl_host_describe(lua_State *L, int idx);
/* Push the text of the value at idx as the prompt shows values: tables by
** their contents ({1, 2, n = 3}, bounded), the rest by tostring; with
** REPL_FMT_META tensors by their metadata (f32[s0, 2]), with
** REPL_FMT_QUOTE a string quoted. Never raises (a failing __tostring
** gives the type name). */
enum { REPL_FMT_META = 1, REPL_FMT_QUOTE = 2 };
void repl_host_format(lua_State *L, int idx, int flags);

/* From a signal handler: make the Lua code running under the outermost
** repl_host_pcall raise "interrupted!" at its next instruction (what
** Ctrl-C does). Only a hook is set; nothing else. */
void repl_host_stop_lua(void);

/* Print the error on top of the stack to stderr and pop it. */
void repl_host_report(lua_State *L, int status);

extern const char *repl_progname;

#endif
