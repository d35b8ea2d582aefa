"""Crossings: the sizes where a kernel crosses a ridge point, solved exactly, and the sizes
where its tiles or its working set stop fitting their level."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
from count_checks import counted
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.algebra.numeric_roots import ABOVE
from kernelcost.answers.capacity import Held, capacity_crossings
from kernelcost.answers.solve import ridge_crossings, ridge_equation
from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import CAPACITY, RIDGE, size_symbol
from kernelcost.count.cost import Cost, ScopeCost, TensorFootprint
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.report.solve_report import crossing_json

SPECS = Path(__file__).resolve().parent.parent / "specs"
n, M, N, K, T = (size_symbol(name) for name in ("n", "M", "N", "K", "T"))
Theta, b, d = (size_symbol(name) for name in ("Theta", "b", "d"))
SQUARE = {M: N, K: N}
H100_BF16_RIDGE = sympy.Rational(990, 1) / sympy.Rational(335, 100)  # 295.52 FLOP/B


def gemm() -> Cost:
    # chapter example 2: W = 2MNK (fma), Q = 2(MK + KN + MN) bytes of bf16
    return Cost("gemm", (M, N, K), {}, "bf16", "perfect", {"tensor": 2 * M * N * K},
                {"global": 2 * (M * K + K * N + M * N)}, {}, ())


def gemm_tiled() -> Cost:
    # chapter example 4: A, B tiles staged in shared, C written once:
    # W = 2MNK, Q_global = 4MNK/T + 2MN; the scope holds two T x T bf16 tiles, 4 T^2 bytes
    scope = ScopeCost(0, "shared", ("A", "B"), (), M * N * K / T**3,
                      {"A": T**2, "B": T**2}, {}, True, 4 * T**2)
    footprints = {"A": TensorFootprint("A", M * K, 0, True),
                  "B": TensorFootprint("B", K * N, 0, True),
                  "C": TensorFootprint("C", 0, M * N, True)}
    return Cost("gemm_tiled", (M, N, K, T), {T: 128}, "bf16", "perfect",
                {"tensor": 2 * M * N * K}, {"global": 4 * M * N * K / T + 2 * M * N},
                footprints, (scope,))


def llm_decode() -> Cost:
    # chapter example 5: W = 2 Theta b, Q ~ 2 Theta + 4 b d
    return Cost("llm_decode", (Theta, b, d), {d: 8192}, "bf16", "perfect",
                {"tensor": 2 * Theta * b}, {"global": 2 * Theta + 4 * b * d}, {}, ())


# ----------------------------------------------------------------------------- ridge crossings

def test_square_gemm_crosses_at_three_times_the_ridge():
    [crossing] = ridge_crossings(gemm(), N, load_machine("h100"), "bf16", values=SQUARE)
    # chapter example 2: I = N/3 for a square problem, so N* = 3 * I_crit = 886.6 on H100 BF16
    assert crossing.expr == 3 * RIDGE
    assert crossing.value == 3 * H100_BF16_RIDGE
    assert float(crossing.value) == pytest.approx(886.6, rel=0.01)
    assert crossing.compute_bound_side == ABOVE
    assert crossing.condition == sympy.true
    assert crossing.limit == sympy.oo


def test_gemm_tiled_closed_form_and_its_condition():
    [crossing] = ridge_crossings(gemm_tiled(), N, load_machine("h100"), "bf16",
                                 values=SQUARE)
    # chapter example 4 with M = N = K: I = N T / (2N + T), so N* = I_crit T / (T - 2 I_crit),
    # a crossing only when T > 2 I_crit
    assert sympy.simplify(crossing.expr - RIDGE * T / (T - 2 * RIDGE)) == 0
    assert crossing.condition == (T > 2 * RIDGE)
    assert crossing.limit == T / 2  # I -> T/2 as N -> oo
    assert crossing.compute_bound_side == ABOVE


def test_gemm_tiled_with_128_tiles_never_crosses_on_h100():
    [crossing] = ridge_crossings(gemm_tiled(), N, load_machine("h100"), "bf16",
                                 values={**SQUARE, T: 128})
    # chapter example 4: T/2 = 64 < I_crit = 295.5: memory-bound for every N
    assert crossing.value is None and crossing.compute_bound_side is None
    assert crossing.limit == 64
    assert crossing_json(crossing)["value"] is None and crossing_json(crossing)["limit"] == 64.0


def test_gemm_tiled_spec_default_applies_only_when_asked():
    [crossing] = ridge_crossings(gemm_tiled(), N, load_machine("h100"), "bf16",
                                 values=SQUARE, apply_defaults=True)
    assert crossing.value is None and crossing.limit == 64  # T = 128 from the spec


def test_one_ridge_equation_serves_every_machine_and_precision():
    # solved once in I_crit; each machine's ridge put in gives what a solve per machine gives
    prepared = ridge_equation(gemm(), N, values=SQUARE)
    for machine_id, precision in (("h100", "bf16"), ("a100", "fp16"), ("b200", "fp4"),
                                  ("mi300x", "fp32")):
        machine = load_machine(machine_id)
        shared = prepared.crossings(machine, precision)
        alone = ridge_crossings(gemm(), N, machine, precision, values=SQUARE)
        assert shared == alone
        # gemm at M = N = K: I = 2N^3 / (6N^2) = N/3, so N* = 3 I_crit on every machine
        assert shared[0].value == 3 * alone[0].ridge


def test_the_ridge_equation_reads_the_intensity_the_analysis_made(monkeypatch):
    # one readable quotient a level for a cost: analyze and each level's ridge equation
    # ask for it (flash_attention_hopper's took 6-25 ms each)
    from kernelcost.count import cost as cost_module

    made = []
    real = cost_module.readable_cancelled
    monkeypatch.setattr(cost_module, "readable_cancelled",
                        lambda ratio: made.append(ratio) or real(ratio))
    cost = gemm()
    first = cost.intensity("global")
    assert ridge_equation(cost, N, values=SQUARE).crossings(
        load_machine("h100"), "bf16")[0].value == 3 * H100_BF16_RIDGE
    assert cost.intensity("global") is first and len(made) == 1
    assert gemm().intensity("global") == first and len(made) == 2  # another cost, its own


def test_gemm_tiled_solved_for_the_tile_at_8192():
    [crossing] = ridge_crossings(gemm_tiled(), T, load_machine("h100"), "bf16",
                                 values={**SQUARE, N: 8192})
    # I = 8192 T / (16384 + T) = I_crit  =>  T* = 16384 I_crit / (8192 - I_crit) = 613.2
    ridge = H100_BF16_RIDGE
    assert crossing.value == 16384 * ridge / (8192 - ridge)
    assert float(crossing.value) == pytest.approx(613.16, rel=0.001)
    assert crossing.compute_bound_side == ABOVE
    assert crossing.condition == (RIDGE < 8192)


def test_the_tile_that_crosses_does_not_fit_in_shared_memory():
    crossings = capacity_crossings(gemm_tiled(), T, load_machine("h100"),
                                   values={**SQUARE, N: 8192})
    [shared] = [c for c in crossings if c.level == "shared"]
    # 4 T^2 bytes against 228 KiB per SM: T <= sqrt(233472 / 4) = 241.6, well below T* = 613
    assert shared.expr == sympy.sqrt(CAPACITY) / 2
    assert float(shared.value) == pytest.approx(241.59, rel=0.001)
    assert shared.exceeds_side == ABOVE and shared.capacity_per == "sm"


def test_llm_decode_batch_crossing():
    [crossing] = ridge_crossings(llm_decode(), b, load_machine("h100"), "bf16",
                                 values={Theta: 70 * 10**9, d: 8192})
    # chapter example 5: I ~ b, compute-bound from b* ~ 296 (295.5 + the activations' share)
    assert float(crossing.value) == pytest.approx(295.5, rel=0.01)
    assert crossing.compute_bound_side == ABOVE


def test_vector_add_never_crosses_and_says_why():
    cost = Cost("vector_add", (n,), {}, "fp32", "perfect", {"vector": n}, {"global": 12 * n},
                {}, ())
    [crossing] = ridge_crossings(cost, n, load_machine("h100"), "fp32")
    # chapter example 1: I = 1/12 for every n, under I_crit = 20
    assert crossing.value is None and crossing.limit == sympy.Rational(1, 12)


def test_crossings_on_other_machines_use_their_ridge():
    [crossing] = ridge_crossings(gemm(), N, load_machine("b200"), "fp4", values=SQUARE)
    assert crossing.value == 3 * 1125  # B200 FP4 ridge, the chapter's table: I_crit = 1125


def test_json_keys_are_the_documented_ones():
    [crossing] = ridge_crossings(gemm(), N, load_machine("h100"), "bf16", values=SQUARE)
    found = crossing_json(crossing)
    assert list(found) == [
        "machine", "precision", "level", "parameter", "value", "value_expr", "expr",
        "condition", "condition_expr", "limit", "limit_expr", "limit_infinite",
        "compute_bound_side", "searched_to"]
    assert found["expr"] == "3*I_crit"
    # booleans and numbers whatever the sizes: always crosses, I grows without bound
    assert (found["condition"], found["limit"], found["limit_infinite"]) == (True, None, True)


def test_solving_for_a_set_parameter_is_an_error():
    with pytest.raises(KcostError, match="both solved for and set"):
        ridge_crossings(gemm(), N, load_machine("h100"), "bf16", values={N: 10})


def test_unknown_parameter_is_an_error():
    with pytest.raises(KcostError, match="not a parameter"):
        ridge_crossings(gemm(), "Q", load_machine("h100"), "bf16")


# ------------------------------------------------------------------------ capacity crossings

def test_working_set_leaves_l2_at_the_square_root_of_its_capacity():
    crossings = capacity_crossings(gemm_tiled(), N, load_machine("h100"),
                                   values={**SQUARE, T: 128},
                                   element_bytes={"A": 2, "B": 2, "C": 2})
    [working_set] = [c for c in crossings if c.held_by.held == Held.WORKING_SET]
    # A, B and C: 3 N^2 bf16 = 6 N^2 bytes against 50 MiB of L2: N = sqrt(52428800 / 6)
    assert working_set.value == sympy.sqrt(sympy.Integer(52428800) / 6)
    assert working_set.exceeds_side == ABOVE
    [scope] = [c for c in crossings if c.level == "shared"]
    assert scope.value is None and scope.fits_everywhere is True  # 64 KiB whatever N


# ------------------------------------------------------------------ Costs counted from specs

def test_spec_gemm_square_crossing():
    # values as the command line gives them: --set M=N --set K=N
    [crossing] = ridge_crossings(counted("gemm"), "N", load_machine("h100"), "bf16",
                                 values={"M": "N", "K": "N"})
    assert float(crossing.value) == pytest.approx(886.6, rel=0.01)  # chapter example 2


def test_spec_gemm_tiled_never_at_128_and_crossing_in_t():
    cost = counted("gemm_tiled")
    h100 = load_machine("h100")
    [never] = ridge_crossings(cost, "N", h100, "bf16", values={**SQUARE, T: 128})
    assert never.value is None and never.limit == 64  # chapter example 4: lim I = T/2 = 64
    [crossing] = ridge_crossings(cost, "T", h100, "bf16", values={**SQUARE, N: 8192})
    assert float(crossing.value) == pytest.approx(613.16, rel=0.001)


def test_spec_llm_decode_batch_crossing():
    [crossing] = ridge_crossings(counted("llm_decode"), "b", load_machine("h100"), "bf16",
                                 values={"Theta": 70 * 10**9}, apply_defaults=True)
    assert float(crossing.value) == pytest.approx(295.5, rel=0.01)  # chapter example 5


def test_count_spec_counts_as_analyze_does_without_evaluating():
    from kernelcost.analysis.api import analyze, count_spec

    only_counted = count_spec(SPECS / "gemm_tiled.kcost", {"M": "N", "K": "N"})
    evaluated = analyze(SPECS / "gemm_tiled.kcost", {"M": "N", "K": "N"})
    assert only_counted.cost.traffic == evaluated.cost.traffic
    assert only_counted.settings == evaluated.settings == {M: N, K: N}
    assert only_counted.kernel == "gemm_tiled"


def test_count_spec_refuses_a_step_that_is_not_positive_as_analyze_does():
    from kernelcost.analysis.api import count_spec, loads

    backward = loads("kernel strided(n, m) {\n    in  x: f32[n]\n    out y: f32[n]\n"
                     "    for i in 0..n by m - n {\n        y[i] = x[i]\n    }\n}\n")
    with pytest.raises(KcostError, match="step `m - n` of loop `i` is -6 at m = 4, n = 10"):
        count_spec(backward, {"n": 10, "m": 4})
    assert count_spec(backward, {"n": 4, "m": 10}).warnings == ()


def test_the_solve_command_counts_without_evaluating(monkeypatch, capsys):
    import json

    from kernelcost import cli
    from kernelcost.analysis import api as analysis

    def evaluate(*arguments, **options):
        raise AssertionError("solve evaluated values and asymptotic forms")

    monkeypatch.setattr(analysis, "analyze", evaluate)
    arguments = ["solve", str(SPECS / "gemm_tiled.kcost"), "--for", "N", "--json"]
    assert cli.main(arguments) == 0
    [*_, working_set] = json.loads(capsys.readouterr().out)["capacity"]
    # 2(MK + KN + MN) B = 50 MiB on H100: N = (25 Mi - KM)/(K + M)
    assert working_set["value"] is None  # symbolic: a number or null, its form beside
    assert working_set["value_expr"] == "-(K*M - 26214400)/(K + M)"


@pytest.mark.parametrize("spec, parameter, sizes", [
    ("flash_attention", "S", {}), ("gemm_tiled", "N", {"M": "N", "K": "N"}),
    ("gemm_hopper", "N", {"M": "N", "K": "N"}), ("rmsnorm", "n", {"R": "n"}),
    ("llm_decode", "b", {"Theta": "70e9"}),
])
def test_solve_gives_the_crossings_analyze_gives_at_the_defaults(spec, parameter, sizes):
    # solve kept the defaults symbolic in its values: gemm_tiled's N = 19800 T/(67 T - 39600)
    # read "above" where at T = 128 the root is negative and the kernel never crosses
    import kernelcost
    from kernelcost.answers.answer import answers
    from kernelcost.answers.solve import solve_spec

    analysis = kernelcost.analyze(SPECS / f"{spec}.kcost", sizes)
    (answer,) = answers(analysis, ["h100"], None)
    (solution,) = solve_spec(analysis, parameter, ["h100"], None, None)
    crossings = solution.at_defaults or solution.crossings
    assert [(c.level, c.value, c.compute_bound_side) for c in crossings] == [
        (c.level, c.value, c.compute_bound_side) for c in answer.crossings]
    assert all(c.value is None or c.value.is_number for c in crossings)


def test_solve_says_whether_a_tile_fits_at_the_defaults():
    # gemm_tiled's two T x T bf16 tiles: 4 T^2 B, 64 KiB at the default T = 128 against the
    # H100's 228 KiB of shared memory: they fit at every N (the table said "independent of
    # N", "-", the held bytes kept symbolic in T)
    import kernelcost
    from kernelcost.answers.solve import solve_spec

    analysis = kernelcost.analyze(SPECS / "gemm_tiled.kcost")
    (solution,) = solve_spec(analysis, "N", ["h100"], None, None)
    scope = next(c for c in solution.capacity_at_defaults if c.level == "shared")
    assert scope.held_B == 4 * 128**2 and scope.fits_everywhere is True
    symbolic = next(c for c in solution.capacity if c.level == "shared")
    assert symbolic.fits_everywhere is None and symbolic.held_B.has(T)
    analysis = kernelcost.analyze(SPECS / "gemm_tiled.kcost", {"T": 512})  # 1 MiB
    (solution,) = solve_spec(analysis, "N", ["h100"], None, None)
    assert next(c for c in solution.capacity if c.level == "shared").fits_everywhere is False


# ------------------------------------------------------- a size as its positive real twin

_S, _D = size_symbol("S"), size_symbol("d")
_TWIN = sympy.Symbol("S", positive=True)
_PARTS = st.sampled_from((_S, _S**2, 1 / _S, _D, _S * _D, sympy.Rational(3, 7), sympy.Integer(5),
                          _S / 176, _S + 1, 2 * _S - 3))
_ROUNDED = st.builds(lambda kind, inner, outer: outer * kind(inner),
                     st.sampled_from((sympy.ceiling, sympy.floor)), _PARTS, _PARTS)
_FORMS = st.lists(st.one_of(_PARTS, _ROUNDED), min_size=1, max_size=4)


@given(_FORMS, _FORMS)
@settings(max_examples=120, deadline=None)
def test_a_size_as_its_real_twin_is_what_subs_gives(numerator, denominator):
    """as_real, which rebuilds roundings as they stand, gives subs' expression exactly: the
    same tree, not only an equal value."""
    from kernelcost.answers.solve import as_real

    expr = sympy.Add(*numerator) / sympy.Add(*denominator)
    assert sympy.srepr(as_real(expr, _S, _TWIN)) == sympy.srepr(expr.subs(_S, _TWIN))


def test_a_form_with_a_max_is_left_to_subs():
    from kernelcost.answers.solve import as_real

    expr = sympy.Max(_S, _D) * sympy.ceiling(_S / 64)
    assert sympy.srepr(as_real(expr, _S, _TWIN)) == sympy.srepr(expr.subs(_S, _TWIN))
