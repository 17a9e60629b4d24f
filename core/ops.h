/*
** ops.h — the operator table: a meta function per operator that computes
** the output's metadata from the inputs' (fake_impls.py / _meta_registrations
** in PyTorch). Meta functions take guards, add runtime asserts and allocate
** unbacked symbols through the mode's ShapeEnv exactly where PyTorch's do.
**
** Arguments come as positional values plus keyword values; the ah_* helpers
** fetch one by position or name with a clear error naming the op and the
** argument. A meta function fills *out (a new value the caller frees) or
** returns an error status. Unsupported ops are an error naming the op.
*/
#ifndef SDB_OPS_H
#define SDB_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "fake.h"
#include "value.h"

typedef struct sdb_kwarg {
  const char *name;
  sdb_value value;
} sdb_kwarg;

typedef struct sdb_args {
  const sdb_value *pos;
  size_t npos;
  const sdb_kwarg *kw;
  size_t nkw;
} sdb_args;

typedef struct sdb_op sdb_op;
typedef int (*sdb_meta_fn)(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                           sdb_value *out, sdb_err *err);

enum {
  SDB_OP_INPLACE = 1 << 0,        /* mutates its first argument (bumps its version) */
  SDB_OP_VIEW = 1 << 1,           /* output aliases the first argument's storage */
  SDB_OP_DATA_DEPENDENT = 1 << 2, /* output shape or value depends on data */
  SDB_OP_FACTORY = 1 << 3,        /* makes a new tensor from sizes */
  SDB_OP_METHOD_ONLY = 1 << 4,    /* t:op() only, no torch.op() */
  SDB_OP_FUNCTION_ONLY = 1 << 5,  /* torch.op() only */
  SDB_OP_CUSTOM = 1 << 6          /* defined at run time (sdb_op_define) */
};

struct sdb_op {
  const char *name;        /* "nonzero", "add", "add_", "sum", ... */
  const char *aten;        /* "aten.nonzero.default", for AOT graphs */
  sdb_meta_fn meta;
  unsigned flags;
  const char *signature;   /* "nonzero(Tensor self) -> Tensor", for help */
};

const sdb_op *sdb_op_find(const char *name);
/* Where keyword `name` comes in op's signature (an order to sort by), or
** -1 when the op takes no such parameter. */
long sdb_op_param_pos(const sdb_op *op, const char *name);
/* By aten-style name, "aten.nonzero.default", "mylib.foo.default". */
const sdb_op *sdb_op_find_aten(const char *aten);
/* The table and then the defined ops. */
size_t sdb_op_count(void);
const sdb_op *sdb_op_at(size_t i);

/* Define (or redefine in place) a custom operator "ns::name"
** (torch.library.custom_op): graphs call it as torch.ops.ns.name.default,
** its meta function gets ud back through sdb_op_ud, and lowering treats it
** as a FallbackKernel. NULL with err on a bad name or OOM. */
const sdb_op *sdb_op_define(const char *qualname, sdb_meta_fn meta, void *ud, sdb_err *err);
void *sdb_op_ud(const sdb_op *op);   /* a defined op's ud, else NULL */

/* Run op's meta function with the op name pushed on the event stream (so
** events it causes say which op). */
int sdb_op_call(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a,
                sdb_value *out, sdb_err *err);
/* By name: SDB_E_UNSUPPORTED "unsupported operator: foo" when unknown. */
int sdb_op_call_name(sdb_fake_mode *m, const char *name, const sdb_args *a,
                     sdb_value *out, sdb_err *err);

/* --- argument helpers: position i or keyword name ------------------------------ */
/* The value, or NULL when absent. */
const sdb_value *ah_get(const sdb_args *a, size_t i, const char *name);
int ah_tensor(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
              sdb_fake **out, sdb_err *err);
/* An int argument (constant or symbolic); dflt when absent (NULL: required). */
int ah_int(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
           const sdb_expr *dflt, const sdb_expr **out, sdb_err *err);
/* A constant int (dims, counts): symbolic values are an error. */
int ah_const_int(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
                 int64_t dflt, bool required, int64_t *out, sdb_err *err);
int ah_bool(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
            bool dflt, bool *out, sdb_err *err);
/* A dtype given as a string ("float32", "torch.int64") or absent (-1). */
int ah_dtype(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
             int *out, sdb_err *err);
/* Sizes: varargs ints from position i on, or one list/tuple at position i. */
int ah_sizes(const sdb_op *op, const sdb_args *a, size_t i, const char *name,
             const sdb_expr **out, int cap, int *n, sdb_err *err);
/* Wrap a dim into [0, ndim) as PyTorch does (ndim 0 accepts -1 and 0). */
int ah_wrap_dim(const sdb_op *op, int64_t dim, int ndim, int64_t *out, sdb_err *err);

/* --- shared meta helpers -------------------------------------------------------- */
/* Broadcast two shapes as torch's _broadcast_shapes does: a size-1 check per
** dim (guard_or_false), then equality of the rest (a guard when backed, a
** runtime assert when unbacked, an error when false). */
int sdb_broadcast_shapes(sdb_shape_env *env, const sdb_expr *const *a, int na,
                         const sdb_expr *const *b, int nb, const sdb_expr **out,
                         int *nout, sdb_err *err);
/* A new contiguous output tensor of the mode. */
sdb_fake *sdb_meta_empty(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                         const sdb_expr *const *sizes, int ndim, sdb_err *err);

#endif
