"""`serial` lines: roofs whose times add in t_model. The checker places each wrong name; the
effect puts the group's sum on its first term exactly, t_bound and t_floor untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import kernelcost
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.gpu.derates import derated
from kernelcost.gpu.effects.fill_drain import FILL_DRAIN
from kernelcost.gpu.effects.overlap import OVERLAP
from kernelcost.gpu.effects.serial import SERIAL
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse

ROOT = Path(__file__).resolve().parent.parent
FA2 = ROOT / "specs" / "flash_attention.kcost"
ROW = """kernel rows(n) {
    SERIAL
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n {
        y[i] = exp(x[i]) * 2 + x[i] * x[i]
    }
}
"""


def _checked(line: str):
    return check(parse(ROW.replace("SERIAL", line), "rows.kcost"))


@pytest.mark.parametrize("line, column, words", [
    ("serial tensor, sfuu", 20, "did you mean `sfu`"),
    ("serial vector", 5, "of one roof adds nothing"),
    ("serial vector, sfu, vector", 25, "serial already"),
    ("serial sfu, tensor\n    serial global, sfu", 20, "serial already"),
])
def test_a_wrong_serial_line_is_placed(line, column, words):
    with pytest.raises(KcostError) as raised:
        _checked(line)
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.code == "KC224"
    assert diagnostic.span.column == column
    assert words in diagnostic.message + (diagnostic.hint or "")


def test_groups_are_read_in_order():
    checked = _checked("serial sfu, vector\n    serial global, l2")
    assert checked.serial == (("sfu", "vector"), ("global", "l2"))


@pytest.mark.parametrize("machine_id", ["h100", "a100", "h200", "l40s"])
def test_the_group_sum_is_the_serial_step_exactly_and_the_bound_never_moves(machine_id):
    spec = kernelcost.load(FA2)
    cost = spec.cost()
    values = {symbol: value for symbol in cost.parameters
              for name, value in {"S": 4096, "H": 16, "d": 128}.items() if symbol.name == name}
    machine = load_machine(machine_id)
    alone = verdict(cost.__class__(**{**cost.__dict__, "serial": ()}), machine, values=values)
    result = verdict(cost, machine, values=values)
    assert result.t_bound == alone.t_bound and result.t_floor == alone.t_floor
    earlier = [d for d in result.derates if d.cause not in (
        SERIAL, OVERLAP, FILL_DRAIN)]
    wave = {term.key: derated(term, earlier).seconds for term in result.grid.wave_terms}
    group = sum((wave[key] for key in ("tensor", "sfu", "vector")), sympy.Integer(0))
    others = [seconds for key, seconds in wave.items() if key not in ("tensor", "sfu", "vector")]
    found = ledger(result)
    effects = [step.effect for step in found.steps]
    upto = found.steps[:effects.index(SERIAL) + 1]
    assert found.t_bound + sum(step.delta_s for step in upto) == max([group, *others])
    assert result.t_model >= max([group, *others]) and result.t_model > alone.t_model
    assert found.total == result.t_model
