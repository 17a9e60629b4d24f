/*
** runlimit.c — step, time and memory limits on user Lua code (see runlimit.h).
*/
#include "runlimit.h"
#include "cmd.h"
#include "event.h"
#include "repl.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOOK_EVERY 1000

/* max-events: ten million events, a few GiB; a runaway loop stops there */
repl_limits repl_limit = { 10000000, 0, 0, 0 };
static sdb_events *watched;
static size_t event_base;       /* events before this run (the limit is per run) */

static void apply_event_limit(void) {
  if (watched) sdb_events_set_max(watched, repl_limit.events ? event_base + repl_limit.events : 0);
}

void repl_limits_watch_events(sdb_events *ev) {
  watched = ev;
  event_base = 0;
  apply_event_limit();
}

void repl_limits_set_events(size_t max) {
  repl_limit.events = max;
  apply_event_limit();
}

void repl_limits_run_start(void) {
  event_base = watched ? sdb_events_count(watched) : 0;
  apply_event_limit();
}

static lua_Alloc base_alloc;
static void *base_ud;
static size_t mem_used;         /* bytes the Lua state holds now */
static int depth;               /* nesting of begin/end */
static long long steps;         /* instructions run in this run */
static double started;          /* when this run began */
static bool over;               /* a limit was hit in this run */
static bool mem_refused;        /* the allocator refused in this run */
static char message[160];
static char raised[512];        /* the first error of this run, as raised */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------
** Memory: a lua_Alloc around the state's own. When ptr is NULL, osize
** is a type tag, not a size.
** ---------------------------------------------------------------------- */

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  size_t old = ptr ? osize : 0;
  if (nsize > old && depth > 0 && repl_limit.memory &&
      mem_used - old + nsize > repl_limit.memory) {
    mem_refused = true;
    return NULL;
  }
  void *p = base_alloc(base_ud, ptr, osize, nsize);
  if (p || nsize == 0) mem_used = mem_used - old + nsize;
  return p;
}

void repl_limits_install(lua_State *L) {
  base_alloc = lua_getallocf(L, &base_ud);
  mem_used = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
  lua_setallocf(L, limited_alloc, NULL);
}

const char *repl_limits_message(const char *msg) {
  if (!mem_refused || !msg || strcmp(msg, "not enough memory")) return msg;
  snprintf(message, sizeof message,
           "memory limit exceeded: Lua may hold at most %zu MiB (set memory-limit)",
           repl_limit.memory >> 20);
  return message;
}

/* ------------------------------------------------------------------------
** Steps and time: a count hook. Once a limit is hit, the hook fires on
** every instruction, so a pcall in the program cannot swallow the error
** and carry on.
** ---------------------------------------------------------------------- */

static int hook_count(void) {
  return repl_limit.steps && repl_limit.steps < HOOK_EVERY ? (int)repl_limit.steps
                                                            : HOOK_EVERY;
}

static void limit_hook(lua_State *L, lua_Debug *ar) {
  if (depth == 0) return;
  steps += lua_gethookcount(L);
  if (over) {
    /* again, word for word: where it first stopped, not wherever the
    ** library's error handling happens to be */
    lua_pushstring(L, raised);
    lua_error(L);
  }
  if (repl_limit.steps && steps >= repl_limit.steps) {
    snprintf(message, sizeof message,
             "step limit exceeded: %lld Lua instructions (set step-limit)", repl_limit.steps);
    goto stop;
  }
  if (watched && sdb_events_full(watched)) {
    snprintf(message, sizeof message, "event limit reached: %zu events recorded in this run (set "
             "max-events N raises it, `off` removes it)", repl_limit.events);
    goto stop;
  }
  if (repl_limit.seconds > 0 && now() - started > repl_limit.seconds) {
    snprintf(message, sizeof message, "time limit exceeded: %g s (set time-limit)",
             repl_limit.seconds);
    goto stop;
  }
  if (repl_limit.memory && mem_used > repl_limit.memory / 8 * 7) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    if (mem_used > repl_limit.memory / 8 * 7) {
      snprintf(message, sizeof message,
               "memory limit exceeded: Lua may hold at most %zu MiB (set memory-limit)",
               repl_limit.memory >> 20);
      goto stop;
    }
  }
  return;
stop:
  over = true;
  lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
  /* In a hook, level 0 is the function running: name the line of the
  ** user's code it is in (the library's own frames say nothing to them),
  ** else the running function's line */
  bool placed = false;
  snprintf(raised, sizeof raised, "%s", message);
  for (int level = 0; !placed && lua_getstack(L, level, ar); level++)
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0 && ar->source[0] == '@') {
      snprintf(raised, sizeof raised, "%s:%d: %s", ar->short_src, ar->currentline, message);
      placed = true;
    }
  if (!placed && lua_getstack(L, 0, ar) && lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
    snprintf(raised, sizeof raised, "%s:%d: %s", ar->short_src, ar->currentline, message);
  lua_pushstring(L, raised);
  lua_error(L);
}

static bool active(void) {
  return repl_limit.steps || repl_limit.seconds > 0 || repl_limit.memory ||
         (watched && repl_limit.events);
}

void repl_limits_begin(lua_State *co) {
  if (depth++ == 0) {
    steps = 0;
    started = now();
    over = false;
    mem_refused = false;
  }
  /* Never displace another hook (the debugger's pause, a Ctrl-C). */
  if (active() && !lua_gethook(co)) lua_sethook(co, limit_hook, LUA_MASKCOUNT, hook_count());
}

void repl_limits_end(lua_State *co) {
  if (depth > 0) depth--;
  if (depth == 0 && lua_gethook(co) == limit_hook) lua_sethook(co, NULL, 0, 0);
}

/* ------------------------------------------------------------------------
** set / show
** ---------------------------------------------------------------------- */

static const char *const off_words[] = { "off", NULL };

/* A non-negative number, or off/0/unlimited for none. */
static int parse_amount(repl_session *s, const repl_cmd *self, const char *v, double max,
                        double *out) {
  if (!strcmp(v, "off") || !strcmp(v, "unlimited")) { *out = 0; return 0; }
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end || errno || !(d >= 0) || d > max) {
    repl_error(s, "usage: %s", self->usage);
    return -1;
  }
  *out = d;
  return 0;
}

static int set_step_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  double d;
  if (parse_amount(s, self, a->argv[0], 1e18, &d) < 0) return -1;
  repl_limit.steps = (long long)d;
  return 0;
}

static int set_max_events(repl_session *s, const repl_cmd *self, const repl_args *a) {
  double d;
  if (parse_amount(s, self, a->argv[0], 4e9, &d) < 0) return -1;
  repl_limits_set_events((size_t)d);
  return 0;
}

static int show_max_events(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s; (void)self; (void)a;
  if (repl_limit.events) printf("max-events: %zu\n", repl_limit.events);
  else printf("max-events: off\n");
  return 0;
}

static int set_time_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  double d;
  if (parse_amount(s, self, a->argv[0], 1e9, &d) < 0) return -1;
  repl_limit.seconds = d;
  return 0;
}

static int set_memory_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  double d;
  if (parse_amount(s, self, a->argv[0], 1 << 30, &d) < 0) return -1;
  if (d > 0 && d < 1) {
    repl_error(s, "set memory-limit: at least 1 MiB");
    return -1;
  }
  repl_limit.memory = (size_t)d << 20;
  return 0;
}

static int show_step_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s, (void)self, (void)a;
  if (repl_limit.steps) printf("step-limit: %lld\n", repl_limit.steps);
  else printf("step-limit: off\n");
  return 0;
}

static int show_time_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s, (void)self, (void)a;
  if (repl_limit.seconds > 0) printf("time-limit: %g\n", repl_limit.seconds);
  else printf("time-limit: off\n");
  return 0;
}

static int show_memory_limit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s, (void)self, (void)a;
  if (repl_limit.memory) printf("memory-limit: %zu\n", repl_limit.memory >> 20);
  else printf("memory-limit: off\n");
  return 0;
}

static const repl_cmd set_subs[] = {
  { "max-events", NULL, "support", "set max-events N|off",
    "cap the events a session records",
    "A program (or Lua typed at the prompt) fails with \"event limit\n"
    "reached\" at the line it reached once the session has recorded N events\n"
    "(ten million by default, a few GiB): a runaway loop ends instead of\n"
    "filling the memory. --max-events N sets it from the command line; `off`\n"
    "removes it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set max-events 50000000\n",
    set_max_events, REPL_COMPLETE_WORDS, off_words, 1, 1, false },
  { "memory-limit", NULL, "support", "set memory-limit MIB|off",
    "cap the memory the embedded Lua may hold",
    "Lua code (the program, lines typed at the prompt) fails with \"memory\n"
    "limit exceeded\" when the Lua state would hold more than MIB mebibytes.\n"
    "The check runs while user code runs; `off` (the default) removes it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set memory-limit 512\n",
    set_memory_limit, REPL_COMPLETE_WORDS, off_words, 1, 1, false },
  { "step-limit", NULL, "support", "set step-limit N|off",
    "stop Lua code after N instructions",
    "Each run of Lua code (a `run`, `continue`, a line of Lua) fails with\n"
    "\"step limit exceeded\" at the line it reached after N Lua VM\n"
    "instructions. --max-steps N sets it from the command line; `off` (the\n"
    "default) removes it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set step-limit 100000000\n",
    set_step_limit, REPL_COMPLETE_WORDS, off_words, 1, 1, false },
  { "time-limit", NULL, "support", "set time-limit SECONDS|off",
    "stop Lua code after SECONDS of wall-clock time",
    "Each run of Lua code fails with \"time limit exceeded\" at the line it\n"
    "reached after SECONDS seconds (checked every 1000 instructions, so time\n"
    "spent inside one long C call is not cut short). `off` (the default)\n"
    "removes it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set time-limit 30\n",
    set_time_limit, REPL_COMPLETE_WORDS, off_words, 1, 1, false },
};

static const repl_cmd show_subs[] = {
  { "max-events", NULL, "status", "show max-events", "the cap on recorded events",
    "Show the `set max-events` setting.\n\nExample:\n  (shapedb) show max-events\n"
    "  max-events: 10000000\n",
    show_max_events, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "memory-limit", NULL, "status", "show memory-limit", "the Lua memory cap, in MiB",
    "Show the `set memory-limit` setting.\n\nExample:\n  (shapedb) show memory-limit\n"
    "  memory-limit: off\n",
    show_memory_limit, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "step-limit", NULL, "status", "show step-limit", "the Lua instruction cap",
    "Show the `set step-limit` setting.\n\nExample:\n  (shapedb) show step-limit\n"
    "  step-limit: off\n",
    show_step_limit, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "time-limit", NULL, "status", "show time-limit", "the Lua time cap, in seconds",
    "Show the `set time-limit` setting.\n\nExample:\n  (shapedb) show time-limit\n"
    "  time-limit: off\n",
    show_time_limit, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void repl_limits_init(void) {
  repl_cmd_register_sub("set", set_subs, sizeof set_subs / sizeof *set_subs);
  repl_cmd_register_sub("show", show_subs, sizeof show_subs / sizeof *show_subs);
}
