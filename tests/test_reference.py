"""The chapter's worked examples (the roofline chapter, examples 1-7), from the spec files."""

import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.count.values import evaluate

M, N, K, T, n = (size(s) for s in ("M", "N", "K", "T", "n"))
S, d, b, Theta = (size(s) for s in ("S", "d", "b", "Theta"))


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def close(value, expected, tolerance=0.01) -> bool:
    return abs(value - expected) <= tolerance * abs(expected)


def test_vector_add_counts_one_flop_per_twelve_bytes(spec_cost):
    cost = spec_cost("vector_add")
    assert same(cost.total_work, n)  # example 1: one addition per element
    assert same(cost.traffic["global"], 12 * n)  # 2 reads + 1 write of 4 bytes
    assert cost.intensity("global") == sympy.Rational(1, 12)


def test_gemm_closed_forms(spec_cost):
    cost = spec_cost("gemm")
    assert same(cost.work["tensor"], 2 * M * N * K)  # example 2
    assert same(cost.traffic["global"], 2 * (M * K + K * N + M * N))  # bf16, each element once
    assert set(cost.traffic) == {"global"}


def test_gemm_at_4096():
    result = kernelcost.analyze(SPECS / "gemm.kcost", {"M": 4096, "N": 4096, "K": 4096})
    assert close(result.work.value, 1.37e11)  # example 2
    assert close(result.traffic["global"].value, 1.01e8)
    assert close(result.intensity["global"].value, 1365.3, 0.001)


def test_gemm_naive_intensity_tends_to_a_quarter(spec_cost):
    cost = spec_cost("gemm_naive")
    intensity = cost.intensity("global")
    assert sympy.limit(intensity, K, sympy.oo) == sympy.Rational(1, 4)  # example 3
    result = kernelcost.analyze(SPECS / "gemm_naive.kcost")
    assert result.intensity["global"].limits["K"] == sympy.Rational(1, 4)


def test_gemm_tiled_intensity_tends_to_half_the_tile(spec_cost):
    cost = spec_cost("gemm_tiled")
    assert same(cost.traffic["global"], 4 * M * N * K / T + 2 * M * N)  # DESIGN.md
    assert same(cost.work["tensor"], 2 * M * N * K)
    result = kernelcost.analyze(SPECS / "gemm_tiled.kcost")
    assert result.intensity["global"].limit == T / 2  # example 4
    square = kernelcost.analyze(SPECS / "gemm_tiled.kcost", {"M": "N", "K": "N"})
    assert same(square.intensity["global"].expr, N * T / (2 * N + T))
    assert square.intensity["global"].limit == T / 2


def test_llm_decode_is_one_flop_per_byte_at_batch_one():
    result = kernelcost.analyze(SPECS / "llm_decode.kcost", {"Theta": "70e9", "b": 1})
    assert close(result.traffic["global"].value, 2 * 70e9)  # example 5: Q ~ 2 Theta
    assert close(result.work.value, 2 * 70e9)  # W ~ 2 Theta
    assert close(result.intensity["global"].value, 1.0)
    symbolic = kernelcost.analyze(SPECS / "llm_decode.kcost")
    assert same(symbolic.intensity["global"].expr, b)  # I ~ b


def test_conv3x3_at_1024():
    result = kernelcost.analyze(SPECS / "conv3x3.kcost", {"n": 1024})
    assert close(result.work.value, 1.89e7)  # chapter exercise: 1024^2 * 9 * 2
    assert close(result.traffic["global"].value, 8.39e6)  # each pixel once in, once out
    assert close(result.intensity["global"].value, 2.25)


def test_conv3x3_naive_reads_each_pixel_nine_times():
    result = kernelcost.analyze(SPECS / "conv3x3_naive.kcost", {"n": 1024})
    # reads alone 9 n^2 * 4 B = 3.77e7 (the chapter's count), I = 0.5
    x_reads = 9 * 1024**2 * 4
    assert close(x_reads, 3.77e7)
    assert close(result.work.value / x_reads, 0.5)
    # with the output write, 4.19e7 B and I = 0.45 (the filter adds 36 B)
    assert close(result.traffic["global"].value, 4.19e7)
    assert close(result.intensity["global"].value, 0.45)


def test_softmax_is_five_n_with_n_exponentials(spec_cost):
    cost = spec_cost("softmax")
    assert same(cost.total_work, 5 * n)  # example 7, exact for the spec as written
    assert same(cost.work["sfu"], n)


def test_layernorm_is_about_seven_n():
    result = kernelcost.analyze(SPECS / "layernorm.kcost")
    assert same(result.work.leading, 7 * n)  # example 7, leading term


def test_attention_products_are_four_s_squared_d():
    result = kernelcost.analyze(SPECS / "attention.kcost")
    assert same(result.work_by_class["tensor"].expr, 4 * S**2 * d)  # example 7: the two GEMMs
    assert same(result.work.leading, 4 * S**2 * d)


# specs whose counts are upper bounds, each saying why in its header comment
UPPER_BOUNDS = {
    "flash_attention_causal": "the triangle of keys read: K and V footprints bounded by a box",
    "flash_attention_causal_hopper": "the triangle of keys read: K and V footprints bounded "
                                     "by a box",
    # each box is what the grid reads of the tensor whole (the split's keys at p * S / P):
    # exact in value, tests/test_flash_attention_split.py counts the global bytes by hand
    "flash_attention_split": "a split's keys at p * S / P: Q, K and V footprints bounded by "
                             "a box",
    # the boxes are the whole tensors, which the kernel and its combine touch: exact in
    # value, tests/test_flash_attention_split.py counts the global bytes by hand
    "flash_attention_causal_split": "the split's keys below the diagonal: Q, K, V, O and "
                                    "partial footprints bounded by a box",
    "flash_attention_hopper": "ragged query tiles (Br = 192 at d = 64): Q and O footprints "
                              "bounded by a box",
    # the box is the whole of K and V (the last token reads every key), so its value is exact
    "model_attention_causal": "the triangle of keys read: K and V footprints bounded by a box",
    # the box is K and V of the prefix and the chunk (the last token reads every key): exact
    "model_attention_chunk": "the chunk's triangle of keys read: K and V footprints bounded "
                             "by a box",
    # A[i, kg * g] lies inside A[i, k]: the box of the two accesses is A, exact in value
    "model_gemm_w4a16": "the group's first activation beside every activation: A bounded by a "
                        "box",
    "model_gemm_w8a16": "the group's first activation beside every activation: A bounded by a "
                        "box",
    "model_gemm_w8a8": "the slice's first activation beside every activation: A bounded by a "
                       "box",
}


def test_every_spec_counts_exactly(spec_cost):
    for path in sorted(SPECS.glob("*.kcost")):
        cost = spec_cost(path.stem)
        # a sum over tiles whose slope is a ratio of tile sizes (a causal key loop) closes once
        # the tile sizes are numbers: at the spec's defaults, the sizes without one left free
        assert cost.closed_form or _closes_at_defaults(cost), path.stem
        assert cost.exact or path.stem in UPPER_BOUNDS, path.stem


def _closes_at_defaults(cost) -> bool:
    return not any(evaluate(amount, cost.defaults).has(sympy.Sum)
                   for amount in (*cost.work.values(), *cost.traffic.values()))


def test_reuse_modes_order_intensities(spec_cost):
    """no reuse <= as written <= perfect reuse, at a size where it matters."""
    values = {M: 256, N: 256, K: 256, T: 32}
    none = spec_cost("gemm_tiled", "none").intensity("global").subs(values)
    written = spec_cost("gemm_tiled", "spec").intensity("global").subs(values)
    perfect = spec_cost("gemm_tiled", "perfect").intensity("global").subs(values)
    assert none <= written <= perfect
    assert none < written < perfect
