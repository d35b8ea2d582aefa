"""The machine database: the chapter's ridge points, the ceiling chosen per work class, the
strictness of the loader (unknown keys, missing sources)."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from kernelcost.errors import KcostError
from kernelcost.hardware import PRECISIONS, builtin_machine_ids, load_machine, parse_machine

# REFERENCE.md, "Hardware (from the chapter)": machine, precision, P, B, I_crit as printed.
CHAPTER_TABLE = [
    ("a100", "fp32", 19.5e12, 2.0e12, 9.75),
    ("a100", "bf16", 312e12, 2.0e12, 156),
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
    assert machine.peak(precision, "fma") == peak  # the chapter's figure, exactly
    assert machine.bandwidth("global") == bandwidth
    # I_crit as the chapter prints it, to its last printed digit
    assert machine.peak(precision, "fma") / machine.bandwidth("global") == pytest.approx(
        ridge, abs=0.05)


def test_h100_hierarchy_slopes_from_the_chapter():
    # REFERENCE.md: H100 L1/shared ~30 TB/s, L2 ~7 TB/s, HBM 3.35 TB/s
    h100 = load_machine("h100")
    assert h100.bandwidth("shared") == 30e12
    assert h100.bandwidth("l2") == 7e12
    assert h100.bandwidth("global") == 3.35e12
    assert [level.level for level in h100.memory] == ["global", "l2", "shared", "registers"]


def test_h200_as_measured_here():
    # REFERENCE.md: our H200 has 132 SMs and 60 MB (MiB) of L2; compute as H100
    h200 = load_machine("h200")
    assert h200.sm_count == 132
    assert h200.capacity("l2") == 60 * 2**20
    assert h200.peak("bf16") == load_machine("h100").peak("bf16")


def test_fma_work_meets_the_tensor_peak_and_falls_back_to_vector():
    h100 = load_machine("h100")
    assert h100.ceiling("bf16", "fma").name == "bf16 tensor peak"
    # no fp32 tensor unit on H100 (tf32 is its own precision): fp32 FMA runs on the vector pipes
    assert h100.ceiling("fp32", "fma").name == "fp32 vector peak"
    assert h100.peak("fp32", "fma") == 67e12


def test_vector_work_falls_back_to_fp32_vector():
    h100 = load_machine("h100")
    assert h100.ceiling("bf16", "vector").name == "fp32 vector peak"
    assert h100.ceiling("fp64", "vector").name == "fp64 vector peak"


def test_sfu_ceiling_and_its_stand_in():
    # FlashAttention-3: 3.9 TFLOPS of special functions on H100 (hardware-sources.md [S5])
    assert load_machine("h100").ceiling("bf16", "sfu").peak_FLOPps == 3.9e12
    mi300x = load_machine("mi300x")  # no AMD transcendental rate found: fp32 vector stands in
    assert mi300x.ceiling("bf16", "sfu").name == "fp32 vector peak (no sfu figure)"


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
    assert h100.launch_overhead_s == 4e-6 and h100.launch_mode == "eager"


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_number_has_a_source(machine_id):
    text = (resources.files("kernelcost.machines") / f"{machine_id}.toml").read_text()
    data = tomllib.loads(text)
    tables = [data["device"], data.get("launch", {}), data.get("sfu", {})]
    tables += data["compute"] + data["memory"]
    for table in tables:
        for key, value in table.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                quantity = key.split("_")[0]
                assert table.get("source") or table.get(f"{quantity}_source"), (machine_id, key)


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
    text = (resources.files("kernelcost.machines") / "a100.toml").read_text()
    text = text.replace('source = "NVIDIA A100 data sheet / whitepaper [S1]"\n', "")
    with pytest.raises(KcostError, match="device.source"):
        parse_machine(text, "a100-edited.toml")


def test_unknown_machine_suggests_a_builtin():
    with pytest.raises(KcostError, match="h100"):
        load_machine("h10")


def test_unknown_precision_is_an_error():
    with pytest.raises(KcostError, match="bf16"):
        load_machine("h100").peak("bf61")
