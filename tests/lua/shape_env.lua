-- shape_env.lua — the ShapeEnv rules with exact strings: backed and
-- unbacked symbols, guards only when not statically known, replacements,
-- data-dependent errors, torch._check, renaming, symbolic contexts,
-- produce_guards / check_guards, and the event stream.
local t = require("tap")
local src = shapedb.source

local function strs(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = tostring(v) end
  return table.concat(out, " | ")
end

-- duck sizing on: same hint, same symbol; off: a new one
do
  local env = shapedb.shape_env()
  local a = env:create_symbol(5, src("x"):size(0))
  local b = env:create_symbol(5, src("y"):size(0))
  local c = env:create_symbol(7, src("y"):size(1))
  t.is(strs{a, b, c}, "s0 | s0 | s1", "duck sizing shares s0 between equal hints")
  t.is(tostring(env:range(a)), "[2, int_oo]", "a backed size symbol has range [2, int_oo]")
  local syms = env:symbols()
  t.is(syms[1].source, "L['x'].size()[0]", "the first source is canonical")
  t.is(syms[1].hint, 5, "the hint is recorded")
  t.is(strs(env:produce_guards()),
    "L['y'].size()[0] == L['x'].size()[0] | 2 <= L['x'].size()[0] | 2 <= L['y'].size()[1]",
    "duck sizing shows up as an input equality guard")
  local off = shapedb.shape_env{ duck_shape = false }
  t.is(strs{off:create_symbol(5, "L['x'].size()[0]"), off:create_symbol(5, "L['y'].size()[0]")},
    "s0 | s1", "duck sizing off: two symbols")
end

-- 0/1 specialization, STATIC, DYNAMIC, min/max constraints
do
  local env = shapedb.shape_env()
  t.is(tostring(env:create_symbol(1, "L['x'].size()[0]")), "1", "size 1 specializes to a constant")
  t.is(tostring(env:create_symbol(0, "L['x'].size()[1]")), "0", "size 0 specializes to a constant")
  t.is(tostring(env:create_symbol(6, "L['x'].size()[2]", { dynamic = "STATIC" })), "6", "a STATIC dim is a constant")
  t.is(strs(env:specializations()),
    "L['x'].size()[0] = 1 (0/1 specialization) | L['x'].size()[1] = 0 (0/1 specialization)",
    "0/1 specializations are recorded, not symbols (STATIC dims are constants by policy)")
  t.is(#env:symbols(), 0, "no symbol was created")
  local d = env:create_symbol(6, "L['y'].size()[0]")
  local e = env:create_symbol(6, "L['z'].size()[0]", { dynamic = "DYNAMIC" })
  t.is(strs{d, e}, "s0 | s1", "DYNAMIC never duck-shares")
  local m = env:create_symbol(8, "L['w'].size()[0]", { min = 4, max = 64 })
  t.is(tostring(env:range(m)), "[4, 64]", "a min/max constraint narrows the range")
  t.error_like(function() env:create_symbol(100, "L['v'].size()[0]", { max = 64 }) end,
    "ConstraintViolationError: 100 not in range [2, 64]", "a hint outside the constraint is an error")
  t.error_like(function() env:create_symbol(5, "L['v'].size()[0]", { min = 3, max = 3 }) end,
    "Static shape constraint of 3 does not match input size of 5, for L['v'].size()[0]",
    "min == max is a static constraint")
  local n = env:create_symbol(1, "L['n']", { unspecified = true })
  t.is(tostring(n), "s3", "an unspecified int does not specialize 0/1")
  t.is(tostring(env:range(n)), "[-int_oo, int_oo]", "and has an unbounded range")
end

-- unbacked symbols, pending, ignore scope, SymBool and SymFloat
do
  local env = shapedb.shape_env()
  local u0 = env:create_unbacked_symint()
  t.is(tostring(u0), "u0", "unbacked symbols are u0, u1, ...")
  t.is(tostring(env:range(u0)), "[-int_oo, int_oo]", "unbacked range is unbounded")
  t.is(strs(env:pending()), "u0", "a fresh unbacked symbol is pending")
  local b = env:create_unbacked_symbool()
  t.is(tostring(b), "Eq(u1, 1)", "an unbacked SymBool is Eq(u1, 1)")
  t.is(tostring(env:range(shapedb.sym("u1"))), "[0, 1]", "its symbol has range [0, 1]")
  t.is(tostring(env:create_unbacked_symfloat()), "zuf0", "an unbacked float is zuf0")
  t.is(strs(env:pending()), "u0 | u1 | zuf0", "all three are pending")
  local inside = env:ignore_fresh_unbacked_symbols(function() return env:create_unbacked_symint() end)
  t.is(tostring(inside), "u2", "symbols are still created in the ignore scope")
  t.is(strs(env:pending()), "u0 | u1 | zuf0", "but nothing is appended to pending")
  env:pending_clear()
  t.is(#env:pending(), 0, "pending can be cleared")
  t.ok(env:is_unbacked(u0), "u0 is unbacked")
end

-- evaluate: decided statically -> no guard; otherwise guard on hints
do
  local env = shapedb.shape_env()
  local s0 = env:create_symbol(5, "L['x'].size()[0]")
  t.is(tostring(env:evaluate(s0:gt(1))), "True", "s0 > 1 is known from [2, int_oo]")
  t.is(#env:guards(), 0, "so no guard was taken")
  local guard_line = debug.getinfo(1, "l").currentline + 1
  t.is(tostring(env:evaluate(s0:lt(8))), "True", "s0 < 8 is decided by the hint")
  t.is(strs(env:guards()), "s0 < 8", "and taken as a guard")
  t.is(tostring(env:range(s0)), "[2, 7]", "the guard refines the range")
  t.is(tostring(env:evaluate(s0:lt(8))), "True", "asking again")
  t.is(#env:guards(), 1, "takes no second guard")
  t.is(env:guard_int(s0 * 2 + 1), 11, "guard_int evaluates with hints")
  t.is(strs(env:guards()), "s0 < 8 | Eq(2*s0 + 1, 11)", "and guards Eq(expr, value)")
  t.is(strs(env:replacements()), "s0 -> 5", "which specializes s0")
  t.ok(not env:statically_known_true(shapedb.expr("s9 > 0")), "statically_known_true never guards on unknowns")
  local g = env:guards()[1]
  t.is(g.phase, "trace", "guards record their phase")
  t.like(g.file, "shape_env%.lua$", "and the user's file")
  t.is(g.line, guard_line, "and line")
end

-- a replacement from an Eq guard: the newer symbol is replaced by the older
do
  local env = shapedb.shape_env{ duck_shape = false }
  local s0 = env:create_symbol(4, "L['a'].size()[0]")
  local s1 = env:create_symbol(4, "L['b'].size()[0]")
  t.is(tostring(env:evaluate(s1:eq(s0))), "True", "Eq(s1, s0) is true by hints")
  t.is(strs(env:guards()), "Eq(s0, s1)", "guard Eq(s0, s1)")
  t.is(strs(env:replacements()), "s1 -> s0", "s1 -> s0: the older symbol wins")
  t.is(env:replacements()[1].reason, "solve", "found by solving")
  t.is(tostring(env:simplify(s1 * 2 + s0)), "3*s0", "later expressions simplify through it")
  t.ok(env:statically_known_true(s0:eq(s1)), "Eq(s0, s1) is now statically known")
  t.is(strs(env:produce_guards()), "L['b'].size()[0] == L['a'].size()[0] | 2 <= L['a'].size()[0]",
    "produce_guards renders the equality against sources")
  -- a linear equality solves for the newer symbol
  local s2 = env:create_symbol(8, "L['c'].size()[0]")
  env:evaluate(s2:eq(s0 * 2))
  t.is(tostring(env:simplify(s2)), "2*s0", "Eq(s2, 2*s0) replaces s2")
  -- divisibility
  local s3 = env:create_symbol(6, "L['d'].size()[0]")
  env:evaluate((s3 % 3):eq(0))
  t.is(tostring(env:simplify(s3 % 3)), "0", "Eq(Mod(s3, 3), 0) makes Mod(s3, 3) zero")
  t.has(strs(env:produce_guards()), "L['d'].size()[0] % 3 == 0", "and the guard is kept")
end

-- data-dependent errors
do
  local env = shapedb.shape_env()
  local made_at = debug.getinfo(1, "l").currentline + 1
  local u0 = env:create_unbacked_symint()
  local asked_at = debug.getinfo(1, "l").currentline + 1
  local msg = t.error_of(function() env:guard_bool(u0:gt(2)) end)
  t.has(msg, "GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like symbols: none)",
    "DDE in PyTorch's words")
  t.has(msg, "\n\nconsider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.\nCaused by: ",
    "the size-oblivious hint, then Caused by")
  t.has(msg, "Caused by: local msg = t.error_of(function() env:guard_bool(u0:gt(2)) end)  # shape_env.lua:"
    .. asked_at .. " in function <", "Caused by shows the user's code, file and line")
  t.has(msg, "u0 [-int_oo, int_oo], created by create_unbacked_symint at shape_env.lua:" .. made_at
    .. " in main chunk (trace phase)", "where the unbacked symbol was created")
  t.has(msg, "To fix the error, insert one of the following checks before this call:\n  1. torch._check(u0 > 2)\n  2. torch._check(u0 <= 2)",
    "the suggested checks")
  env:check_is_size(u0)
  msg = t.error_of(function() env:guard_bool(u0:eq(1)) end)
  t.has(msg, "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: u0)",
    "size-like symbols are listed")
  local s0 = env:create_symbol(7, "L['x'].size()[0]")
  msg = t.error_of(function() env:guard_bool(u0:lt(s0)) end)
  t.has(msg, "data-dependent expression u0 < 7 (unhinted: u0 < s0)", "backed symbols show their hints first")
  msg = t.error_of(function() env:guard_int(u0 + 1) end)
  t.has(msg, "Could not extract specialized integer from data-dependent expression u0 + 1 (unhinted: u0 + 1).  (Size-like symbols: u0)\n\nCaused by:",
    "integer DDE has no suggestions line")
  t.ok(not msg:find("To fix the error", 1, true), "and no torch._check suggestions")
  t.is(#env:guards(), 0, "a failed guard records nothing")
end

-- torch._check: deferred runtime asserts that refine ranges
do
  local env = shapedb.shape_env()
  local u0 = env:create_unbacked_symint()
  t.ok(not env:statically_known_true(u0:ge(0)), "u0 >= 0 unknown at first")
  env:check(u0:ge(0))
  t.ok(env:statically_known_true(u0:ge(0)), "after _check(u0 >= 0) it is statically true")
  t.is(tostring(env:range(u0)), "[0, int_oo]", "and the range is refined")
  env:check(u0:gt(4))
  t.is(tostring(env:range(u0)), "[5, int_oo]", "_check(u0 > 4) refines to [5, int_oo]")
  t.ok(env:statically_known_true(u0:ge(5)), "u0 >= 5 is statically true")
  t.is(strs(env:runtime_asserts()), "u0 >= 0 | u0 > 4", "the deferred runtime asserts")
  t.is(tostring(env:runtime_asserts()[2].key), "u0", "keyed by their unbacked symbol")
  env:check(u0:gt(2))
  t.is(#env:runtime_asserts(), 2, "a statically true check adds nothing")
  t.error_like(function() env:check(u0:lt(3)) end,
    "RuntimeError: Expected cond to be True, but got False.", "a statically false check fails now")
  local u1, u2 = env:create_unbacked_symint(), env:create_unbacked_symint()
  env:check((u1 + u2):le(u0 + 10))
  t.is(tostring(env:runtime_asserts()[3].key), "u2", "an assert is kept under the highest unbacked symbol")
  -- Eq with a constant specializes
  local u3 = env:create_unbacked_symint()
  env:check(u3:eq(4))
  t.is(tostring(env:simplify(u3 * 2)), "8", "_check(Eq(u3, 4)) makes a replacement")
  -- Eq with a backed expression replaces the unbacked symbol
  local s0 = env:create_symbol(9, "L['x'].size()[0]")
  local u4 = env:create_unbacked_symint()
  env:check(u4:le(s0))
  t.is(tostring(env:range(u4)), "[-int_oo, int_oo]", "u4 <= s0 bounds u4 by s0's (infinite) upper bound")
  env:check(u4:eq(s0))
  t.is(tostring(env:simplify(u4)), "s0", "_check(Eq(u4, s0)) replaces u4 by s0")
  -- time travel: never replace an unbacked symbol by a later one
  local u5, u6 = env:create_unbacked_symint(), env:create_unbacked_symint()
  env:check(u5:eq(u6 * 4))
  t.is(tostring(env:simplify(u5)), "u5", "after _check(u5 == u6*4), u5 still prints as u5")
  t.is(tostring(env:simplify(u6)), "u6", "and u6 is not replaced either")
  -- a check on backed symbols is a normal guard
  local before = #env:guards()
  env:check(s0:gt(3))
  t.is(#env:guards(), before + 1, "_check on backed symbols guards")
  t.error_like(function() env:check(s0:lt(3), "s0 must be small") end, "RuntimeError: s0 must be small",
    "a failing backed check uses its message")
  t.error_like(function() env:check(u0 + 1) end, "torch._check expects a boolean condition",
    "_check needs a condition")
end

-- check_is_size marks size-like
do
  local env = shapedb.shape_env()
  local u0 = env:create_unbacked_symint()
  env:check_is_size(u0)
  local info = env:symbols()[1]
  t.ok(info.size_like, "check_is_size marks size-like")
  t.is(tostring(info.range), "[0, int_oo]", "and refines to [0, int_oo]")
  t.is(strs(env:runtime_asserts()), "u0 >= 0", "through _check(u0 >= 0)")
end

-- rename_unbacked_to keeps replacements (seed 003)
do
  local env = shapedb.shape_env()
  local s0 = env:create_symbol(5, "L['x'].size()[0]")
  local u0 = env:create_unbacked_symint()
  env:check(u0:eq(s0))
  t.is(strs(env:replacements()), "u0 -> s0", "u0 -> s0")
  local u1 = env:create_unbacked_symint()
  env:rename_unbacked_to(u0, u1)
  t.is(strs(env:replacements()), "u0 -> u1 | u1 -> s0", "renaming u0 to u1 re-applies u0's replacement to u1")
  t.is(tostring(env:simplify(u0)), "s0", "u0 still means s0")
  t.is(tostring(env:simplify(u1)), "s0", "and so does u1")
  t.is(strs(env:renamings()), "u0 -> u1", "the renaming is recorded")
  local u2 = env:create_unbacked_symint()
  env:rename_unbacked_to(u2, u1)
  t.is(tostring(env:simplify(u2)), "s0", "renaming into a symbol with a replacement")
  t.error_like(function() env:rename_unbacked_to(s0, u1) end, "renames one unbacked symbol to another",
    "only unbacked symbols are renamed")
end

-- symbolic contexts: the stateful cache returns the same symbols
do
  local ctx = shapedb.symbolic_context{ "DYNAMIC", "DYNAMIC", stateful = true }
  t.is(tostring(ctx), "StatefulSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC, DimDynamic.DYNAMIC])",
    "a stateful context prints like PyTorch's")
  local env = shapedb.shape_env()
  local a = env:create_symbol(3, "L['z'].size()[0]", { context = ctx, dim = 0 })
  local b = env:create_symbol(3, "L['z'].size()[1]", { context = ctx, dim = 1 })
  t.is(strs{a, b}, "s0 | s1", "DYNAMIC dims from the context do not duck-share")
  local a2 = env:create_symbol(3, "L['z'].size()[0]", { context = ctx, dim = 0 })
  local b2 = env:create_symbol(3, "L['z'].size()[1]", { context = ctx, dim = 1 })
  t.is(strs{a2, b2}, "s0 | s1", "re-fakifying the same sources returns the very same symbols")
  t.is(#env:symbols(), 2, "without creating new ones")
  local stateless = shapedb.symbolic_context{ "DYNAMIC", "STATIC" }
  local c = env:create_symbol(3, "L['q'].size()[0]", { context = stateless, dim = 0 })
  local c2 = env:create_symbol(3, "L['q'].size()[0]", { context = stateless, dim = 0 })
  t.isnt(tostring(c), tostring(c2), "a stateless context makes a new symbol each time")
  t.is(tostring(env:create_symbol(3, "L['q'].size()[1]", { context = stateless, dim = 1 })), "3",
    "a STATIC dim in the context is a constant")
end

-- produce_guards and check_guards
do
  local env = shapedb.shape_env()
  local x0 = env:create_symbol(3, "L['x'].size()[0]")
  env:create_symbol(2, "L['x'].size()[1]")
  local y0 = env:create_symbol(3, "L['y'].size()[0]")
  env:create_symbol(1, "L['y'].size()[1]")
  env:evaluate(x0:lt(5))
  local s1 = shapedb.sym("s1")
  env:evaluate((x0 + s1):gt(4))
  t.is(strs(env:produce_guards()),
    "L['y'].size()[0] == L['x'].size()[0] | L['x'].size()[0] + L['x'].size()[1] > 4 | " ..
    "2 <= L['x'].size()[0] and L['x'].size()[0] <= 4 | 2 <= L['x'].size()[1]",
    "equalities, surviving guards, then ranges")
  local ok, why = env:check_guards{ x = {3, 2}, y = {3, 1} }
  t.ok(ok, "the same shapes pass")
  t.is(#why, 0, "with no reasons")
  ok, why = env:check_guards{ x = {4, 2}, y = {4, 1} }
  t.ok(ok, "other sizes within every guard pass too")
  ok, why = env:check_guards{ x = {3, 2}, y = {4, 1} }
  t.ok(not ok, "a broken duck equality fails")
  t.is(why[1], "L['y'].size()[0] == L['x'].size()[0]", "and says which guard")
  ok, why = env:check_guards{ x = {6, 1}, y = {6, 5} }
  t.is(table.concat(why, " | "),
    "tensor 'L['y']' size mismatch at index 1. expected 1, actual 5 | " ..
    "2 <= L['x'].size()[0] and L['x'].size()[0] <= 4 | 2 <= L['x'].size()[1]",
    "every failing guard is reported, static dims as tensor mismatches")
  ok, why = env:check_guards{ x = {2, 2}, y = {2, 1} }
  t.is(table.concat(why, " | "), "L['x'].size()[0] + L['x'].size()[1] > 4", "a failing compound guard")
  t.error_like(function() env:check_guards{ x = {3, 2} } end, "no value given for L['y'].size()[0]",
    "a missing input is an error")
end

-- the event stream
do
  local env = shapedb.shape_env()
  local s0 = env:create_symbol(5, "L['x'].size()[0]")
  env:create_symbol(5, "L['y'].size()[0]")
  env:create_symbol(1, "L['y'].size()[1]")
  local u0 = env:create_unbacked_symint()
  env:check_is_size(u0)
  env:evaluate(s0:lt(9))
  local u1 = env:create_unbacked_symint()
  env:check(u1:eq(s0))
  env:rename_unbacked_to(u1, u0)
  t.is(table.concat(env:events(), "\n"), table.concat({
    "create_symbol s0 = 5 for L['x'].size()[0] [2, int_oo]",
    "create_symbol s0 = 5 for L['y'].size()[0] [2, int_oo] (duck sized)",
    "symbolic_shape_specialization L['y'].size()[1] = 1 (0/1 specialization)",
    "create_unbacked_symbol u0 [-int_oo, int_oo]",
    "pending_changed {u0}",
    "runtime_assert_added u0 >= 0",
    "range_refined u0 [0, int_oo]",
    "size_like u0",
    "guard_added s0 < 9",
    "range_refined s0 [2, 8]",
    "create_unbacked_symbol u1 [-int_oo, int_oo]",
    "pending_changed {u0, u1}",
    "runtime_assert_added Eq(s0, u1)",
    "range_refined u1 [2, 8]",
    "replacement_added u1 -> s0 (trivial_rhs)",
    "range_refined u0 [2, 8]",
    "size_like u1",
    "replacement_added u1 -> u0 (rename_unbacked_to)",
    "renamed u1 -> u0 (rebind_unbacked)",
    "size_like s0",
    "replacement_added u0 -> s0 (rename_unbacked_to_dest)",
  }, "\n"), "every state change is an event, in order")
end

-- statically_known_true with lower bounds and expansion, as _maybe_evaluate_static:
-- symbols with a finite lower bound are shifted to fresh positive ones and the
-- relation is expanded before it is bounded
do
  local env = shapedb.shape_env()
  local s2 = env:create_symbol(3, "L['x'].size()[0]")
  local s3 = env:create_symbol(4, "L['x'].size()[1]")
  t.ok(env:statically_known_true((s2 * s3):gt(s3)), "s0*s1 > s1 with sizes >= 2")
  t.ok(env:statically_known_true((s2 * s3):ge(s2 + s3)), "s0*s1 >= s0 + s1 too")
  t.ok(not env:statically_known_true((s2 * s3):gt(s3 + 4)), "s0*s1 > s1 + 4 is not known")
  t.ok(env:statically_known_true(((s2 + 1) * (s3 + 1)):gt(s2 * s3)), "(s0 + 1)*(s1 + 1) > s0*s1")
  local u0, u1, u2 = env:create_unbacked_symint(), env:create_unbacked_symint(), env:create_unbacked_symint()
  t.ok(env:statically_known_true((u2 * (u0 + u1)):eq(u0 * u2 + u1 * u2)),
       "Eq(u2*(u0 + u1), u0*u2 + u1*u2) is decided by expansion")
  t.is(#env:guards(), 0, "and none of it took a guard")
  t.is(tostring(shapedb.expand(shapedb.expr("u2*(u0 + u1)"))), "u0*u2 + u1*u2", "shapedb.expand")
  t.is(tostring(shapedb.expand(shapedb.expr("(s0 + 1)**2 + Max(s1, 2*(s0 + 1))"))),
       "s0**2 + 2*s0 + Max(s1, 2*s0 + 2) + 1", "into powers and function arguments")
end

t.done()
