/*
** ptrtab.h — a table from pointers to pointers, with removal: for what a
** few of many objects have (a tensor's memos, a node's bindings), kept
** apart rather than in a field every object pays for. Unordered (core/map
** keeps insertion order and never removes). Keys compared by address.
*/
#ifndef SDB_PTRTAB_H
#define SDB_PTRTAB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sdb_ptrtab_slot { const void *key; void *val; } sdb_ptrtab_slot;
typedef struct sdb_ptrtab {
  sdb_ptrtab_slot *slots;   /* open addressing, at most half full; NULL before the first put */
  size_t cap, len;
} sdb_ptrtab;

#define SDB_PTRTAB_INIT {NULL, 0, 0}

void *sdb_ptrtab_get(const sdb_ptrtab *t, const void *key);   /* NULL if absent */
/* Sets key's value (val not NULL); false on OOM, the table unchanged. */
bool sdb_ptrtab_put(sdb_ptrtab *t, const void *key, void *val);
/* Removes key and returns its value (NULL if absent). The last removal
** frees the memory of a table grown past 1,024 slots. */
void *sdb_ptrtab_remove(sdb_ptrtab *t, const void *key);

#endif
