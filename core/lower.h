/*
** lower.h — the lowering phase (Inductor's GraphLowering, seed 003).
**
** Each node of the aot graph becomes buffers: pointwise ops and reductions
** as plain kernels, matmuls as extern kernels, views as reinterpretations,
** data-dependent ops as a FallbackKernel plus a MultiOutput (which defines
** the unbacked symbols: the codegen is in MultiOutput), item() as a
** DynamicScalar. A FallbackKernel is re-propagated (process_kernel) with
** fresh fake inputs, so it allocates a new symbol again; rebind_unbacked
** renames it back. The invariant: every unbacked binding of a node is
** defined by the buffers its lowering produced, else an error naming the
** node, the symbol and the buffers. When a memoized nonzero gets a new
** symbol that nothing renames, a deferred runtime assert says the two agree.
** The wrapper code binds each symbol where it becomes known
** (`u0 = buf1.size(0)`, `u1 = buf3.item()`) with its runtime asserts after.
*/
#ifndef SDB_LOWER_H
#define SDB_LOWER_H

#include <stdbool.h>

#include "err.h"
#include "fake.h"
#include "graph.h"
#include "keypath.h"

typedef enum sdb_ibuf_kind {
  SDB_IB_POINTWISE,
  SDB_IB_REDUCTION,
  SDB_IB_EXTERN,          /* extern_kernels.mm, ... */
  SDB_IB_VIEW,            /* ReinterpretView: no new storage */
  SDB_IB_FALLBACK,        /* FallbackKernel */
  SDB_IB_MULTIOUTPUT,
  SDB_IB_DYNAMIC_SCALAR,  /* item() */
  SDB_IB_CONDITIONAL,
  SDB_IB_MUTATION,        /* copy_ back into an input */
  SDB_IB_DYNAMIC_SELECT   /* DynamicSelectStorageOffset: select at an unbacked index */
} sdb_ibuf_kind;

const char *sdb_ibuf_kind_name(sdb_ibuf_kind k);   /* "FallbackKernel", ... */

/* 32 bytes (a long program lowers a buffer or more an op). */
typedef struct sdb_ibuf {
  const char *name;           /* "buf0" (interned) */
  const sdb_node *origin;     /* the aot node it lowers */
  sdb_binding *defines;       /* ndefines unbacked symbols it binds, paths from this
                                 buffer (owned; NULL when none) */
  uint32_t ndefines;
  uint8_t kind;               /* sdb_ibuf_kind */
} sdb_ibuf;

typedef struct sdb_lowered {
  sdb_ibuf *bufs;
  size_t n;
  char *wrapper;              /* the wrapper code (owned) */
} sdb_lowered;

typedef struct sdb_lower_opts {
  /* testing/teaching: lower this aot node without its symbol definitions,
  ** to watch the invariant catch it (NULL: none) */
  const char *plant_missing_binding;
} sdb_lower_opts;

void sdb_lowered_free(sdb_lowered *l);

/* Lower the aot graph. Emits phase_start/phase_end lower, buffer_lowered,
** renamed, runtime_assert_added, binding_check. mode: the aot phase's mode. */
int sdb_lower(sdb_fake_mode *mode, const sdb_graph *aot, const sdb_lower_opts *opts,
              sdb_lowered *out, sdb_err *err);

#endif
