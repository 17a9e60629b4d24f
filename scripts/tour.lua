-- tour.lua — what shapedb can do today. Run: make run
local E = shapedb.expr
local function show(label, v) print(string.format("  %-44s %s", label, tostring(v))) end

print("shapedb tour: symbolic sizes as PyTorch's ShapeEnv sees them\n")
print("1. Expressions are canonical and print as sympy/PyTorch print them:")
show('shapedb.expr("s0 + s0*2")', E("s0 + s0*2"))
show('shapedb.expr("-u0 + 2*s0")', E("-u0 + 2*s0"))
show('shapedb.expr("(4*s0 + s1)//4")', E("(4*s0 + s1)//4"))
show('shapedb.expr("Mod(2*s0, 4)")', E("Mod(2*s0, 4)"))
show('shapedb.expr("Max(u0, 1)")', E("Max(u0, 1)"))
show('shapedb.expr("Gt(u0, 2)")', E("Gt(u0, 2)"))

print("\n2. Building the same expression twice gives the same object:")
local s0, s1 = shapedb.symbols("s0 s1")
show("(s0*2 + s1) == shapedb.expr('s1 + 2*s0')", (s0 * 2 + s1) == E("s1 + 2*s0"))

print("\n3. Substitution and evaluation with hints:")
show('E("s0*s1 + 2"):subs{ s1 = 3 }', E("s0*s1 + 2"):subs{ s1 = 3 })
show('E("Mod(s0, 3)"):eval{ s0 = -7 }', E("Mod(s0, 3)"):eval{ s0 = -7 })

print("\n4. Value ranges: what is known about a size without a hint:")
show('bound("2*s0 - 1", {s0 = {2, nil}})', shapedb.bound("2*s0 - 1", { s0 = {2, nil} }))
show('bound("Mod(u0, 4)", {})', shapedb.bound("Mod(u0, 4)", {}))
show('bound("u0 >= 0", {u0 = {0, nil}})', shapedb.bound("u0 >= 0", { u0 = {0, nil} }))

print("\nTry it yourself: bin/shapedb -e 'print(shapedb.expr(\"s0 + s0*2\"))'")
