-- Lesson 4: several outputs. torch.unique(x, {return_counts = true}) returns
-- two tensors of the same fresh length u0: its binding names the first
-- place u0 appears in the tuple, [0].size()[0] (seed 001). A later op whose
-- output mentions u0 (vals * 2) does not bind it again: u0 is not fresh.
local function model(x)
  local vals, counts = torch.unique(x, { return_counts = true })
  local doubled = vals * 2                 -- i64[u0]: u0 is not fresh here
  return doubled, counts
end
local compiled = torch.compile(model, { backend = "eager" })
return compiled(shapedb.tensor{6, dtype = "int64"})
