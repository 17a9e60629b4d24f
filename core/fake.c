/*
** fake.c — FakeTensor and FakeTensorMode (see fake.h).
*/
#include "fake.h"
#include "ptrtab.h"
#include "arena.h"
#include "buf.h"
#include "intern.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- dtypes ------------------------------------------------------------------ */

static const char *const short_names[SDB_DTYPE_COUNT] = {
  "f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "b8",
};
static const char *const long_names[SDB_DTYPE_COUNT] = {
  "torch.float32", "torch.float16", "torch.bfloat16", "torch.float64",
  "torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8",
  "torch.bool",
};

const char *sdb_dtype_short(sdb_dtype d) { return d < SDB_DTYPE_COUNT ? short_names[d] : "?"; }
const char *sdb_dtype_name(sdb_dtype d) { return d < SDB_DTYPE_COUNT ? long_names[d] : "?"; }

int sdb_dtype_from_name(const char *s) {
  if (!s) return -1;
  if (!strncmp(s, "torch.", 6)) s += 6;
  static const struct { const char *alias; sdb_dtype d; } aliases[] = {
    {"float32", SDB_F32}, {"float", SDB_F32}, {"f32", SDB_F32},
    {"float16", SDB_F16}, {"half", SDB_F16}, {"f16", SDB_F16},
    {"bfloat16", SDB_BF16}, {"bf16", SDB_BF16},
    {"float64", SDB_F64}, {"double", SDB_F64}, {"f64", SDB_F64},
    {"int64", SDB_I64}, {"long", SDB_I64}, {"i64", SDB_I64},
    {"int32", SDB_I32}, {"int", SDB_I32}, {"i32", SDB_I32},
    {"int16", SDB_I16}, {"short", SDB_I16}, {"i16", SDB_I16},
    {"int8", SDB_I8}, {"i8", SDB_I8}, {"uint8", SDB_U8}, {"u8", SDB_U8},
    {"bool", SDB_BOOL}, {"b8", SDB_BOOL},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (!strcasecmp(aliases[i].alias, s)) return aliases[i].d;
  return -1;
}

bool sdb_dtype_is_floating(sdb_dtype d) { return d <= SDB_F64; }
bool sdb_dtype_is_integral(sdb_dtype d) { return d >= SDB_I64 && d < SDB_DTYPE_COUNT; }

/* Category first (bool < integral < floating), then width. */
static int dtype_rank(sdb_dtype d) {
  switch (d) {
    case SDB_BOOL: return 0;
    case SDB_U8: return 10;
    case SDB_I8: return 11;
    case SDB_I16: return 12;
    case SDB_I32: return 13;
    case SDB_I64: return 14;
    case SDB_F16: return 20;
    case SDB_BF16: return 21;
    case SDB_F32: return 22;
    case SDB_F64: return 23;
    default: return 0;
  }
}

sdb_dtype sdb_dtype_promote(sdb_dtype a, sdb_dtype b) {
  if (a == b) return a;
  /* f16 with bf16 promotes to f32, as in PyTorch */
  if ((a == SDB_F16 && b == SDB_BF16) || (a == SDB_BF16 && b == SDB_F16)) return SDB_F32;
  /* u8 with i8 promotes to i16 */
  if ((a == SDB_U8 && b == SDB_I8) || (a == SDB_I8 && b == SDB_U8)) return SDB_I16;
  return dtype_rank(a) >= dtype_rank(b) ? a : b;
}

/* --- modes ------------------------------------------------------------------- */

static uint32_t next_mode_id, next_tensor_id, next_storage_id;

sdb_fake_mode *sdb_fake_mode_new(sdb_shape_env *env, const char *why) {
  sdb_fake_mode *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->id = next_mode_id++;
  m->env = env;
  m->why = sdb_intern(why ? why : "fresh");
  sdb_event_in e = {0};
  e.kind = SDB_EV_FAKE_MODE_CREATED;
  e.value = m->id;
  e.text = m->why;
  if (env) sdb_emit(sdb_shape_env_events(env), &e);
  return m;
}

void sdb_fake_mode_free(sdb_fake_mode *m) { free(m); }

void sdb_fake_mode_bump_epoch(sdb_fake_mode *m) {
  m->epoch++;
  sdb_event_in e = {0};
  e.kind = SDB_EV_EPOCH_BUMPED;
  e.value = (int64_t)m->epoch;
  if (m->env) sdb_emit(sdb_shape_env_events(m->env), &e);
}

/* --- tensors -------------------------------------------------------------------- */

int sdb_contiguous_strides(const sdb_expr *const *sizes, int ndim, const sdb_expr **out) {
  const sdb_expr *acc = sdb_int(1);
  for (int i = ndim - 1; i >= 0; i--) {
    out[i] = acc;
    acc = sdb_mul(acc, sizes[i]);
    if (!acc) return -1;
  }
  return 0;
}

static const sdb_expr *product(const sdb_expr *const *v, int n) {
  const sdb_expr *p = sdb_int(1);
  for (int i = 0; i < n && p; i++) p = sdb_mul(p, v[i]);
  return p;
}

/* --- shapes --------------------------------------------------------------------- */

/* A tensor's sizes, strides, storage offset and device are interned:
** every tensor of one shape at one offset on one device points at one
** block (sizes, then strides, the device and offset in its head), as
** expressions are shared. A long program makes millions of tensors in a
** few shapes, and the copy in each was a third of its block. Blocks live
** in an arena until the expressions they hold are reset. */
typedef struct dims_block {
  uint64_t h;
  int ndim;
  const char *device;         /* interned */
  const sdb_expr *offset;     /* the storage offset */
  const sdb_expr *v[];        /* ndim sizes, then ndim strides */
} dims_block;

static sdb_arena dims_arena;
static const dims_block **dims_tab;
static size_t dims_cap, dims_len;

static const dims_block *dims_of(const sdb_fake *t) {
  const char *b = (const char *)(const void *)t->sizes - offsetof(dims_block, v);
  return (const dims_block *)(const void *)b;
}

const char *sdb_fake_device(const sdb_fake *t) { return dims_of(t)->device; }
const sdb_expr *sdb_fake_offset(const sdb_fake *t) { return dims_of(t)->offset; }

static void dims_reset(void) {
  sdb_arena_free(&dims_arena);
  free(dims_tab);
  dims_tab = NULL;
  dims_cap = dims_len = 0;
}

static uint64_t dims_hash(const char *device, const sdb_expr *offset, const sdb_expr *const *sizes,
                          const sdb_expr *const *strides, int ndim) {
  uint64_t h = (0x9E3779B97F4A7C15u ^ (uint64_t)ndim ^ (uintptr_t)device) * 0xff51afd7ed558ccdu;
  h = (h ^ (uintptr_t)offset) * 0xc4ceb9fe1a85ec53u;
  for (int i = 0; i < ndim; i++) {
    h = (h ^ (uintptr_t)sizes[i]) * 0xff51afd7ed558ccdu;
    h = (h ^ (uintptr_t)strides[i]) * 0xc4ceb9fe1a85ec53u;
    h ^= h >> 29;
  }
  return h;
}

static bool dims_grow(void) {
  size_t cap = dims_cap ? dims_cap * 2 : 256;
  const dims_block **t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < dims_cap; i++) {
    if (!dims_tab[i]) continue;
    size_t j = (size_t)dims_tab[i]->h & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = dims_tab[i];
  }
  free(dims_tab);
  dims_tab = t;
  dims_cap = cap;
  return true;
}

/* The shared sizes of this shape on this device (interned; its strides
** follow them), or NULL on OOM. */
static const sdb_expr *const *intern_dims(const char *device, const sdb_expr *offset,
                                          const sdb_expr *const *sizes,
                                          const sdb_expr *const *strides, int ndim) {
  if (!dims_tab && !sdb_expr_on_reset(dims_reset)) return NULL;
  if (dims_len * 4 >= dims_cap * 3 && !dims_grow()) return NULL;
  uint64_t h = dims_hash(device, offset, sizes, strides, ndim);
  size_t j = (size_t)h & (dims_cap - 1);
  size_t n = (size_t)ndim;
  for (const dims_block *b; (b = dims_tab[j]); j = (j + 1) & (dims_cap - 1))
    if (b->h == h && b->ndim == ndim && b->device == device && b->offset == offset &&
        (!n || (!memcmp(b->v, sizes, n * sizeof *sizes) && !memcmp(b->v + n, strides, n * sizeof *strides))))
      return b->v;
  dims_block *b = sdb_arena_alloc(&dims_arena, sizeof *b + 2 * n * sizeof b->v[0], _Alignof(dims_block));
  if (!b) return NULL;
  b->h = h;
  b->ndim = ndim;
  b->device = device;
  b->offset = offset;
  if (n) {   /* a 0-dim tensor may have no arrays */
    memcpy(b->v, sizes, n * sizeof *sizes);
    memcpy(b->v + n, strides, n * sizeof *strides);
  }
  dims_tab[j] = b;
  dims_len++;
  return b->v;
}

/* --- memos ------------------------------------------------------------------------ */

/* Each tensor's SDB_MEMO_COUNT memos, by tensor, for the few tensors a
** data-dependent op set one on (has_memos): a pointer in every tensor cost
** 8 bytes of millions. */
static sdb_ptrtab memo_tab = SDB_PTRTAB_INIT;

static sdb_memo *memos_find(const sdb_fake *t) { return sdb_ptrtab_get(&memo_tab, t); }

/* t's memos, new and empty (t has none) */
static sdb_memo *memos_add(sdb_fake *t) {
  sdb_memo *m = calloc(SDB_MEMO_COUNT, sizeof *m);
  if (!m || !sdb_ptrtab_put(&memo_tab, t, m)) { free(m); return NULL; }
  t->has_memos = true;
  return m;
}

static void memos_drop(sdb_fake *t) {
  free(sdb_ptrtab_remove(&memo_tab, t));
  t->has_memos = false;
}

/* A tensor with its own fresh storage is one block, the storage first:
** [sdb_storage][sdb_fake]. The storage frees the block
** (free(s) is free of its start), so a tensor dead before its views
** leaves its block to the storage until the last view lets go. A malloc
** header and rounding less per fresh tensor, and a malloc call less. */
static bool storage_is_inline(const sdb_fake *t) {
  return t->storage && (const char *)(t->storage + 1) == (const char *)t;
}

sdb_fake *sdb_fake_new_strided(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                               const sdb_expr *const *sizes,
                               const sdb_expr *const *strides, int ndim,
                               const sdb_expr *offset, sdb_storage *storage) {
  if (ndim < 0) return NULL;
  for (int i = 0; i < ndim; i++)
    if (!sizes[i] || !strides[i]) return NULL;
  if (!offset) return NULL;
  const sdb_expr *nelems = NULL;
  if (!storage && !(nelems = product(sizes, ndim))) return NULL;
  const char *dev = sdb_intern(device ? device : "cpu");
  const sdb_expr *const *dims = dev ? intern_dims(dev, offset, sizes, strides, ndim) : NULL;
  size_t own = storage ? 0 : sizeof(sdb_storage);
  char *block = dims ? calloc(1, own + sizeof(sdb_fake)) : NULL;
  if (!block) {   /* callers say why a tensor could not be made from this */
    sdb_expr_set_error("out of memory");
    return NULL;
  }
  sdb_fake *t = (sdb_fake *)(block + own);
  t->refcount = 1;
  t->id = next_tensor_id++;
  t->mode = m;
  t->dtype = (uint8_t)dtype;
  t->ndim = ndim;
  t->sizes = dims;
  if (storage) {
    storage->refcount++;
    t->storage = storage;
  } else {
    sdb_storage *s = (sdb_storage *)block;
    s->refcount = 1;
    s->id = next_storage_id++;
    s->nelems = nelems;
    t->storage = s;
  }
  return t;
}

sdb_fake *sdb_fake_new(sdb_fake_mode *m, sdb_dtype dtype, const char *device,
                       const sdb_expr *const *sizes, int ndim) {
  const sdb_expr *small[16];
  const sdb_expr **strides = ndim <= 16 ? small : malloc((size_t)ndim * sizeof *strides);
  if (!strides) return NULL;
  sdb_fake *t = NULL;
  if (sdb_contiguous_strides(sizes, ndim, strides) == 0)
    t = sdb_fake_new_strided(m, dtype, device, sizes, strides, ndim, sdb_int(0), NULL);
  if (strides != small) free(strides);
  return t;
}

sdb_fake *sdb_fake_ref(sdb_fake *t) {
  if (t) t->refcount++;
  return t;
}

void sdb_fake_unref(sdb_fake *t) {
  if (!t || --t->refcount > 0) return;
  bool inline_storage = storage_is_inline(t);
  if (t->has_memos) memos_drop(t);
  if (t->storage && --t->storage->refcount == 0) free(t->storage);   /* with t, if inline */
  if (!inline_storage) free(t);
}

const sdb_expr *sdb_fake_numel(const sdb_fake *t) { return product(t->sizes, t->ndim); }

bool sdb_fake_is_contiguous(sdb_shape_env *env, const sdb_fake *t) {
  const sdb_expr *want[64];
  if (t->ndim > 64 || sdb_contiguous_strides(t->sizes, t->ndim, want)) return false;
  for (int i = 0; i < t->ndim; i++) {
    const sdb_expr *sz = env ? sdb_simplify(env, t->sizes[i]) : t->sizes[i];
    if (sz && sz->kind == SDB_INT && sz->ival == 1) continue;   /* any stride is fine */
    const sdb_expr *eq = sdb_eq(sdb_fake_strides(t)[i], want[i]);
    if (!eq || !(env ? sdb_statically_known_true(env, eq) : eq->kind == SDB_TRUE)) return false;
  }
  return true;
}

uint32_t sdb_fake_next_id(void) { return next_tensor_id; }

static uint64_t mutation_serial;

void sdb_fake_bump_version(sdb_fake *t) {
  if (t && t->storage) {
    t->storage->version++;
    t->storage->bumped = ++mutation_serial;
  }
}

uint64_t sdb_fake_mutation_serial(void) { return mutation_serial; }
uint32_t sdb_fake_next_storage_id(void) { return next_storage_id; }

int sdb_fake_set_metadata(sdb_fake *t, const sdb_expr *const *sizes,
                          const sdb_expr *const *strides, int ndim,
                          const sdb_expr *offset) {
  const sdb_expr *const *dims = intern_dims(sdb_fake_device(t), offset, sizes, strides, ndim);
  if (!dims) return -1;
  t->sizes = dims;
  t->ndim = ndim;
  sdb_fake_bump_version(t);
  return 0;
}

const sdb_expr *sdb_memo_get(const sdb_fake *t, int which) {
  const sdb_memo *memos = t->has_memos ? memos_find(t) : NULL;
  const sdb_memo *slot = memos ? &memos[which] : NULL;
  if (!slot || !slot->value) return NULL;
  uint64_t epoch = t->mode ? t->mode->epoch : 0;
  int64_t version = t->storage ? t->storage->version : 0;
  if (slot->epoch != epoch || slot->version != version) return NULL;
  return slot->value;
}

bool sdb_memo_set(sdb_fake *t, int which, const sdb_expr *value) {
  sdb_memo *memos = t->has_memos ? memos_find(t) : memos_add(t);
  if (!memos) return false;
  sdb_memo *slot = &memos[which];
  slot->value = value;
  slot->epoch = t->mode ? t->mode->epoch : 0;
  slot->version = t->storage ? t->storage->version : 0;
  return true;
}

/* --- fakification ------------------------------------------------------------------- */

/* Symbolic strides for a real tensor's strides, as ShapeEnv's
** _compute_symbolic_stride finds them: in increasing order of stride
** (the rightmost dim first among equals), a stride of 0 or 1 that does not
** continue the next dim is that constant; one that equals size*stride of a
** dim already done (a candidate) is that product; any other is a symbol
** of its own (STATIC, a constant, when every size is). */
static int symbolic_strides(sdb_fake_mode *m, const int64_t *sizes, const int64_t *strides,
                            const sdb_expr *const *sz, int ndim, const sdb_source *source,
                            const sdb_expr **st, sdb_err *err) {
  int order[64];
  for (int i = 0; i < ndim; i++) order[i] = i;
  for (int i = 1; i < ndim; i++)   /* insertion sort by (stride, -index) */
    for (int j = i; j > 0; j--) {
      int a = order[j - 1], b = order[j];
      if (strides[a] < strides[b] || (strides[a] == strides[b] && a > b)) break;
      order[j - 1] = b;
      order[j] = a;
    }
  bool sizes_static = true;
  for (int i = 0; i < ndim; i++) sizes_static = sizes_static && sdb_is_int(sz[i]);
  int64_t cand_val[64];
  const sdb_expr *cand[64];
  int ncand = 0;
  for (int k = 0; k < ndim; k++) {
    int i = order[k];
    int64_t val = strides[i];
    bool continues = i != ndim - 1 && strides[i] == sizes[i + 1] * strides[i + 1];
    const sdb_expr *s = NULL;
    if ((val == 0 || val == 1) && !continues) s = sdb_int(val);
    for (int c = ncand - 1; !s && c >= 0; c--)
      if (cand_val[c] == val) s = cand[c];
    if (!s && sizes_static) s = sdb_int(val);
    if (!s) {
      sdb_dim_spec spec = {SDB_DIM_DUCK, false, false, 0, 0, false};
      const sdb_source *at = sdb_source_stride(source, i);
      if (source && !at) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
      int rc = sdb_create_symbol(m->env, val, at, &spec, NULL, &s, err);
      if (rc) return rc;
    }
    st[i] = s;
    /* the latest candidate of a value wins, as a dict update does */
    cand_val[ncand] = sizes[i] * val;
    cand[ncand] = sdb_mul(sz[i], s);
    if (!cand[ncand]) return sdb_err_expr(err);
    ncand++;
  }
  return SDB_OK;
}

int sdb_fakify(sdb_fake_mode *m, const int64_t *sizes, int ndim, sdb_dtype dtype,
               const char *device, bool requires_grad, const sdb_source *source,
               sdb_symctx *ctx, sdb_fake **out, sdb_err *err) {
  return sdb_fakify_strided(m, sizes, NULL, ndim, dtype, device, requires_grad, source, ctx,
                            out, err);
}

int sdb_fakify_strided(sdb_fake_mode *m, const int64_t *sizes, const int64_t *strides,
                       int ndim, sdb_dtype dtype, const char *device, bool requires_grad,
                       const sdb_source *source, sdb_symctx *ctx, sdb_fake **out,
                       sdb_err *err) {
  *out = NULL;
  if (ndim < 0 || ndim > 64)
    return sdb_err_set(err, SDB_E_INVALID, "ValueError", "tensors have 0 to 64 dims, not %d", ndim);
  const sdb_expr *sz[64] = {0}, *st[64] = {0};
  for (int i = 0; i < ndim; i++) {
    if (sizes[i] < 0)
      return sdb_err_set(err, SDB_E_INVALID, "ValueError", "negative size %lld for %s dim %d",
                         (long long)sizes[i], source ? source->name : "tensor", i);
    sdb_dim_spec spec = sdb_symctx_dim(ctx, (size_t)i);
    const sdb_source *at = sdb_source_size(source, i);
    if (source && !at) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
    int rc = sdb_create_symbol(m->env, sizes[i], at, &spec, ctx, &sz[i], err);
    if (rc) return rc;
  }
  /* PyTorch infers strides from the sizes (candidates), so they are
  ** expressions of the size symbols, not symbols of their own */
  if (!strides) {
    if (sdb_contiguous_strides(sz, ndim, st)) return sdb_err_expr(err);
  } else {
    for (int i = 0; i < ndim; i++)
      if (strides[i] < 0)
        return sdb_err_set(err, SDB_E_INVALID, "ValueError", "negative stride %lld for %s dim %d",
                           (long long)strides[i], source ? source->name : "tensor", i);
    int rc = symbolic_strides(m, sizes, strides, sz, ndim, source, st, err);
    if (rc) return rc;
  }
  for (int i = 0; i < ndim; i++)
    if (!sdb_track(m->env, sdb_source_stride(source, i), st[i]))
      return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  if (!sdb_track(m->env, sdb_source_storage_offset(source), sdb_int(0)))
    return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  sdb_fake *t = sdb_fake_new_strided(m, dtype, device, sz, st, ndim, sdb_int(0), NULL);
  if (!t) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  t->requires_grad = requires_grad;
  *out = t;
  return SDB_OK;
}

/* --- printing ------------------------------------------------------------------------ */

static void put_dims(sdb_buf *b, const sdb_fake *t, const sdb_expr *const *v) {
  sdb_buf_putc(b, '[');
  for (int i = 0; i < t->ndim; i++) {
    if (i) sdb_buf_puts(b, ", ");
    const sdb_expr *e = t->mode && t->mode->env ? sdb_simplify(t->mode->env, v[i]) : v[i];
    const char *s = sdb_expr_cstr(e ? e : v[i]);
    if (s) sdb_buf_puts(b, s);
    else b->failed = true;
  }
  sdb_buf_putc(b, ']');
}

void sdb_fake_meta_put(sdb_buf *b, const sdb_fake *t, bool with_strides) {
  sdb_buf_puts(b, sdb_dtype_short(t->dtype));
  put_dims(b, t, t->sizes);
  if (with_strides) put_dims(b, t, sdb_fake_strides(t));
}

char *sdb_fake_meta_str(const sdb_fake *t, bool with_strides) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_fake_meta_put(&b, t, with_strides);
  return sdb_buf_take(&b);
}

char *sdb_fake_repr(const sdb_fake *t) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_puts(&b, "FakeTensor(...");
  if (strcmp(sdb_fake_device(t), "cpu")) sdb_buf_printf(&b, ", device='%s'", sdb_fake_device(t));
  sdb_buf_puts(&b, ", size=(");
  for (int i = 0; i < t->ndim; i++) {
    if (i) sdb_buf_puts(&b, ", ");
    const sdb_expr *e = t->mode && t->mode->env ? sdb_simplify(t->mode->env, t->sizes[i]) : t->sizes[i];
    char *s = sdb_expr_str(e ? e : t->sizes[i]);
    if (!s) {   /* out of memory: no repr, rather than one with a size missing */
      sdb_buf_free(&b);
      return NULL;
    }
    sdb_buf_puts(&b, s);
    free(s);
  }
  if (t->ndim == 1) sdb_buf_putc(&b, ',');
  sdb_buf_putc(&b, ')');
  if (t->dtype != SDB_F32) sdb_buf_printf(&b, ", dtype=%s", sdb_dtype_name(t->dtype));
  if (t->requires_grad) sdb_buf_puts(&b, ", requires_grad=True");
  sdb_buf_putc(&b, ')');
  return sdb_buf_take(&b);
}
