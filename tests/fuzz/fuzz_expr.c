/*
** fuzz_expr.c — libFuzzer target: the expression parser, and its round
** trip. Any text either fails with a message or parses; what parses
** prints, and the printed text parses back to the same (interned, so
** pointer-equal) expression. The Python printer and the bound of the
** expression must not crash either.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "ranges.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *a, const char *b) {
  fprintf(stderr, "fuzz_expr: %s\n  input:   %s\n  printed: %s\n", what, a, b ? b : "(null)");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned calls;
  if (size > 16384) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[256];
  const sdb_expr *e = sdb_parse(text, err, sizeof err);
  if (!e) {
    if (!err[0]) die("a parse failure without a message", text, NULL);
  } else {
    char *s = sdb_expr_str(e);
    if (!s) die("a parsed expression does not print", text, NULL);
    const sdb_expr *back = sdb_parse(s, err, sizeof err);
    if (!back) {
      fprintf(stderr, "  error:   %s\n", err);
      die("what shapedb prints does not parse", text, s);
    }
    if (back != e) {
      char *t = sdb_expr_str(back);
      fprintf(stderr, "  reprinted: %s\n", t ? t : "?");
      die("the printed text parses to a different expression", text, s);
    }
    char *py = sdb_expr_str_py(e, NULL, NULL);
    sdb_range r = sdb_bound(e, NULL, NULL);
    (void)r;
    free(py);
    free(s);
  }
  free(text);
  /* the intern table only grows; start afresh now and then */
  if (++calls % 4096 == 0) sdb_expr_reset();
  return 0;
}
