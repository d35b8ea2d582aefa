"""One grid axis in classes: an expression of one grid iterator as a few pieces of polynomials.

A grid iterator runs x = low, low + step, ...: at block position p (0 <= p < n) it is
low + step p. An expression of x alone, the sizes substituted (a box bound, a factor of a
per-block amount), is exact on a few runs of positions: interior tiles are equal, the last
tile is clipped by min, a causal mask makes an amount affine in the index. Here it becomes
pieces [start, stop), each a polynomial in q = p - start with exact rational coefficients:

- x itself is one piece (low, step); sums, products and whole powers combine pieces where
  their runs meet;
- min and max split a run where two arguments cross: an affine difference crosses once, at
  the first position past its root; they then take, run by run, the argument that is least
  (greatest) at both ends of the run, which an affine difference makes least throughout;
- floor and ceiling of an argument whose slope per position is a whole number stay
  polynomials (floor(c + k q) = floor(c) + k q).

What has no closed form here (a min of curves, floor of a fractional slope, another function)
is split into single positions over a short run (SHORT_RUN), and raises Unclassified over a
longer one: its reason says why, and the caller enumerates small grids or bounds large ones.
Nothing here grows with the number of positions: a run of a million equal tiles is one piece."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import sympy

from ..base.records import record
from .unclassified import Reason, Unclassified, Why

Poly = tuple[Fraction, ...]  # coefficients in q, the constant first; () is zero
ONE: Poly = (Fraction(1),)
SHORT_RUN = 64  # positions a run without a closed form may be split into, one by one
MAX_PIECES = 4096  # pieces one function may hold before it counts as unclassified


@record
class Piece:
    start: int  # first position
    stop: int  # one past the last position
    poly: Poly  # the value at position start + q


Pieces = tuple[Piece, ...]


# -- polynomials in q, exact --------------------------------------------------------------

def _trim(coefficients: Sequence[Fraction]) -> Poly:
    coefficients = list(coefficients)
    while coefficients and coefficients[-1] == 0:
        coefficients.pop()
    return tuple(coefficients)


def poly_add(a: Poly, b: Poly) -> Poly:
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    return _trim([c + (shorter[k] if k < len(shorter) else 0) for k, c in enumerate(longer)])


def poly_scale(a: Poly, factor: Fraction) -> Poly:
    return _trim([c * factor for c in a])


def poly_mul(a: Poly, b: Poly) -> Poly:
    if not a or not b:
        return ()
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return _trim(out)


def poly_at(a: Poly, q: int | Fraction) -> Fraction:
    value = Fraction(0)
    for c in reversed(a):
        value = value * q + c
    return value


def poly_shift(a: Poly, delta: int) -> Poly:
    """a(q + delta), by Horner's rule on polynomials."""
    out: Poly = ()
    for c in reversed(a):
        out = poly_add(poly_mul(out, (Fraction(delta), Fraction(1))), (c,))
    return out


def degree(a: Poly) -> int:
    return len(a) - 1  # -1 for zero


# -- pieces -------------------------------------------------------------------------------

def constant(value: Fraction, n: int) -> Pieces:
    return (Piece(0, n, _trim([value])),)


def merged(pieces: Sequence[Piece]) -> Pieces:
    """Neighbours that continue one polynomial, as one piece; empty runs dropped."""
    out: list[Piece] = []
    for piece in pieces:
        if piece.stop <= piece.start:
            continue
        if piece.stop - piece.start == 1 and degree(piece.poly) > 0:  # one value
            piece = Piece(piece.start, piece.stop, _trim([poly_at(piece.poly, 0)]))
        if out and poly_shift(out[-1].poly, piece.start - out[-1].start) == piece.poly:
            out[-1] = Piece(out[-1].start, piece.stop, out[-1].poly)
        else:
            out.append(piece)
    if len(out) > MAX_PIECES:
        raise Unclassified(Why(Reason.AXIS_PIECES, limit=MAX_PIECES))
    return tuple(out)


def aligned(functions: Sequence[Pieces]) -> list[tuple[int, int, list[Poly]]]:
    """The runs between every function's breakpoints, with each polynomial rebased to the
    run's first position."""
    cuts = sorted({piece.start for f in functions for piece in f}
                  | {f[-1].stop for f in functions if f})
    runs = []
    index = [0] * len(functions)
    for start, stop in itertools.pairwise(cuts):
        polys = []
        for k, f in enumerate(functions):
            while f[index[k]].stop <= start:
                index[k] += 1
            piece = f[index[k]]
            polys.append(poly_shift(piece.poly, start - piece.start))
        runs.append((start, stop, polys))
    return runs


def combine(functions: Sequence[Pieces], op: Callable[[list[Poly]], Poly]) -> Pieces:
    return merged([Piece(start, stop, op(polys)) for start, stop, polys in aligned(functions)])


def shifted(f: Pieces) -> Pieces:
    """g(p) = f(p + 1), on positions 0 .. n - 2."""
    out = []
    for piece in f:
        start, stop = max(piece.start - 1, 0), piece.stop - 1
        out.append(Piece(start, stop, poly_shift(piece.poly, start + 1 - piece.start)))
    return merged(out)


def minimum(f: Pieces) -> Fraction | None:
    """The least value over all positions (None without any): a polynomial of degree 2 at
    most on a long run (its ends and the integers beside its vertex), any on a short one."""
    least: Fraction | None = None
    for piece in f:
        last = piece.stop - piece.start - 1
        points = {0, last}
        if degree(piece.poly) == 2:
            vertex = -piece.poly[1] / (2 * piece.poly[2])
            points |= {min(max(math.floor(vertex) + k, 0), last) for k in (0, 1)}
        elif degree(piece.poly) > 2:
            if last >= SHORT_RUN:
                raise Unclassified(Why(Reason.HIGH_DEGREE, degree=degree(piece.poly),
                                       blocks=last + 1))
            points = set(range(last + 1))
        value = min(poly_at(piece.poly, q) for q in points)
        least = value if least is None else min(least, value)
    return least


def at_least(f: Pieces, bound: int) -> bool:
    least = minimum(f)
    return least is None or least >= bound


# -- an expression of one iterator, as pieces ---------------------------------------------

def axis_function(expr: sympy.Expr, iterator: sympy.Symbol, low: Fraction, step: Fraction,
                  n: int) -> Pieces:
    """expr (sizes substituted; `iterator` its only symbol) at positions 0 .. n - 1."""
    if n <= 0:
        return ()
    return _build(sympy.sympify(expr), iterator, low, step, n)


def _build(expr: sympy.Expr, x: sympy.Symbol, low: Fraction, step: Fraction,
           n: int) -> Pieces:
    if expr.is_Rational:
        return constant(Fraction(int(expr.p), int(expr.q)), n)
    if expr == x:
        return merged([Piece(0, n, _trim([low, step]))])
    if expr.is_Symbol:
        raise Unclassified(Why(Reason.NO_VALUE, str(expr)))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        parts = [_build(arg, x, low, step, n) for arg in expr.args]
        return _extreme(parts, least=isinstance(expr, sympy.Min), text=str(expr))
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return _rounded(_build(expr.args[0], x, low, step, n),
                        up=isinstance(expr, sympy.ceiling), text=str(expr))
    if expr.is_Add or expr.is_Mul:
        parts = [_build(arg, x, low, step, n) for arg in expr.args]
        join = poly_add if expr.is_Add else poly_mul
        return combine(parts, lambda polys: _fold(join, polys))
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        base = _build(expr.base, x, low, step, n)
        power = int(expr.exp)
        return combine([base], lambda polys: _fold(poly_mul, [polys[0]] * power or [ONE]))
    raise Unclassified(Why(Reason.OF_INDEX, str(expr)))


def _fold(join: Callable[[Poly, Poly], Poly], polys: list[Poly]) -> Poly:
    result = polys[0]
    for poly in polys[1:]:
        result = join(result, poly)
    return result


def _extreme(parts: list[Pieces], least: bool, text: str) -> Pieces:
    """min (least) or max of the parts, run by run."""
    out = []
    for start, stop, polys in aligned(parts):
        length = stop - start
        cuts = {0, length}
        for i in range(len(polys)):
            for j in range(i + 1, len(polys)):
                cuts |= _crossings(poly_add(polys[i], poly_scale(polys[j], Fraction(-1))),
                                   length, text)
        ordered = sorted(cuts)
        for first, last in itertools.pairwise(ordered):
            rebased = [poly_shift(poly, first) for poly in polys]
            out.append(Piece(start + first, start + last,
                             _chosen(rebased, last - first - 1, least, text)))
    return merged(out)


def _crossings(difference: Poly, length: int, text: str) -> set[int]:
    """Offsets where the sign of a difference may change: past the root of an affine one,
    at every offset of a short run for a curve."""
    if degree(difference) <= 0:
        return set()
    if degree(difference) == 1:
        root = -difference[0] / difference[1]
        cut = math.floor(root) + 1
        return {cut} if 0 < cut < length else set()
    if length > SHORT_RUN:
        raise Unclassified(Why(Reason.CURVES, text, blocks=length))
    return set(range(length))


def _chosen(polys: list[Poly], last: int, least: bool, text: str) -> Poly:
    """The polynomial that is least (greatest) at both ends of a run no difference crosses."""
    sign = 1 if least else -1
    for candidate in polys:
        if all(sign * (poly_at(candidate, q) - poly_at(other, q)) <= 0
               for other in polys for q in (0, last)):
            return candidate
    raise Unclassified(Why(Reason.NO_EXTREME, text))  # pragma: no cover


def _rounded(parts: Pieces, up: bool, text: str) -> Pieces:
    round_ = math.ceil if up else math.floor
    out = []
    for piece in parts:
        poly, length = piece.poly, piece.stop - piece.start
        if degree(poly) <= 0:
            out.append(Piece(piece.start, piece.stop, _trim([Fraction(round_(poly_at(poly, 0)))])))
        elif degree(poly) == 1 and poly[1].denominator == 1:
            out.append(Piece(piece.start, piece.stop, (Fraction(round_(poly[0])), poly[1])))
        elif length <= SHORT_RUN:
            out.extend(Piece(piece.start + q, piece.start + q + 1,
                             _trim([Fraction(round_(poly_at(poly, q)))])) for q in range(length))
        else:
            raise Unclassified(Why(Reason.UNEVEN_STEPS, text, blocks=length))
    return merged(out)
