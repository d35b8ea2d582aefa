"""Separable sums: factors free of the counter stay outside `Summer.range_sum`, so c clipped
dimensions sum as a product of c one-dimensional sums rather than 2^c expanded terms.

Every form is compared with a plain Python loop (the Summer on its own) or with the oracle's
enumeration (whole specs), at small sizes; the non-separable cases must come out right too,
since a product taken where the summand couples the counters would be wrong."""

import itertools
import re

import pytest
import sympy

import kernelcost
from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import size_symbol
from kernelcost.count.facts import Facts
from kernelcost.count.spec_count import count
from kernelcost.count.sums import Summer
from kernelcost.oracle import compare, enumerate_counts

N, M, A, B = (size_symbol(s) for s in ("N", "M", "A", "B"))
t = sympy.Symbol("t", integer=True, nonnegative=True)  # two counters
s = sympy.Symbol("s", integer=True, nonnegative=True)


def summer() -> Summer:
    kernel = kernelcost.loads("kernel k(N, M, A, B) { in x: f32[N]\n out y: f32[N]\n"
                              " for i in 0..N { y[i] = x[i] } }").checked
    return Summer(Facts(kernel))


def double_sum(summand):
    """sum over t = 0..A-1 (inner), then s = 0..B-1 (outer), by the Summer."""
    summing = summer()
    inner = summing.range_sum(summand, t, sympy.Integer(0), A - 1)
    return summing.range_sum(inner, s, sympy.Integer(0), B - 1)


def by_loop(summand, **sizes):
    at = summand.subs({size_symbol(name): value for name, value in sizes.items()})
    return sum(at.subs({t: t_value, s: s_value})
               for s_value in range(sizes["B"]) for t_value in range(sizes["A"]))


def value(expr, **sizes):
    """expr at the given sizes; a sum left open is carried out."""
    result = expr.subs({size_symbol(name): v for name, v in sizes.items()})
    return result.doit() if result.has(sympy.Sum) else result


SIZES = [dict(zip("NMAB", values)) for values in itertools.product(range(5), repeat=4)]


def test_a_product_of_two_clipped_counters_stays_a_product():
    summand = sympy.Min(t, M) * sympy.Min(s + 1, N)
    total = double_sum(summand)
    factors = sympy.Mul.make_args(total)
    # one factor holds the sum over t (A and M), another the sum over s (B and N)
    assert any(f.free_symbols == {A, M} for f in factors)
    assert any(f.free_symbols == {B, N} for f in factors)
    for sizes in SIZES:
        assert value(total, **sizes) == by_loop(summand, **sizes), sizes


def test_a_factor_of_sizes_alone_is_carried_outside():
    summing = summer()
    total = summing.range_sum(N * sympy.Min(t, M), t, sympy.Integer(0), A - 1)
    assert N in sympy.Mul.make_args(total)
    for sizes in SIZES:
        assert value(total, **sizes) == sizes["N"] * sum(min(k, sizes["M"])
                                                         for k in range(sizes["A"]))


@pytest.mark.parametrize("summand", [
    sympy.Min(t, s),  # the min couples the counters
    sympy.Min(t, s) * sympy.Min(t, N),  # a product whose factors share t
    s * sympy.Min(t, N) + t * sympy.Min(s, M),  # a sum of separable products: not a product
    sympy.Max(t - s, 0) * (s + 1),
])
def test_coupled_counters_are_summed_whole(summand):
    total = double_sum(summand)
    for sizes in SIZES:
        assert value(total, **sizes) == by_loop(summand, **sizes), (summand, sizes)


# --- whole specs against the enumeration ------------------------------------------------


def clipped_spec(dims: int, inner_bounds=None) -> str:
    """`dims` tiled dimensions, each clipped by min at its size; inner_bounds may replace a
    dimension's inner range (to couple it with another)."""
    sizes = [f"N{d}" for d in range(1, dims + 1)]
    inner = [f"i{d} in i{d}0..min(i{d}0 + T, N{d})" for d in range(1, dims + 1)]
    for position, text in (inner_bounds or {}).items():
        inner[position] = text
    index = ", ".join(f"i{d}" for d in range(1, dims + 1))
    return (f"kernel clipped({', '.join(sizes)}, T) {{\n"
            f"    in X: f32[{', '.join(sizes)}]\n    out Y: f32[{', '.join(sizes)}]\n"
            f"    for {', '.join(f'i{d}0 in 0..N{d} by T' for d in range(1, dims + 1))} {{\n"
            f"        keep X in shared {{\n"
            f"            for {', '.join(inner)} {{ Y[{index}] += X[{index}] * 2 }}\n"
            "        }\n    }\n}\n")


def agree_with_enumeration(text: str, size_grid) -> None:
    spec = kernelcost.loads(text, "clipped.kcost")
    for mode in ("spec", "perfect", "none"):
        cost = spec.cost(mode)
        for sizes in size_grid:
            counts = enumerate_counts(spec.checked, sizes, mode)
            mismatches = compare(cost, counts, sizes)
            assert not mismatches, (mode, sizes, [str(m) for m in mismatches[:4]])


def test_three_clipped_dimensions_match_the_enumeration():
    spec = kernelcost.loads(clipped_spec(3), "clipped.kcost")
    cost = spec.cost()
    # 2 FLOP (a multiply-add) per element, each element of the N1 x N2 x N3 box once
    assert sympy.expand(cost.work["fma"] - 2 * sympy.Mul(*(size_symbol(f"N{d}")
                                                           for d in (1, 2, 3)))) == 0
    (scope,) = cost.scopes
    # per entry, the tile of X: one clipped width per dimension, kept as a product
    assert len(sympy.Mul.make_args(scope.read_elements["X"])) == 3
    grid = [{"N1": a, "N2": b, "N3": c, "T": tile}
            for a, b, c, tile in itertools.product((1, 3, 5), (2, 4), (1, 3), (1, 2, 3))]
    agree_with_enumeration(clipped_spec(3), grid)


def test_six_clipped_dimensions_stay_a_product_of_six_widths():
    cost = kernelcost.loads(clipped_spec(6), "clipped.kcost").cost()
    (scope,) = cost.scopes
    assert len(sympy.Mul.make_args(scope.read_elements["X"])) == 6
    assert scope.read_elements["X"].count(sympy.Min) == 6  # 2^6 pieces had it been expanded


@pytest.mark.parametrize("inner", [
    {1: "i2 in i20..min(i20 + T, N2, i10 + T)"},  # clipped by the other tile's edge
    {0: "i1 in i10..min(i10 + T, N1, N2 - i20)"},  # by the other tile's position
])
def test_coupled_clipped_dimensions_match_the_enumeration(inner):
    grid = [{"N1": a, "N2": b, "T": tile}
            for a, b, tile in itertools.product((1, 4, 6), (2, 5), (1, 2, 3))]
    agree_with_enumeration(clipped_spec(2, inner), grid)


def test_a_sum_that_outruns_the_budget_names_its_loop_and_its_pieces():
    # a lower triangle inside clipped tiles: i2's bound min(i20 + T, i1 + 1) couples it with
    # i1, whose own bound is clipped, and the pieces multiply past any short budget
    text = clipped_spec(2, {1: "i2 in i20..min(i20 + T, i1 + 1)"})
    spec = kernelcost.loads(text, "triangle.kcost")
    with pytest.raises(KcostError) as raised:
        count(spec.checked, budget_s=1)
    message = str(raised.value)
    assert "needs more than 1 s of symbolic work" in message
    assert "stopped while summing over loop `i" in message and "ranges so far" in message
    assert "2^c pieces" in message
    named = message.split("summing over loop `")[1].split("`")[0]
    assert named in {"i10", "i20", "i1", "i2"}
    line = int(message.split("triangle.kcost:")[1].split(":")[0])
    assert re.search(rf"\b{named} in\b", text.splitlines()[line - 1])  # the loop's own line
