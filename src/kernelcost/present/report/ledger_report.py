"""The gap ledger (answers.ledger) in words and as JSON: t_bound, each cause's signed step,
and t_model, their sum."""

from __future__ import annotations

from ...answers.ledger import Cause, Ledger, Step, ledger
from ...base.units import si
from .cells import quantities, value_of


def ledger_line(verdict) -> str | None:
    """`  ledger: t_bound 4.17 µs; clock +240 ns; global traffic +2.1 ns = t_model 4.41 µs.`;
    None where there is no ledger or a figure is symbolic."""
    found = ledger(verdict)
    return None if found is None else ledger_text(found)


def ledger_text(found: Ledger) -> str | None:
    """The ledger in words, None where a figure is symbolic."""
    if not _numeric(found):
        return None
    parts = [f"t_bound {si(value_of(found.t_bound), 's')}"]
    parts += [f"{_name(step)} {_signed(value_of(step.delta_s))}" for step in found.steps]
    return "  ledger: " + "; ".join(parts) + f" = t_model {si(value_of(found.t_model), 's')}."


def ledger_json(verdict) -> dict | None:
    found = ledger(verdict)
    return None if found is None else ledger_dict(found)


def ledger_dict(found: Ledger) -> dict:
    return {**quantities(t_bound=found.t_bound, t_model=found.t_model),
            "steps": [{"cause": step.cause.value, "effect": step.effect,
                       **quantities(delta_s=step.delta_s)} for step in found.steps]}


def _numeric(found: Ledger) -> bool:
    return all(value_of(expr) is not None
               for expr in (found.t_bound, found.t_model, *(s.delta_s for s in found.steps)))


def _name(step: Step) -> str:
    if step.cause is Cause.EFFECT:
        assert step.effect is not None  # an effect's step names its effect
        return step.effect.replace("_", " ")
    return step.cause.value


def _signed(value: float | None) -> str:
    assert value is not None  # _numeric checked every step
    return ("+" if value >= 0 else "-") + si(abs(value), "s")
