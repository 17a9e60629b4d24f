/*
** aot.h — the aot-compile phase (AOTAutograd at lowering time, seeds 000,
** 002, 003).
**
** It starts a fresh FakeTensorMode sharing the trace's ShapeEnv, re-fakifies
** the inputs through their StatefulSymbolicContexts (the same s symbols
** come back, and inputs look as they did before the trace mutated them),
** and retraces the Dynamo graph node by node into a functional aten graph
** (PropagateUnbackedSymInts): ops that allocate unbacked symbols allocate
** new ones (the epoch was bumped, memos are clear) and rebind_unbacked
** renames each to the symbol the trace-phase binding names. In-place ops
** become out-of-place with the input mutation recorded. Guards taken here
** (a decomposition that branches on a size) join the one guard set, tagged
** with the aot phase. Metadata analysis reruns the graph under
** ignore_fresh_unbacked_symbols: no pending symbols, no renamings.
*/
#ifndef SDB_AOT_H
#define SDB_AOT_H

#include <stdbool.h>

#include "err.h"
#include "fake.h"
#include "graph.h"
#include "ops.h"
#include "symctx.h"

/* One input of the compiled function, as the trace phase fakified it. */
typedef struct sdb_aot_input {
  const char *argname;          /* interned */
  const sdb_source *source;
  bool is_tensor;
  int64_t sizes[64];            /* the concrete input */
  int ndim;
  sdb_dtype dtype;
  const char *device;
  bool requires_grad;
  sdb_symctx *ctx;              /* stateful: the source->symbol cache (not owned) */
  const sdb_expr *symint;       /* a SymInt input */
  const sdb_node *placeholder;  /* its Dynamo placeholder */
} sdb_aot_input;

typedef struct sdb_aot_result {
  sdb_graph *graph;             /* the functional aten graph (owned) */
  sdb_fake_mode *mode;          /* the fresh fake mode (owned) */
  char *mutations;              /* "input x mutated (add_)\n..." or NULL (owned) */
} sdb_aot_result;

void sdb_aot_result_free(sdb_aot_result *r);

/* Run the phase over the Dynamo graph. Emits phase_start/phase_end aot,
** fake_mode_created (fresh), epoch_bumped, refakified, node_placed, renamed. */
int sdb_aot_compile(sdb_shape_env *env, const sdb_graph *dynamo, const sdb_aot_input *inputs,
                    size_t ninputs, sdb_aot_result *out, sdb_err *err);

/* The op a graph node calls, or NULL (placeholders, getitem, sym ops...). */
const sdb_op *sdb_node_target_op(const sdb_node *n);

#endif
