"""The kernels of an LLM's forward pass (issue 12): each spec's W and Q against forms derived
by hand from the loop nest, its closed forms against enumeration at small sizes, and the
H200 figures measured on this project's machines (the acceptance values) against t_bound
and t_model.

How the hand forms are derived: count the statements' FLOP per innermost iteration (the
language's rules: `+= a * b` is 2 fma, or 2 tensor where it is a matrix contraction, each
other operator 1 vector, exp/log/rsqrt 1 sfu), multiply by the trip counts; closed forms keep
a contraction on the tensor units while the sizes that decide it are symbols; Q global of a
parallel spec is compulsory traffic, each distinct element read once plus each written once,
times its bytes."""

import pytest
import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.analysis.verify import check_against_oracle
from kernelcost.answers.answer import answers

(n, N, K, b, R, T, h, hk, d, L, g, P, TL, BLK, TN, Ea, Mt) = (size(s) for s in (
    "n", "N", "K", "b", "R", "T", "h", "hk", "d", "L", "g", "P", "TL", "BLK", "TN", "Ea",
    "Mt"))


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def by_hand(spec_cost, name, work: dict, traffic: dict):
    cost = spec_cost(name)
    for cls, expected in work.items():
        assert same(cost.work.get(cls, 0), expected), (name, cls, cost.work.get(cls))
    for level, expected in traffic.items():
        assert same(cost.traffic.get(level, 0), expected), (name, level,
                                                            cost.traffic.get(level))
    assert cost.exact and cost.closed_form, name


def test_copy(spec_cost):
    # y[i] = x[i]: no FLOP; x read and y written once, 4 B each
    by_hand(spec_cost, "copy", {"fma": 0, "vector": 0}, {"global": 8 * n, "l2": 8 * n})


def test_gemv_decode(spec_cost):
    # one multiply-add per (n, s, k): 2bNK, a contraction (n and s free, k reduced), on the
    # tensor units while b is a symbol; HBM sees W, X and Y once (bf16); L2 serves each
    # of the N / TN blocks its TN rows of W and all of X
    by_hand(spec_cost, "gemv_decode", {"tensor": 2 * b * N * K},
            {"global": 2 * (N * K + b * K + b * N),
             "l2": 2 * N * K + 2 * b * K * N / TN + 2 * b * N})


def test_decode_attention(spec_cost):
    # per tile of TL cache rows and per query head: 2 TL d fma for q.k and 2 TL d for p.v;
    # TL max, 2 TL (subtract, add to the sum) + TL exp for the scores; the rescale 2
    # vector + 1 exp, and d products. L / TL tiles per (sequence, KV head), g heads each.
    # After the loop, per head: d divisions, an add and a log. The combine per block and
    # head: P max, 2P vector + P exp for the weights, per column (d / P of them) 2P fma and
    # a division. Blocks: b (h / g) P. q.k and p.v are contractions (g x TL x d and
    # g x d x TL tiles): the tensor units; the combine's sum runs into a scalar: fma.
    H = h / g
    tiles = b * H * L / TL
    blocks = b * H * P
    tensor = tiles * g * 4 * TL * d
    fma = blocks * g * 2 * P * (d / P)
    vector = (tiles * g * (TL + 2 + 2 * TL + d)
              + blocks * g * (d + 1 + 3 * P + d / P))
    sfu = tiles * g * (1 + TL) + blocks * g * (1 + P)
    # HBM: q and o (2 B), K and V of every KV head (2 B), the fp32 partials and their
    # log-sum-exp written once (the combine reads back what the kernel wrote: no compulsory
    # traffic, issue 34)
    global_ = 2 * b * h * d * 2 + 2 * b * H * L * d * 2 + 4 * b * h * P * (d + 1)
    # shared: each cache row of K and V reaches registers once per block
    by_hand(spec_cost, "decode_attention",
            {"tensor": tensor, "fma": fma, "vector": vector, "sfu": sfu},
            {"global": global_, "shared": 2 * 2 * b * H * L * d})
    cost = spec_cost("decode_attention")
    assert same(cost.work["tensor"], 4 * b * d * h * L)


def test_rmsnorm(spec_cost):
    # per row: n squares (2 fma each), then / n, + eps, rsqrt, and two products per element
    by_hand(spec_cost, "rmsnorm", {"fma": 2 * R * n, "vector": 2 * R * n + 2 * R, "sfu": R},
            {"global": 2 * (2 * R * n + n)})


def test_rope(spec_cost):
    # per rotated pair (d / 2 a head): 4 products and 2 sums; q and k read and written,
    # the cos/sin row (d values) read once per token
    by_hand(spec_cost, "rope", {"vector": 6 * T * (h + hk) * d / 2},
            {"global": 2 * (2 * T * h * d + 2 * T * hk * d + T * d)})


def test_silu_mul(spec_cost):
    # g / (1 + exp(-g)) * u: +, /, * and one exp; two bf16 reads and a write per element
    by_hand(spec_cost, "silu_mul", {"vector": 3 * T * n, "sfu": T * n},
            {"global": 6 * T * n})


def test_moe_gemm(spec_cost):
    # Ea experts, Mt rows each: 2 Ea Mt N K; HBM: the touched experts' weights, their rows
    # of X and of Y, once each (bf16)
    by_hand(spec_cost, "moe_gemm", {"tensor": 2 * Ea * Mt * N * K},
            {"global": 2 * Ea * (N * K + Mt * K + Mt * N)})


def test_reduce_sum(spec_cost):
    # n additions in the blocks and P = n / BLK for the partials; x once, each partial
    # written once (read back from where it was written: no compulsory traffic), the result
    # written
    by_hand(spec_cost, "reduce_sum", {"vector": n + n / BLK},
            {"global": 4 * n + 4 * n / BLK + 4})


def test_softmax_rows(spec_cost):
    # per element: max (1), x - max, + (2) with exp, x - max, / (2) with exp again
    by_hand(spec_cost, "softmax_rows", {"vector": 5 * R * n, "sfu": 2 * R * n},
            {"global": 4 * R * n})


def test_layernorm_rows(spec_cost):
    # per element: sum (1 vector), square (2 fma), (x - mean) * inv (2 vector), fma (2);
    # per row: 2 divisions, a product, a difference, + eps and one rsqrt
    by_hand(spec_cost, "layernorm_rows",
            {"fma": 4 * R * n, "vector": 3 * R * n + 5 * R, "sfu": R},
            {"global": 4 * R * n + 4 * n})


SMALL = {  # sizes meeting each spec's assumptions, a few hundred iterations at most
    "copy": "n=64,BLK=8",
    "gemv_decode": "N=8,K=6,b=3,TN=4,TK=3",
    "decode_attention": "b=2,h=4,L=16,g=2,d=4,P=2,TL=4",
    "rmsnorm": "R=3,n=5",
    "rope": "T=3,h=4,hk=2,d=6",
    "silu_mul": "T=3,n=5",
    "moe_gemm": "Ea=3,Mt=5,N=8,K=8,E=4,TM=2,TN=4,TK=4,WK=2",
    "reduce_sum": "n=24,BLK=4",
    "softmax_rows": "R=3,n=5",
    "layernorm_rows": "R=3,n=5",
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_closed_forms_agree_with_enumeration(name):
    spec = kernelcost.load(SPECS / f"{name}.kcost")
    settings = dict(item.split("=") for item in SMALL[name].split(","))
    results = check_against_oracle(spec, settings)
    assert results and not any(result.mismatches for result in results), name


# -- the acceptance values measured on this project's H200 (machines/h200.toml) ---------

def h200_times(name: str, sizes: dict) -> tuple[float, float]:
    analysis = kernelcost.analyze(SPECS / f"{name}.kcost", sizes)
    (answer,) = answers(analysis, ["h200"], None)
    return float(answer.verdict.t_bound), float(answer.verdict.t_model)


def test_copy_against_the_measured_h200_bandwidth():
    # device-to-device copy ~4.3 TB/s counting bytes read plus written: at 2^30 f32 values
    # (8 GiB moved) the measured time is 8n / 4.3e12
    count = 2**30
    measured = 8 * count / 4.3e12
    t_bound, t_model = h200_times("copy", {"n": count})
    assert t_bound <= measured  # the bound is not beaten
    assert abs(t_model - measured) <= 0.25 * measured


def test_gemm_hopper_against_the_measured_h200_rate():
    # bf16 8192^3 GEMM at 769-798 TFLOP/s: measured times 2 N^3 / rate
    flop = 2 * 8192**3
    fastest, slowest = flop / 798e12, flop / 769e12
    t_bound, t_model = h200_times("gemm_hopper", {"M": 8192, "N": 8192, "K": 8192})
    assert t_bound <= fastest
    for measured in (fastest, slowest):
        assert abs(t_model - measured) <= 0.25 * measured


def test_a_kernel_without_work_has_no_point_on_the_log_axes(tmp_path, capsys):
    # copy: W = 0, so I = 0: the terminal preview is skipped, a figure at set sizes is a
    # clear error, and a swept figure draws the roofs alone (it used to be a math error)
    from kernelcost.cli import main
    from kernelcost.present.textplot import drawable

    analysis = kernelcost.analyze(SPECS / "copy.kcost", {"n": 4096})
    assert not drawable(answers(analysis, ["h200"], None)[0].verdict)
    figure = str(tmp_path / "copy.svg")
    copy = str(SPECS / "copy.kcost")
    assert main(["plot", copy, "--machine", "h200", "--set", "n=4096", "-o", figure]) == 2
    assert "does no work" in capsys.readouterr().err
    assert main(["plot", copy, "--machine", "h200", "--sweep", "n=1024..4096", "-o",
                 figure]) == 0
