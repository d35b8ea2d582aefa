"""A parallel spec's sweep takes the quantised bound `analyze` gives (issue 34): at every swept
size the sweep's t_min and binding roof are the verdict's t_bound and bound, whether the
per-SM roofs come at once (equal blocks), size by size (unequal blocks, a swept tile that
moves the occupancy), or not at all (a block that does not fit: NaN, `does not fit`)."""

import math

import numpy
import pytest
import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.settings import resolve_settings
from kernelcost.lang.sizerange import SizeRange
from kernelcost.present.roofs import roof_name
from kernelcost.present.sweep import Sweeper
from kernelcost.present.sweep_roofline import DOES_NOT_FIT, NOT_RUN

CASES = [  # spec, machine, swept size, other sizes, range
    ("gemm_hopper", "h100", "N", {"M": "N", "K": "N"}, (256, 16384)),  # 512^3: 8 blocks
    ("gemm_hopper", "h200", "K", {"M": 512, "N": 512}, (64, 65536)),  # K alone: 8 blocks
    ("gemm_hopper", "b200", "K", {"M": 512, "N": 512}, (64, 65536)),  # sm_90a: not run
    ("gemm_hopper", "h100", "TM", {"M": 8192, "N": 8192, "K": 8192}, (16, 1024)),  # misfits
    ("flash_attention_causal", "h100", "S", {}, (128, 8192)),  # unequal blocks
    ("decode_attention", "h200", "b", {"h": 32, "L": 4096}, (1, 64)),
    ("reduce_sum", "a100", "n", {}, (16384, 2 ** 28)),
    ("rope", "h200", "T", {"h": 32, "hk": 8}, (1, 8192)),
    ("rmsnorm", "mi300x", "R", {"n": 4096}, (1, 16384)),
]


@pytest.mark.parametrize("spec_name, machine_id, parameter, settings, bounds", CASES,
                         ids=lambda case: str(case))
def test_sweep_and_analyze_agree_at_every_swept_size(spec_name, machine_id, parameter,
                                                     settings, bounds):
    machine = load_machine(machine_id)
    spec = kernelcost.load(SPECS / f"{spec_name}.kcost")
    cost = spec.cost()
    sweeper = Sweeper(spec, parameter, settings=settings, machine=machine)
    sizes = SizeRange(parameter, *bounds, points=12, log=True).with_step(sweeper.step).values()
    result = sweeper(sizes)
    resolved = resolve_settings(settings, spec.parameters)
    for position, value in enumerate(sizes):
        exact = verdict(cost, machine, None, {**resolved, size(parameter): sympy.Integer(value)})
        where = f"{spec_name} on {machine_id} at {parameter} = {value:g}"
        if exact.t_bound is None:
            assert math.isnan(result.t_min[position]), where
            assert result.binding[position] == (NOT_RUN if exact.unsupported else DOES_NOT_FIT)
            continue
        # the sweep's time is t_min, the quantised roofs at the figures as given (t_bound
        # takes them at the maximum clock, module clocks)
        assert result.t_min[position] == pytest.approx(float(exact.t_min), rel=1e-12), where
        assert result.binding[position] == roof_name(exact.bound), where


def test_gemm_hopper_at_512_sweeps_to_the_quantised_bound():
    """The issue's figure: 470 ns was the flat HBM term; the 8 blocks' tensor work on 8 of
    132 SMs takes 4.47 us, as analyze says."""
    machine = load_machine("h100")
    result = Sweeper(SPECS / "gemm_hopper.kcost", "N", settings={"M": "N", "K": "N"},
                     machine=machine)(numpy.array([512.0]))
    assert result.t_min[0] == pytest.approx(4.4739e-6, rel=1e-4)  # 2 * 128*256*512 / (990T/132)
    assert result.binding[0] == "bf16 tensor peak"


def test_a_tile_that_stops_fitting_reads_as_such_in_the_table(capsys):
    assert main(["sweep", str(SPECS / "gemm_hopper.kcost"), "--sweep", "TM=64..1024",
                 "--points", "3", "--linear", "--set", "M=8192,N=8192,K=8192",
                 "--machine", "h100"]) == 0
    out = capsys.readouterr().out
    assert "does not fit" in out and "nan" not in out
