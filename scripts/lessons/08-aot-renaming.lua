-- Lesson 8: the aot retrace. AOTAutograd traces the graph again under a
-- fresh fake mode: nonzero runs again and allocates a new symbol, which is
-- renamed to the one Dynamo's graph already uses (seed 003).
local function model(x)
  local idx = x:nonzero()
  return idx:sum()
end
local compiled = torch.compile(model, { backend = "aot_eager" })
return compiled(shapedb.tensor{5, 2})
