"""The achievable effect: what a tuned kernel sustains of each roof, read from the machine
file's [[achievable]] tables; the MMA issue path a spec takes; t_model lowered exactly by the
fraction, t_bound and t_floor never."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sympy

import kernelcost
from kernelcost.answers.ledger import Cause, ledger
from kernelcost.answers.model import verdict
from kernelcost.base.architectures import Feature, MmaPath, parse_architecture
from kernelcost.base.errors import KcostError
from kernelcost.gpu.effects.achievable import ACHIEVABLE, figure_for, mma_path
from kernelcost.hardware.achievable_rates import Achievable
from kernelcost.hardware.machinefile import load_machine, parse_machine
from kernelcost.lang.requirements import Requirements

ROOT = Path(__file__).resolve().parent.parent
H100 = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text("utf-8")
GEMM = ROOT / "specs" / "gemm.kcost"
GEMM_HOPPER = ROOT / "specs" / "gemm_hopper.kcost"


def _without_achievable(text: str) -> str:
    return text[:text.index("[[achievable]]")]


def _with(text: str, table: str) -> str:
    return _without_achievable(text) + table


def _error(text: str) -> KcostError:
    with pytest.raises(KcostError) as raised:
        parse_machine(text, "evil.toml")
    return raised.value


@pytest.mark.parametrize("table, where, words", [
    ('[[achievable]]\nroof = "hbm"\nfraction = 0.9\nsource = "s"\n', "achievable[0].roof",
     "expected one of"),
    ('[[achievable]]\nroof = "global"\nfraction = 1.5\nsource = "s"\n',
     "achievable[0].fraction", "from 1e-15 to 1"),
    ('[[achievable]]\nroof = "global"\nfraction = 0\nsource = "s"\n',
     "achievable[0].fraction", "from 1e-15 to 1"),
    ('[[achievable]]\nroof = "global"\nfraction = 0.9\n', "achievable[0].source", "missing"),
    ('[[achievable]]\nroof = "global"\npath = "wgmma"\nfraction = 0.9\nsource = "s"\n',
     "achievable[0].path", "only `tensor`"),
    ('[[achievable]]\nroof = "tensor"\npath = "hmma"\nfraction = 0.9\nsource = "s"\n',
     "achievable[0].path", "expected one of"),
    ('[[achievable]]\nroof = "tensor"\nfraction = 0.9\nsource = "s"\n'
     '[[achievable]]\nroof = "tensor"\nfraction = 0.8\nsource = "s"\n',
     "achievable[1].roof", "a second"),
    ('[[achievable]]\nroof = "global"\nratio = 0.9\nfraction = 0.9\nsource = "s"\n',
     "achievable[0].ratio", "unknown key"),
    ('[[achievable]]\nroof = "global"\ninputs = "zeros"\nfraction = 0.9\nsource = "s"\n',
     "achievable[0].inputs", "only `tensor`"),
    ('[[achievable]]\nroof = "tensor"\ninputs = "ones"\nfraction = 0.9\nsource = "s"\n',
     "achievable[0].inputs", "expected one of"),
    ('[[achievable]]\nroof = "tensor"\ninputs = "zeros"\nfraction = 0.9\nsource = "s"\n'
     '[[achievable]]\nroof = "tensor"\ninputs = "zeros"\nfraction = 0.8\nsource = "s"\n',
     "achievable[1].roof", "with zeros inputs"),
])
def test_a_bad_achievable_table_is_placed(table, where, words):
    text = _with(H100, table)
    error = _error(text)
    diagnostic = error.diagnostics[0]
    assert f"`{where}`" in diagnostic.message and words in (
        diagnostic.message + (diagnostic.hint or ""))
    assert diagnostic.span is not None and diagnostic.span.line > text.count("\n") - 6


def test_the_shipped_figures_are_read_with_their_sources():
    h100 = load_machine("h100")
    found = {(entry.roof, entry.path): entry for entry in h100.achievable}
    assert set(found) == {("tensor", None), ("tensor", MmaPath.MMA_SYNC), ("global", None)}
    assert found["tensor", None].fraction == 0.8025  # MAMF 794.5 / 990, rounded
    assert "744d01e18b79512572f64a6bbd8b5f4a725203a7" in found["tensor", None].source
    assert found["tensor", MmaPath.MMA_SYNC].fraction == 0.6526  # 494 / 757
    assert found["global", None].fraction == 0.8657  # BabelStream copy 2.90 / 3.35


@pytest.mark.parametrize("target, needs, path", [
    (None, (), None),
    ("sm_80", (), MmaPath.MMA_SYNC),
    ("sm_90a", (Feature.WGMMA, Feature.TMA), MmaPath.WGMMA),
    ("sm_100a", (Feature.TCGEN05,), MmaPath.TCGEN05),
    (None, (Feature.WGMMA,), MmaPath.WGMMA),
    ("gfx942", (), None),
])
def test_the_mma_path_is_what_the_spec_needs_or_its_target_issues(target, needs, path):
    arch = None if target is None else parse_architecture(target)
    assert mma_path(Requirements(arch, needs)) is path


def test_a_path_without_a_figure_takes_the_parts():
    part = Achievable("tensor", 0.8, "s")
    legacy = Achievable("tensor", 0.5, "s", MmaPath.MMA_SYNC)
    entries = (part, legacy, Achievable("global", 0.9, "s"))
    machine = dataclasses.replace(load_machine("h100"), achievable=entries)
    assert figure_for(machine, "tensor", MmaPath.MMA_SYNC) is legacy
    assert figure_for(machine, "tensor", MmaPath.WGMMA) is part
    assert figure_for(machine, "tensor", None) is part
    assert figure_for(machine, "global", MmaPath.MMA_SYNC) is entries[2]
    assert figure_for(machine, "l2", None) is None


@pytest.mark.parametrize("spec, sizes", [
    (GEMM, {"M": 4096, "N": 4096, "K": 4096}),  # a nest
    (GEMM_HOPPER, {"M": 4096, "N": 4096, "K": 4096}),  # a grid
])
def test_t_model_takes_the_fraction_exactly_and_the_bound_never(spec, sizes):
    cost = kernelcost.load(spec).cost()
    values = {symbol: value for symbol in cost.parameters for name, value in sizes.items()
              if symbol.name == name}
    plain = parse_machine(_without_achievable(H100), "h100.toml")
    shipped = load_machine("h100")
    before, after = (verdict(cost, machine, values=values) for machine in (plain, shipped))
    assert after.t_bound == before.t_bound and after.t_floor == before.t_floor
    factors = {d.key: d.factor for d in after.derates if d.cause == ACHIEVABLE}
    assert factors == {"tensor": sympy.Rational("0.8025"), "global": sympy.Rational("0.8657")}
    terms = after.grid.wave_terms if after.grid else after.nest_terms
    expected = max(term.seconds / factors[term.key] if term.key in factors else term.seconds
                   for term in terms)
    found = ledger(after)
    effects = [step.effect for step in found.steps]
    upto = found.steps[:effects.index(ACHIEVABLE) + 1]
    assert found.t_bound + sum(step.delta_s for step in upto) == expected
    assert upto[-1].cause is Cause.EFFECT and after.t_model >= expected > before.t_model


def test_a_machine_without_figures_keeps_its_estimate():
    cost = kernelcost.load(GEMM).cost()
    l40s = parse_machine(_without_achievable(
        (ROOT / "src" / "kernelcost" / "machines" / "l40s.toml").read_text("utf-8")), "l40s")
    assert not l40s.achievable
    result = verdict(cost, l40s, values={s: 2048 for s in cost.parameters})
    assert ACHIEVABLE not in [d.cause for d in result.derates]
    assert ACHIEVABLE not in [step.effect for step in ledger(result).steps]


def test_an_mma_line_names_the_path_and_is_checked():
    from kernelcost.lang.check import check
    from kernelcost.lang.parse import parse

    spec = ("kernel k(n) {\n    mma WORD\n    in  x: f32[n]\n    out y: f32[n]\n"
            "    for i in 0..n { y[i] = x[i] }\n}\n")
    for word, path in [("sync", MmaPath.MMA_SYNC), ("wgmma", MmaPath.WGMMA),
                       ("tcgen05", MmaPath.TCGEN05)]:
        checked = check(parse(spec.replace("WORD", word), "k.kcost"))
        assert checked.requirements.mma is path
        assert mma_path(checked.requirements) is path
        assert not checked.requirements.any  # a path asks nothing of the machine
    with pytest.raises(KcostError) as raised:
        check(parse(spec.replace("WORD", "wmma"), "k.kcost"))
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.code, diagnostic.span.line, diagnostic.span.column) == ("KC223", 2, 9)
    assert "unknown MMA path `wmma`" in diagnostic.message
    with pytest.raises(KcostError) as raised:
        parse(spec.replace("WORD", ""), "k.kcost")
    assert "expected an MMA path after `mma`" in raised.value.diagnostics[0].message


def test_flash_attention_2_issues_mma_sync_and_runs_everywhere():
    cost = kernelcost.load(ROOT / "specs" / "flash_attention.kcost").cost()
    assert mma_path(cost.requirements) is MmaPath.MMA_SYNC and not cost.requirements.any
    values = {s: v for s in cost.parameters for n, v in {"S": 4096, "H": 16}.items()
              if s.name == n}
    h100, mi300x = (verdict(cost, load_machine(m), values=values) for m in ("h100", "mi300x"))
    assert mi300x.t_model is not None  # no target: the spec is analysed on AMD too
    [tensor] = [d for d in h100.derates
                if d.cause == ACHIEVABLE and d.key == "tensor"]
    assert tensor.factor == sympy.Rational("0.6526")  # h100.toml: mma.sync on Hopper
    assert (tensor.finding.path, tensor.finding.unfigured) == (MmaPath.MMA_SYNC, None)
    [amd] = [d for d in mi300x.derates
             if d.cause == ACHIEVABLE and d.key == "tensor"]
    assert amd.factor == sympy.Rational("0.5114")  # no mma.sync figure there: the part's
    assert (amd.finding.path, amd.finding.unfigured) == (None, MmaPath.MMA_SYNC)
