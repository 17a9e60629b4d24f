/*
** fx_expr.c — the small Python expressions of print_readable's statements
** (see fx_parse.c): a statement's tokens, and its expression tree, a
** level of Python's precedence at a time. What the tree means is
** fx_parse.c's.
*/
#include "fx_parse.h"
#include "fx_parse_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "intern.h"

/* --- tokens -------------------------------------------------------------------- */

static const char *ops3[] = {"...", "**=", "//=", NULL};
static const char *ops2[] = {"==", "!=", "<=", ">=", "//", "**", "<<", ">>", "->", NULL};

int sdb_fp_lex_next(lexer *L) {
  const char *p = L->p;
  while (*p == ' ' || *p == '\t') p++;
  tok *t = &L->t;
  memset(t, 0, sizeof *t);
  t->s = p;
  if (!*p || *p == '#') {
    t->k = T_END;
    L->p = p;
    return SDB_OK;
  }
  if (isalpha((unsigned char)*p) || *p == '_') {
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_') q++;
    t->k = T_NAME;
    t->n = (size_t)(q - p);
    t->str = sdb_intern_n(p, t->n);
    L->p = q;
    return t->str ? SDB_OK : sdb_fp_oom(L->c);
  }
  if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
    const char *q = p;
    bool fl = false;
    while (isalnum((unsigned char)*q) || *q == '.' || *q == '_' ||
           ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E'))) {
      if (*q == '.' || *q == 'e' || *q == 'E') fl = true;
      q++;
    }
    char buf[64];
    size_t n = (size_t)(q - p);
    if (n >= sizeof buf) return sdb_fp_fail(L->c, L->lineno, "number too long: '%.*s'", (int)n, p);
    memcpy(buf, p, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    if (fl) {
      t->k = T_FLOAT;
      t->fval = strtod(buf, &end);
    } else {
      t->k = T_INT;
      t->ival = strtoll(buf, &end, 10);
    }
    if (*end || errno)
      return sdb_fp_fail(L->c, L->lineno, "bad number '%s' in '%s'", buf, L->line);
    t->n = n;
    L->p = q;
    return SDB_OK;
  }
  if (*p == '\'' || *p == '"') {
    char qc = *p;
    sdb_buf b = SDB_BUF_INIT;
    const char *q = p + 1;
    while (*q && *q != qc) {
      if (*q == '\\' && q[1]) {
        q++;
        char e = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
        sdb_buf_putc(&b, e);
      } else {
        sdb_buf_putc(&b, *q);
      }
      q++;
    }
    if (*q != qc) {
      sdb_buf_free(&b);
      return sdb_fp_fail(L->c, L->lineno, "unterminated string in '%s'", L->line);
    }
    t->k = T_STR;
    t->str = sdb_intern(sdb_buf_cstr(&b));
    sdb_buf_free(&b);
    if (!t->str) return sdb_fp_oom(L->c);
    t->n = (size_t)(q + 1 - p);
    L->p = q + 1;
    return SDB_OK;
  }
  t->k = T_OP;
  for (int i = 0; ops3[i]; i++)
    if (!strncmp(p, ops3[i], 3)) {
      t->n = 3;
      L->p = p + 3;
      return SDB_OK;
    }
  for (int i = 0; ops2[i]; i++)
    if (!strncmp(p, ops2[i], 2)) {
      t->n = 2;
      L->p = p + 2;
      return SDB_OK;
    }
  if (strchr("()[]{},.:;=+-*/%<>&|^~@", *p)) {
    t->n = 1;
    L->p = p + 1;
    return SDB_OK;
  }
  return sdb_fp_fail(L->c, L->lineno, "cannot read node: unexpected character '%c' in '%s'", *p,
                 L->line);
}
int sdb_fp_tok_fail(lexer *L, const char *what) {
  if (L->t.k == T_END)
    return sdb_fp_fail(L->c, L->lineno, "cannot read node: expected %s at the end of '%s'", what,
                   L->line);
  return sdb_fp_fail(L->c, L->lineno, "cannot read node: expected %s, found '%.*s' in '%s'", what,
                 (int)L->t.n, L->t.s, L->line);
}

int sdb_fp_expect_op(lexer *L, const char *op) {
  if (!is_op(L, op)) {
    char what[16];
    snprintf(what, sizeof what, "'%s'", op);
    return sdb_fp_tok_fail(L, what);
  }
  return sdb_fp_lex_next(L);
}

/* --- expression trees ---------------------------------------------------------- */

void sdb_fp_ast_free(ast *a) {
  if (!a) return;
  for (size_t i = 0; i < a->n; i++) sdb_fp_ast_free(a->kids[i]);
  free(a->kids);
  free(a->kws);
  free(a);
}

static ast *ast_new(ekind k) {
  ast *a = calloc(1, sizeof *a);
  if (a) a->k = k;
  return a;
}

static int ast_push(lexer *L, ast *a, ast *kid, const char *kw) {
  ast **nk = realloc(a->kids, (a->n + 1) * sizeof *nk);
  if (!nk) {
    sdb_fp_ast_free(kid);
    return sdb_fp_oom(L->c);
  }
  a->kids = nk;
  if (a->k == E_CALL) {
    const char **nw = realloc(a->kws, (a->n + 1) * sizeof *nw);
    if (!nw) {
      sdb_fp_ast_free(kid);
      return sdb_fp_oom(L->c);
    }
    a->kws = nw;
    a->kws[a->n] = kw;
  }
  a->kids[a->n++] = kid;
  return SDB_OK;
}

int sdb_fp_parse_expr(lexer *L, ast **out);

/* { key: value, ... }: a dict literal (flex_attention's kernel options);
** its kids alternate key, value. */
static int parse_dict(lexer *L, ast **out) {
  ast *a = ast_new(E_DICT);
  if (!a) return sdb_fp_oom(L->c);
  int rc;
  while (!is_op(L, "}")) {
    ast *k, *v;
    if ((rc = sdb_fp_parse_expr(L, &k)) || (rc = ast_push(L, a, k, NULL))) goto fail;
    if ((rc = sdb_fp_expect_op(L, ":"))) goto fail;
    if ((rc = sdb_fp_parse_expr(L, &v)) || (rc = ast_push(L, a, v, NULL))) goto fail;
    if (is_op(L, ",")) {
      if ((rc = sdb_fp_lex_next(L))) goto fail;
    } else if (!is_op(L, "}")) {
      rc = sdb_fp_tok_fail(L, "',' or '}'");
      goto fail;
    }
  }
  if ((rc = sdb_fp_lex_next(L))) goto fail;
  *out = a;
  return SDB_OK;
fail:
  sdb_fp_ast_free(a);
  return rc;
}

/* ( ... ) or [ ... ]: a tuple/list of expressions (a parenthesized single
** expression without a comma is that expression). */
static int parse_seq(lexer *L, const char *close, ekind k, ast **out) {
  ast *a = ast_new(k);
  if (!a) return sdb_fp_oom(L->c);
  bool comma = false;
  int rc;
  while (!is_op(L, close)) {
    ast *e;
    if ((rc = sdb_fp_parse_expr(L, &e)) || (rc = ast_push(L, a, e, NULL))) goto fail;
    if (is_op(L, ",")) {
      comma = true;
      if ((rc = sdb_fp_lex_next(L))) goto fail;
    } else if (!is_op(L, close)) {
      char what[16];
      snprintf(what, sizeof what, "',' or '%s'", close);
      rc = sdb_fp_tok_fail(L, what);
      goto fail;
    }
  }
  if ((rc = sdb_fp_lex_next(L))) goto fail;
  if (k == E_TUPLE && a->n == 1 && !comma) {
    *out = a->kids[0];
    a->n = 0;
    sdb_fp_ast_free(a);
    return SDB_OK;
  }
  *out = a;
  return SDB_OK;
fail:
  sdb_fp_ast_free(a);
  return rc;
}

static int parse_call_args(lexer *L, ast *call) {
  int rc;
  while (!is_op(L, ")")) {
    const char *kw = NULL;
    if (L->t.k == T_NAME) {
      /* name = value (FX writes `inplace = False`): look ahead for '='. */
      lexer save = *L;
      const char *nm = L->t.str;
      if ((rc = sdb_fp_lex_next(L))) return rc;
      if (is_op(L, "=")) {
        kw = nm;
        if ((rc = sdb_fp_lex_next(L))) return rc;
      } else {
        *L = save;
      }
    }
    ast *e;
    if ((rc = sdb_fp_parse_expr(L, &e)) || (rc = ast_push(L, call, e, kw))) return rc;
    if (is_op(L, ",")) {
      if ((rc = sdb_fp_lex_next(L))) return rc;
    } else if (!is_op(L, ")")) {
      return sdb_fp_tok_fail(L, "',' or ')'");
    }
  }
  return sdb_fp_lex_next(L);
}

static int parse_atom(lexer *L, ast **out) {
  int rc;
  ast *a = NULL;
  if (++L->depth > FX_MAX_DEPTH) return sdb_fp_fail(L->c, L->lineno, "expression nested too deeply");
  switch (L->t.k) {
    case T_NAME:
      if (is_name(L, "None")) a = ast_new(E_NONE);
      else if (is_name(L, "True") || is_name(L, "False")) {
        a = ast_new(E_BOOL);
        if (a) a->ival = is_name(L, "True");
      } else {
        a = ast_new(E_NAME);
        if (a) a->s = L->t.str;
      }
      if (!a) return sdb_fp_oom(L->c);
      if ((rc = sdb_fp_lex_next(L))) goto fail;
      break;
    case T_INT:
    case T_FLOAT:
      a = ast_new(L->t.k == T_INT ? E_INT : E_FLOAT);
      if (!a) return sdb_fp_oom(L->c);
      a->ival = L->t.ival;
      a->fval = L->t.fval;
      if ((rc = sdb_fp_lex_next(L))) goto fail;
      break;
    case T_STR:
      a = ast_new(E_STR);
      if (!a) return sdb_fp_oom(L->c);
      a->s = L->t.str;
      if ((rc = sdb_fp_lex_next(L))) goto fail;
      /* Adjacent literals concatenate, as in Python. */
      while (L->t.k == T_STR) {
        sdb_buf b = SDB_BUF_INIT;
        sdb_buf_puts(&b, a->s);
        sdb_buf_puts(&b, L->t.str);
        a->s = sdb_intern(sdb_buf_cstr(&b));
        sdb_buf_free(&b);
        if ((rc = sdb_fp_lex_next(L))) goto fail;
      }
      break;
    case T_OP:
      if (is_op(L, "(") || is_op(L, "[")) {
        bool paren = is_op(L, "(");
        if ((rc = sdb_fp_lex_next(L))) return rc;
        if ((rc = parse_seq(L, paren ? ")" : "]", paren ? E_TUPLE : E_LIST, &a))) return rc;
        break;
      }
      if (is_op(L, "{")) {
        if ((rc = sdb_fp_lex_next(L)) || (rc = parse_dict(L, &a))) return rc;
        break;
      }
      if (is_op(L, "...")) {
        a = ast_new(E_ELLIPSIS);
        if (!a) return sdb_fp_oom(L->c);
        if ((rc = sdb_fp_lex_next(L))) goto fail;
        break;
      }
      if (is_op(L, "-") || is_op(L, "+") || is_op(L, "~")) {
        const char *op = is_op(L, "-") ? "-" : is_op(L, "+") ? "+" : "~";
        if ((rc = sdb_fp_lex_next(L))) return rc;
        ast *x;
        if ((rc = parse_atom(L, &x))) return rc;
        if (*op == '-' && (x->k == E_INT || x->k == E_FLOAT)) {
          x->ival = -x->ival;
          x->fval = -x->fval;
          *out = x;
          L->depth--;
          return SDB_OK;
        }
        a = ast_new(E_UN);
        if (!a) {
          sdb_fp_ast_free(x);
          return sdb_fp_oom(L->c);
        }
        a->s = op;
        if ((rc = ast_push(L, a, x, NULL))) goto fail;
        *out = a;
        L->depth--;
        return SDB_OK;
      }
      return sdb_fp_tok_fail(L, "a value");
    case T_END:
      return sdb_fp_tok_fail(L, "a value");
  }
  /* Postfix: .attr, (call), [index]. */
  for (;;) {
    if (is_op(L, ".")) {
      if ((rc = sdb_fp_lex_next(L))) goto fail;
      if (L->t.k != T_NAME) {
        rc = sdb_fp_tok_fail(L, "an attribute name");
        goto fail;
      }
      ast *x = ast_new(E_ATTR);
      if (!x) {
        rc = sdb_fp_oom(L->c);
        goto fail;
      }
      x->s = L->t.str;
      if ((rc = ast_push(L, x, a, NULL))) {
        a = NULL;
        sdb_fp_ast_free(x);
        goto fail;
      }
      a = x;
      if ((rc = sdb_fp_lex_next(L))) goto fail;
    } else if (is_op(L, "(")) {
      ast *x = ast_new(E_CALL);
      if (!x) {
        rc = sdb_fp_oom(L->c);
        goto fail;
      }
      if ((rc = ast_push(L, x, a, NULL))) {
        a = NULL;
        sdb_fp_ast_free(x);
        goto fail;
      }
      a = x;
      if ((rc = sdb_fp_lex_next(L)) || (rc = parse_call_args(L, a))) goto fail;
    } else if (is_op(L, "[")) {
      ast *x = ast_new(E_INDEX), *idx;
      if (!x) {
        rc = sdb_fp_oom(L->c);
        goto fail;
      }
      if ((rc = ast_push(L, x, a, NULL))) {
        a = NULL;
        sdb_fp_ast_free(x);
        goto fail;
      }
      a = x;
      if ((rc = sdb_fp_lex_next(L))) goto fail;
      /* a[i, j] indexes with the tuple (i, j). */
      if ((rc = parse_seq(L, "]", E_TUPLE, &idx))) goto fail;
      if ((rc = ast_push(L, a, idx, NULL))) goto fail;
    } else {
      break;
    }
  }
  L->depth--;
  *out = a;
  return SDB_OK;
fail:
  sdb_fp_ast_free(a);
  return rc;
}

/* Binary operators by precedence, lowest first (Python's table). */
static const char *const bin_levels[][7] = {
  {"or", NULL},
  {"and", NULL},
  {"==", "!=", "<", "<=", ">", ">=", NULL},
  {"|", NULL},
  {"^", NULL},
  {"&", NULL},
  {"<<", ">>", NULL},
  {"+", "-", NULL},
  {"*", "/", "//", "%", "@", NULL},
  {"**", NULL},
};
#define NLEVELS ((int)(sizeof bin_levels / sizeof bin_levels[0]))

static const char *match_bin(lexer *L, int level) {
  for (int i = 0; bin_levels[level][i]; i++) {
    const char *op = bin_levels[level][i];
    if (isalpha((unsigned char)op[0]) ? is_name(L, op) : is_op(L, op)) return op;
  }
  return NULL;
}

static int parse_level(lexer *L, int level, ast **out) {
  if (level == NLEVELS) return parse_atom(L, out);
  int rc;
  ast *a;
  if (level == 2 && is_name(L, "not")) {
    if ((rc = sdb_fp_lex_next(L)) || (rc = parse_level(L, level, &a))) return rc;
    ast *u = ast_new(E_UN);
    if (!u) {
      sdb_fp_ast_free(a);
      return sdb_fp_oom(L->c);
    }
    u->s = "not";
    if ((rc = ast_push(L, u, a, NULL))) {
      sdb_fp_ast_free(u);
      return rc;
    }
    *out = u;
    return SDB_OK;
  }
  if ((rc = parse_level(L, level + 1, &a))) return rc;
  const char *op;
  while ((op = match_bin(L, level))) {
    ast *b;
    if ((rc = sdb_fp_lex_next(L)) || (rc = parse_level(L, level + 1, &b))) {
      sdb_fp_ast_free(a);
      return rc;
    }
    ast *x = ast_new(E_BIN);
    if (!x) {
      sdb_fp_ast_free(a);
      sdb_fp_ast_free(b);
      return sdb_fp_oom(L->c);
    }
    x->s = op;
    if ((rc = ast_push(L, x, a, NULL))) {
      sdb_fp_ast_free(x);
      sdb_fp_ast_free(b);
      return rc;
    }
    if ((rc = ast_push(L, x, b, NULL))) {
      sdb_fp_ast_free(x);
      return rc;
    }
    a = x;
  }
  *out = a;
  return SDB_OK;
}

int sdb_fp_parse_expr(lexer *L, ast **out) { return parse_level(L, 0, out); }
