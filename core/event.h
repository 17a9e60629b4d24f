/*
** event.h — the event stream. Every change of state in core/ is emitted as
** one typed event, in order. The debugger, the recorder (saved traces) and
** the printers consume the same stream; the state at step k is a fold of
** events 0..k, so every event carries what a reader needs without the
** program (symbols and expressions by value, texts interned).
**
** One generic record serves all kinds; each kind documents which fields it
** uses (below; sym2, text2, range and texts are kept in `more`, tracer and
** location in `site`). An emitter fills in an sdb_event_in; the stream
** keeps, and its readers get, a compact sdb_event. Kind names are stable: they are the names written
** to saved traces and shown in the REPL, PyTorch's structured-log names
** where one exists (create_symbol, create_unbacked_symbol, guard_added,
** symbolic_shape_specialization).
*/
#ifndef SDB_EVENT_H
#define SDB_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "expr.h"
#include "intern.h"
#include "textstore.h"
#include "ranges.h"

typedef enum sdb_phase {
  SDB_PHASE_NONE,
  SDB_PHASE_TRACE,     /* Dynamo-like tracing of the Lua function */
  SDB_PHASE_COND,      /* speculating a cond branch (nested in trace) */
  SDB_PHASE_AOT,       /* aot-compile: fresh fake mode, retrace */
  SDB_PHASE_LOWER,     /* buffers, rebinding, wrapper code */
  SDB_PHASE_GUARDS,    /* install the guard set; later calls check it */
  SDB_PHASE_COUNT
} sdb_phase;

const char *sdb_phase_name(sdb_phase p);     /* "trace", "aot", ... */
int sdb_phase_from_name(const char *name);   /* -1 if unknown */

/* Kinds. The comment lists the fields used besides the common ones. */
typedef enum sdb_event_kind {
  SDB_EV_PHASE_START,        /* text = phase detail */
  SDB_EV_PHASE_END,
  SDB_EV_FAKE_MODE_CREATED,  /* value = mode id, text = "fresh" or reason */
  SDB_EV_EPOCH_BUMPED,       /* value = new epoch */
  SDB_EV_CREATE_SYMBOL,      /* sym, value = hint, range, text = source */
  SDB_EV_CREATE_UNBACKED,    /* sym, range, text = "int"|"bool"|"float",
                                flags = SDB_EVF_SIZE_LIKE if created size-like */
  SDB_EV_SPECIALIZATION,     /* sym (or NULL), expr = value, text = source, detail = reason */
  SDB_EV_PENDING_CHANGED,    /* syms = the pending list after the change */
  SDB_EV_GUARD_ADDED,        /* expr = guard */
  SDB_EV_REPLACEMENT_ADDED,  /* sym -> expr, detail = reason */
  SDB_EV_RUNTIME_ASSERT,     /* expr, sym = key symbol (or NULL), detail = message */
  SDB_EV_RANGE_REFINED,      /* sym, range = new range, detail = why */
  SDB_EV_SIZE_LIKE,          /* sym marked size-like */
  SDB_EV_RENAMED,            /* sym (orig) -> sym2 (new), detail = why */
  SDB_EV_NODE_PLACED,        /* text = node name, detail = node line, value = node id,
                                text2 = the node it went right after (NULL: appended
                                at the end, as the graph's first node is), flags =
                                SDB_EVF_AT_START if it went before every other node */
  SDB_EV_UNBACKED_BINDINGS,  /* text = node name, syms + texts = (symbol, key path) */
  SDB_EV_MEMO_HIT,           /* sym, text = memo kind (nonzero/item/unique) */
  SDB_EV_TRACER_PUSH,        /* text = tracer name, value = depth */
  SDB_EV_TRACER_POP,         /* text = tracer name, value = depth */
  SDB_EV_GRAPH_INPUT,        /* text = placeholder, detail = lifted from, sym if a symbol */
  SDB_EV_SYMBOL_BOUND,       /* sym, text = proxy name in the tracer */
  SDB_EV_COND_OUTPUT_SYMBOL, /* sym, range, detail = why */
  SDB_EV_HOP_CHECK,          /* flags = passed?, detail = what was checked */
  SDB_EV_AUTOGRAD,           /* flags = taken?, detail = why */
  SDB_EV_REFAKIFIED,         /* text = source, detail = metadata */
  SDB_EV_BUFFER_LOWERED,     /* text = buffer name, detail = kind, syms = defines */
  SDB_EV_BINDING_CHECK,      /* flags = passed?, text = node, detail = message */
  SDB_EV_GUARDS_INSTALLED,   /* value = number of guards, detail = guard text */
  SDB_EV_GUARD_CHECK,        /* flags = hit?, detail = reasons */
  SDB_EV_RECOMPILE,          /* detail = reasons */
  SDB_EV_ERROR,              /* text = error kind, detail = message, expr = the
                                undecided condition of a data-dependent error or
                                the failed check's condition (or NULL) */
  SDB_EV_NOTE,               /* detail = free text (graph listings, logs) */
  SDB_EV_NODE_ERASED,        /* text = node name, value = node id, detail = why
                                ("dead code"); same graph as its node_placed */
  SDB_EV_OBLIVIOUS,          /* a guard-free decision (core/decide.h): text = the
                                function (guard_size_oblivious, guard_or_false,
                                statically_known_true, sym_max, ...), expr = its
                                condition or operand, text2 = the result,
                                detail = what was assumed and why; flags =
                                SDB_EVF_GUARDED if a guard was taken */
  SDB_EV_DIVERGENCE,         /* a retrace (core/retrace.h): text = node name, text2 =
                                what differs, detail = both sides */
  SDB_EV_GRAPH_BREAK,        /* Dynamo split the frame (an imported log's
                                dynamo_graph_break_reason): text = the reason's
                                first line ("Data-dependent branching"),
                                detail = the whole reason */
  SDB_EV_COUNT
} sdb_event_kind;

/* create_unbacked_symbol's flag: the symbol is size-like from birth
** (nonzero's count), with no separate size_like event. */
#define SDB_EVF_SIZE_LIKE 1
/* create_symbol's flags: 1 = not a creation (a new source of a symbol
** that exists, or a symbol an imported log only mentions); with
** SDB_EVF_NO_HINT too, the symbol was only mentioned and has no hint (an
** imported TORCH_TRACE log, core/torch_trace_import.h). */
#define SDB_EVF_NOT_CREATED 1
#define SDB_EVF_NO_HINT 2
/* node_placed's flag: inserted at the front of a graph that had nodes
** (a lifted symbol placeholder going before the tensor ones). */
#define SDB_EVF_AT_START 1
/* oblivious's flag: the decision took a guard (on hints) */
#define SDB_EVF_GUARDED 1

const char *sdb_event_name(sdb_event_kind k);     /* stable snake_case name */
int sdb_event_from_name(const char *name);        /* -1 if unknown */

/* Where an event was emitted: the tracer and the user's line. A program
** emits from few of them (a 10k-op model: 42 sites for 40k events), so an
** event points at one, interned, rather than holding the five fields. */
typedef struct sdb_site {
  const char *tracer;       /* tracer path, e.g. "trace > cond.true_branch" */
  const char *file;         /* user Lua location (interned), or NULL */
  const char *func;         /* user function name, or NULL */
  int32_t depth;            /* tracer depth at emission (0 = top) */
  int32_t line;             /* of file */
  uint32_t id;              /* what an event keeps: 0 is the site with no fields */
} sdb_site;

/* The sites by id (sdb_event_site reads them for every event it is asked
** about, so they are public); sdb_no_site is id 0. */
extern const sdb_site *const *sdb_site_table_;
extern const sdb_site sdb_no_site;

/* The one site with these fields (strings are interned here); never NULL:
** out of memory gives the site with no fields (and is noted: sdb_noted,
** err.h). Sites live as long as the
** process, as interned strings do (sdb_sites_reset drops them). */
const sdb_site *sdb_site_get(const char *tracer, int depth, const char *file, int line,
                             const char *func);
void sdb_sites_reset(void);

/* Fields that few kinds use (a fifth of the events of a long run): kept
** apart, so the common event (a placed node appended at the end, a
** lowered buffer) is 48 bytes, not 144. An emitter points `more` at its
** own (this struct, `packed_` zero); the stream keeps a packed copy of the
** fields set only (none when none is), read through the accessors below
** whichever it is: a range alone is 24 bytes, a set of symbols 16. */
typedef struct sdb_event_more {
  uint8_t packed_;          /* 0 here; the stream's copy: which fields follow */
  bool has_range;           /* range is set */
  uint32_t nsyms;           /* of syms (and texts) */
  const sdb_expr *sym;      /* the symbol (created, bound, refined, replaced, renamed) */
  const sdb_expr *expr;     /* a guard's or an assert's expression, a replacement's target, a
                               specialization's value, an error's condition, a decision's operand */
  const sdb_expr *sym2;     /* a second sym (renamed: the new symbol) */
  const char *text2;        /* a second text, as sym2 is a second sym (interned) */
  const sdb_expr **syms;    /* a set of symbols (pending, bound, defined) */
  const char **texts;       /* parallel to syms, may be NULL */
  sdb_range range;
} sdb_event_more;

/* The stream's copy: packed_ (never 0) says which fields follow the
** 8-byte head, in this order, each a word (a range two); is_bool is the
** range's. The symbol first, the field read most (a goto folds every
** symbol event): its word is always the first. */
enum {
  SDB_MORE_PACKED = 1, SDB_MORE_SYM = 2, SDB_MORE_EXPR = 4, SDB_MORE_SYM2 = 8,
  SDB_MORE_TEXT2 = 16, SDB_MORE_RANGE = 32, SDB_MORE_SYMS = 64, SDB_MORE_TEXTS = 128,
  SDB_MORE_END = 256          /* past the last */
};
typedef struct sdb_more_head {
  uint8_t packed_;
  bool is_bool;
  uint32_t nsyms;
} sdb_more_head;

/* What an emitter fills in and hands to sdb_emit: texts as pointers (the
** stream interns them, or copies a placed node's line), the rarer fields
** as the emitter's own struct. */
typedef struct sdb_event_in {
  uint32_t seq;             /* sdb_emit_raw's (a saved trace read back); else filled in */
  uint32_t site_;           /* sdb_emit_raw's (sdb_event_set_site); else filled in */
  uint8_t kind;             /* sdb_event_kind */
  uint8_t phase;            /* sdb_emit_raw's; else filled in */
  uint8_t flags;            /* kind-specific */
  bool op_first;            /* sdb_emit_raw's; else filled in */
  sdb_iref op_;             /* sdb_emit_raw's (sdb_event_set_op); else filled in */
  int64_t value;
  const char *text;
  const char *detail;
  const sdb_event_more *more;  /* the rarer fields, or NULL: none set */
} sdb_event_in;

/* What the stream keeps, and what its readers get: fields ordered so the
** small ones share a word (a stream holds millions). The site, the op,
** the text, the detail and the rarer fields are 32-bit names of what
** they point to, read through sdb_event_site, sdb_event_op,
** sdb_event_text, sdb_event_detail and sdb_event_sym & co; the value is
** two words (sdb_event_value), so nothing needs 8-byte alignment: 36
** bytes, not 56. */
typedef struct sdb_event {
  uint32_t seq;             /* position in the stream, from 0 */
  uint32_t site_;           /* tracer and location: a site's id (sdb_event_site) */
  uint8_t kind;             /* sdb_event_kind */
  uint8_t phase;            /* sdb_phase at emission */
  uint8_t flags;            /* kind-specific */
  bool op_first;            /* the first event of its op's call (two calls
                               of one op on one line are two calls) */
  sdb_iref op_;             /* operator being run, or 0 (sdb_event_op) */
  sdb_iref text_;           /* interned (sdb_event_text) */
  uint32_t detail_;         /* interned, or the stream's copy (sdb_event_detail) */
  sdb_tref more_;           /* the rarer fields, packed, or 0: none set (sdb_event_more_of) */
  uint32_t value_[2];       /* an int64_t (sdb_event_value) */
} sdb_event;

static inline int64_t sdb_event_value(const sdb_event *e) {
  int64_t v;
  memcpy(&v, e->value_, sizeof v);
  return v;
}

/* Which fields a packed copy holds (0: an emitter's struct). Read as a
** byte: a packed copy is an sdb_more_head and its words, not the struct. */
static inline unsigned sdb_more_packed(const sdb_event_more *m) { return *(const uint8_t *)m; }

/* Words taken by the fields of `has` below bit (a range takes two):
** where a field of a packed copy is, and (bit past the last) its size. */
static inline size_t sdb_more_words(unsigned has, unsigned bit) {
  unsigned b = has & (bit - 1);   /* a bit test each, no loop: this runs for every field read */
  return (size_t)(!!(b & SDB_MORE_SYM) + !!(b & SDB_MORE_EXPR) + !!(b & SDB_MORE_SYM2) +
                  !!(b & SDB_MORE_TEXT2) + 2 * !!(b & SDB_MORE_RANGE) + !!(b & SDB_MORE_SYMS) +
                  !!(b & SDB_MORE_TEXTS));
}

/* Where a field of a packed copy is (its bit must be set). */
static inline const void *sdb_more_at(const sdb_event_more *m, unsigned bit) {
  return (const char *)m + sizeof(sdb_more_head) + sdb_more_words(sdb_more_packed(m), bit) * sizeof(void *);
}

/* A one-word field of a packed copy, or NULL when it holds none. */
static inline const void *sdb_more_word(const sdb_event_more *m, unsigned bit) {
  const void *w = NULL;
  if (sdb_more_packed(m) & bit) memcpy(&w, sdb_more_at(m, bit), sizeof w);
  return w;
}

/* Where the event was emitted: never NULL (the site with no fields). */
static inline const sdb_site *sdb_event_site(const sdb_event *e) {
  return e->site_ ? sdb_site_table_[e->site_] : &sdb_no_site;
}
/* The operator being run, or NULL (interned). */
static inline const char *sdb_event_op(const sdb_event *e) { return sdb_iref_str(e->op_); }
/* For an emitter that sets them itself (a saved trace read back, an
** imported log): x NULL is the site with no fields, op is interned. */
static inline void sdb_event_set_site(sdb_event_in *e, const sdb_site *x) {
  e->site_ = x ? x->id : 0;
}
static inline void sdb_event_set_op(sdb_event_in *e, const char *op) {
  e->op_ = sdb_intern_ref(op);
}

/* The rarer fields, read through these (NULL, no range, no symbols, no
** texts when the event has none), from an emitter's struct or the
** stream's packed copy alike: sdb_more_sym(in.more) of an emitter's
** event, sdb_event_sym(e) of a stream's. */
static inline const sdb_expr *sdb_more_sym(const sdb_event_more *m) {
  return !m ? NULL : sdb_more_packed(m) ? sdb_more_word(m, SDB_MORE_SYM) : m->sym;
}
static inline const sdb_expr *sdb_more_expr(const sdb_event_more *m) {
  return !m ? NULL : sdb_more_packed(m) ? sdb_more_word(m, SDB_MORE_EXPR) : m->expr;
}
static inline const sdb_expr *sdb_more_sym2(const sdb_event_more *m) {
  return !m ? NULL : sdb_more_packed(m) ? sdb_more_word(m, SDB_MORE_SYM2) : m->sym2;
}
static inline bool sdb_more_has_range(const sdb_event_more *m) {
  if (!m) return false;
  unsigned p = sdb_more_packed(m);
  return p ? (p & SDB_MORE_RANGE) != 0 : m->has_range;
}
static inline sdb_range sdb_more_range(const sdb_event_more *m) {
  if (!m) return sdb_range_make(0, 0);
  unsigned p = sdb_more_packed(m);
  if (!p) return m->range;
  if (!(p & SDB_MORE_RANGE)) return sdb_range_make(0, 0);
  int64_t w[2];
  memcpy(w, sdb_more_at(m, SDB_MORE_RANGE), sizeof w);
  sdb_range r = sdb_range_make(w[0], w[1]);
  r.is_bool = ((const sdb_more_head *)(const void *)m)->is_bool;
  return r;
}
static inline const char *sdb_more_text2(const sdb_event_more *m) {
  return !m ? NULL : sdb_more_packed(m) ? sdb_more_word(m, SDB_MORE_TEXT2) : m->text2;
}
static inline uint32_t sdb_more_nsyms(const sdb_event_more *m) {
  if (!m) return 0;
  unsigned p = sdb_more_packed(m);
  if (!p) return m->syms ? m->nsyms : 0;
  return p & SDB_MORE_SYMS ? ((const sdb_more_head *)(const void *)m)->nsyms : 0;
}
static inline const sdb_expr *const *sdb_more_syms(const sdb_event_more *m) {
  if (!sdb_more_nsyms(m)) return NULL;
  return sdb_more_packed(m) ? sdb_more_word(m, SDB_MORE_SYMS) : m->syms;
}
static inline const char **sdb_more_texts(const sdb_event_more *m) {
  if (!sdb_more_nsyms(m)) return NULL;
  return sdb_more_packed(m) ? (const char **)sdb_more_word(m, SDB_MORE_TEXTS) : m->texts;
}


/* The same, of a stream's event. */
static inline const sdb_event_more *sdb_event_more_of(const sdb_event *e) {
  return (const sdb_event_more *)sdb_tref_ptr(e->more_);
}
static inline const sdb_expr *sdb_event_sym(const sdb_event *e) {
  return sdb_more_sym(sdb_event_more_of(e));
}
static inline const sdb_expr *sdb_event_expr(const sdb_event *e) {
  return sdb_more_expr(sdb_event_more_of(e));
}
static inline const sdb_expr *sdb_event_sym2(const sdb_event *e) {
  return sdb_more_sym2(sdb_event_more_of(e));
}
static inline bool sdb_event_has_range(const sdb_event *e) {
  return sdb_more_has_range(sdb_event_more_of(e));
}
static inline sdb_range sdb_event_range(const sdb_event *e) {
  return sdb_more_range(sdb_event_more_of(e));
}
static inline const char *sdb_event_text2(const sdb_event *e) {
  return sdb_more_text2(sdb_event_more_of(e));
}
static inline uint32_t sdb_event_nsyms(const sdb_event *e) {
  return sdb_more_nsyms(sdb_event_more_of(e));
}
static inline const sdb_expr *const *sdb_event_syms(const sdb_event *e) {
  return sdb_more_syms(sdb_event_more_of(e));
}
static inline const char **sdb_event_texts(const sdb_event *e) {
  return sdb_more_texts(sdb_event_more_of(e));
}

/* Does an event of kind k own its detail (a placed node's line, a lowered
** buffer's kind and origin: unique to their event, so the stream keeps a
** copy rather than interning it) rather than share an interned string?
** Compare those by text. */
static inline bool sdb_event_kind_owns_detail(unsigned k) {
  return k == SDB_EV_NODE_PLACED || k == SDB_EV_BUFFER_LOWERED;
}
static inline bool sdb_event_owns_detail(const sdb_event *e) {
  return sdb_event_kind_owns_detail(e->kind);
}

/* The event's text and detail (NULL when it has none). */
static inline const char *sdb_event_text(const sdb_event *e) { return sdb_iref_str(e->text_); }
static inline const char *sdb_event_detail(const sdb_event *e) {
  return sdb_event_owns_detail(e) ? sdb_tref_str(e->detail_) : sdb_iref_str(e->detail_);
}
/* The same for a reader that goes through a stream once (writing a saved
** trace): a placed node's line lasts only until the next such call, and
** reading it leaves the stream's lines compressed (textstore.h). */
static inline const char *sdb_event_detail_once(const sdb_event *e) {
  return sdb_event_owns_detail(e) ? sdb_tref_peek(e->detail_) : sdb_iref_str(e->detail_);
}

/* *out made from *in: its strings interned, an owned detail copied into
** texts, its rarer fields packed into blocks (a store of blocks,
** textstore.h). false on OOM (*out is then half made: its owner drops
** it). */
bool sdb_event_store(sdb_event *out, const sdb_event_in *in, sdb_tstore *texts,
                     sdb_tstore *blocks);
/* An emitter's struct with e's fields (its rarer fields still e's), to
** store again elsewhere (sdb_event_store) or emit again (sdb_emit_raw). */
sdb_event_in sdb_event_unpack(const sdb_event *e);

/* Where user code is: filled in by the front end (the Lua layer walks its
** stack for the innermost frame of the user's program). */
typedef struct sdb_loc {
  const char *file;   /* interned */
  int line;
  const char *func;   /* interned, may be NULL */
} sdb_loc;
typedef bool (*sdb_locate_fn)(void *ud, sdb_loc *out);

/* A consumer of events; called after the event is appended. */
typedef void (*sdb_sink_fn)(void *ud, const sdb_event *ev);

typedef struct sdb_events sdb_events;

sdb_events *sdb_events_new(void);
void sdb_events_free(sdb_events *s);

/* Emission context, stamped on every event. */
void sdb_events_set_phase(sdb_events *s, sdb_phase p);
sdb_phase sdb_events_phase(const sdb_events *s);
void sdb_events_set_locator(sdb_events *s, sdb_locate_fn fn, void *ud);
bool sdb_events_locate(sdb_events *s, sdb_loc *out);
/* While a later phase replays a node (aot, lowering), events are located
** at the user's line that made the node, not where the phase was called
** (a stack: subgraphs nest). A loc with no file changes nothing. */
void sdb_events_push_loc(sdb_events *s, const sdb_loc *loc);
void sdb_events_pop_loc(sdb_events *s);
/* The operator now running (a stack: ops call ops). */
void sdb_events_push_op(sdb_events *s, const char *op);
/* The same by the name's reference (a node's name_ref: the later phases
** push one per node they run, long after the name was interned). */
void sdb_events_push_op_ref(sdb_events *s, sdb_iref op);
void sdb_events_pop_op(sdb_events *s);
const char *sdb_events_op(const sdb_events *s);
/* The tracer path and depth (maintained by core/tracer). */
void sdb_events_set_tracer(sdb_events *s, const char *path, int depth);
/* The tracer path now stamped (NULL for a NULL stream) and its depth. */
const char *sdb_events_tracer(const sdb_events *s, int *depth);

/* Append a copy of *ev (seq, phase, location, op and tracer are filled in;
** syms/texts are copied), then call the sinks. Returns the new seq, or -1
** on OOM. A NULL stream accepts and drops events. */
long sdb_emit(sdb_events *s, const sdb_event_in *ev);
/* Same, at loc (NULL: nowhere) instead of where the locator says (an
** error reported after the stack that raised it has unwound). */
long sdb_emit_at(sdb_events *s, const sdb_event_in *ev, const sdb_loc *loc);
/* Same, keeping the location already set in ev (replaying a saved trace). */
long sdb_emit_raw(sdb_events *s, const sdb_event_in *ev);

size_t sdb_events_count(const sdb_events *s);
/* Events the stream could not append, or could only place nowhere, for
** want of memory (a program that ran out of memory mid-way has a history
** with holes; a saved trace of it is refused). Events dropped past the
** cap (sdb_events_set_max) are not counted: the program is stopped there. */
size_t sdb_events_lost(const sdb_events *s);
/* An emitter's event is one less, or lacks a text it should have, for
** want of memory: counted as lost. */
void sdb_events_note_lost(sdb_events *s);
/* Does the stream mark op calls' first events (op_first)? Saved traces
** written before the mark have none. */
bool sdb_events_marks_op_calls(const sdb_events *s);
/* A cap on the events a program may record (0: none). Past it, the front
** end stops the program (sdb_events_full); a little room is kept beyond it
** for the events that stopping makes, then new events are dropped. */
void sdb_events_set_max(sdb_events *s, size_t max);
bool sdb_events_full(const sdb_events *s);
const sdb_event *sdb_events_at(const sdb_events *s, size_t i);

int sdb_events_add_sink(sdb_events *s, sdb_sink_fn fn, void *ud);  /* id */
void sdb_events_remove_sink(sdb_events *s, int id);

/* One line describing an event, as the batch log and the REPL print it:
** "trace  nonzero.lua:2  create_unbacked_symbol u0 [-int_oo, int_oo]".
** Returns a malloc'ed string. */
char *sdb_event_format(const sdb_event *ev);
/* The same without phase and location columns. */
char *sdb_event_summary(const sdb_event *ev);

#endif
