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
# Each is run GEN_RUNS times (3; 1 for --quick) and the row with the least
# CPU time per op kept: on this shared machine one run of a size can take
# 1.7x another of the same program, which made the growth ratios (a
# quotient of two single runs) swing between 11x and 20x.
sizes="10000 100000 1000000"
runs=${GEN_RUNS:-3}
[ -n "$quick" ] && sizes="1000 10000" && runs=${GEN_RUNS:-1}
echo "bench: generated models ($sizes ops, best of $runs) ..." >&2
for size in $sizes; do
  for backend in eager aot_eager inductor; do
    for ce in 0 100; do
      i=0
      while [ $i -lt "$runs" ]; do
        "$shapedb" --no-report "$here/gen_run.lua" "$size" "$backend" "$ce"
        i=$((i + 1))
      done | sort -t "$(printf '\t')" -k5,5g | head -n 1 >> "$out/trace.tsv"
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

# Saved traces: the generated model recorded (--record; ~4.5 events per
# op, so 222k ops make ~1M events), then replayed: the load's CPU time per
# event and its peak RSS beside the file's size (streamed: the file is
# never held whole), the latency of goto far ahead, far back, reverse-step
# and goto end (each with its stop display), and `save` writing it again.
trace_ops=222000
[ -n "$quick" ] && trace_ops=2200
echo "bench: saved traces ($trace_ops ops recorded, then replayed) ..." >&2
GEN_OPS=$trace_ops "$shapedb" --no-report --record "$out/big.jsonl" "$here/gen_debug.lua" > /dev/null
nev=$(($(wc -l < "$out/big.jsonl") - 1))
fmib=$(($(wc -c < "$out/big.jsonl") / 1048576))
clk='lua io.stderr:write(string.format("T\t%.6f\n", os.clock()))'
hwm='lua for l in io.lines("/proc/self/status") do local k = l:match("^VmHWM:%s*(%d+)") if k then io.stderr:write("RSS\t", k, "\n") end end'
t_start=$("$shapedb" --batch -x "$clk" 2>&1 >/dev/null | cut -f2)
"$shapedb" --batch --replay "$out/big.jsonl" -x "$clk" -x "$hwm" -x "$clk" \
  -x "goto $((nev / 2))" -x "$clk" -x "goto 10" -x "$clk" -x "goto $((nev - 10))" -x "$clk" \
  -x "reverse-step" -x "$clk" -x "goto end" -x "$clk" -x "save $out/big2.jsonl" -x "$clk" \
  > "$out/replay.out" 2> "$out/replay.err" || true
rm -f "$out/big2.jsonl"
awk -F '\t' -v n="$nev" -v t0="$t_start" -v fmib="$fmib" '
  $1 == "RSS" { rss = int($2 / 1024); next }
  $1 == "T" { t[++k] = $2 }
  END {
    g = "9 saved traces (generated model, inductor, cond)"
    printf "save.load\t%s\treplay FILE: load, per event (peak RSS %d MiB, file %d MiB)\t%d events\t%.6g\n", g, rss, fmib, n, (t[1] - t0) * 1e6 / n
    split("goto N/2 (forwards, from the start)|goto 10 (back)|goto N-10 (forwards)|reverse-step|goto end|save FILE: write, per event", d, "|")
    for (i = 1; i <= 6; i++)
      printf "save.%d\t%s\t%s\t%d events\t%.6g\n", i, g, d[i], n, (t[i + 2] - t[i + 1]) * 1e6 / (i == 6 ? n : 1)
  }' "$out/replay.err" >> "$out/trace.tsv"
rm -f "$out/big.jsonl"

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
