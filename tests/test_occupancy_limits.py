"""Issue 34 item 5: what a block holds in registers against the registers a thread may have and
the register file, and the hardware features a spec needs against the machine's.

The register counts are worked by hand from the specs; the limits come from the machine
files (255 registers per thread and 65,536 per SM on NVIDIA: CUDA C++ Programming Guide,
Table 27; thread-block clusters from compute capability 9.0: CUDA Programming Guide,
§2.1.10)."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.architectures import Feature
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import Resource
from kernelcost.base.levels import Level
from kernelcost.hardware.machine import FEATURES
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine, parse_machine
from kernelcost.present.report.machine_tables import machine_json

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
MACHINES = ROOT / "src" / "kernelcost" / "machines"


def _flash(d: int, machine: str = "h100"):
    cost = kernelcost.load(SPECS / "flash_attention.kcost").cost()
    return verdict(cost, load_machine(machine), values={"S": 4096, "H": 32, "d": d})


def test_flash_attention_at_d_256_holds_more_registers_than_a_thread_may_have():
    # per block of 128 threads, in registers: O accumulator 128 x 256 f32 (131,072 B), the
    # score tile 128 x 64 f32 (32,768 B), m and l 2 x 128 f32 (1,024 B), the MMA fragments
    # kept in registers: Q 32 x 16 + K 64 x 16 bf16 (3,072 B) and V 16 x 256 bf16 (8,192 B):
    # 176,128 B = 44,032 registers = 344 a thread, over the 255 a thread may have
    result = _flash(256)
    assert [(m.level, m.needed, m.capacity, m.per, m.unit) for m in result.misfits] == [
        ("registers", 344, 255, "thread", "registers")]
    assert result.t_bound is None


def test_flash_attention_at_d_128_fits_its_registers():
    # the same sum at d = 128: 65,536 + 32,768 + 1,024 + 3,072 + 4,096 = 106,496 B,
    # 208 registers a thread (the spec declares 255)
    result = _flash(128)
    assert not result.misfits
    assert result.grid.occupancy.resident >= 1


def test_the_answer_gives_the_factor_over_the_per_thread_limit():
    from kernelcost.present.report.grid import misfit_sentence

    sentence = misfit_sentence(_flash(256), "H100 BF16")
    assert sentence == ("does not fit on H100 BF16: each thread needs 344 registers, 1.35x "
                        "the 255 a thread may have (no time)")


ARRAYS = """kernel arrays(n, T = 64) {
    assume T | n
    in  x: f32[n]
    out y: f32[n]
    for i0 in 0..n by T parallel(threads = 32) {
        let a: f32[T, T] in registers = 0
        for i in i0..i0 + T { a[i - i0, 0] = x[i]; y[i] = a[i - i0, 0] }
    }
}"""


def test_register_arrays_without_a_register_count_are_checked_per_thread():
    # 64 x 64 f32 = 4,096 registers over 32 threads: 128 a thread, under 255 (fits); at
    # T = 128, 16,384 registers over 32 threads: 512 a thread, 2.01x the 255
    cost = kernelcost.loads(ARRAYS).cost()
    h100 = load_machine("h100")
    assert not verdict(cost, h100, values={"n": 4096}).misfits
    big = verdict(cost, h100, values={"n": 4096, "T": 128})
    assert [(m.level, m.needed, m.capacity, m.per) for m in big.misfits] == [
        ("registers", 512, 255, "thread")]


def test_register_arrays_set_occupancy_when_they_exceed_the_declared_registers():
    # registers = 32 a thread declared, but the arrays hold 128 a thread: the block takes
    # 4,096 registers (the arrays), so 65,536 / 4,096 = 16 blocks by registers, not 64
    spec = ARRAYS.replace("threads = 32", "threads = 32, registers = 32")
    cost = kernelcost.loads(spec).cost()
    result = verdict(cost, load_machine("h100"), values={"n": 4096})
    limits = {limit.resource: limit.blocks_per_sm for limit in result.grid.occupancy.limits}
    assert all(isinstance(resource, (Level, Resource)) for resource in limits)
    assert limits[Level.REGISTERS] == 16


CLUSTERED = """kernel c(M, N, T = 64) {
    assume T | M, T | N
    in  x: bf16[M, N]
    out y: bf16[M, N]
    for i0 in 0..M by T, j0 in 0..N by T parallel(threads = 128, cluster i0 = 2) {
        keep x in shared { for i in i0..i0 + T, j in j0..j0 + T { y[i, j] = x[i, j] } }
    }
}"""


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_a_cluster_fits_only_where_the_machine_forms_clusters(machine_id):
    """Hopper (cc 9.0) and Blackwell (cc 10.0) form clusters; A100, L40S, RTX 4090 and the
    AMD parts do not: a clustered spec does not fit there, with a misfit naming the cluster
    (today MI300X, whose file gives no cluster limit, accepted it)."""
    cost = kernelcost.loads(CLUSTERED).cost()
    result = verdict(cost, load_machine(machine_id), values={"M": 4096, "N": 4096})
    clusters = machine_id in ("h100", "h200", "b200")
    cluster_misfits = [m for m in result.misfits if m.level == Resource.CLUSTER]
    assert (not cluster_misfits) == clusters
    if not clusters:
        assert [(m.needed, m.capacity) for m in cluster_misfits] == [(2, 1)]


@pytest.mark.parametrize("machine_id", builtin_machine_ids())
def test_every_shipped_machine_states_its_features_with_a_source(machine_id):
    data = tomllib.loads((MACHINES / f"{machine_id}.toml").read_text(encoding="utf-8"))
    machine = load_machine(machine_id)
    for feature in FEATURES:
        assert isinstance(data["features"][feature], bool)
        assert machine.features.has(feature) == data["features"][feature]
        source = machine.features.source(feature)
        assert "docs.nvidia.com" in source
        if feature is Feature.THREAD_BLOCK_CLUSTERS:
            assert "Thread Block Clusters" in source
    assert machine_json(machine)["features"] == data["features"]


def _h100_text() -> str:
    return (MACHINES / "h100.toml").read_text(encoding="utf-8")


def test_a_feature_without_its_source_is_refused():
    text = "\n".join(line for line in _h100_text().splitlines()
                     if not line.startswith("thread_block_clusters_source"))
    with pytest.raises(KcostError) as error:
        parse_machine(text, "mine.toml")
    assert "features.thread_block_clusters_source" in error.value.diagnostics[0].message


def test_an_unknown_feature_is_refused_with_a_suggestion():
    text = _h100_text().replace("thread_block_clusters =", "thread_block_cluster =", 1)
    with pytest.raises(KcostError) as error:
        parse_machine(text, "mine.toml")
    assert "unknown key" in error.value.diagnostics[0].message


def test_a_feature_the_file_does_not_state_is_unknown_and_limits_nothing():
    machine = load_machine("h100")
    silent = dataclasses.replace(machine, features=dataclasses.replace(machine.features,
                                                                       stated=()))
    assert silent.features.has("thread_block_clusters") is None
    cost = kernelcost.loads(CLUSTERED).cost()
    assert not verdict(cost, silent, values={"M": 4096, "N": 4096}).misfits
