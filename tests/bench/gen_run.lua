-- gen_run.lua — one generated-model compile for `make bench` (issue #20):
--   shapedb --no-report tests/bench/gen_run.lua N BACKEND COND_EVERY [SEED]
-- traces a model of N ops (tests/bench/gen_model.lua) with
-- torch.compile(model, { backend = BACKEND, dynamic = true }) and prints
-- one row: key, group, description, size, microseconds per op (CPU time,
-- os.clock), then the process's peak resident set (VmHWM) in bytes per op
-- and the number of events. One process per row, so the peak is this
-- run's alone.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local gen = dofile(here .. "gen_model.lua")
local n, backend, ce, seed = tonumber(arg[1]), arg[2], tonumber(arg[3]), tonumber(arg[4] or 1)
local model, inputs = gen.model { ops = n, seed = seed, cond_every = ce }
local t0 = os.clock()
torch.compile(model, { backend = backend, dynamic = true })(table.unpack(inputs))
local us = (os.clock() - t0) * 1e6 / n
local f = io.open("/proc/self/status")
local hwm = f and tonumber(f:read("a"):match("VmHWM:%s*(%d+)")) or 0
if f then f:close() end
local events = shapedb.event_count()
io.write(string.format("gen.%s.%s.%d\t7 generated models (seeded; dynamic = true)\t%s, %s\t%d ops\t%.6g\t%.0f\t%d\n",
  backend, ce > 0 and "cond" or "nocond", n, backend,
  ce > 0 and ("cond every " .. ce .. " ops") or "no cond", n, us, hwm * 1024 / n, events))
