/*
** graph.h — FX-like graphs: placeholder / call_function / call_method /
** get_attr / output nodes, node meta (example value, unbacked_bindings,
** the user's line), names made unique as FX's namespace makes them
** (`sum` -> `sum_1`, a second `add` -> `add_1`), dead code elimination,
** and readable printing in the style of GraphModule.print_readable.
**
** Ownership: a graph owns its nodes, their args and example values, and
** its subgraphs (cond branches); nodes refer to each other by pointer.
*/
#ifndef SDB_GRAPH_H
#define SDB_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "event.h"
#include "keypath.h"
#include "source.h"
#include "value.h"

typedef enum sdb_node_op {
  SDB_N_PLACEHOLDER,
  SDB_N_CALL_FUNCTION,
  SDB_N_CALL_METHOD,
  SDB_N_GET_ATTR,
  SDB_N_OUTPUT
} sdb_node_op;

const char *sdb_node_op_name(sdb_node_op op);   /* "placeholder", ... */

typedef struct sdb_node sdb_node;
typedef struct sdb_graph sdb_graph;

typedef enum { SDB_A_CONST, SDB_A_NODE, SDB_A_SEQ } sdb_arg_kind;

/* 24 bytes (a graph holds one per argument of every node, a long program
** millions; with a whole sdb_value inside it was 48). By kind: a
** constant's value packed into vkind, n and the word below (read it whole
** through sdb_arg_value: an int or bool is its expr, a float its number
** or, when sym_float, its symbol), a node, or a sequence's items and n. */
typedef struct sdb_arg {
  uint8_t kind;            /* sdb_arg_kind */
  bool tuple;              /* SDB_A_SEQ: (a, b) rather than [a, b] */
  uint8_t vkind;           /* SDB_A_CONST: the value's sdb_vkind */
  bool sym_float;          /* SDB_A_CONST float: expr is set, not fval */
  uint32_t n;              /* SDB_A_SEQ: of items; a list/tuple constant: of its items */
  union {                  /* 16 bytes in all: a keyword's name is its node's (sdb_node_kw) */
    sdb_node *node;            /* SDB_A_NODE */
    struct sdb_arg *items;     /* SDB_A_SEQ (owned) */
    const sdb_expr *expr;      /* SDB_A_CONST, by vkind (owned, as in sdb_value) */
    struct sdb_fake *tensor;
    sdb_value *vitems;
    const char *str;
    double fval;
  };
} sdb_arg;

/* A constant argument's value as an sdb_value that still belongs to the
** argument (copy it to keep it); None for a node or a sequence. */
static inline sdb_value sdb_arg_value(const sdb_arg *a) {
  sdb_value v = SDB_VALUE_NONE;
  if (a->kind != SDB_A_CONST) return v;
  v.kind = (sdb_vkind)a->vkind;
  switch (v.kind) {
    case SDB_V_INT: case SDB_V_BOOL: v.expr = a->expr; break;
    case SDB_V_TENSOR: v.tensor = a->tensor; break;
    case SDB_V_LIST: case SDB_V_TUPLE: v.items = a->vitems; v.n = a->n; break;
    case SDB_V_STR: v.str = a->str; break;
    case SDB_V_FLOAT: if (a->sym_float) v.expr = a->expr; else v.fval = a->fval; break;
    default: break;
  }
  return v;
}

sdb_arg sdb_arg_node(sdb_node *n);
sdb_arg sdb_arg_const(sdb_value v);           /* takes v */
sdb_arg sdb_arg_seq(size_t n, bool tuple);    /* items to fill in */
void sdb_arg_free(sdb_arg *a);

struct sdb_node {          /* small fields first: they share three words */
  uint32_t id;
  uint32_t nargs;          /* of args */
  int32_t nusers;
  uint8_t op;              /* sdb_node_op */
  bool impure;             /* has side effects: never removed by DCE */
  uint8_t nkw;             /* the last nkw args are keyword args (sdb_node_kw) */
  bool has_extra;          /* it has bindings, a source or a subgraph (sdb_node_extra) */
  uint32_t at_;            /* the user's line: a site's id (a site with no tracer), 0 for
                              none (sdb_node_at) */
  sdb_iref name_ref;       /* name's reference: later phases run each node as the op
                              their events name (sdb_events_push_op_ref) */
  const char *name;        /* unique in its graph (interned) */
  const char *target;      /* "torch.nonzero", "operator.add", "nonzero" (method), ... */
  sdb_value example;       /* meta['example_value'] (owned) */
  sdb_arg args[];          /* nargs of them, in the node's own block (what they hold is owned),
                              then the nkw keyword names */
};

/* What few nodes have, kept apart (a table by node, core/ptrtab): a long
** program holds millions of nodes, and a pointer in each for what most
** never have was 16 bytes of 88. */
typedef struct sdb_node_extra {
  sdb_bindings bindings;   /* meta['unbacked_bindings'] (owned) */
  union {                  /* by op: no node is both a placeholder and a get_attr */
    const sdb_source *source;  /* a placeholder: the input it stands for */
    sdb_graph *sub;            /* a get_attr of a subgraph (not owned: the graph owns it) */
  };
} sdb_node_extra;
const sdb_node_extra *sdb_node_extra_of(const sdb_node *n);   /* NULL: none */

/* 72 bytes before its arguments, which follow it in its block: a node
** does not point at its graph or its arguments. */
static inline const sdb_source *sdb_node_source(const sdb_node *n) {
  return n->op == SDB_N_PLACEHOLDER && n->has_extra ? sdb_node_extra_of(n)->source : NULL;
}
static inline sdb_graph *sdb_node_sub(const sdb_node *n) {
  return n->op == SDB_N_GET_ATTR && n->has_extra ? sdb_node_extra_of(n)->sub : NULL;
}
/* Makes get_attr node n name subgraph g (not owned); false on OOM. */
bool sdb_node_set_sub(sdb_node *n, sdb_graph *g);

/* The names of a node's keyword arguments, its last nkw (interned): they
** follow the arguments in the node's block, so an argument is 16 bytes
** and a node with none pays nothing. */
static inline const char *const *sdb_node_kwnames(const sdb_node *n) {
  return (const char *const *)(const void *)(n->args + n->nargs);
}
/* Argument i's keyword name, or NULL (positional). */
static inline const char *sdb_node_kw(const sdb_node *n, size_t i) {
  size_t first = n->nargs - n->nkw;
  return i >= first && i < n->nargs ? sdb_node_kwnames(n)[i - first] : NULL;
}

/* A node's bindings (an empty set when it has none). */
extern const sdb_bindings sdb_node_no_bindings;
static inline const sdb_bindings *sdb_node_bindings(const sdb_node *n) {
  return n->has_extra ? &sdb_node_extra_of(n)->bindings : &sdb_node_no_bindings;
}
/* Gives n the bindings in *b (taken, *b emptied; none is no allocation).
** false on OOM (*b freed). */
bool sdb_node_set_bindings(sdb_node *n, sdb_bindings *b);

/* The user's line that made n (a site with no tracer), or NULL. */
static inline const sdb_site *sdb_node_at(const sdb_node *n) {
  return n->at_ ? sdb_site_table_[n->at_] : NULL;
}
/* The same as a location ({NULL, 0, NULL}: none). */
static inline sdb_loc sdb_node_loc(const sdb_node *n) {
  sdb_loc l = {NULL, 0, NULL};
  const sdb_site *at = sdb_node_at(n);
  if (at) { l.file = at->file; l.line = at->line; l.func = at->func; }
  return l;
}
/* Records where the user was (the stream's locator) as n's line. */
static inline void sdb_node_locate(sdb_node *n, sdb_events *ev) {
  sdb_loc l;
  n->at_ = 0;
  if (!sdb_events_locate(ev, &l) || !l.file) return;
  n->at_ = sdb_site_get(NULL, 0, l.file, l.line, l.func)->id;
  if (!n->at_) sdb_events_note_lost(ev);   /* out of memory: its line is lost */
}

/* Told of each node removed from a graph, before it is freed (the tracer
** and aot emit node_erased from it: graph.c has no event stream). */
typedef void (*sdb_erase_fn)(void *ud, const sdb_node *n, const char *why);

struct sdb_graph {
  const char *name;        /* "GraphModule", "cond_true_0", "wrap_body_0" */
  sdb_node **nodes;
  size_t n, cap;
  size_t insert_at;        /* where the next node goes; n means the end */
  /* Deferred order (sdb_graph_defer): nodes are appended to `nodes`, the
  ** dn0 there before in their order. A node made since (id >= did0) goes
  ** in a chain: the one after a node there before is in dfollow, the one
  ** at the very start is dfirst, and a chained node's next is in dnext
  ** (NULL: the chain ends). dcursor is where the next node goes (after it;
  ** NULL: the end, after dtail; dfront: the start). Nothing of the nodes
  ** there before is written or read: laying out a long graph again was a
  ** cache miss a node when they were all linked. */
  bool deferred, dfront;
  bool sealed;             /* `used` dropped (sdb_graph_seal): rebuilt if named again */
  /* where the last node inserted went (sdb_node_anchor): the node before
  ** it, or NULL when appended (last_first: inserted at the very start) */
  const sdb_node *last_placed, *last_after;
  bool last_first;
  sdb_node *dfirst, *dtail, *dcursor;
  size_t dn0;
  uint32_t did0;
  sdb_map dfollow;         /* node there before -> first node after it */
  sdb_map dnext;           /* node made while deferred -> the next in its chain */
  sdb_map base_count;      /* interned base name -> last number used (as uintptr) */
  sdb_map used;            /* interned name -> node */
  sdb_map erased;          /* names of nodes removed: never given again, sealed or not */
  sdb_map sub_used;        /* interned submodule name -> its graph */
  sdb_map sub_next;        /* interned submodule base -> first index maybe free */
  sdb_graph **subs;        /* owned subgraphs, in creation order */
  size_t nsubs, capsubs;
  sdb_erase_fn on_erase;   /* or NULL */
  void *erase_ud;
};

sdb_graph *sdb_graph_new(const char *name);
void sdb_graph_free(sdb_graph *g);
/* An owned subgraph with a unique attribute name made from `base`
** ("cond_true" -> "cond_true_0"). */
sdb_graph *sdb_graph_new_sub(sdb_graph *parent, const char *base);

/* A unique name from a candidate, FX-style: illegal characters become '_',
** Python builtins and keywords get a number (sum -> sum_1), repeats count
** up (add, add_1, add_2). Interned. */
const char *sdb_graph_unique_name(sdb_graph *g, const char *candidate);
/* The graph is complete (a finished trace, an aot graph): drop the set of
** names taken, a map entry per node, which only naming new nodes reads.
** Naming one later rebuilds it from the live nodes and the names of those
** removed (kept apart, a few), so no name ever comes back. */
void sdb_graph_seal(sdb_graph *g);

/* Placeholders: `name` is what the body calls it (`l_x_`), `target` the
** signature name (`L_x_`); pass the same for symbol inputs (`s0`). */
sdb_node *sdb_graph_placeholder(sdb_graph *g, const char *name, const char *target,
                                const sdb_value *example, const sdb_source *src);
/* A call node; takes ownership of args (an array of n sdb_arg, freed by
** the graph). name_hint is made unique. example is copied (may be NULL). */
sdb_node *sdb_graph_call(sdb_graph *g, sdb_node_op op, const char *target,
                         const char *name_hint, sdb_arg *args, size_t n,
                         const sdb_value *example);
/* The same, placed right after `after` (accessors and asserts that belong
** to the node that bound a symbol). */
sdb_node *sdb_graph_call_after(sdb_graph *g, const sdb_node *after, sdb_node_op op,
                               const char *target, const char *name_hint,
                               sdb_arg *args, size_t n, const sdb_value *example);
/* Either, with keyword arguments: the last nkw of args are named kws[0..nkw)
** (interned; copied; at most SDB_NODE_MAX_KW), as FX keeps kwargs after
** args. after NULL: at the insertion point. */
#define SDB_NODE_MAX_KW 255
sdb_node *sdb_graph_call_kw(sdb_graph *g, const sdb_node *after, sdb_node_op op,
                            const char *target, const char *name_hint, sdb_arg *args, size_t n,
                            const char *const *kws, size_t nkw, const sdb_value *example);
/* A placeholder at position pos among the placeholders (lifted symbols go
** before lifted tensors). */
sdb_node *sdb_graph_placeholder_at(sdb_graph *g, size_t pos, const char *name,
                                   const char *target, const sdb_value *example,
                                   const sdb_source *src);
sdb_node *sdb_graph_output(sdb_graph *g, sdb_arg *args, size_t n);
sdb_node *sdb_graph_output_node(const sdb_graph *g);

/* Put the next nodes right after `after` (NULL: at the start); reset with
** sdb_graph_insert_at_end. */
void sdb_graph_insert_after(sdb_graph *g, const sdb_node *after);
void sdb_graph_insert_at_end(sdb_graph *g);
/* Many insertions in the middle (the runtime-assert pass): between
** sdb_graph_defer and sdb_graph_undefer, insertions cost O(1) and `nodes`
** keeps the insertion order, not the graph's; undefer puts `nodes` in
** graph order in one pass. Only node placement (sdb_graph_call,
** sdb_graph_call_after, sdb_graph_insert_after/at_end) is allowed then. */
void sdb_graph_defer(sdb_graph *g);
void sdb_graph_undefer(sdb_graph *g);
/* Make `order` (every placeholder of g, each once) the placeholder order. */
int sdb_graph_set_placeholders(sdb_graph *g, sdb_node *const *order, size_t n);
/* Number of placeholders at the front. */
size_t sdb_graph_num_placeholders(const sdb_graph *g);

/* Remove pure nodes nobody uses, repeatedly. Returns how many went; each
** is reported to the erase hook first (why = "dead code"). */
size_t sdb_graph_dce(sdb_graph *g);
/* The hook told of removals (NULL: none); subgraphs have their own. */
void sdb_graph_on_erase(sdb_graph *g, sdb_erase_fn fn, void *ud);
/* Where n (just inserted: only the last insertion's place is kept) stands,
** as node_placed says it: the node right before it, or NULL when n is last
** (appended) or first (*at_start set when other nodes follow it). */
const sdb_node *sdb_node_anchor(const sdb_graph *g, const sdb_node *n, bool *at_start);
/* The node_placed event of n, just put into g (the tracer's and aot's):
** its line, written into B, and where it went, in *e and *more, which
** must outlive the emit. False when the line could not be made (out of
** memory: the event goes without it, and the caller says one was lost). */
bool sdb_node_placed_event(const sdb_graph *g, const sdb_node *n, sdb_buf *b,
                           sdb_event_in *e, sdb_event_more *more);

typedef struct sdb_print_opts {
  bool strides;            /* f32[s0, 2][2, 1] */
  bool bindings;           /* a `# u0: .size()[0]` line after binding nodes */
  bool locations;          /* `# File: model.lua:3 in model, code: ...` */
  bool subgraphs;          /* print owned subgraphs as nested classes */
} sdb_print_opts;

/* print_readable: `class GraphModule(torch.nn.Module):` and `def forward(...)`. */
char *sdb_graph_print(const sdb_graph *g, const sdb_print_opts *opts);
/* One node's line (without indentation or deletions). */
char *sdb_node_str(const sdb_node *n);
/* The same written into B (emptied first), for callers that make one per
** node they place: the text is valid until B changes; NULL on OOM. */
const char *sdb_node_line(sdb_buf *b, const sdb_node *n);
/* The FX annotation for a value: `"f32[s0, 2]"`, `"Sym(u0)"`, or "". */
char *sdb_value_annotation(const sdb_value *v, bool strides);

#endif
