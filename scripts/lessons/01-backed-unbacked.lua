-- Lesson 1: backed and unbacked symbols. A backed symbol (s0) stands for
-- an input size: it has a hint (the size of the example input) and a
-- source (where to read it at run time). Branching on it takes a guard.
-- An unbacked symbol (u0) comes from data: no hint, so it cannot guard.
local function model(x)
  local n = x:size(0)                     -- s0, from L['x'].size()[0]
  if n > 2 then                           -- a guard: s0 > 2
    x = x * 2
  end
  local v = x:sum():long():item()         -- u0: a value, no hint
  torch._check(v:ge(0))
  return x + v
end
local compiled = torch.compile(model, { backend = "eager", dynamic = true })
return compiled(shapedb.tensor{5})
