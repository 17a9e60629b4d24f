-- randgen.lua — random programs as Lua source (issue #16), for
-- tests/lua/randprog.lua (invariants over the events of each compile) and
-- tests/repl/randreplay.sh (each program recorded, replayed, compared).
-- A program is a function of one tensor: a few steps, each an op over a
-- dynamic input, a nonzero, an item with torch._check, or a torch.cond /
-- torch.wrap whose bodies are closures over more steps (nested 3 deep).
-- Everything random is drawn from the generator passed in, so a seed
-- gives the same programs on every machine.
local M = {}

M.BACKENDS = { "eager", "aot_eager", "inductor" }

-- one step: Lua source of an expression turning tensor `v` into a tensor
local function step(R, v, d)
  local k = R(9)
  if k == 1 then return v .. " + " .. v end
  if k == 2 then return v .. " * k" end   -- k: an upvalue of the program
  if k == 3 then return v .. ":sum() + " .. v end
  if k == 4 then
    return "(function(t) local i = t:nonzero(); torch._check_is_size(i:size(0)); return i:sum() + t end)(" .. v .. ")"
  end
  if k == 5 then
    return "(function(t) local n = t:sum():long():item(); torch._check(n:ge(0)); return t * 2 end)(" .. v .. ")"
  end
  if d > 2 or k == 6 then return v end
  local w = "y" .. d
  if k <= 8 then
    return string.format("torch.cond(%s:sum():gt(0), function(%s) return %s end, function(%s) return %s end, { %s })",
      v, w, step(R, w, d + 1), w, step(R, w, d + 1), v)
  end
  return string.format("torch.wrap(function(%s) return %s end, %s)", w, step(R, w, d + 1), v)
end

-- the source of `function(x) ... end` (k is a local of the enclosing chunk)
function M.program(R)
  local lines = { "function(x)" }
  for _ = 1, R(1, 5) do lines[#lines + 1] = "  x = " .. step(R, "x", 0) end
  lines[#lines + 1] = "  return x"
  lines[#lines + 1] = "end"
  return table.concat(lines, "\n")
end

-- A chunk returning the program function, with its upvalue k.
function M.chunk(src) return "local k = 2\nreturn " .. src .. "\n" end

-- A whole script: the program compiled under every backend and called on
-- an input of the given sizes (dim 0 dynamic); a failing compile is caught.
function M.script(src, a, b)
  return table.concat({
    "local k = 2",
    "local fn = " .. src,
    "for _, backend in ipairs({ \"eager\", \"aot_eager\", \"inductor\" }) do",
    "  local c = torch.compile(fn, { backend = backend, name = \"p_\" .. backend })",
    string.format("  pcall(c, shapedb.tensor{%d, %d, dynamic = {0}})", a, b),
    "end",
    "",
  }, "\n")
end

-- Write n scripts prog-001.lua ... into dir (seeded); returns n.
function M.emit(dir, n, seed)
  math.randomseed(seed)
  local R = math.random
  for i = 1, n do
    local src = M.program(R)
    local f = assert(io.open(string.format("%s/prog-%03d.lua", dir, i), "w"))
    f:write(M.script(src, R(2, 6), R(2, 4)))
    f:close()
  end
  return n
end

return M
