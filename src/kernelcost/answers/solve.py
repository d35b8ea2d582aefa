"""Stage: Cost x Machine -> crossings. At what size does the kernel cross a ridge point, and at
what size do its staged tiles or its working set stop fitting their level?

Intensity is rational in the sizes, so I_l(p) = I_crit is a polynomial equation in the
parameter p once the denominators are cleared. It is solved exactly, with the ridge kept as a
symbol `I_crit`: the root comes out as a closed form in I_crit and in the parameters left
unset (gemm_tiled, M = N = K: N* = I_crit*T/(T - 2*I_crit)), with the condition under which
it is a positive real (T > 2*I_crit). The machine's ridge is then put in for the value; where
the condition fails there is no crossing ("never"), and lim I (p -> oo) says where the
intensity goes instead (T/2 for gemm_tiled).

Capacity crossings are the same equation with bytes (module capacity). `solve_spec` answers
`kernelcost solve` from these alone: no verdict is needed, and the verdict model is not
loaded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

import sympy

from ..algebra.equations import Equation, equation
from ..algebra.numeric_roots import Root as _Root
from ..algebra.numeric_roots import shortened, sum_search
from ..algebra.numeric_sums import has_sum
from ..analysis.api import Analysis, Counted
from ..base.errors import Code, Diagnostic, MachineFileError, SizeError
from ..base.kinds import Side, WorkClass
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import RIDGE
from ..count.cost import Cost
from ..count.mma import on_units
from ..count.values import evaluate, exact
from ..hardware.machine import UNBOUNDING_LEVELS, Machine
from ..hardware.machinefile import load_machine
from .capacity import CapacityCrossing, capacity_crossings
from .not_run import refuse_not_run
from .unknowns import Values, integer_bound, other_values, parameter_symbol, real_variable


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
    compute_bound_side: Side | None  # None for never
    ridge: sympy.Rational  # I_crit of this machine and precision at this level
    known_limit: sympy.Expr | None = None  # `limit` with the spec's defaults put in
    searched_to: int | None = None  # a form with Sums: the largest size searched; `limit`
    # is I there
    edge: int | None = None  # a root searched numerically: the size nearest it that is
    # compute-bound (numeric_roots.Root.edge)

    @property
    def integer_bound(self) -> tuple[str, int] | None:
        """The integer sizes that are compute-bound at this level: (">=", 887) for a root of
        886.6 with compute above it, ("<=", n) for compute below; None when never or
        symbolic."""
        return integer_bound(self.value, self.compute_bound_side, self.edge,
                             self.compute_bound_side)


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
    # each closed-form root in the size itself, by root: every machine's ridge has the same
    # roots in closed form, and subs rebuilds the whole formula (the cubic's: hundreds of nodes)
    renamed: dict[sympy.Expr, sympy.Expr] = field(default_factory=dict, compare=False,
                                                  repr=False)

    def crossings(self, machine: Machine, precision: str) -> list[Crossing]:
        """One Crossing per positive real root at this machine's ridge, or one with value
        None (never)."""
        ridge = ridge_value(machine, precision, self.level, self.work_class)

        def crossing(root: _Root | None) -> Crossing:
            expr = None if root is None or root.expr is None else self._renamed(root.expr)
            return Crossing(
                machine=machine.id, precision=precision, level=self.level,
                parameter=str(self.symbol), value=None if root is None else root.value,
                expr=expr, condition=sympy.false if root is None else root.condition,
                limit=self.limit, compute_bound_side=None if root is None else root.side,
                ridge=ridge, known_limit=self.known_limit, searched_to=self.searched_to,
                edge=None if root is None else root.edge)

        return [crossing(root) for root in self.equation.roots_at(ridge)] or [crossing(None)]

    def _renamed(self, expr: sympy.Expr) -> sympy.Expr:
        # a root solved for the size holds it nowhere: subs would walk the whole formula to
        # give it back unchanged (the cubic's, some 7 ms)
        if expr not in self.renamed:
            self.renamed[expr] = (expr.subs(self.variable, self.symbol)
                                  if expr.has(self.variable) else expr)
        return self.renamed[expr]


def ridge_equation(cost: Cost, parameter: sympy.Symbol | str, level: str = Level.GLOBAL,
                   values: Values | None = None, *,
                   apply_defaults: bool = False) -> RidgeEquation:
    """I_level(parameter) = I_crit solved in closed form, for `crossings` on each machine.

    `values` sets other parameters (numbers, or expressions such as `{M: N, K: N}`); those
    left out stay symbolic, and so do spec defaults unless `apply_defaults` (a closed form in
    T says more than one at T = 128)."""
    symbol = parameter_symbol(cost, parameter)
    substitutions = other_values(cost, symbol, values, apply_defaults)
    if not apply_defaults and has_sum(evaluate(cost.intensity(level), substitutions)):
        # a sum that closes only once the tile sizes are numbers (floor_sums: a causal key
        # loop's ceil((i0 + Br) / Bc)) takes the defaults: a closed form beats a symbol
        substitutions = other_values(cost, symbol, values, True)
    if level not in cost.traffic:
        raise SizeError(Code.NO_TRAFFIC_AT_LEVEL, Diagnostic(
            None, f"kernel `{cost.kernel}` moves no bytes at `{level}`",
            f"levels with traffic: {', '.join(cost.levels)}"))
    intensity = evaluate(cost.intensity(level), substitutions)
    variable = real_variable(symbol)
    intensity = as_real(intensity, symbol, variable)
    limit = _limit(intensity, variable, cost.kernel, level)
    # the closed form keeps defaults symbolic; where the intensity goes is a number a user
    # reads, so the printers have it with the sizes known by default (d = 8192) put in
    known_limit = evaluate(limit, other_values(cost, symbol, values, True))
    # the units at the other sizes (the defaults put in); a tile that moves with the size
    # solved for keeps its contraction on the tensor units
    searched = sum_search(intensity, variable).searched_to if has_sum(intensity) else None
    main_class = on_units(cost, other_values(cost, symbol, values, True)).main_class
    return RidgeEquation(cost.kernel, level, symbol, variable, limit, known_limit,
                         equation(intensity, variable, RIDGE), main_class,
                         searched)


def as_real(expr: sympy.Expr, symbol: sympy.Symbol, variable: sympy.Symbol) -> sympy.Expr:
    """expr.subs(symbol, variable), the same expression, for a size and its positive real
    twin. subs rebuilds each floor and ceiling of the size through sympy's evaluation, which
    asks whether the argument lies in (0, 1], is an integer, holds integer terms: questions
    that with the size an integer found nothing to take out, and with a real one find
    nothing either (flash_attention_hopper's ceiling(S/176): 6 ms). Where expr holds only
    sums, products, powers, numbers, symbols and roundings, the roundings are rebuilt as they
    stand; anything else is subs'."""
    if not all(node.is_Add or node.is_Mul or node.is_Pow or node.is_Rational or node.is_Symbol
               or isinstance(node, (sympy.floor, sympy.ceiling))
               for node in sympy.preorder_traversal(expr)):
        return expr.subs(symbol, variable)
    return _rebuilt(expr, symbol, variable)


def _rebuilt(node: sympy.Expr, symbol: sympy.Symbol, variable: sympy.Symbol) -> sympy.Expr:
    if node == symbol:
        return variable
    if not node.args or not node.has(symbol):
        return node
    parts = [_rebuilt(part, symbol, variable) for part in node.args]
    if isinstance(node, (sympy.floor, sympy.ceiling)):
        return node.func(*parts, evaluate=False)
    return node.func(*parts)


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
    forms = Asymptotics(intensity)
    limit = forms.limit([variable])
    if limit is None and not forms.unreadable:  # sympy's limit of a form past the
        # operations the forms read ran for minutes (170 loops `for i in j..n`: 170 Max)
        try:
            limit = sympy.limit(intensity, variable, sympy.oo)
        except (NotImplementedError, ValueError, TypeError):
            limit = None
    if limit is None or limit.has(sympy.Limit, sympy.nan):
        alone = intensity.free_symbols <= {variable}
        raise SizeError(Code.NOT_IN_CLOSED_FORM, Diagnostic(
            None,
            f"cannot find where the intensity of `{kernel}` at `{level}` goes as "
            f"{variable} grows: {shortened(intensity)}",
            f"set {variable} (--set) for the verdict at a size" if alone else
            "set the other sizes (--set) so that its min and max settle"))
    return limit


# ------------------------------------------------------------------------ capacity crossings

# ---------------------------------------------------------------------- kernelcost solve

@record
class Solution:
    """`kernelcost solve` on one machine: ridge crossings per precision and level, and the
    sizes where keep scopes or the working set outgrow their level."""

    machine: Machine
    crossings: tuple[Crossing, ...]
    capacity: tuple[CapacityCrossing, ...]
    # the crossings with the spec's defaults put in (flash_attention's S = 1209.3 at d = 128,
    # Bc = 64, where `crossings` keep d and Bc symbolic); empty where no default is left
    at_defaults: tuple[Crossing, ...] = ()
    capacity_at_defaults: tuple[CapacityCrossing, ...] = ()  # the same for the capacities


def solve_spec(analysis: Analysis | Counted, parameter: str, machines: Sequence[str | Machine],
               precisions: Sequence[str] | None, levels: list[str] | None) -> list[Solution]:
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
    defaulted = [s for s in analysis.cost.defaults if s not in settings and s != symbol]
    at_defaults = {p: RidgeEquations(cost, symbol, settings, apply_defaults=True)
                   for p, cost in costs.items()} if defaulted else {}
    solutions: list[Solution] = []
    for machine in (m if isinstance(m, Machine) else load_machine(m) for m in machines):
        refuse_not_run(analysis.spec.kernel, analysis.cost, machine, "solve")
        for precision in precisions or []:
            machine.require_precision(precision)
        numbers = _crossings(at_defaults, costs, machine, chosen, levels) if at_defaults else []
        found = _closed_crossings(equations, costs, machine, chosen, levels, bool(numbers))
        capacity = capacity_crossings(costs[chosen[0]], symbol, machine, settings)
        held = capacity_crossings(costs[chosen[0]], symbol, machine, settings,
                                  apply_defaults=True) if at_defaults else []
        solutions.append(Solution(machine, tuple(found), tuple(capacity), tuple(numbers),
                                  tuple(held)))
    return solutions


def _closed_crossings(equations: dict[str, RidgeEquations], costs: dict[str, Cost],
                      machine: Machine, chosen: Sequence[str], levels: list[str] | None,
                      at_defaults: bool) -> list[Crossing]:
    """The crossings with the defaults left symbolic; none where they have no closed form
    (flash_attention_hopper's ceiling(S/Bc)) and the crossings at the defaults stand in:
    `set every other parameter` was the answer where every other one has a default."""
    try:
        return _crossings(equations, costs, machine, chosen, levels)
    except SizeError as error:
        if at_defaults and error.code == Code.NOT_IN_CLOSED_FORM:
            return []
        raise


def _crossings(equations: dict[str, RidgeEquations], costs: dict[str, Cost], machine: Machine,
               chosen: Sequence[str], levels: list[str] | None) -> list[Crossing]:
    """Every precision's and roof level's crossings on the machine."""
    found: list[Crossing] = []
    for precision in chosen:
        for level in levels or roof_levels(costs[precision], machine):
            if machine.bandwidth(level) is not None:
                found += equations[precision].at(level).crossings(machine, precision)
    return found
