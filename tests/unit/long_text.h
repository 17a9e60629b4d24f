/*
** long_text.h — for the tests of the stores that give a long string a
** chunk of its own (test_intern, test_textstore): string i, of at least
** `base` bytes and fewer than base + spread, its letters set by i.
*/
#ifndef SDB_TEST_LONG_TEXT_H
#define SDB_TEST_LONG_TEXT_H

#include <stdlib.h>

static inline char *long_text_of(size_t i, size_t base, size_t spread) {
  size_t n = base + i % spread;
  char *s = malloc(n + 1);
  assert_non_null(s);
  for (size_t k = 0; k < n; k++) s[k] = (char)('a' + (k * 7 + i) % 26);
  s[n] = '\0';
  return s;
}

#endif
