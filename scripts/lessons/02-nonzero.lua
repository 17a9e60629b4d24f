-- Lesson 2: nonzero. The number of non-zero entries of x is data, so
-- nonzero's output has a fresh unbacked size u0. u0 is pending until the
-- node that produced it is placed in the graph; then its binding is
-- recorded: the key path that reads u0 off the node's value (seed 001).
local function model(x)
  local idx = x:nonzero()                -- i64[u0, 2]
  torch._check_is_size(idx:size(0))      -- u0 is size-like already
  return idx:sum()
end

local compiled = torch.compile(model, { backend = "eager" })
return compiled(shapedb.tensor{5, 2})
