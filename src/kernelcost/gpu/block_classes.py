"""The thread blocks of a grid in classes, at numeric sizes: a per-block amount as a few
classes of blocks with their multiplicities, and what the busiest SM runs at least.

A rectangular grid is a product of axes (the trip counts free of the grid iterators). Each
min, max, floor or ceiling of a per-block amount holds one grid iterator; along its axis it
splits the blocks into runs (axis_classes): the interior tiles, the clipped last one, the
single blocks of a short stretch without a closed form. The product of the runs of the axes
the amount holds is a cell, where the amount is a polynomial in the positions:
- constant: one class, as many blocks as the cell and the axes it does not hold have;
- affine in one position (a causal mask): an arithmetic class, first + slope q for q in
  0 .. length - 1, each value on as many blocks as the other axes give;
- otherwise, a cell of at most CELL_POINTS positions, one class a position.
Anything else raises Unclassified, and the caller enumerates small grids (ENUMERATE_AT_MOST
blocks) or keeps a looser bound with the reason."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from fractions import Fraction

import sympy

from ..base.kinds import Raster
from ..base.records import record
from ..count.cost import GridCost
from .axis_classes import Pieces, axis_function
from .unclassified import Reason, Unclassified, Why

ENUMERATE_AT_MOST = 100_000  # blocks the fallback may enumerate, one by one
CELL_POINTS = 4096  # positions of a cell whose amount is listed value by value
MAX_CELLS = 4096  # products of runs one amount may split into
ROUNDING = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)


@record
class GridAxes:
    """A rectangular grid: along axis k the iterator runs lows[k] + steps[k] p, p < counts[k]."""

    iterators: tuple[sympy.Symbol, ...]
    counts: tuple[int, ...]
    lows: tuple[Fraction, ...]
    steps: tuple[Fraction, ...]

    @property
    def blocks(self) -> int:
        return math.prod(self.counts)

    def function(self, expr: sympy.Expr, axis: int) -> Pieces:
        return axis_function(expr, self.iterators[axis], self.lows[axis], self.steps[axis],
                             self.counts[axis])


@record
class AmountClass:
    """Blocks whose amount is first + slope q, for q in 0 .. length - 1, `multiplicity` blocks
    each value."""

    first: Fraction
    slope: Fraction
    length: int
    multiplicity: int

    @property
    def blocks(self) -> int:
        return self.length * self.multiplicity


@record
class WaveUnions:
    """What the waves touch: the figures of the wave estimate, by classes or enumeration."""

    blocks: int
    waves: int  # ceil(blocks / wave blocks)
    by_tensor: dict[str, Fraction]  # bytes of each tensor summed over the waves' unions
    step_union: Fraction  # the largest wave's step union, bytes (before the stages)
    raster: Raster  # the raster used: row order where the grid's grouped raster cannot be
    group: int  # rows of blocks per group (grouped)


# -- sizes ----------------------------------------------------------------------------------

def numeric_sizes(values: Mapping[sympy.Symbol, object]) -> dict[str, sympy.Rational]:
    """Sizes by name: a Symbol made with other assumptions still finds its value."""
    return {str(symbol): sympy.Rational(value) for symbol, value in values.items()}


def substituted(expr: object, sizes: Mapping[str, sympy.Rational],
                keep: frozenset[sympy.Symbol] = frozenset()) -> sympy.Expr:
    """expr with the sizes put in, the symbols in `keep` (grid iterators) left free."""
    found: sympy.Expr = sympy.sympify(expr)
    return found.xreplace({symbol: sizes[symbol.name] for symbol in found.free_symbols
                           if symbol not in keep and symbol.name in sizes})


def fraction_of(expr: object, sizes: Mapping[str, sympy.Rational]) -> Fraction:
    value = sympy.Rational(substituted(expr, sizes))
    return Fraction(int(value.p), int(value.q))


def _whole(expr: object, sizes: Mapping[str, sympy.Rational]) -> int:
    value = substituted(expr, sizes)
    if not value.is_Rational:
        raise ValueError(f"`{value}` needs a value for "
                         f"{', '.join(sorted(map(str, value.free_symbols)))}")
    if value.q != 1:
        raise ValueError(f"`{value}` is not an integer at some block")
    return int(value.p)


def grid_axes(grid: GridCost, sizes: Mapping[str, sympy.Rational]) -> GridAxes:
    """The axes of a rectangular grid; Unclassified where a trip count, first value or step
    holds a grid iterator (a triangular grid), ValueError where one is not a whole number."""
    iterators = set(grid.iterators)
    for level, loop in enumerate(zip(grid.trips, grid.lower_bounds, grid.steps)):
        for expr in loop:
            inner = sympy.sympify(expr).free_symbols & iterators
            if inner:
                raise Unclassified(Why(Reason.NOT_RECTANGLE, str(grid.iterators[level]),
                                         tuple(sorted(map(str, inner)))))
    counts = tuple(max(_whole(trips, sizes), 0) for trips in grid.trips)
    lows = tuple(Fraction(_whole(low, sizes)) for low in grid.lower_bounds)
    steps = tuple(Fraction(_whole(step, sizes)) for step in grid.steps)
    return GridAxes(tuple(grid.iterators), counts, lows, steps)


# -- a per-block amount in classes -----------------------------------------------------------

def amount_classes(axes: GridAxes, expr: sympy.Expr) -> list[AmountClass]:
    """The blocks' values of expr (sizes substituted, the grid iterators free) in classes."""
    expr = sympy.sympify(expr)
    if axes.blocks == 0:
        return []
    index = {iterator: k for k, iterator in enumerate(axes.iterators)}
    if expr.has(sympy.Sum):
        expr = expr.doit()  # a sum over a block's loop, its bounds now numbers but for the grid's
        if expr.has(sympy.Sum):
            raise Unclassified(Why(Reason.OPEN_SUM, str(expr)))
    stray = expr.free_symbols - set(index)
    if stray:
        raise Unclassified(Why(Reason.NEEDS_VALUES, str(expr), tuple(sorted(map(str, stray)))))
    used = sorted(index[symbol] for symbol in expr.free_symbols)
    holding = {node: {index[symbol] for symbol in node.free_symbols}
               for node in _rounding_nodes(expr)}
    if any(len(held) > 1 for held in holding.values()):
        return _diagonal_classes(axes, expr, holding, used)
    nodes = {node: min(held) for node, held in holding.items()}
    functions = {node: axes.function(node, axis) for node, axis in nodes.items()}
    runs = {axis: _runs([functions[node] for node in nodes if nodes[node] == axis],
                        axes.counts[axis]) for axis in used}
    if math.prod(len(runs[axis]) for axis in used) > MAX_CELLS:
        raise Unclassified(Why(Reason.MANY_CELLS, str(expr), limit=MAX_CELLS))
    others = math.prod(count for k, count in enumerate(axes.counts) if k not in used)
    positions = {axis: sympy.Dummy(f"q{axis}", integer=True) for axis in used}
    classes: list[AmountClass] = []
    for cell in itertools.product(*(runs[axis] for axis in used)):
        starts = dict(zip(used, (start for start, _ in cell)))
        lengths = dict(zip(used, (stop - start for start, stop in cell)))
        replace = {axes.iterators[axis]: _affine(axes.lows[axis] + axes.steps[axis] * start,
                                                 axes.steps[axis], positions[axis])
                   for axis, start in starts.items()}
        replace.update({node: _piece_expr(functions[node], starts[axis], positions[axis])
                        for node, axis in nodes.items()})
        classes += _cell_classes(expr.xreplace(replace), used, positions, lengths, others)
    return classes


def _rounding_nodes(expr: sympy.Expr) -> list[sympy.Expr]:
    """The outermost min, max, floor and ceiling nodes that hold a grid iterator."""
    if isinstance(expr, ROUNDING):
        return [expr] if expr.free_symbols else []
    return [node for arg in expr.args for node in _rounding_nodes(arg)]


def _diagonal_classes(axes: GridAxes, expr: sympy.Expr, holding: dict[sympy.Expr, set[int]],
                      used: list[int]) -> list[AmountClass]:
    """A causal diagonal: the amount holds two grid indices x_a, x_b of one step, and its
    min, max, floor and ceiling hold them only as d = x_b - x_a. Along d the blocks fall
    into runs (below the diagonal, on it, above); in a run the amount is a polynomial in
    the position p along a and the offset r along d. A run where it is constant is one class
    of as many blocks as its diagonals hold; a short run is listed diagonal by diagonal (an
    amount of r alone) or block by block (CELL_POINTS); anything else is Unclassified."""
    if len(used) != 2 or any(held != set(used) for held in holding.values()):
        raise Unclassified(Why(Reason.BEYOND_DIAGONAL, str(expr)))
    a, b = used
    if axes.steps[a] != axes.steps[b]:
        raise Unclassified(Why(Reason.DIAGONAL_STEPS, str(expr)))
    step, (n_a, n_b) = axes.steps[a], (axes.counts[a], axes.counts[b])
    x_a, x_b = axes.iterators[a], axes.iterators[b]
    offset = sympy.Dummy("d", integer=True)
    functions = {}
    for node in holding:
        along = node.xreplace({x_b: x_a + offset})
        if x_a in along.free_symbols:
            raise Unclassified(Why(Reason.OFF_DIAGONAL, str(node), (str(x_b), str(x_a))))
        first = axes.lows[b] - axes.lows[a] - step * (n_a - 1)  # d at diagonal r = 0
        functions[node] = axis_function(along, offset, first, step, n_a + n_b - 1)
    position, diagonal = sympy.Dummy("p", integer=True), sympy.Dummy("r", integer=True)
    classes: list[AmountClass] = []
    for start, stop in _runs(list(functions.values()), n_a + n_b - 1):
        shift = start - (n_a - 1)  # delta = q - p at the run's first diagonal
        replace = {node: _piece_expr(function, start, diagonal)
                   for node, function in functions.items()}
        replace[x_a] = _affine(axes.lows[a], step, position)
        replace[x_b] = _affine(axes.lows[b] + step * shift, step, position + diagonal)
        run = _DiagonalRun(n_a, n_b, shift, stop - start, axes.blocks // (n_a * n_b))
        classes += _diagonal_run(expr.xreplace(replace), position, diagonal, run)
    return classes


@record
class _DiagonalRun:
    """Diagonals r = 0 .. length - 1 of an n_a x n_b grid, at q - p = shift + r; each block
    stands for `others` blocks of the grid's other axes."""

    n_a: int
    n_b: int
    shift: int
    length: int
    others: int


def _diagonal_run(expr: sympy.Expr, position: sympy.Symbol, diagonal: sympy.Symbol,
                  run: _DiagonalRun) -> list[AmountClass]:
    n_a, n_b, shift, length, others = run.n_a, run.n_b, run.shift, run.length, run.others
    try:
        poly = sympy.Poly(sympy.expand(expr), position, diagonal)
    except sympy.PolynomialError as error:
        raise Unclassified(Why(Reason.NOT_POLYNOMIAL, str(expr))) from error
    terms = [(monomial, _fraction(c)) for monomial, c in poly.terms() if c != 0]
    value = _evaluator(terms)
    if not any(any(m) for m, _ in terms):
        blocks = _diagonal_blocks(n_a, n_b, shift, shift + length)
        return [AmountClass(value((0, 0)), Fraction(0), 1, blocks * others)] if blocks else []
    if not any(m[0] for m, _ in terms) and length <= CELL_POINTS:
        return [AmountClass(value((0, r)), Fraction(0), 1, count * others)
                for r in range(length)
                if (count := _diagonal_blocks(n_a, n_b, shift + r, shift + r + 1))]
    if _diagonal_blocks(n_a, n_b, shift, shift + length) > CELL_POINTS:
        raise Unclassified(Why(Reason.DIAGONAL_VARIES, str(expr)))
    return [AmountClass(value((p, r)), Fraction(0), 1, others) for r in range(length)
            for p in range(max(0, -(shift + r)), min(n_a, n_b - (shift + r)))]


def _diagonal_blocks(n_a: int, n_b: int, low: int, high: int) -> int:
    """Blocks (p, q) of an n_a x n_b grid with low <= q - p < high: on diagonal delta,
    min(n_a, n_b - delta) - max(0, -delta) of them, linear between delta = 0 and
    delta = n_b - n_a, so each stretch between those is an arithmetic series."""
    low, high = max(low, -(n_a - 1)), min(high, n_b)
    cuts = sorted({low, high} | {cut for cut in (0, n_b - n_a) if low < cut < high})
    total = 0
    for first, stop in itertools.pairwise(cuts):
        ends = [min(n_a, n_b - delta) - max(0, -delta) for delta in (first, stop - 1)]
        total += (ends[0] + ends[1]) * (stop - first) // 2
    return total


def _runs(functions: list[Pieces], count: int) -> list[tuple[int, int]]:
    cuts = sorted({0, count} | {piece.start for f in functions for piece in f})
    return list(itertools.pairwise(cuts))


def _affine(first: Fraction, slope: Fraction, q: sympy.Symbol) -> sympy.Expr:
    return _rational(first) + _rational(slope) * q


def _rational(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def _piece_expr(function: Pieces, start: int, q: sympy.Symbol) -> sympy.Expr:
    """The polynomial of the piece holding position `start`, in q = position - start."""
    piece = next(piece for piece in function if piece.start <= start < piece.stop)
    offset = start - piece.start
    return sum((_rational(c) * (q + offset) ** k for k, c in enumerate(piece.poly)),
               sympy.Integer(0))


def _cell_classes(expr: sympy.Expr, used: list[int], positions: dict[int, sympy.Symbol],
                  lengths: dict[int, int], others: int) -> list[AmountClass]:
    symbols = [positions[axis] for axis in used]
    cell_blocks = math.prod(lengths.values())
    if not symbols:
        return [AmountClass(_fraction(expr), Fraction(0), 1, others)]
    try:
        poly = sympy.Poly(sympy.expand(expr), *symbols)
    except sympy.PolynomialError as error:
        raise Unclassified(Why(Reason.NOT_POLYNOMIAL, str(expr))) from error
    terms = [(monomial, _fraction(c)) for monomial, c in poly.terms() if c != 0]
    varying = [k for k in range(len(symbols)) if any(m[k] for m, _ in terms)]
    if not varying:
        return [AmountClass(sum((c for _, c in terms), Fraction(0)), Fraction(0), 1,
                            cell_blocks * others)]
    if len(varying) == 1 and poly.total_degree() == 1:
        axis = used[varying[0]]
        first = sum((c for m, c in terms if not any(m)), Fraction(0))
        slope = sum((c for m, c in terms if any(m)), Fraction(0))
        return [AmountClass(first, slope, lengths[axis], cell_blocks // lengths[axis] * others)]
    if cell_blocks > CELL_POINTS:
        raise Unclassified(Why(Reason.CELL_DEGREE, str(expr), degree=poly.total_degree(),
                               blocks=cell_blocks))
    value = _evaluator(terms)
    return [AmountClass(value(point), Fraction(0), 1, others) for point in
            itertools.product(*(range(lengths[axis]) for axis in used))]


def _evaluator(terms: list[tuple[tuple[int, ...], Fraction]]
               ) -> Callable[[tuple[int, ...]], Fraction]:
    def value(point: tuple[int, ...]) -> Fraction:
        return sum((c * math.prod(x ** e for x, e in zip(point, m)) for m, c in terms),
                   Fraction(0))

    return value


def _fraction(expr: sympy.Expr) -> Fraction:
    value = sympy.Rational(expr)
    return Fraction(int(value.p), int(value.q))


# -- what the busiest SM runs ----------------------------------------------------------------

def busiest_amount(classes: list[AmountClass], sms: int) -> Fraction | None:
    """The most the busiest SM runs at least, whatever the schedule: some SM runs
    ceil(B / SMs) blocks, at least the sum of that many smallest, and one runs the largest.
    None without blocks."""
    blocks = sum(found.blocks for found in classes)
    if blocks == 0:
        return None
    largest = max(found.first + found.slope * (found.length - 1) if found.slope > 0
                  else found.first for found in classes)
    return max(largest, smallest_sum(classes, -(-blocks // sms)))


def whole(classes: list[AmountClass]) -> bool:
    """Whether every block's amount is a whole number."""
    return all(found.first.denominator == 1 and (found.length == 1 or
                                                 found.slope.denominator == 1)
               for found in classes)


def smallest_sum(classes: list[AmountClass], count: int) -> Fraction:
    """The sum of the `count` smallest amounts: below the count-th smallest value t, every
    block; at t, as many as are missing."""
    rising = [_rising(found) for found in classes]
    threshold = min(value for value in (_first_reaching(found, rising, count)
                                        for found in rising) if value is not None)
    below, total = 0, Fraction(0)
    for found in rising:
        n = _count_below(found, threshold)
        below += n * found.multiplicity
        total += found.multiplicity * (n * found.first + found.slope * n * (n - 1) / 2)
    return total + (count - below) * threshold


def _rising(found: AmountClass) -> AmountClass:
    if found.slope >= 0 or found.length == 1:
        return found
    return AmountClass(found.first + found.slope * (found.length - 1), -found.slope,
                       found.length, found.multiplicity)


def _count_below(found: AmountClass, threshold: Fraction, inclusive: bool = False) -> int:
    """Values of the class below (or at, with inclusive) the threshold."""
    if found.slope == 0 or found.length == 1:
        hit = found.first <= threshold if inclusive else found.first < threshold
        return found.length if hit else 0
    steps = (threshold - found.first) / found.slope
    n = math.floor(steps) + 1 if inclusive else math.ceil(steps)
    return min(max(n, 0), found.length)


def _first_reaching(found: AmountClass, classes: list[AmountClass], count: int
                    ) -> Fraction | None:
    """The least value of the class at or below which `count` blocks lie, if any."""
    def reaches(q: int) -> bool:
        value = found.first + found.slope * q
        return sum(_count_below(other, value, inclusive=True) * other.multiplicity
                   for other in classes) >= count

    low, high = 0, found.length - 1
    if not reaches(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle + 1
    return found.first + found.slope * low
