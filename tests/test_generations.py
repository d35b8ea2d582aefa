"""The chapter's claim that the ridge rises with every generation, against the database:
each ridge is the bf16 dense tensor peak over the global bandwidth of a shipped machine
file, computed here again from the figures, and every fall is found by comparing each
machine with every machine of the generation before."""

from __future__ import annotations

import itertools

import pytest

from kernelcost import cli
from kernelcost.base.kinds import Precision, Unit
from kernelcost.base.levels import Level
from kernelcost.hardware.generations import generation, ridges_by_generation
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine

MACHINES = [load_machine(name) for name in builtin_machine_ids()]


def ridge(machine) -> float:
    return (machine.dense_peak(Precision.BF16, Unit.TENSOR).peak_FLOPps
            / machine.bandwidth(Level.GLOBAL))


def test_the_ridges_are_the_figures_of_the_machine_files():
    found = {r.machine: r.flop_per_byte for v in ridges_by_generation(MACHINES)
             for ridges in v.generations for r in ridges}
    assert found["h100"] == pytest.approx(990e12 / 3.35e12)  # 295.5, the chapter's ~296
    assert found["b200"] == pytest.approx(2250e12 / 8e12)  # 281.25, the chapter's ~281
    assert found["a100"] == pytest.approx(312e12 / 2.039e12)
    assert found == {m.id: pytest.approx(ridge(m)) for m in MACHINES}


def test_every_fall_and_only_falls_are_named():
    # brute force: a machine of generation g + 1 under the highest ridge of generation g
    for vendor in ridges_by_generation(MACHINES):
        machines = [m for m in MACHINES if m.architecture.vendor is vendor.vendor]
        steps = sorted({generation(m) for m in machines})
        expected = set()
        for before, after in itertools.pairwise(steps):
            top = max((m for m in machines if generation(m) == before), key=ridge)
            expected |= {(m.id, top.id) for m in machines
                         if generation(m) == after and ridge(m) < ridge(top)}
        assert {(f.later.machine, f.earlier.machine) for f in vendor.falls} == expected
    nvidia = {v.vendor.name: v for v in ridges_by_generation(MACHINES)}["NVIDIA"]
    assert ("b200", "h100") in {(f.later.machine, f.earlier.machine) for f in nvidia.falls}


def test_machines_says_where_the_database_contradicts_the_chapter(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert cli.main(["machines"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "b200 281.2 under h100 295.5" in out
    assert "AMD bf16 tensor ridge by generation (FLOP/B): gfx90a mi250x 116.9; gfx942 " \
           "mi300x 246.6: rising with every generation" in out
