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
    -v sympy_note="$sympy_note" -f "$here/table.awk" \
    "$out/sympy.tsv" "$out/core.tsv" "$out/trace.tsv"
