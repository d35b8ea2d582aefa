"""Peaks at the maximum clock (module clocks): each figure a bound uses, computed here by hand
from the per-clock rate, the SM count and the maximum clock that the machine files cite; the
data-sheet figures kept for the ridges; HBM that does not scale; L2 known or said unknown."""

from __future__ import annotations

import pytest
from test_machine_files import H100
from test_model import K, M, N, gemm

from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine, parse_machine
from kernelcost.present.roofs import roof_name

# (machine, what, figure at the maximum clock), each worked by hand with its source.
AT_MAX_CLOCK = [
    # H100 SXM5: 132 SMs at 1.98 GHz (deviceQuery "GPU Max Clock rate: 1980 MHz"). Tensor:
    # 4 tensor cores x 512 dense FP16 FMA per clock x 2 FLOP = 4096 FLOP/clk/SM (H100
    # whitepaper, "H100 SM Architecture"); the data sheet's 989.4e12 is 4096 x 132 x 1.83 GHz.
    ("h100", "bf16 tensor", 4096 * 132 * 1.98e9),  # 1.0705e15 against the chapter's 990e12
    ("h100", "fp16 tensor", 4096 * 132 * 1.98e9),
    ("h100", "fp8 tensor", 8192 * 132 * 1.98e9),  # 2.141e15 against 1979e12
    ("h100", "tf32 tensor", 2048 * 132 * 1.98e9),  # 535.3e12 against 494.7e12
    # SFU: 16 per clock per SM (CUDA guide, throughput of native arithmetic instructions);
    # FlashAttention-3's 3.9e12 is 16 x 132 x 1.83 GHz
    ("h100", "sfu", 16 * 132 * 1.98e9),  # 4.18e12
    # shared: 32 banks x 32 bits per clock (CUDA guide §20.4.3) = 128 B/clk/SM
    ("h100", "shared", 128 * 132 * 1.98e9),  # 33.45e12 against the chapter's ~30e12
    # fp32 vector: 128 FMA per clock per SM = 256 FLOP x 132 x 1.98 GHz = 66.9e12, under the
    # chapter's 67e12, which a bound keeps (never under the figure as given)
    ("h100", "fp32 vector", 67e12),
    ("h200", "bf16 tensor", 4096 * 132 * 1.98e9),  # the H100 SXM5's die and clocks
    ("h200", "shared", 128 * 132 * 1.98e9),
    # A100 SXM4: 108 SMs at 1.41 GHz, where the data sheet already quotes every peak:
    # 2048 x 108 x 1.41e9 = 311.9e12 under the data sheet's 312e12, which stays
    ("a100", "bf16 tensor", 312e12),
    ("a100", "fp64 vector", 64 * 108 * 1.41e9),  # 9.746e12 over the rounded 9.7e12
    ("a100", "shared", 19.5e12),  # 128 x 108 x 1.41e9 = 19.49e12
    # B200: 148 SMs at 1.965 GHz (TechPowerUp, UNCERTAIN); 4 tensor cores x 1024 dense FP16
    # FMA per clock (OpenXLA's table); the data sheet's 2.25e15 assumes about 1.86 GHz
    ("b200", "bf16 tensor", 8192 * 148 * 1.965e9),  # 2.382e15
    ("b200", "fp4 tensor", 32768 * 148 * 1.965e9),  # 9.53e15 against 9e15
    ("b200", "fp32 vector", 80e12),  # 256 x 148 x 1.965e9 = 74.4e12 < 80e12: kept
    ("b200", "shared", 128 * 148 * 1.965e9),  # 37.2e12
    # L40S: 142 SMs at 2.52 GHz; FP16 at half the FP8 rate, 733e12 = 2048 x 142 x 2.52e9
    ("l40s", "bf16 tensor", 1024 * 142 * 2.52e9),  # 366.4e12 against 362.05e12 (2.49 GHz)
    ("l40s", "shared", 128 * 142 * 2.52e9),  # 45.8e12 against a measured 22.6e12
    ("rtx4090", "bf16 tensor", 165.2e12),  # 512 x 128 x 2.52e9 = 165.15e12: as quoted
    # MI300X: 304 CUs at 2.1 GHz, 2048 FLOPS/clock/CU (ROCm MI300 table); LDS 128 B/clk/CU
    ("mi300x", "bf16 tensor", 2048 * 304 * 2.1e9),  # 1307.4e12 against the chapter's 1307e12
    ("mi300x", "shared", 128 * 304 * 2.1e9),  # 81.7e12
    # MI250X, one GCD: 110 CUs at 1.7 GHz; packed FP32, 256 FLOPS/clock/CU (ROCm MI250 table)
    ("mi250x", "fp32 vector", 256 * 110 * 1.7e9),  # 47.9e12, twice the unpacked 23.95e12
    ("mi250x", "bf16 tensor", 191.5e12),  # 1024 x 110 x 1.7e9 = 191.49e12: as quoted
]


def figure(machine, what: str) -> float | None:
    if what == "sfu":
        return machine.sfu_OPps
    if what == "shared":
        return machine.bandwidth("shared")
    precision, unit = what.split()
    return machine.dense_peak(precision, unit).peak_FLOPps


@pytest.mark.parametrize("machine_id, what, expected", AT_MAX_CLOCK)
def test_figures_at_the_maximum_clock_by_hand(machine_id, what, expected):
    machine = load_machine(machine_id)
    assert figure(machine.at_max_clock, what) == pytest.approx(expected, rel=1e-12)
    assert figure(machine.at_max_clock, what) >= figure(machine, what)  # never under it


def test_the_data_sheet_figures_stay_those_of_the_ridges():
    h100 = load_machine("h100")
    assert h100.peak("bf16") == 990e12  # the chapter's figure: ridge 295.5 FLOP/B
    assert h100.bandwidth("shared") == 30e12
    assert h100.sfu_OPps == 3.9e12
    assert h100.at_max_clock.peak("bf16") / h100.peak("bf16") == pytest.approx(1.0813, abs=1e-4)


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_machine_cites_its_maximum_clock(machine_id):
    machine = load_machine(machine_id)
    assert machine.max_clock_Hz and machine.max_clock_source
    fast = machine.at_max_clock
    for slow, quick in zip(machine.compute, fast.compute, strict=True):
        assert quick.peak_FLOPps >= slow.peak_FLOPps
        if slow.per_clock is not None:  # one place derives it: per clock x SMs x clock
            derived = slow.per_clock * machine.sm_count * machine.max_clock_Hz
            assert quick.peak_FLOPps == max(derived, slow.peak_FLOPps)
            assert "at the maximum clock" in quick.source and slow.per_clock_source
    # HBM does not scale with the SM clock: the data sheet's figure is the bound's too
    assert fast.bandwidth("global") == machine.bandwidth("global")


def test_every_dense_tensor_peak_has_its_rate_per_clock():
    for machine_id in builtin_machine_ids():
        machine = load_machine(machine_id)
        for peak in machine.compute:
            if peak.unit == "tensor" and not (machine_id == "b200" and peak.precision == "fp64"):
                assert peak.per_clock is not None, (machine_id, peak.precision, peak.sparse)
        assert machine.memory_level("shared").per_clock == 128  # B per clock per SM (or CU)


def test_a100_hbm_is_the_data_sheet_figure():
    # NVIDIA A100 data sheet, SXM4 80 GB (HBM2e): 2,039 GB/s; the chapter rounds it to 2.0
    a100 = load_machine("a100")
    assert a100.bandwidth("global") == 2.039e12
    assert a100.at_max_clock.bandwidth("global") == 2.039e12
    assert a100.peak("bf16") / a100.bandwidth("global") == pytest.approx(153.0, abs=0.05)


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_machine_has_an_l2_bandwidth_or_says_it_is_unknown(machine_id):
    l2 = load_machine(machine_id).memory_level("l2")
    assert l2.bandwidth_source
    assert (l2.bandwidth_Bps is not None) != l2.bandwidth_unknown
    if l2.bandwidth_unknown:
        assert l2.bandwidth_source.startswith("unknown")


def test_l2_figures_by_hand():
    # MI300X: 128 B per clock per channel (ROCm Compute Profiler, gfx942 speed of light)
    # x 16 channels x 8 XCDs x 2.1 GHz; MI250X: the same per channel x 32 channels x 1.7 GHz
    assert load_machine("mi300x").bandwidth("l2") == pytest.approx(128 * 128 * 2.1e9, rel=1e-3)
    assert load_machine("mi250x").bandwidth("l2") == pytest.approx(128 * 32 * 1.7e9, rel=1e-3)
    assert load_machine("b200").bandwidth("l2") == 2.1e13  # Chips and Cheese, local partition
    assert load_machine("rtx4090").memory_level("l2").bandwidth_unknown


# --- the loader's checks -------------------------------------------------------------------

WITHOUT_CLOCK = "\n".join(line for line in H100.split("\n") if not line.startswith("max_clock"))


def test_a_per_clock_rate_needs_the_maximum_clock():
    with pytest.raises(KcostError) as raised:
        parse_machine(WITHOUT_CLOCK, "evil.toml")
    diagnostic = raised.value.diagnostics[0]
    assert "compute[0].FLOP_per_clock_per_sm" in diagnostic.message
    assert "needs the maximum clock, device.max_clock_Hz" in diagnostic.message


@pytest.mark.parametrize("old, new, message", [
    ("FLOP_per_clock_per_sm = 4096\n", "FLOP_per_clock_per_sm = 2048\n",
     "under the data-sheet figure"),
    ('bandwidth_source = "the roofline chapter', 'B_per_clock_per_sm = 128\nper_clock_source = '
     '"x"\nbandwidth_source = "the roofline chapter', "does not scale with the SM clock"),
])
def test_refused_derivations_name_the_key(old, new, message):
    assert old in H100
    with pytest.raises(KcostError) as raised:
        parse_machine(H100.replace(old, new, 1), "evil.toml")
    assert message in raised.value.diagnostics[0].message


def test_a_per_clock_rate_needs_its_source_and_unknown_needs_one_too():
    with pytest.raises(KcostError, match="per_clock_source"):
        parse_machine(H100.replace("per_clock_source = ", "ignored_source = ", 1)
                      .replace("ignored_source = ", "per_clock_source_x = ", 1), "evil.toml")
    text = H100.replace("bandwidth_Bps = 1.0e13", 'bandwidth_Bps = "unknown"', 1)
    assert parse_machine(text, "ok.toml").memory_level("l2").bandwidth_unknown
    level = text.index('bandwidth_Bps = "unknown"')
    source = text.index("bandwidth_source", level)
    end = text.index("\n", source)
    with pytest.raises(KcostError, match="bandwidth_source"):
        parse_machine(text[:source] + text[end + 1:], "evil.toml")


# --- what the answers say ------------------------------------------------------------------

def test_t_bound_takes_the_peaks_at_the_maximum_clock_and_t_min_the_chapters():
    result = verdict(gemm(), load_machine("h100"), "bf16", {M: 4096, N: 4096, K: 4096})
    work = 2 * 4096**3
    assert float(result.t_min) == pytest.approx(work / 990e12)  # chapter, example 2: 139 us
    assert float(result.t_bound) == pytest.approx(work / (4096 * 132 * 1.98e9))  # 128.4 us
    assert roof_name(result.bound) == roof_name(result.bound_at_max_clock) == "bf16 tensor peak"


def test_the_answer_says_which_figures_it_uses(capsys):
    assert main(["analyze", "specs/gemm.kcost", "--set", "M=4096,N=4096,K=4096",
                 "--machine", "h100", "--no-verify"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "t_min = 139 µs, bound by bf16 tensor peak; t_bound = 128 µs with the peaks at " \
           "the maximum clock" in out


def test_an_unknown_l2_bandwidth_is_said_in_the_text(capsys):
    assert main(["analyze", "specs/gemm_hopper.kcost", "--set", "M=N,K=N,N=4096",
                 "--machine", "rtx4090", "--no-verify"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "l2 bandwidth unknown on RTX 4090" in out


def test_machines_lists_both_figures(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["machines", "h100"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for shown in ("max clock 1.98 GHz", "bf16 tensor 990 TFLOP/s",
                  "bf16 tensor at max clock 1.07 PFLOP/s", "shared bandwidth at max clock"):
        assert shown in out
