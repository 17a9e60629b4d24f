#!/bin/sh
# lessons.sh — the tutorial's lessons (scripts/lessons/) on the real engine:
# each runs to its end in batch mode with the right predictions (exit 0,
# every answer checked against the engine's state, no fact the commentary
# names missing) and with wrong ones (exit 1, each hint shown); each runs
# as a plain script; lesson 2 as a whole transcript; the interactive verbs
# (answer, next, back, quit, progress) and their errors
# (harness: tests/lib/transcript.sh).
NAME=lessons
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
root=$(cd "${SHAPEDB_TESTS:-$(dirname "$0")/..}/.." && pwd)
SHAPEDB_LESSONS=$root/scripts/lessons
export SHAPEDB_LESSONS

# right answers, one file per lesson, one line per question; what each
# line says is a fact about the model, checked by the engine at its stop
answers() {
  case $1 in
    1) printf "%s\n" "L['x'].size()[0]" "[3, int_oo]" "{u0}" "[0, int_oo]" "1" ;;
    2) printf "%s\n" "{u0}" ".size()[0]" "{}" "sym_size_int" ;;
    3) printf "%s\n" "<value>" "[1, int_oo]" "u0 > 2" ;;
    4) printf "%s\n" "[0].size()[0]" "{}" ;;
    5) printf "%s\n" "s0" "trace > cond.true_branch > cond.true_branch" "{s0, s1}" ;;
    6) printf "%s\n" "u2" "[0].size()[0]" ;;
    7) printf "%s\n" "{s0, s1}" ;;
    8) printf "%s\n" "{u0, u1}" "u1 -> u0" ;;
    9) printf "%s\n" "buf1" "lower" ;;
    10) printf "%s\n" "1" "yes" "no" ;;
    11) printf "%s\n" "test_draft_export.py:269" "test_draft_export.py:276" \
               "L['args'][0][1].size()[0]" "test_draft_export.py:279" "u1" "[-int_oo, 15]" ;;
  esac
}

for l in 1 2 3 4 5 6 7 8 9 10 11; do
  answers $l > "$work/right$l.txt"
  count=$(wc -l < "$work/right$l.txt" | tr -d ' ')
  yes | head -n "$count" | sed 's/.*/wrong/' > "$work/wrong$l.txt"
  run --batch -x "tutorial $l right$l.txt"
  n=$((n + 1))
  if grep -q "^Lesson $l finished: $count of $count predictions\{0,1\} right" "$tmp/got" &&
     grep -q '^\[exit 0\]$' "$tmp/got" && ! grep -q 'lesson error\|Not quite\|^tutorial:' "$tmp/got"; then
    echo "ok $n - lesson $l with the right predictions: $count of $count, exit 0"
  else
    echo "not ok $n - lesson $l with the right predictions"
    sed 's/^/# /' "$tmp/got" | grep -v '^#   \|^# [0-9]' | tail -20
  fi
  run --batch -x "tutorial $l wrong$l.txt"
  n=$((n + 1))
  hints=$(grep -c '^Hint: ' "$tmp/got")
  if grep -q "^Lesson $l finished: 0 of $count predictions\{0,1\} right" "$tmp/got" &&
     grep -q '^\[exit 1\]$' "$tmp/got" && [ "$hints" -eq "$count" ]; then
    echo "ok $n - lesson $l with wrong predictions: runs to its end, a hint for each, exit 1"
  else
    echo "not ok $n - lesson $l with wrong predictions ($hints hints)"
    sed 's/^/# /' "$tmp/got" | tail -12
  fi
done

# lesson 11's commentary says explain walks the log's expression_created
# records from the real-tensor answer down to u0: the engine must agree
# (answered wrongly: the saved progress stays as the loop above left it)
run --batch -x 'tutorial 11 wrong11.txt' -x 'explain u0'
grep -o '^ *└─ [a-z_]*(.*) -> .*   (expression_created' "$tmp/got" | sed 's/   (expression_created//' | head -8 > "$tmp/got.t"
mv "$tmp/got.t" "$tmp/got"
want <<'EOF'
└─ eq((((-u0)//3)) + 5, 0) -> Eq((((-u0)//3)) + 5, 0)
   └─ int_floordiv((((-u0)//3)) + 5, 1) -> (((-u0)//3)) + 5
      └─ sub((((-u0)//3)) + 6, 1) -> (((-u0)//3)) + 5
         └─ add((((-u0)//3)) + 5, 1) -> (((-u0)//3)) + 6
            └─ sub((((-u0)//3)) + 5, 0) -> (((-u0)//3)) + 5
               └─ add(((-u0)//3), 5) -> (((-u0)//3)) + 5
                  └─ int_floordiv(-u0, 3) -> ((-u0)//3)
                     └─ neg(u0) -> -u0
EOF
check "lesson 11: explain u0 shows the log's expression tree from the answer down to u0"

# lesson 11's stop 5: the second trace's u1 has no record of its own; the
# stop says it was created where a guard first mentions it
run --batch --replay "$root/scripts/lessons/11-draft-export.log" -x 'break event create_unbacked_symbol' -x continue -x continue
grep '^  create_unbacked_symbol' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'EOF'
  create_unbacked_symbol u0 [-int_oo, int_oo]
  create_unbacked_symbol u1 [-int_oo, int_oo] (mentioned in guard_added)
EOF
check "an imported unbacked symbol first seen in a guard says so"

# every lesson is also a plain program (lesson 3 ends in its error on purpose)
plain=""
for f in "$root"/scripts/lessons/*.lua; do
  (cd "$work" && "$SHAPEDB" -q "$f" > /dev/null 2>&1)
  plain="$plain $(basename "$f" .lua):$?"
done
echo "$plain" > "$tmp/got"
want <<'EOF'
 01-backed-unbacked:0 02-nonzero:0 03-item-check:1 04-multi-output:0 05-cond-lifting:0 06-cond-leak:0 07-fresh-fake-mode:0 08-aot-renaming:0 09-lowering:0 10-guards-recompile:0
EOF
check "each lesson runs as a plain script"

answers 2 > "$work/right2.txt"
run --batch -x 'tutorial 2 right2.txt'
sed "s|$root|ROOT|g" "$tmp/got" > "$tmp/got.r" && mv "$tmp/got.r" "$tmp/got"
want <<'EOF'
Lesson 2: nonzero: a fresh symbol is pending until its node is placed
x:nonzero() returns the indices of x's non-zero entries: how many rows
that is depends on the data, which fake tensors do not have. So the
operator allocates a fresh unbacked symbol for the row count. PyTorch
keeps every fresh unbacked symbol in pending_fresh_unbacked_symbols until
the node producing it is placed in the graph, where compute_unbacked_bindings
must find it in the node's value (seed 001).

-- lesson 2, stop 1 of 5 --
nonzero has just created u0, with range [0, 10]: at most
every one of x's 10 entries, at least none.
event 5, phase trace, tracer trace, 02-nonzero.lua:6 in model
  create_unbacked_symbol u0 [0, 10]
6	  local idx = x:nonzero()                -- i64[u0, 2]
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]

-- lesson 2, stop 2 of 5 --
The ShapeEnv updates its pending list right after the allocation.
Predict: Which symbols are pending now (a set such as {u0}, or {})?
predict {u0}
Right: {u0}
event 6, phase trace, tracer trace, 02-nonzero.lua:6 in model
  pending_changed {u0}
6	  local idx = x:nonzero()                -- i64[u0, 2]
  pending: {} -> {u0}

-- lesson 2, stop 3 of 5 --
The node for nonzero is being placed: compute_unbacked_bindings
walks the node's example value to find where u0 appears.
Predict: Which key path reads u0 off the nonzero node's value?
predict .size()[0]
Right: .size()[0]
event 8, phase trace, tracer trace, 02-nonzero.lua:6 in model
  unbacked_bindings %nonzero u0: .size()[0]
6	  local idx = x:nonzero()                -- i64[u0, 2]
  binding: u0: .size()[0] on %nonzero
  pending: {u0}

-- lesson 2, stop 4 of 5 --
The binding is recorded, so the pending list is updated.
Predict: Which symbols are pending now?
predict {}
Right: {}
event 9, phase trace, tracer trace, 02-nonzero.lua:6 in model
  pending_changed {}
6	  local idx = x:nonzero()                -- i64[u0, 2]
  pending: {u0} -> {}

-- lesson 2, stop 5 of 5 --
The trace is over. Before the runtime asserts on u0's range go in
(u0 >= 0 and u0 <= 10, placed next), the graph needs a node that computes
u0: one is made from the binding site recorded on nonzero, right after that
node, and its proxy now stands for u0 in this tracer. (Line 7's
`size` node reads the same size, but the binding comes from the binding
site; _check_is_size added no fact: nonzero's u0 is already size-like,
with range [0, 10].)
Predict: What is the name of the node that now stands for u0?
predict sym_size_int
Right: sym_size_int
event 15, phase trace, tracer trace
  symbol_bound u0 sym_size_int
u0 was pending from its creation until its node was placed, and is bound at
.size()[0] on nonzero. `explain u0` tells its whole life; `info bindings`
lists every binding.
Lesson 2 finished: 4 of 4 predictions right. `tutorial next` starts the next lesson.
[exit 0]
EOF
check "lesson 2 in full: commentary filled from the engine, predictions, reveals"

run --batch -x tutorial -x 'tutorial 2' -x 'tutorial next' -x 'predict {u0, u1}' -x 'info pending' -x 'tutorial next' \
    -x 'predict .size()[0]' -x 'tutorial back' -x 'tutorial quit' -x 'predict x' -x 'tutorial 99' \
    -x 'tutorial sideways' -x 'tutorial back' -x tutorial
sed "s|$root|ROOT|g" "$tmp/got" > "$tmp/got.r" && mv "$tmp/got.r" "$tmp/got"
want <<'EOF'
Lessons (scripts in ROOT/scripts/lessons):
   1  backed and unbacked symbols, and why guards exist  [done 0/5]
   2  nonzero: a fresh symbol is pending until its node is placed  [done 4/4]
   3  item and torch._check: the data-dependent error, asserts and ranges  [done 0/3]
   4  multiple outputs, [0].size()[0], and a symbol that is not fresh  [done 0/2]
   5  cond with closures: lifting tensors and their symbols  [done 0/3]
   6  cond outputs that leak branch-local unbacked symbols  [done 0/2]
   7  a fresh fake mode and re-fakification  [done 0/1]
   8  the aot retrace: a new symbol renamed to the old one  [done 0/2]
   9  lowering: where each symbol is bound in generated code  [done 0/2]
  10  the unified guard set and a recompile  [done 0/3]
  11  reading a real PyTorch log: a draft-export guard back to its unbacked symbol  [done 0/6]
`tutorial N` starts lesson N; in it, `predict TEXT`, `tutorial next`, `tutorial back`, `tutorial quit`.
Lesson 2: nonzero: a fresh symbol is pending until its node is placed
x:nonzero() returns the indices of x's non-zero entries: how many rows
that is depends on the data, which fake tensors do not have. So the
operator allocates a fresh unbacked symbol for the row count. PyTorch
keeps every fresh unbacked symbol in pending_fresh_unbacked_symbols until
the node producing it is placed in the graph, where compute_unbacked_bindings
must find it in the node's value (seed 001).

-- lesson 2, stop 1 of 5 --
nonzero has just created u0, with range [0, 10]: at most
every one of x's 10 entries, at least none.
event 5, phase trace, tracer trace, 02-nonzero.lua:6 in model
  create_unbacked_symbol u0 [0, 10]
6	  local idx = x:nonzero()                -- i64[u0, 2]
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
(`tutorial next` goes on)

-- lesson 2, stop 2 of 5 --
The ShapeEnv updates its pending list right after the allocation.
Predict: Which symbols are pending now (a set such as {u0}, or {})?
(predict with `predict TEXT`; `tutorial next` to skip; any command works meanwhile)
Not quite: the engine says {u0}.
Hint: A fresh unbacked symbol goes into the pending list as soon as
it is created; nothing has consumed it yet.
event 6, phase trace, tracer trace, 02-nonzero.lua:6 in model
  pending_changed {u0}
6	  local idx = x:nonzero()                -- i64[u0, 2]
  pending: {} -> {u0}
(`tutorial next` goes on)
pending: {u0}
  u0  [0, 10], created by nonzero (trace phase, 02-nonzero.lua:6, event 5)

-- lesson 2, stop 3 of 5 --
The node for nonzero is being placed: compute_unbacked_bindings
walks the node's example value to find where u0 appears.
Predict: Which key path reads u0 off the nonzero node's value?
(predict with `predict TEXT`; `tutorial next` to skip; any command works meanwhile)
Right: .size()[0]
event 8, phase trace, tracer trace, 02-nonzero.lua:6 in model
  unbacked_bindings %nonzero u0: .size()[0]
6	  local idx = x:nonzero()                -- i64[u0, 2]
  binding: u0: .size()[0] on %nonzero
  pending: {u0}
(`tutorial next` goes on)
-- back to stop 2 of 5 --
The ShapeEnv updates its pending list right after the allocation.
event 6, phase trace, tracer trace, 02-nonzero.lua:6 in model
  pending_changed {u0}
6	  local idx = x:nonzero()                -- i64[u0, 2]
  undo binding: u0: .size()[0] on %nonzero
  pending: {u0}
Left lesson 2 (the debugger stays where it is).
predict: no question is waiting (`tutorial` lists the lessons)
tutorial: there is no lesson 99 (in ROOT/scripts/lessons)
tutorial: expected a lesson number, next, back or quit, not 'sideways'
tutorial back: no lesson is running
Lessons (scripts in ROOT/scripts/lessons):
   1  backed and unbacked symbols, and why guards exist  [done 0/5]
   2  nonzero: a fresh symbol is pending until its node is placed  [done 4/4]
   3  item and torch._check: the data-dependent error, asserts and ranges  [done 0/3]
   4  multiple outputs, [0].size()[0], and a symbol that is not fresh  [done 0/2]
   5  cond with closures: lifting tensors and their symbols  [done 0/3]
   6  cond outputs that leak branch-local unbacked symbols  [done 0/2]
   7  a fresh fake mode and re-fakification  [done 0/1]
   8  the aot retrace: a new symbol renamed to the old one  [done 0/2]
   9  lowering: where each symbol is bound in generated code  [done 0/2]
  10  the unified guard set and a recompile  [done 0/3]
  11  reading a real PyTorch log: a draft-export guard back to its unbacked symbol  [done 0/6]
`tutorial N` starts lesson N; in it, `predict TEXT`, `tutorial next`, `tutorial back`, `tutorial quit`.
[exit 1]
EOF
check "tutorial: list, start, answer (wrong, then right), any command between, back, quit, progress; errors"

# `tutorial next` after a lesson ends starts the one after it (the saved
# progress, where lesson 1 may never have been finished, is not the guide)
answers 3 > "$work/right3.txt"
run --batch -x 'tutorial 3 right3.txt' -x 'tutorial next'
grep '^Lesson [0-9]*:' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'EOF'
Lesson 3: item and torch._check: the data-dependent error, asserts and ranges
Lesson 4: multiple outputs, [0].size()[0], and a symbol that is not fresh
EOF
check "tutorial next after a finished lesson starts the next one"

echo "1..$n"
