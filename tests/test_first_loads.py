"""The first-loads effect: rounds of resident blocks, each waiting one global latency and its
first pass's bytes before it issues past them, after the stated instructions; by hand on the
torch softmax rows of the H200."""

from __future__ import annotations

import pytest
import sympy
from wording import plural_slips

from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.derate_text import derate_text

H200 = load_machine("h200")
LATENCY_S = 655 / 1.755e9  # the H200 file's global latency (H100 PCIe: 655 cycles at 1.755 GHz)
RATE = 0.8354 * 4.8e12  # the achievable fraction of HBM's 4.8 TB/s (BabelStream copy)
CLOCK = 1.98e9


def found(result, cause: str):
    return [derate for derate in result.derates if derate.cause == cause]


@pytest.mark.parametrize("spec, n, resident, instructions", [
    ("softmax_torch_reg4", 4096, 2, 10173),  # 30 registers: 2 blocks of 1024 an SM
    ("softmax_torch_reg8", 8192, 1, 19805),  # 37 registers, 40 allocated: 1 block an SM
])
def test_the_register_kernels_by_hand(spec_cost, spec, n, resident, instructions):
    rows = n  # the rows are square: R = n
    result = verdict(spec_cost(spec), H200, values={"R": rows, "n": n})
    [first] = found(result, "first_loads")
    busiest = -(-rows // 132)  # 32 and 63 blocks on the busiest SM
    rounds = -(-busiest // resident)  # 16 and 63
    round_B = 132 * resident * 2 * n  # every SM's resident blocks read their rows
    wait = LATENCY_S + round_B / RATE
    issue = busiest * instructions / (4 * CLOCK)
    finding = first.finding
    assert (finding.rounds, finding.round_B, finding.tensors) == (rounds, round_B, ("x",))
    assert float(finding.wait_s) == pytest.approx(wait, rel=1e-9)
    assert float(finding.total_s) == pytest.approx(issue + rounds * wait, rel=1e-9)
    # the global term's 4 R n bytes at 4.8 TB/s, stretched to the total
    assert float(first.factor) == pytest.approx(4 * rows * n / 4.8e12 / (issue + rounds * wait))
    assert float(result.t_model) >= issue + rounds * wait
    assert result.t_floor <= result.t_bound <= result.t_model


def test_one_row_in_microseconds(spec_cost):
    # R = n = 4096: 41.1 µs of instructions and 16 waits of 0.373 + 0.539 µs
    result = verdict(spec_cost("softmax_torch_reg4"), H200, values={"R": 4096, "n": 4096})
    [first] = found(result, "first_loads")
    assert float(first.finding.issue_s) == pytest.approx(41.1e-6, rel=1e-3)
    assert float(first.finding.wait_s) == pytest.approx(0.912e-6, rel=1e-3)
    assert float(first.finding.total_s) == pytest.approx(55.7e-6, rel=1e-3)


def test_the_three_pass_kernel_waits_for_its_first_pass(spec_cost):
    # R = 64, n = 131072: 64 blocks, one round; the first pass (the max) reads the 256 KiB
    # rows of all 64 blocks, 16.8 MB, before the first reduction
    result = verdict(spec_cost("softmax_rows_gmem"), H200, values={"R": 64, "n": 131072})
    [first] = found(result, "first_loads")
    assert (first.finding.rounds, first.finding.round_B) == (1, 64 * 2 * 131072)
    assert float(first.finding.wait_s) == pytest.approx(LATENCY_S + 64 * 2 * 131072 / RATE)
    said = derate_text(first)
    assert "issues past them: 1 round on the busiest SM" in said and not plural_slips(said)


def test_no_instructions_stated_no_derate(spec_cost):
    # softmax_rows (QuACK's calibration rows) states no instructions: the effect is silent
    result = verdict(spec_cost("softmax_rows"), H200, values={"R": 4096, "n": 4096})
    assert not found(result, "first_loads")
    assert not found(result, "issue")
    assert sympy.sympify(result.t_model).is_number


def test_layer_norm_rounds_by_hand(spec_cost):
    # vectorized_layer_norm_kernel at R = n = 4096: 128 threads, 32 registers: 16 blocks an
    # SM; 32 on the busiest, 2 rounds; each waits 373 ns and 132 x 16 rows of 8 KiB (17.3 MB)
    # at 4.01 TB/s, after 32 x (1155 + 472 x 8) warp instructions at 4 a clock
    result = verdict(spec_cost("layernorm_torch"), H200, values={"R": 4096, "n": 4096})
    [first] = found(result, "first_loads")
    wait = LATENCY_S + 132 * 16 * 8192 / RATE
    issue = 32 * (1155 + 472 * 8) / (4 * CLOCK)
    assert (first.finding.rounds, first.finding.round_B) == (2, 132 * 16 * 8192)
    assert float(first.finding.total_s) == pytest.approx(issue + 2 * wait, rel=1e-9)
    assert float(first.finding.total_s) == pytest.approx(29.3e-6, rel=2e-3)


NO_GLOBAL = """kernel local(N, M) {
    in x: f32[8]
    for i in 0..M parallel(threads = 32%s) {
        let a: f32[N] in shared = 0
        for k in 0..N {
            a[k] += a[k] * %s
        }
    }
}
"""


def test_a_kernel_of_no_global_bytes_has_no_global_rate_to_scale():
    # x is never read: the global term takes 0 s; a factor of 0 / t_issue would make it
    # 0 bytes / 0 B/s, NaN
    import kernelcost

    values = {"N": 4, "M": 8}
    quiet = verdict(kernelcost.loads(NO_GLOBAL % ("", "a[k]")).cost(), H200, values=values)
    assert not found(quiet, "issue") and not found(quiet, "first_loads")
    times = [sympy.sympify(term.seconds) for term in quiet.grid.model_terms]
    assert all(time.is_finite and time >= 0 for time in times)
    assert quiet.t_floor <= quiet.t_bound <= quiet.t_model == max(times)


def test_stated_instructions_of_no_global_bytes_stretch_the_longest_term():
    """8 blocks of 32 threads, each block's 10173 warp instructions (stated) at 4 a clock
    of 1.98 GHz on the busiest SM, which runs ceil(8 / 132) = 1: 1.2845 µs, that no term
    carried (t_model was the shared term's 0.28 ns). The longest term, shared memory (the
    block's 64 B: 16 B of zeros, then a[k] read twice and written, 12 B for each of N = 4,
    at 30e12 / 132 B/s an SM), is stretched to it."""
    import kernelcost

    values = {"N": 4, "M": 8}
    stated = verdict(kernelcost.loads(NO_GLOBAL % (", instructions = 10173", "a[k]")).cost(),
                     H200, values=values)
    t_issue = 10173 / (4 * CLOCK)
    shared_s = 64 / (30e12 / 132)
    [issue] = found(stated, "issue")
    finding = issue.finding
    assert (issue.key, finding.term, finding.blocks, finding.instructions) == (
        "shared", "shared", 1, 10173)
    assert float(finding.issue_s) == pytest.approx(t_issue, rel=1e-12)
    assert float(finding.term_s) == pytest.approx(shared_s, rel=1e-12)
    assert float(issue.factor) == pytest.approx(shared_s / t_issue, rel=1e-12)
    assert float(stated.t_model) == pytest.approx(t_issue, rel=1e-12)
    assert stated.t_floor <= stated.t_bound <= stated.t_model
    said = derate_text(issue)
    assert "move no global byte" in said and "over the shared term's" in said
    assert not plural_slips(said)
    # one element of x read (4 B a block, 0.83 ps at 4.8 TB/s): the global term takes them
    read = verdict(kernelcost.loads(NO_GLOBAL % (", instructions = 10173", "x[0]")).cost(),
                   H200, values=values)
    [issue] = found(read, "issue")
    assert issue.key == "global"
    assert float(issue.finding.issue_s) == pytest.approx(t_issue, rel=1e-9)
    assert read.t_model >= issue.finding.issue_s
