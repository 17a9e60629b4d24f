/*
** expr_text.c — expressions as text (see expr.h): printed in sympy's
** spelling (what PyTorch's logs and guards show), in the spelling of
** PyTorch's PythonPrinter (guard code), and parsed back from sympy's
** spelling. Split from expr.c, which builds the expressions.
*/
#include "expr.h"
#include "expr_internal.h"
#include "intern.h"
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sdb_expr_cstr's cache: expression -> its interned printed form */
typedef struct str_entry { const sdb_expr *e; const char *s; } str_entry;
static str_entry str_cache[4096];

void sdb_expr_text_reset(void) { memset(str_cache, 0, sizeof str_cache); }

/* ------------------------------------------------------------------------
** Printing in sympy's spelling
** ---------------------------------------------------------------------- */

/* sympy precedence values */
enum { P_OR = 20, P_AND = 30, P_REL = 35, P_ADD = 40, P_MUL = 50,
       P_NOT = 100, P_POW = 60, P_ATOM = 1000 };

static int precedence(const sdb_expr *e) {
  switch (e->kind) {
    case SDB_INT: return e->ival < 0 ? P_ADD : P_ATOM;
    case SDB_ADD: return P_ADD;
    case SDB_MUL: return e->ival < 0 ? P_ADD : P_MUL;
    case SDB_POW: return P_POW;
    case SDB_LT: case SDB_LE: return P_REL;
    case SDB_AND: return P_AND;
    case SDB_OR: return P_OR;
    case SDB_NOT: return P_NOT;
    case SDB_MOD: return P_MUL;   /* sympy: Mod binds like Mul */
    default: return P_ATOM;
  }
}

static void print_rec(sdb_buf *b, const sdb_expr *e);

/* sympy's parenthesize with strict=False: parens when prec(e) <= level */
static void print_paren(sdb_buf *b, const sdb_expr *e, int level) {
  if (precedence(e) <= level) {
    sdb_buf_putc(b, '(');
    print_rec(b, e);
    sdb_buf_putc(b, ')');
  } else {
    print_rec(b, e);
  }
}

static void print_args(sdb_buf *b, const char *fn, const sdb_expr *const *a,
                       size_t n) {
  sdb_buf_puts(b, fn);
  sdb_buf_putc(b, '(');
  for (size_t i = 0; i < n; i++) {
    if (i) sdb_buf_puts(b, ", ");
    print_rec(b, a[i]);
  }
  sdb_buf_putc(b, ')');
}

/* A product without its sign: |coef| * factors. */
static void print_mul_mag(sdb_buf *b, uint64_t mag, const sdb_expr *const *f,
                          size_t n) {
  if (mag != 1) { sdb_buf_putu(b, (unsigned long long)mag); sdb_buf_putc(b, '*'); }
  for (size_t i = 0; i < n; i++) {
    if (i) sdb_buf_putc(b, '*');
    print_paren(b, f[i], P_MUL);
  }
}

static uint64_t mag64(int64_t v) { return v < 0 ? -(uint64_t)v : (uint64_t)v; }

static void print_rec(sdb_buf *b, const sdb_expr *e) {
  switch (e->kind) {
    case SDB_INT: sdb_buf_puti(b, (long long)e->ival); break;
    case SDB_SYM: sdb_buf_puts(b, e->name); break;
    case SDB_TRUE: sdb_buf_puts(b, "True"); break;
    case SDB_FALSE: sdb_buf_puts(b, "False"); break;
    case SDB_ADD:
      /* sympy's special case: a positive number plus (negative number *
      ** one factor) prints number first: `5 - u0`, `1 - 2*u0`. */
      if (e->nargs == 1 && e->ival > 0 && e->args[0]->kind == SDB_MUL &&
          e->args[0]->ival < 0 && e->args[0]->nargs == 1) {
        { sdb_buf_puti(b, (long long)e->ival); sdb_buf_puts(b, " - "); }
        print_mul_mag(b, mag64(e->args[0]->ival), e->args[0]->args, 1);
        break;
      }
      for (size_t i = 0; i < e->nargs; i++) {
        const sdb_expr *t = e->args[i];
        bool neg = t->kind == SDB_MUL && t->ival < 0;
        if (i == 0) {
          print_rec(b, t);
        } else if (neg) {
          sdb_buf_puts(b, " - ");
          print_mul_mag(b, mag64(t->ival), t->args, t->nargs);
        } else {
          sdb_buf_puts(b, " + ");
          print_rec(b, t);
        }
      }
      if (e->ival > 0) { sdb_buf_puts(b, " + "); sdb_buf_puti(b, (long long)e->ival); }
      else if (e->ival < 0)
        { sdb_buf_puts(b, " - "); sdb_buf_putu(b, (unsigned long long)mag64(e->ival)); }
      break;
    case SDB_MUL:
      if (e->ival < 0) sdb_buf_putc(b, '-');
      print_mul_mag(b, mag64(e->ival), e->args, e->nargs);
      break;
    case SDB_POW:
      print_paren(b, e->args[0], P_POW);
      { sdb_buf_puts(b, "**"); sdb_buf_puti(b, (long long)e->ival); }
      break;
    case SDB_FLOORDIV:
      /* PyTorch FloorDiv._sympystr: parenthesize at Atom - 0.5 */
      sdb_buf_putc(b, '(');
      print_paren(b, e->args[0], P_ATOM - 1);
      sdb_buf_puts(b, "//");
      print_paren(b, e->args[1], P_ATOM - 1);
      sdb_buf_putc(b, ')');
      break;
    case SDB_MOD: print_args(b, "Mod", e->args, 2); break;
    case SDB_MAX: print_args(b, "Max", e->args, e->nargs); break;
    case SDB_MIN: print_args(b, "Min", e->args, e->nargs); break;
    case SDB_EQ: print_args(b, "Eq", e->args, 2); break;
    case SDB_NE: print_args(b, "Ne", e->args, 2); break;
    case SDB_LT: case SDB_LE: {
      /* Gt/Ge are stored swapped and print as built: `u0 > 2` */
      bool flip = sdb_rel_flipped(e);
      const sdb_expr *l = flip ? e->args[1] : e->args[0];
      const sdb_expr *r = flip ? e->args[0] : e->args[1];
      const char *op = e->kind == SDB_LT ? (flip ? " > " : " < ")
                                         : (flip ? " >= " : " <= ");
      print_paren(b, l, P_REL);
      sdb_buf_puts(b, op);
      print_paren(b, r, P_REL);
      break;
    }
    case SDB_AND: case SDB_OR:
      /* infix relations and nested And/Or get parentheses; Eq/Ne print as
      ** calls and need none: `Eq(u0, 1) & (s0 < 5)` */
      for (size_t i = 0; i < e->nargs; i++) {
        if (i) sdb_buf_puts(b, e->kind == SDB_AND ? " & " : " | ");
        print_paren(b, e->args[i], P_REL);
      }
      break;
    case SDB_NOT:
      sdb_buf_putc(b, '~');
      print_paren(b, e->args[0], P_ATOM - 1);
      break;
    default: sdb_buf_puts(b, "?"); break;
  }
}

/* The printed form of an expression, interned and remembered per
** expression in a direct-mapped cache (the annotations of every placed
** node print the same sizes again and again). */
const char *sdb_expr_cstr(const sdb_expr *e) {
  if (!e) return NULL;
  str_entry *c = &str_cache[((uintptr_t)e >> 4) & 4095];
  if (c->e == e) return c->s;
  char room[256];
  sdb_buf b = sdb_buf_on(room, sizeof room);
  print_rec(&b, e);
  const char *is = b.failed ? NULL : sdb_intern(sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  if (is) { c->e = e; c->s = is; }
  return is;
}

void sdb_expr_put(sdb_buf *b, const sdb_expr *e) { print_rec(b, e); }

char *sdb_expr_str(const sdb_expr *e) {
  sdb_buf b = SDB_BUF_INIT;
  print_rec(&b, e);
  return sdb_buf_take(&b);
}

size_t sdb_expr_print(const sdb_expr *e, char *buf, size_t cap) {
  char room[256];
  sdb_buf b = cap ? sdb_buf_on(buf, cap) : sdb_buf_on(room, sizeof room);
  print_rec(&b, e);
  size_t n = b.len;
  if (cap && !b.borrowed) {   /* it outgrew buf: the part that fits */
    size_t m = n < cap - 1 ? n : cap - 1;
    if (m) memcpy(buf, b.data, m);
    buf[m] = '\0';
  }
  sdb_buf_free(&b);
  return n;
}

/* ------------------------------------------------------------------------
** PyTorch's PythonPrinter (torch/utils/_sympy/printers.py): stringify the
** sympy args joined by an operator, parenthesizing an arg whose precedence
** is <= the operator's. Guards in source form are printed this way.
** ---------------------------------------------------------------------- */

typedef struct { sdb_buf *b; sdb_symname_fn name_of; void *ud; } pyctx;

static int py_prec(const sdb_expr *e) {
  switch (e->kind) {
    case SDB_INT: return e->ival < 0 ? P_ADD : P_ATOM;
    case SDB_ADD: return P_ADD;
    case SDB_MUL: return e->ival < 0 ? P_ADD : P_MUL;
    case SDB_POW: return P_MUL;        /* printed as x*x */
    case SDB_FLOORDIV: return P_REL;   /* FloorDiv.precedence = 35 */
    case SDB_MOD: return P_MUL;
    case SDB_EQ: case SDB_NE: case SDB_LT: case SDB_LE: return P_REL;
    case SDB_AND: return P_AND;
    case SDB_OR: return P_OR;
    case SDB_NOT: return P_NOT;
    default: return P_ATOM;
  }
}

static void py_rec(pyctx *c, const sdb_expr *e);

static void py_item(pyctx *c, const sdb_expr *e, int level) {
  if (py_prec(e) <= level) {
    sdb_buf_putc(c->b, '(');
    py_rec(c, e);
    sdb_buf_putc(c->b, ')');
  } else {
    py_rec(c, e);
  }
}

/* Atom - 0.5: anything but an atom gets parentheses */
static void py_atomic(pyctx *c, const sdb_expr *e) {
  bool atom = (e->kind == SDB_INT && e->ival >= 0) || e->kind == SDB_SYM ||
              e->kind == SDB_MAX || e->kind == SDB_MIN;
  if (!atom) sdb_buf_putc(c->b, '(');
  py_rec(c, e);
  if (!atom) sdb_buf_putc(c->b, ')');
}

static int expr_qsort_cmp2(const void *a, const void *b) {
  return sdb_expr_cmp(*(const sdb_expr *const *)a, *(const sdb_expr *const *)b);
}

static void py_rec(pyctx *c, const sdb_expr *e) {
  sdb_buf *b = c->b;
  switch (e->kind) {
    case SDB_INT: sdb_buf_puti(b, (long long)e->ival); break;
    case SDB_TRUE: sdb_buf_puts(b, "True"); break;
    case SDB_FALSE: sdb_buf_puts(b, "False"); break;
    case SDB_SYM: {
      const char *n = c->name_of ? c->name_of(c->ud, e) : NULL;
      sdb_buf_puts(b, n ? n : e->name);
      break;
    }
    case SDB_ADD: {
      /* sympy keeps the number first in Add.args, then terms by sort key */
      bool first = true;
      if (e->ival) { sdb_buf_puti(b, (long long)e->ival); first = false; }
      const sdb_expr **t = sdb_noted(malloc(e->nargs * sizeof *t));
      if (!t) { b->failed = true; break; }
      memcpy(t, e->args, e->nargs * sizeof *t);
      sdb_sort_n(t, e->nargs, sizeof *t, expr_qsort_cmp2);
      for (size_t i = 0; i < e->nargs; i++) {
        if (!first) sdb_buf_puts(b, " + ");
        py_item(c, t[i], P_ADD);
        first = false;
      }
      free(t);
      break;
    }
    case SDB_MUL: {
      bool first = true;
      if (e->ival != 1) { py_item(c, sdb_int(e->ival), P_MUL); first = false; }
      for (size_t i = 0; i < e->nargs; i++) {
        if (!first) sdb_buf_putc(b, '*');
        py_item(c, e->args[i], P_MUL);
        first = false;
      }
      break;
    }
    case SDB_POW: {
      /* PyTorch writes x*x*x: the factor is printed once and repeated
      ** (printed anew each time, powers of powers took 64**depth: fuzzing).
      ** Past 64 factors (s0**88888888888888880 never finished printing) or
      ** 64 KiB of text, the same value as Python's x**N. */
      sdb_buf f = SDB_BUF_INIT;
      pyctx fc = {&f, c->name_of, c->ud};
      if (e->ival <= 64) py_item(&fc, e->args[0], P_MUL);
      if (e->ival > 64 || f.failed || f.len * (size_t)e->ival > 64 * 1024) {
        py_item(c, e->args[0], P_POW);
        sdb_buf_puts(b, "**");
        sdb_buf_puti(b, (long long)e->ival);
      } else {
        for (int64_t i = 0; i < e->ival; i++) {
          if (i) sdb_buf_putc(b, '*');
          sdb_buf_putn(b, f.data, f.len);
        }
      }
      sdb_buf_free(&f);
      break;
    }
    case SDB_FLOORDIV:
      py_atomic(c, e->args[0]);
      sdb_buf_puts(b, " // ");
      py_atomic(c, e->args[1]);
      break;
    case SDB_MOD:
      py_atomic(c, e->args[0]);
      sdb_buf_puts(b, " % ");
      py_atomic(c, e->args[1]);
      break;
    case SDB_MAX: case SDB_MIN:
      sdb_buf_puts(b, e->kind == SDB_MAX ? "max(" : "min(");
      for (size_t i = 0; i < e->nargs; i++) {
        if (i) sdb_buf_puts(b, ", ");
        py_rec(c, e->args[i]);
      }
      sdb_buf_putc(b, ')');
      break;
    case SDB_EQ: case SDB_NE: case SDB_LT: case SDB_LE: {
      bool flip = sdb_rel_flipped(e);
      const char *op = e->kind == SDB_EQ ? " == " : e->kind == SDB_NE ? " != "
                     : e->kind == SDB_LT ? (flip ? " > " : " < ")
                     : (flip ? " >= " : " <= ");
      py_item(c, e->args[flip ? 1 : 0], P_REL);
      sdb_buf_puts(b, op);
      py_item(c, e->args[flip ? 0 : 1], P_REL);
      break;
    }
    case SDB_AND: case SDB_OR:
      for (size_t i = 0; i < e->nargs; i++) {
        if (i) sdb_buf_puts(b, e->kind == SDB_AND ? " and " : " or ");
        py_item(c, e->args[i], py_prec(e));
      }
      break;
    case SDB_NOT:
      sdb_buf_puts(b, "not (");
      py_rec(c, e->args[0]);
      sdb_buf_putc(b, ')');
      break;
    default: sdb_buf_puts(b, "?"); break;
  }
}

char *sdb_expr_str_py(const sdb_expr *e, sdb_symname_fn name_of, void *ud) {
  sdb_buf b = SDB_BUF_INIT;
  pyctx c = {&b, name_of, ud};
  py_rec(&c, e);
  return sdb_buf_take(&b);
}

/* ------------------------------------------------------------------------
** Parsing sympy's spelling (recursive descent, depth-limited)
** ---------------------------------------------------------------------- */

/* Every cycle in the grammar (parentheses, calls, unary +, - and ~, the
** right-associative `**`) passes through enter(), so the C stack used is
** bounded by a constant times this limit. The limit is the deepest
** expression the builder makes, so anything printed parses back. */
#define PARSE_MAX_NEST SDB_MAX_DEPTH

typedef struct {
  const char *src;
  size_t pos;
  int nest;
  char *err;
  size_t errlen;
  bool failed;
  char here[16];   /* describe_here's snippet */
} parser;

static const sdb_expr *perr(parser *p, size_t col, const char *fmt, ...) {
  if (!p->failed && p->err && p->errlen) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "column %zu: %s", col + 1, msg);
  }
  p->failed = true;
  return NULL;
}

/* A builder failed (overflow, division by zero...): report at the column. */
static const sdb_expr *pcheck(parser *p, size_t col, const sdb_expr *e) {
  if (!e && !p->failed) perr(p, col, "%s", sdb_expr_error());
  return e;
}

static bool enter(parser *p, size_t col) {
  if (++p->nest <= PARSE_MAX_NEST) return true;
  perr(p, col, "expression nested too deeply (limit %d)", PARSE_MAX_NEST);
  return false;
}

static void skip_ws(parser *p) {
  while (p->src[p->pos] == ' ' || p->src[p->pos] == '\t' ||
         p->src[p->pos] == '\n' || p->src[p->pos] == '\r')
    p->pos++;
}

static bool accept(parser *p, const char *tok) {
  skip_ws(p);
  size_t n = strlen(tok);
  if (strncmp(p->src + p->pos, tok, n) != 0) return false;
  /* "<" must not eat "<=", "*" must not eat "**", "/" needs "//" ... */
  char next = p->src[p->pos + n];
  if ((!strcmp(tok, "<") || !strcmp(tok, ">")) && next == '=') return false;
  if (!strcmp(tok, "*") && next == '*') return false;
  p->pos += n;
  return true;
}

size_t sdb_utf8_prefix(const char *s, size_t max) {
  size_t n = strnlen(s, max);
  if (n < max || !s[n]) return n;
  /* Back up over continuation bytes to the lead byte; drop it when the
  ** character it starts does not fit entirely. */
  size_t i = n;
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
  return i;
}

/* The next few bytes of input for a message (quoted as '%s'), whole UTF-8
** characters only. */
/* The one (UTF-8) character at pos, for "unexpected 'X'". */
static const char *char_at(parser *p, size_t pos) {
  const unsigned char *s = (const unsigned char *)p->src + pos;
  size_t n = 1;
  if (s[0] >= 0xC0)
    while (n < 4 && (s[n] & 0xC0) == 0x80) n++;
  memcpy(p->here, s, n);
  p->here[n] = '\0';
  return p->here;
}

static const char *describe_here(parser *p) {
  skip_ws(p);
  if (!p->src[p->pos]) return "end of input";
  const char *s = p->src + p->pos;
  size_t n = sdb_utf8_prefix(s, 10);
  memcpy(p->here, s, n);
  p->here[n] = '\0';
  return p->here;
}

static const sdb_expr *parse_or(parser *p);

static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}

typedef struct { const char *name; int kind; int minargs, maxargs; } fn_entry;
enum { F_GT = 100, F_GE, F_PYMOD, F_SUB };
static const fn_entry functions[] = {
  {"Eq", SDB_EQ, 2, 2},   {"Ne", SDB_NE, 2, 2},   {"Lt", SDB_LT, 2, 2},
  {"Le", SDB_LE, 2, 2},   {"Gt", F_GT, 2, 2},     {"Ge", F_GE, 2, 2},
  {"Mod", SDB_MOD, 2, 2}, {"PythonMod", SDB_MOD, 2, 2},
  {"FloorDiv", SDB_FLOORDIV, 2, 2},
  {"Max", SDB_MAX, 1, 64}, {"Min", SDB_MIN, 1, 64},
  {"And", SDB_AND, 1, 64}, {"Or", SDB_OR, 1, 64}, {"Not", SDB_NOT, 1, 1},
};

static const sdb_expr *parse_call(parser *p, const fn_entry *f, size_t col) {
  const sdb_expr *args[64];
  size_t n = 0;
  if (!accept(p, ")")) {
    do {
      if (n == 64) return perr(p, p->pos, "too many arguments to %s", f->name);
      args[n] = parse_or(p);
      if (!args[n++]) return NULL;
    } while (accept(p, ","));
    if (!accept(p, ")"))
      return perr(p, p->pos, "expected ',' or ')' in %s(...), found '%s'",
                  f->name, describe_here(p));
  }
  if ((int)n < f->minargs || (int)n > f->maxargs)
    return perr(p, col, "%s takes %d%s argument%s, got %zu", f->name,
                f->minargs, f->maxargs > f->minargs ? " or more" : "",
                f->minargs == 1 ? "" : "s", n);
  const sdb_expr *r;
  switch (f->kind) {
    case F_GT: r = sdb_gt(args[0], args[1]); break;
    case F_GE: r = sdb_ge(args[0], args[1]); break;
    default: r = sdb_rebuild((sdb_kind)f->kind, 0, args, n);
  }
  return pcheck(p, col, r);
}

static const sdb_expr *parse_atom(parser *p) {
  skip_ws(p);
  size_t col = p->pos;
  char c = p->src[p->pos];
  if (c == '(') {
    p->pos++;
    if (!enter(p, col)) return NULL;
    const sdb_expr *e = parse_or(p);
    p->nest--;
    if (!e) return NULL;
    if (!accept(p, ")"))
      return perr(p, p->pos, "expected ')' to close '(' at column %zu, found '%s'",
                  col + 1, describe_here(p));
    return e;
  }
  if (c >= '0' && c <= '9') {
    int64_t v = 0;
    while (p->src[p->pos] >= '0' && p->src[p->pos] <= '9') {
      if (sdb_mul_ov(v, 10, &v) || sdb_add_ov(v, p->src[p->pos] - '0', &v))
        return perr(p, col, "integer literal does not fit in int64");
      p->pos++;
    }
    if (is_ident(p->src[p->pos]))
      return perr(p, p->pos, "unexpected '%s' after number", char_at(p, p->pos));
    return pcheck(p, col, sdb_int(v));
  }
  if (is_ident_start(c)) {
    size_t start = p->pos;
    while (is_ident(p->src[p->pos])) p->pos++;
    size_t len = p->pos - start;
    char name[128];
    if (len >= sizeof name) return perr(p, col, "name too long");
    memcpy(name, p->src + start, len);
    name[len] = '\0';
    if (!strcmp(name, "True")) return sdb_true();
    if (!strcmp(name, "False")) return sdb_false();
    skip_ws(p);
    if (p->src[p->pos] == '(') {
      p->pos++;
      for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strcmp(functions[i].name, name) == 0) {
          if (!enter(p, col)) return NULL;
          const sdb_expr *r = parse_call(p, &functions[i], col);
          p->nest--;
          return r;
        }
      }
      return perr(p, col, "unknown function '%s'", name);
    }
    return pcheck(p, col, sdb_sym(name));
  }
  if (!c) return perr(p, col, "unexpected end of input");
  return perr(p, col, "unexpected '%s'", char_at(p, col));
}

static const sdb_expr *parse_unary(parser *p);

static const sdb_expr *parse_power(parser *p) {
  const sdb_expr *base = parse_atom(p);
  if (!base) return NULL;
  skip_ws(p);
  size_t col = p->pos;
  if (!accept(p, "**")) return base;
  if (!enter(p, col)) return NULL;
  const sdb_expr *ex = parse_unary(p);
  p->nest--;
  if (!ex) return NULL;
  if (ex->kind != SDB_INT || ex->ival < 0)
    return perr(p, col, "exponent must be a non-negative integer");
  return pcheck(p, col, sdb_pow(base, ex->ival));
}

static const sdb_expr *parse_unary(parser *p) {
  skip_ws(p);
  size_t col = p->pos;
  bool minus = accept(p, "-");
  if (minus || accept(p, "+")) {
    if (!enter(p, col)) return NULL;
    const sdb_expr *e = parse_unary(p);
    p->nest--;
    if (!minus || !e) return e;
    return pcheck(p, col, sdb_neg(e));
  }
  return parse_power(p);
}

static const sdb_expr *parse_term(parser *p) {
  const sdb_expr *e = parse_unary(p);
  while (e) {
    skip_ws(p);
    size_t col = p->pos;
    if (accept(p, "//")) e = pcheck(p, col, sdb_floordiv(e, parse_unary(p)));
    else if (accept(p, "*")) e = pcheck(p, col, sdb_mul(e, parse_unary(p)));
    else if (accept(p, "%")) e = pcheck(p, col, sdb_mod(e, parse_unary(p)));
    else if (p->src[p->pos] == '/')
      return perr(p, col, "true division '/' is not supported; use '//'");
    else break;
  }
  return e;
}

static const sdb_expr *parse_arith(parser *p) {
  const sdb_expr *e = parse_term(p);
  while (e) {
    skip_ws(p);
    size_t col = p->pos;
    if (accept(p, "+")) e = pcheck(p, col, sdb_add(e, parse_term(p)));
    else if (accept(p, "-")) e = pcheck(p, col, sdb_sub(e, parse_term(p)));
    else break;
  }
  return e;
}

static const sdb_expr *parse_rel(parser *p) {
  const sdb_expr *a = parse_arith(p);
  if (!a) return NULL;
  skip_ws(p);
  size_t col = p->pos;
  const sdb_expr *(*op)(const sdb_expr *, const sdb_expr *) = NULL;
  if (accept(p, "<=")) op = sdb_le;
  else if (accept(p, ">=")) op = sdb_ge;
  else if (accept(p, "<")) op = sdb_lt;
  else if (accept(p, ">")) op = sdb_gt;
  else if (accept(p, "==")) op = sdb_eq;
  else if (accept(p, "!=")) op = sdb_ne;
  if (!op) return a;
  const sdb_expr *b = parse_arith(p);
  if (!b) return NULL;
  return pcheck(p, col, op(a, b));
}

static const sdb_expr *parse_not(parser *p) {
  skip_ws(p);
  size_t col = p->pos;
  if (accept(p, "~")) {
    if (!enter(p, col)) return NULL;
    const sdb_expr *e = parse_not(p);
    p->nest--;
    return e ? pcheck(p, col, sdb_not(e)) : NULL;
  }
  return parse_rel(p);
}

/* operand (op operand)*, left to right: & over ~-terms, | over &-terms */
static const sdb_expr *parse_chain(parser *p, const char *op, const sdb_expr *(*operand)(parser *),
                                   const sdb_expr *(*build)(const sdb_expr *, const sdb_expr *)) {
  const sdb_expr *e = operand(p);
  while (e) {
    skip_ws(p);
    size_t col = p->pos;
    if (!accept(p, op)) break;
    e = pcheck(p, col, build(e, operand(p)));
  }
  return e;
}

static const sdb_expr *parse_and(parser *p) { return parse_chain(p, "&", parse_not, sdb_and); }
static const sdb_expr *parse_or(parser *p) { return parse_chain(p, "|", parse_and, sdb_or); }

const sdb_expr *sdb_parse(const char *text, char *err, size_t errlen) {
  parser p = {text, 0, 0, err, errlen, false, ""};
  if (err && errlen) err[0] = '\0';
  const sdb_expr *e = parse_or(&p);
  if (!e) {
    if (!p.failed) perr(&p, p.pos, "%s", sdb_expr_error());
    return NULL;
  }
  skip_ws(&p);
  if (text[p.pos])
    return perr(&p, p.pos, "unexpected '%s'", describe_here(&p));
  return e;
}
