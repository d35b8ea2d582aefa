"""Which units run the work (issue 34, item 2; docs/language.md, "Which units run the work"):
a statement runs on the tensor units only as a matrix contraction (two free axes, each operand
missing one, a reduction) whose tile reaches 16 x 8 x 8; every other multiply-add runs on the
vector FMA units at the accumulator's precision (fp32 for bf16 inputs). The closed forms'
choice and the oracle's (each found on its own) agree at sizes on both sides of the rule."""

import numpy
import pytest
import sympy
from conftest import SPECS
from hostile_runs import run
from hypothesis import given, settings
from hypothesis import strategies as st
from wording import plural_slips

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.units import counted
from kernelcost.hardware.machinefile import load_machine
from kernelcost.oracle import compare, enumerate_counts
from kernelcost.present.roofs import roof_name
from kernelcost.present.sweep import sweep

H100 = load_machine("h100")
GEMM = """kernel g(M, N, K) {{
    in A: bf16[M, K]; in B: bf16[K, N]; out C: bf16[M, N]
    for i in 0..M, j in 0..N, k in 0..K {{ C[i, j] += A[i, k] * B[k, j]{unit} }}
}}"""


def verdict_of(name: str, sizes: dict):
    analysis = kernelcost.analyze(SPECS / f"{name}.kcost", sizes)
    return verdict(analysis.cost, H100, None, analysis.settings)


def work_names(result) -> set[str]:
    return {roof_name(term.roof) for term in result.terms if term.kind == "work"}


# --- the cases ---------------------------------------------------------------------

@pytest.mark.parametrize("name, sizes", [
    ("rmsnorm", {"R": 4096, "n": 8192}),
    ("gemv_decode", {"N": 8192, "K": 8192, "b": 1}),  # one token: a tile of 64 x 1 x 512
    ("horner", {"n": 10**8}),
])
def test_element_wise_and_decode_work_meets_the_vector_fma_peak(name, sizes):
    result = verdict_of(name, sizes)
    assert "fp32 vector FMA peak" in work_names(result)
    assert not any("tensor" in term for term in work_names(result))
    assert {roof_name(level.peak_roof) for level in result.levels} == {"fp32 vector FMA peak"}
    assert result.levels[0].ridge == sympy.Rational(67, 3350) * 1000  # 67e12 / 3.35e12 = 20


def test_horner_over_1e8_points_is_bound_by_the_fp32_units():
    # 1000 multiply-adds a point: 2e11 FLOP at 67e12 FLOP/s = 2.985 ms, where the bf16 tensor
    # peak (990e12) claimed 202 us
    result = verdict_of("horner", {"n": 10**8})
    assert roof_name(result.bound) == "fp32 vector FMA peak"
    assert result.t_min == sympy.Rational(2 * 10**11, 67 * 10**12)


def test_gemm_hopper_still_meets_the_tensor_peak():
    result = verdict_of("gemm_hopper", {"M": 8192, "N": 8192, "K": 8192})
    assert roof_name(result.bound) == "bf16 tensor peak"  # wgmma tiles of 64 x 256 x 16
    assert work_names(result) >= {"bf16 tensor peak"}


@pytest.mark.parametrize("name, sizes", [
    ("attention", {"S": 4096, "d": 128}),
    ("flash_attention", {"S": 4096}),
    ("flash_attention_causal", {"S": 4096}),
    ("decode_attention", {"b": 8, "h": 32, "L": 4096}),
    ("moe_gemm", {"Ea": 8, "Mt": 512, "N": 4096, "K": 4096}),
])
def test_attention_products_are_mma_contractions(name, sizes):
    """QK^T and PV have two free axes (query rows, keys or head columns) and a reduction:
    tiles of Br x Bc x WK, g x TL x d, ... all on the tensor units."""
    analysis = kernelcost.analyze(SPECS / f"{name}.kcost", sizes)
    assert analysis.cost.contractions
    assert {c.unit for c in analysis.cost.contractions} == {"tensor"}


def test_gemv_decode_moves_to_the_tensor_units_with_the_batch():
    # the token axis s is the second free axis: its tile is b, under 8 at decode
    for b, unit in ((1, "fma"), (4, "fma"), (7, "fma"), (8, "tensor"), (64, "tensor")):
        analysis = kernelcost.analyze(SPECS / "gemv_decode.kcost",
                                      {"N": 4096, "K": 4096, "b": b})
        assert set(analysis.cost.work) == {unit}, b


# --- the rule ------------------------------------------------------------------------------

@pytest.mark.parametrize("sizes, unit", [
    ({"M": 16, "N": 8, "K": 8}, "tensor"),  # the minimum itself
    ({"M": 8, "N": 16, "K": 8}, "tensor"),  # m and n in either order
    ({"M": 8, "N": 8, "K": 8}, "fma"),      # neither free axis reaches 16
    ({"M": 64, "N": 64, "K": 4}, "fma"),    # too short a reduction
    ({"M": 256, "N": 7, "K": 256}, "fma"),     # a skinny GEMM: 7 columns
])
def test_the_tile_against_the_minimum(sizes, unit):
    spec = kernelcost.loads(GEMM.format(unit=""))
    cost = spec.cost()
    assert set(cost.work) == {"tensor"}  # symbolic sizes: a contraction on the tensor units
    result = verdict(cost, H100, None, sizes)
    assert {term.key for term in result.terms if term.kind == "work"} == {unit}
    counts = enumerate_counts(spec.checked, sizes)  # the oracle's own reading of the rule
    assert {cls for cls, flops in counts.work.items() if flops} == {unit}
    assert not compare(cost, counts)


@pytest.mark.parametrize("statement", [
    "for i in 0..n { y[i] += x[i] * w[i] }",                         # element-wise
    "for i in 0..n, j in 0..n { y[i] += A[i, j] * x[j] }",          # one free axis
    "for i in 0..n, j in 0..n { P[i, j] += x[i] * w[j] }",          # no reduction
    "for i in 0..n, j in 0..n { let s: f32 = 0; for k in 0..n { s += A[i, k] * A[k, j] }"
    " P[i, j] = s }",                                                # a scalar accumulator
    "for i in 0..n, j in 0..n, k in 0..n { P[i, j] += A[i, k] * A[k, j] * 2 }",  # 3 factors
])
def test_what_is_no_contraction_runs_on_the_vector_fma_units(statement):
    spec = kernelcost.loads(f"""kernel k(n) {{
        in x: bf16[n]; in w: bf16[n]; in A: bf16[n, n]; out y: bf16[n]; out P: f32[n, n]
        {statement}
    }}""")
    cost = spec.cost()
    assert "tensor" not in cost.work and cost.work["fma"] != 0
    assert not cost.contractions


def test_the_band_stops_at_a_tile_loop_and_skips_a_batch_axis():
    spec = kernelcost.loads("""kernel bmm(H, M, N, K, T = 16) {
        assume T | K
        in A: bf16[H, M, K]; in B: bf16[H, K, N]; out C: f32[H, M, N]
        for h in 0..H, k0 in 0..K by T {
            for i in 0..M, j in 0..N, k in k0..k0 + T { C[h, i, j] += A[h, i, k] * B[h, k, j] }
        }
    }""")
    (contraction,) = spec.cost().contractions
    M, N, T = (sympy.Symbol(name, integer=True, positive=True) for name in "MNT")
    assert contraction.trips == ((M,), (N,), (T,))  # h: a batch axis; k0 ends the band
    for sizes in ({"H": 2, "M": 16, "N": 8, "K": 16, "T": 8},
                  {"H": 2, "M": 16, "N": 8, "K": 16, "T": 4}):
        counts = enumerate_counts(spec.checked, sizes)
        assert not compare(spec.cost(), counts), sizes
    assert enumerate_counts(spec.checked, {"H": 2, "M": 16, "N": 8, "K": 16, "T": 8}
                            ).work["tensor"] == 2 * 2 * 16 * 8 * 16


def test_a_clipped_or_triangular_tile_counts_at_its_largest():
    """An extent that moves with an outer iterator is taken at its largest over the run, by
    the closed forms (running the iterators) and by the oracle (the loops as they ran)."""
    clipped = kernelcost.loads("""kernel c(M, N, K, T = 16) {
        in A: bf16[M, K]; in B: bf16[K, N]; out C: f32[M, N]
        for i0 in 0..M by T {
            for i in i0..min(i0 + T, M), j in 0..N, k in 0..K { C[i, j] += A[i, k] * B[k, j] }
        }
    }""")
    triangle = kernelcost.loads("""kernel t(N, K) {
        in A: bf16[N, K]; out C: f32[N, N]
        for i in 0..N, j in 0..i + 1, k in 0..K { C[i, j] += A[i, k] * A[j, k] }
    }""")
    for spec, sizes, unit in (
            (clipped, {"M": 20, "N": 8, "K": 8}, "tensor"),   # a 16-row tile, then 4
            (clipped, {"M": 12, "N": 8, "K": 8}, "fma"),      # 12 rows at most
            (clipped, {"M": 20, "N": 8, "K": 8, "T": 8}, "fma"),
            (triangle, {"N": 16, "K": 8}, "tensor"),          # the last row: 16 columns
            (triangle, {"N": 15, "K": 8}, "fma")):
        counts = enumerate_counts(spec.checked, sizes)
        assert {cls for cls, flops in counts.work.items() if flops} == {unit}, sizes
        assert not compare(spec.cost(), counts), sizes


# --- named units ---------------------------------------------------------------------------

def test_on_fma_keeps_a_contraction_on_the_vector_units_at_any_size():
    spec = kernelcost.loads(GEMM.format(unit=" on fma"))
    cost = spec.cost()
    assert set(cost.work) == {"fma"} and cost.contractions[0].named == "fma"
    result = verdict(cost, H100, None, {"M": 4096, "N": 4096, "K": 4096})
    assert roof_name(result.bound) == "fp32 vector FMA peak"
    counts = enumerate_counts(spec.checked, {"M": 16, "N": 16, "K": 16})
    assert counts.work["fma"] == 2 * 16**3 and not compare(cost, counts)


def test_on_tensor_keeps_a_small_contraction_on_the_tensor_units():
    spec = kernelcost.loads(GEMM.format(unit=" on tensor"))
    result = verdict(spec.cost(), H100, None, {"M": 4, "N": 4, "K": 4})
    assert {term.key for term in result.terms if term.kind == "work"} == {"tensor"}
    counts = enumerate_counts(spec.checked, {"M": 4, "N": 4, "K": 4})
    assert counts.work["tensor"] == 128 and not compare(spec.cost(), counts)


# --- sweeps and JSON -----------------------------------------------------------------------

def test_a_sweep_over_the_batch_decides_the_units_at_each_size():
    sizes = numpy.array([1.0, 4, 7, 8, 16, 256])
    result = sweep(SPECS / "gemv_decode.kcost", sizes, "b",
                   settings={"N": "8192", "K": "8192"}, machine=H100)
    for position, b in enumerate(sizes):
        analysis = kernelcost.analyze(SPECS / "gemv_decode.kcost",
                                      {"N": 8192, "K": 8192, "b": int(b)})
        exact = verdict(analysis.cost, H100, None, analysis.settings)
        assert result.t_min[position] == pytest.approx(float(exact.t_min), rel=1e-12)
        for work_class, flops in analysis.cost.work.items():
            assert result.work_by_class[work_class][position] == pytest.approx(
                float(flops.subs(exact.values)), rel=1e-12)
    assert list(result.work_by_class["fma"] > 0) == [True, True, True, False, False, False]


def test_json_names_the_class():
    document = kernelcost.analyze(SPECS / "gemm.kcost")
    assert set(document.work_by_class) == {"tensor"}


# --- the two readings of the rule agree around the minimum ----------------------------------

CONTRACTIONS = [
    # plain, tiled along k, clipped along m, triangular in n, batched, with a grid offset
    """kernel c(M, N, K) { in A: bf16[M, K]; in B: bf16[K, N]; out C: f32[M, N]
        for i in 0..M, j in 0..N, k in 0..K { C[i, j] += A[i, k] * B[k, j] } }""",
    """kernel c(M, N, K, T = 4) { in A: bf16[M, K]; in B: bf16[K, N]; out C: f32[M, N]
        for k0 in 0..K by T { for i in 0..M, j in 0..N, k in k0..min(k0 + T, K) {
            C[i, j] += A[i, k] * B[k, j] } } }""",
    """kernel c(M, N, K, T = 8) { in A: bf16[M, K]; in B: bf16[K, N]; out C: f32[M, N]
        for i0 in 0..M by T { for i in i0..min(i0 + T, M), k in 0..K, j in 0..N {
            C[i, j] += A[i, k] * B[k, j] } } }""",
    """kernel c(M, N, K) { in A: bf16[N, K]; out C: f32[N, N]
        for i in 0..N, j in 0..i + 1, k in 0..K { C[i, j] += A[i, k] * A[j, k] } }""",
    """kernel c(M, N, K) { in A: bf16[M, M, K]; in B: bf16[M, K, N]; out C: f32[M, M, N]
        for b in 0..M, i in 0..M, j in 0..N, k in 0..K {
            C[b, i, j] += A[b, i, k] * B[b, k, j] } }""",
    """kernel c(M, N, K, T = 8) { assume T | N
        in A: bf16[M, K]; in B: bf16[K, N]; out C: f32[M, N]
        for j0 in 0..N by T parallel(threads = 128) { let acc: f32[M, T] in registers = 0
            for i in 0..M, k in 0..K, j in j0..j0 + T { acc[i, j - j0] += A[i, k] * B[k, j] }
            for i in 0..M, j in j0..j0 + T { C[i, j] = acc[i, j - j0] } } }""",
]


@settings(max_examples=60, deadline=None)
@given(template=st.sampled_from(CONTRACTIONS), M=st.integers(1, 20), N=st.integers(1, 20),
       K=st.integers(1, 20), T=st.sampled_from([4, 8, 16]))
def test_the_closed_forms_and_the_oracle_choose_the_same_units(template, M, N, K, T):
    spec = kernelcost.loads(template)
    sizes = {"M": M, "N": N, "K": K}
    if "T" in template.split(")")[0]:
        sizes["T"] = T
        if "assume T | N" in template:
            sizes["N"] = T * max(1, N // T)
    counts = enumerate_counts(spec.checked, sizes)
    mismatches = compare(spec.cost(), counts)
    assert not mismatches, [str(m) for m in mismatches]


def test_no_printed_count_of_one_takes_the_plural():
    """Every golden output, the README and the docs: "1 block", never "1 blocks" (the fill
    and drain sentence, the wave model's stages and the latency effect's lift said it)."""
    assert counted(1, "block") == "1 block" and counted(4, "stage") == "4 stages"
    root = SPECS.parent
    texts = [*sorted((root / "tests" / "golden").iterdir()), root / "README.md",
             *sorted((root / "docs").glob("*.md"))]
    slips = {str(path.relative_to(root)): found for path in texts
             if (found := plural_slips(path.read_text(encoding="utf-8")))}
    assert not slips, slips


ONE_OF_EACH = ('{"_name_or_path": "one-layer", "model_type": "llama", "hidden_size": 128,\n'
               ' "num_attention_heads": 1, "num_key_value_heads": 1, "num_hidden_layers": 1,\n'
               ' "intermediate_size": 256, "vocab_size": 1000, "max_position_embeddings": 4096}\n')


@pytest.mark.parametrize("options", [(), ("--kernels",), ("--batch", "1", "--context", "1"),
                                     ("--launch", "graphs")])
def test_a_model_of_one_layer_and_one_head_says_so(capsys, tmp_path, options):
    """The whole-model header wrote "1 layers, ... 1 heads / 1 KV heads" for a user's model of
    one layer and one head: the goldens hold only the shipped models, of many of each."""
    config = tmp_path / "config.json"
    config.write_text(ONE_OF_EACH)
    code, out, _ = run(capsys, "model", config, "--machine", "h100", *options)
    assert code == 0 and "(420,224 parameters, 1 layer, hidden 128, 1 head / 1 KV head," in out
    assert not plural_slips(out), plural_slips(out)
    assert " 0.0 GB" not in out  # its few MB read as none
