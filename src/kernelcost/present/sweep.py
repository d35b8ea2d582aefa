"""Size sweeps: the closed forms evaluated over many sizes at once.

The closed forms W, Q_l and I_l = W / Q_l are exact sympy expressions. Once every parameter but
one is set, each becomes a function of that one size; `sympy.lambdify` turns it into numpy code
that takes a whole array of sizes in one call (10^6 sizes in a few milliseconds), instead of
substituting the sizes one at a time. The roofline bound follows the model exactly:

    t_min = max( max over work classes W_c / P_c , max over levels Q_l / B_l )

with the binding term the first largest (work before traffic, as `model.binding_term`). For a
parallel spec t_min is the model's t_bound: its per-SM roofs quantised by the busiest SM's
blocks (module grid_sweep), so that `sweep` and `analyze` agree at every size."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy
import sympy

from ..algebra.sympy_scope import patched
from ..analysis.api import Analysis, Spec, load, numeric_values
from ..answers.unknowns import parameter_symbol
from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Reuse, TermKind
from ..base.watchdog import extend
from ..count.cost import Cost
from ..count.values import evaluate, parameter_values
from ..gpu.support import unsupported
from ..hardware.machine import Machine
from ..lang.idle import refuse_idle_kernel
from ..lang.settings import FLOAT_SIZES, MAX_FLOAT_SIZE, refuse_beyond, resolve_settings, without
from ..lang.sizerange import CHUNK_POINTS, SizeRange
from ..lang.sizes import (
    refuse_broken_bounds,
    refuse_empty_grid,
    refuse_header_sizes,
    refuse_zero_divisors,
    size_warnings,
)
from .sweep_bounds import Broken, swept_bounds
from .sweep_roofline import SweepResult, with_roofline
from .sweep_units import SweptUnits
from .vectorize import evaluate_array, vectorized


@patched()
def sweep(source: Analysis | Spec | str | Path, sizes: SizeRange | numpy.ndarray,
          parameter: str | None = None, *, settings: Mapping | None = None,
          machine: Machine | None = None, precision: str | None = None,
          reuse: str | None = None) -> SweepResult:
    """Evaluate W, Q_l, I_l (and, given a machine, t_min, the binding term and the fraction of
    peak) at every size of `sizes`, vectorised.

    `source` is an Analysis (its settings and reuse are used) or a spec; `settings` (names to
    numbers or expression text such as {"M": "N"}) fix every other parameter, defaults apply.
    A value set for the swept parameter itself is ignored: the sweep replaces it."""
    size_range = sizes if isinstance(sizes, SizeRange) else None
    if size_range is not None:
        parameter = size_range.parameter
    if parameter is None:
        raise TypeError("sweep: give the parameter name with an array of sizes")
    sweeper = Sweeper(source, parameter, settings=settings, machine=machine,
                      precision=precision, reuse=reuse)
    if size_range is not None:
        sizes = size_range.with_step(sweeper.step).values()
    return sweeper(sizes)


class Sweeper:
    """The closed forms of one sweep turned into numpy functions once, then evaluated on any
    number of size arrays (the chunks of a long sweep)."""

    @patched()
    def __init__(self, source, parameter: str, *, settings: Mapping | None = None,
                 machine: Machine | None = None, precision: str | None = None,
                 reuse: str | None = None):
        spec, reuse, resolved = _source_settings(source, settings, reuse, parameter)
        spec = spec.at_precision(precision)  # its element types at that precision
        cost = spec.cost(reuse)
        self.symbol = parameter_symbol(cost, parameter)
        # the other sizes at their values (on_units below changes no parameter or default)
        fixed = parameter_values(cost, {s: e for s, e in resolved.items() if s != self.symbol},
                                 apply_defaults=True, exclude=self.symbol)
        self.units = SweptUnits(cost, self.symbol, fixed, vectorized)
        self.cost = cost = self.units.cost
        others = {s: v for s, v in numeric_values(spec, resolved).items() if s != self.symbol}
        refuse_beyond(others, settings or {}, spec.kernel, MAX_FLOAT_SIZE, FLOAT_SIZES,
                      "give it at most 2^53 (9.0e15), or analyze these sizes exactly with "
                      "`kernelcost analyze`")
        refuse_header_sizes(spec.checked, others)  # not positive whatever the swept size
        self.machine = machine
        self.precision = precision or cost.precision
        self.item = None if spec.checked.items is None else spec.checked.items.item
        counts = {} if spec.checked.items is None else {("items",): spec.checked.items.count}
        self.functions = {key: vectorized(expr, self.symbol) for key, expr
                          in closed_forms(cost, self.symbol, resolved, counts).items()}
        self.step = size_step(spec, cost, self.symbol, resolved)
        self.checked, self.others = spec.checked, others
        self.bounds = swept_bounds(spec.checked.bounds, self.symbol, fixed)
        self.grid = None
        if machine is not None and cost.grid is not None:  # the quantised per-SM roofs
            from .grid_sweep import GridSweep

            self.grid = GridSweep(cost, machine, self.precision, self.symbol, fixed)

    @patched()
    def __call__(self, sizes) -> SweepResult:
        cost = self.cost
        sizes = numpy.asarray(sizes, dtype=float)
        evaluated = {key: evaluate_array(function, sizes)
                     for key, function in self.functions.items()}
        work_by_class = self.units(sizes, {cls: evaluated[(TermKind.WORK, cls)] for cls in cost.work
                                           if cost.work[cls] != 0})
        work = sum(work_by_class.values(), numpy.zeros_like(sizes))
        traffic = {level: evaluated[(TermKind.TRAFFIC, level)] for level in cost.levels}
        self._refuse_negative(sizes, [work, *traffic.values()])
        with numpy.errstate(divide="ignore", invalid="ignore"):
            intensity = {level: work / traffic[level] for level in cost.levels}
        result = SweepResult(cost.kernel, str(self.symbol), sizes, work, work_by_class,
                             traffic, intensity, item=self.item,
                             items=evaluated.get(("items",)))
        if self.machine is None:
            return result
        return with_roofline(result, self.machine, self.precision,
                             None if self.grid is None else self.grid(sizes),
                              runs=not unsupported(cost, self.machine))


    def broken(self, sizes) -> tuple[Broken, ...]:
        """Each assumed bound (`assume n <= 4096`) that some of `sizes` break, with them: the
        closed forms take the bound to hold, so the counts there are not the loops'."""
        sizes = numpy.asarray(sizes, dtype=float)
        found = []
        for bound in self.bounds:
            with numpy.errstate(invalid="ignore"):
                breaking = sizes[~bound.holds(sizes)]
            if len(breaking):
                found.append(Broken(bound.text, len(breaking), float(breaking.min()),
                                    float(breaking.max())))
        return tuple(found)

    def _refuse_empty(self, checked, values) -> None:
        """Where nothing moves: an extent, step or header count not positive there, or, timed
        on a machine, a grid that holds no block (a launch CUDA refuses) or loops that run no
        iteration (no roof bounds a time of 0 s)."""
        size_warnings(checked, values)
        if self.machine is not None:
            if self.cost.grid is not None:
                refuse_empty_grid(checked, self.cost.grid.blocks, values)
            refuse_idle_kernel(checked, values)

    def _refuse_negative(self, sizes: numpy.ndarray, amounts: list[numpy.ndarray]) -> None:
        """A count below zero at a swept size: the sizes break an `assume` bound there
        (refused at the fact, lang.sizes.refuse_broken_bounds); no work and no traffic at
        all: an extent, a step or a header count may be negative there, which empties the
        loops (refused at it, size_warnings); a count that is not a number there: a division
        by zero (refused at the division, refuse_zero_divisors)."""
        stacked = numpy.array(amounts)
        with numpy.errstate(invalid="ignore"):
            for bad, refuse in ((numpy.any(~numpy.isfinite(stacked), axis=0),
                                 refuse_zero_divisors),
                                (numpy.any(stacked < 0, axis=0), refuse_broken_bounds),
                                (numpy.all(stacked == 0, axis=0), self._refuse_empty)):
                found = numpy.flatnonzero(bad)
                if len(found):
                    size = sympy.Integer(int(sizes[found[0]]))
                    refuse(self.checked, {**self.others, self.symbol: size})


def size_step(spec: Spec, cost: Cost, symbol: sympy.Symbol, settings: Mapping) -> int:
    """What every swept size must be a multiple of for the spec's assumptions to hold: the
    least common multiple of the divisors d of each `assume d | N` (and of `d | M` where the
    settings make M = N), with the other sizes at their values."""
    others = {s: e for s, e in settings.items() if s != symbol}
    values = parameter_values(cost, others, apply_defaults=True, exclude=symbol)
    step = 1
    for divisor, dividend in spec.checked.divisibility:
        if str(evaluate(dividend, values)) != str(symbol):
            continue
        value = evaluate(divisor, values)
        if value.is_Integer and value > 0:
            step = math.lcm(step, int(value))
    return step


def closed_forms(cost: Cost, symbol: sympy.Symbol, settings: Mapping[sympy.Symbol, sympy.Expr],
                 extra: Mapping[tuple, sympy.Expr] | None = None) -> dict[tuple, sympy.Expr]:
    """Work per class and traffic per level (and the `extra` forms, such as the item count)
    with every parameter but `symbol` substituted; a parameter left unset is an error
    naming it."""
    others = {s: e for s, e in settings.items() if s != symbol}
    substitutions = parameter_values(cost, others, apply_defaults=True, exclude=symbol)
    forms = {(TermKind.WORK, cls): expr for cls, expr in cost.work.items()}
    forms.update({(TermKind.TRAFFIC, level): expr for level, expr in cost.traffic.items()})
    forms.update(extra or {})
    forms = {key: evaluate(expr, substitutions) for key, expr in forms.items()}
    unset = set().union(*(expr.free_symbols for expr in forms.values())) - {symbol}
    if unset:
        names = ", ".join(sorted(str(s) for s in unset))
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None,
            f"sweeping `{symbol}` of `{cost.kernel}` needs every other size set; unset: {names}",
            "set them with --set NAME=VALUE (or NAME=" + str(symbol)
            + ")"))
    return forms


def _source_settings(source, settings: Mapping | None, reuse: str | None, parameter: str):
    """The spec, reuse mode and resolved settings ({Symbol: Expr}) a sweep works from.

    The swept parameter's own value is dropped before chains are resolved, so that M=N stays
    M=N when N=4096 was also set. (An Analysis holds its settings already resolved: give the
    spec and the raw settings to sweep a parameter that other settings refer to.)"""
    raw = without(settings or {}, (parameter,))
    if isinstance(source, Analysis):
        resolved = {s: e for s, e in source.settings.items() if str(s) != parameter}
        if raw:
            resolved.update(resolve_settings(raw, source.spec.parameters))
        return source.spec, reuse or source.reuse, resolved
    spec = source if isinstance(source, Spec) else load(source)
    return spec, reuse or Reuse.SPEC, resolve_settings(raw, spec.parameters)


# --- long sweeps ----------------------------------------------------------------------------

LARGE_SWEEP_POINTS = 1_000_000  # from here on, the sweep says what it will cost first
SECONDS_PER_VALUE = 0.1e-6  # measured: 10^7 sizes x 8 columns in 7.7 s of CPU (bench/)


def stream_csv(sweeper: Sweeper, size_range: SizeRange, write,
               advance=None) -> tuple[Broken, ...]:
    """The CSV of a sweep, a chunk at a time, to `write` (which takes bytes): memory stays
    bounded whatever the point count. `advance()` is called after each of the
    size_range.chunk_count() chunks (a progress bar). Returns the assumed bounds the sizes
    broke, over every chunk."""
    from .report import sweep_csv_bytes

    if size_range.made > LARGE_SWEEP_POINTS:
        estimate = _announce(size_range.made, sweeper)
        extend(5 * estimate + 30)  # the budget covers the announced writing, on a busy machine too
    broken: dict[str, Broken] = {}
    for position, sizes in enumerate(size_range.chunks()):
        if position == 0 or len(sizes):  # the first chunk is never empty: it has the header
            write(sweep_csv_bytes(sweeper(sizes), header=position == 0))
            for found in sweeper.broken(sizes):
                earlier = broken.get(found.text)
                broken[found.text] = found if earlier is None else earlier.joined(found)
        if advance is not None:
            advance()
    return tuple(broken.values())


def _announce(points: int, sweeper: Sweeper) -> float:
    import sys

    from ..base.units import si

    columns = 2 + 2 * len(sweeper.cost.levels) + (4 if sweeper.machine is not None else 0)
    seconds = points * columns * SECONDS_PER_VALUE
    print(f"note: sweeping {points:,} sizes, {min(points, CHUNK_POINTS):,} at a time: memory "
          f"stays under about 0.2 GB; expect up to {si(points * columns * 18, 'B')} of CSV "
          f"and {si(seconds, 's')} or more (sizes that round to the same integer are "
          "written once); the time budget is extended to cover it", file=sys.stderr)
    return seconds
