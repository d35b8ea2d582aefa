"""A load's width (`width T = b` in the parallel header): what the checker accepts, what the
latency effect keeps in flight with it, and the issue effect's memory instructions, each
against a hand count."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from kernelcost.analysis.api import loads
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.gpu.effects.issue import issue_time
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse
from kernelcost.present.derate_text import derate_text

SPECS = Path(__file__).resolve().parent.parent / "specs"
H100 = dataclasses.replace(load_machine("h100"), achievable=())
H200 = load_machine("h200")


def row_sums(setting: str) -> str:
    """y[r] = the sum of row r of a bf16 R x n matrix, a block of 128 threads a row."""
    return f"""kernel rows(R, n) {{
    in  x: bf16[R, n]
    out y: f32[R]
    for r in 0..R parallel(threads = 128{setting}) {{
        for i in 0..n {{
            y[r] += x[r, i]
        }}
    }}
}}"""


def errors_of(text: str) -> list[str]:
    with pytest.raises(KcostError) as raised:
        check(parse(text, "t.kcost"))
    return [diagnostic.message for diagnostic in raised.value.diagnostics]


@pytest.mark.parametrize(("setting", "message"), [
    (", width z = 8", "`z` is not a global tensor of this kernel"),
    (", width x = 8, width x = 4", "the width of `x` is set twice"),
    (", width x = 32", "a width is 1, 2, 4, 8 or 16 bytes, not 32"),
    (", width x = 0", "a width is 1, 2, 4, 8 or 16 bytes, not 0"),
    (", width x = n", "a width is 1, 2, 4, 8 or 16 bytes, not n"),
    (", width x = 3", "a width is 1, 2, 4, 8 or 16 bytes, not 3"),  # no PTX load of 3 bytes
    (", width x = 12", "a width is 1, 2, 4, 8 or 16 bytes, not 12"),
    (", width = 8", "`width` needs the tensor it is of"),
])
def test_a_width_names_a_global_tensor_once_with_the_bytes_of_a_ptx_load(setting, message):
    assert errors_of(row_sums(setting)) == [message]


def test_each_tensor_takes_its_own_width():
    grid = loads(row_sums(", width x = 4, width y = 4")).cost("spec").grid
    assert grid.widths == (("x", 4), ("y", 4))
    assert loads(row_sums("")).cost("spec").grid.widths == ()  # unstated: none recorded


def _needed(machine) -> Fraction:
    """DRAM bandwidth x the machine file's unloaded DRAM latency (cycles / clock)."""
    latency = machine.latency("global")
    return Fraction(machine.bandwidth("global")) * Fraction(latency.cycles) / Fraction(
        latency.clock_Hz)


def test_a_stated_width_is_what_a_thread_keeps_in_flight():
    # 66 rows of 65536 bf16: 512 elements a thread, so unstated a load of x is a 16-B vector;
    # y (`+=`, read too) is one f32 a block, a 4-B element a thread
    values = {"R": 66, "n": 65536}
    available = {"": 66 * 128 * (16 + 4), ", width x = 4": 66 * 128 * (4 + 4)}
    for setting, in_flight in available.items():
        result = verdict(loads(row_sums(setting)).cost("spec"), H100, values=values)
        [latency] = [d for d in result.derates if d.cause == "latency" and d.key == "global"]
        assert latency.finding.flight.available_B == in_flight
        factor = Fraction(in_flight) / _needed(H100)
        assert latency.factor == sympy.Rational(factor.numerator, factor.denominator)
    text = derate_text(latency)
    assert "one load each of x 4 B, y 4 B" in text


def test_layernorm_torch_keeps_8_then_24_bytes_a_thread_in_flight():
    # vectorized_layer_norm_kernel: 8-byte loads (vec_size 4 bf16), 128 threads a block, a
    # block a row of n = 131072; compute_stats reads x alone (one 8-B load a thread in
    # flight, 262 144 B of x), the second pass x, gamma and beta (24 B, 786 432 B): a block
    # keeps (262 144 + 786 432) / (262 144 / 1024 + 786 432 / 3072) = 2048 B, 64 blocks
    text = (SPECS / "layernorm_torch.kcost").read_text()
    cost = loads(text).cost("spec")
    result = verdict(cost, H200, values={"R": 64, "n": 131072})
    [latency] = [d for d in result.derates if d.cause == "latency" and d.key == "global"]
    how = latency.finding.flight.how
    assert how.passes == ((("x",), 8, 262_144), (("x", "gamma", "beta"), 24, 786_432))
    assert latency.finding.flight.per_block_B == (262_144 + 786_432) // (256 + 256) == 2048
    assert latency.finding.flight.available_B == 64 * 2048
    factor = Fraction(64 * 2048) / _needed(H200)
    assert latency.factor == sympy.Rational(factor.numerator, factor.denominator)
    assert "x 8 B of 262 kB, then x and gamma and beta 24 B of 786 kB" in derate_text(latency)
    # without the widths the old rule: one 16-B vector of each tensor, all passes at once
    plain = re.sub(r",\s*width \w+ = 8", "", text)
    assert "width" not in plain.split("parallel(", 1)[1].split(")", 1)[0]
    unstated = verdict(loads(plain).cost("spec"), H200, values={"R": 64, "n": 131072})
    [old] = [d for d in unstated.derates if d.cause == "latency" and d.key == "global"]
    assert (old.finding.flight.how.passes, old.finding.flight.available_B) == (
        (), 64 * 128 * 3 * 16)
    assert result.t_floor <= result.t_bound <= result.t_model
    # the memory instructions: each block's 4 boxes of n bf16 (x, gamma, beta, y) in 8-byte
    # loads and stores, n thread instructions, over 32 lanes: 64 x 131072 / 32 = 262 144
    instructions, tensor, narrowest, t_issue = issue_time(cost, H200, _at(result))
    assert (instructions, tensor, narrowest) == (262_144, "beta", 8)  # the first 8-B by name
    assert t_issue == sympy.Rational(262_144) / (132 * 4 * sympy.Rational(198 * 10**7))
    # those take 0.25 µs, under the global term's 7.1 µs; the spec also states all of its
    # instructions (121 987 a block, one block an SM: 15.4 µs), whose derate Little's law's
    # smaller factor overrides
    [issue] = [d for d in result.derates if d.cause == "issue"]
    assert issue.finding.instructions == 1155 + 472 * 256
    assert issue.factor > latency.factor


def _at(result):
    return lambda expr: sympy.sympify(expr).subs(
        {sympy.Symbol(name, positive=True, integer=True): value
         for name, value in (("R", 64), ("n", 131072))})


COPY_I8 = """kernel copy_bytes(n) {
    assume 1024 | n
    in  x: i8[n]
    out y: i8[n]
    for b0 in 0..n by 1024 parallel(threads = 256, width x = 1, width y = 1) {
        for i in b0..b0 + 1024 {
            y[i] = x[i]
        }
    }
}"""


def test_byte_loads_on_eight_sms_are_issue_bound():
    # a copy of n int8 in 1-byte loads and stores: 2n thread instructions, n / 16 warp
    # instructions; 8 SMs x 4 a clock x 1.98 GHz issue them in n / (16 x 63.36e9) s, while
    # 2n bytes at 3.35 TB/s take n / 1.675e12 s: the global term at 2 x 16 x 63.36e9 / 3.35e12
    # = 0.605 of the bandwidth
    machine = dataclasses.replace(H100, sm_count=8, launch_overhead_s=None, latencies=())
    n = 1024 * 8 * 4096
    result = verdict(loads(COPY_I8).cost("spec"), machine, values={"n": n})
    [issue] = [d for d in result.derates if d.cause == "issue"]
    assert issue.key == "global"
    assert issue.finding.instructions == n // 16
    t_issue = sympy.Rational(n, 16) / (8 * 4 * sympy.Rational(198 * 10**7))
    t_global = sympy.Rational(2 * n, 335 * 10**10)
    assert (issue.finding.issue_s, issue.finding.global_s) == (t_issue, t_global)
    assert issue.factor == t_global / t_issue
    assert round(float(issue.factor), 4) == 0.6052
    assert result.t_model == t_issue  # the global term at the issue-bound rate
    assert result.t_floor <= result.t_bound <= result.t_model
    assert "warp memory instructions (1 B the narrowest, of x)" in derate_text(issue)
    # on all 132 SMs the same copy issues in 8/132 of that time, under the bandwidth's
    full = verdict(loads(COPY_I8).cost("spec"), H100, values={"n": n})
    assert not [d for d in full.derates if d.cause == "issue"]
