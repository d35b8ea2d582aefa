"""The machine database: the chapter's ridge points, the ceiling chosen per work class, the
execution resources and latencies of each machine against the documents they come from, the
sources written in the files themselves, and the strictness of the loader (unknown keys,
missing sources)."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import LaunchMode, Per, Precision, Unit
from kernelcost.base.levels import Level
from kernelcost.cli import main
from kernelcost.hardware.machine import (
    EXECUTION_FIGURES,
    PRECISIONS,
    Execution,
    execution_source_key,
)
from kernelcost.hardware.machinefile import (
    _Reader,
    builtin_machine_ids,
    load_machine,
    parse_machine,
)
from kernelcost.present.report import machine_json
from kernelcost.present.roofs import roof_name

ROOT = Path(__file__).resolve().parent.parent


def machine_text(machine_id: str) -> str:
    return (resources.files("kernelcost.machines") / f"{machine_id}.toml").read_text("utf-8")


# The roofline chapter's hardware table (§1.2): machine, precision, P, B, I_crit as printed;
# A100's HBM is the data sheet's 2.039e12 B/s (SXM4 80 GB), which the chapter rounds to 2.0
# (its ridges 9.75 and 156 FLOP/B become 9.56 and 153.0).
CHAPTER_TABLE = [
    ("a100", "fp32", 19.5e12, 2.039e12, 9.563),
    ("a100", "bf16", 312e12, 2.039e12, 153.0),
    ("h100", "fp32", 67e12, 3.35e12, 20),
    ("h100", "bf16", 990e12, 3.35e12, 295.5),  # chapter: ~296
    ("h100", "fp8", 1979e12, 3.35e12, 590.7),  # chapter: ~591
    ("b200", "bf16", 2250e12, 8.0e12, 281.25),  # chapter: ~281
    ("b200", "fp4", 9000e12, 8.0e12, 1125),
    ("mi300x", "bf16", 1307e12, 5.3e12, 246.6),  # chapter: ~247
]


def test_builtin_machines_are_shipped():
    assert builtin_machine_ids() == [
        "a100", "b200", "h100", "h200", "l40s", "mi250x", "mi300x", "rtx4090"]


@pytest.mark.parametrize("machine_id, precision, peak, bandwidth, ridge", CHAPTER_TABLE)
def test_chapter_figures_and_ridge_points(machine_id, precision, peak, bandwidth, ridge):
    machine = load_machine(machine_id)
    assert machine.peak(precision, "tensor") == peak  # the chapter's figure, exactly
    assert machine.bandwidth("global") == bandwidth
    # I_crit as the chapter prints it, to its last printed digit
    assert machine.peak(precision, "tensor") / machine.bandwidth("global") == pytest.approx(
        ridge, abs=0.05)


def test_h100_hierarchy_slopes_from_the_chapter():
    # the roofline chapter, §1.4 (hierarchical roofline): L1/shared ~30 TB/s, HBM 3.35 TB/s
    h100 = load_machine("h100")
    assert h100.bandwidth("shared") == 30e12
    assert h100.bandwidth("global") == 3.35e12
    assert [level.level for level in h100.memory] == ["global", "l2", "shared", "registers"]


def test_h100_l2_bandwidth_is_the_sxm_figure_not_the_pcie_one():
    # The chapter's L2 slope, ~7 TB/s, is gpu-benches' H100 PCIe measurement (6.9e12, 114 SMs,
    # gpu-l2-cache/h100_pcie.txt). The SXM5 part has the 132-SM die and clocks of the H200,
    # whose plateau gpu-benches measures at 9.7-10.2e12 (gpu-l2-cache/h200.txt).
    h100 = load_machine("h100")
    assert h100.bandwidth("l2") == 1.0e13
    source = h100.memory_level("l2").bandwidth_source
    for reason in ("h100_pcie.txt", "h200.txt", "6.9e12", "UNCERTAIN"):
        assert reason in source
    assert load_machine("h200").bandwidth("l2") == 1.0e13


def test_h200_as_measured_here():
    # measured on this project's H200: 132 SMs and 60 MB (MiB) of L2; compute as H100
    h200 = load_machine("h200")
    assert h200.sm_count == 132
    assert h200.capacity("l2") == 60 * 2**20
    assert h200.peak("bf16") == load_machine("h100").peak("bf16")


def test_tensor_work_meets_the_tensor_peak_and_falls_back_to_vector():
    h100 = load_machine("h100")
    assert roof_name(h100.ceiling("bf16", "tensor").roof) == "bf16 tensor peak"
    # no fp32 tensor unit on H100 (tf32 is its own precision): fp32 MMA runs on the vector pipes
    assert roof_name(h100.ceiling("fp32", "tensor").roof) == "fp32 vector peak"
    assert h100.peak("fp32", "tensor") == 67e12


def test_fma_work_meets_the_vector_fma_peak_at_the_accumulators_precision():
    """Multiply-adds off the tensor units (docs/language.md, "Which units run the work")
    accumulate in fp32 for every narrower input, in fp64 for fp64."""
    h100 = load_machine("h100")
    for precision in ("bf16", "fp16", "fp8", "fp32"):
        ceiling = h100.ceiling(precision, "fma")
        assert (roof_name(ceiling.roof), ceiling.peak_FLOPps) == ("fp32 vector FMA peak", 67e12)
    assert roof_name(h100.ceiling("fp64", "fma").roof) == "fp64 vector FMA peak"
    assert h100.peak("fp64", "fma") == 33.5e12  # the data sheet's fp64 (non-tensor) figure


def test_vector_work_falls_back_to_fp32_vector():
    h100 = load_machine("h100")
    assert roof_name(h100.ceiling("bf16", "vector").roof) == "fp32 vector peak"
    assert roof_name(h100.ceiling("fp64", "vector").roof) == "fp64 vector peak"


def test_sfu_ceiling_and_its_stand_in():
    # FlashAttention-3 (arXiv:2407.08608, §3.2): 3.9 TFLOPS of special functions on H100
    assert load_machine("h100").ceiling("bf16", "sfu").peak_FLOPps == 3.9e12
    mi300x = load_machine("mi300x")  # no AMD transcendental rate found: fp32 vector stands in
    assert roof_name(mi300x.ceiling("bf16", "sfu").roof) == "fp32 vector peak (no sfu figure)"


def test_sparse_peaks_are_listed_but_never_chosen():
    h100 = load_machine("h100")
    sparse = [peak for peak in h100.compute if peak.sparse]
    assert any(peak.precision == "bf16" and peak.peak_FLOPps == 1979e12 for peak in sparse)
    assert h100.peak("bf16") == 990e12


def test_capacities_say_per_sm_or_per_device():
    h100 = load_machine("h100")
    assert h100.capacity("shared") == 233472 and h100.capacity_per("shared") == "sm"
    assert h100.capacity("l2") == 50 * 2**20 and h100.capacity_per("l2") == "device"


def test_launch_overhead_is_an_eager_figure():
    h100 = load_machine("h100")
    assert h100.launch_overhead_s == 4e-6 and h100.launch_mode is LaunchMode.EAGER


def test_a_machine_file_s_words_are_read_as_members():
    """machinefields.choice places each word of a closed set as its enum's member: the
    machine compares members, never the file's strings."""
    h100 = load_machine("h100")
    assert all(type(peak.unit) is Unit and type(peak.precision) is Precision
               for peak in h100.compute)
    assert h100.precisions[0] is Precision.FP64  # the canonical order, widest first
    assert all(type(memory.capacity_per) is Per for memory in h100.memory)
    assert all(type(memory.level) is Level for memory in h100.memory)


def source_of(table: dict, key: str, execution: bool) -> str | None:
    if execution:
        return table.get(execution_source_key(key))
    if key.endswith("_per_clock_per_sm"):
        return table.get("per_clock_source")
    if key == "max_clock_Hz":
        return table.get("max_clock_source")
    return table.get("source") or table.get(f"{key.split('_')[0]}_source")


# A source names a public document (an address, the roofline chapter, or this project's own
# H200 measurement), or says how it was derived from other figures and that it is uncertain.
DOCUMENT = re.compile(r"https://|\b[\w-]+\.(com|se|ae|jp|io|org)\b|the roofline chapter"
                      r"|measured on this project's H200")


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_number_has_a_source_naming_a_document(machine_id):
    data = tomllib.loads(machine_text(machine_id))
    tables = [(data["device"], False), (data.get("launch", {}), False),
              (data.get("sfu", {}), False), (data.get("execution", {}), True)]
    tables += [(table, False) for table in
               data["compute"] + data["memory"] + data.get("latency", [])]
    numbers = 0
    for table, execution in tables:
        for key, value in table.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numbers += 1
                source = source_of(table, key, execution)
                assert source and source.strip(), (machine_id, key)
                assert DOCUMENT.search(source) or (
                    source.startswith("derived") and "UNCERTAIN" in source), (machine_id, source)
    assert numbers > 20


def test_no_source_points_outside_the_project():
    # every source is written out in the file: no keys into a list kept elsewhere
    texts = {path: path.read_text("utf-8") for path in (ROOT / "src").rglob("*")
             if path.is_file() and path.suffix in {".py", ".toml", ".lark", ".md", ".txt"}}
    texts.update({path: path.read_text("utf-8")
                  for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                               *sorted((ROOT / "tests").glob("*.py"))]})
    assert len(texts) > 20
    for path, text in texts.items():
        assert not re.search(r"\[S\d+[a-z]?\]", text), path
        for needle in ("REFERENCE" + ".md", "hardware" + "-sources"):
            assert needle not in text, path


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_machine_loads_and_has_a_main_peak(machine_id):
    machine = load_machine(machine_id)
    assert machine.id == machine_id
    assert set(machine.precisions) <= set(PRECISIONS)
    assert machine.peak("fp32") > 0 and machine.bandwidth("global") > 0


def test_unknown_key_names_file_and_key(tmp_path):
    text = (resources.files("kernelcost.machines") / "h100.toml").read_text()
    text = text.replace("bandwidth_Bps = 3.35e12", "bandwith_Bps = 3.35e12")
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(KcostError) as error:
        load_machine(path)
    message = str(error.value)
    assert "mine.toml" in message and "bandwith_Bps" in message
    assert "bandwidth_Bps" in message  # did you mean


def test_a_number_without_a_source_is_an_error():
    text = machine_text("a100")
    line = next(line for line in text.split("\n") if line.startswith("source = \"NVIDIA A100"))
    with pytest.raises(KcostError, match=r"device\.source"):
        parse_machine(text.replace(line + "\n", "", 1), "a100-edited.toml")


def test_unknown_machine_suggests_a_builtin():
    with pytest.raises(KcostError, match="h100"):
        load_machine("h10")


def test_unknown_precision_is_an_error():
    with pytest.raises(KcostError, match="bf16"):
        load_machine("h100").peak("bf61")


# --- execution resources ------------------------------------------------------------------

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
