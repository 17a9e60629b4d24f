#!/bin/sh
# run.sh — `make bench`: run the C core benchmarks, the Lua end-to-end
# trace benchmark and (when python3 has sympy) the sympy baseline, then
# print one table. Numbers only: nothing here passes or fails on time.
#
#   sh tests/bench/run.sh BENCH_CORE SHAPEDB OUTDIR "CFLAGS NOTE" [--quick]
#
# The raw rows stay in OUTDIR (core.tsv, trace.tsv, sympy.tsv) for anyone
# who wants to diff two runs. PYTHON overrides the interpreter (python3).
set -e
core=$1 shapedb=$2 out=$3 flags=$4 quick=$5
here=$(dirname "$0")
py=${PYTHON:-python3}
mkdir -p "$out"

echo "bench: core workloads (C) ..." >&2
"$core" $quick > "$out/core.tsv"
echo "bench: end-to-end traces (Lua front end) ..." >&2
"$shapedb" --no-report "$here/bench_trace.lua" $quick > "$out/trace.tsv"

# Generated models (gen_model.lua): every backend, with and without a
# torch.cond every 100 ops, one process per run so each peak RSS is its
# own. --quick stops at 10k ops; the 1M-op runs belong to the full bench.
sizes="10000 100000 1000000"
[ -n "$quick" ] && sizes="1000 10000"
echo "bench: generated models ($sizes ops) ..." >&2
for size in $sizes; do
  for backend in eager aot_eager inductor; do
    for ce in 0 100; do
      "$shapedb" --no-report "$here/gen_run.lua" "$size" "$backend" "$ce" >> "$out/trace.tsv"
    done
  done
done

# Debugger commands on the generated model (inductor, cond every 100
# ops): CPU time of each command after `run`, listings written to a file.
dbg_ops=100000
[ -n "$quick" ] && dbg_ops=1000
echo "bench: debugger commands on a $dbg_ops-op run ..." >&2
{
  echo run
  printf '%s\n' 'io.stderr:write(string.format("T0\t%.6f\n", os.clock()))'
  for c in "info pending" "info bindings" "info guards" "info replacements" "info asserts" \
           "info symbols" "info tracers" "info graph" "explain u100" "goto 50000" \
           "info bindings" "reverse-step" "step" "next" "goto 1000" "info graph"; do
    printf '%s\n' "$c"
    printf 'io.stderr:write(string.format("T\\t%s\\t%%.6f\\n", os.clock()))\n' "$c"
  done
} > "$out/debug.cmds"
GEN_OPS=$dbg_ops "$shapedb" -i "$here/gen_debug.lua" < "$out/debug.cmds" > "$out/debug.out" 2> "$out/debug.err" || true
awk -F '\t' -v n="$dbg_ops" '
  $1 == "T0" { prev = $2; next }
  $1 == "T" { k++; printf "dbg.%d\t8 debugger commands (generated model, inductor, cond)\t%s\t%d ops\t%.6g\n", k, $2, n, ($3 - prev) * 1e6; prev = $3 }
' "$out/debug.err" >> "$out/trace.tsv"

# Start-up: the binary running an empty chunk (wall clock, median of 5).
startup_ms=$(for i in 1 2 3 4 5; do
  t0=$(date +%s%N); "$shapedb" -e '' >/dev/null; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
done | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 / 1000 }')

# The baseline is optional: without sympy the table has no ratio column
# values and says why.
sympy_note=
if "$py" -c 'import sympy' 2>/dev/null; then
  echo "bench: sympy baseline (Python) ..." >&2
  "$py" "$here/sympy_baseline.py" $quick > "$out/sympy.tsv"
  sympy_note=$("$py" -c 'import sys, sympy; print("sympy %s on Python %s" % (sympy.__version__, sys.version.split()[0]))')
else
  : > "$out/sympy.tsv"
fi

cores=$(nproc 2>/dev/null || echo '?')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
runs=5
[ -n "$quick" ] && runs=1
awk -F '\t' -v flags="$flags" -v cores="$cores" -v cpu="$cpu" -v runs="$runs" \
    -v sympy_note="$sympy_note" -v startup_ms="$startup_ms" -v tt_txt="${BENCH_TT_TXT:-}" -f "$here/table.awk" \
    "$out/sympy.tsv" "$out/core.tsv" "$out/trace.tsv"
