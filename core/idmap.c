/*
** idmap.c — a map by object id, slots where the ids are dense (see idmap.h).
*/
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

void sdb_idmap_init(sdb_idmap *m, uint32_t base) {
  memset(m, 0, sizeof *m);
  m->base = base;
  m->other = (sdb_map)SDB_MAP_INIT;
}

void sdb_idmap_init_span(sdb_idmap *m, uint32_t base, size_t span) {
  sdb_idmap_init(m, base);
  m->span = span;
}

void sdb_idmap_free(sdb_idmap *m) {
  free(m->v);
  sdb_map_free(&m->other);
  sdb_idmap_init_span(m, m->base, m->span);
}

bool sdb_idmap_put(sdb_idmap *m, uint32_t id, const void *key, void *val) {
  size_t i = (size_t)(id - m->base);
  /* a slot, unless the ids from the base on are mostly others' (then the
  ** array would be mostly empty), or the key went to `other` before */
  if (id >= m->base && (i < m->cap || i < m->span || i < 4 * m->n + 4096) &&
      !(m->other.len && sdb_map_has(&m->other, key))) {
    if (i >= m->cap) {
      size_t cap = m->cap ? m->cap * 2 : 256;
      while (cap <= i) cap *= 2;
      sdb_idmap_slot *v = realloc(m->v, cap * sizeof *v);
      if (!v) return false;
      memset(v + m->cap, 0, (cap - m->cap) * sizeof *v);
      m->v = v;
      m->cap = cap;
    }
    if (!m->v[i].key) m->n++;
    m->v[i].key = key;
    m->v[i].val = val;
    return true;
  }
  return sdb_map_put(&m->other, key, val);
}

bool sdb_idmap_next(const sdb_idmap *m, size_t *i, const void **key, void **val) {
  for (; *i < m->cap; (*i)++)
    if (m->v[*i].key) {
      *key = m->v[*i].key;
      *val = m->v[(*i)++].val;
      return true;
    }
  size_t j = *i - m->cap;
  if (j >= m->other.len) return false;
  *key = m->other.keys[j];
  *val = m->other.vals[j];
  (*i)++;
  return true;
}
