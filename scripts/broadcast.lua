-- broadcast.lua — adding two tensors whose sizes are different symbols:
-- broadcasting checks each size is not 1 (statically known from [2, int_oo])
-- and then guards Eq(s0, s1), which makes s1 -> s0 a replacement. The guard
-- shows up in source form as L['y'].size()[0] == L['x'].size()[0].
local function model(x, y)
  return x + y
end

-- duck sizing off, so equal sizes still get two symbols
local compiled = torch.compile(model, { backend = "eager", dynamic = true, duck_shape = false })
local out = compiled(shapedb.tensor{8}, shapedb.tensor{8})
return out
