-- Lesson 10: one guard set, then a recompile. Guards from tracing and from
-- the aot retrace end up in the one set Dynamo installs (seed 002); a call
-- that fails it recompiles, with the failing guard as the reason.
local function model(x, y)
  if x:size(0) > 3 then return x:sum() + y:sum() end
  return x:sum()
end
local compiled = torch.compile(model, { backend = "aot_eager", dynamic = true })
compiled(shapedb.tensor{5, 3}, shapedb.tensor{5})
compiled(shapedb.tensor{6, 3}, shapedb.tensor{6})
return compiled(shapedb.tensor{2, 3}, shapedb.tensor{2})
