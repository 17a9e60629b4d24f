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
  if ($1 ~ /^dbg\./ && (dbg_max == "" || $5 + 0 > dbg_max)) dbg_max = $5 + 0
  # the saved-trace rows (run.sh): load time of the whole trace, slowest goto
  if ($1 == "save.load") replay_s = $5 * ($4 + 0) / 1e6
  if ($1 ~ /^save\./ && $3 ~ /^goto/ && (goto_us == "" || $5 + 0 > goto_us)) goto_us = $5 + 0
  if ($1 ~ /^gen\./) {                 # gen.BACKEND.COND.N: rss/op, events
    split($1, kp, "."); cfg = kp[2] "." kp[3]; sz = kp[4] + 0
    gen_us[cfg, sz] = $5; gen_rss[cfg, sz] = $6; gen_ev[cfg, sz] = $7
    if (!(cfg in gen_seen)) { gen_seen[cfg] = 1; gen_cfgs[++ncfg] = cfg }
    if (!(sz in gen_szseen)) { gen_szseen[sz] = 1; gen_sizes[++nsz] = sz }
  }
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
      if (ratio != "" && (min_ratio == "" || r < min_ratio)) min_ratio = r
    }
  }
  gen_summary()
}

# The generated-model matrix: per backend and cond setting, time per op at
# each size, the growth from each size to the next (linear = 10x per 10x
# of ops) and the peak RSS per op at the largest size; then the one
# machine-readable line of issue #20.
function target(what, v, op, want, fmt,   ok) {
  if (v == "") { printf "  %-50s %12s\n", what, "not run"; return }
  ok = (op == "<=" && v <= want) || (op == ">=" && v >= want) || (op == "<" && v < want)
  printf "  %-50s %12s  %s %s  %s\n", what, sprintf(fmt, v), op, want, ok ? "met" : "NOT met"
}

function worst_rate(b, n,   r, c, v) {
  r = ""
  for (c = 0; c < 2; c++)
    if (((b "." (c ? "cond" : "nocond"), n) in gen_us)) {
      v = 1e6 / gen_us[b "." (c ? "cond" : "nocond"), n]
      if (r == "" || v < r) r = v
    }
  return r
}

function gen_summary(   i, j, c, s, prev, g, big, line, maxg, rssmax, opsps) {
  if (ncfg == 0) return
  print ""
  print "7 generated models: growth (time at N / time at N/10; linear = 10x) and peak RSS"
  line = sprintf("  %-24s", "backend, cond")
  for (j = 1; j <= nsz; j++) line = line sprintf(" %14s", gen_sizes[j] " ops")
  for (j = 2; j <= nsz; j++) line = line sprintf(" %9s", "growth")
  line = line sprintf(" %10s %9s", "RSS B/op", "events")
  print line
  big = gen_sizes[nsz]
  for (i = 1; i <= ncfg; i++) {
    c = gen_cfgs[i]
    line = sprintf("  %-24s", c)
    for (j = 1; j <= nsz; j++)
      line = line sprintf(" %14s", ((c, gen_sizes[j]) in gen_us) ? rate(gen_us[c, gen_sizes[j]]) "/s" : "-")
    for (j = 2; j <= nsz; j++) {
      prev = gen_sizes[j - 1]; s = gen_sizes[j]
      if (((c, s) in gen_us) && ((c, prev) in gen_us)) {
        g = gen_us[c, s] * s / (gen_us[c, prev] * prev)
        line = line sprintf(" %8.1fx", g)
        if (s == 1000000 && prev == 100000 && (maxg == "" || g > maxg)) maxg = g
      } else line = line sprintf(" %9s", "-")
    }
    line = line sprintf(" %10.0f %9s", gen_rss[c, big], gen_ev[c, big])
    if (rssmax == "" || gen_rss[c, big] + 0 > rssmax) rssmax = gen_rss[c, big] + 0
    print line
  }
  # the TORCH_TRACE import benchmark's text (Makefile), printed as is;
  # its import pass's MiB/s (cpu) goes into the last line
  imp = "na"
  if (tt_txt != "") {
    print ""
    while ((getline tl < tt_txt) > 0) {
      print tl
      if (tl ~ /^  import:/) { nf = split(tl, tf, / +/); imp = tf[nf - 2] }
      if (tl ~ /^  read\(2\)/) { nf = split(tl, tf, / +/); rd = tf[nf - 2] }
    }
    close(tt_txt)
  }
  # issue #20's targets, each with the measured value (none is a test)
  print ""
  print "targets (issue #20): measured, target"
  target("growth 1M / 100k ops, worst backend", maxg == "" ? "" : maxg, "<=", 12, "%.2fx")   # two decimals: 12.04 must not print as 12.0 beside "NOT met"
  target("eager ops/s at 100k (worst of cond, no cond)", worst_rate("eager", 100000), ">=", 200000, "%.0f")
  target("inductor ops/s at 100k (worst of cond, no cond)", worst_rate("inductor", 100000), ">=", 100000, "%.0f")
  target("peak RSS bytes per op, largest run", rssmax, "<", 1024, "%.0f")
  target("slowest debugger command, ms", dbg_max == "" ? "" : dbg_max / 1000, "<", 50, "%.1f")
  target("expressions vs sympy, worst kind", min_ratio, ">=", 300, "%.0fx")
  target("saved trace: load, s (target for 1M events)", replay_s, "<", 2, "%.2f")
  target("saved trace: slowest goto, ms", goto_us == "" ? "" : goto_us / 1000, "<", 10, "%.1f")
  target("import MiB/s over read(2) MiB/s", (imp == "na" || rd == "") ? "" : imp / rd, ">=", 0.333, "%.3f")
  opsps = (("eager.cond", 100000) in gen_us) ? sprintf("%.0f", 1e6 / gen_us["eager.cond", 100000]) : "na"
  printf "bench: expr_vs_sympy=%s trace_ops_per_s=%s trace_rss_bytes_per_op=%s growth_1m_over_100k=%s replay_load_s=%s goto_ms=%s startup_ms=%s import_mib_per_s=%s\n", \
    (min_ratio == "" ? "na" : sprintf("%.0fx", min_ratio)), opsps, \
    (rssmax == "" ? "na" : sprintf("%.0f", rssmax)), (maxg == "" ? "na" : sprintf("%.1f", maxg)), \
    (replay_s == "" ? "na" : sprintf("%.2f", replay_s)), (goto_us == "" ? "na" : sprintf("%.1f", goto_us / 1000)), \
    (startup_ms == "" ? "na" : startup_ms), imp
}
