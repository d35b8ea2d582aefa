"""The effects on t_model, in the order their derates are listed and applied.

A new effect is one module of this package, its tests and one line here. The module holds
all the effect is:
- its cause, a value it declares (`FILL_DRAIN = EffectCause("fill_drain")`): what its
  derates name, printed as its word in the JSON, the ledger and a derated roof's name;
- its finding, a record of the figures it found, with its sentence as data: a
  `sentence: ClassVar[Sentence]` (base.sentences) of words and places named after the
  record's fields, each with its unit (`{edge_B:B}`), which present.derate_text fills (no
  text is built from a value here). A sentence whose words depend on the figures (a clause
  there or not, a unit by kind) is a function in present.derate_text's TEXTS instead;
- the effect: its `name` (its cause), `stage`, `findings` and `derates` (context.Effect).
fill_drain, chain and launch_overhead are in this form; the others keep text functions for
sentences with logic."""

from __future__ import annotations

import dataclasses
import sys

from ...base.kinds import EffectCause
from ..derates import Derate
from .achievable import AchievableRates
from .banks import BankConflicts
from .chain import Chain
from .context import CALL, ROOFS, Effect, EffectContext
from .dispatch import Dispatch
from .fill_drain import FillDrain
from .first_loads import FirstLoads
from .issue import Issue
from .latency import Latency
from .launch_overhead import Launch
from .overlap import Overlap
from .sectors import Sectors
from .serial import Serial

EFFECTS: tuple[Effect, ...] = (AchievableRates(), Latency(), Issue(), FirstLoads(), Sectors(),
                               BankConflicts(), Dispatch(), Serial(), Overlap(), FillDrain(),
                               Chain(), Launch())


def causes() -> tuple[EffectCause, ...]:
    """Every cause the registered effects' modules declare, in the registry's order: the
    words a derate's cause may be (the JSON schema's enumeration)."""
    found: dict[EffectCause, None] = {}
    for effect in EFFECTS:
        for value in vars(sys.modules[type(effect).__module__]).values():
            if isinstance(value, EffectCause):
                found.setdefault(value)
    return tuple(found)


def model_derates(context: EffectContext) -> tuple[Derate, ...]:
    """The derates on the roofs at the context's sizes: t_model takes them."""
    return _derates(context, ROOFS)


def call_derates(context: EffectContext) -> tuple[Derate, ...]:
    """The derates on the call around the kernel's time (`context.t_kernel`), after t_model."""
    return _derates(context, CALL)


def _derates(context: EffectContext, stage: str) -> tuple[Derate, ...]:
    """Each effect of the stage in order, reading what the ones before it found."""
    found: list[Derate] = []
    for effect in EFFECTS:
        if effect.stage == stage:
            found += effect.derates(dataclasses.replace(context, earlier=tuple(found)))
    return tuple(found)
