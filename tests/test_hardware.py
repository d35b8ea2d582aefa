"""The machine database: the chapter's ridge points, the ceiling chosen per work class, the
sources written in the files themselves, and the strictness of the loader (unknown keys,
missing sources); the execution resources and latencies are in test_hardware_execution.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from machine_files import machine_text

from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import LaunchMode, Per, Precision, Unit
from kernelcost.base.levels import Level
from kernelcost.hardware.machine import PRECISIONS
from kernelcost.hardware.machinefile import (
    builtin_machine_ids,
    load_machine,
    parse_machine,
)
from kernelcost.hardware.resources import execution_source_key
from kernelcost.present.roofs import roof_name

ROOT = Path(__file__).resolve().parent.parent


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
    text = machine_text("h100")
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
