"""Effects on t_model as plug-ins (gpu/effects): one module an effect, one registry line each,
and the execution model takes what the registry lists, no more. An effect's module declares
its causes; its derates carry its findings, records of figures; their sentences are
presentation's (present.derate_text): a sentence a finding declares as data, filled there, or
a function a finding type."""

from __future__ import annotations

import ast
import dataclasses
import string
import sys
from pathlib import Path

import pytest
import sympy
from test_derates import COPY
from test_lanes import BF16_COLUMN

from kernelcost import machines
from kernelcost.analysis.api import analyze, load, loads
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import EffectCause, WorkClass
from kernelcost.base.levels import Level
from kernelcost.base.records import record
from kernelcost.base.sentences import is_place_unit
from kernelcost.base.symbols import size_symbol
from kernelcost.gpu.derates import Derate
from kernelcost.gpu.effects import registry
from kernelcost.gpu.effects.context import CALL, ROOFS, EffectContext
from kernelcost.gpu.effects.launch_overhead import Launch
from kernelcost.gpu.effects.sectors import DRAM_SECTORS
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.derate_text import TEXTS, declared_sentence, derate_text
from kernelcost.present.roofs import roof_name

EFFECTS = Path(registry.__file__).parent
SPEC = Path(__file__).resolve().parent.parent / "specs" / "gemm_hopper.kcost"
SIZES = {"M": 8192, "N": 8192, "K": 8192}
# the effects shipped, in the registry's order: a new one goes where it acts among them, and
# shows where it binds in its own tests
SHIPPED = ["achievable", "latency", "sectors", "bank_conflicts", "dispatch", "serial",
           "overlap", "fill_drain", "launch"]


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
    names = [effect.name for effect in registry.EFFECTS]
    assert [name for name in names if name in SHIPPED] == SHIPPED
    stages = [effect.stage for effect in registry.EFFECTS]
    assert stages == sorted(stages, key=[ROOFS, CALL].index)  # the call's after t_model's


def declared_causes() -> dict[EffectCause, str]:
    """Each cause the registered effects' modules declare -> the module declaring it."""
    found: dict[EffectCause, str] = {}
    for effect in registry.EFFECTS:
        module = type(effect).__module__
        for value in vars(sys.modules[module]).values():
            if isinstance(value, EffectCause):
                assert found.setdefault(value, module) == module, value  # one word, one effect
    return found


def test_every_finding_of_a_registered_effect_has_its_text():
    """Each effect names the finding types its derates carry; presentation has a sentence for
    each of them (declared by the finding, or a function of TEXTS), never two, and a function
    for nothing else. Each effect's name is a cause its module declares."""
    findings = [kind for effect in registry.EFFECTS for kind in effect.findings]
    assert len(set(findings)) == len(findings)
    declared = {kind for kind in findings if declared_sentence(kind) is not None}
    assert set(TEXTS) | declared == set(findings)
    assert not set(TEXTS) & declared
    assert declared, "the one-file form is used"
    causes = declared_causes()
    assert all(causes.get(effect.name) == type(effect).__module__
               for effect in registry.EFFECTS)


def test_a_declared_sentence_places_fields_of_its_finding_in_known_units():
    """A place names a field of the finding (a misspelt one would fail at the first derate of
    that effect) and a unit `filled` prints."""
    for effect in registry.EFFECTS:
        for kind in effect.findings:
            sentence = declared_sentence(kind)
            if sentence is None:
                continue
            fields = {field.name for field in dataclasses.fields(kind)}
            for _, field, unit, conversion in string.Formatter().parse(sentence.template):
                if field is not None:
                    assert field in fields, (kind.__name__, field)
                    assert not unit or is_place_unit(unit), (kind.__name__, unit)
                    assert conversion is None, (kind.__name__, field)


def test_every_effect_binds_somewhere_and_its_finding_reads_as_a_sentence():
    """A column of bf16 read into a 32-way conflicting tile at n = 1024 on H100 is under every
    roof effect but serial (latency, sectors, dram_sectors, bank conflicts, the achievable
    fractions) and the launch; FlashAttention-2 adds its `serial` group, the overlap and the
    fill and drain of its query and output tiles, its causal variant the dispatch of unequal
    blocks. Each derate carries one of its effect's findings, and that finding's text is the
    sentence printed."""
    h100 = load_machine("h100")
    column = verdict(loads(BF16_COLUMN).cost("spec"), h100, values={"n": 1024})
    fa2 = load(Path(SPEC).parent / "flash_attention.kcost").cost()
    attention = verdict(fa2, h100, values={s: 4096 for s in fa2.parameters if s.name == "S"})
    fa2c = load(Path(SPEC).parent / "flash_attention_causal.kcost").cost()
    sizes = {"S": 4096, "H": 16}
    causal = verdict(fa2c, h100, values={s: sizes[s.name] for s in fa2c.parameters
                                         if s.name in sizes})
    derates = [*column.derates, *attention.derates, *causal.derates]
    assert {derate.cause for derate in derates} >= {*SHIPPED, DRAM_SECTORS}
    of_module = {type(effect).__module__: effect.findings for effect in registry.EFFECTS}
    of_effect = {cause: of_module[module] for cause, module in declared_causes().items()}
    terms = [term for result in (column, attention, causal)
             for term in (*result.terms, *result.grid.model_terms, *result.grid.bound_terms)]
    for derate in derates:
        assert isinstance(derate.finding, of_effect[derate.cause]), derate.cause
        assert derate.key is None or isinstance(derate.key, (WorkClass, Level)), derate
        text = derate_text(derate)
        assert text and not text.endswith(" "), derate.cause
    assert all(isinstance(term.key, (WorkClass, Level)) for term in terms)  # never a word
    assert {type(derate.finding) for derate in derates} >= {
        kind for effect in registry.EFFECTS if effect.name in SHIPPED for kind in effect.findings}
    [dram] = [d for d in column.derates if d.cause == DRAM_SECTORS]
    assert derate_text(dram) == ("HBM sees whole sectors through L2: a 1.05 MB of sectors for "
                                 "65.5 kB used: nobody uses the rest: 1.11 MB where t_model "
                                 "counted 131 kB")


@record
class HalvingFinding:
    """What the stand-in found: nothing but that it halves."""


class Halving:
    """A stand-in effect: the global bandwidth at half its rate."""

    name = EffectCause("halving")
    stage = ROOFS
    findings = (HalvingFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        return (Derate(self.name, sympy.Rational(1, 2), HalvingFinding(), "global"),)


def test_a_new_effect_is_one_registry_line(monkeypatch):
    cost = analyze(SPEC, SIZES).cost
    machine = dataclasses.replace(load_machine("h100"), achievable=())  # halving alone
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
    from kernelcost.gpu.effects.latency import VECTOR_BYTES, one_load

    spec = Path(__file__).resolve().parent.parent / "specs" / "softmax_rows.kcost"
    assert main(["analyze", str(spec), "--set", "R=256,n=256", "--machine", "b200",
                 "--no-verify", "--precision", precision, "--json"]) == 0
    capsys.readouterr()
    element = {"fp8": sympy.Integer(1), "fp6": sympy.Rational(3, 4),
               "fp4": sympy.Rational(1, 2)}[precision]
    # 64 elements a thread: one vector of VECTOR_BYTES holds 16, 21 or 32 of them
    assert one_load(element, sympy.Integer(64 * 256), sympy.Integer(256)) == (
        element * int(VECTOR_BYTES / element))


# --- launch: the machine's overhead on the kernel's time (stage CALL) -----------------------


def _launch(machine, t_kernel):
    context = EffectContext(None, machine, lambda expr: expr, t_kernel=t_kernel)
    return Launch().derates(context)


def test_launch_reads_the_overhead_from_the_machine_file(tmp_path):
    h100 = load_machine("h100")
    assert h100.launch_overhead_s == 4e-6  # h100.toml, [launch] launch_overhead_s = 4e-6
    [derate] = _launch(h100, sympy.Rational(20, 10**6))
    assert (derate.cause, derate.key) == ("launch", None)  # no bandwidth scaled
    assert derate.factor == sympy.Rational(5, 6)  # 20 us of a 24 us call
    assert derate.finding.overhead_s == sympy.Rational(4, 10**6)
    assert derate_text(derate).startswith("launch overhead 4 µs on a 20 µs kernel: 20 % of the "
                                          "kernel's time, 16.7 % of the total")
    # the figure is the file's: a machine file with 5 us gives the chapter's 20 % on 20 us
    path = tmp_path / "h100_slow_launch.toml"
    text = (Path(machines.__file__).parent / "h100.toml").read_text()
    path.write_text(text.replace("launch_overhead_s = 4e-6", "launch_overhead_s = 5e-6", 1))
    slow = load_machine(path)
    assert slow.launch_overhead_s == 5e-6
    [derate] = _launch(slow, sympy.Rational(20, 10**6))
    assert derate.factor == sympy.Rational(4, 5)
    assert "25 % of the kernel's time, 20 % of the total" in derate_text(derate)


def test_launch_finds_nothing_without_a_time_or_an_overhead():
    h100 = load_machine("h100")
    assert _launch(h100, None) == ()  # a block that does not fit has no time
    assert _launch(h100, sympy.Symbol("t", positive=True)) == ()  # nor a symbolic one
    assert _launch(dataclasses.replace(h100, launch_overhead_s=None),
                   sympy.Rational(20, 10**6)) == ()


def test_launch_is_t_model_against_t_model_plus_the_overhead():
    """A nest: 8.375e6 f32 read and written on h100's 3.35 TB/s is 20 us; the call 24 us (the
    data sheet's bandwidth: no achievable fraction)."""
    h100 = dataclasses.replace(load_machine("h100"), achievable=())
    result = verdict(loads(COPY).cost("spec"), h100, values={"n": 8_375_000})
    overhead = sympy.Rational(4, 10**6)
    assert result.t_model == sympy.Rational(20, 10**6)  # the kernel's time, launch apart
    assert result.launch_overhead_s == overhead
    assert result.t_min_with_launch == result.t_model + overhead
    [launch] = result.derates
    assert launch.factor == result.t_model / (result.t_model + overhead)


def test_launch_comes_after_the_roof_effects_and_stays_out_of_t_model():
    """A grid: the roof effects lower t_model's bandwidths; launch reads that t_model and is
    listed last, from the call stage."""
    cost = analyze(SPEC, SIZES).cost
    machine = load_machine("h100")
    values = {size_symbol(name): value for name, value in SIZES.items()}
    result = verdict(cost, machine, values=values)
    assert "launch" not in [d.cause for d in result.grid.derates]
    assert result.derates[-1].cause == "launch"
    assert result.derates[:-1] == result.grid.derates
    overhead = sympy.Rational(4, 10**6)
    assert result.derates[-1].factor == result.t_model / (result.t_model + overhead)
