/*
** symctx.c — symbolic contexts (see symctx.h).
*/
#include "symctx.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const dyn_names[] = {"DUCK", "DYNAMIC", "STATIC", "UNBACKED"};

const char *sdb_dim_dynamic_name(sdb_dim_dynamic d) {
  return (unsigned)d < 4 ? dyn_names[d] : "?";
}

int sdb_dim_dynamic_from_name(const char *name) {
  for (int i = 0; i < 4; i++)
    if (!strcasecmp(dyn_names[i], name)) return i;
  return -1;
}

sdb_symctx *sdb_symctx_new(bool stateful, size_t ndims, sdb_dim_dynamic dyn) {
  sdb_symctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->stateful = stateful;
  c->ndims = ndims;
  if (ndims) {
    c->sizes = calloc(ndims, sizeof *c->sizes);
    if (!c->sizes) { free(c); return NULL; }
    for (size_t i = 0; i < ndims; i++) c->sizes[i].dynamic = dyn;
  }
  return c;
}

void sdb_symctx_free(sdb_symctx *c) {
  if (!c) return;
  for (size_t i = 0; i < c->cache.len; i++) {
    sdb_map_free(c->cache.vals[i]);
    free(c->cache.vals[i]);
  }
  sdb_map_free(&c->cache);
  free(c->sizes);
  free(c);
}

sdb_dim_spec sdb_symctx_dim(const sdb_symctx *c, size_t i) {
  sdb_dim_spec d = {SDB_DIM_DUCK, false, false, 0, 0, false};
  if (c && i < c->ndims) d = c->sizes[i];
  return d;
}

const sdb_expr *sdb_symctx_cached(const sdb_symctx *c, const void *env,
                                  const sdb_source *src) {
  if (!c || !c->stateful) return NULL;
  sdb_map *m = sdb_map_get(&c->cache, env);
  return m ? sdb_map_get(m, src) : NULL;
}

bool sdb_symctx_remember(sdb_symctx *c, const void *env, const sdb_source *src,
                         const sdb_expr *e) {
  if (!c || !c->stateful) return true;
  sdb_map *m = sdb_map_get(&c->cache, env);
  if (!m) {
    m = calloc(1, sizeof *m);
    if (!m || !sdb_map_put(&c->cache, env, m)) { free(m); return false; }
  }
  return sdb_map_put(m, src, (void *)e);
}
