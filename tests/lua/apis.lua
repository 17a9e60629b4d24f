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

t.done()
