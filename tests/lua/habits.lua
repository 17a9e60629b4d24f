-- habits.lua — PyTorch habits written in Lua get an error that says what
-- to write instead, at the user's line: 0-based and negative t.shape
-- indices, [] indexing of a tensor, a method called with '.'.
local t = require("tap")
local x = shapedb.tensor{5, 3}

t.error_like(function() return x.shape[0] end,
  "habits.lua:7: IndexError: shape[0]: a Lua table counts from 1, so the first size is shape[1] (or t:size(0), 0-based as in PyTorch)",
  "t.shape[0]: Lua counts from 1")
t.error_like(function() return x.shape[-1] end,
  "IndexError: shape[-1]: Lua tables do not count from the end; write t:size(-1) (or shape[#shape])",
  "t.shape[-1]")
t.error_like(function() return x.shape[-2] end,
  "write t:size(-2) (or shape[#shape - 1])", "t.shape[-2]")
t.is(x.shape[1], 5, "t.shape[1] is the first size")
local n = 0
for _ in ipairs(x.shape) do n = n + 1 end
t.is(n, 2, "ipairs(t.shape) ends past the last dim")
t.error_like(function() return x[0] end,
  "habits.lua:19: TypeError: tensors are not indexed with [] here: x[i] is t:select(0, i), x[a:b] is t:narrow(0, a, b - a) or t:slice(0, a, b), x[mask] is t:masked_select(mask)",
  "t[0]")
t.error_like(function() return x[{{0, 2}}] end, "tensors are not indexed with [] here", "t[{{0, 2}}]")
t.error_like(function() return x.sum() end,
  "habits.lua:23: TypeError: sum() was called without its tensor: in Lua a method call takes ':' (t:sum(...) for a tensor t), or call torch.sum(t, ...)",
  "y.sum() instead of y:sum()")
-- a method torch has no function for is not offered as one; methods that
-- are not ops say the same
t.error_like(function() return x.view(-1) end,
  "TypeError: view() was called without its tensor: in Lua a method call takes ':' (t:view(...) for a tensor t)",
  "x.view(-1): no torch.view to offer")
do
  local _, e = pcall(function() return x.view(-1) end)
  t.ok(not tostring(e):find("torch.view", 1, true), "x.view(-1) does not suggest torch.view")
end
t.error_like(function() return x.size(0) end,
  "habits.lua:35: TypeError: size() was called without its tensor: in Lua a method call takes ':' (t:size(...) for a tensor t)",
  "x.size(0) instead of x:size(0)")
t.is(tostring(x:sum()), "FakeTensor(..., size=())", "y:sum() works")

-- the fixes a data-dependent error suggests, in Lua with the user's names
do
  local function check_op(x)
    local idx = x:nonzero()
    local n = idx:size(0)
    torch._check(n > 2)
    return idx
  end
  local _, err = pcall(torch.compile(check_op, { backend = "eager" }), shapedb.tensor{5, 2})
  t.has(tostring(err), "To fix the error, insert one of the following checks before this call:\n  1. torch._check(idx:size(0):gt(2))\n  2. torch._check(idx:size(0):le(2))\n\n(These suggested fixes were derived by replacing `u0` with idx:size(0) or n in u0 > 2 and its negation.)",
    "fixes name the locals holding u0, in the order they were declared")
  t.has(tostring(err), "The line compares SymInts with an operator inside torch._check: in Lua `<`, `<=`, `>`, `>=` and `==` on SymInts decide at once",
    "torch._check(n > 2) is explained")
  local function branch(x)
    local idx = x:nonzero()
    if idx:size(0) + 1 > 4 then return idx end
    return x
  end
  _, err = pcall(torch.compile(branch, { backend = "eager" }), shapedb.tensor{5, 2})
  t.has(tostring(err), "  1. torch._check((idx:size(0) + 1):gt(4))\n  2. torch._check((idx:size(0) + 1):le(4))",
    "a compound condition: the receiver in parentheses")
  t.ok(not tostring(err):find("inside torch._check"), "no torch._check note for an if")
  local function anon(x)
    if x:nonzero():size(0) > 3 then return x end
    return x
  end
  _, err = pcall(torch.compile(anon, { backend = "eager" }), shapedb.tensor{5, 2})
  t.has(tostring(err), "  1. torch._check(u0 > 3)\n  2. torch._check(u0 <= 3)",
    "no local holds u0: the symbols stay")
end

t.done()
