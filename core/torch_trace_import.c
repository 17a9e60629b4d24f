/*
** torch_trace_import.c — TORCH_TRACE records to shapedb events (see
** torch_trace_import.h for the mapping).
**
** One pass over the reader. State that depends on where we are in the
** file — which compile is current, which Python object id names which
** expression or symbol — is resolved when the record is read, because ids
** are reused after garbage collection: a guard's expression tree is
** rendered as text right when the guard arrives and stored with it.
*/
#include "err.h"
#include "torch_trace_import.h"

#include "arena.h"
#include "buf.h"
#include "expr.h"
#include "intern.h"
#include "jsonline.h"
#include "map.h"
#include "ranges.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PSEUDO_ID "[-/-]"

/* A guard (or assert) as logged, with its tree rendered when read. */
typedef struct tguard {
  const char *expr;        /* interned, as logged */
  const char *what;        /* "guard (eval)", "runtime assert", ... interned */
  const char *file, *func; /* interned */
  long line, rec_line;
  char *tree;              /* owned */
} tguard;

/* Lines of one file that the log quotes (interned text by line number). */
typedef struct srclines {
  const char **line;
  size_t n;
} srclines;

typedef struct cstate {
  sdb_tti_compile pub;
  sdb_map syms;            /* symbols seen in this compile (expr -> 1) */
  sdb_map hints;           /* backed symbol name (interned) -> create_symbol val */
  const char *last_fast;   /* the last guard_added_fast's expr (dedupe guard_added) */
  size_t capgraphs;
} cstate;

struct sdb_tti {
  sdb_tt_reader *r;
  sdb_events *ev;
  cstate **comps;
  size_t ncomps, capcomps;
  sdb_map byid;            /* interned "[0/1]" -> index + 1 */
  long cur;                /* current compile, -1 before any */
  /* Python object ids, resolved as read */
  sdb_map nodes;           /* id -> cJSON* meta of expression_created (in held) */
  sdb_map idsym;           /* id -> interned symbol name (create_unbacked_symbol) */
  sdb_map byexpr;          /* result expression -> its latest result_id (as a key) */
  sdb_map symsrc;          /* symbol expr -> interned source (any compile) */
  tguard *guards;
  size_t nguards, capguards;
  cJSON **held;            /* metas copied out of their records for the node table */
  size_t nheld, capheld;
  long unparsed;           /* expressions the model could not read */
  sdb_map srcs;            /* interned file -> srclines* */
  sdb_tti_stack_fn stack_fn;
  void *stack_ud;
  const sdb_tt_record *rec;   /* the record being imported */
  const char *rec_stack;   /* its stack text, once computed (interned) */
  bool rec_stack_done;
  sdb_tti_counts totals;
  sdb_arena texts;         /* the graphs' texts */
};

/* ---- small helpers ----------------------------------------------------- */

static const char *jstr(const cJSON *o, const char *key) {
  return sdb_jl_str(sdb_jl_get(o, key));
}

/* An array's last item, to walk it innermost first through item->prev
** (found by walking: that the first item's prev is the last is newer
** than some cJSON releases). */
static const cJSON *last_item(const cJSON *a) {
  const cJSON *c = cJSON_IsArray(a) ? a->child : NULL;
  while (c && c->next) c = c->next;
  return c;
}
static const cJSON *prev_item(const cJSON *a, const cJSON *item) {
  return item == a->child ? NULL : item->prev;
}

static bool grow(void **v, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t c = *cap ? *cap * 2 : 8;
  void *p = sdb_noted(realloc(*v, c * size));
  if (!p) return false;
  *v = p;
  *cap = c;
  return true;
}

static const char *basename_of(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path;
}

/* "[2, int_oo]", "VR[-int_oo, 15]" -> range; false if not a range. */
static bool parse_range(const char *s, sdb_range *out) {
  if (!s) return false;
  if (!strncmp(s, "VR", 2)) s += 2;
  if (*s++ != '[') return false;
  int64_t b[2];
  for (int i = 0; i < 2; i++) {
    while (*s == ' ') s++;
    if (!strncmp(s, "-int_oo", 7) || !strncmp(s, "-oo", 3)) {
      b[i] = SDB_NINF;
      s += s[1] == 'i' ? 7 : 3;
    } else if (!strncmp(s, "int_oo", 6) || !strncmp(s, "oo", 2)) {
      b[i] = SDB_PINF;
      s += s[0] == 'i' ? 6 : 2;
    } else {
      char *end;
      long long v = strtoll(s, &end, 10);
      if (end == s || *end == '.') return false;
      b[i] = v;
      s = end;
    }
    while (*s == ' ') s++;
    if (*s++ != (i ? ']' : ',')) return false;
  }
  *out = sdb_range_make(b[0], b[1]);
  return true;
}

/* ---- locations ---------------------------------------------------------- */

typedef struct where {
  const char *file, *func;
  long line;
} where;

/* PyTorch's own frames (and the interpreter's) are not where the user
** is: a full `stack` runs from the test harness down to trace_structured. */
static bool internal_file(const char *f) {
  return strstr(f, "/torch/") || !strncmp(f, "torch/", 6) || strstr(f, "/site-packages/") ||
         strstr(f, "/lib/python") || !strcmp(f, "<unknown>");
}

/* The innermost frame of STACK outside PyTorch, else its innermost. */
static bool user_frame(const sdb_tti *t, const cJSON *stack, sdb_tt_frame *out) {
  const cJSON *last = last_item(stack);
  for (const cJSON *fr = last; fr; fr = prev_item(stack, fr))
    if (sdb_tt_frame_get(t->r, fr, out) && !internal_file(out->file)) return true;
  return last && sdb_tt_frame_get(t->r, last, out);
}

static void quote_line(sdb_tti *t, const char *file, long line, const char *text) {
  if (!file || !text || !*text || line <= 0 || line > 1000000) return;
  srclines *s = sdb_map_get(&t->srcs, file);
  if (!s) {
    if (!(s = sdb_noted(calloc(1, sizeof *s)))) return;
    if (!sdb_map_put(&t->srcs, file, s)) { free(s); return; }
  }
  if ((size_t)line >= s->n) {
    size_t n = (size_t)line + 1 > s->n * 2 ? (size_t)line + 1 : s->n * 2;
    const char **v = sdb_noted(realloc(s->line, n * sizeof *v));
    if (!v) return;
    memset(v + s->n, 0, (n - s->n) * sizeof *v);
    s->line = v;
    s->n = n;
  }
  s->line[line] = text;
}

static void quote_frames(sdb_tti *t, const cJSON *stack) {
  if (!cJSON_IsArray(stack)) return;
  for (const cJSON *fr = stack->child; fr; fr = fr->next) {
    sdb_tt_frame f;
    if (sdb_tt_frame_get(t->r, fr, &f)) quote_line(t, f.file, f.line, f.loc);
  }
}

/* "# File: /path/x.py:298 in forward, code: return a * a" in graph text */
static void quote_graph(sdb_tti *t, const char *text) {
  for (const char *p = strstr(text, "# File: "); p; p = strstr(p + 1, "# File: ")) {
    const char *path = p + 8, *eol = strchr(path, '\n');
    const char *code = strstr(path, ", code: ");
    if (!code || (eol && code > eol)) continue;
    const char *colon = NULL;
    for (const char *q = path; q < code; q++)
      if (*q == ':' && q[1] >= '0' && q[1] <= '9') colon = q;
    if (!colon) continue;
    long line = strtol(colon + 1, NULL, 10);
    size_t n = eol ? (size_t)(eol - (code + 8)) : strlen(code + 8);
    quote_line(t, sdb_intern_n(path, (size_t)(colon - path)), line, sdb_intern_n(code + 8, n));
  }
}

/* The user's line: the innermost frame of user_stack, else the innermost
** frame outside PyTorch of the metadata's stack, else of the envelope's
** stack (older logs leave user_stack empty). */
static where locate(const sdb_tti *t, const sdb_tt_record *rec) {
  where w = {NULL, NULL, 0};
  const cJSON *stacks[3] = {sdb_jl_get(rec->meta, "user_stack"), sdb_jl_get(rec->meta, "stack"),
                            sdb_jl_get(rec->root, "stack")};
  sdb_tt_frame f;
  const cJSON *last = last_item(stacks[0]);
  bool ok = last && sdb_tt_frame_get(t->r, last, &f);
  for (int i = 1; i < 3 && !ok; i++) ok = user_frame(t, stacks[i], &f);
  if (ok) {
    w.file = f.file;
    w.line = f.line;
    w.func = f.name;
    quote_line((sdb_tti *)t, f.file, f.line, f.loc);
  }
  return w;
}

/* ---- compiles ------------------------------------------------------------ */

/* A compile's place when compiles are sorted by their ids without the
** attempt, then by creation. */
typedef struct attempt_ix {
  const sdb_tt_cid *cid;
  size_t i;
} attempt_ix;

static int cmp_attempts(const void *x, const void *y) {
  const attempt_ix *p = x, *q = y;
  const sdb_tt_cid *a = p->cid, *b = q->cid;
  if (a->ca != b->ca) return a->ca < b->ca ? -1 : 1;
  if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
  if (a->fcid != b->fcid) return a->fcid < b->fcid ? -1 : 1;
  return p->i < q->i ? -1 : p->i > q->i;
}

/* An attempt followed by a later one of the same id was restarted: it
** takes the code object the later attempt compiled (not its caller's).
** Only compiles of one id meet, so they are compared within their group
** (all pairs was quadratic in the compiles: 70% of a 100 MiB import). */
static void mark_restarted(sdb_tti *t) {
  attempt_ix *ix = sdb_noted(malloc(t->ncomps * sizeof *ix));
  if (!ix) return;
  for (size_t i = 0; i < t->ncomps; i++) ix[i] = (attempt_ix){&t->comps[i]->pub.cid, i};
  qsort(ix, t->ncomps, sizeof *ix, cmp_attempts);
  for (size_t g = 0, end; g < t->ncomps; g = end) {
    const sdb_tt_cid *k = ix[g].cid;
    for (end = g + 1; end < t->ncomps; end++) {
      const sdb_tt_cid *c = ix[end].cid;
      if (c->ca != k->ca || c->frame != k->frame || c->fcid != k->fcid) break;
    }
    if (k->frame < 0) continue;
    for (size_t i = g; i < end; i++)   /* creation order, as before */
      for (size_t j = g; j < end; j++) {
        sdb_tti_compile *a = &t->comps[ix[i].i]->pub, *b = &t->comps[ix[j].i]->pub;
        if (a->cid.attempt < b->cid.attempt && !strcmp(a->status, "running")) {
          a->status = sdb_intern("restarted");
          if (b->func) {
            a->func = b->func;
            a->file = b->file;
            a->lineno = b->lineno;
          }
        }
      }
  }
  free(ix);
}

static cstate *compile_now(const sdb_tti *t) {
  return t->cur >= 0 ? t->comps[t->cur] : NULL;
}

/* The record's user stack as `where` prints one, innermost first. */
static const char *stack_text(sdb_tti *t) {
  if (t->rec_stack_done) return t->rec_stack;
  t->rec_stack_done = true;
  const sdb_tt_record *rec = t->rec;
  if (!rec) return NULL;
  const cJSON *us = sdb_jl_get(rec->meta, "user_stack"), *last = last_item(us);
  bool user = last != NULL;
  if (!last) last = last_item(us = sdb_jl_get(rec->meta, "stack"));
  if (!last) last = last_item(us = sdb_jl_get(rec->root, "stack"));
  sdb_buf b = SDB_BUF_INIT;
  int k = 0;
  for (const cJSON *fr = last; fr && k < 64; fr = prev_item(us, fr)) {
    sdb_tt_frame f;
    if (!sdb_tt_frame_get(t->r, fr, &f)) continue;
    if (!user && internal_file(f.file)) continue;
    sdb_buf_printf(&b, "%s#%d  %s at %s:%ld", k ? "\n" : "", k, f.name, basename_of(f.file),
                   f.line);
    k++;
  }
  t->rec_stack = b.len ? sdb_intern(sdb_buf_cstr(&b)) : NULL;
  sdb_buf_free(&b);
  return t->rec_stack;
}

static long emit(sdb_tti *t, sdb_event_in *e, const where *w) {
  cstate *c = compile_now(t);
  sdb_event_set_site(e, sdb_site_get(c ? c->pub.id : NULL, 0, w ? w->file : NULL,
                                     w ? (int)w->line : 0, w ? w->func : NULL));
  long seq = sdb_emit_raw(t->ev, e);
  if (seq >= 0 && w && t->stack_fn) {
    const char *st = stack_text(t);
    if (st) t->stack_fn(t->stack_ud, (size_t)seq, st);
  }
  return seq;
}

/* Switch to the compile with id CID (creating it, with its phase_start),
** or to the pseudo-compile for records without an id. */
static cstate *enter(sdb_tti *t, const sdb_tt_cid *cid, const sdb_tt_record *rec) {
  /* most records belong to the current compile: no id to print and look up
  ** (the pseudo-compile has the cid of no id, but not its name) */
  cstate *now = compile_now(t);
  if (cid && now && sdb_tt_cid_eq(&now->pub.cid, cid) && strcmp(now->pub.id, PSEUDO_ID) != 0)
    return now;
  char buf[96];
  const char *id = cid ? sdb_intern(sdb_tt_cid_str(cid, buf, sizeof buf)) : sdb_intern(PSEUDO_ID);
  long idx = (long)(intptr_t)sdb_map_get(&t->byid, id) - 1;
  /* a record of an earlier compile after another began (late metrics or
  ** artifacts) is attributed to it; its events stay in stream order */
  if (idx >= 0) return t->comps[idx];
  if (!grow((void **)&t->comps, &t->capcomps, t->ncomps, sizeof *t->comps)) return NULL;
  cstate *c = sdb_noted(calloc(1, sizeof *c));
  if (!c) return NULL;
  c->pub.cid = cid ? *cid : (sdb_tt_cid){-1, -1, -1, 0};
  c->pub.id = id;
  c->pub.status = sdb_intern(cid ? "running" : "ok");
  c->pub.first_line = rec->line;
  cstate *prev = compile_now(t);
  if (prev) {
    sdb_event_in e = {0};
    e.kind = SDB_EV_TRACER_POP;
    e.phase = SDB_PHASE_TRACE;
    e.text = prev->pub.id;
    emit(t, &e, NULL);
    e.kind = SDB_EV_PHASE_END;
    e.text = NULL;
    emit(t, &e, NULL);
  }
  t->comps[t->ncomps++] = c;
  sdb_map_put(&t->byid, id, (void *)(intptr_t)t->ncomps);
  t->cur = (long)t->ncomps - 1;
  t->totals.compiles++;
  where w = locate(t, rec);
  sdb_event_in e = {0};
  e.kind = SDB_EV_PHASE_START;
  e.phase = SDB_PHASE_TRACE;
  e.text = id;
  c->pub.first_event = sdb_events_count(t->ev);
  emit(t, &e, &w);
  e.kind = SDB_EV_TRACER_PUSH;
  e.text = id;
  e.value = 0;
  emit(t, &e, &w);
  return c;
}

/* ---- symbols -------------------------------------------------------------- */

/* Announce every free symbol of E not yet seen in the compile: a create
** event marked as a mention (no hint; the view then treats it as seen, not
** created), or create_unbacked_symbol for u/zuf names. */
static void mention(sdb_tti *t, cstate *c, const sdb_expr *e, const where *w, const char *why) {
  const sdb_expr **fs = NULL;
  long n = e ? sdb_free_symbols(e, &fs) : 0;
  for (long i = 0; i < n; i++) {
    if (sdb_map_has(&c->syms, fs[i])) continue;
    const char *src = sdb_map_get(&t->symsrc, fs[i]);
    sdb_map_put(&c->syms, fs[i], (void *)(intptr_t)(src ? 2 : 1));
    sdb_event_in ev = {0};
    sdb_event_more unknown = {.sym = fs[i], .has_range = true, .range = sdb_range_unknown()};
    ev.phase = SDB_PHASE_TRACE;
    ev.detail = sdb_internf("mentioned in %s", why);
    if (fs[i]->name[0] == 'u' || !strncmp(fs[i]->name, "zuf", 3)) {
      ev.kind = SDB_EV_CREATE_UNBACKED;
      ev.text = sdb_intern(fs[i]->name[0] == 'u' ? "int" : "float");
      ev.more = &unknown;
      c->pub.unbacked++;
      t->totals.unbacked++;
    } else {
      ev.kind = SDB_EV_CREATE_SYMBOL;
      ev.flags = SDB_EVF_NOT_CREATED | SDB_EVF_NO_HINT;
      ev.text = src;
      unknown.has_range = false;   /* a backed symbol mentioned: its range is not known */
      ev.more = &unknown;
    }
    c->pub.symbols++;
    t->totals.symbols++;
    emit(t, &ev, w);
  }
  free(fs);
}

/* A symbol mentioned before any record named its source (an
** expression_created before its guard's symbol_to_sources): the source
** is added to it once known, as duck sizing adds one. */
static void learn_source(sdb_tti *t, cstate *c, const sdb_expr *sym, const where *w,
                         const char *kind) {
  const char *src = sym ? sdb_map_get(&t->symsrc, sym) : NULL;
  if (!src || (intptr_t)sdb_map_get(&c->syms, sym) != 1 || !sdb_is_sym(sym)) return;
  sdb_map_put(&c->syms, sym, (void *)2);
  if (sym->name[0] == 'u' || !strncmp(sym->name, "zuf", 3)) return;
  sdb_event_in ev = {0};
  ev.kind = SDB_EV_CREATE_SYMBOL;
  ev.phase = SDB_PHASE_TRACE;
  ev.flags = SDB_EVF_NOT_CREATED | SDB_EVF_NO_HINT;
  sdb_event_more ev_sym = {.sym = sym};
  ev.more = &ev_sym;
  ev.text = src;
  ev.detail = sdb_internf("source from %s", kind);
  emit(t, &ev, w);
}

static const sdb_expr *parse_expr(sdb_tti *t, const char *text) {
  if (!text) return NULL;
  char err[160];
  const sdb_expr *e = sdb_parse(text, err, sizeof err);
  if (!e) t->unparsed++;
  return e;
}

/* Unmodelled text still shows in the timeline, as a note. */
static void note(sdb_tti *t, const where *w, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
static void note(sdb_tti *t, const where *w, const char *fmt, ...) {
  sdb_buf b = SDB_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sdb_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  sdb_event_in e = {0};
  e.kind = SDB_EV_NOTE;
  e.phase = SDB_PHASE_TRACE;
  e.detail = sdb_intern(sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  emit(t, &e, w);
}

static void on_create_symbol(sdb_tti *t, cstate *c, const sdb_tt_record *rec, bool unbacked) {
  const char *name = jstr(rec->meta, "symbol");
  where w = locate(t, rec);
  const sdb_expr *sym = name ? parse_expr(t, name) : NULL;
  if (!sym || !sdb_is_sym(sym)) {
    note(t, &w, "%s: cannot read symbol %s", rec->kind, name ? name : "(none)");
    return;
  }
  sdb_event_in e = {0};
  e.phase = SDB_PHASE_TRACE;
  sdb_event_more more = {.sym = sym};
  more.has_range = parse_range(jstr(rec->meta, "vr"), &more.range);
  e.more = &more;
  int64_t nid;
  if (sdb_jl_int(sdb_jl_get(rec->meta, "node_id"), &nid))
    sdb_map_put(&t->idsym, (void *)(intptr_t)nid, (void *)sym->name);
  if (unbacked) {
    e.kind = SDB_EV_CREATE_UNBACKED;
    e.text = sdb_intern(!strncmp(name, "zuf", 3) ? "float" : "int");
  } else {
    e.kind = SDB_EV_CREATE_SYMBOL;
    const char *val = jstr(rec->meta, "val");
    int64_t iv = 0;
    bool is_int = sdb_jl_int(sdb_jl_get(rec->meta, "val"), &iv);
    e.value = val ? strtoll(val, NULL, 10) : iv;
    if (val || is_int)
      sdb_map_put(&c->hints, sym->name, (void *)(intptr_t)e.value);
    e.text = sdb_intern(jstr(rec->meta, "source"));
    if (e.text) sdb_map_put(&t->symsrc, sym, (void *)e.text);
  }
  bool seen = sdb_map_has(&c->syms, sym);
  sdb_map_put(&c->syms, sym, (void *)2);
  if (!seen) {
    c->pub.symbols++;
    t->totals.symbols++;
    if (unbacked) { c->pub.unbacked++; t->totals.unbacked++; }
  }
  emit(t, &e, &w);
}

/* ---- expression trees --------------------------------------------------- */

/* What the expression tree reads of an expression_created record, copied
** out of it (the record's tree goes with the next record): its method,
** result and arguments, not its stacks. NULL on OOM. */
static cJSON *keep_node(const cJSON *meta) {
  static const char *const keys[] = {"method", "result", "arguments", "argument_ids",
                                     "arguments_id"};
  cJSON *n = cJSON_CreateObject();
  for (size_t i = 0; n && i < sizeof keys / sizeof keys[0]; i++) {
    const cJSON *v = sdb_jl_get(meta, keys[i]);
    if (!v) continue;
    cJSON *copy = cJSON_Duplicate(v, true);
    if (!copy || !cJSON_AddItemToObject(n, keys[i], copy)) {
      cJSON_Delete(copy);
      cJSON_Delete(n);
      n = NULL;
    }
  }
  return n;
}

/* The id of an argument_ids entry: 0 when it is not an integer. */
static int64_t node_id(const cJSON *id) { return sdb_jl_int0(id); }

static void tree_node(sdb_tti *t, sdb_buf *b, int64_t key, int depth, const char *arg) {
  for (int i = 0; i < depth; i++) sdb_buf_puts(b, i + 1 == depth ? "└─ " : "   ");
  if (depth > 40) { sdb_buf_puts(b, "...\n"); return; }
  const cJSON *n = key ? sdb_map_get(&t->nodes, (void *)(intptr_t)key) : NULL;
  const char *sym = key ? sdb_map_get(&t->idsym, (void *)(intptr_t)key) : NULL;
  if (n) {
    const char *method = jstr(n, "method"), *result = jstr(n, "result");
    const cJSON *args = sdb_jl_get(n, "arguments"), *ids = sdb_jl_get(n, "argument_ids");
    if (!ids) ids = sdb_jl_get(n, "arguments_id");   /* older logs */
    if (!cJSON_IsArray(args)) args = NULL;
    if (!cJSON_IsArray(ids)) ids = NULL;
    sdb_buf_printf(b, "%s(", method ? method : "?");
    for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
      if (a != args->child) sdb_buf_puts(b, ", ");
      if (cJSON_IsString(a)) sdb_buf_puts(b, a->valuestring);
      else if (cJSON_IsRaw(a)) sdb_buf_puts(b, a->valuestring);
      else {   /* PyTorch writes str(a) for each; an odd log may not */
        char *s = cJSON_PrintUnformatted(a);
        sdb_buf_puts(b, s ? s : "?");
        cJSON_free(s);
      }
    }
    sdb_buf_printf(b, ") -> %s   (expression_created, id %lld)\n", result ? result : "?",
                   (long long)key);
    /* argument_ids name only the symbolic arguments, in order */
    const cJSON *id = ids ? ids->child : NULL;
    for (const cJSON *a = args ? args->child : NULL; a && id; a = a->next) {
      const char *as = sdb_jl_str(a);
      char *end;
      if (!as || (strtoll(as, &end, 10), *end == 0 && end != as)) continue;
      tree_node(t, b, node_id(id), depth + 1, as);
      id = id->next;
    }
    for (; id; id = id->next) tree_node(t, b, node_id(id), depth + 1, NULL);
    return;
  }
  const char *name = sym ? sym : arg;
  const sdb_expr *e = name ? sdb_parse(name, (char[64]){0}, 64) : NULL;
  const char *src = e ? sdb_map_get(&t->symsrc, e) : NULL;
  if (name && src) sdb_buf_printf(b, "%s: %s", name, src);
  else if (name) sdb_buf_printf(b, "%s", name);
  else sdb_buf_puts(b, "?");
  if (sym) sdb_buf_printf(b, "   (create_unbacked_symbol, id %lld)\n", (long long)key);
  else if (key) sdb_buf_printf(b, "   (id %lld)\n", (long long)key);
  else sdb_buf_putc(b, '\n');
}

static void keep_guard(sdb_tti *t, const sdb_tt_record *rec, const char *expr, const char *what,
                       const where *w) {
  if (!grow((void **)&t->guards, &t->capguards, t->nguards, sizeof *t->guards)) return;
  tguard *g = &t->guards[t->nguards++];
  memset(g, 0, sizeof *g);
  g->expr = sdb_intern(expr);
  g->what = sdb_intern(what);
  g->file = w->file;
  g->func = w->func;
  g->line = w->line;
  g->rec_line = rec->line;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_printf(&b, "%s   %s", expr, what);
  if (w->file) sdb_buf_printf(&b, " at %s:%ld", basename_of(w->file), w->line);
  if (w->func) sdb_buf_printf(&b, " in %s", w->func);
  sdb_buf_printf(&b, " (%s, line %ld)\n", rec->kind, rec->line);
  int64_t id;
  if (sdb_jl_int(sdb_jl_get(rec->meta, "expr_node_id"), &id)) {
    tree_node(t, &b, id, 1, NULL);
  } else {
    /* older logs give no expr_node_id: the latest expression_created whose
    ** result is this expression, or its negation (a guard Ne(a, b) is
    ** the answer to the question Eq(a, b)) */
    const sdb_expr *e = sdb_parse(expr, (char[64]){0}, 64);
    intptr_t k = e ? (intptr_t)sdb_map_get(&t->byexpr, e) : 0;
    if (!k && e && sdb_is_bool(e)) k = (intptr_t)sdb_map_get(&t->byexpr, sdb_not(e));
    if (k) {
      sdb_buf_puts(&b, "  (no expr_node_id in the log: matched by the expression)\n");
      tree_node(t, &b, (int64_t)k, 1, NULL);
    }
  }
  g->tree = sdb_buf_take(&b);
}

/* ---- guards -------------------------------------------------------------- */

static void on_guard(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const char *text = jstr(rec->meta, "expr");
  const char *prefix = jstr(rec->meta, "prefix");
  bool fast = !strcmp(rec->kind, "guard_added_fast");
  bool is_assert = prefix && !strcmp(prefix, "runtime_assert");
  where w = locate(t, rec);
  if (!text) { note(t, &w, "%s without expr", rec->kind); return; }
  const cJSON *s2s = sdb_jl_get(rec->meta, "symbol_to_sources");
  for (const cJSON *m = cJSON_IsObject(s2s) ? s2s->child : NULL; m; m = m->next) {
    if (sdb_jl_repeated(s2s, m)) continue;
    const cJSON *v = sdb_jl_get(s2s, m->string);   /* the last of duplicates */
    const sdb_expr *s = sdb_parse(v->string, (char[64]){0}, 64);
    const char *src = sdb_jl_str(v) ? v->valuestring
                      : cJSON_IsArray(v) && sdb_jl_str(v->child) ? v->child->valuestring
                      : NULL;
    if (s && src && !sdb_map_has(&t->symsrc, s)) sdb_map_put(&t->symsrc, s, (void *)sdb_intern(src));
    learn_source(t, c, s, &w, rec->kind);
  }
  char what[64];
  if (is_assert || !prefix) snprintf(what, sizeof what, "%s", is_assert ? "runtime assert" : "guard");
  else snprintf(what, sizeof what, "guard %s", prefix);
  keep_guard(t, rec, text, what, &w);
  /* guard_added (debug) repeats the guard_added_fast just logged for it */
  if (!fast && c->last_fast == sdb_intern(text)) { c->last_fast = NULL; return; }
  c->last_fast = fast ? sdb_intern(text) : NULL;
  const sdb_expr *e = parse_expr(t, text);
  if (!e) {
    note(t, &w, "%s %s (not modelled: shapedb cannot read this expression)", rec->kind, text);
    return;
  }
  mention(t, c, e, &w, rec->kind);
  sdb_event_in ev = {0};
  ev.phase = SDB_PHASE_TRACE;
  sdb_event_more more = {.expr = e};
  ev.more = &more;
  if (is_assert) {
    ev.kind = SDB_EV_RUNTIME_ASSERT;
    ev.detail = sdb_intern(rec->kind);
    c->pub.asserts++;
    t->totals.asserts++;
  } else {
    ev.kind = SDB_EV_GUARD_ADDED;
    c->pub.guards++;
    t->totals.guards++;
  }
  emit(t, &ev, &w);
}

static void on_propagate(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const char *text = jstr(rec->meta, "expr"), *result = jstr(rec->meta, "result");
  where w = locate(t, rec);
  if (!text) return;
  keep_guard(t, rec, text, "answered from real tensors", &w);
  const sdb_expr *e = parse_expr(t, text);
  if (!e) { note(t, &w, "%s %s (not modelled)", rec->kind, text); return; }
  mention(t, c, e, &w, rec->kind);
  /* the question had a boolean answer from the real values: that is what
  ** draft export turns into a runtime assert */
  if (sdb_is_bool(e) && result && !strcmp(result, "False")) e = sdb_not(e);
  if (!e || !sdb_is_bool(e)) {
    note(t, &w, "%s %s = %s", rec->kind, text, result ? result : "?");
    return;
  }
  sdb_event_in ev = {0};
  ev.kind = SDB_EV_RUNTIME_ASSERT;
  ev.phase = SDB_PHASE_TRACE;
  sdb_event_more more = {.expr = e};
  ev.more = &more;
  ev.detail = sdb_intern(rec->kind);
  c->pub.asserts++;
  t->totals.asserts++;
  emit(t, &ev, &w);
}

static void on_specialization(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  where w = locate(t, rec);
  const char *name = jstr(rec->meta, "symbol"), *val = jstr(rec->meta, "value");
  const cJSON *srcs = sdb_jl_get(rec->meta, "sources");
  sdb_event_in ev = {0};
  ev.kind = SDB_EV_SPECIALIZATION;
  ev.phase = SDB_PHASE_TRACE;
  const sdb_expr *sym = name ? sdb_parse(name, (char[64]){0}, 64) : NULL;
  if (sym && !sdb_is_sym(sym)) sym = NULL;
  const char *src0 = cJSON_IsArray(srcs) ? sdb_jl_str(srcs->child) : NULL;
  if (sym && src0 && !sdb_map_has(&t->symsrc, sym))
    sdb_map_put(&t->symsrc, sym, (void *)sdb_intern(src0));
  if (sym) mention(t, c, sym, &w, rec->kind);
  char *end = NULL;
  long long v = val ? strtoll(val, &end, 10) : 0;
  sdb_event_more more = {.sym = sym, .expr = val && end && !*end ? sdb_int(v) : NULL};
  ev.more = &more;
  ev.value = v;
  ev.text = sdb_intern(src0);
  ev.detail = sdb_intern(jstr(rec->meta, "reason"));
  c->pub.specializations++;
  t->totals.specializations++;
  emit(t, &ev, &w);
}

/* ---- graphs and guard sets ---------------------------------------------- */

static bool is_graph_kind(const char *k) {
  static const char *const kinds[] = {
    "dynamo_output_graph", "optimize_ddp_split_graph", "optimize_ddp_split_child",
    "compiled_autograd_graph", "aot_forward_graph", "aot_backward_graph",
    "aot_inference_graph", "aot_joint_graph", "inductor_pre_grad_graph",
    "inductor_post_grad_graph", "inductor_output_code", "graph_dump", "exported_program",
    "dynamo_cpp_guards_str", "dynamo_guards", NULL};
  for (int i = 0; kinds[i]; i++)
    if (k[0] == kinds[i][0] && !strcmp(k, kinds[i])) return true;
  return false;
}

bool sdb_tti_kind_known(const char *kind) {
  static const char *const kinds[] = {
    "str", "dynamo_start", "compilation_metrics", "bwd_compilation_metrics",
    "aot_autograd_backward_compilation_metrics", "create_symbol", "create_unbacked_symbol",
    "symbolic_shape_specialization", "guard_added", "guard_added_fast",
    "propagate_real_tensors", "propagate_real_tensors_provenance", "expression_created",
    "describe_tensor", "describe_storage", "describe_source", "artifact", "chromium_event",
    "link", "dump_file", NULL};
  for (int i = 0; kinds[i]; i++)
    if (kind[0] == kinds[i][0] && !strcmp(kind, kinds[i])) return true;
  return is_graph_kind(kind);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool set_installed(cstate *c, const sdb_tt_record *rec) {
  bool cpp = !strcmp(rec->kind, "dynamo_cpp_guards_str");
  if (!cpp && c->pub.installed_from && !strcmp(c->pub.installed_from, "dynamo_cpp_guards_str"))
    return false;   /* the C++ guard tree is the more complete listing */
  char **v = NULL;
  size_t n = 0, cap = 0;
  if (cpp) {
    const char *p = rec->payload;
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      /* drop the tree drawing: "| | +- TENSOR_MATCH: ..." */
      size_t i = 0;
      while (i < len && (p[i] == '|' || p[i] == ' ' || p[i] == '+' || p[i] == '-')) i++;
      /* guards are "TYPE: text" with TYPE in capitals (LAMBDA_GUARD,
      ** TENSOR_MATCH); the managers (RootGuardManager, GuardManager:
      ** source=...) and the TREE_GUARD_MANAGER title only hold them */
      size_t j = i;
      while (j < len && ((p[j] >= 'A' && p[j] <= 'Z') || p[j] == '_')) j++;
      bool guard = j > i && j < len && p[j] == ':' && strncmp(p + i, "TREE_GUARD_MANAGER", j - i);
      /* the provenance comment ("  # _dynamo/output_graph.py:456 in ...") and
      ** the padding before it differ between runs: not part of the guard */
      size_t end = len;
      for (const char *h = p + j + 2; h + 1 < p + len &&
           (h = memchr(h, '#', (size_t)(p + len - 1 - h))); h++)   /* was a strncmp at
                                       every byte of every line: 5% of an import */
        if (h[-2] == ' ' && h[-1] == ' ' && h[1] == ' ') { end = (size_t)(h - 2 - p); break; }
      while (end > i && p[end - 1] == ' ') end--;
      if (guard && grow((void **)&v, &cap, n, sizeof *v)) v[n++] = sdb_noted(strndup(p + i, end - i));
      p += len + (e ? 1 : 0);
    }
  } else {
    /* a payload is many lines and rare: jansson reads it (strict, as the
    ** headers are read), freed here */
    json_t *list = json_loads(rec->payload, 0, NULL);
    size_t i;
    json_t *g;
    json_array_foreach(list, i, g) {
      json_t *codes = json_object_get(g, "code_list");
      const char *code = json_string_value(json_object_get(g, "code"));
      if (json_is_array(codes) && json_array_size(codes)) {
        size_t j;
        json_t *cj;
        json_array_foreach(codes, j, cj)
          if (json_is_string(cj) && grow((void **)&v, &cap, n, sizeof *v))
            v[n++] = sdb_noted(strdup(json_string_value(cj)));
      } else if (grow((void **)&v, &cap, n, sizeof *v)) {
        char buf[512];
        if (code) snprintf(buf, sizeof buf, "%s", code);
        else {
          const char *type = json_string_value(json_object_get(g, "guard_type"));
          const char *name = json_string_value(json_object_get(g, "name"));
          snprintf(buf, sizeof buf, "%s: %s", type ? type : "?", name ? name : "");
        }
        v[n++] = sdb_noted(strdup(buf));
      }
    }
    json_decref(list);
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) if (v[i]) v[k++] = v[i];
  n = k;
  if (n) qsort(v, n, sizeof *v, cmp_str);
  for (size_t i = 0; i < c->pub.ninstalled; i++) free(c->pub.installed[i]);
  free(c->pub.installed);
  c->pub.installed = v;
  c->pub.ninstalled = n;
  c->pub.installed_from = rec->kind;
  return true;
}

static void keep_graph_as(sdb_tti *t, cstate *c, const sdb_tt_record *rec, const char *kind,
                          bool note);

/* Text in a fixed buffer, cut as snprintf cuts it (at cap - 1 bytes). */
typedef struct cut_text {
  char *s;
  size_t len, cap;
} cut_text;
static void cut_putn(cut_text *o, const char *s, size_t n) {
  if (n > o->cap - 1 - o->len) n = o->cap - 1 - o->len;
  memcpy(o->s + o->len, s, n);
  o->len += n;
}
static void cut_puts(cut_text *o, const char *s) { cut_putn(o, s, strlen(s)); }
static void cut_putc(cut_text *o, char c) { cut_putn(o, &c, 1); }

static void keep_graph(sdb_tti *t, cstate *c, const sdb_tt_record *rec, const char *kind) {
  keep_graph_as(t, c, rec, kind, true);
}

/* KIND's payload kept for `info graph ID KIND`, and a note event saying
** so unless the caller says more itself. */
static void keep_graph_as(sdb_tti *t, cstate *c, const sdb_tt_record *rec, const char *kind,
                          bool note) {
  if (!grow((void **)&c->pub.graphs, &c->capgraphs, c->pub.ngraphs, sizeof *c->pub.graphs)) return;
  /* the text as strndup copied it (up to a NUL), into the import's arena:
  ** a malloc and a free per graph were 3% of an import */
  size_t len = rec->payload_len;
  const char *nul = memchr(rec->payload, 0, len);
  if (nul) len = (size_t)(nul - rec->payload);
  char *text = sdb_arena_alloc(&t->texts, len + 1, 1);
  if (!text) return;
  memcpy(text, rec->payload, len);
  text[len] = 0;
  const char *ikind = sdb_intern(kind);   /* once, for the graph and its note */
  c->pub.graphs[c->pub.ngraphs++] = (sdb_tti_graph){ikind, text, rec->line};
  quote_graph(t, text);
  if (is_graph_kind(rec->kind) && !strstr(rec->kind, "guards")) {
    c->pub.graph_count++;
    t->totals.graphs++;
  }
  if (!note) return;
  where w = locate(t, rec);
  /* the payload's lines are joined by '\n': the reader counted them */
  size_t lines = rec->payload_lines > 1 ? (size_t)rec->payload_lines : 1;
  if (nul) {   /* cut at a NUL */
    lines = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + len - p))); p++) lines++;
  }
  sdb_event_in e = {0};
  e.kind = SDB_EV_NOTE;
  e.phase = !strncmp(kind, "aot_", 4) ? SDB_PHASE_AOT
          : !strncmp(kind, "inductor_", 9) ? SDB_PHASE_LOWER
          : strstr(kind, "guards") ? SDB_PHASE_GUARDS : SDB_PHASE_TRACE;
  e.text = ikind;
  /* "%zu line%s (`info graph %s %s`)" in 200 bytes, the id without its
  ** brackets in 80, as snprintf cut them (by hand: two snprintfs were a
  ** fifth of this function) */
  char buf[200], num[24];
  size_t idn = strlen(c->pub.id + 1);
  if (idn > 79) idn = 79;
  if (idn) idn--;
  int nn = 0;
  for (size_t v = lines; nn == 0 || v; v /= 10) num[nn++] = (char)('0' + v % 10);
  cut_text o = {buf, 0, sizeof buf};
  while (nn) cut_putc(&o, num[--nn]);
  cut_puts(&o, lines == 1 ? " line (`info graph " : " lines (`info graph ");
  cut_putn(&o, c->pub.id + 1, idn);
  cut_putc(&o, ' ');
  cut_puts(&o, kind);
  cut_puts(&o, "`)");
  buf[o.len] = 0;
  e.detail = sdb_intern(buf);
  emit(t, &e, &w);
}

/* dynamo_output_graph's "sizes": {"l_x_": [4, "s0"]}: symbols only seen
** here (older logs have no create_symbol) are created on first mention. */
static void graph_sizes(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const cJSON *sizes = sdb_jl_get(rec->meta, "sizes");
  where w = locate(t, rec);
  for (const cJSON *m = cJSON_IsObject(sizes) ? sizes->child : NULL; m; m = m->next) {
    if (sdb_jl_repeated(sizes, m)) continue;
    const cJSON *dims = sdb_jl_get(sizes, m->string);   /* the last of duplicates */
    const char *name = dims->string;
    size_t i = 0;
    for (const cJSON *d = cJSON_IsArray(dims) ? dims->child : NULL; d; d = d->next, i++) {
      if (!cJSON_IsString(d)) continue;
      const sdb_expr *e = sdb_parse(d->valuestring, (char[64]){0}, 64);
      if (!e) continue;
      if (sdb_is_sym(e) && !sdb_map_has(&t->symsrc, e))
        sdb_map_put(&t->symsrc, e, (void *)sdb_internf("%s.size()[%zu] (graph input)", name, i));
      mention(t, c, e, &w, "dynamo_output_graph sizes");
    }
  }
}

/* exported_program ends with "Range constraints: {u0: VR[-int_oo, 15],
** s0: VR[2, int_oo]}": the ranges export settled on, as refinements. */
static void range_constraints(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const char *p = strstr(rec->payload, "Range constraints: {");
  if (!p) return;
  p += strlen("Range constraints: {");
  where w = locate(t, rec);
  while (*p && *p != '}') {
    while (*p == ' ' || *p == ',') p++;
    const char *colon = strchr(p, ':');
    const char *close = colon ? strchr(colon, ']') : NULL;
    if (!colon || !close) break;
    char name[64], vr[96];
    snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
    const char *v = colon + 1;
    while (*v == ' ') v++;
    snprintf(vr, sizeof vr, "%.*s", (int)(close + 1 - v), v);
    p = close + 1;
    sdb_range r;
    const sdb_expr *sym = sdb_parse(name, (char[64]){0}, 64);
    if (!sym || !sdb_is_sym(sym) || !parse_range(vr, &r)) continue;
    mention(t, c, sym, &w, rec->kind);
    sdb_event_in ev = {0};
    ev.kind = SDB_EV_RANGE_REFINED;
    ev.phase = SDB_PHASE_TRACE;
    sdb_event_more ev_more = {.sym = sym, .has_range = true, .range = r};
    ev.more = &ev_more;
    ev.detail = sdb_intern("exported_program range constraints");
    emit(t, &ev, &w);
  }
}

/* PyTorch pads a guard's text before its "# comment"; a recompile reason
** quoting that guard keeps the padding, which must not reach the screen. */
static void put_trimmed(sdb_buf *b, const char *s) {
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  sdb_buf_putn(b, s, n);
}

static const char *intern_trimmed(const char *s) {
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  return sdb_intern_n(s, n);
}

static void on_metrics(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const char *co = jstr(rec->meta, "co_name"), *file = jstr(rec->meta, "co_filename");
  int64_t ln;
  if (co) c->pub.func = sdb_intern(co);
  if (file) c->pub.file = sdb_intern(file);
  if (sdb_jl_int(sdb_jl_get(rec->meta, "co_firstlineno"), &ln)) c->pub.lineno = (long)ln;
  const char *ft = jstr(rec->meta, "fail_type"), *fr = jstr(rec->meta, "fail_reason");
  const char *rr = jstr(rec->meta, "recompile_reason");
  if (rr && !c->pub.recompile_reason) c->pub.recompile_reason = intern_trimmed(rr);
  if (ft) {
    c->pub.status = sdb_intern("failed");
    c->pub.fail_type = sdb_intern(ft);
    c->pub.fail_reason = sdb_intern(fr);
    where w = locate(t, rec);
    const char *uf = jstr(rec->meta, "fail_user_frame_filename");
    int64_t ul;
    if (uf && sdb_jl_int(sdb_jl_get(rec->meta, "fail_user_frame_lineno"), &ul)) {
      w.file = sdb_intern(uf);
      w.line = (long)ul;
    }
    sdb_event_in e = {0};
    e.kind = SDB_EV_ERROR;
    e.phase = SDB_PHASE_TRACE;
    e.text = c->pub.fail_type;
    e.detail = c->pub.fail_reason ? c->pub.fail_reason : sdb_intern("");
    emit(t, &e, &w);
  } else if (strcmp(c->pub.status, "failed") != 0) {
    c->pub.status = sdb_intern("ok");
  }
}

/* The line after PREFIX in text (up to its end), or NULL. */
static const char *line_after(const char *text, const char *prefix, size_t *len) {
  const char *p = strstr(text, prefix);
  if (!p) return NULL;
  p += strlen(prefix);
  *len = strcspn(p, "\n");
  return p;
}

/* A dynamo_graph_break_reason artifact (symbolic_convert.log_graph_break):
**   Graph break in user code at /home/u/model.py:12
**   Graph Break Reason: Data-dependent branching
**     Explanation: ...
**   User code traceback:
**     File "/home/u/model.py", line 12, in forward
** The reason is what lies between "Graph Break Reason: " and the
** traceback; older and other writers ("Graph break: skip: from user code
** at:", a verbose error) give their first line, and the innermost `File`
** of the traceback for the place. */
static void on_graph_break(sdb_tti *t, cstate *c, const sdb_tt_record *rec, const char *name) {
  keep_graph_as(t, c, rec, name, false);
  const char *text = c->pub.ngraphs ? c->pub.graphs[c->pub.ngraphs - 1].text : NULL;
  if (!text || c->pub.graphs[c->pub.ngraphs - 1].kind != sdb_intern(name)) return;
  where w = locate(t, rec);
  /* the user's frames come before any Python exception traceback */
  const char *exc = strstr(text, "Traceback (most recent call last):");
  const char *end = exc ? exc : text + strlen(text);
  const char *file = NULL, *func = NULL, *code = NULL;
  long line = 0;
  size_t codelen = 0;
  for (const char *p = strstr(text, "File \""); p && p < end; p = strstr(p + 1, "File \"")) {
    const char *q = strchr(p + 6, '"');
    if (!q || strncmp(q, "\", line ", 8)) continue;
    file = sdb_intern_n(p + 6, (size_t)(q - p - 6));
    line = strtol(q + 8, NULL, 10);
    const char *in = strstr(q, ", in "), *eol = strchr(q, '\n');
    func = in && (!eol || in < eol) ? sdb_intern_n(in + 5, strcspn(in + 5, "\n")) : NULL;
    /* the line's code, quoted under its File entry */
    code = eol ? eol + 1 : NULL;
    while (code && *code == ' ') code++;
    codelen = code && code > eol + 1 ? strcspn(code, "\n") : 0;
  }
  size_t n;
  const char *at = line_after(text, "Graph break in user code at ", &n);
  const char *colon = NULL;
  for (size_t i = at ? n : 0; i > 0 && !colon; i--)
    if (at[i - 1] == ':') colon = at + i - 1;
  if (colon && colon > at && isdigit((unsigned char)colon[1])) {
    const char *f = sdb_intern_n(at, (size_t)(colon - at));
    long l = strtol(colon + 1, NULL, 10);
    if (f != file || l != line) func = NULL, codelen = 0;
    file = f;
    line = l;
  }
  if (file && line > 0) {
    w.file = file;
    w.line = line;
    w.func = func;
    /* `list` shows the quoted line when the file is not on this machine */
    if (codelen) quote_line(t, file, line, sdb_intern_n(code, codelen));
  }
  /* the reason: after "Graph Break Reason: ", else the exception's last
  ** line, else the first line */
  const char *reason = line_after(text, "Graph Break Reason: ", &n);
  if (!reason && exc) {
    const char *last = NULL;
    for (const char *p = exc; *p; p += strcspn(p, "\n"), p += *p == '\n') {
      size_t l = strcspn(p, "\n");
      size_t k = 0;
      while (k < l && isspace((unsigned char)p[k])) k++;
      if (k < l) last = p, n = l;
    }
    reason = last;
  }
  if (!reason) {
    reason = text;
    n = strcspn(text, "\n");
  }
  while (n && isspace((unsigned char)reason[n - 1])) n--;
  c->pub.graph_breaks++;
  if (!c->pub.first_break) {
    c->pub.first_break = sdb_intern_n(reason, n);
    c->pub.first_break_file = w.file;
    c->pub.first_break_line = w.line;
  }
  sdb_event_in e = {0};
  e.kind = SDB_EV_GRAPH_BREAK;
  e.phase = SDB_PHASE_TRACE;
  e.text = sdb_intern_n(reason, n);
  e.detail = sdb_intern(text);
  emit(t, &e, &w);
}

static void on_artifact(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  const char *name = jstr(rec->meta, "name");
  if (!name) return;
  if (!strcmp(name, "recompile_reasons")) {
    /* a JSON list of strings */
    json_t *l = json_loads(rec->payload, 0, NULL);
    sdb_buf b = SDB_BUF_INIT;
    size_t i;
    json_t *s;
    json_array_foreach(l, i, s)
      if (json_is_string(s)) {
        if (b.len) sdb_buf_puts(&b, "; ");
        put_trimmed(&b, json_string_value(s));
      }
    json_decref(l);
    if (!b.len) sdb_buf_putn(&b, rec->payload, rec->payload_len);
    c->pub.recompile_reason = sdb_intern(sdb_buf_cstr(&b));
    sdb_buf_free(&b);
    sdb_event_in e = {0};
    e.kind = SDB_EV_RECOMPILE;
    e.phase = SDB_PHASE_TRACE;
    e.detail = c->pub.recompile_reason;
    where w = locate(t, rec);
    emit(t, &e, &w);
    return;
  }
  if (!strcmp(name, "dynamo_graph_break_reason")) {
    on_graph_break(t, c, rec, name);
    return;
  }
  if (strstr(name, "graph") || !strcmp(name, "dynamo_error")) keep_graph(t, c, rec, name);
}

static void on_dynamo_start(sdb_tti *t, cstate *c, const sdb_tt_record *rec) {
  sdb_tt_frame f;
  if (user_frame(t, sdb_jl_get(rec->meta, "stack"), &f) && !c->pub.func) {
    c->pub.func = f.name;
    c->pub.file = f.file;
    c->pub.lineno = f.line;
  }
}

/* ---- the pass -------------------------------------------------------------- */

static bool shape_kind(const char *k) {
  return !strcmp(k, "create_symbol") || !strcmp(k, "create_unbacked_symbol") ||
         !strcmp(k, "symbolic_shape_specialization") || !strncmp(k, "guard_added", 11) ||
         !strncmp(k, "propagate_real_tensors", 22) || !strcmp(k, "expression_created") ||
         !strcmp(k, "exported_program");
}

static void on_record(sdb_tti *t, const sdb_tt_record *rec) {
  const char *k = rec->kind;
  if (!strcmp(k, "str") || !strcmp(k, "chromium_event")) return;
  cstate *c;
  if (rec->has_cid) c = enter(t, &rec->cid, rec);
  else if (shape_kind(k) || is_graph_kind(k)) c = compile_now(t) ? compile_now(t) : enter(t, NULL, rec);
  else c = compile_now(t);
  if (!sdb_tti_kind_known(k)) t->totals.unknown_records++;
  if (!c) return;
  if (!strcmp(k, "expression_created")) {
    int64_t id;
    bool has_id = sdb_jl_int(sdb_jl_get(rec->meta, "result_id"), &id);
    cJSON *node = has_id ? keep_node(rec->meta) : NULL;
    if (node && grow((void **)&t->held, &t->capheld, t->nheld, sizeof *t->held)) {
      t->held[t->nheld++] = node;
      sdb_map_put(&t->nodes, (void *)(intptr_t)id, node);
    } else {
      cJSON_Delete(node);
    }
    t->totals.expressions++;
    const sdb_expr *e = parse_expr(t, jstr(rec->meta, "result"));
    where w = locate(t, rec);
    if (e) mention(t, c, e, &w, k);
    if (e && has_id) sdb_map_put(&t->byexpr, e, (void *)(intptr_t)id);
  } else if (!strcmp(k, "create_symbol")) on_create_symbol(t, c, rec, false);
  else if (!strcmp(k, "create_unbacked_symbol")) on_create_symbol(t, c, rec, true);
  else if (!strncmp(k, "guard_added", 11)) on_guard(t, c, rec);
  else if (!strncmp(k, "propagate_real_tensors", 22)) on_propagate(t, c, rec);
  else if (!strcmp(k, "symbolic_shape_specialization")) on_specialization(t, c, rec);
  else if (!strcmp(k, "compilation_metrics")) on_metrics(t, c, rec);
  else if (!strcmp(k, "dynamo_start")) on_dynamo_start(t, c, rec);
  else if (!strcmp(k, "artifact")) on_artifact(t, c, rec);
  else if (is_graph_kind(k)) {
    if (!strcmp(k, "dynamo_output_graph")) graph_sizes(t, c, rec);
    /* the installed set: dynamo_cpp_guards_str, else dynamo_guards; an empty
    ** dynamo_guards (PyTorch writes one before the C++ tree) is no event */
    if ((!strcmp(k, "dynamo_guards") || !strcmp(k, "dynamo_cpp_guards_str")) &&
        set_installed(c, rec) && (c->pub.ninstalled || strcmp(k, "dynamo_guards"))) {
      sdb_event_in e = {0};
      e.kind = SDB_EV_GUARDS_INSTALLED;
      e.phase = SDB_PHASE_GUARDS;
      e.value = (int64_t)c->pub.ninstalled;
      sdb_buf b = SDB_BUF_INIT;
      for (size_t i = 0; i < c->pub.ninstalled; i++) {
        if (i) sdb_buf_putc(&b, '\n');
        sdb_buf_puts(&b, c->pub.installed[i]);
      }
      e.detail = sdb_intern(sdb_buf_cstr(&b));
      sdb_buf_free(&b);
      where w = locate(t, rec);
      emit(t, &e, &w);
    }
    if (!strcmp(k, "exported_program")) range_constraints(t, c, rec);
    keep_graph(t, c, rec, k);
  }
}

int sdb_tti_import(const char *path, sdb_events *ev, sdb_tti **out, sdb_err *err) {
  return sdb_tti_import_ex(path, NULL, ev, NULL, NULL, out, err);
}

int sdb_tti_import_ex(const char *path, const char *name, sdb_events *ev,
                      sdb_tti_stack_fn stack_fn, void *ud, sdb_tti **out, sdb_err *err) {
  *out = NULL;
  /* the reader and the importer carry on past a failed allocation (a
  ** record, a guard line, a frame's file left out), which would pass for
  ** the log itself: any failure, or an event the stream could not keep,
  ** fails the import */
  unsigned long noted = sdb_nomem_count;
  size_t lost = sdb_events_lost(ev);
  sdb_tti *t = sdb_noted(calloc(1, sizeof *t));
  if (!t) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  t->ev = ev;
  t->stack_fn = stack_fn;
  t->stack_ud = ud;
  t->cur = -1;
  int rc = sdb_tt_open_as(path, name ? name : path, &t->r, err);
  if (rc) { free(t); return rc; }
  const sdb_tt_record *rec;
  while ((rc = sdb_tt_next(t->r, &rec, err)) == 1) {
    t->rec = rec;
    t->rec_stack_done = false;
    quote_frames(t, sdb_jl_get(rec->meta, "user_stack"));
    on_record(t, rec);
  }
  t->rec = NULL;
  mark_restarted(t);
  cstate *c = compile_now(t);
  if (c) {
    sdb_event_in e = {0};
    e.kind = SDB_EV_TRACER_POP;
    e.phase = SDB_PHASE_TRACE;
    e.text = c->pub.id;
    emit(t, &e, NULL);
    e.kind = SDB_EV_PHASE_END;
    e.text = NULL;
    emit(t, &e, NULL);
  }
  *out = t;
  if (rc >= 0 && (sdb_nomem_count != noted || sdb_events_lost(ev) != lost))
    rc = sdb_err_set(err, SDB_E_OOM, "MemoryError", "%s: out of memory: the log was not read whole",
                     path);
  return rc < 0 ? rc : SDB_OK;
}

void sdb_tti_free(sdb_tti *t) {
  if (!t) return;
  for (size_t i = 0; i < t->ncomps; i++) {
    cstate *c = t->comps[i];
    free(c->pub.graphs);
    for (size_t j = 0; j < c->pub.ninstalled; j++) free(c->pub.installed[j]);
    free(c->pub.installed);
    sdb_map_free(&c->syms);
    sdb_map_free(&c->hints);
    free(c);
  }
  free(t->comps);
  sdb_map_free(&t->byid);
  sdb_map_free(&t->nodes);
  sdb_map_free(&t->idsym);
  sdb_map_free(&t->byexpr);
  for (size_t i = 0; i < t->srcs.len; i++) {
    srclines *sl = t->srcs.vals[i];
    free(sl->line);
    free(sl);
  }
  sdb_map_free(&t->srcs);
  sdb_map_free(&t->symsrc);
  for (size_t i = 0; i < t->nguards; i++) free(t->guards[i].tree);
  free(t->guards);
  for (size_t i = 0; i < t->nheld; i++) cJSON_Delete(t->held[i]);
  free(t->held);
  sdb_arena_free(&t->texts);
  sdb_tt_close(t->r);
  free(t);
}

/* ---- queries ----------------------------------------------------------------- */

const sdb_tt_reader *sdb_tti_reader(const sdb_tti *t) { return t->r; }
size_t sdb_tti_ncompiles(const sdb_tti *t) { return t->ncomps; }
const sdb_tti_compile *sdb_tti_compile_at(const sdb_tti *t, size_t i) {
  return i < t->ncomps ? &t->comps[i]->pub : NULL;
}

const sdb_tti_compile *sdb_tti_find(const sdb_tti *t, const char *id) {
  if (!strcmp(id, PSEUDO_ID) || !strcmp(id, "-/-") || !strcmp(id, "-")) {
    long i = (long)(intptr_t)sdb_map_get(&t->byid, sdb_intern(PSEUDO_ID)) - 1;
    return i >= 0 ? &t->comps[i]->pub : NULL;
  }
  sdb_tt_cid c;
  if (sdb_tt_cid_parse(id, &c)) return NULL;
  for (size_t i = 0; i < t->ncomps; i++)
    if (sdb_tt_cid_eq(&t->comps[i]->pub.cid, &c)) return &t->comps[i]->pub;
  return NULL;
}

const sdb_tti_compile *sdb_tti_compile_of_event(const sdb_tti *t, size_t pos) {
  const sdb_tti_compile *best = NULL;
  for (size_t i = 0; i < t->ncomps; i++)
    if (t->comps[i]->pub.first_event <= pos) best = &t->comps[i]->pub;
  return best;
}

int sdb_tti_symbol_hint(const sdb_tti_compile *c, const char *sym, int64_t *out) {
  /* pub is cstate's first member */
  const cstate *cs = (const cstate *)(const void *)c;
  const char *key = sdb_intern(sym);
  if (!key || !sdb_map_has(&cs->hints, key)) return -1;
  *out = (int64_t)(intptr_t)sdb_map_get(&cs->hints, key);
  return 0;
}

const sdb_tti_graph *sdb_tti_graph_find(const sdb_tti_compile *c, const char *kind) {
  for (size_t i = 0; i < c->ngraphs; i++)
    if (!strcmp(c->graphs[i].kind, kind)) return &c->graphs[i];
  return NULL;
}

sdb_tti_counts sdb_tti_totals(const sdb_tti *t) { return t->totals; }

size_t sdb_tti_nsources(const sdb_tti *t) { return t->srcs.len; }

char *sdb_tti_source_at(const sdb_tti *t, size_t i, const char **file) {
  if (i >= t->srcs.len) return NULL;
  const srclines *sl = t->srcs.vals[i];
  *file = t->srcs.keys[i];
  sdb_buf b = SDB_BUF_INIT;
  for (size_t k = 1; k < sl->n; k++) sdb_buf_printf(&b, "%s\n", sl->line[k] ? sl->line[k] : "");
  if (!b.len) sdb_buf_putc(&b, '\n');
  return sdb_buf_take(&b);
}

char *sdb_tti_tree(const sdb_tti *t, const char *what, const char **why) {
  *why = NULL;
  char err[64];
  const sdb_expr *want = sdb_parse(what, err, sizeof err);
  sdb_buf b = SDB_BUF_INIT;
  for (size_t i = 0; i < t->nguards; i++) {
    const tguard *g = &t->guards[i];
    bool hit = !strcmp(g->expr, what);
    if (!hit && want) hit = sdb_parse(g->expr, err, sizeof err) == want;
    if (!hit && want && sdb_is_sym(want)) {
      const sdb_expr *ge = sdb_parse(g->expr, err, sizeof err);
      hit = ge && sdb_has_symbol(ge, want);
    }
    if (hit) sdb_buf_puts(&b, g->tree);
  }
  if (!b.len) {
    *why = want && sdb_is_sym(want) ? "no guard or expression of the log mentions it"
                                    : "no guard of the log has this expression";
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}

/* ---- texts --------------------------------------------------------------------- */

static void one_line(sdb_buf *b, const char *s, size_t max) {
  size_t n = 0;
  for (; *s && n < max; s++, n++) sdb_buf_putc(b, *s == '\n' ? ' ' : *s);
  if (*s) sdb_buf_puts(b, "...");
}

char *sdb_tti_compiles_text(const sdb_tti *t) {
  sdb_buf b = SDB_BUF_INIT;
  if (!t->ncomps) sdb_buf_puts(&b, "No compiles in this log.\n");
  for (size_t i = 0; i < t->ncomps; i++) {
    const sdb_tti_compile *c = &t->comps[i]->pub;
    sdb_buf_printf(&b, "%-8s %s", c->id,
                   c->func ? c->func : c->cid.frame < 0 && c->cid.ca < 0 ? "(no compile id: export)"
                                                                            : "?");
    if (c->file) sdb_buf_printf(&b, " (%s:%ld)", basename_of(c->file), c->lineno);
    sdb_buf_printf(&b, "  %s", c->status);
    if (c->fail_type) {
      sdb_buf_printf(&b, ": %s: ", c->fail_type);
      one_line(&b, c->fail_reason ? c->fail_reason : "", 200);
    }
    sdb_buf_putc(&b, '\n');
    if (c->recompile_reason) {
      sdb_buf_puts(&b, "         recompile: ");
      one_line(&b, c->recompile_reason, 200);
      sdb_buf_putc(&b, '\n');
    }
    if (c->graph_breaks) {
      sdb_buf_puts(&b, "         graph break");
      if (c->first_break_file)
        sdb_buf_printf(&b, " at %s:%ld", basename_of(c->first_break_file), c->first_break_line);
      sdb_buf_puts(&b, ": ");
      one_line(&b, c->first_break, 200);
      if (c->graph_breaks > 1) sdb_buf_printf(&b, " (and %ld more)", c->graph_breaks - 1);
      sdb_buf_putc(&b, '\n');
    }
    sdb_buf_printf(&b, "         symbols %ld (%ld unbacked), guards %ld, runtime asserts %ld, "
                   "specializations %ld, graphs %ld\n", c->symbols, c->unbacked, c->guards,
                   c->asserts, c->specializations, c->graph_count);
  }
  return sdb_buf_take(&b);
}

/* by line, then by their place in the reader's list (stable: addresses
** in one array are in that order) */
static int cmp_problem(const void *a, const void *b) {
  const sdb_tt_problem *x = *(const sdb_tt_problem *const *)a, *y = *(const sdb_tt_problem *const *)b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x < y ? -1 : x > y;
}

char *sdb_tti_records_text(const sdb_tti *t) {
  sdb_buf b = SDB_BUF_INIT;
  const sdb_tt_reader *r = t->r;
  sdb_buf_printf(&b, "%ld records in %ld lines of %s\n", sdb_tt_nrecords(r), sdb_tt_nlines(r),
                 sdb_tt_path(r));
  for (size_t i = 0; i < sdb_tt_nkinds(r); i++) {
    const sdb_tt_kind *k = sdb_tt_kind_at(r, i);
    if (!k) {   /* out of memory: the text says it is incomplete */
      b.failed = true;
      break;
    }
    sdb_buf_printf(&b, "  %-40s %6ld%s\n", k->kind, k->count,
                   sdb_tti_kind_known(k->kind) ? "" : "  (not modelled: kept, counted)");
  }
  if (t->unparsed)
    sdb_buf_printf(&b, "%ld expression%s shapedb cannot read (shown as notes)\n", t->unparsed,
                   t->unparsed == 1 ? "" : "s");
  size_t np = sdb_tt_nproblems(r);
  if (!np) sdb_buf_puts(&b, "No problems.\n");
  else sdb_buf_printf(&b, "%zu problem%s (the rest was imported):\n", np, np == 1 ? "" : "s");
  /* in line order (they are found in reading order: an MD5 mismatch only
  ** at its record's end, after the problems inside the payload) */
  const sdb_tt_problem **v = np ? sdb_noted(malloc(np * sizeof *v)) : NULL;
  if (np && !v) b.failed = true;   /* not in reading order instead: out of memory */
  for (size_t i = 0; v && i < np; i++) v[i] = sdb_tt_problem_at(r, i);
  if (v) qsort(v, np, sizeof *v, cmp_problem);
  for (size_t i = 0; v && i < np; i++)
    sdb_buf_printf(&b, "  %s:%ld: %s\n", v[i]->file, v[i]->line, v[i]->what);
  free(v);
  return sdb_buf_take(&b);
}

char *sdb_tti_recompiles_text(const sdb_tti *t) {
  sdb_buf b = SDB_BUF_INIT;
  for (size_t i = 0; i < t->ncomps; i++) {
    const sdb_tti_compile *c = &t->comps[i]->pub, *prev = NULL;
    if (c->cid.frame < 0) continue;
    for (size_t j = 0; j < i; j++) {
      const sdb_tti_compile *p = &t->comps[j]->pub;
      if (p->cid.frame == c->cid.frame && p->cid.ca == c->cid.ca && p->cid.fcid < c->cid.fcid)
        prev = p;
    }
    if (!prev) continue;
    sdb_buf_printf(&b, "%s %s: recompile of %s\n", c->id, c->func ? c->func : "?", prev->id);
    sdb_buf_puts(&b, "  reason: ");
    one_line(&b, c->recompile_reason ? c->recompile_reason : "(not in the log)", 400);
    sdb_buf_putc(&b, '\n');
    /* both lists are sorted: a merge gives a stable diff */
    size_t x = 0, y = 0, changes = 0;
    while (x < prev->ninstalled || y < c->ninstalled) {
      int d = x == prev->ninstalled ? 1 : y == c->ninstalled ? -1
            : strcmp(prev->installed[x], c->installed[y]);
      if (d == 0) { x++; y++; continue; }
      if (d < 0) sdb_buf_printf(&b, "  - %s\n", prev->installed[x++]);
      else sdb_buf_printf(&b, "  + %s\n", c->installed[y++]);
      changes++;
    }
    if (!changes)
      sdb_buf_puts(&b, prev->ninstalled || c->ninstalled ? "  guards: the same\n"
                                                          : "  guards: none logged\n");
  }
  if (!b.len) sdb_buf_puts(&b, "No recompiles in this log.\n");
  return sdb_buf_take(&b);
}
