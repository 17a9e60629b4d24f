-- apis.lua — PyTorch's unbacked-symbol APIs as users write them:
-- torch._dynamo.mark_unbacked, guard_size_oblivious and the guard-free
-- helpers (each decision an `oblivious` event), with PyTorch's results.
local t = require("tap")
local T = shapedb.tensor

local function lines(list) return table.concat(list, "\n") end

-- 1. mark_unbacked: the dim is an unbacked size-like symbol with no hint,
-- bound by the input's placeholder; branching on it is the DDE
do
  local mark = shapedb.event_count()
  local function f(x)
    if x:size(0) > 2 then return x:sum() end
    return x
  end
  local x = T{5, 3}
  torch._dynamo.mark_unbacked(x, 0)
  local ok, err = pcall(torch.compile(f, { backend = "eager" }), x)
  err = tostring(err)
  t.ok(not ok, "branching on a mark_unbacked dim fails")
  t.like(err, "^GuardOnDataDependentSymNode: Could not guard on data%-dependent expression u0 > 2 %(unhinted: u0 > 2%)%.  %(Size%-like symbols: u0%)",
    "with the data-dependent error")
  t.has(err, "Caused by: if x:size(0) > 2 then return x:sum() end  # apis.lua:14 in f (trace phase)",
    "naming the user's line")
  t.has(err, "  u0 [0, int_oo], created by mark_unbacked at apis.lua:19 in main chunk (trace phase), size-like",
    "and mark_unbacked as the symbol's maker")
  local ev = {}
  for _, e in ipairs(shapedb.events(false, mark)) do
    if e:find("u0") or e:find("pending") then ev[#ev + 1] = e end
  end
  t.is(lines{ev[1], ev[2], ev[3], ev[4], ev[9], ev[10]}, lines{
    "create_unbacked_symbol u0 [-int_oo, int_oo]",
    "pending_changed {u0}",
    "size_like u0",
    "range_refined u0 [0, int_oo]",
    "unbacked_bindings %l_x_ u0: .size()[0]",
    "pending_changed {}",
  }, "an unbacked symbol, size-like, bound by the placeholder")
end

-- 2. mark_unbacked with a range and a list of dims, through inductor
do
  local function f(x)
    return x:mul(2)
  end
  local x = T{5, 3}
  torch._dynamo.mark_unbacked(x, {0, 1}, { min = 2, max = 16 })
  local c = torch.compile(f, { backend = "inductor" })
  c(x)
  local tr = c.traces[1].trace
  t.is(tr:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, u0: "Sym(u0)", u1: "Sym(u1)", L_x_: "f32[u0, u1]"):',
    '        l_x_ = L_x_',
    '        sym_size_int: "Sym(u0)" = torch.ops.aten.sym_size.int(l_x_, 0)',
    '        sym_size_int_1: "Sym(u1)" = torch.ops.aten.sym_size.int(l_x_, 1)',
    '        ge: "Sym(u0 >= 2)" = sym_size_int >= 2',
    '        _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u0 >= 2 on node \'ge\'");  ge = _assert_scalar_default = None',
    '        le: "Sym(u0 <= 16)" = sym_size_int <= 16;  sym_size_int = None',
    '        _assert_scalar_default_1 = torch.ops.aten._assert_scalar.default(le, "Runtime assertion failed for expression u0 <= 16 on node \'le\'");  le = _assert_scalar_default_1 = None',
    '        ge_1: "Sym(u1 >= 2)" = sym_size_int_1 >= 2',
    '        _assert_scalar_default_2 = torch.ops.aten._assert_scalar.default(ge_1, "Runtime assertion failed for expression u1 >= 2 on node \'ge_1\'");  ge_1 = _assert_scalar_default_2 = None',
    '        le_1: "Sym(u1 <= 16)" = sym_size_int_1 <= 16;  sym_size_int_1 = None',
    '        _assert_scalar_default_3 = torch.ops.aten._assert_scalar.default(le_1, "Runtime assertion failed for expression u1 <= 16 on node \'le_1\'");  le_1 = _assert_scalar_default_3 = None',
    '        mul: "f32[u0, u1]" = l_x_.mul(2);  l_x_ = None',
    '        return (mul,)',
    '',
  }, "the placeholders stay first; the range is asserted at runtime")
  t.is(lines(tr:bindings()), "l_x_: u0: .size()[0], u1: .size()[1]", "both bound by the placeholder")
  t.has(tr:wrapper(), "    if not (u1 <= 16):\n", "the wrapper checks the range")
  t.error_like(function() torch._dynamo.mark_unbacked(x, 2) end,
    "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)", "a bad dim")
  t.error_like(function() torch._dynamo.mark_unbacked(x, 0, { min = 4, max = 3 }) end,
    "mark_unbacked: min 4 is greater than max 3", "an empty range")
end

-- 3. the guard-free helpers: PyTorch's answers, no guard where PyTorch
-- takes none, and an `oblivious` event for each decision
do
  local ss = torch.fx.experimental.symbolic_shapes
  local got = {}
  local mark = shapedb.event_count()
  local function model(x, y)
    local n = x:nonzero():size(0)                        -- u0, size-like [0, 10]
    local s = y:size(0)                                  -- s0, hint 4
    got[#got + 1] = ss.guard_size_oblivious(n:eq(1))     -- False, no guard
    got[#got + 1] = ss.guard_size_oblivious(n:eq(0))     -- False, no guard
    got[#got + 1] = ss.guard_or_false(n:eq(1))
    got[#got + 1] = ss.guard_or_true(n:ne(5))
    got[#got + 1] = ss.statically_known_true(n:ge(0))
    got[#got + 1] = ss.statically_known_true(n:gt(3))
    got[#got + 1] = ss.statically_known_false(n:gt(10))
    got[#got + 1] = ss.statically_known_false(n:eq(1))
    got[#got + 1] = ss.guard_or_false(s:gt(2))           -- backed: a guard
    got[#got + 1] = ss.guard_or_true(true)
    got[#got + 1] = tostring(torch.sym_max(n, 1))
    got[#got + 1] = tostring(torch.sym_min(n, 0))
    got[#got + 1] = tostring(torch.sym_ite(n:ge(0), n, 7))
    got[#got + 1] = torch.sym_max(3, 4)
    return x:sum()
  end
  local c = torch.compile(model, { backend = "eager" })
  c(T{5, 2}, T{4, dynamic = {0}})
  t.is(table.concat((function() local o = {} for i, v in ipairs(got) do o[i] = tostring(v) end return o end)(), " "),
    "false false false true true false true false true true Max(1, u0) 0 u0 4",
    "PyTorch's answers")
  local ob = {}
  for _, e in ipairs(shapedb.events(false, mark)) do
    if e:find("^oblivious ") then ob[#ob + 1] = e end
  end
  t.is(lines(ob), lines{
    "oblivious guard_size_oblivious(Eq(u0, 1)) -> False: size-oblivious: size-like u0 taken as >= 2, no guard",
    "oblivious guard_size_oblivious(Eq(u0, 0)) -> False: size-oblivious: size-like u0 taken as >= 2, no guard",
    "oblivious guard_or_false(Eq(u0, 1)) -> False: could not evaluate Eq(u0, 1) due to data dependency, it was assumed to be False with no runtime assertions",
    "oblivious guard_or_true(Ne(u0, 5)) -> True: could not evaluate Ne(u0, 5) due to data dependency, it was assumed to be True with no runtime assertions",
    "oblivious statically_known_true(u0 >= 0) -> True: simplifies to True, no guard",
    "oblivious statically_known_true(u0 > 3) -> False: not known statically, no guard",
    "oblivious statically_known_false(u0 > 10) -> True: simplifies to False, no guard",
    "oblivious statically_known_false(Eq(u0, 1)) -> False: not known statically, no guard",
    "oblivious guard_or_false(s0 > 2) -> True: guarded on the hints",
    "oblivious sym_max(u0, 1) -> Max(1, u0): built symbolically, no guard",
    "oblivious sym_min(u0, 0) -> 0: one operand is known to be the smaller, no guard",
    "oblivious sym_ite(u0 >= 0, u0, 7) -> u0: the condition is known to be True, no guard",
  }, "each decision is an event saying what was assumed")
  local g = {}
  for _, rec in ipairs(c.traces[1].trace:guard_records()) do g[#g + 1] = rec.text end
  t.is(lines(g), "3 <= L['y'].size()[0]", "only the backed guard_or_false took a guard")
end

-- 4. guard_size_oblivious that cannot decide: a guard on hints, or the DDE
do
  local ss = torch.fx.experimental.symbolic_shapes
  local function model(x)
    local n = x:nonzero():size(0)
    return ss.guard_size_oblivious(n:gt(3))
  end
  local err = tostring(select(2, pcall(torch.compile(model, { backend = "eager" }), T{5, 2})))
  t.like(err, "^GuardOnDataDependentSymNode: Could not guard on data%-dependent expression u0 > 3 ",
    "an undecidable guard_size_oblivious is the data-dependent error")
  t.has(err, "# apis.lua:", "at the user's line")
  local ok, e2 = pcall(torch.compile(function(x)
    local n = x:nonzero():size(0)
    return torch.sym_ite(n:gt(3), n, 7)
  end, { backend = "eager" }), T{5, 2})
  t.like(tostring(e2), "^[^\n]*apis%.lua:%d+: NotImplementedError: torch.sym_ite%(u0 > 3, %.%.%.%): the condition is not known statically",
    "sym_ite on an undecided condition is refused (no Piecewise)")
  t.ok(not ok, "and fails")
end

-- 5. torch.export with dynamic_shapes: Dim, Dim.STATIC/DYNAMIC/AUTO, and
-- PyTorch's constraint violation with its suggested fix
do
  local Dim = torch.export.Dim
  local n = Dim("n", { max = 16 })
  t.is(tostring(n), "Dim('n', max=16)", "a Dim prints as PyTorch's repr")
  local ep = torch.export(function(x) return x:mul(2) end, { T{5, 3} },
    { dynamic_shapes = { x = {[0] = n, [1] = Dim.STATIC} } })
  t.is(ep.trace:graph():match("L_x_: \"[^\"]*\""), 'L_x_: "f32[s0, 3]"', "a Dim dim is symbolic, a STATIC one is not")
  t.is(table.concat(ep.trace:guards(), "\n"), "2 <= L['x'].size()[0] and L['x'].size()[0] <= 16",
    "the Dim's range is the guard")
  local err = t.error_of(function()
    torch.export(function(x) torch._check(x:size(0):eq(5)) return x:mul(2) end, { T{5, 3} },
      { dynamic_shapes = { x = {[0] = n} } })
  end)
  t.like(err, "^[^\n]*apis%.lua:%d+: torch", "the error names the export call's line")
  err = err:gsub("^[^\n]-apis%.lua:%d+: ", "")
  t.is(err, lines{
    "torch._dynamo.exc.UserError: Constraints violated (n)! For more information, run with TORCH_LOGS=\"+dynamic\".",
    "  - You marked n as dynamic but your code specialized it to be a constant (5). If you're using mark_dynamic, " ..
      "either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.",
    "Suggested fixes:",
    "  n = 5",
  }, "a Dim that specializes is PyTorch's constraint violation, with the fix")
  err = t.error_of(function()
    torch.export(function(x) torch._check(x:size(1):eq(3)) return x end, { T{5, 3} },
      { dynamic_shapes = { x = {[1] = Dim.DYNAMIC} } })
  end)
  err = err:gsub("^[^\n]-apis%.lua:%d+: ", "")
  t.is(err, lines{
    "torch._dynamo.exc.UserError: Constraints violated (L['x'].size()[1])! For more information, run with TORCH_LOGS=\"+dynamic\".",
    "  - You marked L['x'].size()[1] as dynamic but your code specialized it to be a constant (3). If you're using " ..
      "mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either " ..
      "Dim.STATIC or Dim.AUTO.",
  }, "Dim.DYNAMIC that specializes: named by its source, no fix")
  t.ok(torch.export(function(x) torch._check(x:size(1):eq(3)) return x end, { T{5, 3} },
    { dynamic_shapes = { x = {[1] = Dim.AUTO} } }), "Dim.AUTO may specialize silently")

  -- a guard that narrows a Dim's range (PyTorch's test_non_strict_dynamic_shapes_suggested_fixes)
  local dim = Dim("dim", { min = 3 })
  err = t.error_of(function()
    torch.export(function(x) if x:size(0) <= 6 then return x + 1 end return x - 1 end, { T{5} },
      { dynamic_shapes = { x = {[0] = dim} } })
  end)
  t.is(err:gsub("^[^\n]-apis%.lua:%d+: ", ""), lines{
    "torch._dynamo.exc.UserError: Constraints violated (dim)! For more information, run with TORCH_LOGS=\"+dynamic\".",
    "  - Not all values of dim = L['x'].size()[0] in the specified range 3 <= dim satisfy the generated guard " ..
      "3 <= L['x'].size()[0] and L['x'].size()[0] <= 6",
    "Suggested fixes:",
    "  dim = Dim(\"dim\", { min = 3, max = 6 })",
  }, "a guard that narrows the range: the range it leaves, and the Dim that would hold")
  err = t.error_of(function()
    torch.export(function(x) torch._check(x:size(0):ge(4)) return x end, { T{6} },
      { dynamic_shapes = { x = {[0] = Dim("n", { max = 16 })} } })
  end)
  t.has(err, "satisfy the generated guard 4 <= L['x'].size()[0] and L['x'].size()[0] <= 16\nSuggested fixes:\n  n = Dim(\"n\", { min = 4, max = 16 })",
    "a raised lower bound")
  err = t.error_of(function()
    torch.export(function(x) torch._check((x:size(0) % 2):eq(0)) return x end, { T{6} },
      { dynamic_shapes = { x = {[0] = Dim("n")} } })
  end)
  t.has(err, "  - Not all values of n = L['x'].size()[0] in the specified range satisfy the generated guard " ..
    "L['x'].size()[0] % 2 == 0.\nSuggested fixes:\n  _n = Dim(\"_n\", { min = 1 })\n  n = 2 * _n",
    "a guard the range cannot hold (divisibility): the guard, and the derived dim the solver suggests")
  -- (prettify_results: the new root _n keeps 2*_n in n's range, min=2 left out)
  err = t.error_of(function()
    torch.export(function(x) return x:view(3, -1) end, { T{6} },
      { dynamic_shapes = { x = {[0] = Dim("n", { min = 3, max = 32 })} } })
  end)
  t.has(err, "Suggested fixes:\n  _n = Dim(\"_n\", { min = 1, max = 10 })\n  n = 3 * _n",
    "divisibility by 3 in [3, 32]: _n in [ceil(3/3), floor(32/3)]")
  t.ok(torch.export(function(x) return x:view(3, -1) end, { T{6} },
    { dynamic_shapes = { x = {[0] = 3 * Dim("_n", { max = 10 })} } }), "the suggested fix exports")

  -- an example input outside its Dim's range
  err = t.error_of(function()
    torch.export(function(x) return x * 2 end, { T{20, 3} }, { dynamic_shapes = { x = {[0] = Dim("n", { max = 16 })} } })
  end)
  t.like(err, "apis%.lua:%d+: torch%._dynamo%.exc%.UserError: 20 not in range %[2, 16%]$",
    "create_symbol's range check, at the export call")
  t.ok(torch.export(function(x) return x * 2 end, { T{5} }), "and the failed export left no trace active")

  -- derived dims: Dim arithmetic, the input expressed through the root
  local dimx = Dim("dimx", { min = 3, max = 6 })
  t.is(tostring(2 * dimx + 1) .. " | " .. tostring(dimx - 1) .. " | " .. tostring((dimx + 1) * 2),
    "2*dimx + 1 | dimx - 1 | 2*dimx + 2", "derived dims print as sympy prints fn(root)")
  t.error_like(function() return dimx * 0 end,
    "Attempted to multiply dimx with 0, where a positive integer was expected. (Only increasing linear operations " ..
    "with integer coefficients are supported.)", "only increasing linear maps")
  ep = torch.export(function(x, y) return x + y:slice(0, 1) end, { T{5}, T{6} },
    { dynamic_shapes = { x = {[0] = dimx}, y = {[0] = dimx + 1} } })
  t.has(ep.trace:graph(), 'L_y_: "f32[s0 + 1]"', "y's size is dimx + 1 over x's symbol")
  ep = torch.export(function(x, y) return torch.cat({ x, x }) + y end, { T{5}, T{10} },
    { dynamic_shapes = { x = {[0] = dimx}, y = {[0] = 2 * dimx} } })
  t.has(ep.trace:graph(), 'L_y_: "f32[2*s0]"', "2*dimx")
  err = t.error_of(function()
    torch.export(function(x, y) return x end, { T{5}, T{11} },
      { dynamic_shapes = { x = {[0] = dimx}, y = {[0] = 2 * dimx} } })
  end)
  t.like(err, "apis%.lua:%d+: torch%._dynamo%.exc%.UserError: Expected input L%['y'%]%.size%(%)%[0%] to be equal to " ..
    "2%*dimx, where dimx = 5, but got 11$", "an odd size for 2*dimx is PyTorch's error")
  -- a root no input is given: a phantom symbol (ConstantSource) solved from the example
  local nh = Dim("nh", { min = 2, max = 64 })
  ep = torch.export(function(y) return y * 2 end, { T{10} }, { dynamic_shapes = { y = {[0] = 2 * nh} } })
  t.has(ep.trace:graph(), 'L_y_: "f32[2*s1]"', "y is 2*nh over the phantom root's symbol")
  t.is(table.concat(ep.trace:guards(), "\n"), "L['y'].size()[0] == 2*nh\n2 <= nh and nh <= 64",
    "the guards name the phantom root as PyTorch's ConstantSource does")
  err = t.error_of(function()
    torch.export(function(y) return y * 2 end, { T{11} }, { dynamic_shapes = { y = {[0] = 2 * nh} } })
  end)
  t.like(err, "apis%.lua:%d+: torch%._dynamo%.exc%.UserError: Expected shape%[0%] = 11 of input Tensor to be of " ..
    "the form 2%*nh, where nh is an integer$", "an odd size for a phantom 2*nh: root_value's error")
  ep = torch.export(function(x, y) return x:sum() + y:sum() end, { T{10}, T{11} },
    { dynamic_shapes = { x = {[0] = 2 * nh}, y = {[0] = 2 * nh + 1} } })
  t.like(ep.trace:graph(), 'L_x_: "f32%[2%*s(%d+)%]".-L_y_: "f32%[2%*s%1 %+ 1%]"', "two derived dims share one phantom root")
end

t.done()
