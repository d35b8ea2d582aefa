"""The public result objects: a loaded spec, and the analysis of it at given sizes.

load(path) parses and checks; analyze(spec, sizes, reuse) counts and evaluates; count_spec
only counts (all that `solve` reads). Everything here holds sympy expressions; values are
floats in SI base units (FLOP, B, FLOP/B)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

import sympy

from ..algebra import rational_eval
from ..algebra.factored_forms import factored
from ..algebra.numeric_sums import has_sum, sum_values
from ..algebra.sympy_scope import patched
from ..algebra.witnesses import shows
from ..base import tree as ast
from ..base.kinds import Reuse
from ..base.magnitude import refuse_huge_constants
from ..base.records import record
from ..base.symbols import text_key
from ..base.watchdog import stage
from ..count.asymptotic import Asymptotics, Remainders, leading_term
from ..count.cost import Cost
from ..count.mma import on_units
from ..count.spec_count import count
from ..count.values import evaluate
from ..lang.check import CheckedKernel, check
from ..lang.parse import parse, parse_file
from ..lang.precisions import PrecisionMap, at_precision
from ..lang.schedule import Schedule, open_schedule
from ..lang.settings import Settings, refuse_unsized, resolve_settings, setting_warnings
from ..lang.sizes import size_warnings

if TYPE_CHECKING:
    from .verify import Verification


@record
class Spec:
    """A parsed and checked spec."""

    path: str
    checked: CheckedKernel
    _costs: dict = field(default_factory=dict, compare=False, repr=False)
    # at another precision (--precision): the spec as written, and what the types became
    base: Spec | None = field(default=None, compare=False, repr=False)
    mapping: PrecisionMap | None = None
    _mapped: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.checked.name

    @property
    def kernel(self) -> ast.Kernel:
        """The tree as written (before split-K's rewrite, lang.split_k): what a command that
        changes the spec and checks it again starts from."""
        return self.checked.written or self.checked.kernel

    @property
    def parameters(self) -> dict[str, sympy.Symbol]:
        return {symbol.name: symbol for symbol in self.checked.parameters}

    def at_precision(self, precision: str | None) -> Spec:
        """The spec with its element types mapped to `precision` by the table of
        precisions.py (bytes change with them), always from the types as written; itself at
        its own precision, or when `precision` is None."""
        if precision is None or precision == self.checked.precision:
            return self
        if self.base is not None:
            return self.base.at_precision(precision)
        if precision not in self._mapped:
            checked, mapping = at_precision(self.checked, precision)
            self._mapped[precision] = Spec(self.path, checked, base=self, mapping=mapping)
        return self._mapped[precision]

    @patched()
    def with_schedule(self, settings: Iterable[Schedule], places: dict | None = None) -> Spec:
        """The spec with each schedule setting it writes as a number opened as a parameter
        (lang.schedule): what `tune` varies, and what `validate` reads in a row's
        `SPLIT_K=4`. `places`: where a refusal points, per setting."""
        return Spec(self.path, check(open_schedule(self.kernel, settings, places)))

    @patched()
    def cost(self, reuse: Reuse | str = Reuse.SPEC) -> Cost:
        """The closed forms under a reuse mode (spec, perfect or none), counted once."""
        if reuse not in self._costs:
            stage("counting", self.kernel.span)
            cost = count(self.checked, reuse)
            refuse_huge_constants(cost, self.kernel)
            self._costs[reuse] = cost
        return self._costs[reuse]


@patched()
def load(path: str | Path) -> Spec:
    """Parse and check a .kcost file. Raises KcostError with positions on bad input."""
    kernel = parse_file(path)
    stage("checking", kernel.span)
    return Spec(str(path), check(kernel))


@patched()
def loads(text: str, filename: str = "<string>") -> Spec:
    """Parse and check spec text."""
    return Spec(filename, check(parse(text, filename)))


@record
class Quantity:
    expr: sympy.Expr  # closed form, with expression-valued settings (M=N) applied
    value: float | None  # at the numeric settings and defaults; None while symbolic
    leading: sympy.Expr | None  # dominant term as the free sizes grow together


@record
class Intensity(Quantity):
    limit: sympy.Expr | None  # as every size without a default grows together
    limits: dict[str, sympy.Expr | None] = field(default_factory=dict)  # one size at a time
    # as the sizes left unset grow together, the others at their values (llm_decode at b = 1:
    # 1 as Theta grows, where `limit` is oo); None where no such size is set or none is left
    at_sizes: sympy.Expr | None = None
    growing_at_sizes: tuple[str, ...] = ()  # the sizes left unset that grow there


@record
class Analysis:
    spec: Spec
    cost: Cost
    reuse: Reuse
    settings: dict[sympy.Symbol, sympy.Expr]
    parameters: dict[str, float | None]  # value used for numbers (set or default), or None
    work: Quantity
    work_by_class: dict[str, Quantity]
    traffic: dict[str, Quantity]
    intensity: dict[str, Intensity]
    # settings that break the spec's assumptions, values and steps not proved positive
    warnings: tuple[str, ...] = ()
    verified: Verification | None = None  # the closed forms against enumeration; None: off

    @property
    def kernel(self) -> str:
        return self.cost.kernel

    @property
    def values(self) -> dict[sympy.Symbol, sympy.Expr]:
        """Exact value of each parameter that has one (set, or its default): exact, since a
        float of N=1e999 is inf."""
        numeric = _numeric_values(self.spec, self.settings)
        return {symbol: numeric[symbol] for symbol in self.cost.parameters if symbol in numeric}

    # notebook display: thin calls into the report and plot stages, imported when shown


@record
class Counted:
    """A spec counted at given sizes: the closed forms with no values, asymptotic forms or
    verification worked out, which is all that `kernelcost solve` reads."""

    spec: Spec
    cost: Cost
    reuse: Reuse
    settings: dict[sympy.Symbol, sympy.Expr]
    warnings: tuple[str, ...]  # as Analysis.warnings
    numeric: dict[sympy.Symbol, sympy.Expr]  # each size with a number: set, or its default

    @property
    def kernel(self) -> str:
        return self.cost.kernel


@patched()
def count_spec(spec: Spec | str | Path, sizes: Mapping[str, object] | None = None,
               reuse: Reuse | str = Reuse.SPEC, precision: str | None = None) -> Counted:
    """Count a spec at `sizes` (as `analyze` takes them) without evaluating it. The sizes are
    checked as `analyze` checks them, so a step that is not positive is refused the same.
    `precision`: the spec's element types mapped to it (Spec.at_precision)."""
    if not isinstance(spec, Spec):
        spec = load(spec)
    spec = spec.at_precision(precision)
    raw = sizes if isinstance(sizes, Settings) else dict(sizes or {})
    settings = resolve_settings(raw, spec.parameters)
    numeric = _numeric_values(spec, settings)
    refuse_unsized(raw, settings, numeric)
    sized = size_warnings(spec.checked, numeric)  # first: a size dividing by zero is an error
    warnings = (*broken_assumptions(spec.checked, numeric), *setting_warnings(settings), *sized)
    cost = spec.cost(reuse)  # refuses a mode it does not know, and holds it as a Reuse
    return Counted(spec, cost, cost.reuse, settings, warnings, numeric)


@patched()
def analyze(spec: Spec | str | Path, sizes: Mapping[str, object] | None = None,
            reuse: Reuse | str = Reuse.SPEC, verify: bool = False, precision: str | None = None
            ) -> Analysis:
    """Count a spec and evaluate it. sizes: {name: number or expression text}. verify: first
    compare the closed forms with enumeration at a few small sizes (Analysis.verified), as
    `kernelcost analyze` does unless told --no-verify. precision: the spec's element types
    mapped to it first (`--precision`; Spec.at_precision), the spec's own when None."""
    counted = count_spec(spec, sizes, reuse, precision)
    spec, cost, settings, numeric = counted.spec, counted.cost, counted.settings, counted.numeric
    stage("verifying the closed forms", spec.kernel.span)
    verified = None
    if verify:  # loaded here: solve, sweep and --no-verify run without it
        from .verify import self_verify

        verified = self_verify(spec.checked, cost)
    cost = on_units(cost, numeric)  # the units of each contraction at these sizes
    stage("finding values and asymptotic forms", spec.kernel.span)
    symbolic_settings = {s: e for s, e in settings.items() if e.free_symbols}
    growing = [p for p in cost.parameters
               if p not in cost.defaults and p not in symbolic_settings]
    growing += [s for e in symbolic_settings.values() for s in e.free_symbols
                if s not in growing and s not in cost.defaults]

    quantities: dict[sympy.Expr, Quantity] = {}  # the total work is often one class's work
    remainders: Remainders = {}  # the roundings' remainders, shared by every form below

    def quantity(expr: sympy.Expr) -> Quantity:
        if expr not in quantities:
            applied = _apply(expr, symbolic_settings)
            quantities[expr] = Quantity(applied, _evaluate(applied, numeric),
                                        leading_term(applied, growing, remainders))
        return quantities[expr]

    work = quantity(cost.total_work)
    by_class = {cls: quantity(expr) for cls, expr in cost.work.items()}
    traffic = {level: quantity(expr) for level, expr in cost.traffic.items()}
    intensity = {}
    for level in cost.levels:
        expr = _apply(cost.intensity(level), symbolic_settings)
        forms = Asymptotics(expr, remainders)  # one common denominator for every limit below
        per_size = {str(p): forms.limit([p]) for p in growing}
        intensity[level] = Intensity(expr, _evaluate(expr, numeric), forms.leading(growing),
                                     forms.limit(growing), per_size,
                                     *_limit_at_sizes(forms, growing, numeric))
    parameters = {str(p): _as_float(numeric[p]) if p in numeric else None
                  for p in cost.parameters}
    return Analysis(spec, cost, counted.reuse, settings, parameters, work, by_class, traffic,
                    intensity, counted.warnings, verified)


def broken_assumptions(checked: CheckedKernel, values) -> tuple[str, ...]:
    """The spec's `assume` facts that numeric sizes contradict: the closed forms rely on them,
    so values computed there may not be those of the loops as written."""
    broken = []
    at = _substitution(values)
    for divisor, dividend in checked.divisibility:
        divisor_value, dividend_value = at(divisor), at(dividend)
        whole = divisor_value.is_Integer and dividend_value.is_Integer
        if whole and (divisor_value == 0 or dividend_value % divisor_value):  # 0 | n: n = 0
            broken.append(f"`assume {divisor} | {dividend}` does not hold at "
                          f"{divisor} = {divisor_value}, {dividend} = {dividend_value}")
        elif divisor_value.is_number and dividend_value.is_number and not (
                divisor_value.is_Integer and dividend_value.is_Integer):
            broken.append(f"`assume {divisor} | {dividend}` needs whole numbers, not "
                          f"{dividend} = {dividend_value}, {divisor} = {divisor_value}")
    for relation in checked.bounds:
        sides = [side.subs(values) for side in (relation.lhs, relation.rhs)]
        if any(side.is_number and not side.is_finite for side in sides):
            broken.append(f"`assume {relation}` divides by zero at these sizes")
            continue
        if _holds_somewhere(relation, values):
            continue  # no sizes left, or some where it holds: not false at these sizes
        if at(relation) is sympy.false:
            broken.append(f"`assume {relation}` does not hold at these sizes")
    return tuple(broken)


def _substitution(values):
    """expr.subs(values), as xreplace where every key is a symbol and every value an exact
    number: it builds what subs builds there (each size replaced by a number, the expression
    evaluated again), without subs's sympifying and sorting of the pairs, a tenth of a
    millisecond a call (tests/test_broken_assumptions.py holds the two equal). A float goes
    through subs: its sums round in the order each replaces the sizes."""
    if all(isinstance(key, sympy.Symbol) and isinstance(value, sympy.Rational)
           for key, value in values.items()):
        return lambda expr: expr.xreplace(values)
    return lambda expr: expr.subs(values)


# the signs of left - right where each relation holds
_HOLDING_SIGNS = {sympy.LessThan: (-1, 0), sympy.StrictLessThan: (-1,),
                  sympy.GreaterThan: (0, 1), sympy.StrictGreaterThan: (1,)}


def _holds_somewhere(relation: sympy.Rel, values) -> bool:
    """Whether the relation, with these values put in, still holds at some witness sizes of
    the sizes left: sympy then cannot find it false, and building it asks its assumptions
    for milliseconds (`Ea <= 8` with E set)."""
    signs = _HOLDING_SIGNS.get(type(relation))
    if signs is None:
        return False
    difference = _substitution(values)(relation.lhs - relation.rhs)
    return bool(difference.free_symbols) and shows(difference, signs)


def numeric_values(spec: Spec, settings) -> dict[sympy.Symbol, sympy.Expr]:
    """Each size with a number: its setting, its default, or a setting in such sizes."""
    values = {symbol: sympy.Integer(default) for symbol, default in spec.checked.defaults.items()}
    values.update({s: e for s, e in settings.items() if not e.free_symbols})
    for symbol, expr in settings.items():  # M=N with N numeric: M numeric too
        resolved = expr.subs(values)
        if not resolved.free_symbols:
            values[symbol] = resolved
    return values


_numeric_values = numeric_values  # the name validate, lower and the tests import


def _apply(expr: sympy.Expr, settings) -> sympy.Expr:
    if not settings:
        return expr
    return factored(expr.subs(settings))


def _limit_at_sizes(forms: Asymptotics, growing: list[sympy.Symbol], numeric
                    ) -> tuple[sympy.Expr | None, tuple[str, ...]]:
    """The limit as the growing sizes left unset go to infinity together, the set ones at
    their values, and those sizes; (None, ()) where none is set or none is left."""
    free = [p for p in growing if p not in numeric]
    if not free or len(free) == len(growing):
        return None, ()
    found = forms.limit(free)
    if found is None:
        return None, ()
    return evaluate(found, numeric), tuple(map(str, free))


def _evaluate(expr: sympy.Expr, values) -> float | None:
    planned = rational_eval.value_at(expr, values)
    if planned is not None:
        return _as_float(sympy.Rational(*planned))
    if _moves_with_the_sizes_left(expr, values):
        return None  # what substituting would show, without building it (a Min is asked)
    result = expr.xreplace(values)  # sizes to numbers: no pattern for subs to match
    if result.free_symbols:
        return None
    return _as_float(sum_values(result) if has_sum(result) else result)  # Sums added up


def _moves_with_the_sizes_left(expr: sympy.Expr, values) -> bool:
    """Whether expr, with these values put in, still takes two values as the sizes left go
    from 2 to 3, by its plan: then what substituting gives is no number."""
    symbols = tuple(sorted(expr.free_symbols, key=text_key))
    left = [symbol for symbol in symbols if symbol not in values]
    fixed = [values[symbol] for symbol in symbols if symbol in values]
    if (not left or not all(symbol.is_integer and symbol.is_positive for symbol in left)
            or not all(value.is_Integer for value in fixed)):
        return False
    plan = rational_eval.compiled(expr, symbols)
    if plan is None:
        return False
    try:
        low, high = (plan([size if symbol in left else int(values[symbol])
                           for symbol in symbols]) for size in (2, 3))
    except ZeroDivisionError:
        return False
    return rational_eval.compare(low, high) != 0


def _as_float(value) -> float | None:
    value = sympy.sympify(value) if not isinstance(value, sympy.Basic) else value
    if value.has(sympy.zoo, sympy.nan):
        return None
    return float(value.evalf(30)) if value.is_finite is not False else float("inf")
