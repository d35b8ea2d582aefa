"""The effects on t_model, in the order their derates are listed and applied. A new effect is
one module of this package, its tests, and one line here."""

from __future__ import annotations

from ..derates import Derate
from .banks import BankConflicts
from .context import CALL, ROOFS, Effect, EffectContext
from .latency import Latency
from .launch_overhead import Launch
from .sectors import Sectors

EFFECTS: tuple[Effect, ...] = (Latency(), Sectors(), BankConflicts(), Launch())


def model_derates(context: EffectContext) -> tuple[Derate, ...]:
    """The derates on the roofs at the context's sizes: t_model takes them."""
    return _derates(context, ROOFS)


def call_derates(context: EffectContext) -> tuple[Derate, ...]:
    """The derates on the call around the kernel's time (`context.t_kernel`), after t_model."""
    return _derates(context, CALL)


def _derates(context: EffectContext, stage: str) -> tuple[Derate, ...]:
    return tuple(derate for effect in EFFECTS if effect.stage == stage
                 for derate in effect.derates(context))
