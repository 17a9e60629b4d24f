/*
** intern.c — a global open-addressing table of strings (see intern.h).
*/
#include "intern.h"
#include "buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char **slots;
static size_t cap, len;

static uint32_t hash_str(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static int grow(void) {
  size_t ncap = cap ? cap * 2 : 256;
  char **t = calloc(ncap, sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < cap; i++) {
    if (!slots[i]) continue;
    size_t j = hash_str(slots[i], strlen(slots[i])) & (ncap - 1);
    while (t[j]) j = (j + 1) & (ncap - 1);
    t[j] = slots[i];
  }
  free(slots);
  slots = t;
  cap = ncap;
  return 0;
}

/* Most strings handed in were interned already (node names, tracer
** paths, files): a direct-mapped set of interned pointers answers those
** without hashing the text. Only a pointer that intern returned goes in,
** so a hit is an interned string (they live until sdb_intern_reset). */
#define KNOWN_SIZE 1024
static const char *known[KNOWN_SIZE];

static size_t known_slot(const char *p) {
  return (size_t)(((uintptr_t)p >> 4) * 2654435761u) & (KNOWN_SIZE - 1);
}

const char *sdb_intern_n(const char *s, size_t n) {
  if (!s) return NULL;
  /* Interned strings are C strings: a NUL inside the n bytes ends it
  ** (comparing past it read beyond a shorter slot; found by fuzzing). */
  n = strnlen(s, n);
  if (len * 2 >= cap && grow() != 0) return NULL;
  size_t j = hash_str(s, n) & (cap - 1);
  for (; slots[j]; j = (j + 1) & (cap - 1))
    if (strncmp(slots[j], s, n) == 0 && slots[j][n] == '\0') {
      if (slots[j] == s) known[known_slot(s)] = s;
      return slots[j];
    }
  char *c = malloc(n + 1);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = '\0';
  slots[j] = c;
  len++;
  return c;
}

const char *sdb_intern(const char *s) {
  if (!s) return NULL;
  if (known[known_slot(s)] == s) return s;   /* an interned string, whole */
  return sdb_intern_n(s, strlen(s));
}

const char *sdb_internf(const char *fmt, ...) {
  sdb_buf b = SDB_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sdb_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  const char *r = sdb_intern(sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return r;
}

void sdb_intern_reset(void) {
  memset(known, 0, sizeof known);
  for (size_t i = 0; i < cap; i++) free(slots[i]);
  free(slots);
  slots = NULL;
  cap = len = 0;
}
