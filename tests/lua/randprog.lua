-- randprog.lua — random programs (issue #16): ops over dynamic inputs,
-- nonzero, item, torch._check, nested cond and wrap with closures, under
-- every backend. Each compile either succeeds or fails with a clean error,
-- and its event stream keeps the invariants:
--   no pending fresh unbacked symbol survives past the next node;
--   every unbacked symbol of the trace graph has exactly one binding site;
--   after lowering (inductor) every binding is defined by a buffer.
-- (tests/repl/randreplay.sh checks the last one: a saved trace of each
-- program replays as the live run.) The programs come from
-- tests/lib/randgen.lua. RANDPROG_N programs (default 150 here; `make soak` runs many more),
-- seeded by RANDPROG_SEED so a failure can be replayed.
local t = require("tap")
local T = shapedb.tensor
local N = tonumber(os.getenv("RANDPROG_N")) or 150
local seed = tonumber(os.getenv("RANDPROG_SEED")) or 16
math.randomseed(seed)
local R = math.random

local gen = require("randgen")
local BACKENDS = gen.BACKENDS

-- a program: its source (kept for the failure message) and its function
local function program()
  local src = gen.program(R)
  return assert(load(gen.chunk(src), "=randprog", "t"))(), src
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

-- after lowering (inductor), every unbacked symbol the AOT graph binds at
-- a node that survived DCE is defined by a buffer (after the renamings of
-- the retraces), and no binding check failed: PyTorch's "u0 not defined"
-- assertion in GraphLowering. Returns ok, why, and whether it applied.
local lowered_syms = 0   -- symbols the lowering check looked at
local function check_lowering(evs)
  local phase, renamed, bound, defined, lowered = nil, {}, {}, {}, false
  local function canon(s)
    for _ = 1, 100 do
      if not renamed[s] then break end
      s = renamed[s]
    end
    return s
  end
  for _, e in ipairs(evs) do
    phase = e:match("^phase_start (%a+)") or phase
    local a, b = e:match("^renamed ([%w_]+) %-> ([%w_]+)")
    if a then renamed[a] = b end
    if phase == "aot" then
      local node, rest = e:match("^unbacked_bindings %%([%w_]+) (.*)")
      if node then
        for sym in rest:gmatch("(u%d+): ") do bound[sym] = node end
      end
      local gone = e:match("^node_erased ([%w_]+)")
      if gone then
        for sym, n in pairs(bound) do
          if n == gone then bound[sym] = nil end
        end
      end
    elseif phase == "lower" then
      local set = e:match("^buffer_lowered .* defines {(.-)}")
      if set then
        for sym in set:gmatch("[%w_]+") do defined[canon(sym)] = true end
      end
      if e:find("^binding_check FAILED") then return false, "lowering: " .. e, true end
      if e:find("^phase_end lower") then lowered = true end
    end
  end
  if not lowered then return true, nil, false end
  for sym, node in pairs(bound) do
    lowered_syms = lowered_syms + 1
    if not defined[canon(sym)] then
      return false, string.format("%s (bound at %%%s) is not defined by any buffer after lowering", sym, node), true
    end
  end
  return true, nil, true
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

-- the lowering check has teeth: a binding no buffer defines fails it
do
  local evs = { "phase_start aot (aot_autograd)", "unbacked_bindings %nonzero u2: .size()[0]",
    "renamed u2 -> u0 (aot retrace)", "phase_end aot (aot_autograd)", "phase_start lower (inductor)",
    "buffer_lowered buf0 (FallbackKernel for nonzero)", "phase_end lower (inductor)" }
  local good, why = check_lowering(evs)
  t.is(why, "u2 (bound at %nonzero) is not defined by any buffer after lowering", "lowering check: an undefined binding")
  evs[6] = "buffer_lowered buf1 (MultiOutput for nonzero) defines {u0}"
  t.ok(check_lowering(evs) and not good, "lowering check: defined through the renaming")
  lowered_syms = 0
end

local programs, compiles, ok_runs, clean_errors, invariants, bad = 0, 0, 0, 0, 0, 0
for p = 1, N do
  local fn, src = program()
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
    if okc then
      local applied
      good, why, applied = check_lowering(shapedb.events(false, mark))
      if applied then invariants = invariants + 1 end
      if not good then
        bad = bad + 1
        t.ok(false, string.format("program %d (%s): %s\n%s", p, backend, why, src))
      end
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
t.diag(string.format("randprog: programs=%d compiles=%d invariants=%d failures=%d lowered_symbols=%d",
  programs, compiles, invariants, bad, lowered_syms))
t.done()
