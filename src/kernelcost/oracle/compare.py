"""The closed forms of a Cost evaluated at the enumeration's sizes, one comparison each:
equal where exact, a bound on the right side where the Cost says it is one."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import sympy

from ..algebra import rational_eval
from ..base.symbols import LEVELS, iterator_symbol
from ..count.cost import Cost
from ..count.mma import on_units
from .exprs import rational, sympy_substitution
from .grid_blocks import compare_blocks
from .results import MAX_SUM_TERMS, Comparison, Counts, Mismatch, Value

# --- comparing closed forms with the enumeration -----------------------------------------


def compare(cost: Cost, counts: Counts, sizes: Mapping[str, int] | None = None,
            *, max_entries: int = 512) -> list[Mismatch]:
    """Every disagreement of the Cost's closed forms with the enumeration (see comparisons)."""
    return [row.mismatch() for row in comparisons(cost, counts, sizes, max_entries=max_entries)
            if not row.holds]


def comparisons(cost: Cost, counts: Counts, sizes: Mapping[str, int] | None = None,
                *, max_entries: int = 512) -> list[Comparison]:
    """Evaluate the Cost's closed forms at the sizes of `counts` (`sizes`, when given,
    overrides some of them) against the enumeration, one row per quantity: equality where
    the form is exact, closed form >= enumeration where it is an upper bound. Per-entry scope
    footprints are checked at the recorded iterator values of up to max_entries entries of
    each scope (evenly spread, first and last included)."""
    if cost.reuse != counts.reuse:
        raise ValueError(f"the cost was counted under reuse `{cost.reuse}` and the "
                         f"enumeration under `{counts.reuse}`")
    substitution = sympy_substitution({**counts.sizes, **(sizes or {})})
    cost = on_units(cost, substitution)  # the closed form's units at these sizes
    checker = _Comparison(substitution)
    for work_class in sorted(set(cost.work) | set(counts.work)):
        checker.check(f"work[{work_class}]", "FLOP", cost.work.get(work_class, 0),
                      counts.work.get(work_class, 0), exact=True)
    for level in _ordered_levels(set(cost.traffic) | set(counts.traffic)):
        checker.check(f"traffic[{level}]", "B", cost.traffic.get(level, 0),
                      counts.traffic.get(level, 0), exact=cost.exact)
    if cost.compulsory_B is not None:
        checker.check("compulsory", "B", cost.compulsory_B, counts.compulsory_B,
                      exact=cost.exact)
    _compare_footprints(checker, cost, counts)
    _compare_scopes(checker, cost, counts, max_entries)
    compare_blocks(checker, cost, counts, lambda blocks: _spread(blocks, max_entries))
    return checker.rows


def _ordered_levels(levels: set[str]) -> list[str]:
    return sorted(levels, key=lambda level: (LEVELS.index(level) if level in LEVELS else 99,
                                             level))


class _Comparison:
    def __init__(self, substitution: dict[sympy.Symbol, sympy.Rational]):
        self.substitution = substitution
        self.rows: list[Comparison] = []
        self._extra: Mapping | None = None  # the last extra values, and the sizes with them
        self._merged = substitution
        # the integer values among them in Python's ints: a plan reads these directly, with
        # no sympy number to test and convert on each of the thousands of rows
        self.integers = _integers(substitution)
        self._merged_integers = self.integers

    def check(self, quantity: str, unit: str, closed_form, enumerated: Value, *, exact: bool,
              extra: Mapping[sympy.Symbol, sympy.Rational] | None = None,
              where: str = "", relation: str = ">=") -> None:
        """closed form == enumeration where exact; else the closed form bounds it (>= for an
        upper bound, <= for a lower end such as a box's first index)."""
        substitution = self._with(extra) if extra else self.substitution
        integers = self._merged_integers if extra else self.integers
        planned = (None if isinstance(closed_form, (int, Fraction))
                   else rational_eval.value_at_integers(closed_form, integers))
        value = (Fraction(*planned) if planned is not None
                 else evaluate(closed_form, substitution))
        self.rows.append(Comparison(quantity, where, unit, value, Fraction(enumerated),
                                    "==" if exact else relation, closed_form))

    def _with(self, extra: Mapping[sympy.Symbol, sympy.Rational]
              ) -> Mapping[sympy.Symbol, sympy.Rational]:
        """The sizes with `extra` (a block's coordinates): merged once for the rows of one
        block, which all pass the same mapping."""
        if extra is not self._extra:
            self._extra, self._merged = extra, {**self.substitution, **extra}
            self._merged_integers = {symbol: value for symbol, value in self.integers.items()
                                     if symbol not in extra}
            self._merged_integers.update(_integers(extra))
        return self._merged


def _integers(values: Mapping[sympy.Symbol, sympy.Rational]) -> dict[sympy.Symbol, int]:
    return {symbol: int(value) for symbol, value in values.items()
            if getattr(value, "is_Integer", False)}


def evaluate(expression, substitution: Mapping[sympy.Symbol, sympy.Rational]) -> Fraction | None:
    """The exact value of a closed form at concrete sizes, or None when it gives no number."""
    if isinstance(expression, (int, Fraction)):
        return Fraction(expression)
    planned = rational_eval.value_at(expression, substitution)
    if planned is not None:
        return Fraction(*planned)
    if expression.has(sympy.Sum):
        # the sums first, from the inside: a Min or Max cannot compare an unevaluated Sum
        value = _sum_explicitly(expression, dict(substitution), [MAX_SUM_TERMS])
        if value is None:
            return None
    else:
        value = expression.xreplace(dict(substitution))
    if not value.is_Rational:
        value = value.doit()
    if value.is_Float:
        value = sympy.nsimplify(value, rational=True)
    if not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _sum_explicitly(expr: sympy.Expr, values: dict, terms_left: list[int]) -> sympy.Expr | None:
    """expr at `values` with every Sum added up term by term, rebuilt from the leaves up so
    that no node ever holds an unevaluated Sum; None when a bound is no integer or the terms
    run out."""
    if not expr.has(sympy.Sum):
        return expr.xreplace(values)
    if not isinstance(expr, sympy.Sum):
        args = [_sum_explicitly(arg, values, terms_left) for arg in expr.args]
        return None if any(arg is None for arg in args) else expr.func(*args)
    *inner, (variable, first, last) = expr.limits
    first, last = first.xreplace(values), last.xreplace(values)
    if not (first.is_Integer and last.is_Integer):
        return None
    total = sympy.Integer(0)
    for value in range(int(first), int(last) + 1):
        terms_left[0] -= 1
        if terms_left[0] < 0:
            return None
        term = sympy.Sum(expr.function, *inner) if inner else expr.function
        term = _sum_explicitly(term, {**values, variable: sympy.Integer(value)}, terms_left)
        if term is None:
            return None
        total += term
    return total


def _compare_footprints(checker: _Comparison, cost: Cost, counts: Counts) -> None:
    for tensor, (read, written) in counts.footprints.items():
        footprint = cost.footprints.get(tensor)
        if footprint is None:
            if read or written:
                checker.rows.append(Comparison(f"footprint[{tensor}]", "", "elements", None,
                                               Fraction(read + written), "==", "missing"))
            continue
        checker.check(f"footprint[{tensor}].read", "elements", footprint.read_elements, read,
                      exact=footprint.exact)
        checker.check(f"footprint[{tensor}].write", "elements", footprint.write_elements,
                      written, exact=footprint.exact)


def _compare_scopes(checker: _Comparison, cost: Cost, counts: Counts, max_entries: int) -> None:
    if len(cost.scopes) != len(counts.scopes):
        checker.check("number of scopes", "scopes", len(cost.scopes), len(counts.scopes),
                      exact=True)
    for closed, counted in zip(cost.scopes, counts.scopes):
        name = f"scope {counted.index} ({', '.join(counted.tensors)} in {counted.level})"
        checker.check(f"{name} entries", "entries", closed.entries, counted.entry_count,
                      exact=True)
        for entry in _spread(counted.entries, max_entries):
            at = {iterator_symbol(n): rational(v) for n, v in entry.outer_values.items()}
            where = ", ".join(f"{n}={v}" for n, v in entry.outer_values.items())
            for tensor in counted.tensors:
                checker.check(f"{name} read[{tensor}]", "elements",
                              closed.read_elements.get(tensor, 0),
                              entry.read_elements[tensor], exact=closed.exact, extra=at,
                              where=where)
                checker.check(f"{name} write[{tensor}]", "elements",
                              closed.write_elements.get(tensor, 0),
                              entry.write_elements[tensor], exact=closed.exact, extra=at,
                              where=where)
        if counted.entries and counted.held_bytes_first is not None:
            first = counted.entries[0].outer_values
            at = {iterator_symbol(n): rational(v) for n, v in first.items()}
            checker.check(f"{name} held bytes", "B", closed.held_bytes,
                          counted.held_bytes_first, exact=closed.exact, extra=at)


def _spread(entries: tuple, limit: int) -> list:
    if len(entries) <= limit:
        return list(entries)
    last = len(entries) - 1
    positions = sorted({round(k * last / (limit - 1)) for k in range(limit)})
    return [entries[position] for position in positions]


