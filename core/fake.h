/*
** fake.h — FakeTensor and FakeTensorMode (torch/_subclasses/fake_tensor.py):
** tensors that carry only metadata.
**
** A FakeTensor has sizes, strides and a storage offset as expressions, a
** dtype, a device, a storage (shared by views: id, size in elements, and
** the version counter, which PyTorch also shares between views), a
** requires_grad flag and per-tensor memos for nonzero/item/unique stamped
** with the mode's epoch and the version they were computed at.
**
** A FakeTensorMode shares a ShapeEnv and has an epoch; bumping the epoch
** invalidates every memo, so a retrace allocates fresh unbacked symbols
** (seed 003). Creating a mode and bumping its epoch are events.
**
** Ownership: tensors are reference counted (sdb_fake_ref / sdb_fake_unref);
** storages are reference counted by their tensors. A mode outlives its
** tensors' use of it but does not own them.
*/
#ifndef SDB_FAKE_H
#define SDB_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "expr.h"
#include "shape_env.h"
#include "source.h"
#include "symctx.h"

typedef enum sdb_dtype {
  SDB_F32, SDB_F16, SDB_BF16, SDB_F64,
  SDB_I64, SDB_I32, SDB_I16, SDB_I8, SDB_U8,
  SDB_BOOL,
  SDB_DTYPE_COUNT
} sdb_dtype;

const char *sdb_dtype_short(sdb_dtype d);     /* "f32", "i64", "b8" (FX spelling) */
const char *sdb_dtype_name(sdb_dtype d);      /* "torch.float32", ... */
int sdb_dtype_from_name(const char *s);       /* accepts both spellings, "float", "long"...; -1 */
bool sdb_dtype_is_floating(sdb_dtype d);
bool sdb_dtype_is_integral(sdb_dtype d);      /* includes bool */
/* Type promotion for binary ops (torch.result_type on tensors). */
sdb_dtype sdb_dtype_promote(sdb_dtype a, sdb_dtype b);

typedef struct sdb_storage {
  int refcount;
  uint32_t id;
  const sdb_expr *nelems;     /* size in elements */
  int64_t version;            /* the version counter, shared by views */
  uint64_t bumped;            /* sdb_fake_mutation_serial() at the last bump */
} sdb_storage;

/* One memo slot (UnbackedMemoDescriptor): valid while epoch and version match. */
typedef struct sdb_memo {
  const sdb_expr *value;      /* NULL: empty */
  uint64_t epoch;
  int64_t version;
} sdb_memo;

typedef struct sdb_fake_mode sdb_fake_mode;

/* 40 bytes (a long program holds millions: a 48-byte malloc block, 80
** with its fresh storage). Its strides, storage offset and device are
** read through sdb_fake_strides, sdb_fake_offset and sdb_fake_device:
** they live with its sizes, in the block every tensor of its shape at its
** offset on its device shares. Its memos (sdb_memo_get) are kept apart:
** few tensors ever have one. */
typedef struct sdb_fake {
  int refcount;
  uint32_t id;                /* unique per process, for printing and maps */
  int ndim;
  uint8_t dtype;              /* sdb_dtype */
  bool requires_grad;
  bool has_memos;             /* a data-dependent op set a memo on it */
  sdb_fake_mode *mode;        /* the mode that made it (not owned) */
  const sdb_expr *const *sizes;   /* ndim of them, then the strides (interned) */
  sdb_storage *storage;       /* shared with views */
} sdb_fake;

struct sdb_fake_mode {
  uint32_t id;
  sdb_shape_env *env;         /* shared, not owned */
  uint64_t epoch;
  const char *why;            /* "fresh", "trace", ... (interned) */
};

static inline const sdb_expr *const *sdb_fake_strides(const sdb_fake *t) { return t->sizes + t->ndim; }
const char *sdb_fake_device(const sdb_fake *t);   /* "cpu", "cuda:0" (interned) */
const sdb_expr *sdb_fake_offset(const sdb_fake *t);   /* the storage offset */

/* --- modes ------------------------------------------------------------------ */
sdb_fake_mode *sdb_fake_mode_new(sdb_shape_env *env, const char *why);
void sdb_fake_mode_free(sdb_fake_mode *m);
void sdb_fake_mode_bump_epoch(sdb_fake_mode *m);   /* emits epoch_bumped */

/* --- tensors ------------------------------------------------------------------ */
/* A contiguous tensor with the given sizes (expressions; NULL sizes means a
** 0-dim tensor). Strides are computed contiguously, storage is fresh with
** product(sizes) elements, offset 0. NULL on OOM / expression error. */
sdb_fake *sdb_fake_new(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                       const sdb_expr *const *sizes, int ndim);
/* Same with explicit strides and offset, sharing `storage` (a view) or a
** fresh storage when storage is NULL. */
sdb_fake *sdb_fake_new_strided(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                               const sdb_expr *const *sizes,
                               const sdb_expr *const *strides, int ndim,
                               const sdb_expr *offset, sdb_storage *storage);
sdb_fake *sdb_fake_ref(sdb_fake *t);
void sdb_fake_unref(sdb_fake *t);

/* Contiguous strides for sizes (stride[i] = product of sizes after i). */
int sdb_contiguous_strides(const sdb_expr *const *sizes, int ndim,
                           const sdb_expr **out);
/* product(sizes) */
const sdb_expr *sdb_fake_numel(const sdb_fake *t);
bool sdb_fake_is_contiguous(sdb_shape_env *env, const sdb_fake *t);

/* Mutation: bump the version counter shared with every view. */
void sdb_fake_bump_version(sdb_fake *t);
/* Process-wide counters, so a cond can tell in O(1) whether anything was
** mutated or allocated since it started (see hop.c): the number of
** version bumps so far, and the id the next storage will get. */
uint64_t sdb_fake_mutation_serial(void);
/* The id the next tensor made will have (ids only grow). */
uint32_t sdb_fake_next_id(void);
uint32_t sdb_fake_next_storage_id(void);
/* Replace sizes/strides in place (resize_, unsqueeze_, ...): bumps the
** version and keeps the storage; growing the storage (resize_) is the
** caller's business (storage->nelems). */
int sdb_fake_set_metadata(sdb_fake *t, const sdb_expr *const *sizes,
                          const sdb_expr *const *strides, int ndim,
                          const sdb_expr *offset);

/* Memos: the value, or NULL when empty or stale (other epoch or version). */
enum { SDB_MEMO_NONZERO, SDB_MEMO_ITEM, SDB_MEMO_UNIQUE, SDB_MEMO_COUNT };
const sdb_expr *sdb_memo_get(const sdb_fake *t, int which);
/* false on OOM (nothing is remembered) */
bool sdb_memo_set(sdb_fake *t, int which, const sdb_expr *value);

/* --- fakification of inputs ------------------------------------------------------ */
/* Fakify a concrete tensor (sizes as integers) from `source`: each size is
** created through the ShapeEnv under the symbolic context (NULL: DUCK for
** every dim), strides are expressions of the size symbols, and every size,
** stride and the storage offset is tracked for produce_guards. */
int sdb_fakify(sdb_fake_mode *m, const int64_t *sizes, int ndim, sdb_dtype dtype,
               const char *device, bool requires_grad, const sdb_source *source,
               sdb_symctx *ctx, sdb_fake **out, sdb_err *err);
/* The same for a real tensor with these strides (NULL: contiguous), made
** symbolic as ShapeEnv._compute_symbolic_stride does: channels-last and
** transposed inputs keep their layout. */
int sdb_fakify_strided(sdb_fake_mode *m, const int64_t *sizes, const int64_t *strides,
                       int ndim, sdb_dtype dtype, const char *device, bool requires_grad,
                       const sdb_source *source, sdb_symctx *ctx, sdb_fake **out,
                       sdb_err *err);

/* --- printing -------------------------------------------------------------------- */
/* `f32[s0, 2]` (sizes simplified through the ShapeEnv's replacements), with
** strides `f32[s0, 2][2, 1]` when with_strides. Malloc'ed. */
char *sdb_fake_meta_str(const sdb_fake *t, bool with_strides);
/* The same, appended to b (a node line per placed node: no string of its
** own to allocate). */
struct sdb_buf;
void sdb_fake_meta_put(struct sdb_buf *b, const sdb_fake *t, bool with_strides);
/* PyTorch's repr: `FakeTensor(..., size=(s0, 2))` (dtype when not f32,
** requires_grad when set). Malloc'ed. */
char *sdb_fake_repr(const sdb_fake *t);

#endif
