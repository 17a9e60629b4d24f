/*
** hop.h — higher-order ops over speculated subgraphs: torch.cond and wrap
** (torch/_higher_order_ops/cond.py, utils.py; Dynamo's CondHigherOrderVariable).
**
** A branch is a subgraph traced by a child tracer; this module owns what
** happens around it: the mutation and aliasing checks (by version counters
** and storages, so a mutation through a view is caught), cond's
** _merge_output (outputs that differ between branches, or carry unbacked
** symbols made inside a branch, get a fresh unbacked symbol whose range is
** the union of the branches'), and the one signature both branch graphs
** share (lifted inputs common to both first, then the true branch's own,
** then the false branch's).
*/
#ifndef SDB_HOP_H
#define SDB_HOP_H

#include "err.h"
#include "graph.h"
#include "tracer.h"
#include "value.h"

/* A graph input of a branch: the placeholder and the parent proxy it stands for. */
typedef struct sdb_lifted {
  sdb_node *parent;
  sdb_node *ph;
} sdb_lifted;

typedef struct sdb_branch {
  const char *name;        /* "cond_true", "cond_false", "wrap_body" (interned) */
  sdb_graph *graph;        /* owned by the parent graph */
  sdb_lifted *inputs;      /* in placeholder order (owned) */
  size_t ninputs;
  sdb_value outputs;       /* a tuple (owned) */
} sdb_branch;

void sdb_branch_clear(sdb_branch *b);
/* Record the branch's inputs from a child tracer about to be freed. */
int sdb_branch_collect_inputs(sdb_branch *b, const sdb_tracer *child, sdb_err *err);

/* What a branch could touch (the tensors its tracer's ancestors know),
** taken in O(1): the mutation serial and the next storage id when the cond
** started. A storage bumped after `serial` was mutated; one with an id
** below `first_new_storage` existed before. Only when either is seen are
** the ancestors' tensors scanned, so a cond costs nothing per tensor of
** the enclosing program (it used to copy and reference all of them). */
typedef struct sdb_version_snapshot {
  const sdb_tracer *parent;
  uint64_t serial;
  uint32_t first_new_storage;
} sdb_version_snapshot;

int sdb_snapshot_versions(const sdb_tracer *parent, sdb_version_snapshot *s, sdb_err *err);
void sdb_snapshot_free(sdb_version_snapshot *s);

/* _check_alias_and_mutation: "<name> might be aliasing the input or the
** output!" (checked first), "<name> might be modifying the input!". Emits
** hop_check events. */
int sdb_hop_check_branch(sdb_events *ev, const char *name, const sdb_version_snapshot *before,
                         const sdb_value *outputs, sdb_err *err);

/* cond's output merge: same structure ("Unmatched output spec from
** torch.cond branches: ..."), same dtype/device/dim/storage_offset ("When
** merging two branches' output in torch.cond,  expected same dtype but got
** ..."), then sizes kept or made fresh unbacked symbols (emitting
** cond_output_symbol). *out is a tuple like the branches'. */
int sdb_cond_merge(sdb_fake_mode *m, const sdb_value *a, const sdb_value *b,
                   sdb_value *out, sdb_err *err);

/* Give every branch graph the same placeholders in the same order (adding
** unused ones where a branch lacks an input) and return the parent proxies
** in that order: the operands of the HOP call. *operands is malloc'ed. */
int sdb_hop_signature(sdb_branch *branches, size_t n, sdb_node ***operands,
                      size_t *noperands, sdb_err *err);

#endif
