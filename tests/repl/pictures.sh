#!/bin/sh
# pictures.sh — graphs as the view lists them (one graph per cond body
# instance, nested bodies under their own), `dump dot` (Graphviz DOT of a
# compile's graphs, rendered by Debian's dot when it is installed) and
# `info timeline` (one row per symbol across the events), compared with the
# exact text (harness: tests/lib/transcript.sh).
NAME=pictures
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

# two.lua: two conds in a row, the second with a cond nested in its true branch
cat > "$work/two.lua" <<'LUA'
local function f(x)
  local a = torch.cond(x:sum():gt(0), function() return x:sin() end,
                                      function() return x:cos() end)
  local b = torch.cond(a:sum():gt(0),
                       function()
                         return torch.cond(x:sum():gt(1), function() return a:sin() end,
                                                          function() return a:cos() end)
                       end,
                       function() return a:cos() end)
  return b
end
return torch.compile(f, { backend = "eager", dynamic = true })(shapedb.tensor{6})
LUA

run --batch -x run -x 'goto end' -x 'info graph cond.true_branch #2 > cond.true_branch' \
    -x 'info graph trace > cond.true_branch' two.lua
want <<'EOF'
Starting program: two.lua
event 107
  phase_end guards (f)
  compile 1 (f) began at event 0
  phase: trace -> none
  new symbol: s0 = 6 for L['x'].size()[0] [2, int_oo]
  guards installed: 1
[program finished: 108 events in this run]
event 107
  phase_end guards (f)
graph trace > cond.true_branch #2 > cond.true_branch (4 nodes so far):
    s0: "Sym(s0)"
    getitem: "f32[s0]"
    sin: "f32[s0]" = getitem.sin()
    return (sin,)
other graphs: [trace] [trace > cond.true_branch] [trace > cond.false_branch] [trace > cond.true_branch #2] [trace > cond.true_branch #2 > cond.false_branch] [trace > cond.false_branch #2]
graph trace > cond.true_branch (4 nodes so far):
    s0: "Sym(s0)"
    l_x_: "f32[s0]"
    sin: "f32[s0]" = l_x_.sin()
    return (sin,)
other graphs: [trace] [trace > cond.false_branch] [trace > cond.true_branch #2] [trace > cond.true_branch #2 > cond.true_branch] [trace > cond.true_branch #2 > cond.false_branch] [trace > cond.false_branch #2]
[exit 0]
EOF
check "each cond body is its own graph; a lifted placeholder goes into the body it was placed in"

echo "1..$n"
