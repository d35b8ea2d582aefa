"""What lowers the roof (issue 13): the chapter's caveats as Derates, estimates that enter
t_model and never t_bound. The figures are checked by hand from the machine files."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from kernelcost.analysis.api import analyze, loads
from kernelcost.answers.answer import answers
from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.derate_text import derate_text
from kernelcost.present.report import answer_lines
from kernelcost.present.report.verdict_report import verdict_rows
from kernelcost.present.roofs import roof_name

H100 = dataclasses.replace(load_machine("h100"), achievable=())  # the data sheet's roofs: the
# chapter's figures and Little's law against them, no achievable fraction (test_achievable)

COPY = """kernel copy_flat(n) {
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n {
        y[i] = x[i]
    }
}"""


def vector_add(threads: int):
    """c = a + b in f32, one block of `threads` threads per `threads` elements."""
    return loads(f"""kernel vector_add_blocks(n) {{
    assume {threads} | n
    in  a: f32[n]
    in  b: f32[n]
    out c: f32[n]
    for b0 in 0..n by {threads} parallel(threads = {threads}) {{
        for i in b0..b0 + {threads} {{
            c[i] = a[i] + b[i]
        }}
    }}
}}""")


def derate(result, cause, level=None):
    [found] = [d for d in result.derates if d.cause == cause and d.key == level]
    return found


# --- 1. launch overhead: the chapter's example ----------------------------------------------

def test_the_chapters_launch_example_5us_on_a_20us_kernel():
    # 8 B per element at 3.35 TB/s: n = 8 375 000 makes the kernel 67 MB / 3.35 TB/s = 20 us
    machine = dataclasses.replace(H100, launch_overhead_s=5e-6)
    result = verdict(loads(COPY).cost("spec"), machine, values={"n": 8_375_000})
    assert result.t_min == sympy.Rational(20, 10**6)
    assert result.t_model == result.t_min  # the kernel's time: launch kept apart
    assert result.t_min_with_launch == sympy.Rational(25, 10**6)
    launch = derate(result, "launch")
    assert launch.factor == sympy.Rational(4, 5)  # the kernel computes 80 % of the call
    assert (result.t_min_with_launch - result.t_min) / result.t_min == sympy.Rational(1, 4)
    assert 1 - launch.factor == sympy.Rational(1, 5)
    assert (launch.finding.of_kernel, launch.finding.of_total) == (
        sympy.Rational(1, 4), sympy.Rational(1, 5))
    assert "25 % of the kernel's time, 20 % of the total" in derate_text(launch)


def test_without_a_launch_figure_there_is_no_launch_derate():
    machine = dataclasses.replace(H100, launch_overhead_s=None)
    result = verdict(loads(COPY).cost("spec"), machine, values={"n": 8_375_000})
    assert result.derates == ()


# --- 2. derates as data: JSON rows and the terminal line ------------------------------------

def test_derates_in_json_rows_and_the_terminal_line():
    analysis = analyze(loads(COPY), {"n": 8_375_000})
    [answer] = answers(analysis, ["h100"], None)
    [row] = verdict_rows(answer.verdict)
    achievable, launch = row["derates"]
    assert set(launch) == {"cause", "key", "factor", "detail"}
    assert (achievable["cause"], achievable["key"], achievable["factor"]) == (
        "achievable", "global", 0.8657)  # h100.toml: BabelStream copy 2.90 / 3.35 TB/s
    kernel = Fraction(20, 10**6) / Fraction("0.8657")  # 20 us at the copy's bandwidth
    assert (launch["cause"], launch["key"]) == ("launch", None)
    assert launch["factor"] == float(kernel / (kernel + Fraction(4, 10**6)))  # h100's 4 us
    lines = answer_lines([answer])
    assert any(line.startswith("  what lowers the roof here: launch, x0.8524") for line in lines)


# --- 3. latency: Little's law --------------------------------------------------------------

def _hand_needed() -> Fraction:
    """3.35 TB/s x 655 cycles / 1.755 GHz (h100.toml, [[latency]] global): 1.25 MB."""
    latency = H100.latency("global")
    assert (latency.cycles, latency.clock_Hz) == (655, 1.755e9)
    return Fraction(335 * 10**10) * 655 / Fraction(1755 * 10**6)


def test_vector_add_with_one_warp_per_sm_is_latency_bound_on_h100():
    sms = H100.sm_count
    assert sms == 132
    result = verdict(vector_add(32).cost("spec"), H100, values={"n": 32 * sms})
    assert result.grid.occupancy.blocks == sms  # one 32-thread block (a warp) per SM
    available = sms * 32 * (4 + 4)  # blocks x threads x one f32 load each of a and b
    assert available == 33_792
    needed = _hand_needed()
    assert round(float(needed)) == 1_250_285
    latency = derate(result, "latency", "global")
    factor = Fraction(available) / needed
    assert latency.factor == sympy.Rational(factor.numerator, factor.denominator)
    attainable = float(Fraction(335 * 10**10) * factor)
    assert round(attainable / 1e9, 1) == 90.5  # GB/s, against the 3.35 TB/s roof
    text = derate_text(latency)
    assert "latency-bound" in text and "90.5 GB/s" in text
    assert "unloaded" in text
    # the occupancy that lifts it: ceil(1.25 MB / (132 SMs x 256 B)) = 37 blocks per SM,
    # more than the 32 blocks an SM holds
    assert (latency.finding.lift, latency.finding.allowed) == (37, 32)
    assert "37 resident blocks per SM" in text and "more than the 32" in text
    # t_model takes global traffic (12 B per element) at the attainable bandwidth ...
    traffic = 12 * 32 * sms
    assert result.t_model == sympy.Rational(traffic) / (
        sympy.Rational(335 * 10**10) * latency.factor)
    assert roof_name(result.grid.model_bound) == "global bandwidth (latency-bound)"
    # ... and t_bound stays the roof: no derate enters it
    assert result.t_bound == sympy.Rational(traffic, 335 * 10**10)
    assert roof_name(result.grid.bound) == "global bandwidth"


def test_vector_add_at_full_occupancy_reaches_the_hbm_roof():
    sms = H100.sm_count
    n = 1024 * sms * 8  # 1024-thread blocks, 2 resident per SM (2048 threads), 4 waves
    result = verdict(vector_add(1024).cost("spec"), H100, values={"n": n})
    assert result.grid.occupancy.resident == 2
    available = 2 * sms * 1024 * 8
    assert available > _hand_needed()  # 2.16 MB in flight against 1.25 MB
    assert available > _hand_l2_needed()  # and against L2's 1.51 MB
    assert [d.cause for d in result.derates] == ["launch"]
    assert result.t_model == result.t_bound == sympy.Rational(12 * n, 335 * 10**10)


def test_arrays_declared_in_shared_are_in_flight_whole():
    """A block that stages its tiles in arrays it declares in shared memory (no keep) keeps
    each fill in flight at once: decode_attention_split's Q (64 x 128), K and V (128 x 128)
    bf16 arrays, 16 + 32 + 32 KiB = 81,920 B a block, not 128 threads x one 16-byte load of
    each of Qm, Kc and Vc (6 kB). At b = 1, h = 32 (4 blocks) on H100: 4 x 81,920 B against
    the 1.25 MB Little's law asks for."""
    spec = Path(__file__).resolve().parent.parent / "specs" / "decode_attention_split.kcost"
    cost = loads(spec.read_text()).cost("spec")
    result = verdict(cost, H100, values={"b": 1, "h": 32, "L": 4096})
    latency = derate(result, "latency", "global")
    assert latency.finding.flight.how.tiles
    assert latency.finding.flight.per_block_B == 16 * 1024 + 2 * 32 * 1024
    factor = Fraction(4 * 81_920) / _hand_needed()
    assert latency.factor == sympy.Rational(factor.numerator, factor.denominator)
    # 8.4 MB at 3.35 TB/s x 0.262 take 9.6 us, under the busiest SM's shared time: the
    # derate does not bind, and t_model is the shared roof's
    assert roof_name(result.grid.model_bound).startswith("shared bandwidth")


# --- 4. latency at every level: L2 and shared memory ---------------------------------------

GEMM_SMALL_BLOCKS = """kernel gemm_small_blocks(M, N, K, T = 32) {
    assume T | M, T | N, T | K
    in  A: f32[M, K]
    in  B: f32[K, N]
    out C: f32[M, N]
    for i0 in 0..M by T, j0 in 0..N by T parallel(threads = 32) {
        for k0 in 0..K by T {
            keep A, B in shared {
                for i in i0..i0 + T, j in j0..j0 + T, k in k0..k0 + T {
                    C[i, j] += A[i, k] * B[k, j]
                }
            }
        }
    }
}"""


def _hand_l2_needed() -> Fraction:
    """10 TB/s x 265.5 cycles / 1.755 GHz (h100.toml, [[latency]] l2): 1.51 MB."""
    latency = H100.latency("l2")
    assert (latency.cycles, latency.clock_Hz, H100.bandwidth("l2")) == (265.5, 1.755e9, 1e13)
    return Fraction(10**13) * Fraction(2655, 10) / Fraction(1755 * 10**6)


def _hand_shared_needed() -> Fraction:
    """One SM's share of the shared bandwidth x its latency: 30 TB/s / 132 SMs x 29 cycles /
    1.755 GHz (h100.toml, [[latency]] shared): 3.76 kB per SM."""
    latency = H100.latency("shared")
    assert (latency.cycles, latency.clock_Hz, H100.bandwidth("shared")) == (29, 1.755e9, 30e12)
    return Fraction(30 * 10**12, 132) * 29 / Fraction(1755 * 10**6)


def test_a_small_grid_of_one_warp_blocks_is_latency_bound_at_shared_memory():
    # M = N = K = 512: 16 x 16 = 256 blocks of 32 threads; the busiest SM runs
    # ceil(256 / 132) = 2 of them, both resident (25 fit: 228 KiB / (8 KiB of tiles + 1 KiB))
    result = verdict(loads(GEMM_SMALL_BLOCKS).cost("spec"), H100,
                     values={"M": 512, "N": 512, "K": 512})
    assert result.grid.occupancy.resident == 233_472 // (8192 + 1024) == 25
    assert result.grid.occupancy.busiest_sm_blocks == 2
    # each thread keeps one 16 B load of A and one of B in flight (32 x 32 tiles, 32 elements
    # per thread: a 4-wide f32 vector each): 2 blocks x 32 threads x 32 B on that SM
    available = 2 * 32 * (16 + 16)
    needed = _hand_shared_needed()
    assert round(float(needed)) == 3_756
    shared = derate(result, "latency", "shared")
    factor = Fraction(available) / needed
    assert shared.factor == sympy.Rational(factor.numerator, factor.denominator)
    assert round(float(factor), 4) == 0.5453
    text = derate_text(shared)
    assert "latency-bound at shared: 2.05 kB in flight per SM" in text
    assert "attainable shared bandwidth 124 GB/s per SM" in text  # 227 GB/s x 0.5453
    # ceil(3 756 B / 1 KiB) = 4 resident blocks per SM would lift it
    assert shared.finding.lift == 4 and shared.finding.allowed is None  # 25 fit
    assert "4 resident blocks per SM" in text
    # each block stores its 32 x 32 tile of C after its k0 loop, with no work left to hide it
    # (the overlap of its MMAs with the shared loads they wait on, at the fitted exponent,
    # adds more than 0.1 % here: it is named)
    assert roof_name(result.grid.model_bound) == (
        "shared bandwidth (latency-bound, overlap, fill drain)")
    assert roof_name(result.grid.bound) == "shared bandwidth"  # t_bound keeps the roof
    # global and L2: 256 blocks keep their 8 KiB of tiles in flight: 2.1 MB > 1.51 > 1.25 MB
    assert [d.key for d in result.derates if d.cause == "latency"] == ["shared"]



def test_one_resident_block_per_sm_is_said_in_the_singular():
    # decode attention at b = 1 on an H200: 4 blocks of 32 heads / 8 per KV head, each with
    # 82 kB of arrays in shared memory in flight; 1.79 MB needed (4.8 TB/s x 373 ns) is
    # under 132 SMs x 82 kB, so one resident block an SM, on enough blocks, would do
    spec = loads((Path(__file__).resolve().parent.parent / "specs"
                   / "decode_attention_split.kcost").read_text())
    result = verdict(spec.cost("spec"), load_machine("h200"),
                     values={"b": 1, "h": 32, "L": 4096})
    found = derate(result, "latency", "global")
    flight = found.finding.flight
    assert result.grid.occupancy.busiest_sm_blocks == 1 and flight.blocks_at_once == 4
    assert flight.needed_B < 132 * flight.per_block_B and found.finding.lift == 1
    text = derate_text(found)
    assert "; 1 resident block per SM (and blocks enough to fill them) would lift it" in text

def test_four_blocks_on_the_busiest_sm_hide_the_shared_latency():
    # M = N = K = 1024: 1024 blocks, 8 on the busiest SM: 8 KiB in flight, above 3.76 kB
    result = verdict(loads(GEMM_SMALL_BLOCKS).cost("spec"), H100,
                     values={"M": 1024, "N": 1024, "K": 1024})
    assert result.grid.occupancy.busiest_sm_blocks == 8
    assert _hand_shared_needed() < 8 * 1024
    assert [d.cause for d in result.derates] == ["overlap", "fill_drain", "launch"]  # no latency
    assert roof_name(result.grid.model_bound) == "shared bandwidth (overlap, fill drain)"


def test_without_a_cited_latency_the_verdict_says_it_is_unknown():
    # b200.toml cites no DRAM or shared latency; l40s.toml no shared one
    values = {"M": 512, "N": 512, "K": 512}
    b200 = verdict(loads(GEMM_SMALL_BLOCKS).cost("spec"), load_machine("b200"), values=values)
    assert b200.grid.latency_unknown == ("global", "shared")
    # no latency derate where no latency is cited (L2 has one, and now a bandwidth too)
    assert [d.key for d in b200.derates if d.cause == "latency"] == ["l2"]
    analysis = analyze(loads(GEMM_SMALL_BLOCKS), values)
    [answer] = answers(analysis, ["l40s"], None)
    assert answer.verdict.grid.latency_unknown == ("shared",)
    lines = answer_lines([answer])
    assert "  latency unknown at shared: the machine file cites no load latency there, so " \
           "Little's law is not checked (no latency derate)." in lines
    [row, *_] = answers_json_rows([answer])
    assert row["grid"]["latency_unknown"] == ["shared"]


def answers_json_rows(found):
    from kernelcost.present.report import answers_json

    return answers_json(found)["verdicts"]


def test_a_term_key_is_a_member_never_a_word():
    """Cost.work and Cost.traffic are typed by word; a term's key goes through term_key, so
    that a derate finds its term by member (no word is both a class and a level)."""
    from kernelcost.base.kinds import WorkClass, term_key
    from kernelcost.base.levels import Level

    assert term_key("tensor") is WorkClass.TENSOR
    assert term_key("global") is Level.GLOBAL
    assert term_key(Level.L2) is Level.L2
    assert not {member.value for member in WorkClass} & {member.value for member in Level}
    with pytest.raises(ValueError):
        term_key("hbm")
