#!/bin/sh
# oom.sh — out of memory anywhere in a whole run, through the Lua front
# end and the debugger (test_oom covers the core alone). Two runs, each
# again and again with one allocation failing each time
# (tests/lib/failmalloc.c, preloaded): a compile with nonzero, item,
# torch._check, a guard, torch.wrap and torch.cond, for aot_eager and
# inductor; then its saved trace replayed under debugger commands (goto,
# info panels, where, explain, step and reverse-step). None may crash or
# hang; a run the failure stops, and a command it fails, must say it ran
# out of memory; a run that finishes must print what the run with no
# failure prints. Every OOM_STRIDE-th allocation fails in turn (13 here:
# a few seconds; `make soak` sets 1). A third run replays a trace long
# enough that its placed nodes' lines are kept compressed (core/textstore)
# and fails each allocation of the commands that read them back (info
# graph, info events, save, which must not write a damaged trace).
# Skipped without a C compiler, or for a sanitizer build (its runtime must
# come first, before any preloaded library).
NAME=oom
tests=${SHAPEDB_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
. "$tests/lib/transcript.sh"
stride=${OOM_STRIDE:-13}

if ldd "$SHAPEDB" 2>/dev/null | grep -q 'lib[at]san'; then
  echo "1..0 # SKIP a sanitizer build cannot preload an allocator"
  exit 0
fi
if ! ${CC:-cc} -std=c11 -O1 -shared -fPIC -o "$tmp/failmalloc.so" \
       "$tests/lib/failmalloc.c" -ldl 2> "$tmp/cc.err"; then
  echo "1..0 # SKIP no C compiler to build the failing allocator"
  exit 0
fi

cat > "$work/model.lua" <<'LUA'
local function model(x)
  local idx = torch.nonzero(x)
  local n = idx:size(0)
  torch._check_is_size(n)
  local v = idx:sum():item()
  torch._check(v:ge(0))
  local z = torch.wrap(function(a) return a:add(1) end, x)
  local c = torch.cond(x:sum():gt(0),
    function() return z:sin() + idx:size(0) end,
    function() return z:cos() end)
  if x:size(0) > 2 then c = c * 2 end
  return c, idx
end
for _, be in ipairs{"aot_eager", "inductor"} do
  print(torch.compile(model, {backend = be, dynamic = true})(torch.randn(4, 3)))
end
LUA

# failing K ARGS...: shapedb ARGS in $work with allocation K failing (-1:
# none); output in $tmp/out, status in $rc, the allocations counted in
# $tmp/count
failing() {
  k=$1
  shift
  [ -z "$saved" ] || rm -f "$work/$saved"
  (cd "$work" && timeout 60 env SDB_FAIL_AT="$k" SDB_FAIL_COUNT="$tmp/count" \
     LD_PRELOAD="$tmp/failmalloc.so" "$SHAPEDB" "$@") > "$tmp/out" 2>&1 < /dev/null
  rc=$?
  with_saved
}

# with $saved set, the trace the run saved (if any), but for its first line
# (the time it was written): part of the output of a run that finishes,
# and, of one that stops, either not written or whole ($tmp/saved)
saved=
with_saved() {
  rm -f "$tmp/saved"
  if [ -n "$saved" ] && [ -f "$work/$saved" ]; then
    tail -n +2 "$work/$saved" > "$tmp/saved"
    [ "$rc" = 0 ] && cat "$tmp/saved" >> "$tmp/out"
  fi
}

# sweep WHAT ARGS...: the run with nothing failing first (it must print
# what it prints without the library), then with each OOM_STRIDE-th
# allocation failing in turn
sweep() {
  what=$1
  shift
  rm -f "$tmp/want_saved"; [ -z "$saved" ] || rm -f "$work/$saved"
  (cd "$work" && "$SHAPEDB" "$@") > "$tmp/want" 2>&1 < /dev/null
  if [ -n "$saved" ] && [ -f "$work/$saved" ]; then
    tail -n +2 "$work/$saved" > "$tmp/want_saved"
    cat "$tmp/want_saved" >> "$tmp/want"
  fi
  failing -1 "$@"
  total=$(cat "$tmp/count" 2>/dev/null || echo 0)
  cp "$tmp/out" "$tmp/got"
  if [ "$rc" = 0 ] && [ "$total" -gt 1000 ]; then
    check "$what: with the allocator preloaded and nothing failing, the same output"
  else
    n=$((n + 1)); echo "not ok $n - $what: the preloaded allocator saw $total allocations (rc $rc)"
  fi
  crashes="" silent="" unexplained="" runs=0 stopped=0
  k=${from:-0}
  while [ "$k" -lt "$total" ]; do
    failing "$k" "$@"
    runs=$((runs + 1))
    if [ "$rc" -ge 124 ]; then
      crashes="$crashes $k:$rc"
    elif [ "$rc" = 0 ]; then
      cmp -s "$tmp/out" "$tmp/want" || silent="$silent $k"
    else
      stopped=$((stopped + 1))
      grep -qi 'memory' "$tmp/out" || unexplained="$unexplained $k"
      # a trace it saved before it stopped, or while saying it ran out
      if [ -f "$tmp/saved" ] && ! cmp -s "$tmp/saved" "$tmp/want_saved"; then
        silent="$silent $k(saved)"
      fi
    fi
    k=$((k + ${step:-$stride}))
  done
  n=$((n + 1))
  if [ -z "$crashes" ]; then echo "ok $n - $what: no failing allocation crashes or hangs ($runs of $total failed in turn)"
  else echo "not ok $n - $what: crashed or hung (allocation:status):$crashes"; fi
  n=$((n + 1))
  if [ -z "$unexplained" ]; then echo "ok $n - $what: each of the $stopped runs the failure stopped says it ran out of memory"
  else echo "not ok $n - $what: stopped without saying why, allocations:$unexplained"; fi
  n=$((n + 1))
  if [ -z "$silent" ]; then echo "ok $n - $what: each run that finished printed what the run with no failure prints${saved:+ (its trace too), and none saved a damaged trace}"
  else echo "not ok $n - $what: finished with other output, or saved a damaged trace, allocations:$silent"; fi
}

sweep "compile" --no-report model.lua
(cd "$work" && "$SHAPEDB" --no-report --record model.jsonl model.lua) > /dev/null 2>&1
sweep "replay under the debugger" --batch --replay model.jsonl -x 'goto end' -x 'info graph' \
  -x 'info bindings' -x 'info guards' -x 'goto 40' -x 'where' -x 'explain u0' -x 'step' \
  -x 'reverse-step'

# 1,500 ops: about 170 KiB of lines, so the first chunks are compressed.
# The load is not swept again (the replay above covers it): each
# allocation from its end on fails in turn, whatever OOM_STRIDE says.
(cd "$work" && GEN_OPS=1500 "$SHAPEDB" --no-report --record long.jsonl \
   "$tests/bench/gen_debug.lua") > /dev/null 2>&1
failing -1 --batch --replay long.jsonl -x 'goto end'
from=$(cat "$tmp/count" 2>/dev/null || echo 0)
step=1
saved=long2.jsonl
sweep "lines read back" --batch --replay long.jsonl -x 'goto end' -x 'info graph' \
  -x 'info events 40' -x 'save long2.jsonl'

# A TORCH_TRACE log imported (../shared's sample, read there): an import
# that ran out of memory part way says so, and one that finishes lists
# what the import with no failure lists.
logs=${SHAPEDB_SHARED:-$tests/../../shared}/examples/torch_trace
if [ -f "$logs/tlparse_export_guard_added.log" ]; then
  from=0 step= saved=
  sweep "TORCH_TRACE import" --batch --replay "$logs/tlparse_export_guard_added.log" \
    -x 'info records' -x 'info compiles' -x 'goto end' -x 'info guards'
else
  for w in "with nothing failing" "no crash" "says it ran out of memory" "the same output"; do
    n=$((n + 1)); echo "ok $n # skip TORCH_TRACE import, $w: no ../shared/examples/torch_trace"
  done
fi
echo "1..$n"
