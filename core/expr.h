/*
** expr.h — hash-consed symbolic integer and boolean expressions.
**
** Every expression is interned: building an expression equal to one that
** exists returns the existing pointer, so structural equality is pointer
** equality. Expressions are immutable and owned by the intern table; callers
** never free them (sdb_expr_reset() forgets them all, for tests and
** benchmarks, keeping their memory for the next ones).
**
** Builders put their result in canonical form (sorted sums of monomials with
** integer coefficients, folded constants, the identities listed in expr.c),
** so the same value built two ways is usually the same pointer.
**
** Integers are int64 values strictly between INT64_MIN and INT64_MAX (those
** two mean -int_oo and int_oo in ranges.h); anything else is overflow.
**
** Errors: a builder returns NULL on int64 overflow, division by zero, a kind
** mismatch (arithmetic on a boolean), nesting deeper than SDB_MAX_DEPTH or
** a tree larger than SDB_MAX_SIZE;
** sdb_expr_error() says why. A builder given a NULL argument returns NULL
** without touching the message, so a chain of builders needs one check.
** Single-threaded, like the rest of core/.
*/
#ifndef SDB_EXPR_H
#define SDB_EXPR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef enum sdb_kind {
  SDB_INT,       /* ival */
  SDB_SYM,       /* name */
  SDB_TRUE,
  SDB_FALSE,
  SDB_ADD,       /* ival = constant term; args = terms, printing order */
  SDB_MUL,       /* ival = coefficient; args = factors, sorted */
  SDB_POW,       /* args[0] = base, ival = exponent >= 2 */
  SDB_FLOORDIV,  /* args[0] // args[1], Python floor semantics */
  SDB_MOD,       /* Mod(args[0], args[1]), sign of the divisor */
  SDB_MAX,
  SDB_MIN,
  SDB_EQ,
  SDB_NE,
  SDB_LT,        /* Gt/Ge are Lt/Le with the sides swapped and ival = 1 */
  SDB_LE,
  SDB_AND,
  SDB_OR,
  SDB_NOT,
  SDB_KIND_COUNT
} sdb_kind;

#define SDB_MAX_DEPTH 1000  /* deeper expressions are an error, not a crash */
/* Larger trees (counting shared subtrees once per use, as printing does)
** are an error too: `m = m*(m+1)+1` doubles the printed size each time,
** and printing, sympy's ordering and evaluation all walk the tree. */
#define SDB_MAX_SIZE 100000

typedef struct sdb_expr sdb_expr;
struct sdb_expr {
  uint8_t kind;          /* sdb_kind */
  uint16_t depth;        /* 1 for leaves */
  uint32_t nargs;
  uint32_t hash;
  uint32_t id;           /* creation order, unique per live expression */
  uint32_t size;         /* nodes in the tree, 1 for leaves; <= SDB_MAX_SIZE */
  int64_t ival;
  const char *name;      /* SDB_SYM only */
  const sdb_expr *args[];
};

/* --- errors and lifetime ---------------------------------------------- */
const char *sdb_expr_error(void);        /* why the last builder gave NULL */
void sdb_expr_set_error(const char *fmt, ...);
void sdb_expr_reset(void);               /* forget every expression */
/* fn runs at every sdb_expr_reset, first: for tables keyed by expressions
** elsewhere (a few; false if there is no room for another). */
bool sdb_expr_on_reset(void (*fn)(void));
size_t sdb_expr_count(void);             /* live interned expressions */

/* --- leaves ------------------------------------------------------------- */
const sdb_expr *sdb_int(int64_t v);
const sdb_expr *sdb_sym(const char *name);
const sdb_expr *sdb_true(void);
const sdb_expr *sdb_false(void);
const sdb_expr *sdb_bool(bool b);

/* --- arithmetic (integer-valued arguments) ------------------------------ */
const sdb_expr *sdb_add(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_sub(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_mul(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_neg(const sdb_expr *a);
const sdb_expr *sdb_add_n(const sdb_expr *const *terms, size_t n);
const sdb_expr *sdb_mul_n(const sdb_expr *const *factors, size_t n);
const sdb_expr *sdb_pow(const sdb_expr *base, int64_t exp);   /* exp >= 0 */
const sdb_expr *sdb_floordiv(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_mod(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_max(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_min(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_max_n(const sdb_expr *const *args, size_t n);
const sdb_expr *sdb_min_n(const sdb_expr *const *args, size_t n);

/* --- relations and logic ------------------------------------------------ */
const sdb_expr *sdb_eq(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_ne(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_lt(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_le(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_gt(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_ge(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_and(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_or(const sdb_expr *a, const sdb_expr *b);
const sdb_expr *sdb_and_n(const sdb_expr *const *args, size_t n);
const sdb_expr *sdb_or_n(const sdb_expr *const *args, size_t n);
const sdb_expr *sdb_not(const sdb_expr *a);

/* Gt(a, b) is Lt(b, a) with ival = 1, a distinct node (as in sympy, where
** `b < a` and `a > b` are different objects) that prints `a > b`; the flag
** changes nothing but printing and sort order. Lookups that must not care
** how a relation was written (facts, axioms) use sdb_rel_canon: the same
** expression with every relation in Lt/Le form. */
static inline bool sdb_rel_flipped(const sdb_expr *e) {
  return (e->kind == SDB_LT || e->kind == SDB_LE) && e->ival != 0;
}
const sdb_expr *sdb_rel_canon(const sdb_expr *e);

/* Rebuild a node of `kind` from new arguments through the canonicalising
** builders (substitution and range-aware simplifiers use this). For SDB_MUL
** and SDB_ADD `ival` is the coefficient / constant; for SDB_POW the exponent. */
const sdb_expr *sdb_rebuild(sdb_kind kind, int64_t ival,
                            const sdb_expr *const *args, size_t n);

/* Products of sums multiplied out, everywhere in e (also inside FloorDiv,
** Max, relations...), as PyTorch's safe_expand: u2*(u0 + u1) becomes
** u0*u2 + u1*u2, (s0 + 1)**2 becomes s0**2 + 2*s0 + 1. A product that would
** have more than 4096 terms stays as it is. NULL on error. */
const sdb_expr *sdb_expand(const sdb_expr *e);

/* --- queries ------------------------------------------------------------ */
static inline bool sdb_is_int(const sdb_expr *e) { return e->kind == SDB_INT; }
static inline bool sdb_is_sym(const sdb_expr *e) { return e->kind == SDB_SYM; }
bool sdb_is_bool(const sdb_expr *e);     /* True/False, relation or logic */
bool sdb_is_const(const sdb_expr *e);    /* Integer, True or False */
int sdb_expr_cmp(const sdb_expr *a, const sdb_expr *b); /* sympy sort_key */
const char *sdb_kind_name(sdb_kind k);   /* "Add", "FloorDiv", ... */

/* Split `e` as coefficient * rest (rest has coefficient 1; rest is the
** Integer 1 when e is an integer). */
int64_t sdb_expr_coeff(const sdb_expr *e, const sdb_expr **rest);
/* Is d = c*x + rest with x absent from rest? (solving a relation for x) */
bool sdb_linear_in(const sdb_expr *d, const sdb_expr *x, int64_t *c, const sdb_expr **rest);
/* Python's floor and ceiling division (b != 0, not INT64_MIN / -1). */
int64_t sdb_floor_div64(int64_t a, int64_t b);
int64_t sdb_ceil_div64(int64_t a, int64_t b);

/* Free symbols, sorted by sdb_expr_cmp, in a malloc'ed array the caller
** frees (NULL when there are none). Returns the count, or -1 on OOM. */
long sdb_free_symbols(const sdb_expr *e, const sdb_expr ***out);
bool sdb_has_symbol(const sdb_expr *e, const sdb_expr *sym);
/* Is some free symbol's name prefixed by `prefix` (e.g. "u" for unbacked)? */
bool sdb_has_symbol_prefix(const sdb_expr *e, const char *prefix);

/* --- substitution and evaluation ---------------------------------------- */
/* Replace each syms[i] by vals[i] simultaneously; canonicalises the result.
** NULL on error (overflow, division by zero after substitution). */
const sdb_expr *sdb_subs(const sdb_expr *e, const sdb_expr *const *syms,
                         const sdb_expr *const *vals, size_t n);

/* Symbol values for evaluation: return 0 and set *out, or -1 if unknown. */
typedef int (*sdb_lookup_fn)(void *ud, const sdb_expr *sym, int64_t *out);

/* Evaluate to an int64 (booleans give 0 or 1). Returns 0 on success, -1 with
** a message in err (unknown symbol, division by zero, overflow). */
int sdb_eval(const sdb_expr *e, sdb_lookup_fn lookup, void *ud,
             int64_t *out, char *err, size_t errlen);

/* --- printing and parsing ----------------------------------------------- */
/* sympy's str() spelling. Returns a malloc'ed string (NULL on OOM). */
char *sdb_expr_str(const sdb_expr *e);
/* The same, interned (not to be freed); NULL on OOM. */
const char *sdb_expr_cstr(const sdb_expr *e);
/* Append to a caller buffer; returns the length the full text needs. */
size_t sdb_expr_print(const sdb_expr *e, char *buf, size_t cap);
/* Append the text to b (buf.h), with no string of its own on the way. */
struct sdb_buf;
void sdb_expr_put(struct sdb_buf *b, const sdb_expr *e);

/* PyTorch's PythonPrinter, used for guards in source form: sympy's argument
** order, `a == b`, `x // 2`, `x % 4`, `max(a, b)`, ` and `, `not (...)`;
** each symbol printed by name_of (e.g. as its source `L['x'].size()[0]`),
** or by its name when name_of is NULL or returns NULL. Malloc'ed. */
typedef const char *(*sdb_symname_fn)(void *ud, const sdb_expr *sym);
char *sdb_expr_str_py(const sdb_expr *e, sdb_symname_fn name_of, void *ud);

/* Parse sympy spelling. NULL on error, with the message (naming the
** column, 1-based) in err. */
const sdb_expr *sdb_parse(const char *text, char *err, size_t errlen);
/* The length of the longest prefix of s of at most max bytes that does not
** end inside a UTF-8 character (for quoting input in messages). */
size_t sdb_utf8_prefix(const char *s, size_t max);

#endif
