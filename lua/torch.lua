-- torch.lua — torch.compile and the batch report, on top of the C trace
-- primitives (shapedb._trace_begin, trace:input/finish/abort). Written in
-- Lua so that a debugger can pause inside the traced function (a coroutine
-- yield must not cross a C call that runs Lua code).
local shapedb = ...

local traces = {}          -- every finished or failed trace, in order
shapedb._traces = traces

local function param_names(fn)
  local names, i = {}, 1
  while true do
    local n = debug.getlocal(fn, i)
    if not n then break end
    names[i], i = n, i + 1
  end
  return names
end

-- The name the caller knows fn by: a local of the calling function or a
-- global holding it; else file:line.
local function name_of(fn, level)
  for i = 1, 200 do
    local n, v = debug.getlocal(level + 1, i)
    if not n then break end
    if v == fn and n:sub(1, 1) ~= "(" then return n end
  end
  for k, v in pairs(_G) do
    if v == fn and type(k) == "string" then return k end
  end
  local info = debug.getinfo(fn, "S")
  return string.format("%s:%d", info.short_src:match("[^/]*$"), info.linedefined)
end

local BACKENDS = { eager = true, aot_eager = true, inductor = true }

-- A trace error keeps the traceback from inside the user's function (where
-- it happened), not from here where it is re-raised.
local TraceError = {
  __tostring = function(e) return e.msg .. "\n" .. e.tb end,
}
local function capture(e)
  if getmetatable(e) == TraceError then return e end
  return setmetatable({ msg = tostring(e), tb = debug.traceback("Lua traceback of the traced code:", 2) }, TraceError)
end
shapedb.TraceError = TraceError

-- torch.compile(fn, { backend = "eager", dynamic = nil|true|false, name = "model" })
function torch.compile(fn, opts)
  if type(fn) ~= "function" then
    error("torch.compile expects a function, got " .. type(fn), 2)
  end
  opts = opts or {}
  local backend = opts.backend or "inductor"
  if not BACKENDS[backend] then
    error(string.format("torch.compile: unknown backend '%s' (eager, aot_eager or inductor)",
      tostring(backend)), 2)
  end
  local name = opts.name or name_of(fn, 2)
  shapedb._fn_names[fn] = name
  local compiled = { fn = fn, name = name, backend = backend, opts = opts, traces = {} }

  local function call(...)
    -- inside torch.export the compiled region runs inline with the eager
    -- backend: export captures the ops itself (seed 004, #164171)
    if shapedb._tracing() then
      shapedb._note(string.format("torch.compile(%s) inside torch.export: using the eager backend", name))
      return fn(...)
    end
    local args = table.pack(...)
    local names = param_names(fn)
    local tr = shapedb._trace_begin(name, { duck_shape = opts.duck_shape })
    local fake = {}
    for i = 1, args.n do
      fake[i] = tr:input(names[i] or ("arg" .. i), args[i], opts.dynamic == true)
    end
    local record = { trace = tr, name = name, backend = backend }
    traces[#traces + 1] = record
    compiled.traces[#compiled.traces + 1] = record
    local res = table.pack(xpcall(fn, capture, table.unpack(fake, 1, args.n)))
    if not res[1] then
      local e = res[2]
      tr:abort(e.msg)
      record.error = e.msg
      error(e, 0)
    end
    local outs = {}
    for i = 2, res.n do outs[#outs + 1] = res[i] end
    tr:finish(outs)
    -- seed 002's order: aot-compile at lowering time, before the guards
    -- are installed, so guards it takes join the one guard set
    if backend ~= "eager" then tr:aot() end
    if backend == "inductor" then tr:lower{ plant_missing_binding = opts.plant_missing_binding } end
    tr:install_guards()
    return table.unpack(outs)
  end

  return setmetatable(compiled, {
    __call = function(_, ...) return call(...) end,
    __tostring = function() return string.format("<compiled %s (backend=%s)>", name, backend) end,
  })
end

-- torch.export(fn, args [, { dynamic = true }]): trace fn once,
-- non-strictly, into one graph (returned as the ExportedProgram-like record
-- { trace = ..., outputs = {...} }).
function torch.export(fn, args, opts)
  if type(fn) ~= "function" then error("torch.export expects a function", 2) end
  args, opts = args or {}, opts or {}
  local name = opts.name or name_of(fn, 2)
  shapedb._fn_names[fn] = name
  local names = param_names(fn)
  local tr = shapedb._trace_begin(name, { duck_shape = opts.duck_shape })
  local fake = {}
  for i = 1, #args do fake[i] = tr:input(names[i] or ("arg" .. i), args[i], opts.dynamic == true) end
  local record = { trace = tr, name = name, backend = "export" }
  traces[#traces + 1] = record
  local res = table.pack(xpcall(fn, function(e) return tostring(e) end, table.unpack(fake, 1, #args)))
  if not res[1] then
    tr:abort(res[2])
    record.error = res[2]
    error(res[2], 0)
  end
  local outs = {}
  for i = 2, res.n do outs[#outs + 1] = res[i] end
  tr:finish(outs)
  tr:install_guards()
  record.outputs = outs
  return record
end

-- The report `shapedb FILE.lua` prints: the event log, then per compiled
-- function its graph, bindings and guards. quiet: only the end result.
function shapedb.report(out, quiet)
  out = out or io.stdout
  if not quiet then
    out:write("== events ==\n")
    for _, line in ipairs(shapedb.events(true)) do out:write(line, "\n") end
  end
  for _, r in ipairs(traces) do
    out:write(string.format("\n== %s (backend=%s) ==\n", r.name, r.backend))
    if r.error then
      out:write("error: ", r.error, "\n")
    else
      out:write(r.trace:graph(), "\n")
      local aot, mutations = r.trace:aot_graph()
      if aot then
        out:write("aot graph:\n", aot, "\n")
        if mutations then out:write(mutations) end
      end
      local wrapper = r.trace:wrapper()
      if wrapper then out:write("wrapper code:\n", wrapper) end
      local b = r.trace:bindings()
      out:write("unbacked bindings:", #b == 0 and " none\n" or "\n")
      for _, line in ipairs(b) do out:write("  ", line, "\n") end
      local g = r.trace:guards()
      out:write("guards:", #g == 0 and " none\n" or "\n")
      for _, line in ipairs(g) do out:write("  ", line, "\n") end
    end
  end
  return #traces
end

-- Run one branch of a higher-order op: the branch is traced into its own
-- subgraph; an error inside it leaves the hop cleanly.
local function run_branch(h, which, fn, args)
  h:branch(which)
  local res = table.pack(xpcall(fn, function(e) return tostring(e) end,
    table.unpack(args, 1, args.n or #args)))
  if not res[1] then
    h:abort()
    error(res[2], 0)
  end
  h:branch_end(table.pack(table.unpack(res, 2, res.n)))
end

-- torch.cond(pred, true_fn, false_fn, operands): both branches are traced
-- as subgraphs; outputs whose sizes differ (or leak unbacked symbols made
-- inside a branch) get fresh unbacked symbols bound on the cond node.
function torch.cond(pred, true_fn, false_fn, operands)
  operands = operands or {}
  if type(true_fn) ~= "function" or type(false_fn) ~= "function" then
    error("torch.cond: true_fn and false_fn must be functions", 2)
  end
  if type(operands) ~= "table" then
    error("torch.cond: operands must be a list of tensors and SymInts", 2)
  end
  local args = table.pack(table.unpack(operands))
  if type(pred) == "boolean" then
    io.stderr:write("UserWarning: Pred is a Python constant. When used with torch.cond, it specializes ",
      "on one of the branches. If you want torch.cond to preserve two branches, please make the ",
      "predicate a boolean tensor or a SymBool.\n")
    return (pred and true_fn or false_fn)(table.unpack(args, 1, args.n))
  end
  local h = shapedb._hop_begin("cond", pred)
  run_branch(h, "true", true_fn, args)
  run_branch(h, "false", false_fn, args)
  return h:finish()
end

-- torch.wrap(fn, ...): the simplest higher-order op, one subgraph called
-- with the arguments (PyTorch's lifting tests are written with it).
function torch.wrap(fn, ...)
  if type(fn) ~= "function" then error("torch.wrap expects a function", 2) end
  local h = shapedb._hop_begin("wrap")
  run_branch(h, "body", fn, table.pack(...))
  return h:finish()
end
