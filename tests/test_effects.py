"""Effects on t_model as plug-ins (gpu/effects): one module an effect, one registry line each,
and the execution model takes what the registry lists, no more."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sympy

from kernelcost.analysis.api import analyze
from kernelcost.answers.model import verdict
from kernelcost.base.symbols import size_symbol
from kernelcost.gpu.derates import Derate
from kernelcost.gpu.effects import registry
from kernelcost.gpu.effects.context import EffectContext
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.roofs import roof_name

EFFECTS = Path(registry.__file__).parent
SPEC = Path(__file__).resolve().parent.parent / "specs" / "gemm_hopper.kcost"
SIZES = {"M": 8192, "N": 8192, "K": 8192}


def test_every_effect_module_holds_one_effect_and_the_registry_lists_each_once():
    found = []
    for path in sorted(EFFECTS.glob("*.py")):
        if path.stem in ("__init__", "context", "registry"):
            continue
        classes = [node.name for node in ast.parse(path.read_text()).body
                   if isinstance(node, ast.ClassDef)
                   and any(isinstance(item, ast.FunctionDef) and item.name == "derates"
                           for item in node.body)]
        assert len(classes) == 1, path.name
        found.append((path.stem, classes[0]))
    listed = [(type(effect).__module__.rsplit(".", 1)[-1], type(effect).__name__)
              for effect in registry.EFFECTS]
    assert sorted(listed) == found and len(set(listed)) == len(listed)
    assert [effect.name for effect in registry.EFFECTS] == ["latency", "sectors",
                                                             "bank_conflicts"]


class Halving:
    """A stand-in effect: the global bandwidth at half its rate."""

    name = "halving"

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        return (Derate(self.name, sympy.Rational(1, 2), "half the global bandwidth", "global"),)


def test_a_new_effect_is_one_registry_line(monkeypatch):
    cost = analyze(SPEC, SIZES).cost
    machine = load_machine("h100")
    values = {size_symbol(name): value for name, value in SIZES.items()}
    before = verdict(cost, machine, values=values)
    monkeypatch.setattr(registry, "EFFECTS", (*registry.EFFECTS, Halving()))
    after = verdict(cost, machine, values=values)
    assert "halving" in [d.cause for d in after.derates]
    assert "halving" not in [d.cause for d in before.derates]
    assert after.t_bound == before.t_bound  # an effect never enters the bound
    assert after.t_model >= before.t_model
    global_terms = [t for t in after.grid.model_terms if t.key == "global"]
    assert global_terms and global_terms[0].roof.derated_by == ("halving",)
    assert roof_name(global_terms[0].roof) == "global bandwidth (halving)"


@pytest.mark.parametrize("precision", ["fp8", "fp6", "fp4"])
def test_latency_takes_vectors_of_elements_under_a_byte(capsys, precision):
    """fp6 and fp4 elements are 3/4 and 1/2 byte: int(element) was 0, a vector of
    16 // 0 elements a ZeroDivisionError (exit 3; the command-path campaign, seed 35,
    input 6439)."""
    from kernelcost.cli import main
    from kernelcost.gpu.effects.latency import VECTOR_BYTES, _one_load

    spec = Path(__file__).resolve().parent.parent / "specs" / "softmax_rows.kcost"
    assert main(["analyze", str(spec), "--set", "R=256,n=256", "--machine", "b200",
                 "--no-verify", "--precision", precision, "--json"]) == 0
    capsys.readouterr()
    element = {"fp8": sympy.Integer(1), "fp6": sympy.Rational(3, 4),
               "fp4": sympy.Rational(1, 2)}[precision]
    # 64 elements a thread: one vector of VECTOR_BYTES holds 16, 21 or 32 of them
    assert _one_load(element, sympy.Integer(64 * 256), sympy.Integer(256)) == (
        element * int(VECTOR_BYTES / element))
