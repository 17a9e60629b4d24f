#!/bin/sh
# locations.sh — errors are located where the user can act (#15 item 4):
# inside a cond branch, at the branch's line (its traceback kept); in the
# aot phase, at the line of the op whose node aot was replaying, as are
# the events aot and lowering emit for a node (harness:
# tests/lib/transcript.sh).
NAME=locations
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

cat > "$work/cerr.lua" <<'EOF'
local function model(x)
  local function t(x) return x:view(-1, 7) end
  local function f(x) return x * 2 end
  local out = torch.cond(x:sum():gt(0), t, f, {x})
  return out
end
local c = torch.compile(model, { backend = "eager" })
c(shapedb.tensor{4, 3})
EOF
want <<'OUT'
Breakpoint 1: error
Starting program: cerr.lua
Breakpoint 1, error
event 11, phase trace, tracer trace, cerr.lua:2
2	  local function t(x) return x:view(-1, 7) end
event 11, trace phase:
raised at cerr.lua:2
reported from:
#0  main chunk at cerr.lua:8
RuntimeError: shape '[-1, 7]' is invalid for input of size 12
Lua traceback of the traced code:
stack traceback:
	[C]: in method 'view'
	cerr.lua:2: in function <cerr.lua:2>
	cerr.lua:4: in function <cerr.lua:1>
	(...tail calls...)
	cerr.lua:8: in main chunk
[exit 1]
OUT
run --batch -x 'break error' -x run -x where -x continue cerr.lua
grep -v '^  [a-z_]*[: ]\|^  compile\|^event 12\|^8	\|^\[program' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "an error in a cond branch is at the branch's line, with the branch in its traceback"

cat > "$work/aerr.lua" <<'EOF'
local runs = 0
local rows = torch.library.custom_op("demo::rows", function(x) return x:nonzero() end)
rows:register_fake(function(x)
  runs = runs + 1
  if runs > 1 then error("demo::rows: this fake kernel runs only once") end
  local n = torch.library.get_ctx():new_dynamic_size()
  return x:new_empty({n, x:dim()}, {dtype = torch.int64})
end)
local function model(x)
  local y = x:nonzero()
  local z = torch.ops.demo.rows(y)
  return z * 2
end
local c = torch.compile(model, { backend = "aot_eager" })
c(shapedb.tensor{4, 3})
EOF
want <<'OUT'
Breakpoint 1: error
Starting program: aerr.lua
Breakpoint 1, error
event 47, phase aot, aerr.lua:11
11	  local z = torch.ops.demo.rows(y)
Breakpoint 2: event renamed
Breakpoint 2, event renamed
event 41, phase aot, aerr.lua:10 in model
10	  local y = x:nonzero()
[exit 0]
OUT
run --batch -x 'break error' -x run -x 'break event renamed' -x reverse-continue aerr.lua
grep -v '^  \|^ *|' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "an error in the aot phase (a fake kernel that refuses aot's replay) is at the line of the op aot was replaying; aot's events are at their nodes' lines"

cat > "$work/xerr.lua" <<'EOF'
local Dim = torch.export.Dim
local n = Dim("n", { min = 3 })
local function model(x)
  if x:size(0) <= 6 then return x + 1 end
  return x - 1
end
torch.export(model, { shapedb.tensor{5} }, { dynamic_shapes = { x = {[0] = n} } })
EOF
want <<'OUT'
Breakpoint 1: error
Starting program: xerr.lua
Breakpoint 1, error
event 17, phase guards, xerr.lua:7 in main chunk
  error torch._dynamo.exc.UserError: Constraints violated (n)! For more information, run with TORCH_LOGS="+dynamic".
  |   - Not all values of n = L['x'].size()[0] in the specified range 3 <= n satisfy the generated guard 3 <= L['x'].size()[0] and L['x'].size()[0] <= 6
  | Suggested fixes:
  |   n = Dim("n", { min = 3, max = 6 })
7	torch.export(model, { shapedb.tensor{5} }, { dynamic_shapes = { x = {[0] = n} } })
[exit 0]
OUT
run --batch -x 'break error' -x run xerr.lua
grep -v '^  compile\|^  phase:\|^  new symbol\|^  guard\|^  range:\|^  tracer\|^  error: \|^xerr.lua:7\|^stack\|^	\|^\[program' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "torch.export's constraint violation is an error event at the export call (break error stops there)"

echo "1..$n"
