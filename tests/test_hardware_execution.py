"""The machine database's execution resources and latencies against the documents they come
from, and the machine file's format: its JSON as its TOML, its errors placed."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest
from machine_files import machine_text

from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.machinefile import (
    _Reader,
    builtin_machine_ids,
    load_machine,
    parse_machine,
)
from kernelcost.hardware.resources import EXECUTION_FIGURES, Execution
from kernelcost.present.report import machine_json

# NVIDIA, common to cc 8.0-10.0: warp size 32, 1024 threads and 64 K registers per block
# (CUDA C++ Programming Guide, legacy edition, §20, Table 27); 255 registers per thread (the
# Ampere, Ada, Hopper and Blackwell tuning guides, §1.4.1.1 "Occupancy"); registers allocated
# per warp in units of 256 (CUDA C++ Best Practices Guide, §11.1.1); 1 KiB of shared memory
# reserved per block (Programming Guide §20.7.3-20.9.3); 32 banks (§20.4.3, Table 27);
# 32-byte sectors (Best Practices Guide §10.2.1); 128-byte lines (Nsight Compute Profiling
# Guide, "Metrics Structure").
NVIDIA_COMMON = dict(
    warp_size=32, max_threads_per_block=1024, max_registers_per_block=65536,
    max_registers_per_thread=255, register_granularity_per_warp=256, registers_per_sm=65536,
    shared_reserved_per_block_B=1024, shared_banks=32, sector_B=32, cache_line_B=128)
# cc 8.0, Ampere Tuning Guide §1.4.1.1 and §1.4.2.3: 2048 threads, 64 warps, 32 blocks per
# SM; 163 KiB per block. No thread block clusters before cc 9.0 (Programming Guide Table 26).
AMPERE = dict(NVIDIA_COMMON, max_threads_per_sm=2048, max_warps_per_sm=64, max_blocks_per_sm=32,
              shared_per_block_max_B=163 * 1024, cluster_max_portable=1,
              cluster_max_nonportable=1, multicast_max_blocks=1)
# cc 9.0, Hopper Tuning Guide §1.4.1.1 (227 KiB per block) and §1.4.1.3 (clusters of 8,
# 16 non-portable); PTX ISA cp.async.bulk .multicast::cluster: a 16-bit ctaMask.
HOPPER = dict(NVIDIA_COMMON, max_threads_per_sm=2048, max_warps_per_sm=64, max_blocks_per_sm=32,
              shared_per_block_max_B=227 * 1024, cluster_max_portable=8,
              cluster_max_nonportable=16, multicast_max_blocks=16)
# cc 10.0, Blackwell Tuning Guide §1.4.1.1 and §1.4.1.2 ("B200 GPU allows for a nonportable
# cluster size of 16").
BLACKWELL = dict(HOPPER)
# cc 8.9, Ada Tuning Guide §1.4.1.1: 1536 threads, 48 warps, 24 blocks per SM, 99 KiB per
# block; no clusters (Table 26).
ADA = dict(NVIDIA_COMMON, max_threads_per_sm=1536, max_warps_per_sm=48, max_blocks_per_sm=24,
           shared_per_block_max_B=99 * 1024, cluster_max_portable=1, cluster_max_nonportable=1,
           multicast_max_blocks=1)
# AMD CDNA, per CU: wavefronts of 64 (ROCm "GPU hardware specifications"), 1024 threads per
# workgroup, 2048 threads, 32 wavefronts and 32 workgroups per CU, 512 registers per thread
# (256 + 256 AccVGPR) (HIP documentation, "Hardware features"); a 512 KiB VGPR file per CU
# (ROCm specifications) = 131072 32-bit registers; 32 LDS banks (HIP "Hardware
# implementation"). L1 lines: 128 B on MI300, 64 B on older CDNA (ROCm Compute Profiler,
# "Vector L1 cache").
CDNA = dict(warp_size=64, max_threads_per_block=1024, max_threads_per_sm=2048,
            max_warps_per_sm=32, max_blocks_per_sm=32, registers_per_sm=131072,
            max_registers_per_thread=512, shared_banks=32)

# CUDA C++ Programming Guide §5.2.3 "Multiprocessor Level": on cc 5.x to 8.x "a multiprocessor
# issues one instruction per warp over one clock cycle for four warps at a time"; §20.8.1: the
# 4 warp schedulers of cc 9.0, each one instruction at every issue time
ISSUE = dict(issue_per_clock_per_sm=4)

EXECUTION = {
    # partitioned L2 (Chips and Cheese, "Nvidia's H100: Funny L2"): two halves; usable for
    # data shared by all SMs ~0.7 x nominal (gpu-benches gpu-l2-cache knees)
    "a100": dict(AMPERE, **ISSUE, l2_partitions=2, usable_l2_fraction=0.7),
    "h100": dict(HOPPER, **ISSUE, l2_partitions=2, usable_l2_fraction=0.7),
    "h200": dict(HOPPER, **ISSUE, l2_partitions=2, usable_l2_fraction=0.7),
    # Chips and Cheese, B200 (15 Dec 2025), "Cache and Memory Access": one L2 partition a die
    "b200": dict(BLACKWELL, l2_partitions=2, usable_l2_fraction=0.7),
    # gpu-benches gpu-l2-cache/l40.txt: the L40's L2 holds its bandwidth to ~96 MB
    "l40s": dict(ADA, **ISSUE, usable_l2_fraction=1.0),
    "rtx4090": dict(ADA, **ISSUE),
    # ROCm Compute Profiler, "Vector L1 cache": 128-byte lines on MI300; the LDS per block is
    # the 64 KiB per CU (no separate cap found)
    # one L2 per XCD, 8 XCDs: AMD CDNA 3 white paper, p. 3 and p. 10
    "mi300x": dict(CDNA, cache_line_B=128, shared_per_block_max_B=65536, l2_partitions=8),
    "mi250x": dict(CDNA, cache_line_B=64),
}


def test_every_machine_has_its_execution_figures_checked():
    assert sorted(EXECUTION) == builtin_machine_ids()


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_execution_figures_against_their_documents(machine_id):
    execution = load_machine(machine_id).execution
    expected = EXECUTION[machine_id]
    for key in EXECUTION_FIGURES:
        assert getattr(execution, key) == expected.get(key), (machine_id, key)
        assert (execution.source(key) is None) == (key not in expected), (machine_id, key)


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_execution_figures_agree_with_the_memory_levels(machine_id):
    machine = load_machine(machine_id)
    execution = machine.execution
    # registers: 32-bit each, the capacity of the register level
    assert execution.registers_per_sm * 4 == machine.capacity("registers")
    # warps x warp size = threads per SM
    assert execution.max_warps_per_sm * execution.warp_size == execution.max_threads_per_sm
    # a block never allocates more shared memory than an SM has
    if execution.shared_per_block_max_B is not None:
        assert execution.shared_per_block_max_B <= machine.capacity("shared")


def test_uncertain_figures_say_so():
    for machine_id in ("a100", "h100", "h200", "b200", "l40s", "rtx4090"):
        execution = load_machine(machine_id).execution
        # granularity 256 is stated beside a cc 7.0 example (Best Practices Guide §11.1.1)
        assert "UNCERTAIN" in execution.source("register_granularity_per_warp")
    for machine_id in ("a100", "h100", "h200", "b200"):
        # 0.7 is a suggested model read off bandwidth curves, not a vendor figure
        assert "UNCERTAIN" in load_machine(machine_id).execution.source("usable_l2_fraction")
    # the Hopper Tuning Guide names only H100 for clusters of 16
    assert "UNCERTAIN" in load_machine("h200").execution.source("cluster_max_nonportable")
    assert "UNCERTAIN" not in load_machine("h100").execution.source("cluster_max_nonportable")


def test_execution_is_frozen_and_none_where_absent():
    mi300x = load_machine("mi300x")
    assert mi300x.execution.sector_B is None and mi300x.execution.source("sector_B") is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        mi300x.execution.warp_size = 32
    assert Execution().figures() == ()


# --- latencies ----------------------------------------------------------------------------

# (machine, level): cycles, clock, part measured, from
#   gpu-benches gpu-latency/h100_pcie.txt, l40.txt, mi210.txt (one chain of dependent loads);
#   Luo et al., arXiv:2501.12084, Tables 3-4 (A100 PCIe, H800 PCIe);
#   Chips and Cheese, B200, "Cache and Memory Access" (39 cycles = 19.6 ns; L2 ~150 ns).
LATENCIES = {
    ("a100", "l2"): (208.0, 1.41e9, "A100 PCIe"),
    ("a100", "global"): (566, 1.41e9, "A100 PCIe"),
    ("h100", "l1"): (34.2, 1.755e9, "H100 PCIe"),
    ("h100", "l2"): (265.5, 1.755e9, "H100 PCIe"),
    ("h100", "l2_far"): (475, 1.755e9, "H100 PCIe"),
    ("h100", "global"): (655, 1.755e9, "H100 PCIe"),
    ("h100", "shared"): (29, 1.755e9, "H800 PCIe"),
    ("h200", "global"): (655, 1.755e9, "H100 PCIe"),
    ("h200", "shared"): (29, 1.755e9, "H800 PCIe"),  # the H800 stands in (same GH100 SM)
    ("b200", "l1"): (39, 1.99e9, "B200"),
    ("l40s", "l2"): (276.5, 2.49e9, "L40"),
    ("rtx4090", "global"): (631, 2.49e9, "L40"),
    ("mi250x", "l1"): (125, 1.7e9, "MI210"),
    ("mi250x", "global"): (573, 1.7e9, "MI210"),
}


@pytest.mark.parametrize("machine_id, level", sorted(LATENCIES))
def test_measured_latencies(machine_id, level):
    cycles, clock, part = LATENCIES[(machine_id, level)]
    latency = load_machine(machine_id).latency(level)
    assert (latency.cycles, latency.clock_Hz, latency.measured_on) == (cycles, clock, part)
    assert latency.seconds == pytest.approx(cycles / clock)


def test_latency_times_match_what_the_sources_state():
    # the sources state ns: H100 PCIe L2 near 151.3 ns, DRAM 370-375 ns; L40 L2 111 ns
    assert load_machine("h100").latency("l2").seconds == pytest.approx(151.3e-9, rel=0.01)
    assert 370e-9 <= load_machine("h100").latency("global").seconds <= 375e-9
    assert load_machine("l40s").latency("l2").seconds == pytest.approx(111e-9, rel=0.01)
    assert load_machine("b200").latency("l2").seconds == pytest.approx(150e-9)


def test_stand_in_latencies_are_uncertain():
    # no H200 or RTX 4090 measurement was found: H100 PCIe and L40 stand in
    for machine_id in ("h200", "rtx4090"):
        for latency in load_machine(machine_id).latencies:
            assert "UNCERTAIN" in latency.source, (machine_id, latency.level)
    assert load_machine("mi300x").latencies == ()
    with pytest.raises(KcostError, match="l2_far"):
        load_machine("h100").latency("l2far")


# --- the file format: JSON as the TOML, strict keys -----------------------------------------

def without_default_sparse(data: dict) -> dict:
    data = dict(data)
    data["compute"] = [{k: v for k, v in peak.items() if not (k == "sparse" and v is False)}
                       for peak in data["compute"]]
    return data


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_json_has_the_layout_of_the_toml_file(machine_id):
    toml = tomllib.loads(machine_text(machine_id))
    document = machine_json(load_machine(machine_id))
    assert list(document) == list(toml)  # the same tables, in the same order
    assert without_default_sparse(document) == without_default_sparse(toml)
    # and it reads back as the same machine: the README's "same format"
    again = _Reader("from-json.toml").machine(document)
    assert dataclasses.replace(again, path="x") == dataclasses.replace(
        load_machine(machine_id), path="x")


def test_machines_h100_shows_the_sources(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one row a line, so that sources read whole
    assert main(["machines", "h100"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for shown in ("max blocks per sm", "Hopper Tuning Guide", "gpu-benches", "l2_far latency",
                  "cluster max nonportable"):
        assert shown in out
    assert main(["machines", "h100", "--json"]) == 0
    assert '"execution"' in capsys.readouterr().out


def edited(old: str, new: str) -> str:
    text = machine_text("h100")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old, new, where, message", [
    ("max_blocks_per_sm = 32", "max_block_per_sm = 32", "execution.max_block_per_sm",
     "max_blocks_per_sm"),
    ("usable_l2_fraction = 0.7", "usable_l2_fraction = 1.5", "execution.usable_l2_fraction",
     "fraction"),
    ("warp_size = 32", "warp_size = 32.0", "execution.warp_size", "integer"),
    ("cluster_max_portable = 8", "cluster_max_portable = 32",
     "execution.cluster_max_nonportable", "smaller than"),
    ("shared_per_block_max_B = 232448", "shared_per_block_max_B = 262144",
     "execution.shared_per_block_max_B", "more than the shared capacity"),
    ("warp_size = 32", "warp_size = 7", "execution.warp_size", "not a power of two"),
    ("max_threads_per_block = 1024", "max_threads_per_block = 4096",
     "execution.max_threads_per_block", "more than max_threads_per_sm (2048)"),
    ('level = "l2_far"', 'level = "l3"', "latency[3].level", "l2_far"),
    ("clock_Hz = 1.755e9", "clock_hz = 1.755e9", "latency[0].clock_hz", "clock_Hz"),
])
def test_execution_and_latency_errors_are_positioned(old, new, where, message):
    text = edited(old, new)
    with pytest.raises(KcostError) as raised:
        parse_machine(text, "mine.toml")
    diagnostic = raised.value.diagnostics[0]
    assert f"`{where}`" in diagnostic.message
    assert message in diagnostic.message + (diagnostic.hint or "")
    line = next(number for number, content in enumerate(text.split("\n"), start=1)
                if content.startswith(new.split(" =")[0] + " =") and new in content)
    if where.endswith("nonportable"):  # the check names the larger one's line
        line = text.split("\n").index("cluster_max_nonportable = 16") + 1
    assert diagnostic.span.line == line
    rendered = raised.value.render()
    assert rendered.startswith(f"mine.toml:{line}:") and "^" in rendered


def test_an_execution_figure_needs_its_source_and_a_source_its_figure():
    line = next(line for line in machine_text("h100").split("\n")
                if line.startswith("max_blocks_per_sm_source = "))
    with pytest.raises(KcostError, match=r"execution\.max_blocks_per_sm_source"):
        parse_machine(edited(line + "\n", ""), "mine.toml")
    with pytest.raises(KcostError, match="a source without `max_blocks_per_sm`"):
        parse_machine(edited("max_blocks_per_sm = 32\n", ""), "mine.toml")
