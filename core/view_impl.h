/*
** view_impl.h — the view's history (the store every view of a stream
** shares), for the files that implement the view (view.c, view_diff.c);
** nothing else includes this.
*/
#ifndef SDB_VIEW_IMPL_H
#define SDB_VIEW_IMPL_H

#include "view.h"
#include "arena.h"
#include "buf.h"
#include "map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NONE UINT32_MAX
#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)

/* --- small vectors ----------------------------------------------------------- */

typedef struct { uint32_t *v; size_t n, cap; } u32vec;

/* First index whose value is >= x (values ascending). */
static inline size_t lower_bound(const uint32_t *a, size_t n, uint32_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The last value below x, or NONE. */
static inline uint32_t last_below(const u32vec *a, uint32_t x) {
  size_t i = lower_bound(a->v, a->n, x);
  return i ? a->v[i - 1] : NONE;
}

/* --- the history ------------------------------------------------------------ */

typedef struct { uint8_t phase; const char *text; int32_t parent; } phase_node;
/* key: the graph its nodes go into. A tracer path names every instance
** of a body ("trace > cond.true_branch" for each cond at that level), so
** the second instance's graph is "... > cond.true_branch #2", and bodies
** nested in it hang under that key. */
typedef struct { const char *path; int32_t depth; int32_t parent; const char *key; } tracer_node;

/* What holds after the event at a position. */
typedef struct ctx {
  int32_t phase_top, tracer_top;   /* -1: empty stack */
  uint32_t pending;                /* pos of the pending_changed in force, or NONE */
  uint32_t compile;
} ctx;

typedef struct symrec {
  const sdb_expr *sym;
  uint32_t first;       /* pos first seen */
  uint32_t created;     /* pos of its create event, or NONE */
  uint32_t size_like;   /* pos of its first size_like, or NONE */
  uint32_t bound;       /* pos of the first unbacked_bindings naming it, or NONE */
  uint32_t first_repl;  /* pos of its first replacement, or NONE */
  u32vec events;        /* positions of the events touching it */
  u32vec ranges;        /* ... that set its range */
  u32vec repls;         /* ... replacement_added of it */
  u32vec sources;       /* ... create_symbol naming a source for it */
} symrec;

/* A graph's nodes in placement order, threaded on a list in graph order.
** Inserting never reorders the nodes already there, so the order of every
** node ever placed, restricted to those placed and not yet erased at step
** k, is the graph's order at step k: one list serves every step. */
typedef struct {
  uint32_t pos;         /* its node_placed */
  uint32_t bind;        /* its unbacked_bindings, or NONE */
  uint32_t erased;      /* its node_erased, or NONE */
  uint32_t next;        /* the next node in graph order, or NONE */
} noderec;

typedef struct graphrec {
  const char *key;
  uint32_t first;
  noderec *nodes;
  size_t n, cap;
  uint32_t head, tail;  /* of the graph-order list, NONE when empty */
  sdb_map names;        /* node name -> index + 1 (the latest of that name) */
  sdb_map ids;          /* node id + 1 -> index + 1 */
} graphrec;

typedef struct compile {
  uint32_t start;       /* pos of its phase_start (0 for compile 0) */
  uint32_t sym_lo;      /* its first symbol record */
  sdb_map syms;         /* sdb_expr* -> symbol record index + 1 */
  u32vec repl_order;    /* symbol records, in the order first replaced */
  graphrec *graphs;
  size_t ngraphs, capgraphs;
  sdb_map graph_ix;     /* key -> graph index + 1 */
  sdb_map tracer_seen;  /* tracer graph key without "#N" -> instances so far */
} compile;

typedef struct installed { const char **lines; size_t n; } installed;

typedef struct store {
  int refs;
  bool failed;                     /* an allocation failed mid-event: no more events */
  size_t n;                        /* events folded */
  /* the events, CHUNK pointers a chunk; a pointer with its low bit set is
  ** a copy in `owned` (sdb_view_apply's), else the stream's own event (a
  ** timeline's: a copy of each was a third of a debugged run's memory) */
  uintptr_t **chunks;
  size_t nchunks, capchunks;
  sdb_arena owned;                 /* copied events */
  sdb_tstore texts, blocks;        /* their lines; their rarer fields, syms and texts */
  ctx *ctx;
  size_t capctx;
  phase_node *phases;
  size_t nphases, capphases;
  tracer_node *tracers;
  size_t ntracers, captracers;
  u32vec kpos[SDB_EV_COUNT];
  /* for the kinds whose diff lines vary per event (bindings, buffers):
  ** the lines of kpos[k][0..i], so a window's count is a subtraction */
  u32vec klines[SDB_EV_COUNT];
  /* for the kinds that refine a range: the record of each one's symbol
  ** (NONE: none), parallel to kpos, so a diff's count of the changes it
  ** does not show reads no event (a goto across a million events) */
  u32vec ksym[SDB_EV_COUNT];
  installed *inst;                 /* parallel to kpos[SDB_EV_GUARDS_INSTALLED] */
  size_t ninst, capinst;
  symrec *syms;
  size_t nsyms, capsyms;
  compile *compiles;
  size_t ncompiles, capcompiles;
  /* node_walk's cursor: the last node found (graph, step, events folded,
  ** its index among the live nodes and its record), and that walk's node
  ** count, so listing a graph node by node is one walk, not one per node */
  const void *walk_g;
  uint32_t walk_at, walk_j;
  size_t walk_n, walk_i, walk_count;
} store;

struct sdb_view {
  store *st;
  size_t step;
};

/* The event at pos (the stream's own, or a copy: the pointer's low bit). */
static inline const sdb_event *ev_at(const store *st, size_t pos) {
  return (const sdb_event *)(st->chunks[pos >> CHUNK_BITS][pos & (CHUNK - 1)] & ~(uintptr_t)1);
}

/* view.c's, for view_diff.c */
uint32_t sdb_vw_symrec_find(const store *st, uint32_t ci, const sdb_expr *sym);
void sdb_vw_put_expr(sdb_buf *b, const sdb_expr *e);
void sdb_vw_put_range(sdb_buf *b, sdb_range r);
void sdb_vw_put_symlist(sdb_buf *b, const sdb_expr *const *s, size_t n);
void sdb_vw_put_first_line(sdb_buf *b, const char *s);
/* view_diff.c's, for the fold: the lines a diff writes for e */
size_t sdb_vw_diff_event_lines(const sdb_event *e);

#endif
