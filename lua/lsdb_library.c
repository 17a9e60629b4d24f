/*
** lsdb_library.c — custom operators with fake kernels written in Lua, as
** torch.library.custom_op and register_fake define them:
**
**   local count = torch.library.custom_op("mylib::nonzero_rows", function(x) ... end)
**   count:register_fake(function(x)
**     local ctx = torch.library.get_ctx()
**     local n = ctx:new_dynamic_size()        -- a fresh unbacked u0, pending
**     return x:new_empty({n, x:size(1)})
**   end)
**   torch.ops.mylib.nonzero_rows(x)            -- or count(x)
**
** The operator goes into core's op table (sdb_op_define), so a trace calls
** it as torch.ops.mylib.nonzero_rows.default, the aot phase re-runs the
** kernel under its own fake mode (a new unbacked symbol, renamed to the
** trace's as for nonzero), lowering makes it a FallbackKernel, and a
** retraced TORCH_TRACE graph that names it runs the kernel too.
**
** A fake kernel runs under the fake mode of whoever calls the op, and is
** not traced: ops inside it make no graph nodes (PyTorch runs fake kernels
** with the proxy mode off). Its Lua errors become the op's error, located
** at the kernel's line.
*/
#include "lsdb_rt.h"

#include "intern.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define LSDB_CUSTOM_OP "shapedb.CustomOpDef"
#define LSDB_FAKE_CTX "shapedb.FakeImplCtx"
#define LSDB_OPNS "shapedb.OpNamespace"
#define KERNELS_KEY "shapedb.fake_kernels"   /* qualname -> {impl=, fake=} */

/* One per defined op; owned by the Lua state that defined it (a userdata
** in KERNELS_KEY's table keeps it alive and forgets the op at __gc). */
typedef struct lop {
  lruntime *rt;             /* of the defining state: rt->L is the thread of
                               the call in progress */
  lua_State *main;          /* its main thread: for calls from outside Lua (a
                               retrace typed at the prompt) */
  const sdb_op *op;
  const char *qualname;     /* "mylib::foo" (interned) */
  const char *short_name;   /* "foo" */
} lop;

/* The fake kernel running now (fake kernels can call custom ops). */
typedef struct kctx {
  sdb_fake_mode *mode;
  const lop *op;
  struct kctx *prev;
} kctx;
static kctx *running;

/* --- the meta function core calls -------------------------------------------- */

static int dead_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                     sdb_err *err) {
  (void)m; (void)a; (void)out;
  return sdb_err_set(err, SDB_E_UNSUPPORTED, "RuntimeError",
                     "operator %s was defined by a program whose Lua state has ended", op->name);
}

/* Push the kernels table entry of qualname (or nil). */
static int push_entry(lua_State *L, const char *qualname) {
  lua_getfield(L, LUA_REGISTRYINDEX, KERNELS_KEY);
  int t = lua_getfield(L, -1, qualname);
  lua_remove(L, -2);
  return t;
}

/* Results of a fake kernel to one value: a tensor, a tuple of them, a
** scalar. false when something is not an op result. */
static bool kernel_results(lua_State *L, int base, int n, sdb_value *out) {
  if (n == 1) return lsdb_to_value(L, base, out);
  *out = sdb_value_seq(SDB_V_TUPLE, (size_t)n);
  for (int i = 0; i < n; i++)
    if (!lsdb_to_value(L, base + i, &out->items[i])) {
      sdb_value_free(out);
      return false;
    }
  return true;
}

static int custom_meta(sdb_fake_mode *m, const sdb_op *op, const sdb_args *a, sdb_value *out,
                       sdb_err *err) {
  lop *o = sdb_op_ud(op);
  if (!o) return dead_meta(m, op, a, out, err);
  lruntime *rt = o->rt;
  /* the thread of the call that reached the op; a retrace run from the
  ** prompt may find it suspended (a paused program) or failed */
  lua_State *L = rt->L && lua_status(rt->L) == LUA_OK ? rt->L : o->main;
  int top = lua_gettop(L);
  if (!lua_checkstack(L, (int)a->npos + 8))
    return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  if (a->nkw)
    return sdb_err_set(err, SDB_E_INVALID, "TypeError", "%s() got an unexpected keyword "
                       "argument '%s' (custom ops take positional arguments here)", op->name,
                       a->kw[0].name ? a->kw[0].name : "?");
  push_entry(L, o->qualname);
  bool have = lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "fake") == LUA_TFUNCTION;
  if (!have) {
    lua_settop(L, top);
    /* torch/_library/custom_ops.py's text */
    return sdb_err_set(err, SDB_E_UNSUPPORTED, "RuntimeError",
                       "There was no fake impl registered for <CustomOpDef(%s)>. This is "
                       "necessary for torch.compile/export/fx tracing to work. Please use "
                       "`%s.register_fake` to add an fake impl.", o->qualname, o->short_name);
  }
  lua_remove(L, -2);
  for (size_t i = 0; i < a->npos; i++) lsdb_push_value(L, &a->pos[i], NULL);
  /* run under m, untraced: the ops inside make no nodes */
  ltrace *active = rt->active, *tracetop = rt->top;
  sdb_fake_mode *eager_mode = rt->eager_mode;
  sdb_shape_env *eager_env = rt->eager_env;
  rt->active = rt->top = NULL;
  rt->eager_mode = m;
  rt->eager_env = m->env;
  kctx k = {m, o, running};
  running = &k;
  int still = lsdb_stack_suspend(L);   /* Lua runs: the stack moves */
  int status = lua_pcall(L, (int)a->npos, LUA_MULTRET, 0);
  lsdb_stack_resume(L, still);
  running = k.prev;
  rt->active = active;
  rt->top = tracetop;
  rt->eager_mode = eager_mode;
  rt->eager_env = eager_env;
  rt->L = L;
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "%s: fake kernel failed: %s", op->name,
                msg ? msg : "(error object is not a string)");
    lua_settop(L, top);
    return err->code;
  }
  int n = lua_gettop(L) - top;
  if (n == 0) {
    lua_settop(L, top);
    *out = SDB_VALUE_NONE;
    return SDB_OK;
  }
  bool ok = kernel_results(L, top + 1, n, out);
  lua_settop(L, top);
  if (!ok)
    return sdb_err_set(err, SDB_E_INVALID, "RuntimeError", "%s: the fake kernel must return "
                       "tensors or numbers", op->name);
  return SDB_OK;
}

/* --- the op as a Lua value ------------------------------------------------------ */

static lop *check_op(lua_State *L, int idx) { return lsdb_checkudata(L, idx, LSDB_CUSTOM_OP); }

static int op_gc(lua_State *L) {
  lop *o = lsdb_checkudata(L, 1, LSDB_CUSTOM_OP);
  /* the state is going: later calls of the op say so instead of using it */
  if (o->op && sdb_op_ud(o->op) == o) {
    sdb_err err = SDB_ERR_INIT;
    sdb_op_define(o->qualname, dead_meta, NULL, &err);
    sdb_err_clear(&err);
  }
  o->op = NULL;
  return 0;
}

static int op_tostring(lua_State *L) {
  lua_pushfstring(L, "<CustomOpDef(%s)>", check_op(L, 1)->qualname);
  return 1;
}

/* op(args...): traced, a node torch.ops.ns.name.default running the fake
** kernel; eager, the implementation given to custom_op. */
static int op_call(lua_State *L) {
  lop *o = check_op(L, 1);
  lruntime *rt = lsdb_runtime(L);
  if (!o->op) return luaL_error(L, "RuntimeError: operator %s is no longer defined", o->qualname);
  if (!rt->active && !running) {
    push_entry(L, o->qualname);
    if (lua_getfield(L, -1, "impl") != LUA_TFUNCTION)
      return luaL_error(L, "RuntimeError: %s has no implementation to run eagerly", o->qualname);
    lua_replace(L, 1);
    lua_pop(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
  }
  /* the generic op path, as torch.NAME(args) runs a table op */
  lsdb_push_op_fn(L, o->op);
  lua_replace(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* op:register_fake(fn) -> fn */
static int register_fake_on(lua_State *L, const char *qualname, int fn) {
  luaL_checktype(L, fn, LUA_TFUNCTION);
  if (push_entry(L, qualname) != LUA_TTABLE)
    return luaL_error(L, "RuntimeError: operator %s does not exist (torch.library.custom_op "
                         "defines it)", qualname);
  lua_pushvalue(L, fn);
  lua_setfield(L, -2, "fake");
  lua_pop(L, 1);
  lua_pushvalue(L, fn);
  return 1;
}

static int op_register_fake(lua_State *L) {
  return register_fake_on(L, check_op(L, 1)->qualname, 2);
}

static int op_index(lua_State *L) {
  lop *o = check_op(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "register_fake")) {
    lua_pushcfunction(L, op_register_fake);
    return 1;
  }
  if (!strcmp(k, "name")) {
    lua_pushstring(L, o->qualname);
    return 1;
  }
  return 0;
}

/* --- torch.library -------------------------------------------------------------- */

/* torch.library.custom_op(qualname, fn [, {mutates_args = {}}]) */
static int l_custom_op(lua_State *L) {
  const char *qualname = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    if (lua_getfield(L, 3, "mutates_args") == LUA_TTABLE && lua_rawlen(L, -1) > 0)
      return luaL_error(L, "NotImplementedError: custom ops that mutate their arguments are not "
                           "modelled (mutates_args must be empty)");
    lua_pop(L, 1);
  }
  lop *o = lua_newuserdatauv(L, sizeof *o, 0);
  memset(o, 0, sizeof *o);
  luaL_setmetatable(L, LSDB_CUSTOM_OP);
  o->rt = lsdb_runtime(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  o->main = lua_tothread(L, -1);
  lua_pop(L, 1);
  o->qualname = sdb_intern(qualname);
  const char *sep = strstr(qualname, "::");
  o->short_name = sdb_intern(sep ? sep + 2 : qualname);
  sdb_err err = SDB_ERR_INIT;
  o->op = sdb_op_define(qualname, custom_meta, o, &err);
  if (!o->op) return lsdb_raise(L, &err);
  /* the entry keeps the op value (and so its lifetime) and the kernels;
  ** a program run again replaces it */
  lua_getfield(L, LUA_REGISTRYINDEX, KERNELS_KEY);
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "impl");
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "op");
  lua_setfield(L, -2, qualname);
  lua_pop(L, 1);
  return 1;
}

/* torch.library.register_fake(op or "ns::name", fn) */
static int l_register_fake(lua_State *L) {
  lop *o = lsdb_testudata(L, 1, LSDB_CUSTOM_OP);
  return register_fake_on(L, o ? o->qualname : luaL_checkstring(L, 1), 2);
}

static int l_get_ctx(lua_State *L) {
  if (!running)
    return luaL_error(L, "RuntimeError: torch.library.get_ctx() is only valid inside a fake "
                         "kernel (one given to register_fake), while a custom op runs");
  lua_newuserdatauv(L, 1, 0);
  luaL_setmetatable(L, LSDB_FAKE_CTX);
  return 1;
}

/* ctx:new_dynamic_size() / ctx:new_dynamic_size{min = 0, max = 10} */
static int ctx_new_dynamic_size(lua_State *L) {
  lsdb_checkudata(L, 1, LSDB_FAKE_CTX);
  if (!running)
    return luaL_error(L, "RuntimeError: ctx:new_dynamic_size() outside the fake kernel that got "
                         "the ctx");
  lua_Integer lo = 0, hi = -1;
  bool have_hi = false;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    for (int k = 0; k < 2; k++) {
      const char *key = k ? "max" : "min";
      int t = lua_getfield(L, 2, key);
      if (t != LUA_TNIL) {
        if (lsdb_test_sym(L, -1))
          return luaL_error(L, "ValueError: ctx.new_dynamic_size(min=..., max=...): expected "
                               "min and max to be statically known ints but got SymInt. This "
                               "is not supported.");
        if (!lua_isinteger(L, -1)) return luaL_error(L, "TypeError: %s must be an int", key);
        if (k) { hi = lua_tointeger(L, -1); have_hi = true; }
        else lo = lua_tointeger(L, -1);
      }
      lua_pop(L, 1);
    }
  }
  if (lo < 0)
    return luaL_error(L, "ValueError: ctx.new_dynamic_size(min=%I, ...): expected min to be "
                         "greater than or equal to 0: this API can only create non-negative "
                         "sizes.", lo);
  if (have_hi && hi < lo)
    return luaL_error(L, "ValueError: Maximum value to constrain_as_size can't be less than the "
                         "specified min value, received min=%I and max=%I", lo, hi);
  /* create_unbacked_symint, then _constrain_range_for_size(min, max), as
  ** FakeImplCtx.new_dynamic_size does: the events PyTorch logs */
  sdb_shape_env *env = running->mode->env;
  const sdb_expr *u = sdb_create_unbacked_symint(env);
  if (!u) return luaL_error(L, "MemoryError: out of memory");
  sdb_err err = SDB_ERR_INIT;
  if (sdb_mark_size_like(env, u, &err) ||
      ((lo != 0 || have_hi) &&
       sdb_constrain_range(env, u, lo, have_hi ? hi : SDB_PINF, "new_dynamic_size", &err)))
    return lsdb_raise(L, &err);
  sdb_value v = sdb_value_int(u);
  lsdb_push_value(L, &v, NULL);
  return 1;
}

/* --- torch.ops.ns.name -------------------------------------------------------- */

static int ns_index(lua_State *L) {
  const char *ns = lua_tostring(L, lua_upvalueindex(1));
  const char *name = luaL_checkstring(L, 2);
  if (push_entry(L, lua_pushfstring(L, "%s::%s", ns, name)) == LUA_TTABLE &&
      lua_getfield(L, -1, "op") == LUA_TUSERDATA)
    return 1;
  return luaL_error(L, "AttributeError: '_OpNamespace' '%s' object has no attribute '%s'", ns,
                    name);
}

static int ops_index(lua_State *L) {
  const char *ns = luaL_checkstring(L, 2);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, ns);
  lua_pushcclosure(L, ns_index, 1);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  /* cache the namespace: torch.ops.mylib is the same table each time */
  lua_pushvalue(L, 2);
  lua_pushvalue(L, -2);
  lua_rawset(L, 1);
  return 1;
}

void lsdb_open_library(lua_State *L) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, KERNELS_KEY);
  luaL_newmetatable(L, LSDB_CUSTOM_OP);
  lua_pushcfunction(L, op_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, op_call);
  lua_setfield(L, -2, "__call");
  lua_pushcfunction(L, op_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, op_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "CustomOpDef");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  luaL_newmetatable(L, LSDB_FAKE_CTX);
  lua_newtable(L);
  lua_pushcfunction(L, ctx_new_dynamic_size);
  lua_setfield(L, -2, "new_dynamic_size");
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "FakeImplCtx");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  /* torch.library (the torch table is at -1) */
  lua_newtable(L);
  lua_pushcfunction(L, l_custom_op);
  lua_setfield(L, -2, "custom_op");
  lua_pushcfunction(L, l_register_fake);
  lua_setfield(L, -2, "register_fake");
  lua_pushcfunction(L, l_get_ctx);
  lua_setfield(L, -2, "get_ctx");
  lua_setfield(L, -2, "library");
  /* torch.ops: namespaces made on first use */
  lua_newtable(L);
  lua_newtable(L);
  lua_pushcfunction(L, ops_index);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "ops");
}
