"""Stage: the GPU execution model of a parallel spec on one machine -> GridVerdict.

Two times, kept apart (the third, t_floor, knows no grid: module floor):
- t_bound, a lower bound no run can beat: every per-SM roof (each work class on its ceiling,
  shared memory) taken by the busiest SM, which runs at least ceil(B / SMs) blocks (a
  stream-K grid: its busiest workers' k-steps, and its partial tiles' fix-up at global and
  L2 in both times, gpu.stream_split); L2
  traffic (the blocks' fills and their distinct elements outside a keep) on the L2
  bandwidth; compulsory global traffic (each element once) on the global bandwidth.
- t_model, the estimate: global traffic from the waves (what each wave's blocks touch
  together, when a step of it fits in L2; the fills otherwise) and split-K's fix-up (the
  partial tiles, count.fixup, in both times), the rest as in t_bound.
  The wave estimate never goes below the compulsory bytes of t_bound: every run moves those
  (each input element read once, each output written once), and an estimate under them
  (a warm tensor's reads served once per wave) would put t_model under t_bound. Where it
  falls under them, t_model takes the compulsory bytes and says so (`compulsory_floor`).
The register file sets no roof (it feeds its units at their rate); it limits occupancy.
A grid of fewer blocks than SMs is named (module fill)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from ..algebra.decide import proven_less_than
from ..algebra.floor_sums import summed_at_sizes
from ..algebra.quotients import cancel
from ..base.kinds import Compulsory, EffectCause, term_key
from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost, GridCost
from ..count.values import exact
from ..hardware.machine import PER_SM_LEVELS, Machine, Roof, level_roof
from .derates import Derate, derate_steps, derated
from .effects.context import EffectContext
from .effects.latency import latency_unknown
from .effects.registry import model_derates
from .fill import GridFill, grid_fill
from .grid_terms import (
    GridTerm,
    largest_term,
    largest_time,
    share_varies,
    summed,
    worked_tail_share,
)
from .occupancy import Occupancy, occupancy
from .split_grid import unsplit
from .stream_split import StreamKSplit, busiest_sm_tiles, stream_k_at, with_fixup
from .transfer import Transfer, transfers
from .unclassified import Fallback, Stage, Unclassed
from .warm import WarmL2, served_cost, wave_served_B

if TYPE_CHECKING:  # numpy: the waves load only where a grid meets a machine
    from .waves import WaveEstimate

Values = dict[sympy.Symbol, sympy.Expr]  # parameters to their values
# per-block amount -> what the busiest SM runs at least (None: no share is known)
Share = Callable[[sympy.Expr], sympy.Expr | None]


@record
class GlobalCount:
    """How t_model counted global traffic: by the wave estimate, less the reads a warm L2
    served, or compulsory traffic as in t_bound, and why."""

    estimate: WaveEstimate | None = None  # None: compulsory traffic
    global_B: sympy.Expr = sympy.Integer(0)  # the estimate's bytes from global memory
    warm_tensors: tuple[str, ...] = ()  # whose reads a warm L2 served, off the estimate
    compulsory: Compulsory | None = None  # without an estimate: why
    unclassified: Unclassed | None = None  # Compulsory.CLASSES: why the blocks fall into
    # no classes


@record
class GridVerdict:
    occupancy: Occupancy
    bound_terms: tuple[GridTerm, ...]
    t_bound: sympy.Expr | None  # s; None when the block does not fit
    bound: Roof | None  # the roof of the term that sets t_bound
    model_terms: tuple[GridTerm, ...]
    t_model: sympy.Expr | None
    model_bound: Roof | None
    global_count: GlobalCount  # how t_model counted global traffic
    flat_terms: tuple[GridTerm, ...]  # the roofline's terms without blocks and waves
    equal_blocks: bool
    derates: tuple[Derate, ...] = ()  # estimates in t_model only, never in t_bound
    latency_unknown: tuple[str, ...] = ()  # levels whose load latency the machine does not cite
    transfers: tuple[Transfer, ...] = ()  # the lanes accesses in sectors and bank wavefronts
    compulsory_floor: bool = False  # t_model's global bytes raised to t_bound's compulsory
    # ones, which the wave estimate fell under
    fill: GridFill | None = None  # fewer blocks than SMs: what the grid occupies
    fallbacks: tuple[Fallback, ...] = ()  # figures bounded, not counted: blocks in no classes
    wave_terms: tuple[GridTerm, ...] = ()  # model_terms before the derates
    stream_k: StreamKSplit | None = None  # a stream-K grid's schedule (gpu.stream_split)

    def model_steps(self) -> tuple[tuple[EffectCause | None, sympy.Expr], ...]:
        """t_model as the derates are applied one effect at a time, in the registry's order
        (`derate_steps`); the last time is t_model."""
        return derate_steps(self.wave_terms, self.derates, largest_time)

    @functools.cached_property
    def tail_share(self) -> sympy.Expr | None:
        """The part of t_bound that quantisation adds: 1 - (the flat roofline's time) /
        t_bound. Found on first use: ordering the flat terms and cancelling the quotient of
        two maxima is a tenth of a symbolic verdict, and the JSON shows only a number. Where
        t_bound is the largest of the flat roofline's own times (unequal blocks are not
        quantised), the two maxima are one and the share is 0, without ordering them."""
        if self.t_bound is None:
            return None
        flat_seconds = {sympy.sympify(term.seconds) for term in self.flat_terms}
        if flat_seconds and flat_seconds == {sympy.sympify(term.seconds)
                                             for term in self.bound_terms}:
            return sympy.Integer(0)
        return worked_tail_share(self.t_bound, self.flat_terms)

    @functools.cached_property
    def numeric_tail_share(self) -> sympy.Expr | None:
        """tail_share where it may be a number; None where it takes two values at witness
        sizes (it is then no number), told without working out its form."""
        if self.t_bound is None or share_varies(self.t_bound, self.flat_terms):
            return None
        return self.tail_share


def grid_verdict(cost: Cost, machine: Machine, precision: str, values: Values,
                 work_by_class: dict[str, sympy.Expr], warm: WarmL2 | None = None) -> GridVerdict:
    """The execution model of cost.grid; `values` maps parameters to their values; `warm`:
    tensors a previous kernel left in L2, read from there where L2 holds them (module warm)."""
    assert cost.grid is not None  # the execution model of a parallel spec
    grid = unsplit(cost.grid, values)
    if grid is not cost.grid:
        cost = dataclasses.replace(cost, grid=grid)
    occ = occupancy(grid, machine, values)
    sms = machine.sm_count
    streamed = stream_k_at(grid, occ.resident, sms, values)
    cost = with_fixup(cost, streamed)  # a stream-K grid's partial tiles
    fallbacks: list[Fallback] = []  # what was bounded where blocks fall into no classes
    terms = per_sm_terms(cost, machine, precision, values, work_by_class, occ,
                         fallbacks=fallbacks)
    terms += _device_terms(cost, machine, values, (Level.L2,))
    bound_cost, model_cost = cost, cost
    if warm is not None:
        bound_cost = served_cost(cost, warm.bound_B)
        model_cost = served_cost(cost, warm.model_B)
    bound_global = _device_terms(bound_cost, machine, values, (Level.GLOBAL,))
    bound_terms = terms + bound_global
    global_term, counted = _wave_term(cost, machine, values, occ, warm, fallbacks)
    global_term, floored = _at_least_compulsory(global_term, bound_global)
    model_terms = terms + ([global_term] if global_term is not None else
                           _device_terms(model_cost, machine, values, (Level.GLOBAL,)))
    found = transfers(cost, lambda expr: _at(expr, values))
    derates: tuple[Derate, ...] = ()
    if occ.fits:
        global_B = next((term.amount for term in model_terms if term.key == Level.GLOBAL), None)
        derates = model_derates(EffectContext(
            cost, machine, lambda expr: _at(expr, values), occupancy=occ, transfers=found,
            global_B=global_B, terms=tuple(model_terms), values=values))
    wave_terms = tuple(model_terms)
    model_terms = [derated(term, derates) for term in model_terms]
    unknown = latency_unknown(cost, machine)
    if not occ.fits:
        return GridVerdict(occ, tuple(bound_terms), None, None, tuple(model_terms), None, None,
                           counted, (), grid.equal_blocks, derates, unknown, found,
                           floored, None, tuple(fallbacks), wave_terms, streamed)
    t_bound, bound_term = largest_term(bound_terms)
    t_model, model_term = largest_term(model_terms)
    bound, model_bound = (None if term is None else term.roof for term in (bound_term,
                                                                           model_term))
    flat_terms = (_device_terms(cost, machine, values, (Level.GLOBAL, Level.L2))
                  + _flat_work_terms(machine, precision, work_by_class)
                  + _flat_on_chip_terms(cost, machine, values))
    binds = bound_term is not None and bound_term.per_sm
    # a stream-K schedule spreads its tiles' k-steps over its workers: no tiles to add
    fill = None if streamed is not None else grid_fill(grid, occ.blocks, sms, values, binds)
    return GridVerdict(occ, tuple(bound_terms), t_bound, bound, tuple(model_terms), t_model,
                       model_bound, counted, tuple(flat_terms), grid.equal_blocks,
                       derates, unknown, found, floored, fill,
                       tuple(fallbacks), wave_terms, streamed)


def _at_least_compulsory(term: GridTerm | None,
                         bound_global: list[GridTerm]) -> tuple[GridTerm | None, bool]:
    """The wave estimate's global term, raised to t_bound's compulsory bytes where it falls
    under them (see the module), and whether it was."""
    if term is None or not bound_global:
        return term, False
    compulsory, amount = (summed(sympy.sympify(each))
                          for each in (bound_global[0].amount, term.amount))
    if not (compulsory.is_Number and amount.is_Number and amount < compulsory):
        return term, False
    return GridTerm(term.roof, term.key, compulsory, term.rate, compulsory / term.rate,
                    term.per_sm), True


def _wave_term(cost: Cost, machine: Machine, values: Values, occ: Occupancy,
               warm: WarmL2 | None,
               fallbacks: list[Fallback]) -> tuple[GridTerm | None, GlobalCount]:
    """Global traffic for t_model: the waves' L2 reuse (waves.estimate) once every size is a
    number and the occupancy is known, less the reads a warm L2 serves; else compulsory
    traffic, as in t_bound."""
    grid = cost.grid
    assert grid is not None  # as grid_verdict's
    bandwidth, capacity = machine.bandwidth(Level.GLOBAL), machine.capacity(Level.L2)
    resident = occ.resident
    bounds = [bound for tile in grid.tiles for box in (tile.whole, tile.per_step)
              for pair in box for bound in pair]
    fills_expr = cost.traffic.get(Level.L2, 0)  # a size only a bound inside the block holds
    free = set().union(*(sympy.sympify(expr).free_symbols
                         for expr in (grid.blocks, *grid.trips, *bounds, fills_expr)))
    free -= {*grid.iterators, grid.step_iterator}
    if (bandwidth is None or capacity is None or resident is None or not resident.is_number
            or resident < 1 or any(symbol not in values or not sympy.sympify(
                values[symbol]).is_number for symbol in free)):
        return None, GlobalCount(compulsory=Compulsory.SIZES)
    from .waves import Unclassified, estimate  # numpy: loaded only where a grid meets a machine

    usable = capacity * (machine.execution.usable_l2_fraction or 1)
    stages = max((int(_at(scope.stages, values)) for scope in cost.scopes), default=1)
    fills = Fraction(str(_at(fills_expr, values)))
    try:
        result = estimate(grid, values, machine.sm_count, int(resident), usable_l2_B=usable,
                          stages=stages, fills_B=fills)
    except Unclassified as why:  # compulsory traffic, as in t_bound, and why
        fallbacks.append(Fallback(Stage.WAVE_UNION, why.reason))
        return None, GlobalCount(compulsory=Compulsory.CLASSES, unclassified=why.reason)
    except ValueError:  # a tile bound no whole number: sizes that break an `assume`
        return None, GlobalCount(compulsory=Compulsory.TILES)
    amount = sympy.Rational(result.total_B.numerator, result.total_B.denominator)
    amount += _at(grid.fixup_B, values)  # split-K's partial tiles: no wave shares them
    streamed = stream_k_at(grid, resident, machine.sm_count, values)
    amount += 0 if streamed is None else streamed.fixup_B  # stream-K's, as split-K's
    served: tuple[str, ...] = ()
    if warm is not None and warm.fits:
        amount -= wave_served_B(warm, result.bytes_by_tensor)
        served = warm.tensors
    rate = exact(bandwidth)
    return GridTerm(level_roof(Level.GLOBAL), Level.GLOBAL, amount, rate, amount / rate,
                    False), GlobalCount(result, amount, served)


def per_sm_terms(cost: Cost, machine: Machine, precision: str,
                 values: Values, work_by_class: dict[str, sympy.Expr],
                 occ: Occupancy, *, fallbacks: list[Fallback] | None = None) -> list[GridTerm]:
    """The per-SM roofs of t_bound, quantised: each work class, then shared memory, the
    busiest SM's share on one SM's rate (`sweep` asks for them size by size where it cannot
    take them all at once). `fallbacks` gathers why a share was bounded, not counted."""
    grid, sms = cost.grid, machine.sm_count
    assert grid is not None  # a parallel spec
    share = busiest_share(grid, occ, values, sms, fallbacks)
    return (_work_terms(grid, machine, precision, work_by_class, sms, share)
            + _on_chip_terms(cost, grid, machine, values, sms, share))


def busiest_share(grid: GridCost, occ: Occupancy, values: Values, sms: int,
                  fallbacks: list[Fallback] | None = None) -> Share | None:
    """per-block amount -> what the busiest SM runs at least, or None (then the whole grid's
    amount on the whole machine, a looser bound). Equal blocks: ceil(B / SMs) of them.
    Unequal blocks at numeric sizes: whatever the schedule, some SM runs ceil(B / SMs) blocks
    (at least the sum of that many smallest), one runs the largest, and one at least the
    mean: the largest of the three. Blocks are taken by classes (waves.busiest_share); where
    they do not fall into classes and are too many to enumerate, None, and the reason goes
    to `fallbacks`. A stream-K grid at numbers: its busiest SM's iterations, in tiles
    (gpu.stream_split), in place of whole tiles."""
    streamed = stream_k_at(grid, occ.resident, sms, values)
    if streamed is not None:
        tiles = busiest_sm_tiles(streamed, sms)
        return lambda amount: tiles * _at(amount, values)
    if grid.equal_blocks:
        return lambda amount: occ.busiest_sm_blocks * _at(amount, values)
    blocks = _at(grid.blocks, values)
    if not blocks.is_number or blocks < 1:
        return None
    from .waves import Unclassified  # numpy: loaded only here
    from .waves import busiest_share as by_classes

    def share(amount: sympy.Expr) -> sympy.Expr | None:
        try:
            found = by_classes(grid, values, _at(amount, values), sms)
        except Unclassified as why:  # the whole grid on the whole machine, said why
            fallback = Fallback(Stage.BUSIEST_SM, why.reason)
            if fallbacks is not None and fallback not in fallbacks:
                fallbacks.append(fallback)
            return None
        return None if found is None else sympy.Integer(found)

    return share


def _work_terms(grid: GridCost, machine: Machine, precision: str,
                work_by_class: dict[str, sympy.Expr], sms: int,
                share: Share | None) -> list[GridTerm]:
    terms = []
    for work_class, total in work_by_class.items():
        ceiling = machine.ceiling(precision, work_class)
        rate = exact(ceiling.peak_FLOPps)
        flat = GridTerm(ceiling.roof, term_key(work_class), total, rate, total / rate, False)
        terms.append(_per_sm_term(flat, grid.work[work_class], sms, share))
    return terms


def _per_sm_term(flat: GridTerm, per_block_amount: sympy.Expr, sms: int,
                 share: Share | None) -> GridTerm:
    """The busiest SM's share on one SM's rate, never below the whole grid's amount on the
    whole machine (`flat`); that alone where no share is known."""
    amount = None if share is None else share(per_block_amount)
    if amount is None:
        return flat
    rate = flat.rate
    quantised = GridTerm(flat.roof, flat.key, amount, rate / sms, amount * sms / rate, True)
    below = proven_less_than(amount * sms, flat.amount)  # only unequal blocks fall under the mean
    return flat if below else quantised


def _on_chip_terms(cost: Cost, grid: GridCost, machine: Machine, values: Values, sms: int,
                   share: Share | None) -> list[GridTerm]:
    terms = []
    for level in PER_SM_LEVELS:
        bandwidth = machine.bandwidth(level)
        if bandwidth is None or level not in cost.traffic:
            continue
        total, rate = _at(cost.traffic[level], values), exact(bandwidth)
        flat = GridTerm(level_roof(level), term_key(level), total, rate, total / rate, False)
        terms.append(_per_sm_term(flat, grid.traffic.get(level, 0), sms, share))
    return terms


def _device_terms(cost: Cost, machine: Machine, values: Values,
                  levels: Sequence[str]) -> list[GridTerm]:
    terms = []
    for level in levels:
        bandwidth = machine.bandwidth(level)
        if bandwidth is None or level not in cost.traffic:
            continue
        amount = _at(cost.traffic[level], values)
        rate = exact(bandwidth)
        terms.append(GridTerm(level_roof(level), term_key(level), amount, rate, amount / rate,
                              False))
    return terms


def _flat_work_terms(machine: Machine, precision: str,
                     work_by_class: dict[str, sympy.Expr]) -> list[GridTerm]:
    terms = []
    for work_class, total in work_by_class.items():
        ceiling = machine.ceiling(precision, work_class)
        rate = exact(ceiling.peak_FLOPps)
        terms.append(GridTerm(ceiling.roof, term_key(work_class), total, rate, total / rate,
                              False))
    return terms


def _flat_on_chip_terms(cost: Cost, machine: Machine, values: Values) -> list[GridTerm]:
    return _device_terms(cost, machine, values, PER_SM_LEVELS)


def _at(expr: sympy.Expr | int, values: Values) -> sympy.Expr:
    expr = sympy.sympify(expr)
    if not values:
        return expr
    return _at_values(expr, tuple(values.items()))


@functools.lru_cache(maxsize=1024)
def _at_values(expr: sympy.Expr,
               values: tuple[tuple[sympy.Symbol, sympy.Expr], ...]) -> sympy.Expr:
    # kept: every machine of a command evaluates the same traffic at the same sizes, and
    # the cancel is most of a light spec's machine stage (moe_gemm: 134 of 142 calls repeat)
    expr = expr.xreplace(dict(values))
    if expr.has(sympy.Sum):
        # added up or closed first (numpy: sympy's doit builds each term); a sum left open
        # over a grid loop closes once sizes are numbers
        expr = summed_at_sizes(expr)
        if expr.has(sympy.Sum):
            expr = expr.doit()
    return cancel(summed(expr))  # what doit leaves open, added up term by term
