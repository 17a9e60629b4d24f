-- item.lua — .item() turns data into an unbacked SymInt u0 (no hint, range
-- [-int_oo, int_oo]); torch._check teaches the ShapeEnv facts about it,
-- recorded as deferred runtime asserts that refine its range.
local function model(x, w)
  local n = x:sum():item()              -- u0, bound with the empty key path
  torch._check(n:ge(1))                 -- runtime assert u0 >= 1, range [1, int_oo]
  torch._check(n:le(64))                -- u0 <= 64: range [1, 64]
  return w * n
end

local compiled = torch.compile(model, { backend = "eager" })
local out = compiled(shapedb.tensor{4, dtype = "int64"}, shapedb.tensor{3, 3})
return out
