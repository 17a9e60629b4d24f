-- robust.lua — hostile input never crashes or hangs (issue #16): parser
-- depth on every recursive path, print/parse round trip, the expression
-- size cap, UTF-8 and NUL in parse errors.
local t = require("tap")
local E = shapedb.expr

-- Every recursive path of the parser counts depth: a clear error, no crash.
local deep = {
  { "s0**", "s0", "right-associative **" },
  { "+", "s0", "unary +" },
  { "-", "s0", "unary -" },
  { "~", "True", "~" },
  { "(", "s0", "parentheses" },
  { "Max(", "s0", "function calls" },
  { "2**", "1", "** on integers" },
}
for _, d in ipairs(deep) do
  t.error_like(function() return E(string.rep(d[1], 20000) .. d[2]) end,
    "expression nested too deeply (limit 1000)", "20000-deep " .. d[3] .. " is an error")
end
t.error_like(function() return E(string.rep("s0**", 20000) .. "s0") end,
  "cannot parse 's0**s0**s0**s0**s0**s0**s0**s0**s0**s0**s0**s0**s0**s0**s0**...': column 4003",
  "the message quotes at most 60 bytes of the text")
t.is(E(string.rep("(", 999) .. "s0" .. string.rep(")", 999)), E("s0"),
  "999 parentheses are fine")

-- What shapedb prints, it parses.
local s0 = E("s0")
local p = s0 ^ 40 * s0 ^ 40
t.is(tostring(p), "s0**80", "s0**40*s0**40 prints s0**80")
t.ok(E(tostring(p)) == p, "and s0**80 parses back to the same expression")
t.is(tostring(E("(s0 + 1)**70")), "(s0 + 1)**70", "a sum to a large power")
t.is(tostring(E("(1 - s0)**1000000000000000")), "(s0 - 1)**1000000000000000",
  "a huge even power of a negated sum costs nothing")
t.is(tostring(E("(2*s0 + 2)**3")), "8*(s0 + 1)**3", "content comes out of a power")
t.error_like(function() return E("(2*s0 + 2)**64") end, "integer overflow",
  "and overflows cleanly")
t.is(tostring(E("(-1)**1000000000000000001")), "-1", "(-1)**odd")
local chain = E("s0")
for _ = 1, 300 do chain = chain // 2 + 1 end
t.ok(E(tostring(chain)) == chain, "a 300-deep FloorDiv chain round-trips")

-- Expressions cannot grow without bound.
t.error_like(function()
  local m = s0
  for _ = 1, 22 do m = m * (m + 1) + 1 end
end, "robust.lua:46: expression too large (114685 nodes, limit 100000)",
  "m = m*(m+1)+1 stops with the size cap, naming the line")

-- Parse errors never cut a UTF-8 character; NUL is not end of input.
t.error_like(function() return E("s0 + é") end, "column 6: unexpected 'é'",
  "a multibyte character is quoted whole")
t.error_like(function() return E("s0 ééééééééé") end, "unexpected 'ééééé'",
  "a snippet stops before a character that does not fit")
t.error_like(function() return E(string.rep("é", 40)) end,
  "cannot parse '" .. string.rep("é", 30) .. "...'", "the quoted text too")
t.error_like(function() return E("s0\0 + 1") end, "NUL byte at column 3",
  "a NUL byte is an error, not the end of the text")

-- Metatables are protected; an object whose __gc was called by hand is
-- closed, with a clear error.
local T = shapedb.tensor
t.is(getmetatable(T{2, 3}), "Tensor", "getmetatable(tensor) is the type's name")
t.is(getmetatable(E("s0")), "Expr", "getmetatable(Expr) too")
t.is(getmetatable(T{2}).__gc, nil, "so __gc cannot be reached by hand")
do
  local x = T{2, 3}
  debug.getmetatable(x).__gc(x)
  t.error_like(function() return x + 1 end, "Tensor is closed (its __gc was called)",
    "a tensor after __gc (through debug.getmetatable) is closed, not a crash")
  t.error_like(function() return x:size(0) end, "Tensor is closed", "its methods too")
  local f = torch.compile(function(a) return a * 2 end, { backend = "eager" })
  f(T{4})
  local tr = f.traces[1].trace
  debug.getmetatable(tr).__gc(tr)
  t.error_like(function() return tr:graph() end, "compile is closed (its __gc was called)",
    "a trace after __gc is closed")
end

-- A SymInt from one compile is refused in another, like a tensor.
do
  local kept
  local f = torch.compile(function(x) kept = x:size(0); return x * 2 end, { backend = "eager" })
  f(T{5, dynamic = {0}})
  t.is(kept, "s0", "the kept SymInt")
  local g = torch.compile(function(y) return y:view(kept) end, { backend = "eager" })
  t.error_like(function() return g(T{7, dynamic = {0}}) end,
    "RuntimeError: SymInt s0 was not created inside the traced function and is not one of its "
    .. "inputs (it comes from another compile; pass it as an argument)",
    "as an op argument")
  local h = torch.compile(function(y) return y:size(0) + kept end, { backend = "eager" })
  t.error_like(function() return h(T{7, dynamic = {0}}) end, "SymInt s0 was not created inside",
    "in arithmetic")
  local k = torch.compile(function(y) if kept > 2 then return y end return y end, { backend = "eager" })
  t.error_like(function() return k(T{7, dynamic = {0}}) end, "SymInt s0 was not created inside",
    "in a comparison (a guard)")
  t.is(tostring(kept * 2), "2*s0", "outside any compile it is still an expression")
end

-- A trace left suspended in a coroutine does not stay active.
do
  local f = torch.compile(function(x) coroutine.yield("paused"); return x * 2 end, { backend = "eager" })
  local co = coroutine.create(function() return f(T{5}) end)
  local ok, v = coroutine.resume(co)
  t.ok(ok and v == "paused", "the traced function yields inside its trace")
  local g = torch.compile(function(x) return x + 1 end, { backend = "eager" })
  t.is(g(T{3}), "FakeTensor(..., size=(3,))", "another compile meanwhile traces on its own")
  t.ok(not shapedb._tracing(), "and outside the coroutine nothing is being traced")
  ok, v = coroutine.resume(co)
  t.ok(ok, "the suspended trace resumes and finishes")
  t.is(v, "FakeTensor(..., size=(5,))", "with its own result")
  local co2 = coroutine.create(function() return f(T{6}) end)
  coroutine.resume(co2)
  co2 = nil
  collectgarbage()
  collectgarbage()
  t.is(g(T{3}), "FakeTensor(..., size=(3,))", "an abandoned suspended trace is collected cleanly")
end

-- Deep torch.wrap / torch.cond nesting is a Lua error naming the line, not
-- a C stack overflow.
do
  local function nest(x, d)
    if d == 0 then return x * 2 end
    local r = torch.wrap(function(y) local z = nest(y, d - 1); return z end, x)
    return r
  end
  local f = torch.compile(function(x) return nest(x, 1000) end, { backend = "eager" })
  t.error_like(function() return f(T{3}) end,
    "robust.lua:125: torch.wrap: higher-order ops nested too deeply (limit 64)",
    "1000 nested wraps stop at the limit, at the user's line")
  local g = torch.compile(function(x) return nest(x, 60) end, { backend = "eager" })
  t.is(g(T{3}), "FakeTensor(..., size=(3,))", "60 nested wraps are fine")
end

-- Found by fuzzing (tests/fuzz/expr/found-pow-minus-one): the bound of a
-- power looped once per unit of the exponent when the base could be -1,
-- and its shortcut made (-1)**odd come out as 1.
t.is(tostring(shapedb.bound("u0**3", { u0 = {-1, -1} })), "[-1, -1]", "(-1)**3 is -1")
t.is(tostring(shapedb.bound("u0**64112049", { u0 = {-1, 1} })), "[-1, 1]",
  "an odd power over [-1, 1], with a huge exponent, at once")
t.is(tostring(shapedb.bound("u0**64112048", { u0 = {-1, 1} })), "[0, 1]", "an even one")

-- A node's annotation that cannot be simplified for a reason other than
-- memory (here 4*u0 would overflow once u0 == 2**62 is known) is printed
-- as it is; only a simplification that ran out of memory fails the text.
do
  local f = torch.compile(function(x)
    local v = x:sum():long():item()
    local w = v * 4
    torch._check(v:eq(4611686018427387904))
    return x * w
  end, { backend = "eager", name = "ovf" })
  t.is(f(T{4}), "FakeTensor(..., size=(4,))", "a compile whose u0 is 2**62")
  local g = shapedb._traces[#shapedb._traces].trace:graph()
  t.like(g, 'mul: "Sym%(4%*u0%)" = item %* 4', "its graph prints 4*u0, left unsimplified")
end
t.done()
