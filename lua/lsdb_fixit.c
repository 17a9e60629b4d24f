/*
** lsdb_fixit.c — the fixes a data-dependent error suggests, written as the
** user would write them in Lua, with the user's names.
**
** PyTorch's _suggest_torch_checks replaces each unbacked symbol of the
** condition with a local of the user's frame that holds it (a SymInt
** `n`, or a tensor's `x.shape[0]`) and says so ("These suggested fixes
** were derived by replacing `u0` with n in u0 > 2 and its negation.");
** when some symbol has no such name it suggests nothing of that kind.
** Here the fixes are Lua: comparisons are methods (`n:gt(2)`, since `>`
** on SymInts guards at once in Lua), sizes are `x:size(0)`, and the names
** come from the locals of the innermost Lua frame of the user's code.
** Without names the message keeps the symbols, as core wrote it.
*/
#include "lsdb_rt.h"

#include "buf.h"
#include "intern.h"
#include "lua_spell.h"
#include "map.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* symbol -> the names that hold it, in the order the locals come */
typedef struct names {
  const sdb_expr *sym[64];
  const char *name[64][4];
  int nname[64];
  int n;
} names;

static void add_name(names *nm, const sdb_expr *sym, const char *name) {
  int i = 0;
  while (i < nm->n && nm->sym[i] != sym) i++;
  if (i == nm->n) {
    if (nm->n == 64) return;
    nm->sym[nm->n] = sym;
    nm->nname[nm->n++] = 0;
  }
  if (nm->nname[i] < 4) nm->name[i][nm->nname[i]++] = name;
}

static const char *name_of(void *ud, const sdb_expr *sym) {
  const names *nm = ud;
  for (int i = 0; i < nm->n; i++)
    if (nm->sym[i] == sym) return nm->name[i][0];
  return NULL;
}

/* The innermost frame of the user's code (a file), and its source line. */
static bool user_frame(lua_State *L, lua_Debug *ar) {
  for (int level = 0; lua_getstack(L, level, ar); level++)
    if (lua_getinfo(L, "Sl", ar) && ar->source[0] == '@' && ar->currentline > 0) return true;
  return false;
}

/* a symbol and what it was renamed to (an aot retrace's u2 -> u0) */
static void add_sym(names *nm, sdb_shape_env *env, const sdb_expr *sym, const char *name) {
  add_name(nm, sym, name);
  const sdb_expr *r = env ? sdb_replacement_of(env, sym) : NULL;
  if (r && r->kind == SDB_SYM) add_name(nm, r, name);
}

static void collect(lua_State *L, lua_Debug *ar, names *nm) {
  sdb_shape_env *env = lsdb_current_env(L);
  const char *name;
  for (int i = 1; (name = lua_getlocal(L, ar, i)); i++) {
    if (name[0] != '(') {
      lsym *s = lsdb_test_sym(L, -1);
      ltensor *t = lsdb_testudata(L, -1, LSDB_TENSOR);
      if (s && s->e && s->e->kind == SDB_SYM) {
        add_sym(nm, env, s->e, sdb_intern(name));
      } else if (t && t->t) {
        for (int d = 0; d < t->t->ndim; d++)
          if (t->t->sizes[d]->kind == SDB_SYM)
            add_sym(nm, env, t->t->sizes[d], sdb_internf("%s:size(%d)", name, d));
      }
    }
    lua_pop(L, 1);
  }
}

/* Does the line compare with an operator inside torch._check(...)? */
static bool check_with_operator(const char *line) {
  const char *p = line ? strstr(line, "torch._check(") : NULL;
  if (!p) return false;
  p += 13;
  for (int depth = 1; *p && depth > 0; p++) {
    if (*p == '(') depth++;
    else if (*p == ')') depth--;
    else if (depth == 1 && (*p == '<' || *p == '>' || (p[0] == '=' && p[1] == '=') ||
                            (p[0] == '~' && p[1] == '=')))
      return true;
  }
  return false;
}

char *lsdb_fixit(lua_State *L, const sdb_expr *cond, const char *code) {
  lua_Debug ar;
  names nm;
  memset(&nm, 0, sizeof nm);
  if (user_frame(L, &ar)) collect(L, &ar, &nm);
  bool missing = false;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf probe = SDB_BUF_INIT;
  sdb_lua_spell(&probe, cond, name_of, &nm, &missing);
  sdb_buf_free(&probe);
  if (missing) return NULL;   /* some symbol has no name: core's text stays */
  const sdb_expr *neg = sdb_not(cond);
  if (!neg) return NULL;
  sdb_buf_puts(&b, "\nTo fix the error, insert one of the following checks before this call:\n");
  sdb_buf_puts(&b, "  1. torch._check(");
  sdb_lua_spell(&b, cond, name_of, &nm, NULL);
  sdb_buf_puts(&b, ")\n  2. torch._check(");
  sdb_lua_spell(&b, neg, name_of, &nm, NULL);
  sdb_buf_puts(&b, ")\n\n(These suggested fixes were derived by replacing ");
  const sdb_expr **fs;
  long n = sdb_free_symbols(cond, &fs);
  /* sorted by name, as PyTorch sorts them */
  for (long i = 1; i < n; i++)
    for (long j = i; j > 0 && strcmp(fs[j - 1]->name, fs[j]->name) > 0; j--) {
      const sdb_expr *t = fs[j - 1];
      fs[j - 1] = fs[j];
      fs[j] = t;
    }
  for (long i = 0; i < n; i++) {
    sdb_buf_printf(&b, "%s`%s` with ", i ? ", " : "", fs[i]->name);
    for (int k = 0; k < nm.n; k++)
      if (nm.sym[k] == fs[i])
        for (int j = 0; j < nm.nname[k]; j++)
          sdb_buf_printf(&b, "%s%s", j ? " or " : "", nm.name[k][j]);
  }
  free(fs);
  char *ct = sdb_expr_str(cond);
  sdb_buf_printf(&b, " in %s and its negation.)", ct ? ct : "?");
  free(ct);
  if (check_with_operator(code))
    sdb_buf_puts(&b, "\n\nThe line compares SymInts with an operator inside torch._check: in Lua "
                     "`<`, `<=`, `>`, `>=` and `==` on SymInts decide at once (a guard), before "
                     "torch._check sees a condition. Write the comparison as a method, as "
                     "above (n:lt(m), n:le(m), n:gt(m), n:ge(m), n:eq(m), n:ne(m)).");
  sdb_buf_cstr(&b);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}

