/*
** view_diff.c — what changed between two views of one stream (see
** view.h): the lines a stop prints, forwards or backwards, and the count
** of those past the shown maximum, from the store's positions per kind.
*/
#include "view.h"
#include "view_impl.h"
#include "buf.h"
#include "map.h"

#include <stdlib.h>
#include <string.h>

static bool same_list(const sdb_expr *const *a, size_t na, const sdb_expr *const *b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; i++)
    if (a[i] != b[i]) return false;
  return true;
}

/* A symbol's range just before step `at`; false when it had none. */
static bool range_at(const store *st, const symrec *r, uint32_t at, sdb_range *out) {
  uint32_t p = last_below(&r->ranges, at);
  if (p == NONE) return false;
  *out = sdb_event_range(ev_at(st, p));
  return true;
}

static bool range_eq(sdb_range a, sdb_range b) { return a.lo == b.lo && a.hi == b.hi; }

/* "range: S before -> after" the first time a range event of S shows up in
** the window [lo, hi) of st, going forward or backward. */
/* The line a range change of the symbol whose record is si (NONE: the
** event has none) makes, into b; with b NULL only counted. Returns the
** number of lines (0 or 1). */
static int diff_range(sdb_buf *b, const store *st, uint32_t si, uint32_t lo, uint32_t hi,
                      bool undo, sdb_map *seen) {
  if (si == NONE || sdb_map_has(seen, (void *)(uintptr_t)(si + 1))) return 0;
  sdb_map_put(seen, (void *)(uintptr_t)(si + 1), (void *)1);
  const symrec *r = &st->syms[si];
  sdb_range at_lo, at_hi, from, to;
  bool had = range_at(st, r, lo, &at_lo);
  if (!range_at(st, r, hi, &at_hi)) return 0;
  if (undo) {
    if (!had) return 0;   /* did not exist before: "undo new symbol" says it */
    from = at_hi;
    to = at_lo;
  } else {
    if (!had) {         /* created in the window: from its first range */
      size_t i = lower_bound(r->ranges.v, r->ranges.n, lo);
      at_lo = sdb_event_range(ev_at(st, r->ranges.v[i]));
    }
    from = at_lo;
    to = at_hi;
  }
  if (range_eq(from, to)) return 0;
  if (!b) return 1;
  sdb_buf_printf(b, "range: %s ", r->sym->name);
  sdb_vw_put_range(b, from);
  sdb_buf_puts(b, " -> ");
  sdb_vw_put_range(b, to);
  sdb_buf_putc(b, '\n');
  return 1;
}

/* How many lines diff_event writes for e, without writing them. */
size_t sdb_vw_diff_event_lines(const sdb_event *e) {
  switch ((sdb_event_kind)e->kind) {
    case SDB_EV_CREATE_SYMBOL: case SDB_EV_CREATE_UNBACKED: case SDB_EV_GUARD_ADDED:
    case SDB_EV_RUNTIME_ASSERT: case SDB_EV_REPLACEMENT_ADDED: case SDB_EV_RENAMED:
    case SDB_EV_SPECIALIZATION: case SDB_EV_SIZE_LIKE: case SDB_EV_BINDING_CHECK:
    case SDB_EV_GUARDS_INSTALLED: case SDB_EV_GUARD_CHECK: case SDB_EV_RECOMPILE:
    case SDB_EV_ERROR: case SDB_EV_GRAPH_BREAK:
      return 1;
    case SDB_EV_UNBACKED_BINDINGS: return sdb_event_nsyms(e);
    case SDB_EV_BUFFER_LOWERED: return sdb_event_nsyms(e) ? 1 : 0;
    default: return 0;
  }
}

static void diff_event(sdb_buf *b, const sdb_event *e, const char *undo) {
  const char *text = sdb_event_text(e), *detail = sdb_event_detail(e);
  switch ((sdb_event_kind)e->kind) {
    case SDB_EV_CREATE_SYMBOL:
      if (e->flags & 1) {
        sdb_buf_printf(b, "%ssource: %s for ", undo, text ? text : "?");
        sdb_vw_put_expr(b, sdb_event_sym(e));
        if (detail) sdb_buf_printf(b, " (%s)", detail);
      } else {
        sdb_buf_printf(b, "%snew symbol: ", undo);
        sdb_vw_put_expr(b, sdb_event_sym(e));
        sdb_buf_printf(b, " = %lld for %s", (long long)sdb_event_value(e), text ? text : "?");
        if (sdb_event_has_range(e)) { sdb_buf_putc(b, ' '); sdb_vw_put_range(b, sdb_event_range(e)); }
      }
      break;
    case SDB_EV_CREATE_UNBACKED:
      sdb_buf_printf(b, "%snew symbol: ", undo);
      sdb_vw_put_expr(b, sdb_event_sym(e));
      if (sdb_event_has_range(e)) { sdb_buf_putc(b, ' '); sdb_vw_put_range(b, sdb_event_range(e)); }
      if (text && strcmp(text, "int")) sdb_buf_printf(b, " (%s)", text);
      break;
    case SDB_EV_UNBACKED_BINDINGS:
      for (uint32_t i = 0; i < sdb_event_nsyms(e); i++) {
        const char *kp = sdb_event_texts(e) && sdb_event_texts(e)[i] && *sdb_event_texts(e)[i] ? sdb_event_texts(e)[i] : "<value>";
        sdb_buf_printf(b, "%sbinding: ", undo);
        sdb_vw_put_expr(b, sdb_event_syms(e)[i]);
        sdb_buf_printf(b, ": %s on %%%s", kp, text ? text : "?");
        if (i + 1 < sdb_event_nsyms(e)) sdb_buf_putc(b, '\n');
      }
      if (!sdb_event_nsyms(e)) return;
      break;
    case SDB_EV_GUARD_ADDED:
      sdb_buf_printf(b, "%sguard: ", undo);
      sdb_vw_put_expr(b, sdb_event_expr(e));
      break;
    case SDB_EV_RUNTIME_ASSERT:
      sdb_buf_printf(b, "%sruntime assert: ", undo);
      sdb_vw_put_expr(b, sdb_event_expr(e));
      break;
    case SDB_EV_REPLACEMENT_ADDED:
      sdb_buf_printf(b, "%sreplacement: ", undo);
      sdb_vw_put_expr(b, sdb_event_sym(e));
      sdb_buf_puts(b, " -> ");
      sdb_vw_put_expr(b, sdb_event_expr(e));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_RENAMED:
      sdb_buf_printf(b, "%srenamed: ", undo);
      sdb_vw_put_expr(b, sdb_event_sym(e));
      sdb_buf_puts(b, " -> ");
      sdb_vw_put_expr(b, sdb_event_sym2(e));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_SPECIALIZATION:
      sdb_buf_printf(b, "%sspecialization: %s = ", undo, text ? text : "?");
      sdb_vw_put_expr(b, sdb_event_expr(e));
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      break;
    case SDB_EV_SIZE_LIKE:
      sdb_buf_printf(b, "%ssize-like: ", undo);
      sdb_vw_put_expr(b, sdb_event_sym(e));
      break;
    case SDB_EV_BUFFER_LOWERED:
      if (!sdb_event_nsyms(e)) return;
      sdb_buf_printf(b, "%sbuffer: %s", undo, text ? text : "?");
      if (detail) sdb_buf_printf(b, " (%s)", detail);
      sdb_buf_puts(b, " defines ");
      sdb_vw_put_symlist(b, sdb_event_syms(e), sdb_event_nsyms(e));
      break;
    case SDB_EV_BINDING_CHECK:
      sdb_buf_printf(b, "%sbinding check %s", undo, e->flags ? "ok" : "FAILED");
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) { sdb_buf_puts(b, ": "); sdb_vw_put_first_line(b, detail); }
      break;
    case SDB_EV_GUARDS_INSTALLED:
      sdb_buf_printf(b, "%sguards installed: %lld", undo, (long long)sdb_event_value(e));
      break;
    case SDB_EV_GUARD_CHECK:
      sdb_buf_printf(b, "%sguard check %s", undo, e->flags ? "ok" : "FAILED");
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) { sdb_buf_puts(b, ": "); sdb_vw_put_first_line(b, detail); }
      break;
    case SDB_EV_RECOMPILE:
      sdb_buf_printf(b, "%srecompile", undo);
      if (text) sdb_buf_printf(b, " %s", text);
      if (detail) { sdb_buf_puts(b, ": "); sdb_vw_put_first_line(b, detail); }
      break;
    case SDB_EV_ERROR: {
      /* its kind, as the event line says it, unless the message begins with
      ** it; and a first line that ends in ':' with the line that follows
      ** (PyTorch's "backend='x' raised:" then the cause) */
      const char *m = detail ? detail : text;
      sdb_buf_printf(b, "%serror: ", undo);
      size_t kl = text && detail ? strlen(text) : 0;
      if (kl && !(strncmp(m, text, kl) == 0 && m[kl] == ':')) sdb_buf_printf(b, "%s: ", text);
      sdb_vw_put_first_line(b, m);
      const char *nl = m ? strchr(m, '\n') : NULL;
      if (nl && nl > m && nl[-1] == ':' && nl[1] && nl[1] != '\n') {
        sdb_buf_putc(b, ' ');
        sdb_vw_put_first_line(b, nl + 1);
      }
      break;
    }
    case SDB_EV_GRAPH_BREAK:
      sdb_buf_printf(b, "%sgraph break: ", undo);
      sdb_vw_put_first_line(b, text ? text : "?");
      break;
    default:
      return;
  }
  sdb_buf_putc(b, '\n');
}

static size_t count_lines(const sdb_buf *b, size_t from) {
  size_t n = 0;
  for (size_t i = from; i < b->len; i++) n += b->data[i] == '\n';
  return n;
}

char *sdb_view_diff(const sdb_view *a, const sdb_view *b) {
  return sdb_view_diff_n(a, b, SIZE_MAX, NULL);
}

/* The text stops growing once it holds max lines (a goto across a million
** events would format every change only to show the first few); the
** lines it would have had past that are counted into *more. */
/* The lines the events [from, hi) would add to a diff of lo..hi, counted
** kind by kind from the positions the store keeps per kind (a goto across
** a million events walked them all to say "and N more"): kinds of one
** line each are counted by two binary searches, the others visited. */
static size_t diff_count_rest(const store *st, uint32_t from, uint32_t lo, uint32_t hi,
                              bool undo, sdb_map *seen) {
  size_t n = 0;
  for (int k = 0; k < SDB_EV_COUNT; k++) {
    const u32vec *v = &st->kpos[k];
    size_t i = lower_bound(v->v, v->n, from), j = lower_bound(v->v, v->n, hi);
    if (i == j) continue;
    if (k == SDB_EV_RANGE_REFINED || k == SDB_EV_COND_OUTPUT_SYMBOL) {
      for (const uint32_t *s = st->ksym[k].v; i < j; i++)
        n += (size_t)diff_range(NULL, st, s[i], lo, hi, undo, seen);
    } else if (k == SDB_EV_UNBACKED_BINDINGS || k == SDB_EV_BUFFER_LOWERED) {
      const uint32_t *c = st->klines[k].v;
      n += c[j - 1] - (i ? c[i - 1] : 0);
    } else {
      sdb_event one = {0};
      one.kind = (uint8_t)k;
      n += (j - i) * sdb_vw_diff_event_lines(&one);
    }
  }
  return n;
}

char *sdb_view_diff_n(const sdb_view *a, const sdb_view *b, size_t max, size_t *more) {
  sdb_buf o = SDB_BUF_INIT;
  size_t extra = 0;
  sdb_phase pa = sdb_view_phase(a), pb = sdb_view_phase(b);
  if (pa != pb) sdb_buf_printf(&o, "phase: %s -> %s\n", sdb_phase_name(pa), sdb_phase_name(pb));
  const char *ta = sdb_view_tracer(a), *tb = sdb_view_tracer(b);
  if (ta != tb) sdb_buf_printf(&o, "tracer: %s -> %s\n", ta ? ta : "-", tb ? tb : "-");
  if (sdb_view_compile(a) != sdb_view_compile(b))
    sdb_buf_printf(&o, "compile: %u -> %u\n", sdb_view_compile(a), sdb_view_compile(b));
  const sdb_expr *const *qa, *const *qb;
  size_t na = sdb_view_pending(a, &qa), nb = sdb_view_pending(b, &qb);
  if (!same_list(qa, na, qb, nb)) {
    sdb_buf_puts(&o, "pending: ");
    sdb_vw_put_symlist(&o, qa, na);
    sdb_buf_puts(&o, " -> ");
    sdb_vw_put_symlist(&o, qb, nb);
    sdb_buf_putc(&o, '\n');
  }
  bool undo = b->step < a->step;
  const store *st = undo ? a->st : b->st;
  uint32_t lo = (uint32_t)(undo ? b->step : a->step), hi = (uint32_t)(undo ? a->step : b->step);
  sdb_map seen = SDB_MAP_INIT;
  size_t lines = count_lines(&o, 0);
  uint32_t p = lo;
  for (; p < hi && lines < max; p++) {
    const sdb_event *e = ev_at(st, p);
    size_t at = o.len;
    diff_event(&o, e, undo ? "undo " : "");
    lines += count_lines(&o, at);
    if (e->kind == SDB_EV_RANGE_REFINED || e->kind == SDB_EV_COND_OUTPUT_SYMBOL)
      lines += (size_t)diff_range(&o, st, sdb_vw_symrec_find(st, st->ctx[p].compile, sdb_event_sym(e)), lo, hi,
                                  undo, &seen);
  }
  if (p < hi) extra = diff_count_rest(st, p, lo, hi, undo, &seen);
  sdb_map_free(&seen);
  if (more) *more = extra;
  if (o.failed) { sdb_buf_free(&o); return NULL; }
  return sdb_buf_take(&o);
}

