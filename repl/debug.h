/*
** debug.h — the debugger: a Lua program run in a coroutine under a cursor
** over its event stream.
**
** The program's events are folded into a timeline (core/view.h) as they
** are emitted; the debugger shows the state at its cursor, a step of that
** timeline, and moves the cursor forwards and backwards. The program runs
** ahead of the cursor only as far as it must: moving past the last event
** recorded resumes the coroutine until an event stops the motion (a step
** count reached, a breakpoint hit), and an event sink then arms a count hook
** that yields at the next Lua instruction of the program's thread (an op
** boundary: C functions cannot be paused, so one op's events arrive
** together and the cursor walks through them without running anything).
**
** Owned by debug.c (engine, breakpoints, stops, running commands) and
** debug_info.c (what is shown: info panels, print, why, assume, explain,
** where, list, display); the struct is shared between the two only.
*/
#ifndef REPL_DEBUG_H
#define REPL_DEBUG_H

#include "repl.h"
#include "view.h"

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

/* Register the debugger's commands and hooks on s (s->ext). */
void dbg_init(repl_session *s);
/* Free the debugger's state (before the session's Lua state is closed). */
void dbg_free(repl_session *s);

/* --- private to debug.c and debug_info.c ----------------------------------- */

typedef enum dbg_bp_kind {
  BP_UNBACKED,   /* create_unbacked_symbol */
  BP_GUARD,      /* guard_added, optionally whose text contains arg */
  BP_PHASE,      /* the phase becomes `phase` */
  BP_OP,         /* the first event of a call of operator arg */
  BP_SYMBOL,     /* an event touching sym (also `watch`) */
  BP_LINE,       /* the first event from file:line */
  BP_ERROR,      /* an error event */
  BP_EVENT       /* any event of kind `event` */
} dbg_bp_kind;

typedef struct dbg_bp {
  int num;
  dbg_bp_kind kind;
  char *arg;              /* guard text, op name, file (owned), or NULL */
  const sdb_expr *sym;    /* BP_SYMBOL */
  int phase;              /* BP_PHASE: sdb_phase */
  int event;              /* BP_EVENT: sdb_event_kind */
  int line;               /* BP_LINE */
  bool enabled, temporary, watch;
  unsigned hits;
  unsigned ignore;        /* crossings to pass silently (`continue N`) */
  char *cond;             /* `break ... if COND`, `condition N COND` (owned), or NULL */
  char **cmds;            /* `commands N`: lines run when it stops (owned) */
  size_t ncmds;
} dbg_bp;

typedef enum dbg_prog {
  PROG_NONE,      /* nothing loaded or the program was killed */
  PROG_READY,     /* a coroutine holds the program, not yet resumed */
  PROG_PAUSED,    /* it yielded at an event boundary */
  PROG_DONE,      /* it returned */
  PROG_FAILED     /* it raised an error */
} dbg_prog;

/* Something shown at every stop (`display`). */
typedef struct dbg_display {
  int num;
  char *what;             /* an info panel ("pending") or an expression */
  bool enabled;
} dbg_display;

typedef struct dbg {
  repl_session *s;
  sdb_events *ev;         /* the stream of s->L's runtime (not owned) */
  int sink;               /* our sink's id on ev */
  sdb_timeline *tl;       /* over ev (owned) */
  size_t fold_noted;      /* 1 + where a Ctrl-C stopped folding ev, once said */
  size_t cur;             /* the cursor: the state after `cur` events */
  size_t base;            /* the step where the current run started */
  unsigned base_compile;  /* compiles before `base` (dbg_base_compile) */
  size_t base_compile_for;/* base + 1 when base_compile is for it, else 0 */
  sdb_view *shown;        /* the state at the last stop, for the diff (owned) */

  /* every live run of the session: where its events start and what ran
  ** (owned), for `info program` */
  struct dbg_run { size_t from, to; char *label; } *runs;   /* to: 0 while it runs */
  size_t nruns, capruns;

  /* the program */
  dbg_prog prog;
  lua_State *co;          /* its thread, anchored in the registry at co_ref */
  int co_ref;
  char *label;            /* what runs: the file's name or "run EXPR" (owned) */
  bool running;           /* inside lua_resume */
  bool print_results;     /* `run EXPR`: print what it returns */
  bool hook_yield;        /* the pause hook made the last yield */
  volatile int interrupts;/* Ctrl-C presses during the current resume */
  bool killing;           /* `kill`: raise in user code until it ends */
  const char *paused_file;/* the user's line where the last pause happened */
  int paused_line;
  size_t live_from;       /* the paused program's frames are live at cursors
                             from here on (SIZE_MAX: not paused) */
  size_t interrupted_at;  /* cursor + 1 of a stop made by Ctrl-C (0: none):
                             there `list` shows the program's line, not the
                             last event's */

  /* the scan for a stop, shared by the engine and the sink */
  int motion;             /* enum in debug.c */
  size_t count;           /* steps left for step/next */
  int level0;             /* the nesting level the motion started at */
  size_t scanned;         /* steps checked so far */
  int prev_phase;         /* phase at step `scanned` */
  size_t stop_at;         /* where to stop, or 0 */
  int stop_bp;            /* breakpoint that stopped it, or 0 */
  int *stop_bps;          /* every breakpoint the stop's event hit, ascending */
  size_t nstop_bps, capstop_bps;
  /* `commands`: the breakpoint whose lines are being read (0: none) and
  ** the breakpoints whose lines wait to run after the current command */
  int collecting;
  char **collected;
  size_t ncollected, capcollected;
  int *queued;
  size_t nqueued, capqueued;
  bool running_cmds;

  /* breakpoints */
  dbg_bp *bps;
  size_t nbps, capbps;
  int next_bp;

  /* the Lua stack at each event of a live run (interned text, or NULL),
  ** indexed by event position */
  const char **stacks;
  size_t nstacks, capstacks;

  /* displays */
  dbg_display *displays;
  size_t ndisplays, capdisplays;
  int next_display;

  /* `assume`: hypothetical facts on top of every probe; `why` questions */
  const sdb_expr **assumed;
  size_t nassumed, capassumed;
  const sdb_expr **asked;
  size_t nasked, capasked;

  /* `replay LOG`: the imported TORCH_TRACE log, or NULL (debug_import.c) */
  struct sdb_tti *import;

  /* a replay (debug_save.c): what `info program` says it is (owned), or
  ** NULL on a live session; the program its events name (owned) */
  char *replay;
  char *replay_program;
  char *failure;           /* the error the last run failed with (owned), or NULL */
  bool replay_at_end;     /* a motion has reached the replay's last event */

  /* `list`: where the next plain `list` continues */
  const char *list_file;
  int list_next;
} dbg;

dbg *dbg_of(repl_session *s);
/* The state at the cursor (valid until the next timeline call). */
const sdb_view *dbg_view(dbg *d);
/* The state at step k, NULL if out of range. */
const sdb_view *dbg_view_at(dbg *d, size_t k);
size_t dbg_length(dbg *d);
/* Print the stop block for the cursor: header, event, source line, what
** changed since the last stop, pending, displays. */
void dbg_show_stop(dbg *d);
/* How many compiles began before the current run: a run's compiles are
** numbered from 1 (sdb_view_compile(v) minus this). It may seek the
** timeline: call it before taking a view, or on a clone. */
unsigned dbg_base_compile(dbg *d);
/* The nesting level of a state: 1 inside a phase, plus the tracer depth. */
int dbg_level(const sdb_view *v);
/* The symbol named by word in the state at the cursor, or NULL with an
** error printed (cmd names the command). */
const sdb_expr *dbg_symbol_arg(dbg *d, const char *cmd, const char *word);
/* Colour helpers: the escape when colour is on for stdout, else "". */
const char *dbg_color(dbg *d, const char *sgr);
const char *dbg_reset(dbg *d);

/* debug_info.c */
void dbg_info_init(void);
/* Show display number n (or all enabled when n < 0) at a stop. */
void dbg_run_displays(dbg *d);
/* Print the source line of a location, gdb style ("6\t  code"); false if
** the file or line is not readable. */
bool dbg_print_source_line(dbg *d, const char *file, int line);
/* A file's name without its directory. */
const char *dbg_basename(const char *path);

/* debug_pictures.c: `dump dot`, `info timeline` */
void dbg_pictures_init(void);
/* `report html DIR`: the HTML report up to the cursor; 0 or -1. */
int dbg_report_html(repl_session *s, const char *dir);

/* debug_tutorial.c: `tutorial`, `answer` */
void dbg_tutorial_init(void);
void dbg_tutorial_free(void);

/* debug_import.c: `replay LOG` of a TORCH_TRACE log, info compiles/records/
** recompiles. dbg_import_open imports PATH (a log, .log.gz, or a directory
** of per-rank logs) into the session's stream; 0 or -1 (error printed).
** dbg_import_graph handles `info graph ID [KIND]` on an imported log and
** dbg_import_explain prints the expression tree of a guard or symbol of
** it: both return 1 when it is not theirs to answer (no log, no such id;
** QUIET: nothing found is not an error). */
void dbg_import_init(void);
/* debug_retrace.c: `retrace [ID]` on an imported log, `info divergences`. */
void dbg_retrace_init(void);
void dbg_retrace_free(void);
void dbg_import_free(dbg *d);
int dbg_import_open(dbg *d, const char *path, long rank);
int dbg_import_graph(dbg *d, const repl_args *a);
int dbg_import_explain(dbg *d, const char *what, bool quiet);

/* debug_save.c: saved traces, and the debugger on events with no program.
**
** Opening the debugger on an event stream that has no program behind it
** (a saved trace, an imported TORCH_TRACE log, a retraced graph) is three
** calls:
**   size_t first = dbg_replay_begin(d);
**     -- ends a live program; the replay's events are those appended to
**        d->ev from position `first` on (sdb_emit_raw keeps their stamps)
**   dbg_replay_stack(d, seq, stack);        -- optional, per event: the Lua
**        stack `where` shows (interned text, "#0  model at model.lua:7")
**   sdb_srcfile_set_text(file, text);       -- optional: the sources that
**        `list` and the stop lines read, for files the events name
**   dbg_replay_open(d, first, &info);       -- the cursor stopped before the
**        first event; `info program` shows info.label; `run` and `kill`
**        say a replay has no program.
** A later `load` or `run LUA` leaves the replay. */
typedef struct dbg_replay_info {
  const char *label;     /* "saved trace run.jsonl (format 1, written ... by shapedb 0.1.0)" */
  const char *program;   /* the program the events came from, or NULL: the
                            default file of `list` and `break LINE` */
  const char *end;       /* how the run ended: "finished", "failed", or NULL
                            (paused or unknown): what the end of the replay says */
  size_t run_from;       /* the run starts this many events after first */
  const char *failure;   /* a failed run's error message, printed where the
                            live run printed it, or NULL */
} dbg_replay_info;
size_t dbg_replay_begin(dbg *d);
void dbg_replay_stack(dbg *d, size_t seq, const char *stack);
int dbg_replay_open(dbg *d, size_t first, const dbg_replay_info *info);
/* `replay FILE` on a saved trace, read from PATH and called NAME (a pipe is
** read from its spooled copy); 0 or -1 (error printed; the events before
** a bad line stay loaded). */
int dbg_replay_trace(dbg *d, const char *path, const char *name);
/* Save the session's events to path (`save`, --record); 0 or -1. */
int dbg_save(dbg *d, const char *path, bool quiet);
/* --record FILE outside the debugger: the events of a script run. */
int dbg_save_stream(sdb_events *ev, const char *program, char **argv, int argc,
                    bool failed, const char *path);
void dbg_save_init(void);
void dbg_save_free(dbg *d);
/* End the live program, if any (debug.c). */
void dbg_kill(dbg *d);
bool dbg_alive(const dbg *d);
/* The program's path: the loaded one, or the one a replay's events name. */
const char *dbg_program(const dbg *d);

/* debug_ask.c: questions about expressions at the cursor */
void dbg_ask_init(void);
/* debug_frames.c: frame, up, down, info locals; print of Lua in the
** selected live frame: 0/-1 when it handled text, 1 when text names no
** variable of that frame (then print is symbolic). */
void dbg_frames_init(void);
/* debug_break.c: breakpoint conditions and command lists (`condition`,
** `commands`): does bp's condition hold at the step of v; free its
** condition and commands; queue its commands after a stop. */
void dbg_break_init(repl_session *s);
bool dbg_bp_condition(dbg *d, const dbg_bp *bp, const sdb_view *v);
void dbg_bp_free(dbg_bp *bp);
void dbg_bp_queue(dbg *d, const dbg_bp *bp);
void dbg_bp_print_extra(const dbg_bp *bp);
/* debug.c: breakpoints by number, removing one, "op nonzero"; is w a
** symbol's name (s0, u12) */
dbg_bp *dbg_bp_find(dbg *d, int num);
void dbg_bp_remove(dbg *d, size_t i);
void dbg_bp_describe(const dbg_bp *bp, char *out, size_t cap);
bool dbg_symbol_shaped(const char *w);
int dbg_frame_print(dbg *d, const char *text);
/* repl_hooks.frame_lua: a Lua expression about the selected frame's
** variables, run there (dbg_frame_print); 1 when the line is not one. */
int dbg_frame_lua(repl_session *s, const char *line);
/* `print TEXT` at the cursor (with the assumptions); 0 or -1. */
int dbg_ask_print(dbg *d, const char *text);
int dbg_ask_display(dbg *d, const char *text);   /* the same, as `display` */

#endif
