"""The closed forms of one spec on one machine, compiled once to numpy and evaluated over
arrays of candidates: t_bound and whether each candidate fits, no sympy per candidate.

The model is the execution model's (gpu.execution, gpu.occupancy), vectorised:
    resident r = min(floor(shared per SM / (shared per block + reserved)),
                     floor(registers per SM / registers per block), threads, warps, blocks,
                     floor(tensor memory per SM / tensor memory per block))
    busiest SM = ceil(B / SMs);  waves = ceil(B / (SMs r))
      (a stream-K grid: ceil(W / SMs) x ceil(B I / W) / I tiles, I k-steps a tile over W
      workers, SMs x r unless the spec says: gpu.stream_split)
    t_bound = max(busiest x per-block work / per-SM peak  (each work class),
                  busiest x per-block on-chip traffic / per-SM bandwidth  (shared),
                  L2 traffic / L2 bandwidth,  compulsory global traffic / HBM bandwidth)
with every compute and on-chip peak at the maximum clock. A spec without a grid gets the
flat roofs: W_c / P_c and Q_l / B_l.

A candidate does not fit where it breaks an `assume` fact (`a | b`, or a bound such as
`n <= 4096`: the spec's counts hold within its facts only, and `analyze` refuses or warns
at such sizes), or where a block needs more
than the hardware gives it, as gpu.occupancy finds misfits: shared memory (per block, or per
SM where the machine gives no per-block maximum), registers (per thread, block or SM),
threads or warps (per block or SM), tensor memory, a cluster larger than the machine forms.
A cluster must also tile the grid along its axis (a launch of a partial cluster fails).

Arrays broadcast: each varied parameter's values lie along an axis of their own (an open
mesh), and each closed form is evaluated over the axes it depends on only, so a term of the
tile sizes costs their product, not the number of candidates. Blocks are taken as equal
(the first block stands for all): a spec with unequal blocks (clipped edges, causal masks)
gets the exact share of its busiest SM from the analysis, where `tune` re-scores."""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Sequence

import numpy
import sympy

from ..algebra.numeric_sums import ROUNDING, ExactRounding
from ..analysis.api import Spec, numeric_values
from ..base.errors import Code, Diagnostic, SizeError, did_you_mean
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..gpu.occupancy import REGISTER_BYTES
from ..hardware.machine import PER_SM_LEVELS, Roof, level_roof
from ..lang.settings import FLOAT_SIZES, MAX_FLOAT_SIZE, refuse_beyond, resolve_settings
from ..lang.sizes import header_sizes, refuse_header_sizes
from .rejections import (
    CODES,
    Rejected,
)
from .search_fits import Need, residency

ROOF_LEVELS = (Level.GLOBAL, Level.L2, Level.SHARED)  # the levels whose bandwidth is a roof
# what the numpy printer's code names: lambdify's modules="numpy" star-imports numpy first,
# which loads its every submodule (0.1 to 0.5 s a command pays once)
_NAMESPACE = {"numpy": numpy, "functools": functools, "math": math}


def numpy_function(symbols, expr):
    """`expr` as a numpy function of `symbols`: lambdify's numpy printer, its names given."""
    return sympy.lambdify(symbols, expr, modules=[{**_NAMESPACE, **ROUNDING}],
                          printer=_printer())


@functools.cache
def _printer() -> type:
    """numpy's printer with floor and ceiling exact (ExactRounding), built on first use."""
    from sympy.printing.numpy import NumPyPrinter

    return type("SearchPrinter", (ExactRounding, NumPyPrinter), {})


@record
class Evaluation:
    """Arrays over the candidates: t_bound, binding and reject have the candidates' shape
    (t_bound and binding as read-only views of the few axes they hold: read them at
    candidates with `full`, not `ravel`, which copies); the others broadcast to it."""

    t_bound: numpy.ndarray  # s
    binding: numpy.ndarray  # index into `roofs`
    roofs: tuple[Roof, ...]  # what each term runs against
    reject: numpy.ndarray  # 0: fits, else a reason's code (rejections.CODES)
    resident: numpy.ndarray
    waves: numpy.ndarray
    blocks: numpy.ndarray
    on_chip: numpy.ndarray  # B: shared + registers one block holds
    shared: numpy.ndarray | None = None  # B of shared memory per block
    registers: numpy.ndarray | None = None  # registers per block (spec's, or its arrays')
    array_registers: numpy.ndarray | None = None  # registers the register arrays need

    def full(self, array: numpy.ndarray, index: numpy.ndarray) -> numpy.ndarray:
        """array (broadcast to the candidates' shape) at flat candidate indices."""
        shape = self.t_bound.shape
        return numpy.broadcast_to(array, shape)[numpy.unravel_index(index, shape)]


def fixed_values(spec: Spec, varied: list[str], raw: dict, follow: str | None = None,
                 places: dict | None = None) -> dict[sympy.Symbol, sympy.Expr]:
    """Every parameter not varied, at a number (set, or its default) or at an expression of
    the varied ones (`M=N` with N varied); with `follow`, a size left without a value
    equals that varied parameter. `places`: name -> (span, text) of the option that varies
    it, for the errors about a varied name."""
    parameters = spec.parameters
    for name in varied:
        span, text = (places or {}).get(name, (None, None))
        if name not in parameters:
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                span, f"`{name}` is not a parameter of {spec.name}",
                did_you_mean(name, parameters) or "parameters: " + ", ".join(parameters)),
                text)
        if name in raw:
            raise SizeError(Code.SET_AND_VARIED, Diagnostic(
                span, f"`{name}` is both varied and set",
                f"leave `{name}` out of --set, or vary another size"), text)
    settings = resolve_settings(raw, parameters)
    numeric = numeric_values(spec, settings)
    refuse_beyond({s: v for s, v in numeric.items() if str(s) not in varied}, raw, spec.kernel,
                  MAX_FLOAT_SIZE, FLOAT_SIZES, "give it at most 2^53 (9.0e15)")
    fixed = {symbol: value for symbol, value in numeric.items() if str(symbol) not in varied}
    refuse_header_sizes(spec.checked, fixed)  # a count not positive whatever the varied are
    varied_symbols = {parameters[name] for name in varied}
    for symbol, expr in settings.items():
        if symbol not in fixed and str(symbol) not in varied and \
                expr.free_symbols <= varied_symbols:
            fixed[symbol] = expr
    if follow is not None:
        for p in spec.checked.parameters:
            if str(p) not in varied and p not in fixed:
                fixed[p] = parameters[follow]
    missing = [str(p) for p in spec.checked.parameters
               if str(p) not in varied and p not in fixed]
    if missing:
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None,
            "every size that is not varied needs a value: "
            + ", ".join(missing),
            "add --set " + ",".join(
            f"{m}=4096" for m in missing)))
    return fixed


def shape_evaluators(spec: Spec, machine, varied: list[str], fixes: list[dict]
                     ) -> list[Evaluator]:
    """One evaluator a shape (`fixes`: each shape's values not varied), compiled once for
    all of them where the values that differ between shapes are numbers."""
    first = fixes[0]
    shaped = [s for s in first if any(fixed[s] != first[s] for fixed in fixes[1:])]
    if not all(sympy.sympify(fixed[s]).is_number for fixed in fixes for s in shaped):
        return [Evaluator(spec, machine, varied, fixed) for fixed in fixes]
    common = {s: value for s, value in first.items() if s not in shaped}
    shared = Evaluator(spec, machine, varied, common, shaped=shaped)
    return [shared.at_shape({s: fixed[s] for s in shaped}) for fixed in fixes]


def summed(results: list[Evaluation]) -> Evaluation:
    """The evaluations of one space at several shapes as one: t_bound summed (the time of
    a run of each shape), a candidate rejected where any shape rejects it (the first
    shape's reason first), the rest the first shape's."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    t_bound = numpy.sum([r.t_bound for r in results], axis=0)
    reject = first.reject
    for other in results[1:]:
        reject = numpy.where(reject == 0, other.reject, reject)
    return Evaluation(t_bound, first.binding, first.roofs, reject, first.resident, first.waves,
                      first.blocks, first.on_chip, first.shared, first.registers,
                      first.array_registers)


class Evaluator:
    """The closed forms of one spec on one machine, lambdified in the varied parameters.

    `shaped`: sizes whose values differ between the shapes of one search, arguments of the
    compiled forms beside the varied parameters, so that the shapes share one compilation
    (`at_shape` gives the evaluator at one shape's values; lambdify costs some 7 ms a spec,
    evaluating a few microseconds)."""

    def __init__(self, spec, machine, varied: list[str], fixed: dict,
                 check_facts: bool = True, max_clock: bool = True, *,
                 shaped: Sequence[sympy.Symbol] = ()):
        # t_bound takes every compute and on-chip peak at the maximum clock (module clocks);
        # the phase plane draws the chapter's ridges, with the figures as given
        self.spec = spec
        self.machine = machine.at_max_clock if max_clock else machine
        self.check_facts = check_facts  # off for a continuous map (phase)
        self.cost = spec.cost(Reuse.SPEC)
        self.symbols = [spec.parameters[name] for name in varied]
        self.shaped = list(shaped)
        self.fixed = fixed
        self.precision = spec.checked.precision
        self.first_block = _first_block(self.cost.grid)
        self._compiled: dict = {}
        self._constants = fixed  # put into the forms compiled: what every shape shares
        self._shape_values: tuple[numpy.float64, ...] = ()

    def at_shape(self, values: dict) -> Evaluator:
        """This evaluator at one shape's values of `shaped`, its compiled forms shared."""
        view = copy.copy(self)
        view.fixed = {**self.fixed, **values}
        view._shape_values = tuple(numpy.float64(values[s]) for s in self.shaped)
        return view

    def _f(self, expr):
        """expr as a function of the varied arrays, its result broadcastable to them."""
        key = sympy.sympify(expr)
        if key not in self._compiled:
            # a block's quantities may depend on where it stands (a ragged last tile along a
            # clipped loop, `min(m0 + TM, Mt)`): the first block's, a whole tile, stands in
            at = key.xreplace(self.first_block).xreplace(self._constants)
            arguments = [*self.symbols, *self.shaped]
            used = [s for s in arguments if s in at.free_symbols]
            self._compiled[key] = (numpy_function(used, at), [arguments.index(s) for s in used])
        function, places = self._compiled[key]
        shape_values = self._shape_values
        return lambda arrays: numpy.asarray(
            function(*((*arrays, *shape_values)[p] for p in places)), dtype=numpy.float64)

    def compiled(self, expr):
        """expr as a numpy function of the varied arrays: compiled once, then cached."""
        return self._f(expr)

    def __call__(self, arrays: list[numpy.ndarray]) -> Evaluation:
        # a block of no shared memory or registers divides by zero where numpy.where then
        # takes the other branch; a size overflowing a double is inf: no warning for either
        with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # at least one axis: a search that varies only the raster has one point
            shape = numpy.broadcast_shapes((1,), *(numpy.shape(a) for a in arrays))
            conditions = self._broken_facts(arrays)
            if self.cost.grid is None:
                return self._flat(arrays, shape, conditions)
            return self._grid(arrays, shape, conditions)

    def _broken_facts(self, arrays) -> list[tuple[Rejected, numpy.ndarray]]:
        broken = []
        for divisor, dividend in (self.spec.checked.divisibility if self.check_facts else ()):
            d, n = self._f(divisor)(arrays), self._f(dividend)(arrays)
            broken.append((Rejected.ASSUMPTION, (numpy.mod(n, d) != 0) | (n < d)))
        for relation in (self.spec.checked.bounds if self.check_facts else ()):
            holds = HOLDS[type(relation)]
            left, right = self._f(relation.lhs)(arrays), self._f(relation.rhs)(arrays)
            broken.append((Rejected.ASSUMPTION, ~holds(left, right)))  # nan: broken
        for _, count in self.header_counts():
            value = self._f(count)(arrays)
            broken.append((Rejected.HEADER, ~(value > 0) | (value != numpy.floor(value))))
        if self.check_facts and self.cost.grid is not None:
            broken.append((Rejected.GRID, ~(self._f(self.cost.grid.blocks)(arrays) > 0)))
        return broken

    def header_counts(self) -> list[tuple[str, sympy.Expr]]:
        """The counts the parallel header states, where they vary with the candidates (one
        that does not was refused at the fixed sizes: fixed_values); on a continuous map,
        none (its sizes are not whole)."""
        if not self.check_facts:
            return []
        varied = set(self.symbols)
        return [(what, count) for what, count, _ in header_sizes(self.spec.checked)
                if count.free_symbols & varied]

    def _busiest(self, grid, arrays, blocks, resident) -> numpy.ndarray:
        """Tiles the busiest SM runs: ceil(B / SMs), or a stream-K grid's ceil(W / SMs) x
        ceil(B I / W) / I (gpu.stream_split; its fix-up only adds, and the re-scoring's
        analysis counts it)."""
        sms, declared = self.machine.sm_count, grid.stream_k
        if declared is None or not grid.equal_blocks:
            return numpy.ceil(blocks / sms)
        steps = self._f(declared.iterations)(arrays)
        workers = (sms * numpy.maximum(resident, 1) if declared.workers is None
                   else self._f(declared.workers)(arrays))
        workers = numpy.maximum(numpy.minimum(workers, blocks * steps), 1)
        return numpy.ceil(workers / sms) * numpy.ceil(blocks * steps / workers) / steps

    def _grid(self, arrays, shape, conditions) -> Evaluation:
        m, grid = self.machine, self.cost.grid
        ex, sms = m.execution, m.sm_count
        shared = self._f(grid.on_chip.get(Level.SHARED, 0))(arrays)
        array_regs = numpy.ceil(self._f(grid.on_chip.get(Level.REGISTERS, 0))(arrays)
                                / REGISTER_BYTES)
        threads = self._f(grid.threads)(arrays)
        warp = ex.warp_size or 32
        warps = numpy.ceil(threads / warp)
        regs, per_thread = array_regs, None
        if grid.registers is not None:
            per_thread = self._f(grid.registers)(arrays)
            unit = ex.register_granularity_per_warp or 1
            regs = numpy.maximum(warps * numpy.ceil(per_thread * warp / unit) * unit,
                                 array_regs)
        limits, misfits = residency(m, grid, self._f, arrays, Need(
            shared, regs, array_regs, per_thread, threads, warps))
        conditions += misfits
        resident = numpy.minimum.reduce(numpy.broadcast_arrays(*limits))
        reject = _first_reasons(conditions, shape, resident)
        blocks = self._f(grid.blocks)(arrays)
        busiest = self._busiest(grid, arrays, blocks, resident)
        terms, roofs = [], []
        for work_class, amount in grid.work.items():
            ceiling = m.ceiling(self.precision, work_class)
            terms.append(busiest * self._f(amount)(arrays) * sms / ceiling.peak_FLOPps)
            roofs.append(ceiling.roof)
        for level in PER_SM_LEVELS:
            if level in self.cost.traffic and m.bandwidth(level):
                terms.append(busiest * self._f(grid.traffic.get(level, 0))(arrays) * sms
                             / m.bandwidth(level))
                roofs.append(level_roof(level))
        for level in (Level.L2, Level.GLOBAL):
            if level in self.cost.traffic and m.bandwidth(level):
                terms.append(self._f(self.cost.traffic[level])(arrays) / m.bandwidth(level))
                roofs.append(level_roof(level))
        t_bound, binding = _largest(terms, shape)
        waves = numpy.ceil(blocks / (sms * numpy.maximum(resident, 1)))
        return Evaluation(t_bound, binding, tuple(roofs), reject, resident, waves, blocks,
                          shared + regs * REGISTER_BYTES, shared, regs, array_regs)

    def _flat(self, arrays, shape, conditions) -> Evaluation:
        """No grid: the flat roofs, and each on-chip keep scope against its capacity."""
        m, terms, roofs = self.machine, [], []
        for work_class, amount in self.cost.work.items():
            ceiling = m.ceiling(self.precision, work_class)
            terms.append(self._f(amount)(arrays) / ceiling.peak_FLOPps)
            roofs.append(ceiling.roof)
        for level, amount in self.cost.traffic.items():
            if level in ROOF_LEVELS and m.bandwidth(level):
                terms.append(self._f(amount)(arrays) / m.bandwidth(level))
                roofs.append(level_roof(level))
        held = numpy.zeros(())
        for scope in self.cost.scopes:
            if scope.level in (Level.SHARED, Level.REGISTERS) and m.capacity(scope.level):
                need = self._f(scope.held_bytes * scope.stages)(arrays)
                held = held + need
                reason = Rejected.SHARED if scope.level == Level.SHARED else Rejected.REGISTERS
                conditions.append((reason, need > m.capacity(scope.level)))
        reject = _first_reasons(conditions, shape)
        t_bound, binding = _largest(terms, shape)
        ones = numpy.ones(())
        return Evaluation(t_bound, binding, tuple(roofs), reject, ones, ones, ones, held)


# an assumed bound as numpy tests it on arrays of sizes (phase and sweep read it too)
HOLDS = {sympy.LessThan: numpy.less_equal, sympy.StrictLessThan: numpy.less,
         sympy.GreaterThan: numpy.greater_equal, sympy.StrictGreaterThan: numpy.greater}


def _first_reasons(conditions: list[tuple[Rejected, numpy.ndarray]], shape,
                   resident: numpy.ndarray | None = None) -> numpy.ndarray:
    """The code of the first reason each candidate breaks (0: none), then an occupancy of 0
    where `resident` is given: worked out over the axes the reasons hold so far (the last
    ones, a cluster's and the threads', hold few), the candidates' shape reached last."""
    reject = numpy.zeros((), dtype=numpy.int8)
    for reason, broken in reversed(conditions):
        reject = numpy.where(broken, numpy.int8(CODES[reason]), reject)
    if resident is not None:
        reject = numpy.where((reject == 0) & (resident < 1),
                             numpy.int8(CODES[Rejected.OCCUPANCY]), reject)
    return numpy.ascontiguousarray(numpy.broadcast_to(reject, shape))


def _largest(terms: list[numpy.ndarray], shape) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The largest term at each candidate, and which term it is (the first of a tie), as
    read-only views of the candidates' shape: worked out over the axes the terms hold only
    (the tile sizes' products, not every stage, thread count and cluster with them)."""
    held = numpy.broadcast_shapes(*(numpy.shape(term) for term in terms))
    largest = numpy.broadcast_to(terms[0], held).astype(numpy.float64)
    which = numpy.zeros(held, dtype=numpy.int8)
    for position, term in enumerate(terms[1:], 1):
        larger = term > largest
        largest = numpy.where(larger, term, largest)
        which = numpy.where(larger, numpy.int8(position), which)
    return numpy.broadcast_to(largest, shape), numpy.broadcast_to(which, shape)


def _first_block(grid) -> dict[sympy.Symbol, sympy.Expr]:
    """Each grid iterator at its first value (outer ones put into inner bounds)."""
    first: dict[sympy.Symbol, sympy.Expr] = {}
    if grid is None:
        return first
    for iterator, low in zip(grid.iterators, grid.lower_bounds):
        first[iterator] = sympy.sympify(low).xreplace(first)
    return first
