/*
** textstore.c — text named by 32-bit references (see textstore.h).
*/
#include "textstore.h"

#include <stdlib.h>
#include <string.h>

/* With malloc's header, 16 pages (see arena.c). */
#define CHUNK ((size_t)64 * 1024 - 64)
_Static_assert(CHUNK <= 0xffff, "an offset in a chunk is the reference's low 16 bits");
#define MAX_IDS 0xffff

char **sdb_tstore_chunks_;           /* [0] unused: index 0 is the NULL reference */
static size_t nids = 1, capids;      /* indexes given out so far, and room */
static uint32_t *freeids;            /* indexes given back, reused first */
static size_t nfree, capfree;

static bool grow32(uint32_t **v, size_t *cap, size_t need) {
  if (need <= *cap) return true;
  size_t c = *cap ? 2 * *cap : 64;
  while (c < need) c *= 2;
  uint32_t *w = realloc(*v, c * sizeof *w);
  if (!w) return false;
  *v = w;
  *cap = c;
  return true;
}

/* A chunk of n bytes for t, its index in *id; false on OOM. */
static bool new_chunk(sdb_tstore *t, size_t n, uint32_t *id) {
  if (!grow32(&t->ids, &t->cap, t->n + 1)) return false;
  /* the free list must be able to take this index back without failing */
  if (!grow32(&freeids, &capfree, nids)) return false;
  if (!nfree && nids >= capids) {
    if (nids > MAX_IDS) return false;
    size_t c = capids ? 2 * capids : 64;
    char **w = realloc(sdb_tstore_chunks_, c * sizeof *w);
    if (!w) return false;
    sdb_tstore_chunks_ = w;
    capids = c;
  }
  char *c = malloc(n);
  if (!c) return false;
  *id = nfree ? freeids[--nfree] : (uint32_t)nids++;
  sdb_tstore_chunks_[*id] = c;
  t->ids[t->n++] = *id;
  return true;
}

bool sdb_tstore_put(sdb_tstore *t, const char *s, sdb_tref *out) {
  *out = 0;
  if (!s) return true;
  size_t n = strlen(s) + 1;
  uint32_t id;
  if (n > CHUNK / 4) {   /* a chunk of its own; the one being filled keeps its room */
    if (!new_chunk(t, n, &id)) return false;
    memcpy(sdb_tstore_chunks_[id], s, n);
    *out = id << 16;
    return true;
  }
  if (!t->cur || CHUNK - t->used < n) {
    if (!new_chunk(t, CHUNK, &id)) return false;
    t->cur = id;
    t->used = 0;
  }
  memcpy(sdb_tstore_chunks_[t->cur] + t->used, s, n);
  *out = t->cur << 16 | (uint32_t)t->used;
  t->used += n;
  return true;
}

void sdb_tstore_free(sdb_tstore *t) {
  for (size_t i = 0; i < t->n; i++) {   /* room for each was made in new_chunk */
    free(sdb_tstore_chunks_[t->ids[i]]);
    sdb_tstore_chunks_[t->ids[i]] = NULL;
    freeids[nfree++] = t->ids[i];
  }
  free(t->ids);
  *t = (sdb_tstore)SDB_TSTORE_INIT;
}
