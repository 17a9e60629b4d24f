/*
** tracer.h — Dynamo-like (sub)graph tracers.
**
** A tracer owns nothing but bookkeeping: the graph it fills (owned by its
** creator), which node stands for each fake tensor and symbolic value it
** has seen (its proxies), bound_symbols (symbol -> proxy) and
** lifted_freevars (parent proxy -> placeholder here).
**
** Placing an op: run its meta function, add the node, record the node's
** unbacked_bindings from the pending fresh symbols (seed 001's binding
** site), and remember the output's proxies. Using a tensor or symbol that
** an ancestor tracer owns lifts it: every tracer on the way creates a graph
** input for it, and a lifted tensor's free symbols are bound too, symbols
** first (seed 004). Each step is an event.
*/
#ifndef SDB_TRACER_H
#define SDB_TRACER_H

#include <stdbool.h>

#include "err.h"
#include "fake.h"
#include "graph.h"
#include "map.h"
#include "idmap.h"
#include "ops.h"
#include "shape_env.h"

typedef struct sdb_tracer sdb_tracer;
struct sdb_tracer {
  sdb_tracer *parent;
  const char *name;          /* "trace", "cond.true_branch", ... */
  const char *path;          /* "trace > cond.true_branch" */
  int depth;
  sdb_graph *graph;          /* not owned */
  sdb_fake_mode *mode;       /* not owned */
  sdb_shape_env *env;
  sdb_events *ev;
  /* sdb_fake* -> sdb_node* (read through sdb_tracer_proxy_of): by tensor
  ** id from the first tensor made since the tracer began (a put into a
  ** large hash map was a cache miss an op) */
  sdb_idmap tensor_proxy;
  sdb_map sym_proxy;         /* symbolic expr -> latest node whose value it is */
  sdb_map bound_symbols;     /* symbol -> placeholder or accessor binding it here */
  sdb_map lifted_freevars;   /* parent sdb_node* -> placeholder here */
  sdb_map unbacked_site;     /* unbacked sym -> where a node holds it (lazy accessor) */
  /* a map above could not take an entry for want of memory: the tracer no
  ** longer knows every proxy, so its calls fail as out of memory rather
  ** than with whatever a missing entry would make them say */
  bool oom;
  sdb_buf line;              /* scratch: the line of the node being placed */
};

/* A root tracer (parent NULL) or a child speculating a subgraph; emits
** tracer_push. Free with sdb_tracer_free (emits tracer_pop). */
sdb_tracer *sdb_tracer_new(sdb_tracer *parent, const char *name, sdb_graph *graph,
                           sdb_fake_mode *mode);
void sdb_tracer_free(sdb_tracer *tr);
/* The trace is over (finalized): frees what only tracing reads (the
** proxies, bindings and lazy accessor sites: two map entries an op, kept
** through aot and lowering until then) and seals a root tracer's graph
** (sdb_graph_seal). The tracer stays for its tracer_pop; nothing may be
** traced with it after. */
void sdb_tracer_done(sdb_tracer *tr);
/* The node tr knows t by, or NULL. */
sdb_node *sdb_tracer_proxy_of(const sdb_tracer *tr, const sdb_fake *t);
/* Does fn hold for a tensor tr knows (in no given order)? */
bool sdb_tracer_any_tensor(const sdb_tracer *tr, bool (*fn)(const sdb_fake *t, const void *ud),
                           const void *ud);
/* A graph erase hook (sdb_graph_on_erase) emitting node_erased on the
** stream ud; tracers install it on their graphs, the aot phase on its. */
void sdb_node_erased_event(void *ud, const sdb_node *n, const char *why);

/* Inputs of the root graph: a tensor placeholder `L_x_` (body name `l_x_`)
** with a `s0: "Sym(s0)"` placeholder before it for each symbol it brings. */
sdb_node *sdb_tracer_input_tensor(sdb_tracer *tr, sdb_fake *t, const char *argname,
                                  const sdb_source *src, sdb_err *err);
/* A SymInt input (`L_n_` when its expression is a plain new symbol). */
sdb_node *sdb_tracer_input_symint(sdb_tracer *tr, const sdb_expr *e, const char *argname,
                                  const sdb_source *src, sdb_err *err);

/* The proxy of a value in this tracer, lifting from ancestors when needed;
** symbolic expressions without a proxy are computed from their symbols'
** proxies (operator nodes). NULL with err when the value is unknown. */
sdb_node *sdb_tracer_proxy_tensor(sdb_tracer *tr, sdb_fake *t, sdb_err *err);
sdb_node *sdb_tracer_proxy_expr(sdb_tracer *tr, const sdb_expr *e, sdb_err *err);
/* A symbolic value the program computed in the enclosing tracer `owner`
** (its node there), used here: every tracer on the way lifts that node as
** a placeholder of the same name (create_graph_input(proxy.node.name)), as
** Dynamo lifts a SymNodeVariable's proxy: `item` for u0, `sub` for
** s0 - 2, not the compound's basic symbols. A plain symbol is bound by it. */
sdb_node *sdb_tracer_lift_proxy(sdb_tracer *tr, const sdb_tracer *owner, sdb_node *node,
                                const sdb_value *example, sdb_err *err);
/* outer is a proper ancestor of tr */
bool sdb_tracer_encloses(const sdb_tracer *outer, const sdb_tracer *tr);
/* A value as a graph argument (tensors and symbolic values by proxy). */
int sdb_tracer_arg(sdb_tracer *tr, const sdb_value *v, sdb_arg *out, sdb_err *err);

/* Run op (as torch.op(...) or, when method, as self.op(...)), place its
** node and record bindings. *out is the new value; *node_out the node. */
int sdb_tracer_call(sdb_tracer *tr, const sdb_op *op, bool method, const sdb_args *a,
                    sdb_value *out, sdb_node **node_out, sdb_err *err);

/* A node whose example value the caller computed (size(), operator.* on
** SymInts, torch._check ...). args are values (converted to proxies);
** kwnames parallel to args (NULL entries for positional; the named ones
** last, as Python has them). */
sdb_node *sdb_tracer_node(sdb_tracer *tr, sdb_node_op op, const char *target,
                          const char *name_hint, const sdb_value *args,
                          const char *const *kwnames, size_t nargs,
                          const sdb_value *example, bool impure, sdb_err *err);

/* A node the caller built into this tracer's graph (a HOP call): announce
** it, record its unbacked bindings and track its output (example may be
** NULL). Returns node, or NULL with err. */
sdb_node *sdb_tracer_adopt_node(sdb_tracer *tr, sdb_node *node, const sdb_value *example,
                                sdb_err *err);

/* Remember `node` as the proxy of every tensor/symbolic value inside v. */
void sdb_tracer_track(sdb_tracer *tr, const sdb_value *v, sdb_node *node);
/* The same for a node's output: a tuple gets a `getitem = node[i]` per
** element (DCE removes the unused ones). */
void sdb_tracer_track_output(sdb_tracer *tr, sdb_node *node, const sdb_value *out);

/* The output node `return (a, b)`; values by proxy. */
sdb_node *sdb_tracer_output(sdb_tracer *tr, const sdb_value *v, sdb_err *err);

/* Dynamo's insert_deferred_runtime_asserts: right after each node that
** binds unbacked symbols, `sym_size_int` accessors, then the range asserts
** and the deferred runtime asserts keyed by those symbols:
**   ge: "Sym(u0 >= 0)" = sym_size_int >= 0
**   _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge,
**       "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
** Then dead code elimination. */
int sdb_tracer_finalize(sdb_tracer *tr, sdb_err *err);

#endif
