#!/bin/sh
# debug.sh — the debugger through --batch -x and a pipe, compared with the
# exact text it prints (stdout and stderr together, in order) and its exit
# status: stepping through nonzero (pending, then the binding), reverse
# stepping and goto, each breakpoint kind, the info panels, explain, print,
# why and assume, a data-dependent error, cond's nested tracers, Lua at a
# stop, kill, displays, bad input, reverse-continue, guard breakpoints with
# and without text, a renamed-event breakpoint, watch, tbreak and
# `info events all` (harness: tests/lib/transcript.sh).
NAME=debug
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

# nz.lua: nonzero: u0 is created, pending, bound at .size()[0]
cat > "$work/nz.lua" <<'LUA'
local function model(x)
  local idx = x:nonzero()
  torch._check_is_size(idx:size(0))
  return idx:sum()
end
local f = torch.compile(model, { backend = "eager" })
local out = f(shapedb.tensor{5, 2})
return out
LUA

# dde.lua: branching on item(): the data-dependent error
cat > "$work/dde.lua" <<'LUA'
local function model(x)
  local v = x:sum():item()
  if v > 2 then
    return x * 2
  end
  return x
end
local f = torch.compile(model, { backend = "eager" })
local out = f(shapedb.tensor{3, dtype = "int64"})
return out
LUA

# guards.lua: a guard on a backed size, then aot_eager
cat > "$work/guards.lua" <<'LUA'
local function model(x, y)
  local n = x:size(0)
  if n > 2 then
    y = y + 1
  end
  return x:sum() + y:sum()
end
local f = torch.compile(model, { backend = "aot_eager", dynamic = true })
local out = f(shapedb.tensor{5, 3}, shapedb.tensor{5})
return out
LUA

# cnd.lua: cond: two branches in nested tracers
cat > "$work/cnd.lua" <<'LUA'
local function model(x)
  local out = torch.cond(x:sum():gt(0),
                         function() return x:sin() end,
                         function() return x:cos() end)
  return out
end
local f = torch.compile(model, { backend = "eager", dynamic = true })
local out = f(shapedb.tensor{6})
return out
LUA

# sz.lua: item() made size-like: u0 in [0, int_oo]
cat > "$work/sz.lua" <<'LUA'
local function model(x)
  local n = x:sum():item()
  torch._check_is_size(n)
  return torch.zeros(n)
end
local f = torch.compile(model, { backend = "eager" })
local out = f(shapedb.tensor{4, dtype = "int64"})
return out
LUA

# eq.lua: duck sizing off, so n == y:size(0) is a guard Eq(s0, s1) (after s0 > 2)
cat > "$work/eq.lua" <<'LUA'
local function model(x, y)
  local n = x:size(0)
  if n > 2 then
    x = x * 2
  end
  if n:eq(y:size(0)):bool() then
    return x + y
  end
  return x
end
local f = torch.compile(model, { backend = "eager", dynamic = true, duck_shape = false })
local out = f(shapedb.tensor{5}, shapedb.tensor{5})
return out
LUA

# anz.lua: nonzero through aot_eager: aot's retrace renames its u1 to u0
cat > "$work/anz.lua" <<'LUA'
local function model(x)
  local idx = x:nonzero()
  return idx:sum()
end
local f = torch.compile(model, { backend = "aot_eager" })
local out = f(shapedb.tensor{4})
return out
LUA

# tiny.lua: one op, eleven events
cat > "$work/tiny.lua" <<'LUA'
local f = torch.compile(function(x) return x:sin() end, { backend = "eager" })
local out = f(shapedb.tensor{3})
return out
LUA

want <<'OUT'
Starting program: nz.lua
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {} -> {u0}
event 7, phase trace, tracer trace, nz.lua:2 in model
  node_placed nonzero: nonzero: "i64[u0, 2]" = l_x_.nonzero()
2	  local idx = x:nonzero()
  pending: {u0}
event 8, phase trace, tracer trace, nz.lua:2 in model
  unbacked_bindings %nonzero u0: .size()[0]
2	  local idx = x:nonzero()
  binding: u0: .size()[0] on %nonzero
  pending: {u0}
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  pending: {u0} -> {}
[exit 0]
OUT
run --batch -x 'step 6' -x step -x step -x step -x step nz.lua
check 'stepping through nonzero: u0 is created, pending, then bound'

want <<'OUT'
Starting program: nz.lua
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
  binding: u0: .size()[0] on %nonzero
event 7, phase trace, tracer trace, nz.lua:2 in model
  node_placed nonzero: nonzero: "i64[u0, 2]" = l_x_.nonzero()
2	  local idx = x:nonzero()
  pending: {} -> {u0}
  undo binding: u0: .size()[0] on %nonzero
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {u0}
start of the run, before event 0 (10 events recorded)
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  pending: {} -> {u0}
  new symbol: u0 [0, 10]
[exit 0]
OUT
run --batch -x 'goto 9' -x 'reverse-step 2' -x reverse-step -x 'goto start' \
  -x 'goto 6' nz.lua
check 'reverse-step undoes the binding; goto moves anywhere'

want <<'OUT'
Breakpoint 1: op nonzero
Breakpoint 2: unbacked
Breakpoint 3: event pending_changed
Breakpoint 4: nz.lua:3
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    0     op nonzero
2    breakpoint  keep  y    0     unbacked
3    breakpoint  keep  y    0     event pending_changed
4    breakpoint  keep  y    0     nz.lua:3
Starting program: nz.lua
Breakpoint 1, op nonzero
Breakpoint 2, unbacked
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
Breakpoint 3, event pending_changed
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {} -> {u0}
Breakpoint 4, nz.lua:3
event 10, phase trace, tracer trace, nz.lua:3 in model
  node_placed size: size: "Sym(u0)" = nonzero.size(0)
3	  torch._check_is_size(idx:size(0))
  pending: {u0} -> {}
  binding: u0: .size()[0] on %nonzero
Num  Type        Disp  Enb  Hits  What
3    breakpoint  keep  n    1     event pending_changed
4    breakpoint  keep  y    1     nz.lua:3
[exit 0]
OUT
run --batch -x 'break op nonzero' -x 'break unbacked' \
  -x 'break pending_changed' -x 'break nz.lua:3' -x 'info breakpoints' \
  -x run -x continue -x 'disable 3' -x continue -x 'delete 1 2' \
  -x 'info breakpoints' nz.lua
check 'breakpoints: op, unbacked, event kind, line; info, disable, delete'

want <<'OUT'
Temporary breakpoint 1: symbol s1
Breakpoint 2: guard "s0 >"
Breakpoint 3: phase aot
Starting program: guards.lua
Temporary breakpoint 1, symbol s1
event 4, phase trace, tracer trace, guards.lua:9 in main chunk
  create_symbol s1 = 3 for L['x'].size()[1] [2, int_oo]
9	local out = f(shapedb.tensor{5, 3}, shapedb.tensor{5})
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: s0 = 5 for L['x'].size()[0] [2, int_oo]
  new symbol: s1 = 3 for L['x'].size()[1] [2, int_oo]
Breakpoint 2, guard "s0 >"
event 16, phase trace, tracer trace, guards.lua:3 in model
  guard_added s0 > 2
3	  if n > 2 then
  source: L['y'].size()[0] for s0 (duck sized)
  guard: s0 > 2
Breakpoint 3, phase aot
event 24, phase aot, guards.lua:9 in main chunk
  phase_start aot (aot_autograd)
9	local out = f(shapedb.tensor{5, 3}, shapedb.tensor{5})
  phase: trace -> aot
  tracer: trace -> -
  range: s0 [2, int_oo] -> [3, int_oo]
guards (1):
  s0 > 2  (trace phase, guards.lua:3, event 16)
Num  Type        Disp  Enb  Hits  What
2    breakpoint  keep  y    1     guard "s0 >"
3    breakpoint  keep  y    1     phase aot
guard s0 > 2 was added at event 16, trace phase:
#0  model at guards.lua:3
#1  main chunk at guards.lua:9
[exit 0]
OUT
run --batch -x 'tbreak symbol s1' -x 'break guard s0 >' -x 'break phase aot' \
  -x run -x continue -x continue -x 'info guards' -x 'info breakpoints' \
  -x 'where s0 > 2' guards.lua
check 'breakpoints: tbreak symbol, guard with text, phase aot'

want <<'OUT'
Breakpoint 1: error
Starting program: dde.lua
Breakpoint 1, error
event 11, phase trace, tracer trace, dde.lua:3 in model
  error GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: none)
  |
  | consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.
  | Caused by: if v > 2 then  # dde.lua:3 in model (trace phase)
  |
  | Unbacked symbols in this expression:
  |   u0 [-int_oo, int_oo], created by item at dde.lua:2 in model (trace phase)
  |
  | To fix the error, insert one of the following checks before this call:
  |   1. torch._check(v:gt(2))
  |   2. torch._check(v:le(2))
  |
  | (These suggested fixes were derived by replacing `u0` with v in u0 > 2 and its negation.)
3	  if v > 2 then
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [-int_oo, int_oo]
  binding: u0: <value> on %item
  error: GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: none)
u0 > 2 is not statically known at this step.
  u0: unbacked int, range [-int_oo, int_oo], created by item at dde.lua:2
  facts about u0: none
  true  when u0 = 3
  false when u0 = 2
  either torch._check(v:gt(2)) or torch._check(v:le(2)) would settle it; `assume` tries one here
assume u0 <= 2:
  settles u0 > 2: False
  range of u0: [-int_oo, int_oo] -> [-int_oo, 2]
  in the program: torch._check(v:le(2))
Assumption 1 added: `print` and `why` now take it as known; `unassume` drops it.
False
  statically known: u0 is in [-int_oo, 2]
  (with 1 assumption: `info assumptions`)
Dropped assumption 1: u0 <= 2
event 11, trace phase:
raised at dde.lua:3 in model
reported from:
#0  main chunk at dde.lua:9
GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: none)

consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.
Caused by: if v > 2 then  # dde.lua:3 in model (trace phase)

Unbacked symbols in this expression:
  u0 [-int_oo, int_oo], created by item at dde.lua:2 in model (trace phase)

To fix the error, insert one of the following checks before this call:
  1. torch._check(v:gt(2))
  2. torch._check(v:le(2))

(These suggested fixes were derived by replacing `u0` with v in u0 > 2 and its negation.)
Lua traceback of the traced code:
stack traceback:
	[C]: in metamethod 'lt'
	dde.lua:3: in function <dde.lua:1>
	(...tail calls...)
	dde.lua:9: in main chunk
event 12, dde.lua:9 in main chunk
  phase_end trace (model)
9	local out = f(shapedb.tensor{3, dtype = "int64"})
  phase: trace -> none
  tracer: trace -> -
[program failed: 13 events in this run]
[exit 1]
OUT
run --batch -x 'break error' -x run -x why -x 'assume u0 <= 2' \
  -x 'print u0 > 2' -x unassume -x where -x continue dde.lua
check 'break error stops at the data-dependent error; why and assume explain it'

want <<'OUT'
Breakpoint 1: phase cond
Starting program: cnd.lua
Breakpoint 1, phase cond
event 11, phase cond, tracer trace > cond.true_branch, cnd.lua:2 in model
  tracer_push trace > cond.true_branch
2	  local out = torch.cond(x:sum():gt(0),
  compile 1 (model) began at event 0
  phase: trace -> cond
  tracer: - -> trace > cond.true_branch
  new symbol: s0 = 6 for L['x'].size()[0] [2, int_oo]
  #0 trace  (root)
  #1 cond.true_branch
event 12, phase cond, tracer trace > cond.true_branch, cnd.lua:3 in function <cnd.lua:3>
  node_placed l_x_: l_x_: "f32[s0]"
3	                         function() return x:sin() end,
event 21, phase cond, tracer trace, cnd.lua:2 in model
  tracer_pop trace > cond.true_branch
2	  local out = torch.cond(x:sum():gt(0),
  tracer: trace > cond.true_branch -> trace
graph trace > cond.true_branch (4 nodes so far):
    s0: "Sym(s0)"
    l_x_: "f32[s0]"
    sin: "f32[s0]" = l_x_.sin()
    return (sin,)
other graphs: [trace]
Deleted all breakpoints.
event 22, phase trace, tracer trace, cnd.lua:2 in model
  epoch_bumped epoch=1
2	  local out = torch.cond(x:sum():gt(0),
  phase: cond -> trace
event 33, phase cond, tracer trace, cnd.lua:2 in model
  tracer_pop trace > cond.false_branch
2	  local out = torch.cond(x:sum():gt(0),
  phase: trace -> cond
[exit 0]
OUT
run --batch -x 'break phase cond' -x run -x 'info tracers' -x next -x finish \
  -x 'info graph cond.true_branch' -x delete -x next -x next cnd.lua
check 'next steps over a cond branch; finish ends one; info tracers and graphs'

want <<'OUT'
Starting program: nz.lua
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  compile 1 (model) began at event 0
  phase: trace -> none
  new symbol: u0 [0, 10]
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
pending: {} (no fresh unbacked symbol is waiting for a binding)
graph trace:
  %nonzero: u0: .size()[0]  (event 8)
No guards at this step.
No runtime asserts at this step.
No replacements at this step.
Sym    Kind           Range              Status
u0     unbacked int   [0, 10]            size-like, bound .size()[0] on %nonzero
  u0     [0, 10]  (size-like)
graph trace (11 nodes so far):
    L_x_: "f32[5, 2]"
    nonzero: "i64[u0, 2]" = l_x_.nonzero()
    # u0: .size()[0]
    sym_size_int: "Sym(u0)" = torch.ops.aten.sym_size.int(nonzero, 0)
    ge: "Sym(u0 >= 0)" = sym_size_int >= 0
    _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
    le: "Sym(u0 <= 10)" = sym_size_int <= 10
    _assert_scalar_default_1 = torch.ops.aten._assert_scalar.default(le, "Runtime assertion failed for expression u0 <= 10 on node 'le'")
    size: "Sym(u0)" = nonzero.size(0)
    _check_is_size = torch._check_is_size(size)
    sum_1: "i64[]" = nonzero.sum()
    return (sum_1,)
  trace   events 0-20     model
  guards  events 21-23     model
now: phase none, compile 1
u0: unbacked int, created by nonzero at nz.lua:2 in model (trace phase, event 5), range [0, 10]
  pending from event 6 until event 9, bound by node nonzero (event 8)
  bound at %nonzero: .size()[0] (trace phase, event 8)
  bound in trace as sym_size_int (event 15)
True
  statically known: u0 is in [0, 10] (size-like)
Eq(507 - u0, 0) is statically known False at this step: u0 is in [0, 10] (size-like).
[exit 0]
OUT
run --batch -x 'goto end' -x 'info pending' -x 'info bindings' \
  -x 'info guards' -x 'info asserts' -x 'info replacements' \
  -x 'info symbols' -x 'info ranges' -x 'info graph' -x 'info phases' \
  -x 'explain u0' -x 'print u0 >= 0' -x 'why Eq(507 - u0, 0)' nz.lua
check 'the info panels and explain at the end of nonzero'

want <<'OUT'
Starting program: nz.lua
event 7, phase trace, tracer trace, nz.lua:2 in model
  node_placed nonzero: nonzero: "i64[u0, 2]" = l_x_.nonzero()
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  pending: {} -> {u0}
  new symbol: u0 [0, 10]
      2  trace  nz.lua:7         tracer_push trace
      3  trace  nz.lua:7         node_placed l_x_: L_x_: "f32[5, 2]"
      4  trace  nz.lua:7         graph_input_created l_x_
      5  trace  nz.lua:2         create_unbacked_symbol u0 [0, 10]
      6  trace  nz.lua:2         pending_changed {u0}
=>    7  trace  nz.lua:2         node_placed nonzero: nonzero: "i64[u0, 2]" = l_x_.nonzero()
      8  trace  nz.lua:2         unbacked_bindings %nonzero u0: .size()[0]
      9  trace  nz.lua:2         pending_changed {}
  1    local function model(x)
->2      local idx = x:nonzero()
  3      torch._check_is_size(idx:size(0))
  4      return idx:sum()
  5    end
  6    local f = torch.compile(model, { backend = "eager" })
  7    local out = f(shapedb.tensor{5, 2})
  8    return out
  1    local function model(x)
->2      local idx = x:nonzero()
  3      torch._check_is_size(idx:size(0))
  4      return idx:sum()
  5    end
  6    local f = torch.compile(model, { backend = "eager" })
  7    local out = f(shapedb.tensor{5, 2})
  8    return out
[exit 0]
OUT
run --batch -x 'goto 7' -x 'info events' -x list -x 'list nz.lua:1' nz.lua
check 'info events and list around the cursor'

want <<'OUT'
unknown command: stpe. Did you mean 'step'?
break: unknown breakpoint 'nosuch'; expected unbacked, guard [TEXT], phase NAME, op NAME, symbol SYM, FILE:LINE, LINE, error, or an event kind
break: no operator named 'nonzeros'. Did you mean 'nonzero'?
break: unknown phase 'nope' (trace, cond, aot, lower, guards)
break: '12' is not a symbol name (s0, u1, ...)
break: nz.lua has only 8 lines
reverse-step: no more reverse-execution history (at the start of the run)
finish: not inside a phase or tracer (`continue` runs to the end)
print: column 5: unexpected end of input
explain: no symbol u9 at this step (`info symbols` lists them)
goto: expected an event number, `start` or `end`, got 'x'
delete: no breakpoint number 7
Starting program: nz.lua
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  compile 1 (model) began at event 0
  phase: trace -> none
  new symbol: u0 [0, 10]
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
step: the program has finished (event 23 is the last); `reverse-step` or `goto` move back, `run` starts it again
goto: there is no event 999 (the last is 23)
alive
[exit 1]
OUT
run --batch -x stpe -x 'break nosuch' -x 'break op nonzeros' \
  -x 'break phase nope' -x 'break symbol 12' -x 'break 999' -x reverse-step \
  -x finish -x 'print u0 +' -x 'explain u9' -x 'goto x' -x 'delete 7' \
  -x continue -x step -x 'goto 999' -x 'echo alive' nz.lua
check 'bad input: a clear message each, the session goes on'

want <<'OUT'
run: no program loaded; use `load FILE`, or `run LUA` to run Lua code
kill: the program is not being run
step: the program is not being run; `run` starts it
[exit 1]
OUT
run --batch -x run -x kill -x step
check 'run and kill without a program'

want <<'OUT'
Breakpoint 1: unbacked
Starting program: nz.lua
Breakpoint 1, unbacked
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
10
stdin:1: oops
stack traceback:
	[C]: in function 'error'
	stdin:1: in main chunk
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
[exit 1]
OUT
run --batch -x 'break unbacked' -x run -x 'print(shapedb.event_count())' \
  -x 'error("oops")' -x continue nz.lua
check 'Lua at a stop sees the program'\''s globals; errors do not end the session'

want <<'OUT'
Breakpoint 1: unbacked
Breakpoint 1, unbacked
event 5, phase trace, tracer trace
  create_unbacked_symbol u0 [0, 3]
  compile 1 ((run):1) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 3]
[program killed after 43 more events: the timeline is kept; `run` starts it again]
live run
program: nz.lua
state: not running
events: 53 recorded, this run from event 0; cursor after event 5
Starting program: nz.lua
Breakpoint 1, unbacked
event 58, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 53
  tracer: - -> trace
  new symbol: u0 [0, 10]
event 76, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
[exit 0]
OUT
run --batch -x 'break unbacked' \
  -x 'run torch.compile(function(x) local i = x:nonzero() return i end)(shapedb.tensor{3})' \
  -x kill -x 'info program' -x run -x continue nz.lua
check 'run LUA runs code under the debugger; kill aborts the trace'

want <<'OUT'
Starting program: nz.lua
event 4, phase trace, tracer trace, nz.lua:7 in main chunk
  graph_input_created l_x_
7	local out = f(shapedb.tensor{5, 2})
  compile 1 (model) began at event 0
  tracer: - -> trace
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  new symbol: u0 [0, 10]
  binding: u0: .size()[0] on %nonzero
event 14, phase trace, tracer trace, nz.lua:7 in main chunk
  node_placed sym_size_int: sym_size_int: "Sym(u0)" = torch.ops.aten.sym_size.int(nonzero, 0)
7	local out = f(shapedb.tensor{5, 2})
pending: {} (no fresh unbacked symbol is waiting for a binding)
[exit 0]
OUT
feed 'step 5


info pending
' '-i' 'nz.lua'
check 'a piped session: Enter repeats step'

want <<'OUT'
Breakpoint 1: unbacked
Starting program: nz.lua
Breakpoint 1, unbacked
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
1: pending
pending: {} (no fresh unbacked symbol is waiting for a binding)
2: u0 + 1
u0 + 1
  range [1, 11]; not statically known (unbacked u0)
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {} -> {u0}
1: pending
pending: {u0}
  u0  [0, 10], created by nonzero (trace phase, nz.lua:2, event 5)
2: u0 + 1
u0 + 1
  range [1, 11]; not statically known (unbacked u0)
Auto-display expressions now in effect:
Num Enb Expression
1   y   pending
2   y   u0 + 1
event 7, phase trace, tracer trace, nz.lua:2 in model
  node_placed nonzero: nonzero: "i64[u0, 2]" = l_x_.nonzero()
2	  local idx = x:nonzero()
  pending: {u0}
2: u0 + 1
u0 + 1
  range [1, 11]; not statically known (unbacked u0)
[exit 0]
OUT
run --batch -x 'break unbacked' -x run -x 'display pending' \
  -x 'display u0 + 1' -x step -x 'info display' -x 'undisplay 1' -x step \
  nz.lua
check 'display shows panels and expressions at every stop'

want <<'OUT'
Starting program: sz.lua
event 23, sz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{4, dtype = "int64"})
  compile 1 (model) began at event 0
  phase: trace -> none
  new symbol: u0 [-int_oo, int_oo]
  binding: u0: <value> on %item
  runtime assert: u0 >= 0
  range: u0 [-int_oo, int_oo] -> [0, int_oo]
  size-like: u0
  guards installed: 0
[program finished: 24 events in this run]
u0
  range [0, int_oo]; not statically known (unbacked u0)
Eq(507 - u0, 0) is not statically known at this step.
  simplified: Eq(u0, 507)
  u0: unbacked int, range [0, int_oo], size-like, created by item at sz.lua:2
  facts about u0: u0 >= 0 (runtime assert, sz.lua:3)
  true  when u0 = 507
  false when u0 = 0
  either torch._check(Eq(507 - u0, 0)) or torch._check(Ne(507 - u0, 0)) would settle it; `assume` tries one here
assume u0 <= 100:
  settles Eq(507 - u0, 0): False
  range of u0: [0, int_oo] -> [0, 100]
  in the program: torch._check(u0 <= 100)
Assumption 1 added: `print` and `why` now take it as known; `unassume` drops it.
Eq(507 - u0, 0) is statically known False at this step: u0 is in [0, 100] (size-like).
  (with 1 assumption: `info assumptions`)
  1: u0 <= 100
assume: u0 > 200 contradicts what is known at this step: u0 is in [0, 100] (size-like)
Dropped 1 assumption.
u0 > 200
  not statically known (unbacked u0)
[exit 1]
OUT
run --batch -x 'goto end' -x 'print u0' -x 'why Eq(507 - u0, 0)' \
  -x 'assume u0 <= 100' -x 'why Eq(507 - u0, 0)' -x 'info assumptions' \
  -x 'assume u0 > 200' -x 'unassume all' -x 'print u0 > 200' sz.lua
check 'why and assume: Eq(507 - u0, 0) is open while u0 = 507 is allowed'

want <<'OUT'
Breakpoint 1: event pending_changed
Starting program: nz.lua
Breakpoint 1, event pending_changed
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  pending: {} -> {u0}
  new symbol: u0 [0, 10]
Breakpoint 1, event pending_changed
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  pending: {u0} -> {}
  binding: u0: .size()[0] on %nonzero
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  guards installed: 0
[program finished: 24 events in this run]
Breakpoint 1, event pending_changed
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  phase: none -> trace
  tracer: - -> trace
  undo guards installed: 0
Breakpoint 1, event pending_changed
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {} -> {u0}
  undo binding: u0: .size()[0] on %nonzero
start of the run, before event 0 (24 events recorded)
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    4     event pending_changed
[exit 0]
OUT
run --batch -x 'break pending_changed' -x run -x continue -x continue \
  -x reverse-continue -x reverse-continue -x reverse-continue \
  -x 'info breakpoints' nz.lua
check 'reverse-continue goes back to each earlier hit, then to the start'

want <<'OUT'
Breakpoint 1: guard
Starting program: eq.lua
Breakpoint 1, guard
event 15, phase trace, tracer trace, eq.lua:3 in model
  guard_added s0 > 2
3	  if n > 2 then
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: s0 = 5 for L['x'].size()[0] [2, int_oo]
  new symbol: s1 = 5 for L['y'].size()[0] [2, int_oo]
  guard: s0 > 2
Breakpoint 1, guard
event 19, phase trace, tracer trace, eq.lua:6 in model
  guard_added Eq(s0, s1)
6	  if n:eq(y:size(0)):bool() then
  range: s0 [2, int_oo] -> [3, int_oo]
  guard: Eq(s0, s1)
event 28, eq.lua:12 in main chunk
  phase_end guards (model)
12	local out = f(shapedb.tensor{5}, shapedb.tensor{5})
  phase: trace -> none
  tracer: trace -> -
  range: s1 [2, int_oo] -> [3, int_oo]
  replacement: s1 -> s0 (solve)
  guards installed: 2
[program finished: 29 events in this run]
guards (2):
  s0 > 2  (trace phase, eq.lua:3, event 15)
  Eq(s0, s1)  (trace phase, eq.lua:6, event 19)
installed guard set (2):
  L['y'].size()[0] == L['x'].size()[0]
  3 <= L['x'].size()[0]
[exit 0]
OUT
run --batch -x 'break guard' -x run -x continue -x continue -x 'info guards' \
  eq.lua
check 'break guard with no text stops at every guard'

want <<'OUT'
Breakpoint 1: guard "Eq"
Starting program: eq.lua
Breakpoint 1, guard "Eq"
event 19, phase trace, tracer trace, eq.lua:6 in model
  guard_added Eq(s0, s1)
6	  if n:eq(y:size(0)):bool() then
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: s0 = 5 for L['x'].size()[0] [2, int_oo]
  new symbol: s1 = 5 for L['y'].size()[0] [2, int_oo]
  guard: s0 > 2
  range: s0 [2, int_oo] -> [3, int_oo]
  guard: Eq(s0, s1)
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    1     guard "Eq"
event 28, eq.lua:12 in main chunk
  phase_end guards (model)
12	local out = f(shapedb.tensor{5}, shapedb.tensor{5})
  phase: trace -> none
  tracer: trace -> -
  range: s1 [2, int_oo] -> [3, int_oo]
  replacement: s1 -> s0 (solve)
  guards installed: 2
[program finished: 29 events in this run]
[exit 0]
OUT
run --batch -x 'break guard Eq' -x run -x 'info breakpoints' -x continue eq.lua
check 'break guard Eq passes s0 > 2 and stops at Eq(s0, s1)'

want <<'OUT'
Breakpoint 1: event renamed
Starting program: anz.lua
Breakpoint 1, event renamed
event 30, phase aot, anz.lua:2 in model
  renamed u1 -> u0 (aot retrace)
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  phase: trace -> aot
  new symbol: u0 [0, 4]
  binding: u0: .size()[0] on %nonzero
  new symbol: u1 [0, 4]
  binding: u1: .size()[0] on %nonzero
  replacement: u1 -> u0 (rename_unbacked_to)
  renamed: u1 -> u0 (aot retrace)
  u1 -> u0  (rename_unbacked_to, aot phase, anz.lua:2, event 29)
event 44, anz.lua:6 in main chunk
  phase_end guards (model)
6	local out = f(shapedb.tensor{4})
  phase: aot -> none
  new symbol: u2 [0, 4]
  guards installed: 0
[program finished: 45 events in this run]
[exit 0]
OUT
run --batch -x 'break event renamed' -x run -x 'info replacements' -x continue \
  anz.lua
check 'break event renamed stops where aot renames its u1 to u0'

want <<'OUT'
Watchpoint 1: symbol u0
Num  Type        Disp  Enb  Hits  What
1    watchpoint  keep  y    0     symbol u0
Starting program: nz.lua
Watchpoint 1, symbol u0
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
Watchpoint 1, symbol u0
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  pending: {} -> {u0}
Watchpoint 1, symbol u0
event 8, phase trace, tracer trace, nz.lua:2 in model
  unbacked_bindings %nonzero u0: .size()[0]
2	  local idx = x:nonzero()
  binding: u0: .size()[0] on %nonzero
  pending: {u0}
Watchpoint 1, symbol u0
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  pending: {u0} -> {}
Watchpoint 1, symbol u0
event 15, phase trace, tracer trace, nz.lua:7 in main chunk
  symbol_bound u0 sym_size_int
7	local out = f(shapedb.tensor{5, 2})
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  guards installed: 0
[program finished: 24 events in this run]
Num  Type        Disp  Enb  Hits  What
1    watchpoint  keep  y    5     symbol u0
[exit 0]
OUT
run --batch -x 'watch u0' -x 'info breakpoints' -x run -x continue \
  -x continue -x continue -x continue -x continue -x 'info breakpoints' nz.lua
check 'watch u0 stops where u0 is created, pending, bound'

want <<'OUT'
Temporary breakpoint 1: event pending_changed
Num  Type        Disp  Enb  Hits  What
1    breakpoint  del   y    0     event pending_changed
Starting program: nz.lua
Temporary breakpoint 1, event pending_changed
event 6, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {u0}
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  pending: {} -> {u0}
  new symbol: u0 [0, 10]
No breakpoints.
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  pending: {u0} -> {}
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
[exit 0]
OUT
run --batch -x 'tbreak pending_changed' -x 'info breakpoints' -x run \
  -x 'info breakpoints' -x continue nz.lua
check 'tbreak is deleted after its hit: continue passes event 9'

want <<'OUT'
No events yet.
Starting program: tiny.lua
event 10, tiny.lua:2 in main chunk
  phase_end guards (tiny.lua:1)
2	local out = f(shapedb.tensor{3})
  compile 1 (tiny.lua:1) began at event 0
  phase: trace -> none
  guards installed: 0
[program finished: 11 events in this run]
      0  trace  tiny.lua:2       phase_start trace (tiny.lua:1)
      1  trace  tiny.lua:2       fake_mode_created #1 (trace)
      2  trace  tiny.lua:2       tracer_push trace
      3  trace  tiny.lua:2       node_placed l_x_: L_x_: "f32[3]"
      4  trace  tiny.lua:2       graph_input_created l_x_
      5  trace  tiny.lua:1       node_placed sin: sin: "f32[3]" = l_x_.sin()
      6  trace  tiny.lua:2       node_placed output: return (sin,)
      7  trace  tiny.lua:2       phase_end trace (tiny.lua:1)
      8  guards tiny.lua:2       phase_start guards (tiny.lua:1)
      9  guards tiny.lua:2       guards_installed 0 guards
=>   10  guards tiny.lua:2       phase_end guards (tiny.lua:1)
[exit 0]
OUT
run --batch -x 'info events all' -x run -x 'info events all' tiny.lua
check 'info events all lists every event of a tiny program'

want <<'OUT'
Watchpoint 1: symbol u0
Starting program: nz.lua
Watchpoint 1, symbol u0
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
Will ignore next 2 crossings of breakpoint 1.  Continuing.
Watchpoint 1, symbol u0
event 9, phase trace, tracer trace, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  binding: u0: .size()[0] on %nonzero
Num  Type        Disp  Enb  Hits  What
1    watchpoint  keep  y    4     symbol u0
[exit 0]
OUT
run --batch -x 'watch u0' -x run -x 'continue 3' -x 'info breakpoints' nz.lua
check 'continue N passes the breakpoint N - 1 times silently, counting the hits'

want <<'OUT'
Starting program: nz.lua
event 23, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  compile 1 (model) began at event 0
  phase: trace -> none
  new symbol: u0 [0, 10]
  binding: u0: .size()[0] on %nonzero
  guards installed: 0
[program finished: 24 events in this run]
unassume: there are no assumptions
assume u0 >= 1:
  no open questions at this step
  range of u0: [0, 10] -> [1, 10]
  in the program: torch._check(u0 >= 1)
Assumption 1 added: `print` and `why` now take it as known; `unassume` drops it.
unassume: expected `all` or an assumption number from 1 to 1, got '9'
assume: u0 > 99 contradicts what is known at this step: u0 is in [1, 10] (size-like)
info graph: no graph 'nosuch' at this step; there are:
  trace
list: line 999 is past the end of nz.lua (8 lines)
where: no symbol, guard or runtime assert matches 'nosuch' at this step
info events: expected `all` or an event number below 24, got '999'
step: expected a positive count, got 'x'
Nothing to display (`display pending`, `display u0 + 1`).
undisplay: no display number 4
break: unknown event kind 'nosuch'; the kinds are:
  phase_start phase_end fake_mode_created epoch_bumped create_symbol create_unbacked_symbol
  symbolic_shape_specialization pending_changed guard_added replacement_added runtime_assert_added range_refined
  size_like renamed node_placed unbacked_bindings memo_hit tracer_push
  tracer_pop graph_input_created symbol_bound cond_output_symbol hop_check autograd
  refakified buffer_lowered binding_check guards_installed guard_check recompile
  error note node_erased oblivious divergence graph_break
kill: the program is not being run
alive
[exit 1]
OUT
run --batch -x 'goto end' -x unassume -x 'assume u0 >= 1' -x 'unassume 9' \
  -x 'assume u0 > 99' -x 'info graph nosuch' -x 'list 999' -x 'where nosuch' \
  -x 'info events 999' -x 'step x' -x display -x 'undisplay 4' \
  -x 'break event nosuch' -x kill -x 'echo alive' nz.lua
check 'more bad input: assumptions, graphs, lines, counts, displays, event kinds'

# explain takes one symbol: a condition or several words say what to use
cp "$SHAPEDB_TESTS/../scripts/broadcast.lua" "$work/bc.lua"
want <<'OUT'
explain: 'Eq(s0, s1)' is not a symbol: explain takes one symbol (u0, s1) and tells its life; `why Eq(s0, s1)` says why a condition is or is not known (a guard's expression tree is explained on imported TORCH_TRACE logs)
explain: one symbol at a time (`explain s0`, then `explain s1`)
[exit 1]
OUT
run --batch -x 'goto end' -x 'explain Eq(s0, s1)' -x 'explain s0 s1' bc.lua
sed -n '/^explain:/,$p' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "explain: a condition and several symbols are refused, saying what to use"

echo "1..$n"
