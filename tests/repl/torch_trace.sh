#!/bin/sh
# torch_trace.sh — `replay LOG` on PyTorch TORCH_TRACE logs: the four real
# samples in $SHAPEDB_SHARED/examples/torch_trace (read there, never
# copied into the repository), their counts checked against counts made
# here from the file by grep/awk, exact transcripts of the draft-export
# log's guard (explain, why), a synthetic log with a recompile, and each
# kind of bad input on corrupted copies made in the scratch directory.
NAME=torch_trace
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
LOGS=${SHAPEDB_SHARED:-$(dirname "$0")/../../../shared}/examples/torch_trace

# --- counts, by an independent route ------------------------------------------
# From the file: record kinds (first key after "] {"), in first-seen order;
# compile ids; symbols named in symbol/expr/result fields; guards; graphs.
kinds() {
  sed -n 's/^[VIWEC][0-9]\{4\} [0-9:.]* *[0-9]* [^ ]*\] {"\([a-z_A-Z]*\)".*/\1/p' "$1" |
    awk '!($0 in n) { order[++k] = $0 } { n[$0]++ } END { for (i = 1; i <= k; i++) printf "%s %d\n", order[i], n[order[i]] }'
}
file_counts() {
  f=$1
  compiles=$(grep -o '"frame_id": [0-9]*, "frame_compile_id": [0-9]*' "$f" | sort -u | wc -l)
  if [ "$compiles" -eq 0 ] && grep -qE '\] \{"(guard_added|create_symbol|expression_created|exported_program)' "$f"; then
    compiles=1   # an export run: one pseudo-compile [-/-]
  fi
  syms=$(grep -oE '"(symbol|expr|result)": "[^"]*"' "$f" | grep -oE '\b[su][0-9]+\b' | sort -u | wc -l)
  unbacked=$(grep -oE '"(symbol|expr|result)": "[^"]*"' "$f" | grep -oE '\bu[0-9]+\b' | sort -u | wc -l)
  guards=$(grep -cE '\] \{"guard_added(_fast)?"' "$f")
  graphs=$(grep -cE '\] \{"(dynamo_output_graph|aot_[a-z]+_graph|inductor_[a-z_]+_graph|inductor_output_code|exported_program|graph_dump)"' "$f")
  echo "compiles $compiles symbols $syms unbacked $unbacked guards $guards graphs $graphs"
}
# The same numbers from `info compiles` (summed over compiles).
shapedb_counts() {
  "$SHAPEDB" --replay "$1" --batch -x 'info compiles' 2>&1 | awk '
    /^\[/ { c++ }
    /symbols [0-9]+ \(/ {
      for (i = 1; i <= NF; i++) {
        gsub(/[(),]/, "", $i)
        if ($i == "symbols") s += $(i + 1)
        if ($i == "unbacked") u += $(i - 1)
        if ($i == "guards") g += $(i + 1)
        if ($i == "graphs") gr += $(i + 1)
      }
    }
    END { printf "compiles %d symbols %d unbacked %d guards %d graphs %d\n", c, s, u, g, gr }'
}
shapedb_kinds() {
  "$SHAPEDB" --replay "$1" --batch -x 'info records' 2>&1 |
    awk '/^  [a-z_A-Z]+ +[0-9]+/ { printf "%s %d\n", $1, $2 }'
}

for log in tlparse_links tlparse_export_guard_added tlparse_comp_failure tlparse_artifacts; do
  file_counts "$LOGS/$log.log" > "$tmp/want"
  shapedb_counts "$LOGS/$log.log" > "$tmp/got"
  check "$log: compiles, symbols, unbacked symbols, guards and graphs"
  kinds "$LOGS/$log.log" > "$tmp/want"
  shapedb_kinds "$LOGS/$log.log" > "$tmp/got"
  check "$log: records per kind"
done

# --- the samples, exactly -------------------------------------------------------
want <<OUT
Replaying $LOGS/tlparse_comp_failure.log (TORCH_TRACE): 21 records, 1 compile, 7 events.
\`info compiles\` lists them; \`step\`, \`continue\` and \`break\` move through the log.
[0/0]    fn (test_misc.py:10755)  failed: BackendCompilerFailed: backend='broken_backend' raised: RuntimeError: broken backend
         symbols 0 (0 unbacked), guards 0, runtime asserts 0, specializations 0, graphs 1
Breakpoint 1: error
Breakpoint 1, error
event 4, phase trace, tracer [0/0]
  error BackendCompilerFailed: backend='broken_backend' raised:
  | RuntimeError: broken backend
  compile 1 ([0/0]) began at event 0
  tracer: - -> [0/0]
  error: BackendCompilerFailed: backend='broken_backend' raised: RuntimeError: broken backend
event 4, trace phase:
(the log gives this record no stack)
[exit 0]
OUT
run --replay "$LOGS/tlparse_comp_failure.log" --batch -x 'info compiles' -x 'break error' -x continue -x where
check "a failed compile: its status and reason, break error stops at it, where says the log has no stack"

want <<OUT
Replaying $LOGS/tlparse_export_guard_added.log (TORCH_TRACE): 39 records, 1 compile, 8 events; 3 problems (\`info records\`).
\`info compiles\` lists them; \`step\`, \`continue\` and \`break\` move through the log.
event 3, phase trace, tracer [-/-], test_draft_export.py:297 in forward
  create_symbol s0 (no hint) for L['args'][0][0].size()[0] (source from guard_added)
297${TAB}assert a.shape[0] == 3
  compile 1 ([-/-]) began at event 0
  tracer: - -> [-/-]
  source: ? for s0 (mentioned in expression_created)
  source: L['args'][0][0].size()[0] for s0 (source from guard_added)
Eq(s0, 3) is not statically known at this step.
  s0: backed int, no hint (an imported log only mentions it), range [-int_oo, int_oo]
  facts about s0: none
  true  when s0 = 3
  false when s0 = 2
  either torch._check(Eq(s0, 3)) or torch._check(Ne(s0, 3)) would settle it; \`assume\` tries one here
expression tree from the log:
Eq(s0, 3)   guard eval at test_draft_export.py:297 in forward (guard_added, line 27)
└─ eq(s0, 3) -> Eq(s0, 3)   (expression_created, id 140311800656080)
   └─ s0: L['args'][0][0].size()[0]   (id 140311800650992)
event 4, phase trace, tracer [-/-], test_draft_export.py:297 in forward
  guard_added Eq(s0, 3)
297${TAB}assert a.shape[0] == 3
  guard: Eq(s0, 3)
Eq(s0, 3) is statically known True at this step: s0 is replaced by 3 (range_refined_to_singleton, implied by this step's facts).
event 4, trace phase:
#0  forward at test_draft_export.py:297
#1  _call_impl at module.py:1762
#2  _wrapped_call_impl at module.py:1751
[exit 0]
OUT
run --replay "$LOGS/tlparse_export_guard_added.log" --batch -x 'goto 3' -x 'why Eq(s0, 3)' \
  -x 'explain Eq(s0, 3)' -x step -x 'why Eq(s0, 3)' -x where
check "draft export: why before and after the guard, its expression tree down to s0, the Python stack"

want <<OUT
39 records in 48 lines of $LOGS/tlparse_export_guard_added.log
  str                                          36
  expression_created                            1
  guard_added                                   1
  exported_program                              1
3 problems (the rest was imported):
  $LOGS/tlparse_export_guard_added.log:26: timestamp goes back 0.002000 s (file order kept)
  $LOGS/tlparse_export_guard_added.log:39: exported_program: payload MD5 3d7ae79af0d54ed5a1148c7a5f268532 does not match has_payload ad5752e29c50d388a36417d1031ae0e7 (9 lines)
  $LOGS/tlparse_export_guard_added.log:46: empty line inside a payload (kept as an empty payload line)
[-/-] exported_program (line 39 of the log):
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, a: "f32[3, 3]"):
             # File: /data/users/angelayi/pytorch/test/export/test_draft_export.py:298 in forward, code: return a * a
            mul: "f32[3, 3]" = torch.ops.aten.mul.Tensor(a, a);  a = None
            return (mul,)

Graph signature: ExportGraphSignature(input_specs=[InputSpec(kind=<InputKind.USER_INPUT: 1>, arg=TensorArgument(name='a'), target=None, persistent=None)], output_specs=[OutputSpec(kind=<OutputKind.USER_OUTPUT: 1>, arg=TensorArgument(name='mul'), target=None)])
Range constraints: {}
[exit 0]
OUT
run --replay "$LOGS/tlparse_export_guard_added.log" --batch -x 'info records' -x 'info graph -/- exported'
sed -i '1,2d' "$tmp/got"
check "info records: kinds and the real log's own problems; info graph ID KIND"

want <<'OUT'
[0/0] has 6 graphs in the log (`info graph 0/0 KIND` shows one):
  dynamo_output_graph          line 5
  aot_forward_graph            line 21
  inductor_post_grad_graph     line 32
  inductor_output_code         line 43
  dynamo_guards                line 128
  dynamo_cpp_guards_str        line 132
[0/0] aot_forward_graph (line 21 of the log):
class <lambda>(torch.nn.Module):
OUT
run --replay "$LOGS/tlparse_links.log" --batch -x 'goto 5' -x 'info graph' -x 'info graph 0/0 aot_forward'
sed -n '/has 6 graphs/,/^class/p' "$tmp/got" > "$tmp/got2" && mv "$tmp/got2" "$tmp/got"
check "info graph lists the graphs of the compile at the cursor; info graph 0/0 aot_forward shows one"

# --- a synthetic log: unbacked symbols, a recompile ------------------------------
# rec KIND META CID [PAYLOAD]: one record, its MD5 computed here.
stamp=0
rec() {
  stamp=$((stamp + 1))
  env=""
  [ -n "$3" ] && env=", \"frame_id\": ${3%/*}, \"frame_compile_id\": ${3#*/}, \"attempt\": 0"
  if [ $# -ge 4 ]; then
    md5=$(printf '%s' "$4" | md5sum | cut -c1-32)
    printf 'V0211 16:42:%02d.000000 2313073 torch/x.py:1] {"%s": %s%s, "has_payload": "%s"}\n' \
      "$stamp" "$1" "$2" "$env" "$md5"
    printf '%s\n' "$4" | sed "s/^/$TAB/"
  else
    printf 'V0211 16:42:%02d.000000 2313073 torch/x.py:1] {"%s": %s%s}\n' "$stamp" "$1" "$2" "$env"
  fi
}
us() { echo "[{\"line\": $1, \"name\": \"f\", \"filename\": 0, \"loc\": \"$2\"}]"; }
{
  rec str '["/home/user/model.py", 0]' ""
  rec dynamo_start "{\"stack\": $(us 3 'def f(x, n):')}" 0/0
  rec create_symbol "{\"symbol\": \"s0\", \"val\": \"5\", \"vr\": \"[2, int_oo]\", \"source\": \"L['x'].size()[0]\", \"user_stack\": $(us 4 'y = x * 2')}" 0/0
  rec create_unbacked_symbol "{\"symbol\": \"u0\", \"node_id\": 1001, \"vr\": \"[-int_oo, int_oo]\", \"user_stack\": $(us 5 'k = n.item()')}" 0/0
  rec expression_created "{\"method\": \"add\", \"result\": \"u0 + 1\", \"result_id\": 1003, \"arguments\": [\"u0\", \"1\"], \"argument_ids\": [1001], \"user_stack\": $(us 7 'm = k + 1')}" 0/0
  rec expression_created "{\"method\": \"eq\", \"result\": \"Eq(u0 + 1, 4)\", \"result_id\": 1004, \"arguments\": [\"u0 + 1\", \"4\"], \"argument_ids\": [1003], \"user_stack\": $(us 8 'if m == 4:')}" 0/0
  # no expr_node_id (older logs): its tree is found by the expression Eq(u0 + 1, 4)
  rec guard_added "{\"expr\": \"Ne(u0 + 1, 4)\", \"prefix\": \"runtime_assert\", \"user_stack\": $(us 8 'torch._check(m != 4)')}" 0/0
  rec guard_added_fast "{\"expr\": \"Eq(s0, 5)\", \"user_stack\": $(us 9 'if x.shape[0] == 5:')}" 0/0
  rec dynamo_cpp_guards_str '{}' 0/0 "TREE_GUARD_MANAGER:
+- RootGuardManager
| +- LAMBDA_GUARD: L['x'].size()[0] == 5  # model.py:9 in f
| +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32)"
  rec compilation_metrics '{"co_name": "f", "co_filename": "/home/user/model.py", "co_firstlineno": 3, "fail_type": null}' 0/0
  rec dynamo_start "{\"stack\": $(us 3 'def f(x, n):')}" 0/1
  # PyTorch pads a guard before its comment, and the reason keeps the padding
  rec artifact '{"name": "recompile_reasons", "encoding": "json"}' 0/1 "[\"0/0: L['x'].size()[0] == 5      \"]"
  rec create_symbol "{\"symbol\": \"s0\", \"val\": \"7\", \"vr\": \"[2, int_oo]\", \"source\": \"L['x'].size()[0]\", \"user_stack\": $(us 4 'y = x * 2')}" 0/1
  rec guard_added_fast "{\"expr\": \"Ne(s0, 5)\", \"user_stack\": $(us 9 'if x.shape[0] == 5:')}" 0/1
  rec dynamo_cpp_guards_str '{}' 0/1 "TREE_GUARD_MANAGER:
+- RootGuardManager
| +- LAMBDA_GUARD: L['x'].size()[0] != 5
| +- LAMBDA_GUARD: 2 <= L['x'].size()[0]
| +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32)"
  rec compilation_metrics '{"co_name": "f", "co_filename": "/home/user/model.py", "co_firstlineno": 3, "fail_type": null}' 0/1
  rec some_future_record '{"x": 1}' 0/1
} > "$work/syn.log"

want <<'OUT'
Replaying syn.log (TORCH_TRACE): 17 records, 2 compiles, 19 events.
`info compiles` lists them; `step`, `continue` and `break` move through the log.
[0/0]    f (model.py:3)  ok
         symbols 2 (1 unbacked), guards 1, runtime asserts 1, specializations 0, graphs 0
[0/1]    f (model.py:3)  ok
         recompile: 0/0: L['x'].size()[0] == 5
         symbols 1 (0 unbacked), guards 1, runtime asserts 0, specializations 0, graphs 0
[0/1] f: recompile of [0/0]
  reason: 0/0: L['x'].size()[0] == 5
  + LAMBDA_GUARD: 2 <= L['x'].size()[0]
  + LAMBDA_GUARD: L['x'].size()[0] != 5
  - LAMBDA_GUARD: L['x'].size()[0] == 5
Breakpoint 1: event runtime_assert_added
Breakpoint 1, event runtime_assert_added
event 4, phase trace, tracer [0/0], model.py:8 in f
  runtime_assert_added Ne(u0 + 1, 4)
8	torch._check(m != 4)
  compile 1 ([0/0]) began at event 0
  tracer: - -> [0/0]
  new symbol: s0 = 5 for L['x'].size()[0] [2, int_oo]
  new symbol: u0 [-int_oo, int_oo]
  runtime assert: Ne(u0 + 1, 4)
Eq(u0 + 1, 4) is statically known False at this step: Ne(u0 + 1, 4) holds (runtime assert, model.py:8).
u0: unbacked int, created at model.py:5 in f (trace phase, event 3), range [-int_oo, int_oo]
  in runtime assert Ne(u0 + 1, 4) (trace phase, model.py:8, event 4)
expression tree from the log:
Ne(u0 + 1, 4)   runtime assert at model.py:8 in f (guard_added, line 7)
  (no expr_node_id in the log: matched by the expression)
└─ eq(u0 + 1, 4) -> Eq(u0 + 1, 4)   (expression_created, id 1004)
   └─ add(u0, 1) -> u0 + 1   (expression_created, id 1003)
      └─ u0   (create_unbacked_symbol, id 1001)
[exit 0]
OUT
run --replay syn.log --batch -x 'info compiles' -x 'info recompiles' -x 'break event runtime_assert_added' \
  -x continue -x 'why Eq(u0 + 1, 4)' -x 'explain u0'
check "a recompile: reason and sorted guard diff; a runtime assert, why, explain with the tree"

# --- gzip, directories of per-rank logs -------------------------------------------
mkdir "$work/ranks"
gzip -c "$LOGS/tlparse_links.log" > "$work/ranks/dedicated_log_torch_trace_rank_0_abc.log.gz"
cp "$work/syn.log" "$work/ranks/dedicated_log_torch_trace_rank_1_xyz.log"
want <<'OUT'
Replaying ranks/dedicated_log_torch_trace_rank_0_abc.log.gz (TORCH_TRACE): 12 records, 1 compile, 11 events.
`info compiles` lists them; `step`, `continue` and `break` move through the log.
Replaying ranks/dedicated_log_torch_trace_rank_1_xyz.log (TORCH_TRACE): 17 records, 2 compiles, 19 events.
`info compiles` lists them; `step`, `continue` and `break` move through the log.
replay: ranks: no log of rank 2 among its 2 .log files
[exit 1]
OUT
run --batch -x 'replay ranks' -x 'replay ranks --rank 1' -x 'replay ranks --rank 2'
check "a directory: rank 0 (gzip) by default, --rank N"

want <<'OUT'
replay: nosuch.log: no such file or directory
[exit 1]
OUT
run --replay nosuch.log --batch
check "--replay of a missing file"
printf 'hello\n' > "$work/plain.txt"
want <<'OUT'
replay: plain.txt: not a TORCH_TRACE log (its first line is not a `V0211 16:42:20.546000 123 file.py:1] {...}` record)
[exit 1]
OUT
run --replay plain.txt --batch
check "--replay of a file that is not a TORCH_TRACE log"

# --- bad input: corrupted copies, each reported at file:line, the rest imported ----
problems() { "$SHAPEDB" --replay "$1" --batch -x 'info records' 2>&1 | sed -n '/(the rest was imported)/,$p'; }
cd "$work" || exit 1
sed '2s/^V//' "$LOGS/tlparse_links.log" > bad_header.log
sed '4s/{"dynamo_start": {/{"dynamo_start": {{/' "$LOGS/tlparse_links.log" > bad_json.log
sed 's/^\tclass GraphModule/\tclass GraphModulX/' "$LOGS/tlparse_links.log" > bad_md5.log
head -c 4000 "$LOGS/tlparse_links.log" > truncated.log
sed '1s/ 11:47:27/ 12:47:27/' "$LOGS/tlparse_links.log" > time.log
sed '44s/^\t$//' "$LOGS/tlparse_links.log" > empty_line.log
want <<'OUT'
1 problem (the rest was imported):
  bad_header.log:2: bad header line: 0516 11:47:27.901000 139733182882816 torch/_logging/structur...
1 problem (the rest was imported):
  bad_json.log:4: bad JSON: string or '}' expected near '{' (column 93)
1 problem (the rest was imported):
  bad_md5.log:5: dynamo_output_graph: payload MD5 961888e094c43377988a500bde5782b2 does not match has_payload 2fcc93b1b49f2b51f2f307ab841be828 (14 lines)
1 problem (the rest was imported):
  truncated.log:43: bad JSON: '}' expected near end of file (column 295); the file ends inside this line (truncated)
1 problem (the rest was imported):
  time.log:2: timestamp goes back 3600.000000 s (file order kept)
1 problem (the rest was imported):
  empty_line.log:44: empty line inside a payload (kept as an empty payload line)
OUT
for f in bad_header bad_json bad_md5 truncated time empty_line; do problems $f.log; done > "$tmp/got"
check "bad input: header, JSON, MD5, truncation, time going back, empty payload line"

# --- pipes and standard input: read once, named as the user named them -----------
cd "$work" || exit 1
mkfifo fifo.log
cat syn.log > fifo.log &
want <<'OUT'
Replaying fifo.log (TORCH_TRACE): 17 records, 2 compiles, 19 events.
`info compiles` lists them; `step`, `continue` and `break` move through the log.
[0/1] f: recompile of [0/0]
  reason: 0/0: L['x'].size()[0] == 5
  + LAMBDA_GUARD: 2 <= L['x'].size()[0]
  + LAMBDA_GUARD: L['x'].size()[0] != 5
  - LAMBDA_GUARD: L['x'].size()[0] == 5
[exit 0]
OUT
run --replay fifo.log --batch -x 'info recompiles'
wait
check "a FIFO is read once: sniffed and imported under its own name"
want <<'OUT'
Replaying <stdin> (TORCH_TRACE): 11 records, 1 compile, 11 events; 1 problem (`info records`).
`info compiles` lists them; `step`, `continue` and `break` move through the log.
1 problem (the rest was imported):
  <stdin>:2: bad header line: 0516 11:47:27.901000 139733182882816 torch/_logging/structur...
[exit 0]
OUT
(gzip -c bad_header.log | "$SHAPEDB" --replay - --batch -x 'info records' 2>&1 | sed '/^  [a-z_]* *[0-9]*$/d;/^[0-9]* records in/d') > "$tmp/got"
echo "[exit $?]" >> "$tmp/got"
check "--replay - reads a gzip log from standard input; problems name <stdin>:LINE"
printf 'local f = torch.compile(function(x) return x:nonzero() end)\nf(shapedb.tensor{4})\n' > nz.lua
"$SHAPEDB" --batch --record saved.jsonl -x run nz.lua > /dev/null 2>&1
head -c 120 saved.jsonl > cut.jsonl
want <<'OUT'
Replaying <stdin>: 53 events of nz.lua.
event 5, phase trace, tracer trace, nz.lua:1 in nz.lua:1
1	local f = torch.compile(function(x) return x:nonzero() end)
replay: <stdin>:1: invalid JSON: unexpected end of input
replay: <stdin>: empty (neither a saved trace nor a TORCH_TRACE log)
[exit 1]
OUT
(cd "$work" && "$SHAPEDB" --replay - --batch -x 'break op nonzero' -x continue < saved.jsonl | grep -v '^Breakpoint\|^  ' ;
 "$SHAPEDB" --replay - --batch < cut.jsonl; "$SHAPEDB" --replay - --batch < /dev/null) > "$tmp/got" 2>&1
echo "[exit $?]" >> "$tmp/got"
check "a saved trace from standard input: errors name <stdin>; empty input is said to be empty"

# --- graph breaks: dynamo_graph_break_reason artifacts, both of PyTorch's forms ---
cd "$work" || exit 1
stamp=0
{
  rec str '["/home/u/model.py", 0]' ""
  rec dynamo_start "{\"stack\": $(us 5 'def forward(self, x):')}" 0/0
  rec artifact '{"name": "dynamo_graph_break_reason", "encoding": "string"}' 0/0 "Graph break in user code at /home/u/model.py:7
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching (e.g. \`if my_tensor.sum() > 0:\`). Dynamo does not support tracing dynamic control flow.
  Hint: Use \`torch.cond\` to express dynamic control flow.

  Developer debug context: attempted to jump with TensorVariable()

User code traceback:
  File \"/home/u/model.py\", line 7, in forward
    if x.sum() > 0:
"
  rec compilation_metrics '{"co_name": "forward", "co_filename": "/home/u/model.py", "co_firstlineno": 5, "fail_type": null}' 0/0
  rec dynamo_start "{\"stack\": $(us 7 'if x.sum() > 0:')}" 1/0
  rec artifact '{"name": "dynamo_graph_break_reason", "encoding": "string"}' 1/0 "Graph break: skip: from user code at:
  File \"/home/u/model.py\", line 9, in torch_dynamo_resume_in_forward_at_7
    print(\"positive\")

Traceback (most recent call last):
  File \"/torch/_dynamo/symbolic_convert.py\", line 1, in step
torch._dynamo.exc.Unsupported: builtin: print"
  rec compilation_metrics '{"co_name": "torch_dynamo_resume_in_forward_at_7", "co_filename": "/home/u/model.py", "co_firstlineno": 7, "fail_type": null}' 1/0
} > gb.log
want <<'OUT'
Replaying gb.log (TORCH_TRACE): 7 records, 2 compiles, 10 events.
`info compiles` lists them; `step`, `continue` and `break` move through the log.
[0/0]    forward (model.py:5)  ok
         graph break at model.py:7: Data-dependent branching
         symbols 0 (0 unbacked), guards 0, runtime asserts 0, specializations 0, graphs 0
[1/0]    torch_dynamo_resume_in_forward_at_7 (model.py:7)  ok
         graph break at model.py:9: torch._dynamo.exc.Unsupported: builtin: print
         symbols 0 (0 unbacked), guards 0, runtime asserts 0, specializations 0, graphs 0
Breakpoint 1: event graph_break
Breakpoint 1, event graph_break
event 2, phase trace, tracer [0/0], model.py:7 in forward
  graph_break Data-dependent branching
7	if x.sum() > 0:
  compile 1 ([0/0]) began at event 0
  tracer: - -> [0/0]
  graph break: Data-dependent branching
Breakpoint 1, event graph_break
event 7, phase trace, tracer [1/0], model.py:9 in torch_dynamo_resume_in_forward_at_7
  graph_break torch._dynamo.exc.Unsupported: builtin: print
9	print("positive")
  compile 2 ([1/0]) began at event 5
  tracer: - -> [1/0]
  graph break: torch._dynamo.exc.Unsupported: builtin: print
event 7, trace phase:
#0  torch_dynamo_resume_in_forward_at_7 at model.py:9
[0/0] dynamo_graph_break_reason (line 3 of the log):
Graph break in user code at /home/u/model.py:7
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.
  Hint: Use `torch.cond` to express dynamic control flow.

  Developer debug context: attempted to jump with TensorVariable()

User code traceback:
  File "/home/u/model.py", line 7, in forward
    if x.sum() > 0:
[exit 0]
OUT
run --replay gb.log --batch -x 'info compiles' -x 'break event graph_break' -x continue -x continue -x where \
  -x 'info graph 0/0 dynamo_graph_break_reason'
check "graph breaks: where and why (PyTorch's two forms), break event graph_break, the whole reason"

"$SHAPEDB" --replay gb.log --batch --html gbhtml > /dev/null 2>&1
{ grep -o '[0-9]* graph break[s]*' gbhtml/index.html; grep -A1 '<h2>Graph breaks' gbhtml/compile-1.html | sed 's/<pre>.*//'; } > "$tmp/got"
want <<'OUT'
1 graph break
1 graph break
<h2>Graph breaks (1)</h2>
<p class="m">model.py:7</p><details><summary>Data-dependent branching</summary>
OUT
check "the HTML report counts each compile's graph breaks and shows where and why"

# assume of what is known already says so and adds nothing
run --replay "$LOGS/tlparse_export_guard_added.log" --batch -x 'goto end' -x 'assume Eq(s0, 3)' \
  -x 'info assumptions'
sed -n '/^assume/,$p' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
assume Eq(s0, 3):
  already statically known True: s0 is replaced by 3 (range_refined_to_singleton, implied by this step's facts); torch._check would add nothing
Nothing assumed: it is known already.
No assumptions (`assume u0 >= 1` adds one).
[exit 0]
OUT
check "assume of a known fact adds no assumption"

echo "1..$n"
