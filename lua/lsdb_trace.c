/*
** lsdb_trace.c — Trace objects, the C half of torch.compile (lua/torch.lua
** is the rest): shapedb._trace_begin makes one, and its methods fakify the
** inputs, finish the trace, run the aot and lowering phases, install and
** check guards, and show graphs, bindings and guards.
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

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Trace objects (the C half of torch.compile; lua/torch.lua is the rest)
** ---------------------------------------------------------------------- */

static ltrace *check_trace(lua_State *L, int idx) {
  ltrace *t = lsdb_checkudata(L, idx, LSDB_TRACE);
  if (t->closed) luaL_error(L, "compile is closed (its __gc was called)");
  return t;
}

/* Take t off the stack, with the traces above it that its own thread
** left there (an error inside it); other threads' traces stay. */
static void deactivate(lua_State *L, ltrace *t) {
  if (!t->active) return;
  lruntime *rt = t->rt;
  ltrace **link = &rt->top;
  while (*link && *link != t) {
    ltrace *u = *link;
    if (u->thread == t->thread) {
      u->active = false;
      *link = u->prev_active;
    } else {
      link = &u->prev_active;
    }
  }
  if (*link == t) *link = t->prev_active;
  t->active = false;
  lsdb_sync_active(rt, L);
}

static int trace_gc(lua_State *L) {
  ltrace *t = lsdb_checkudata(L, 1, LSDB_TRACE);
  t->closed = true;
  deactivate(L, t);
  lsdb_symbools_drop(L, t);
  for (size_t i = 0; i < t->ninputs; i++) sdb_symctx_free(t->inputs[i].ctx);
  free(t->inputs);
  t->inputs = NULL;
  t->ninputs = 0;
  sdb_aot_result_free(&t->aot);
  sdb_lowered_free(&t->lowered);
  sdb_tracer_free(t->tracer);
  t->tracer = NULL;
  sdb_graph_free(t->graph);
  t->graph = NULL;
  sdb_shape_guards_free(&t->guards);
  sdb_fake_mode_free(t->mode);
  t->mode = NULL;
  sdb_shape_env_free(t->env);
  t->env = NULL;
  return 0;
}

void lsdb_phase_event(lruntime *rt, sdb_event_kind k, sdb_phase p, const char *text) {
  sdb_events_set_phase(rt->ev, p);
  sdb_event_in e = {0};
  e.kind = k;
  e.text = text;
  sdb_emit(rt->ev, &e);
}

/* shapedb._trace_begin(name, { duck_shape = true }) -> Trace (active) */
int lsdb_trace_begin(lua_State *L) {
  lruntime *rt = lsdb_runtime(L);
  const char *name = luaL_checkstring(L, 1);
  sdb_shape_env_opts o = sdb_shape_env_default_opts();
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "duck_shape");
    if (!lua_isnil(L, -1)) o.duck_shape = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  ltrace *t = lua_newuserdatauv(L, sizeof *t, 1);
  memset(t, 0, sizeof *t);
  luaL_setmetatable(L, LSDB_TRACE);
  t->rt = rt;
  t->name = sdb_intern(name);
  lsdb_phase_event(rt, SDB_EV_PHASE_START, SDB_PHASE_TRACE, name);
  t->env = sdb_shape_env_new(rt->ev, &o);
  t->mode = t->env ? sdb_fake_mode_new(t->env, "trace") : NULL;
  t->graph = sdb_graph_new("GraphModule");
  t->tracer = t->mode && t->graph ? sdb_tracer_new(NULL, "trace", t->graph, t->mode) : NULL;
  if (!t->tracer) return luaL_error(L, "out of memory");
  t->prev_active = rt->top;
  t->thread = L;
  lua_pushthread(L);
  lua_setiuservalue(L, -2, 1);
  rt->top = rt->active = t;
  t->active = true;
  return 1;
}

static sdb_aot_input *add_input(ltrace *t, const char *argname, const sdb_source *src) {
  sdb_aot_input *v = realloc(t->inputs, (t->ninputs + 1) * sizeof *v);
  if (!v) return NULL;
  t->inputs = v;
  sdb_aot_input *in = &v[t->ninputs++];
  memset(in, 0, sizeof *in);
  in->argname = sdb_intern(argname);
  in->source = src;
  return in;
}

/* trace:phantom(name, hint [, min [, max]]) -> a SymInt for torch.export's
** phantom root: a symbol with a ConstantSource(name) and the root Dim's
** range, that no input carries (a derived dim is an expression of it). */
static int trace_phantom(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  const char *name = luaL_checkstring(L, 2);
  lua_Integer hint = luaL_checkinteger(L, 3);
  sdb_dim_spec spec = {0};
  spec.dynamic = SDB_DIM_DYNAMIC;
  if (lua_isinteger(L, 4)) { spec.has_min = true; spec.min = lua_tointeger(L, 4); }
  if (lua_isinteger(L, 5)) { spec.has_max = true; spec.max = lua_tointeger(L, 5); }
  const sdb_source *src = sdb_source_constant(name);
  if (!src) return luaL_error(L, "phantom: bad name '%s'", name);
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *e = NULL;
  if (sdb_create_symbol(t->env, hint, src, &spec, NULL, &e, &err)) return lsdb_raise(L, &err);
  sdb_value v = sdb_value_int(e);
  lsdb_push_scalar(L, &v, NULL);
  return 1;
}

/* trace:derived_eq(size, root, a, b) -> whether size == a*root + b, as
** produce_guards evaluates a derived dim's equality: a guard (true at the
** hints: size is then replaced by the expression), with no graph node. */
static int trace_derived_eq(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lsym *size = lsdb_test_sym(L, 2), *root = lsdb_test_sym(L, 3);
  if (!size || !root) return luaL_error(L, "derived_eq: expected two SymInts");
  const sdb_expr *rhs = sdb_add(sdb_mul(sdb_int(luaL_checkinteger(L, 4)), root->e),
                                sdb_int(luaL_checkinteger(L, 5)));
  const sdb_expr *eq = rhs ? sdb_eq(size->e, rhs) : NULL;
  if (!eq) return luaL_error(L, "%s", sdb_expr_error());
  bool out;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_guard_bool(t->env, eq, &out, &err)) return lsdb_raise(L, &err);
  lua_pushboolean(L, out);
  return 1;
}

/* trace:input(argname, value [, dims]) -> the fake value the function sees.
** dims: nil (static), true (all dynamic), or a set {[0]=true, ...} of
** dynamic dims; for integers true makes a SymInt input. */
static int trace_input(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (t->finished) return luaL_error(L, "input: the trace phase has finished");
  const char *argname = luaL_checkstring(L, 2);
  const sdb_source *src = sdb_source_local(argname);
  if (!src) return luaL_error(L, "out of memory");
  sdb_err err = SDB_ERR_INIT;
  if (lsdb_testudata(L, 3, LSDB_TENSOR)) {
    ltensor *real = lsdb_check_ltensor(L, 3);
    sdb_fake *r = real->t;
    int64_t sizes[64];
    for (int i = 0; i < r->ndim && i < 64; i++) {
      if (r->sizes[i]->kind != SDB_INT)
        return luaL_error(L, "input %s has a symbolic size; pass a real tensor", argname);
      sizes[i] = r->sizes[i]->ival;
    }
    /* the policy for each dim, kept in a stateful context for re-fakification */
    sdb_symctx *ctx = sdb_symctx_new(true, (size_t)r->ndim, SDB_DIM_STATIC);
    if (!ctx) return luaL_error(L, "out of memory");
    for (int i = 0; i < r->ndim; i++) {
      bool dyn = false;
      if (lua_toboolean(L, 4) && !lua_istable(L, 4)) dyn = true;
      else if (lua_istable(L, 4)) {
        /* a torch.export Dim spec: { dynamic = "DYNAMIC"|"STATIC"|"DUCK", min =, max = } */
        if (lua_rawgeti(L, 4, i) == LUA_TTABLE) {
          sdb_dim_spec *d = &ctx->sizes[i];
          if (lua_getfield(L, -1, "dynamic") == LUA_TSTRING) {
            int k = sdb_dim_dynamic_from_name(lua_tostring(L, -1));
            if (k >= 0) d->dynamic = (sdb_dim_dynamic)k;
          }
          if (lua_getfield(L, -2, "min") == LUA_TNUMBER) { d->has_min = true; d->min = lua_tointeger(L, -1); }
          if (lua_getfield(L, -3, "max") == LUA_TNUMBER) { d->has_max = true; d->max = lua_tointeger(L, -1); }
          lua_pop(L, 3);
        } else {
          dyn = lua_toboolean(L, -1);
        }
        lua_pop(L, 1);
      }
      if (i < 64 && (real->dynamic_dims >> i) & 1) ctx->sizes[i].dynamic = SDB_DIM_DYNAMIC;
      else if (dyn) ctx->sizes[i].dynamic = SDB_DIM_DUCK;
    }
    /* mark_unbacked wins over mark_dynamic and dynamic=true, as in Dynamo */
    lsdb_push_unbacked_marks(L);
    lua_pushvalue(L, 3);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
      for (int i = 0; i < r->ndim; i++) {
        if (lua_rawgeti(L, -1, i) == LUA_TTABLE) {
          sdb_dim_spec *d = &ctx->sizes[i];
          d->dynamic = SDB_DIM_UNBACKED;
          if (lua_rawgeti(L, -1, 1) == LUA_TNUMBER) { d->has_min = true; d->min = lua_tointeger(L, -1); }
          if (lua_rawgeti(L, -2, 2) == LUA_TNUMBER) { d->has_max = true; d->max = lua_tointeger(L, -1); }
          lua_pop(L, 2);
        }
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 2);
    sdb_aot_input *in = add_input(t, argname, src);
    if (!in) { sdb_symctx_free(ctx); return luaL_error(L, "out of memory"); }
    in->ctx = ctx;   /* the trace owns it: aot re-fakifies through it */
    in->is_tensor = true;
    in->ndim = r->ndim;
    for (int i = 0; i < r->ndim && i < 64; i++) in->sizes[i] = sizes[i];
    in->dtype = r->dtype;
    in->device = sdb_fake_device(r);
    in->requires_grad = r->requires_grad;
    sdb_fake *fake = NULL;
    /* an unbacked input dim says where it came from: mark_unbacked */
    bool marked = false;
    for (int i = 0; i < r->ndim; i++) marked |= ctx->sizes[i].dynamic == SDB_DIM_UNBACKED;
    if (marked) sdb_events_push_op(t->rt->ev, "mark_unbacked");
    int rc = sdb_fakify(t->mode, sizes, r->ndim, r->dtype, sdb_fake_device(r), r->requires_grad, src, ctx,
                        &fake, &err);
    if (marked) sdb_events_pop_op(t->rt->ev);
    if (rc) return lsdb_raise(L, &err);
    sdb_node *ph = sdb_tracer_input_tensor(t->tracer, fake, argname, src, &err);
    if (!ph) { sdb_fake_unref(fake); return lsdb_raise(L, &err); }
    in->placeholder = ph;
    lsdb_push_tensor(L, fake);
    sdb_fake_unref(fake);
    return 1;
  }
  if (lua_isinteger(L, 3)) {
    lua_Integer v = lua_tointeger(L, 3);
    if (lua_toboolean(L, 4)) {
      sdb_dim_spec spec = sdb_symctx_dim(NULL, 0);
      spec.dynamic = SDB_DIM_DYNAMIC;
      spec.unspecified = true;
      const sdb_expr *e;
      if (sdb_create_symbol(t->env, v, src, &spec, NULL, &e, &err)) return lsdb_raise(L, &err);
      sdb_node *ph = sdb_tracer_input_symint(t->tracer, e, argname, src, &err);
      if (!ph) return lsdb_raise(L, &err);
      sdb_aot_input *in = add_input(t, argname, src);
      if (!in) return luaL_error(L, "out of memory");
      in->symint = e;
      in->placeholder = ph;
      sdb_value ex = sdb_value_int(e);
      lsdb_push_scalar(L, &ex, ph);
      return 1;
    }
    /* ints are specialized: a constant, guarded as L['n'] == 5 */
    sdb_dim_spec spec = sdb_symctx_dim(NULL, 0);
    spec.dynamic = SDB_DIM_STATIC;
    const sdb_expr *e;
    if (sdb_create_symbol(t->env, v, src, &spec, NULL, &e, &err)) return lsdb_raise(L, &err);
    lua_pushinteger(L, v);
    return 1;
  }
  /* anything else is a constant to the trace */
  lua_pushvalue(L, 3);
  return 1;
}

/* trace:finish(results_table) -> the output values; runs the graph pass,
** then the guards phase: produce_guards, guards_installed. */
/* A SymBool nothing read is almost always `if n:gt(2) then`: always true
** in Lua, where every userdata is. Say so where it was built, once the
** trace is done (a note event for the debugger, a warning on stderr). */
static int by_serial(const void *a, const void *b) {
  uint32_t x = (*(lsym *const *)a)->serial, y = (*(lsym *const *)b)->serial;
  return x < y ? -1 : x > y;
}

static void warn_unused_symbools(lua_State *L, ltrace *t) {
  lsdb_symbools_list(L, t, false);   /* kept on the stack: it keeps them alive */
  size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
  /* in the order they were built (the list is reordered as they are read) */
  lsym **v = n ? lua_newuserdatauv(L, n * sizeof *v, 0) : NULL;
  size_t k = 0;
  for (size_t i = 1; i <= n; i++) {
    lua_rawgeti(L, -1 - (v != NULL), (lua_Integer)i);
    lsym *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (s && !s->used) v[k++] = s;
  }
  if (k) qsort(v, k, sizeof *v, by_serial);
  for (size_t i = 0; i < k; i++) {
    lsym *s = v[i];
    char *text = sdb_expr_str(s->e);
    const char *where = s->file ? sdb_internf("%s:%d", s->file, s->line) : "an unknown line";
    const char *msg = sdb_internf(
      "a SymBool was never used: %s built at %s. In Lua every userdata is true, so "
      "`if b then` always takes the branch: write `if n > 2 then` or `if b:bool() then` to "
      "branch (a guard), torch._check(b) to assert", text ? text : "?", where);
    free(text);
    sdb_event_in e = {0};
    e.kind = SDB_EV_NOTE;
    e.detail = msg;
    sdb_loc loc = { s->file, s->line, NULL };
    if (s->file) sdb_emit_at(t->rt->ev, &e, &loc);
    else sdb_emit(t->rt->ev, &e);
    /* through Lua's io.stderr, as PyTorch's warnings go through Python's */
    int top = lua_gettop(L);
    if (lua_getglobal(L, "io") == LUA_TTABLE && lua_getfield(L, -1, "stderr") != LUA_TNIL &&
        lua_getfield(L, -1, "write") != LUA_TNIL) {
      lua_pushvalue(L, -2);
      lua_pushfstring(L, "UserWarning: %s\n", msg);
      fflush(stdout);
      lua_call(L, 2, 0);
    }
    lua_settop(L, top);
  }
  lua_pop(L, 1 + (v != NULL));
  lsdb_symbools_drop(L, t);
}

static int trace_finish(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (t->finished) return luaL_error(L, "finish: the trace phase has already finished");
  luaL_checktype(L, 2, LUA_TTABLE);
  lruntime *rt = t->rt;
  size_t n = lua_rawlen(L, 2);
  argbox *b = lsdb_new_argbox(L);
  sdb_value tup = sdb_value_seq(SDB_V_TUPLE, n);
  if (n && !tup.items) return luaL_error(L, "out of memory");
  b->pos[0] = tup;
  b->npos = 1;
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 2, (lua_Integer)i + 1);
    lsdb_adopt_proxy(L, lua_gettop(L), t->tracer);
    if (!lsdb_to_value(L, lua_gettop(L), &b->pos[0].items[i]))
      return luaL_error(L, lsdb_to_value_oom() ? "out of memory"
                                               : "the traced function returned an unsupported value (%s)",
                        luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  sdb_err err = SDB_ERR_INIT;
  if (!sdb_tracer_output(t->tracer, &b->pos[0], &err)) return lsdb_raise(L, &err);
  lsdb_stack_still(L, true);
  int frc = sdb_tracer_finalize(t->tracer, &err);
  lsdb_stack_still(L, false);
  if (frc) return lsdb_raise(L, &err);
  deactivate(L, t);
  sdb_tracer_done(t->tracer);   /* inactive first: the warning below runs Lua */
  warn_unused_symbools(L, t);
  lsdb_phase_event(rt, SDB_EV_PHASE_END, SDB_PHASE_TRACE, t->name);
  sdb_events_set_phase(rt->ev, SDB_PHASE_NONE);
  t->finished = true;
  lua_settop(L, 2);
  return 1;
}

/* trace:aot() -> the aot-compile phase over the finished trace */
static int trace_aot(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (!t->finished) return luaL_error(L, "aot: the trace phase has not finished");
  if (t->have_aot) return luaL_error(L, "aot: already compiled");
  lsdb_runtime(L);
  sdb_err err = SDB_ERR_INIT;
  lsdb_stack_still(L, true);
  int rc = sdb_aot_compile(t->env, t->graph, t->inputs, t->ninputs, &t->aot, &err);
  lsdb_stack_still(L, false);
  if (rc) return lsdb_raise(L, &err);   /* the phase stays for trace:abort to end */
  sdb_events_set_phase(t->rt->ev, SDB_PHASE_NONE);
  t->have_aot = true;
  return 0;
}

/* trace:check_guards(values) -> ok, { {text=, input=, dim=, static=, phase=}, ... }
** every failing guard of the installed set against a new call's inputs */
static int trace_check_guards(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!t->have_guards) return luaL_error(L, "check_guards: no guards installed");
  lua_settop(L, 2);
  size_t failed[256];
  sdb_err err = SDB_ERR_INIT;
  int n = sdb_check_guards(&t->guards, lsdb_source_value, L, failed, 256, NULL, &err);
  if (n < 0) return lsdb_raise(L, &err);
  lua_pushboolean(L, n == 0);
  lua_createtable(L, n, 0);
  sdb_buf why = SDB_BUF_INIT;
  for (int i = 0; i < n && i < 256; i++) {
    const sdb_shape_guard *g = &t->guards.v[failed[i]];
    lua_createtable(L, 0, 5);
    const char *text = g->text;
    if (g->kind == SDB_SG_STATIC) {
      /* TENSOR_MATCH's wording, with the value the new call has */
      int64_t actual = 0;
      lua_pushvalue(L, 2);
      lsdb_source_value(L, g->source, &actual);
      lua_pop(L, 1);
      const sdb_source *root = sdb_source_root(g->source);
      sdb_buf_clear(&why);
      if (g->source->kind == SDB_SRC_STORAGE_OFFSET)
        sdb_buf_printf(&why, "tensor '%s' storage_offset mismatch. expected %lld, actual %lld",
                       root ? root->name : "?", (long long)g->expr->ival, (long long)actual);
      else
        sdb_buf_printf(&why, "tensor '%s' %s mismatch at index %lld. expected %lld, actual %lld",
                       root ? root->name : "?", g->source->kind == SDB_SRC_STRIDE ? "stride" : "size",
                       (long long)g->source->idx, (long long)g->expr->ival, (long long)actual);
      text = sdb_buf_cstr(&why);
      lua_pushboolean(L, 1);
      lua_setfield(L, -2, "static");
    }
    lua_pushstring(L, text);
    lua_setfield(L, -2, "text");
    lua_pushstring(L, sdb_phase_name(g->prov.phase));
    lua_setfield(L, -2, "phase");
    const sdb_source *src = g->source;
    if (src) {
      const sdb_source *root = sdb_source_root(src);
      if (root && root->ident) { lua_pushstring(L, root->ident); lua_setfield(L, -2, "input"); }
      if (src->kind == SDB_SRC_SIZE) { lua_pushinteger(L, src->idx); lua_setfield(L, -2, "dim"); }
      /* an int input specialized to its value (L['k'] == 4) */
      if (src == root && g->expr && g->expr->kind == SDB_INT) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "int_input");
      }
    }
    lua_rawseti(L, -2, i + 1);
  }
  sdb_buf_free(&why);
  return 2;
}

/* trace:guard_records() -> { {text=, phase=, file=, line=}, ... } the
** installed shape guards with where they were taken */
static int trace_guard_records(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lua_newtable(L);
  int k = 0;
  for (size_t i = 0; t->have_guards && i < t->guards.n; i++) {
    const sdb_shape_guard *g = &t->guards.v[i];
    if (g->kind == SDB_SG_STATIC) continue;
    lua_createtable(L, 0, 4);
    lua_pushstring(L, g->text);
    lua_setfield(L, -2, "text");
    lua_pushstring(L, sdb_phase_name(g->prov.phase));
    lua_setfield(L, -2, "phase");
    lua_pushstring(L, g->kind == SDB_SG_RANGE ? "range" : g->kind == SDB_SG_EQUALITY ? "equality" : "guard");
    lua_setfield(L, -2, "kind");
    /* the symbols it is about: export checks them against its Dims */
    const sdb_expr *about = g->kind == SDB_SG_RANGE ? g->sym : g->expr;
    lua_newtable(L);
    if (about) {
      const sdb_expr **fs;
      long nf = sdb_free_symbols(about, &fs);
      for (long k2 = 0; k2 < nf; k2++) {
        lua_pushstring(L, fs[k2]->name);
        lua_rawseti(L, -2, k2 + 1);
      }
      if (nf > 0) free(fs);
    }
    lua_setfield(L, -2, "symbols");
    if (g->kind == SDB_SG_RANGE) {
      if (g->range.lo != SDB_NINF) { lua_pushinteger(L, g->range.lo); lua_setfield(L, -2, "lo"); }
      if (g->range.hi != SDB_PINF) { lua_pushinteger(L, g->range.hi); lua_setfield(L, -2, "hi"); }
    }
    if (g->prov.loc.file) {
      const char *base = strrchr(g->prov.loc.file, '/');
      lua_pushstring(L, base ? base + 1 : g->prov.loc.file);
      lua_setfield(L, -2, "file");
      lua_pushinteger(L, g->prov.loc.line);
      lua_setfield(L, -2, "line");
    }
    lua_rawseti(L, -2, ++k);
  }
  return 1;
}

/* trace:lower{ plant_missing_binding = "nonzero" } -> the lowering phase */
static int trace_lower(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (!t->have_aot) return luaL_error(L, "lower: run the aot-compile phase first");
  if (t->have_lowered) return luaL_error(L, "lower: already lowered");
  lsdb_runtime(L);
  sdb_lower_opts o = {NULL};
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "plant_missing_binding");
    o.plant_missing_binding = lua_isstring(L, -1) ? sdb_intern(lua_tostring(L, -1)) : NULL;
    lua_pop(L, 1);
  }
  sdb_err err = SDB_ERR_INIT;
  lsdb_stack_still(L, true);
  int rc = sdb_lower(t->aot.mode, t->aot.graph, &o, &t->lowered, &err);
  lsdb_stack_still(L, false);
  if (rc) {   /* the phase stays for trace:abort to end */
    sdb_lowered_free(&t->lowered);
    return lsdb_raise(L, &err);
  }
  sdb_events_set_phase(t->rt->ev, SDB_PHASE_NONE);
  t->have_lowered = true;
  return 0;
}

/* trace:wrapper() -> the lowering's wrapper code, or nil */
static int trace_wrapper(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (!t->have_lowered || !t->lowered.wrapper) { lua_pushnil(L); return 1; }
  lua_pushstring(L, t->lowered.wrapper);
  return 1;
}

/* trace:buffers() -> { "buf0 FallbackKernel for nonzero", ... } */
static int trace_buffers(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lua_newtable(L);
  for (size_t i = 0; t->have_lowered && i < t->lowered.n; i++) {
    const sdb_ibuf *b = &t->lowered.bufs[i];
    luaL_Buffer lb;
    luaL_buffinit(L, &lb);
    lua_pushfstring(L, "%s %s for %s", b->name, sdb_ibuf_kind_name(b->kind),
                    b->origin ? b->origin->name : "?");
    luaL_addvalue(&lb);
    for (size_t d = 0; d < b->ndefines; d++) {
      const sdb_expr *s = sdb_resolve_renamed(t->env, b->defines[d].sym);
      lua_pushfstring(L, "%s%s", d ? ", " : " defines ", s->name);
      luaL_addvalue(&lb);
    }
    luaL_pushresult(&lb);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* trace:install_guards() -> the guards phase: produce_guards over the one
** ShapeEnv (trace and aot guards alike), guards_installed. */
static int trace_install_guards(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lruntime *rt = lsdb_runtime(L);
  sdb_err err = SDB_ERR_INIT;
  lsdb_phase_event(rt, SDB_EV_PHASE_START, SDB_PHASE_GUARDS, t->name);
  sdb_shape_guards_free(&t->guards);
  if (sdb_produce_guards(t->env, &t->guards, &err)) return lsdb_raise(L, &err);
  t->have_guards = true;
  sdb_buf text = SDB_BUF_INIT;
  int shown = 0;
  for (size_t i = 0; i < t->guards.n; i++) {
    if (t->guards.v[i].kind == SDB_SG_STATIC) continue;
    sdb_buf_printf(&text, "%s%s", shown++ ? "\n" : "", t->guards.v[i].text);
  }
  sdb_event_in e = {0};
  e.kind = SDB_EV_GUARDS_INSTALLED;
  e.value = shown;
  e.detail = sdb_buf_cstr(&text);
  sdb_emit(rt->ev, &e);
  sdb_buf_free(&text);
  lsdb_phase_event(rt, SDB_EV_PHASE_END, SDB_PHASE_GUARDS, t->name);
  sdb_events_set_phase(rt->ev, SDB_PHASE_NONE);
  return 0;
}

/* trace:aot_graph() -> the functional aten graph, or nil */
static int trace_aot_graph(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  if (!t->have_aot) { lua_pushnil(L); return 1; }
  sdb_print_opts o = {false, true, false, true};
  char *s = sdb_graph_print(t->aot.graph, &o);
  if (!s) return luaL_error(L, "out of memory: cannot print the aot graph");
  lua_pushstring(L, s);
  free(s);
  if (t->aot.mutations) { lua_pushstring(L, t->aot.mutations); return 2; }
  return 1;
}

/* trace:abort(message [, file, line, func]): record the error (at the
** given user location: where it was raised, not where it is reported),
** end the phase */
static int trace_abort(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  const char *msg = luaL_optstring(L, 2, "error");
  lsdb_symbools_drop(L, t);   /* an error is the news, not unused conditions */
  sdb_loc at = { NULL, 0, NULL };
  if (lua_isstring(L, 3)) {
    at.file = sdb_intern(lua_tostring(L, 3));
    at.line = (int)luaL_optinteger(L, 4, 0);
    at.func = lua_isstring(L, 5) ? sdb_intern(lua_tostring(L, 5)) : NULL;
  }
  /* an error from a later phase (aot, lowering) raised by core at the
  ** line of the node it was replaying: there, not at the compile call */
  if (!at.file && lua_getfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_LOC) == LUA_TTABLE) {
    lua_getfield(L, -1, "msg");
    bool same = lua_isstring(L, -1) && !strcmp(lua_tostring(L, -1), msg);
    lua_pop(L, 1);
    if (same && lua_getfield(L, -1, "file") == LUA_TSTRING) {
      at.file = sdb_intern(lua_tostring(L, -1));
      lua_getfield(L, -2, "line");
      at.line = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_LOC);
  lruntime *rt = t->rt;
  deactivate(L, t);
  const char *colon = strstr(msg, ": ");
  sdb_event_in e = {0};
  e.kind = SDB_EV_ERROR;
  char kind[64] = "Error";
  if (colon && (size_t)(colon - msg) < sizeof kind && !memchr(msg, ' ', (size_t)(colon - msg))) {
    memcpy(kind, msg, (size_t)(colon - msg));
    kind[colon - msg] = '\0';
  }
  e.text = kind;
  e.detail = msg;
  /* the condition of the error being reported, if lsdb_raise kept one and
  ** this message is that error's (a Lua error in between would not be) */
  lua_getfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_COND);
  const sdb_expr *cond = lsdb_to_expr(L, -1);
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LSDB_LAST_ERROR_COND);
  sdb_event_more more = {0};
  if (cond && (!strcmp(kind, "GuardOnDataDependentSymNode") || !strcmp(kind, "RuntimeError"))) {
    more.expr = cond;
    e.more = &more;
  }
  if (at.file) sdb_emit_at(rt->ev, &e, &at);
  else sdb_emit(rt->ev, &e);
  lsdb_phase_event(rt, SDB_EV_PHASE_END, sdb_events_phase(rt->ev), t->name);
  sdb_events_set_phase(rt->ev, SDB_PHASE_NONE);
  return 0;
}

/* trace:graph{ bindings = true, strides = false, locations = false } -> text */
static int trace_graph(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  sdb_print_opts o = {false, true, false, true};
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "bindings");
    if (!lua_isnil(L, -1)) o.bindings = lua_toboolean(L, -1);
    lua_getfield(L, 2, "strides");
    o.strides = lua_toboolean(L, -1);
    lua_getfield(L, 2, "locations");
    o.locations = lua_toboolean(L, -1);
    lua_pop(L, 3);
  }
  char *s = sdb_graph_print(t->graph, &o);
  if (!s) return luaL_error(L, "out of memory: cannot print the graph");
  lua_pushstring(L, s);
  free(s);
  return 1;
}

/* trace:bindings() -> { "nonzero: u0: .size()[0]", ... } per node */
static int trace_bindings(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lua_newtable(L);
  int k = 0;
  for (size_t i = 0; i < t->graph->n; i++) {
    const sdb_node *n = t->graph->nodes[i];
    if (!sdb_node_bindings(n)->n) continue;
    char *s = sdb_bindings_str(sdb_node_bindings(n));
    if (!s) return luaL_error(L, "out of memory: cannot print %s's bindings", n->name);
    lua_pushfstring(L, "%s: %s", n->name, s);
    free(s);
    lua_rawseti(L, -2, ++k);
  }
  return 1;
}

/* trace:simplify(n) -> n under the trace's replacements: an integer when
** it became a constant (a specialized dim), else the expression's text
** and its range's bounds (torch.export's constraint checks) */
static int trace_simplify(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lsym *s = lsdb_test_sym(L, 2);
  if (!s) { lua_settop(L, 2); return 1; }
  const sdb_expr *e = sdb_simplify(t->env, s->e);
  if (!e) return luaL_error(L, "%s", sdb_expr_error());
  if (e->kind == SDB_INT) { lua_pushinteger(L, e->ival); return 1; }
  char *text = sdb_expr_str(e);
  if (!text) return luaL_error(L, "out of memory");
  lua_pushstring(L, text);
  free(text);
  sdb_range r = sdb_bound_in(t->env, e);
  if (r.lo == SDB_NINF) lua_pushnil(L); else lua_pushinteger(L, r.lo);
  if (r.hi == SDB_PINF) lua_pushnil(L); else lua_pushinteger(L, r.hi);
  return 3;
}

/* trace:guards() -> { "L['x'].size()[0] == ...", ... } (shape guards) */
static int trace_guards(lua_State *L) {
  ltrace *t = check_trace(L, 1);
  lua_newtable(L);
  int k = 0;
  for (size_t i = 0; t->have_guards && i < t->guards.n; i++) {
    if (t->guards.v[i].kind == SDB_SG_STATIC) continue;
    lua_pushstring(L, t->guards.v[i].text);
    lua_rawseti(L, -2, ++k);
  }
  return 1;
}

static int trace_name(lua_State *L) {
  lua_pushstring(L, check_trace(L, 1)->name);
  return 1;
}

static const luaL_Reg trace_methods[] = {
  {"input", trace_input}, {"phantom", trace_phantom}, {"derived_eq", trace_derived_eq}, {"finish", trace_finish}, {"abort", trace_abort},
  {"graph", trace_graph}, {"bindings", trace_bindings}, {"guards", trace_guards},
  {"name", trace_name}, {"aot", trace_aot}, {"install_guards", trace_install_guards},
  {"aot_graph", trace_aot_graph}, {"lower", trace_lower}, {"wrapper", trace_wrapper},
  {"buffers", trace_buffers}, {"check_guards", trace_check_guards},
  {"guard_records", trace_guard_records}, {"simplify", trace_simplify}, {NULL, NULL}
};

void lsdb_open_trace(lua_State *L) {
  luaL_newmetatable(L, LSDB_TRACE);
  lua_pushcfunction(L, trace_gc);
  lua_setfield(L, -2, "__gc");
  luaL_newlib(L, trace_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
