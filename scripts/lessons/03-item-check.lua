-- Lesson 3: item() and torch._check. item() makes an unbacked u0; a
-- torch._check on it is a runtime assert and narrows its range; a Python
-- `if` on it is the data-dependent error, which `why` and `assume` explore.
local function model(x)
  local n = x:sum():item()               -- u0
  torch._check(n:ge(1))                  -- runtime assert u0 >= 1
  if n > 2 then                          -- needs a hint u0 does not have
    return x * 2
  end
  return x
end
local compiled = torch.compile(model, { backend = "eager" })
return compiled(shapedb.tensor{3, dtype = "int64"})
