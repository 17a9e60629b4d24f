/*
** map.c — insertion-ordered pointer map (see map.h).
*/
#include "map.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_ptr(const void *p) {
  uint64_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(const sdb_map *m, const void *key, uint64_t h) {
  uint32_t tag = (uint32_t)(h >> 32);
  size_t mask = m->icap - 1, j = (size_t)h & mask;
  for (; m->index[j].pos1; j = (j + 1) & mask)
    if (m->index[j].tag == tag && m->keys[m->index[j].pos1 - 1] == key) break;
  return j;
}

long sdb_map_pos(const sdb_map *m, const void *key) {
  if (!m->icap) return -1;
  const sdb_map_slot *s = &m->index[find_slot(m, key, hash_ptr(key))];
  return s->pos1 ? (long)s->pos1 - 1 : -1;
}

static bool reindex(sdb_map *m, size_t icap) {
  sdb_map_slot *ix = sdb_noted(calloc(icap, sizeof *ix));
  if (!ix) return false;
  for (size_t i = 0; i < m->len; i++) {
    uint64_t h = hash_ptr(m->keys[i]);
    size_t j = (size_t)h & (icap - 1);
    while (ix[j].pos1) j = (j + 1) & (icap - 1);
    ix[j].pos1 = (uint32_t)i + 1;
    ix[j].tag = (uint32_t)(h >> 32);
  }
  free(m->index);
  m->index = ix;
  m->icap = icap;
  return true;
}

bool sdb_map_put(sdb_map *m, const void *key, void *val) {
  if ((m->len + 1) * 4 > m->icap * 3 && !reindex(m, m->icap ? m->icap * 2 : 16)) return false;
  uint64_t h = hash_ptr(key);
  size_t j = find_slot(m, key, h);
  if (m->index[j].pos1) { m->vals[m->index[j].pos1 - 1] = val; return true; }
  if (m->len == UINT32_MAX - 1) return false;
  if (m->len == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 8;
    const void **k = sdb_noted(realloc(m->keys, cap * sizeof *k));
    if (!k) return false;
    m->keys = k;
    void **v = sdb_noted(realloc(m->vals, cap * sizeof *v));
    if (!v) return false;
    m->vals = v;
    m->cap = cap;
  }
  m->keys[m->len] = key;
  m->vals[m->len] = val;
  m->index[j].pos1 = (uint32_t)m->len + 1;
  m->index[j].tag = (uint32_t)(h >> 32);
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
