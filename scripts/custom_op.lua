-- custom_op.lua — a custom operator whose output size depends on the data
-- (torch.library.custom_op with a fake kernel): ctx:new_dynamic_size() is
-- a fresh unbacked symbol, pending until the op's node binds it, renamed
-- by aot like nonzero's, and inductor lowers the op as a FallbackKernel.
local rows = torch.library.custom_op("mylib::nonzero_rows", function(x)
  return x:nonzero()
end)
rows:register_fake(function(x)
  local n = torch.library.get_ctx():new_dynamic_size()
  return x:new_empty({n, x:dim()}, {dtype = torch.int64})
end)

local function model(x)
  local idx = torch.ops.mylib.nonzero_rows(x)
  torch._check(idx:size(0):le(7))
  return idx * 2
end
return torch.compile(model, { backend = "inductor" })(shapedb.tensor{5, 2})
