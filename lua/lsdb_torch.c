/*
** lsdb_torch.c — the `torch` table: tensors, SymInt/SymBool/SymFloat, every
** operator of core/ops as torch.op(...) and t:op(...), torch._check, and the
** trace primitives that lua/torch.lua builds torch.compile on.
**
** Outside a trace, tensors are "real": concrete sizes in an eager fake mode
** with no symbols. Inside a trace (a Trace object is active), operators go
** through the innermost tracer: meta function, graph node, bindings.
**
** SymInt/SymBool metamethods live in lsdb_sym.c, Trace objects in
** lsdb_trace.c.
**
** A SymInt userdata holds its expression and, when it was produced while
** tracing, the node that produced it: passing it to an op uses that node as
** its proxy (`size = l_x_.size(0)` then `mul = size * 2`). Comparing SymInts
** with < <= == takes a guard through the ShapeEnv, as bool(SymBool) does.
*/
#include "lsdb_rt.h"
#include "buf.h"
#include "fake.h"
#include "graph.h"
#include "intern.h"
#include "keypath.h"
#include "ops.h"
#include "shape_env.h"
#include "srcfile.h"
#include "tracer.h"

#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------------
** Runtime: one per Lua state, in the registry
** ---------------------------------------------------------------------- */

static bool runtime_locate(void *ud, sdb_loc *out) {
  lruntime *rt = ud;
  if (rt->loc_scope && rt->loc_have) {
    *out = rt->loc;
    return rt->loc_ok;
  }
  bool ok = lsdb_locate(rt->L, out);
  if (rt->loc_scope) {
    rt->loc = *out;
    rt->loc_ok = ok;
    rt->loc_have = true;
  }
  return ok;
}

/* Around the core's part of an op call (it reports errors by return
** code: nothing unwinds past the end of the scope). */
static void loc_scope(lruntime *rt, bool on) {
  rt->loc_scope = on;
  rt->loc_have = false;
  lsdb_stack_still(rt->L, on);
}

static int runtime_gc(lua_State *L) {
  lruntime *rt = lua_touserdata(L, 1);
  sdb_fake_mode_free(rt->eager_mode);
  sdb_shape_env_free(rt->eager_env);
  sdb_events_free(rt->ev);
  rt->eager_mode = NULL;
  rt->eager_env = NULL;
  rt->ev = NULL;
  return 0;
}

/* The runtime userdata lives under its own registry key; LSDB_RUNTIME names
** its metatable. */
#define RUNTIME_KEY "shapedb.runtime.instance"

/* Which active trace does code on thread L see? The innermost one whose
** thread is L, or is running and has resumed L (lua_status LUA_OK). A
** trace whose thread is suspended — a coroutine yielded inside the traced
** function and was left there, or the debugger paused the program — is
** invisible elsewhere: later compiles and Lua typed at the prompt must not
** add to it. It becomes visible again when its thread resumes. */
void lsdb_sync_active(lruntime *rt, lua_State *L) {
  ltrace *t = rt->top;
  while (t && t->thread != L && lua_status(t->thread) != LUA_OK) t = t->prev_active;
  rt->active = t;
}

static lruntime *runtime(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, RUNTIME_KEY);
  lruntime *rt = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!rt) luaL_error(L, "shapedb runtime is not initialised");
  rt->L = L;
  lsdb_stack_settle(L);
  if (rt->top) lsdb_sync_active(rt, L);
  return rt;
}

lruntime *lsdb_runtime(lua_State *L) { return runtime(L); }


sdb_events *lsdb_events(lua_State *L) { return runtime(L)->ev; }
void lsdb_set_thread(lua_State *L, lua_State *thread) { runtime(L)->L = thread; }

/* ------------------------------------------------------------------------
** Tensors and symbolic scalars
** ---------------------------------------------------------------------- */

void lsdb_push_tensor(lua_State *L, sdb_fake *t) {
  ltensor *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->t = sdb_fake_ref(t);
  u->dynamic_dims = 0;
  luaL_setmetatable(L, LSDB_TENSOR);
}

/* A tensor whose __gc ran (called by hand: the metatables are protected,
** but debug.getmetatable reaches them) is an error, not a NULL. */
ltensor *lsdb_check_ltensor(lua_State *L, int idx) {
  ltensor *u = lsdb_checkudata(L, idx, LSDB_TENSOR);
  if (!u->t) luaL_error(L, "Tensor is closed (its __gc was called)");
  return u;
}

static sdb_fake *check_tensor(lua_State *L, int idx) { return lsdb_check_ltensor(L, idx)->t; }

static int tensor_gc(lua_State *L) {
  ltensor *u = lsdb_checkudata(L, 1, LSDB_TENSOR);
  sdb_fake_unref(u->t);
  u->t = NULL;
  return 0;
}

static sdb_shape_env *current_env(lua_State *L) {
  lruntime *rt = runtime(L);
  return rt->active ? rt->active->env : rt->eager_env;
}

sdb_shape_env *lsdb_current_env(lua_State *L) { return current_env(L); }

/* SymBools built while a trace is active, per trace: the registry table
** SYMBOOLS_KEY maps the trace (light userdata) to a list of them, checked
** for unused ones when the trace finishes. */
#define SYMBOOLS_KEY "shapedb.symbools"

void lsdb_symbools_list(lua_State *L, const ltrace *t, bool create) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SYMBOOLS_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    if (!create) { lua_pushnil(L); return; }
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, SYMBOOLS_KEY);
  }
  lua_pushlightuserdata(L, (void *)t);
  if (lua_rawget(L, -2) != LUA_TTABLE && create) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushlightuserdata(L, (void *)t);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  lua_remove(L, -2);
}

void lsdb_symbools_drop(lua_State *L, const ltrace *t) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SYMBOOLS_KEY) == LUA_TTABLE) {
    lua_pushlightuserdata(L, (void *)t);
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

static void push_sym(lua_State *L, const char *mt, const sdb_expr *e, sdb_node *node,
                     const sdb_tracer *tr, sdb_shape_env *env) {
  lsym *s = lua_newuserdatauv(L, sizeof *s, 0);
  memset(s, 0, sizeof *s);
  s->e = e;
  s->node = node;
  s->tracer = tr;
  s->env = env;
  luaL_setmetatable(L, mt);
  lruntime *rt = runtime(L);
  if (!strcmp(mt, LSDB_SYMBOOL) && rt->active) {
    sdb_loc loc;
    if (sdb_events_locate(rt->ev, &loc)) {
      s->file = loc.file;
      s->line = loc.line;
    }
    static uint32_t serial;
    lsdb_symbools_list(L, rt->active, true);
    s->slot = (uint32_t)lua_rawlen(L, -1) + 1;
    s->serial = ++serial;
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, (lua_Integer)s->slot);
    lua_pop(L, 1);
  }
}

/* The list holds only the unused ones: a SymBool read leaves it, the last
** taking its place. It is a table the program writes to at every op, and
** Lua's generational collector traverses such a table whole at each minor
** collection: holding every SymBool of a long trace made that quadratic. */
void lsdb_symbool_mark_used(lua_State *L, int idx, lsym *s) {
  if (!s || s->used) return;
  s->used = true;
  lruntime *rt = runtime(L);
  if (!s->slot || !rt->active) return;
  idx = lua_absindex(L, idx);
  lsdb_symbools_list(L, rt->active, false);
  int list = lua_gettop(L);
  /* listed here? (its trace may have ended, another be active) */
  bool here = lua_istable(L, list) && lua_rawgeti(L, list, (lua_Integer)s->slot) == LUA_TUSERDATA &&
              lua_rawequal(L, -1, idx);
  lua_settop(L, list);
  if (here) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    if (n != (lua_Integer)s->slot && lua_rawgeti(L, list, n) == LUA_TUSERDATA) {
      lsym *last = lua_touserdata(L, -1);
      last->slot = s->slot;
      lua_rawseti(L, list, (lua_Integer)s->slot);
    }
    lua_settop(L, list);
    lua_pushnil(L);
    lua_rawseti(L, list, n);
    s->slot = 0;
  }
  lua_settop(L, list - 1);
}

/* A symbolic scalar used while a trace is active must belong to that
** trace's ShapeEnv, as a tensor must be one of its inputs or made inside
** it: a SymInt kept from another compile would otherwise silently stand
** for whatever symbol has the same name here. */
lsym *lsdb_own_sym(lua_State *L, lsym *s) {
  if (!s || !s->env || sdb_is_const(s->e)) return s;
  lruntime *rt = runtime(L);
  if (!rt->active || rt->active->env == s->env) return s;
  char *t = sdb_expr_str(s->e);
  lua_pushfstring(L, "RuntimeError: %s %s was not created inside the traced function and is "
                     "not one of its inputs (it comes from another compile; pass it as an argument)",
                  sdb_is_bool(s->e) ? "SymBool" : "SymInt", t ? t : "?");
  free(t);
  lua_error(L);
  return NULL;
}

/* A SymBool argument, marked as read. */
lsym *lsdb_symbool_use(lua_State *L, int idx) {
  lsym *s = lsdb_testudata(L, idx, LSDB_SYMBOOL);
  lsdb_symbool_mark_used(L, idx, s);
  return lsdb_own_sym(L, s);
}

/* An int/bool/float value to Lua: constants as numbers/booleans. */

void lsdb_push_scalar(lua_State *L, const sdb_value *v, sdb_node *node) {
  lruntime *rt = runtime(L);
  const sdb_tracer *tr = rt->active ? rt->active->tracer : NULL;
  sdb_shape_env *env = rt->active ? rt->active->env : rt->eager_env;
  switch (v->kind) {
    case SDB_V_INT:
      if (v->expr->kind == SDB_INT) lua_pushinteger(L, v->expr->ival);
      else push_sym(L, LSDB_SYMINT, v->expr, node, tr, env);
      break;
    case SDB_V_BOOL:
      if (sdb_is_const(v->expr)) lua_pushboolean(L, v->expr->kind == SDB_TRUE);
      else push_sym(L, LSDB_SYMBOOL, v->expr, node, tr, env);
      break;
    case SDB_V_FLOAT:
      if (v->expr) push_sym(L, LSDB_SYMFLOAT, v->expr, node, tr, env);
      else lua_pushnumber(L, v->fval);
      break;
    default: lua_pushnil(L); break;
  }
}

void lsdb_push_value(lua_State *L, const sdb_value *v, sdb_node *node) {
  switch (v->kind) {
    case SDB_V_TENSOR: lsdb_push_tensor(L, v->tensor); break;
    case SDB_V_INT: case SDB_V_BOOL: case SDB_V_FLOAT: lsdb_push_scalar(L, v, node); break;
    case SDB_V_STR: lua_pushstring(L, v->str); break;
    case SDB_V_LIST: case SDB_V_TUPLE:
      lua_createtable(L, (int)v->n, 0);
      for (size_t i = 0; i < v->n; i++) {
        lsdb_push_value(L, &v->items[i], NULL);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      break;
    default: lua_pushnil(L); break;
  }
}

/* Lua value -> sdb_value (tensors referenced, not copied). Returns false if
** the value has no meaning as an op argument. */

static bool value_oom;   /* lsdb_to_value_oom */

bool lsdb_to_value_oom(void) { return value_oom; }

static bool table_to_list(lua_State *L, int idx, sdb_value *out) {
  size_t n = lua_rawlen(L, idx);
  *out = sdb_value_seq(SDB_V_LIST, n);
  if (n && !out->items) return !(value_oom = true);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, idx, (lua_Integer)i + 1);
    bool ok = lsdb_to_value(L, lua_gettop(L), &out->items[i]);
    lua_pop(L, 1);
    if (!ok) { sdb_value_free(out); return false; }
  }
  return true;
}

bool lsdb_to_value(lua_State *L, int idx, sdb_value *out) {
  lsym *s;
  value_oom = false;   /* a failure returns at once: the innermost one's says */
  switch (lua_type(L, idx)) {
    case LUA_TNIL: *out = SDB_VALUE_NONE; return true;
    case LUA_TBOOLEAN: *out = sdb_value_bool(sdb_bool(lua_toboolean(L, idx))); return true;
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) *out = sdb_value_int64(lua_tointeger(L, idx));
      else *out = sdb_value_float(lua_tonumber(L, idx));
      /* an integer's expression is interned: none means no memory, not a bad type */
      if (out->kind == SDB_V_INT && !out->expr) return !(value_oom = true);
      return true;
    case LUA_TSTRING: *out = sdb_value_string(lua_tostring(L, idx)); return true;
    case LUA_TTABLE: return table_to_list(L, idx, out);
    case LUA_TUSERDATA:
      if (lsdb_testudata(L, idx, LSDB_TENSOR)) { *out = sdb_value_tensor(check_tensor(L, idx)); return true; }
      if ((s = lsdb_own_sym(L, lsdb_testudata(L, idx, LSDB_SYMINT)))) { *out = sdb_value_int(s->e); return true; }
      if ((s = lsdb_symbool_use(L, idx))) { *out = sdb_value_bool(s->e); return true; }
      if ((s = lsdb_own_sym(L, lsdb_testudata(L, idx, LSDB_SYMFLOAT)))) { *out = sdb_value_symfloat(s->e); return true; }
      if (lsdb_testudata(L, idx, LSDB_EXPR)) {
        const sdb_expr *e = lsdb_to_expr(L, idx);
        *out = sdb_is_bool(e) ? sdb_value_bool(e) : sdb_value_int(e);
        return true;
      }
      return false;
    default: return false;
  }
}

/* While tracing, a symbolic argument that carries its producer node makes
** that node its proxy (latest wins), as the Dynamo variable would. */
void lsdb_adopt_proxy(lua_State *L, int idx, sdb_tracer *tr) {
  lsym *s = NULL;
  if (!tr || lua_type(L, idx) != LUA_TUSERDATA) return;
  if (!(s = lsdb_testudata(L, idx, LSDB_SYMINT)) && !(s = lsdb_symbool_use(L, idx)) &&
      !(s = lsdb_testudata(L, idx, LSDB_SYMFLOAT)))
    return;
  if (!s->node) return;
  if (s->tracer == tr) {
    if (!sdb_map_put(&tr->sym_proxy, s->e, s->node)) tr->oom = true;
    return;
  }
  /* computed in an enclosing tracer (a closure over it): lift that node */
  if (!sdb_tracer_encloses(s->tracer, tr)) return;
  sdb_value ex = lsdb_testudata(L, idx, LSDB_SYMINT) ? sdb_value_int(s->e)
               : lsdb_testudata(L, idx, LSDB_SYMFLOAT) ? sdb_value_symfloat(s->e)
               : sdb_value_bool(s->e);
  sdb_err err = SDB_ERR_INIT;
  sdb_node *ph = sdb_tracer_lift_proxy(tr, s->tracer, s->node, &ex, &err);
  if (!ph) lsdb_raise(L, &err);
}

/* ------------------------------------------------------------------------
** Argument marshalling for ops: positional values, then an optional
** trailing table of keyword arguments ({ dim = 0, keepdim = true }).
** Values live in a userdata on the stack so a Lua error cannot leak them.
** ---------------------------------------------------------------------- */


static int argbox_gc(lua_State *L) {
  argbox *b = lua_touserdata(L, 1);
  for (size_t i = 0; i < b->npos; i++) sdb_value_free(&b->pos[i]);
  for (size_t i = 0; i < b->nkw; i++) sdb_value_free(&b->kw[i].value);
  b->npos = b->nkw = 0;
  return 0;
}

static bool is_kwargs_table(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || lua_rawlen(L, idx) > 0) return false;
  lua_pushnil(L);
  bool any = false, strkeys = true;
  while (lua_next(L, idx)) {
    any = true;
    if (lua_type(L, -2) != LUA_TSTRING) strkeys = false;
    lua_pop(L, 1);
  }
  return any && strkeys;
}

#define LSDB_ARGBOX "shapedb.argbox"

argbox *lsdb_new_argbox_n(lua_State *L, size_t npos, size_t nkw) {
  /* header, then the values (sdb_value's alignment suits both arrays) */
  size_t head = (sizeof(argbox) + _Alignof(sdb_value) - 1) / _Alignof(sdb_value) * _Alignof(sdb_value);
  argbox *b = lua_newuserdatauv(L, head + npos * sizeof(sdb_value) + nkw * sizeof(sdb_kwarg), 0);
  b->pos = (sdb_value *)((char *)b + head);
  b->kw = (sdb_kwarg *)(b->pos + npos);
  b->npos = b->nkw = 0;
  b->cap_pos = npos;
  b->cap_kw = nkw;
  luaL_setmetatable(L, LSDB_ARGBOX);   /* one shared metatable: its __gc frees the values */
  return b;
}

argbox *lsdb_new_argbox(lua_State *L) { return lsdb_new_argbox_n(L, 1, 0); }

/* A Lua table's keys come in an order that changes from run to run (its
** strings' hashes are seeded at start-up), where Python keeps the call's:
** keyword arguments are put in the order of the op's signature (unknown
** names last, by name), so graphs, traces and errors read the same each
** run. */
static void sort_kwargs(const char *opname, sdb_kwarg *kw, size_t n) {
  if (n < 2) return;   /* most calls: no lookup */
  const sdb_op *op = sdb_op_find(opname);
  for (size_t i = 1; i < n; i++) {
    sdb_kwarg k = kw[i];
    long pk = sdb_op_param_pos(op, k.name);
    size_t j = i;
    for (; j > 0; j--) {
      long pj = sdb_op_param_pos(op, kw[j - 1].name);
      bool after = pj >= 0 ? pk >= 0 && pj > pk                           /* both known */
                           : pk >= 0 || strcmp(kw[j - 1].name, k.name) > 0;   /* unknown last */
      if (!after) break;
      kw[j] = kw[j - 1];
    }
    kw[j] = k;
  }
}

static argbox *collect_args(lua_State *L, const char *opname, int first, int last,
                            sdb_tracer *tr) {
  bool has_kw = last >= first && is_kwargs_table(L, last);
  size_t nkw = 0;
  if (has_kw) {
    lua_pushnil(L);
    while (lua_next(L, last)) { nkw++; lua_pop(L, 1); }
  }
  int npos = last - first + 1 - (has_kw ? 1 : 0);
  if (npos > MAX_ARGS) luaL_error(L, "%s: too many arguments", opname);
  if (nkw > MAX_ARGS) luaL_error(L, "%s: too many keyword arguments", opname);
  argbox *b = lsdb_new_argbox_n(L, npos > 0 ? (size_t)npos : 0, nkw);
  int box = lua_gettop(L);
  if (has_kw) {
    lua_pushnil(L);
    while (lua_next(L, last)) {
      if (b->nkw == b->cap_kw) luaL_error(L, "%s: too many keyword arguments", opname);
      lsdb_adopt_proxy(L, lua_gettop(L), tr);
      if (!lsdb_to_value(L, lua_gettop(L), &b->kw[b->nkw].value))
        luaL_error(L, lsdb_to_value_oom() ? "%s: out of memory" : "%s: keyword '%s' has an unsupported value (%s)",
                   opname, lua_tostring(L, -2), luaL_typename(L, -1));
      b->kw[b->nkw].name = sdb_intern(lua_tostring(L, -2));
      if (!b->kw[b->nkw].name) luaL_error(L, "out of memory");
      b->nkw++;
      lua_pop(L, 1);
    }
    sort_kwargs(opname, b->kw, b->nkw);
    last--;
  }
  for (int i = first; i <= last; i++) {
    if (b->npos == b->cap_pos) luaL_error(L, "%s: too many arguments", opname);
    lsdb_adopt_proxy(L, i, tr);
    if (!lsdb_to_value(L, i, &b->pos[b->npos]))
      luaL_error(L, lsdb_to_value_oom() ? "%s: out of memory" : "%s: argument %d has an unsupported type (%s)",
                 opname, i - first + 1, luaL_typename(L, i));
    b->npos++;
  }
  lua_settop(L, box);
  return b;
}

/* Push the results of an op: a tuple as several values, else one. */
static int push_results(lua_State *L, const sdb_value *out, sdb_node *node, sdb_tracer *tr) {
  if (out->kind == SDB_V_TUPLE) {
    luaL_checkstack(L, (int)out->n + 2, "too many results");
    for (size_t i = 0; i < out->n; i++) {
      sdb_node *item_node = NULL;
      if (tr && out->items[i].expr && !sdb_is_const(out->items[i].expr))
        item_node = sdb_map_get(&tr->sym_proxy, out->items[i].expr);
      lsdb_push_value(L, &out->items[i], item_node);
    }
    return (int)out->n;
  }
  lsdb_push_value(L, out, node);
  return 1;
}

/* Every op: upvalue 1 = sdb_op*, upvalue 2 = method? */
static int l_op(lua_State *L) {
  const sdb_op *op = lua_touserdata(L, lua_upvalueindex(1));
  bool method = lua_toboolean(L, lua_upvalueindex(2));
  if (method && !lsdb_testudata(L, 1, LSDB_TENSOR)) {   /* y.sum(): Python's '.' */
    /* torch.NAME(t, ...) too, where torch has it */
    bool fn = false;
    if (lua_getglobal(L, "torch") == LUA_TTABLE) {   /* raw: torch's __index raises for unknown ops */
      lua_pushstring(L, op->name);
      fn = lua_rawget(L, -2) == LUA_TFUNCTION;
    }
    return luaL_error(L, "TypeError: %s() was called without its tensor: in Lua a method call "
                         "takes ':' (t:%s(...) for a tensor t)%s%s%s", op->name, op->name,
                      fn ? ", or call torch." : "", fn ? op->name : "", fn ? "(t, ...)" : "");
  }
  lruntime *rt = runtime(L);
  ltrace *t = rt->active;
  sdb_tracer *tr = t ? t->tracer : NULL;
  int nargs = lua_gettop(L);
  argbox *b = collect_args(L, op->name, 1, nargs, tr);
  sdb_args a = {b->pos, b->npos, b->kw, b->nkw};
  /* a real tensor may not meet a traced one */
  sdb_value out;
  sdb_node *node = NULL;
  sdb_err err = SDB_ERR_INIT;
  bool scoped = !(op->flags & SDB_OP_CUSTOM);   /* a custom op's kernel is Lua */
  if (scoped) loc_scope(rt, true);
  int rc = tr ? sdb_tracer_call(tr, op, method, &a, &out, &node, &err)
              : sdb_op_call(rt->eager_mode, op, &a, &out, &err);
  if (scoped) loc_scope(rt, false);
  if (rc) return lsdb_raise(L, &err);
  /* keep out alive while pushing (pushing may raise on OOM) */
  argbox *ob = lsdb_new_argbox(L);
  ob->npos = 1;
  ob->pos[0] = out;
  return push_results(L, &ob->pos[0], node, tr);
}

void lsdb_push_op_fn(lua_State *L, const sdb_op *op) {
  lua_pushlightuserdata(L, (void *)op);
  lua_pushboolean(L, 0);
  lua_pushcclosure(L, l_op, 2);
}

/* ------------------------------------------------------------------------
** Tensor methods that are not ops: size, stride, dim, numel, ...
** ---------------------------------------------------------------------- */

/* A symbolic size read while tracing becomes `size = l_x_.size(0)`. */
static void push_dim_value(lua_State *L, sdb_fake *t, const sdb_expr *e, const char *method,
                           int64_t dim) {
  lruntime *rt = runtime(L);
  if (e->kind == SDB_INT || !rt->active) {
    sdb_value v = sdb_value_int(e);
    lsdb_push_scalar(L, &v, NULL);
    return;
  }
  sdb_tracer *tr = rt->active->tracer;
  sdb_value ex = sdb_value_int(e);
  /* a size that is a symbol this tracer already binds reads as that
  ** symbol's proxy (Dynamo: `b = x.shape[0]; b * 2` is `s77 * 2`) */
  sdb_err err = SDB_ERR_INIT;
  sdb_node *bound = NULL;
  if (e->kind == SDB_SYM) {
    if (!sdb_tracer_proxy_tensor(tr, t, &err)) lsdb_raise(L, &err);   /* lifts a closure */
    bound = sdb_map_get(&tr->bound_symbols, e);
  }
  if (bound) {
    lsdb_push_scalar(L, &ex, bound);
    return;
  }
  sdb_value args[2] = {sdb_value_tensor(t), sdb_value_int64(dim)};
  size_t nargs = dim >= 0 ? 2 : 1;
  sdb_node *n = sdb_tracer_node(tr, SDB_N_CALL_METHOD, method, method, args, NULL, nargs, &ex,
                                false, &err);
  sdb_value_free(&args[0]);
  if (!n) lsdb_raise(L, &err);
  sdb_map_put(&tr->sym_proxy, e, n);
  lsdb_push_scalar(L, &ex, n);
}

static int64_t check_dim(lua_State *L, sdb_fake *t, int idx) {
  lua_Integer d = luaL_checkinteger(L, idx);
  int64_t n = t->ndim ? t->ndim : 1;
  if (d < -n || d >= n)
    luaL_error(L, "IndexError: Dimension out of range (expected to be in range of [%d, %d], but got %d)",
               (int)-n, (int)(n - 1), (int)d);
  return d < 0 ? d + n : d;
}

static int push_shape_table(lua_State *L, sdb_fake *t, bool stride) {
  lua_createtable(L, t->ndim, 0);
  for (int i = 0; i < t->ndim; i++) {
    push_dim_value(L, t, stride ? sdb_fake_strides(t)[i] : t->sizes[i], stride ? "stride" : "size", i);
    lua_rawseti(L, -2, i + 1);
  }
  luaL_setmetatable(L, "shapedb.Size");
  return 1;
}

/* The tensor a method is called on. `x.size(0)` (Python's '.') calls it
** without one: say what to write, as ops do (l_op). */
static ltensor *self_tensor(lua_State *L) {
  if (!lsdb_testudata(L, 1, LSDB_TENSOR)) {
    lua_Debug ar;
    const char *name = lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name ? ar.name : "?";
    luaL_error(L, "TypeError: %s() was called without its tensor: in Lua a method call takes ':' "
                  "(t:%s(...) for a tensor t)", name, name);
  }
  return lsdb_check_ltensor(L, 1);
}

static int t_size(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  if (lua_isnoneornil(L, 2)) return push_shape_table(L, t, false);
  int64_t d = check_dim(L, t, 2);
  push_dim_value(L, t, t->sizes[d], "size", d);
  return 1;
}

static int t_stride(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  if (lua_isnoneornil(L, 2)) return push_shape_table(L, t, true);
  int64_t d = check_dim(L, t, 2);
  push_dim_value(L, t, sdb_fake_strides(t)[d], "stride", d);
  return 1;
}

static int t_storage_offset(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  push_dim_value(L, t, sdb_fake_offset(t), "storage_offset", -1);
  return 1;
}

static int t_dim(lua_State *L) {
  lua_pushinteger(L, self_tensor(L)->t->ndim);
  return 1;
}

static int t_numel(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  const sdb_expr *n = sdb_fake_numel(t);
  if (!n) return luaL_error(L, "%s", sdb_expr_error());
  sdb_value v = sdb_value_int(n);
  lruntime *rt = runtime(L);
  if (n->kind == SDB_INT || !rt->active) { lsdb_push_scalar(L, &v, NULL); return 1; }
  sdb_value args[1] = {sdb_value_tensor(t)};
  sdb_err err = SDB_ERR_INIT;
  sdb_node *node = sdb_tracer_node(rt->active->tracer, SDB_N_CALL_METHOD, "numel", "numel",
                                   args, NULL, 1, &v, false, &err);
  sdb_value_free(&args[0]);
  if (!node) return lsdb_raise(L, &err);
  lsdb_push_scalar(L, &v, node);
  return 1;
}

static int t_tostring(lua_State *L) {
  sdb_fake *t = check_tensor(L, 1);
  char *s = sdb_fake_repr(t);
  if (!s) return luaL_error(L, "out of memory");   /* not a repr that reads as a tensor's */
  lua_pushstring(L, s);
  free(s);
  return 1;
}

/* t:meta() -> "f32[s0, 2]"; t:meta(true) with strides */
static int t_meta(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  char *s = sdb_fake_meta_str(t, lua_toboolean(L, 2));
  lua_pushstring(L, s ? s : "?");
  free(s);
  return 1;
}

static int t_version(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  lua_pushinteger(L, t->storage ? t->storage->version : 0);
  return 1;
}

static int t_storage_id(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  lua_pushinteger(L, t->storage ? t->storage->id : 0);
  return 1;
}

static int t_mark_dynamic(lua_State *L) {
  ltensor *u = self_tensor(L);
  int64_t d = check_dim(L, u->t, 2);
  if (d < 64) u->dynamic_dims |= (uint64_t)1 << d;
  return 0;
}

/* torch._dynamo.mark_unbacked(t, dim | {dims} [, {min =, max =}]): the dims
** become unbacked size-like symbols when t is fakified (PyTorch's
** DimDynamic.SIZE_LIKE_UNBACKED: no hint, so guarding on them is the
** data-dependent error). Kept beside the tensor in a weak table of the
** registry, read by trace:input: { [dim] = {min, max} } (false: none). */
#define UNBACKED_MARKS "shapedb.unbacked_marks"

void lsdb_push_unbacked_marks(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, UNBACKED_MARKS) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, UNBACKED_MARKS);
}

static int opt_bound(lua_State *L, int opts, const char *key, lua_Integer *out) {
  if (lua_isnoneornil(L, opts)) return 0;
  int t = lua_getfield(L, opts, key);
  if (t == LUA_TNIL) { lua_pop(L, 1); return 0; }
  if (!lua_isinteger(L, -1))
    return luaL_error(L, "mark_unbacked: %s must be an integer, got %s", key, luaL_typename(L, -1));
  *out = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return 1;
}

static int t_mark_unbacked(lua_State *L) {
  ltensor *u = lsdb_check_ltensor(L, 1);
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  lua_Integer lo = 0, hi = 0;
  int has_lo = opt_bound(L, 3, "min", &lo), has_hi = opt_bound(L, 3, "max", &hi);
  if (has_lo && has_hi && hi < lo)
    return luaL_error(L, "mark_unbacked: min %d is greater than max %d", (int)lo, (int)hi);
  int64_t dims[64];
  int nd = 0;
  if (lua_istable(L, 2)) {
    lua_Integer n = luaL_len(L, 2);
    for (lua_Integer i = 1; i <= n && nd < 64; i++) {
      lua_rawgeti(L, 2, i);
      dims[nd++] = check_dim(L, u->t, -1);
      lua_pop(L, 1);
    }
  } else {
    dims[nd++] = check_dim(L, u->t, 2);
  }
  lsdb_push_unbacked_marks(L);
  lua_pushvalue(L, 1);
  if (lua_rawget(L, -2) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  for (int i = 0; i < nd; i++) {
    lua_createtable(L, 2, 0);
    if (has_lo) lua_pushinteger(L, lo); else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, 1);
    if (has_hi) lua_pushinteger(L, hi); else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, dims[i]);
  }
  return 0;
}

static int t_requires_grad_(lua_State *L) {
  sdb_fake *t = self_tensor(L)->t;
  t->requires_grad = lua_isnoneornil(L, 2) ? true : lua_toboolean(L, 2);
  lua_settop(L, 1);
  return 1;
}

/* t.shape, t.dtype, t.ndim, t.device, t.requires_grad; else methods */
/* shapedb.ops() -> the names of the modelled operators, sorted */
static int l_ops(lua_State *L) {
  size_t n = sdb_op_count();
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, sdb_op_at(i)->name);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, -3);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  return 1;
}

static int tensor_index(lua_State *L) {
  sdb_fake *t = check_tensor(L, 1);
  if (lua_type(L, 2) != LUA_TSTRING)   /* x[0], x[{{0, 2}}]: PyTorch's indexing */
    return luaL_error(L, "TypeError: tensors are not indexed with [] here: x[i] is "
                         "t:select(0, i), x[a:b] is t:narrow(0, a, b - a) or t:slice(0, a, b), "
                         "x[mask] is t:masked_select(mask)");
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "shape")) return push_shape_table(L, t, false);
  if (!strcmp(k, "dtype")) { lua_pushstring(L, sdb_dtype_name(t->dtype)); return 1; }
  if (!strcmp(k, "ndim")) { lua_pushinteger(L, t->ndim); return 1; }
  if (!strcmp(k, "device")) { lua_pushstring(L, sdb_fake_device(t)); return 1; }
  if (!strcmp(k, "requires_grad")) { lua_pushboolean(L, t->requires_grad); return 1; }
  lua_getfield(L, LUA_REGISTRYINDEX, "shapedb.TensorMethods");
  if (lua_getfield(L, -1, k) == LUA_TNIL && k[0] != '_')
    return luaL_error(L, "NotImplementedError: unsupported operator: Tensor.%s (not modelled by "
                         "shapedb; shapedb.ops() lists the operators)", k);
  return 1;
}

/* Operators on tensors: a + b is operator.add, shown infix in graphs. */
static int tensor_binop(lua_State *L, const char *opname, const char *target, const char *hint) {
  const sdb_op *op = sdb_op_find(opname);
  if (!op) return luaL_error(L, "unsupported operator: %s", opname);
  lruntime *rt = runtime(L);
  sdb_tracer *tr = rt->active ? rt->active->tracer : NULL;
  argbox *b = collect_args(L, opname, 1, 2, tr);
  bool swapped = !lsdb_testudata(L, 1, LSDB_TENSOR);
  sdb_value out;
  sdb_err err = SDB_ERR_INIT;
  sdb_args a = {b->pos, 2, NULL, 0};
  if (swapped && strcmp(opname, "add") && strcmp(opname, "mul")) {
    /* 2 - t: rsub semantics by swapping into (t, 2) for shape purposes */
    sdb_value tmp = b->pos[0]; b->pos[0] = b->pos[1]; b->pos[1] = tmp;
  }
  loc_scope(rt, true);
  sdb_events_push_op(rt->ev, opname);   /* one call: `break op add` stops at x + y */
  if (sdb_op_call(tr ? tr->mode : rt->eager_mode, op, &a, &out, &err)) {
    sdb_events_pop_op(rt->ev);
    loc_scope(rt, false);
    return lsdb_raise(L, &err);
  }
  sdb_node *node = NULL;
  if (tr) {
    if (swapped && strcmp(opname, "add") && strcmp(opname, "mul")) {
      sdb_value tmp = b->pos[0]; b->pos[0] = b->pos[1]; b->pos[1] = tmp;
    }
    node = sdb_tracer_node(tr, SDB_N_CALL_FUNCTION, target, hint, b->pos, NULL, 2, &out, false, &err);
  }
  sdb_events_pop_op(rt->ev);
  loc_scope(rt, false);
  if (tr && !node) { sdb_value_free(&out); return lsdb_raise(L, &err); }
  lsdb_push_value(L, &out, node);
  sdb_value_free(&out);
  return 1;
}

int lsdb_t_add(lua_State *L) { return tensor_binop(L, "add", "operator.add", "add"); }
int lsdb_t_sub(lua_State *L) { return tensor_binop(L, "sub", "operator.sub", "sub"); }
int lsdb_t_mul(lua_State *L) { return tensor_binop(L, "mul", "operator.mul", "mul"); }
static int t_div(lua_State *L) { return tensor_binop(L, "div", "operator.truediv", "truediv"); }

static int t_unm(lua_State *L) {
  const sdb_op *op = sdb_op_find("neg");
  if (!op) {   /* until neg exists: -t = t * -1 */
    lua_settop(L, 1);
    lua_pushinteger(L, -1);
    return lsdb_t_mul(L);
  }
  lruntime *rt = runtime(L);
  sdb_tracer *tr = rt->active ? rt->active->tracer : NULL;
  lua_settop(L, 1);
  argbox *b = collect_args(L, "neg", 1, 1, tr);
  sdb_args a = {b->pos, 1, NULL, 0};
  sdb_value out;
  sdb_err err = SDB_ERR_INIT;
  sdb_events_push_op(rt->ev, "neg");
  if (sdb_op_call(tr ? tr->mode : rt->eager_mode, op, &a, &out, &err)) {
    sdb_events_pop_op(rt->ev);
    return lsdb_raise(L, &err);
  }
  sdb_node *node = NULL;
  if (tr) node = sdb_tracer_node(tr, SDB_N_CALL_FUNCTION, "operator.neg", "neg", b->pos, NULL, 1, &out, false, &err);
  sdb_events_pop_op(rt->ev);
  if (tr && !node) { sdb_value_free(&out); return lsdb_raise(L, &err); }
  lsdb_push_value(L, &out, node);
  sdb_value_free(&out);
  return 1;
}


/* ------------------------------------------------------------------------
** Events for scripts and tests: shapedb.events() -> formatted lines
** ---------------------------------------------------------------------- */

static int l_events(lua_State *L) {
  lruntime *rt = runtime(L);
  bool full = lua_toboolean(L, 1);
  size_t from = (size_t)luaL_optinteger(L, 2, 0);
  size_t n = sdb_events_count(rt->ev);
  lua_createtable(L, (int)(n > from ? n - from : 0), 0);
  for (size_t i = from; i < n; i++) {
    const sdb_event *e = sdb_events_at(rt->ev, i);
    char *s = full ? sdb_event_format(e) : sdb_event_summary(e);
    if (!s) return luaL_error(L, "out of memory: cannot print event %d", (int)i);
    lua_pushstring(L, s);
    free(s);
    lua_rawseti(L, -2, (lua_Integer)(i - from + 1));
  }
  return 1;
}

static int l_event_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)sdb_events_count(runtime(L)->ev));
  return 1;
}

/* shapedb.bindings(value) -> "u0: .size()[0]" for the pending symbols of
** the current ShapeEnv (peek: does not clear) */
static int l_bindings(lua_State *L) {
  sdb_shape_env *env = current_env(L);
  lua_settop(L, 1);
  argbox *b = collect_args(L, "bindings", 1, 1, NULL);
  sdb_bindings out;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_compute_unbacked_bindings(env, &b->pos[0], true, &out, &err)) return lsdb_raise(L, &err);
  char *s = sdb_bindings_str(&out);
  sdb_bindings_free(&out);
  lua_pushstring(L, s ? s : "");
  free(s);
  return 1;
}

/* shapedb.leak_unbacked() -> the symbol: allocate a fresh unbacked SymInt
** in the active trace and return it only to the caller, as a buggy fake
** implementation would; the next node placed fails with
** PendingUnbackedSymbolNotFound (seed 001), which is the point. */
static int l_leak_unbacked(lua_State *L) {
  lruntime *rt = runtime(L);
  if (!rt->active) return luaL_error(L, "shapedb.leak_unbacked: no trace is active");
  const sdb_expr *u = sdb_create_unbacked_symint(rt->active->env);
  if (!u) return luaL_error(L, "out of memory");
  lsdb_push_expr(L, u);
  return 1;
}

/* shapedb._emit{ kind = "guard_check", flags = 1, text = ..., detail = ...,
** phase = "guards", value = n }: an event from the Lua side (torch.lua's
** guard cache), stamped with the user's location like any other */
static int l_emit(lua_State *L) {
  lruntime *rt = runtime(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "kind");
  int kind = sdb_event_from_name(luaL_checkstring(L, -1));
  if (kind < 0) return luaL_error(L, "unknown event kind '%s'", lua_tostring(L, -1));
  sdb_event_in e = {0};
  e.kind = (uint8_t)kind;
  lua_getfield(L, 1, "flags");
  e.flags = lua_toboolean(L, -1);
  lua_getfield(L, 1, "value");
  e.value = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
  lua_getfield(L, 1, "text");
  e.text = lua_isstring(L, -1) ? sdb_intern(lua_tostring(L, -1)) : NULL;
  lua_getfield(L, 1, "detail");
  e.detail = lua_isstring(L, -1) ? sdb_intern(lua_tostring(L, -1)) : NULL;
  lua_getfield(L, 1, "phase");
  sdb_phase saved = sdb_events_phase(rt->ev);
  if (lua_isstring(L, -1)) {
    int p = sdb_phase_from_name(lua_tostring(L, -1));
    if (p < 0) return luaL_error(L, "unknown phase '%s'", lua_tostring(L, -1));
    sdb_events_set_phase(rt->ev, (sdb_phase)p);
  }
  sdb_emit(rt->ev, &e);
  sdb_events_set_phase(rt->ev, saved);
  return 0;
}

/* shapedb._note(text): a note in the event log (what a log line would say) */
static int l_note(lua_State *L) {
  lruntime *rt = runtime(L);
  sdb_event_in e = {0};
  e.kind = SDB_EV_NOTE;
  e.detail = luaL_checkstring(L, 1);
  sdb_emit(rt->ev, &e);
  return 0;
}

/* shapedb.tensor{5, 2, dtype = "float32", device = "cpu", requires_grad = true,
**                dynamic = {1}} -> a real tensor (concrete sizes) whose listed
** dims are marked dynamic, as DESIGN.md's program inputs are written. */
static int l_tensor(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lruntime *rt = runtime(L);
  size_t n = lua_rawlen(L, 1);
  if (n > 64) return luaL_error(L, "shapedb.tensor: at most 64 dims");
  const sdb_expr *sizes[64];
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
      return luaL_error(L, "shapedb.tensor: size %d must be a non-negative integer", (int)i + 1);
    sizes[i] = sdb_int(lua_tointeger(L, -1));
    lua_pop(L, 1);
  }
  int dtype = SDB_F32;
  if (lua_getfield(L, 1, "dtype") != LUA_TNIL) {
    dtype = sdb_dtype_from_name(luaL_checkstring(L, -1));
    if (dtype < 0) return luaL_error(L, "shapedb.tensor: unknown dtype '%s'", lua_tostring(L, -1));
  }
  lua_pop(L, 1);
  lua_getfield(L, 1, "device");
  const char *device = luaL_optstring(L, -1, "cpu");
  sdb_fake *t = sdb_fake_new(rt->eager_mode, (sdb_dtype)dtype, device, sizes, (int)n);
  lua_pop(L, 1);
  if (!t) return luaL_error(L, "out of memory");
  lua_getfield(L, 1, "requires_grad");
  t->requires_grad = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lsdb_push_tensor(L, t);
  sdb_fake_unref(t);
  ltensor *u = lsdb_check_ltensor(L, -1);
  if (lua_getfield(L, 1, "dynamic") == LUA_TTABLE) {
    for (size_t i = 1; i <= lua_rawlen(L, -1); i++) {
      lua_rawgeti(L, -1, (lua_Integer)i);
      lua_Integer d = luaL_checkinteger(L, -1);
      if (d < 0) d += (lua_Integer)n;
      if (d < 0 || d >= (lua_Integer)n) return luaL_error(L, "shapedb.tensor: dynamic dim %d out of range", (int)d);
      u->dynamic_dims |= (uint64_t)1 << d;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return 1;
}

/* ------------------------------------------------------------------------
** Registration
** ---------------------------------------------------------------------- */

/* t.shape[k] for a missing k: PyTorch's habits, 0-based and negative
** indices, get an answer saying what to write in Lua; past the end is nil
** (ipairs stops there). */
static int size_index(lua_State *L) {
  if (!lua_isinteger(L, 2)) return 0;
  lua_Integer k = lua_tointeger(L, 2);
  if (k == 0)
    return luaL_error(L, "IndexError: shape[0]: a Lua table counts from 1, so the first size "
                         "is shape[1] (or t:size(0), 0-based as in PyTorch)");
  if (k == -1)
    return luaL_error(L, "IndexError: shape[-1]: Lua tables do not count from the end; write "
                         "t:size(-1) (or shape[#shape])");
  if (k < 0)
    return luaL_error(L, "IndexError: shape[%I]: Lua tables do not count from the end; write "
                         "t:size(%I) (or shape[#shape - %I])", k, k, -k - 1);
  return 0;   /* past the end: nil, so ipairs(t.shape) ends as Lua's does */
}

static int size_tostring(lua_State *L) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "torch.Size([");
  size_t n = lua_rawlen(L, 1);
  for (size_t i = 1; i <= n; i++) {
    if (i > 1) luaL_addstring(&b, ", ");
    lua_rawgeti(L, 1, (lua_Integer)i);
    luaL_addstring(&b, luaL_tolstring(L, -1, NULL));
    lua_pop(L, 2);
  }
  luaL_addstring(&b, "])");
  luaL_pushresult(&b);
  return 1;
}

static const luaL_Reg tensor_extra[] = {
  {"size", t_size}, {"stride", t_stride}, {"storage_offset", t_storage_offset},
  {"dim", t_dim}, {"numel", t_numel}, {"meta", t_meta}, {"version", t_version},
  {"storage_id", t_storage_id}, {"mark_dynamic", t_mark_dynamic},
  {"requires_grad_", t_requires_grad_}, {NULL, NULL}
};

void lsdb_open_torch(lua_State *L) {
  /* the runtime */
  lruntime *rt = lua_newuserdatauv(L, sizeof *rt, 0);
  memset(rt, 0, sizeof *rt);
  luaL_newmetatable(L, LSDB_RUNTIME);
  lua_pushcfunction(L, runtime_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  rt->ev = sdb_events_new();
  rt->eager_env = sdb_shape_env_new(NULL, NULL);
  rt->eager_mode = rt->eager_env ? sdb_fake_mode_new(rt->eager_env, "eager") : NULL;
  if (!rt->ev || !rt->eager_mode) luaL_error(L, "out of memory");
  rt->L = L;
  sdb_events_set_locator(rt->ev, runtime_locate, rt);
  lua_setfield(L, LUA_REGISTRYINDEX, RUNTIME_KEY);

  luaL_newmetatable(L, LSDB_ARGBOX);
  lua_pushcfunction(L, argbox_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);

  /* tensors */
  luaL_newmetatable(L, LSDB_TENSOR);
  lua_pushcfunction(L, tensor_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, t_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, tensor_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, lsdb_t_add);
  lua_setfield(L, -2, "__add");
  lua_pushcfunction(L, lsdb_t_sub);
  lua_setfield(L, -2, "__sub");
  lua_pushcfunction(L, lsdb_t_mul);
  lua_setfield(L, -2, "__mul");
  lua_pushcfunction(L, t_div);
  lua_setfield(L, -2, "__div");
  lua_pushcfunction(L, t_unm);
  lua_setfield(L, -2, "__unm");
  lua_pushliteral(L, "Tensor");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);

  luaL_newmetatable(L, "shapedb.Size");
  lua_pushcfunction(L, size_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, size_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);

  lsdb_open_sym(L);

  lsdb_open_trace(L);

  /* methods: tensor extras, then every op usable as a method */
  lua_newtable(L);
  luaL_setfuncs(L, tensor_extra, 0);
  /* torch: every op usable as a function */
  lua_newtable(L);
  lsdb_sym_torch_fns(L);
  for (size_t i = 0; i < sdb_op_count(); i++) {
    const sdb_op *op = sdb_op_at(i);
    if (op->flags & SDB_OP_CUSTOM) continue;   /* torch.ops.ns.name */
    if (!(op->flags & SDB_OP_FUNCTION_ONLY)) {
      lua_pushlightuserdata(L, (void *)op);
      lua_pushboolean(L, 1);
      lua_pushcclosure(L, l_op, 2);
      lua_setfield(L, -3, op->name);
    }
    if (!(op->flags & SDB_OP_METHOD_ONLY)) {
      lua_pushlightuserdata(L, (void *)op);
      lua_pushboolean(L, 0);
      lua_pushcclosure(L, l_op, 2);
      lua_setfield(L, -2, op->name);
    }
  }
  /* dtypes as their printed names */
  for (int d = 0; d < SDB_DTYPE_COUNT; d++) {
    const char *full = sdb_dtype_name((sdb_dtype)d);
    lua_pushstring(L, full);
    lua_setfield(L, -2, full + 6);
  }
  static const char *const aliases[][2] = {
    {"float", "torch.float32"}, {"double", "torch.float64"}, {"half", "torch.float16"},
    {"long", "torch.int64"}, {"int", "torch.int32"}, {"short", "torch.int16"},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    lua_pushstring(L, aliases[i][1]);
    lua_setfield(L, -2, aliases[i][0]);
  }
  /* torch._dynamo.mark_dynamic */
  lua_newtable(L);
  lua_pushcfunction(L, t_mark_dynamic);
  lua_setfield(L, -2, "mark_dynamic");
  lua_pushcfunction(L, t_mark_unbacked);
  lua_setfield(L, -2, "mark_unbacked");
  lua_setfield(L, -2, "_dynamo");
  lsdb_open_apis(L);
  lsdb_open_library(L);
  lua_setglobal(L, "torch");
  lua_setfield(L, LUA_REGISTRYINDEX, "shapedb.TensorMethods");

  /* shapedb._trace_begin and friends (module table is at the top) */
  lua_pushcfunction(L, lsdb_trace_begin);
  lua_setfield(L, -2, "_trace_begin");
  lua_pushcfunction(L, l_events);
  lua_setfield(L, -2, "events");
  lua_pushcfunction(L, l_event_count);
  lua_setfield(L, -2, "event_count");
  lua_pushcfunction(L, l_bindings);
  lua_setfield(L, -2, "bindings");
  lua_pushcfunction(L, l_tensor);
  lua_setfield(L, -2, "tensor");
  lua_pushcfunction(L, l_leak_unbacked);
  lua_setfield(L, -2, "leak_unbacked");
  lua_pushcfunction(L, l_note);
  lua_setfield(L, -2, "_note");
  lua_pushcfunction(L, l_emit);
  lua_setfield(L, -2, "_emit");
  lua_pushcfunction(L, l_ops);
  lua_setfield(L, -2, "ops");
  lsdb_open_hop(L);
}
