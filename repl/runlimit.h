/*
** runlimit.h — limits on the user's Lua code: a step limit (Lua VM
** instructions), a time limit and a memory limit for the embedded Lua
** (`set step-limit`, `set time-limit`, `set memory-limit`, --max-steps),
** so an endless loop under --batch ends with an error instead of never.
**
** The budget is spent while user code runs: from the start of the
** outermost repl_host_pcall, or of one resume of the debugger's program
** thread, to its end (repl_limits_begin/_end); each such run gets the
** whole budget again. Outside a run nothing is limited, so the REPL's own
** Lua calls never fail for lack of memory.
**
** Steps and time are checked by a count hook (every 1000 instructions):
** the error names the user's line. The memory limit is enforced by the
** allocator (repl_limits_install wraps the state's lua_Alloc): a single
** allocation past it fails as "not enough memory", which
** repl_limits_message rewords.
*/
#ifndef REPL_RUNLIMIT_H
#define REPL_RUNLIMIT_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct repl_limits {
  size_t events;        /* events the session may record; 0: none */
  long long steps;      /* Lua instructions per run; 0: none */
  double seconds;       /* wall-clock seconds per run; 0: none */
  size_t memory;        /* bytes the Lua state may hold; 0: none */
} repl_limits;

extern repl_limits repl_limit;

/* Wrap L's allocator so memory is counted (call once, on a fresh state). */
void repl_limits_install(lua_State *L);

/* A run of user code on thread co starts / ends. Nested calls are fine;
** the outermost begin resets the budget. */
void repl_limits_begin(lua_State *co);
void repl_limits_end(lua_State *co);

/* The text to print for an error object that is the string msg: when msg
** is Lua's "not enough memory" and the memory limit refused the
** allocation, a sentence that says so; otherwise msg itself. */
const char *repl_limits_message(const char *msg);

/* `set step-limit` & co, and `show` for them. */
void repl_limits_init(void);
/* The event stream whose size `set max-events` caps (one per session). */
struct sdb_events;
void repl_limits_watch_events(struct sdb_events *ev);
void repl_limits_set_events(size_t max);
/* A program run starts (the debugger's `run`): max-events counts from here. */
void repl_limits_run_start(void);   /* --max-events, set max-events */

#endif
