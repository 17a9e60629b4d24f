#!/bin/sh
# newcomer.sh — the debugger as a new user meets it (issue 15): an edited
# file is re-read for the next run (a paused run keeps the text it runs,
# and says the file changed), a new run starts
# clean and says what it dropped, PyTorch habits get errors saying what to
# write in Lua (harness: tests/lib/transcript.sh).
NAME=newcomer
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

cat > "$work/prog.lua" <<'LUA'
local function model(x)
  local idx = x:nonzero()
  return idx:sum()
end
local f = torch.compile(model, { backend = "eager" })
return f(shapedb.tensor{5, 2})
LUA
# the same program, edited: nonzero moves to line 3
cat > "$work/edited.lua" <<'LUA'
local function model(x)
  -- edited: one line more
  local idx = x:nonzero()
  return idx:sum()
end
local f = torch.compile(model, { backend = "eager" })
return f(shapedb.tensor{5, 2})
LUA

# 1. stale source: the file is replaced (as an editor saves) while paused
run --batch -x 'break op nonzero' -x run -x 'lua os.rename("edited.lua", "prog.lua")' \
  -x 'list 3' -x run prog.lua
want <<'OUT'
Breakpoint 1: op nonzero
Starting program: prog.lua
Breakpoint 1, op nonzero
event 5, phase trace, tracer trace, prog.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
true
(note: prog.lua changed on disk since this run started: listings show the text the program is running; `run` starts it again with the new text)
  1    local function model(x)
->2      local idx = x:nonzero()
  3      return idx:sum()
  4    end
  5    local f = torch.compile(model, { backend = "eager" })
  6    return f(shapedb.tensor{5, 2})
Starting program: prog.lua
Breakpoint 1, op nonzero
event 17, phase trace, tracer trace, prog.lua:3 in model
  create_unbacked_symbol u0 [0, 10]
3	  local idx = x:nonzero()
  compile 1 (model) began at event 12
  tracer: - -> trace
  new symbol: u0 [0, 10]
[exit 0]
OUT
check 'an edited file: a paused run keeps showing the text it runs (with a note); the next run shows the new text'
# 2. a new run starts clean: assumptions about the old u0 are dropped (and
# it says so), compiles count from 1, info phases shows this run's phases,
# info program the earlier runs
cp "$work/prog.lua" "$work/p2.lua"
run --batch -x 'break op nonzero' -x run -x 'assume u0 >= 3' -x run -x 'info phases' \
  -x 'info assumptions' -x 'load p2.lua' -x 'info program' p2.lua
want <<'OUT'
Breakpoint 1: op nonzero
Starting program: p2.lua
Breakpoint 1, op nonzero
event 5, phase trace, tracer trace, p2.lua:3 in model
  create_unbacked_symbol u0 [0, 10]
3	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
assume u0 >= 3:
  no open questions at this step
  range of u0: [0, 10] -> [3, 10]
  in the program: torch._check(u0 >= 3)
Assumption 1 added: `print` and `why` now take it as known; `unassume` drops it.
Dropped 1 assumption about the previous run's symbols (`assume` again to keep it).
Starting program: p2.lua
Breakpoint 1, op nonzero
event 17, phase trace, tracer trace, p2.lua:3 in model
  create_unbacked_symbol u0 [0, 10]
3	  local idx = x:nonzero()
  compile 1 (model) began at event 12
  tracer: - -> trace
  new symbol: u0 [0, 10]
  trace   events 12-       model  <- now
now: phase trace, tracer trace, compile 1
No assumptions (`assume u0 >= 1` adds one).
loaded p2.lua
live run
program: p2.lua
state: loaded, not started (p2.lua)
events: 24 recorded, this run from event 24; cursor after event 23
earlier run 1: events 0-11, p2.lua
earlier run 2: events 12-23, p2.lua
[exit 0]
OUT
check 'a new run drops the assumptions, numbers its compiles from 1'
# 8. display: a misspelt panel or a bad expression is refused when set; a
# unique prefix is the panel's name; a symbol not yet created is kept
run --batch -x 'display pendng' -x 'display u0 +' -x 'display guar' -x 'display xyz' \
  -x 'display u0 + 1' -x 'info display' prog.lua
want <<'OUT'
display: no info panel 'pendng', did you mean 'pending'? (`info` lists the panels; an expression works too: `display u0 + 1`)
display: column 5: unexpected end of input
1: guards
No guards at this step.
display: no info panel 'xyz' (`info` lists the panels; an expression works too: `display u0 + 1`)
2: u0 + 1
display: unknown symbol u0 at this step
Auto-display expressions now in effect:
Num Enb Expression
1   y   guards
2   y   u0 + 1
[exit 1]
OUT
check 'display refuses an unknown panel or a bad expression when it is set'
echo "1..$n"
