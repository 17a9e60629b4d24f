/*
** idmap.h — a map from objects numbered in the order they are made (graph
** nodes, fake tensors: each has a process-wide id that only grows) to
** pointers.
**
** A long program's maps from nodes or tensors hold millions of entries, and
** a put or get in a hash map that size is a cache miss each. The objects a
** pass meets were mostly made one after another, so their ids run nearly
** dense from some base: those get a slot in an array by id (a new one at
** its end, where the last put was), and only the rest (older objects, or
** ids too sparse to be worth a slot) go to an sdb_map by pointer.
**
** Ownership: the map owns its arrays, not the keys or values.
*/
#ifndef SDB_IDMAP_H
#define SDB_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

typedef struct sdb_idmap_slot {
  const void *key;          /* NULL: empty */
  void *val;
} sdb_idmap_slot;

typedef struct sdb_idmap {
  sdb_idmap_slot *v;        /* v[id - base] */
  uint32_t base;
  size_t cap, n;            /* slots, and those in use */
  size_t span;              /* ids below base + span get a slot however sparse */
  sdb_map other;            /* key -> val for the ids without a slot */
} sdb_idmap;

/* Empty, its slots starting at id `base` (the first id the pass will
** meet: the next id to be handed out, or the first node's). */
void sdb_idmap_init(sdb_idmap *m, uint32_t base);
/* The same, when the ids to come are known to lie mostly below base +
** span (a graph's nodes: made out of order, an early put may have a late
** id): those get slots from the first put on. */
void sdb_idmap_init_span(sdb_idmap *m, uint32_t base, size_t span);
void sdb_idmap_free(sdb_idmap *m);

/* key's value (key's id is id), or NULL. */
static inline void *sdb_idmap_get(const sdb_idmap *m, uint32_t id, const void *key) {
  size_t i = (size_t)(id - m->base);
  if (id >= m->base && i < m->cap && m->v[i].key == key) return m->v[i].val;
  /* a key put before its id had a slot stays in `other` */
  return m->other.len ? sdb_map_get(&m->other, key) : NULL;
}

/* Sets key's value (replacing it); false on OOM. */
bool sdb_idmap_put(sdb_idmap *m, uint32_t id, const void *key, void *val);

/* Entries, slots first (by id), then the others (in insertion order):
** for (size_t i = 0; sdb_idmap_next(m, &i, &k, &v);) ... */
bool sdb_idmap_next(const sdb_idmap *m, size_t *i, const void **key, void **val);

#endif
