-- ddbranch.lua — branching on data fails: `v > 2` on an unbacked SymInt
-- needs a guard, and there is no hint to guard on. The error says where
-- u0 was created, where the branch is, and which torch._check would help.
-- (Run it: bin/shapedb scripts/ddbranch.lua — it exits with status 1.)
local function model(x)
  local v = x:sum():item()
  if v > 2 then                          -- GuardOnDataDependentSymNode
    return x * 2
  end
  return x
end

local compiled = torch.compile(model, { backend = "eager" })
local out = compiled(shapedb.tensor{3, dtype = "int64"})
return out
