/*
** ptrtab.c — pointer tables with removal (see ptrtab.h). Linear probing;
** a removal shifts back the entries of the run after it that may move,
** so no slot is ever a tombstone and a lookup stops at the first empty.
*/
#include "ptrtab.h"

#include <stdint.h>
#include <stdlib.h>

static size_t home(const sdb_ptrtab *t, const void *key) {
  return (size_t)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15u) >> 20) & (t->cap - 1);
}

static size_t find(const sdb_ptrtab *t, const void *key) {   /* its slot, or an empty one */
  size_t j = home(t, key);
  while (t->slots[j].key && t->slots[j].key != key) j = (j + 1) & (t->cap - 1);
  return j;
}

void *sdb_ptrtab_get(const sdb_ptrtab *t, const void *key) {
  return t->len ? t->slots[find(t, key)].val : NULL;
}

static bool grow(sdb_ptrtab *t) {
  sdb_ptrtab old = *t;
  size_t cap = old.cap ? old.cap * 2 : 64;
  sdb_ptrtab_slot *s = calloc(cap, sizeof *s);
  if (!s) return false;
  t->slots = s;
  t->cap = cap;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) t->slots[find(t, old.slots[i].key)] = old.slots[i];
  free(old.slots);
  return true;
}

bool sdb_ptrtab_put(sdb_ptrtab *t, const void *key, void *val) {
  if ((t->len + 1) * 2 > t->cap && !grow(t)) return false;
  size_t j = find(t, key);
  if (!t->slots[j].key) t->len++;
  t->slots[j] = (sdb_ptrtab_slot){key, val};
  return true;
}

void *sdb_ptrtab_remove(sdb_ptrtab *t, const void *key) {
  if (!t->len) return NULL;
  size_t mask = t->cap - 1, j = find(t, key);
  void *val = t->slots[j].val;
  if (!t->slots[j].key) return NULL;
  /* an entry at k may fill the hole at j when j lies between its home
  ** and k (cyclically): it was probed past j to get to k */
  for (size_t k = (j + 1) & mask; t->slots[k].key; k = (k + 1) & mask) {
    size_t h = home(t, t->slots[k].key);
    if (((k - h) & mask) >= ((k - j) & mask)) {
      t->slots[j] = t->slots[k];
      j = k;
    }
  }
  t->slots[j] = (sdb_ptrtab_slot){NULL, NULL};
  /* empty: a large table's memory goes back; a small one stays, as a
  ** table that empties and fills again (a tensor's memos, made and dropped
  ** an op at a time) cost a calloc, and glibc a consolidation, each time */
  if (--t->len == 0 && t->cap > 1024) {
    free(t->slots);
    *t = (sdb_ptrtab)SDB_PTRTAB_INIT;
  }
  return val;
}
