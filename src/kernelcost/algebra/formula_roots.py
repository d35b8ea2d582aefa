"""The closed-form roots of a cleared polynomial of degree 3 or more (the cubic's formula, in
cube roots, often of complex numbers) at one rational target, placed among the polynomial's
exact real roots there without sympy building and evaluating each formula at that target.

`equations` solves quantity = target once with the target as a symbol; at each machine's
ridge sympy would substitute it into every formula (hundreds of nodes), evaluate the result
to 30 digits to see whether it is real and which exact real root (CRootOf) it is, and ask the
slope's sign at that CRootOf: some 15 ms a formula and machine. Here each formula is evaluated
in mpmath arithmetic on principal branches (sympy's, for a rational power of a complex
number) at 50 digits, and placed only where every decision clears its threshold by
a wide margin: a formula is real or not, its real values are as many as the exact real roots
and far apart (then the k-th smallest is the k-th root), each root is clearly above or below
1, and the denominator's sign at it clearly nonzero. Anything closer answers None and
`equations` takes sympy's path: the two give the same roots, values and sides (a property
test holds them equal on random cubics). It replaces, for these formulas, sympy's
substitution and evalf (`equations._real_root_near`) and its assumptions on the slope there.

`root_floor` is sympy's floor of a rational times a real CRootOf (a crossing's integer
bound), exact: from the brackets `place` kept, else by Sturm counts."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import mpmath
import sympy

from ..base.kinds import Side
from ..base.records import record
from . import cubic_real_roots

DIGITS = 50  # working precision; every margin below is 20 or more digits wider than its error
REAL = 1e-30  # |imaginary part| under this share of the size: a real value
NOT_REAL = 1e-6  # over this: not real (sympy's path calls a value real under 1e-9)
APART = 1e-6  # real values closer than this share of the size are left to sympy
NONZERO = 1e-25  # a polynomial's value under this share of its terms' size: undecided

@record
class Placed:
    """What a formula is at one target: the exact real root it equals, at least 1, with the
    side where the quantity exceeds the target; value None where it is no real root at
    least 1."""

    value: sympy.Expr | None
    side: Side | None = None


def can_evaluate(expr: sympy.Expr) -> bool:
    """Whether `program` takes expr: numbers, symbols, I, sums, products and powers with
    rational exponents only."""
    return all(node.is_Add or node.is_Mul or node.is_Symbol or node.is_Rational
               or node is sympy.I or (node.is_Pow and node.exp.is_Rational)
               for node in sympy.preorder_traversal(expr))


# The formulas as steps, each subexpression once, operands before what combines them:
# (kind, payload, the indices of the steps it combines). Built once for an equation's
# formulas (the cubic's three share their cube and square roots), they are run at every
# machine's target without walking and hashing the sympy tree again.
_POINT, _NUMBER, _UNIT, _INTEGER_POWER, _ROOT, _SUM, _PRODUCT = range(7)
Step = tuple[int, tuple[int, int], tuple[int, ...]]


@record
class Program:
    """Formulas in one symbol as steps (see `program`); `outputs`: each formula's step."""

    steps: tuple[Step, ...]
    outputs: tuple[int, ...]


def program(formulas: Sequence[sympy.Expr], symbol: sympy.Symbol) -> Program:
    """The formulas (can_evaluate) as one Program. `run` values it in mpmath's complex
    arithmetic at the working precision; a rational power is exp(log(z) p/q) with the
    principal log, as sympy values a rational power of a number."""
    steps: list[Step] = []
    index: dict[sympy.Expr, int] = {}

    def step(expr: sympy.Expr) -> int:
        if expr in index:
            return index[expr]
        if expr == symbol:
            made: Step = (_POINT, (0, 0), ())
        elif expr.is_Rational:
            made = (_NUMBER, (int(expr.p), int(expr.q)), ())
        elif expr is sympy.I:
            made = (_UNIT, (0, 0), ())
        elif expr.is_Pow:
            base = step(expr.base)
            exponent = expr.exp
            made = ((_INTEGER_POWER, (int(exponent), 1), (base,)) if exponent.is_Integer
                    else (_ROOT, (int(exponent.p), int(exponent.q)), (base,)))
        else:
            parts = tuple(step(arg) for arg in expr.args)
            made = (_SUM if expr.is_Add else _PRODUCT, (0, 0), parts)
        steps.append(made)
        index[expr] = len(steps) - 1
        return index[expr]

    outputs = tuple(step(formula) for formula in formulas)
    return Program(tuple(steps), outputs)


def run(compiled: Program, point: mpmath.mpc) -> list[mpmath.mpc]:
    """Every step's value at symbol = point, at the working precision."""
    values: list[mpmath.mpc] = []
    for kind, (p, q), parts in compiled.steps:
        if kind == _POINT:
            value = point
        elif kind == _NUMBER:
            value = mpmath.mpc(p) / q
        elif kind == _UNIT:
            value = mpmath.mpc(0, 1)
        elif kind == _INTEGER_POWER:
            value = values[parts[0]] ** p
        elif kind == _ROOT:
            value = mpmath.exp(mpmath.log(values[parts[0]]) * p / q)
        elif kind == _SUM:
            value = mpmath.fsum([values[part] for part in parts])
        else:
            value = mpmath.fprod([values[part] for part in parts])
        values.append(value)
    return values


def placed_at(formulas: Program, variable: sympy.Symbol, terms: dict[tuple[int, int], Fraction],
              target_value: sympy.Rational) -> list[Placed] | None:
    """`place` at one value of the target, from the cleared polynomial's coefficients by
    powers of (variable, target) (N - target D: of degree 1 in the target)."""
    table: dict[int, dict[int, Fraction]] = {}
    for (power, target_power), coefficient in terms.items():
        table.setdefault(power, {})[target_power] = coefficient
    if not table or any(set(row) - {0, 1} for row in table.values()):
        return None
    at = Fraction(int(target_value.p), int(target_value.q))
    rows = [table.get(power, {}) for power in range(max(table) + 1)]
    polynomial = [row.get(0, Fraction(0)) + row.get(1, Fraction(0)) * at for row in rows]
    while polynomial and not polynomial[-1]:
        polynomial.pop()
    if len(polynomial) < 2:
        return None
    # the Poly that sympy builds from the substituted expression (equations._real_roots),
    # from its coefficients: the same Poly and CRootOfs, without reading an expression
    # an irreducible cubic's CRootOfs without sympy's factoring and isolation
    real_roots = cubic_real_roots.real_roots(polynomial)
    if real_roots is None:
        domain = sympy.ZZ if all(value.denominator == 1 for value in polynomial) else sympy.QQ
        real_roots = sympy.Poly([sympy.Rational(value.numerator, value.denominator)
                                 for value in reversed(polynomial)], variable,
                                domain=domain).real_roots()
    denominator = [-row.get(1, Fraction(0)) for row in rows]
    return place(formulas, target_value, real_roots, polynomial, denominator)


def place(formulas: Program, target: sympy.Rational, real_roots: Sequence[sympy.Expr],
          polynomial: Sequence[Fraction], denominator: Sequence[Fraction]
          ) -> list[Placed] | None:
    """Each formula (a Program in the target alone) at `target` placed among `real_roots`,
    the exact real roots (sorted, with multiplicity, each rational or in a CRootOf) of
    `polynomial`, the cleared polynomial P there (coefficients lowest power first).
    Rational points between the real values, where P's signs alternate exactly, put one
    root between each two: the k-th real value is the k-th root, and P's sign just right of
    it is that of P' there; the side is that sign times D's at the root (the quantity is
    N/D, P = N - target D). None where any decision is close: sympy's path then answers."""
    if not all(root.is_Rational or root.has(sympy.CRootOf) for root in real_roots):
        return None  # a quadratic factor's roots in radicals: sympy may write them otherwise
    with mpmath.workdps(DIGITS):
        real = _real_values(formulas, target)
        if real is None or len(real) != len(real_roots):
            return None
        placed = [Placed(None)] * len(formulas.outputs)
        if not real:
            return placed
        between = _between([value for value, _ in real])
        signs = [_exact_sign(polynomial, point) for point in between]
        if any(sign * later >= 0 for sign, later in itertools.pairwise(signs)):
            return None  # not one root between each two points
        for order, (value, index) in enumerate(real):
            below = _polynomial_sign(denominator, value)
            at_least_one = _at_least_one(real_roots[order], between[order: order + 2],
                                         polynomial)
            if below == 0 or at_least_one is None:
                return None
            side = Side.ABOVE if signs[order + 1] * below > 0 else Side.BELOW
            placed[index] = Placed(real_roots[order], side) if at_least_one else Placed(None)
            _remember(real_roots[order], polynomial, between[order], between[order + 1],
                      signs[order])
            if at_least_one:  # a crossing, whose double is printed
                _bracket(real_roots[order], polynomial, value)
    return placed


# Where each placed CRootOf lies: a scale a, the polynomial P of which a times it is the one
# root between two rational points, and P's sign at the lower point. root_floor reads a
# crossing's integer bound from them in a few exact evaluations of P.
_BRACKETS: dict[sympy.CRootOf, tuple[sympy.Rational, tuple[Fraction, ...], Fraction, Fraction,
                                     int]] = {}
_MOST_BRACKETS = 1024


def _remember(root: sympy.Expr, polynomial: Sequence[Fraction], low: Fraction, high: Fraction,
              sign_low: int) -> None:
    scale, atom = root.as_coeff_Mul()
    if isinstance(atom, sympy.CRootOf) and scale.is_Rational and len(_BRACKETS) < _MOST_BRACKETS:
        _BRACKETS[atom] = (scale, tuple(polynomial), low, high, sign_low)


def _bracket(root: sympy.Expr, polynomial: Sequence[Fraction], value: mpmath.mpf) -> None:
    """Keep an exact interval of some 10**-40 of its size around a CRootOf placed at its
    50-digit value (cubic_real_roots.known_float), where P's exact signs at its ends differ."""
    if root.is_Rational or not value:
        return
    negative, mantissa, exponent, _ = value._mpf_
    middle = Fraction(-int(mantissa) if negative else int(mantissa)) * Fraction(2) ** exponent
    ends = (middle - abs(middle) * _TIGHT, middle + abs(middle) * _TIGHT)
    if _exact_sign(polynomial, ends[0]) * _exact_sign(polynomial, ends[1]) < 0:
        cubic_real_roots.bracket(root, *ends)


_TIGHT = Fraction(1, 10**40)


def _real_values(formulas: Program, target: sympy.Rational
                 ) -> list[tuple[mpmath.mpf, int]] | None:
    """The formulas' real values at the target, sorted, each with its formula's place; None
    where one is neither clearly real nor clearly not, or two real ones lie close, or one has
    no finite value there (a division by zero: the cubic's leading coefficient 0 there)."""
    point = mpmath.mpc(int(target.p)) / int(target.q)
    real = []
    try:
        values = run(formulas, point)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
    for index, step in enumerate(formulas.outputs):
        value = values[step]
        if not mpmath.isfinite(value):
            return None
        size = max(abs(value), 1)
        if abs(value.imag) < REAL * size:
            real.append((value.real, index))
        elif abs(value.imag) <= NOT_REAL * size:
            return None
    real.sort()
    return real if _apart([value for value, _ in real]) else None


def _apart(values: Sequence[mpmath.mpf]) -> bool:
    return all(later - earlier > APART * max(abs(later), 1)
               for earlier, later in itertools.pairwise(values))


def _between(values: Sequence[mpmath.mpf]) -> list[Fraction]:
    """Rational points below the first value, between each two, and above the last."""
    middles = [values[0] - APART * max(abs(values[0]), 1),
               *((earlier + later) / 2 for earlier, later in itertools.pairwise(values)),
               values[-1] + APART * max(abs(values[-1]), 1)]
    return [Fraction(float(middle)) for middle in middles]


def _at_least_one(root: sympy.Expr, around: Sequence[Fraction],
                  polynomial: Sequence[Fraction]) -> bool | None:
    """Whether the root, the one root of P between the two points, is at least 1, exactly."""
    if root.is_Rational:
        return bool(root >= 1)
    low, high = around
    if low >= 1 or high <= 1:
        return low >= 1
    at_one = _exact_sign(polynomial, Fraction(1))
    if at_one == 0:
        return None
    return at_one == _exact_sign(polynomial, low)  # no sign change in (low, 1]: root above


def _exact_sign(coefficients: Sequence[Fraction], point: Fraction) -> int:
    total = sum((coefficient * point ** power
                 for power, coefficient in enumerate(coefficients)), Fraction(0))
    return (total > 0) - (total < 0)


def _sign(value: mpmath.mpf, scale: mpmath.mpf) -> int:
    """value's sign where it clears the margin relative to scale, else 0 (undecided)."""
    if abs(value) < NONZERO * max(abs(scale), 1):
        return 0
    return 1 if value > 0 else -1


def _polynomial_sign(coefficients: Sequence[Fraction], value: mpmath.mpf) -> int:
    terms = [mpmath.mpf(coefficient.numerator) / coefficient.denominator * value ** power
             for power, coefficient in enumerate(coefficients)]
    return _sign(mpmath.fsum(terms), mpmath.fsum(abs(term) for term in terms))


def root_floor(value: sympy.Expr) -> int | None:
    """floor(c r) for a rational c and a real CRootOf r (a crossing the cubic's formula
    placed), exactly, as sympy's floor gives it (which evaluates the root, then asks its
    assumptions): a double's guess, checked by counting the root's polynomial's real roots
    below each end (Sturm sequences) against the root's place among them. None for any
    other number, past 2**52, or where an end is itself a root."""
    coefficient, root = value.as_coeff_Mul()
    if (not isinstance(root, sympy.CRootOf) or not coefficient.is_Rational or not coefficient
            or not (cubic_real_roots.known_real(root) or root.is_real)):
        return None
    known = cubic_real_roots.known_float(value)
    guess = float(value) if known is None else known
    if not abs(guess) < 2**52:
        return None
    whole = math.floor(guess)
    try:
        while not _at_least(root, coefficient, whole):
            whole -= 1
        while _at_least(root, coefficient, whole + 1):
            whole += 1
    except _OnARoot:
        return None
    return whole


def _at_least(root: sympy.CRootOf, coefficient: sympy.Rational, whole: int) -> bool:
    """Whether coefficient * root >= whole: root >= whole / coefficient (<= where the
    coefficient is negative), told where `place` bracketed the root, else by how many real
    roots of its polynomial lie at or below that end."""
    end = sympy.Rational(whole) / coefficient
    bracket = _BRACKETS.get(root)
    if bracket is not None:
        root_is_above = _above(bracket, end)
    else:
        if root.poly.count_roots(end, end):
            raise _OnARoot
        below = root.poly.count_roots(None, end)  # real roots at or below the end
        root_is_above = below <= root.index  # the index counts the real roots below it
    return root_is_above if coefficient > 0 else not root_is_above


def _above(bracket: tuple[sympy.Rational, tuple[Fraction, ...], Fraction, Fraction, int],
           end: sympy.Rational) -> bool:
    """Whether the bracketed root r exceeds `end`: a r is P's one root between low and
    high, where P has sign_low at low."""
    scale, polynomial, low, high, sign_low = bracket
    point = Fraction(int(end.p), int(end.q)) * Fraction(int(scale.p), int(scale.q))
    if point <= low or point >= high:
        above = point <= low
    else:
        sign = _exact_sign(polynomial, point)
        if sign == 0:
            raise _OnARoot
        above = sign == sign_low  # P keeps its sign from low up to the root
    return above if scale > 0 else not above


class _OnARoot(Exception):
    """An end of the floor's interval is a root of the polynomial: left to sympy."""
