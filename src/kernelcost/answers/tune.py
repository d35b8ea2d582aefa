"""Stage `tune`: every combination of some size parameters (tile sizes), evaluated at once
with numpy from the lambdified closed forms, ranked by t_bound.

The model is execution.py's, vectorised (no sympy per candidate):
    resident r = min(floor(shared per SM / (shared per block + reserved)),
                     floor(registers per SM / registers per block), threads, warps, blocks)
    busiest SM = ceil(B / SMs);  waves = ceil(B / (SMs r))
    t_bound = max(busiest x per-block work / per-SM peak  (each work class),
                  busiest x per-block shared traffic / per-SM shared bandwidth,
                  L2 traffic / L2 bandwidth,  compulsory global traffic / HBM bandwidth)
A spec without a grid (no parallel loops) gets the flat roofs: W_c / P_c and Q_l / B_l.
Registers per block are the larger of the spec's registers per thread (rounded per warp as
the hardware allocates) and the bytes of its register arrays; an array that outgrows what
one block may have (per block, per thread x threads, per SM) does not fit.

Candidates are rejected, in this order, for: breaking one of the spec's `assume a | b`
facts, shared memory per block, registers, or an occupancy of 0. Ties in t_bound (equal to
1e-9 relative) go to fewer bytes on chip, then the squarer tile (smaller max/min of the
varied values), then the smaller values in the order given."""

from __future__ import annotations

import time

import numpy
import sympy

from ..analysis.api import Spec, _numeric_values, load
from ..base.errors import Code, Diagnostic, SizeError, did_you_mean
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..gpu.occupancy import REGISTER_BYTES
from ..hardware.machine import Roof, level_roof
from ..lang.settings import (
    FLOAT_SIZES,
    GRID_SIZES,
    MAX_FLOAT_SIZE,
    refuse_beyond,
    resolve_settings,
)
from ..lang.sizes import refuse_large_numbers
from .not_run import refuse_not_run
from .rejections import (
    CODES,
    REJECTED,
    BrokenFact,
    Figures,
    RegistersOver,
    Rejected,
    Rejection,
    SharedHeld,
    SharedOver,
)

ROOF_LEVELS = (Level.GLOBAL, Level.L2, Level.SHARED)  # the levels whose bandwidth is a roof


@record
class Row:
    values: tuple[int, ...]  # the varied parameters, in the order given
    t_bound: float  # s
    binding: Roof  # a level's bandwidth (HBM, L2, shared) or a ceiling (tensor, vector, SFU)
    resident: int
    waves: int
    blocks: int
    on_chip_B: float  # shared + registers one block holds


@record
class Ranking:
    kernel: str
    machine: str
    parameters: tuple[str, ...]
    fixed: tuple[tuple[str, float], ...]  # the other parameters' values
    candidates: int
    fitting: int
    seconds: float  # the vectorised evaluation and ranking alone
    top: tuple[Row, ...]
    rejected: tuple[Rejection, ...]  # the first ones, in candidate order
    rejected_by: tuple[tuple[Rejected, int], ...]  # reason -> how many
    parallel: bool = True  # False: no grid, flat roofs (no blocks, occupancy or waves)


@record
class Evaluation:
    """Arrays over the candidates (one entry each)."""

    t_bound: numpy.ndarray
    binding: numpy.ndarray  # index into `roofs`
    roofs: tuple[Roof, ...]  # what each term runs against
    reject: numpy.ndarray  # 0: fits, else a reason's place in REJECTED, from 1
    resident: numpy.ndarray
    waves: numpy.ndarray
    blocks: numpy.ndarray
    on_chip: numpy.ndarray
    shared: numpy.ndarray | None = None  # bytes of shared memory per block
    registers: numpy.ndarray | None = None  # registers per block (spec's, or its arrays')
    array_registers: numpy.ndarray | None = None  # registers the register arrays need


MAX_CANDIDATES = 10_000_000  # combinations evaluated at once: about 2 GB of arrays


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
    numeric = _numeric_values(spec, settings)
    refuse_beyond({s: v for s, v in numeric.items() if str(s) not in varied}, raw, spec.kernel,
                  MAX_FLOAT_SIZE, FLOAT_SIZES, "give it at most 2^53 (9.0e15)")
    fixed = {symbol: value for symbol, value in numeric.items() if str(symbol) not in varied}
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


class Evaluator:
    """The closed forms of one spec on one machine, lambdified in the varied parameters."""

    def __init__(self, spec: Spec, machine, varied: list[str], fixed: dict,
                 check_facts: bool = True, max_clock: bool = True):
        # t_bound takes every compute and on-chip peak at the maximum clock (module clocks);
        # the phase plane draws the chapter's ridges, with the figures as given
        self.spec = spec
        self.machine = machine.at_max_clock if max_clock else machine
        self.check_facts = check_facts  # off for a continuous map (phase)
        self.cost = spec.cost(Reuse.SPEC)
        self.symbols = [spec.parameters[name] for name in varied]
        self.fixed = fixed
        self.precision = spec.checked.precision
        self.first_block = _first_block(self.cost.grid)

    def _f(self, expr):
        # a block's quantities may depend on where it stands (a ragged last tile along a
        # clipped loop, `min(m0 + TM, Mt)`): the first block's, a whole tile, stands for all
        expr = sympy.sympify(expr).xreplace(self.first_block).xreplace(self.fixed)
        function = sympy.lambdify(self.symbols, expr, modules="numpy")
        return lambda arrays: numpy.broadcast_to(
            numpy.asarray(function(*arrays), dtype=numpy.float64), arrays[0].shape)

    def __call__(self, arrays: list[numpy.ndarray] | numpy.ndarray) -> Evaluation:
        # a block of no shared memory or registers divides by zero where numpy.where then
        # takes the other branch; a size overflowing a double is inf: no warning for either
        with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._evaluate(arrays)

    def _evaluate(self, arrays: list[numpy.ndarray] | numpy.ndarray) -> Evaluation:
        terms: list[numpy.ndarray] = []
        roofs: list[Roof] = []
        reject = numpy.zeros(arrays[0].shape, dtype=numpy.int8)
        facts = self.spec.checked.divisibility if self.check_facts else ()
        for divisor, dividend in facts:
            d, n = self._f(divisor)(arrays), self._f(dividend)(arrays)
            broken = (numpy.mod(n, d) != 0) | (n < d)
            reject = numpy.where((reject == 0) & broken, CODES[Rejected.ASSUMPTION], reject)
        grid = self.cost.grid
        if grid is None:
            return self._flat(arrays, reject)
        m, ex = self.machine, self.machine.execution
        sms = m.sm_count
        shared = self._f(grid.on_chip.get(Level.SHARED, 0))(arrays)
        array_regs = numpy.ceil(self._f(grid.on_chip.get(Level.REGISTERS, 0))(arrays)
                                / REGISTER_BYTES)
        threads = self._f(grid.threads)(arrays)
        warp = ex.warp_size or 32
        warps = numpy.ceil(threads / warp)
        per_thread = (self._f(grid.registers)(arrays) if grid.registers is not None
                      else numpy.zeros_like(threads))
        unit = ex.register_granularity_per_warp or 1
        spec_regs = warps * numpy.ceil(per_thread * warp / unit) * unit
        regs = numpy.maximum(spec_regs, array_regs)
        reserved = ex.shared_reserved_per_block_B or 0
        big = numpy.inf
        too_big_shared = shared > (ex.shared_per_block_max_B or m.capacity(Level.SHARED) or big)
        block_regs = min(v for v in (ex.max_registers_per_block, ex.registers_per_sm) if v)
        too_many_regs = (regs > block_regs) | (array_regs > threads * (
            ex.max_registers_per_thread or big))
        reject = numpy.where((reject == 0) & too_big_shared, CODES[Rejected.SHARED], reject)
        reject = numpy.where((reject == 0) & too_many_regs, CODES[Rejected.REGISTERS], reject)
        limits = [numpy.full(threads.shape, float(ex.max_blocks_per_sm or 10 ** 9))]
        if m.capacity(Level.SHARED):
            limits.append(numpy.where(shared > 0, numpy.floor(
                m.capacity(Level.SHARED) / (shared + reserved)), big))
        if ex.registers_per_sm:
            limits.append(numpy.where(regs > 0, numpy.floor(ex.registers_per_sm / regs), big))
        if ex.max_threads_per_sm:
            limits.append(numpy.floor(ex.max_threads_per_sm / threads))
        if ex.max_warps_per_sm:
            limits.append(numpy.floor(ex.max_warps_per_sm / warps))
        resident = numpy.minimum.reduce(limits)
        reject = numpy.where((reject == 0) & (resident < 1), CODES[Rejected.OCCUPANCY],
                             reject)
        blocks = self._f(grid.blocks)(arrays)
        busiest = numpy.ceil(blocks / sms)
        for work_class, amount in grid.work.items():
            ceiling = m.ceiling(self.precision, work_class)
            terms.append(busiest * self._f(amount)(arrays) * sms / ceiling.peak_FLOPps)
            roofs.append(ceiling.roof)
        if Level.SHARED in grid.traffic and m.bandwidth(Level.SHARED):
            terms.append(busiest * self._f(grid.traffic[Level.SHARED])(arrays) * sms
                         / m.bandwidth(Level.SHARED))
            roofs.append(level_roof(Level.SHARED))
        for level in (Level.L2, Level.GLOBAL):
            if level in self.cost.traffic and m.bandwidth(level):
                terms.append(self._f(self.cost.traffic[level])(arrays) / m.bandwidth(level))
                roofs.append(level_roof(level))
        stacked = numpy.stack(terms)
        safe = numpy.maximum(resident, 1)
        return Evaluation(stacked.max(axis=0), stacked.argmax(axis=0), tuple(roofs), reject,
                          resident, numpy.ceil(blocks / (sms * safe)), blocks,
                          shared + regs * REGISTER_BYTES, shared, regs, array_regs)

    def _flat(self, arrays, reject) -> Evaluation:
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
        held = numpy.zeros(arrays[0].shape)
        for scope in self.cost.scopes:
            if scope.level in (Level.SHARED, Level.REGISTERS) and m.capacity(scope.level):
                need = self._f(scope.held_bytes * scope.stages)(arrays)
                held = held + need
                code = CODES[Rejected.SHARED if scope.level == Level.SHARED
                             else Rejected.REGISTERS]
                reject = numpy.where((reject == 0) & (need > m.capacity(scope.level)), code,
                                     reject)
        stacked = numpy.stack(terms)
        ones = numpy.ones(arrays[0].shape)
        return Evaluation(stacked.max(axis=0), stacked.argmax(axis=0), tuple(roofs), reject,
                          ones, ones, ones, held)


def _first_block(grid) -> dict[sympy.Symbol, sympy.Expr]:
    """Each grid iterator at its first value (outer ones put into inner bounds)."""
    first: dict[sympy.Symbol, sympy.Expr] = {}
    if grid is None:
        return first
    for iterator, low in zip(grid.iterators, grid.lower_bounds):
        first[iterator] = sympy.sympify(low).xreplace(first)
    return first


def tune(spec_path: str | Spec, machine, varied: list[str], values: numpy.ndarray,
         raw: dict | None = None, *, top: int = 10, show_rejected: int = 2,
         places: dict | None = None) -> Ranking:
    spec = load(spec_path) if not isinstance(spec_path, Spec) else spec_path
    refuse_not_run(spec.kernel, spec.cost(Reuse.SPEC), machine, "tune")
    if spec.cost(Reuse.SPEC).grid is not None:  # its blocks counted in 64-bit integers
        refuse_large_numbers(spec.kernel, MAX_FLOAT_SIZE, GRID_SIZES)
    fixed = fixed_values(spec, varied, raw or {}, places=places)
    if len(values) ** len(varied) > MAX_CANDIDATES:
        raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
            None, f"{len(values):,} values of each of {len(varied)} parameters make "
                  f"{len(values) ** len(varied):,} combinations, more than {MAX_CANDIDATES:,}",
            "give fewer --values (a larger :STEP, or --pow2), or vary fewer parameters"))
    evaluator = Evaluator(spec, machine, varied, fixed)
    evaluator(_mesh([values] * len(varied))[:, :1])  # lambdify once before timing
    started = time.perf_counter()
    mesh = _mesh([values] * len(varied))
    result = evaluator(list(mesh))
    order = rank(result, mesh)
    seconds = time.perf_counter() - started
    rows = tuple(Row(tuple(int(v) for v in mesh[:, i]), float(result.t_bound[i]),
                     result.roofs[result.binding[i]], int(result.resident[i]),
                     int(result.waves[i]), int(result.blocks[i]), float(result.on_chip[i]))
                 for i in order[:top])
    rejected = []
    for code, reason in enumerate(REJECTED, 1):  # the first few of each reason
        for i in numpy.flatnonzero(result.reject == code)[:show_rejected]:
            rejected.append(Rejection(tuple(int(v) for v in mesh[:, i]), reason,
                                      _figures(result, int(i), machine, evaluator, mesh)))
    counts = numpy.bincount(result.reject, minlength=len(REJECTED) + 1)
    by = tuple((reason, int(counts[code])) for code, reason in enumerate(REJECTED, 1)
               if counts[code])
    fixed_out = tuple((str(s), float(v)) for s, v in fixed.items())
    return Ranking(spec.name, machine.id, tuple(varied), fixed_out, int(mesh.shape[1]),
                   len(order), seconds, rows, tuple(rejected), by,
                   spec.cost(Reuse.SPEC).grid is not None)


def _figures(result: Evaluation, i: int, machine, evaluator, mesh) -> Figures | None:
    """The figures of candidate i's rejection, where there are some to give."""
    reason = REJECTED[result.reject[i] - 1]
    ex = machine.execution
    if reason == Rejected.ASSUMPTION:
        for divisor, dividend in evaluator.spec.checked.divisibility:
            d = float(evaluator._f(divisor)(list(mesh[:, i:i + 1]))[0])
            n = float(evaluator._f(dividend)(list(mesh[:, i:i + 1]))[0])
            if n % d or n < d:
                return BrokenFact(divisor, dividend, d, n)
    if reason == Rejected.SHARED and result.shared is not None:
        limit = ex.shared_per_block_max_B or machine.capacity(Level.SHARED)
        return SharedOver(float(result.shared[i]), float(limit))
    if reason == Rejected.SHARED:
        return SharedHeld(float(result.on_chip[i]))
    if reason == Rejected.REGISTERS and result.array_registers is not None:
        allowed = min(v for v in (ex.max_registers_per_block, ex.registers_per_sm) if v)
        return RegistersOver(float(result.array_registers[i]), float(allowed))
    return None


def own_rank(ranking: Ranking, spec: Spec) -> int | None:
    """Where the spec's own values (its defaults) of the varied parameters rank, from 1."""
    defaults = {str(p): v for p, v in spec.checked.defaults.items()}
    if not all(name in defaults for name in ranking.parameters):
        return None
    own = tuple(defaults[name] for name in ranking.parameters)
    for position, row in enumerate(ranking.top):
        if row.values == own:
            return position + 1
    return None


def rank(result: Evaluation, mesh: numpy.ndarray) -> numpy.ndarray:
    """Indices of the fitting candidates, best first, by t_bound then the tie rule."""
    fits = numpy.flatnonzero(result.reject == 0)
    if fits.size == 0:
        return fits
    t = result.t_bound[fits]
    level = numpy.round(t / t.min(), 9)  # equal to 1e-9 relative: a tie
    chosen = mesh[:, fits]
    squareness = chosen.max(axis=0) / chosen.min(axis=0)
    keys = [*chosen[::-1], squareness, result.on_chip[fits], level]  # lexsort: last is first
    return fits[numpy.lexsort(keys)]


def _mesh(axes: list[numpy.ndarray]) -> numpy.ndarray:
    grids = numpy.meshgrid(*axes, indexing="ij")
    return numpy.stack([g.ravel() for g in grids])
