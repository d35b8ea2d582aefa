"""The effects on t_model, in the order their derates are listed and applied. A new effect is
one module of this package, its tests, and one line here."""

from __future__ import annotations

from ..derates import Derate
from .banks import BankConflicts
from .context import Effect, EffectContext
from .latency import Latency
from .sectors import Sectors

EFFECTS: tuple[Effect, ...] = (Latency(), Sectors(), BankConflicts())


def model_derates(context: EffectContext) -> tuple[Derate, ...]:
    """Every effect's derates at the context's sizes."""
    return tuple(derate for effect in EFFECTS for derate in effect.derates(context))
