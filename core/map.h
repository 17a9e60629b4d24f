/*
** map.h — a pointer-keyed map that remembers insertion order (like a
** Python dict), so everything listed from it (replacements, symbols,
** bindings) comes out in a deterministic, meaningful order. Keys are
** compared by address. No deletion: overwrite keeps the first position.
*/
#ifndef SDB_MAP_H
#define SDB_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A hash slot: the key's position + 1 (0: empty) and the high half of its
** hash, so a probe past another key's slot does not read that key (on a
** large map each read was a cache miss: a tenth of a long trace's time). */
typedef struct sdb_map_slot { uint32_t pos1, tag; } sdb_map_slot;

typedef struct sdb_map {
  const void **keys;   /* insertion order */
  void **vals;
  size_t len, cap;
  sdb_map_slot *index; /* at most three quarters full */
  size_t icap;
} sdb_map;

#define SDB_MAP_INIT {NULL, NULL, 0, 0, NULL, 0}

bool sdb_map_put(sdb_map *m, const void *key, void *val);  /* false on OOM */
void *sdb_map_get(const sdb_map *m, const void *key);      /* NULL if absent */
bool sdb_map_has(const sdb_map *m, const void *key);
long sdb_map_pos(const sdb_map *m, const void *key);       /* -1 if absent */
void sdb_map_clear(sdb_map *m);                            /* keep memory */
void sdb_map_free(sdb_map *m);

#endif
