#!/usr/bin/env python3
"""sympy_baseline.py — the sympy side of `make bench`.

PyTorch's ShapeEnv is Python on top of sympy; PyTorch is not installed
here, so this measures the sympy work underneath it: the same expressions
as tests/bench/bench_core.c built with sympy (Symbols with
integer=True, positive=True, as PyTorch creates size symbols), printed with
str(), and a sympy-level approximation of evaluate(). It is a floor for
PyTorch's cost, not PyTorch itself: the real ShapeEnv adds its own Python
(value-range analysis, axioms, logging) on top of every call.

Output: one tab-separated row per workload, keyed as bench_core's rows:
    key  size  microseconds-per-op  exact|approx
`approx` marks a sympy approximation of a ShapeEnv operation rather than
the same work. Median of RUNS runs, as bench_core. `--quick`: one small
run of each (a smoke test).
"""
import sys
import time

import sympy
from sympy.core.cache import clear_cache

QUICK = "--quick" in sys.argv[1:]
RUNS = 1 if QUICK else 5  # odd: the median is one run


def scale(n):
    return max(1, n // 20) if QUICK else n


def median(fn, n):
    times = sorted(fn(n) for _ in range(RUNS))
    return times[len(times) // 2]


def emit(key, size, us, kind="exact"):
    print(f"{key}\t{size}\t{us:.6g}\t{kind}", flush=True)


def row(key, size, fn, n, kind="exact"):
    emit(key, size, median(fn, n), kind)


NSYM = 16
S = [sympy.Symbol(f"s{i}", integer=True, positive=True) for i in range(NSYM)]


# --- 1. expression building (bench_core: lin) --------------------------------

def lin(i, k):
    a, b, c = S[i % NSYM], S[(i + 3) % NSYM], S[(i + 7) % NSYM]
    K = sympy.Integer(k)
    return 3 * a + K * b + c + K


def run_build_new(n):
    # bench_core empties its intern table before each run; sympy's cache
    # is the counterpart
    clear_cache()
    t0 = time.perf_counter()
    for i in range(n):
        lin(i, 5 + i)
    return (time.perf_counter() - t0) * 1e6 / n


HIT_SET = 100  # within sympy's default 1000-entry cache: its hit path


def run_build_hit(n):
    clear_cache()
    first = [lin(i, 5 + i) for i in range(HIT_SET)]
    t0 = time.perf_counter()
    for i in range(n):
        e = lin(i % HIT_SET, 5 + i % HIT_SET)
    t = (time.perf_counter() - t0) * 1e6 / n
    assert e == first[(n - 1) % HIT_SET]
    return t


# --- 1b. the shapes PyTorch was slow on (bench_core: wide_max, long_sum,
# nested_floordiv). sympy's Max/Min of 100 incomparable sizes compares
# every pair (13-14 s a call here), so those rows are one call, timed once.

W = [sympy.Symbol(f"s{i}", integer=True, positive=True) for i in range(100)]


def wide(k, mx):
    a = [W[i] + (k + i) for i in range(100)]
    return sympy.Max(*a) if mx else sympy.Min(*a)


def long_sum(k):
    e = sympy.Integer(k)
    for i in range(64):
        e = e + W[i]
    return e


def nested_floordiv(k):
    e = W[0] + k
    for _ in range(20):
        e = (e + 1) // 2 + 1
    return e


def shape_runner(fn):
    def run(n):
        clear_cache()
        t0 = time.perf_counter()
        for i in range(n):
            fn(1000 + i)
        return (time.perf_counter() - t0) * 1e6 / n
    return run


# --- 2. canonical form + str (bench_core: shape_expr) ------------------------
# FloorDiv and Mod are PyTorch's own sympy Functions; sympy's floor of a
# quotient and Mod are the nearest stock equivalents.

def shape_expr(i):
    a, b, c = S[i % NSYM], S[(i + 5) % NSYM], S[(i + 9) % NSYM]
    k = 2 + (i // 6) % 50
    j = i % 6
    if j == 0:
        return a * b * c
    if j == 1:
        return (a + sympy.Integer(2 * k - 3)) // 2 + 1
    if j == 2:
        return sympy.Mod(a * b + k, 8)
    if j == 3:
        return sympy.Max(1, a - k)
    if j == 4:
        return sympy.Eq(a * b, k * c)
    return a * b + k * a * c - b


def run_build_str(n):
    clear_cache()
    t0 = time.perf_counter()
    for i in range(n):
        str(shape_expr(i))
    return (time.perf_counter() - t0) * 1e6 / n


def run_str(n):
    clear_cache()
    pre = [shape_expr(i) for i in range(600)]
    t0 = time.perf_counter()
    for i in range(n):
        str(pre[i % 600])
    return (time.perf_counter() - t0) * 1e6 / n


# --- 3. evaluate -> guard, approximated (bench_core: hint_rel) ---------------
# What PyTorch's evaluate_expr does with sympy for a relation only the
# hints decide, minus its static analysis (bound_sympy over value ranges,
# axioms) and expand: build the relation, replace() (xreplace of each free
# symbol by its representative), evaluate by xreplace of var_to_val, keep
# the guard (the relation or its negation).

NB = 64
B = [sympy.Symbol(f"s{i}", integer=True, positive=True) for i in range(NB)]
VAR_TO_VAL = {s: sympy.Integer(2 + i) for i, s in enumerate(B)}


def run_evaluate(n):
    clear_cache()
    replacements = {}
    guards = []
    t0 = time.perf_counter()
    for i in range(n):
        a, b = B[(i * 5 + 1) % NB], B[(i * 11 + 3) % NB]
        rel = sympy.Lt(2 * a, b + sympy.Integer(40 + i))
        rel = rel.xreplace({s: replacements.get(s, s) for s in rel.free_symbols})
        v = rel.xreplace(VAR_TO_VAL)
        guards.append(rel if v else sympy.Not(rel))
    return (time.perf_counter() - t0) * 1e6 / n


def main():
    row("expr.build_new", scale(1000), run_build_new, scale(1000))
    row("expr.build_hit", scale(5000), run_build_hit, scale(5000))
    if not QUICK:  # a minute of sympy: only in the full bench
        emit("expr.max100", 1, shape_runner(lambda k: wide(k, True))(1))
        emit("expr.min100", 1, shape_runner(lambda k: wide(k, False))(1))
    row("expr.sum64", scale(50), shape_runner(long_sum), scale(50))
    row("expr.floordiv20", scale(20), shape_runner(nested_floordiv), scale(20))
    row("print.build_str", scale(300), run_build_str, scale(300))
    row("print.str", scale(1200), run_str, scale(1200))
    # bench_core's evaluate rows at 100 and 1000 guards; here the cost per
    # guard does not depend on how many came before (no axioms to rebuild),
    # so one measurement serves both
    us = median(run_evaluate, scale(100))
    emit("env.evaluate_new_100", scale(100), us, "approx")
    emit("env.evaluate_new", scale(100), us, "approx")


if __name__ == "__main__":
    main()
