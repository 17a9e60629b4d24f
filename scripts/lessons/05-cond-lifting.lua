-- Lesson 5: cond with closures (seed 004). The branches use x from the
-- enclosing function: each nested tracer lifts x as an input, and binds
-- x's free symbols s0 and s1 as inputs too, before it.
local function f(x)
  local function true_f()
    local function true_f_inner() return x:sin() end
    local function false_f_inner() return x:cos() end
    return torch.cond(x:sum():gt(0), true_f_inner, false_f_inner)
  end
  local function false_f() return x:cos() end
  return torch.cond(x:sum():gt(0), true_f, false_f)
end
local compiled = torch.compile(f, { backend = "eager", dynamic = true })
return compiled(shapedb.tensor{3, 4})
