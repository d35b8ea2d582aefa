"""The achievable effect: what a tuned kernel sustains of each roof, as the machine file
states it with its source ([[achievable]], module hardware.achievable_rates).

- A peak: the tensor units under the power limit at the clock they hold on real data (a GEMM
  searched over its shapes stays some 10 to 50 % under the data sheet's peak), on the MMA
  issue path the spec takes: its `mma` line where it has one (FlashAttention-2's `mma sync`:
  mma.sync on a Hopper), else `needs tcgen05` or `needs wgmma`, else `mma.sync` where it
  names an NVIDIA target without them, else the part's best path. A path the machine file
  has no figure for takes the part's. The figure is for the operands the machine is taken
  with (Machine.inputs: random values, what a GEMM's figure is measured on, or zeros, whose
  unflipped bits let the part hold a higher clock under its power limit); inputs the file
  has no figure for take the random inputs' figure.
- A bandwidth: what a copy sustains of the data sheet's figure.

factor = the fraction, on the term's rate, for each work class and level the spec uses and
the machine gives a fraction of. A machine without [[achievable]] gets no derate: its
estimate stays at the figures as given."""

from __future__ import annotations

from ...base.architectures import Feature, MmaPath, Vendor
from ...base.kinds import EffectCause, Inputs, TermKey, WorkClass
from ...base.records import record
from ...count.values import exact
from ...hardware.achievable_rates import Achievable
from ...hardware.machine import Machine
from ...lang.requirements import Requirements
from ..derates import Derate
from .context import ROOFS, EffectContext

ACHIEVABLE = EffectCause("achievable")


@record
class AchievableFinding:
    """The machine file's figure for a roof: the fraction a tuned kernel sustains of it."""

    fraction: float  # of the roof's figure, in (0, 1]
    roof: TermKey  # a work class or a memory level
    path: MmaPath | None  # the MMA issue path the figure is for; None: the part's figure
    unfigured: MmaPath | None = None  # the path the spec takes where the machine file has
    # no figure for it (the tensor roof only): the part's figure stands in
    inputs: Inputs = Inputs.RANDOM  # the operands the figure was measured on
    inputs_unfigured: Inputs | None = None  # the machine's inputs where the file has no
    # figure for them (the tensor roof only): the random inputs' figure stands in


class AchievableRates:
    """Each roof the spec meets at the fraction a tuned kernel sustains of it."""

    name = ACHIEVABLE
    stage = ROOFS
    findings = (AchievableFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        cost = context.cost
        used = {key for key, amount in cost.work.items() if amount != 0} | set(cost.levels)
        path = mma_path(cost.requirements)
        found = []
        machine = context.machine
        for roof in dict.fromkeys(entry.roof for entry in machine.achievable):
            entry = figure_for(machine, roof, path)
            if roof in used and entry is not None:
                found.append(Derate(ACHIEVABLE, exact(entry.fraction),
                                    _finding(entry, path, machine.inputs), roof))
        return tuple(found)


def mma_path(requirements: Requirements) -> MmaPath | None:
    """The MMA issue path a spec takes: the one its `mma` line names, else the one it needs,
    else mma.sync where it names an NVIDIA target (the instructions every NVIDIA architecture
    since sm_80 has), else None (the part's best path, as a library picks it)."""
    if requirements.mma is not None:
        return requirements.mma
    if Feature.TCGEN05 in requirements.features:
        return MmaPath.TCGEN05
    if Feature.WGMMA in requirements.features:
        return MmaPath.WGMMA
    target = requirements.target
    if target is not None and target.vendor is Vendor.NVIDIA:
        return MmaPath.MMA_SYNC
    return None


def figure_for(machine: Machine, roof: str, path: MmaPath | None) -> Achievable | None:
    """The roof's figure for the machine's inputs, else for random inputs; of those, the one
    on the path, else the part's (no path)."""
    entries = [entry for entry in machine.achievable if entry.roof == roof]
    for inputs in dict.fromkeys((machine.inputs, Inputs.RANDOM)):
        measured = [entry for entry in entries if entry.inputs == inputs]
        if roof == WorkClass.TENSOR and path is not None:
            on_path = next((entry for entry in measured if entry.path is path), None)
            if on_path is not None:
                return on_path
        part = next((entry for entry in measured if entry.path is None), None)
        if part is not None:
            return part
    return None


def _finding(entry: Achievable, path: MmaPath | None, inputs: Inputs) -> AchievableFinding:
    tensor = entry.roof == WorkClass.TENSOR
    unfigured = path if entry.path is None and tensor else None
    inputs_unfigured = inputs if tensor and entry.inputs != inputs else None
    return AchievableFinding(entry.fraction, entry.roof, entry.path, unfigured, entry.inputs,
                             inputs_unfigured)
