/*
** lsdb_rt.h — private to the torch binding (lsdb_torch.c, lsdb_sym.c,
** lsdb_trace.c, lsdb_hop.c, ...): the
** per-Lua-state runtime, trace objects, tensor and SymInt userdata, and the
** marshalling helpers they share.
*/
#ifndef LSDB_RT_H
#define LSDB_RT_H

#include "lsdb.h"
#include "fake.h"
#include "graph.h"
#include "ops.h"
#include "shape_env.h"
#include "aot.h"
#include "lower.h"
#include "tracer.h"

#define LSDB_TENSOR "shapedb.Tensor"
#define LSDB_SYMINT "shapedb.SymInt"
#define LSDB_SYMBOOL "shapedb.SymBool"
#define LSDB_SYMFLOAT "shapedb.SymFloat"
#define LSDB_TRACE "shapedb.Trace"
#define LSDB_RUNTIME "shapedb.runtime"
#define MAX_ARGS 64

typedef struct ltrace ltrace;

typedef struct {
  sdb_events *ev;             /* the program's event stream (all phases) */
  sdb_shape_env *eager_env;   /* no symbols: real tensors */
  sdb_fake_mode *eager_mode;
  ltrace *active;             /* innermost active trace the running thread
                                 sees (see runtime() in lsdb_torch.c), or NULL */
  ltrace *top;                /* innermost active trace of any thread */
  lua_State *L;               /* the thread of the current call */
  /* One op call is one user line: while an op's C code runs (no Lua runs
  ** inside it; custom ops, whose kernels are Lua, are left out), the
  ** first event's walk of the Lua stack is kept for the others. */
  bool loc_scope, loc_have, loc_ok;
  sdb_loc loc;
} lruntime;

struct ltrace {
  lruntime *rt;
  sdb_shape_env *env;
  sdb_fake_mode *mode;
  sdb_graph *graph;
  sdb_tracer *tracer;         /* innermost tracer of this trace */
  ltrace *prev_active;        /* the next trace down the stack from rt->top */
  lua_State *thread;          /* the thread that began it (kept alive as the
                                 userdata's user value) */
  bool active, finished;
  bool closed;                /* its __gc ran: every method refuses it */
  const char *name;
  sdb_shape_guards guards;
  bool have_guards;
  sdb_aot_input *inputs;      /* as fakified, for re-fakification (owned) */
  size_t ninputs;
  sdb_aot_result aot;         /* the aot-compile phase's graph (owned) */
  bool have_aot;
  sdb_lowered lowered;        /* the lowering phase's buffers and wrapper (owned) */
  bool have_lowered;
};

typedef struct {
  sdb_fake *t;
  uint64_t dynamic_dims;      /* mark_dynamic on a real tensor */
} ltensor;

typedef struct {
  const sdb_expr *e;
  sdb_node *node;             /* producer while tracing, or NULL */
  const sdb_tracer *tracer;   /* the tracer node belongs to */
  sdb_shape_env *env;         /* for guards */
  /* a SymBool built while tracing: where, and whether anything read it
  ** (`if b then` does not: Lua's truth test reads no metamethod) */
  const char *file;
  int line;
  bool used;
  /* while unused, its place in the trace's list of unused SymBools (1-based;
  ** 0: not listed) and the order it was built in */
  uint32_t slot;
  uint32_t serial;
} lsym;

/* Values kept alive in a userdata while Lua code may raise: room for
** cap_pos positional and cap_kw keyword values right after the header
** (an op call sizes its box to its arguments; most boxes hold one). */
typedef struct {
  sdb_value *pos;
  sdb_kwarg *kw;
  size_t npos, nkw;
  size_t cap_pos, cap_kw;
} argbox;

lruntime *lsdb_runtime(lua_State *L);
void lsdb_push_tensor(lua_State *L, sdb_fake *t);
ltensor *lsdb_check_ltensor(lua_State *L, int idx);
lsym *lsdb_test_sym(lua_State *L, int idx);
/* a value to Lua (constants as numbers/booleans, symbolic as userdata
** carrying node as their proxy) */
void lsdb_push_value(lua_State *L, const sdb_value *v, sdb_node *node);
/* Lua value -> sdb_value (false if it cannot be an op argument) */
bool lsdb_to_value(lua_State *L, int idx, sdb_value *out);
/* Was the last false from lsdb_to_value for want of memory, not a value
** with no meaning as an argument? (Its callers raise: it does not, as a
** list half converted would leak.) */
bool lsdb_to_value_oom(void);
/* a symbolic argument carrying its producer node becomes the proxy */
void lsdb_adopt_proxy(lua_State *L, int idx, sdb_tracer *tr);
/* a new empty argbox on the stack (freed by __gc) with room for one
** positional value; _n with room for npos and nkw */
argbox *lsdb_new_argbox(lua_State *L);
argbox *lsdb_new_argbox_n(lua_State *L, size_t npos, size_t nkw);
/* the ShapeEnv of the active trace (or the eager one) */
sdb_shape_env *lsdb_current_env(lua_State *L);
/* a SymBool (marked read), Lua boolean or boolean Expr; raises otherwise */
const sdb_expr *lsdb_bool_operand(lua_State *L, int idx);
/* a SymInt, integer or integer Expr; raises naming op otherwise */
const sdb_expr *lsdb_sym_operand(lua_State *L, int idx, const char *op);
/* lsdb_apis.c: torch.fx.experimental.symbolic_shapes' guard-free
** helpers, torch.sym_max/sym_min/sym_ite, into the `torch` table at -1 */
void lsdb_open_apis(lua_State *L);
/* set the program's phase and emit phase_start/phase_end */
void lsdb_phase_event(lruntime *rt, sdb_event_kind k, sdb_phase p, const char *text);

/* lsdb_torch.c, for lsdb_sym.c: s, or an error if s belongs to another
** compile's ShapeEnv; the SymBool at idx marked as read (or NULL); tensor
** a + b, a - b, a * b */
lsym *lsdb_own_sym(lua_State *L, lsym *s);
lsym *lsdb_symbool_use(lua_State *L, int idx);
int lsdb_t_add(lua_State *L);
int lsdb_t_sub(lua_State *L);
int lsdb_t_mul(lua_State *L);
/* lsdb_sym.c: the SymInt/SymBool/SymFloat metatables; torch._check,
** _check_is_size, sym_and/sym_or/sym_not into the table at -1 */
void lsdb_open_sym(lua_State *L);
void lsdb_sym_torch_fns(lua_State *L);
/* lsdb_hop.c */
void lsdb_open_hop(lua_State *L);
/* lsdb_trace.c: the Trace metatable; shapedb._trace_begin */
void lsdb_open_trace(lua_State *L);
int lsdb_trace_begin(lua_State *L);
/* shared between the torch binding's files: a trace's SymBools (built
** while it is active), the marks of mark_unbacked, a scalar to Lua, which
** active trace thread L sees */
void lsdb_symbools_list(lua_State *L, const ltrace *t, bool create);
void lsdb_symbools_drop(lua_State *L, const ltrace *t);
/* SymBool s (at idx) was read: marked, and taken off its trace's list. */
void lsdb_symbool_mark_used(lua_State *L, int idx, lsym *s);
void lsdb_push_unbacked_marks(lua_State *L);
void lsdb_push_scalar(lua_State *L, const sdb_value *v, sdb_node *node);
void lsdb_sync_active(lruntime *rt, lua_State *L);
/* the function that calls op as torch.NAME(...) does (traced or eager) */
void lsdb_push_op_fn(lua_State *L, const sdb_op *op);
/* lsdb_library.c: torch.library.custom_op/register_fake/get_ctx and
** torch.ops, into the `torch` table at -1 */
void lsdb_open_library(lua_State *L);

#endif
