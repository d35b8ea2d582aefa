"""The roofline model against the roofline chapter's worked examples, on Costs built by
hand as the chapter counts them (test_model_specs.py: on Costs counted from the specs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_rational_eval import expressions
from tiers import tiered

from kernelcost.algebra.decide import at_least, largest
from kernelcost.answers.efficiency import measured_efficiency
from kernelcost.answers.level_terms import TimeTerm, binding_term
from kernelcost.answers.model import verdict
from kernelcost.answers.regimes import ComputeAdvice, Lever, Regime, Zone, zone_of
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import TermKind
from kernelcost.base.symbols import size_symbol
from kernelcost.count.cost import Cost, ScopeCost, TensorFootprint
from kernelcost.hardware.machine import Roof
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.advice_text import zone_advice
from kernelcost.present.derate_text import efficiency_text
from kernelcost.present.report.verdict_report import verdict_rows
from kernelcost.present.roofs import roof_name

SPECS = Path(__file__).resolve().parent.parent / "specs"
n, M, N, K, T = (size_symbol(name) for name in ("n", "M", "N", "K", "T"))
Theta, b, d = (size_symbol(name) for name in ("Theta", "b", "d"))


def hand_cost(kernel, parameters, precision, work, traffic, footprints=None, scopes=(),
              defaults=None) -> Cost:
    return Cost(kernel, parameters, defaults or {}, precision, "perfect", work, traffic,
                footprints or {}, tuple(scopes))


def vector_add() -> Cost:
    # chapter example 1: c = a + b in f32, W = n (vector), Q = 12 n (two reads, one write)
    return hand_cost("vector_add", (n,), "fp32", {"vector": n}, {"global": 12 * n})


def gemm() -> Cost:
    # chapter example 2: W = 2MNK (a contraction: tensor), Q = 2(MK + KN + MN) bytes of bf16
    return hand_cost("gemm", (M, N, K), "bf16", {"tensor": 2 * M * N * K},
                     {"global": 2 * (M * K + K * N + M * N)})


def llm_decode() -> Cost:
    # chapter example 5: W = 2 Theta b (on the tensor units, as the chapter times it),
    # Q ~ 2 Theta (weights) + 4 b d (activations)
    return hand_cost("llm_decode", (Theta, b, d), "bf16", {"tensor": 2 * Theta * b},
                     {"global": 2 * Theta + 4 * b * d}, defaults={d: 8192})


def conv3x3() -> Cost:
    # chapter example 6: W = 18 n^2 (9 fma per pixel), Q = 8 n^2 (read x, write y, f32)
    return hand_cost("conv3x3", (n,), "fp32", {"fma": 18 * n**2}, {"global": 8 * n**2})


# ---------------------------------------------------------------------- example 1: vector_add

def test_vector_add_on_h100_fp32_is_clearly_memory_bound():
    result = verdict(vector_add(), load_machine("h100"), "fp32")
    level = result.level("global")
    assert level.intensity == sympy.Rational(1, 12)  # chapter example 1: I = 1/12, exact
    assert level.ridge == 20  # 67e12 / 3.35e12
    assert level.ratio == sympy.Rational(1, 240)  # chapter example 1: I/I_crit = 1/240
    assert level.zone == Zone.CLEARLY_MEMORY_BOUND and level.regime == Regime.MEMORY_BOUND
    # chapter example 1: perf bound 0.279 TFLOP/s = 0.42 % of P
    assert float(level.performance) == pytest.approx(0.279e12, rel=0.01)
    assert float(level.peak_fraction) == pytest.approx(0.0042, rel=0.01)
    assert roof_name(result.bound) == "global bandwidth" and result.regime == Regime.MEMORY_BOUND


def test_vector_add_t_min_at_1e8_without_launch_overhead():
    result = verdict(vector_add(), load_machine("h100"), "fp32", {n: 10**8})
    # chapter example 1: t_min = 358 us at n = 1e8 (12e8 B / 3.35e12 B/s), no launch overhead
    assert float(result.t_min) == pytest.approx(358e-6, rel=0.01)
    assert float(result.t_min_with_launch) == pytest.approx(358e-6 + 4e-6, rel=0.01)
    assert result.launch_overhead_s == sympy.Rational(4, 10**6)


def test_vector_add_symbolic_t_min_is_linear_in_n():
    result = verdict(vector_add(), load_machine("h100"), "fp32")
    assert result.t_min == 12 * n / sympy.Integer(3_350_000_000_000)
    assert roof_name(result.bound) == "global bandwidth"  # decided for every n > 0


def test_measured_bandwidth_is_reported_in_bytes_per_second():
    result = verdict(vector_add(), load_machine("h100"), "fp32", {"n": 10**8})
    # the roofline chapter, example 1: "3.1 TB/s of 3.35, 93 %" for a memory-bound kernel,
    # never in TFLOP/s
    efficiency = measured_efficiency(result, Bps=3.1e12)
    assert efficiency.metric == "B/s" and efficiency.level == "global"
    assert efficiency.fraction == pytest.approx(3.1 / 3.35)
    assert efficiency_text(efficiency) == "3.1 TB/s of 3.35 TB/s (93 %)"
    # the same run given as a time: 12e8 B in 387 us is 3.1 TB/s
    by_time = measured_efficiency(result, seconds=12e8 / 3.1e12)
    assert by_time.fraction == pytest.approx(efficiency.fraction)


# ---------------------------------------------------------------------------- example 2: gemm

def test_gemm_4096_on_h100_bf16_is_compute_bound():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: 4096, N: 4096, K: 4096})
    level = result.level("global")
    assert float(result.work_FLOP) == pytest.approx(1.37e11, rel=0.01)  # chapter example 2
    assert float(level.traffic_B) == pytest.approx(1.01e8, rel=0.01)  # chapter example 2
    assert float(level.intensity) == pytest.approx(1365.3, rel=0.001)  # chapter: I = 1365.3
    assert level.regime == Regime.COMPUTE_BOUND and level.zone == Zone.MIXED  # ratio 4.6
    assert float(result.t_min) == pytest.approx(139e-6, rel=0.01)  # chapter: 139 us
    assert roof_name(result.bound) == "bf16 tensor peak" and result.regime == Regime.COMPUTE_BOUND
    assert float(result.performance) == pytest.approx(990e12)


def test_verdict_rows_carry_the_documented_json_keys():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: 4096, N: 4096, K: 4096})
    [row] = verdict_rows(result)
    assert list(row) == ["machine", "precision", "level", "ridge", "ridge_expr", "ratio",
                         "ratio_expr", "t_min", "t_min_expr", "performance",
                         "performance_expr", "regime", "bound", "derates"]
    assert row["t_min_expr"] is None and row["performance_expr"] is None  # numbers here
    assert row["regime"] == "compute-bound" and row["bound"] == "bf16 tensor peak"
    assert row["ridge"] == pytest.approx(295.52, rel=1e-4)  # 990e12 / 3.35e12


def test_square_problem_by_setting_parameters_to_each_other():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: N, K: N, N: 4096})
    assert float(result.level("global").intensity) == pytest.approx(1365.3, rel=0.001)


def test_measured_400_tflops_bf16_on_h100_is_40_percent():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: 8192, N: 8192, K: 8192})
    # chapter example 8: measured 400 TFLOP/s BF16 on H100 -> 40 % of peak
    efficiency = measured_efficiency(result, FLOPps=400e12)
    assert efficiency.metric == "FLOP/s" and efficiency.regime == Regime.COMPUTE_BOUND
    assert efficiency.fraction == pytest.approx(400 / 990)
    assert efficiency_text(efficiency) == "400 TFLOP/s of 990 TFLOP/s (40 %)"


def test_measurement_needs_exactly_one_quantity():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: 64, N: 64, K: 64})
    with pytest.raises(KcostError):
        measured_efficiency(result)
    with pytest.raises(KcostError):
        measured_efficiency(result, seconds=1.0, FLOPps=1.0)


def test_measurement_needs_numbers():
    result = verdict(gemm(), load_machine("h100"), "bf16")
    with pytest.raises(KcostError, match="symbolic"):
        measured_efficiency(result, seconds=1e-3)


# ---------------------------------------------------------------------- example 5: llm_decode

def test_llm_decode_batch_1_on_h100():
    result = verdict(llm_decode(), load_machine("h100"), "bf16", {Theta: 70 * 10**9, b: 1})
    assert result.values[d] == 8192  # the spec's default for d applies
    # chapter example 5: t_min = 41.8 ms/token, 23.9 tokens/s (b = 1)
    assert float(result.t_min) == pytest.approx(41.8e-3, rel=0.01)
    assert 1 / float(result.t_min) == pytest.approx(23.9, rel=0.01)
    assert float(result.level("global").intensity) == pytest.approx(1, rel=0.01)  # I ~ 1
    assert result.regime == Regime.MEMORY_BOUND


# ------------------------------------------------------------------------ example 6: conv3x3

def test_conv3x3_memory_bound_by_about_9x_on_h100_fp32():
    result = verdict(conv3x3(), load_machine("h100"), "fp32", {n: 1024})
    level = result.level("global")
    assert float(result.work_FLOP) == pytest.approx(1.89e7, rel=0.01)  # chapter example 6
    assert float(level.traffic_B) == pytest.approx(8.39e6, rel=0.01)  # chapter example 6
    assert level.intensity == sympy.Rational(9, 4)  # I = 2.25
    assert level.regime == Regime.MEMORY_BOUND
    assert float(1 / level.ratio) == pytest.approx(8.9, rel=0.01)  # "memory-bound by ~9x"


# ----------------------------------------------------------------------------- the model's parts

RIDGES = st.sampled_from([sympy.Rational(990, 335) * 100, sympy.Rational(33), sympy.Integer(1),
                          sympy.Rational(1, 10), sympy.Rational(2463, 1000)])
# a Min or Max one argument of which bounds the other at every size, left whole by sympy's
# constructor (-2 + 1/M under N): the ratio's cancel rewrites it to the bounding argument,
# so the intensity's questions must find the same order through the whole lattice
SETTLED_LATTICES = st.builds(
    lambda kind, size, other, shift, scale: scale * kind(size, shift + 1 / other),
    st.sampled_from([sympy.Min, sympy.Max]), st.sampled_from([N, M, T]),
    st.sampled_from([N, M, T]), st.integers(-3, 0), st.sampled_from([1, 2, sympy.Rational(1, 3)]))


@settings(max_examples=80, deadline=None)
@given(st.one_of(expressions(), SETTLED_LATTICES), RIDGES)
@example(sympy.Min(N, -2 + 1 / M), sympy.Integer(33))
def test_a_level_asks_its_questions_of_the_intensity_as_of_the_ratio(intensity, ridge):
    # level_verdict orders I against the ridge once, for Min(peak, I * bandwidth) and
    # Min(1, I / ridge), and puts the zone's bounds on I's side: the same answers as the
    # questions asked of each built expression
    from kernelcost.algebra.decide import pair_sign, smallest, smallest_of_two
    from kernelcost.algebra.quotients import scaled
    from kernelcost.answers.regimes import regime_of

    intensity = sympy.sympify(intensity)
    bandwidth = sympy.Rational(335, 100) * 10**12
    peak = ridge * bandwidth
    ratio = scaled(intensity, 1 / ridge)
    order = pair_sign(intensity, ridge)
    against_ridge = None if order is None else -order
    assert smallest_of_two(peak, intensity * bandwidth, against_ridge) == smallest(
        peak, intensity * bandwidth)
    assert smallest_of_two(1, ratio, against_ridge) == smallest(1, ratio)
    assert zone_of(intensity, ridge) == zone_of(ratio)
    assert regime_of(intensity, ridge) == regime_of(ratio, sympy.Integer(1))


def test_an_intensity_whose_min_holds_a_bounded_argument_is_ordered_by_the_other():
    # Min(N, -2 + 1/M) is -2 + 1/M at every size (at most -1, under N >= 1): -3/2 at M = 2.
    # Its ratio to the ridge 33, cancelled, is (1 - 2M)/(33M), -1/22 at M = 2, under 1, so
    # sympy's Min(1, ratio) is the ratio; the questions asked of the whole Min once left
    # the order undecided, and smallest_of_two kept Min(1, ratio)
    from kernelcost.algebra.decide import less_than, pair_sign, smallest, smallest_of_two
    from kernelcost.algebra.quotients import scaled
    from kernelcost.answers.regimes import regime_of

    intensity, ridge = sympy.Min(N, -2 + 1 / M), sympy.Integer(33)
    assert intensity.subs({N: 5, M: 2}) == sympy.Rational(-3, 2)
    ratio = scaled(intensity, 1 / ridge)
    assert ratio.subs({M: 2}) == sympy.Rational(-1, 22)
    assert pair_sign(intensity, ridge) == -1
    assert smallest_of_two(1, ratio, 1) == smallest(1, ratio) == sympy.Min(1, ratio) == ratio
    assert less_than(intensity, ridge / 10) is True  # under 0.1 of the ridge: -1 < 3.3
    assert less_than(330, intensity) is False
    assert zone_of(intensity, ridge) == zone_of(ratio) == Zone.CLEARLY_MEMORY_BOUND
    assert regime_of(intensity, ridge) == Regime.MEMORY_BOUND


def test_zones_follow_the_chapter():
    # the roofline chapter: < 0.1 clearly memory-bound, 0.1..10 mixed, > 10 compute-bound
    assert zone_of(sympy.Rational(1, 240)) == Zone.CLEARLY_MEMORY_BOUND
    assert zone_of(sympy.Rational(1, 10)) == Zone.MIXED
    assert zone_of(sympy.Integer(10)) == Zone.MIXED
    assert zone_of(sympy.Integer(11)) == Zone.CLEARLY_COMPUTE_BOUND
    assert zone_of(N / 3) is None  # undecided while symbolic
    assert "arithmetic is the limit" in zone_advice(Zone.CLEARLY_COMPUTE_BOUND, ComputeAdvice())
    assert "do not touch compute" in zone_advice(Zone.CLEARLY_MEMORY_BOUND, ComputeAdvice())


def test_sfu_work_has_its_own_ceiling():
    # chapter example 7: exp runs on the special-function unit, a ceiling of its own
    cost = hand_cost("exp_only", (n,), "fp32", {"sfu": n, "vector": 4 * n},
                     {"global": 8 * n})
    result = verdict(cost, load_machine("h100"), "fp32", {n: 10**9})
    assert {roof_name(term.roof) for term in result.terms} == {
        "sfu", "fp32 vector peak", "global bandwidth"}
    assert roof_name(result.bound) == "global bandwidth"  # 8e9 B / 3.35e12 = 2.4 ms > 1e9 / 3.9e12


def test_levels_without_a_bandwidth_figure_are_listed_not_modelled():
    cost = hand_cost("staged", (n,), "bf16", {"fma": 2 * n}, {"global": 2 * n, "l2": 4 * n})
    result = verdict(cost, load_machine("rtx4090"), "bf16", {n: 10**6})  # L2 "unknown"
    assert result.unmodelled_levels == ("l2",)
    assert [level.level for level in result.levels] == ["global"]


def test_keep_scope_fit_against_shared_capacity_per_sm():
    # gemm_tiled: A and B tiles of T x T bf16 held in shared: 4 T^2 bytes
    scope = ScopeCost(0, "shared", ("A", "B"), (), M * N * K / T**3,
                      {"A": T**2, "B": T**2}, {}, True, 4 * T**2)
    cost = hand_cost("gemm_tiled", (M, N, K, T), "bf16", {"tensor": 2 * M * N * K},
                     {"global": 4 * M * N * K / T + 2 * M * N}, scopes=[scope],
                     defaults={T: 128})
    h100 = load_machine("h100")
    fit = verdict(cost, h100, "bf16", {M: 4096, N: 4096, K: 4096}).fits[0]
    assert fit.held_B == 65536 and fit.capacity_per == "sm" and fit.fits is True
    too_big = verdict(cost, h100, "bf16", {M: 4096, N: 4096, K: 4096, T: 256}).fits[0]
    assert too_big.fits is False  # 256 KiB > 228 KiB of shared memory per SM


def test_working_set_against_l2():
    footprints = {name: TensorFootprint(name, n, 0, True) for name in ("a", "b")}
    footprints["c"] = TensorFootprint("c", 0, n, True)
    cost = hand_cost("vector_add", (n,), "fp32", {"vector": n}, {"global": 12 * n},
                     footprints=footprints)
    element_bytes = {"a": 4, "b": 4, "c": 4}
    h100 = load_machine("h100")
    small = verdict(cost, h100, "fp32", {n: 10**6}, element_bytes=element_bytes)
    assert small.working_set_B == 12 * 10**6 and small.working_set_fits_l2 is True
    large = verdict(cost, h100, "fp32", {n: 10**8}, element_bytes=element_bytes)
    assert large.working_set_fits_l2 is False  # 1.2 GB > 50 MiB


def test_model_imports_no_presentation_library():
    # STYLE.md practice 1: nothing in the core imports rich or matplotlib
    script = (
        "import sys\n"
        "from kernelcost.answers import model, solve\n"
        "from kernelcost.hardware.machinefile import load_machine\n"
        "from kernelcost.base.symbols import size_symbol\n"
        "from kernelcost.count.cost import Cost\n"
        "n = size_symbol('n')\n"
        "cost = Cost('k', (n,), {}, 'fp32', 'perfect', {'vector': n}, {'global': 12*n}, {}, ())\n"
        "model.verdict(cost, load_machine('h100'), values={n: 10})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'matplotlib')))\n")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout
    assert output.strip() == "[]"


def test_a_clearly_compute_bound_verdict_carries_the_machine_advice():
    found = verdict(gemm(), load_machine("h100"), "bf16", {M: 65536, N: 65536, K: 65536})
    assert found.level("global").zone == Zone.CLEARLY_COMPUTE_BOUND
    assert found.compute_advice.lever == Lever.NARROWER_ON_TENSOR


def _binding_by_pairs(terms):
    """The first term at least every other, each pair asked (as binding_term once did)."""
    for term in terms:
        if all(at_least(term.seconds, other.seconds) for other in terms if other is not term):
            return term
    return None


def _terms(times):
    return [TimeTerm(Roof(TermKind.WORK), f"term {index}", 1, seconds, seconds)
            for index, seconds in enumerate(times)]


@tiered(200)
@given(st.lists(expressions(depth=2, kinds=("add", "mul", "div", "pow", "ceiling")),
                min_size=1, max_size=4))
def test_the_binding_term_is_the_one_largest_keeps(times):
    # largest keeps a single term only where it proved every other no larger, so the term
    # binding_term names without asking is the one the pairs name
    terms = _terms(times)
    assert binding_term(terms, largest(*times)) == _binding_by_pairs(terms)


def test_a_term_sympy_keeps_from_a_min_binds():
    # a Min among the times goes to sympy's Max, whose absorption M >= Min(M, N) no decider
    # has a sign for (the difference touches zero): the term it keeps is the largest
    terms = _terms([M, sympy.Min(M, N)])
    assert _binding_by_pairs(terms) is None
    assert binding_term(terms, largest(M, sympy.Min(M, N))) == terms[0]


# ---------------------------------------------------- traffic that no size makes zero

_N, _M = sympy.symbols("N M", integer=True, positive=True)
_RIDGE_LIKE = sympy.Symbol("R", positive=True)
_y = sympy.Symbol("y")  # of unknown sign
_TRAFFIC_FACTORS = st.sampled_from((_N, _M, _RIDGE_LIKE, _N**2, _M**3, 1 / _N, sympy.sqrt(_M),
                                    _y, sympy.ceiling(_N / 7), sympy.floor(_N / 7),
                                    sympy.ceiling(_N / 7 - 1), _N - 1, sympy.Integer(1)))
_TRAFFIC_TERMS = st.builds(lambda c, f, g: c * f * g,
                           st.sampled_from((1, 3, sympy.Rational(1, 8192), 16384, -2, 0)),
                           _TRAFFIC_FACTORS, _TRAFFIC_FACTORS)


@given(st.lists(_TRAFFIC_TERMS, min_size=1, max_size=5))
@settings(max_examples=150, deadline=None)
def test_traffic_positive_by_its_terms_is_what_sympy_finds_nonzero(terms):
    """positive_by_terms, which spares sympy's is_zero where every term is positive, says so
    only of sums sympy proves positive, and so never of one sympy finds zero."""
    from kernelcost.answers.level_terms import positive_by_terms

    expr = sympy.Add(*terms)
    if positive_by_terms(expr):
        assert expr.is_zero is False and expr.is_positive is True


def test_a_cubic_traffic_with_a_constant_term_is_positive_by_its_terms():
    from kernelcost.answers.level_terms import positive_by_terms

    S = size_symbol("S")
    assert positive_by_terms(S**3 / 8192 + 289 * S**2 / 32 + 1282 * S + 16384)
    assert not positive_by_terms(S**3 / 8192 - 1)
    assert positive_by_terms(512 * S * sympy.ceiling(S / 256) + 512 * S)
    assert not positive_by_terms(S * sympy.floor(S / 256) + S)
    assert not positive_by_terms(S * sympy.ceiling(S / 256 - 1) + S)
    assert not positive_by_terms(sympy.Integer(0))
