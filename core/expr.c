/*
** expr.c — hash-consed symbolic expressions (see expr.h).
**
** Canonical form, in the spirit of sympy's automatic simplification (so the
** strings match what PyTorch users read), restricted to integers:
**   Add   constant + sum of coefficient*monomial, like terms collected,
**         terms in sympy's printing order (lex on exponents, descending)
**   Mul   integer coefficient * sorted factors; repeated factors become Pow;
**         a number times a sum distributes (2*(x + 1) -> 2*x + 2)
**   FloorDiv  x//1 = x; divisible terms pulled out ((4*x + y)//4 ->
**         x + (y//4)); common factors cancelled; (x//a)//b = x//(a*b)
**   Mod   Mod(x, 1) = 0; divisible terms dropped; common factors pulled out
**   Max/Min  flattened, constants folded, duplicates and dominated args
**         (differing by a constant) dropped
**   Eq/Ne/Lt/Le  decided when the sides differ by a constant; Eq/Ne sides
**         ordered; Gt/Ge become Lt/Le with the sides swapped
**   And/Or/Not  flattened, folded, deduplicated, x & ~x = False
**
** This file holds the table and the arithmetic; Max/Min, relations and
** logic are built in expr_rel.c, and rebuild, substitution, free symbols
** and evaluation walk expressions in expr_walk.c.
*/
#include "expr.h"
#include "err.h"
#include "arena.h"
#include "expr_internal.h"
#include "intern.h"
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Errors
** ---------------------------------------------------------------------- */

static char expr_errmsg[256];

const char *sdb_expr_error(void) { return expr_errmsg; }

void sdb_expr_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(expr_errmsg, sizeof expr_errmsg, fmt, ap);
  va_end(ap);
}

const sdb_expr *sdb_ex_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(expr_errmsg, sizeof expr_errmsg, fmt, ap);
  va_end(ap);
  return NULL;
}

/* ------------------------------------------------------------------------
** Checked int64 arithmetic. Overflow is an error, never UB.
** ---------------------------------------------------------------------- */

/* b**e for e >= 0 by squaring; false on overflow. O(log e), so a huge
** exponent of -1, 0 or 1 costs nothing. */
static bool ipow_ov(int64_t b, int64_t e, int64_t *r) {
  int64_t acc = 1;
  for (;;) {
    if ((e & 1) && sdb_mul_ov(acc, b, &acc)) return false;
    e >>= 1;
    if (!e) break;
    if (sdb_mul_ov(b, b, &b)) return false;
  }
  *r = acc;
  return true;
}

int64_t sdb_floor_div64(int64_t a, int64_t b) { return py_floordiv(a, b); }
int64_t sdb_ceil_div64(int64_t a, int64_t b) { return -py_floordiv(-a, b); }
static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? -(uint64_t)b : (uint64_t)b;
  while (y) { uint64_t t = x % y; x = y; y = t; }
  return x > (uint64_t)INT64_MAX ? 0 : (int64_t)x;  /* 0: gcd is 2^63 */
}

/* ------------------------------------------------------------------------
** The intern table: open addressing over node pointers.
** ---------------------------------------------------------------------- */

static const sdb_expr **table;
/* each slot's hash beside it (0: empty): a probe compares these first and
** reads a node only when its hash matches, one cache miss fewer per slot
** it passes */
static uint32_t *table_hash;
static size_t table_cap, table_len;
static uint32_t next_id;

/* A multiply per word (the hash of every new node is on the path of a
** build): the finaliser below spreads the bits. */
static uint32_t hash_node(uint8_t kind, int64_t ival, const char *name,
                          const sdb_expr *const *args, size_t n) {
  uint64_t h = (0x9E3779B97F4A7C15u ^ kind) * 0xff51afd7ed558ccdu;
  h = (h ^ (uint64_t)ival) * 0xc4ceb9fe1a85ec53u;
  if (name)
    for (const char *p = name; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3u;
  for (size_t i = 0; i < n; i++) h = (h ^ args[i]->id) * 0xff51afd7ed558ccdu;
  /* the table is indexed by the low bits: mix them (murmur3's finaliser),
  ** or the consecutive ids of new arguments fill runs of neighbouring
  ** slots and the linear probes grow long */
  uint32_t x = (uint32_t)(h ^ (h >> 32));
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x ? x : 1;
}

static bool node_matches(const sdb_expr *e, uint32_t hash, uint8_t kind,
                         int64_t ival, const char *name,
                         const sdb_expr *const *args, size_t n) {
  if (e->hash != hash || e->kind != kind || e->ival != ival || e->nargs != n)
    return false;
  if (name && strcmp(name, e->name) != 0) return false;
  for (size_t i = 0; i < n; i++)
    if (e->args[i] != args[i]) return false;
  return true;
}

/* Expressions live until sdb_expr_reset, all together: they come from
** an arena (a malloc per node was a fifth of building a new one). */
static sdb_arena arena;

/* Doubling in place: realloc moves a large table's pages rather than
** copying them (mremap), so a growth touches only the new half, where a
** fresh table and a copy touched twice the final size (the fresh pages
** were half the cost of bench_core's expr.build_new here). The entries
** are then placed again in the same arrays (klib's khash does the same):
** `placed` marks the slots that hold an entry placed in the new table; an
** old entry still in the way of one is taken out and placed in turn. */
static bool table_grow(void) {
  size_t old = table_cap, cap = old ? old * 2 : 1024;
  const sdb_expr **t = sdb_noted(realloc(table, cap * sizeof *t));   /* read only where th[] is set */
  if (!t) return false;
  table = t;
  uint32_t *th = sdb_noted(realloc(table_hash, cap * sizeof *th));
  if (!th) return false;   /* table is merely larger than it needs to be */
  table_hash = th;
  memset(th + old, 0, (cap - old) * sizeof *th);
  uint64_t *placed = sdb_noted(calloc(cap / 64, sizeof *placed));
  if (!placed) return false;   /* the old entries are all still where they were */
#define PLACED(i) (placed[(i) / 64] >> ((i) % 64) & 1)
  for (size_t j = 0; j < old; j++) {
    if (!th[j] || PLACED(j)) continue;
    const sdb_expr *e = t[j];
    uint32_t h = th[j];
    th[j] = 0;
    for (;;) {
      size_t i = h & (cap - 1);
      while (PLACED(i)) i = (i + 1) & (cap - 1);
      placed[i / 64] |= UINT64_C(1) << (i % 64);
      uint32_t h2 = th[i];
      const sdb_expr *e2 = h2 ? t[i] : NULL;
      t[i] = e;
      th[i] = h;
      if (!h2) break;   /* an empty slot: done */
      e = e2;           /* an old entry not yet placed: place it next */
      h = h2;
    }
  }
#undef PLACED
  free(placed);
  table_cap = cap;
  return true;
}

/* Find or create the node. `args` must already be canonical. */
const sdb_expr *sdb_ex_intern(uint8_t kind, int64_t ival, const char *name,
                              const sdb_expr *const *args, size_t n) {
  /* Integers stay strictly inside int64 so that negation never overflows
  ** and INT64_MIN / INT64_MAX can mean -int_oo / int_oo in ranges.h. */
  if ((kind == SDB_INT || kind == SDB_ADD || kind == SDB_MUL) &&
      (ival == INT64_MIN || ival == INT64_MAX))
    return sdb_ex_fail("integer overflow: %s is outside the supported range",
                ival < 0 ? "-2**63" : "2**63-1");
  uint32_t h = hash_node(kind, ival, name, args, n);
  if (table_len * 2 >= table_cap && !table_grow())
    return sdb_ex_fail("out of memory");
  size_t j = h & (table_cap - 1);
  for (; table_hash[j]; j = (j + 1) & (table_cap - 1))
    if (table_hash[j] == h && node_matches(table[j], h, kind, ival, name, args, n)) return table[j];
  unsigned depth = 1;
  uint64_t size = 1;
  for (size_t i = 0; i < n; i++) {
    if (args[i]->depth + 1u > depth) depth = args[i]->depth + 1u;
    size += args[i]->size;
  }
  if (depth > SDB_MAX_DEPTH)
    return sdb_ex_fail("expression nested too deeply (limit %d)", SDB_MAX_DEPTH);
  if (size > SDB_MAX_SIZE)
    return sdb_ex_fail("expression too large (%llu nodes, limit %d)",
                (unsigned long long)size, SDB_MAX_SIZE);
  size_t namelen = name ? strlen(name) + 1 : 0;
  sdb_expr *e = sdb_arena_alloc(&arena, sizeof *e + n * sizeof e->args[0] + namelen, 16);
  if (!e) return sdb_ex_fail("out of memory");
  e->kind = kind;
  e->depth = (uint16_t)depth;
  e->size = (uint32_t)size;
  e->nargs = (uint32_t)n;
  e->hash = h;
  e->id = next_id++;
  e->ival = ival;
  e->name = NULL;
  if (n) memcpy(e->args, args, n * sizeof *args);
  if (name) {
    char *dst = (char *)&e->args[n];
    memcpy(dst, name, namelen);
    e->name = dst;
  }
  table[j] = e;
  table_hash[j] = h;
  table_len++;
  return e;
}

/* Repeats of the commonest builds skip canonicalisation: small integers
** come from an array, and binary Add/Sub/Mul from a direct-mapped memo
** keyed by their (hash-consed, immutable) arguments. A hit is one probe;
** both are cleared with the table. */
#define SMALL_INT_MIN (-128)
#define SMALL_INT_MAX 1023
static const sdb_expr *small_ints[SMALL_INT_MAX - SMALL_INT_MIN + 1];

typedef struct memo_entry { const sdb_expr *a, *b, *r; int op; } memo_entry;
#define MEMO_SIZE 8192   /* a power of two */
static memo_entry build_memo[MEMO_SIZE];


/* Two ways per set: a hundred live expressions in a direct-mapped table
** already had colliding pairs that evicted each other on every rebuild
** (a miss costs a full canonicalisation). bmemo_find looks in both ways;
** bmemo_put puts the new entry first and keeps the other one second. */
static memo_entry *memo_set(int op, const sdb_expr *a, const sdb_expr *b) {
  uint64_t h = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)b * 0xC2B2AE3D27D4EB4Fu;
  return &build_memo[(((h >> 29) ^ (uint64_t)op) & (MEMO_SIZE / 2 - 1)) * 2];
}

static const sdb_expr *bmemo_find(const memo_entry *set, int op, const sdb_expr *a, const sdb_expr *b) {
  if (set[0].a == a && set[0].b == b && set[0].op == op) return set[0].r;
  if (set[1].a == a && set[1].b == b && set[1].op == op) return set[1].r;
  return NULL;
}

static void bmemo_put(memo_entry *set, int op, const sdb_expr *a, const sdb_expr *b, const sdb_expr *r) {
  set[1] = set[0];
  set[0] = (memo_entry){a, b, r, op};
}

static void (*reset_hooks[4])(void);

bool sdb_expr_on_reset(void (*fn)(void)) {
  for (size_t i = 0; i < sizeof reset_hooks / sizeof reset_hooks[0]; i++) {
    if (reset_hooks[i] == fn) return true;
    if (!reset_hooks[i]) { reset_hooks[i] = fn; return true; }
  }
  return false;
}

void sdb_expr_reset(void) {
  for (size_t i = 0; i < sizeof reset_hooks / sizeof reset_hooks[0] && reset_hooks[i]; i++) reset_hooks[i]();
  memset(small_ints, 0, sizeof small_ints);
  memset(build_memo, 0, sizeof build_memo);
  sdb_expr_text_reset();
  sdb_arena_reset(&arena);   /* its chunks are kept for the next expressions */
  free(table);
  free(table_hash);
  table = NULL;
  table_hash = NULL;
  table_cap = table_len = 0;
  next_id = 0;
}

size_t sdb_expr_count(void) { return table_len; }

/* ------------------------------------------------------------------------
** Small growable arrays for builders (stack first, heap when large).
** ---------------------------------------------------------------------- */

typedef struct { int64_t coef; const sdb_expr *e; } term;

typedef struct {
  term *v;
  size_t n, cap;
  term small[16];
} termvec;

static void tv_init(termvec *t) { t->v = t->small; t->n = 0; t->cap = 16; }
static void tv_free(termvec *t) { if (t->v != t->small) free(t->v); }
static bool tv_push(termvec *t, int64_t coef, const sdb_expr *e) {
  if (t->n == t->cap) {
    size_t cap = t->cap * 2;
    term *v = t->v == t->small ? sdb_noted(malloc(cap * sizeof *v))
                               : sdb_noted(realloc(t->v, cap * sizeof *v));
    if (!v) return false;
    if (t->v == t->small) memcpy(v, t->small, sizeof t->small);
    t->v = v;
    t->cap = cap;
  }
  t->v[t->n].coef = coef;
  t->v[t->n].e = e;
  t->n++;
  return true;
}

/* ------------------------------------------------------------------------
** Leaves and queries
** ---------------------------------------------------------------------- */

const sdb_expr *sdb_int(int64_t v) {
  if (v < SMALL_INT_MIN || v > SMALL_INT_MAX) return sdb_ex_intern(SDB_INT, v, NULL, NULL, 0);
  const sdb_expr **slot = &small_ints[v - SMALL_INT_MIN];
  if (!*slot) *slot = sdb_ex_intern(SDB_INT, v, NULL, NULL, 0);
  return *slot;
}
const sdb_expr *sdb_true(void) { return sdb_ex_intern(SDB_TRUE, 0, NULL, NULL, 0); }
const sdb_expr *sdb_false(void) { return sdb_ex_intern(SDB_FALSE, 0, NULL, NULL, 0); }
const sdb_expr *sdb_bool(bool b) { return b ? sdb_true() : sdb_false(); }

const sdb_expr *sdb_sym(const char *name) {
  if (!name || !*name) return sdb_ex_fail("empty symbol name");
  return sdb_ex_intern(SDB_SYM, 0, name, NULL, 0);
}

bool sdb_is_bool(const sdb_expr *e) {
  switch (e->kind) {
    case SDB_TRUE: case SDB_FALSE: case SDB_EQ: case SDB_NE: case SDB_LT:
    case SDB_LE: case SDB_AND: case SDB_OR: case SDB_NOT: return true;
    default: return false;
  }
}

bool sdb_is_const(const sdb_expr *e) {
  return e->kind == SDB_INT || e->kind == SDB_TRUE || e->kind == SDB_FALSE;
}

static const char *const kind_names[SDB_KIND_COUNT] = {
  "Integer", "Symbol", "True", "False", "Add", "Mul", "Pow", "FloorDiv",
  "Mod", "Max", "Min", "Eq", "Ne", "Lt", "Le", "And", "Or", "Not",
};

const char *sdb_kind_name(sdb_kind k) {
  return k < SDB_KIND_COUNT ? kind_names[k] : "?";
}

int64_t sdb_expr_coeff(const sdb_expr *e, const sdb_expr **rest) {
  if (e->kind == SDB_INT) { *rest = sdb_int(1); return e->ival; }
  if (e->kind == SDB_MUL && e->ival != 1) {
    *rest = e->nargs == 1 ? e->args[0]
                          : sdb_ex_intern(SDB_MUL, 1, NULL, e->args, e->nargs);
    return e->ival;
  }
  *rest = e;
  return 1;
}

bool sdb_linear_in(const sdb_expr *d, const sdb_expr *x, int64_t *c, const sdb_expr **rest) {
  const sdb_expr *mono;
  if (d->kind == SDB_ADD) {
    for (size_t i = 0; i < d->nargs; i++) {
      int64_t k = sdb_expr_coeff(d->args[i], &mono);
      if (mono != x) continue;
      const sdb_expr *r = sdb_sub(d, d->args[i]);
      if (!r || sdb_has_symbol(r, x)) return false;
      *c = k;
      *rest = r;
      return true;
    }
    return false;
  }
  int64_t k = sdb_expr_coeff(d, &mono);
  if (mono != x) return false;
  *c = k;
  *rest = sdb_int(0);
  return true;
}

/* ------------------------------------------------------------------------
** Ordering: sympy's sort_key, so Mul factors, Max args and Add terms come
** out in the order sympy prints them.
** ---------------------------------------------------------------------- */

/* Lt/Le built from Gt/Ge print (and sort, as sympy's StrictGreaterThan /
** GreaterThan) in the orientation built. */
static bool rel_flipped(const sdb_expr *e) { return sdb_rel_flipped(e); }

/* sympy class_key: (major, minor, class name). */
static void class_key(const sdb_expr *e, int *major, int *minor,
                      const char **name) {
  *minor = 0;
  switch (e->kind) {
    case SDB_INT: *major = 1; *name = "Number"; break;
    case SDB_SYM: *major = 2; *name = "Symbol"; break;
    case SDB_TRUE: *major = 2; *name = "BooleanTrue"; break;
    case SDB_FALSE: *major = 2; *name = "BooleanFalse"; break;
    case SDB_MUL: *major = 3; *name = "Mul"; break;
    case SDB_ADD: *major = 3; *minor = 1; *name = "Add"; break;
    case SDB_POW: *major = 3; *minor = 2; *name = "Pow"; break;
    case SDB_FLOORDIV: *major = 4; *minor = 10000; *name = "FloorDiv"; break;
    case SDB_MOD: *major = 4; *minor = 10000; *name = "Mod"; break;
    case SDB_MAX: *major = 5; *name = "Max"; break;
    case SDB_MIN: *major = 5; *name = "Min"; break;
    case SDB_EQ: *major = 5; *name = "Equality"; break;
    case SDB_NE: *major = 5; *name = "Unequality"; break;
    case SDB_LT:
      *major = 5;
      *name = rel_flipped(e) ? "StrictGreaterThan" : "StrictLessThan";
      break;
    case SDB_LE:
      *major = 5;
      *name = rel_flipped(e) ? "GreaterThan" : "LessThan";
      break;
    case SDB_AND: *major = 5; *name = "And"; break;
    case SDB_OR: *major = 5; *name = "Or"; break;
    default: *major = 5; *name = "Not"; break;
  }
}

/* sympy's args as sort_key sees them: Add terms then its constant, Mul
** factors (coefficient split off by the caller). */
static size_t key_nargs(const sdb_expr *e) {
  if (e->kind == SDB_ADD) return e->nargs + (e->ival != 0);
  if (e->kind == SDB_MUL) return e->nargs + (e->ival != 1);
  return e->nargs;
}
static const sdb_expr *key_arg(const sdb_expr *e, size_t i) {
  if (rel_flipped(e)) return e->args[1 - i];
  if (e->kind == SDB_ADD && i == e->nargs) return sdb_int(e->ival);
  if (e->kind == SDB_MUL && e->ival != 1) {
    if (i == 0) return sdb_int(e->ival);
    return e->args[i - 1];
  }
  return e->args[i];
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* Compare two bases (no coefficient, no exponent): class, then args. */
static int cmp_base(const sdb_expr *a, const sdb_expr *b) {
  if (a == b) return 0;
  if (a->kind == SDB_SYM && b->kind == SDB_SYM) {   /* the common case: same class */
    int c = strcmp(a->name, b->name);
    return (c > 0) - (c < 0);
  }
  int ma, na, mb, nb;
  const char *sa, *sb;
  class_key(a, &ma, &na, &sa);
  class_key(b, &mb, &nb, &sb);
  if (ma != mb) return ma < mb ? -1 : 1;
  if (na != nb) return na < nb ? -1 : 1;
  int c = strcmp(sa, sb);
  if (c) return c < 0 ? -1 : 1;
  if (a->kind == SDB_INT) return cmp_i64(a->ival, b->ival);
  if (a->kind == SDB_SYM) {
    c = strcmp(a->name, b->name);
    return (c > 0) - (c < 0);
  }
  size_t la = key_nargs(a), lb = key_nargs(b);
  if (la != lb) return la < lb ? -1 : 1;
  for (size_t i = 0; i < la; i++) {
    c = sdb_expr_cmp(key_arg(a, i), key_arg(b, i));
    if (c) return c;
  }
  return cmp_i64(a->id, b->id);  /* distinct nodes, same key: stable */
}

static const sdb_expr *base_of(const sdb_expr *e, int64_t *exp) {
  if (e->kind == SDB_POW) { *exp = e->ival; return e->args[0]; }
  *exp = 1;
  return e;
}

int sdb_expr_cmp(const sdb_expr *a, const sdb_expr *b) {
  if (a == b) return 0;
  const sdb_expr *ra, *rb;
  int64_t ca = sdb_expr_coeff(a, &ra), cb = sdb_expr_coeff(b, &rb);
  int64_t ea, eb;
  const sdb_expr *ba = base_of(ra, &ea), *bb = base_of(rb, &eb);
  int c = cmp_base(ba, bb);
  if (c) return c;
  if (ea != eb) return ea < eb ? -1 : 1;
  return cmp_i64(ca, cb);
}

/* Order of terms in a printed sum: descending lex order of the exponent
** vectors over the sorted generators; the constant (no generators) last. */
static size_t term_gens(const sdb_expr *mono, const sdb_expr **gens,
                        int64_t *exps) {
  if (mono->kind == SDB_INT) return 0;
  if (mono->kind == SDB_MUL) {
    for (size_t i = 0; i < mono->nargs; i++)
      gens[i] = base_of(mono->args[i], &exps[i]);
    return mono->nargs;
  }
  gens[0] = base_of(mono, &exps[0]);
  return 1;
}

static int add_order(const term *x, const term *y) {
  if (x->e->kind == SDB_SYM && y->e->kind == SDB_SYM) {   /* one generator each */
    int c = cmp_base(x->e, y->e);
    return c ? c : cmp_i64(x->coef, y->coef);
  }
  const sdb_expr *ga_s[8], *gb_s[8];
  int64_t ea_s[8], eb_s[8];
  size_t cap_a = x->e->kind == SDB_MUL ? x->e->nargs : 1;
  size_t cap_b = y->e->kind == SDB_MUL ? y->e->nargs : 1;
  const sdb_expr **ga = cap_a <= 8 ? ga_s : sdb_noted(malloc(cap_a * sizeof *ga));
  const sdb_expr **gb = cap_b <= 8 ? gb_s : sdb_noted(malloc(cap_b * sizeof *gb));
  int64_t *ea = cap_a <= 8 ? ea_s : sdb_noted(malloc(cap_a * sizeof *ea));
  int64_t *eb = cap_b <= 8 ? eb_s : sdb_noted(malloc(cap_b * sizeof *eb));
  int r = 0;
  if (!ga || !gb || !ea || !eb) { r = cmp_i64(x->e->id, y->e->id); goto out; }
  size_t na = term_gens(x->e, ga, ea), nb = term_gens(y->e, gb, eb);
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    int c = cmp_base(ga[i], gb[j]);
    if (c < 0) { r = -1; goto out; }   /* only x has this generator */
    if (c > 0) { r = 1; goto out; }
    if (ea[i] != eb[j]) { r = ea[i] > eb[j] ? -1 : 1; goto out; }
    i++, j++;
  }
  if (i < na) r = -1;
  else if (j < nb) r = 1;
  else r = cmp_i64(x->coef, y->coef);
out:
  if (ga != ga_s) free(ga);
  if (gb != gb_s) free(gb);
  if (ea != ea_s) free(ea);
  if (eb != eb_s) free(eb);
  return r;
}

/* Size of the tree as sympy counts it (coefficients and exponents are
** nodes of their own). */
static size_t sympy_nodes(const sdb_expr *e) {
  size_t n = 1;   /* bounded: e->size <= SDB_MAX_SIZE */
  for (size_t i = 0; i < e->nargs; i++) n += sympy_nodes(e->args[i]);
  if (e->kind == SDB_ADD && e->ival != 0) n++;
  if (e->kind == SDB_MUL && e->ival != 1) n++;
  if (e->kind == SDB_POW) n++;
  return n;
}

/* sympy's ordered(): smaller trees first, then sort_key. And/Or use it. */
int sdb_ex_ordered_qsort_cmp(const void *a, const void *b) {
  const sdb_expr *x = *(const sdb_expr *const *)a, *y = *(const sdb_expr *const *)b;
  size_t nx = sympy_nodes(x), ny = sympy_nodes(y);
  if (nx != ny) return nx < ny ? -1 : 1;
  return sdb_expr_cmp(x, y);
}

/* Canonicalisation sorts short arrays (a sum's terms, a product's
** factors: rarely more than a few): an insertion sort there, where
** glibc's qsort goes through its merge sort and a call per comparison of
** its own. Stable, as glibc's merge sort is, so ties keep their order.
** Elements are at most 32 bytes (terms and pointers). */
void sdb_sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  if (n > 16 || size > 32) { qsort(base, n, size, cmp); return; }
  char *b = base, tmp[32];
  for (size_t i = 1; i < n; i++) {
    if (cmp(b + (i - 1) * size, b + i * size) <= 0) continue;
    memcpy(tmp, b + i * size, size);
    size_t j = i;
    do {
      memcpy(b + j * size, b + (j - 1) * size, size);
      j--;
    } while (j > 0 && cmp(b + (j - 1) * size, tmp) > 0);
    memcpy(b + j * size, tmp, size);
  }
}

static int term_qsort_print(const void *a, const void *b) {
  return add_order(a, b);
}
static int term_qsort_ptr(const void *a, const void *b) {
  const term *x = a, *y = b;
  return cmp_i64(x->e->id, y->e->id);
}
int sdb_ex_expr_qsort_cmp(const void *a, const void *b) {
  return sdb_expr_cmp(*(const sdb_expr *const *)a, *(const sdb_expr *const *)b);
}

/* ------------------------------------------------------------------------
** Add and Mul
** ---------------------------------------------------------------------- */

static bool is_int_valued(const sdb_expr *e) { return !sdb_is_bool(e); }

const sdb_expr *sdb_ex_need_int(const sdb_expr *e, const char *op) {
  if (!is_int_valued(e)) return sdb_ex_fail("%s expects integer expressions", op);
  return e;
}

/* Append e's terms (coefficient, monomial) and constant to (tv, c). */
static bool collect_terms(const sdb_expr *e, int64_t scale, termvec *tv,
                          int64_t *c) {
  int64_t k;
  if (e->kind == SDB_INT) {
    if (sdb_mul_ov(e->ival, scale, &k) || sdb_add_ov(*c, k, c))
      return sdb_ex_fail("integer overflow in addition"), false;
    return true;
  }
  if (e->kind == SDB_ADD) {
    if (sdb_mul_ov(e->ival, scale, &k) || sdb_add_ov(*c, k, c))
      return sdb_ex_fail("integer overflow in addition"), false;
    for (size_t i = 0; i < e->nargs; i++)
      if (!collect_terms(e->args[i], scale, tv, c)) return false;
    return true;
  }
  const sdb_expr *rest;
  int64_t coef = sdb_expr_coeff(e, &rest);
  if (sdb_mul_ov(coef, scale, &k)) return sdb_ex_fail("integer overflow in multiplication"), false;
  if (!tv_push(tv, k, rest)) return sdb_ex_fail("out of memory"), false;
  return true;
}

static const sdb_expr *make_term(int64_t coef, const sdb_expr *mono) {
  if (coef == 1) return mono;
  if (mono->kind == SDB_MUL)
    return sdb_ex_intern(SDB_MUL, coef, NULL, mono->args, mono->nargs);
  return sdb_ex_intern(SDB_MUL, coef, NULL, &mono, 1);
}

/* Terms whose monomial is a sum, spread into that sum's terms (found by
** fuzzing: FloorDiv's gcd dropped P from 9*P*(s0 + 2) and kept the
** monomial s0 + 2, so (9*P*(s0 + 2))//P printed as 9*(s0 + 2), which reads
** back as 9*s0 + 18: sympy distributes a number over a sum). */
static bool spread_sums(termvec *tv, int64_t *c) {
  termvec out;
  tv_init(&out);
  bool ok = true;
  for (size_t i = 0; ok && i < tv->n; i++) ok = collect_terms(tv->v[i].e, tv->v[i].coef, &out, c);
  tv->n = 0;
  for (size_t i = 0; ok && i < out.n; i++) ok = tv_push(tv, out.v[i].coef, out.v[i].e);
  tv_free(&out);
  return ok;
}

/* Build the canonical sum of collected terms plus constant c. */
static const sdb_expr *finish_sum(termvec *tv, int64_t c) {
  for (size_t i = 0; i < tv->n; i++)
    if (tv->v[i].e->kind == SDB_ADD) {
      if (!spread_sums(tv, &c)) return NULL;
      break;
    }
  sdb_sort_n(tv->v, tv->n, sizeof *tv->v, term_qsort_ptr);
  size_t w = 0;
  for (size_t i = 0; i < tv->n; i++) {
    if (w && tv->v[w - 1].e == tv->v[i].e) {
      if (sdb_add_ov(tv->v[w - 1].coef, tv->v[i].coef, &tv->v[w - 1].coef))
        return sdb_ex_fail("integer overflow in addition");
    } else {
      tv->v[w++] = tv->v[i];
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < w; i++)
    if (tv->v[i].coef != 0) tv->v[n++] = tv->v[i];
  if (n == 0) return sdb_int(c);
  sdb_sort_n(tv->v, n, sizeof *tv->v, term_qsort_print);
  if (n == 1 && c == 0) return make_term(tv->v[0].coef, tv->v[0].e);
  exprvec args;
  ev_init(&args);
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *t = make_term(tv->v[i].coef, tv->v[i].e);
    if (!t || !ev_push(&args, t)) { if (t) sdb_ex_fail("out of memory"); goto out; }
  }
  r = sdb_ex_intern(SDB_ADD, c, NULL, args.v, args.n);
out:
  ev_free(&args);
  return r;
}

const sdb_expr *sdb_add_n(const sdb_expr *const *terms, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!terms[i]) return NULL;
    if (!sdb_ex_need_int(terms[i], "Add")) return NULL;
  }
  termvec tv;
  tv_init(&tv);
  int64_t c = 0;
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < n; i++)
    if (!collect_terms(terms[i], 1, &tv, &c)) goto out;
  r = finish_sum(&tv, c);
out:
  tv_free(&tv);
  return r;
}

/* The builds behind a memo miss, out of line so that a hit is a leaf
** function with no frame to set up. */
/* A term finish_sum keeps as it is: not a number, not a sum, not a
** number times a sum (which it spreads), integer-valued. */
static bool plain_term(const sdb_expr *e) {
  if (e->kind == SDB_INT || e->kind == SDB_ADD || !is_int_valued(e)) return false;
  return !(e->kind == SDB_MUL && e->nargs == 1 && e->args[0]->kind == SDB_ADD);
}

/* The term's (coefficient, monomial), as collect_terms splits it. */
static term split_term(const sdb_expr *t) {
  term x;
  x.coef = sdb_expr_coeff(t, &x.e);
  return x;
}

/* The sums a sum of terms grows by, built without collecting, sorting and
** rebuilding every term (finish_sum's work, the cost of a new sum): a
** canonical sum plus a number or a term whose monomial it does not have,
** a term plus a number, two terms of different monomials. The result is
** the node finish_sum would make (test_expr checks them against it).
** NULL when the case is not one of these (or on overflow/OOM: the general
** path then reports it). */
static const sdb_expr *add2_fast(const sdb_expr *a, const sdb_expr *b) {
  if (a->kind == SDB_INT && b->kind != SDB_INT) { const sdb_expr *t = a; a = b; b = t; }
  int64_t c;
  if (b->kind == SDB_INT) {
    if (a->kind == SDB_ADD) {
      if (sdb_add_ov(a->ival, b->ival, &c)) return NULL;
      if (c == 0 && a->nargs == 1) return a->args[0];
      return sdb_ex_intern(SDB_ADD, c, NULL, a->args, a->nargs);
    }
    if (!plain_term(a)) return NULL;
    return b->ival == 0 ? a : sdb_ex_intern(SDB_ADD, b->ival, NULL, &a, 1);
  }
  if (b->kind == SDB_ADD && a->kind != SDB_ADD) { const sdb_expr *t = a; a = b; b = t; }
  if (!plain_term(b)) return NULL;
  term tb = split_term(b);
  if (a->kind != SDB_ADD) {
    if (!plain_term(a)) return NULL;
    term ta = split_term(a);
    if (ta.e == tb.e) return NULL;   /* like terms: combined by the general path */
    const sdb_expr *v[2] = {a, b};
    if (add_order(&ta, &tb) > 0) { v[0] = b; v[1] = a; }
    return sdb_ex_intern(SDB_ADD, 0, NULL, v, 2);
  }
  size_t n = a->nargs;
  if (n >= 64) return NULL;
  /* a canonical sum is sorted by add_order, a total order on its distinct
  ** terms: b goes before the first term it sorts before (a binary search),
  ** and a like term of b (the same monomial; a sum has at most one) sorts
  ** next to it, since add_order compares the monomial before the
  ** coefficient. A scan was quadratic in a sum built term by term. */
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    term tm = split_term(a->args[mid]);
    if (add_order(&tb, &tm) < 0) hi = mid;
    else lo = mid + 1;
  }
  size_t at = lo;
  if ((at > 0 && split_term(a->args[at - 1]).e == tb.e) || (at < n && split_term(a->args[at]).e == tb.e))
    return NULL;   /* like terms: combined by the general path */
  const sdb_expr *v[64];
  memcpy(v, a->args, at * sizeof *v);
  v[at] = b;
  memcpy(v + at + 1, a->args + at, (n - at) * sizeof *v);
  return sdb_ex_intern(SDB_ADD, a->ival, NULL, v, n + 1);
}

__attribute__((noinline)) static const sdb_expr *add2_miss(memo_entry *m, const sdb_expr *a,
                                                           const sdb_expr *b) {
  const sdb_expr *r = a && b ? add2_fast(a, b) : NULL;
  if (!r) {
    const sdb_expr *v[2] = {a, b};
    r = sdb_add_n(v, 2);
  }
  if (m && r) bmemo_put(m, SDB_ADD, a, b, r);
  return r;
}

const sdb_expr *sdb_add(const sdb_expr *a, const sdb_expr *b) {
  memo_entry *m = a && b ? memo_set(SDB_ADD, a, b) : NULL;
  const sdb_expr *r = m ? bmemo_find(m, SDB_ADD, a, b) : NULL;
  return r ? r : add2_miss(m, a, b);
}

/* a*k + b for a sum a and integer k (used by sub and distribution). */
static const sdb_expr *scaled_sum(const sdb_expr *a, int64_t k,
                                  const sdb_expr *b) {
  termvec tv;
  tv_init(&tv);
  int64_t c = 0;
  const sdb_expr *r = NULL;
  if (!collect_terms(a, k, &tv, &c)) goto out;
  if (b && !collect_terms(b, 1, &tv, &c)) goto out;
  r = finish_sum(&tv, c);
out:
  tv_free(&tv);
  return r;
}

const sdb_expr *sdb_neg(const sdb_expr *a) {
  if (!a || !sdb_ex_need_int(a, "Neg")) return NULL;
  return scaled_sum(a, -1, NULL);
}

const sdb_expr *sdb_sub(const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  memo_entry *m = memo_set(-SDB_ADD, a, b);
  const sdb_expr *r = bmemo_find(m, -SDB_ADD, a, b);
  if (r) return r;
  if (!sdb_ex_need_int(a, "Sub") || !sdb_ex_need_int(b, "Sub")) return NULL;
  r = scaled_sum(b, -1, a);
  if (r) bmemo_put(m, -SDB_ADD, a, b, r);
  return r;
}

static const sdb_expr *divided_sum(const termvec *tv, int64_t c, int64_t k);

const sdb_expr *sdb_mul_n(const sdb_expr *const *factors, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!factors[i]) return NULL;
    if (!sdb_ex_need_int(factors[i], "Mul")) return NULL;
  }
  int64_t coef = 1;
  termvec be;   /* (exponent, base) pairs */
  tv_init(&be);
  exprvec out;
  ev_init(&out);
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < n; i++) {
    const sdb_expr *f = factors[i];
    if (f->kind == SDB_INT) {
      if (sdb_mul_ov(coef, f->ival, &coef)) { sdb_ex_fail("integer overflow in multiplication"); goto done; }
    } else if (f->kind == SDB_MUL) {
      if (sdb_mul_ov(coef, f->ival, &coef)) { sdb_ex_fail("integer overflow in multiplication"); goto done; }
      for (size_t j = 0; j < f->nargs; j++) {
        int64_t e;
        const sdb_expr *b = base_of(f->args[j], &e);
        if (!tv_push(&be, e, b)) { sdb_ex_fail("out of memory"); goto done; }
      }
    } else {
      int64_t e;
      const sdb_expr *b = base_of(f, &e);
      if (!tv_push(&be, e, b)) { sdb_ex_fail("out of memory"); goto done; }
    }
  }
  if (coef == 0) { r = sdb_int(0); goto done; }
  /* A sum inside a product is made primitive: its content and sign move
  ** to the coefficient ((2*x + 2)*y -> 2*y*(x + 1), (1 - x)*y -> -y*(x - 1)),
  ** so every way of building a product reaches the same expression. */
  for (size_t i = 0; i < be.n; i++) {
    const sdb_expr *b = be.v[i].e, *rest;
    if (b->kind != SDB_ADD) continue;
    int64_t g = b->ival;
    for (size_t j = 0; j < b->nargs; j++) g = gcd64(g, sdb_expr_coeff(b->args[j], &rest));
    if (g <= 0) continue;   /* gcd 2^63 cannot be pulled out */
    if (sdb_expr_coeff(b->args[0], &rest) < 0) g = -g;
    if (g == 1) continue;
    termvec t;
    tv_init(&t);
    int64_t c = 0;
    bool ok = collect_terms(b, 1, &t, &c);
    be.v[i].e = ok ? divided_sum(&t, c, g) : NULL;
    tv_free(&t);
    if (!be.v[i].e) goto done;
    int64_t gk;
    if (!ipow_ov(g, be.v[i].coef, &gk) || sdb_mul_ov(coef, gk, &coef)) {
      sdb_ex_fail("integer overflow in multiplication");
      goto done;
    }
  }
  sdb_sort_n(be.v, be.n, sizeof *be.v, term_qsort_ptr);
  for (size_t i = 0; i < be.n; i++) {
    int64_t e = be.v[i].coef;
    const sdb_expr *b = be.v[i].e;
    while (i + 1 < be.n && be.v[i + 1].e == b) {
      if (sdb_add_ov(e, be.v[i + 1].coef, &e)) { sdb_ex_fail("integer overflow in exponent"); goto done; }
      i++;
    }
    const sdb_expr *f = e == 1 ? b : sdb_ex_intern(SDB_POW, e, NULL, &b, 1);
    if (!f) goto done;
    if (!ev_push(&out, f)) { sdb_ex_fail("out of memory"); goto done; }
  }
  if (out.n == 0) { r = sdb_int(coef); goto done; }
  if (out.n == 1 && out.v[0]->kind == SDB_ADD && coef != 1) {
    r = scaled_sum(out.v[0], coef, NULL);   /* 2*(x + 1) -> 2*x + 2 */
    goto done;
  }
  sdb_sort_n(out.v, out.n, sizeof *out.v, sdb_ex_expr_qsort_cmp);
  if (out.n == 1 && coef == 1) { r = out.v[0]; goto done; }
  r = sdb_ex_intern(SDB_MUL, coef, NULL, out.v, out.n);
done:
  tv_free(&be);
  ev_free(&out);
  return r;
}

/* A number times a product or a single factor (a symbol, a power, a
** floor division...): the coefficient changes, the factors stay, as
** sdb_mul_n would leave them. NULL for anything else (a sum is
** distributed, products of factors are sorted: the general path). */
static const sdb_expr *mul2_fast(const sdb_expr *a, const sdb_expr *b) {
  if (b->kind == SDB_INT) { const sdb_expr *t = a; a = b; b = t; }
  if (a->kind != SDB_INT || b->kind == SDB_INT || b->kind == SDB_ADD || sdb_is_bool(b)) return NULL;
  if (a->ival == 0) return sdb_int(0);
  if (b->kind == SDB_MUL) {
    int64_t k;
    if (sdb_mul_ov(a->ival, b->ival, &k)) return NULL;
    if (k == 1 && b->nargs == 1) return b->args[0];
    return sdb_ex_intern(SDB_MUL, k, NULL, b->args, b->nargs);
  }
  return a->ival == 1 ? b : sdb_ex_intern(SDB_MUL, a->ival, NULL, &b, 1);
}

__attribute__((noinline)) static const sdb_expr *mul2_miss(memo_entry *m, const sdb_expr *a,
                                                           const sdb_expr *b) {
  const sdb_expr *v[2] = {a, b};
  const sdb_expr *r = a && b ? mul2_fast(a, b) : NULL;
  if (!r) r = sdb_mul_n(v, 2);
  if (m && r) bmemo_put(m, SDB_MUL, a, b, r);
  return r;
}

const sdb_expr *sdb_mul(const sdb_expr *a, const sdb_expr *b) {
  memo_entry *m = a && b ? memo_set(SDB_MUL, a, b) : NULL;
  const sdb_expr *r = m ? bmemo_find(m, SDB_MUL, a, b) : NULL;
  return r ? r : mul2_miss(m, a, b);
}

/* Powers of a non-constant base by squaring, so any exponent that fits
** costs O(log exp) products (the printer writes `s0**80`, and whatever it
** prints must parse back). */
const sdb_expr *sdb_pow(const sdb_expr *base, int64_t exp) {
  if (!base || !sdb_ex_need_int(base, "Pow")) return NULL;
  if (exp < 0) return sdb_ex_fail("negative exponent %lld", (long long)exp);
  if (exp == 0) return sdb_int(1);
  if (base->kind == SDB_INT) {
    int64_t r;
    if (!ipow_ov(base->ival, exp, &r)) return sdb_ex_fail("integer overflow in power");
    return sdb_int(r);
  }
  const sdb_expr *r = NULL, *sq = base;
  for (;;) {
    if (exp & 1) {
      r = r ? sdb_mul(r, sq) : sq;
      if (!r) return NULL;
    }
    exp >>= 1;
    if (!exp) return r;
    sq = sdb_mul(sq, sq);
    if (!sq) return NULL;
  }
}

/* ------------------------------------------------------------------------
** FloorDiv and Mod
** ---------------------------------------------------------------------- */

/* Content: gcd of all coefficients and the constant (0 for zero). */
static int64_t content_of(const termvec *tv, int64_t c) {
  int64_t g = c;
  for (size_t i = 0; i < tv->n; i++) g = gcd64(g, tv->v[i].coef);
  return g;
}

/* Sum of coef/k * mono over tv (each coef divisible by k), plus c/k. */
static const sdb_expr *divided_sum(const termvec *tv, int64_t c, int64_t k) {
  termvec q;
  tv_init(&q);
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < tv->n; i++)
    if (!tv_push(&q, tv->v[i].coef / k, tv->v[i].e)) { sdb_ex_fail("out of memory"); goto out; }
  r = finish_sum(&q, c / k);
out:
  tv_free(&q);
  return r;
}

/* Split e's terms into those divisible by k (div) and the rest (rem). */
static bool split_divisible(const sdb_expr *e, int64_t k, termvec *div,
                            int64_t *cdiv, termvec *rem, int64_t *crem) {
  termvec all;
  tv_init(&all);
  int64_t c = 0;
  bool ok = collect_terms(e, 1, &all, &c);
  for (size_t i = 0; ok && i < all.n; i++) {
    termvec *dst = all.v[i].coef % k == 0 ? div : rem;
    if (!tv_push(dst, all.v[i].coef, all.v[i].e)) ok = false, sdb_ex_fail("out of memory");
  }
  if (c % k == 0) *cdiv = c, *crem = 0;
  else *cdiv = 0, *crem = c;
  tv_free(&all);
  return ok;
}

/* Is x one of the factors of the coefficient-free monomial m, as sympy's
** Mul.make_args(m) lists them (a power is one factor)? */
static bool has_factor(const sdb_expr *m, const sdb_expr *x) {
  if (m == x) return true;
  if (m->kind != SDB_MUL) return false;
  for (size_t i = 0; i < m->nargs; i++)
    if (m->args[i] == x) return true;
  return false;
}

/* m without the factor x (which has_factor found). */
static const sdb_expr *drop_factor(const sdb_expr *m, const sdb_expr *x) {
  if (m == x) return sdb_int(1);
  const sdb_expr *small[16] = {NULL}, **v = m->nargs <= 16 ? small : sdb_noted(malloc(m->nargs * sizeof *v));
  if (!v) return sdb_ex_fail("out of memory");
  size_t n = 0;
  bool dropped = false;
  for (size_t i = 0; i < m->nargs; i++)
    if (!dropped && m->args[i] == x) dropped = true;
    else v[n++] = m->args[i];
  const sdb_expr *r = sdb_mul_n(v, n);
  if (v != small) free(v);
  return r;
}

/* PyTorch's simple_floordiv_gcd (torch/utils/_sympy/functions.py) for a
** symbolic divisor: the integer gcd of both sides' term coefficients times
** each factor of the divisor found in every term of the base. Divides both
** by it: *pa = a/gcd, *pb = b/gcd. Returns 1 when divided, 0 when the gcd
** is 1, -1 on error. */
static int floordiv_gcd(const sdb_expr *a, const sdb_expr *b,
                         const sdb_expr **pa, const sdb_expr **pb) {
  termvec ta, tb;
  tv_init(&ta);
  tv_init(&tb);
  int64_t ca = 0, cb = 0;
  bool changed = false, ok = false;
  *pa = *pb = NULL;
  if (!collect_terms(a, 1, &ta, &ca) || !collect_terms(b, 1, &tb, &cb)) goto out;
  int64_t n = gcd64(content_of(&ta, ca), content_of(&tb, cb));
  if (n < 1) n = 1;
  for (size_t i = 0; i < ta.n; i++) ta.v[i].coef /= n;
  for (size_t i = 0; i < tb.n; i++) tb.v[i].coef /= n;
  ca /= n;
  cb /= n;
  changed = n > 1;
  /* the divisor's factors: a single monomial's, else the divisor itself */
  if (tb.n == 1 && cb == 0) {
    const sdb_expr *m = tb.v[0].e;
    size_t nf = m->kind == SDB_MUL ? m->nargs : 1;
    for (size_t f = 0; f < nf; f++) {
      const sdb_expr *x = m->kind == SDB_MUL ? m->args[f] : m;
      bool all = ca == 0 && ta.n > 0;
      for (size_t i = 0; all && i < ta.n; i++) all = has_factor(ta.v[i].e, x);
      if (!all) continue;
      for (size_t i = 0; i < ta.n; i++)
        if (!(ta.v[i].e = drop_factor(ta.v[i].e, x))) goto out;
      if (!(tb.v[0].e = drop_factor(tb.v[0].e, x))) goto out;
      changed = true;
    }
  }
  if (changed) {
    /* terms whose monomial became 1 join the constant */
    for (size_t i = 0; i < ta.n; i++)
      if (ta.v[i].e->kind == SDB_INT) ca += ta.v[i].coef, ta.v[i].coef = 0;
    for (size_t i = 0; i < tb.n; i++)
      if (tb.v[i].e->kind == SDB_INT) cb += tb.v[i].coef, tb.v[i].coef = 0;
    *pa = finish_sum(&ta, ca);
    *pb = *pa ? finish_sum(&tb, cb) : NULL;
  }
  ok = !changed || (*pa && *pb);
out:
  tv_free(&ta);
  tv_free(&tb);
  return !ok ? -1 : changed;
}

/* Is the monomial a a multiple of the monomial b (PythonMod's `(p / q)
** .is_integer`, which sympy decides only when the quotient cancels)? */
static bool monomial_multiple(const sdb_expr *a, const sdb_expr *b) {
  const sdb_expr *ra, *rb;
  int64_t ka = sdb_expr_coeff(a, &ra), kb = sdb_expr_coeff(b, &rb);
  if (ra->kind == SDB_ADD || rb->kind == SDB_ADD || kb == 0 || ka % kb != 0) return false;
  if (rb->kind == SDB_INT) return true;
  size_t nf = rb->kind == SDB_MUL ? rb->nargs : 1;
  for (size_t f = 0; f < nf; f++)
    if (!has_factor(ra, rb->kind == SDB_MUL ? rb->args[f] : rb)) return false;
  return true;
}

const sdb_expr *sdb_floordiv(const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (!sdb_ex_need_int(a, "FloorDiv") || !sdb_ex_need_int(b, "FloorDiv")) return NULL;
  if (b->kind == SDB_INT && b->ival == 0) return sdb_ex_fail("division by zero");
  if (a->kind == SDB_INT && b->kind == SDB_INT) {
    if (a->ival == INT64_MIN && b->ival == -1)
      return sdb_ex_fail("integer overflow in floor division");
    return sdb_int(py_floordiv(a->ival, b->ival));
  }
  if (b->kind == SDB_INT && b->ival == 1) return a;
  if (a->kind == SDB_INT && a->ival == 0) return a;
  if (a == b) return sdb_int(1);
  if (b->kind == SDB_INT && b->ival == -1) return sdb_neg(a);
  if (b->kind != SDB_INT) {
    /* (s0*s1)//s0 = s1: divide out the common factors */
    const sdb_expr *na, *nb;
    int g = floordiv_gcd(a, b, &na, &nb);
    if (g < 0) return NULL;
    if (g > 0) return sdb_floordiv(na, nb);
  }
  if (b->kind != SDB_INT || b->ival < 0)
    return sdb_ex_intern(SDB_FLOORDIV, 0, NULL, (const sdb_expr *[]){a, b}, 2);
  int64_t k = b->ival;
  /* (x//a)//b = x//(a*b) for positive integer a, b */
  if (a->kind == SDB_FLOORDIV && a->args[1]->kind == SDB_INT &&
      a->args[1]->ival > 0) {
    int64_t kk;
    if (!sdb_mul_ov(a->args[1]->ival, k, &kk))
      return sdb_floordiv(a->args[0], sdb_int(kk));
  }
  termvec div, rem;
  tv_init(&div);
  tv_init(&rem);
  int64_t cdiv, crem;
  const sdb_expr *r = NULL;
  if (!split_divisible(a, k, &div, &cdiv, &rem, &crem)) goto out;
  /* (D + R)//k = D/k + R//k when k divides every coefficient of D */
  const sdb_expr *q = divided_sum(&div, cdiv, k);
  if (!q) goto out;
  if (rem.n == 0) { r = sdb_add(q, sdb_int(py_floordiv(crem, k))); goto out; }
  /* R//k = (R/g)//(k/g) for g = gcd(content(R), k) */
  int64_t g = gcd64(content_of(&rem, crem), k);
  if (g < 1) g = 1;
  const sdb_expr *rr = divided_sum(&rem, crem, g);
  if (!rr) goto out;
  const sdb_expr *kk = sdb_int(k / g);
  /* g > 1 recurses with a smaller k; a nested FloorDiv recurses to merge
  ** the divisors. Both make progress, so this terminates. */
  int64_t merged;
  bool nested = rr->kind == SDB_FLOORDIV && rr->args[1]->kind == SDB_INT &&
                rr->args[1]->ival > 0 && !sdb_mul_ov(rr->args[1]->ival, k / g, &merged);
  const sdb_expr *fd = g == 1 && !nested
                     ? sdb_ex_intern(SDB_FLOORDIV, 0, NULL, (const sdb_expr *[]){rr, kk}, 2)
                     : sdb_floordiv(rr, kk);
  r = sdb_add(q, fd);
out:
  tv_free(&div);
  tv_free(&rem);
  return r;
}

const sdb_expr *sdb_mod(const sdb_expr *a, const sdb_expr *b) {
  if (!a || !b) return NULL;
  if (!sdb_ex_need_int(a, "Mod") || !sdb_ex_need_int(b, "Mod")) return NULL;
  if (b->kind == SDB_INT && b->ival == 0) return sdb_ex_fail("division by zero in Mod");
  if (a->kind == SDB_INT && b->kind == SDB_INT)
    return sdb_int(py_mod(a->ival, b->ival));
  if (b->kind == SDB_INT && (b->ival == 1 || b->ival == -1)) return sdb_int(0);
  if (a->kind == SDB_INT && a->ival == 0) return a;
  if (a == b) return sdb_int(0);
  /* PythonMod.eval: p in (q, -q), or p a multiple of q (p / q cancels) */
  if (b->kind != SDB_INT && (a == sdb_neg(b) || monomial_multiple(a, b))) return sdb_int(0);
  if (b->kind != SDB_INT || b->ival < 0)
    return sdb_ex_intern(SDB_MOD, 0, NULL, (const sdb_expr *[]){a, b}, 2);
  int64_t k = b->ival;
  /* Mod(Mod(x, k), k) = Mod(x, k) */
  if (a->kind == SDB_MOD && a->args[1] == b) return a;
  termvec div, rem;
  tv_init(&div);
  tv_init(&rem);
  int64_t cdiv, crem;
  const sdb_expr *r = NULL;
  if (!split_divisible(a, k, &div, &cdiv, &rem, &crem)) goto out;
  /* Mod(D + R, k) = Mod(R, k) when k divides D's coefficients */
  if (rem.n == 0) { r = sdb_int(py_mod(crem, k)); goto out; }
  crem = py_mod(crem, k);
  /* Mod(g*R', g*k') = g*Mod(R', k') */
  int64_t g = gcd64(content_of(&rem, crem), k);
  if (g < 1) g = 1;
  const sdb_expr *rr = divided_sum(&rem, crem, g);
  if (!rr) goto out;
  const sdb_expr *m = g > 1 ? sdb_mod(rr, sdb_int(k / g))
                    : rr->kind == SDB_MOD && rr->args[1] == b ? rr
                    : sdb_ex_intern(SDB_MOD, 0, NULL, (const sdb_expr *[]){rr, b}, 2);
  r = g == 1 ? m : sdb_mul(sdb_int(g), m);
out:
  tv_free(&div);
  tv_free(&rem);
  return r;
}

/* ------------------------------------------------------------------------
** Expansion (PyTorch's safe_expand / _fast_expand)
** ---------------------------------------------------------------------- */

/* Past this many terms a product of sums is left unexpanded. */
#define EXPAND_MAX_TERMS 4096

static size_t nterms(const sdb_expr *e) {
  return e->kind == SDB_ADD ? e->nargs + (e->ival != 0) : 1;
}
static const sdb_expr *term_at(const sdb_expr *e, size_t i) {
  if (e->kind != SDB_ADD) return e;
  return i < e->nargs ? e->args[i] : sdb_int(e->ival);
}

/* a*b with sums multiplied out; NULL on error, a*b itself when too big. */
static const sdb_expr *distribute(const sdb_expr *a, const sdb_expr *b) {
  if (a->kind != SDB_ADD && b->kind != SDB_ADD) return sdb_mul(a, b);
  size_t na = nterms(a), nb = nterms(b);
  if (na * nb > EXPAND_MAX_TERMS) return sdb_mul(a, b);
  const sdb_expr **v = sdb_noted(malloc(na * nb * sizeof *v));
  if (!v) return sdb_ex_fail("out of memory");
  size_t n = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nb; j++)
      if (!(v[n++] = sdb_mul(term_at(a, i), term_at(b, j)))) { free(v); return NULL; }
  const sdb_expr *r = sdb_add_n(v, n);
  free(v);
  return r;
}

const sdb_expr *sdb_expand(const sdb_expr *e) {
  if (!e) return NULL;
  if (e->nargs == 0) return e;
  const sdb_expr *small[8], **args = e->nargs <= 8 ? small : sdb_noted(malloc(e->nargs * sizeof *args));
  if (!args) return sdb_ex_fail("out of memory");
  bool changed = false;
  const sdb_expr *r = NULL;
  for (size_t i = 0; i < e->nargs; i++) {
    if (!(args[i] = sdb_expand(e->args[i]))) goto out;
    changed |= args[i] != e->args[i];
  }
  if (e->kind == SDB_MUL) {
    r = sdb_int(e->ival);
    for (size_t i = 0; r && i < e->nargs; i++) r = distribute(r, args[i]);
  } else if (e->kind == SDB_POW && args[0]->kind == SDB_ADD) {
    r = args[0];
    for (int64_t k = 1; r && k < e->ival; k++) r = distribute(r, args[0]);
  } else {
    r = changed ? sdb_rebuild((sdb_kind)e->kind, e->ival, args, e->nargs) : e;
  }
out:
  if (args != small) free(args);
  return r;
}
