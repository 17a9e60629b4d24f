/*
** decide.h — the guard-free questions PyTorch code asks of a ShapeEnv
** (torch/fx/experimental/symbolic_shapes.py): guard_size_oblivious,
** guard_or_false / guard_or_true, statically_known_true / _false, and the
** branch-free builders sym_max / sym_min / sym_ite.
**
** PyTorch answers them silently; here every answer is an `oblivious`
** event saying what was decided, what was assumed and why (statically, by
** size-oblivious ranges, by a guard on hints, or by the default when the
** expression is data-dependent), so the debugger can stop at it.
**
** The ops' own internal guard_or_false calls (core/ops_*.c) stay silent:
** these are the user-facing entry points.
*/
#ifndef SDB_DECIDE_H
#define SDB_DECIDE_H
#include <stdbool.h>
#include "err.h"
#include "expr.h"
#include "shape_env.h"

/* guard_size_oblivious(b): decided statically with size-like unbacked
** symbols taken as >= 2 (no guard); else a guard on hints, or with an
** unbacked symbol left the data-dependent error. */
int sdb_guard_size_oblivious(sdb_shape_env *env, const sdb_expr *b, bool *out, sdb_err *err);

/* guard_or_false / guard_or_true (fn names which): statically, else a
** guard when every symbol is backed, else dflt with nothing recorded. */
bool sdb_decide_guard_or(sdb_shape_env *env, const sdb_expr *b, bool dflt);

/* statically_known_true(b) (want = true) / statically_known_false(b)
** (want = false): true only when b simplifies to want; never guards. */
bool sdb_decide_statically_known(sdb_shape_env *env, const sdb_expr *b, bool want);

/* Record a builder's result (sym_max, sym_min, sym_ite): call is the
** call as written ("sym_max(u0, 3)"), result its value, why what was
** assumed. */
void sdb_decision_note(sdb_shape_env *env, const char *call, const sdb_expr *result,
                       const char *why);

#endif
