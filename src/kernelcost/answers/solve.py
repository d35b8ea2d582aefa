"""Stage: Cost x Machine -> crossings. At what size does the kernel cross a ridge point, and at
what size do its staged tiles or its working set stop fitting their level?

Intensity is rational in the sizes, so I_l(p) = I_crit is a polynomial equation in the
parameter p once the denominators are cleared. It is solved exactly, with the ridge kept as a
symbol `I_crit`: the root comes out as a closed form in I_crit and in the parameters left
unset (gemm_tiled, M = N = K: N* = I_crit*T/(T - 2*I_crit)), with the condition under which
it is a positive real (T > 2*I_crit). The machine's ridge is then put in for the value; where
the condition fails there is no crossing ("never"), and lim I (p -> oo) says where the
intensity goes instead (T/2 for gemm_tiled).

Capacity crossings are the same equation with bytes: held_B(p) = capacity (a keep scope
against its level, per SM for shared and registers), working set(p) = L2 capacity.
`solve_spec` answers `kernelcost solve` from these alone: no verdict is needed, and the
verdict model is not loaded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field

import sympy

from ..algebra.equations import CAPACITY, RIDGE, Equation, equation, solve_equal
from ..algebra.numeric_roots import Root as _Root
from ..algebra.numeric_roots import shortened, sum_search
from ..algebra.numeric_sums import has_sum
from ..algebra.witnesses import exact_floor
from ..analysis.api import Analysis, Counted
from ..base.errors import Code, Diagnostic, KcostError, MachineFileError, SizeError, did_you_mean
from ..base.kinds import Per, WorkClass
from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost
from ..count.mma import on_units
from ..count.values import as_symbol, evaluate, exact, parameter_values
from ..hardware.machine import UNBOUNDING_LEVELS, Machine
from ..hardware.machinefile import load_machine
from .not_run import refuse_not_run

# parameters (symbols or names) to numbers or expressions (`{M: N, K: N}`)
Values = Mapping[sympy.Symbol | str, object]


@record
class Crossing:
    """Where I_l(parameter) = I_crit on one machine, precision and level, or never."""

    machine: str
    precision: str
    level: str
    parameter: str
    value: sympy.Expr | None  # the root at this machine's ridge; None: never crosses
    expr: sympy.Expr | None  # the root in closed form, in I_crit and the unset parameters
    condition: sympy.Basic  # where `expr` is a positive real root (sympy.true: always)
    limit: sympy.Expr  # lim I_l as parameter -> oo, FLOP/B
    compute_bound_side: str | None  # above | below the root; None for never
    ridge: sympy.Rational  # I_crit of this machine and precision at this level
    known_limit: sympy.Expr | None = None  # `limit` with the spec's defaults put in
    searched_to: int | None = None  # a form with Sums: the largest size searched; `limit`
    # is I there

    @property
    def integer_bound(self) -> tuple[str, int] | None:
        """The integer sizes that are compute-bound at this level: (">=", 887) for a root of
        886.6 with compute above it, ("<=", n) for compute below; None when never or
        symbolic."""
        return _integer_bound(self.value, self.compute_bound_side)


@record
class CapacityCrossing:
    """Where the bytes a keep scope holds (or the whole working set) reach a capacity."""

    machine: str
    what: str  # "keep scope 0 (A, B)" or "working set"
    level: str
    parameter: str
    held_B: sympy.Expr  # bytes held, as a function of the parameter
    capacity_B: sympy.Rational
    capacity_per: Per  # what one capacity_B covers
    value: sympy.Expr | None  # the size where held_B = capacity; None: never
    expr: sympy.Expr | None  # the root in closed form, in capacity_B and the unset parameters
    condition: sympy.Basic  # where `expr` holds; the unsolved equation when none was found
    exceeds_side: str | None  # above | below the root: where held_B > capacity
    fits_everywhere: bool | None  # for never: True if it always fits, False if never does

    @property
    def integer_bound(self) -> tuple[str, int] | None:
        """The integer sizes that fit: ("<=", 241) for a tile whose bytes reach the capacity
        at T = 241.6; None when never or symbolic."""
        inside = (None if self.exceeds_side is None
                  else {"above": "below", "below": "above"}.get(self.exceeds_side))
        return _integer_bound(self.value, inside)


def _integer_bound(value: sympy.Expr | None, side: str | None) -> tuple[str, int] | None:
    """The integers on `side` of a root, the root included: (">=", ceil) above, ("<=",
    floor) below."""
    if value is None or side is None:
        return None
    value = sympy.sympify(value)
    whole = exact_floor(-value) if side == "above" else exact_floor(value)
    if whole is not None:
        return (">=", -whole) if side == "above" else ("<=", whole)
    if not value.is_number or not value.is_finite or not value.is_real:
        return None
    if side == "above":
        return ">=", int(sympy.ceiling(value))
    return "<=", int(sympy.floor(value))


# --------------------------------------------------------------------------- ridge crossings

@record
class RidgeEquation:
    """I_level(parameter) = I_crit with the ridge kept as the symbol I_crit: what every machine
    and precision share (the intensity, its limit, the closed-form roots), solved once."""

    kernel: str
    level: str
    symbol: sympy.Symbol  # the size solved for
    variable: sympy.Symbol  # its positive real twin, so that non-integer roots survive
    limit: sympy.Expr  # lim I_level as the size grows
    known_limit: sympy.Expr | None  # the same with the spec's defaults put in
    equation: Equation
    work_class: WorkClass = WorkClass.TENSOR  # whose ceiling is the peak of the ridge
    # (cost.main_class)
    searched_to: int | None = None  # a form with Sums: where its numeric search stopped

    def crossings(self, machine: Machine, precision: str) -> list[Crossing]:
        """One Crossing per positive real root at this machine's ridge, or one with value
        None (never)."""
        ridge = ridge_value(machine, precision, self.level, self.work_class)

        def crossing(root: _Root | None) -> Crossing:
            expr = None if root is None or root.expr is None else root.expr.subs(
                self.variable, self.symbol)
            return Crossing(
                machine=machine.id, precision=precision, level=self.level,
                parameter=str(self.symbol), value=None if root is None else root.value,
                expr=expr, condition=sympy.false if root is None else root.condition,
                limit=self.limit, compute_bound_side=None if root is None else root.side,
                ridge=ridge, known_limit=self.known_limit, searched_to=self.searched_to)

        return [crossing(root) for root in self.equation.roots_at(ridge)] or [crossing(None)]


def ridge_equation(cost: Cost, parameter: sympy.Symbol | str, level: str = Level.GLOBAL,
                   values: Values | None = None, *,
                   apply_defaults: bool = False) -> RidgeEquation:
    """I_level(parameter) = I_crit solved in closed form, for `crossings` on each machine.

    `values` sets other parameters (numbers, or expressions such as `{M: N, K: N}`); those
    left out stay symbolic, and so do spec defaults unless `apply_defaults` (a closed form in
    T says more than one at T = 128)."""
    symbol = parameter_symbol(cost, parameter)
    substitutions = _other_values(cost, symbol, values, apply_defaults)
    if level not in cost.traffic:
        raise SizeError(Code.NO_TRAFFIC_AT_LEVEL, Diagnostic(
            None, f"kernel `{cost.kernel}` moves no bytes at `{level}`",
            f"levels with traffic: {', '.join(cost.levels)}"))
    intensity = evaluate(cost.intensity(level), substitutions)
    variable = _real_variable(symbol)
    intensity = intensity.subs(symbol, variable)
    limit = _limit(intensity, variable, cost.kernel, level)
    # the closed form keeps defaults symbolic; where the intensity goes is a number a user
    # reads, so the printers have it with the sizes known by default (d = 8192) put in
    known_limit = evaluate(limit, _other_values(cost, symbol, values, True))
    # the units at the other sizes (the defaults put in); a tile that moves with the size
    # solved for keeps its contraction on the tensor units
    searched = sum_search(intensity, variable).searched_to if has_sum(intensity) else None
    main_class = on_units(cost, _other_values(cost, symbol, values, True)).main_class
    return RidgeEquation(cost.kernel, level, symbol, variable, limit, known_limit,
                         equation(intensity, variable, RIDGE), main_class,
                         searched)


def ridge_value(machine: Machine, precision: str, level: str,
                work_class: str = WorkClass.TENSOR) -> sympy.Rational:
    """I_crit = P / B_level, exact, FLOP/B, with P the ceiling of `work_class` (the kernel's
    main class, cost.main_class)."""
    bandwidth = machine.bandwidth(level)
    if bandwidth is None:
        raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
            None, f"{machine.id} has no bandwidth figure for `{level}`"))
    return exact(machine.peak(precision, work_class)) / exact(bandwidth)


def ridge_crossings(cost: Cost, parameter: sympy.Symbol | str, machine: Machine,
                    precision: str | None = None, level: str = Level.GLOBAL,
                    values: Values | None = None, *,
                    apply_defaults: bool = False) -> list[Crossing]:
    """Solve I_level(parameter) = I_crit on `machine` at `precision` (the spec's own by
    default): `ridge_equation(...).crossings(machine, precision)`. Several machines or
    precisions share one `ridge_equation`."""
    prepared = ridge_equation(cost, parameter, level, values, apply_defaults=apply_defaults)
    return prepared.crossings(machine, precision or cost.precision)


@record(frozen=False)
class RidgeEquations:
    """The ridge equation of each level in one size, solved on first use and then shared by
    every machine and precision."""

    cost: Cost
    parameter: sympy.Symbol
    settings: dict[sympy.Symbol, sympy.Expr]
    apply_defaults: bool = True
    solved: dict[str, RidgeEquation] = field(default_factory=dict)

    def at(self, level: str) -> RidgeEquation:
        if level not in self.solved:
            self.solved[level] = ridge_equation(self.cost, self.parameter, level, self.settings,
                                                apply_defaults=self.apply_defaults)
        return self.solved[level]


def roof_levels(cost: Cost, machine: Machine) -> list[str]:
    """The levels whose bandwidth is a roof on this machine, slowest first."""
    return [level for level in cost.levels
            if level not in UNBOUNDING_LEVELS and machine.bandwidth(level)]


def _limit(intensity: sympy.Expr, variable: sympy.Symbol, kernel: str,
           level: str) -> sympy.Expr:
    """lim I as the parameter grows. Max and Min settle first (asymptotic.eventual): sympy's
    series expansion has no rule for them and raises NotImplementedError."""
    from ..count.asymptotic import Asymptotics

    if has_sum(intensity) and intensity.free_symbols == {variable}:
        search = sum_search(intensity, variable)  # no closed form: I where the search ends
        return sympy.Float(search.values[search.searched_to], 6)
    limit = Asymptotics(intensity).limit([variable])
    if limit is None:
        try:
            limit = sympy.limit(intensity, variable, sympy.oo)
        except (NotImplementedError, ValueError, TypeError):
            limit = None
    if limit is None or limit.has(sympy.Limit, sympy.nan):
        raise SizeError(Code.NOT_IN_CLOSED_FORM, Diagnostic(
            None,
            f"cannot find where the intensity of `{kernel}` at `{level}` goes as "
            f"{variable} grows: {shortened(intensity)}",
            "set the other sizes (--set) so that its min and max settle"))
    return limit


# ------------------------------------------------------------------------ capacity crossings

def capacity_crossings(cost: Cost, parameter: sympy.Symbol | str, machine: Machine,
                       values: Values | None = None,
                       *, element_bytes: Mapping[str, sympy.Expr] | None = None,
                       apply_defaults: bool = False) -> list[CapacityCrossing]:
    """Sizes where each keep scope's held bytes reach its level's capacity (per SM for shared
    and registers), and, given `element_bytes` (tensor -> bytes), where the working set
    reaches the L2 capacity: below that size the L2 slope binds (the chapter's cache caveat)."""
    symbol = parameter_symbol(cost, parameter)
    substitutions = _other_values(cost, symbol, values, apply_defaults)
    variable = _real_variable(symbol)
    results: list[CapacityCrossing] = []
    for scope in cost.scopes:
        capacity = machine.capacity(scope.level)
        if capacity is None:
            continue
        held = evaluate(scope.held_bytes * scope.stages, substitutions).subs(symbol, variable)
        what = f"keep scope {scope.index} ({', '.join(scope.tensors)})"
        results += _capacity_results(machine, what, scope.level, symbol, variable, held)
    for level, homed in _on_chip_needs(cost).items():
        capacity = machine.capacity(level)
        if capacity is None:
            continue
        held = evaluate(homed, substitutions).subs(symbol, variable)
        results += _capacity_results(machine, f"tensors in {level}", level, symbol, variable,
                                     held)
    working_set = evaluate(cost.working_set_bytes(element_bytes), substitutions)
    l2_capacity = machine.capacity(Level.L2)
    if l2_capacity is not None:
        results += _capacity_results(machine, "working set", Level.L2, symbol, variable,
                                     working_set.subs(symbol, variable))
    return results


def _on_chip_needs(cost: Cost) -> dict[str, sympy.Expr]:
    """What one block holds on chip besides its keep scopes: the grid's per-block bytes
    (local arrays, stages included) for a parallel spec, the tensors homed there otherwise."""
    if cost.grid is not None:
        on_chip = cost.grid.on_chip
        return {Level.SHARED: on_chip[Level.SHARED]} if Level.SHARED in on_chip else {}
    return {level: held for level, held in cost.homed.items() if level in (Level.SHARED,
                                                                           Level.REGISTERS)}


def _capacity_results(machine: Machine, what: str, level: str, symbol: sympy.Symbol,
                      variable: sympy.Symbol, held: sympy.Expr) -> list[CapacityCrossing]:
    """Where `held` (in `variable`, standing for `symbol`) reaches the capacity of `level`,
    which the callers asked of the machine before working out `held`."""
    capacity_figure, capacity_per = machine.capacity(level), machine.capacity_per(level)
    assert capacity_figure is not None  # the callers pass levels with a capacity only
    assert capacity_per is not None  # a level with a capacity says what one covers
    capacity = exact(capacity_figure)
    try:
        roots = solve_equal(held, variable, CAPACITY, capacity)
    except KcostError:
        # no closed form (min/max in the bytes) with other parameters unset: say so, with the
        # equation left unsolved as the condition, rather than drop the check
        return [CapacityCrossing(
            machine=machine.id, what=what, level=level, parameter=str(symbol),
            held_B=held.subs(variable, symbol), capacity_B=capacity, capacity_per=capacity_per,
            value=None, expr=None, condition=sympy.Eq(held.subs(variable, symbol), capacity),
            exceeds_side=None, fits_everywhere=None)]

    def result(root: _Root | None) -> CapacityCrossing:
        fits_everywhere = None
        if root is None:
            fits_everywhere = _decide_everywhere(held, variable, capacity)
        return CapacityCrossing(
            machine=machine.id, what=what, level=level, parameter=str(symbol),
            held_B=held.subs(variable, symbol), capacity_B=capacity, capacity_per=capacity_per,
            value=None if root is None else root.value,
            expr=None if root is None or root.expr is None else root.expr.subs(variable, symbol),
            condition=sympy.false if root is None else root.condition,
            exceeds_side=None if root is None else root.side,
            fits_everywhere=fits_everywhere)

    return [result(root) for root in roots] or [result(None)]


def _decide_everywhere(held: sympy.Expr, variable: sympy.Symbol,
                       capacity: sympy.Rational) -> bool | None:
    """With no crossing, the side is the same for every size: probe one."""
    probe = held.subs(variable, 1)
    if not probe.is_number:
        return None
    return bool(probe <= capacity)


# ---------------------------------------------------------------------- kernelcost solve

@record
class Solution:
    """`kernelcost solve` on one machine: ridge crossings per precision and level, and the
    sizes where keep scopes or the working set outgrow their level."""

    machine: Machine
    crossings: tuple[Crossing, ...]
    capacity: tuple[CapacityCrossing, ...]


def solve_spec(analysis: Analysis | Counted, parameter: str, machines: Sequence[str | Machine],
               precisions: list[str] | None, levels: list[str] | None) -> list[Solution]:
    """Ridge crossings in `parameter` per machine, precision (the spec's own by default) and
    level (every roof by default), and capacity crossings per machine; spec defaults stay
    symbolic. Each precision counts the spec with its element types (Spec.at_precision);
    capacities are those of the first."""
    symbol = parameter_symbol(analysis.cost, parameter)
    if symbol in analysis.settings:
        raise SizeError(Code.SET_AND_VARIED, Diagnostic(
            None, f"`{parameter}` is both set and solved for", f"drop --set {parameter}=..."))
    settings = analysis.settings
    chosen = precisions or [analysis.cost.precision]
    costs = {p: analysis.cost if analysis.spec.at_precision(p) is analysis.spec
             else analysis.spec.at_precision(p).cost(analysis.reuse) for p in chosen}
    equations = {p: RidgeEquations(cost, symbol, settings, apply_defaults=False)
                 for p, cost in costs.items()}
    solutions: list[Solution] = []
    for machine in (m if isinstance(m, Machine) else load_machine(m) for m in machines):
        refuse_not_run(analysis.spec.kernel, analysis.cost, machine, "solve")
        found: list[Crossing] = []
        for precision in precisions or []:
            machine.require_precision(precision)
        for precision in chosen:
            for level in levels or roof_levels(costs[precision], machine):
                if machine.bandwidth(level) is None:
                    continue
                found += equations[precision].at(level).crossings(machine, precision)
        capacity = capacity_crossings(costs[chosen[0]], symbol, machine, settings)
        solutions.append(Solution(machine, tuple(found), tuple(capacity)))
    return solutions


# ------------------------------------------------------------------------------- helpers

def _real_variable(symbol: sympy.Symbol) -> sympy.Symbol:
    """The parameter as a positive real of the same name: sympy.solve drops the roots an
    integer symbol cannot take, and a crossing at N = 886.6 is still the answer."""
    return sympy.Symbol(str(symbol), positive=True)


def parameter_symbol(cost: Cost, parameter: sympy.Symbol | str) -> sympy.Symbol:
    """The size symbol of a parameter name (or symbol), or a KcostError naming the choices."""
    symbol = as_symbol(parameter)
    if symbol not in cost.parameters:
        names = [str(p) for p in cost.parameters]
        raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
            None, f"`{symbol}` is not a parameter of `{cost.kernel}`",
            did_you_mean(str(symbol), names)
            or f"parameters: {', '.join(names)}"))
    return symbol


def _other_values(cost: Cost, symbol: sympy.Symbol, values: Values | None,
                  apply_defaults: bool) -> dict[sympy.Symbol, sympy.Expr]:
    if symbol in {as_symbol(key) for key in (values or {})}:
        raise SizeError(Code.SET_AND_VARIED, Diagnostic(
            None, f"`{symbol}` is both solved for and set"))
    # a default of the solved parameter does not apply
    return parameter_values(cost, values, apply_defaults, exclude=symbol)
