-- gen_debug.lua — the generated model (gen_model.lua) loaded into the
-- debugger for `make bench`'s per-command timings: GEN_OPS ops (default
-- 100000), inductor, a cond every 100 ops. run.sh feeds the REPL a `run`,
-- then each command between two lines of Lua that print os.clock() to
-- stderr (CPU time; the listing itself goes to a file).
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local gen = dofile(here .. "gen_model.lua")
local model, inputs = gen.model { ops = tonumber(os.getenv("GEN_OPS") or 100000), seed = 1, cond_every = 100 }
torch.compile(model, { backend = "inductor", dynamic = true })(table.unpack(inputs))
