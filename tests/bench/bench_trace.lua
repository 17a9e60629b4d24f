-- bench_trace.lua — workload 5: the nonzero model (scripts/nonzero.lua)
-- compiled end to end through the Lua front end, per backend, and a call
-- that hits the installed guards. Run as `shapedb --no-report
-- tests/bench/bench_trace.lua [--quick]`; prints rows in bench_core's
-- format (key, group, description, size, microseconds per op), tab-separated.
--
-- os.clock is process CPU time: the only sub-second clock plain Lua has,
-- and the right one here (the work is single-threaded and never waits).
-- Every compile appends to the process's event stream and trace list; the
-- per-compile cost stays flat as they grow (checked when this was written:
-- 4000 inductor compiles in one process, 215-285 us each throughout).

local quick = (...) == "--quick"
local RUNS = quick and 1 or 5        -- odd: the median is one run
local N = quick and 5 or 200         -- compiles per run

local function model(x, y)
  local idx = x:nonzero()               -- i64[u0, 2]
  torch._check_is_size(idx:size(0))
  return idx:sum() + y:sum()
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function row(key, desc, size, us)
  io.write(string.format("%s\t5 end-to-end trace\t%s\t%s\t%.6g\n", key, desc, size, us))
  io.flush()
end

-- A fresh torch.compile per iteration, so each call traces from scratch
-- (a new ShapeEnv, fake mode, tracer and graph; aot retrace and lowering
-- per backend; guards installed).
for _, backend in ipairs { "eager", "aot_eager", "inductor" } do
  local t = {}
  for r = 1, RUNS do
    local t0 = os.clock()
    for _ = 1, N do
      local compiled = torch.compile(model, { backend = backend })
      compiled(shapedb.tensor { 5, 2 }, shapedb.tensor { 7 })
    end
    t[r] = (os.clock() - t0) * 1e6 / N
  end
  row("trace." .. backend, "nonzero model: compile + call, " .. backend,
      string.format("%d compiles", N), median(t))
end

-- A cache hit: the compiled entry's guards checked against the new sizes
-- (same sizes, duck-sized), then its outputs returned.
do
  local compiled = torch.compile(model, { backend = "inductor" })
  local x, y = shapedb.tensor { 5, 2 }, shapedb.tensor { 7 }
  compiled(x, y)
  local M = quick and 10 or 2000
  local t = {}
  for r = 1, RUNS do
    local t0 = os.clock()
    for _ = 1, M do compiled(x, y) end
    t[r] = (os.clock() - t0) * 1e6 / M
  end
  row("trace.cache_hit", "call of a compiled fn: guards hit", string.format("%d calls", M), median(t))
end
