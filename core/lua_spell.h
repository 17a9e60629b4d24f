/*
** lua_spell.h — expressions as a Lua program writes them, for suggested
** fixes: comparisons are methods (`n:gt(2)`, since `>` on SymInts guards
** at once in Lua), Max/Min are torch.sym_max/sym_min, And/Or/Not are
** torch.sym_and/sym_or/sym_not, and each symbol is written as the caller's
** namer names it (a local `n`, `x:size(0)`), PyTorch's
** _suggest_torch_checks done in Lua.
*/
#ifndef SDB_LUA_SPELL_H
#define SDB_LUA_SPELL_H

#include <stdbool.h>

#include "buf.h"
#include "expr.h"

/* The user's name for a symbol, or NULL when it has none. */
typedef const char *(*sdb_namer)(void *ud, const sdb_expr *sym);

/* Append e in Lua spelling; a symbol fn does not name is written as
** itself and sets *missing (when missing is not NULL). */
void sdb_lua_spell(sdb_buf *b, const sdb_expr *e, sdb_namer fn, void *ud, bool *missing);

/* "torch._check(COND)": in Lua with the user's names when fn names every
** symbol of cond, else as core prints it (`u0 > 2`). Caller frees; NULL
** on OOM. */
char *sdb_check_suggestion(const sdb_expr *cond, sdb_namer fn, void *ud);

#endif
