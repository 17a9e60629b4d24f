-- nonzero.lua — a data-dependent output size: nonzero allocates a fresh
-- unbacked symbol u0, which is pending until the node that produced it is
-- placed, then bound at .size()[0] (seed 001). The graph asserts u0's
-- range at run time (u0 >= 0, u0 <= 10); _check_is_size adds no fact.
local function model(x, y)
  local idx = x:nonzero()               -- i64[u0, 2]
  torch._check_is_size(idx:size(0))
  return idx:sum() + y:sum()
end

local compiled = torch.compile(model, { backend = "eager" })
local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
return out
