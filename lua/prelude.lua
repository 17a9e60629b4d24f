-- prelude.lua — the Lua-side part of the shapedb module, run once when the
-- module opens (the C binding has already filled `shapedb`).
local shapedb = ...

-- shapedb.symbols("s0 s1 u0") -> three Expr symbols, for scripts and lessons.
function shapedb.symbols(names)
  local out = {}
  for name in tostring(names):gmatch("[%w_]+") do
    out[#out + 1] = shapedb.sym(name)
  end
  return table.unpack(out)
end
