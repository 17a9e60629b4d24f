-- Lesson 7: the backend gets a fresh fake mode. aot_eager does not reuse
-- Dynamo's fake tensors: it makes a new FakeTensorMode and fakifies the
-- inputs again, with the same symbolic context, so the same symbols come
-- back (seed 000).
local function model(x, y)
  return x:sum(1) + y
end
local compiled = torch.compile(model, { backend = "aot_eager", dynamic = true })
return compiled(shapedb.tensor{4, 3}, shapedb.tensor{4})
