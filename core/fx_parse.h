/*
** fx_parse.h — a reader of FX graphs in GraphModule.print_readable form,
** the payload of a dynamo_output_graph record in a TORCH_TRACE log:
**
**     class GraphModule(torch.nn.Module):
**         def forward(self, L_x_: "f32[s0, 2][2, 1]cpu"):
**             l_x_ = L_x_
**             # File: /tmp/m.py:4 in fn, code: idx = x.nonzero()
**             nonzero: "i64[u0, 2][1, u0]cpu" = l_x_.nonzero();  l_x_ = None
**             return (nonzero,)
**
**         class cond_true_0(torch.nn.Module):
**             def forward(self, ...): ...
**
** Each statement becomes a node (placeholder, call_function, call_method,
** get_attr, output) with its arguments as literals or references to earlier
** nodes, the annotation as result metadata, and the `# File:` comment above
** it as the user's source line. Infix operators become operator.* targets
** (`a + b` is operator.add, `a[0]` operator.getitem), as FX printed them.
**
** Nothing is evaluated: this is data. Bad input is an error naming the
** payload line and what could not be read.
**
** Ownership: a graph owns its nodes, arguments and subgraphs; strings are
** sdb_intern pointers. sdb_fx_graph_free(NULL) is a no-op.
*/
#ifndef SDB_FX_PARSE_H
#define SDB_FX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum sdb_fx_op {
  SDB_FX_PLACEHOLDER,
  SDB_FX_CALL_FUNCTION,
  SDB_FX_CALL_METHOD,
  SDB_FX_GET_ATTR,
  SDB_FX_OUTPUT
} sdb_fx_op;

const char *sdb_fx_op_name(sdb_fx_op op);   /* "placeholder", ... */

typedef enum sdb_fx_akind {
  SDB_FXA_NONE,
  SDB_FXA_BOOL,      /* ival 0/1 */
  SDB_FXA_INT,       /* ival */
  SDB_FXA_FLOAT,     /* fval (inf/nan from float('inf')) */
  SDB_FXA_STR,       /* str */
  SDB_FXA_NODE,      /* node: an earlier node of the same graph */
  SDB_FXA_TUPLE,     /* items */
  SDB_FXA_LIST,      /* items */
  SDB_FXA_DTYPE,     /* ival: sdb_dtype; str: "torch.float32" */
  SDB_FXA_DEVICE,    /* str: "cpu", "cuda:0" */
  SDB_FXA_SLICE,     /* items: start, stop, step */
  SDB_FXA_ELLIPSIS,
  SDB_FXA_ATTR,      /* another dotted constant: str "torch.strided" */
  SDB_FXA_DICT       /* items, each named (kw) by its key */
} sdb_fx_akind;

typedef struct sdb_fx_node sdb_fx_node;

typedef struct sdb_fx_arg {
  sdb_fx_akind kind;
  const char *kw;            /* keyword name (interned), NULL when positional;
                                in a dict, the key (kw_int: an int key) */
  bool kw_int;
  int64_t ival;
  double fval;
  const char *str;
  sdb_fx_node *node;
  struct sdb_fx_arg *items;  /* owned */
  size_t n;
} sdb_fx_arg;

/* The annotation beside a node: tensor metadata or a symbolic scalar. */
typedef enum { SDB_FXM_NONE, SDB_FXM_TENSOR, SDB_FXM_SYM } sdb_fx_mkind;

typedef struct sdb_fx_meta {
  sdb_fx_mkind kind;
  const char *text;          /* the annotation as written: "f32[s0, 2][2, 1]cpu" */
  int dtype;                 /* sdb_dtype */
  int ndim;
  const char **sizes;        /* owned array of ndim expression texts (interned) */
  const char **strides;      /* owned array, NULL when not written */
  const char *device;        /* "cpu", "cuda:0"; NULL when not written */
  const char *sym;           /* SDB_FXM_SYM: "s0", "u0 + 1", "Eq(u0, 1)" */
} sdb_fx_meta;

typedef struct sdb_fx_graph sdb_fx_graph;

struct sdb_fx_node {
  sdb_fx_op op;
  const char *name;          /* "nonzero", "l_x_" (interned) */
  const char *target;        /* "torch.ops.aten.sym_size.int", "nonzero"
                                (method), "operator.add", "L_x_" (placeholder),
                                "cond_true_0" (get_attr) */
  sdb_fx_arg *args;          /* positional then keyword (kw set); owned */
  size_t nargs;
  sdb_fx_meta meta;
  /* The `# File: path:line in fn, code: text` comment above the node. */
  const char *file;          /* NULL when none */
  int line;
  const char *fn;
  const char *code;
  int pline;                 /* the payload line of the statement, 1-based */
  sdb_fx_graph *graph;
};

struct sdb_fx_graph {
  const char *name;          /* "GraphModule", "cond_true_0" */
  int pline;                 /* the class line */
  sdb_fx_node **nodes;       /* placeholders first, output last */
  size_t n, cap;
  sdb_fx_graph **subs;       /* nested classes, owned */
  size_t nsubs;
  sdb_fx_graph *parent;
};

/* Parse print_readable text. `where` names the payload in messages
** ("payload" when NULL): "payload line 7: cannot read node: ...". */
int sdb_fx_parse(const char *text, const char *where, sdb_fx_graph **out, sdb_err *err);
void sdb_fx_graph_free(sdb_fx_graph *g);

/* A nested class by name, searched in g and then its parents; NULL. */
sdb_fx_graph *sdb_fx_graph_sub(const sdb_fx_graph *g, const char *name);
/* The output node (NULL when the body had no return). */
sdb_fx_node *sdb_fx_graph_output(const sdb_fx_graph *g);
/* Nodes of g and its subgraphs, counted recursively. */
size_t sdb_fx_graph_count(const sdb_fx_graph *g);

/* An argument as Python text: `l_x_`, `(0, 1)`, `torch.float32`,
** `slice(None, 2, None)`. Malloc'ed. */
char *sdb_fx_arg_str(const sdb_fx_arg *a);
/* The node as one line: `nonzero = call_method[nonzero](l_x_)`. Malloc'ed. */
char *sdb_fx_node_str(const sdb_fx_node *n);

#endif
