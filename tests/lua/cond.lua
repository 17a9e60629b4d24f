-- cond.lua — seed 004's worked examples: nested subgraph tracers lifting
-- free tensors and symbols (symbols first), the shared-symbol case,
-- closures over SymInt / unbacked SymInt / a tensor with an unbacked shape,
-- cond outputs that leak unbacked symbols or differ in backed sizes, the
-- mutation and aliasing checks, autograd dispatch, wrap (with a SymInt
-- argument already bound), and torch.compile inside torch.export.
local t = require("tap")
local T = shapedb.tensor

local function last_graph() return shapedb._traces[#shapedb._traces].trace:graph() end
local function compile(fn, dynamic) return torch.compile(fn, { backend = "eager", dynamic = dynamic }) end
-- the `def forward(...)` line of class `cls` in a printed graph
local function signature(g, cls)
  local pat = "class " .. cls:gsub("_", "%%_") .. "%(torch%.nn%.Module%):\n%s*(def forward%b())"
  return g:match(pat)
end
local function events_matching(pat, from)
  local out = {}
  for _, e in ipairs(shapedb.events(false, from)) do if e:find(pat) then out[#out + 1] = e end end
  return out
end

-- 1. seed 004: x [s0, s1] used two levels down; each tracer lifts it and
--    binds its symbols right before it: gm(s0, s1, x), true_gm(s0, s1, x),
--    inner(s0, s1, x). cond then gives both branches one signature as
--    Dynamo's _merge_graph_inputs does: the parent proxies sorted by name
--    (l_x_ < s0 < s1), each a new placeholder replacing the lifted one (FX
--    names it l_x__1 while l_x_ is taken and prints `l_x__1 = l_x_`).
do
  local function f(x)
    local function true_f()
      local function true_f_inner() return x:sin() end
      local function false_f_inner() return x:cos() end
      return torch.cond(x:sum():gt(0), true_f_inner, false_f_inner)
    end
    local function false_f() return x:cos() end
    return torch.cond(x:sum():gt(0), true_f, false_f)
  end
  compile(f, true)(T{3, 4})
  local g = last_graph()
  t.is(signature(g, "GraphModule"), 'def forward(self, s0: "Sym(s0)", s1: "Sym(s1)", L_x_: "f32[s0, s1]")',
    "gm(s0, s1, x)")
  t.has(g, '    class cond_true_0(torch.nn.Module):\n        def forward(self, l_x_: "f32[s0, s1]", s0: "Sym(s0)", s1: "Sym(s1)"):\n' ..
    '            l_x__1 = l_x_\n            s0_1 = s0\n            s1_1 = s1\n',
    "true_gm(x, s0, s1): the lifted tensor's symbols are lifted too; merged in name order")
  t.has(g, '        class cond_true_0(torch.nn.Module):\n            def forward(self, l_x_: "f32[s0, s1]", s0: "Sym(s0)", s1: "Sym(s1)"):\n' ..
    '                l_x__1 = l_x_\n                s0_1 = s0\n                s1_1 = s1\n                sin: "f32[s0, s1]" = l_x__1.sin();  l_x__1 = None',
    "true_gm_inner(x, s0, s1) two levels down")
  t.has(g, 'cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, s1));  gt = cond_true_0 = cond_false_0 = l_x_ = s0 = s1 = None',
    "the cond call passes the lifted inputs as one tuple")
  t.has(g, 'cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x__1, s0_1, s1_1));',
    "the inner cond passes the middle body's replaced placeholders")
  t.has(g, '        getitem: "f32[s0, s1]" = cond[0];  cond = None\n        return (getitem,)', "and reads its output")
end

-- 2. three levels
do
  local function f(x)
    return torch.cond(x:sum():gt(0), function()
      return torch.cond(x:sum():gt(1), function()
        return torch.cond(x:sum():gt(2), function() return x:sin() end, function() return x:cos() end)
      end, function() return x:tan() end)
    end, function() return x:exp() end)
  end
  compile(f, true)(T{5})
  local g = last_graph()
  t.has(g, '            class cond_true_0(torch.nn.Module):\n                def forward(self, l_x_: "f32[s0]", s0: "Sym(s0)"):\n' ..
    '                    l_x__1 = l_x_\n                    s0_1 = s0\n                    sin: "f32[s0]" = l_x__1.sin();  l_x__1 = None',
    "three levels deep, still (x, s0)")
  local pushes = 0
  for _, e in ipairs(shapedb.events(false)) do if e:find("^tracer_push trace > cond%.true_branch > cond%.true_branch > cond%.true_branch$") then pushes = pushes + 1 end end
  t.is(pushes, 1, "the tracer stack shows the nesting")
end

-- 3. two tensors sharing a symbol: x1 [s0, s1], x2 [s1, s2]; s1 is lifted once.
--    The root binds each tensor's new symbols right before it (s0, s1, x1,
--    s2, x2); cond's merge sorts the lifted ones by name
do
  local function f(x1, x2)
    return torch.cond(x1:sum():gt(0), function() return x1:sum() + x2:sum() end,
                                      function() return x1:sum() - x2:sum() end)
  end
  compile(f, true)(T{2, 3}, T{3, 4})
  local g = last_graph()
  t.is(signature(g, "cond_true_0"),
    'def forward(self, l_x1_: "f32[s0, s1]", l_x2_: "f32[s1, s2]", s0: "Sym(s0)", s1: "Sym(s1)", s2: "Sym(s2)")',
    "s1 is bound once; the lifted inputs sorted by name")
  t.is(signature(g, "GraphModule"),
    'def forward(self, s0: "Sym(s0)", s1: "Sym(s1)", L_x1_: "f32[s0, s1]", s2: "Sym(s2)", L_x2_: "f32[s1, s2]")',
    "the root: each tensor's new symbols right before it")
  t.is(signature(g, "cond_false_0"), signature(g, "cond_true_0"), "both branches share one signature")
end

-- 4. closures over a SymInt, an unbacked SymInt and a tensor with an unbacked shape
do
  local function f(x)
    local function true_f()
      local c = x:size(0)
      local u = x:sum():long():item()
      local r = torch.zeros(u)
      local function inner_t() return r:sum() * c end
      local function inner_f() return r:sum() end
      return torch.cond(x:sum():gt(0), inner_t, inner_f)
    end
    return torch.cond(x:sum():gt(0), true_f, function() return x:sum() end)
  end
  compile(f, true)(T{4})
  local g = last_graph()
  t.is(signature(g, "cond_true_0"), 'def forward(self, l_x_: "f32[s0]", s0: "Sym(s0)")', "true_f lifts x")
  t.has(g, '            def forward(self, item: "Sym(u0)", zeros: "f32[u0]", s0_true_branch: "Sym(s0)"):',
    "inputs both inner branches need first (u0, r; named after the parent's proxies), then the true branch's own (the SymInt c), suffixed")
  t.has(g, 'cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (item, zeros, s0_1))',
    "u0 is found where it was created: item in the parent tracer; c = x:size(0) is x's s0")
  t.unlike(g, "%.size%(0%)", "x:size(0) reads the bound symbol: no size node")
end
do
  local function f(x)
    local v = x:sum():long():item()
    return torch.cond(x:sum():gt(0), function() return x * v end, function() return x * (v + 1) end)
  end
  compile(f, true)(T{4})
  local g = last_graph()
  t.is(signature(g, "cond_true_0"), 'def forward(self, item: "Sym(u0)", l_x_: "f32[s0]", s0: "Sym(s0)")',
    "an unbacked SymInt closure is lifted as the parent's proxy, item")
  t.has(g, 'cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (item, l_x_, s0))',
    "the parent passes the node it has, not a new sym_size_int")
  t.has(g, '            add: "Sym(u0 + 1)" = item_1 + 1;  item_1 = None', "v + 1 is computed in the branch from it")
end
do
  -- a closure over a compound SymInt is lifted as computed in the parent
  local function f(x)
    local c = x:size(0) - 2
    return torch.cond(x:sum():gt(0), function() return x:narrow(0, 0, c):sin() end, function() return x:narrow(0, 1, c):cos() end)
  end
  compile(f, true)(T{5})
  local g = last_graph()
  t.has(g, '        sub: "Sym(s0 - 2)" = s0 - 2\n', "c is computed in the parent")
  t.has(g, 'cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, sub))',
    "and lifted whole: sub, not its basic symbol")
  t.is(signature(g, "cond_true_0"), 'def forward(self, l_x_: "f32[s0]", s0: "Sym(s0)", sub: "Sym(s0 - 2)")',
    "the body takes it by the parent's name")
end

-- explicit operands are lifted as closures are (Dynamo's cond speculates
-- with automatic subgraph inputs): an operand only one branch uses is that
-- branch's own input
do
  local function f(x, y)
    return torch.cond(x:sum():gt(0), function(a, b) return a:sin() end, function(a, b) return b:cos() end, { x, y })
  end
  compile(f, true)(T{4}, T{4})
  local g = last_graph()
  t.is(signature(g, "cond_true_0"),
    'def forward(self, s0: "Sym(s0)", l_x__true_branch: "f32[s0]", l_y__false_branch: "f32[s0]")',
    "the operands become lifted inputs, each where a branch uses it (s0, duck-sized, both need)")
end

-- 5. outputs: equal backed shapes keep them; leaked unbacked shapes get a fresh symbol
do
  local mark = shapedb.event_count()
  local function f(x)
    return torch.cond(x:sum():gt(0), function() return x:sin() end, function() return x:cos() end)
  end
  local out = compile(f, true)(T{6})
  t.is(out:meta(), "f32[s0]", "equal backed shapes: the size is kept")
  t.is(#events_matching("^cond_output_symbol", mark), 0, "no fresh symbol")
end
do
  local mark = shapedb.event_count()
  local function f(x)
    return torch.cond(x:sum():gt(0), function() return x:nonzero() end, function() return x:nonzero() end)
  end
  local out = compile(f)(T{3})
  t.is(out:meta(), "i64[u2, 1]", "both branches leak an unbacked size: a fresh u2")
  t.is(table.concat(events_matching("^cond_output_symbol", mark), "\n"),
    "cond_output_symbol u2 [0, 3] (true branch u0, false branch u1: an unbacked symbol leaks out of a branch)",
    "with the union of the branches' ranges")
  local tr = shapedb._traces[#shapedb._traces].trace
  t.is(table.concat(tr:bindings(), "\n"), "cond: u2: [0].size()[0]", "bound on the cond node")
  t.is(#events_matching("^pending_changed {u0", mark), 0, "branch symbols are never pending (ignore_fresh_unbacked_symbols)")
end
do
  local function f(x)
    return torch.cond(x:sum():gt(0), function() return x:nonzero() end, function() return x:new_zeros(2, 2):long():t() end)
  end
  local out = compile(f)(T{3, 2})
  t.is(out:meta(), "i64[u1, 2]", "a leak in one branch is enough")
end
-- cond.py's _merge_output merges strides by stride order (_bound_stride):
-- dense outputs that are not contiguous are accepted, the merged strides
-- rebuilt over the merged sizes; mismatched orders and non-dense layouts
-- are PyTorch's errors
do
  local function strides(t)
    local s = {}
    for i = 0, t:dim() - 1 do s[#s + 1] = tostring(t:stride(i)) end
    return "(" .. table.concat(s, ", ") .. ")"
  end
  local out = compile(function(x)
    return torch.cond(x:sum():gt(0), function() return x:nonzero() end, function() return x:nonzero() end)
  end)(T{4, 3})
  t.is(out:meta() .. " " .. strides(out), "i64[u2, 2] (1, u2)", "nonzero's (1, u0) in both branches: merged as (1, u2)")
  out = compile(function(x)
    return torch.cond(x:sum():gt(0), function() return x:sin():t() end, function() return x:cos():t() end)
  end, true)(T{4, 3})
  t.is(out:meta() .. " " .. strides(out), "f32[s1, s0] (1, s1)", "transposed in both branches: the same dense layout")
  t.error_like(function()
    compile(function(x)
      return torch.cond(x:sum():gt(0), function() return x:sin():t() end, function() return x:t():contiguous() end)
    end)(T{4, 3})
  end, "RuntimeError: The sorted order of strides of the two branches' output doesn't match.this indicates the " ..
    "contiguousness of the two branches are different. True branch has stride (1, 3) but false branch has stride " ..
    "(4, 1).Consider using contiguous() to make the two branches have the same contiguousness.",
    "a transposed and a contiguous output: PyTorch's stride-order error")
  t.error_like(function()
    compile(function(x)
      return torch.cond(x:sum():gt(0), function() return x:sin():narrow(1, 0, 2) end,
                                       function() return x:cos():narrow(1, 0, 2) end)
    end)(T{4, 3})
  end, "RuntimeError: It seems one of cond's output stride is not a simple accumulative multiplication of sizes. " ..
    "This could be because cond returns a slice of a tensor, which is not dense in memory. True branch has size " ..
    "torch.Size([4, 2]), stride (3, 1) and false branch has size torch.Size([4, 2]) stride (3, 1). " ..
    "Hint: can call t.contiguous(). ", "a slice is not dense: PyTorch's error with both layouts")
  t.error_like(function()
    compile(function(x)
      return torch.cond(x:sum():gt(0), function() return x:nonzero() end, function() return x:new_zeros(2, 1):long() end)
    end)(T{3})
  end, "True branch has stride (1, u0) but false branch has stride (1, 1).",
    "(u0, 1) with strides (1, u0) against a contiguous (2, 1): the size-1 dim orders them differently, as in PyTorch")
end
do
  local mark = shapedb.event_count()
  local function f(x, y)
    return torch.cond(x:sum():gt(0), function() return x:sin(), 3 end, function() return y:cos(), 3 end)
  end
  local out, k = compile(f, true)(T{4}, T{6})
  t.is(out:meta(), "f32[u0]", "backed sizes that differ (s0, s1): a fresh unbacked u0")
  t.is(table.concat(events_matching("^cond_output_symbol", mark), "\n"),
    "cond_output_symbol u0 [2, int_oo] (true branch s0, false branch s1 differ)", "with the union of their ranges")
  t.is(math.type(k), "integer", "equal ints stay constants")
  t.is(k, 3, "with their value")
  local g = last_graph()
  t.is(signature(g, "cond_true_0"),
    'def forward(self, l_x__true_branch: "f32[s0]", s0_true_branch: "Sym(s0)", l_y__false_branch: "f32[s1]", s1_false_branch: "Sym(s1)")',
    "the true branch's own inputs, then the false branch's, each suffixed")
  t.has(g, table.concat({
    "        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, l_y_, s1));  gt = cond_true_0 = cond_false_0 = l_x_ = s0 = l_y_ = s1 = None",
    "        # u0: [0].size()[0]",
    "        getitem_1 = cond[0]",
    '        sym_size_int: "Sym(u0)" = torch.ops.aten.sym_size.int(getitem_1, 0);  getitem_1 = None',
    '        ge: "Sym(u0 >= 2)" = sym_size_int >= 2;  sym_size_int = None',
    "        _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, \"Runtime assertion failed for expression u0 >= 2 on node 'ge'\");  ge = _assert_scalar_default = None",
    '        getitem: "f32[u0]" = cond[0];  cond = None',
    "        return (getitem,)",
  }, "\n"), "u0 is bound on the cond node and asserted >= 2; the int is not a graph output")
  t.is(table.concat(shapedb._traces[#shapedb._traces].trace:bindings(), "\n"), "cond: u0: [0].size()[0]", "one binding")
end
do
  local function f(x)
    return torch.cond(x:sum():gt(0), function() return x:sum(), 0 end, function() return x:sum(), 1 end)
  end
  local _, flag = compile(f)(T{3})
  t.is(tostring(flag), "u0", "ints that differ become an unbacked int")
  local g = last_graph()
  t.has(g, '"Runtime assertion failed for expression u0 >= 0 on node \'ge\'"', "with a runtime assert u0 >= 0")
  t.has(g, '"Runtime assertion failed for expression u0 <= 1 on node \'le\'"', "and u0 <= 1")
end

-- 6. errors: structure, metadata, mutation (direct and through a view), aliasing
do
  local function run(tf, ff)
    local f = function(x) return torch.cond(x:sum():gt(0), function() return tf(x) end, function() return ff(x) end) end
    return t.error_of(function() compile(f)(T{4, 2}) end)
  end
  local e = run(function(x) return x:sin(), x:cos() end, function(x) return x:sin() end)
  t.has(e, "RuntimeError: Unmatched output spec from torch.cond branches: true branch tree_spec TreeSpec(tuple, None, [*,\n  *]) vs false branch tree_spec TreeSpec(tuple, None, [*]).",
    "different output structures")
  e = run(function(x) return x:sin() end, function(x) return x:long() end)
  t.has(e, "When merging two branches' output in torch.cond,  expected same dtype but got torch.float32 and torch.int64.",
    "different dtypes, in PyTorch's words (two spaces and all)")
  e = run(function(x) return x:sin() end, function(x) return x:sum(0) end)
  t.has(e, "expected same dim but got 2 and 1.", "different ranks")
  e = run(function(x) x:add_(1); return x:sin() end, function(x) return x:cos() end)
  t.has(e, "RuntimeError: cond_true might be modifying the input!", "an in-place op on an input")
  e = run(function(x) return x:sin() end, function(x) x:view(8):mul_(2); return x:cos() end)
  t.has(e, "RuntimeError: cond_false might be modifying the input!", "a mutation through a view is caught (versions are shared)")
  e = run(function(x) return x:view(8) end, function(x) return x:reshape(8):clone() end)
  t.has(e, "RuntimeError: cond_true might be aliasing the input or the output!", "returning a view of an input")
  local checks = events_matching("^hop_check FAILED")
  t.like(checks[#checks], "^hop_check FAILED cond_true: aliasing$", "the failed check is an event")
  -- the REPL-visible state is intact after the error: tracing continues normally
  local ok = pcall(compile(function(x) return x:sin() end), T{2})
  t.ok(ok, "a later compile works")
  local bad = t.error_of(function() compile(function(x) return torch.cond(x, function() return x end, function() return x end) end)(T{2}) end)
  t.has(bad, "torch.cond: Expected `pred` to be a bool or a boolean tensor with a single item but got f32[2]",
    "pred must be a single boolean")
end

-- 7. constant pred runs one branch; SymBool pred works
do
  local function f(x)
    return torch.cond(true, function() return x:sin() end, function() return x:cos() end)
  end
  -- PyTorch's UserWarning goes to stderr: catch it here instead
  local stderr, warned = io.stderr, {}
  io.stderr = { write = function(_, ...) for _, s in ipairs{...} do warned[#warned + 1] = s end end }
  local ok, err = pcall(function() compile(f)(T{3}) end)
  io.stderr = stderr
  assert(ok, err)
  t.like(table.concat(warned), "^UserWarning: Pred is a Python constant%. When used with torch%.cond, it specializes on one of the branches%.",
    "a constant pred warns as PyTorch does")
  local g = last_graph()
  t.ok(g:find("sin", 1, true) and not g:find("cond", 1, true), "a constant pred just runs one branch")
  local function h(x)
    local n = x:size(0)
    return torch.cond(n:gt(4), function() return x:sin() end, function() return x:cos() end)
  end
  compile(h, true)(T{6})
  t.has(last_graph(), '        l_x_ = L_x_\n        gt: "Sym(s0 > 4)" = s0 > 4\n',
    "a SymBool pred is computed in the graph")
end

-- 8. autograd: only when some operand requires grad
do
  local mark = shapedb.event_count()
  local f = function(x) return torch.cond(x:sum():gt(0), function() return x:sin() end, function() return x:cos() end) end
  local out = compile(f)(T{3})
  t.is(table.concat(events_matching("^autograd", mark), "\n"),
    "autograd cond: no operand requires grad: autograd is skipped", "skipped")
  t.is(out.requires_grad, false, "the output does not require grad")
  mark = shapedb.event_count()
  out = compile(f)(T{3, requires_grad = true})
  t.is(table.concat(events_matching("^autograd", mark), "\n"),
    "autograd cond: an operand requires grad: the autograd key is dispatched", "taken")
  t.is(out.requires_grad, true, "the output requires grad")
end

-- 9. wrap
do
  local function f(x)
    return torch.wrap(function(y) return y:add(1) end, x)
  end
  compile(f, true)(T{3, 1})
  local g = last_graph()
  t.has(g, "        wrap_body_0 = self.wrap_body_0\n        wrap = torch.ops.higher_order.wrap(wrap_body_0, s0, l_x_);  wrap_body_0 = s0 = l_x_ = None\n",
    "wrap(wrap_body_0, s0, x)")
  t.is(signature(g, "wrap_body_0"), 'def forward(self, s0: "Sym(s0)", l_x_: "f32[s0, 1]")',
    "the body takes the symbol, then the tensor")
  local function h(a, b)
    local u0 = a:sum():long():item()
    local u1 = b:sum():long():item()
    local r = torch.zeros(u0 + u1)
    return torch.wrap(function(z) return z:sin() end, r)
  end
  compile(h)(T{2}, T{2})
  g = last_graph()
  t.is(signature(g, "wrap_body_0"), 'def forward(self, u0: "Sym(u0)", u1: "Sym(u1)", zeros: "f32[u0 + u1]")',
    "basic symbols of a compound size are lifted one by one, sorted, before the tensor")
  -- a SymInt argument whose symbol is already bound (by x's size) is not lifted twice
  local function k(x)
    local n = x:size(0)
    return torch.wrap(function(y, m) return y * m end, x, n)
  end
  t.is(compile(k, true)(T{3, 1}):meta(), "f32[s0, 1]", "wrap(body, x, x:size(0))")
  g = last_graph()
  t.has(g, "        wrap = torch.ops.higher_order.wrap(wrap_body_0, s0, l_x_);  wrap_body_0 = s0 = l_x_ = None\n",
    "wrap(wrap_body_0, s0, l_x_): s0 once, though both x and n bring it")
  t.is(signature(g, "wrap_body_0"), 'def forward(self, s0: "Sym(s0)", l_x_: "f32[s0, 1]")', "the body takes s0 once")
  t.has(g, '            mul: "f32[s0, 1]" = l_x_ * s0;  l_x_ = s0 = None\n', "and n is that s0")
end

-- 10. torch.compile inside torch.export runs with the eager backend
do
  local inner = torch.compile(function(x) return x:sin() end, { backend = "inductor", name = "inner" })
  local mark = shapedb.event_count()
  local ep = torch.export(function(x) return inner(x) + 1 end, { T{4} })
  t.is(table.concat(events_matching("^note", mark), "\n"),
    "note: torch.compile(inner) inside torch.export: using the eager backend", "the log says so")
  t.has(ep.trace:graph(), "sin", "the inner ops are captured by export itself")
end

t.done()
