/*
** arena.c — memory freed all at once (see arena.h).
*/
#include "arena.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

/* A chunk with its header and malloc's is 16 pages, not a byte more:
** shapedb has glibc map blocks this size on their own (repl/main.c), and
** 64 KiB of room took a 17th page. */
#define ARENA_CHUNK ((size_t)64 * 1024 - 64)

struct sdb_arena_chunk {
  sdb_arena_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void *sdb_arena_alloc(sdb_arena *a, size_t n, size_t align) {
  sdb_arena_chunk *h = a->head;
  if (h) {
    size_t at = (h->used + align - 1) & ~(align - 1);
    if (at <= h->cap && h->cap - at >= n) {
      h->used = at + n;
      return h->data + at;
    }
  }
  int own = n > ARENA_CHUNK / 4;
  sdb_arena_chunk *c;
  if (!own && a->spare) {
    c = a->spare;
    a->spare = c->next;
  } else if (!(c = sdb_noted(malloc(sizeof *c + (own ? n : ARENA_CHUNK))))) {
    return NULL;
  }
  c->cap = own ? n : ARENA_CHUNK;
  c->used = n;
  if (own && h) {      /* behind the current chunk, which keeps its room */
    c->next = h->next;
    h->next = c;
  } else {
    c->next = h;
    a->head = c;
  }
  return c->data;
}

char *sdb_arena_strdup(sdb_arena *a, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = sdb_arena_alloc(a, n, 1);
  if (p) memcpy(p, s, n);
  return p;
}

void sdb_arena_free(sdb_arena *a) {
  sdb_arena_reset(a);
  while (a->spare) {
    sdb_arena_chunk *next = a->spare->next;
    free(a->spare);
    a->spare = next;
  }
}

void sdb_arena_reset(sdb_arena *a) {
  while (a->head) {
    sdb_arena_chunk *c = a->head;
    a->head = c->next;
    if (c->cap == ARENA_CHUNK) {
      c->next = a->spare;
      a->spare = c;
    } else {
      free(c);
    }
  }
}
