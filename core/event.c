/*
** event.c — the event stream (see event.h): an append-only array of event
** records plus the emission context and the sinks that watch it.
*/
#include "event.h"
#include "err.h"
#include "buf.h"
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SDB_EV_COUNT <= 256, "an event's kind is one byte");

static const char *const phase_names[SDB_PHASE_COUNT] = {
  "none", "trace", "cond", "aot", "lower", "guards",
};

const char *sdb_phase_name(sdb_phase p) {
  return (unsigned)p < SDB_PHASE_COUNT ? phase_names[p] : "?";
}

int sdb_phase_from_name(const char *name) {
  for (int i = 0; i < SDB_PHASE_COUNT; i++)
    if (!strcmp(phase_names[i], name)) return i;
  return -1;
}

static const char *const event_names[SDB_EV_COUNT] = {
  "phase_start", "phase_end", "fake_mode_created", "epoch_bumped",
  "create_symbol", "create_unbacked_symbol", "symbolic_shape_specialization",
  "pending_changed", "guard_added", "replacement_added", "runtime_assert_added",
  "range_refined", "size_like", "renamed", "node_placed", "unbacked_bindings",
  "memo_hit", "tracer_push", "tracer_pop", "graph_input_created",
  "symbol_bound", "cond_output_symbol", "hop_check", "autograd",
  "refakified", "buffer_lowered", "binding_check", "guards_installed",
  "guard_check", "recompile", "error", "note", "node_erased", "oblivious",
  "divergence", "graph_break",
};

const char *sdb_event_name(sdb_event_kind k) {
  return (unsigned)k < SDB_EV_COUNT ? event_names[k] : "?";
}

int sdb_event_from_name(const char *name) {
  for (int i = 0; i < SDB_EV_COUNT; i++)
    if (!strcmp(event_names[i], name)) return i;
  return -1;
}

#define MAX_OPS 32
#define MAX_SINKS 8

typedef struct { sdb_sink_fn fn; void *ud; } sink;

/* Events live in chunks of CHUNK: appending never moves them (pointers
** stay valid) and a long stream wastes at most one chunk, where a doubled
** array wasted up to half and copied itself at each doubling. */
#define CHUNK_BITS 10
#define CHUNK ((size_t)1 << CHUNK_BITS)

/* --- sites ----------------------------------------------------------------- */

/* An open-addressing set of sites, keyed by their fields (the strings
** interned, so compared by pointer). Sites are allocated in blocks that
** are never moved: events point into them. */
#define SITE_BLOCK 256
typedef struct site_block { struct site_block *next; sdb_site v[SITE_BLOCK]; } site_block;
const sdb_site sdb_no_site;
/* by id, from 1 (id 0 is sdb_no_site): what events keep */
const sdb_site *const *sdb_site_table_;
static const sdb_site **site_by_id;
static size_t site_ids, site_ids_cap;
static const sdb_site **site_slots;
static size_t site_cap, site_len;
static site_block *site_blocks;
static size_t site_block_used = SITE_BLOCK;

static size_t site_hash(const char *tracer, int depth, const char *file, int line, const char *func) {
  uint64_t h = (uintptr_t)tracer * 0x9E3779B97F4A7C15u;
  h = (h ^ (uintptr_t)file) * 0xff51afd7ed558ccdu;
  h = (h ^ (uintptr_t)func) * 0xc4ceb9fe1a85ec53u;
  h = (h ^ ((uint64_t)(uint32_t)line << 32 | (uint32_t)depth)) * 0x9E3779B97F4A7C15u;
  return (size_t)(h ^ (h >> 29));
}

static bool site_grow(void) {
  size_t ncap = site_cap ? site_cap * 2 : 64;
  const sdb_site **t = sdb_noted(calloc(ncap, sizeof *t));
  if (!t) return false;
  for (size_t i = 0; i < site_cap; i++) {
    const sdb_site *x = site_slots[i];
    if (!x) continue;
    size_t j = site_hash(x->tracer, x->depth, x->file, x->line, x->func) & (ncap - 1);
    while (t[j]) j = (j + 1) & (ncap - 1);
    t[j] = x;
  }
  free(site_slots);
  site_slots = t;
  site_cap = ncap;
  return true;
}

const sdb_site *sdb_site_get(const char *tracer, int depth, const char *file, int line,
                             const char *func) {
  if (!tracer && !file && !func && !depth && !line) return &sdb_no_site;   /* one "nowhere" */
  tracer = sdb_intern(tracer);
  file = sdb_intern(file);
  func = sdb_intern(func);
  if (site_len * 2 >= site_cap && !site_grow()) return &sdb_no_site;
  size_t j = site_hash(tracer, depth, file, line, func) & (site_cap - 1);
  for (const sdb_site *x; (x = site_slots[j]); j = (j + 1) & (site_cap - 1))
    if (x->tracer == tracer && x->file == file && x->func == func && x->line == line &&
        x->depth == depth)
      return x;
  if (site_ids + 1 >= site_ids_cap) {   /* a new site: room for its id */
    size_t cap = site_ids_cap ? site_ids_cap * 2 : 64;
    const sdb_site **v = sdb_noted(realloc(site_by_id, cap * sizeof *v));
    if (!v) return &sdb_no_site;
    v[0] = &sdb_no_site;
    sdb_site_table_ = site_by_id = v;
    site_ids_cap = cap;
  }
  if (site_block_used == SITE_BLOCK) {
    site_block *b = sdb_noted(malloc(sizeof *b));
    if (!b) return &sdb_no_site;
    b->next = site_blocks;
    site_blocks = b;
    site_block_used = 0;
  }
  sdb_site *x = &site_blocks->v[site_block_used++];
  x->tracer = tracer;
  x->file = file;
  x->func = func;
  x->depth = depth;
  x->line = line;
  x->id = (uint32_t)++site_ids;
  site_by_id[x->id] = x;
  site_slots[j] = x;
  site_len++;
  return x;
}

void sdb_sites_reset(void) {
  while (site_blocks) {
    site_block *b = site_blocks;
    site_blocks = b->next;
    free(b);
  }
  free(site_slots);
  site_slots = NULL;
  site_cap = site_len = 0;
  site_block_used = SITE_BLOCK;
  free(site_by_id);
  sdb_site_table_ = site_by_id = NULL;
  site_ids = site_ids_cap = 0;
}

/* --- the stream --------------------------------------------------------------- */

_Static_assert(sizeof(sdb_event) == 36, "a stream holds millions of events: 36 bytes each");

struct sdb_events {
  sdb_event **chunks;
  size_t nchunks, capchunks;
  size_t len;
  sdb_phase phase;
  sdb_locate_fn locate;
  void *locate_ud;
  sdb_iref ops[MAX_OPS];      /* interned when pushed */
  bool op_fresh[MAX_OPS];     /* the call at this depth has made no event yet */
  int nops;
  bool marks_op_calls;        /* an event with op_first was appended */
  sdb_loc locs[MAX_OPS];      /* sdb_events_push_loc */
  /* op names as pushed (mostly the op table's own strings) -> interned:
  ** every op call pushes its name, and hashing it each time showed */
  int nlocs;
  size_t max;                 /* sdb_events_set_max */
  const char *tracer;
  int depth;
  /* the site of the last event emitted: most events share the one before */
  const sdb_site *last_site;
  /* what the events own, freed with the stream (a malloc each was a fifth
  ** of a long run's blocks), named by 32-bit references: the placed
  ** nodes' lines in `texts`, the rarer fields, syms and texts in `blocks` */
  sdb_tstore texts, blocks;
  size_t lost;                 /* events not appended, or placed nowhere, for want of memory */
  sink sinks[MAX_SINKS];
};

sdb_events *sdb_events_new(void) {
  sdb_events *s = calloc(1, sizeof *s);
  if (s) s->tracer = sdb_intern("trace");
  return s;
}

void sdb_events_free(sdb_events *s) {
  if (!s) return;
  sdb_tstore_free(&s->texts);
  sdb_tstore_free(&s->blocks);
  for (size_t c = 0; c < s->nchunks; c++) free(s->chunks[c]);
  free(s->chunks);
  free(s);
}

void sdb_events_set_phase(sdb_events *s, sdb_phase p) { if (s) s->phase = p; }
sdb_phase sdb_events_phase(const sdb_events *s) { return s ? s->phase : SDB_PHASE_NONE; }

void sdb_events_set_locator(sdb_events *s, sdb_locate_fn fn, void *ud) {
  if (!s) return;
  s->locate = fn;
  s->locate_ud = ud;
}

bool sdb_events_locate(sdb_events *s, sdb_loc *out) {
  out->file = out->func = NULL;
  out->line = 0;
  for (int i = s ? s->nlocs : 0; i-- > 0;)
    if (i < MAX_OPS && s->locs[i].file) {
      *out = s->locs[i];
      return true;
    }
  return s && s->locate && s->locate(s->locate_ud, out);
}

void sdb_events_push_loc(sdb_events *s, const sdb_loc *loc) {
  if (!s) return;
  if (s->nlocs < MAX_OPS) s->locs[s->nlocs] = *loc;
  s->nlocs++;
}

void sdb_events_pop_loc(sdb_events *s) {
  if (s && s->nlocs > 0) s->nlocs--;
}

void sdb_events_push_op(sdb_events *s, const char *op) {
  if (!s) return;
  if (s->nops < MAX_OPS) {
    s->ops[s->nops] = sdb_intern_at_ref(op);
    s->op_fresh[s->nops] = true;
  }
  s->nops++;
}

void sdb_events_push_op_ref(sdb_events *s, sdb_iref op) {
  if (!s) return;
  if (s->nops < MAX_OPS) {
    s->ops[s->nops] = op;
    s->op_fresh[s->nops] = true;
  }
  s->nops++;
}

void sdb_events_pop_op(sdb_events *s) {
  if (s && s->nops > 0) s->nops--;
}

static sdb_iref top_op(const sdb_events *s) {
  if (!s || s->nops == 0) return 0;
  return s->ops[(s->nops > MAX_OPS ? MAX_OPS : s->nops) - 1];
}

const char *sdb_events_op(const sdb_events *s) { return sdb_iref_str(top_op(s)); }

void sdb_events_set_tracer(sdb_events *s, const char *path, int depth) {
  if (!s) return;
  /* set around every node a tracer places: the same interned path is the
  ** common case */
  s->tracer = path == s->tracer ? path : sdb_intern(path);
  s->depth = depth;
}

const char *sdb_events_tracer(const sdb_events *s, int *depth) {
  if (depth) *depth = s ? s->depth : 0;
  return s ? s->tracer : NULL;
}

sdb_event_in sdb_event_unpack(const sdb_event *e) {
  sdb_event_in in;
  memset(&in, 0, sizeof in);
  in.seq = e->seq;
  in.site_ = e->site_;
  in.kind = e->kind;
  in.phase = e->phase;
  in.flags = e->flags;
  in.op_first = e->op_first;
  in.op_ = e->op_;
  in.value = sdb_event_value(e);
  in.text = sdb_event_text(e);
  in.detail = sdb_event_detail(e);
  in.more = sdb_event_more_of(e);
  return in;
}

bool sdb_event_store(sdb_event *out, const sdb_event_in *ev, sdb_tstore *texts,
                     sdb_tstore *blocks) {
  memset(out, 0, sizeof *out);
  out->seq = ev->seq;
  out->site_ = ev->site_;
  out->kind = ev->kind;
  out->phase = ev->phase;
  out->flags = ev->flags;
  out->op_first = ev->op_first;
  out->op_ = ev->op_;
  memcpy(out->value_, &ev->value, sizeof out->value_);
  /* every string interned (a placed node's line aside), so readers of the
  ** stream compare them by pointer (core/view.c folds them as they are) */
  if (ev->text && !(out->text_ = sdb_intern_ref(ev->text))) return false;
  if (sdb_event_kind_owns_detail(ev->kind)) {
    if (!sdb_tstore_put(texts, ev->detail, &out->detail_)) return false;
  } else if (ev->detail && !(out->detail_ = sdb_intern_ref(ev->detail))) {
    return false;
  }
  const sdb_event_more *in = ev->more;
  sdb_event_more u;
  if (in && sdb_more_packed(in)) {   /* another stream's copy: copied again, whole */
    memset(&u, 0, sizeof u);
    u.sym = sdb_more_sym(in);
    u.expr = sdb_more_expr(in);
    u.sym2 = sdb_more_sym2(in);
    u.text2 = sdb_more_text2(in);
    u.has_range = sdb_more_has_range(in);
    u.range = sdb_more_range(in);
    u.nsyms = sdb_more_nsyms(in);
    u.syms = (const sdb_expr **)sdb_more_syms(in);
    u.texts = sdb_more_texts(in);
    in = &u;
  }
  uint32_t n = in && in->syms ? in->nsyms : 0;
  unsigned has = SDB_MORE_PACKED;
  if (in && in->sym2) has |= SDB_MORE_SYM2;
  if (in && in->text2) has |= SDB_MORE_TEXT2;
  if (in && in->has_range) has |= SDB_MORE_RANGE;
  if (n) has |= SDB_MORE_SYMS;
  if (n && in->texts) has |= SDB_MORE_TEXTS;
  if (in && in->expr) has |= SDB_MORE_EXPR;
  if (in && in->sym) has |= SDB_MORE_SYM;
  if (has != SDB_MORE_PACKED) {   /* some field set (most events have none) */
    size_t words = sdb_more_words(has, SDB_MORE_END);
    size_t size = sizeof(sdb_more_head) + words * sizeof(void *);
    char *blk = sdb_tstore_alloc(blocks, size, &out->more_);
    if (!blk) return false;
    sdb_more_head *h = (sdb_more_head *)(void *)blk;
    memset(h, 0, sizeof *h);
    h->packed_ = (uint8_t)has;
    h->is_bool = (has & SDB_MORE_RANGE) && in->range.is_bool;
    h->nsyms = n;
    char *w = blk + sizeof *h;   /* the fields in the order of their bits */
    if (has & SDB_MORE_SYM) { memcpy(w, &in->sym, sizeof in->sym); w += sizeof(void *); }
    if (has & SDB_MORE_EXPR) { memcpy(w, &in->expr, sizeof in->expr); w += sizeof(void *); }
    if (has & SDB_MORE_SYM2) { memcpy(w, &in->sym2, sizeof in->sym2); w += sizeof(void *); }
    if (has & SDB_MORE_TEXT2) {
      const char *t = sdb_intern(in->text2);
      memcpy(w, &t, sizeof t);
      w += sizeof(void *);
    }
    if (has & SDB_MORE_RANGE) {
      memcpy(w, &in->range.lo, sizeof(int64_t));
      memcpy(w + sizeof(int64_t), &in->range.hi, sizeof(int64_t));
      w += 2 * sizeof(int64_t);
    }
    if (has & SDB_MORE_SYMS) {
      sdb_tref r;
      const sdb_expr **v = sdb_tstore_alloc(blocks, n * sizeof *v, &r);
      if (!v) return false;
      memcpy(v, in->syms, n * sizeof *v);
      memcpy(w, &v, sizeof v);
      w += sizeof(void *);
    }
    if (has & SDB_MORE_TEXTS) {
      sdb_tref r;
      const char **t = sdb_tstore_alloc(blocks, n * sizeof *t, &r);
      if (!t) return false;
      for (uint32_t i = 0; i < n; i++) t[i] = sdb_intern(in->texts[i]);
      memcpy(w, &t, sizeof t);
    }
  }
  return true;
}

/* The op is a reference already (sdb_emit_at's from the stack of ops,
** whose names are looked up once per push, not once per event). */
static long append_(sdb_events *s, const sdb_event_in *in) {
  if (s->len == s->nchunks * CHUNK) {
    if (s->nchunks == s->capchunks) {
      size_t cap = s->capchunks ? s->capchunks * 2 : 16;
      sdb_event **v = realloc(s->chunks, cap * sizeof *v);
      if (!v) return -1;
      s->chunks = v;
      s->capchunks = cap;
    }
    sdb_event *c = malloc(CHUNK * sizeof *c);
    if (!c) return -1;
    s->chunks[s->nchunks++] = c;
  }
  sdb_event *e = &s->chunks[s->len >> CHUNK_BITS][s->len & (CHUNK - 1)];
  if (!sdb_event_store(e, in, &s->texts, &s->blocks)) return -1;
  e->seq = (uint32_t)s->len;
  s->len++;
  if (e->op_first) s->marks_op_calls = true;
  for (int i = 0; i < MAX_SINKS; i++)
    if (s->sinks[i].fn) s->sinks[i].fn(s->sinks[i].ud, e);
  return (long)e->seq;
}

/* Out of memory, the event is counted as lost: the program goes on (its
** state is whole, its history not), and what saves the history says so. */
static long append(sdb_events *s, const sdb_event_in *in) {
  long seq = append_(s, in);
  if (seq < 0) s->lost++;
  return seq;
}

size_t sdb_events_lost(const sdb_events *s) { return s ? s->lost : 0; }
void sdb_events_note_lost(sdb_events *s) { if (s) s->lost++; }


/* The events that stopping a program at the cap makes (an error, the
** ends of its phases) fit in this much room past it. */
#define MAX_SLACK 4096

void sdb_events_set_max(sdb_events *s, size_t max) { if (s) s->max = max; }
bool sdb_events_full(const sdb_events *s) { return s && s->max && s->len >= s->max; }

long sdb_emit_at(sdb_events *s, const sdb_event_in *ev, const sdb_loc *loc) {
  if (!s) return 0;
  if (s->max && s->len >= s->max + MAX_SLACK) return -1;
  sdb_event_in e = *ev;
  e.phase = (uint8_t)s->phase;
  e.op_ = top_op(s);
  /* the first event of a call: the op is pushed again inside its own call
  ** (the tracer's and the op's own push), so every open call of this op
  ** that made no event yet is answered by this one */
  e.op_first = false;
  for (int i = (s->nops < MAX_OPS ? s->nops : MAX_OPS) - 1; e.op_ && i >= 0; i--)
    if (s->op_fresh[i] && s->ops[i] == e.op_) {
      e.op_first = true;
      s->op_fresh[i] = false;
    }
  const char *file = loc ? loc->file : NULL, *func = loc ? loc->func : NULL;
  int line = loc ? loc->line : 0;
  const sdb_site *x = s->last_site;
  if (!x || x->tracer != s->tracer || x->depth != s->depth || x->file != file || x->line != line ||
      x->func != func)
    s->last_site = x = sdb_site_get(s->tracer, s->depth, file, line, func);
  e.site_ = x->id;
  /* the site with no fields for one that has some: out of memory, the
  ** event is kept (nowhere) but the history is not what ran */
  if (!x->id && (s->tracer || file || func || line)) s->lost++;
  return append(s, &e);
}

long sdb_emit(sdb_events *s, const sdb_event_in *ev) {
  sdb_loc loc;
  return sdb_emit_at(s, ev, s && sdb_events_locate(s, &loc) ? &loc : NULL);
}

long sdb_emit_raw(sdb_events *s, const sdb_event_in *ev) {
  if (!s) return 0;
  return append(s, ev);
}

size_t sdb_events_count(const sdb_events *s) { return s ? s->len : 0; }
bool sdb_events_marks_op_calls(const sdb_events *s) { return s && s->marks_op_calls; }

const sdb_event *sdb_events_at(const sdb_events *s, size_t i) {
  return s && i < s->len ? &s->chunks[i >> CHUNK_BITS][i & (CHUNK - 1)] : NULL;
}

int sdb_events_add_sink(sdb_events *s, sdb_sink_fn fn, void *ud) {
  if (!s) return -1;
  for (int i = 0; i < MAX_SINKS; i++) {
    if (!s->sinks[i].fn) {
      s->sinks[i].fn = fn;
      s->sinks[i].ud = ud;
      return i;
    }
  }
  return -1;
}

void sdb_events_remove_sink(sdb_events *s, int id) {
  if (s && id >= 0 && id < MAX_SINKS) s->sinks[id].fn = NULL;
}

/* --- formatting ----------------------------------------------------------- */

/* An event the stream holds always has the expression (a saved trace
** without one is refused): "?" is for an emitter's event printed as is. */
static void put_expr(sdb_buf *b, const sdb_expr *e) {
  if (!e) { sdb_buf_puts(b, "?"); return; }
  sdb_expr_put(b, e);   /* out of memory, b is failed: the summary is NULL */
}

static void put_range(sdb_buf *b, sdb_range r) {
  char buf[SDB_RANGE_STRLEN];
  sdb_buf_puts(b, sdb_range_str(r, buf, sizeof buf));
}

static void put_symset(sdb_buf *b, const sdb_event *ev) {
  sdb_buf_putc(b, '{');
  for (uint32_t i = 0; i < sdb_event_nsyms(ev); i++) {
    if (i) sdb_buf_puts(b, ", ");
    put_expr(b, sdb_event_syms(ev)[i]);
  }
  sdb_buf_putc(b, '}');
}

static void summary(sdb_buf *b, const sdb_event *ev) {
  const char *text = sdb_event_text(ev), *detail = sdb_event_detail(ev);
  sdb_buf_puts(b, sdb_event_name((sdb_event_kind)ev->kind));
  switch (ev->kind) {
    case SDB_EV_PHASE_START: case SDB_EV_PHASE_END:
      sdb_buf_printf(b, " %s", sdb_phase_name((sdb_phase)ev->phase));
      if (text) sdb_buf_printf(b, " (%s)", text);
      break;
    case SDB_EV_FAKE_MODE_CREATED:
      sdb_buf_printf(b, " #%lld", (long long)sdb_event_value(ev));
      if (text) sdb_buf_printf(b, " (%s)", text);
      break;
    case SDB_EV_EPOCH_BUMPED:
      sdb_buf_printf(b, " epoch=%lld", (long long)sdb_event_value(ev));
      break;
    case SDB_EV_CREATE_SYMBOL:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      if (ev->flags & SDB_EVF_NO_HINT) {
        sdb_buf_printf(b, " (no hint) for %s", text ? text : "?");
        if (sdb_event_has_range(ev)) { sdb_buf_putc(b, ' '); put_range(b, sdb_event_range(ev)); }
      } else {
        sdb_buf_printf(b, " = %lld for %s ", (long long)sdb_event_value(ev), text ? text : "?");
        put_range(b, sdb_event_range(ev));
      }
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_CREATE_UNBACKED:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      sdb_buf_putc(b, ' ');
      put_range(b, sdb_event_range(ev));
      if (text && strcmp(text, "int")) sdb_buf_printf(b, " (%s)", text);
      /* an imported log's symbol first seen in a guard: "(mentioned in guard_added)" */
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_SPECIALIZATION:
      sdb_buf_printf(b, " %s = ", text ? text : "?");
      put_expr(b, sdb_event_expr(ev));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_PENDING_CHANGED:
      sdb_buf_putc(b, ' ');
      put_symset(b, ev);
      break;
    case SDB_EV_GUARD_ADDED:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_expr(ev));
      break;
    case SDB_EV_REPLACEMENT_ADDED:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      sdb_buf_puts(b, " -> ");
      put_expr(b, sdb_event_expr(ev));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_RUNTIME_ASSERT:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_expr(ev));
      break;
    case SDB_EV_RANGE_REFINED:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      sdb_buf_putc(b, ' ');
      put_range(b, sdb_event_range(ev));
      break;
    case SDB_EV_SIZE_LIKE: case SDB_EV_MEMO_HIT: case SDB_EV_SYMBOL_BOUND:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      if (text) sdb_buf_printf(b, " %s", text);
      break;
    case SDB_EV_RENAMED:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      sdb_buf_puts(b, " -> ");
      put_expr(b, sdb_event_sym2(ev));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_UNBACKED_BINDINGS:
      if (text) sdb_buf_printf(b, " %%%s", text);
      for (uint32_t i = 0; i < sdb_event_nsyms(ev); i++) {
        sdb_buf_puts(b, i ? ", " : " ");
        put_expr(b, sdb_event_syms(ev)[i]);
        /* the empty key path (item()): the value itself */
        const char *path = sdb_event_texts(ev) && sdb_event_texts(ev)[i] ? sdb_event_texts(ev)[i] : "";
        sdb_buf_printf(b, ": %s", *path ? path : "<value>");
      }
      break;
    case SDB_EV_COND_OUTPUT_SYMBOL:
      sdb_buf_putc(b, ' ');
      put_expr(b, sdb_event_sym(ev));
      sdb_buf_putc(b, ' ');
      put_range(b, sdb_event_range(ev));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_HOP_CHECK: case SDB_EV_BINDING_CHECK: case SDB_EV_GUARD_CHECK:
      sdb_buf_puts(b, ev->flags ? " ok" : " FAILED");
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) sdb_buf_printf(b, ": %s", detail);
      break;
    case SDB_EV_GUARDS_INSTALLED:
      sdb_buf_printf(b, " %lld guard%s", (long long)sdb_event_value(ev),
                     sdb_event_value(ev) == 1 ? "" : "s");
      break;
    case SDB_EV_BUFFER_LOWERED:
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      if (sdb_event_nsyms(ev)) { sdb_buf_puts(b, " defines "); put_symset(b, ev); }
      break;
    case SDB_EV_NODE_ERASED:
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_OBLIVIOUS:
      /* guard_size_oblivious(Eq(u0, 1)) -> False: why */
      sdb_buf_printf(b, " %s", text ? text : "?");
      if (sdb_event_expr(ev)) {   /* else text is the whole call: sym_max(u0, 3) */
        sdb_buf_putc(b, '(');
        put_expr(b, sdb_event_expr(ev));
        sdb_buf_putc(b, ')');
      }
      sdb_buf_printf(b, " -> %s", sdb_event_text2(ev) ? sdb_event_text2(ev) : "?");
      if (detail) sdb_buf_printf(b, ": %s", detail);
      break;
    case SDB_EV_GRAPH_BREAK:
      /* the reason's first line: the rest (explanation, hints, the user's
      ** traceback) is the detail, for `info graph` and saved traces */
      if (text) sdb_buf_printf(b, " %s", text);
      break;
    case SDB_EV_ERROR: {
      /* the message usually starts with its kind already: say it once */
      size_t n = text ? strlen(text) : 0;
      if (text && !(detail && !strncmp(detail, text, n) && detail[n] == ':'))
        sdb_buf_printf(b, " %s%s", text, detail ? ":" : "");
      if (detail) sdb_buf_printf(b, " %s", detail);
      break;
    }
    default:
      if (sdb_event_sym(ev)) { sdb_buf_putc(b, ' '); put_expr(b, sdb_event_sym(ev)); }
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) sdb_buf_printf(b, ": %s", detail);
      break;
  }
}

char *sdb_event_summary(const sdb_event *ev) {
  sdb_buf b = SDB_BUF_INIT;
  unsigned long lost = sdb_tstore_losses();
  summary(&b, ev);
  if (sdb_tstore_losses() != lost) b.failed = true;   /* its line read as "?" */
  return sdb_buf_take(&b);
}

char *sdb_event_format(const sdb_event *ev) {
  sdb_buf b = SDB_BUF_INIT;
  char loc[256] = "-";
  const sdb_site *at = sdb_event_site(ev);
  if (at->file) {
    const char *base = strrchr(at->file, '/');
    snprintf(loc, sizeof loc, "%s:%d", base ? base + 1 : at->file, at->line);
  }
  sdb_buf_printf(&b, "%-6s %-16s ", sdb_phase_name((sdb_phase)ev->phase), loc);
  unsigned long lost = sdb_tstore_losses();
  summary(&b, ev);
  if (sdb_tstore_losses() != lost) b.failed = true;   /* its line read as "?" */
  return sdb_buf_take(&b);
}
