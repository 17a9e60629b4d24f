/*
** textstore.c — text named by 32-bit references (see textstore.h).
*/
#include "textstore.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* With malloc's header, 16 pages (see arena.c). */
#define CHUNK ((size_t)64 * 1024 - 64)
_Static_assert(CHUNK <= 0xffff, "an offset in a chunk is the reference's low 16 bits");
#define MAX_IDS 0xffff

char **sdb_tstore_chunks_;           /* [0] unused: index 0 is the NULL reference */
typedef struct packed { unsigned char *z; uint32_t zlen, len; } packed;
static packed *packs;                /* a compressed chunk's bytes, by index */
static size_t nids = 1, capids;      /* indexes given out so far, and room */
static uint32_t *freeids;            /* indexes given back, reused first */
static size_t nfree, capfree;
/* The last chunk compressed, for the next chunk: a chunk is above glibc's
** mmap threshold, so each malloc'ed anew was 16 fresh pages to fault in
** and zero, which on this VM cost more the more the process had touched. */
static char *spare;

/* A chunk's worth of memory: the spare if there is one. */
static char *take_chunk(void) {
  char *c = spare ? spare : malloc(CHUNK);
  spare = NULL;
  return c;
}

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
    packed *q = realloc(packs, c * sizeof *q);
    if (!q) return false;   /* chunks_ is larger than capids says: harmless */
    packs = q;
    capids = c;
  }
  char *c = n == CHUNK ? take_chunk() : malloc(n);
  if (!c) return false;
  *id = nfree ? freeids[--nfree] : (uint32_t)nids++;
  sdb_tstore_chunks_[*id] = c;
  packs[*id] = (packed){NULL, 0, 0};
  t->ids[t->n++] = *id;
  return true;
}

/* Compresses a full chunk, its first len bytes, as raw deflate at the
** fastest level. One stream serves every chunk (compress2 set up and
** tore down 256 KiB of state each time, a third of the cost). Kept plain
** if that finds no memory or saves less than a quarter: it still reads. */
static void seal(uint32_t id, size_t len) {
  static z_stream zs;
  static bool ready;   /* set up (out of memory, the next chunk tries again) */
  static unsigned char scratch[CHUNK + CHUNK / 16 + 64];   /* > deflateBound(CHUNK) */
  if (!ready) ready = deflateInit2(&zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  if (!ready || deflateReset(&zs) != Z_OK) return;
  zs.next_in = (Bytef *)sdb_tstore_chunks_[id];
  zs.avail_in = (uInt)len;
  zs.next_out = scratch;
  zs.avail_out = sizeof scratch;
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out > len - len / 4) return;
  size_t zlen = zs.total_out;
  unsigned char *z = malloc(zlen);
  if (!z) return;
  memcpy(z, scratch, zlen);
  if (spare) free(sdb_tstore_chunks_[id]);
  else spare = sdb_tstore_chunks_[id];
  sdb_tstore_chunks_[id] = NULL;
  packs[id] = (packed){z, (uint32_t)zlen, (uint32_t)len};
}

/* The chunk at index made plain into c (CHUNK bytes); false on OOM. */
static bool inflate_into(uint32_t index, char *c) {
  const packed *p = &packs[index];
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -15) != Z_OK) return false;
  zs.next_in = p->z;
  zs.avail_in = p->zlen;
  zs.next_out = (Bytef *)c;
  zs.avail_out = p->len;
  int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  return rc == Z_STREAM_END && zs.total_out == p->len;
}

static unsigned long losses;   /* strings read as "?" (textstore.h) */
unsigned long sdb_tstore_losses(void) { return losses; }

const char *sdb_tstore_thaw_(uint32_t index) {
  char *c = take_chunk();
  if (!c || !inflate_into(index, c)) {
    free(c);
    losses++;
    return NULL;
  }
  free(packs[index].z);
  packs[index] = (packed){NULL, 0, 0};
  return sdb_tstore_chunks_[index] = c;
}

/* sdb_tref_peek's buffer and the chunk it holds (0: none) */
static char *peeked;
static uint32_t peeked_index;

const char *sdb_tstore_peek_(uint32_t index) {
  if (peeked_index == index) return peeked;
  peeked_index = 0;
  if ((!peeked && !(peeked = malloc(CHUNK))) || !inflate_into(index, peeked)) {
    losses++;
    return NULL;
  }
  peeked_index = index;
  return peeked;
}

/* Room for n bytes at a multiple of align (a power of two, at most 16) in
** t, *out naming it; src (NULL for none) copied there before a full chunk
** is left behind (src may be in it), and that chunk compressed if t holds
** strings. NULL on OOM. */
static char *room(sdb_tstore *t, size_t n, size_t align, const void *src, sdb_tref *out) {
  uint32_t id;
  char *p;
  size_t at = (t->used + align - 1) & ~(align - 1);
  if (n > CHUNK / 4) {   /* a chunk of its own; the one being filled keeps its room */
    if (!new_chunk(t, n, &id)) return NULL;
    p = sdb_tstore_chunks_[id];
    *out = id << 16;
  } else if (t->cur && at <= CHUNK && CHUNK - at >= n) {
    p = sdb_tstore_chunks_[t->cur] + at;
    *out = t->cur << 16 | (uint32_t)at;
    t->used = at + n;
  } else {
    if (!new_chunk(t, CHUNK, &id)) return NULL;
    p = sdb_tstore_chunks_[id];
    if (src) memcpy(p, src, n);
    if (t->cur && !t->blocks) seal(t->cur, t->used);
    t->cur = id;
    t->used = n;
    *out = id << 16;
    return p;
  }
  if (src) memcpy(p, src, n);
  return p;
}

bool sdb_tstore_put(sdb_tstore *t, const char *s, sdb_tref *out) {
  *out = 0;
  return !s || room(t, strlen(s) + 1, 1, s, out);
}

void *sdb_tstore_alloc(sdb_tstore *t, size_t n, sdb_tref *out) {
  t->blocks = true;
  return room(t, n ? n : 1, 8, NULL, out);
}

void sdb_tstore_free(sdb_tstore *t) {
  for (size_t i = 0; i < t->n; i++) {   /* room for each was made in new_chunk */
    free(sdb_tstore_chunks_[t->ids[i]]);
    sdb_tstore_chunks_[t->ids[i]] = NULL;
    free(packs[t->ids[i]].z);
    packs[t->ids[i]] = (packed){NULL, 0, 0};
    if (peeked_index == t->ids[i]) peeked_index = 0;   /* the index goes to another store */
    freeids[nfree++] = t->ids[i];
  }
  free(t->ids);
  *t = (sdb_tstore)SDB_TSTORE_INIT;
}
