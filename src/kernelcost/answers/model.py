"""Stage: Cost x Machine x precision -> Verdict. The roofline model, in exact sympy arithmetic.

For each memory level with traffic Q_l the ridge point is I_crit = P / B_l, where P is the
kernel's main ceiling at the precision: the tensor peak when it runs a contraction on the
tensor units, else the vector FMA peak (cost.main_work_class). Which contractions run on the
tensor units depends on the sizes (mma.on_units): the verdict decides it at its values.
The kernel's intensity I_l = W / Q_l against that ridge gives the regime and the chapter's
zone. The time bound takes every ceiling at once:

    t_min = max( max over work classes W_c / P_c , max over levels Q_l / B_l )

and the largest term's roof (the global bandwidth, the bf16 tensor peak, the sfu rate) is
what binds.
The launch overhead is kept apart: `t_min` is the chapter's bound without it, and
`t_min_with_launch` adds it. Ridges, regimes and `t_min` take the machine's figures as given
(the data sheet's, the chapter's); `t_bound` takes the same terms (quantised for a grid: the
grid's own "bound" terms) with each compute and on-chip roof at the maximum clock (module
clocks), so that no run can beat it.

Machine figures enter as exact rationals (3.35e12 -> 335 * 10**10), so ridges such as
990e12 / 3.35e12 = 19800/67 stay exact and a report rounds only when it prints. Expressions
stay symbolic in every parameter left unset; fields that need a number (zone, regime, bound)
are None until the parameters they depend on are set."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import sympy

from ..algebra.decide import largest
from ..algebra.held_quotients import cancelled_quotient
from ..base.drawable import Drawable
from ..base.errors import Code, Diagnostic, MachineFileError, SizeError
from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost
from ..count.mma import on_units
from ..count.values import evaluate, exact, parameter_values
from ..gpu.derates import Derate, derated
from ..gpu.effects.context import EffectContext
from ..gpu.effects.registry import call_derates, model_derates
from ..gpu.execution import GridVerdict, grid_verdict
from ..gpu.fits import Fit, fits_within, nest_misfits, optional_exact, scope_fits
from ..gpu.floor import Floor, floor
from ..gpu.occupancy import Misfit
from ..gpu.order import check_order, divisibility_met
from ..gpu.support import Unsupported, unsupported
from ..gpu.warm import WarmL2, served_cost, warm_l2
from ..hardware.clocks import at_max_clock_terms
from ..hardware.machine import Machine, Roof
from .level_terms import (
    LevelVerdict,
    Substitutions,
    TimeTerm,
    binding_term,
    level_verdicts,
    nest_model_terms,
    traffic_terms,
    work_terms,
)
from .regimes import ComputeAdvice, Regime, compute_advice, regime_of_kind


@record
class Verdict(Drawable):
    """Everything the model says about one kernel on one machine at one precision."""

    machine: str  # machine id
    precision: str
    values: dict[sympy.Symbol, sympy.Expr]  # the parameter values used (defaults included)
    work_FLOP: sympy.Expr  # W, all classes
    levels: tuple[LevelVerdict, ...]  # levels with traffic and a bandwidth, slowest first
    unmodelled_levels: tuple[str, ...]  # levels with traffic but no bandwidth on the machine
    terms: tuple[TimeTerm, ...]
    t_min: sympy.Expr  # s: max over terms, WITHOUT launch overhead (the chapter's t_min)
    launch_overhead_s: sympy.Rational | None
    t_min_with_launch: sympy.Expr  # s: t_min + launch overhead (t_min when none is known)
    binding: TimeTerm | None  # the term that binds; None while undecided
    regime: Regime | None  # memory-bound when a bandwidth binds, compute-bound when a peak does,
    # under-filled when a grid of fewer blocks than SMs meets a per-SM roof (grid.fill)
    fits: tuple[Fit, ...]
    working_set_B: sympy.Expr | None  # bytes of every tensor's footprint, when known
    l2_capacity_B: sympy.Rational | None
    working_set_fits_l2: bool | None  # False: the chapter's cache caveat does not apply
    grid: GridVerdict | None = None  # the execution model of a parallel spec
    nest_misfits: tuple[Misfit, ...] = ()  # without a grid: on-chip keeps or tensors too big
    derates: tuple[Derate, ...] = ()  # what lowers the roof: estimates, in t_model only
    warm_l2: WarmL2 | None = None  # tensors a previous kernel left in L2 (the stated state)
    nest_t_model: sympy.Expr | None = None  # without a grid, t_model when it is not t_min
    nest_terms: tuple[TimeTerm, ...] = ()  # without a grid, t_model's terms before derates
    compute_advice: ComputeAdvice = ComputeAdvice()  # the compute zone's lever on this machine
    bound_terms: tuple[TimeTerm, ...] = ()  # `terms` at the maximum clock (module clocks)
    t_max_clock: sympy.Expr | None = None  # s: max over bound_terms; t_bound where it fits
    bound_at_max_clock: Roof | None = None  # the roof of the term that sets it; None while
    # undecided
    floor: Floor | None = None  # t_floor and its terms (module floor)
    unsupported: tuple[Unsupported, ...] = ()  # `target` and `needs` the machine does not meet

    @functools.cached_property
    def performance(self) -> sympy.Expr:
        """Attainable FLOP/s: W / t_min (on first use: the reports print the levels' own)."""
        if self.work_FLOP == 0:
            return sympy.Integer(0)
        return cancelled_quotient(self.work_FLOP, self.t_min)

    @property
    def t_floor(self) -> sympy.Expr | None:
        """What no implementation of the computation beats on this machine from a cold L2
        (s): compulsory bytes on HBM, work on the fastest legal units. None: no term."""
        return None if self.floor is None else self.floor.seconds

    @property
    def misfits(self) -> tuple[Misfit, ...]:
        """On-chip levels one block (the whole nest, without a grid) needs more of than an
        SM or a block has: such a kernel cannot run as written, and has no time."""
        if self.grid is not None:
            return self.grid.occupancy.misfits
        return self.nest_misfits

    @property
    def runs(self) -> bool:
        """Whether the machine runs the spec as written: its schedule fits (no misfit) and
        its architecture and features are the machine's (module support)."""
        return not self.misfits and not self.unsupported

    @property
    def t_bound(self) -> sympy.Expr | None:
        """A lower bound on the kernel's time (s): no run can beat it, t_min's terms with
        every compute and on-chip roof at the maximum clock. None: does not fit."""
        if not self.runs:
            return None
        return self.t_min if self.t_max_clock is None else self.t_max_clock

    @property
    def t_model(self) -> sympy.Expr | None:
        """The estimate (s): the bound, with the waves' L2 reuse and the derates for a
        parallel spec, and a warm L2 only where it fits usable L2 (module warm)."""
        if not self.runs:
            return None
        if self.grid is not None:
            return self.grid.t_model
        return self.t_min if self.nest_t_model is None else self.nest_t_model

    def level(self, name: str) -> LevelVerdict:
        for level_verdict in self.levels:
            if level_verdict.level == name:
                return level_verdict
        raise KeyError(name)

    @property
    def bound(self) -> Roof | None:
        """The binding term's roof; None while undecided."""
        return None if self.binding is None else self.binding.roof


# ------------------------------------------------------------------------------ the model

def _refuse_no_blocks(cost: Cost, values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A grid with no block at the sizes (a launch CUDA refuses; every per-block share would
    divide by zero): lang.sizes.refuse_empty_grid places it for the command line."""
    assert cost.grid is not None
    blocks = evaluate(cost.grid.blocks, values)
    if blocks.is_number and blocks <= 0:
        raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
            None, f"the grid of `{cost.kernel}` has {blocks} blocks at these sizes",
            "a launch needs at least one block: give sizes where the parallel loops run"))


def verdict(cost: Cost, machine: Machine, precision: str | None = None,
            values: Mapping[sympy.Symbol | str, object] | None = None, *,
            apply_defaults: bool = True,
            element_bytes: Mapping[str, sympy.Expr] | None = None,
            warm: tuple[str, ...] = ()) -> Verdict:
    """The roofline verdict of `cost` on `machine` at `precision` (the spec's own by default).

    `values` maps parameters (Symbols or their names) to numbers or expressions (`{M: N}`
    makes a square problem); parameters left out stay symbolic, except those with a default
    in the spec when `apply_defaults`. `element_bytes` (tensor -> bytes per element) enables
    the working-set check against L2. `warm`: tensors a previous kernel left in L2 (module
    warm: t_bound and t_model read them from L2 where it can hold them)."""
    precision = precision or cost.precision
    substitutions = parameter_values(cost, values, apply_defaults)
    cost = _on_units(cost, substitutions)
    work_by_class = {work_class: evaluate(amount, substitutions)
                     for work_class, amount in cost.work.items() if amount != 0}
    total_work = sympy.Add(*work_by_class.values())
    main_ceiling = machine.ceiling(precision, cost.main_class)
    peak = exact(main_ceiling.peak_FLOPps)
    state = warm_l2(cost, machine, substitutions, warm) if warm else None
    cold_cost = cost
    if state is not None:
        cost = served_cost(cost, state.bound_B)
    levels, unmodelled = level_verdicts(cost, machine, substitutions, total_work, peak,
                                         main_ceiling.roof)
    grid, nest_t_model, terms = None, None, None
    if cost.grid is not None:  # each class's ceiling asked first, as work_terms asks it
        _refuse_no_blocks(cost, substitutions)
        _ = [machine.ceiling(precision, work_class) for work_class in work_by_class]
        grid = grid_verdict(cold_cost, machine, precision, substitutions, work_by_class, state)
        if grid.t_bound is not None:  # the quantised bound is the kernel's t_min
            terms = [TimeTerm(t.roof, t.key, t.rate, t.amount, t.seconds)
                     for t in grid.bound_terms]
    if terms is None:  # the flat roofline's: a nest's, or a grid's that does not fit
        terms = work_terms(work_by_class, machine, precision) + traffic_terms(levels)
    if not terms:
        raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
            None,
            f"kernel `{cost.kernel}` has neither work nor traffic "
            f"that {machine.id} has a ceiling for"))
    t_min = largest(*[term.seconds for term in terms])
    nest_terms: tuple[TimeTerm, ...] = ()
    if cost.grid is None:  # t_model's terms: a warm L2 that t_bound counts and t_model not
        nest_terms = tuple(terms) if state is None or state.model_B == state.bound_B else \
            nest_model_terms(served_cost(cold_cost, state.model_B), machine, precision,
                             substitutions, work_by_class)
    binding = binding_term(terms, t_min)
    bound_terms = at_max_clock_terms(terms, machine, precision)
    t_max_clock = largest(*[term.seconds for term in bound_terms])
    fast_binding = binding_term(bound_terms, t_max_clock)
    overhead = None if machine.launch_overhead_s is None else exact(machine.launch_overhead_s)
    working_set = evaluate(cost.working_set_bytes(element_bytes), substitutions)
    l2_capacity = optional_exact(machine.capacity(Level.L2))
    misfits = (grid.occupancy.misfits if grid is not None
               else nest_misfits(cost, machine, substitutions))
    lacks = unsupported(cost, machine)
    at = lambda expr: evaluate(expr, substitutions)  # noqa: E731 (one expression, twice)
    nest_derates = () if cost.grid is not None or misfits or lacks else model_derates(
        EffectContext(cold_cost, machine, at, terms=nest_terms))
    if nest_terms and (nest_derates or nest_terms != tuple(terms)):
        nest_t_model = largest(*[derated(term, nest_derates).seconds for term in nest_terms])
    t_kernel = (None if misfits or lacks else grid.t_model if grid is not None
                else t_min if nest_t_model is None else nest_t_model)
    # a spec the machine does not run has no t_model, so nothing lowers it
    derates = () if lacks else (*(grid.derates if grid is not None else nest_derates),
                                *call_derates(EffectContext(cold_cost, machine, at,
                                                            t_kernel=t_kernel)))
    # the floor and the bound at the maximum clock; t_model at the figures as given
    floored = floor(cold_cost.compulsory_B, machine.at_max_clock, precision, substitutions,
                    work_by_class, state)
    if divisibility_met(cost.divisibility, substitutions):
        check_order(machine.id, precision, substitutions, floored.seconds,
                    None if misfits or lacks else t_max_clock, t_kernel)
    regime = None if binding is None else regime_of_kind(binding.kind)
    if grid is not None and grid.fill is not None and grid.fill.binds:
        regime = Regime.UNDERFILLED
    return Verdict(
        machine=machine.id,
        precision=precision,
        values=substitutions,
        work_FLOP=total_work,
        levels=tuple(levels),
        unmodelled_levels=tuple(unmodelled),
        terms=tuple(terms),
        t_min=t_min,
        launch_overhead_s=overhead,
        t_min_with_launch=t_min + (overhead or 0),
        binding=binding,
        regime=regime,
        fits=scope_fits(cost, machine, substitutions),
        working_set_B=working_set,
        l2_capacity_B=l2_capacity,
        working_set_fits_l2=fits_within(working_set, l2_capacity),
        grid=grid,
        nest_misfits=() if grid is not None else misfits,
        derates=derates,
        warm_l2=state,
        nest_t_model=nest_t_model,
        nest_terms=nest_terms,
        compute_advice=compute_advice(machine, main_ceiling.roof,
                                      contractions=bool(cost.contractions)),
        unsupported=lacks,
        bound_terms=tuple(bound_terms),
        t_max_clock=t_max_clock,
        bound_at_max_clock=None if fast_binding is None else fast_binding.roof,
        floor=floored,
    )


_ON_UNITS: dict[tuple[int, tuple[object, ...]], tuple[Cost, Cost]] = {}  # by id, with the cost


def _on_units(cost: Cost, substitutions: Substitutions) -> Cost:
    """on_units(cost, substitutions), one object for every machine (its working set, a
    cached property, then found once): a Cost hashes every closed form it holds."""
    key = (id(cost), tuple(substitutions.items()))
    if key not in _ON_UNITS or _ON_UNITS[key][0] is not cost:
        if len(_ON_UNITS) >= 64:
            _ON_UNITS.clear()
        _ON_UNITS[key] = (cost, on_units(cost, substitutions))
    return _ON_UNITS[key][1]
