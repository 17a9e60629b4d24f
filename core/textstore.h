/*
** textstore.h — text an owner frees all at once, each string named by a
** 32-bit reference (sdb_tref): what records a long run holds millions of
** keep instead of a pointer (a placed node's line in an event). A store
** may hold small blocks instead of strings (an event's rarer fields).
**
** As with the interner's references (intern.h), a reference is a chunk's
** index in the high half and the offset in the chunk in the low, so
** reading one needs no owner. Unlike them, the chunks belong to stores,
** and a store gives its chunks' indexes back when it is freed. A string
** longer than a quarter chunk is a chunk of its own. Room for 65,535
** chunks at once (4 GiB of text); past that, a put fails as out of memory.
**
** A chunk that is full is compressed (zlib, fastest level: graph lines
** shrink five times), and made plain again the first time one of its
** strings is read, for good: a batch run never reads its lines back, a
** debugging session reads the few it shows. Reading can so run out of
** memory (sdb_tref_via says how). A pointer to a string stays
** valid until its store is freed, except one into the chunk being filled,
** which lasts until the store's next put.
*/
#ifndef SDB_TEXTSTORE_H
#define SDB_TEXTSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t sdb_tref;   /* 0 is NULL */

typedef struct sdb_tstore {
  uint32_t *ids;             /* the chunks this store owns */
  size_t n, cap;
  uint32_t cur;              /* the chunk being filled (0: none) */
  size_t used;               /* of cur */
  bool blocks;               /* it holds blocks (sdb_tstore_alloc): never compressed */
} sdb_tstore;
#define SDB_TSTORE_INIT {NULL, 0, 0, 0, 0, false}

/* Copies s into t; *out names the copy (0 for a NULL s). false on OOM. */
bool sdb_tstore_put(sdb_tstore *t, const char *s, sdb_tref *out);
/* n bytes aligned to 8, *out naming them, in a store that holds such
** blocks and no strings (its chunks are never compressed, so a block is
** read in place: sdb_tref_ptr). NULL on OOM. */
void *sdb_tstore_alloc(sdb_tstore *t, size_t n, sdb_tref *out);
/* Frees every string and block of t; t is empty and usable again. */
void sdb_tstore_free(sdb_tstore *t);

extern char **sdb_tstore_chunks_;   /* by index, NULL while compressed */

/* The block r names (sdb_tstore_alloc). */
static inline void *sdb_tref_ptr(sdb_tref r) {
  return r ? sdb_tstore_chunks_[r >> 16] + (r & 0xffff) : NULL;
}

/* The string r names, its chunk made plain by slow if it is compressed:
** for good (sdb_tref_str) or in a buffer of its own (sdb_tref_peek). If
** there is no memory for it, the string reads "?" and the count of
** strings so lost goes up (sdb_tstore_losses): what prints or saves such
** strings compares the count before and after, and says it ran out of
** memory. */
static inline const char *sdb_tref_via(sdb_tref r, const char *(*slow)(uint32_t)) {
  if (!r) return NULL;
  const char *c = sdb_tstore_chunks_[r >> 16];
  if (!c && !(c = slow(r >> 16))) return "?";
  return c + (r & 0xffff);
}
unsigned long sdb_tstore_losses(void);

const char *sdb_tstore_thaw_(uint32_t index);
static inline const char *sdb_tref_str(sdb_tref r) { return sdb_tref_via(r, sdb_tstore_thaw_); }

/* The same for a reader that goes through the strings once (writing a
** saved trace): a compressed chunk is made plain in a buffer of its own,
** not for good, so the string lasts only until the next peek. */
const char *sdb_tstore_peek_(uint32_t index);
static inline const char *sdb_tref_peek(sdb_tref r) { return sdb_tref_via(r, sdb_tstore_peek_); }

#endif
