-- expr.lua — the Expr userdata from Lua: canonical printing, metamethods,
-- subs/eval/free_symbols, bound, and the errors a user meets.
local t = require("tap")
local E = shapedb.expr

t.is(tostring(E("s0 + s0*2")), "3*s0", "issue example prints 3*s0")
local s0, s1, u0 = shapedb.symbols("s0 s1 u0")
t.is(tostring(s0 * 2 + s1 * s0 + 2), "s0*s1 + 2*s0 + 2", "arithmetic metamethods build canonical sums")
t.is(tostring(2 * s0 - u0), "2*s0 - u0", "subtraction keeps sympy's order")
t.is(tostring(s0 // 2), "(s0//2)", "// is FloorDiv")
t.is(tostring(s0 % 4), "Mod(s0, 4)", "% is Mod")
t.is(tostring(-(s0 + 1)), "-s0 - 1", "unary minus distributes")
t.is(tostring(s0 ^ 2), "s0**2", "^ is a power")
t.is(tostring(u0:gt(2)), "u0 > 2", ":gt builds a relation without deciding it")
t.is(tostring(u0:ge(0)), "u0 >= 0", ":ge")
t.is(tostring(u0:eq(1)), "Eq(u0, 1)", ":eq")
t.is(tostring(s0:ne(1)), "Ne(s0, 1)", ":ne")
t.is(tostring(s0:lt(5) & u0:ge(0)), "(u0 >= 0) & (s0 < 5)", "& is And")
t.is(tostring(u0:max(1)), "Max(1, u0)", ":max")
t.ok(E("s0*s1 + 2") == E("2 + s1*s0"), "== is structural (pointer) equality")
t.ok(E("s0") ~= E("s1"), "different symbols differ")
t.ok(E(3) < E(5), "< decides constant relations")
t.ok(not (E("s0 + 1") <= E("s0")), "<= decides when the sides differ by a constant")
t.error_like(function() return s0 < 5 end,
  "cannot decide s0 < 5 without a ShapeEnv; build the relation with :lt() instead",
  "< on an undecidable relation explains what to do")
t.is("size " .. s0 * 3, "size 3*s0", ".. concatenates the printed form")

-- subs / eval / free_symbols
t.is(tostring(E("s0*2 + s1"):subs{ s0 = 4 }), "s1 + 8", "subs with a number")
t.is(tostring(E("s0*2 + s1"):subs{ s1 = "s2 - 2*s0" }), "s2", "subs with text, then canonicalised")
t.is(E("s0*2 + s1"):eval{ s0 = 4, s1 = 3 }, 11, "eval")
t.is(E("Mod(s0, 3)"):eval{ s0 = -7 }, 2, "eval uses Python's mod")
t.is(E("s0 // 2"):eval{ s0 = -7 }, -4, "eval uses floor division")
t.is(E("u0 > 2"):eval{ u0 = 3 }, true, "a boolean expression evaluates to a boolean")
local fs = E("u1*s0 + Max(s1, u0)"):free_symbols()
t.is(#fs, 4, "free_symbols count")
t.is(table.concat((function() local o = {} for i, s in ipairs(fs) do o[i] = tostring(s) end return o end)(), ","),
  "s0,s1,u0,u1", "free_symbols are sorted")
t.is(E("s0 + 1"):kind(), "Add", ":kind")
t.is(E("7"):value(), 7, ":value of a constant")

-- bound
t.is(tostring(shapedb.bound("s0*2", { s0 = {2, nil} })), "[4, int_oo]", "bound with an open upper end")
t.is(tostring(shapedb.bound("Mod(u0, 4)", {})), "[0, 3]", "bound of Mod")
t.is(tostring(shapedb.bound("u0 >= 0", { u0 = { lo = 0 } })), "[True, True]", "bound of a relation")
local r = shapedb.bound("s0 - 1", { s0 = {2, 10} })
t.is(r.lo, 1, "range lo")
t.is(r.hi, 9, "range hi")

-- errors
t.error_like(function() E("s0 +") end, "cannot parse 's0 +': column 5: unexpected end of input",
  "parse errors name the column")
t.error_like(function() E("s0 // 0") end, "division by zero", "division by zero in text")
t.error_like(function() return s0 // 0 end, "division by zero", "division by zero by metamethod")
t.error_like(function() return E("9223372036854775806") + 1 end, "integer overflow", "overflow is an error")
t.error_like(function() E("s0*2"):eval{} end, "cannot evaluate 2*s0: no value for symbol s0",
  "eval names the missing symbol")
t.error_like(function() E("s0 // s1"):eval{ s0 = 1, s1 = 0 } end, "division by zero", "eval division by zero")
t.error_like(function() E({}) end, "expression expected", "wrong argument type")
t.error_like(function() E(1.5) end, "non-integral number", "non-integral number")
t.done()
