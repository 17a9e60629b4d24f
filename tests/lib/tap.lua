-- tap.lua — a small TAP producer for scenario tests run inside bin/shapedb.
--   local t = require("tap")
--   t.is(got, want, "name")   t.ok(cond, "name")   t.like(s, pat, "name")
--   t.error_like(fn, "plain text", "name")   t.done()
-- Values are compared with ==, or as strings when either side is userdata
-- (Exprs, SymInts and tensors print as PyTorch does, which is what we test).
local M = {}
local n, failed = 0, 0

local function report(pass, name, why)
  n = n + 1
  io.write(string.format("%s %d - %s\n", pass and "ok" or "not ok", n, name or ""))
  if not pass then
    failed = failed + 1
    -- every public function tail-calls report, so level 2 is the test
    local info = debug.getinfo(2, "Sl")
    io.write(string.format("#   Failed test '%s'\n#   at %s line %d.\n", name or "",
      info and info.short_src or "?", info and info.currentline or 0))
    if why then io.write((why:gsub("[^\n]+", "#   %0")), "\n") end
  end
  io.flush()
  return pass
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function M.ok(cond, name) return report(cond and true or false, name) end

function M.is(got, want, name)
  local pass
  if type(got) == "userdata" or type(want) == "userdata" then
    pass = tostring(got) == tostring(want)
  else
    pass = got == want
  end
  return report(pass, name, not pass and
    string.format("     got: %s\nexpected: %s", show(got), show(want)) or nil)
end

function M.isnt(got, want, name)
  local pass = got ~= want
  return report(pass, name, not pass and ("got the value it should not: " .. show(got)) or nil)
end

-- plain substring match (no Lua patterns: our strings are full of brackets)
function M.has(s, sub, name)
  local pass = type(s) == "string" and s:find(sub, 1, true) ~= nil
  return report(pass, name, not pass and
    string.format("%s\ndoes not contain\n%s", show(s), show(sub)) or nil)
end

function M.like(s, pat, name)
  local pass = type(s) == "string" and s:match(pat) ~= nil
  return report(pass, name, not pass and
    string.format("%s\ndoes not match\n%s", show(s), show(pat)) or nil)
end

function M.unlike(s, pat, name)
  local pass = type(s) == "string" and s:match(pat) == nil
  return report(pass, name, not pass and
    string.format("%s\nmatches\n%s", show(s), show(pat)) or nil)
end

-- fn must raise an error whose message contains `sub` (plain text)
function M.error_like(fn, sub, name)
  local okcall, err = pcall(fn)
  if okcall then return report(false, name, "no error was raised") end
  err = tostring(err)
  local pass = err:find(sub, 1, true) ~= nil
  return report(pass, name, not pass and
    string.format("error %s\ndoes not contain %s", show(err), show(sub)) or nil)
end

-- returns the error message (or nil) so a test can check more of it
function M.error_of(fn)
  local okcall, err = pcall(fn)
  if okcall then return nil end
  return tostring(err)
end

function M.diag(msg) io.write((tostring(msg):gsub("[^\n]+", "# %0")), "\n") end

function M.skip(name, why) n = n + 1; io.write(string.format("ok %d - %s # SKIP %s\n", n, name, why)) end

function M.done()
  io.write(string.format("1..%d\n", n))
  io.flush()
  if failed > 0 then os.exit(1) end
end

return M
