/*
** probe.c — a ShapeEnv rebuilt from a view, and the texts of print, why
** and assume (see probe.h for the formats).
**
** Why something is decided: the probe's env says *whether*; to say *why*
** the probe rebuilds a bare env (the same symbols, current ranges and
** replacements, no facts) and asks it again, then once per fact with only
** that fact added. The first that decides it names the reason. Facts
** (guards, runtime asserts, assumptions) are kept in the probe with where
** they came from, since the env keeps only their expressions.
*/
#include "probe.h"
#include "lua_spell.h"
#include "buf.h"
#include "intern.h"
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FACT_GUARD, FACT_ASSERT, FACT_ASSUMED };

typedef struct fact {
  const sdb_expr *expr;     /* as recorded (guards, asserts) or as assumed */
  int kind;
  const char *file;         /* interned, or NULL */
  int line;
  uint32_t seq;             /* the event (view facts) */
} fact;

/* What the view said of a symbol beyond what the env keeps. */
typedef struct psym {
  const sdb_expr *sym;
  const char *type;         /* "int", "bool", "float" (interned) */
  bool created;             /* a create event was seen */
  const char *op, *file;    /* the create event's, interned, may be NULL */
  int line;
  const char *source;       /* backed: the canonical source, or NULL */
} psym;

struct sdb_probe {
  sdb_shape_env *env;
  psym *syms;
  size_t nsyms;
  sdb_map symix;            /* sym -> index + 1 into syms */
  fact *facts;
  size_t nfacts, capfacts;
  const sdb_expr **questions;
  size_t nquestions;
  sdb_namer namer;          /* the user's names for the suggested checks */
  void *namer_ud;
  size_t nrecorded;         /* the env's replacements the view recorded; those
                               after them follow from the facts (a guard
                               Eq(s0, s1) solved before its event says so) */
};

#define MAX_CANDS 64        /* candidate values per symbol */
#define MAX_CONSTS 32       /* constants collected from the expressions */
#define MAX_LISTED 8        /* facts listed by `why` before "... and N more" */

/* --- small helpers ----------------------------------------------------------- */

static int oom(sdb_err *err) {
  return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
}

static void put_expr(sdb_buf *b, const sdb_expr *e) {
  char *s = e ? sdb_expr_str(e) : NULL;
  if (!s) { b->failed = true; return; }
  sdb_buf_puts(b, s);
  free(s);
}

/* torch._check(e) as the user writes it (lua_spell.h) */
static void put_check(sdb_buf *b, const sdb_probe *p, const sdb_expr *e) {
  char *s = e ? sdb_check_suggestion(e, p->namer, p->namer_ud) : NULL;
  if (!s) { b->failed = true; return; }
  sdb_buf_puts(b, s);
  free(s);
}

void sdb_probe_set_namer(sdb_probe *p, sdb_namer fn, void *ud) {
  p->namer = fn;
  p->namer_ud = ud;
}

static void put_range(sdb_buf *b, sdb_range r) {
  char tmp[SDB_RANGE_STRLEN];
  r.is_bool = false;
  sdb_buf_puts(b, sdb_range_str(r, tmp, sizeof tmp));
}

static void put_value(sdb_buf *b, int64_t v, bool is_bool) {
  if (is_bool) sdb_buf_puts(b, v ? "True" : "False");
  else sdb_buf_printf(b, "%lld", (long long)v);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Clauses of one sentence part, joined by "; ". */
static void clause(sdb_buf *b, int *n) {
  if ((*n)++) sdb_buf_puts(b, "; ");
}

static char *take(sdb_buf *b) {
  if (b->failed) { sdb_buf_free(b); return NULL; }
  return sdb_buf_take(b);
}

static const psym *psym_of(const sdb_probe *p, const sdb_expr *sym) {
  uintptr_t ix = (uintptr_t)sdb_map_get(&p->symix, sym);
  return ix ? &p->syms[ix - 1] : NULL;
}

/* The replacement record of sym, or NULL (the env lists them in order). */
static const sdb_replacement *repl_of(const sdb_shape_env *env, const sdb_expr *sym) {
  for (size_t i = 0; i < sdb_replacement_count(env); i++) {
    const sdb_replacement *r = sdb_replacement_at(env, i);
    if (r->sym == sym) return r;
  }
  return NULL;
}

static bool is_int_symbol(const sdb_shape_env *env, const sdb_expr *sym) {
  const sdb_symbol_info *si = sdb_symbol(env, sym);
  return si ? si->type == SDB_SYM_INT : strncmp(sym->name, "zuf", 3) != 0;
}


static bool is_rel(const sdb_expr *e) {
  return (e->kind == SDB_EQ || e->kind == SDB_NE || e->kind == SDB_LT || e->kind == SDB_LE) &&
         !sdb_is_bool(e->args[0]);
}

/* A relation in one integer symbol, solved for it: Eq(507 - u0, 0) is
** Eq(u0, 507), 2*u0 + 1 < 8 is u0 <= 3. Only a spelling for the reader;
** anything else (or a failure) is e itself. */
static const sdb_expr *solved(const sdb_shape_env *env, const sdb_expr *e) {
  if (e->kind == SDB_AND || e->kind == SDB_OR || e->kind == SDB_NOT) {
    const sdb_expr *args[64];
    if (e->nargs > 64) return e;
    bool changed = false;
    for (size_t i = 0; i < e->nargs; i++) {
      args[i] = solved(env, e->args[i]);
      changed |= args[i] != e->args[i];
    }
    const sdb_expr *r = changed ? sdb_rebuild((sdb_kind)e->kind, e->ival, args, e->nargs) : e;
    return r ? r : e;
  }
  if (!is_rel(e)) return e;
  const sdb_expr *d = sdb_sub(e->args[0], e->args[1]), **fs = NULL;
  if (!d) return e;
  long n = sdb_free_symbols(d, &fs);
  const sdb_expr *x = n == 1 ? fs[0] : NULL, *rest;
  free(fs);
  int64_t c;
  if (!x || !is_int_symbol(env, x) || !sdb_linear_in(d, x, &c, &rest) || c == 0 ||
      rest->kind != SDB_INT)
    return e;
  int64_t m = -rest->ival;          /* c*x REL m */
  const sdb_expr *r = NULL;
  switch (e->kind) {
    case SDB_EQ: case SDB_NE:
      if (m % c) return e;            /* no integer solution: leave it to the env */
      r = e->kind == SDB_EQ ? sdb_eq(x, sdb_int(m / c)) : sdb_ne(x, sdb_int(m / c));
      break;
    case SDB_LT:
      if (c == 1) { r = sdb_lt(x, sdb_int(m)); break; }
      if (c == -1) { r = sdb_gt(x, sdb_int(-m)); break; }
      if (m == SDB_NINF + 1) return e;
      m -= 1;                         /* c*x < m is c*x <= m - 1 */
      /* fall through */
    case SDB_LE:
      r = c > 0 ? sdb_le(x, sdb_int(sdb_floor_div64(m, c))) : sdb_ge(x, sdb_int(sdb_ceil_div64(m, c)));
      break;
    default: break;
  }
  return r ? r : e;
}

/* Replacements and facts applied; e itself if that fails (overflow). */
static const sdb_expr *simp(sdb_probe *p, const sdb_expr *e) {
  const sdb_expr *s = sdb_simplify(p->env, e);
  return s ? s : e;
}

/* The form shown: simplified, then solved. */
static const sdb_expr *display(sdb_probe *p, const sdb_expr *e) {
  return solved(p->env, simp(p, e));
}

/* --- rebuilding --------------------------------------------------------------- */

static sdb_sym_type type_of(const char *t) {
  if (t && !strcmp(t, "bool")) return SDB_SYM_BOOL;
  if (t && !strcmp(t, "float")) return SDB_SYM_FLOAT;
  return SDB_SYM_INT;
}

static int load_symbols(sdb_probe *p, const sdb_view *v, sdb_err *err) {
  size_t n = sdb_view_symbol_count(v);
  p->syms = calloc(n ? n : 1, sizeof *p->syms);
  if (!p->syms) return oom(err);
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *sym = sdb_view_symbol_at(v, i);
    sdb_view_sym s;
    if (!sym || !sdb_view_symbol(v, sym, &s)) continue;
    sdb_sym_type t = type_of(s.type);
    sdb_range r = s.has_range ? s.range
                : t == SDB_SYM_BOOL ? sdb_range_make(0, 1) : sdb_range_unknown();
    int rc = sdb_declare_symbol(p->env, sym, s.unbacked, t, s.has_hint, s.hint, r,
                                s.size_like, err);
    if (rc) return rc;
    psym *ps = &p->syms[p->nsyms];
    ps->sym = sym;
    ps->type = s.type ? s.type : sdb_intern("int");
    ps->created = s.creation != NULL;
    if (s.creation) {
      ps->op = sdb_event_op(s.creation);
      ps->file = sdb_event_site(s.creation)->file;
      ps->line = sdb_event_site(s.creation)->line;
    }
    ps->source = s.source;
    if (!sdb_map_put(&p->symix, sym, (void *)(uintptr_t)++p->nsyms)) return oom(err);
  }
  return SDB_OK;
}

static int load_replacements(sdb_probe *p, const sdb_view *v, sdb_err *err) {
  for (size_t i = 0; i < sdb_view_replacement_count(v); i++) {
    const sdb_event *e = sdb_view_replacement_at(v, i);
    if (!e || !sdb_event_sym(e) || !sdb_event_expr(e)) continue;
    sdb_err tmp = SDB_ERR_INIT;
    int rc = sdb_restore_replacement(p->env, sdb_event_sym(e), sdb_event_expr(e),
                                     sdb_event_detail(e), &tmp);
    sdb_err_clear(&tmp);
    if (rc == SDB_E_OOM) return oom(err);   /* a cycle is dropped: the env could not follow it */
  }
  return SDB_OK;
}

static bool push_fact(sdb_probe *p, fact f) {
  if (p->nfacts == p->capfacts) {
    size_t cap = p->capfacts ? 2 * p->capfacts : 16;
    fact *nf = realloc(p->facts, cap * sizeof *nf);
    if (!nf) return false;
    p->facts = nf;
    p->capfacts = cap;
  }
  p->facts[p->nfacts++] = f;
  return true;
}

/* Guards and runtime asserts, merged in event order, re-added with
** sdb_check (which refines ranges and replacements and records axioms). A
** fact the rebuilt env finds false (a record at odds with itself) is left
** out rather than making every step unprobeable. */
static int load_facts(sdb_probe *p, const sdb_view *v, sdb_err *err) {
  size_t ng = sdb_view_count(v, SDB_EV_GUARD_ADDED), na = sdb_view_count(v, SDB_EV_RUNTIME_ASSERT);
  size_t i = 0, j = 0;
  while (i < ng || j < na) {
    const sdb_event *g = i < ng ? sdb_view_at(v, SDB_EV_GUARD_ADDED, i) : NULL;
    const sdb_event *a = j < na ? sdb_view_at(v, SDB_EV_RUNTIME_ASSERT, j) : NULL;
    const sdb_event *e;
    if (g && (!a || g->seq < a->seq)) { e = g; i++; }
    else { e = a; j++; }
    if (!e || !sdb_event_expr(e) || !sdb_is_bool(sdb_event_expr(e))) continue;
    sdb_err tmp = SDB_ERR_INIT;
    int rc = sdb_check(p->env, sdb_event_expr(e), NULL, &tmp);
    sdb_err_clear(&tmp);
    if (rc == SDB_E_OOM) return oom(err);
    if (rc) continue;
    fact f = {sdb_event_expr(e), e == g ? FACT_GUARD : FACT_ASSERT, sdb_event_site(e)->file, sdb_event_site(e)->line, e->seq};
    if (!push_fact(p, f)) return oom(err);
  }
  return SDB_OK;
}

/* The seq of the current compile's phase_start. The view keeps it to
** itself, so this replays its rule on the phase events: a trace
** phase_start outside every trace phase starts a compile; a phase_end pops
** the innermost phase of its stamp (else the innermost). */
static int compile_start(const sdb_view *v, uint32_t *out) {
  unsigned want = sdb_view_compile(v), seen = 0;
  *out = 0;
  if (want == 0) return 0;
  size_t ns = sdb_view_count(v, SDB_EV_PHASE_START), ne = sdb_view_count(v, SDB_EV_PHASE_END);
  uint8_t *stack = malloc(ns + 1);
  if (!stack) return -1;
  size_t depth = 0, i = 0, j = 0;
  while (i < ns || j < ne) {
    const sdb_event *s = i < ns ? sdb_view_at(v, SDB_EV_PHASE_START, i) : NULL;
    const sdb_event *e = j < ne ? sdb_view_at(v, SDB_EV_PHASE_END, j) : NULL;
    if (s && (!e || s->seq < e->seq)) {
      i++;
      bool in_trace = false;
      for (size_t k = 0; k < depth; k++) in_trace |= stack[k] == SDB_PHASE_TRACE;
      if (s->phase == SDB_PHASE_TRACE && !in_trace) {
        depth = 0;
        if (++seen == want) *out = s->seq;
      }
      stack[depth++] = s->phase;
    } else {
      j++;
      size_t k = depth;
      while (k > 0 && stack[k - 1] != e->phase) k--;
      depth = k > 0 ? k - 1 : (depth ? depth - 1 : 0);
    }
  }
  free(stack);
  return 0;
}

static int load_questions(sdb_probe *p, const sdb_view *v, sdb_err *err) {
  uint32_t start;
  if (compile_start(v, &start)) return oom(err);
  size_t n = sdb_view_count(v, SDB_EV_ERROR);
  p->questions = calloc(n ? n : 1, sizeof *p->questions);
  if (!p->questions) return oom(err);
  for (size_t i = 0; i < n; i++) {
    const sdb_event *e = sdb_view_at(v, SDB_EV_ERROR, i);
    if (!e || e->seq < start || !sdb_event_expr(e)) continue;
    bool dup = false;
    for (size_t k = 0; k < p->nquestions; k++) dup |= p->questions[k] == sdb_event_expr(e);
    if (!dup) p->questions[p->nquestions++] = sdb_event_expr(e);
  }
  return SDB_OK;
}

/* The first free symbol of e the probe does not know; NULL when all are
** known; *bad on OOM. */
static const sdb_expr *unknown_symbol(const sdb_probe *p, const sdb_expr *e, bool *bad) {
  const sdb_expr **fs, *r = NULL;
  long n = sdb_free_symbols(e, &fs);
  *bad = n < 0;
  for (long i = 0; i < n && !r; i++)
    if (!psym_of(p, fs[i])) r = fs[i];
  free(fs);
  return r;
}

static void put_reason(sdb_buf *b, sdb_probe *p, const sdb_expr *e);
static void put_hints(sdb_buf *b, sdb_probe *p, const sdb_expr *s, bool *ok, int64_t *v);

static int contradiction(sdb_probe *p, const sdb_expr *a, bool by_hints, sdb_err *err) {
  sdb_buf b = SDB_BUF_INIT;
  put_expr(&b, a);
  sdb_buf_puts(&b, " contradicts what is known at this step: ");
  if (by_hints) {
    bool ok;
    int64_t v;
    const sdb_expr *s = sdb_simplify(p->env, a);
    put_hints(&b, p, s ? s : a, &ok, &v);
  } else {
    put_reason(&b, p, a);
  }
  if (b.failed) { sdb_buf_free(&b); return oom(err); }
  return sdb_err_take(err, SDB_E_CONSTRAINT, "ConstraintViolationError", sdb_buf_take(&b));
}

static int assume(sdb_probe *p, const sdb_expr *a, sdb_err *err) {
  if (!a) return sdb_err_set(err, SDB_E_INVALID, "ValueError", "assume needs an expression");
  bool bad;
  const sdb_expr *u = unknown_symbol(p, a, &bad);
  if (bad) return oom(err);
  if (u) return sdb_err_set(err, SDB_E_INVALID, "NameError", "unknown symbol %s at this step", u->name);
  if (!sdb_is_bool(a)) {
    char *s = sdb_expr_str(a);
    int rc = sdb_err_set(err, SDB_E_INVALID, "TypeError",
                         "assume takes a condition such as u0 >= 1, not %s", s ? s : "?");
    free(s);
    return rc;
  }
  const sdb_expr *st = sdb_maybe_evaluate_static(p->env, a);
  if (st && st->kind == SDB_FALSE) return contradiction(p, a, false, err);
  if (!st) {
    sdb_err tmp = SDB_ERR_INIT;
    int rc = sdb_check(p->env, a, NULL, &tmp);
    sdb_err_clear(&tmp);
    /* not static and refused: only backed symbols, false with the hints */
    if (rc == SDB_E_CONSTRAINT) return contradiction(p, a, true, err);
    if (rc == SDB_E_OOM) return oom(err);
    if (rc) return sdb_err_set(err, rc, "RuntimeError", "cannot assume this condition");
  }
  fact f = {a, FACT_ASSUMED, NULL, 0, 0};
  return push_fact(p, f) ? SDB_OK : oom(err);
}

sdb_probe *sdb_probe_new(const sdb_view *v, const sdb_expr *const *assumed, size_t n,
                         sdb_err *err) {
  sdb_probe *p = calloc(1, sizeof *p);
  if (!p) { oom(err); return NULL; }
  p->env = sdb_shape_env_new(NULL, NULL);
  if (!p->env) { oom(err); sdb_probe_free(p); return NULL; }
  if (load_symbols(p, v, err) || load_replacements(p, v, err) ||
      (p->nrecorded = sdb_replacement_count(p->env), load_facts(p, v, err)) ||
      load_questions(p, v, err)) {
    sdb_probe_free(p);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    if (assume(p, assumed[i], err)) { sdb_probe_free(p); return NULL; }
  return p;
}

void sdb_probe_free(sdb_probe *p) {
  if (!p) return;
  sdb_shape_env_free(p->env);
  free(p->syms);
  sdb_map_free(&p->symix);
  free(p->facts);
  free(p->questions);
  free(p);
}

sdb_shape_env *sdb_probe_env(sdb_probe *p) { return p->env; }

size_t sdb_probe_questions(const sdb_probe *p, const sdb_expr *const **out) {
  *out = p->nquestions ? p->questions : NULL;
  return p->nquestions;
}

int sdb_probe_parse(sdb_probe *p, const char *text, const sdb_expr **out, sdb_err *err) {
  char msg[256];
  *out = NULL;
  const sdb_expr *e = sdb_parse(text ? text : "", msg, sizeof msg);
  if (!e) return sdb_err_set(err, SDB_E_INVALID, "SyntaxError", "%s", msg);
  bool bad;
  const sdb_expr *u = unknown_symbol(p, e, &bad);
  if (bad) return oom(err);
  if (u) return sdb_err_set(err, SDB_E_INVALID, "NameError", "unknown symbol %s at this step", u->name);
  *out = e;
  return SDB_OK;
}

/* --- reasons -------------------------------------------------------------------- */

/* A fresh env with env's symbols, current ranges and replacements, and no
** facts; NULL on OOM. */
static sdb_shape_env *bare_env(const sdb_shape_env *env) {
  sdb_shape_env *b = sdb_shape_env_new(NULL, NULL);
  if (!b) return NULL;
  for (size_t i = 0; i < sdb_symbol_count(env); i++) {
    const sdb_symbol_info *s = sdb_symbol_at(env, i);
    if (sdb_declare_symbol(b, s->sym, s->unbacked, s->type, s->has_hint, s->hint, s->range,
                           s->size_like, NULL) == SDB_E_OOM)
      goto nomem;
  }
  for (size_t i = 0; i < sdb_replacement_count(env); i++) {
    const sdb_replacement *r = sdb_replacement_at(env, i);
    if (sdb_restore_replacement(b, r->sym, r->target, r->reason, NULL) == SDB_E_OOM) goto nomem;
  }
  return b;
nomem:
  sdb_shape_env_free(b);
  return NULL;
}

static void put_fact_where(sdb_buf *b, const fact *f) {
  if (f->kind == FACT_ASSUMED) { sdb_buf_puts(b, "(assumed)"); return; }
  sdb_buf_puts(b, f->kind == FACT_GUARD ? "(guard, " : "(runtime assert, ");
  if (f->file) sdb_buf_printf(b, "%s:%d)", base_name(f->file), f->line);
  else sdb_buf_printf(b, "event %u)", (unsigned)f->seq);
}

/* "s1 is replaced by s0 (solve)" for each free symbol of e with a replacement. */
static void put_replacements(sdb_buf *b, sdb_probe *p, const sdb_expr *e, int *n,
                             const char *sep) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(e, &fs);
  if (m < 0) { b->failed = true; return; }
  for (long i = 0; i < m; i++) {
    const sdb_replacement *r = repl_of(p->env, fs[i]);
    if (!r) continue;
    if (sep) sdb_buf_puts(b, sep);
    else clause(b, n);
    const sdb_expr *t = sdb_simplify(p->env, fs[i]);   /* the representative now */
    bool derived = true;
    for (size_t k = 0; k < p->nrecorded && k < sdb_replacement_count(p->env); k++)
      if (sdb_replacement_at(p->env, k) == r) derived = false;
    sdb_buf_printf(b, "%s is replaced by ", fs[i]->name);
    put_expr(b, t ? t : r->target);
    if (r->reason || derived)
      sdb_buf_printf(b, " (%s%s%s)", r->reason ? r->reason : "", r->reason && derived ? ", " : "",
                     derived ? "implied by this step's facts" : "");
    if (sep) sdb_buf_putc(b, '\n');
  }
  free(fs);
}

static void put_ranges(sdb_buf *b, sdb_probe *p, const sdb_expr *s, int *n) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(s, &fs);
  if (m < 0) { b->failed = true; return; }
  for (long i = 0; i < m; i++) {
    const sdb_symbol_info *si = sdb_symbol(p->env, fs[i]);
    clause(b, n);
    sdb_buf_printf(b, "%s is in ", fs[i]->name);
    put_range(b, si ? si->range : sdb_range_unknown());
    if (si && si->size_like) sdb_buf_puts(b, " (size-like)");
  }
  free(fs);
}

static bool shares_symbol(const sdb_expr *a, const sdb_expr *const *syms, long n) {
  for (long i = 0; i < n; i++)
    if (sdb_has_symbol(a, syms[i])) return true;
  return false;
}

/* e with each symbol replaced by its representative, and nothing else
** (sdb_simplify also rewrites by ranges and divisibility). */
static const sdb_expr *replaced(sdb_probe *p, const sdb_expr *e) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(e, &fs);
  if (m <= 0) return m < 0 ? NULL : e;
  const sdb_expr **to = malloc((size_t)m * sizeof *to);
  const sdb_expr *r = NULL;
  if (to) {
    bool ok = true;
    for (long i = 0; i < m && ok; i++) ok = (to[i] = sdb_simplify(p->env, fs[i])) != NULL;
    r = ok ? sdb_subs(e, fs, to, (size_t)m) : NULL;
  }
  free(to);
  free(fs);
  return r;
}

/* Is f about one of syms, as written or simplified? (A guard Eq(s0, s1)
** is about s0 though it simplifies to True.) */
static bool about(sdb_probe *p, const fact *f, const sdb_expr *const *syms, long n) {
  if (shares_symbol(f->expr, syms, n)) return true;
  const sdb_expr *fe = sdb_simplify(p->env, f->expr);
  return fe && shares_symbol(fe, syms, n);
}

/* Why e, decided in p's env, is decided: the replacements it uses, then
** the ranges if those alone decide it, else the one fact that does. */
static void put_reason(sdb_buf *b, sdb_probe *p, const sdb_expr *e) {
  if (sdb_is_const(e)) { sdb_buf_puts(b, "it is a constant"); return; }
  int n = 0;
  put_replacements(b, p, e, &n, NULL);
  const sdb_expr *s = replaced(p, e);
  if (!s) { b->failed = true; return; }
  if (sdb_is_const(s) && n) return;      /* the replacements alone */
  sdb_shape_env *bare = bare_env(p->env);
  if (!bare) { b->failed = true; return; }
  bool decided = sdb_maybe_evaluate_static(bare, e) != NULL;
  sdb_shape_env_free(bare);
  if (decided) { put_ranges(b, p, s, &n); return; }
  const sdb_expr **fs;
  long m = sdb_free_symbols(s, &fs);
  if (m < 0) { b->failed = true; return; }
  for (size_t i = 0; i < p->nfacts && !decided; i++) {
    const fact *f = &p->facts[i];
    if (!about(p, f, fs, m)) continue;
    sdb_shape_env *one = bare_env(p->env);
    if (!one) { b->failed = true; break; }
    sdb_err tmp = SDB_ERR_INIT;
    sdb_check(one, f->expr, NULL, &tmp);
    sdb_err_clear(&tmp);
    decided = sdb_maybe_evaluate_static(one, e) != NULL;
    sdb_shape_env_free(one);
    if (!decided) continue;
    clause(b, &n);
    put_expr(b, f->expr);
    sdb_buf_puts(b, " holds ");
    put_fact_where(b, f);
  }
  free(fs);
  if (!decided) {
    clause(b, &n);
    sdb_buf_puts(b, "it follows from several facts together");
  }
}

/* Backed symbols' hints for sdb_eval (ud: the env). */
static int hint_lookup(void *ud, const sdb_expr *sym, int64_t *out) {
  const sdb_symbol_info *si = sdb_symbol(ud, sym);
  if (!si || !si->has_hint) return -1;
  *out = si->hint;
  return 0;
}

/* "with the hints (s0 = 5) it is False" for s over backed symbols; *ok
** false ("not computable") when it cannot be evaluated. */
static void put_hints(sdb_buf *b, sdb_probe *p, const sdb_expr *s, bool *ok, int64_t *v) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(s, &fs);
  if (m < 0) { b->failed = true; *ok = false; return; }
  char msg[128];
  *ok = sdb_eval(s, hint_lookup, p->env, v, msg, sizeof msg) == 0;
  sdb_buf_puts(b, "with the hints (");
  for (long i = 0; i < m; i++) {
    const sdb_symbol_info *si = sdb_symbol(p->env, fs[i]);
    sdb_buf_printf(b, "%s%s = ", i ? ", " : "", fs[i]->name);
    if (si && si->has_hint) sdb_buf_printf(b, "%lld", (long long)si->hint);
    else sdb_buf_puts(b, "?");
  }
  sdb_buf_puts(b, ") it is ");
  if (*ok) put_value(b, *v, sdb_is_bool(s));
  else sdb_buf_puts(b, "not computable");
  free(fs);
}

/* --- the counterexample search ---------------------------------------------------------- */

typedef struct { int64_t *v; size_t n; } cands;

typedef struct search {
  sdb_shape_env *env;
  const sdb_expr **syms;
  size_t n;
  int64_t *cur;
} search;

static int assign_lookup(void *ud, const sdb_expr *sym, int64_t *out) {
  const search *s = ud;
  for (size_t i = 0; i < s->n; i++)
    if (s->syms[i] == sym) { *out = s->cur[i]; return 0; }
  return hint_lookup(s->env, sym, out);   /* backed symbols outside e: their hints */
}

static void cand_add(cands *c, sdb_range r, int64_t x) {
  if (x == SDB_NINF || x == SDB_PINF || !sdb_range_contains(r, x) || c->n >= MAX_CANDS) return;
  for (size_t i = 0; i < c->n; i++)
    if (c->v[i] == x) return;
  c->v[c->n++] = x;
}

static void cand_add_near(cands *c, sdb_range r, int64_t x, int64_t d) {
  int64_t y;
  if (!__builtin_add_overflow(x, d, &y)) cand_add(c, r, y);
}

typedef struct { int64_t v[MAX_CONSTS]; size_t n; int64_t coef[8]; size_t ncoef; } consts;

static void const_add(consts *k, int64_t x) {
  for (size_t i = 0; i < k->n; i++)
    if (k->v[i] == x) return;
  if (k->n < MAX_CONSTS) k->v[k->n++] = x;
}

static void collect_consts(const sdb_expr *e, consts *k) {
  if (e->kind == SDB_INT) const_add(k, e->ival);
  else if (e->kind == SDB_ADD && e->ival) const_add(k, e->ival);
  else if (e->kind == SDB_MUL && e->ival != 1 && e->ival != -1) {
    const_add(k, e->ival);
    bool dup = false;
    for (size_t i = 0; i < k->ncoef; i++) dup |= k->coef[i] == e->ival;
    if (!dup && k->ncoef < 8) k->coef[k->ncoef++] = e->ival;
  }
  for (size_t i = 0; i < e->nargs; i++) collect_consts(e->args[i], k);
}

/* Each relation of e that is linear in x with the rest constant, solved
** for x: the boundary where it flips. */
static void collect_solutions(const sdb_expr *e, const sdb_expr *x, sdb_range r, cands *c) {
  if (is_rel(e) && sdb_has_symbol(e, x)) {
    const sdb_expr *d = sdb_sub(e->args[0], e->args[1]), *rest;
    int64_t k;
    if (d && sdb_linear_in(d, x, &k, &rest) && k != 0 && rest->kind == SDB_INT) {
      int64_t m = -rest->ival, lo = sdb_floor_div64(m, k), hi = sdb_ceil_div64(m, k);
      cand_add(c, r, lo);
      cand_add(c, r, hi);
      cand_add_near(c, r, lo, -1);
      cand_add_near(c, r, hi, 1);
    }
    return;
  }
  for (size_t i = 0; i < e->nargs; i++) collect_solutions(e->args[i], x, r, c);
}

static void candidates(search *s, size_t i, const sdb_expr *const *exprs, size_t nexprs,
                       const consts *k, cands *c) {
  const sdb_symbol_info *si = sdb_symbol(s->env, s->syms[i]);
  sdb_range r = si ? si->range : sdb_range_unknown();
  if (si && si->has_hint) cand_add(c, r, si->hint);
  cand_add(c, r, r.lo);
  for (size_t j = 0; j < nexprs; j++) collect_solutions(exprs[j], s->syms[i], r, c);
  for (int64_t x = 0; x <= 2; x++) cand_add(c, r, x);
  for (size_t j = 0; j < k->n; j++) {
    int64_t x = k->v[j];
    cand_add(c, r, x);
    cand_add_near(c, r, x, -1);
    cand_add_near(c, r, x, 1);
    if (x != SDB_NINF + 1) cand_add(c, r, -x);
    for (size_t q = 0; q < k->ncoef; q++) {
      cand_add(c, r, sdb_floor_div64(x, k->coef[q]));
      cand_add(c, r, sdb_ceil_div64(x, k->coef[q]));
    }
  }
  if (r.lo != SDB_NINF) cand_add_near(c, r, r.lo, 1);
  cand_add(c, r, r.hi);
  if (r.hi != SDB_PINF) cand_add_near(c, r, r.hi, -1);
  cand_add(c, r, -1);
}

static bool holds(const sdb_expr *e, search *s) {
  int64_t v;
  char msg[64];
  return sdb_eval(e, assign_lookup, s, &v, msg, sizeof msg) == 0 && v != 0;
}

/* Can f be checked under an assignment of syms (the rest backed)? Does it
** mention syms at all? */
static bool checkable(const sdb_shape_env *env, const sdb_expr *f, const sdb_expr *const *syms,
                      size_t n) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(f, &fs);
  bool mentions = false, ok = m > 0;
  for (long i = 0; i < m && ok; i++) {
    bool ours = false;
    for (size_t j = 0; j < n; j++) ours |= fs[i] == syms[j];
    const sdb_symbol_info *si = sdb_symbol(env, fs[i]);
    mentions |= ours;
    ok = ours || (si && si->has_hint);
  }
  free(fs);
  return ok && mentions;
}

/* Values for the free symbols of sdb_simplify(e) that satisfy the facts
** and make target (NULL: anything) evaluate to want; *value is what e
** evaluates to there. -1 on OOM, 0 none found, 1 found. */
static int find(sdb_probe *p, const sdb_expr *e, const sdb_expr *target, bool want,
                sdb_probe_assign *out, int64_t *value) {
  memset(out, 0, sizeof *out);
  const sdb_expr *s = sdb_simplify(p->env, e);
  const sdb_expr *t = target ? sdb_simplify(p->env, target) : NULL;
  if (!s || (target && !t)) return -1;
  const sdb_expr **syms = NULL;
  long ns = sdb_free_symbols(s, &syms);
  if (ns < 0) return -1;
  search sr = {p->env, syms, (size_t)ns, NULL};
  const sdb_expr **fx = calloc(p->nfacts + 2, sizeof *fx);
  cands *cs = calloc((size_t)ns + 1, sizeof *cs);
  size_t *ix = calloc((size_t)ns + 1, sizeof *ix);
  sr.cur = calloc((size_t)ns + 1, sizeof *sr.cur);
  int rc = -1;
  if (!fx || !cs || !ix || !sr.cur) goto done;
  /* fx: the target, e, then the facts to respect (simplified): the
  ** expressions whose constants and boundaries make the candidates */
  size_t nx = 2;
  fx[0] = t ? t : s;
  fx[1] = s;
  for (size_t i = 0; i < p->nfacts; i++) {
    const sdb_expr *f = sdb_simplify(p->env, p->facts[i].expr);
    if (f && !sdb_is_const(f) && checkable(p->env, f, syms, (size_t)ns)) fx[nx++] = f;
  }
  consts k;
  memset(&k, 0, sizeof k);
  for (size_t i = 0; i < nx; i++) collect_consts(fx[i], &k);
  for (long i = 0; i < ns; i++) {
    cs[i].v = malloc(MAX_CANDS * sizeof *cs[i].v);
    if (!cs[i].v) goto done;
    candidates(&sr, (size_t)i, fx, nx, &k, &cs[i]);
  }
  /* keep the product within the budget: trim the longest lists' tails */
  for (;;) {
    double prod = 1;
    size_t longest = 0;
    for (long i = 0; i < ns; i++) {
      prod *= (double)cs[i].n;
      if (cs[i].n > cs[longest].n) longest = (size_t)i;
    }
    if (prod <= SDB_PROBE_BUDGET || cs[longest].n <= 1) break;
    cs[longest].n--;
  }
  for (long i = 0; i < ns; i++)
    if (cs[i].n == 0) { rc = 0; goto done; }   /* an empty range: nothing to try */
  rc = 0;
  for (;;) {
    for (long i = 0; i < ns; i++) sr.cur[i] = cs[i].v[ix[i]];
    out->tried++;
    int64_t tv = 0;
    char msg[64];
    bool ok = !t || (sdb_eval(t, assign_lookup, &sr, &tv, msg, sizeof msg) == 0 &&
                     (tv != 0) == want);
    for (size_t j = 2; ok && j < nx; j++) ok = holds(fx[j], &sr);
    if (ok && sdb_eval(s, assign_lookup, &sr, value, msg, sizeof msg) == 0) { rc = 1; break; }
    if (out->tried >= SDB_PROBE_BUDGET) break;
    long i = ns - 1;                    /* the odometer: the last symbol turns fastest */
    while (i >= 0 && ++ix[i] == cs[i].n) ix[i--] = 0;
    if (i < 0) break;
  }
  if (rc == 1 && ns > 0) {             /* a constant needs no assignment: arrays stay NULL */
    out->n = (size_t)ns;
    out->syms = syms;
    out->vals = sr.cur;
    syms = NULL;
    sr.cur = NULL;
  }
done:
  if (cs)
    for (long i = 0; i < ns; i++) free(cs[i].v);
  free(cs);
  free(ix);
  free(fx);
  free(sr.cur);
  free(syms);
  if (rc < 0) out->tried = 0;
  return rc;
}

bool sdb_probe_find(sdb_probe *p, const sdb_expr *e, bool want, sdb_probe_assign *out) {
  int64_t v;
  return find(p, e, e, want, out, &v) == 1;
}

void sdb_probe_assign_free(sdb_probe_assign *a) {
  if (!a) return;
  free(a->syms);
  free(a->vals);
  memset(a, 0, sizeof *a);
}

static void put_assign(sdb_buf *b, const sdb_probe_assign *a) {
  for (size_t i = 0; i < a->n; i++)
    sdb_buf_printf(b, "%s%s = %lld", i ? ", " : "", a->syms[i]->name, (long long)a->vals[i]);
}

char *sdb_probe_assign_str(const sdb_probe_assign *a) {
  sdb_buf b = SDB_BUF_INIT;
  put_assign(&b, a);
  return take(&b);        /* "" for no symbols */
}

/* --- print ------------------------------------------------------------------------- */

/* The unbacked free symbols of s, "u0, u1"; false when there are none. */
static bool put_unbacked(sdb_buf *b, sdb_probe *p, const sdb_expr *s) {
  const sdb_expr **fs;
  long m = sdb_free_symbols(s, &fs);
  if (m < 0) { b->failed = true; return false; }
  int n = 0;
  for (long i = 0; i < m; i++) {
    const sdb_symbol_info *si = sdb_symbol(p->env, fs[i]);
    if (si && si->has_hint) continue;
    if (n++ == 0) sdb_buf_puts(b, " (unbacked ");
    else sdb_buf_puts(b, ", ");
    sdb_buf_puts(b, fs[i]->name);
  }
  if (n) sdb_buf_putc(b, ')');
  free(fs);
  return n > 0;
}

char *sdb_probe_print(sdb_probe *p, const sdb_expr *e) {
  sdb_buf b = SDB_BUF_INIT;
  const sdb_expr *st = sdb_maybe_evaluate_static(p->env, e);
  if (st) {
    put_expr(&b, st);
    sdb_buf_puts(&b, "\n  statically known: ");
    put_reason(&b, p, e);
    sdb_buf_putc(&b, '\n');
    return take(&b);
  }
  const sdb_expr *s = simp(p, e), *d = display(p, e);
  put_expr(&b, d);
  sdb_buf_puts(&b, "\n  ");
  int n = 0;
  put_replacements(&b, p, e, &n, NULL);
  if (!sdb_is_bool(s)) {
    clause(&b, &n);
    sdb_buf_puts(&b, "range ");
    put_range(&b, sdb_bound_in(p->env, s));
  }
  clause(&b, &n);
  sdb_buf_puts(&b, "not statically known");
  if (!put_unbacked(&b, p, s)) {
    int64_t v;
    char msg[64];
    if (sdb_eval(s, hint_lookup, p->env, &v, msg, sizeof msg) == 0) {
      sdb_buf_puts(&b, "; backed: hint ");
      put_value(&b, v, sdb_is_bool(s));
    }
  }
  sdb_buf_putc(&b, '\n');
  return take(&b);
}

/* --- why ---------------------------------------------------------------------------- */

static void put_symbol_line(sdb_buf *b, sdb_probe *p, const sdb_expr *sym) {
  const psym *ps = psym_of(p, sym);
  const sdb_symbol_info *si = sdb_symbol(p->env, sym);
  if (!ps || !si) { sdb_buf_printf(b, "  %s: not seen at this step\n", sym->name); return; }
  sdb_buf_printf(b, "  %s: %s %s", sym->name, si->unbacked ? "unbacked" : "backed", ps->type);
  if (si->has_hint) sdb_buf_printf(b, ", hint %lld", (long long)si->hint);
  else if (!si->unbacked) sdb_buf_puts(b, ", no hint (an imported log only mentions it)");
  sdb_buf_puts(b, ", range ");
  put_range(b, si->range);
  if (si->size_like) sdb_buf_puts(b, ", size-like");
  if (ps->source) sdb_buf_printf(b, ", source %s", ps->source);
  if (ps->created && si->unbacked && (ps->op || ps->file)) {
    sdb_buf_puts(b, ", created");
    if (ps->op) sdb_buf_printf(b, " by %s", ps->op);
    if (ps->file) sdb_buf_printf(b, " at %s:%d", base_name(ps->file), ps->line);
  }
  sdb_buf_putc(b, '\n');
}

static void put_facts_about(sdb_buf *b, sdb_probe *p, const sdb_expr *const *fs, long m) {
  sdb_buf_puts(b, "  facts about ");
  for (long i = 0; i < m; i++) sdb_buf_printf(b, "%s%s", i ? ", " : "", fs[i]->name);
  sdb_buf_puts(b, ": ");
  size_t listed = 0, more = 0;
  for (size_t i = 0; i < p->nfacts; i++) {
    const fact *f = &p->facts[i];
    if (!about(p, f, fs, m)) continue;
    if (listed == MAX_LISTED) { more++; continue; }
    if (listed++) sdb_buf_puts(b, "; ");
    put_expr(b, f->expr);
    sdb_buf_putc(b, ' ');
    put_fact_where(b, f);
  }
  if (!listed) sdb_buf_puts(b, "none");
  if (more) sdb_buf_printf(b, "; and %zu more", more);
  sdb_buf_putc(b, '\n');
}

/* "true  when u0 = 507" / "false when u0 = 0", or why none was found */
static void put_side(sdb_buf *b, sdb_probe *p, const sdb_expr *e, bool want) {
  sdb_probe_assign a;
  int64_t v;
  int rc = find(p, e, e, want, &a, &v);
  if (rc < 0) { b->failed = true; return; }
  if (rc == 1) {
    sdb_buf_puts(b, want ? "  true  when " : "  false when ");
    put_assign(b, &a);
    sdb_buf_putc(b, '\n');
  } else {
    sdb_buf_printf(b, "  no assignment tried makes it %s (%zu tried)\n", want ? "true" : "false",
                   a.tried);
  }
  sdb_probe_assign_free(&a);
}

/* Two values of an integer expression: it is not a constant. */
static void put_values(sdb_buf *b, sdb_probe *p, const sdb_expr *e, const sdb_expr *d) {
  sdb_probe_assign a1, a2;
  int64_t v1, v2;
  int rc = find(p, e, NULL, true, &a1, &v1);
  if (rc < 0) { b->failed = true; return; }
  if (rc == 0) {
    sdb_buf_printf(b, "  no assignment tried satisfies the facts (%zu tried)\n", a1.tried);
    sdb_probe_assign_free(&a1);
    return;
  }
  sdb_buf_puts(b, "  ");
  put_expr(b, d);
  sdb_buf_printf(b, " is %lld when ", (long long)v1);
  put_assign(b, &a1);
  sdb_buf_putc(b, '\n');
  const sdb_expr *other = sdb_ne(e, sdb_int(v1));
  rc = other ? find(p, e, other, true, &a2, &v2) : -1;
  if (rc < 0) { b->failed = true; sdb_probe_assign_free(&a1); return; }
  sdb_buf_puts(b, "  ");
  put_expr(b, d);
  if (rc == 1) {
    sdb_buf_printf(b, " is %lld when ", (long long)v2);
    put_assign(b, &a2);
    sdb_buf_putc(b, '\n');
  } else {
    sdb_buf_printf(b, " is %lld in every assignment tried (%zu tried)\n", (long long)v1, a2.tried);
  }
  sdb_probe_assign_free(&a1);
  sdb_probe_assign_free(&a2);
}

/* Would assuming cond decide q? A trial env: p's symbols, ranges and
** replacements, its facts again, then cond. 1 yes, 0 no, -1 OOM. */
static int settles(sdb_probe *p, const sdb_expr *cond, const sdb_expr *q) {
  sdb_shape_env *t = bare_env(p->env);
  if (!t) return -1;
  int rc = 0;
  sdb_err tmp = SDB_ERR_INIT;
  for (size_t i = 0; i < p->nfacts && rc == 0; i++)
    if (sdb_check(t, p->facts[i].expr, NULL, &tmp) == SDB_E_OOM) rc = -1;
  if (rc == 0) {
    int c = sdb_check(t, cond, NULL, &tmp);
    if (c == SDB_E_OOM) rc = -1;
    else if (c == SDB_OK) rc = sdb_maybe_evaluate_static(t, q) != NULL;
  }
  sdb_err_clear(&tmp);
  sdb_shape_env_free(t);
  return rc;
}

char *sdb_probe_why(sdb_probe *p, const sdb_expr *e) {
  sdb_buf b = SDB_BUF_INIT;
  const sdb_expr *st = sdb_maybe_evaluate_static(p->env, e);
  put_expr(&b, e);
  if (st) {
    sdb_buf_puts(&b, " is statically known ");
    put_expr(&b, st);
    sdb_buf_puts(&b, " at this step: ");
    put_reason(&b, p, e);
    sdb_buf_puts(&b, ".\n");
    return take(&b);
  }
  sdb_buf_puts(&b, " is not statically known at this step.\n");
  const sdb_expr *s = simp(p, e), *d = display(p, e);
  if (d != e) {
    sdb_buf_puts(&b, "  simplified: ");
    put_expr(&b, d);
    sdb_buf_putc(&b, '\n');
  }
  put_replacements(&b, p, e, NULL, "  ");
  const sdb_expr **fs;
  long m = sdb_free_symbols(s, &fs);
  if (m < 0) { sdb_buf_free(&b); return NULL; }
  for (long i = 0; i < m; i++) put_symbol_line(&b, p, fs[i]);
  if (m) put_facts_about(&b, p, fs, m);
  free(fs);
  bool is_bool = sdb_is_bool(s);
  if (is_bool) {
    put_side(&b, p, e, true);
    put_side(&b, p, e, false);
  } else {
    put_values(&b, p, e, d);
  }
  if (!sdb_has_unbacked(p->env, s)) {
    bool ok;
    int64_t v;
    sdb_buf_puts(&b, "  backed: ");
    put_hints(&b, p, s, &ok, &v);
    sdb_buf_puts(&b, "; evaluating it adds a guard, not an error\n");
  } else if (is_bool) {
    /* the solved spelling, if both sides really settle it (the env
    ** matches facts to questions as written), else the simplified one */
    const sdb_expr *nd = sdb_not(d), *ns = sdb_not(s);
    int ok = d != s && nd ? settles(p, d, e) : 0;
    if (ok > 0) ok = settles(p, nd, e);
    if (ok < 0 || !ns) { sdb_buf_free(&b); return NULL; }
    sdb_buf_puts(&b, "  either ");
    put_check(&b, p, ok ? d : s);
    sdb_buf_puts(&b, " or ");
    put_check(&b, p, ok ? nd : ns);
    sdb_buf_puts(&b, " would settle it; `assume` tries one here\n");
  }
  return take(&b);
}

/* --- assume ------------------------------------------------------------------------- */

char *sdb_probe_assume_report(sdb_probe *before, sdb_probe *after, const sdb_expr *fact_e,
                              const sdb_expr *const *extra, size_t nextra) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_puts(&b, "assume ");
  put_expr(&b, fact_e);
  sdb_buf_puts(&b, ":\n");
  const sdb_expr *st = sdb_maybe_evaluate_static(before->env, fact_e);
  if (st) {
    sdb_buf_puts(&b, st->kind == SDB_TRUE ? "  already statically known True: "
                                          : "  contradicts what is known at this step: ");
    put_reason(&b, before, fact_e);
    sdb_buf_puts(&b, st->kind == SDB_TRUE ? "; torch._check would add nothing\n" : "\n");
    return take(&b);
  }
  /* the questions: before's, then the extra ones, each once */
  size_t nq = before->nquestions + nextra, k = 0;
  const sdb_expr **qs = calloc(nq ? nq : 1, sizeof *qs);
  if (!qs) { sdb_buf_free(&b); return NULL; }
  for (size_t i = 0; i < nq; i++) {
    const sdb_expr *q = i < before->nquestions ? before->questions[i] : extra[i - before->nquestions];
    bool dup = !q;
    for (size_t j = 0; j < k && !dup; j++) dup = qs[j] == q;
    if (!dup) qs[k++] = q;
  }
  if (!k) sdb_buf_puts(&b, "  no open questions at this step\n");
  for (size_t i = 0; i < k; i++) {
    const sdb_expr *bv = sdb_maybe_evaluate_static(before->env, qs[i]);
    const sdb_expr *av = sdb_maybe_evaluate_static(after->env, qs[i]);
    if (bv) {
      sdb_buf_puts(&b, "  already known: ");
      put_expr(&b, qs[i]);
      sdb_buf_puts(&b, " is ");
      put_expr(&b, bv);
    } else if (av) {
      sdb_buf_puts(&b, "  settles ");
      put_expr(&b, qs[i]);
      sdb_buf_puts(&b, ": ");
      put_expr(&b, av);
    } else {
      sdb_buf_puts(&b, "  still undecided: ");
      put_expr(&b, qs[i]);
    }
    sdb_buf_putc(&b, '\n');
  }
  free(qs);
  /* what the env learned: ranges narrowed, symbols replaced */
  bool changed = false;
  for (size_t i = 0; i < sdb_symbol_count(before->env); i++) {
    const sdb_symbol_info *si = sdb_symbol_at(before->env, i);
    sdb_range r0 = si->range, r1 = sdb_symbol_range(after->env, si->sym);
    if (r0.lo == r1.lo && r0.hi == r1.hi) continue;
    sdb_buf_printf(&b, "  range of %s: ", si->sym->name);
    put_range(&b, r0);
    sdb_buf_puts(&b, " -> ");
    put_range(&b, r1);
    sdb_buf_putc(&b, '\n');
    changed = true;
  }
  for (size_t i = 0; i < sdb_replacement_count(after->env); i++) {
    const sdb_replacement *r = sdb_replacement_at(after->env, i);
    const sdb_expr *t0 = sdb_simplify(before->env, r->sym), *t1 = sdb_simplify(after->env, r->sym);
    if (!t0 || !t1 || t0 == t1) continue;
    sdb_buf_printf(&b, "  %s is replaced by ", r->sym->name);
    put_expr(&b, t1);
    if (r->reason) sdb_buf_printf(&b, " (%s)", r->reason);
    sdb_buf_putc(&b, '\n');
    changed = true;
  }
  if (!changed) sdb_buf_puts(&b, "  ranges and replacements unchanged\n");
  sdb_buf_puts(&b, "  in the program: ");
  put_check(&b, after, fact_e);
  sdb_buf_putc(&b, '\n');
  return take(&b);
}
