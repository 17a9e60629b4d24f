/*
** retrace.h — re-run a real PyTorch graph (a dynamo_output_graph payload,
** parsed by fx_parse.h) through shapedb's own fake tensors and operators,
** and compare each node's result with the metadata PyTorch wrote beside it.
**
** The run is a normal trace phase on the caller's event stream: a ShapeEnv,
** a fake mode, a tracer building a graph; inputs are fakified with one
** symbol per symbol of the annotations (backed `s*` with a hint, unbacked
** `u*`), each node goes through the operator table (cond/wrap run their
** bodies in child tracers), so every binding, pending set and guard is an
** event, located at the node's `# File:` line.
**
** After each annotated node the result (dtype, sizes, strides, device; or
** a SymInt/SymBool) is compared with the annotation up to a consistent
** renaming of symbols (PyTorch's u3 may be our u0, its s77 our s0; a
** renaming, once made, holds for the rest of the graph). A difference is a
** `divergence` event and an entry of the list. An operator the table does
** not model is `unsupported op: torch.ops.test.baz` (a note event): the
** annotated result stands in for it so the run goes on.
**
** Ownership: the result owns its lists; texts are interned.
*/
#ifndef SDB_RETRACE_H
#define SDB_RETRACE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "event.h"
#include "fx_parse.h"

typedef struct sdb_retrace_div {
  const char *graph;        /* "GraphModule", "cond_true_0" */
  const char *node;         /* node name as PyTorch wrote it */
  int pline;                /* payload line */
  const char *what;         /* "dtype", "sizes", "strides", "device", "kind" */
  const char *pytorch;      /* the annotation */
  const char *shapedb;      /* ours, in the same spelling */
} sdb_retrace_div;

typedef struct sdb_retrace_unsupported {
  const char *op;           /* "torch.ops.test.baz" */
  long count;
} sdb_retrace_unsupported;

typedef struct sdb_retrace {
  long nodes;               /* nodes run (placeholders and outputs excluded) */
  long matched;             /* annotated nodes whose result matched */
  long diverged;
  long unsupported;         /* nodes whose op the table lacks */
  sdb_retrace_div *divs;
  size_t ndivs;
  sdb_retrace_unsupported *ops;
  size_t nops;
  char *graph_text;         /* our graph, print_readable style */
} sdb_retrace;

/* Hints for backed symbols by PyTorch's name ("s0" -> 5), e.g. from the
** log's create_symbol records; NULL or a miss gives a default. */
typedef int (*sdb_retrace_hint_fn)(void *ud, const char *sym, int64_t *out);

typedef struct sdb_retrace_opts {
  const char *name;         /* the phase's text ("retrace [0/0]"), may be NULL */
  sdb_retrace_hint_fn hint;
  void *hint_ud;
  sdb_phase phase;          /* the phase its events belong to: SDB_PHASE_TRACE for
                               a dynamo graph, AOT for aot_*, LOWER for inductor_*
                               (SDB_PHASE_NONE: trace) */
} sdb_retrace_opts;

/* Run g on ev. An error that stops the run (a data-dependent guard, a
** shape error in an op that the annotations say succeeded) is returned
** with err filled and an error event emitted; *out is still filled with
** what was compared up to there. */
int sdb_retrace_run(const sdb_fx_graph *g, sdb_events *ev, const sdb_retrace_opts *opts,
                    sdb_retrace *out, sdb_err *err);
void sdb_retrace_clear(sdb_retrace *r);

/* `retrace: 12 nodes, 10 matched, 1 diverged, 1 unsupported ops` and one
** line per unsupported op (`  unsupported op: torch.ops.test.baz (x2)`).
** Malloc'ed. */
char *sdb_retrace_summary(const sdb_retrace *r);
/* `info divergences`: one block per divergence. Malloc'ed. */
char *sdb_retrace_divergences_text(const sdb_retrace *r);

#endif
