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
  -- the user's frames only: shapedb's own (the compile machinery around
  -- the traced function) would be noise, and shift with every release
  local lines = {}
  for line in debug.traceback("Lua traceback of the traced code:", 2):gmatch("[^\n]+") do
    if not line:find("[shapedb ", 1, true) and not line:find("in function 'xpcall'", 1, true) then
      lines[#lines + 1] = line
    end
  end
  local err = { msg = tostring(e), tb = table.concat(lines, "\n") }
  -- where in the user's code it happened, for the error event
  for level = 2, 200 do
    local info = debug.getinfo(level, "Sln")
    if not info then break end
    if info.source:sub(1, 1) == "@" and info.currentline > 0 then
      err.file, err.line = info.source:sub(2), info.currentline
      err.func = info.name or (info.what == "main" and "main chunk") or shapedb._fn_names[debug.getinfo(level, "f").func]
      break
    end
  end
  return setmetatable(err, TraceError)
end
shapedb.TraceError = TraceError

-- PyTorch's strip_local_scope: recompile reasons say x, not L['x']
local function strip_local_scope(s)
  return (s:gsub("L%[%s*['\"](.-)['\"]%s*%]", "%1"))
end

-- c10's names for dtypes, as TENSOR_MATCH prints them
local SCALAR_NAMES = {
  ["torch.float32"] = "Float", ["torch.float64"] = "Double", ["torch.float16"] = "Half",
  ["torch.bfloat16"] = "BFloat16", ["torch.int64"] = "Long", ["torch.int32"] = "Int",
  ["torch.int16"] = "Short", ["torch.int8"] = "Char", ["torch.uint8"] = "Byte", ["torch.bool"] = "Bool",
}

local next_frame_id = 0

-- A new run of the program in the debugger is a new process to PyTorch:
-- its compiles are numbered from [0/0] again and the report lists only
-- them (the earlier runs' events stay in the timeline).
function shapedb._new_run()
  for i = #traces, 1, -1 do traces[i] = nil end
  next_frame_id = 0
end

-- A float, boolean, string or nil argument is baked into the graph as a
-- constant, so Dynamo guards on its value (EQUALS_MATCH, or `is None`);
-- spelled as Python would. Integers are the ShapeEnv's (L['k'] == 4).
local function constant_arg(a)
  local t = type(a)
  return a == nil or t == "boolean" or t == "string" or math.type(a) == "float"
end
local function constant_guard(pname, a)
  local src = string.format("L['%s']", pname)
  if a == nil then return src .. " is None" end
  if type(a) == "boolean" then return src .. " == " .. (a and "True" or "False") end
  if type(a) == "string" then return (string.format("%s == %q", src, a):gsub('^(.- == )"(.*)"$', "%1'%2'")) end
  local text = string.format("%.17g", a)
  if tonumber(string.format("%.15g", a)) == a then text = string.format("%.15g", a) end
  if not text:find("[%.eni]") then text = text .. ".0" end
  return src .. " == " .. text
end

-- c10's DispatchKeySet of a plain dense tensor on a device, as printed
-- under Dynamo's TLS (autocast keys excluded, BackendSelect included)
local BACKEND_KEYS = { cpu = "CPU", cuda = "CUDA", meta = "Meta", mps = "MPS", xpu = "XPU", hpu = "HPU" }
local function dispatch_key_set(device)
  local kind = device:match("^[^:]*")
  local b = BACKEND_KEYS[kind] or kind:upper()
  return string.format("DispatchKeySet(%s, BackendSelect, ADInplaceOrView, Autograd%s)", b, b)
end
local function device_index(device)
  return tonumber(device:match(":(%d+)$") or "") or (device:match("^cpu") and -1 or 0)
end

-- TENSOR_MATCH (torch/csrc/dynamo/guards.cpp, TensorCheck::check_verbose):
-- the first of dispatch key set (the device), dtype, device index,
-- requires_grad and rank that differs; sizes and strides follow in the
-- shape guards.
local function tensor_match(entry, names, args)
  local out = {}
  for i, meta in pairs(entry.inputs) do
    local a, name = args[i], names[i] or ("arg" .. i)
    local r
    if getmetatable(a) ~= getmetatable(meta.tensor) then
      if meta.tensor then r = "is no longer a tensor" end
    elseif dispatch_key_set(a.device) ~= dispatch_key_set(meta.device) then
      r = string.format("dispatch key set mismatch. expected %s, actual %s",
        dispatch_key_set(meta.device), dispatch_key_set(a.device))
    elseif a.dtype ~= meta.dtype then
      r = string.format("dtype mismatch. expected %s, actual %s",
        SCALAR_NAMES[meta.dtype] or meta.dtype, SCALAR_NAMES[a.dtype] or a.dtype)
    elseif device_index(a.device) ~= device_index(meta.device) then
      r = string.format("Tensor device index mismatch. Expected device index to be %d, actual %d",
        device_index(meta.device), device_index(a.device))
    elseif a.requires_grad ~= meta.requires_grad then
      r = string.format("requires_grad mismatch. expected requires_grad=%d", meta.requires_grad and 1 or 0)
    elseif a:dim() ~= meta.ndim then
      r = string.format("rank mismatch. expected %d, actual %d", meta.ndim, a:dim())
    end
    if r then out[#out + 1] = string.format("tensor '%s' %s", name, r) end
  end
  return out
end

-- The concrete values a new call brings, by source: { x = {5, 2}, n = 3 }.
local function call_values(names, args)
  local values = {}
  for i = 1, args.n do
    local a, name = args[i], names[i] or ("arg" .. i)
    if math.type(a) == "integer" then values[name] = a
    elseif type(a) == "userdata" and a.dim then
      local sizes = {}
      for d = 0, a:dim() - 1 do
        sizes[d + 1] = a:size(d)
        -- strides and the offset by full source name: a transposed or
        -- offset call fails the stride guards (static or symbolic)
        values[string.format("L['%s'].stride()[%d]", name, d)] = a:stride(d)
      end
      values[string.format("L['%s'].storage_offset()", name)] = a:storage_offset()
      values[name] = sizes
    end
  end
  return values
end

-- Inputs are fakified inside the trace: one that cannot be (a size outside
-- its Dim's range) ends the trace there, so it does not stay active.
local function inputs_or_abort(tr, make)
  local ok, err = pcall(make)
  if not ok then
    tr:abort(tostring(err))
    error(err, 0)
  end
end

-- torch.compile(fn, { backend = "eager", dynamic = nil|true|false, name = "model" })
-- The first call traces (then aot-compiles and lowers, per backend) and
-- installs one guard set; later calls check it: a hit reuses the entry, a
-- miss reports every failing guard and recompiles.
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
  local info = debug.getinfo(fn, "S")
  local compiled = { fn = fn, name = name, backend = backend, opts = opts, traces = {},
                     entries = {}, dynamic_dims = {}, frame_id = nil,
                     where = string.format("%s:%d", info.short_src, info.linedefined) }

  local function trace(args, names)
    local tr = shapedb._trace_begin(name, { duck_shape = opts.duck_shape })
    local fake, inputs, consts = {}, {}, {}
    inputs_or_abort(tr, function()
      for i = 1, args.n do
        local pname = names[i] or ("arg" .. i)
        local dims = opts.dynamic == true or compiled.dynamic_dims[pname]
        fake[i] = tr:input(pname, args[i], dims)
        local a = args[i]
        if type(a) == "userdata" and a.dim then
          inputs[i] = { tensor = a, dtype = a.dtype, ndim = a:dim(), device = a.device, requires_grad = a.requires_grad }
        elseif constant_arg(a) then
          consts[#consts + 1] = { index = i, value = a, text = constant_guard(pname, a) }
        end
      end
    end)
    local record = { trace = tr, name = name, backend = backend, inputs = inputs, consts = consts,
                     compile_id = string.format("%d/%d", compiled.frame_id, #compiled.entries) }
    traces[#traces + 1] = record
    compiled.traces[#compiled.traces + 1] = record
    local res = table.pack(xpcall(fn, capture, table.unpack(fake, 1, args.n)))
    if not res[1] then
      local e = res[2]
      tr:abort(e.msg, e.file, e.line, e.func)
      record.error = e.msg
      error(e, 0)
    end
    local outs = {}
    for i = 2, res.n do outs[#outs + 1] = res[i] end
    -- seed 002's order: aot-compile at lowering time, before the guards
    -- are installed, so guards it takes join the one guard set
    local ok, err = pcall(function()
      tr:finish(outs)
      if backend ~= "eager" then tr:aot() end
      if backend == "inductor" then tr:lower{ plant_missing_binding = opts.plant_missing_binding } end
      tr:install_guards()
    end)
    if not ok then
      tr:abort(tostring(err))
      record.error = tostring(err)
      error(err, 0)
    end
    record.outputs = outs
    compiled.entries[#compiled.entries + 1] = record
    return record
  end

  local function call(...)
    -- inside torch.export the compiled region runs inline with the eager
    -- backend: export captures the ops itself (seed 004, #164171)
    if shapedb._tracing() then
      shapedb._note(string.format("torch.compile(%s) inside torch.export: using the eager backend", name))
      return fn(...)
    end
    local args = table.pack(...)
    local names = param_names(fn)
    if not compiled.frame_id then
      compiled.frame_id = next_frame_id
      next_frame_id = next_frame_id + 1
    end
    -- the cache: newest entry first, as Dynamo walks it
    local failures = {}
    local values = call_values(names, args)
    for i = #compiled.entries, 1, -1 do
      local e = compiled.entries[i]
      local reasons = tensor_match(e, names, args)
      for _, k in ipairs(e.consts or {}) do
        local a = args[k.index]
        if not (constant_arg(a) and type(a) == type(k.value) and a == k.value) then
          reasons[#reasons + 1] = k.text
        end
      end
      -- a failed TENSOR_MATCH stops the check there, as Dynamo's guard
      -- manager does: the shape guards are not evaluated (and cannot be,
      -- for a tensor of another rank)
      local ok, fails = true, {}
      if #reasons == 0 then ok, fails = e.trace:check_guards(values) end
      local matched = {}   -- TENSOR_MATCH reports one mismatch per tensor
      for _, f in ipairs(fails) do
        if not (f.static and f.input and matched[f.input]) then reasons[#reasons + 1] = f.text end
        if f.static and f.input then matched[f.input] = true end
        if f.input and opts.dynamic == nil then
          -- automatic dynamic: a dim, or an int input, whose value changed
          -- becomes dynamic next time (Dynamo's automatic_dynamic_shapes)
          if f.static and f.dim then
            local dims = compiled.dynamic_dims[f.input]
            if type(dims) ~= "table" then dims = {} end
            dims[f.dim] = true
            compiled.dynamic_dims[f.input] = dims
          elseif f.int_input then
            compiled.dynamic_dims[f.input] = true
          end
        end
      end
      if ok and #reasons == 0 then
        shapedb._emit{ kind = "guard_check", flags = true, phase = "guards", text = e.compile_id,
                       detail = "cache hit: reusing the compiled entry" }
        e.hits = (e.hits or 0) + 1
        return table.unpack(e.outputs)
      end
      for k, r in ipairs(reasons) do reasons[k] = strip_local_scope(r) end
      local reason = e.compile_id .. ": " .. table.concat(reasons, "; ")
      failures[#failures + 1] = reason
      shapedb._emit{ kind = "guard_check", flags = false, phase = "guards", text = e.compile_id,
                     detail = table.concat(reasons, "; ") }
    end
    local message
    if #failures > 0 then
      message = string.format("Recompiling function %s in %s\n    triggered by the following guard failure(s):\n%s",
        name, compiled.where, table.concat((function()
          local lines = {}
          for i, f in ipairs(failures) do lines[i] = "    - " .. f end
          return lines
        end)(), "\n"))
      compiled.recompiles = (compiled.recompiles or 0) + 1
      compiled.last_recompile = message
      shapedb._emit{ kind = "recompile", phase = "guards", text = name, detail = message }
    end
    local newest = compiled.entries[#compiled.entries]
    local record = trace(args, names)
    -- the report says why this entry exists and how its guards differ
    record.recompile, record.previous = message, message and newest
    return table.unpack(record.outputs)
  end

  return setmetatable(compiled, {
    __call = function(_, ...) return call(...) end,
    __tostring = function() return string.format("<compiled %s (backend=%s)>", name, backend) end,
  })
end

-- guards diff: what changed between two compiled entries' guard sets
-- ("- " only in a, "+ " only in b).
function shapedb.guards_diff(a, b)
  local function all(r)
    local g = r.trace and r.trace:guards() or r:guards()
    for _, k in ipairs(r.consts or {}) do g[#g + 1] = k.text end
    return g
  end
  local ta, tb = all(a), all(b)
  local in_a, in_b, out = {}, {}, {}
  for _, g in ipairs(ta) do in_a[g] = true end
  for _, g in ipairs(tb) do in_b[g] = true end
  for _, g in ipairs(ta) do if not in_b[g] then out[#out + 1] = "- " .. g end end
  for _, g in ipairs(tb) do if not in_a[g] then out[#out + 1] = "+ " .. g end end
  return out
end

-- torch.export(fn, args [, { dynamic = true }]): trace fn once,
-- non-strictly, into one graph (returned as the ExportedProgram-like record
-- { trace = ..., outputs = {...} }).
-- torch.export.Dim("n" [, { min =, max = }]) and the hints Dim.AUTO,
-- Dim.DYNAMIC, Dim.STATIC (torch/export/dynamic_shapes.py), for
-- dynamic_shapes = { x = {[0] = n} } (by parameter name or position).
local DimMT, DerivedMT = {}, {}

-- sympy's str of a*root + b: "2*n", "n + 1", "2*n - 1"
local function derived_name(root, a, b)
  local s = a == 1 and root or string.format("%d*%s", a, root)
  if b > 0 then s = string.format("%s + %d", s, b) elseif b < 0 then s = string.format("%s - %d", s, -b) end
  return s
end

-- Dim arithmetic (torch/export/dynamic_shapes.py): only increasing linear
-- maps with integer coefficients, giving a derived dim of the same root.
local function derive(d, a, b)
  local root = getmetatable(d) == DerivedMT and d.root or d
  local a0, b0 = d.a or 1, d.b or 0
  local na, nb = a0 * a, b0 * a + b
  local function bound(v) return v and na * v + nb or nil end
  return setmetatable({ root = root, a = na, b = nb, name = derived_name(root.name, na, nb),
                        min = bound(root.min), max = bound(root.max) }, DerivedMT)
end

local function dim_add(x, y)
  local d, k = x, y
  if type(x) == "number" then d, k = y, x end
  if math.type(k) ~= "integer" then
    error(string.format("Attempted to add %s to %s, where an integer was expected. (Only increasing linear " ..
      "operations with integer coefficients are supported.)", tostring(k), d.name), 2)
  end
  return derive(d, 1, k)
end
local function dim_sub(x, y)
  if type(x) == "number" then
    error(string.format("Attempted to negate %s. (Only increasing linear operations with integer " ..
      "coefficients are supported.)", y.name), 2)
  end
  if math.type(y) ~= "integer" then
    error(string.format("Attempted to subtract %s from %s, where an integer was expected. (Only increasing " ..
      "linear operations with integer coefficients are supported.)", tostring(y), x.name), 2)
  end
  return derive(x, 1, -y)
end
local function dim_mul(x, y)
  local d, k = x, y
  if type(x) == "number" then d, k = y, x end
  if math.type(k) ~= "integer" or k <= 0 then
    error(string.format("Attempted to multiply %s with %s, where a positive integer was expected. (Only " ..
      "increasing linear operations with integer coefficients are supported.)", d.name, tostring(k)), 2)
  end
  return derive(d, k, 0)
end

DimMT.__tostring = function(d)
  return string.format("Dim('%s'%s%s)", d.name, d.min and (", min=" .. d.min) or "",
    d.max and (", max=" .. d.max) or "")
end
DimMT.__add, DimMT.__sub, DimMT.__mul = dim_add, dim_sub, dim_mul
DerivedMT.__tostring = function(d) return d.name end
DerivedMT.__add, DerivedMT.__sub, DerivedMT.__mul = dim_add, dim_sub, dim_mul

local Dim = setmetatable({
  AUTO = setmetatable({ hint = "AUTO" }, { __tostring = function() return "Dim.AUTO" end }),
  DYNAMIC = setmetatable({ hint = "DYNAMIC" }, { __tostring = function() return "Dim.DYNAMIC" end }),
  STATIC = setmetatable({ hint = "STATIC" }, { __tostring = function() return "Dim.STATIC" end }),
}, { __call = function(_, name, range)
  if type(name) ~= "string" then error("Dim expects a name, e.g. Dim(\"batch\", { min = 2 })", 2) end
  range = range or {}
  if range.min and range.max and range.max < range.min then
    error(string.format("Cannot create Dim with a range of [%d, %d]", range.min, range.max), 2)
  end
  return setmetatable({ name = name, min = range.min, max = range.max }, DimMT)
end })

-- The tr:input spec of one argument's dynamic_shapes entry; the dims to
-- check once traced go into checks ({arg, dim, source, spec}) and the
-- derived ones into derived ({arg, dim, source, spec}).
local function export_dims(spec, pname, checks, derived)
  if spec == nil then return nil end
  local dims = {}
  for d, s in pairs(spec) do
    local src = string.format("L['%s'].size()[%d]", pname, d)
    if s == Dim.STATIC then dims[d] = { dynamic = "STATIC" }
    elseif s == Dim.AUTO then dims[d] = { dynamic = "DUCK" }
    elseif s == Dim.DYNAMIC then
      dims[d] = { dynamic = "DYNAMIC" }
      checks[#checks + 1] = { arg = pname, dim = d, source = src }
    elseif getmetatable(s) == DimMT then
      dims[d] = { dynamic = "DYNAMIC", min = s.min, max = s.max }
      checks[#checks + 1] = { arg = pname, dim = d, source = src, spec = s }
    elseif getmetatable(s) == DerivedMT then
      dims[d] = { dynamic = "DYNAMIC", min = s.min, max = s.max }
      derived[#derived + 1] = { arg = pname, dim = d, source = src, spec = s }
    end
  end
  return dims
end

-- A derived dim's input must equal fn(root) (produce_guards' derived
-- equalities). The root is the size of the input a Dim of its name is
-- given to, or else a phantom symbol (ConstantSource(name)) whose value is
-- solved from the example (_process_dynamic_shapes' root_value). The
-- equality is then a guard that makes the input's size 2*s0.
local function bind_derived(tr, args, fake, index, checks, derived)
  local phantoms = {}
  for _, dv in ipairs(derived) do
    local spec, root = dv.spec, nil
    for _, c in ipairs(checks) do
      if c.spec == spec.root then root = c; break end
    end
    local a, b = spec.a, spec.b
    local got = args[index[dv.arg]]:size(dv.dim)
    local rootsym, rootval
    if root then
      rootval = args[index[root.arg]]:size(root.dim)
      rootsym = fake[index[root.arg]]:size(root.dim)
    else
      local name = spec.root.name
      if not phantoms[name] then
        if (got - b) % a ~= 0 then
          error(string.format("torch._dynamo.exc.UserError: Expected shape[%d] = %d of input Tensor to be of the " ..
            "form %s, where %s is an integer", dv.dim, got, spec.name, name), 0)
        end
        local v = (got - b) // a
        phantoms[name] = { val = v, sym = tr:phantom(name, v, spec.root.min, spec.root.max) }
      end
      rootval, rootsym = phantoms[name].val, phantoms[name].sym
    end
    if got ~= a * rootval + b then
      error(string.format("torch._dynamo.exc.UserError: Expected input %s to be equal to %s, where %s = %d, " ..
        "but got %d", dv.source, spec.name, spec.root.name, rootval, got), 0)
    end
    tr:derived_eq(fake[index[dv.arg]]:size(dv.dim), rootsym, a, b)
  end
end

-- _render_range_for_constraint_violation
local function render_range(c)
  local s = c.spec
  if not s then return string.format("RelaxedUnspecConstraint(%s)", c.source) end
  local what = string.format("%s = %s in the specified range", s.name, c.source)
  local lo = s.min and s.min > 2 and s.min or nil
  if lo and s.max then what = string.format("%s %d <= %s <= %d", what, lo, s.name, s.max)
  elseif s.max then what = string.format("%s %s <= %d", what, s.name, s.max)
  elseif lo then what = string.format("%s %d <= %s", what, lo, s.name) end
  return what
end

-- produce_guards' constraint checks for export: a dim the user asked to be
-- dynamic that the trace made a constant, a guard on a named Dim's symbol
-- (one not implied by its range), and a range the guards narrowed; with
-- prettify_results' suggested fixes (the specialized value, the narrowed
-- range as a Dim).
local function check_constraints(tr, fake, index, checks)
  local msgs, names, named, fixes = {}, {}, {}, {}
  local function violated(c, msg)
    msgs[#msgs + 1] = "  - " .. msg
    local debug = c.spec and c.spec.name or c.source
    if not named[debug] then named[debug] = true; names[#names + 1] = debug end
  end
  local by_sym = {}
  for _, c in ipairs(checks) do
    local v = tr:simplify(fake[index[c.arg]]:size(c.dim))
    if math.type(v) == "integer" then
      local s = c.spec
      if not (s and s.min == v and s.max == v) then
        local debug = s and s.name or c.source
        violated(c, string.format("You marked %s as dynamic but your code specialized it to be a constant (%d). " ..
          "If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, " ..
          "replace it with either Dim.STATIC or Dim.AUTO.", debug, v))
        if s then fixes[s.name] = string.format("%s = %d", s.name, v) end
      end
    elseif c.spec and v:match("^[%a_][%w_]*$") then
      by_sym[v] = by_sym[v] or c
    end
  end
  local records = tr:guard_records()
  -- guards about one Dim symbol that its range does not imply
  local roots = {}   -- the solver's new roots for divisibility: _dim = Dim(...)
  for _, r in ipairs(records) do
    local c = r.kind == "guard" and #r.symbols == 1 and by_sym[r.symbols[1]]
    if c then
      violated(c, string.format("Not all values of %s satisfy the generated guard %s.", render_range(c), r.text))
      -- a congruence (x % k == 0): DimConstraints.solve makes the dim a
      -- derived one, dim = k*_dim, and _process_derived_dim_roots gives the
      -- new root _dim the range that keeps k*_dim in dim's
      local k = r.text == nil and nil or tonumber(r.text:match("^" .. c.source:gsub("%p", "%%%0") .. " %% (%d+) == 0$"))
      local s = c.spec
      if k and k > 1 and s then
        local root = "_" .. s.name
        local lo = -((-(s.min or 2)) // k)   -- ceil
        local hi = s.max and s.max // k
        lo = lo ~= 2 and lo or nil           -- prettify_results leaves out min=2
        local dimline
        if lo and hi then dimline = string.format("%s = Dim(\"%s\", { min = %d, max = %d })", root, root, lo, hi)
        elseif lo then dimline = string.format("%s = Dim(\"%s\", { min = %d })", root, root, lo)
        elseif hi then dimline = string.format("%s = Dim(\"%s\", { max = %d })", root, root, hi)
        else dimline = string.format("%s = Dim(\"%s\")", root, root) end
        roots[#roots + 1] = dimline
        fixes[s.name] = string.format("%s = %d * %s", s.name, k, root)
      end
    end
  end
  -- ranges the guards narrowed below the Dim's
  for _, r in ipairs(records) do
    local c = r.kind == "range" and by_sym[r.symbols[1]]
    if c then
      local s = c.spec
      local lo, hi = math.max(s.min or 0, 2), s.max
      if (r.lo or math.mininteger) > lo or (r.hi and (not hi or r.hi < hi)) then
        violated(c, string.format("Not all values of %s satisfy the generated guard %d <= %s and %s <= %s",
          render_range(c), r.lo, c.source, c.source, r.hi and tostring(r.hi) or "IntInfinity()"))
        local min, max = r.lo ~= 2 and r.lo or nil, r.hi
        -- prettify_results' `dim = Dim('dim', min=3, max=6)`, as the Lua to paste
        if min and max then fixes[s.name] = string.format("%s = Dim(\"%s\", { min = %d, max = %d })", s.name, s.name, min, max)
        elseif min then fixes[s.name] = string.format("%s = Dim(\"%s\", { min = %d })", s.name, s.name, min)
        elseif max then fixes[s.name] = string.format("%s = Dim(\"%s\", { max = %d })", s.name, s.name, max) end
      end
    end
  end
  if #msgs == 0 then return nil end
  table.sort(names)
  local out = { string.format("Constraints violated (%s)! For more information, run with TORCH_LOGS=\"+dynamic\".",
    table.concat(names, ", ")) }
  for _, m in ipairs(msgs) do out[#out + 1] = m end
  -- prettify_results: the Dim suggestions, then the specializations
  local dims, others = {}, {}
  for _, n in ipairs(names) do
    local f = fixes[n]
    if f then
      if f:find("Dim%(") then dims[#dims + 1] = f else others[#others + 1] = f end
    end
  end
  local fixlines = {}
  -- new roots have no source: they sort after the sources (L['x']...) and,
  -- being plain Dims, come with the Dim suggestions
  for _, f in ipairs(roots) do dims[#dims + 1] = f end
  for _, f in ipairs(dims) do fixlines[#fixlines + 1] = "  " .. f end
  for _, f in ipairs(others) do fixlines[#fixlines + 1] = "  " .. f end
  if #fixlines > 0 then
    out[#out + 1] = "Suggested fixes:"
    for _, l in ipairs(fixlines) do out[#out + 1] = l end
  end
  return "torch._dynamo.exc.UserError: " .. table.concat(out, "\n")
end

local function export(fn, args, opts)
  if type(fn) ~= "function" then error("torch.export expects a function", 2) end
  args, opts = args or {}, opts or {}
  local name = opts.name or name_of(fn, 2)
  shapedb._fn_names[fn] = name
  local names = param_names(fn)
  local tr = shapedb._trace_begin(name, { duck_shape = opts.duck_shape })
  local fake, checks, derived, index = {}, {}, {}, {}
  local ds = opts.dynamic_shapes or {}
  -- an input that breaks its spec (outside a Dim's range, a derived dim
  -- that does not hold) is export's UserError, at the export call
  local ok, err = pcall(inputs_or_abort, tr, function()
    for i = 1, #args do
      local pname = names[i] or ("arg" .. i)
      index[pname] = i
      local dims = export_dims(ds[pname] or ds[i], pname, checks, derived)
      if dims == nil then dims = opts.dynamic == true end
      fake[i] = tr:input(pname, args[i], dims)
    end
    bind_derived(tr, args, fake, index, checks, derived)
  end)
  if not ok then
    err = tostring(err):gsub("^ConstraintViolationError: ", "torch._dynamo.exc.UserError: ")
    error(err, 2)
  end
  local record = { trace = tr, name = name, backend = "export" }
  traces[#traces + 1] = record
  local res = table.pack(xpcall(fn, capture, table.unpack(fake, 1, #args)))
  if not res[1] then
    local e = res[2]
    tr:abort(e.msg, e.file, e.line, e.func)
    record.error = e.msg
    error(e, 0)
  end
  local outs = {}
  for i = 2, res.n do outs[#outs + 1] = res[i] end
  tr:finish(outs)
  tr:install_guards()
  local violation = check_constraints(tr, fake, index, checks)
  if violation then
    record.error = violation
    -- an error event, so `break error` stops at it and the run's log says it
    shapedb._emit{ kind = "error", text = "torch._dynamo.exc.UserError",
                   detail = violation:gsub("^torch%._dynamo%.exc%.UserError: ", ""), phase = "guards" }
    error(violation, 2)
  end
  record.outputs = outs
  return record
end
torch.export = setmetatable({ Dim = Dim, export = export },
  { __call = function(_, ...) return export(...) end })

-- The report `shapedb FILE.lua` prints: the event log, then per compiled
-- function its graph, bindings and guards. quiet: only the end result.
function shapedb.report(out, quiet)
  out = out or io.stdout
  if not quiet then
    out:write("== events ==\n")
    -- one line per event; a multi-line message (an error's) continues on
    -- lines marked | so the log stays one event per unmarked line
    for _, line in ipairs(shapedb.events(true)) do out:write((line:gsub("\n", "\n    | "):gsub("| \n", "|\n")), "\n") end
  end
  for _, r in ipairs(traces) do
    out:write(string.format("\n== %s %s(backend=%s) ==\n", r.name,
      r.compile_id and ("[" .. r.compile_id .. "] ") or "", r.backend))
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
      local g = r.trace:guard_records()
      for _, k in ipairs(r.consts or {}) do g[#g + 1] = { text = k.text, phase = "trace" } end
      out:write("guards:", #g == 0 and " none\n" or "\n")
      for _, rec in ipairs(g) do
        local where = rec.file and string.format(", %s:%d", rec.file, rec.line) or ""
        out:write(string.format("  %-50s # %s%s\n", rec.text, rec.phase, where))
      end
      if r.recompile then
        out:write(r.recompile:gsub("^Recompiling function ", "recompiled: "), "\n")
        local diff = shapedb.guards_diff(r.previous, r)
        out:write(string.format("guards diff against [%s]:%s\n", r.previous.compile_id,
          #diff == 0 and " none" or ""))
        for _, line in ipairs(diff) do out:write("  ", line, "\n") end
      end
    end
  end
  return #traces
end

-- Run one branch of a higher-order op: the branch is traced into its own
-- subgraph; an error inside it leaves the hop cleanly.
local function run_branch(h, which, fn, args)
  h:branch(which)
  -- an error keeps the branch's line and traceback (capture), not the
  -- cond call's: the user acts on the line that failed
  local res = table.pack(xpcall(fn, capture, table.unpack(args, 1, args.n or #args)))
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

-- An unknown torch.NAME is an error naming it (Lua would only say "attempt
-- to call a nil value" later); names starting with _ stay plain nil.
setmetatable(torch, { __index = function(_, k)
  if type(k) == "string" and k:sub(1, 1) ~= "_" then
    error(string.format("NotImplementedError: unsupported operator: torch.%s (not modelled by shapedb; "
      .. "shapedb.ops() lists the operators)", k), 2)
  end
end })

