-- library.lua — custom operators with fake kernels in Lua
-- (torch.library.custom_op, register_fake, get_ctx().new_dynamic_size) and
-- the torch.ops namespace: a data-dependent output size through every
-- phase, PyTorch's errors, the kernel's line in its errors.
local t = require("tap")
local T = shapedb.tensor

local function lines(list) return table.concat(list, "\n") end

local nz = torch.library.custom_op("mylib::nonzero_rows", function(x)
  return x:new_empty({3, x:dim()}, {dtype = torch.int64})   -- eager: as if 3 rows
end)
nz:register_fake(function(x)
  local ctx = torch.library.get_ctx()
  local n = ctx:new_dynamic_size()
  return x:new_empty({n, x:dim()}, {dtype = torch.int64})
end)

-- 1. the op object, torch.ops, eager calls run the implementation
t.is(tostring(nz), "<CustomOpDef(mylib::nonzero_rows)>", "the op prints as PyTorch's CustomOpDef")
t.ok(torch.ops.mylib.nonzero_rows == nz, "torch.ops.mylib.nonzero_rows is the op")
t.is(tostring(nz(T{5, 2})), "FakeTensor(..., size=(3, 2), dtype=torch.int64)",
  "an eager call runs the implementation")
t.error_like(function() return torch.ops.mylib.missing end,
  "AttributeError: '_OpNamespace' 'mylib' object has no attribute 'missing'",
  "an unknown op in a namespace is PyTorch's AttributeError")

-- 2. traced: the kernel's new_dynamic_size is a pending unbacked symbol,
-- bound by the op's node; aot runs the kernel again (renamed), inductor
-- makes it a FallbackKernel
do
  local mark = shapedb.event_count()
  local function f(x)
    local idx = torch.ops.mylib.nonzero_rows(x)
    torch._check(idx:size(0):le(7))
    return idx * 2
  end
  local c = torch.compile(f, { backend = "inductor" })
  c(T{5, 2})
  local tr = c.traces[1].trace
  local ev = {}
  for _, e in ipairs(shapedb.events(false, mark)) do
    if e:find("u0") and (e:find("^create") or e:find("^size_like") or e:find("^range") or
                         e:find("^unbacked_bindings") or e:find("nonzero_rows")) then
      ev[#ev + 1] = e
    end
  end
  t.is(lines{ev[1], ev[2], ev[3], ev[4], ev[5]}, lines{
    "create_unbacked_symbol u0 [-int_oo, int_oo]",
    "size_like u0",
    "range_refined u0 [0, int_oo]",
    'node_placed nonzero_rows: nonzero_rows: "i64[u0, 2]" = torch.ops.mylib.nonzero_rows.default(l_x_)',
    "unbacked_bindings %nonzero_rows u0: .size()[0]",
  }, "new_dynamic_size: PyTorch's events, bound by the op's node")
  t.has(tr:graph(), '        nonzero_rows: "i64[u0, 2]" = torch.ops.mylib.nonzero_rows.default(l_x_);  l_x_ = None',
    "the Dynamo graph calls the OpOverload")
  t.has(tr:aot_graph(), 'nonzero_rows: "i64[u0, 2]" = torch.ops.mylib.nonzero_rows.default(arg0_1)',
    "the aot graph too, its node named after the op")
  t.has(tr:wrapper(), "buf0 = torch.ops.mylib.nonzero_rows.default(arg0_1)  # FallbackKernel",
    "inductor lowers it as a FallbackKernel")
  t.has(tr:wrapper(), "u0 = buf1.size(0)", "whose MultiOutput defines u0")
end

-- 3. ranges: new_dynamic_size{min=, max=}; PyTorch's errors
do
  local r = torch.library.custom_op("mylib::bounded", function(x) return x end)
  r:register_fake(function(x)
    local n = torch.library.get_ctx():new_dynamic_size{min = 2, max = 10}
    return x:new_empty({n})
  end)
  local c = torch.compile(function(x) return torch.ops.mylib.bounded(x) end, { backend = "eager" })
  local mark = shapedb.event_count()
  t.is(tostring(c(T{4})), "FakeTensor(..., size=(u0,))", "a bounded dynamic size")
  t.has(table.concat(shapedb.events(false, mark), "\n"),
    "range_refined u0 [2, 10]", "with the range asked for")
  local bad = torch.library.custom_op("mylib::negative", function(x) return x end)
  bad:register_fake(function(x)
    return x:new_empty({torch.library.get_ctx():new_dynamic_size{min = -1}})
  end)
  local err = select(2, pcall(torch.compile(function(x) return bad(x) end, { backend = "eager" }), T{4}))
  t.like(tostring(err), "^RuntimeError: mylib::negative: fake kernel failed: [^ ]*library%.lua:%d+: ValueError: ctx%.new_dynamic_size%(min=%-1, %.%.%.%): expected min to be greater than or equal to 0: this API can only create non%-negative sizes%.",
    "min < 0 is PyTorch's ValueError, at the kernel's line")
  local nofake = torch.library.custom_op("mylib::nofake", function(x) return x end)
  err = select(2, pcall(torch.compile(function(x) return nofake(x) end, { backend = "eager" }), T{4}))
  t.has(tostring(err), "There was no fake impl registered for <CustomOpDef(mylib::nofake)>. This is necessary for torch.compile/export/fx tracing to work. Please use `nofake.register_fake` to add an fake impl.",
    "no fake kernel: PyTorch's error")
  t.error_like(function() return torch.library.get_ctx() end,
    "torch.library.get_ctx() is only valid inside a fake kernel",
    "get_ctx outside a kernel")
  t.error_like(function() return torch.library.custom_op("nonamespace", function() end) end,
    "Expected there to be a namespace in nonamespace, i.e. The operator name should look something like ns::foo",
    "a name without a namespace")
end

t.done()
