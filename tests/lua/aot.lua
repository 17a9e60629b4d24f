-- aot.lua — the phases after tracing (seeds 000, 002, 003): a fresh fake
-- mode with re-fakified inputs, the retrace that renames fresh unbacked
-- symbols back, metadata analysis leaving nothing pending, a guard taken in
-- the aot phase joining the one guard set, lowering with its binding
-- invariant and wrapper code, and the guard cache with recompiles.
local t = require("tap")
local T = shapedb.tensor

local function events_since(mark) return shapedb.events(false, mark) end
local function count(list, pat)
  local n = 0
  for _, e in ipairs(list) do if e:find(pat) then n = n + 1 end end
  return n
end
local function index_of(list, pat, from)
  for i = from or 1, #list do if list[i]:find(pat) then return i end end
end

-- 1. phases in seed 002's order, a fresh mode, the same s symbols back
do
  local mark = shapedb.event_count()
  local c = torch.compile(function(x, y) return x:sum() + y:sum() end, { backend = "aot_eager", dynamic = true, name = "f1" })
  c(T{4, 3}, T{5})
  local ev = events_since(mark)
  local phases = {}
  for _, e in ipairs(ev) do
    local p = e:match("^phase_start (%a+)")
    if p then phases[#phases + 1] = p end
  end
  t.is(table.concat(phases, " "), "trace aot guards", "trace, then aot-compile, then the guards are installed")
  t.ok(index_of(ev, "^fake_mode_created #%d+ %(fresh%)$"), "aot starts a fresh fake mode")
  t.is(ev[index_of(ev, "^refakified L%['x'%]")], "refakified L['x']: f32[s0, s1]", "re-fakified x has the same symbols")
  t.is(ev[index_of(ev, "^refakified L%['y'%]")], "refakified L['y']: f32[s2]", "and y")
  t.is(count(ev, "^create_symbol"), 3, "no new backed symbols were created for the fresh mode")
  local aot = c.entries[1].trace:aot_graph()
  t.has(aot, 'def forward(self, arg0_1: "Sym(s0)", arg1_1: "Sym(s1)", arg2_1: "f32[s0, s1]", arg3_1: "Sym(s2)", arg4_1: "f32[s2]"):',
    "the aot graph takes the same symbols")
  t.has(aot, 'sum_1: "f32[]" = torch.ops.aten.sum.dim_IntList(arg2_1);  arg2_1 = None', "and aten ops")
end

-- 2. the freshness problem: an input mutated during the trace is
--    re-fakified as it was before (seed 000), and the mutation functionalized
do
  local mark = shapedb.event_count()
  local c = torch.compile(function(x) x:unsqueeze_(0); return x:sum() end, { backend = "aot_eager", dynamic = true, name = "f2" })
  c(T{6})
  local ev = events_since(mark)
  local traced = c.entries[1].trace:graph()
  t.has(traced, 'unsqueeze_: "f32[1, s0]" = l_x_.unsqueeze_(0)', "at the end of the trace, x looks like f32[1, s0]")
  t.is(ev[index_of(ev, "^refakified L%['x'%]")], "refakified L['x']: f32[s0]", "but aot re-fakifies it fresh: f32[s0]")
  local aot, mutations = c.entries[1].trace:aot_graph()
  t.has(aot, 'unsqueeze: "f32[1, s0]" = torch.ops.aten.unsqueeze.default(arg1_1, 0)', "the in-place op becomes out-of-place")
  t.has(aot, "copy_ = torch.ops.aten.copy_.default(arg1_1, unsqueeze)", "and the input mutation is copied back")
  t.is(mutations, "input x mutated in place by unsqueeze_ (metadata mutation)\n", "recorded as metadata")
end

-- 3. nonzero retraced as u1 and renamed to u0; u0's replacement kept;
--    metadata analysis leaves nothing pending and renames nothing
do
  local mark = shapedb.event_count()
  local function f(x)
    local idx = x:nonzero()
    torch._check(idx:size(0):eq(x:size(0)))   -- a fact about u0: u0 -> s0
    return idx:sum()
  end
  local c = torch.compile(f, { backend = "aot_eager", dynamic = true, name = "f3" })
  c(T{5})
  local ev = events_since(mark)
  local aot_start = index_of(ev, "^phase_start aot")
  t.ok(index_of(ev, "^replacement_added u0 %-> s0"), "the trace learned u0 -> s0")
  local ix = index_of(ev, "^create_unbacked_symbol u1", aot_start)
  t.ok(ix, "the aot retrace allocates u1 for nonzero")
  t.is(ev[index_of(ev, "^renamed", aot_start)], "renamed u1 -> u0 (aot retrace)", "rebind_unbacked renames it to u0")
  t.is(count(ev, "^replacement_added u0"), 1, "u0's replacement is not clobbered")
  t.has(c.entries[1].trace:aot_graph(), 'nonzero: "i64[s0, 1]" = torch.ops.aten.nonzero.default(arg1_1)',
    "so u1 reads as s0 in the aot graph")
  local meta = index_of(ev, "^note: metadata analysis")
  t.ok(meta and meta > ix, "metadata analysis runs after the retrace")
  local after = {}
  for i = meta, index_of(ev, "^phase_end aot") do after[#after + 1] = ev[i] end
  t.is(count(after, "^create_unbacked_symbol u2"), 1, "metadata analysis allocates a symbol of its own")
  t.is(count(after, "^pending_changed"), 0, "under ignore_fresh_unbacked_symbols: nothing pending")
  t.is(count(after, "^renamed"), 0, "and no renamings")
end

-- 4. aot decides what the trace decided (#19 items 6, 10): view/reshape in
-- make_fx run the same meta as Dynamo's fake tensors, so the aot phase
-- takes no guard of its own, and the trace's unbacked decisions carry over
-- through the renaming (u1 -> u0) instead of failing as data-dependent
do
  local c = torch.compile(function(x) return x:reshape(2, -1) end, { backend = "aot_eager", dynamic = true, name = "f4" })
  c(T{6})
  local recs = c.entries[1].trace:guard_records()
  local got = {}
  for _, r in ipairs(recs) do got[#got + 1] = r.text .. " [" .. r.phase .. "]" end
  t.is(table.concat(got, "\n"), table.concat({
    "L['x'].size()[0] % 2 == 0 [trace]",
    "2 <= L['x'].size()[0] [trace]",
  }, "\n"), "reshape(2, -1): infer_size's guard from the trace, none from aot (no s0 != 2)")
  local scenarios = {
    { "nonzero():reshape(-1)", function(x) return x:nonzero():reshape(-1) end, { T{4, 3} }, "i64[2*u0]" },
    { "cat of unbacked-sized tensors, viewed flat", function(x, y)
        return torch.cat({ x:nonzero(), y:nonzero() }):view(-1) end, { T{4, 3}, T{5, 3} }, "i64[2*u0 + 2*u1]" },
    { "(x + y):view(n, -1)", function(x, y) return (x + y):view(x:size(0), -1) end, { T{3, 4}, T{3, 4} }, "f32[s0, s1]" },
    { "view(-1, n) of [s0, s1]", function(x) return x:view(-1, x:size(1)) end, { T{3, 4} }, "f32[s0, s1]" },
    { "flatten then split", function(x) return x:reshape(-1):view(x:size(0), x:size(1), 1) end, { T{3, 4} }, "f32[s0, s1, 1]" },
  }
  for _, sc in ipairs(scenarios) do
    local name, fn, args, meta = sc[1], sc[2], sc[3], sc[4]
    local phases, metas = {}, {}
    for _, backend in ipairs({ "eager", "aot_eager", "inductor" }) do
      local cc = torch.compile(fn, { backend = backend, dynamic = true })
      local ok, out = pcall(cc, table.unpack(args))
      metas[#metas + 1] = ok and out:meta() or tostring(out):match("^[^\n]*")
      for _, r in ipairs(ok and cc.entries[1].trace:guard_records() or {}) do
        if r.phase ~= "trace" then phases[#phases + 1] = backend .. ": " .. r.text .. " [" .. r.phase .. "]" end
      end
    end
    t.is(table.concat(metas, " | "), table.concat({ meta, meta, meta }, " | "),
      name .. ": eager, aot_eager and inductor agree")
    t.is(table.concat(phases, "\n"), "", name .. ": no guard beyond the trace's")
  end
end

-- 4b. cond inside wrap under aot backends (#19 item 7): wrap is inlined,
-- the cond keeps its branches' inputs and outputs, each branch retraced
-- from a clean interpreter state
do
  local function g(x)
    return torch.wrap(function(y)
      local n = y:nonzero():float()
      return torch.cond(n:size(0):gt(2), function() return n:sum(0) end, function() return n:sum(0) * 2 end)
    end, x)
  end
  for _, backend in ipairs({ "aot_eager", "inductor" }) do
    local c = torch.compile(g, { backend = backend })
    t.is(c(T{4, 3}):meta(), "f32[2]", backend .. ": cond inside wrap runs")
    local aot = c.entries[1].trace:aot_graph()
    t.has(aot, 'cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (_to_copy, sym_size_int));',
      backend .. ": the cond passes the lifted tensor and its size")
    t.has(aot, '    class false_graph_0(torch.nn.Module):\n        def forward(self, arg0_1: "f32[u0, 2]", arg1_1: "Sym(u0)"):\n' ..
      '            sum_1: "f32[2]" = torch.ops.aten.sum.dim_IntList(arg0_1, 0);  arg0_1 = None\n' ..
      '            mul: "f32[2]" = torch.ops.aten.mul.Tensor(sum_1, 2);  sum_1 = None\n            return (mul,)',
      backend .. ": each branch has its inputs and its return")
  end
end

-- 4c. an error in the aot phase names the user-visible symbol: aot's
-- nonzero allocates u1, renamed to the trace's u0 (SymNode.expr applies the
-- replacement), so the data-dependent error a fake kernel raises while aot
-- replays it reads u0, created in the trace phase
do
  local runs = 0
  local k = torch.library.custom_op("aotfid::rows", function(x) return x:clone() end)
  k:register_fake(function(x)
    runs = runs + 1
    if runs > 1 and x:size(0) > 2 then return x:clone() end
    return x:clone()
  end)
  local c = torch.compile(function(x) return torch.ops.aotfid.rows(x:nonzero()) end, { backend = "aot_eager" })
  local ok, e = pcall(c, T{4, 3})
  e = tostring(e)
  t.ok(not ok, "aot's replay of the kernel guards on the unbacked size")
  t.has(e, "Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: u0)",
    "the expression names u0, not aot's u1")
  t.like(e, "u0 %[0, 12%], created by nonzero at [^\n]* %(trace phase%), size%-like", "u0 as the trace made it")
  t.has(e, "1. torch._check(x:size(0):gt(2))", "the kernel's x:size(0) holds it (through the renaming)")
end

-- 5. lowering nonzero and item: buffers, definitions, wrapper lines
do
  local function f(x, y)
    local idx = x:nonzero()
    torch._check_is_size(idx:size(0))
    local n = y:sum():long():item()
    torch._check(n:ge(1))
    return idx:sum() + y:sum() * n
  end
  local mark = shapedb.event_count()
  local c = torch.compile(f, { backend = "inductor", dynamic = true, name = "f5" })
  c(T{6}, T{7})
  local tr = c.entries[1].trace
  t.is(table.concat(tr:buffers(), "\n"), table.concat({
    "buf0 FallbackKernel for nonzero",
    "buf1 MultiOutput for nonzero defines u0",
    "buf2 Reduction for sum_1",
    "buf3 Pointwise for _to_copy",
    "buf4 DynamicScalar for _local_scalar_dense defines u1",
    "buf5 Reduction for sum_2",
    "buf6 Reduction for sum_3",
    "buf7 Pointwise for mul",
    "buf8 Pointwise for add",
  }, "\n"), "nonzero: FallbackKernel + MultiOutput; item: DynamicScalar")
  local w = tr:wrapper()
  t.has(w, "    buf0 = torch.ops.aten.nonzero.default(arg1_1)  # FallbackKernel\n    buf1 = buf0  # MultiOutput i64[u0, 1]\n    u0 = buf1.size(0)\n",
    "u0 is bound where it becomes known: u0 = buf1.size(0)")
  t.has(w, "    u0 = buf1.size(0)\n    if not (u0 >= 0):\n        raise RuntimeError(\"Runtime assertion failed for expression u0 >= 0 on node 'ge_1'\")\n",
    "with its runtime assert right after")
  t.has(w, "    u1 = buf3.item()  # DynamicScalar buf4\n    buf4 = None\n", "u1 = buf3.item()")
  t.has(w, "    buf7 = pointwise_mul(buf6, u1)  # Pointwise f32[]\n", "symbols are used by name")
  local ev = events_since(mark)
  t.ok(index_of(ev, "^renamed u%d+ %-> u0 %(process_kernel re%-propagation%)$"),
    "re-propagating the FallbackKernel allocates again and is renamed back")
  t.ok(index_of(ev, "^binding_check ok nonzero: {u0} defined by u0$"), "the binding invariant holds for nonzero")
  t.ok(index_of(ev, "^binding_check ok _local_scalar_dense: {u1} defined by u1$"), "and for item")
end

-- 6. a planted missing binding is caught by the invariant
do
  local c = torch.compile(function(x) return x:nonzero():sum() end,
    { backend = "inductor", name = "f6", plant_missing_binding = "nonzero" })
  local err = t.error_of(function() c(T{6}) end)
  t.has(err, "AssertionError: failed {} >= {u0} (inductor >= fx)\nfx node is: nonzero: \"i64[u0, 1]\" = torch.ops.aten.nonzero.default(arg0_1)",
    "PyTorch's invariant message, naming the node")
  t.has(err, "unbacked symbol u0 bound by node 'nonzero' is not defined by the buffers its lowering produced",
    "and the symbol")
  t.has(err, "  buf0 = FallbackKernel(...)  # defines {}\n  buf1 = MultiOutput(...)  # defines {}", "and the buffers")
  local ev = shapedb.events(false)
  t.ok(ev[#ev - 1]:find("^error AssertionError"), "an error event")
  t.is(ev[#ev], "phase_end lower (f6)", "and the lowering phase ends")
end

-- 7. two memoized nonzero calls: re-propagation gets a new symbol; a
--    deferred assert says the two agree (seed 003's last point)
do
  local function f(x)
    local a = x:nonzero()
    local b = x:nonzero()       -- a memo hit in the trace: the same u0
    return a:sum() + b:sum()
  end
  local c = torch.compile(f, { backend = "inductor", dynamic = true, name = "f7" })
  c(T{5})
  local tr = c.entries[1].trace
  t.is(table.concat(tr:bindings(), "\n"), "nonzero: u0: .size()[0]", "only the first nonzero binds u0")
  local w = tr:wrapper()
  local sym = w:match("buf3 = buf2  # MultiOutput i64%[u0, 1%]\n    (u%d+) = buf3%.size%(0%)")
  t.ok(sym and sym ~= "u0", "the second FallbackKernel defines a fresh symbol")
  t.has(w, string.format("    if not (u0 == %s):\n        raise RuntimeError(\"Runtime assertion failed for expression Eq(u0, %s) (a memoized nonzero call and its re-propagation agree)\")",
    sym or "?", sym or "?"), "and a deferred assert that it equals u0")
end

-- 8. guards: a hit reuses, a miss reports every failing guard and recompiles
do
  local mark = shapedb.event_count()
  local c = torch.compile(function(x, y) return x:sum() + y:sum() end, { backend = "eager", dynamic = true, name = "f8" })
  c(T{4, 2}, T{4, 2})
  c(T{6, 2}, T{6, 2})
  t.is(#c.entries, 1, "a hit reuses the entry")
  c(T{6, 2}, T{5, 1})
  t.is(#c.entries, 2, "a miss recompiles")
  local ev = events_since(mark)
  local id = c.entries[1].compile_id
  t.like(id, "^%d+/0$", "compile ids are frame/compile")
  t.is(c.entries[2].compile_id, id:gsub("/0$", "/1"), "the recompile is the next compile of the frame")
  t.is(ev[index_of(ev, "^guard_check ok")], "guard_check ok " .. id .. ": cache hit: reusing the compiled entry", "the hit")
  local reasons = "y.size()[0] == x.size()[0]; y.size()[1] == x.size()[1]; y.stride()[0] == x.size()[1]"
  t.is(ev[index_of(ev, "^guard_check FAILED")], "guard_check FAILED " .. id .. ": " .. reasons,
    "every failing guard is reported, L['x'] stripped to x")
  t.is(c.last_recompile, string.format(
    "Recompiling function f8 in %s\n    triggered by the following guard failure(s):\n    - %s: %s",
    c.where, id, reasons), "PyTorch's recompile message")
  local diff = shapedb.guards_diff(c.entries[1], c.entries[2])
  t.is(table.concat(diff, "\n"), table.concat({
    "- L['y'].size()[0] == L['x'].size()[0]",
    "- L['y'].size()[1] == L['x'].size()[1]",
    "- L['y'].stride()[0] == L['x'].size()[1]",
    "+ 2 <= L['y'].size()[0]",
  }, "\n"), "guards diff between the two entries (y's size-1 dim is now static)")
  local report = {}
  shapedb.report({ write = function(_, ...) for _, x in ipairs{...} do report[#report + 1] = x end end }, true)
  report = table.concat(report)
  t.has(report, "recompiled: f8 in " .. c.where .. "\n    triggered by the following guard failure(s):\n    - " ..
    id .. ": " .. reasons .. "\nguards diff against [" .. id .. "]:\n  - L['y'].size()[0] == L['x'].size()[0]\n",
    "the report says why the entry was compiled and diffs its guards, even quiet")
  -- a static compile becomes dynamic in the changed dim (automatic dynamic)
  local s = torch.compile(function(x) return x:sum() end, { backend = "eager", name = "f8s" })
  s(T{3}); s(T{5}); s(T{7})
  t.is(#s.entries, 2, "after one recompile the size is dynamic: no third compile")
  t.has(s.last_recompile, "tensor 'x' size mismatch at index 0. expected 3, actual 5", "the TENSOR_MATCH reason")
  local d = torch.compile(function(x) return x:sum() end, { backend = "eager", name = "f8d" })
  d(T{3}); d(T{3, dtype = "int64"})
  t.has(d.last_recompile, "tensor 'x' dtype mismatch. expected Float, actual Long", "dtype changes recompile too")
end

-- 9. higher-order ops through every phase: cond stays a cond (its branches
-- retraced into true_graph/false_graph), wrap is inlined by make_fx
do
  local function f(x)
    local out = torch.cond(x:sum():gt(0), function() return x:sin() end, function() return x:cos() end)
    return out
  end
  local c = torch.compile(f, { backend = "inductor", dynamic = true, name = "f9" })
  c(T{6})
  local tr = c.entries[1].trace
  local aot = tr:aot_graph()
  t.has(aot, 'true_graph_0 = self.true_graph_0\n        false_graph_0 = self.false_graph_0\n' ..
    '        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (arg1_1, arg0_1));',
    "cond under aot: the branches are subgraph attributes, the operands in Dynamo's order (l_x_, s0)")
  t.has(aot, '    class true_graph_0(torch.nn.Module):\n        def forward(self, arg0_1: "f32[s0]", arg1_1: "Sym(s0)"):\n' ..
    '            sin: "f32[s0]" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None', "the true branch retraced to aten")
  local w = tr:wrapper()
  t.has(w, "    buf2 = torch.cond(buf1, true_graph_0, false_graph_0, (arg1_1, s0))  # Conditional\n" ..
    "    buf3 = buf2[0]  # MultiOutput f32[s0]\n    return (buf3, )", "one MultiOutput per output, read by the getitem")

  local function g(x)
    local out = torch.wrap(function(y, k) return y:sum() + k end, x, x:size(0))
    return out
  end
  local cw = torch.compile(g, { backend = "inductor", dynamic = true, name = "f9w" })
  cw(T{6})
  t.has(cw.entries[1].trace:aot_graph(), 'def forward(self, arg0_1: "Sym(s0)", arg1_1: "f32[s0]"):\n' ..
    '        sum_1: "f32[]" = torch.ops.aten.sum.dim_IntList(arg1_1);  arg1_1 = None\n' ..
    '        add: "f32[]" = torch.ops.aten.add.Tensor(sum_1, arg0_1);  sum_1 = arg0_1 = None\n' ..
    '        return (add,)', "wrap's body is inlined into the aot graph, reading the operands' nodes")

  local function h(x)
    local out = torch.cond(x:sum():gt(0), function() return x:nonzero() end, function() return x:nonzero() end)
    return out
  end
  local ch = torch.compile(h, { backend = "inductor", name = "f9h" })
  ch(T{6})
  local wh = ch.entries[1].trace:wrapper()
  t.has(wh, "torch.cond(buf1, true_graph_0, false_graph_0, (arg0_1,))  # Conditional", "a one-operand tuple keeps its comma")
  t.like(wh, "    buf3 = buf2%[0%]  # MultiOutput i64%[(u%d+), 1%]\n    %1 = buf3%.size%(0%)\n",
    "the leaked unbacked size is defined by the cond's MultiOutput")
end

-- 10. select at an unbacked index: the storage offset u1 is computed before
-- the view needs it (DynamicSelectStorageOffset), so the invariant holds
do
  local c = torch.compile(function(x, i) return x:select(0, i:item()) end, { backend = "inductor", name = "f10" })
  c(T{5, 3}, T{dtype = "int64"})
  local w = c.entries[1].trace:wrapper()
  t.has(w, "    u0 = arg1_1.item()  # DynamicScalar buf0\n", "the index is a DynamicScalar")
  t.has(w, "    u1 = 0 + 3 * (u0 if u0 >= 0 else 5 + u0)  # DynamicSelectStorageOffset buf1\n" ..
    "    buf2 = reinterpret_tensor(arg0_1, (3, ), (1, ), u1)  # ReinterpretView\n",
    "the offset is defined first (a negative index counts from the end), then the view uses it")
end

t.done()
