#!/bin/sh
# breakpoints.sh — what gdb lets a breakpoint carry: conditions (`break
# SPEC if COND`, `condition N [COND]`), command lists (`commands N` ...
# `end`, also ending in `continue`), every breakpoint an event hits
# announced and a temporary one among them deleted, and `goto` passing
# breakpoints by (harness: tests/lib/transcript.sh).
NAME=breakpoints
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cp "$root/scripts/nonzero.lua" "$work/nz.lua"
cp "$root/scripts/lessons/10-guards-recompile.lua" "$work/l10.lua"

want <<'OUT'
Breakpoint 1: event create_symbol if s0 < 4
Starting program: l10.lua
Breakpoint 1, event create_symbol
event 48, phase trace, tracer trace
  create_symbol s0 = 2 for L['x'].size()[0] [2, int_oo]
  compile 2 (model) began at event 45
  tracer: - -> trace
  new symbol: s0 = 2 for L['x'].size()[0] [2, int_oo]
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    1     event create_symbol
	stop only if s0 < 4
Breakpoint 1 now unconditional.
Breakpoint 2: unbacked if u0 > 3
[exit 0]
OUT
run --batch -x 'break event create_symbol if s0 < 4' -x run -x 'info breakpoints' -x 'condition 1' \
  -x 'break unbacked if u0 > 3' l10.lua
check "a condition over a backed symbol holds at its hint: the first compile (s0 = 5) passes, the recompile (s0 = 2) stops; condition N alone removes it"

want <<'OUT'
Breakpoint 1: unbacked
Breakpoint 2: op nonzero
Temporary breakpoint 3: event create_unbacked_symbol
Breakpoint 4: op nonzero if u0 > 3
Starting program: nz.lua
Breakpoint 1, unbacked
Breakpoint 2, op nonzero
Temporary breakpoint 3, event create_unbacked_symbol
event 7, phase trace, tracer trace, nz.lua:6 in model
  create_unbacked_symbol u0 [0, 10]
6	  local idx = x:nonzero()               -- i64[u0, 2]
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    1     unbacked
2    breakpoint  keep  y    1     op nonzero
4    breakpoint  keep  y    0     op nonzero
	stop only if u0 > 3
[exit 0]
OUT
run --batch -x 'break unbacked' -x 'break op nonzero' -x 'tbreak event create_unbacked_symbol' \
  -x 'break op nonzero if u0 > 3' -x run -x 'info breakpoints' nz.lua
check "every breakpoint an event hits is announced, the temporary one deleted; a condition not known true does not stop"

run --batch -x 'break event pending_changed' -x commands -x 'info pending' -x continue -x end -x run \
  -x 'info breakpoints' nz.lua
grep -v '^event \|^[0-9][0-9]*	\|^  [^ ]' "$tmp/got" > "$tmp/got.s"
mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
Breakpoint 1: event pending_changed
Starting program: nz.lua
Breakpoint 1, event pending_changed
pending: {u0}
Breakpoint 1, event pending_changed
pending: {} (no fresh unbacked symbol is waiting for a binding)
[program finished: 28 events in this run]
Num  Type        Disp  Enb  Hits  What
1    breakpoint  keep  y    2     event pending_changed
        info pending
        continue
[exit 0]
OUT
check "a command list runs after each stop its breakpoint makes; ending in continue it goes on to the next"

want <<'OUT'
Breakpoint 1: unbacked
Starting program: nz.lua
event 27, nz.lua:12 in main chunk
condition: no breakpoint number 9
condition: cannot read the condition 'u0 >': column 5: unexpected end of input
break: expected a condition after `if` (`break op nonzero if u0 > 3`)
commands: no breakpoint number 7
[exit 1]
OUT
run --batch -x 'break unbacked' -x 'goto end' -x 'condition 9 u0 > 1' -x 'condition 1 u0 >' \
  -x 'break guard if' -x 'commands 7' nz.lua
grep -v '^  \|^12	\|^\[program' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "goto passes breakpoints by; bad numbers and conditions are refused"

want <<'OUT'
Breakpoint 1: op nonzero if zz > 3
(note: zz is not a symbol name, such as s0 or u1: `zz > 3` stays false)
(note: zz is not a symbol name, such as s0 or u1: `u0 + zz > 1` stays false)
[exit 0]
OUT
run --batch -x 'break op nonzero if zz > 3' -x 'condition 1 u0 + zz > 1' nz.lua
check "a condition naming no symbol-shaped word is said to stay false"

cat > "$work/calls.lua" <<'LUA'
local function inner(x)
  return x:nonzero()
end
local function model(x, y)
  local a, b = inner(x), inner(y)
  local c = x + x
  local d = torch.add(c, x)
  return a, b, -d
end
torch.compile(model, { backend = "eager", dynamic = true })(torch.randn(4, 3), torch.randn(5, 2))
LUA
want <<'OUT'
Breakpoint 1: op nonzero
Breakpoint 2: op add
Breakpoint 3: op neg
Starting program: calls.lua
Breakpoint 1, op nonzero
event 23, phase trace, tracer trace, calls.lua:2 in inner
Breakpoint 1, op nonzero
event 28, phase trace, tracer trace, calls.lua:2 in inner
Breakpoint 2, op add
event 33, phase trace, tracer trace, calls.lua:6 in model
Breakpoint 2, op add
event 34, phase trace, tracer trace, calls.lua:7 in model
Breakpoint 3, op neg
event 35, phase trace, tracer trace, calls.lua:8 in model
event 48, calls.lua:10 in main chunk
[exit 0]
OUT
run --batch --record "$work/calls.jsonl" -x 'break op nonzero' -x 'break op add' -x 'break op neg' -x run \
  -x continue -x continue -x continue -x continue -x continue calls.lua
grep -E '^(Breakpoint|Starting|event|\[exit)' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "break op stops at every call: two calls of one op on one line (a helper called twice), x + y as add, -t as neg"

want <<'OUT'
Breakpoint 1: op nonzero
Breakpoint 1, op nonzero
event 23, phase trace, tracer trace, calls.lua:2 in inner
Breakpoint 1, op nonzero
event 28, phase trace, tracer trace, calls.lua:2 in inner
[exit 0]
OUT
run --batch --replay "$work/calls.jsonl" -x 'break op nonzero' -x continue -x continue -x continue
grep -E '^(Breakpoint|event 2|\[exit)' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
check "a replayed trace keeps where each op call began (op_first), so its stops are the run's"

echo "1..$n"
