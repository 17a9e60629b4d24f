#!/bin/sh
# pictures.sh — graphs as the view lists them (one graph per cond body
# instance, nested bodies under their own), `dump dot` (Graphviz DOT of a
# compile's graphs, rendered by Debian's dot when it is installed) and
# `info timeline` (one row per symbol across the events), compared with the
# exact text (harness: tests/lib/transcript.sh).
NAME=pictures
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
root=$(cd "${SHAPEDB_TESTS:-$(dirname "$0")/..}/.." && pwd)

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


# seed004.lua: seed 004's nested cond: x [s0, s1] lifted two levels down
cat > "$work/seed004.lua" <<'LUA'
local function f(x)
  local function true_f()
    local function true_f_inner() return x:sin() end
    local function false_f_inner() return x:cos() end
    return torch.cond(x:sum():gt(0), true_f_inner, false_f_inner)
  end
  local function false_f() return x:cos() end
  return torch.cond(x:sum():gt(0), true_f, false_f)
end
local g = torch.compile(f, { backend = "eager", dynamic = true })
return g(shapedb.tensor{3, 4})
LUA

# nz.lua: nonzero under inductor: u0 bound, renamed into by the retrace
# (u1 -> u0) and by lowering's re-propagation (u3 -> u0), defined by buf1
cat > "$work/nz.lua" <<'LUA'
local function model(x)
  local idx = x:nonzero()
  torch._check_is_size(idx:size(0))
  return idx:sum()
end
local f = torch.compile(model, { backend = "inductor" })
local out = f(shapedb.tensor{5, 2})
return out
LUA

run --batch -x run -x 'dump dot -' seed004.lua
sed -n '/^digraph/,/^}/p' "$tmp/got" > "$tmp/dot"
cp "$tmp/dot" "$tmp/got"
want <<'EOF'
digraph shapedb {
  compound=true;
  graph [fontname="monospace", fontsize=11];
  node [shape=box, fontname="monospace", fontsize=10];
  edge [fontname="monospace", fontsize=9];
  subgraph cluster_c1 {
    label="compile 1 (f)";
    subgraph cluster_c1_g0 {
      label="trace";
      c1_g0_n0 [label="s0: \"Sym(s0)\"\l", style=rounded];
      c1_g0_n1 [label="s1: \"Sym(s1)\"\l", style=rounded];
      c1_g0_n2 [label="L_x_: \"f32[s0, s1]\"\l", style=rounded];
      c1_g0_n3 [label="sum_1: \"f32[]\" = l_x_.sum()\l"];
      c1_g0_n4 [label="gt: \"b8[]\" = sum_1.gt(0)\l"];
      c1_g0_n5 [label="cond_true_0 = self.cond_true_0\l"];
      c1_g0_n6 [label="cond_false_0 = self.cond_false_0\l"];
      c1_g0_n7 [label="cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, s1))\l"];
      c1_g0_n8 [label="getitem: \"f32[s0, s1]\" = cond[0]\l"];
      c1_g0_n9 [label="return (getitem,)\l", shape=plain];
      subgraph cluster_c1_g1 {
        label="trace > cond.true_branch";
        c1_g1_n0 [label="s0: \"Sym(s0)\"\l", style=rounded];
        c1_g1_n1 [label="s1: \"Sym(s1)\"\l", style=rounded];
        c1_g1_n2 [label="l_x_: \"f32[s0, s1]\"\l", style=rounded];
        c1_g1_n3 [label="sum_1: \"f32[]\" = l_x_.sum()\l"];
        c1_g1_n4 [label="gt: \"b8[]\" = sum_1.gt(0)\l"];
        c1_g1_n5 [label="cond_true_0 = self.cond_true_0\l"];
        c1_g1_n6 [label="cond_false_0 = self.cond_false_0\l"];
        c1_g1_n7 [label="cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, s1))\l"];
        c1_g1_n8 [label="getitem: \"f32[s0, s1]\" = cond[0]\l"];
        c1_g1_n9 [label="return (getitem,)\l", shape=plain];
        subgraph cluster_c1_g2 {
          label="trace > cond.true_branch > cond.true_branch";
          c1_g2_n0 [label="s0: \"Sym(s0)\"\l", style=rounded];
          c1_g2_n1 [label="s1: \"Sym(s1)\"\l", style=rounded];
          c1_g2_n2 [label="l_x_: \"f32[s0, s1]\"\l", style=rounded];
          c1_g2_n3 [label="sin: \"f32[s0, s1]\" = l_x_.sin()\l"];
          c1_g2_n4 [label="return (sin,)\l", shape=plain];
        }
        subgraph cluster_c1_g3 {
          label="trace > cond.true_branch > cond.false_branch";
          c1_g3_n0 [label="s0: \"Sym(s0)\"\l", style=rounded];
          c1_g3_n1 [label="s1: \"Sym(s1)\"\l", style=rounded];
          c1_g3_n2 [label="l_x_: \"f32[s0, s1]\"\l", style=rounded];
          c1_g3_n3 [label="cos: \"f32[s0, s1]\" = l_x_.cos()\l"];
          c1_g3_n4 [label="return (cos,)\l", shape=plain];
        }
      }
      subgraph cluster_c1_g4 {
        label="trace > cond.false_branch";
        c1_g4_n0 [label="s0: \"Sym(s0)\"\l", style=rounded];
        c1_g4_n1 [label="s1: \"Sym(s1)\"\l", style=rounded];
        c1_g4_n2 [label="l_x_: \"f32[s0, s1]\"\l", style=rounded];
        c1_g4_n3 [label="cos: \"f32[s0, s1]\" = l_x_.cos()\l"];
        c1_g4_n4 [label="return (cos,)\l", shape=plain];
      }
    }
  }
    c1_g0_n2 -> c1_g0_n3;
    c1_g0_n3 -> c1_g0_n4;
    c1_g0_n4 -> c1_g0_n7;
    c1_g0_n5 -> c1_g0_n7;
    c1_g0_n6 -> c1_g0_n7;
    c1_g0_n2 -> c1_g0_n7;
    c1_g0_n0 -> c1_g0_n7;
    c1_g0_n1 -> c1_g0_n7;
    c1_g0_n7 -> c1_g0_n8;
    c1_g0_n8 -> c1_g0_n9;
    c1_g1_n2 -> c1_g1_n3;
    c1_g1_n3 -> c1_g1_n4;
    c1_g1_n4 -> c1_g1_n7;
    c1_g1_n5 -> c1_g1_n7;
    c1_g1_n6 -> c1_g1_n7;
    c1_g1_n2 -> c1_g1_n7;
    c1_g1_n0 -> c1_g1_n7;
    c1_g1_n1 -> c1_g1_n7;
    c1_g1_n7 -> c1_g1_n8;
    c1_g1_n8 -> c1_g1_n9;
    c1_g0_n0 -> c1_g1_n0 [style=dashed, label="lifted"];
    c1_g0_n1 -> c1_g1_n1 [style=dashed, label="lifted"];
    c1_g0_n2 -> c1_g1_n2 [style=dashed, label="lifted"];
    c1_g2_n2 -> c1_g2_n3;
    c1_g2_n3 -> c1_g2_n4;
    c1_g1_n0 -> c1_g2_n0 [style=dashed, label="lifted"];
    c1_g1_n1 -> c1_g2_n1 [style=dashed, label="lifted"];
    c1_g1_n2 -> c1_g2_n2 [style=dashed, label="lifted"];
    c1_g3_n2 -> c1_g3_n3;
    c1_g3_n3 -> c1_g3_n4;
    c1_g1_n0 -> c1_g3_n0 [style=dashed, label="lifted"];
    c1_g1_n1 -> c1_g3_n1 [style=dashed, label="lifted"];
    c1_g1_n2 -> c1_g3_n2 [style=dashed, label="lifted"];
    c1_g4_n2 -> c1_g4_n3;
    c1_g4_n3 -> c1_g4_n4;
    c1_g0_n0 -> c1_g4_n0 [style=dashed, label="lifted"];
    c1_g0_n1 -> c1_g4_n1 [style=dashed, label="lifted"];
    c1_g0_n2 -> c1_g4_n2 [style=dashed, label="lifted"];
}
EOF
check "dump dot: seed 004's nested cond as nested clusters, lifted inputs as dashed edges"

# Graphviz must render what we write: every script and every program here
rendered=0 failed="" total=0
for f in "$root"/scripts/*.lua "$work"/*.lua; do
  total=$((total + 1))
  (cd "$work" && "$SHAPEDB" -q --dot "$tmp/one.dot" "$f" > /dev/null 2>&1)
  if [ -s "$tmp/one.dot" ] && dot -Tsvg "$tmp/one.dot" -o "$tmp/one.svg" 2> "$tmp/dot.err" \
     && grep -q '<svg' "$tmp/one.svg"; then
    rendered=$((rendered + 1))
  else
    failed="$failed $(basename "$f")"
  fi
  rm -f "$tmp/one.dot" "$tmp/one.svg"
done
n=$((n + 1))
if [ -z "$failed" ] && [ "$rendered" -eq "$total" ] && [ "$total" -ge 8 ]; then
  echo "ok $n - dot -Tsvg renders --dot of every scenario ($rendered files)"
else
  echo "not ok $n - dot -Tsvg renders --dot of every scenario (failed:$failed)"
  sed 's/^/# /' "$tmp/dot.err"
fi

run -q --dot all.dot "$root/scripts/tour.lua"
grep -c '^  subgraph cluster_c' "$work/all.dot" > "$tmp/got"
grep 'label="compile' "$work/all.dot" >> "$tmp/got"
want <<'EOF'
3
    label="compile 1 (rows)";
    label="compile 2 (scale)";
    label="compile 3 (branch)";
EOF
check "--dot draws every compile of the run"

run --batch -x 'break unbacked' -x run -x 'info timeline ascii width=70' -x 'delete' -x continue \
    -x 'info timeline ascii width=70' -x 'goto 30' -x 'info timeline ascii width=40' nz.lua
want <<'EOF'
Breakpoint 1: unbacked
Starting program: nz.lua
Breakpoint 1, unbacked
event 5, phase trace, tracer trace, nz.lua:2 in model
  create_unbacked_symbol u0 [0, 10]
2	  local idx = x:nonzero()
  compile 1 (model) began at event 0
  tracer: - -> trace
  new symbol: u0 [0, 10]
timeline of compile 1 (model), events 0-9 (1 column = 1 event), cursor after event 5
         v    
u0       c==b-
c created  = pending  b bound  l lifted/bound in a tracer  r renamed (joined to the new name below)  g guard/assert  s replaced  d buffer  + other
Deleted all breakpoints.
event 59, nz.lua:7 in main chunk
  phase_end guards (model)
7	local out = f(shapedb.tensor{5, 2})
  phase: trace -> none
  tracer: trace -> -
  binding: u0: .size()[0] on %nonzero
  new symbol: u1 [0, 10]
  binding: u1: .size()[0] on %nonzero
  replacement: u1 -> u0 (rename_unbacked_to)
  renamed: u1 -> u0 (aot retrace)
  new symbol: u2 [0, 10]
  new symbol: u3 [0, 10]
  replacement: u3 -> u0 (rename_unbacked_to)
  renamed: u3 -> u0 (process_kernel re-propagation)
  buffer: buf1 (MultiOutput for nonzero) defines {u0}
  ... and 2 more changes since the last stop (see `info` for the state)
[program finished: 60 events in this run]
timeline of compile 1 (model), events 0-59 (1 column = 1 event), cursor after event 59
                                                               v
u1                            c==b-sr--------------------------|
u2                                  :           c--------------|
u3                                  :               c=sr-------|
u0       c==b------l----------------r------------------r-d-----|
c created  = pending  b bound  l lifted/bound in a tracer  r renamed (joined to the new name below)  g guard/assert  s replaced  d buffer  + other
event 30, phase aot, nz.lua:2 in model
  pending_changed {}
2	  local idx = x:nonzero()
  phase: none -> aot
  undo replacement: u1 -> u0 (rename_unbacked_to)
  undo renamed: u1 -> u0 (aot retrace)
  undo new symbol: u2 [0, 10]
  undo new symbol: u3 [0, 10]
  undo replacement: u3 -> u0 (rename_unbacked_to)
  undo renamed: u3 -> u0 (process_kernel re-propagation)
  undo buffer: buf1 (MultiOutput for nonzero) defines {u0}
  undo binding check ok nonzero: {u0} defined by u0
  undo guards installed: 0
timeline of compile 1 (model), events 0-59 (1 column = 2 events), cursor after event 30
                   v              
u1               cbsr-------------
u2                 |:     c-------
u3                 |:       cr----
u0    c=b--l-------|r--------rd---
c created  = pending  b bound  l lifted/bound in a tracer  r renamed (joined to the new name below)  g guard/assert  s replaced  d buffer  + other
[exit 0]
EOF
check "info timeline: creation, pending span, binding, lift, renamings joined, the buffer, the cursor; compressed to the width"

(LC_ALL= LC_CTYPE= LANG=C.UTF-8; export LC_ALL LC_CTYPE LANG
 run --batch -x run -x 'info timeline width=70' nz.lua)
sed -n '/^timeline/,/^. created/p' "$tmp/got" > "$tmp/tl"
cp "$tmp/tl" "$tmp/got"
want <<'EOF'
timeline of compile 1 (model), events 0-59 (1 column = 1 event), cursor after event 59
                                                               ▼
u1                            ●══◆─≡╮──────────────────────────┃
u2                                  │           ●──────────────┃
u3                                  │               ●═≡╮───────┃
u0       ●══◆──────↳────────────────╰──────────────────╰─■─────┃
● created  ═ pending  ◆ bound  ↳ lifted/bound in a tracer  ╮ renamed (joined to the new name below)  ▪ guard/assert  ≡ replaced  ■ buffer  • other
EOF
check "info timeline on a UTF-8 locale draws with box characters"

run --batch -x 'dump dot x.dot' -x run -x 'dump dot /nonexistent/dir/x.dot' -x 'dump dot' \
    -x 'dump dot a b' -x 'info timeline bogus' nz.lua
sed -n '/^\[program finished/,$p' "$tmp/got" > "$tmp/e"
head -1 "$tmp/got" > "$tmp/e0"
cat "$tmp/e0" "$tmp/e" > "$tmp/got"
want <<'EOF'
dump dot: x.dot: no graph nodes at this step
[program finished: 60 events in this run]
dump dot: /nonexistent/dir/x.dot: No such file or directory
usage: dump dot FILE [all]
dump dot: expected `all` after the file name, not 'b'
info timeline: unknown option 'bogus' (ascii, width=N)
[exit 1]
EOF
check "dump dot and info timeline: bad arguments and unwritable files are errors"


# recomp.lua: one function compiled three times (static, then two guards)
cat > "$work/recomp.lua" <<'LUA'
local function model(x, y)
  if x:size(0) > 3 then return x:sum() + y:sum() end
  return x:sum()
end
local f = torch.compile(model, { backend = "aot_eager" })
f(shapedb.tensor{5, 3}, shapedb.tensor{5})
f(shapedb.tensor{2, 3}, shapedb.tensor{2})
f(shapedb.tensor{7, 3}, shapedb.tensor{7})
LUA

run --batch -x run -x 'report html out' -x 'report html' -x 'report html /proc/no/such' recomp.lua
sed -n '/^\[program finished/,$p' "$tmp/got" > "$tmp/r"
cp "$tmp/r" "$tmp/got"
want <<'EOF'
[program finished: 104 events in this run]
Wrote out/index.html and 3 compile pages (open it in a browser).
report html: which directory? (report html DIR)
report html: /proc/no/such: No such file or directory
[exit 1]
EOF
check "report html DIR writes an index and a page per compile; a missing or unwritable DIR is an error"

(cd "$work/out" && ls; grep -o '<tr><td><a href="compile-[0-9].html">[0-9]</a></td><td class="m">model</td><td>[0-9-]*</td>' index.html
 grep -A3 'Guard set against' compile-3.html; grep -c '<details><summary><code>' compile-2.html) > "$tmp/got"
want <<'EOF'
compile-1.dot
compile-1.html
compile-1.svg
compile-2.dot
compile-2.html
compile-2.svg
compile-3.dot
compile-3.html
compile-3.svg
index.html
<tr><td><a href="compile-1.html">1</a></td><td class="m">model</td><td>0-30</td>
<tr><td><a href="compile-2.html">2</a></td><td class="m">model</td><td>31-66</td>
<tr><td><a href="compile-3.html">3</a></td><td class="m">model</td><td>67-103</td>
<p>Guard set against compile <a href="compile-2.html">2</a>:</p>
<pre><del>- 2 &lt;= L['x'].size()[0] and L['x'].size()[0] &lt;= 3</del>
<ins>+ 4 &lt;= L['x'].size()[0]</ins>
</pre>
1
EOF
check "the report: compiles with their events, the recompile's guard diff, a symbol's explain"

run -q --html tour "$root/scripts/tour.lua"
(cd "$work/tour" && ls *.html && grep -o '<title>u0 [a-z]*, event [0-9]*</title>' compile-1.html) > "$tmp/got"
want <<'EOF'
compile-1.html
compile-2.html
compile-3.html
index.html
<title>u0 created, event 5</title>
<title>u0 bound, event 8</title>
<title>u0 lifted, event 15</title>
EOF
check "--html writes the report of a whole run"

# The report of a saved trace is the live run's report, page for page
run -q --record tour.sdbtrace --html live "$root/scripts/tour.lua"
run --replay tour.sdbtrace --html replayed
(cd "$work" && for f in live/*.html; do cmp "$f" "replayed/${f#live/}" && echo "same ${f#live/}"; done
 grep -o '<title>[^<]*</title>' replayed/index.html | sed "s|$root|ROOT|") > "$tmp/got" 2>&1
want <<'EOF'
same compile-1.html
same compile-2.html
same compile-3.html
same index.html
<title>shapedb report: ROOT/scripts/tour.lua</title>
EOF
check "--html on a saved trace writes the live run's report, page for page"

# The report of an imported TORCH_TRACE log (read from ../shared, never
# copied): compile ids as PyTorch writes them, the log's status and failure,
# the logged graphs and code, the installed guards it logged.
LOGS=${SHAPEDB_SHARED:-$root/../shared}/examples/torch_trace
run --replay "$LOGS/tlparse_links.log" --html log/links
run --replay "$LOGS/tlparse_comp_failure.log" --html log/failure
(cd "$work/log/links" && ls
 grep -o '<tr><td><a href="compile-[0-9]*.html">[^<]*</a></td><td class="m">[^<]*<span class="muted">([^)]*)</span>' index.html
 grep -o '<summary>[a-z_]* <span class="muted">(log line [0-9]*)</span>' compile-1.html
 grep -A3 '<h2>Installed guard set' compile-1.html
 cd ../failure
 grep -o '<span class="bad">[^<]*</span>' index.html compile-1.html
 grep -A2 '<h2 class="bad">Failure' compile-1.html
 grep -c '<h2>Graphs</h2>' compile-1.html) > "$tmp/got" 2>&1
want <<'EOF'
compile-1.html
index.html
<tr><td><a href="compile-1.html">[0/0]</a></td><td class="m">forward <span class="muted">(tmp.py:7)</span>
<summary>dynamo_output_graph <span class="muted">(log line 5)</span>
<summary>aot_forward_graph <span class="muted">(log line 21)</span>
<summary>inductor_post_grad_graph <span class="muted">(log line 32)</span>
<summary>inductor_output_code <span class="muted">(log line 43)</span>
<summary>dynamo_guards <span class="muted">(log line 128)</span>
<summary>dynamo_cpp_guards_str <span class="muted">(log line 132)</span>
<h2>Installed guard set (13)</h2>
<p class="muted">From the log's <code>dynamo_cpp_guards_str</code>, sorted.</p>
<pre>DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None
GLOBAL_STATE: ___check_global_state()
index.html:<span class="bad">failed: BackendCompilerFailed</span>
compile-1.html:<span class="bad">failed</span>
<h2 class="bad">Failure</h2>
<pre>BackendCompilerFailed: backend='broken_backend' raised:
RuntimeError: broken backend</pre>
0
EOF
check "--html on an imported log: compile ids, the log's status and failure, its graphs and installed guards"

# The pages open in headless Chromium with no console errors; the
# screenshots are kept in tests/out/ for a person to look at.
shots="$root/tests/out"
mkdir -p "$shots"
browser_ok=0 browser_n=0
for page in "$work/out/index.html" "$work/out/compile-3.html" "$work/tour/compile-1.html" \
            "$work/log/links/index.html" "$work/log/links/compile-1.html"; do
  browser_n=$((browser_n + 1))
  shot="$shots/report-$browser_n.png"
  rm -f "$shot"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/chromium" --enable-logging=stderr --v=0 --hide-scrollbars \
    --window-size=1280,1400 --screenshot="$shot" "file://$page" > "$tmp/chromium.out" 2>&1
  if [ -s "$shot" ] && ! grep -E 'CONSOLE|Uncaught|Not allowed to load' "$tmp/chromium.out" > /dev/null; then
    browser_ok=$((browser_ok + 1))
  else
    sed 's/^/# /' "$tmp/chromium.out" | grep -v dbus | head -20
  fi
done
n=$((n + 1))
if [ "$browser_ok" -eq "$browser_n" ]; then
  echo "ok $n - the report opens in headless Chromium with no console errors (screenshots in tests/out/)"
else
  echo "not ok $n - the report opens in headless Chromium with no console errors ($browser_ok of $browser_n)"
fi

echo "1..$n"
