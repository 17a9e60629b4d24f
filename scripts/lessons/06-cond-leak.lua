-- Lesson 6: a cond whose branches return nonzero results. Each branch's
-- row count is an unbacked symbol local to that branch (u0, u1); the cond's
-- output cannot use either, so cond creates a fresh one for it.
local function model(x)
  local out = torch.cond(x:sum():gt(0),
                         function() return x:nonzero() end,
                         function() return (x + 1):nonzero() end)
  return out
end
local compiled = torch.compile(model, { backend = "eager" })
return compiled(shapedb.tensor{3})
