/*
** map.c — insertion-ordered pointer map (see map.h).
*/
#include "map.h"

#include <stdlib.h>
#include <string.h>

static size_t hash_ptr(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

long sdb_map_pos(const sdb_map *m, const void *key) {
  if (!m->icap) return -1;
  for (size_t j = hash_ptr(key) & (m->icap - 1); m->index[j]; j = (j + 1) & (m->icap - 1))
    if (m->keys[m->index[j] - 1] == key) return m->index[j] - 1;
  return -1;
}

static bool reindex(sdb_map *m, size_t icap) {
  int32_t *ix = calloc(icap, sizeof *ix);
  if (!ix) return false;
  for (size_t i = 0; i < m->len; i++) {
    size_t j = hash_ptr(m->keys[i]) & (icap - 1);
    while (ix[j]) j = (j + 1) & (icap - 1);
    ix[j] = (int32_t)i + 1;
  }
  free(m->index);
  m->index = ix;
  m->icap = icap;
  return true;
}

bool sdb_map_put(sdb_map *m, const void *key, void *val) {
  long pos = sdb_map_pos(m, key);
  if (pos >= 0) { m->vals[pos] = val; return true; }
  if (m->len == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 8;
    const void **k = realloc(m->keys, cap * sizeof *k);
    if (!k) return false;
    m->keys = k;
    void **v = realloc(m->vals, cap * sizeof *v);
    if (!v) return false;
    m->vals = v;
    m->cap = cap;
  }
  if ((m->len + 1) * 2 > m->icap && !reindex(m, m->icap ? m->icap * 2 : 16)) return false;
  m->keys[m->len] = key;
  m->vals[m->len] = val;
  size_t j = hash_ptr(key) & (m->icap - 1);
  while (m->index[j]) j = (j + 1) & (m->icap - 1);
  m->index[j] = (int32_t)m->len + 1;
  m->len++;
  return true;
}

void *sdb_map_get(const sdb_map *m, const void *key) {
  long pos = sdb_map_pos(m, key);
  return pos >= 0 ? m->vals[pos] : NULL;
}

bool sdb_map_has(const sdb_map *m, const void *key) { return sdb_map_pos(m, key) >= 0; }

void sdb_map_clear(sdb_map *m) {
  m->len = 0;
  if (m->index) memset(m->index, 0, m->icap * sizeof *m->index);
}

void sdb_map_free(sdb_map *m) {
  free(m->keys);
  free(m->vals);
  free(m->index);
  *m = (sdb_map)SDB_MAP_INIT;
}
