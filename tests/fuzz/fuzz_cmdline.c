/*
** fuzz_cmdline.c — libFuzzer target: splitting a command line into words
** (repl_words_split, with '...' and "..." grouping) and measuring the
** command word. Every word must be a piece of the line (no byte invented,
** none read past the end), the words must be fewer than the bytes, and the
** work linear: the target itself is the check for the first two, the
** fuzzer's timeout for the third.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cmd.c reports through repl_error; nothing here prints. */
void repl_error(repl_session *s, const char *fmt, ...);
void repl_error(repl_session *s, const char *fmt, ...) {
  (void)s;
  (void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  char *line = malloc(size + 1);
  if (!line) return 0;
  memcpy(line, data, size);
  line[size] = '\0';
  size_t len = strlen(line);   /* a NUL ends the line, as at the prompt */
  int n = -1;
  char **w = repl_words_split(line, &n);
  if (!w || n < 0 || (size_t)n > len) abort();
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    if (!w[i]) abort();
    size_t wl = strlen(w[i]);
    total += wl;
    /* a word holds no blank unless quoted, and only bytes of the line */
    for (size_t j = 0; j < wl; j++)
      if (!memchr(line, w[i][j], len)) abort();
  }
  if (w[n] != NULL || total > len) abort();
  repl_words_free(w);
  size_t wl = repl_cmd_word_len(line);
  if (wl > len) abort();
  free(line);
  return 0;
}
