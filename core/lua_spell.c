/*
** lua_spell.c — an expression as a Lua program writes it (see lua_spell.h).
*/
#include "lua_spell.h"

#include <stdlib.h>
#include <string.h>

typedef struct namer {
  sdb_namer fn;
  void *ud;
} namer;

static void put(sdb_buf *b, const namer *nm, const sdb_expr *e, bool *missing);

/* A method's receiver: a name or a call stays as it is, anything else in
** parentheses ((n + 1):lt(5)). */
static void put_receiver(sdb_buf *b, const namer *nm, const sdb_expr *e, bool *missing) {
  bool bare = e->kind == SDB_SYM;
  if (!bare) sdb_buf_putc(b, '(');
  put(b, nm, e, missing);
  if (!bare) sdb_buf_putc(b, ')');
}

static void put_method(sdb_buf *b, const namer *nm, const sdb_expr *recv, const char *method,
                       const sdb_expr *arg, bool *missing) {
  put_receiver(b, nm, recv, missing);
  sdb_buf_printf(b, ":%s(", method);
  put(b, nm, arg, missing);
  sdb_buf_putc(b, ')');
}

/* a < b as a method of the side that is not a plain number */
static void put_relation(sdb_buf *b, const namer *nm, const sdb_expr *lhs, const char *op,
                         const sdb_expr *rhs, const char *flipped, bool *missing) {
  if (lhs->kind == SDB_INT && rhs->kind != SDB_INT) put_method(b, nm, rhs, flipped, lhs, missing);
  else put_method(b, nm, lhs, op, rhs, missing);
}

static void put_sum_term(sdb_buf *b, const namer *nm, const sdb_expr *t, bool first,
                         bool *missing) {
  if (t->kind == SDB_MUL && t->ival < 0) {
    sdb_buf_puts(b, first ? "-" : " - ");
    if (t->ival != -1) sdb_buf_printf(b, "%lld*", (long long)-t->ival);
    for (uint32_t i = 0; i < t->nargs; i++) {
      if (i) sdb_buf_putc(b, '*');
      put_receiver(b, nm, t->args[i], missing);
    }
    return;
  }
  if (!first) sdb_buf_puts(b, " + ");
  put(b, nm, t, missing);
}

/* an n-ary Max/Min/And/Or as nested two-argument calls: torch.sym_max(torch.sym_max(a, b), c) */
static void put_fold(sdb_buf *b, const namer *nm, const sdb_expr *e, const char *fn, bool *missing) {
  for (uint32_t i = 0; i + 1 < e->nargs; i++) sdb_buf_printf(b, "torch.%s(", fn);
  put(b, nm, e->args[0], missing);
  for (uint32_t i = 1; i < e->nargs; i++) {
    sdb_buf_puts(b, ", ");
    put(b, nm, e->args[i], missing);
    sdb_buf_putc(b, ')');
  }
}

static void put(sdb_buf *b, const namer *nm, const sdb_expr *e, bool *missing) {
  switch ((sdb_kind)e->kind) {
    case SDB_INT: sdb_buf_printf(b, "%lld", (long long)e->ival); return;
    case SDB_TRUE: sdb_buf_puts(b, "true"); return;
    case SDB_FALSE: sdb_buf_puts(b, "false"); return;
    case SDB_SYM: {
      const char *n = nm->fn ? nm->fn(nm->ud, e) : NULL;
      if (!n) *missing = true;
      sdb_buf_puts(b, n ? n : e->name);
      return;
    }
    case SDB_ADD:
      for (uint32_t i = 0; i < e->nargs; i++) put_sum_term(b, nm, e->args[i], i == 0, missing);
      if (e->ival > 0) sdb_buf_printf(b, " + %lld", (long long)e->ival);
      else if (e->ival < 0) sdb_buf_printf(b, " - %lld", (long long)-e->ival);
      return;
    case SDB_MUL:
      if (e->ival == -1) sdb_buf_putc(b, '-');
      else if (e->ival != 1) sdb_buf_printf(b, "%lld*", (long long)e->ival);
      for (uint32_t i = 0; i < e->nargs; i++) {
        if (i) sdb_buf_putc(b, '*');
        bool sum = e->args[i]->kind == SDB_ADD;
        if (sum) sdb_buf_putc(b, '(');
        put(b, nm, e->args[i], missing);
        if (sum) sdb_buf_putc(b, ')');
      }
      return;
    case SDB_POW:
      for (int64_t i = 0; i < e->ival; i++) {
        if (i) sdb_buf_putc(b, '*');
        put_receiver(b, nm, e->args[0], missing);
      }
      return;
    case SDB_FLOORDIV:
    case SDB_MOD:
      put_receiver(b, nm, e->args[0], missing);
      sdb_buf_puts(b, e->kind == SDB_MOD ? " % " : " // ");
      put_receiver(b, nm, e->args[1], missing);
      return;
    case SDB_MAX:
    case SDB_MIN:
      put_fold(b, nm, e, e->kind == SDB_MAX ? "sym_max" : "sym_min", missing);
      return;
    case SDB_EQ:
      put_relation(b, nm, e->args[0], "eq", e->args[1], "eq", missing);
      return;
    case SDB_NE:
      put_relation(b, nm, e->args[0], "ne", e->args[1], "ne", missing);
      return;
    case SDB_LT:   /* ival 1: Gt(args[1], args[0]) as built */
      if (e->ival) put_relation(b, nm, e->args[1], "gt", e->args[0], "lt", missing);
      else put_relation(b, nm, e->args[0], "lt", e->args[1], "gt", missing);
      return;
    case SDB_LE:
      if (e->ival) put_relation(b, nm, e->args[1], "ge", e->args[0], "le", missing);
      else put_relation(b, nm, e->args[0], "le", e->args[1], "ge", missing);
      return;
    case SDB_AND:
    case SDB_OR:
      put_fold(b, nm, e, e->kind == SDB_AND ? "sym_and" : "sym_or", missing);
      return;
    case SDB_NOT:
      sdb_buf_puts(b, "torch.sym_not(");
      put(b, nm, e->args[0], missing);
      sdb_buf_putc(b, ')');
      return;
    case SDB_KIND_COUNT:
      break;
  }
  sdb_buf_puts(b, "?");
}

void sdb_lua_spell(sdb_buf *b, const sdb_expr *e, sdb_namer fn, void *ud, bool *missing) {
  namer nm = {fn, ud};
  bool dummy = false;
  put(b, &nm, e, missing ? missing : &dummy);
}

char *sdb_check_suggestion(const sdb_expr *cond, sdb_namer fn, void *ud) {
  sdb_buf b = SDB_BUF_INIT;
  bool missing = false;
  sdb_buf_puts(&b, "torch._check(");
  if (fn) sdb_lua_spell(&b, cond, fn, ud, &missing);
  if (!fn || missing) {   /* some symbol has no name: core's spelling */
    sdb_buf_free(&b);
    char *s = sdb_expr_str(cond);
    if (!s) return NULL;
    sdb_buf_puts(&b, "torch._check(");
    sdb_buf_puts(&b, s);
    free(s);
  }
  sdb_buf_putc(&b, ')');
  sdb_buf_cstr(&b);
  if (b.failed) { sdb_buf_free(&b); return NULL; }
  return sdb_buf_take(&b);
}
