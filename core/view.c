/*
** view.c — the debugger's state at any step as a fold of the events (see
** view.h).
**
** The fold writes a history indexed by event position ("pos"): every
** event (a pointer into the stream a timeline follows, which outlives its
** views; else a copy from the store's arena, so records never move), one
** context record per event (phase stack top, tracer stack top, pending
** list in force, compile), persistent phase and tracer stacks (nodes are
** never changed, a pop just points at the parent), per-kind position logs,
** and per compile a symbol table whose records keep the positions of the
** events that touch each symbol. Every log is sorted by position, so the
** state at step k is each log's prefix below k: a binary search. A graph's
** nodes are also threaded in graph order; inserting never reorders those
** already there, so that one order, filtered by placed and erased
** positions, is the order at every step.
**
** Text formats (the REPL prints them; tests/unit/test_view.c pins them):
**
** sdb_view_explain: a header, then one line per event touching the symbol.
**   u0: unbacked int, created by OP at FILE:LINE in FUNC (PHASE phase, event N), range R
**   s0: backed int, hint 5, source L['x'].size()[0], created at FILE:LINE (PHASE phase, event N), range R
**   u7: unbacked int, first seen at event N (no create event)[, range R]
** ("by", "at", "in" are left out when the event has no op, file, func; R is
** the range at the view's step.) Then, indented by two spaces:
**   source SRC (DETAIL, event N)                          a new source (duck sizing)
**   pending from event A until event B, bound by node NODE (event C)
**                                                          the node whose bindings (C) took it
**   pending from event A until event B, renamed to SYM (event C)
**                                                          renamed instead (process_kernel)
**   pending from event A until event B                     neither
**   pending since event A                                  still pending
**   no longer pending (event B)                            removed without a recorded add
**   bound at %NODE: KEYPATH (PHASE phase, event N)         KEYPATH "<value>" when empty
**   bound in TRACER as PROXY (event N)                     symbol_bound
**   graph input NAME in TRACER (DETAIL, event N)           graph_input_created
**   size-like (event N)
**   range R (DETAIL, event N)                              range_refined
**   replaced by EXPR (REASON, PHASE phase, event N)
**   renamed: FROM -> TO (WHY, event N)
**   in guard EXPR (PHASE phase, FILE:LINE, event N)
**   in runtime assert EXPR (PHASE phase, FILE:LINE, event N)
**   specialized: SRC = VALUE (REASON, event N)
**   memo hit: KIND (event N)
**   cond output, range R (WHY, event N)
**   defined by BUF (DETAIL, event N)                       buffer_lowered
** Parenthesised parts are left out when the event lacks them.
**
** sdb_view_diff lines (forward; "undo " before the event lines backwards):
**   phase: trace -> aot            tracer: trace -> -          compile: 1 -> 2
**   pending: {} -> {u0}
**   new symbol: s0 = 5 for L['x'].size()[0] [2, int_oo]
**   new symbol: u0 [0, 10]                  (" (float)" for other types)
**   source: L['y'].size()[0] for s0 (duck sized)
**   binding: u0: .size()[0] on %nonzero
**   guard: s0 > 2
**   runtime assert: u0 >= 0
**   replacement: u1 -> u0 (rename_unbacked_to)
**   renamed: u1 -> u0 (aot retrace)
**   specialization: L['x'].size()[0] = 2 (range_refined_to_singleton)
**   size-like: u0
**   range: u0 [-int_oo, int_oo] -> [0, int_oo]     (state: never "undo ")
**   buffer: buf1 (MultiOutput for nonzero) defines {u0}
**   binding check ok: nonzero: {u0} defined by u0
**   guards installed: 3
**   guard check ok 0/0: cache hit: ...      guard check FAILED 0/0: REASONS
**   recompile FN: FIRST LINE OF THE MESSAGE  error: FIRST LINE OF THE MESSAGE
*/
#include "view.h"
#include "arena.h"
#include "buf.h"
#include "cancel.h"
#include "intern.h"
#include "map.h"

#include <stdlib.h>
#include <string.h>

#include "view_impl.h"

static bool grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * size);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}
#define GROW(arr, n, cap) grow((void **)&(arr), &(cap), (n) + 1, sizeof *(arr))

static bool u32_push(u32vec *a, uint32_t x) {
  if (!GROW(a->v, a->n, a->cap)) return false;
  a->v[a->n++] = x;
  return true;
}

static const ctx initial_ctx = {-1, -1, NONE, 0};


static bool ev_borrowed(const store *st, size_t pos) {
  return !(st->chunks[pos >> CHUNK_BITS][pos & (CHUNK - 1)] & 1);
}

static const ctx *ctx_at(const store *st, size_t step) {
  return step ? &st->ctx[step - 1] : &initial_ctx;
}

static bool compile_new(store *st, uint32_t start) {
  if (!GROW(st->compiles, st->ncompiles, st->capcompiles)) return false;
  compile *c = &st->compiles[st->ncompiles++];
  memset(c, 0, sizeof *c);
  c->start = start;
  c->sym_lo = (uint32_t)st->nsyms;
  c->syms = (sdb_map)SDB_MAP_INIT;
  c->graph_ix = (sdb_map)SDB_MAP_INIT;
  c->tracer_seen = (sdb_map)SDB_MAP_INIT;
  return true;
}

static store *store_new(void) {
  store *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  st->refs = 1;
  if (!compile_new(st, 0)) { free(st); return NULL; }
  return st;
}

static void free_symrec(symrec *r) {
  free(r->events.v);
  free(r->ranges.v);
  free(r->repls.v);
  free(r->sources.v);
}

static void store_release(store *st) {
  if (!st || --st->refs > 0) return;
  sdb_arena_free(&st->owned);
  sdb_tstore_free(&st->texts);
  sdb_tstore_free(&st->blocks);
  for (size_t i = 0; i < st->nchunks; i++) free(st->chunks[i]);
  free(st->chunks);
  free(st->ctx);
  free(st->phases);
  free(st->tracers);
  for (int k = 0; k < SDB_EV_COUNT; k++) {
    free(st->kpos[k].v);
    free(st->klines[k].v);
    free(st->ksym[k].v);
  }
  for (size_t i = 0; i < st->ninst; i++) free(st->inst[i].lines);
  free(st->inst);
  for (size_t i = 0; i < st->nsyms; i++) free_symrec(&st->syms[i]);
  free(st->syms);
  for (size_t i = 0; i < st->ncompiles; i++) {
    compile *c = &st->compiles[i];
    sdb_map_free(&c->syms);
    free(c->repl_order.v);
    for (size_t g = 0; g < c->ngraphs; g++) {
      free(c->graphs[g].nodes);
      sdb_map_free(&c->graphs[g].names);
      sdb_map_free(&c->graphs[g].ids);
    }
    free(c->graphs);
    sdb_map_free(&c->graph_ix);
    sdb_map_free(&c->tracer_seen);
  }
  free(st->compiles);
  free(st);
}

/* --- folding one event ---------------------------------------------------------- */

static bool same_range(const sdb_event *a, const sdb_event *b) {
  if (sdb_event_has_range(a) != sdb_event_has_range(b)) return false;
  sdb_range ra = sdb_event_range(a), rb = sdb_event_range(b);
  return !sdb_event_has_range(a) || (ra.lo == rb.lo && ra.hi == rb.hi && ra.is_bool == rb.is_bool);
}

/* Is e the event the history holds at h? Texts are interned (compared by
** pointer), a placed node's line is each stream's own copy (by text). */
static bool same_event(const sdb_event *h, const sdb_event *e) {
  const char *hd = sdb_event_detail(h), *ed = sdb_event_detail(e);
  if (h->seq != e->seq || h->kind != e->kind || h->phase != e->phase || h->flags != e->flags ||
      h->site_ != e->site_ || h->op_ != e->op_ || sdb_event_sym(h) != sdb_event_sym(e) ||
      sdb_event_sym2(h) != sdb_event_sym2(e) || sdb_event_expr(h) != sdb_event_expr(e) ||
      !same_range(h, e) || sdb_event_value(h) != sdb_event_value(e) || h->text_ != e->text_ ||
      sdb_event_text2(h) != sdb_intern(sdb_event_text2(e)) ||
      sdb_event_nsyms(h) != sdb_event_nsyms(e) ||
      (hd != ed && (!hd || !ed || strcmp(hd, ed))) ||
      (sdb_event_nsyms(h) && sdb_event_texts(h)) != (sdb_event_nsyms(e) && sdb_event_texts(e)))
    return false;
  const char **ht = sdb_event_texts(h), **et = sdb_event_texts(e);
  for (uint32_t i = 0; i < sdb_event_nsyms(e); i++) {
    if (sdb_event_syms(h)[i] != sdb_event_syms(e)[i]) return false;
    if (et && ht[i] != sdb_intern(et[i])) return false;
  }
  return true;
}

static bool is_symbol(const sdb_expr *e) { return e && e->kind == SDB_SYM; }

static bool looks_unbacked(const sdb_expr *sym) {
  return sym->name[0] == 'u' || !strncmp(sym->name, "zuf", 3);
}

/* The record of sym in compile ci, created when missing; NONE on OOM. */
static uint32_t symrec_get(store *st, uint32_t ci, const sdb_expr *sym, uint32_t pos) {
  compile *c = &st->compiles[ci];
  uintptr_t ix = (uintptr_t)sdb_map_get(&c->syms, sym);
  if (ix) return (uint32_t)(ix - 1);
  if (!GROW(st->syms, st->nsyms, st->capsyms)) return NONE;
  uint32_t si = (uint32_t)st->nsyms;
  if (!sdb_map_put(&c->syms, sym, (void *)(uintptr_t)(si + 1))) return NONE;
  symrec *r = &st->syms[st->nsyms++];
  memset(r, 0, sizeof *r);
  r->sym = sym;
  r->first = pos;
  r->created = r->size_like = r->bound = r->first_repl = NONE;
  return si;
}

uint32_t sdb_vw_symrec_find(const store *st, uint32_t ci, const sdb_expr *sym) {
  uintptr_t ix = (uintptr_t)sdb_map_get(&st->compiles[ci].syms, sym);
  return ix ? (uint32_t)(ix - 1) : NONE;
}

/* The event at pos touches sym: its record (created when missing), with
** pos on its event list once. NONE when sym is not a symbol or on OOM
** (*oom set). */
static uint32_t touch(store *st, uint32_t ci, const sdb_expr *sym, uint32_t pos, bool *oom) {
  if (!is_symbol(sym)) return NONE;
  uint32_t si = symrec_get(st, ci, sym, pos);
  if (si == NONE) { *oom = true; return NONE; }
  symrec *r = &st->syms[si];
  if ((!r->events.n || r->events.v[r->events.n - 1] != pos) && !u32_push(&r->events, pos)) {
    *oom = true;
    return NONE;
  }
  return si;
}

static void touch_free_symbols(store *st, uint32_t ci, const sdb_expr *e, uint32_t pos, bool *oom) {
  if (!e) return;
  const sdb_expr **fs = NULL;
  long n = sdb_free_symbols(e, &fs);
  if (n < 0) { *oom = true; return; }
  for (long i = 0; i < n; i++) touch(st, ci, fs[i], pos, oom);
  free(fs);
}

static bool stack_has_phase(const store *st, int32_t top, uint8_t phase) {
  for (; top >= 0; top = st->phases[top].parent)
    if (st->phases[top].phase == phase) return true;
  return false;
}

static bool contains(const sdb_event *e, const sdb_expr *sym) {
  for (uint32_t i = 0; i < sdb_event_nsyms(e); i++)
    if (sdb_event_syms(e)[i] == sym) return true;
  return false;
}

/* Which graph a node event belongs to: the tracer path while tracing, the
** phase name afterwards (aot nodes still carry the root tracer's path). */
static const char *graph_key(const store *st, const sdb_event *e, const ctx *cur) {
  if (e->phase == SDB_PHASE_AOT || e->phase == SDB_PHASE_LOWER || e->phase == SDB_PHASE_GUARDS)
    return sdb_intern(sdb_phase_name((sdb_phase)e->phase));
  if (!sdb_event_site(e)->tracer) return cur->tracer_top >= 0 ? st->tracers[cur->tracer_top].key : sdb_intern("trace");
  for (int32_t t = cur->tracer_top; t >= 0; t = st->tracers[t].parent)
    if (st->tracers[t].path == sdb_event_site(e)->tracer) return st->tracers[t].key;
  return sdb_event_site(e)->tracer;
}

/* The graph key of a tracer instance pushed under `parent` (see tracer_node). */
static const char *tracer_key(store *st, compile *c, const char *path, int32_t parent, bool *oom) {
  const char *base = path;
  if (parent >= 0 && path && st->tracers[parent].key != st->tracers[parent].path) {
    const char *last = strrchr(path, '>');
    base = sdb_internf("%s > %s", st->tracers[parent].key, last ? last + 2 : path);
    if (!base) { *oom = true; return NULL; }
  }
  uintptr_t seen = (uintptr_t)sdb_map_get(&c->tracer_seen, base);
  if (!sdb_map_put(&c->tracer_seen, base, (void *)(seen + 1))) *oom = true;
  const char *key = seen ? sdb_internf("%s #%u", base, (unsigned)seen + 1) : base;
  if (!key) *oom = true;
  return key;
}

static graphrec *graph_get(compile *c, const char *key, uint32_t pos, bool create) {
  uintptr_t ix = (uintptr_t)sdb_map_get(&c->graph_ix, key);
  if (ix) return &c->graphs[ix - 1];
  if (!create || !GROW(c->graphs, c->ngraphs, c->capgraphs)) return NULL;
  if (!sdb_map_put(&c->graph_ix, key, (void *)(uintptr_t)(c->ngraphs + 1))) return NULL;
  graphrec *g = &c->graphs[c->ngraphs++];
  memset(g, 0, sizeof *g);
  g->key = key;
  g->first = pos;
  g->head = g->tail = NONE;
  g->names = (sdb_map)SDB_MAP_INIT;
  g->ids = (sdb_map)SDB_MAP_INIT;
  return g;
}

static const void *id_key(int64_t id) { return (const void *)(uintptr_t)((uint64_t)id + 1); }

/* Thread node j into g's list: after the latest node named `after`, at the
** front, or (NULL, or a name the graph never had) at the end. */
static void node_link(graphrec *g, uint32_t j, const char *after, bool at_start) {
  uintptr_t a = after ? (uintptr_t)sdb_map_get(&g->names, after) : 0;
  noderec *r = &g->nodes[j];
  if (a && a - 1 != j) {
    noderec *p = &g->nodes[a - 1];
    r->next = p->next;
    p->next = j;
    if (g->tail == a - 1) g->tail = j;
  } else if (at_start) {
    r->next = g->head;
    g->head = j;
    if (g->tail == NONE) g->tail = j;
  } else {
    if (g->tail == NONE) g->head = j;
    else g->nodes[g->tail].next = j;
    g->tail = j;
  }
}

/* The node a node_erased names: by id, which is unique where names repeat
** (aot's subgraphs share the "aot" key), else the latest of its name. */
static noderec *node_named(const store *st, graphrec *g, const sdb_event *e) {
  const char *text = sdb_event_text(e);
  uintptr_t ix = (uintptr_t)sdb_map_get(&g->ids, id_key(sdb_event_value(e)));
  if (ix && (!text || sdb_event_text(ev_at(st, g->nodes[ix - 1].pos)) == text))
    return &g->nodes[ix - 1];
  ix = text ? (uintptr_t)sdb_map_get(&g->names, text) : 0;
  return ix ? &g->nodes[ix - 1] : NULL;
}

static bool split_lines(const char *text, installed *out) {
  out->lines = NULL;
  out->n = 0;
  if (!text || !*text) return true;
  size_t n = 1;
  for (const char *p = text; *p; p++) n += *p == '\n';
  out->lines = calloc(n, sizeof *out->lines);
  if (!out->lines) return false;
  for (const char *p = text;;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len) out->lines[out->n++] = sdb_intern_n(p, len);
    if (!nl) break;
    p = nl + 1;
  }
  return true;
}

/* Put e (interned) into the history at position st->n and fold it: the
** event itself when borrow (it outlives the store), else a copy. */
static int store_append(store *st, const sdb_event *e, bool borrow) {
  if (st->failed) return -1;
  if (st->n >= NONE - 1) { st->failed = true; return -1; }
  uint32_t pos = (uint32_t)st->n;
  if ((pos >> CHUNK_BITS) >= st->nchunks) {
    if (!GROW(st->chunks, st->nchunks, st->capchunks)) return -1;
    uintptr_t *chunk = malloc(CHUNK * sizeof *chunk);
    if (!chunk) return -1;
    st->chunks[st->nchunks++] = chunk;
  }
  if (!grow((void **)&st->ctx, &st->capctx, st->n + 1, sizeof *st->ctx)) return -1;
  const sdb_event *h = e;
  uintptr_t slot = (uintptr_t)e;
  if (!borrow) {
    sdb_event *copy = sdb_arena_alloc(&st->owned, sizeof *copy, _Alignof(sdb_event));
    if (!copy) return -1;
    unsigned long lost = sdb_tstore_losses();
    sdb_event_in in = sdb_event_unpack(e);   /* its line read as "?" is no copy */
    if (sdb_tstore_losses() != lost || !sdb_event_store(copy, &in, &st->texts, &st->blocks))
      return -1;
    h = copy;
    slot = (uintptr_t)copy | 1;
  }
  st->chunks[pos >> CHUNK_BITS][pos & (CHUNK - 1)] = slot;
  /* From here on a failure poisons the history: what the fold wrote for
  ** this position stays in the logs, but no step ever reaches it (every
  ** query looks below the step), so the views keep a consistent state. */
  ctx cur = *ctx_at(st, pos);
  bool oom = false;
  uint32_t ci = cur.compile;
  uint32_t si = NONE;
  switch ((sdb_event_kind)h->kind) {
    case SDB_EV_PHASE_START:
      if (h->phase == SDB_PHASE_TRACE && !stack_has_phase(st, cur.phase_top, SDB_PHASE_TRACE)) {
        /* a new top-level trace: a new ShapeEnv, symbols numbered afresh */
        if (!compile_new(st, pos)) { oom = true; break; }
        ci = cur.compile = (uint32_t)st->ncompiles - 1;
        cur.phase_top = cur.tracer_top = -1;
        cur.pending = NONE;
      }
      if (!GROW(st->phases, st->nphases, st->capphases)) { oom = true; break; }
      st->phases[st->nphases] = (phase_node){h->phase, sdb_event_text(h), cur.phase_top};
      cur.phase_top = (int32_t)st->nphases++;
      break;
    case SDB_EV_PHASE_END: {
      int32_t t = cur.phase_top;
      while (t >= 0 && st->phases[t].phase != h->phase) t = st->phases[t].parent;
      if (t < 0) t = cur.phase_top;   /* ended under another name: the innermost */
      if (t < 0) break;
      uint8_t popped = st->phases[t].phase;
      cur.phase_top = st->phases[t].parent;
      if (popped == SDB_PHASE_TRACE && !stack_has_phase(st, cur.phase_top, SDB_PHASE_TRACE))
        cur.tracer_top = -1;   /* the trace's root tracer is done (never popped) */
      break;
    }
    case SDB_EV_TRACER_PUSH: {
      if (!GROW(st->tracers, st->ntracers, st->captracers)) { oom = true; break; }
      const char *path = sdb_event_text(h) ? sdb_event_text(h) : sdb_event_site(h)->tracer;
      st->tracers[st->ntracers] = (tracer_node){path, (int32_t)sdb_event_value(h), cur.tracer_top,
                                                tracer_key(st, &st->compiles[ci], path,
                                                           cur.tracer_top, &oom)};
      cur.tracer_top = (int32_t)st->ntracers++;
      break;
    }
    case SDB_EV_TRACER_POP: {
      const char *path = sdb_event_text(h) ? sdb_event_text(h) : sdb_event_site(h)->tracer;
      for (int32_t t = cur.tracer_top; t >= 0; t = st->tracers[t].parent)
        if (st->tracers[t].path == path) { cur.tracer_top = st->tracers[t].parent; break; }
      break;
    }
    case SDB_EV_CREATE_SYMBOL:
      si = touch(st, ci, sdb_event_sym(h), pos, &oom);
      if (si == NONE) break;
      if (st->syms[si].created == NONE && !(h->flags & 1)) st->syms[si].created = pos;
      if (!u32_push(&st->syms[si].sources, pos)) oom = true;
      if (sdb_event_has_range(h) && !u32_push(&st->syms[si].ranges, pos)) oom = true;
      break;
    case SDB_EV_CREATE_UNBACKED:
      si = touch(st, ci, sdb_event_sym(h), pos, &oom);
      if (si == NONE) break;
      if (st->syms[si].created == NONE) st->syms[si].created = pos;
      if ((h->flags & SDB_EVF_SIZE_LIKE) && st->syms[si].size_like == NONE)
        st->syms[si].size_like = pos;
      if (sdb_event_has_range(h) && !u32_push(&st->syms[si].ranges, pos)) oom = true;
      break;
    case SDB_EV_PENDING_CHANGED: {
      /* a symbol's life records the changes: added to or dropped from the list */
      const sdb_event *prev = cur.pending != NONE ? ev_at(st, cur.pending) : NULL;
      for (uint32_t i = 0; i < sdb_event_nsyms(h); i++)
        if (!prev || !contains(prev, sdb_event_syms(h)[i])) touch(st, ci, sdb_event_syms(h)[i], pos, &oom);
      for (uint32_t i = 0; prev && i < sdb_event_nsyms(prev); i++)
        if (!contains(h, sdb_event_syms(prev)[i])) touch(st, ci, sdb_event_syms(prev)[i], pos, &oom);
      cur.pending = pos;
      break;
    }
    case SDB_EV_GUARD_ADDED:
      touch_free_symbols(st, ci, sdb_event_expr(h), pos, &oom);
      break;
    case SDB_EV_RUNTIME_ASSERT:
      touch_free_symbols(st, ci, sdb_event_expr(h), pos, &oom);
      touch(st, ci, sdb_event_sym(h), pos, &oom);
      break;
    case SDB_EV_REPLACEMENT_ADDED:
      si = touch(st, ci, sdb_event_sym(h), pos, &oom);
      if (si == NONE) break;
      if (st->syms[si].first_repl == NONE) {
        st->syms[si].first_repl = pos;
        if (!u32_push(&st->compiles[ci].repl_order, si)) oom = true;
      }
      if (!u32_push(&st->syms[si].repls, pos)) oom = true;
      break;
    case SDB_EV_RANGE_REFINED: case SDB_EV_COND_OUTPUT_SYMBOL:
      si = touch(st, ci, sdb_event_sym(h), pos, &oom);
      if (si != NONE && sdb_event_has_range(h) && !u32_push(&st->syms[si].ranges, pos)) oom = true;
      break;
    case SDB_EV_SIZE_LIKE:
      si = touch(st, ci, sdb_event_sym(h), pos, &oom);
      if (si != NONE && st->syms[si].size_like == NONE) st->syms[si].size_like = pos;
      break;
    case SDB_EV_RENAMED:
      touch(st, ci, sdb_event_sym(h), pos, &oom);
      touch(st, ci, sdb_event_sym2(h), pos, &oom);
      break;
    case SDB_EV_SPECIALIZATION: case SDB_EV_MEMO_HIT: case SDB_EV_GRAPH_INPUT:
    case SDB_EV_SYMBOL_BOUND:
      touch(st, ci, sdb_event_sym(h), pos, &oom);
      break;
    case SDB_EV_BUFFER_LOWERED:
      for (uint32_t i = 0; i < sdb_event_nsyms(h); i++) touch(st, ci, sdb_event_syms(h)[i], pos, &oom);
      break;
    case SDB_EV_NODE_PLACED: {
      if (!sdb_event_text(h)) break;
      graphrec *g = graph_get(&st->compiles[ci], graph_key(st, h, &cur), pos, true);
      if (!g || !GROW(g->nodes, g->n, g->cap)) { oom = true; break; }
      uint32_t j = (uint32_t)g->n;
      g->nodes[j] = (noderec){pos, NONE, NONE, NONE};
      /* on failure the maps may name j: the store is poisoned then, and no
      ** later event reads them; j is linked only once nothing can fail */
      if (!sdb_map_put(&g->ids, id_key(sdb_event_value(h)), (void *)(uintptr_t)(j + 1)) ||
          !sdb_map_put(&g->names, sdb_event_text(h), (void *)(uintptr_t)(j + 1))) {
        oom = true;
        break;
      }
      node_link(g, j, sdb_event_text2(h), h->flags & SDB_EVF_AT_START);
      g->n++;
      break;
    }
    case SDB_EV_NODE_ERASED: {
      /* no allocation: a failure later on (kpos) leaves erased at a
      ** position no step reaches, which reads as not erased */
      graphrec *g = graph_get(&st->compiles[ci], graph_key(st, h, &cur), pos, false);
      noderec *r = g ? node_named(st, g, h) : NULL;
      if (r && r->erased == NONE) r->erased = pos;
      break;
    }
    case SDB_EV_UNBACKED_BINDINGS: {
      for (uint32_t i = 0; i < sdb_event_nsyms(h); i++) {
        si = touch(st, ci, sdb_event_syms(h)[i], pos, &oom);
        if (si != NONE && st->syms[si].bound == NONE) st->syms[si].bound = pos;
      }
      graphrec *g =
          sdb_event_text(h) ? graph_get(&st->compiles[ci], graph_key(st, h, &cur), pos, false) : NULL;
      uintptr_t ix = g ? (uintptr_t)sdb_map_get(&g->names, sdb_event_text(h)) : 0;
      if (ix && g->nodes[ix - 1].bind == NONE) g->nodes[ix - 1].bind = pos;
      break;
    }
    case SDB_EV_GUARDS_INSTALLED:
      if (!GROW(st->inst, st->ninst, st->capinst) ||
          !split_lines(sdb_event_detail(h), &st->inst[st->ninst]))
        oom = true;
      else st->ninst++;
      break;
    default:
      break;
  }
  if (!oom && h->kind < SDB_EV_COUNT && !u32_push(&st->kpos[h->kind], pos)) oom = true;
  if (!oom && (h->kind == SDB_EV_RANGE_REFINED || h->kind == SDB_EV_COND_OUTPUT_SYMBOL) &&
      !u32_push(&st->ksym[h->kind], si))
    oom = true;
  if (!oom && (h->kind == SDB_EV_UNBACKED_BINDINGS || h->kind == SDB_EV_BUFFER_LOWERED)) {
    u32vec *c = &st->klines[h->kind];
    uint32_t before = c->n ? c->v[c->n - 1] : 0;
    if (!u32_push(c, before + (uint32_t)sdb_vw_diff_event_lines(h))) oom = true;
  }
  if (oom) {   /* what it copied stays in the arena until the store goes */
    st->failed = true;
    return -1;
  }
  st->ctx[pos] = cur;
  st->n++;
  return 0;
}

/* A private history holding the first `upto` events of st. */
static store *store_fork(const store *st, size_t upto) {
  store *ns = store_new();
  if (!ns) return NULL;
  for (size_t i = 0; i < upto; i++) {   /* st may go first: its copies are copied */
    if (store_append(ns, ev_at(st, i), ev_borrowed(st, i))) { store_release(ns); return NULL; }
  }
  return ns;
}

/* --- views -------------------------------------------------------------------------- */

sdb_view *sdb_view_new(void) {
  sdb_view *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->st = store_new();
  if (!v->st) { free(v); return NULL; }
  return v;
}

void sdb_view_free(sdb_view *v) {
  if (!v) return;
  store_release(v->st);
  free(v);
}

void sdb_view_reset(sdb_view *v) { if (v) v->step = 0; }

static int view_apply(sdb_view *v, const sdb_event *c, bool borrow) {
  store *st = v->st;
  const sdb_event *at = v->step < st->n ? ev_at(st, v->step) : NULL;
  bool follows = at && (at == c || same_event(at, c));
  if (follows) { v->step++; return 0; }
  if (v->step < st->n || st->failed) {   /* another event, or a poisoned history */
    store *ns = store_fork(st, v->step);
    if (!ns) return -1;
    store_release(st);
    v->st = st = ns;
  }
  if (store_append(st, c, borrow)) return -1;
  v->step++;
  return 0;
}

int sdb_view_apply(sdb_view *v, const sdb_event *e) {
  if (!v || !e) return -1;
  return view_apply(v, e, false);
}

sdb_view *sdb_view_clone(const sdb_view *v) {
  sdb_view *c = malloc(sizeof *c);
  if (!c) return NULL;
  *c = *v;
  c->st->refs++;
  return c;
}

size_t sdb_view_step(const sdb_view *v) { return v->step; }
size_t sdb_view_length(const sdb_view *v) { return v->st->n; }

bool sdb_view_seek(sdb_view *v, size_t k) {
  if (k > v->st->n) return false;
  v->step = k;
  return true;
}

const sdb_event *sdb_view_event_at(const sdb_view *v, size_t i) {
  return i < v->st->n ? ev_at(v->st, i) : NULL;
}

/* --- where we are ------------------------------------------------------------------- */

static const ctx *vctx(const sdb_view *v) { return ctx_at(v->st, v->step); }
static const compile *vcompile(const sdb_view *v) { return &v->st->compiles[vctx(v)->compile]; }
static uint32_t vstep(const sdb_view *v) { return (uint32_t)v->step; }

const sdb_event *sdb_view_event(const sdb_view *v) {
  return v->step ? ev_at(v->st, v->step - 1) : NULL;
}

sdb_phase sdb_view_phase(const sdb_view *v) {
  int32_t top = vctx(v)->phase_top;
  const sdb_event *e = sdb_view_event(v);
  if (top < 0)   /* between phases: guard checks and recompiles say where they run */
    return e && e->kind != SDB_EV_PHASE_END && e->phase < SDB_PHASE_COUNT ? (sdb_phase)e->phase
                                                                          : SDB_PHASE_NONE;
  sdb_phase p = (sdb_phase)v->st->phases[top].phase;
  if (p == SDB_PHASE_TRACE && e && e->phase == SDB_PHASE_COND) return SDB_PHASE_COND;
  return p;
}

const char *sdb_view_phase_text(const sdb_view *v) {
  int32_t top = vctx(v)->phase_top;
  return top < 0 ? NULL : v->st->phases[top].text;
}

const char *sdb_view_tracer(const sdb_view *v) {
  int32_t top = vctx(v)->tracer_top;
  return top < 0 ? NULL : v->st->tracers[top].path;
}

const char *sdb_view_tracer_graph(const sdb_view *v) {
  int32_t top = vctx(v)->tracer_top;
  return top < 0 ? NULL : v->st->tracers[top].key;
}

int sdb_view_depth(const sdb_view *v) {
  int32_t top = vctx(v)->tracer_top;
  return top < 0 ? -1 : v->st->tracers[top].depth;
}

unsigned sdb_view_compile(const sdb_view *v) { return vctx(v)->compile; }

/* --- events by kind -------------------------------------------------------------------- */

bool sdb_view_kind_is_global(sdb_event_kind k) {
  switch (k) {
    case SDB_EV_PHASE_START: case SDB_EV_PHASE_END: case SDB_EV_GUARDS_INSTALLED:
    case SDB_EV_GUARD_CHECK: case SDB_EV_RECOMPILE: case SDB_EV_ERROR: case SDB_EV_NOTE:
      return true;
    default:
      return false;
  }
}

/* [lo, hi) in kpos[k] for the view */
static size_t kind_range(const sdb_view *v, sdb_event_kind k, size_t *lo) {
  *lo = 0;
  if ((unsigned)k >= SDB_EV_COUNT) return 0;
  const u32vec *a = &v->st->kpos[k];
  size_t hi = lower_bound(a->v, a->n, vstep(v));
  if (!sdb_view_kind_is_global(k)) *lo = lower_bound(a->v, hi, vcompile(v)->start);
  return hi;
}

size_t sdb_view_count(const sdb_view *v, sdb_event_kind k) {
  size_t lo, hi = kind_range(v, k, &lo);
  return hi - lo;
}

const sdb_event *sdb_view_at(const sdb_view *v, sdb_event_kind k, size_t i) {
  size_t lo, hi = kind_range(v, k, &lo);
  return lo + i < hi ? ev_at(v->st, v->st->kpos[k].v[lo + i]) : NULL;
}

size_t sdb_view_pending(const sdb_view *v, const sdb_expr *const **out) {
  uint32_t p = vctx(v)->pending;
  const sdb_event *e = p != NONE ? ev_at(v->st, p) : NULL;
  *out = e && sdb_event_nsyms(e) ? sdb_event_syms(e) : NULL;
  return e ? sdb_event_nsyms(e) : 0;
}

size_t sdb_view_replacement_count(const sdb_view *v) {
  const u32vec *o = &vcompile(v)->repl_order;
  size_t lo = 0, hi = o->n;   /* first_repl ascends along repl_order */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->st->syms[o->v[mid]].first_repl < vstep(v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const sdb_event *sdb_view_replacement_at(const sdb_view *v, size_t i) {
  if (i >= sdb_view_replacement_count(v)) return NULL;
  const symrec *r = &v->st->syms[vcompile(v)->repl_order.v[i]];
  uint32_t p = last_below(&r->repls, vstep(v));
  return p == NONE ? NULL : ev_at(v->st, p);
}

size_t sdb_view_installed_guards(const sdb_view *v, const char *const **out) {
  const u32vec *a = &v->st->kpos[SDB_EV_GUARDS_INSTALLED];
  size_t i = lower_bound(a->v, a->n, vstep(v));
  *out = NULL;
  if (!i || i > v->st->ninst) return 0;
  *out = v->st->inst[i - 1].lines;
  return v->st->inst[i - 1].n;
}

/* --- symbols ------------------------------------------------------------------------------ */

/* Symbol records of the view's compile: [lo, hi) of st->syms. */
static size_t sym_range(const sdb_view *v, size_t *lo) {
  const store *st = v->st;
  uint32_t ci = vctx(v)->compile;
  *lo = st->compiles[ci].sym_lo;
  size_t end = ci + 1 < st->ncompiles ? st->compiles[ci + 1].sym_lo : st->nsyms;
  size_t a = *lo, b = end;   /* first seen ascends within a compile */
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (st->syms[mid].first < vstep(v)) a = mid + 1;
    else b = mid;
  }
  return a;
}

size_t sdb_view_symbol_count(const sdb_view *v) {
  size_t lo, hi = sym_range(v, &lo);
  return hi - lo;
}

const sdb_expr *sdb_view_symbol_at(const sdb_view *v, size_t i) {
  size_t lo, hi = sym_range(v, &lo);
  return lo + i < hi ? v->st->syms[lo + i].sym : NULL;
}

/* The record of sym visible at the view's step, or NULL. */
static const symrec *vsym(const sdb_view *v, const sdb_expr *sym) {
  if (!sym) return NULL;
  uint32_t si = sdb_vw_symrec_find(v->st, vctx(v)->compile, sym);
  if (si == NONE || v->st->syms[si].first >= vstep(v)) return NULL;
  return &v->st->syms[si];
}

static const char *keypath_in(const sdb_event *e, const sdb_expr *sym) {
  for (uint32_t i = 0; i < sdb_event_nsyms(e); i++)
    if (sdb_event_syms(e)[i] == sym) return sdb_event_texts(e) && sdb_event_texts(e)[i] ? sdb_event_texts(e)[i] : "";
  return NULL;
}

static bool is_pending(const sdb_view *v, const sdb_expr *sym) {
  const sdb_expr *const *p;
  size_t n = sdb_view_pending(v, &p);
  for (size_t i = 0; i < n; i++)
    if (p[i] == sym) return true;
  return false;
}

static void fill_sym(const sdb_view *v, const symrec *r, uint32_t at, sdb_view_sym *out) {
  const store *st = v->st;
  memset(out, 0, sizeof *out);
  out->sym = r->sym;
  out->created = r->created < at;
  const sdb_event *c = out->created ? ev_at(st, r->created) : NULL;
  out->creation = c;
  if (c && c->kind == SDB_EV_CREATE_UNBACKED) {
    out->unbacked = true;
    out->type = sdb_event_text(c) ? sdb_event_text(c) : sdb_intern("int");
  } else if (c) {
    out->has_hint = true;
    out->hint = sdb_event_value(c);
    out->type = sdb_intern("int");
  } else {
    out->unbacked = looks_unbacked(r->sym);
    out->type = sdb_intern(strncmp(r->sym->name, "zuf", 3) ? "int" : "float");
  }
  size_t ns = lower_bound(r->sources.v, r->sources.n, at);
  out->nsources = ns;
  if (ns) out->source = sdb_event_text(ev_at(st, r->sources.v[0]));
  uint32_t rp = last_below(&r->ranges, at);
  if (rp != NONE) {
    out->has_range = true;
    out->range = sdb_event_range(ev_at(st, rp));
  }
  out->size_like = r->size_like < at;
  uint32_t pp = last_below(&r->repls, at);
  if (pp != NONE) out->replacement = sdb_event_expr(ev_at(st, pp));
  if (r->bound < at) {
    out->binding = ev_at(st, r->bound);
    out->keypath = keypath_in(out->binding, r->sym);
  }
  out->nevents = lower_bound(r->events.v, r->events.n, at);
}

bool sdb_view_symbol(const sdb_view *v, const sdb_expr *sym, sdb_view_sym *out) {
  const symrec *r = vsym(v, sym);
  if (!r) return false;
  fill_sym(v, r, vstep(v), out);
  out->pending = is_pending(v, sym);
  return true;
}

const sdb_event *sdb_view_symbol_event(const sdb_view *v, const sdb_expr *sym, size_t i) {
  const symrec *r = vsym(v, sym);
  if (!r || i >= lower_bound(r->events.v, r->events.n, vstep(v))) return NULL;
  return ev_at(v->st, r->events.v[i]);
}

bool sdb_view_touches(const sdb_view *v, const sdb_expr *sym) {
  const symrec *r = v->step ? vsym(v, sym) : NULL;
  if (!r) return false;
  size_t i = lower_bound(r->events.v, r->events.n, vstep(v));
  return i && r->events.v[i - 1] == vstep(v) - 1;
}

/* --- graphs ------------------------------------------------------------------------------ */

size_t sdb_view_graph_count(const sdb_view *v) {
  const compile *c = vcompile(v);
  size_t n = 0;
  while (n < c->ngraphs && c->graphs[n].first < vstep(v)) n++;
  return n;
}

const char *sdb_view_graph_at(const sdb_view *v, size_t i) {
  return i < sdb_view_graph_count(v) ? vcompile(v)->graphs[i].key : NULL;
}

static const graphrec *vgraph(const sdb_view *v, const char *graph) {
  if (!graph) return NULL;
  const compile *c = vcompile(v);
  uintptr_t ix = (uintptr_t)sdb_map_get(&c->graph_ix, sdb_intern(graph));
  return ix ? &c->graphs[ix - 1] : NULL;
}

/* The i-th node of g in graph order at step `at` (SIZE_MAX: none, and
** *count says how many there are). One walk of the list: O(nodes). */
static const noderec *node_walk(store *st, const graphrec *g, uint32_t at, size_t i,
                                size_t *count) {
  bool same = g && st->walk_g == g && st->walk_at == at && st->walk_n == st->n;
  if (!same) {
    st->walk_g = g;
    st->walk_at = at;
    st->walk_n = st->n;
    st->walk_j = NONE;
    st->walk_count = SIZE_MAX;
  }
  if (i == SIZE_MAX && st->walk_count != SIZE_MAX) { *count = st->walk_count; return NULL; }
  size_t k = 0;
  uint32_t j = g ? g->head : NONE;
  if (st->walk_j != NONE && i >= st->walk_i) { k = st->walk_i; j = st->walk_j; }
  for (; j != NONE; j = g->nodes[j].next) {
    const noderec *r = &g->nodes[j];
    if (r->pos >= at || r->erased < at) continue;   /* not yet placed, or gone */
    if (k == i) { st->walk_i = k; st->walk_j = j; return r; }
    k++;
  }
  *count = k;
  if (g) st->walk_count = k;
  return NULL;
}

size_t sdb_view_node_count(const sdb_view *v, const char *graph) {
  size_t n = 0;
  node_walk(v->st, vgraph(v, graph), vstep(v), SIZE_MAX, &n);
  return n;
}

bool sdb_view_node_at(const sdb_view *v, const char *graph, size_t i, sdb_view_node *out) {
  size_t n;
  const noderec *r = node_walk(v->st, vgraph(v, graph), vstep(v), i, &n);
  if (!r) return false;
  const sdb_event *e = ev_at(v->st, r->pos);
  out->name = sdb_event_text(e);
  out->id = sdb_event_value(e);
  out->placed = e;
  out->bindings = r->bind < vstep(v) ? ev_at(v->st, r->bind) : NULL;
  return true;
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* interned name -> interned name; a word is looked up only when its first
** byte and length could be a renamed name's (most words of a graph line
** are not: a 100k-node listing hashed every word) */
struct sdb_view_renames {
  sdb_map to;
  bool first[256];
  size_t minlen, maxlen;
};

sdb_view_renames *sdb_view_renames_new(const sdb_view *v) {
  size_t nr = sdb_view_count(v, SDB_EV_RENAMED);
  if (!nr) return NULL;
  sdb_view_renames *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  /* a word goes through the renamings in order (u3 -> u1, then u1 -> u0:
  ** u0). Folded from the last: a's name is then what b's is, or b. */
  for (size_t i = nr; i-- > 0;) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_RENAMED, i);
    if (!e || !is_symbol(sdb_event_sym(e)) || !is_symbol(sdb_event_sym2(e))) continue;
    const char *a = sdb_intern(sdb_event_sym(e)->name), *b = sdb_intern(sdb_event_sym2(e)->name);
    const char *to = sdb_map_get(&r->to, b);
    if (!a || !b || !sdb_map_put(&r->to, a, (void *)(to ? to : b))) {
      sdb_view_renames_free(r);
      return NULL;
    }
    size_t n = strlen(a);
    r->first[(unsigned char)a[0]] = true;
    if (!r->minlen || n < r->minlen) r->minlen = n;
    if (n > r->maxlen) r->maxlen = n;
  }
  return r;
}

void sdb_view_renames_free(sdb_view_renames *r) {
  if (!r) return;
  sdb_map_free(&r->to);
  free(r);
}

/* The renamed name of the word at p (n bytes), or NULL. */
static const char *renamed_word(const sdb_view_renames *r, const char *p, size_t n) {
  if (n < r->minlen || n > r->maxlen) return NULL;
  const char *word = sdb_intern_lookup(p, n);   /* a name never interned was never renamed */
  return word ? sdb_map_get(&r->to, word) : NULL;
}

char *sdb_view_renames_apply(const sdb_view_renames *r, const char *text) {
  if (!r || !text || !r->to.len) return NULL;
  sdb_buf b = SDB_BUF_INIT;
  bool changed = false;
  const char *p = text, *copied = text;   /* text before `copied` is in b */
  while (*p) {
    /* a word starts here and could be a renamed name (one table lookup
    ** passes over most bytes) */
    if (!r->first[(unsigned char)*p] || (p > text && ident_char(p[-1]))) { p++; continue; }
    size_t n = 0;
    while (ident_char(p[n])) n++;
    const char *name = renamed_word(r, p, n);
    if (name) {
      sdb_buf_putn(&b, copied, (size_t)(p - copied));
      sdb_buf_puts(&b, name);
      changed = true;
      copied = p + n;
    }
    p += n ? n : 1;
  }
  if (!changed || b.failed) {   /* nothing renamed: no copy made */
    sdb_buf_free(&b);
    return NULL;
  }
  sdb_buf_puts(&b, copied);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}

char *sdb_view_renamed(const sdb_view *v, const char *text) {
  if (!text) return NULL;
  sdb_view_renames *r = sdb_view_renames_new(v);
  char *out = sdb_view_renames_apply(r, text);
  sdb_view_renames_free(r);
  return out;
}

/* --- texts ------------------------------------------------------------------------------- */

void sdb_vw_put_expr(sdb_buf *b, const sdb_expr *e) {
  char tmp[256];
  size_t need = e ? sdb_expr_print(e, tmp, sizeof tmp) : 0;
  if (!e) sdb_buf_putc(b, '?');
  else if (need < sizeof tmp) sdb_buf_puts(b, tmp);
  else {
    char *s = sdb_expr_str(e);
    if (s) sdb_buf_puts(b, s);
    else b->failed = true;   /* out of memory: the text is incomplete, and says so */
    free(s);
  }
}

void sdb_vw_put_range(sdb_buf *b, sdb_range r) {
  char tmp[SDB_RANGE_STRLEN];
  sdb_buf_puts(b, sdb_range_str(r, tmp, sizeof tmp));
}

void sdb_vw_put_symlist(sdb_buf *b, const sdb_expr *const *s, size_t n) {
  sdb_buf_putc(b, '{');
  for (size_t i = 0; i < n; i++) {
    if (i) sdb_buf_puts(b, ", ");
    sdb_vw_put_expr(b, s[i]);
  }
  sdb_buf_putc(b, '}');
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static void put_loc(sdb_buf *b, const sdb_event *e) {
  sdb_buf_printf(b, "%s:%d", base_name(sdb_event_site(e)->file), (int)sdb_event_site(e)->line);
}

/* " (DETAIL, PHASE phase, FILE:LINE, event N)", each part optional but N */
static void paren(sdb_buf *b, const char *detail, bool phase, bool loc, const sdb_event *e) {
  sdb_buf_puts(b, " (");
  if (detail && *detail) sdb_buf_printf(b, "%s, ", detail);
  if (phase) sdb_buf_printf(b, "%s phase, ", sdb_phase_name((sdb_phase)e->phase));
  if (loc && sdb_event_site(e)->file) { put_loc(b, e); sdb_buf_puts(b, ", "); }
  sdb_buf_printf(b, "event %u)", (unsigned)e->seq);
}

/* The first line of a possibly multi-line text. */
void sdb_vw_put_first_line(sdb_buf *b, const char *s) {
  if (!s) return;
  const char *nl = strchr(s, '\n');
  sdb_buf_putn(b, s, nl ? (size_t)(nl - s) : strlen(s));
}

static size_t count_unbacked(const sdb_view *v) {
  size_t lo, hi = sym_range(v, &lo), n = 0;
  for (size_t i = lo; i < hi; i++) {
    sdb_view_sym s;
    fill_sym(v, &v->st->syms[i], vstep(v), &s);
    n += s.unbacked;
  }
  return n;
}

char *sdb_view_status(const sdb_view *v) {
  sdb_buf b = SDB_BUF_INIT;
  const sdb_event *e = sdb_view_event(v);
  if (e) {
    char *line = sdb_event_format(e);
    sdb_buf_printf(&b, "step %zu, event %u: ", v->step, (unsigned)e->seq);
    if (line) sdb_vw_put_first_line(&b, line);   /* a recompile's message has more */
    else b.failed = true;
    sdb_buf_putc(&b, '\n');
    free(line);
  } else {
    sdb_buf_puts(&b, "step 0: no events\n");
  }
  const char *tr = sdb_view_tracer(v);
  sdb_buf_printf(&b, "phase %s, tracer %s, compile %u\n", sdb_phase_name(sdb_view_phase(v)),
                 tr ? tr : "-", sdb_view_compile(v));
  const sdb_expr *const *p;
  size_t np = sdb_view_pending(v, &p);
  sdb_buf_puts(&b, "pending: ");
  sdb_vw_put_symlist(&b, p, np);
  size_t nb = 0, lo, hi = kind_range(v, SDB_EV_UNBACKED_BINDINGS, &lo);
  for (size_t i = lo; i < hi; i++) nb += sdb_event_nsyms(ev_at(v->st, v->st->kpos[SDB_EV_UNBACKED_BINDINGS].v[i]));
  sdb_buf_printf(&b, "\nsymbols %zu (%zu unbacked), guards %zu, runtime asserts %zu, "
                 "replacements %zu, bindings %zu\n",
                 sdb_view_symbol_count(v), count_unbacked(v), sdb_view_count(v, SDB_EV_GUARD_ADDED),
                 sdb_view_count(v, SDB_EV_RUNTIME_ASSERT), sdb_view_replacement_count(v), nb);
  if (b.failed) { sdb_buf_free(&b); return NULL; }
  return sdb_buf_take(&b);
}

/* The tracer an event ran in: its own stamp, else the stack at that point. */
static const char *tracer_of(const store *st, uint32_t pos) {
  const sdb_event *e = ev_at(st, pos);
  if (sdb_event_site(e)->tracer) return sdb_event_site(e)->tracer;
  int32_t top = st->ctx[pos].tracer_top;
  return top >= 0 ? st->tracers[top].path : "?";
}

static void explain_header(sdb_buf *b, const sdb_view *v, const symrec *r) {
  sdb_view_sym s;
  fill_sym(v, r, vstep(v), &s);
  sdb_buf_printf(b, "%s: %s %s", r->sym->name, s.unbacked ? "unbacked" : "backed", s.type);
  const sdb_event *c = s.creation;
  if (c) {
    if (!s.unbacked) {
      sdb_buf_printf(b, ", hint %lld", (long long)s.hint);
      if (s.source) sdb_buf_printf(b, ", source %s", s.source);
    }
    sdb_buf_puts(b, ", created");
    if (sdb_event_op(c)) sdb_buf_printf(b, " by %s", sdb_event_op(c));
    if (sdb_event_site(c)->file) { sdb_buf_puts(b, " at "); put_loc(b, c); }
    if (sdb_event_site(c)->func) sdb_buf_printf(b, " in %s", sdb_event_site(c)->func);
    sdb_buf_printf(b, " (%s phase, event %u)", sdb_phase_name((sdb_phase)c->phase), (unsigned)c->seq);
  } else {
    sdb_buf_printf(b, ", first seen at event %u (no create event)", (unsigned)ev_at(v->st, r->first)->seq);
  }
  if (s.has_range) { sdb_buf_puts(b, ", range "); sdb_vw_put_range(b, s.range); }
  sdb_buf_putc(b, '\n');
}

/* One line of a pending_changed that added sym at index i of its events:
** until the change that drops it, naming the node that bound it. */
static void explain_pending(sdb_buf *b, const sdb_view *v, const symrec *r, size_t i, size_t n) {
  const store *st = v->st;
  const sdb_event *e = ev_at(st, r->events.v[i]);
  const sdb_event *bind = NULL, *ren = NULL;
  for (size_t j = i + 1; j < n; j++) {
    const sdb_event *f = ev_at(st, r->events.v[j]);
    if (f->kind == SDB_EV_UNBACKED_BINDINGS) bind = f;
    if (f->kind == SDB_EV_RENAMED && sdb_event_sym(f) == r->sym) ren = f;
    if (f->kind == SDB_EV_PENDING_CHANGED && !contains(f, r->sym)) {
      sdb_buf_printf(b, "  pending from event %u until event %u", (unsigned)e->seq, (unsigned)f->seq);
      if (bind && sdb_event_text(bind))
        sdb_buf_printf(b, ", bound by node %s (event %u)", sdb_event_text(bind),
                       (unsigned)bind->seq);
      else if (ren && is_symbol(sdb_event_sym2(ren)))
        sdb_buf_printf(b, ", renamed to %s (event %u)", sdb_event_sym2(ren)->name, (unsigned)ren->seq);
      sdb_buf_putc(b, '\n');
      return;
    }
  }
  sdb_buf_printf(b, "  pending since event %u\n", (unsigned)e->seq);
}

static void explain_event(sdb_buf *b, const sdb_view *v, const symrec *r, size_t i, size_t n,
                          bool *pending_open) {
  const store *st = v->st;
  uint32_t pos = r->events.v[i];
  const sdb_event *e = ev_at(st, pos);
  const char *text = sdb_event_text(e);
  const sdb_expr *sym = r->sym;
  switch ((sdb_event_kind)e->kind) {
    case SDB_EV_CREATE_SYMBOL:
      if (pos == r->created) return;
      sdb_buf_printf(b, "  source %s", text ? text : "?");
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_CREATE_UNBACKED:
      if (pos == r->created) return;
      sdb_buf_puts(b, "  created again");
      paren(b, sdb_event_text(e), true, true, e);
      break;
    case SDB_EV_PENDING_CHANGED:
      if (contains(e, sym)) {
        explain_pending(b, v, r, i, n);
        *pending_open = true;
        return;
      }
      if (*pending_open) { *pending_open = false; return; }
      sdb_buf_printf(b, "  no longer pending (event %u)", (unsigned)e->seq);
      break;
    case SDB_EV_RANGE_REFINED:
      sdb_buf_puts(b, "  range ");
      sdb_vw_put_range(b, sdb_event_range(e));
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_SIZE_LIKE:
      sdb_buf_printf(b, "  size-like (event %u)", (unsigned)e->seq);
      break;
    case SDB_EV_UNBACKED_BINDINGS: {
      const char *kp = keypath_in(e, sym);
      sdb_buf_printf(b, "  bound at %%%s: %s", text ? text : "?", kp && *kp ? kp : "<value>");
      paren(b, NULL, true, false, e);
      break;
    }
    case SDB_EV_SYMBOL_BOUND:
      sdb_buf_printf(b, "  bound in %s as %s", tracer_of(st, pos), text ? text : "?");
      paren(b, NULL, false, false, e);
      break;
    case SDB_EV_GRAPH_INPUT:
      sdb_buf_printf(b, "  graph input %s in %s", text ? text : "?", tracer_of(st, pos));
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_REPLACEMENT_ADDED:
      sdb_buf_puts(b, "  replaced by ");
      sdb_vw_put_expr(b, sdb_event_expr(e));
      paren(b, sdb_event_detail(e), true, false, e);
      break;
    case SDB_EV_RENAMED:
      sdb_buf_puts(b, "  renamed: ");
      sdb_vw_put_expr(b, sdb_event_sym(e));
      sdb_buf_puts(b, " -> ");
      sdb_vw_put_expr(b, sdb_event_sym2(e));
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_GUARD_ADDED:
      sdb_buf_puts(b, "  in guard ");
      sdb_vw_put_expr(b, sdb_event_expr(e));
      paren(b, NULL, true, true, e);
      break;
    case SDB_EV_RUNTIME_ASSERT:
      sdb_buf_puts(b, "  in runtime assert ");
      sdb_vw_put_expr(b, sdb_event_expr(e));
      paren(b, NULL, true, true, e);
      break;
    case SDB_EV_SPECIALIZATION:
      sdb_buf_printf(b, "  specialized: %s = ", text ? text : r->sym->name);
      sdb_vw_put_expr(b, sdb_event_expr(e));
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_MEMO_HIT:
      sdb_buf_printf(b, "  memo hit: %s (event %u)", text ? text : "?", (unsigned)e->seq);
      break;
    case SDB_EV_COND_OUTPUT_SYMBOL:
      sdb_buf_puts(b, "  cond output");
      if (sdb_event_has_range(e)) { sdb_buf_puts(b, ", range "); sdb_vw_put_range(b, sdb_event_range(e)); }
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    case SDB_EV_BUFFER_LOWERED:
      sdb_buf_printf(b, "  defined by %s", text ? text : "?");
      paren(b, sdb_event_detail(e), false, false, e);
      break;
    default: {
      char *s = sdb_event_summary(e);
      if (s) sdb_buf_printf(b, "  %s (event %u)", s, (unsigned)e->seq);
      else b->failed = true;
      free(s);
      break;
    }
  }
  sdb_buf_putc(b, '\n');
}

char *sdb_view_explain(const sdb_view *v, const sdb_expr *sym) {
  sdb_buf b = SDB_BUF_INIT;
  const symrec *r = vsym(v, sym);
  if (!r) {
    sdb_buf_puts(&b, sym && sym->kind == SDB_SYM ? sym->name : "?");
    sdb_buf_puts(&b, ": not seen at this step\n");
  } else {
    explain_header(&b, v, r);
    size_t n = lower_bound(r->events.v, r->events.n, vstep(v));
    bool pending_open = false;
    for (size_t i = 0; i < n; i++) explain_event(&b, v, r, i, n, &pending_open);
  }
  if (b.failed) { sdb_buf_free(&b); return NULL; }
  return sdb_buf_take(&b);
}

/* --- timeline ------------------------------------------------------------------------------ */

struct sdb_timeline {
  const sdb_events *s;
  sdb_view *head;     /* every event of the stream folded */
  sdb_view *cursor;   /* shares head's history */
};

sdb_timeline *sdb_timeline_new(const sdb_events *s) {
  sdb_timeline *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->s = s;
  t->head = sdb_view_new();
  t->cursor = t->head ? sdb_view_clone(t->head) : NULL;
  if (!t->cursor) { sdb_timeline_free(t); return NULL; }
  return t;
}

void sdb_timeline_free(sdb_timeline *t) {
  if (!t) return;
  sdb_view_free(t->cursor);
  sdb_view_free(t->head);
  free(t);
}

/* Fold the stream's events up to k (all: SIZE_MAX). Folding millions of
** events takes seconds, so when `cancellable` Ctrl-C (cancel.h) stops it
** between events; what was folded stays, and the rest is folded when next
** asked for. */
static size_t fold_to(sdb_timeline *t, size_t k, bool cancellable) {
  size_t n = sdb_events_count(t->s);
  if (k < n) n = k;
  for (size_t i = 0; t->head->step < n; i++) {
    if (cancellable && (i & 4095) == 0 && sdb_cancelled()) break;
    /* the stream's strings are interned already (sdb_emit), and it
    ** outlives the timeline's views: they point at its events */
    if (view_apply(t->head, sdb_events_at(t->s, t->head->step), true) != 0) break;
  }
  return t->head->step;
}

size_t sdb_timeline_length(sdb_timeline *t) { return fold_to(t, SIZE_MAX, true); }

const sdb_view *sdb_timeline_seek(sdb_timeline *t, size_t k) {
  /* a position already handed out is reached even after a Ctrl-C */
  if (k > sdb_events_count(t->s) || fold_to(t, k, false) < k) return NULL;
  if (t->cursor->st != t->head->st) {
    store_release(t->cursor->st);
    t->cursor->st = t->head->st;
    t->cursor->st->refs++;
  }
  t->cursor->step = k;
  return t->cursor;
}
