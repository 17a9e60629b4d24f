/*
** view.h — the debugger's state at any step, as a fold of the event stream.
**
** The state shown at step k is what the events [0, k) say: the phase and
** tracer stack, the pending fresh unbacked symbols, every symbol with its
** life (created, pending, bound, lifted, renamed, defined by a buffer, in
** which guards and asserts), the guards, runtime asserts, replacements,
** graph nodes and buffers. It is computed only from sdb_event records,
** never from a live ShapeEnv, so a saved trace replays with the same code.
**
** How: a view folds events into a history that is indexed by position —
** append-only logs of event positions per kind, per symbol and per graph,
** persistent (linked, immutable) phase and tracer stacks, and one small
** context record per event. The state at step k is then the prefix of each
** log below k, found by binary search. So a view is a (history, step)
** cursor: seeking anywhere is O(1), every event is its own checkpoint, and
** stepping backwards is as exact as stepping forwards. Clones share the
** history (reference-counted); applying to a view whose step is behind its
** history either follows the history (the same event) or forks a private
** copy (a different one).
**
** Compiles: each top-level `phase_start trace` (one not nested in another
** trace phase) starts a new ShapeEnv, whose symbols are numbered from s0/u0
** again. The per-ShapeEnv state (symbols, pending, guards, asserts,
** replacements, graphs, buffers, ...) is that of the current compile; the
** kinds listed under sdb_view_count as global (phases, guards installed,
** guard checks, recompiles, errors, notes) span all compiles. Events before
** any trace phase (a stream driven without phases) form compile 0.
**
** Ownership: a view owns nothing it hands out. Events, strings and arrays
** returned by the queries belong to the history and stay valid, at the
** same address, for as long as any view sharing that history lives (they
** are never moved or freed while it grows). Expressions and strings are
** interned (expr.h, intern.h) and outlive every view. The texts
** (sdb_view_status, _explain, _diff) are malloc'ed; the caller frees them.
** A view copies what it needs from each event, so the events passed to
** sdb_view_apply may be freed afterwards. Single-threaded.
*/
#ifndef SDB_VIEW_H
#define SDB_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "expr.h"
#include "ranges.h"

typedef struct sdb_view sdb_view;

/* --- folding --------------------------------------------------------------- */

sdb_view *sdb_view_new(void);                    /* empty, step 0; NULL on OOM */
void sdb_view_free(sdb_view *v);                 /* NULL is a no-op */
/* Back to step 0. The history is kept: applying the same events again
** follows it at no cost; a different event forks a fresh copy. */
void sdb_view_reset(sdb_view *v);
/* Fold one event: the view moves to step + 1. 0, or -1 on OOM; the view is
** then unchanged and applying again is safe (it folds into a fresh copy of
** the history, since the old one may hold part of the failed event). */
int sdb_view_apply(sdb_view *v, const sdb_event *e);
/* A second cursor on the same history and step (O(1)); NULL on OOM. */
sdb_view *sdb_view_clone(const sdb_view *v);

size_t sdb_view_step(const sdb_view *v);         /* events applied: the state is after them */
size_t sdb_view_length(const sdb_view *v);       /* events the history holds (>= step) */
/* Move to step k <= sdb_view_length(v) (backwards or forwards along the
** history, O(1)). false if k is out of range. */
bool sdb_view_seek(sdb_view *v, size_t k);
/* The i-th event of the history (i < length), or NULL. */
const sdb_event *sdb_view_event_at(const sdb_view *v, size_t i);

/* --- where we are ------------------------------------------------------------ */

/* The current event: the last one applied (NULL at step 0). Its file, line,
** func and op are the location to show. */
const sdb_event *sdb_view_event(const sdb_view *v);
/* The phase of the innermost phase_start not yet ended. cond speculation
** emits no phase_start, so inside a trace phase an event stamped `cond`
** makes it SDB_PHASE_COND. Outside every phase it is the current event's
** stamp (a guard_check runs in `guards`), SDB_PHASE_NONE right after a
** phase_end or before any event. */
sdb_phase sdb_view_phase(const sdb_view *v);
/* The text of that phase_start ("model", "aot_autograd", "inductor"), or NULL. */
const char *sdb_view_phase_text(const sdb_view *v);
/* The tracer stack from tracer_push/tracer_pop: the innermost path
** ("trace > cond.true_branch") and its depth (0 = the root tracer), or NULL
** and -1 when no tracer is active (before tracing, and after the trace
** phase of the compile ended: aot and lower run no Dynamo tracer). */
const char *sdb_view_tracer(const sdb_view *v);
int sdb_view_depth(const sdb_view *v);
/* The key of the innermost tracer's graph (sdb_view_graph_at's names): its
** path, or for a later body at the same path, "PATH #N". */
const char *sdb_view_tracer_graph(const sdb_view *v);
/* The compile: how many top-level trace phases have started (0: none). */
unsigned sdb_view_compile(const sdb_view *v);

/* --- events by kind -------------------------------------------------------- */

/* The events of kind k applied so far, in order. For the kinds that belong
** to a ShapeEnv this is the current compile only; SDB_EV_PHASE_START,
** _PHASE_END, _GUARDS_INSTALLED, _GUARD_CHECK, _RECOMPILE, _ERROR and _NOTE
** count across all compiles. The event records carry every field event.h
** documents: guards (expr, phase, file:line, seq), runtime asserts (expr,
** key sym, message in detail), renamings (sym -> sym2, detail),
** specializations, unbacked bindings, buffers (text, detail, syms),
** binding checks, errors (text = kind, detail = message), notes. */
size_t sdb_view_count(const sdb_view *v, sdb_event_kind k);
const sdb_event *sdb_view_at(const sdb_view *v, sdb_event_kind k, size_t i);
bool sdb_view_kind_is_global(sdb_event_kind k);

/* The pending fresh unbacked symbols (the list of the last pending_changed
** of this compile); *out points into the history (NULL when empty). */
size_t sdb_view_pending(const sdb_view *v, const sdb_expr *const **out);

/* Replacements in force: the latest replacement_added of each symbol, in
** the order symbols were first replaced (as the ShapeEnv's dict keeps
** them). The event says sym -> expr, reason in detail. */
size_t sdb_view_replacement_count(const sdb_view *v);
const sdb_event *sdb_view_replacement_at(const sdb_view *v, size_t i);

/* The guard texts of the latest guards_installed (its detail, one guard
** per line); *out points into the history. 0 before any. */
size_t sdb_view_installed_guards(const sdb_view *v, const char *const **out);

/* --- symbols -------------------------------------------------------------- */

/* A symbol as it stands at the view's step. */
typedef struct sdb_view_sym {
  const sdb_expr *sym;
  bool created;               /* a create event was seen (else only mentioned) */
  bool unbacked;              /* from the create event; mentioned only: u/zuf prefix */
  const char *type;           /* "int", "bool", "float" (interned) */
  bool has_hint;
  int64_t hint;               /* backed symbols: the hint it was created with */
  const char *source;         /* backed: the canonical (first) source, or NULL */
  size_t nsources;            /* sources so far (duck sizing adds some) */
  bool has_range;
  sdb_range range;            /* the latest range (create, range_refined, cond output) */
  bool size_like;             /* a size_like event was seen */
  bool pending;               /* in the pending list now */
  const sdb_expr *replacement; /* the replacement in force, or NULL */
  const sdb_event *creation;  /* the create event, or NULL */
  const sdb_event *binding;   /* the first unbacked_bindings naming it, or NULL */
  const char *keypath;        /* its key path there ("" for item()), or NULL */
  size_t nevents;             /* events touching it so far (sdb_view_symbol_event) */
} sdb_view_sym;

/* Symbols of the current compile seen so far (created or mentioned by any
** event), in the order first seen. */
size_t sdb_view_symbol_count(const sdb_view *v);
const sdb_expr *sdb_view_symbol_at(const sdb_view *v, size_t i);
/* Fill *out for sym; false when the current compile has not seen it yet. */
bool sdb_view_symbol(const sdb_view *v, const sdb_expr *sym, sdb_view_sym *out);
/* The i-th event touching sym (i < nevents), in order: its creation or a
** new source, a pending_changed that added or removed it, range_refined,
** size_like, unbacked_bindings, symbol_bound, graph_input_created,
** replacement_added of it, renamed (from or to it), guards and runtime
** asserts whose expression mentions it, specialization, memo_hit,
** cond_output_symbol, buffer_lowered defining it. */
const sdb_event *sdb_view_symbol_event(const sdb_view *v, const sdb_expr *sym, size_t i);
/* Does the current event touch sym in that sense (`break symbol u0`)? */
bool sdb_view_touches(const sdb_view *v, const sdb_expr *sym);

/* --- graphs ----------------------------------------------------------------- */

/* Graphs of the current compile that have had nodes, in order of their
** first node. The key is the tracer path for nodes placed while tracing
** ("trace", "trace > cond.true_branch"; the second cond's body at the same
** path is "trace > cond.true_branch #2", and a body nested in it
** "trace > cond.true_branch #2 > cond.true_branch") and the phase name for nodes
** placed by later phases ("aot"). */
size_t sdb_view_graph_count(const sdb_view *v);
const char *sdb_view_graph_at(const sdb_view *v, size_t i);

typedef struct sdb_view_node {
  const char *name;           /* node name (interned) */
  int64_t id;                 /* node id (event value) */
  const sdb_event *placed;    /* the node_placed event */
  const sdb_event *bindings;  /* its unbacked_bindings, or NULL (not yet / none) */
} sdb_view_node;

/* The node's line, the node_placed detail: `nonzero: "i64[u0, 2]" = ...`.
** Read only where it is shown: the stream keeps lines compressed until
** one is read (core/textstore.h). */
static inline const char *sdb_view_node_line(const sdb_view_node *n) {
  return sdb_event_detail(n->placed);
}

/* The nodes of a graph as it stands at the view's step: in graph order (a
** node_placed with an anchor goes right after that node, as the deferred
** runtime asserts go after the node binding their symbol) and without the
** nodes a node_erased removed (DCE) before the step; seeking back before
** the erasure shows them again. An anchor the graph never had reads as the
** end. Each call walks the graph's nodes: O(nodes placed in it). */
size_t sdb_view_node_count(const sdb_view *v, const char *graph);
bool sdb_view_node_at(const sdb_view *v, const char *graph, size_t i, sdb_view_node *out);
/* A placed node's line (or a symbol's name) under the names the symbols go
** by at the view's step: a line is kept as it was printed when the node
** was placed, and a later renaming (the aot retrace's u2 -> u0) would
** leave it with the old name, where PyTorch's graph prints the new one.
** malloc'ed, or NULL when nothing in it was renamed (or on OOM). */
char *sdb_view_renamed(const sdb_view *v, const char *text);
/* The same for many texts (a graph's lines): the renamings at the step
** folded once into a map, old name -> the name it goes by (renaming word
** by word against every renaming made a 100k-op graph listing take
** minutes). NULL when nothing was renamed, or on OOM. */
typedef struct sdb_view_renames sdb_view_renames;
sdb_view_renames *sdb_view_renames_new(const sdb_view *v);
char *sdb_view_renames_apply(const sdb_view_renames *r, const char *text);  /* as above */
void sdb_view_renames_free(sdb_view_renames *r);   /* NULL is a no-op */

/* --- texts the REPL prints (malloc'ed; NULL only on OOM) -------------------- */

/* The compact status, four lines:
**   step 12, event 11: trace  nonzero.lua:6     pending_changed {}
**   phase trace, tracer trace > cond.true_branch, compile 1
**   pending: {u0}
**   symbols 3 (1 unbacked), guards 1, runtime asserts 1, replacements 0, bindings 1
** At step 0 the first line is "step 0: no events". "tracer -" when no
** tracer is active. */
char *sdb_view_status(const sdb_view *v);

/* The life of a symbol up to the view's step: a header, then one line per
** event touching it, in event order (see the formats in view.c's header).
**   u0: unbacked int, created by nonzero at nonzero.lua:6 in model (trace phase, event 7), range [0, 10]
**     pending from event 8 until node nonzero (event 11)
**     bound at %nonzero: .size()[0] (trace phase, event 10)
**     size-like (event 12)
**     in runtime assert u0 >= 0 (trace phase, nonzero.lua:7, event 13)
**     renamed: u1 -> u0 (aot retrace, event 40)
**     defined by buf1 (MultiOutput for nonzero, event 60)
** An unknown symbol gives "u9: not seen at this step\n". */
char *sdb_view_explain(const sdb_view *v, const sdb_expr *sym);

/* What changed from a to b, one line per change ("" when nothing did):
** phase, tracer, compile and pending as `what: before -> after`, then one
** line per event between the two steps that matters at a stop (new
** symbols, bindings, guards, runtime asserts, replacements, renamings,
** specializations, size-like, range changes, buffers defining symbols,
** binding checks, guards installed, guard checks, recompiles, errors).
** When b is before a the event lines are prefixed "undo ". a and b should
** be views of the same stream (clones or seeks of one history). */
char *sdb_view_diff(const sdb_view *a, const sdb_view *b);
/* The same, writing lines only until the text holds max of them; the
** lines left out are counted into *more (NULL: not counted). */
char *sdb_view_diff_n(const sdb_view *a, const sdb_view *b, size_t max, size_t *more);

/* --- a cursor over an event stream ------------------------------------------- */

/* Follows a stream that may still grow (a live run): each call folds the
** events appended since the last one, then positions a cursor. The stream
** must outlive the timeline and every view taken from it: their history
** points at the stream's events rather than copying them. */
typedef struct sdb_timeline sdb_timeline;

sdb_timeline *sdb_timeline_new(const sdb_events *s);   /* NULL on OOM */
void sdb_timeline_free(sdb_timeline *t);               /* NULL is a no-op */
/* Events in the stream (folding any new ones); on OOM, or when Ctrl-C
** (cancel.h) stopped the folding, those folded so far. */
size_t sdb_timeline_length(sdb_timeline *t);
/* The state after the first k events, valid until the next call on t
** (clone it to keep it). NULL when k > length, or on OOM. */
const sdb_view *sdb_timeline_seek(sdb_timeline *t, size_t k);

#endif
