/*
** symctx.h — symbolic contexts: the policy for making each dimension of an
** input symbolic, as PyTorch's StatelessSymbolicContext and
** StatefulSymbolicContext (seed 000).
**
** Stateless: per-dim DYNAMIC / DUCK / STATIC / UNBACKED, with optional
** min/max constraints. Stateful: the same plus the source->symbol cache,
** which lives here, outside any ShapeEnv, so re-fakifying the same source
** in a fresh fake mode returns the very same symbols.
*/
#ifndef SDB_SYMCTX_H
#define SDB_SYMCTX_H

#include <stdbool.h>
#include <stddef.h>

#include "expr.h"
#include "map.h"
#include "source.h"

typedef enum sdb_dim_dynamic {
  SDB_DIM_DUCK,      /* symbolic; same hint, same symbol (default) */
  SDB_DIM_DYNAMIC,   /* symbolic; never shares a symbol by hint */
  SDB_DIM_STATIC,    /* a constant */
  SDB_DIM_UNBACKED   /* an unbacked, size-like symbol (mark_unbacked) */
} sdb_dim_dynamic;

const char *sdb_dim_dynamic_name(sdb_dim_dynamic d);   /* "DUCK", ... */
int sdb_dim_dynamic_from_name(const char *name);       /* -1 if unknown */

typedef struct sdb_dim_spec {
  sdb_dim_dynamic dynamic;
  bool has_min, has_max;     /* StrictMinMaxConstraint */
  int64_t min, max;
  bool unspecified;          /* an int input: range [-int_oo, int_oo], no 0/1 specialization */
} sdb_dim_spec;

typedef struct sdb_symctx {
  bool stateful;
  size_t ndims;
  sdb_dim_spec *sizes;       /* per size dim; dims past ndims use DUCK */
  sdb_map cache;             /* ShapeEnv* -> sdb_map* (source -> expr) */
} sdb_symctx;

/* A context with ndims dims, all `dyn`. Free with sdb_symctx_free. */
sdb_symctx *sdb_symctx_new(bool stateful, size_t ndims, sdb_dim_dynamic dyn);
void sdb_symctx_free(sdb_symctx *c);
sdb_dim_spec sdb_symctx_dim(const sdb_symctx *c, size_t i);

/* The stateful cache (no-ops on a stateless context). */
const sdb_expr *sdb_symctx_cached(const sdb_symctx *c, const void *env,
                                  const sdb_source *src);
bool sdb_symctx_remember(sdb_symctx *c, const void *env, const sdb_source *src,
                         const sdb_expr *e);

#endif
