/*
** fx_parse_impl.h — the tokens and expression trees the print_readable
** reader shares between its files (fx_parse.c, fx_expr.c); nothing else
** includes this.
*/
#ifndef SDB_FX_PARSE_IMPL_H
#define SDB_FX_PARSE_IMPL_H

#include "fx_parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FX_MAX_DEPTH 64

/* fx_parse.c's: the reader's lines and where it is */
typedef struct fx_ctx fx_ctx;

typedef enum { T_END, T_NAME, T_INT, T_FLOAT, T_STR, T_OP } tkind;

typedef struct tok {
  tkind k;
  const char *s;       /* start in the line */
  size_t n;
  const char *str;     /* T_STR: decoded, interned; T_NAME: interned */
  int64_t ival;
  double fval;
} tok;

typedef struct lexer {
  fx_ctx *c;
  int lineno;
  const char *line;    /* whole statement, for messages */
  const char *p;
  tok t;               /* the current token */
  int depth;
} lexer;

typedef enum {
  E_NAME, E_ATTR, E_CALL, E_INDEX, E_BIN, E_UN, E_INT, E_FLOAT, E_STR,
  E_NONE, E_BOOL, E_TUPLE, E_LIST, E_ELLIPSIS, E_DICT
} ekind;

typedef struct ast {
  ekind k;
  const char *s;         /* name, attribute, string, operator */
  int64_t ival;
  double fval;
  struct ast **kids;     /* call: fn then args; attr/index/bin/un: operands */
  const char **kws;      /* call: keyword per argument kid (NULL positional) */
  size_t n;
} ast;

static inline bool is_op(const lexer *L, const char *op) {
  return L->t.k == T_OP && L->t.n == strlen(op) && !strncmp(L->t.s, op, L->t.n);
}

static inline bool is_name(const lexer *L, const char *name) {
  return L->t.k == T_NAME && !strcmp(L->t.str, name);
}

/* fx_parse.c's, for fx_expr.c: an FxParseError naming the payload line;
** out of memory */
int sdb_fp_fail(fx_ctx *c, int lineno, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
int sdb_fp_oom(fx_ctx *c);

/* fx_expr.c's, for fx_parse.c: the next token into L->t; an error that
** expected `what` where L->t is; the next token must be the operator op;
** one expression (a Python precedence level at a time) */
int sdb_fp_lex_next(lexer *L);
int sdb_fp_tok_fail(lexer *L, const char *what);
int sdb_fp_expect_op(lexer *L, const char *op);
void sdb_fp_ast_free(ast *a);
int sdb_fp_parse_expr(lexer *L, ast **out);

#endif
