/*
** source.h — where a value came from, named as Dynamo names it:
** `L['x']`, `L['x'].size()[0]`, `L['x'].stride()[1]`,
** `L['x'].storage_offset()`, `G['w']`, `L['xs'][0]`, `L['self'].weight`.
**
** Sources are interned (one object per distinct name) and live until
** sdb_source_reset(), so pointer equality is source equality.
*/
#ifndef SDB_SOURCE_H
#define SDB_SOURCE_H

#include <stdint.h>

typedef enum sdb_source_kind {
  SDB_SRC_LOCAL,            /* L['x'] */
  SDB_SRC_GLOBAL,           /* G['x'] */
  SDB_SRC_SIZE,             /* base.size()[i] */
  SDB_SRC_STRIDE,           /* base.stride()[i] */
  SDB_SRC_STORAGE_OFFSET,   /* base.storage_offset() */
  SDB_SRC_INDEX,            /* base[i] */
  SDB_SRC_ATTR,             /* base.attr */
  SDB_SRC_CONSTANT          /* a bare name: torch.export's phantom root (ConstantSource) */
} sdb_source_kind;

typedef struct sdb_source sdb_source;
struct sdb_source {
  sdb_source_kind kind;
  const sdb_source *base;   /* NULL for LOCAL/GLOBAL */
  int64_t idx;              /* SIZE/STRIDE/INDEX */
  const char *ident;        /* LOCAL/GLOBAL/ATTR name, interned */
  const char *name;         /* full printed name, interned */
};

const sdb_source *sdb_source_local(const char *name);
const sdb_source *sdb_source_global(const char *name);
const sdb_source *sdb_source_size(const sdb_source *base, int64_t i);
const sdb_source *sdb_source_stride(const sdb_source *base, int64_t i);
const sdb_source *sdb_source_storage_offset(const sdb_source *base);
const sdb_source *sdb_source_index(const sdb_source *base, int64_t i);
const sdb_source *sdb_source_attr(const sdb_source *base, const char *attr);
/* ConstantSource(name): a symbol no input carries (a derived dim's root) */
const sdb_source *sdb_source_constant(const char *name);

/* The local variable a source is rooted at (`L['x'].size()[0]` -> `L['x']`). */
const sdb_source *sdb_source_root(const sdb_source *s);
/* Is it a tensor property (size/stride/storage offset)? */
int sdb_source_is_tensor_property(const sdb_source *s);

/* Parse a printed name back into a source: L['x'], G['x'], then any of
** .size()[i], .stride()[i], .storage_offset(), [i], .attr. NULL if not one. */
const sdb_source *sdb_source_parse(const char *name);

void sdb_source_reset(void);

#endif
