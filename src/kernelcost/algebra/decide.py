"""Comparisons the model asks of symbolic sizes: relations, Min and Max, answered by exact
deciders, not by sympy's assumption system, which takes tens of milliseconds a question and
proves false orders (docs/property-findings.md, F14). Only a Min or Max that nests another
or holds an infinity is left to sympy, which rewrites it.

Every size symbol is a positive integer, so a question is whether a difference has one sign
at every size. Five deciders, cheapest first:

- witnesses: the difference at a few sizes. Where both signs occur, no decider can prove
  either answer: undecided.
- shifted coefficients: a difference that is a rational function of any number of sizes
  with rational coefficients, whose numerator and denominator each become, with every size
  n written 1 + m (m >= 0), a polynomial in the m with coefficients of one sign and a
  nonzero constant term: each keeps that sign at every size. This settles matvec's
  `Min(P, I B)` in M and N, which sympy leaves undecided.
- clamped sizes: a difference whose sizes appear only as Min(c, n), counted at n = 1..c.
- bounded roundings: each floor and ceiling written through one of its bounds, then
  shifted coefficients.
- one size: a difference that is a rational function of a single size with rational
  coefficients (no floor, Min or other function) is decided exactly. Where neither its
  numerator nor its denominator has a real root at or beyond 1 (real-root isolation,
  `Poly.count_roots`), its sign at 1 is its sign at every size. This settles questions
  sympy leaves undecided: conv3x3's ratio 9n^2/(80n^2 + 160n + 520) < 1.

An expression against a number (an intensity against a ridge) is first asked of
`thresholds`, which keeps the witnesses and the shifted coefficients of the expression's
primitive part for every number a command compares it with.

What none of them proves stays undecided (None), and Min and Max keep every argument no
decider orders, in sympy's canonical order; numbers compare as numbers. Over every shipped
spec with every machine, sympy's own evaluation decided no symbolic question these leave
open (bench/RESULTS.md, "fastdecide"), so the answers are those it gave where it was right."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import sympy

from ..base.symbols import text_key
from . import rational_eval, thresholds
from .shifted import ShiftedPolynomials, rational_sizes, shifted_sign
from .varied_roundings import rounded_sign
from .witnesses import ArgumentWitnesses, both_signs, exact_number_sign, planned_value, shows


def decided(relation: object) -> bool | None:
    """True or False when sympy decided a relation, None otherwise."""
    if relation is sympy.true or relation is True:
        return True
    if relation is sympy.false or relation is False:
        return False
    return None


def less_than(left: sympy.Expr, right: sympy.Expr) -> bool | None:
    """left < right at every size; False when left >= right at every size; None otherwise
    or when no decider can tell."""
    return _compared(sympy.sympify(left), sympy.sympify(right), strict=True)


def at_most(left: sympy.Expr, right: sympy.Expr) -> bool | None:
    """left <= right at every size; False when left > right at every size; None otherwise
    or when no decider can tell."""
    return _compared(sympy.sympify(left), sympy.sympify(right), strict=False)


SPLIT = "split"  # the witnesses show both signs: no decider can prove one


def _number_sign(left: sympy.Expr, right: sympy.Expr, zero_counts_as: int
                 ) -> int | str | None:
    """The sign of left - right where one side is a rational number, from what the other
    side's primitive part keeps for every number (thresholds): SPLIT where the witnesses
    show both signs, None where this cannot tell (the other deciders then can)."""
    if left.is_Rational == right.is_Rational:
        return None
    flip = 1 if right.is_Rational else -1
    expr, number = (left, right) if flip == 1 else (right, left)
    found = thresholds.against(expr, number, flip * zero_counts_as)
    if found is None:
        return None
    split, sign = found
    return SPLIT if split else None if sign is None else flip * sign


# The model asks the same questions of every precision and of several parts of one verdict
# (the grid's terms and t_min, the capacities of each scope): each is answered once.
@functools.lru_cache(maxsize=4096)
def _compared(left: sympy.Expr, right: sympy.Expr, strict: bool) -> bool | None:
    """left < right (strict) or left <= right, by the first decider that can tell. A zero of
    the difference at a witness counts against the relation asked."""
    zero_counts_as = 1 if strict else -1
    sign = _number_sign(left, right, zero_counts_as)
    if isinstance(sign, str):  # SPLIT
        return None
    difference = left - right
    if sign is None:
        if both_signs(difference, zero_counts_as):
            return None
        sign = exact_sign(difference)
    if sign is not None:
        return sign < 0 if strict else sign <= 0
    if difference.is_number:  # an infinity, or a number sympy writes exactly otherwise
        return decided(left < right if strict else left <= right)
    return None


def at_least(left: sympy.Expr, right: sympy.Expr) -> bool | None:
    """left >= right as sympy decides it; None when undecided."""
    return at_most(right, left)


# Where only a proof counts (a mean a busiest SM might fall under, a limit exceeded), a
# witness size where the relation fails settles the answer before any decider is asked: the
# deciders spend the most on differences of one sign that touch zero (216 n ceiling(R/108)
# against 2 R n), which no sign at every size describes.
@functools.lru_cache(maxsize=4096)
def proven_less_than(left: sympy.Expr, right: sympy.Expr) -> bool:
    """Whether left < right is proven at every size (less_than gives True)."""
    left, right = sympy.sympify(left), sympy.sympify(right)
    if _not_below_at_ones(left, right):
        return False
    return not shows(left - right, (0, 1)) and _compared(left, right, strict=True) is True


def _not_below_at_ones(left: sympy.Expr, right: sympy.Expr) -> bool:
    """Whether left >= right where every size is 1, the first witness of any set of sizes
    (whatever the difference would keep of them), each side by its own plan: the relation
    then fails at a size, found without building the difference in sympy. False where a
    side has a symbol that is no size, or no plan, or no value there."""
    values = []
    for side in (left, right):
        symbols = tuple(sorted(side.free_symbols, key=text_key))
        if not all(symbol.is_integer and symbol.is_positive for symbol in symbols):
            return False
        value = planned_value(rational_eval.compiled(side, symbols), (1,) * len(symbols))
        if value is None:
            return False
        values.append(value)
    return rational_eval.compare(values[0], values[1]) >= 0


def smallest(*arguments: sympy.Expr) -> sympy.Expr:
    """sympy.Min(*arguments), less the arguments proven larger than another."""
    return _lattice(sympy.Min, tuple(sympy.sympify(argument) for argument in arguments))


def largest(*arguments: sympy.Expr) -> sympy.Expr:
    """sympy.Max(*arguments), less the arguments proven smaller than another."""
    return _lattice(sympy.Max, tuple(sympy.sympify(argument) for argument in arguments))


@functools.lru_cache(maxsize=1024)
def _lattice(kind: type[sympy.Basic], arguments: tuple[sympy.Expr, ...]) -> sympy.Expr:
    """Min and Max drop every argument another one provably bounds (of two proven equal, the
    later one), and numbers by their values. The arguments no decider can order all stay, in
    sympy's canonical order. Nested Min or Max and infinities are left to sympy, which
    rewrites them."""
    if len(arguments) < 2 or any(_rewritten_by_lattice(argument) for argument in arguments):
        return kind(*arguments)
    return _assembled(kind, arguments, _pair_orders(arguments, _winning_sign(kind)))


def smallest_of_two(first: sympy.Expr, second: sympy.Expr, sign: int | None) -> sympy.Expr:
    """smallest(first, second) where the sign first - second has at every size is known
    already (None: no decider proves one): a level's Min(peak, I * bandwidth) and
    Min(1, I / ridge) both order I against the ridge, asked once of I itself."""
    arguments = (sympy.sympify(first), sympy.sympify(second))
    if any(_rewritten_by_lattice(argument) for argument in arguments):
        return _lattice(sympy.Min, arguments)
    return _assembled(sympy.Min, arguments, {} if sign is None else {(0, 1): sign,
                                                                   (1, 0): -sign})


def pair_sign(first: sympy.Expr, second: sympy.Expr) -> int | None:
    """The sign of first - second at every size, as `_pair_orders` finds it for one pair: a
    decider's proof (a zero at a witness counts for neither side), else None."""
    sign = _number_sign(first, second, zero_counts_as=0)
    if isinstance(sign, str):  # SPLIT
        return None
    if sign is not None:
        return sign
    difference = first - second
    return None if both_signs(difference, 0) else exact_sign(difference)


def _winning_sign(kind: type[sympy.Basic]) -> int:
    """The sign of (kept argument - dropped argument)."""
    return -1 if kind is sympy.Min else 1


def _bounds(sign: int | None, i: int, j: int, winning_sign: int) -> bool:
    """Whether argument i bounds argument j, given the sign of their difference (of two
    proven equal, the earlier one is kept)."""
    return sign == winning_sign or (sign == 0 and i < j)


def _assembled(kind: type[sympy.Basic], arguments: tuple[sympy.Expr, ...],
               signs: dict[tuple[int, int], int]) -> sympy.Expr:
    winning_sign = _winning_sign(kind)

    def bounds(i: int, j: int) -> bool:
        return _bounds(signs.get((i, j)), i, j, winning_sign)

    unbounded = [j for j in range(len(arguments))
                 if not any(bounds(i, j) for i in range(len(arguments)))]
    kept = [arguments[index] for index in unbounded if not arguments[index].is_number]
    numbers = [arguments[index] for index in unbounded if arguments[index].is_number]
    if numbers:
        kept.append(kind(*numbers))
    return kind(*kept, evaluate=False)


def _pair_orders(arguments: Sequence[sympy.Expr],
                 winning_sign: int) -> dict[tuple[int, int], int]:
    """The sign of `arguments[i] - arguments[j]` at every size for each ordered pair (i, j)
    an exact decider settles; pairs that witnesses split are not asked, nor pairs of two
    arguments each already bounded by another (both are dropped, whatever their order).
    The likely leaders, largest at the witnesses' largest size in a Max, are paired first:
    once one has bounded the others, no pair of those is asked."""
    signs: dict[tuple[int, int], int] = {}
    bounded: set[int] = set()
    witnesses = None  # for three arguments or more, built to order them; else at need
    polynomials = None
    order: Sequence[int] = range(len(arguments))
    if len(arguments) > 2 and not all(argument.is_number for argument in arguments):
        witnesses = ArgumentWitnesses(arguments)
        order = witnesses.leaders_first(winning_sign)
    for first_index, second_index in itertools.combinations(order, 2):
        i, j = sorted((first_index, second_index))
        if i in bounded and j in bounded:
            continue
        first, second = arguments[i], arguments[j]
        sign: int | None
        if (first, second) in _PAIR_SIGNS:
            sign = _PAIR_SIGNS[first, second]
        else:
            by_number = _number_sign(first, second, zero_counts_as=0)
            sign = None if isinstance(by_number, str) else by_number  # SPLIT: none
            if by_number is None:
                witnesses = witnesses or ArgumentWitnesses(arguments)
                if not witnesses.split(i, j):
                    polynomials = polynomials or ShiftedPolynomials(arguments)
                    sign = _decided_pair(first, second, i, j, witnesses, polynomials)
            if len(_PAIR_SIGNS) < _MOST_PAIRS:
                _PAIR_SIGNS[first, second] = sign
        if sign is not None:
            signs[i, j], signs[j, i] = sign, -sign
            bounded.add(j if _bounds(sign, i, j, winning_sign) else i)
    return signs


# Each pair's answer, kept: a verdict's bound and its model share all their terms but one
# (the global one), and each Max asks every pair again. An answer depends on the pair alone:
# the witnesses of a pair are those of its own symbols, its shifted coefficients the same
# over any larger set of sizes.
_PAIR_SIGNS: dict[tuple[sympy.Expr, sympy.Expr], int | None] = {}
_MOST_PAIRS = 8192


def _decided_pair(first: sympy.Expr, second: sympy.Expr, i: int, j: int,
                  witnesses: ArgumentWitnesses, polynomials: ShiftedPolynomials) -> int | None:
    """The sign of first - second (arguments i and j) that no number settles nor the
    witnesses of the two split: by the shifted coefficients, else (where the witnesses of
    the difference do not split it) by the exact deciders."""
    sign = polynomials.sign(i, j)
    if sign is not None:
        return sign
    difference = first - second
    if witnesses.split(i, j, difference):
        return None
    return exact_sign(difference)


# kept: a verdict orders its bound's terms, then its model's and the flat roofline's, which
# share most of them
@functools.lru_cache(maxsize=4096)
def exact_sign(difference: sympy.Expr) -> int | None:
    """The sign (-1, 0 or 1) the difference has at every size, by shifted coefficients, then
    over the values of clamped sizes, then with its roundings bounded, then for one size by
    real-root isolation; None where none proves one."""
    if difference.is_Rational:
        return exact_number_sign(difference)
    sign = shifted_sign(difference)
    # without a Min or Max, clamped_sign finds no clamp and _lattices_reduced nothing to
    # reduce: neither walks the difference then (each walk costs as much as a decider)
    lattices = sign is None and difference.has(sympy.Min, sympy.Max)
    if sign is None and lattices:
        sign = clamped_sign(difference)
    if sign is None:
        sign = rounded_sign(difference)
    if sign is None:
        sign = one_size_sign(difference)
    if sign is None and lattices:
        # sympy's constructor leaves Min(N, -2 + 1/M) whole, though -2 + 1/M bounds N
        # (its cancelled form, Min(N, (1 - 2*M)/M), is the bound): without the bounded
        # arguments a lattice is the same value, which the deciders may then order
        reduced = _lattices_reduced(difference)
        if reduced != difference:
            return exact_sign(reduced)
    return sign


def _lattices_reduced(expr: sympy.Expr) -> sympy.Expr:
    """expr with each Min and Max, innermost first, as smallest or largest writes it."""
    def reduced(node: sympy.Basic) -> sympy.Expr:
        return _lattice(sympy.Min if isinstance(node, sympy.Min) else sympy.Max, node.args)

    return expr.replace(lambda node: isinstance(node, (sympy.Min, sympy.Max)), reduced)


# Past this many points, a difference of clamped sizes is left to the other deciders.
MOST_CLAMPED_POINTS = 4096


def clamped_sign(difference: sympy.Expr) -> int | None:
    """The sign (-1, 0 or 1) of a difference whose every size appears only clamped,
    Min(c, n) with c a positive integer: as n runs over the sizes, Min(c, n) takes each value
    1..c and no other, so the difference takes its values at those points, all of them
    counted exactly (occupancy's `floor(167936/(512*Min(64, Mt) + 66560))` against
    `floor(65536/(8*Min(64, Mt) + 9216))`). None where a size appears otherwise, past
    MOST_CLAMPED_POINTS points, or where the values have no one sign."""
    clamps = {lattice: clamp for lattice in difference.atoms(sympy.Min)
              if (clamp := _clamp(lattice)) is not None}
    sizes = tuple(sorted({size for _, size in clamps.values()}, key=text_key))
    if (not clamps or len(sizes) < len(clamps) or difference.free_symbols != set(sizes)
            or not _only_clamped(difference, clamps)):
        return None
    bound_of = {size: bound for bound, size in clamps.values()}
    # at n <= c, Min(c, n) is n: the difference at those sizes, as it stands (substituting
    # into a floor would rebuild it, and sympy's floor asks its assumptions on every rebuild)
    ranges = [range(1, int(bound_of[size]) + 1) for size in sizes]
    plan = rational_eval.compiled(difference, sizes)
    if plan is None or math.prod(map(len, ranges)) > MOST_CLAMPED_POINTS:
        return None
    signs: set[int] = set()
    for point in itertools.product(*ranges):
        value = planned_value(plan, point)
        if value is None:
            return None
        signs.add(rational_eval.sign(value))
        if len(signs) > 1:
            return None
    return signs.pop() if signs else None


def _only_clamped(expr: sympy.Expr,
                  clamps: dict[sympy.Expr, tuple[sympy.Integer, sympy.Symbol]]) -> bool:
    """Whether every size in expr stands inside one of the clamps."""
    if expr in clamps:
        return True
    if expr.is_Symbol:
        return False
    return all(_only_clamped(argument, clamps) for argument in expr.args)


def _clamp(lattice: sympy.Min) -> tuple[sympy.Integer, sympy.Symbol] | None:
    """Min(c, n) as (c, n), c a positive integer and n a size; None for another Min."""
    if len(lattice.args) != 2:
        return None
    bound, size = lattice.args
    if (bound.is_Integer and bound > 0 and size.is_Symbol and size.is_integer
            and size.is_positive):
        return bound, size
    return None


def one_size_sign(difference: sympy.Expr) -> int | None:
    """The sign (-1, 0 or 1) the difference has at every size, when it is a rational function
    of one size with rational coefficients whose numerator and denominator have no real root
    at or beyond 1: between roots a rational function keeps its sign, and a size is at least
    1. None for anything else (several symbols, floors, Min, floats, a root in range)."""
    sizes = rational_sizes(difference)
    if sizes is None or len(sizes) != 1:
        return None
    numerator, denominator = (sympy.Poly(part, *sizes, domain=sympy.QQ)
                              for part in difference.as_numer_denom())
    if denominator.count_roots(1, None):
        return None
    if numerator.is_zero:
        return 0
    if numerator.count_roots(1, None):
        return None
    value_at_one = numerator.eval(1) / denominator.eval(1)
    return 1 if value_at_one > 0 else -1


# kept: every Min and Max asks it of each argument, and a verdict's Max calls share most of
# theirs (the bound's terms, the model's, at the maximum clock), each walked whole by has()
@functools.lru_cache(maxsize=4096)
def _rewritten_by_lattice(argument: sympy.Expr) -> bool:
    return (isinstance(argument, (sympy.Min, sympy.Max))
            or argument.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan))
