-- randprog.lua — random programs (issue #16): ops over dynamic inputs,
-- nonzero, item, torch._check, nested cond and wrap with closures, under
-- every backend. Each compile either succeeds or fails with a clean error,
-- and its event stream keeps the invariants:
--   no pending fresh unbacked symbol survives past the next node;
--   every unbacked symbol of the trace graph has exactly one binding site.
-- RANDPROG_N programs (default 150 here; `make soak` runs many more),
-- seeded by RANDPROG_SEED so a failure can be replayed.
local t = require("tap")
local T = shapedb.tensor
local N = tonumber(os.getenv("RANDPROG_N")) or 150
local seed = tonumber(os.getenv("RANDPROG_SEED")) or 16
math.randomseed(seed)
local R = math.random

local BACKENDS = { "eager", "aot_eager", "inductor" }

-- a step turns a tensor into a tensor; some make unbacked symbols
local steps
steps = {
  function(x) return x + x end,
  function(x) return x * 2 end,
  function(x) return x:sum() + x end,
  function(x) local i = x:nonzero(); torch._check_is_size(i:size(0)); return i:sum() + x end,
  function(x) local n = x:sum():long():item(); torch._check(n:ge(0)); return x * 2 end,
  function(x, d)
    if d > 2 then return x end
    local a, b = steps[R(#steps)], steps[R(#steps)]
    return torch.cond(x:sum():gt(0), function(y) return a(y, d + 1) end,
      function(y) return b(y, d + 1) end, { x })
  end,
  function(x, d)
    if d > 2 then return x end
    local a = steps[R(#steps)]
    return torch.wrap(function(y) return a(y, d + 1) end, x)
  end,
}

local function program()
  local n = R(1, 5)
  local chosen = {}
  for i = 1, n do chosen[i] = steps[R(#steps)] end
  return function(x)
    for i = 1, n do x = chosen[i](x, 0) end
    return x
  end
end

-- the invariants over the events of one compile
local function check_events(evs)
  local pending, at_node = {}, nil
  local bound, created = {}, {}
  local in_trace = false
  for _, e in ipairs(evs) do
    if e:find("^phase_start trace") then in_trace = true end
    if e:find("^phase_end trace") then in_trace = false end
    local set = e:match("^pending_changed {(.-)}")
    if set then
      pending = {}
      for s in set:gmatch("[%w_]+") do pending[s] = true end
    end
    if e:find("^node_placed") then
      -- what was pending at the previous node must be gone by now
      if at_node then
        for s in pairs(at_node) do
          if pending[s] then return false, s .. " survived its node: " .. e end
        end
      end
      at_node = {}
      for s in pairs(pending) do at_node[s] = true end
    end
    local sym = e:match("^create_unbacked_symbol ([%w_]+)")
    if sym and in_trace then created[sym] = true end
  end
  return true
end

local function check_bindings(tr)
  local seen = {}
  for _, line in ipairs(tr:bindings()) do
    for sym in line:gmatch("(u%d+): ") do
      if seen[sym] then return false, sym .. " has two binding sites" end
      seen[sym] = true
    end
  end
  return true
end

local programs, compiles, ok_runs, clean_errors, invariants, bad = 0, 0, 0, 0, 0, 0
for p = 1, N do
  local fn = program()
  programs = programs + 1
  for _, backend in ipairs(BACKENDS) do
    local mark = shapedb.event_count()
    local c = torch.compile(fn, { backend = backend, name = "p" .. p })
    local okc, err = pcall(c, T{R(2, 6), R(2, 4), dynamic = {0}})
    compiles = compiles + 1
    if okc then
      ok_runs = ok_runs + 1
    else
      local msg = tostring(err)
      if not msg:match("^[%w_%.]*Error") and not msg:match("^[%w_%.]*Exception") then
        bad = bad + 1
        t.ok(false, string.format("program %d (%s): unclean error: %s", p, backend, msg:sub(1, 200)))
      else
        clean_errors = clean_errors + 1
      end
    end
    local good, why = check_events(shapedb.events(false, mark))
    invariants = invariants + 1
    if not good then
      bad = bad + 1
      t.ok(false, string.format("program %d (%s): %s", p, backend, why))
    end
    if okc and c.traces and c.traces[1] then
      good, why = check_bindings(c.traces[1].trace)
      invariants = invariants + 1
      if not good then
        bad = bad + 1
        t.ok(false, string.format("program %d (%s): %s", p, backend, why))
      end
    end
  end
end
t.ok(bad == 0, string.format("%d random programs, %d compiles (%d ran, %d clean errors), %d invariant checks, seed %d",
  programs, compiles, ok_runs, clean_errors, invariants, seed))
t.diag(string.format("randprog: programs=%d compiles=%d invariants=%d failures=%d", programs, compiles, invariants, bad))
t.done()
