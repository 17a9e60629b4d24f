/*
** lsdb_hop.c — the C half of torch.cond and torch.wrap (lua/torch.lua calls
** the branch functions, so a debugger can pause inside them):
**
**   local h = shapedb._hop_begin("cond", pred)
**   h:branch("true");  ... true_fn(...) ...;  h:branch_end(outs)
**   h:branch("false"); ... false_fn(...) ...; h:branch_end(outs)
**   return h:finish()
**
** A branch runs in a child tracer over its own subgraph (cond_true_0, ...),
** in the cond phase, under ignore_fresh_unbacked_symbols for cond, with the
** fake mode's epoch bumped afterwards (Dynamo does both). finish() merges
** the outputs, gives the branches one signature and places
** `cond = torch.ops.higher_order.cond(pred, cond_true_0, cond_false_0, (...))`.
*/
#include "lsdb_rt.h"
#include "buf.h"
#include "hop.h"
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#define LSDB_HOP "shapedb.Hop"
#define HOP_MAX_NEST 64   /* cond/wrap inside each other */

typedef struct {
  ltrace *trace;
  sdb_tracer *parent;
  const char *kind;            /* "cond" or "wrap" */
  bool is_cond;
  sdb_value pred;              /* cond only (owned) */
  sdb_branch branches[2];
  int nbranches;
  sdb_tracer *child;           /* the branch being traced, or NULL */
  sdb_version_snapshot snap;
  sdb_phase saved_phase;
  bool done;
} lhop;

static lhop *check_hop(lua_State *L) {
  lhop *h = lsdb_checkudata(L, 1, LSDB_HOP);
  if (h->done) luaL_error(L, "%s: already finished", h->kind ? h->kind : "hop");
  lsdb_runtime(L);   /* records the running thread for the locator */
  return h;
}

/* Leave a branch: the child tracer goes, the parent traces again. */
static void end_branch(lhop *h) {
  if (!h->child) return;
  sdb_tracer_free(h->child);
  h->child = NULL;
  h->trace->tracer = h->parent;
  if (h->is_cond) sdb_ignore_fresh_pop(h->trace->env);
  sdb_events_set_phase(h->trace->rt->ev, h->saved_phase);
  sdb_snapshot_free(&h->snap);
}

static int hop_gc(lua_State *L) {
  lhop *h = lsdb_checkudata(L, 1, LSDB_HOP);
  if (h->trace && h->child) end_branch(h);
  for (int i = 0; i < 2; i++) sdb_branch_clear(&h->branches[i]);
  sdb_value_free(&h->pred);
  sdb_snapshot_free(&h->snap);
  h->done = true;
  return 0;
}

/* shapedb._hop_begin("cond", pred) / shapedb._hop_begin("wrap") */
static int l_hop_begin(lua_State *L) {
  lruntime *rt = lsdb_runtime(L);
  const char *kind = luaL_checkstring(L, 1);
  bool is_cond = !strcmp(kind, "cond");
  if (!is_cond && strcmp(kind, "wrap")) return luaL_error(L, "unknown higher-order op '%s'", kind);
  if (!rt->active) return luaL_error(L, "torch.%s needs an active trace (call it inside a torch.compile'd function)", kind);
  if (rt->active->tracer && rt->active->tracer->depth >= HOP_MAX_NEST) {
    /* Each level costs several nested C calls (the branch runs under
    ** xpcall); Lua's C-call limit would otherwise end the trace with a
    ** bare "C stack overflow" and no line. Name the user's line. */
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
      if (lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@' && ar.currentline > 0) {
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        break;
      }
    }
    if (lua_type(L, -1) != LUA_TSTRING) lua_pushliteral(L, "");
    lua_pushfstring(L, "%storch.%s: higher-order ops nested too deeply (limit %d)",
                    lua_tostring(L, -1), kind, HOP_MAX_NEST);
    return lua_error(L);
  }
  sdb_value pred = SDB_VALUE_NONE;
  if (is_cond) {
    if (!lsdb_to_value(L, 2, &pred) && lsdb_to_value_oom()) return luaL_error(L, "torch.cond: out of memory");
    if (!(pred.kind == SDB_V_TENSOR || pred.kind == SDB_V_BOOL)) {
      sdb_value_free(&pred);
      return luaL_error(L, "torch.cond: Expected `pred` to be a bool or a boolean tensor with a single "
                           "item but got %s", luaL_typename(L, 2));
    }
    if (pred.kind == SDB_V_TENSOR) {
      const sdb_expr *n = sdb_fake_numel(pred.tensor);
      bool ok = pred.tensor->dtype == SDB_BOOL && n && sdb_statically_known_true(rt->active->env, sdb_eq(n, sdb_int(1)));
      if (!ok) {
        char *m = sdb_fake_meta_str(pred.tensor, false);
        lua_pushfstring(L, "torch.cond: Expected `pred` to be a bool or a boolean tensor with a single "
                           "item but got %s", m ? m : "a tensor");
        free(m);
        sdb_value_free(&pred);
        return lua_error(L);
      }
    }
    lsdb_adopt_proxy(L, 2, rt->active->tracer);
  }
  lhop *h = lua_newuserdatauv(L, sizeof *h, 1);
  memset(h, 0, sizeof *h);
  luaL_setmetatable(L, LSDB_HOP);
  h->trace = rt->active;
  h->parent = rt->active->tracer;
  h->kind = sdb_intern(kind);
  h->is_cond = is_cond;
  h->pred = pred;
  return 1;
}

/* h:branch("true" | "false" | "body") */
static int hop_branch(lua_State *L) {
  lhop *h = check_hop(L);
  const char *which = luaL_checkstring(L, 2);
  if (h->child) return luaL_error(L, "%s: a branch is already being traced", h->kind);
  if (h->nbranches >= (h->is_cond ? 2 : 1)) return luaL_error(L, "%s: too many branches", h->kind);
  char base[64], name[64];
  if (h->is_cond) {
    snprintf(base, sizeof base, "cond_%s", which);
    snprintf(name, sizeof name, "cond.%s_branch", which);
  } else {
    snprintf(base, sizeof base, "wrap_body");
    snprintf(name, sizeof name, "wrap.body");
  }
  sdb_graph *g = sdb_graph_new_sub(h->parent->graph, base);
  if (!g) return luaL_error(L, "out of memory");
  sdb_err err = SDB_ERR_INIT;
  if (h->is_cond && sdb_snapshot_versions(h->parent, &h->snap, &err)) return lsdb_raise(L, &err);
  sdb_events *ev = h->trace->rt->ev;
  h->saved_phase = sdb_events_phase(ev);
  if (h->is_cond) sdb_events_set_phase(ev, SDB_PHASE_COND);
  h->child = sdb_tracer_new(h->parent, name, g, h->trace->mode);
  if (!h->child) return luaL_error(L, "out of memory");
  if (h->is_cond) sdb_ignore_fresh_push(h->trace->env);
  h->trace->tracer = h->child;
  sdb_branch *b = &h->branches[h->nbranches];
  b->name = sdb_intern(base);
  b->graph = g;
  return 0;
}

/* Lua results (a table, n) -> a tuple value in an argbox on the stack. */
static sdb_value *results_tuple(lua_State *L, int tidx, sdb_tracer *tr, const char *what) {
  argbox *box = lsdb_new_argbox(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, tidx);
  lua_getfield(L, tidx, "n");
  if (lua_isinteger(L, -1)) n = lua_tointeger(L, -1);
  lua_pop(L, 1);
  box->pos[0] = sdb_value_seq(SDB_V_TUPLE, (size_t)n);
  box->npos = 1;
  if (n > 0 && box->pos[0].kind == SDB_V_NONE) luaL_error(L, "out of memory");
  for (lua_Integer i = 0; i < n; i++) {
    lua_rawgeti(L, tidx, i + 1);
    lsdb_adopt_proxy(L, lua_gettop(L), tr);
    if (!lsdb_to_value(L, lua_gettop(L), &box->pos[0].items[i]))
      luaL_error(L, lsdb_to_value_oom() ? "%s: out of memory" : "%s returned an unsupported value (%s)", what,
                 luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  return &box->pos[0];
}

/* h:branch_end(results) */
static int hop_branch_end(lua_State *L) {
  lhop *h = check_hop(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!h->child) return luaL_error(L, "%s: no branch is being traced", h->kind);
  sdb_branch *b = &h->branches[h->nbranches];
  sdb_value *outs = results_tuple(L, 2, h->child, b->name);
  sdb_err err = SDB_ERR_INIT;
  if (!sdb_tracer_output(h->child, outs, &err)) { end_branch(h); return lsdb_raise(L, &err); }
  if (h->is_cond &&
      sdb_hop_check_branch(h->trace->rt->ev, b->name, &h->snap, outs, &err)) {
    end_branch(h);
    return lsdb_raise(L, &err);
  }
  sdb_graph_dce(h->child->graph);
  if (sdb_branch_collect_inputs(b, h->child, &err)) { end_branch(h); return lsdb_raise(L, &err); }
  if (!sdb_value_copy_checked(&b->outputs, outs)) { end_branch(h); return luaL_error(L, "out of memory"); }
  h->nbranches++;
  end_branch(h);
  /* don't memoize unbacked symbols across subgraphs */
  if (h->is_cond) sdb_fake_mode_bump_epoch(h->trace->mode);
  return 0;
}

/* h:abort(): leave a branch cleanly after an error in it */
static int hop_abort(lua_State *L) {
  lhop *h = lsdb_checkudata(L, 1, LSDB_HOP);
  if (h->trace && h->child) end_branch(h);
  h->done = true;
  return 0;
}

static bool any_requires_grad(const sdb_value *v) {
  if (v->kind == SDB_V_TENSOR) return v->tensor->requires_grad;
  if (v->kind == SDB_V_TUPLE || v->kind == SDB_V_LIST)
    for (size_t i = 0; i < v->n; i++)
      if (any_requires_grad(&v->items[i])) return true;
  return false;
}

/* h:finish() -> the outputs (several values) */
static int hop_finish(lua_State *L) {
  lhop *h = check_hop(L);
  if (h->child) return luaL_error(L, "%s: finish() inside a branch", h->kind);
  if (h->nbranches != (h->is_cond ? 2 : 1)) return luaL_error(L, "%s: missing branch", h->kind);
  sdb_tracer *tr = h->parent;
  sdb_err err = SDB_ERR_INIT;
  argbox *box = lsdb_new_argbox(L);
  box->npos = 1;
  sdb_value *merged = &box->pos[0];
  if (h->is_cond) {
    sdb_events_push_op(h->trace->rt->ev, "cond");
    int rc = sdb_cond_merge(h->trace->mode, &h->branches[0].outputs, &h->branches[1].outputs, merged, &err);
    sdb_events_pop_op(h->trace->rt->ev);
    if (rc) return lsdb_raise(L, &err);
  } else {
    if (!sdb_value_copy_checked(merged, &h->branches[0].outputs)) return luaL_error(L, "out of memory");
  }
  sdb_node **ops = NULL;
  size_t nops = 0;
  if (sdb_hop_signature(h->branches, (size_t)h->nbranches, &ops, &nops, &err)) return lsdb_raise(L, &err);
  /* autograd runs only when some operand requires grad */
  bool grad = false;
  for (size_t i = 0; i < nops; i++) grad = grad || any_requires_grad(&ops[i]->example);
  if (h->is_cond) {
    sdb_event_in e = {0};
    e.kind = SDB_EV_AUTOGRAD;
    e.flags = grad;
    e.text = "cond";
    e.detail = grad ? "an operand requires grad: the autograd key is dispatched"
                    : "no operand requires grad: autograd is skipped";
    sdb_emit(h->trace->rt->ev, &e);
  }
  if (!grad) {   /* outputs require grad only through an operand */
    for (size_t i = 0; i < merged->n; i++)
      if (merged->items[i].kind == SDB_V_TENSOR) merged->items[i].tensor->requires_grad = false;
  }
  /* get_attr nodes for the subgraphs, then the call */
  sdb_node *attrs[2] = {NULL, NULL};
  for (int i = 0; i < h->nbranches; i++) {
    attrs[i] = sdb_graph_call(tr->graph, SDB_N_GET_ATTR, h->branches[i].graph->name,
                              h->branches[i].graph->name, NULL, 0, NULL);
    if (!attrs[i] || !sdb_node_set_sub(attrs[i], h->branches[i].graph)) {
      free(ops);
      return luaL_error(L, "out of memory");
    }
    sdb_tracer_adopt_node(tr, attrs[i], NULL, &err);
  }
  size_t nargs = h->is_cond ? 4 : 1 + nops;
  sdb_arg *args = calloc(nargs + 1, sizeof *args);
  if (!args) { free(ops); return luaL_error(L, "out of memory"); }
  size_t k = 0;
  if (h->is_cond) {
    if (sdb_tracer_arg(tr, &h->pred, &args[k++], &err)) { free(ops); free(args); return lsdb_raise(L, &err); }
    args[k++] = sdb_arg_node(attrs[0]);
    args[k++] = sdb_arg_node(attrs[1]);
    args[k] = sdb_arg_seq(nops, true);
    if (args[k].n != nops) { free(ops); free(args); return luaL_error(L, "out of memory"); }
    for (size_t i = 0; i < nops; i++) args[k].items[i] = sdb_arg_node(ops[i]);
    k++;
  } else {
    args[k++] = sdb_arg_node(attrs[0]);
    for (size_t i = 0; i < nops; i++) args[k++] = sdb_arg_node(ops[i]);
  }
  free(ops);
  const char *target = h->is_cond ? "torch.ops.higher_order.cond" : "torch.ops.higher_order.wrap";
  sdb_events_push_op(h->trace->rt->ev, h->kind);
  /* the node records the bindings of the fresh output symbols (#148206) */
  sdb_node *node = sdb_graph_call(tr->graph, SDB_N_CALL_FUNCTION, target, h->kind, args, k, merged);
  if (!node) { sdb_events_pop_op(h->trace->rt->ev); return luaL_error(L, "out of memory"); }
  /* placing through the tracer: events, bindings, getitems */
  sdb_node *placed = sdb_tracer_adopt_node(tr, node, merged, &err);
  sdb_events_pop_op(h->trace->rt->ev);
  if (!placed) return lsdb_raise(L, &err);
  h->done = true;
  int nres = (int)merged->n;
  luaL_checkstack(L, nres + 2, "too many results");
  for (size_t i = 0; i < merged->n; i++) {
    const sdb_value *it = &merged->items[i];
    sdb_node *pn = NULL;
    if (it->kind != SDB_V_TENSOR && it->expr && !sdb_is_const(it->expr))
      pn = sdb_map_get(&tr->sym_proxy, it->expr);
    lsdb_push_value(L, it, pn);
  }
  return nres;
}

static int l_tracing(lua_State *L) {
  lua_pushboolean(L, lsdb_runtime(L)->active != NULL);
  return 1;
}

static const luaL_Reg hop_methods[] = {
  {"branch", hop_branch}, {"branch_end", hop_branch_end}, {"abort", hop_abort},
  {"finish", hop_finish}, {NULL, NULL}
};

void lsdb_open_hop(lua_State *L) {
  luaL_newmetatable(L, LSDB_HOP);
  lua_pushcfunction(L, hop_gc);
  lua_setfield(L, -2, "__gc");
  luaL_newlib(L, hop_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_hop_begin);
  lua_setfield(L, -2, "_hop_begin");
  lua_pushcfunction(L, l_tracing);
  lua_setfield(L, -2, "_tracing");
}
