--| shapedb tour: how unbacked symbols appear, wait, and get bound.
--| This program compiles three small models: nonzero (an output size that
--| depends on data), item (a value that becomes a size), and cond (a
--| data-dependent branch). You are stopped before its first event. Try:
--|   break unbacked     stop whenever an unbacked symbol is created
--|   continue           run to it: u0 is created, then pending: {u0}
--|   step               (Enter repeats) the node is placed, u0 gets bound
--|   explain u0         the whole life of u0 so far
--|   break phase cond   then continue, next, finish: the cond branches
--|   info guards | info graph | reverse-step | print u0 >= 0 | help
--| New to unbacked symbols? `tutorial` lists eleven guided lessons.
-- tour.lua — the program `make run` opens the debugger on.

-- 1. nonzero: the number of non-zero entries is data. nonzero allocates a
-- fresh unbacked symbol u0 for it; u0 is pending until the node that
-- produced it is placed in the graph, where its key path .size()[0] is
-- recorded (the unbacked binding).
local function rows(x)
  local idx = x:nonzero()                -- i64[u0, 2]
  torch._check_is_size(idx:size(0))      -- a runtime assert on u0
  return idx:sum()
end

-- 2. item: a tensor's value becomes a SymInt with no hint. torch._check
-- teaches the ShapeEnv a fact about it (a deferred runtime assert that
-- also narrows its range).
local function scale(x, w)
  local n = x:sum():item()               -- u0, bound at the empty key path
  torch._check(n:ge(1))                  -- u0 >= 1: range [1, int_oo]
  return w * n
end

-- 3. cond: both branches are traced in nested tracers (trace >
-- cond.true_branch), the outer symbols they use are lifted into them as
-- inputs, and the outputs are merged.
local function branch(x)
  local out = torch.cond(x:sum():gt(0),
                         function() return x:sin() end,
                         function() return x:cos() end)
  return out                             -- (not `return torch.cond(...)`:
end                                      -- a tail call hides this frame)

local x = shapedb.tensor{5, 2}
local r1 = torch.compile(rows, { backend = "eager" })(x)
local r2 = torch.compile(scale, { backend = "eager" })(shapedb.tensor{4, dtype = "int64"},
                                                       shapedb.tensor{3, 3})
local r3 = torch.compile(branch, { backend = "eager", dynamic = true })(shapedb.tensor{6})
print("tour finished: `info phases`, `info events all`, or `report` show what happened")
return r1, r2, r3
