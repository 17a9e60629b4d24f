-- gen_model.lua — a seeded generator of long models for `make bench` and
-- for profiling (issue #20): broadcasting elementwise ops on dynamic dims,
-- views, nonzero + torch._check_is_size, item + torch._check, cat, and
-- (optionally) a torch.cond every COND_EVERY ops. The same seed and size
-- give the same program, so runs compare like for like.
--
--   local gen = dofile("tests/bench/gen_model.lua")
--   local model, inputs = gen.model { ops = 100000, seed = 1, cond_every = 100 }
--   torch.compile(model, { backend = "eager", dynamic = true })(table.unpack(inputs))
--
-- "ops" counts torch calls (operators, _check, _check_is_size, cond; the
-- ops inside a cond's branches are counted too). Every op reads tensors
-- from a small pool that is refreshed from the inputs, so shapes stay
-- bounded expressions (s0, 2*s0, u7 ...) however long the program is: the
-- growth measured is the engine's, not that of ever longer expressions.
local M = {}

-- A 31-bit LCG: deterministic across Lua builds (math.random is not).
local function rng(seed)
  local s = seed % 2147483647
  if s <= 0 then s = s + 2147483646 end
  return function(n)
    s = (s * 48271) % 2147483647
    return s % n + 1
  end
end

function M.model(opt)
  local N = assert(opt.ops, "ops")
  local seed = opt.seed or 1
  local cond_every = opt.cond_every or 0

  local function model(x, y)
    local r = rng(seed)
    local done = 0
    -- pool: 2-D tensors [s0, s1]-shaped and 1-D [s1]-shaped (broadcastable)
    local a, b, v = x, x, y
    local function step()
      local k = r(10)
      if k <= 3 then                          -- broadcasting elementwise
        a = a + v; b = b * a
        done = done + 2
      elseif k == 4 then                       -- views
        local t = b:view(-1)
        b = t:view(x:size(0), x:size(1)):transpose(0, 1):t()
        done = done + 4
      elseif k == 5 then                       -- nonzero + _check_is_size
        local idx = a:nonzero()
        torch._check_is_size(idx:size(0))
        v = v + idx:sum()
        done = done + 4
      elseif k == 6 then                       -- item + _check
        local n = a:sum():long():item()
        torch._check(n:ge(0))
        a = a * n
        done = done + 5
      elseif k == 7 then                       -- cat along the dynamic dim, then back
        local c = torch.cat({ a, b }, 0)
        a = c:narrow(0, 0, x:size(0)) - x
        done = done + 3
      elseif k == 8 then                       -- reductions keep dims
        v = a:sum(0) + v:relu()
        done = done + 3
      else                                     -- refresh the pool
        a, b, v = x:sin(), b + x, y:cos()
        done = done + 4
      end
    end
    local next_cond = cond_every
    while done < N do
      if cond_every > 0 and done >= next_cond then
        next_cond = next_cond + cond_every
        local p = v:sum():gt(0)
        local aa, vv = a, v
        a = torch.cond(p, function() return (aa + vv):sin() end,
                          function() return (aa - vv):cos() end)
        done = done + 5 + 2
      else
        step()
      end
    end
    return a:sum() + b:sum() + v:sum()
  end
  local inputs = { shapedb.tensor { 8, 4 }, shapedb.tensor { 4 } }
  return model, inputs
end

return M
