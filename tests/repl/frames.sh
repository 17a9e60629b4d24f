#!/bin/sh
# frames.sh — the paused program's frames as gdb shows them: frame, up,
# down, info locals (tensors by their metadata, tables by their contents),
# print of Lua in the selected frame; recorded frames at other steps and in
# a replay, where the locals are gone (harness: tests/lib/transcript.sh).
NAME=frames
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cp "$root/scripts/nonzero.lua" "$work/nz.lua"
# function values print with their address: not part of what is tested
noaddr() { sed 's/function: 0x[0-9a-f]*/function: 0x…/'; }

want <<'OUT'
Breakpoint 1: op nonzero
Starting program: nz.lua
Breakpoint 1, op nonzero
event 7, phase trace, tracer trace, nz.lua:6 in model
  create_unbacked_symbol u0 [0, 10]
6	  local idx = x:nonzero()               -- i64[u0, 2]
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
#0  model at nz.lua:6
6	  local idx = x:nonzero()               -- i64[u0, 2]
x = f32[5, 2]
y = f32[7]
#1  main chunk at nz.lua:12
12	local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
model = function: 0x…
compiled = <compiled model (backend=eager)>
  7      torch._check_is_size(idx:size(0))
  8      return idx:sum() + y:sum()
  9    end
  10   
  11   local compiled = torch.compile(model, { backend = "eager" })
  12   local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
  13   return out
Initial frame selected; you cannot go up.
#0  model at nz.lua:6
6	  local idx = x:nonzero()               -- i64[u0, 2]
Bottom (innermost) frame selected; you cannot go down.
f32[5, 2]
FakeTensor(..., size=(5, 2))
8
[exit 1]
OUT
run --batch -x 'break op nonzero' -x run -x frame -x 'info locals' -x up -x 'info locals' -x list \
  -x up -x 'down 1' -x down -x 'print x:meta()' -x 'print x' -x 'print y:size(0) + 1' nz.lua
noaddr < "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "frame, up, down, info locals and print of Lua in the selected frame; list follows the frame"

want <<'OUT'
frame: no stack: the program has not started (`run`, or `step`)
locals: no live frame (the program is not paused: `run`, then stop at a breakpoint)
locals: the cursor is at event 5, before the program's stop (event 7): its locals are gone (`goto end` returns to the paused program)
#0  main chunk at nz.lua:12
12	local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
[exit 1]
OUT
run --batch -x frame -x 'info locals' -x 'break op nonzero' -x run -x 'reverse-step 2' -x 'info locals' -x frame nz.lua
grep -v '^Breakpoint\|^Starting\|^event\|^  \|^[0-9]' "$tmp/got" > "$tmp/got.s"
grep '^#0\|^12	' "$tmp/got" | tail -2 > /dev/null
mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
frame: no stack: the program has not started (`run`, or `step`)
locals: no live frame (the program is not paused: `run`, then stop at a breakpoint)
locals: the cursor is at event 5, before the program's stop (event 7): its locals are gone (`goto end` returns to the paused program)
#0  main chunk at nz.lua:12
[exit 1]
OUT
check "no stack before the start; the locals are gone when the cursor is back before the stop"

"$SHAPEDB" --batch --record "$work/nz.jsonl" -x run "$work/nz.lua" > /dev/null 2>&1
want <<'OUT'
#0  model at nz.lua:6
6	  local idx = x:nonzero()               -- i64[u0, 2]
#1  main chunk at nz.lua:12
12	local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
locals: no live frame (replaying: the events keep the stack, not the locals)
[exit 1]
OUT
run --replay nz.jsonl --batch -x 'break op nonzero' -x continue -x frame -x up -x 'info locals'
grep -v '^Breakpoint\|^Replaying\|^event\|^  \|^6	  local idx = x:nonzero() .*$' "$tmp/got" > /dev/null
sed -n '/^#0/,$p' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "in a replay: frame and up over the recorded stack, no locals"

# At an error's stop the raising function's frame has unwound: info locals
# says whose locals it lists.
cp "$root/scripts/ddbranch.lua" "$work/dd.lua"
run --batch -x 'break error' -x run -x 'info locals' dd.lua
sed -n '/frame has unwound/,$p' "$tmp/got" | noaddr > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
(model's frame has unwound: the error was raised at dd.lua:7; the locals of #0 main chunk)
model = function: 0x…
compiled = <compiled model (backend=eager)>
[exit 0]
OUT
check "info locals at an error's stop names the frame it lists"

# Plain Lua at a stop that names the frame's variables runs in the frame
# (a statement, or a line about globals, stays global Lua)
run --batch -x 'break op nonzero' -x run -x 'x:meta()' -x 'y:size(0) + 1' -x 'zz = 2' -x 'zz' nz.lua
sed -n '/^  new symbol: u0/,$p' "$tmp/got" | tail -n +2 > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
f32[5, 2]
8
2
[exit 0]
OUT
check "Lua expressions about the frame's variables run in the frame"

cat > "$work/alias.lua" <<'LUA'
local function inner(x)
  return x:nonzero()
end
local alias = inner
local function model(x, y)
  local a = inner(x)
  local b = alias(y)
  local ok, c = pcall(inner, x:t())
  return a, b, c
end
torch.compile(model, { backend = "eager", dynamic = true })(torch.randn(4, 3), torch.randn(5, 2))
LUA
want <<'OUT'
#0  inner at alias.lua:2
#1  model at alias.lua:6
#2  main chunk at alias.lua:11
#0  alias at alias.lua:2
#1  model at alias.lua:7
#2  main chunk at alias.lua:11
#0  function <alias.lua:1> at alias.lua:2
#1  model at alias.lua:8
#2  main chunk at alias.lua:11
OUT
run --batch -x 'break op nonzero' -x run -x bt -x continue -x bt -x continue -x bt alias.lua
grep '^#' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "a frame is named as its call named the function: an alias by the alias, a call through pcall as Lua's traceback names it"

echo "1..$n"
