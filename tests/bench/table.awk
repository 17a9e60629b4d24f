# table.awk — join the benchmark rows and print the table (tests/bench/run.sh).
#
# Input files, in order: sympy.tsv (key, size, us, exact|approx; may be
# empty), then the shapedb rows (key, group, description, size, us) from
# bench_core and bench_trace.lua. Rows are printed by group number (the
# group's leading digit is the brief's workload number), in input order
# within a group. Plain POSIX awk: Debian's default is mawk.

# Three significant digits without exponents: 0.0032, 0.415, 24.6, 283.
function us(x) {
  if (x >= 100) return sprintf("%.0f", x)
  if (x >= 10) return sprintf("%.1f", x)
  if (x >= 1) return sprintf("%.2f", x)
  if (x >= 0.01) return sprintf("%.3f", x)
  return sprintf("%.4f", x)
}

function rate(x,   r) {
  r = 1e6 / x
  if (r >= 1e6) return sprintf("%.2fM", r / 1e6)
  if (r >= 1e3) return sprintf("%.1fk", r / 1e3)
  return sprintf("%.0f", r)
}

FILENAME == ARGV[1] {
  sy_size[$1] = $2; sy_us[$1] = $3; sy_kind[$1] = $4
  have_sympy = 1
  next
}

{
  n++
  key[n] = $1; group[n] = $2; desc[n] = $3; size[n] = $4; val[n] = $5
}

END {
  printf "shapedb benchmarks: median of %s runs per row; %s; %s cores%s\n",
         runs, flags, cores, (cpu != "" ? " (" cpu ")" : "")
  if (have_sympy) {
    printf "sympy column: the same expression work done by %s, a baseline for\n", sympy_note
    printf "  the library under PyTorch's ShapeEnv, NOT PyTorch itself (which adds its own\n"
    printf "  Python on top); (n) = its work size; ~ = a sympy-level approximation.\n"
  } else {
    printf "sympy baseline skipped: python3 with sympy not found (Debian: apt-get install python3-sympy).\n"
  }
  hdr = sprintf("%-46s %-15s %10s %9s %16s  %s", "workload", "size", "us/op", "ops/s",
                "sympy us/op (n)", "x faster than sympy")
  gsub(/us\/op/, "\302\265s/op", hdr)   # µ after the padding: mawk pads by bytes
  print ""
  print hdr
  for (g = 1; g <= 9; g++) {
    for (i = 1; i <= n; i++) {
      if (substr(group[i], 1, 1) != g "") continue
      if (!(g in shown)) { print group[i]; shown[g] = 1 }
      k = key[i]
      sy = ""; ratio = ""
      if (k in sy_us) {
        mark = sy_kind[k] == "approx" ? "~" : ""
        sy = mark us(sy_us[k]) " (" sy_size[k] ")"
        r = sy_us[k] / val[i]
        ratio = mark (r >= 10 ? sprintf("%.0f", r) : sprintf("%.1f", r)) "x"
      }
      line = sprintf("  %-44s %-15s %10s %9s %16s %8s", desc[i], size[i], us(val[i]),
                     rate(val[i]), sy, ratio)
      sub(/ +$/, "", line)
      print line
    }
  }
}
