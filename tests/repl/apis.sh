#!/bin/sh
# apis.sh — the debugger stops at guard-free decisions (`break oblivious`,
# the event kind every guard_size_oblivious, guard_or_false/true,
# statically_known_true/false and sym_max/min/ite emits), and a
# mark_unbacked input's life as `explain` tells it (harness:
# tests/lib/transcript.sh).
NAME=apis
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

cat > "$work/obl.lua" <<'LUA'
local ss = torch.fx.experimental.symbolic_shapes
local function model(x)
  local n = x:size(0)
  local small = ss.guard_size_oblivious(n:eq(1))
  local big = ss.guard_or_false(n:gt(100))
  return x:sum()
end
local x = shapedb.tensor{5, 3}
torch._dynamo.mark_unbacked(x, 0)
torch.compile(model, { backend = "eager" })(x)
LUA

want <<'OUT'
Breakpoint 1: event oblivious
Starting program: obl.lua
Breakpoint 1, event oblivious
event 15, phase trace, tracer trace, obl.lua:4 in model
  oblivious guard_size_oblivious(Eq(u0, 1)) -> False: size-oblivious: size-like u0 taken as >= 2, no guard
4	  local small = ss.guard_size_oblivious(n:eq(1))
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [-int_oo, int_oo]
  size-like: u0
  range: u0 [-int_oo, int_oo] -> [0, int_oo]
  binding: u0: .size()[0] on %l_x_
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    1     event oblivious
Breakpoint 1, event oblivious
event 17, phase trace, tracer trace, obl.lua:5 in model
  oblivious guard_or_false(u0 > 100) -> False: could not evaluate u0 > 100 due to data dependency, it was assumed to be False with no runtime assertions
5	  local big = ss.guard_or_false(n:gt(100))
u0: unbacked int, created by mark_unbacked at obl.lua:10 in main chunk (trace phase, event 3), range [0, int_oo]
  pending from event 4 until event 13, bound by node l_x_ (event 12)
  size-like (event 5)
  range [0, int_oo] (size-like, event 6)
  graph input u0 in trace (event 8)
  bound in trace as u0 (event 9)
  bound at %l_x_: .size()[0] (trace phase, event 12)
[exit 0]
OUT
run --batch -x 'break oblivious' -x run -x 'info breakpoints' -x continue -x 'explain u0' obl.lua
check "break oblivious stops at each decision"

# keyword arguments go in the op's signature order, unknown names last by
# name: a Lua table's key order changes from run to run, an error must not
cat > "$work/kw.lua" <<'LUA'
local f = torch.compile(function(x) return torch.sum(x, {zz = 1, yy = 2, dim = 0, aa = 3}) end)
local ok, e = pcall(f, shapedb.tensor{3})
print(ok, tostring(e):match("[^\n]*"))
LUA
want <<'OUT'
false	TypeError: sum() got an unexpected keyword argument 'aa'
[exit 0]
OUT
run --no-report kw.lua
check "of several unknown keywords the error names the first by name"
echo "1..$n"
