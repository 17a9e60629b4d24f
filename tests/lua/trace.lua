-- trace.lua — the trace phase end to end: torch.compile on Lua functions,
-- graph text, per-node unbacked bindings, guards in source form, the event
-- sequence for nonzero, and the errors a user meets (data-dependent branch,
-- a pending symbol never found, at the op's line); static, marked-dynamic
-- and integer inputs; a storage offset bound as .storage_offset(); stride
-- and storage-offset source names.
local t = require("tap")
local T = shapedb.tensor

local function lines(list) return table.concat(list, "\n") end

-- events emitted since mark, as summaries
local function events_since(mark)
  return shapedb.events(false, mark)
end

-- 1. nonzero: graph, bindings, asserts, event sequence
do
  local mark = shapedb.event_count()
  local function model(x, y)
    local idx = x:nonzero()
    torch._check_is_size(idx:size(0))
    return idx:sum() + y:sum()
  end
  local compiled = torch.compile(model, { backend = "eager" })
  local out = compiled(T{5, 2}, T{7})
  t.is(tostring(out), "FakeTensor(..., size=())", "the call returns the fake output")
  local tr = compiled.traces[1].trace
  t.is(tr:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, L_x_: "f32[5, 2]", L_y_: "f32[7]"):',
    '        l_x_ = L_x_',
    '        l_y_ = L_y_',
    '        nonzero: "i64[u0, 2]" = l_x_.nonzero();  l_x_ = None',
    '        # u0: .size()[0]',
    '        sym_size_int: "Sym(u0)" = torch.ops.aten.sym_size.int(nonzero, 0)',
    '        ge: "Sym(u0 >= 0)" = sym_size_int >= 0',
    '        _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u0 >= 0 on node \'ge\'");  ge = _assert_scalar_default = None',
    '        le: "Sym(u0 <= 10)" = sym_size_int <= 10;  sym_size_int = None',
    '        _assert_scalar_default_1 = torch.ops.aten._assert_scalar.default(le, "Runtime assertion failed for expression u0 <= 10 on node \'le\'");  le = _assert_scalar_default_1 = None',
    '        size: "Sym(u0)" = nonzero.size(0)',
    '        _check_is_size = torch._check_is_size(size);  size = _check_is_size = None',
    '        sum_1: "i64[]" = nonzero.sum();  nonzero = None',
    '        sum_2: "f32[]" = l_y_.sum();  l_y_ = None',
    '        add: "f32[]" = sum_1 + sum_2;  sum_1 = sum_2 = None',
    '        return (add,)',
    '',
  }, "the graph in print_readable style, asserts right after the binding node")
  t.is(lines(tr:bindings()), "nonzero: u0: .size()[0]", "bindings per node")
  t.is(#tr:guards(), 0, "static inputs: no shape guards")
  local ev = events_since(mark)
  local seq, want = {}, {
    "create_unbacked_symbol u0 [0, 10]",
    "pending_changed {u0}",
    "node_placed nonzero",
    "unbacked_bindings %nonzero u0: .size()[0]",
    "pending_changed {}",
  }
  for _, e in ipairs(ev) do
    if e:find("u0", 1, true) and (e:find("^create_unbacked") or e:find("^pending") or e:find("^unbacked_bindings"))
       or e:find("^node_placed nonzero") or (e:find("^pending_changed {}")) then
      seq[#seq + 1] = e:match("^node_placed nonzero") and "node_placed nonzero" or e
    end
  end
  t.is(lines(seq), lines(want), "event sequence: create, pending {u0}, node_placed, bindings, pending {}")
  t.is(ev[1], "phase_start trace (model)", "the trace phase starts")
  local full = shapedb.events(true, mark)
  local nz
  for _, e in ipairs(full) do if e:find("create_unbacked_symbol u0", 1, true) then nz = e end end
  t.like(nz, "^trace  trace%.lua:%d+%s+create_unbacked_symbol u0 %[0, 10%]$",
    "events carry the phase and the user's file:line")
end

-- 2. dynamic inputs: symbol placeholders before the tensor that brings them
do
  local function f(x, y)
    local n = x:size(0)
    local z = x + y
    if n > 3 then z = z * 2 end
    return z:sum(0)
  end
  local c = torch.compile(f, { backend = "eager", dynamic = true })
  local out = c(T{5, 2}, T{5, 2})
  t.is(out:meta(), "f32[s1]", "output metadata")
  local tr = c.traces[1].trace
  t.is(tr:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, s0: "Sym(s0)", s1: "Sym(s1)", L_x_: "f32[s0, s1]", L_y_: "f32[s0, s1]"):',
    '        l_x_ = L_x_',
    '        l_y_ = L_y_',
    '        add: "f32[s0, s1]" = l_x_ + l_y_;  l_x_ = l_y_ = None',
    '        mul: "f32[s0, s1]" = add * 2;  add = None',
    '        sum_1: "f32[s1]" = mul.sum(0);  mul = None',
    '        return (sum_1,)',
    '',
  }, "dynamic graph: unused size() nodes are eliminated")
  t.is(lines(tr:guards()), lines{
    "L['x'].stride()[0] == L['x'].size()[1]",
    "L['y'].size()[0] == L['x'].size()[0]",
    "L['y'].size()[1] == L['x'].size()[1]",
    "L['y'].stride()[0] == L['x'].size()[1]",
    "4 <= L['x'].size()[0]",
    "2 <= L['x'].size()[1]",
  }, "guards: duck sizing equalities, strides, and n > 3 as a range")
end

-- keyword arguments in the op's signature order: a Lua table's keys come in
-- an order that changes from run to run (its strings' hashes are seeded at
-- start-up), and the graph and a saved trace must not
do
  local function f(x)
    return torch.full({2, 3}, 1.5, {requires_grad = false, pin_memory = false, layout = "strided",
                                    device = "cpu", dtype = torch.float64}) + x:sum()
  end
  local c = torch.compile(f, { backend = "eager" })
  c(T{4})
  t.has(c.traces[1].trace:graph(),
        "torch.full([2, 3], 1.5, dtype = torch.float64, device = 'cpu', layout = 'strided', "
        .. "pin_memory = False, requires_grad = False)",
        "five keyword arguments print in full()'s signature order")
end


-- 3. a SymInt flowing into an op is recorded as nodes
do
  local function f(x)
    local n = x:size(0)
    return x:sum() * (n * 2)
  end
  local c = torch.compile(f, { backend = "eager", dynamic = true })
  c(T{6})
  local g = c.traces[1].trace:graph()
  t.unlike(g, 'l_x_%.size', "x:size(0) of an input reads the symbol's placeholder, no size node")
  t.has(g, '        mul: "Sym(2*s0)" = s0 * 2;  s0 = None\n', "arithmetic on sizes is a node (Dynamo: s77 * 2)")
  t.has(g, '        mul_1: "f32[]" = sum_1 * mul;  sum_1 = mul = None\n', "and feeds the op")
end

-- 4. the broadcast that guards
do
  local out = dofile((os.getenv("SHAPEDB_TESTS") or "tests") .. "/../scripts/broadcast.lua")
  t.is(out:meta(), "f32[s0]", "broadcast result")
  local tr = shapedb._traces[#shapedb._traces].trace
  t.is(lines(tr:guards()), "L['y'].size()[0] == L['x'].size()[0]\n2 <= L['x'].size()[0]",
    "Eq(s0, s1) became a replacement, shown as a source equality")
end

-- 5. item: empty key path, runtime asserts from torch._check
do
  dofile((os.getenv("SHAPEDB_TESTS") or "tests") .. "/../scripts/item.lua")
  local tr = shapedb._traces[#shapedb._traces].trace
  t.is(lines(tr:bindings()), "item: u0: <value>", "item binds u0 with the empty path")
  local g = tr:graph()
  t.has(g, '        ge_1: "Sym(u0 >= 1)" = item >= 1\n', "_check(n:ge(1)) becomes a runtime assert")
  t.has(g, 'torch.ops.aten._assert_scalar.default(le_1, "Runtime assertion failed for expression u0 <= 64 on node \'le_1\'")',
    "and _check(n:le(64)) too")
  t.has(g, '        _check = torch._check(ge);  ge = _check = None\n', "torch._check is recorded where it was called")
end

-- 6. a data-dependent branch fails with the line and the suggestions
do
  local script = (os.getenv("SHAPEDB_TESTS") or "tests") .. "/../scripts/ddbranch.lua"
  local err = t.error_of(function() dofile(script) end)
  t.has(err, "GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: none)",
    "the DDE message")
  t.has(err, "Caused by: if v > 2 then                          -- GuardOnDataDependentSymNode  # ddbranch.lua:7 in model (trace phase)",
    "Caused by shows the Lua line of the branch")
  t.has(err, "u0 [-int_oo, int_oo], created by item at ddbranch.lua:6 in model (trace phase)",
    "and where u0 was created")
  t.has(err, "  1. torch._check(v:gt(2))\n  2. torch._check(v:le(2))\n\n(These suggested fixes were derived by replacing `u0` with v in u0 > 2 and its negation.)",
    "and the checks that would fix it, in Lua with the user's name for u0")
  local r = shapedb._traces[#shapedb._traces]
  t.ok(r.error ~= nil, "the failed trace is recorded with its error")
  local last = shapedb.events(false)
  t.like(last[#last - 1], "^error GuardOnDataDependentSymNode", "an error event")
  t.is(last[#last], "phase_end trace (model)", "and the phase ends")
end

-- 7. a pending symbol never found
do
  local function f(x)
    shapedb.leak_unbacked()       -- a fake implementation allocating one symbol too many
    return x:sum()
  end
  local c = torch.compile(f, { backend = "eager" })
  local line = debug.getinfo(f, "S").linedefined + 2   -- `return x:sum()`: the op after the leak
  local mark = shapedb.event_count()
  local err = t.error_of(function() c(T{3}) end)
  t.has(err, "PendingUnbackedSymbolNotFound: Pending unbacked symbols {u0} not in returned outputs FakeTensor(..., size=()) ((), 0).",
    "the node after the leak fails with PyTorch's message")
  t.has(err, "Did you accidentally call new_dynamic_size() or item() more times than you needed to in your fake implementation?",
    "and its hint")
  t.like(err, "\n\t%[C%]: in method 'sum'\n\t[^\n]*trace%.lua:" .. line .. ": in function <",
    "the traceback of the traced code starts at the op's line")
  local at
  for _, e in ipairs(shapedb.events(true, mark)) do
    at = at or e:match("^trace%s+(%S+)%s+error PendingUnbackedSymbolNotFound: ")
  end
  t.is(at, "trace.lua:" .. line, "the error event is stamped with the op's Lua line")
end

-- 8. n == 4 with a plain number never reaches a metamethod; comparisons guard
do
  local function f(x)
    local n = x:size(0)
    local plain = (n == 5)        -- always false in Lua: userdata vs number
    local ok = n:eq(5):bool()     -- the explicit guard
    return x, plain, ok
  end
  local c = torch.compile(f, { backend = "eager", dynamic = true })
  local _, plain, ok = c(T{5})
  t.is(plain, false, "n == 5 is false: Lua compares userdata and number without __eq")
  t.is(ok, true, "n:eq(5):bool() takes the guard")
  t.is(lines(c.traces[1].trace:guards()), "L['x'].size()[0] == 5", "which specializes x's size")
end

-- 9. torch.compile argument errors
t.error_like(function() torch.compile(42) end, "torch.compile expects a function, got number", "not a function")
t.error_like(function() return torch.frobnicate(1) end,
  "NotImplementedError: unsupported operator: torch.frobnicate (not modelled by shapedb; shapedb.ops() lists the operators)",
  "an unknown torch function is named, not a nil call")
t.error_like(function() return T{3}:frobnicate() end, "NotImplementedError: unsupported operator: Tensor.frobnicate",
  "so is an unknown tensor method")
local ops = shapedb.ops()
t.ok(#ops > 100 and ops[1] < ops[2], "shapedb.ops() lists the modelled operators, sorted")
t.error_like(function() torch.compile(function() end, { backend = "tvm" }) end,
  "unknown backend 'tvm' (eager, aot_eager or inductor)", "unknown backend")

-- `if n:gt(2) then` is always true in Lua: a SymBool nothing read is
-- reported where it was built, once the trace is done
do
  local stderr, warned = io.stderr, {}
  local function capture() io.stderr = { write = function(_, ...) for _, x in ipairs{...} do warned[#warned + 1] = x end end } end
  local function model(x)
    local n = x:size(0)
    if n:gt(2) then return x * 2 end             -- line 10 of this block's function
    return x
  end
  local mark = shapedb.event_count()
  capture()
  local ok, err = pcall(function() torch.compile(model, { backend = "eager", dynamic = true })(T{5}) end)
  io.stderr = stderr
  assert(ok, err)
  local note
  for _, e in ipairs(events_since(mark)) do if e:find("^note: a SymBool") then note = e end end
  t.like(note, "^note: a SymBool was never used: s0 > 2 built at .*trace%.lua:%d+%. In Lua every userdata is true",
    "an unused SymBool is a note event at the line that built it")
  t.like(table.concat(warned), "^UserWarning: a SymBool was never used: s0 > 2 built at", "and a warning on stderr")
  warned = {}
  capture()
  ok, err = pcall(function()
    torch.compile(function(x) torch._check(x:size(0):ge(1)); return x end, { backend = "eager", dynamic = true })(T{5})
  end)
  io.stderr = stderr
  assert(ok, err)
  t.is(#warned, 0, "a SymBool given to torch._check is used: no warning")
  -- only the unused ones, in the order they were built, however the used
  -- ones interleave (the first is read after the others were built)
  warned = {}
  capture()
  ok, err = pcall(function()
    torch.compile(function(x)
      local n = x:size(0)
      local a, b, c = n:gt(1), n:gt(2), n:gt(3)
      torch._check(a)
      local d = n:lt(9)
      torch._check(d)
      local _ = n:ne(7)
      return x
    end, { backend = "eager", dynamic = true })(T{5})
  end)
  io.stderr = stderr
  assert(ok, err)
  local said = {}
  for w in table.concat(warned):gmatch("never used: ([^\n]-) built at") do said[#said + 1] = w end
  t.is(table.concat(said, "; "), "s0 > 2; s0 > 3; Ne(s0, 7)", "the unused SymBools, in the order they were built")
end

-- 10. dynamic = false: every dim static, and a new size recompiles static
--     again (no automatic dynamic)
do
  local function f(x, y) return x + y, x:size(0) end
  local c = torch.compile(f, { backend = "eager", dynamic = false })
  local out, n = c(T{5, 2}, T{5, 2})
  t.is(out:meta(), "f32[5, 2]", "dynamic = false: static output")
  t.is(math.type(n), "integer", "x:size(0) is a plain Lua integer")
  t.is(n, 5, "with the input's size")
  t.is(c.traces[1].trace:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, L_x_: "f32[5, 2]", L_y_: "f32[5, 2]"):',
    '        l_x_ = L_x_',
    '        l_y_ = L_y_',
    '        add: "f32[5, 2]" = l_x_ + l_y_;  l_x_ = l_y_ = None',
    '        return (add,)',
    '',
  }, "no symbol placeholders, no size nodes")
  t.is(#c.traces[1].trace:guards(), 0, "no shape guards: TENSOR_MATCH checks the sizes")
  c(T{6, 2}, T{6, 2})
  c(T{7, 2}, T{7, 2})
  t.is(#c.entries, 3, "each new size compiles again")
  t.is(c.entries[3].trace:graph():match('def forward%b()'),
    'def forward(self, L_x_: "f32[7, 2]", L_y_: "f32[7, 2]")', "and stays static")
  t.has(c.last_recompile, "tensor 'x' size mismatch at index 0. expected 6, actual 7; tensor 'y' size mismatch at index 0. expected 6, actual 7",
    "the reason names both inputs")
end

-- 11. dims marked dynamic: torch._dynamo.mark_dynamic(t, d), t:mark_dynamic(d)
--     and shapedb.tensor{..., dynamic = {d}}; DYNAMIC never duck-shares
do
  local function double(x) return x * 2 end
  local x = T{5, 2}
  torch._dynamo.mark_dynamic(x, 0)
  local c = torch.compile(double, { backend = "eager" })
  t.is(c(x):meta(), "f32[s0, 2]", "torch._dynamo.mark_dynamic(x, 0): dim 0 is symbolic")
  t.is(c.traces[1].trace:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, s0: "Sym(s0)", L_x_: "f32[s0, 2]"):',
    '        l_x_ = L_x_',
    '        mul: "f32[s0, 2]" = l_x_ * 2;  l_x_ = None',
    '        return (mul,)',
    '',
  }, "the symbol is a placeholder before the tensor")
  t.is(lines(c.traces[1].trace:guards()), "2 <= L['x'].size()[0]", "guarded by its range only")
  local x2 = T{5, 3}
  x2:mark_dynamic(1)
  c = torch.compile(double, { backend = "eager" })
  t.is(c(x2):meta(), "f32[5, s0]", "x:mark_dynamic(1): dim 1 is symbolic, dim 0 static")
  t.is(lines(c.traces[1].trace:guards()), "L['x'].stride()[0] == L['x'].size()[1]\n2 <= L['x'].size()[1]",
    "the stride of dim 0 follows the dynamic dim 1")
  c = torch.compile(double, { backend = "eager" })
  t.is(c(T{5, 3, dynamic = {0, -1}}):meta(), "f32[s0, s1]", "shapedb.tensor{..., dynamic = {0, -1}} marks both dims")
  t.error_like(function() torch._dynamo.mark_dynamic(T{5}, 1) end,
    "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)", "a dim out of range")
  local a, b = T{5}, T{5}
  torch._dynamo.mark_dynamic(a, 0)
  b:mark_dynamic(0)
  c = torch.compile(function(p, q) return p:sum() + q:sum() end, { backend = "eager" })
  c(a, b)
  t.is(c.traces[1].trace:graph():match('def forward%b()'),
    'def forward(self, s0: "Sym(s0)", L_p_: "f32[s0]", s1: "Sym(s1)", L_q_: "f32[s1]")',
    "two marked dims of equal size get two symbols (no duck sizing)")
  t.is(lines(c.traces[1].trace:guards()), "2 <= L['p'].size()[0]\n2 <= L['q'].size()[0]", "and no equality guard")
end

-- 12. a Lua integer argument is a constant of the graph, guarded by value
do
  local c = torch.compile(function(x, k) return x * k, k end, { backend = "eager", name = "scale" })
  local out, k = c(T{3}, 4)
  t.is(out:meta(), "f32[3]", "x * k with k = 4")
  t.is(math.type(k), "integer", "the function sees a plain integer")
  t.has(c.traces[1].trace:graph(), '        mul: "f32[3]" = l_x_ * 4;  l_x_ = None\n',
    "baked into the graph as the constant 4, with no placeholder")
  t.is(c.traces[1].trace:graph():match('def forward%b()'), 'def forward(self, L_x_: "f32[3]")', "k is not a graph input")
  t.is(lines(c.traces[1].trace:guards()), "L['k'] == 4", "guarded: L['k'] == 4")
  c(T{3}, 4)
  t.is(#c.entries, 1, "the same value hits the cache")
  c(T{3}, 5)
  t.is(#c.entries, 2, "another value recompiles")
  t.is(c.last_recompile, string.format(
    "Recompiling function scale in %s\n    triggered by the following guard failure(s):\n    - %s: k == 4",
    c.where, c.entries[1].compile_id), "because k == 4 failed")
  t.is(c.entries[2].trace:graph():match('def forward%b()'), 'def forward(self, L_x_: "f32[3]", L_k_: "Sym(s0)")',
    "automatic dynamic: after a recompile on its value the integer is a SymInt input")
  t.is(#c.entries[2].trace:guards(), 0, "with no value guard")
  c(T{3}, 7)
  t.is(#c.entries, 2, "so a third value hits the dynamic entry")
  -- a float, boolean or string argument is a constant too, guarded by value
  local e = torch.compile(function(x, k, flag, mode) if flag then return x * k end return x end,
                          { backend = "eager", name = "consts" })
  e(T{3}, 2.5, true, "a")
  t.has(e.traces[1].trace:graph(), "l_x_ * 2.5", "the float is baked into the graph")
  e(T{3}, 2.5, true, "a")
  t.is(#e.entries, 1, "the same constants hit the cache")
  e(T{3}, 3.5, false, "b")
  t.is(#e.entries, 2, "other constants recompile")
  t.has(e.last_recompile, ": k == 2.5; flag == True; mode == 'a'", "each changed constant is a failed guard, spelled as Python")
  t.is(lines(shapedb.guards_diff(e.entries[1], e.entries[2])),
    "- L['k'] == 2.5\n- L['flag'] == True\n- L['mode'] == 'a'\n+ L['k'] == 3.5\n+ L['flag'] == False\n+ L['mode'] == 'b'",
    "and in the guards diff")
  local d = torch.compile(function(x, k) return x * k end, { backend = "eager", dynamic = true })
  d(T{3}, 4)
  t.is(d.traces[1].trace:graph():match('def forward%b()'),
    'def forward(self, s0: "Sym(s0)", L_x_: "f32[s0]", L_k_: "Sym(s1)")', "dynamic = true: the integer is a SymInt input")
  t.is(lines(d.traces[1].trace:guards()), "2 <= L['x'].size()[0]", "with no value guard")
end

-- 13. select with an index of unknown sign: the view's storage offset is a
--     fresh unbacked symbol, bound at .storage_offset()
do
  local mark = shapedb.event_count()
  local function f(x, i)
    local r = x:select(0, i:item())
    return r, r:storage_offset()
  end
  local c = torch.compile(f, { backend = "eager" })
  local r, off = c(T{4, 3}, T{dtype = "int64"})
  t.is(r:meta(true), "f32[3][1]", "the selected row")
  t.is(tostring(off), "u1", "its storage offset is u1")
  local tr = c.traces[1].trace
  t.is(tr:graph(), lines{
    'class GraphModule(torch.nn.Module):',
    '    def forward(self, L_x_: "f32[4, 3]", L_i_: "i64[]"):',
    '        l_x_ = L_x_',
    '        l_i_ = L_i_',
    '        item: "Sym(u0)" = l_i_.item();  l_i_ = None',
    '        # u0: <value>',
    '        select: "f32[3]" = l_x_.select(0, item);  l_x_ = item = None',
    '        # u1: .storage_offset()',
    '        storage_offset: "Sym(u1)" = select.storage_offset()',
    '        return (select, storage_offset)',
    '',
  }, "the select node binds u1")
  t.is(lines(tr:bindings()), "item: u0: <value>\nselect: u1: .storage_offset()", "bindings per node")
  local seen = {}
  for _, e in ipairs(events_since(mark)) do
    if e:find("u1", 1, true) and not e:find("^node_placed") then seen[#seen + 1] = e end
  end
  t.is(lines(seen), lines{
    "create_unbacked_symbol u1 [-int_oo, int_oo]",
    "pending_changed {u1}",
    "unbacked_bindings %select u1: .storage_offset()",
    "symbol_bound u1 sym_storage_offset",
  }, "created by select, pending, bound at .storage_offset()")
  local g = torch.compile(function(x, i)
    local u = i:item()
    torch._check(u:ge(0))
    return x:select(0, u):storage_offset()
  end, { backend = "eager" })
  t.is(tostring(g(T{4, 3}, T{dtype = "int64"})), "3*u0", "a non-negative index: the offset is 3*u0, no new symbol")
  t.is(lines(g.traces[1].trace:bindings()), "item: u0: <value>", "and nothing for select to bind")
end

-- 14. stride and storage-offset source names
do
  local src = shapedb.source
  t.is(tostring(src("x"):stride(1)), "L['x'].stride()[1]", "stride source name")
  t.is(tostring(src("x"):storage_offset()), "L['x'].storage_offset()", "storage offset source name")
  t.ok(src("L['x'].stride()[1]") == src("x"):stride(1), "stride()[1] parses back to the same source")
  t.ok(src("L['x'].storage_offset()") == src("x"):storage_offset(), "so does storage_offset()")
  local env = shapedb.shape_env()
  local o = env:create_symbol(3, src("x"):storage_offset())
  env:evaluate(o:gt(2))
  t.is(lines(env:produce_guards()), "3 <= L['x'].storage_offset()", "a guard on a storage offset names it")
  local c = torch.compile(function(x) return x * 2 end, { backend = "eager", dynamic = true })
  c(T{4, 3, 5})
  t.is(lines(c.traces[1].trace:guards()), lines{
    "L['x'].stride()[0] == L['x'].size()[1]*L['x'].size()[2]",
    "L['x'].stride()[1] == L['x'].size()[2]",
    "2 <= L['x'].size()[0]",
    "2 <= L['x'].size()[1]",
    "2 <= L['x'].size()[2]",
  }, "a 3-d dynamic input guards L['x'].stride()[1]")
end

-- 15. relations keep the orientation written (sympy's Gt(s1, s0) is `s1 > s0`)
do
  local function guards_of(model, x)
    local c = torch.compile(model, { backend = "eager", dynamic = true })
    c(x)
    local out = {}
    for _, g in ipairs(c.traces[1].trace:guards()) do
      if not g:find("stride") then out[#out + 1] = g end
    end
    return lines(out)
  end
  local r0 = "\n2 <= L['a'].size()[0]\n3 <= L['a'].size()[1]"
  local gt = "L['a'].size()[1] > L['a'].size()[0]" .. r0
  t.is(guards_of(function(a) if a:size(1) > a:size(0) then return a * 2 end return a end, T{3, 5}),
       gt, "a > b guards as written")
  t.is(guards_of(function(a) if a:size(0) < a:size(1) then return a * 2 end return a end, T{3, 5}),
       "L['a'].size()[0] < L['a'].size()[1]" .. r0, "a < b too")
  t.is(guards_of(function(a) if a:size(1) > a:size(0) then return a * 2 end return a end, T{5, 3}),
       "L['a'].size()[1] <= L['a'].size()[0]\n2 <= L['a'].size()[0]\n2 <= L['a'].size()[1]", "the negation of a > b is a <= b, as sympy's negated")
  t.is(guards_of(function(a) if a:size(1) >= a:size(0) + 1 then return a * 2 end return a end, T{3, 5}),
       "L['a'].size()[1] >= 1 + L['a'].size()[0]" .. r0, ">= too")
  t.is(guards_of(function(a) torch._check(a:size(1):gt(a:size(0))) return a * 2 end, T{3, 5}),
       gt, "and SymInt:gt")
  t.is(guards_of(function(a)
    if a:size(1) > a:size(0) then a = a * 2 end
    if a:size(0) < a:size(1) then a = a * 3 end
    return a
  end, T{3, 5}), gt, "b < a after a > b is known, not a second guard")
end

-- 16. views keep the simplest size: (s0*s1)//s0 is s1, Mod(s0*s1, s0) is 0,
-- so view(n, -1) takes no divisibility guard, in any phase
do
  local function model(x, y)
    local n = x:size(0)
    return (x + y):view(n, -1):view(n, -1):view(n, -1)
  end
  for _, be in ipairs{ "eager", "aot_eager", "inductor" } do
    local c = torch.compile(model, { backend = be, dynamic = true })
    t.is(tostring(c(T{4, 6}, T{4, 6})), "FakeTensor(..., size=(s0, s1))", be .. ": view(n, -1) of [s0, s1] is [s0, s1]")
    t.is(lines(c.traces[1].trace:guards()), lines{
      "L['x'].stride()[0] == L['x'].size()[1]",
      "L['y'].size()[0] == L['x'].size()[0]",
      "L['y'].size()[1] == L['x'].size()[1]",
      "L['y'].stride()[0] == L['x'].size()[1]",
      "2 <= L['x'].size()[0]",
      "2 <= L['x'].size()[1]",
    }, be .. ": no Mod or FloorDiv guard")
  end
end

-- 17. TENSOR_MATCH failures as guards.cpp's TensorCheck words them: the
-- first of device (dispatch key set), dtype, requires_grad, rank; then one
-- size or stride per tensor; strides are part of the check
do
  local function reason(dynamic, first, second)
    local c = torch.compile(function(a) return a * 2 end, { backend = "eager", dynamic = dynamic })
    c(first)
    c(second)
    return (c.last_recompile or ""):match("%- %d+/0: ([^\n]*)") or c.last_recompile
  end
  local a = T{3, 4, 5}
  t.is(reason(false, a, T{2, 4, 5}), "tensor 'a' size mismatch at index 0. expected 3, actual 2", "size")
  t.is(reason(false, a, a:as_strided({3, 4, 5}, {1, 3, 12})),
       "tensor 'a' stride mismatch at index 0. expected 20, actual 1", "stride, the first one only")
  t.is(reason(false, a, T{3, 4}), "tensor 'a' rank mismatch. expected 3, actual 2", "rank (was a KeyError)")
  t.is(reason(false, a, T{3, 4, 5, dtype = "float16"}), "tensor 'a' dtype mismatch. expected Float, actual Half", "dtype")
  t.is(reason(false, a, T{3, 4, 5, device = "meta"}),
       "tensor 'a' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), " ..
       "actual DispatchKeySet(Meta, BackendSelect, ADInplaceOrView, AutogradMeta)", "device: the dispatch key set")
  t.is(reason(false, a, T{3, 4, 5, requires_grad = true}), "tensor 'a' requires_grad mismatch. expected requires_grad=0",
       "requires_grad")
  t.is(reason(true, a, T{3, 4}), "tensor 'a' rank mismatch. expected 3, actual 2", "rank with dynamic shapes")
  t.is(reason(true, a, T{4, 3, 5}:transpose(0, 1)),
       "a.stride()[0] == a.size()[1]*a.size()[2]; a.stride()[1] == a.size()[2]",
       "a transposed input fails the symbolic stride guards")
end

-- slicing with unbacked bounds (#19 item 3), as fake_impls' slice_forward:
-- bounds guard_or_false cannot place leave the size (and the storage
-- offset) to fresh unbacked symbols with PyTorch's torch._check's on them;
-- a bound in range by construction keeps a closed form
do
  local function f(x, a, b)
    local s, e = a:long():item(), b:long():item()
    torch._check(s:ge(-1000)); torch._check(s:le(1000))
    torch._check(e:ge(-1000)); torch._check(e:le(1000))
    return x:slice(0, s, e)
  end
  local c = torch.compile(f, { backend = "eager" })
  local out = c(T{10}, T{2}:long():sum(), T{2}:long():sum())
  t.is(out:meta(), "f32[u2]", "x[a:b] with bounds in [-1000, 1000]: a fresh size u2, not a Min/Max formula")
  local g = c.entries[1].trace:graph()
  t.has(g, "# u2: .size()[0], u3: .storage_offset()", "the size and the storage offset are bound on the slice")
  t.has(g, "Runtime assertion failed for expression u2 >= 0", "torch._check(new_size >= 0)")
  t.has(g, "Runtime assertion failed for expression u2 <= 10", "torch._check(new_size <= sizes[dim])")
  t.has(g, "Runtime assertion failed for expression u3 >= 0", "torch._check(storage_offset >= 0)")
  local h = torch.compile(function(x) return x:nonzero():slice(0, 1) end, { backend = "eager" })
  t.is(h(T{10}):meta(), "i64[u0 - Min(1, u0), 1]", "x[1:] of an unbacked length: start Min(1, u0), no new symbol")
end

-- a finished trace takes no more inputs and finishes once (its tracer has
-- let go of what tracing needed; found in review)
do
  local compiled = torch.compile(function(x) return x + 1 end, { backend = "eager", name = "twice" })
  compiled(T{3})
  local tr = compiled.traces[1].trace
  local ok, err = pcall(tr.finish, tr, {})
  t.ok(not ok and tostring(err):find("finish: the trace phase has already finished", 1, true),
       "finish after finish: " .. tostring(err))
  ok, err = pcall(tr.input, tr, "y", T{2})
  t.ok(not ok and tostring(err):find("input: the trace phase has finished", 1, true),
       "input after finish: " .. tostring(err))
end

t.done()
