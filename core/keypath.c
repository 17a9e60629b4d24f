/*
** keypath.c — key paths, compute_unbacked_bindings, rebind_unbacked (see
** keypath.h). The walk follows _free_unbacked_symbols_with_path: tuples
** and lists by index; a tensor's sizes, then strides, then storage offset;
** a scalar is its own path. Expressions are read raw (unsimplified): fresh
** symbols are binding sites and never get substitutions.
*/
#include "keypath.h"
#include "arena.h"
#include "buf.h"
#include "fake.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Shared paths
** ---------------------------------------------------------------------- */

static sdb_arena paths_arena;
static const sdb_keypath **paths_tab;
static size_t paths_cap, paths_len;

static void paths_reset(void) {
  sdb_arena_free(&paths_arena);
  free(paths_tab);
  paths_tab = NULL;
  paths_cap = paths_len = 0;
}

static uint64_t path_hash(const sdb_keypath *p) {
  uint64_t h = 0x9E3779B97F4A7C15u ^ p->n;
  for (int i = 0; i < p->n; i++) {
    const sdb_key *k = &p->k[i];
    uint64_t w = k->kind == SDB_KEY_DIVIDE ? (uint64_t)(uintptr_t)k->divisor : (uint64_t)k->index;
    h = (h ^ k->kind) * 0xff51afd7ed558ccdu;
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    h ^= h >> 29;
  }
  return h;
}

static bool path_eq(const sdb_keypath *a, const sdb_keypath *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++) {
    if (a->k[i].kind != b->k[i].kind) return false;
    const sdb_key *x = &a->k[i], *y = &b->k[i];
    if (x->kind == SDB_KEY_DIVIDE ? x->divisor != y->divisor : x->index != y->index) return false;
  }
  return true;
}

static bool paths_grow(void) {
  size_t cap = paths_cap ? paths_cap * 2 : 64;
  const sdb_keypath **t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < paths_cap; i++) {
    if (!paths_tab[i]) continue;
    size_t j = (size_t)path_hash(paths_tab[i]) & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = paths_tab[i];
  }
  free(paths_tab);
  paths_tab = t;
  paths_cap = cap;
  return true;
}

const sdb_keypath *sdb_keypath_intern(const sdb_keypath *p) {
  if (!paths_tab && !sdb_expr_on_reset(paths_reset)) return NULL;   /* divisors are expressions */
  if (paths_len * 4 >= paths_cap * 3 && !paths_grow()) return NULL;
  size_t j = (size_t)path_hash(p) & (paths_cap - 1);
  for (const sdb_keypath *q; (q = paths_tab[j]); j = (j + 1) & (paths_cap - 1))
    if (path_eq(p, q)) return q;
  sdb_keypath *c = sdb_arena_alloc(&paths_arena, sizeof *c, _Alignof(sdb_keypath));
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->n = p->n;
  memcpy(c->k, p->k, p->n * sizeof p->k[0]);
  paths_tab[j] = c;
  paths_len++;
  return c;
}

/* ------------------------------------------------------------------------
** Printing and parsing
** ---------------------------------------------------------------------- */

static void put_key(sdb_buf *b, const sdb_key *k, bool call_form, const sdb_key *next,
                    bool *skip_next) {
  char *d;
  switch (k->kind) {
    case SDB_KEY_SIZE: case SDB_KEY_STRIDE: {
      const char *m = k->kind == SDB_KEY_SIZE ? "size" : "stride";
      if (call_form && next && next->kind == SDB_KEY_INDEX) {
        sdb_buf_printf(b, ".%s(%lld)", m, (long long)next->index);
        *skip_next = true;
      } else {
        sdb_buf_printf(b, ".%s()", m);
      }
      break;
    }
    case SDB_KEY_STORAGE_OFFSET: sdb_buf_puts(b, ".storage_offset()"); break;
    case SDB_KEY_INDEX: sdb_buf_printf(b, "[%lld]", (long long)k->index); break;
    case SDB_KEY_CONVERT_INT: sdb_buf_puts(b, ".cast_symbool_to_symint_guardless()"); break;
    case SDB_KEY_DIVIDE:
      d = k->divisor ? sdb_expr_str(k->divisor) : NULL;
      sdb_buf_printf(b, ".__floordiv__(%s)", d ? d : "?");
      free(d);
      break;
  }
}

static char *path_str(const sdb_keypath *p, char *buf, size_t cap, bool call_form) {
  /* in a buffer of our own on the stack: a path is short, and one made on
  ** the heap read as "" when there was no memory for it */
  char space[256];
  sdb_buf b = sdb_buf_on(space, sizeof space);
  for (int i = 0; i < p->n; i++) {
    bool skip = false;
    put_key(&b, &p->k[i], call_form, i + 1 < p->n ? &p->k[i + 1] : NULL, &skip);
    if (skip) i++;
  }
  if (call_form && p->n == 0) sdb_buf_puts(&b, ".item()");
  snprintf(buf, cap, "%s", sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return buf;
}

char *sdb_keypath_str(const sdb_keypath *p, char *buf, size_t cap) {
  return path_str(p, buf, cap, false);
}

char *sdb_keypath_call_str(const sdb_keypath *p, char *buf, size_t cap) {
  return path_str(p, buf, cap, true);
}

static bool push(sdb_keypath *p, sdb_key k) {
  if (p->n >= SDB_KEYPATH_MAX) return false;
  p->k[p->n++] = k;
  return true;
}

bool sdb_keypath_parse(const char *s, sdb_keypath *out) {
  out->n = 0;
  while (*s) {
    sdb_key k = {0};
    char *end;
    if (!strncmp(s, ".size()", 7)) { k.kind = SDB_KEY_SIZE; s += 7; }
    else if (!strncmp(s, ".stride()", 9)) { k.kind = SDB_KEY_STRIDE; s += 9; }
    else if (!strncmp(s, ".storage_offset()", 17)) { k.kind = SDB_KEY_STORAGE_OFFSET; s += 17; }
    else if (!strncmp(s, ".cast_symbool_to_symint_guardless()", 35)) { k.kind = SDB_KEY_CONVERT_INT; s += 35; }
    else if (*s == '[') {
      k.kind = SDB_KEY_INDEX;
      k.index = strtoll(s + 1, &end, 10);
      if (end == s + 1 || *end != ']') return false;
      s = end + 1;
    } else if (!strncmp(s, ".__floordiv__(", 14)) {
      const char *close = strchr(s + 14, ')');
      if (!close) return false;
      char text[64];
      size_t n = (size_t)(close - (s + 14));
      if (n == 0 || n >= sizeof text) return false;
      memcpy(text, s + 14, n);
      text[n] = '\0';
      k.kind = SDB_KEY_DIVIDE;
      k.divisor = sdb_parse(text, NULL, 0);
      if (!k.divisor) return false;
      s = close + 1;
    } else {
      return false;
    }
    if (!push(out, k)) return false;
  }
  return true;
}

/* ------------------------------------------------------------------------
** key_get
** ---------------------------------------------------------------------- */

/* Cancel to_int(to_bool(x)) for x in [0, 1]: Eq(u1, 1) read as an int is u1. */
static const sdb_expr *bool_as_int(sdb_shape_env *env, const sdb_expr *b) {
  if (b->kind == SDB_TRUE) return sdb_int(1);
  if (b->kind == SDB_FALSE) return sdb_int(0);
  if (b->kind == SDB_EQ && b->args[0]->kind == SDB_SYM && b->args[1]->kind == SDB_INT &&
      b->args[1]->ival == 1) {
    sdb_range r = env ? sdb_symbol_range(env, b->args[0]) : sdb_range_unknown();
    if (r.lo >= 0 && r.hi <= 1) return b->args[0];
  }
  return NULL;
}

const sdb_expr *sdb_keypath_get(sdb_shape_env *env, const sdb_value *v,
                                const sdb_keypath *p, sdb_err *err) {
  const sdb_value *cur = v;
  const sdb_expr *e = NULL;            /* once we are inside a scalar */
  const sdb_expr *const *vec = NULL;   /* after .size() / .stride() */
  int veclen = 0;
  char ps[256];
  for (int i = 0; i < p->n; i++) {
    const sdb_key *k = &p->k[i];
    switch (k->kind) {
      case SDB_KEY_SIZE: case SDB_KEY_STRIDE: case SDB_KEY_STORAGE_OFFSET:
        if (e || vec || !cur || cur->kind != SDB_V_TENSOR) goto bad;
        if (k->kind == SDB_KEY_STORAGE_OFFSET) { e = sdb_fake_offset(cur->tensor); break; }
        vec = k->kind == SDB_KEY_SIZE ? cur->tensor->sizes : sdb_fake_strides(cur->tensor);
        veclen = cur->tensor->ndim;
        break;
      case SDB_KEY_INDEX:
        if (vec) {
          if (k->index < 0 || k->index >= veclen) goto bad;
          e = vec[k->index];
          vec = NULL;
        } else if (!e && cur && (cur->kind == SDB_V_TUPLE || cur->kind == SDB_V_LIST)) {
          if (k->index < 0 || (size_t)k->index >= cur->n) goto bad;
          cur = &cur->items[k->index];
        } else {
          goto bad;
        }
        break;
      case SDB_KEY_CONVERT_INT: {
        const sdb_expr *b = e ? e : (cur && cur->kind == SDB_V_BOOL ? cur->expr : NULL);
        if (!b || !sdb_is_bool(b)) goto bad;
        e = bool_as_int(env, b);
        if (!e) goto bad;
        break;
      }
      case SDB_KEY_DIVIDE: {
        const sdb_expr *x = e ? e : (cur && cur->kind == SDB_V_INT ? cur->expr : NULL);
        if (!x || !k->divisor) goto bad;
        e = sdb_floordiv(x, k->divisor);
        if (!e) return sdb_err_expr(err), NULL;
        break;
      }
    }
  }
  if (vec) goto bad;
  if (!e && cur && (cur->kind == SDB_V_INT || cur->kind == SDB_V_BOOL ||
                    (cur->kind == SDB_V_FLOAT && cur->expr)))
    e = cur->expr;
  if (e) return e;
bad:
  sdb_err_set(err, SDB_E_INVALID, "KeyError", "key path %s does not fit the value",
              sdb_keypath_str(p, ps, sizeof ps));
  return NULL;
}

static bool find_rec(const sdb_value *v, const sdb_expr *sym, sdb_keypath *p) {
  switch (v->kind) {
    case SDB_V_TUPLE: case SDB_V_LIST:
      for (size_t i = 0; i < v->n; i++) {
        sdb_keypath q = *p;
        sdb_key k = {SDB_KEY_INDEX, {.index = (int64_t)i}};
        if (push(&q, k) && find_rec(&v->items[i], sym, &q)) { *p = q; return true; }
      }
      return false;
    case SDB_V_TENSOR: {
      const sdb_fake *t = v->tensor;
      for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->ndim; i++) {
          if ((pass ? sdb_fake_strides(t) : t->sizes)[i] != sym) continue;
          sdb_key k1 = {(uint8_t)(pass ? SDB_KEY_STRIDE : SDB_KEY_SIZE), {.index = 0}};
          sdb_key k2 = {SDB_KEY_INDEX, {.index = i}};
          return push(p, k1) && push(p, k2);
        }
      if (sdb_fake_offset(t) == sym) {
        sdb_key k = {SDB_KEY_STORAGE_OFFSET, {.index = 0}};
        return push(p, k);
      }
      return false;
    }
    case SDB_V_INT: case SDB_V_FLOAT:
      return v->expr == sym;
    case SDB_V_BOOL:
      if (v->expr && v->expr->kind == SDB_EQ && v->expr->args[0] == sym) {
        sdb_key k = {SDB_KEY_CONVERT_INT, {.index = 0}};
        return push(p, k);
      }
      return false;
    default:
      return false;
  }
}

bool sdb_keypath_find(const sdb_value *v, const sdb_expr *sym, sdb_keypath *out) {
  out->n = 0;
  return find_rec(v, sym, out);
}

/* ------------------------------------------------------------------------
** Bindings
** ---------------------------------------------------------------------- */

void sdb_bindings_free(sdb_bindings *b) {
  if (!b) return;
  free(b->v);
  b->v = NULL;
  b->n = 0;
}

bool sdb_bindings_copy(sdb_bindings *dst, const sdb_bindings *src) {
  dst->v = NULL;
  dst->n = 0;
  if (!src->n) return true;
  dst->v = malloc(src->n * sizeof *dst->v);
  if (!dst->v) return false;
  memcpy(dst->v, src->v, src->n * sizeof *dst->v);
  dst->n = src->n;
  return true;
}

char *sdb_bindings_str(const sdb_bindings *b) {
  sdb_buf out = SDB_BUF_INIT;
  for (size_t i = 0; i < b->n; i++) {
    char ps[256];
    /* the empty path (item()) reads as the value itself */
    sdb_buf_printf(&out, "%s%s: %s", i ? ", " : "", b->v[i].sym->name,
                   b->v[i].path->n ? sdb_keypath_str(b->v[i].path, ps, sizeof ps) : "<value>");
  }
  return sdb_buf_take(&out);
}

typedef struct {
  sdb_shape_env *env;
  const sdb_expr **pending;   /* still to find; found ones are set to NULL */
  size_t npending;
  sdb_binding *found;
  size_t nfound, cap;
  bool oom;
} walk;

static long pending_index(walk *w, const sdb_expr *s) {
  for (size_t i = 0; i < w->npending; i++)
    if (w->pending[i] == s) return (long)i;
  return -1;
}

static void bind(walk *w, long ix, const sdb_keypath *p) {
  if (w->nfound == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 8;
    sdb_binding *v = realloc(w->found, cap * sizeof *v);
    if (!v) { w->oom = true; return; }
    w->found = v;
    w->cap = cap;
  }
  const sdb_keypath *shared = sdb_keypath_intern(p);
  if (!shared) { w->oom = true; return; }
  w->found[w->nfound].sym = w->pending[ix];
  w->found[w->nfound].path = shared;
  w->nfound++;
  w->pending[ix] = NULL;
}

static void visit_expr(walk *w, const sdb_expr *e, const sdb_keypath *p) {
  long ix;
  if (!e) return;
  if (e->kind == SDB_SYM) {
    if ((ix = pending_index(w, e)) >= 0) bind(w, ix, p);
    return;
  }
  /* c*u0 with u0 fresh: u0 is the value divided by c (DivideByKey) */
  if (e->kind == SDB_MUL && e->nargs == 1 && e->args[0]->kind == SDB_SYM) {
    if ((ix = pending_index(w, e->args[0])) >= 0) {
      sdb_keypath q = *p;
      sdb_key k = {SDB_KEY_DIVIDE, {.divisor = sdb_int(e->ival)}};
      if (push(&q, k)) bind(w, ix, &q);
    }
    return;
  }
  /* s0*u0 with s0 backed: divide by the backed symbol */
  if (e->kind == SDB_MUL && e->ival == 1 && e->nargs == 2 &&
      e->args[0]->kind == SDB_SYM && e->args[1]->kind == SDB_SYM) {
    for (int side = 0; side < 2; side++) {
      const sdb_expr *u = e->args[side], *c = e->args[1 - side];
      if ((ix = pending_index(w, u)) >= 0 && pending_index(w, c) < 0 &&
          !sdb_is_unbacked(w->env, c)) {
        sdb_keypath q = *p;
        sdb_key k = {SDB_KEY_DIVIDE, {.divisor = c}};
        if (push(&q, k)) bind(w, ix, &q);
        return;
      }
    }
    return;
  }
  /* a SymBool Eq(u1, 1): bound through the int cast */
  if (e->kind == SDB_EQ && e->args[0]->kind == SDB_SYM && e->args[1]->kind == SDB_INT &&
      e->args[1]->ival == 1 && (ix = pending_index(w, e->args[0])) >= 0) {
    sdb_keypath q = *p;
    sdb_key k = {SDB_KEY_CONVERT_INT, {.index = 0}};
    if (push(&q, k)) bind(w, ix, &q);
  }
}

static void visit_vec(walk *w, const sdb_expr *const *v, int n, sdb_key_kind kind,
                      const sdb_keypath *p) {
  for (int i = 0; i < n; i++) {
    sdb_keypath q = *p;
    sdb_key k1 = {(uint8_t)kind, {.index = 0}}, k2 = {SDB_KEY_INDEX, {.index = i}};
    if (push(&q, k1) && push(&q, k2)) visit_expr(w, v[i], &q);
  }
}

static void visit(walk *w, const sdb_value *v, const sdb_keypath *p) {
  switch (v->kind) {
    case SDB_V_TUPLE: case SDB_V_LIST:
      for (size_t i = 0; i < v->n; i++) {
        sdb_keypath q = *p;
        sdb_key k = {SDB_KEY_INDEX, {.index = (int64_t)i}};
        if (push(&q, k)) visit(w, &v->items[i], &q);
      }
      break;
    case SDB_V_TENSOR: {
      const sdb_fake *t = v->tensor;
      visit_vec(w, t->sizes, t->ndim, SDB_KEY_SIZE, p);
      visit_vec(w, sdb_fake_strides(t), t->ndim, SDB_KEY_STRIDE, p);
      sdb_keypath q = *p;
      sdb_key k = {SDB_KEY_STORAGE_OFFSET, {.index = 0}};
      if (push(&q, k)) visit_expr(w, sdb_fake_offset(t), &q);
      break;
    }
    case SDB_V_INT: case SDB_V_BOOL: case SDB_V_FLOAT:
      visit_expr(w, v->expr, p);
      break;
    default:
      break;
  }
}

int sdb_compute_unbacked_bindings(sdb_shape_env *env, const sdb_value *v,
                                  bool peek, sdb_bindings *out, sdb_err *err) {
  out->v = NULL;
  out->n = 0;
  size_t n = sdb_pending_count(env);
  if (n == 0) return SDB_OK;
  walk w = {env, calloc(n, sizeof *w.pending), n, NULL, 0, 0, false};
  if (!w.pending) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  for (size_t i = 0; i < n; i++) w.pending[i] = sdb_pending_at(env, i);
  sdb_keypath root = {0};
  visit(&w, v, &root);
  if (w.oom) {
    free(w.pending);
    free(w.found);
    return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  }
  /* kept on the node for the rest of the run: no spare room */
  if (w.nfound && w.nfound < w.cap) {
    sdb_binding *fit = realloc(w.found, w.nfound * sizeof *fit);
    if (fit) w.found = fit;
  }
  out->v = w.found;
  out->n = w.nfound;
  int rc = SDB_OK;
  if (!peek) {
    sdb_buf missing = SDB_BUF_INIT;
    int nmissing = 0;
    for (size_t i = 0; i < n; i++)
      if (w.pending[i]) sdb_buf_printf(&missing, "%s%s", nmissing++ ? ", " : "", w.pending[i]->name);
    sdb_pending_clear(env);
    if (nmissing) {
      char *val = v->kind == SDB_V_TENSOR ? sdb_fake_repr(v->tensor) : sdb_value_text(v);
      sdb_buf extra = SDB_BUF_INIT;
      if (v->kind == SDB_V_TENSOR) {
        const sdb_fake *t = v->tensor;
        sdb_buf_puts(&extra, " ((");
        for (int i = 0; i < t->ndim; i++) {
          char *s = sdb_expr_str(sdb_fake_strides(t)[i]);
          sdb_buf_printf(&extra, "%s%s", i ? ", " : "", s ? s : "?");
          free(s);
        }
        char *off = sdb_expr_str(sdb_fake_offset(t));
        sdb_buf_printf(&extra, "%s), %s)", t->ndim == 1 ? "," : "", off ? off : "?");
        free(off);
      } else {
        sdb_buf_putc(&extra, ' ');
      }
      rc = sdb_err_set(err, SDB_E_PENDING_NOT_FOUND, "PendingUnbackedSymbolNotFound",
                       "Pending unbacked symbols {%s} not in returned outputs %s%s.\n"
                       "Did you accidentally call new_dynamic_size() or item() more times than "
                       "you needed to in your fake implementation?\n"
                       "For more help, see https://docs.google.com/document/d/"
                       "1RWrH-3wLEpzR9kCS6gGBNen_-Fs-8PVbWWFE5AcgeWE/edit",
                       sdb_buf_cstr(&missing), val ? val : "?", sdb_buf_cstr(&extra));
      free(val);
      sdb_buf_free(&extra);
    }
    sdb_buf_free(&missing);
  }
  free(w.pending);
  return rc;
}

int sdb_rebind_unbacked(sdb_shape_env *env, const sdb_bindings *old,
                        const sdb_value *new_value, const char *why, sdb_err *err) {
  for (size_t i = 0; i < old->n; i++) {
    const sdb_expr *u0 = sdb_resolve_renamed(env, old->v[i].sym);
    const sdb_expr *u1 = sdb_keypath_get(env, new_value, old->v[i].path, err);
    if (!u1) return err && err->code ? err->code : SDB_E_INVALID;
    if (u1->kind == SDB_INT) continue;                       /* discard: a constant now */
    if (u1->kind == SDB_SYM && !sdb_is_unbacked(env, u1)) continue;  /* backed */
    if (u1->kind != SDB_SYM) {
      const sdb_expr **fs;
      long nf = sdb_free_symbols(u1, &fs);
      free(fs);
      if (nf != 0) {
        char *s = sdb_expr_str(u1);
        int rc = sdb_err_set(err, SDB_E_INVALID, "AssertionError",
                             "should have been constant, but got %s", s ? s : "?");
        free(s);
        return rc;
      }
      continue;
    }
    if (u1 == u0)
      return sdb_err_set(err, SDB_E_INVALID, "AssertionError",
                         "%s possible memo disaster (retraced without bumping the fake mode's epoch)",
                         u0->name);
    int rc = sdb_rename_unbacked_to(env, u1, u0, why, err);
    if (rc) return rc;
  }
  return SDB_OK;
}
