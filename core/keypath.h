/*
** keypath.h — where a fresh unbacked symbol lives in an op's output, and
** the bookkeeping around it (seed 001, seed 003):
**
**   key paths as pytree.keystr prints them: `.size()[0]`, `.stride()[1]`,
**   `.storage_offset()`, `[0].size()[0]`, the empty path for item(),
**   `.cast_symbool_to_symint_guardless()`, `.size()[0].__floordiv__(4)`;
**   compute_unbacked_bindings: find each pending symbol in the value;
**   rebind_unbacked: after re-propagation, rename each fresh symbol back to
**   the one the old binding names (ShapeEnv's rename_unbacked_to).
*/
#ifndef SDB_KEYPATH_H
#define SDB_KEYPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "shape_env.h"
#include "value.h"

typedef enum sdb_key_kind {
  SDB_KEY_SIZE,            /* CallMethodKey("size") */
  SDB_KEY_STRIDE,          /* CallMethodKey("stride") */
  SDB_KEY_STORAGE_OFFSET,  /* CallMethodKey("storage_offset") */
  SDB_KEY_INDEX,           /* SequenceKey(i): [i] */
  SDB_KEY_CONVERT_INT,     /* ConvertIntKey(): a SymBool as 0/1 */
  SDB_KEY_DIVIDE           /* DivideByKey(d): .__floordiv__(d) */
} sdb_key_kind;

/* 16 bytes: a key path holds eight, and every node binding an unbacked
** symbol holds a path per symbol. */
typedef struct sdb_key {
  uint8_t kind;
  union {
    int64_t index;           /* SDB_KEY_INDEX */
    const sdb_expr *divisor; /* SDB_KEY_DIVIDE: an Integer or a backed symbol */
  };
} sdb_key;

#define SDB_KEYPATH_MAX 8
typedef struct sdb_keypath {
  uint8_t n;
  sdb_key k[SDB_KEYPATH_MAX];
} sdb_keypath;

/* pytree.keystr: the keys' strings joined. Returns buf. */
char *sdb_keypath_str(const sdb_keypath *p, char *buf, size_t cap);
/* The call form used in wrapper code: `.size(0)`, `.stride(1)`,
** `.storage_offset()`, `[0]`, `.item()` for the empty path... Returns buf. */
char *sdb_keypath_call_str(const sdb_keypath *p, char *buf, size_t cap);
/* Parse the keystr form back (saved traces). false if it is not one. */
bool sdb_keypath_parse(const char *s, sdb_keypath *out);

/* pytree.key_get: the integer expression at path in v. A SymBool read
** through `.cast_symbool_to_symint_guardless()` gives its 0/1 integer:
** `Eq(u1, 1)` with u1 in [0, 1] gives u1 back (seed 003's simplification).
** NULL (with err) when the path does not fit the value. */
const sdb_expr *sdb_keypath_get(sdb_shape_env *env, const sdb_value *v,
                                const sdb_keypath *p, sdb_err *err);

/* The first path at which v holds exactly sym (a size, stride, offset or
** scalar), in compute_unbacked_bindings' order. */
bool sdb_keypath_find(const sdb_value *v, const sdb_expr *sym, sdb_keypath *out);

/* The one shared copy of path p (paths are few: ".size()[0]", "[1]"...),
** kept until the expressions are reset; NULL on OOM. */
const sdb_keypath *sdb_keypath_intern(const sdb_keypath *p);

/* 16 bytes, the path shared: a long program binds a symbol or two on each
** data-dependent node, in each phase, and a path of its own was 136. */
typedef struct sdb_binding {
  const sdb_expr *sym;
  const sdb_keypath *path;   /* interned (sdb_keypath_intern) */
} sdb_binding;

typedef struct sdb_bindings {
  sdb_binding *v;
  size_t n;
} sdb_bindings;

void sdb_bindings_free(sdb_bindings *b);
bool sdb_bindings_copy(sdb_bindings *dst, const sdb_bindings *src);
/* "u0: .size()[0], u1: <value>" ("" when empty; the empty path of item()
** reads `<value>`). Malloc'ed. */
char *sdb_bindings_str(const sdb_bindings *b);

/* compute_unbacked_bindings: find every pending fresh symbol in v (sizes,
** then strides, then storage offset of each tensor; into tuples/lists; the
** value itself for scalars) and return its key path. With !peek the pending
** list is cleared (pending_changed {}); a pending symbol not found is
** SDB_E_PENDING_NOT_FOUND with PyTorch's message. Only fresh symbols get a
** binding (a size that flowed in is not fresh). */
int sdb_compute_unbacked_bindings(sdb_shape_env *env, const sdb_value *v,
                                  bool peek, sdb_bindings *out, sdb_err *err);

/* rebind_unbacked: for each old binding (names resolved through earlier
** renamings), read the symbol at its path in new_value; a new unbacked
** symbol there is renamed to the old one (rename_unbacked_to, `why`). A
** constant or backed value is discarded; the same symbol twice is PyTorch's
** "possible memo disaster" assertion. */
int sdb_rebind_unbacked(sdb_shape_env *env, const sdb_bindings *old,
                        const sdb_value *new_value, const char *why, sdb_err *err);

#endif
