-- Lesson 9: lowering. Inductor turns nodes into buffers; a nonzero becomes
-- a FallbackKernel and its size a MultiOutput, and every unbacked symbol
-- must be defined by some buffer: the binding invariant (seed 003).
local function model(x)
  local idx = x:nonzero()
  return idx:sum()
end
local compiled = torch.compile(model, { backend = "inductor" })
return compiled(shapedb.tensor{5, 2})
