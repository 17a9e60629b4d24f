/*
** debug.c — the debugger's engine (see debug.h): the program's coroutine,
** the event sink that decides where a motion stops, the pause hook, the
** motions (step, next, finish, continue, their reverse forms, goto),
** breakpoints, and the stop display.
**
** A motion is a scan over steps: forwards, each new step is tested against
** the breakpoints and the motion's own end (a count, a nesting level);
** steps already recorded are scanned without running anything, and when
** they run out the program is resumed and the sink scans each event as it
** is emitted. Backwards, the same tests run over the recorded steps only.
*/
#include "debug.h"
#include "host.h"
#include "runlimit.h"
#include "lsdb.h"

#include "cancel.h"
#include "intern.h"
#include "ops.h"
#include "srcfile.h"

#include <lauxlib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_NONE, M_STEP, M_NEXT, M_FINISH, M_CONTINUE, M_GOTO };

/* What a resume ended with. */
enum { R_PAUSED, R_DONE, R_FAILED };

/* The debugger whose program is running: the signal handler and the hook
** have no other way to find it. One program runs at a time. */
static dbg *running_dbg;

static char *xstrdup(const char *str) {
  size_t n = strlen(str) + 1;
  char *p = malloc(n);
  if (!p) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  return memcpy(p, str, n);
}

static void *xgrow(void *arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return arr;
  size_t ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *p = realloc(arr, ncap * elem);
  if (!p) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  *cap = ncap;
  return p;
}

dbg *dbg_of(repl_session *s) { return s->ext; }

/* The events the debugger can show. Ctrl-C stops the folding of a long
** stream (a replay of millions of events) where it is: said once, and
** the rest is folded when a command next asks. */
size_t dbg_length(dbg *d) {
  size_t n = sdb_timeline_length(d->tl), all = sdb_events_count(d->ev);
  if (n < all && sdb_cancelled() && d->fold_noted != n + 1) {
    d->fold_noted = n + 1;
    printf("Interrupted after %zu of %zu events (the rest are taken in when a command next "
           "needs them).\n", n, all);
  }
  return n;
}

const sdb_view *dbg_view_at(dbg *d, size_t k) { return sdb_timeline_seek(d->tl, k); }

const sdb_view *dbg_view(dbg *d) {
  const sdb_view *v = sdb_timeline_seek(d->tl, d->cur);
  if (!v) {   /* only on OOM: the cursor is always within the timeline */
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  return v;
}

unsigned dbg_base_compile(dbg *d) {
  if (d->base_compile_for != d->base + 1) {
    const sdb_view *b = dbg_view_at(d, d->base);
    d->base_compile = b ? sdb_view_compile(b) : 0;
    d->base_compile_for = d->base + 1;
  }
  return d->base_compile;
}

/* The compile number of v as this run counts them (v a clone: this seeks). */
static unsigned run_compile(dbg *d, const sdb_view *v) {
  unsigned c = sdb_view_compile(v), b = dbg_base_compile(d);
  return c > b ? c - b : c;
}

int dbg_level(const sdb_view *v) {
  int depth = sdb_view_depth(v);
  return (sdb_view_phase(v) != SDB_PHASE_NONE) + (depth > 0 ? depth : 0);
}

const char *dbg_color(dbg *d, const char *sgr) {
  return repl_use_color(d->s, stdout) ? sgr : "";
}

const char *dbg_reset(dbg *d) { return dbg_color(d, "\033[0m"); }

const char *dbg_basename(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path;
}

/* ------------------------------------------------------------------------
** Breakpoints
** ---------------------------------------------------------------------- */

static bool same_place(const sdb_event *a, const sdb_event *b) {
  return a && b && sdb_event_site(a)->file == sdb_event_site(b)->file && sdb_event_site(a)->line == sdb_event_site(b)->line;
}

/* Does the step p (its event is p - 1) hit bp? prev_phase is the phase at
** step p - 1. */
static bool bp_matches(const dbg *d, const dbg_bp *bp, const sdb_view *v, size_t p,
                       int prev_phase) {
  const sdb_event *e = sdb_view_event(v);
  if (!e) return false;
  const sdb_event *pe = p >= 2 ? sdb_view_event_at(v, p - 2) : NULL;
  switch (bp->kind) {
  case BP_UNBACKED:
    return e->kind == SDB_EV_CREATE_UNBACKED;
  case BP_GUARD: {
    if (e->kind != SDB_EV_GUARD_ADDED) return false;
    if (!bp->arg) return true;
    char *text = sdb_event_expr(e) ? sdb_expr_str(sdb_event_expr(e)) : NULL;
    bool hit = text && strstr(text, bp->arg);
    free(text);
    return hit;
  }
  case BP_PHASE:
    return (int)sdb_view_phase(v) == bp->phase && prev_phase != bp->phase;
  case BP_OP:
    /* the first event of a call, as the stream marks it; a trace saved
    ** before the mark: where the op changed, or the place did */
    if (!sdb_event_op(e) || strcmp(sdb_event_op(e), bp->arg)) return false;
    if (sdb_events_marks_op_calls(d->ev)) return e->op_first;
    return !(pe && sdb_event_op(pe) && !strcmp(sdb_event_op(pe), sdb_event_op(e)) && same_place(pe, e));
  case BP_SYMBOL:
    return sdb_view_touches(v, bp->sym);
  case BP_LINE:
    return sdb_event_site(e)->file && sdb_event_site(e)->line == bp->line &&
           !strcmp(dbg_basename(sdb_event_site(e)->file), dbg_basename(bp->arg)) &&
           !same_place(pe, e);
  case BP_ERROR:
    return e->kind == SDB_EV_ERROR;
  case BP_EVENT:
    return e->kind == bp->event;
  }
  return false;
}

/* Forwards, a breakpoint `continue N` is passing is counted and passed;
** backwards, ignore counts are left alone. */
static int match_breakpoints(dbg *d, const sdb_view *v, size_t p, int prev_phase, bool fwd) {
  int hit = 0;
  d->nstop_bps = 0;
  for (size_t i = 0; i < d->nbps; i++) {
    dbg_bp *bp = &d->bps[i];
    if (!bp->enabled || !bp_matches(d, bp, v, p, prev_phase)) continue;
    if (bp->cond && !dbg_bp_condition(d, bp, v)) continue;
    bp->hits++;
    if (fwd && bp->ignore) {   /* `continue N` passes it */
      bp->ignore--;
      continue;
    }
    if (!hit) hit = bp->num;
    /* every breakpoint the event hits is announced (bps are in number order) */
    d->stop_bps = xgrow(d->stop_bps, &d->capstop_bps, d->nstop_bps + 1, sizeof *d->stop_bps);
    d->stop_bps[d->nstop_bps++] = bp->num;
  }
  return hit;
}

dbg_bp *dbg_bp_find(dbg *d, int num) {
  for (size_t i = 0; i < d->nbps; i++)
    if (d->bps[i].num == num) return &d->bps[i];
  return NULL;
}

void dbg_bp_remove(dbg *d, size_t i) {
  free(d->bps[i].arg);
  dbg_bp_free(&d->bps[i]);
  memmove(&d->bps[i], &d->bps[i + 1], (d->nbps - i - 1) * sizeof *d->bps);
  d->nbps--;
}

/* "guard \"Eq\"", "op nonzero", "nonzero.lua:12"... */
void dbg_bp_describe(const dbg_bp *bp, char *out, size_t cap) {
  switch (bp->kind) {
  case BP_UNBACKED: snprintf(out, cap, "unbacked"); break;
  case BP_GUARD:
    if (bp->arg) snprintf(out, cap, "guard \"%s\"", bp->arg);
    else snprintf(out, cap, "guard");
    break;
  case BP_PHASE: snprintf(out, cap, "phase %s", sdb_phase_name(bp->phase)); break;
  case BP_OP: snprintf(out, cap, "op %s", bp->arg); break;
  case BP_SYMBOL: snprintf(out, cap, "symbol %s", bp->sym->name); break;
  case BP_LINE: snprintf(out, cap, "%s:%d", bp->arg, bp->line); break;
  case BP_ERROR: snprintf(out, cap, "error"); break;
  case BP_EVENT: snprintf(out, cap, "event %s", sdb_event_name(bp->event)); break;
  }
}

/* ------------------------------------------------------------------------
** The scan
** ---------------------------------------------------------------------- */

static void scan_begin(dbg *d, int motion, size_t count) {
  const sdb_view *v = dbg_view(d);
  d->motion = motion;
  d->count = count;
  d->level0 = dbg_level(v);
  d->scanned = d->cur;
  d->prev_phase = sdb_view_phase(v);
  d->stop_at = 0;
  d->stop_bp = 0;
}

/* Has the motion reached its end at step p? */
static bool motion_done(dbg *d, const sdb_view *v, size_t p) {
  switch (d->motion) {
  case M_STEP:
    return --d->count == 0;
  case M_NEXT: {
    int level = dbg_level(v);
    if (level > d->level0) return false;
    d->level0 = level;
    return --d->count == 0;
  }
  case M_FINISH:
    return dbg_level(v) < d->level0;
  case M_GOTO:
    return p >= d->count;
  default:
    return false;
  }
}

/* Scan the recorded steps after d->scanned for a stop; true when found
** (d->stop_at, d->stop_bp). */
static bool scan(dbg *d) {
  if (d->stop_at) return true;
  if (d->motion == M_NONE) return false;
  size_t len = dbg_length(d);
  while (d->scanned < len) {
    size_t p = d->scanned + 1;
    const sdb_view *v = dbg_view_at(d, p);
    if (!v) return false;
    int bp = d->motion == M_GOTO ? 0 : match_breakpoints(d, v, p, d->prev_phase, true);
    bool stop = motion_done(d, v, p) || bp;
    d->prev_phase = sdb_view_phase(v);
    d->scanned = p;
    if (stop) {
      d->stop_at = p;
      d->stop_bp = bp;
      return true;
    }
  }
  return false;
}

/* ------------------------------------------------------------------------
** Running the program
** ---------------------------------------------------------------------- */

/* The user's code: a file, or a chunk from the prompt (`run LUA`), not
** the embedded library ("=[shapedb torch.lua]") or C. */
static bool user_frame(lua_State *co, lua_Debug *ar) {
  if (!lua_getinfo(co, "S", ar)) return false;
  const char *src = ar->source;
  return src[0] == '@' || (src[0] == '=' && strncmp(src, "=[shapedb ", 10) != 0);
}

/* A count hook on the program's thread: yield at the first instruction
** where the thread can yield (not inside a C call such as a sort
** comparator), or, when killing or after a second Ctrl-C, raise an error
** in the user's own code (library code runs on, so a trace it is building
** is aborted cleanly). */
static void pause_hook(lua_State *co, lua_Debug *ar) {
  dbg *d = running_dbg;
  if (!d) {
    lua_sethook(co, NULL, 0, 0);
    return;
  }
  if (d->killing || d->interrupts >= 2) {
    if (user_frame(co, ar)) luaL_error(co, d->killing ? "killed by the debugger" : "interrupted!");
    return;
  }
  if (!lua_isyieldable(co)) return;
  lua_sethook(co, NULL, 0, 0);
  d->hook_yield = true;
  /* where it stopped, read now: after a yield from a hook the thread's
  ** saved position is one instruction back */
  d->paused_line = 0;
  for (int level = 0; lua_getstack(co, level, ar); level++) {
    if (!lua_getinfo(co, "Sl", ar) || ar->source[0] != '@' || ar->currentline <= 0) continue;
    d->paused_file = sdb_intern(ar->source + 1);
    d->paused_line = ar->currentline;
    break;
  }
  lua_yield(co, 0);
}

static void arm_pause(dbg *d) {
  lua_sethook(d->co, pause_hook, LUA_MASKCOUNT, 1);
}

/* The first Ctrl-C pauses the program at the next instruction, the second
** raises "interrupted!" in it, the third kills the process (a program stuck
** in C code, which no hook reaches). */
static void on_sigint(int sig) {
  dbg *d = running_dbg;
  repl_host_interrupted = 1;
  if (!d || ++d->interrupts >= 2) signal(sig, SIG_DFL);
  if (d) lua_sethook(d->co, pause_hook, LUA_MASKCOUNT, 1);
}

static void record_stack(dbg *d, size_t seq) {
  d->stacks = xgrow(d->stacks, &d->capstacks, seq + 1, sizeof *d->stacks);
  while (d->nstacks <= seq) d->stacks[d->nstacks++] = NULL;
  d->stacks[seq] = lsdb_user_stack(d->co);
}

static void on_event(void *ud, const sdb_event *ev) {
  dbg *d = ud;
  if (!d->running) return;
  record_stack(d, ev->seq);
  if (d->killing || d->stop_at) return;
  if (scan(d)) arm_pause(d);
}

static void release_program(dbg *d) {
  if (d->nruns && !d->runs[d->nruns - 1].to) d->runs[d->nruns - 1].to = dbg_length(d);
  if (d->co_ref != LUA_NOREF) luaL_unref(d->s->L, LUA_REGISTRYINDEX, d->co_ref);
  d->co_ref = LUA_NOREF;
  d->co = NULL;
}

/* Print the error a program ended with: a string gets the thread's
** traceback, an error object (a TraceError) its own __tostring, which
** carries the traceback from inside the traced function. */
static void report_failure(dbg *d) {
  lua_State *L = d->s->L, *co = d->co;
  if (lua_type(co, -1) == LUA_TSTRING) {
    luaL_traceback(L, co, repl_limits_message(lua_tostring(co, -1)), 0);
  } else {
    lua_xmove(co, L, 1);
    repl_host_describe(L, -1);
    lua_remove(L, -2);
  }
  repl_error(d->s, "%s", lua_tostring(L, -1));
  free(d->failure);   /* a saved trace keeps it for its replay */
  d->failure = strdup(lua_tostring(L, -1));
  lua_pop(L, 1);
}

/* Resume the program until it pauses, returns or fails. */
static int resume(dbg *d) {
  lua_State *L = d->s->L, *co = d->co;
  int nargs = 0;
  if (d->prog == PROG_READY) nargs = lua_gettop(co) - 1;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  running_dbg = d;
  d->running = true;
  d->hook_yield = false;
  d->interrupts = 0;
  if (d->killing) arm_pause(d);
  sigaction(SIGINT, &sa, &old);
  int nres = 0;
  lsdb_set_thread(L, co);
  lsdb_stack_settle(co);   /* no op call or phase is open when the program resumes */
  repl_limits_begin(co);
  int st = lua_resume(co, L, nargs, &nres);
  repl_limits_end(co);
  sigaction(SIGINT, &old, NULL);
  d->running = false;
  running_dbg = NULL;
  lua_sethook(co, NULL, 0, 0);
  lsdb_events(L);   /* the runtime's current thread is the main one again */
  if (st == LUA_YIELD) {
    lua_pop(co, nres);
    if (d->hook_yield) {
      d->prog = PROG_PAUSED;
      /* the Ctrl-C that paused the program is spent: it must not also stop
      ** the folding of the events that showing the stop takes in */
      if (d->interrupts < 2) repl_host_clear_interrupt();
      return R_PAUSED;
    }
    lua_pushliteral(co, "the program yielded outside a coroutine (coroutine.yield in its main chunk?)");
    st = LUA_ERRRUN;
  }
  if (st == LUA_OK) {
    /* `run EXPR`: print what it returned, as the Lua prompt does */
    if (nres > 0 && d->print_results && !d->killing) {
      lua_getglobal(L, "print");
      lua_xmove(co, L, nres);
      if (lua_pcall(L, nres, 0, 0) != LUA_OK) lua_pop(L, 1);
    } else {
      lua_pop(co, nres);
    }
    d->prog = PROG_DONE;
    release_program(d);
    return R_DONE;
  }
  if (!d->killing) report_failure(d);
  d->prog = PROG_FAILED;
  release_program(d);
  return R_FAILED;
}

/* End a paused program: raise in its user code until it returns, so the
** library unwinds what it was building (an active trace, a hop). */
static void kill_program(dbg *d) {
  if (d->prog == PROG_READY) {
    release_program(d);
  } else if (d->prog == PROG_PAUSED) {
    d->killing = true;
    d->motion = M_NONE;
    for (int i = 0; i < 1000 && d->prog == PROG_PAUSED; i++) resume(d);
    d->killing = false;
    if (d->prog == PROG_PAUSED) release_program(d);   /* it would not die */
  }
  d->prog = PROG_NONE;
}

static bool alive(const dbg *d) { return d->prog == PROG_READY || d->prog == PROG_PAUSED; }
bool dbg_alive(const dbg *d) { return alive(d); }
const char *dbg_program(const dbg *d) { return d->replay ? d->replay_program : d->s->program; }
void dbg_kill(dbg *d) { if (alive(d)) kill_program(d); }

/* A live program ends a replay: the events stay, the label goes. */
static void leave_replay(dbg *d) {
  free(d->replay);
  free(d->replay_program);
  d->replay = d->replay_program = NULL;
}

/* A new run has a new ShapeEnv: its u0 is not the old run's u0, so the
** assumptions and `why` questions about the old symbols go, and say so.
** Breakpoints, watches and displays stay, as in gdb. */
static void drop_run_state(dbg *d) {
  if (d->nassumed)
    printf("Dropped %zu assumption%s about the previous run's symbols (`assume` again to keep %s).\n",
           d->nassumed, d->nassumed == 1 ? "" : "s", d->nassumed == 1 ? "it" : "them");
  d->nassumed = 0;
  d->nasked = 0;
}

/* Make a new coroutine holding the function at the top of L's stack and
** its nargs arguments above it... the cursor moves to the end of the
** timeline, where the run starts. */
static void start_program(dbg *d, int nargs, const char *label) {
  lua_State *L = d->s->L;
  drop_run_state(d);
  lua_State *co = lua_newthread(L);
  d->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_xmove(L, co, nargs + 1);
  d->co = co;
  d->prog = PROG_READY;
  leave_replay(d);
  free(d->failure);
  d->failure = NULL;
  d->print_results = false;
  free(d->label);
  d->label = xstrdup(label);
  d->cur = d->base = dbg_length(d);
  sdb_view_free(d->shown);
  d->shown = sdb_view_clone(dbg_view(d));
  /* a run that added no event (a load, a run killed before its first) is
  ** replaced by this one */
  if (d->nruns && d->runs[d->nruns - 1].from == d->base) free(d->runs[--d->nruns].label);
  d->runs = xgrow(d->runs, &d->capruns, d->nruns + 1, sizeof *d->runs);
  d->runs[d->nruns].from = d->base;
  d->runs[d->nruns].to = 0;
  d->runs[d->nruns++].label = xstrdup(label);
}

/* Load the session's program into a fresh coroutine, `arg` set as lua.c
** sets it. 0, or -1 with the reason printed. */
static int prepare_program(dbg *d) {
  repl_session *s = d->s;
  lua_State *L = s->L;
  if (alive(d)) kill_program(d);
  sdb_srcfile_refresh(true);   /* the program runs the file's text of now */
  repl_limits_run_start();     /* max-events is per run */
  /* torch.lua's compile records start over, as a new process's would */
  repl_lib_field(L, "shapedb", "_new_run");
  if (lua_type(L, -1) == LUA_TFUNCTION) {
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) lua_pop(L, 1);
  } else {
    lua_pop(L, 1);
  }
  repl_set_arg(s);
  if (repl_host_loadfile(L, s->program) != LUA_OK) {
    repl_error(s, "run: %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  for (int i = 0; i < s->prog_argc; i++) lua_pushstring(L, s->prog_argv[i]);
  start_program(d, s->prog_argc, dbg_basename(s->program));
  return 0;
}

/* ------------------------------------------------------------------------
** The stop display
** ---------------------------------------------------------------------- */

#define MAX_DIFF_LINES 12

bool dbg_print_source_line(dbg *d, const char *file, int line) {
  const char *text = file ? sdb_srcfile_line_raw(file, line) : NULL;
  if (!text) return false;
  printf("%s%d%s\t%s\n", dbg_color(d, "\033[2m"), line, dbg_reset(d), text);
  return true;
}

static void show_header(dbg *d, const sdb_view *v) {
  const sdb_event *e = sdb_view_event(v);
  const char *bold = dbg_color(d, "\033[1m"), *off = dbg_reset(d);
  if (!e || d->cur == d->base) {
    size_t n = dbg_length(d) - d->base;
    if (n) printf("%sstart of the run%s, before event %zu (%zu event%s recorded)\n", bold, off,
                  d->base, n, n == 1 ? "" : "s");
    else printf("%sstart of the run%s: no events yet\n", bold, off);
    return;
  }
  printf("%sevent %u%s", bold, e->seq, off);
  sdb_phase ph = sdb_view_phase(v);
  if (ph != SDB_PHASE_NONE) printf(", phase %s", sdb_phase_name(ph));
  const char *tracer = sdb_view_tracer(v);
  if (tracer) printf(", tracer %s", tracer);
  if (sdb_event_site(e)->file) {
    printf(", %s:%d", dbg_basename(sdb_event_site(e)->file), sdb_event_site(e)->line);
    if (sdb_event_site(e)->func) printf(" in %s", sdb_event_site(e)->func);
  }
  putchar('\n');
  /* the first line of the event; an error's message in full below it
  ** (where `break error` stops, the message is the point) */
  char *sum = sdb_event_summary(e);
  char *nl = sum ? strchr(sum, '\n') : NULL;
  if (nl) *nl = '\0';
  printf("  %s%s%s\n", dbg_color(d, "\033[36m"), sum ? sum : repl_oom_text(), off);
  if (nl && e->kind == SDB_EV_ERROR) {
    for (char *p = nl + 1; *p;) {
      char *q = strchr(p, '\n');
      size_t n = q ? (size_t)(q - p) : strlen(p);
      printf(n ? "  | %.*s\n" : "  |\n", (int)n, p);
      p = q ? q + 1 : p + n;
    }
  }
  free(sum);
  if (sdb_event_site(e)->file) dbg_print_source_line(d, sdb_event_site(e)->file, sdb_event_site(e)->line);
}

/* The first step of the compile the state at step k belongs to. */
static size_t compile_start(dbg *d, size_t k) {
  const sdb_view *v = dbg_view_at(d, k);
  unsigned c = v ? sdb_view_compile(v) : 0;
  while (k > d->base) {
    v = dbg_view_at(d, k - 1);
    if (!v || sdb_view_compile(v) != c) break;
    k--;
  }
  return k;
}

/* What changed since the last stop, then the pending set when the diff
** did not already say it. A stop in another compile than the last one
** (a new ShapeEnv, whose u0 is not the old u0) shows what changed since
** that compile began instead. */
static void show_changes(dbg *d, const sdb_view *v) {
  sdb_view *from = NULL;
  if (d->shown && sdb_view_compile(d->shown) != sdb_view_compile(v) && sdb_view_compile(v)) {
    size_t k = compile_start(d, d->cur);
    const sdb_view *kv = dbg_view_at(d, k);
    const sdb_event *first = kv ? sdb_view_event(kv) : NULL;
    from = kv ? sdb_view_clone(kv) : NULL;
    printf("  compile %u", run_compile(d, v));
    if (first && first->kind == SDB_EV_PHASE_START && sdb_event_text(first))
      printf(" (%s)", sdb_event_text(first));
    if (first) printf(" began at event %u", first->seq);
    putchar('\n');
  }
  size_t uncounted = 0;
  /* no view to compare with (its copy found no memory), or no memory for
  ** the diff: said, not left out */
  const sdb_view *base = from ? from : d->shown;
  if (from == NULL && d->shown && sdb_view_compile(d->shown) != sdb_view_compile(v) && sdb_view_compile(v))
    base = NULL;   /* the compile's start could not be copied: not the last stop instead */
  char *diff = base ? sdb_view_diff_n(base, v, MAX_DIFF_LINES, &uncounted) : NULL;
  if (!diff) printf("  %s\n", repl_oom_text());
  sdb_view_free(from);
  bool pending_said = false;
  int nlines = 0, more = (int)uncounted;
  for (char *p = diff; p && *p;) {
    char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (!strncmp(p, "pending:", 8)) pending_said = true;
    if (nlines < MAX_DIFF_LINES) {
      bool undo = !strncmp(p, "undo ", 5);
      printf("  %s%.*s%s\n", dbg_color(d, undo ? "\033[33m" : "\033[32m"), (int)n, p,
             dbg_reset(d));
      nlines++;
    } else {
      more++;
    }
    p = nl ? nl + 1 : p + n;
  }
  if (more)
    printf("  ... and %d more change%s since the last stop (see `info` for the state)\n",
           more, more == 1 ? "" : "s");
  free(diff);
  const sdb_expr *const *pend;
  size_t np = sdb_view_pending(v, &pend);
  if (np && !pending_said) {
    printf("  %spending: {", dbg_color(d, "\033[35m"));
    for (size_t i = 0; i < np; i++) printf("%s%s", i ? ", " : "", pend[i]->name);
    printf("}%s\n", dbg_reset(d));
  }
}

void dbg_show_stop(dbg *d) {
  sdb_view *v = sdb_view_clone(dbg_view(d));
  if (!v) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  show_header(d, v);
  if (d->cur > d->base) show_changes(d, v);
  sdb_view_free(d->shown);
  d->shown = v;
  const sdb_event *e = sdb_view_event(v);
  if (e && sdb_event_site(e)->file) {   /* a plain `list` now lists around this line */
    d->list_file = sdb_event_site(e)->file;
    d->list_next = sdb_event_site(e)->line > 5 ? sdb_event_site(e)->line - 5 : 1;
  }
  dbg_run_displays(d);
}

/* Say which breakpoints stopped us (all the event hit), queue their
** command lists, drop the temporary ones. */
static void announce_breakpoint(dbg *d) {
  if (!d->stop_bp) return;
  if (!d->nstop_bps) {   /* a stop found before the list was kept */
    d->stop_bps = xgrow(d->stop_bps, &d->capstop_bps, 1, sizeof *d->stop_bps);
    d->stop_bps[d->nstop_bps++] = d->stop_bp;
  }
  for (size_t k = 0; k < d->nstop_bps; k++) {
    dbg_bp *bp = dbg_bp_find(d, d->stop_bps[k]);
    if (!bp) continue;
    char what[160];
    dbg_bp_describe(bp, what, sizeof what);
    printf("%s%s %d, %s%s\n", dbg_color(d, "\033[1;31m"),
           bp->temporary ? "Temporary breakpoint" : bp->watch ? "Watchpoint" : "Breakpoint",
           bp->num, what, dbg_reset(d));
    dbg_bp_queue(d, bp);
    if (bp->temporary) dbg_bp_remove(d, (size_t)(bp - d->bps));
  }
  d->nstop_bps = 0;
}

/* Where the program's thread is now (after an interrupt). The stop shown
** next is the last event, which may be lines away from where the program
** was interrupted (a loop after a compile): the message says so, and
** `list` then shows the program's line. */
static void print_program_location(dbg *d) {
  if (d->s->tty) putchar('\n');   /* after the ^C the terminal echoed */
  const sdb_event *e = d->cur > d->base ? sdb_events_at(d->ev, d->cur - 1) : NULL;
  d->interrupted_at = d->paused_line > 0 ? d->cur + 1 : 0;
  if (d->paused_line <= 0)
    printf("Program interrupted.\n");
  else if (e && sdb_event_site(e)->file && (sdb_event_site(e)->file != d->paused_file || sdb_event_site(e)->line != d->paused_line))
    printf("Program interrupted at %s:%d (after event %u, at %s:%d, shown below).\n",
           dbg_basename(d->paused_file), d->paused_line, e->seq, dbg_basename(sdb_event_site(e)->file), sdb_event_site(e)->line);
  else
    printf("Program interrupted at %s:%d.\n", dbg_basename(d->paused_file), d->paused_line);
}

/* ------------------------------------------------------------------------
** Motions
** ---------------------------------------------------------------------- */

/* A replay of a run that ended has not yet shown its end: a motion that
** reaches it says so once, as the live run said when its program ended. */
static bool replay_ending(const dbg *d) {
  return d->replay && !d->replay_at_end && (d->prog == PROG_DONE || d->prog == PROG_FAILED);
}

/* The replay reaches the end of its run: a failed run's error, as the live
** run printed it when its program failed. */
static void replay_end(dbg *d) {
  d->replay_at_end = true;
  if (d->prog == PROG_FAILED && d->failure) repl_error(d->s, "%s", d->failure);
}

static void say_end(dbg *d) {
  size_t len = dbg_length(d);
  size_t n = len - d->base;
  if (n == 0) return;   /* plain Lua: nothing was traced, nothing to say */
  if (d->prog == PROG_DONE)
    printf("[program finished: %zu event%s in this run]\n", n, n == 1 ? "" : "s");
  else if (d->prog == PROG_FAILED)
    printf("[program failed: %zu event%s in this run]\n", n, n == 1 ? "" : "s");
  size_t lost = sdb_events_lost(d->ev);
  if (lost)
    repl_error(d->s, "out of memory: %zu event%s of this session could not be kept; the history "
               "has holes", lost, lost == 1 ? "" : "s");
}

/* Run forwards from the cursor; stop where the scan says, at the end of
** the timeline when the program ends, or on Ctrl-C. 0, or -1 when the
** program failed (the error is printed) or nothing could move. */
static int forward(dbg *d, int motion, size_t count, const char *cmd) {
  if (replay_ending(d) && d->cur >= dbg_length(d)) {
    /* a live program paused at its last event ends on the next motion */
    replay_end(d);
    say_end(d);
    return d->prog == PROG_FAILED ? -1 : 0;
  }
  if (!alive(d) && d->cur >= dbg_length(d)) {
    if (d->replay && dbg_length(d) == d->base)
      repl_error(d->s, "%s: the replay has no events; a replay has no program to run", cmd);
    else if (d->replay)
      repl_error(d->s, "%s: the end of the replay (event %zu is the last); `reverse-step` or "
                       "`goto` move back; a replay has no program to run further", cmd,
                 dbg_length(d) - 1);
    else if (d->prog == PROG_NONE)
      repl_error(d->s, "%s: the program is not being run; `run` starts it", cmd);
    else if (dbg_length(d) == d->base)
      repl_error(d->s, "%s: the program has finished without events; `run` starts it again", cmd);
    else
      repl_error(d->s, "%s: the program has finished (event %zu is the last); `reverse-step` "
                       "or `goto` move back, `run` starts it again", cmd, dbg_length(d) - 1);
    return -1;
  }
  scan_begin(d, motion, count);
  int ended = -1;   /* R_DONE / R_FAILED when the program ended on the way */
  bool interrupted = false, resumed = false;
  while (!scan(d)) {
    if (!alive(d)) break;
    if (d->prog == PROG_READY && d->label && !d->print_results)
      printf("Starting program: %s\n", d->s->program ? d->s->program : d->label);
    resumed = true;
    int r = resume(d);
    if (r != R_PAUSED) {
      ended = r;
      scan(d);
      break;
    }
    if (!d->stop_at && d->interrupts) {
      interrupted = true;
      break;
    }
  }
  /* a replay's program "ends" where the live one did: when a motion runs
  ** past its last event */
  bool replay_ends = replay_ending(d) && !d->stop_at;
  if (replay_ends) {
    replay_end(d);
    ended = d->prog == PROG_FAILED ? R_FAILED : R_DONE;
  }
  size_t before = d->cur;
  d->cur = d->stop_at ? d->stop_at : dbg_length(d);
  /* the program's frames are live from this stop on (it ran a little
  ** past it, to a point where it could yield) */
  if (resumed) d->live_from = d->prog == PROG_PAUSED ? d->cur : SIZE_MAX;
  d->motion = M_NONE;
  d->interrupted_at = 0;
  if (interrupted) print_program_location(d);
  if (d->cur != before || interrupted) {   /* else: it ended with no new event */
    announce_breakpoint(d);
    dbg_show_stop(d);
  }
  if (d->interrupted_at) {   /* a plain `list` lists around the program's line */
    d->list_file = d->paused_file;
    d->list_next = d->paused_line > 5 ? d->paused_line - 5 : 1;
  }
  if (ended >= 0 || (!alive(d) && !replay_ending(d) && d->cur == dbg_length(d))) say_end(d);
  /* an interrupted --batch run fails, so scripts can tell */
  return ended == R_FAILED || (interrupted && d->s->batch) ? -1 : 0;
}

/* Move backwards over recorded steps; the same tests, mirrored. */
static int backward(dbg *d, int motion, size_t count, const char *cmd) {
  if (d->cur <= d->base) {
    repl_error(d->s, "%s: no more reverse-execution history (at the start of the run)", cmd);
    return -1;
  }
  const sdb_view *v = dbg_view(d);
  int level0 = dbg_level(v);
  size_t p = d->cur;
  int bp = 0;
  while (p > d->base) {
    size_t q = p - 1;   /* the candidate stop */
    if (q == d->base) { p = q; break; }
    /* seeks are O(1); a seek invalidates the view before it, so the phase
    ** of the step before is read first */
    const sdb_view *pv = dbg_view_at(d, q - 1);
    int prev_phase = pv ? (int)sdb_view_phase(pv) : SDB_PHASE_NONE;
    v = dbg_view_at(d, q);
    if (!v) break;
    int level = dbg_level(v);
    bp = match_breakpoints(d, v, q, prev_phase, false);
    p = q;
    if (bp) break;
    if (motion == M_STEP && --count == 0) break;
    if (motion == M_NEXT && level <= level0) {
      level0 = level;
      if (--count == 0) break;
    }
    if (motion == M_FINISH && level < level0) break;
  }
  d->cur = p;
  d->stop_bp = bp;
  announce_breakpoint(d);
  dbg_show_stop(d);
  return 0;
}

/* ------------------------------------------------------------------------
** Commands
** ---------------------------------------------------------------------- */

/* A positive count argument ("step 5"), 1 when absent; -1 on a bad one. */
static long count_arg(dbg *d, const char *cmd, const repl_args *a) {
  if (a->argc == 0) return 1;
  char *end;
  long n = strtol(a->argv[0], &end, 10);
  if (*end || n <= 0) {
    repl_error(d->s, "%s: expected a positive count, got '%s'", cmd, a->argv[0]);
    return -1;
  }
  return n;
}

static int cmd_step(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  long n = count_arg(d, c->name, a);
  return n < 0 ? -1 : forward(d, M_STEP, (size_t)n, c->name);
}

static int cmd_next(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  long n = count_arg(d, c->name, a);
  return n < 0 ? -1 : forward(d, M_NEXT, (size_t)n, c->name);
}

static int cmd_finish(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)a;
  if (dbg_level(dbg_view(d)) == 0) {
    repl_error(s, "%s: not inside a phase or tracer (`continue` runs to the end)", c->name);
    return -1;
  }
  return forward(d, M_FINISH, 0, c->name);
}

static int cmd_continue(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  long n = count_arg(d, c->name, a);
  if (n < 0) return -1;
  /* gdb's `continue N`: pass the breakpoint we stopped at N - 1 more times,
  ** silently; other breakpoints still stop */
  dbg_bp *bp = n > 1 && d->stop_bp ? dbg_bp_find(d, d->stop_bp) : NULL;
  if (bp) {
    printf("Will ignore next %ld crossings of breakpoint %d.  Continuing.\n", n - 1, bp->num);
    bp->ignore = (unsigned)(n - 1);
  }
  return forward(d, M_CONTINUE, 0, c->name);
}

static int cmd_reverse_step(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  long n = count_arg(d, c->name, a);
  return n < 0 ? -1 : backward(d, M_STEP, (size_t)n, c->name);
}

static int cmd_reverse_next(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  long n = count_arg(d, c->name, a);
  return n < 0 ? -1 : backward(d, M_NEXT, (size_t)n, c->name);
}

static int cmd_reverse_finish(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)a;
  if (dbg_level(dbg_view(d)) == 0) {
    repl_error(s, "%s: not inside a phase or tracer", c->name);
    return -1;
  }
  return backward(d, M_FINISH, 0, c->name);
}

static int cmd_reverse_continue(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)a;
  return backward(dbg_of(s), M_CONTINUE, 0, c->name);
}

static int cmd_goto(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  const char *w = a->argv[0];
  size_t target;
  if (!strcmp(w, "start")) {
    target = d->base;
  } else if (!strcmp(w, "end")) {
    /* to the end, past every breakpoint (gdb's motions to a place do not
    ** stop at breakpoints on the way) */
    if (alive(d) || replay_ending(d)) return forward(d, M_GOTO, SIZE_MAX, c->name) < 0 ? -1 : 0;
    target = dbg_length(d);
  } else {
    char *end;
    long n = strtol(w, &end, 10);
    if (*end || n < 0) {
      repl_error(s, "%s: expected an event number, `start` or `end`, got '%s'", c->name, w);
      return -1;
    }
    target = (size_t)n + 1;
    if (target > dbg_length(d)) {
      if (!alive(d)) {
        repl_error(s, "%s: there is no event %ld (the last is %zu)", c->name, n,
                   dbg_length(d) ? dbg_length(d) - 1 : 0);
        return -1;
      }
      int rc = forward(d, M_GOTO, target, c->name);
      if (rc == 0 && d->cur < target)
        repl_error(s, "%s: the program ended before event %ld", c->name, n);
      return rc == 0 && d->cur < target ? -1 : rc;
    }
  }
  d->cur = target;
  dbg_show_stop(d);
  return 0;
}

/* `run [LUA]`: the loaded program from its first line, or LUA, under the
** debugger. A paused program is killed first. */
static int hook_run(repl_session *s, const char *args) {
  dbg *d = dbg_of(s);
  lua_State *L = s->L;
  while (*args == ' ' || *args == '\t') args++;
  if (d->replay && !*args) {
    repl_error(s, "run: a replay has no program to run (`info program` says what is "
                  "replayed); `load FILE` loads one, `run LUA` runs Lua code");
    return -1;
  }
  if (*args) {
    if (alive(d)) kill_program(d);
    char *code = malloc(strlen(args) + 8);
    if (!code) return -1;
    sprintf(code, "return %s", args);
    int st = luaL_loadbuffer(L, code, strlen(code), "=(run)");
    free(code);
    if (st != LUA_OK) {
      lua_pop(L, 1);
      st = luaL_loadbuffer(L, args, strlen(args), "=(run)");
    }
    if (st != LUA_OK) {
      repl_error(s, "run: %s", lua_tostring(L, -1));
      lua_pop(L, 1);
      return -1;
    }
    start_program(d, 0, args);
    d->print_results = true;
  } else {
    if (!s->program) {
      repl_error(s, "run: no program loaded; use `load FILE`, or `run LUA` to run Lua code");
      return -1;
    }
    if (prepare_program(d) < 0) return -1;
  }
  return forward(d, M_CONTINUE, 0, "run");
}

static int cmd_run(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  return hook_run(s, a->rest);
}

static int cmd_kill(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)a;
  if (!alive(d) && d->replay) {
    repl_error(s, "%s: a replay has no program to kill (`info program` says what is replayed)",
               c->name);
    return -1;
  }
  if (!alive(d)) {
    repl_error(s, "%s: the program is not being run", c->name);
    return -1;
  }
  size_t before = dbg_length(d);
  kill_program(d);
  /* the kill is raised at the program's next instruction of its own code:
  ** library code (finishing a compile) may run first */
  size_t more = dbg_length(d) - before;
  if (more)
    printf("[program killed after %zu more event%s: the timeline is kept; `run` starts it again]\n",
           more, more == 1 ? "" : "s");
  else
    printf("[program killed: the timeline is kept; `run` starts it again]\n");
  return 0;
}

/* --- hooks ------------------------------------------------------------------ */

bool dbg_symbol_shaped(const char *w) {
  const char *p = w;
  while (*p >= 'a' && *p <= 'z') p++;
  if (p == w || !*p) return false;
  while (*p >= '0' && *p <= '9') p++;
  return !*p;
}



const sdb_expr *dbg_symbol_arg(dbg *d, const char *cmd, const char *word) {
  if (!dbg_symbol_shaped(word)) {
    repl_error(d->s, "%s: '%s' is not a symbol name (s0, u1, ...)", cmd, word);
    return NULL;
  }
  const sdb_expr *sym = sdb_sym(word);
  sdb_view_sym info;
  if (!sym || !sdb_view_symbol(dbg_view(d), sym, &info)) {
    repl_error(d->s, "%s: no symbol %s at this step (`info symbols` lists them)", cmd, word);
    return NULL;
  }
  return sym;
}

static void hook_complete_symbols(repl_session *s, const char *prefix, repl_strv *out) {
  dbg *d = dbg_of(s);
  const sdb_view *v = sdb_timeline_seek(d->tl, d->cur);
  size_t n = v ? sdb_view_symbol_count(v) : 0;
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *sym = sdb_view_symbol_at(v, i);
    if (!strncmp(sym->name, prefix, strlen(prefix))) repl_strv_add(out, sym->name);
  }
}

/* The program's banner: its leading comment lines that start with "--|". */
static void print_banner(const char *path) {
  int n = sdb_srcfile_count(path);
  for (int i = 1; i <= n; i++) {
    const char *line = sdb_srcfile_line_raw(path, i);
    if (!line || strncmp(line, "--", 2)) break;
    if (!strncmp(line, "--|", 3)) printf("%s\n", line[3] == ' ' ? line + 4 : line + 3);
  }
}

/* A paused program runs the text it was started with: its stops and
** listings keep showing that text until the next `run`. */
static bool hook_sources_frozen(repl_session *s) {
  dbg *d = dbg_of(s);
  return d && d->prog == PROG_PAUSED && !d->replay;
}

static void hook_loaded(repl_session *s) {
  dbg *d = dbg_of(s);
  if (prepare_program(d) == 0 && s->tty) print_banner(s->program);
}

/* ------------------------------------------------------------------------
** Registration
** ---------------------------------------------------------------------- */

static const char *const goto_words[] = { "start", "end", NULL };

static const repl_cmd debug_cmds[] = {
  { "run", "r", "running", "run [LUA]",
    "run the program from its start, or the Lua code LUA",
    "Start the loaded program from its first line under the debugger, as\n"
    "gdb's `run` starts the inferior: it runs until a breakpoint, the end, or\n"
    "Ctrl-C. A paused run is killed first (its trace is aborted cleanly); the\n"
    "program runs in the session's Lua state, as `dofile` would. With LUA, run\n"
    "that Lua code under the debugger instead, and print what it returns.\n"
    "\nExample:\n"
    "  (shapedb) break unbacked\n"
    "  (shapedb) run\n",
    cmd_run, REPL_COMPLETE_LUA, NULL, 0, -1, false },
  { "step", "s", "running", "step [N]",
    "advance to the next event (N events)",
    "Advance the cursor by one event (or N), running the program as far as\n"
    "needed. The program pauses only between operators, so one operator's\n"
    "events arrive together; `step` walks through them one at a time. A stop\n"
    "shows the event, the Lua line that caused it, and what changed since the\n"
    "last stop. Breakpoints on the way stop it early. Enter repeats it.\n"
    "\nExample:\n"
    "  (shapedb) step 3\n",
    cmd_step, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "next", "n", "running", "next [N]",
    "step over a nested tracer or phase",
    "Advance to the next event at the current nesting level or above: a\n"
    "phase (trace, aot, lower, guards) or a nested tracer (a cond branch) that\n"
    "starts here is run to its end in one move. Enter repeats it.\n"
    "\nExample:\n"
    "  (shapedb) next\n",
    cmd_next, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "finish", "fin", "running", "finish",
    "run to the end of the current tracer or phase",
    "Run until the innermost tracer (a cond branch) or phase the cursor is in\n"
    "ends, and stop at the event that ends it.\n"
    "\nExample:\n"
    "  (shapedb) finish\n",
    cmd_finish, REPL_COMPLETE_NONE, NULL, 0, 0, true },
  { "continue", "c", "running", "continue [N]",
    "run to the next breakpoint or the end",
    "Run until a breakpoint is hit or the program ends. With N, pass the\n"
    "breakpoint N - 1 more times.\n"
    "\nExample:\n"
    "  (shapedb) continue\n",
    cmd_continue, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "reverse-step", "rs", "running", "reverse-step [N]",
    "go back one event (N events)",
    "Move the cursor back by one event (or N). The state at any step is a\n"
    "fold of the events before it, so going back is exact; nothing runs.\n"
    "Breakpoints on the way stop it early.\n"
    "\nExample:\n"
    "  (shapedb) reverse-step\n",
    cmd_reverse_step, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "reverse-next", "rn", "running", "reverse-next [N]",
    "go back over a nested tracer or phase",
    "Move back to the previous event at the current nesting level or above.\n"
    "\nExample:\n"
    "  (shapedb) reverse-next\n",
    cmd_reverse_next, REPL_COMPLETE_NONE, NULL, 0, 1, true },
  { "reverse-finish", NULL, "running", "reverse-finish",
    "go back to where the current tracer or phase began",
    "Move back to the event before the innermost tracer or phase the cursor\n"
    "is in began.\n"
    "\nExample:\n"
    "  (shapedb) reverse-finish\n",
    cmd_reverse_finish, REPL_COMPLETE_NONE, NULL, 0, 0, true },
  { "reverse-continue", "rc", "running", "reverse-continue",
    "go back to the previous breakpoint hit or the start",
    "Move back until a breakpoint matches an earlier event, or to the start\n"
    "of the run.\n"
    "\nExample:\n"
    "  (shapedb) reverse-continue\n",
    cmd_reverse_continue, REPL_COMPLETE_NONE, NULL, 0, 0, true },
  { "goto", NULL, "running", "goto N|start|end",
    "jump to event N, the start of the run, or its end",
    "Put the cursor right after event N (as `info events` numbers them), at\n"
    "the start of the run, or at its end. Forward jumps run the program as\n"
    "far as needed, ignoring breakpoints.\n"
    "\nExample:\n"
    "  (shapedb) goto 12\n"
    "  (shapedb) goto start\n",
    cmd_goto, REPL_COMPLETE_WORDS, goto_words, 1, 1, false },
  { "kill", NULL, "running", "kill",
    "end the paused program",
    "End the paused program: an error is raised in its own code, so a trace\n"
    "in progress is aborted cleanly. The timeline stays for inspection.\n"
    "\nExample:\n"
    "  (shapedb) kill\n",
    cmd_kill, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};


void dbg_init(repl_session *s) {
  dbg *d = calloc(1, sizeof *d);
  if (!d) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  d->s = s;
  d->co_ref = LUA_NOREF;
  d->live_from = SIZE_MAX;
  d->ev = lsdb_events(s->L);
  d->tl = sdb_timeline_new(d->ev);
  if (!d->tl) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  d->sink = sdb_events_add_sink(d->ev, on_event, d);
  d->cur = d->base = dbg_length(d);
  d->shown = sdb_view_clone(dbg_view(d));
  s->ext = d;
  s->hooks.run = hook_run;
  s->hooks.complete_symbols = hook_complete_symbols;
  s->hooks.loaded = hook_loaded;
  s->hooks.frame_lua = dbg_frame_lua;
  s->hooks.sources_frozen = hook_sources_frozen;
  repl_cmd_register(debug_cmds, sizeof debug_cmds / sizeof debug_cmds[0]);
  dbg_info_init();
  dbg_pictures_init();
  dbg_tutorial_init();
  dbg_ask_init();
  dbg_frames_init();
  dbg_break_init(s);
  dbg_import_init();
  dbg_retrace_init();
  dbg_save_init();
}

void dbg_free(repl_session *s) {
  dbg *d = s ? dbg_of(s) : NULL;
  if (!d) return;
  dbg_tutorial_free();
  dbg_import_free(d);
  dbg_retrace_free();
  dbg_save_free(d);
  free(d->failure);
  release_program(d);
  sdb_events_remove_sink(d->ev, d->sink);
  sdb_timeline_free(d->tl);
  sdb_view_free(d->shown);
  for (size_t i = 0; i < d->nbps; i++) {
    free(d->bps[i].arg);
    dbg_bp_free(&d->bps[i]);
  }
  free(d->bps);
  free(d->stop_bps);
  for (size_t i = 0; i < d->ncollected; i++) free(d->collected[i]);
  free(d->collected);
  free(d->queued);
  free(d->stacks);
  for (size_t i = 0; i < d->ndisplays; i++) free(d->displays[i].what);
  free(d->displays);
  free(d->assumed);
  free(d->asked);
  for (size_t i = 0; i < d->nruns; i++) free(d->runs[i].label);
  free(d->runs);
  free(d->label);
  free(d);
  s->ext = NULL;
}
