"""Stage: quantity(p) = target, solved once with the target as a symbol. The closed-form roots
and the conditions under which they are positive reals do not depend on the target's value,
so an `Equation` is solved once (sympy.solve, or -b/a where it is linear in the size; its
simplification, the factor lists of the conditions) and `roots_at` puts in each machine's
ridge or capacity: a handful of substitutions per machine and precision instead of a solve.
Where every other size is a number, the roots from 1 at that target are first counted exactly
(degree 1 and 2): a kernel that crosses on no machine never needs the closed form."""

from __future__ import annotations

from dataclasses import field
from fractions import Fraction
from functools import cached_property, lru_cache

import sympy

from ..base.kinds import Side
from ..base.records import record
from . import cubic_real_roots
from .cleared import ClearedQuadratic, terms_in
from .closed_roots import linear_roots, may_be, polynomial_roots
from .factored_forms import factored
from .formula_roots import Placed, Program, can_evaluate, placed_at, program
from .numeric_roots import ABOVE, BELOW, Root, numeric_roots
from .quotients import cancel
from .root_conditions import beyond_square_roots, positive_real_condition
from .surds import exact_number_sign
from .together_once import together


@record
class Equation:
    """quantity(variable) = target for a symbolic target: its candidate roots in closed form,
    each with the condition under which it is a positive real, solved on first use."""

    quantity: sympy.Expr
    variable: sympy.Symbol
    target: sympy.Symbol
    cleared: sympy.Expr | None  # numerator - target * denominator; None: not a polynomial
    # roots_at's answers by target value and tie side: machines share capacities and ridges
    answered: dict[tuple[sympy.Expr, bool], list[Root]] = field(default_factory=dict,
                                                                compare=False, repr=False)
    conditions: dict[sympy.Expr, sympy.Basic] = field(default_factory=dict, compare=False,
                                                      repr=False)
    tidy: dict[int, sympy.Expr] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def solved(self) -> tuple[sympy.Expr, ...] | None:
        """The closed-form roots as solved (`tidied` as printed); None where sympy has no
        closed form (the roots are then searched numerically). A root in the target alone
        is a number at every target, which `_roots_at` checks: the variable's assumptions
        are asked only of roots in other sizes too, printed with their condition."""
        if self.cleared is None:
            return None
        if not self.cleared.has(self.variable):
            return ()
        solutions = linear_roots(self.cleared, self.variable, self._possible)
        if solutions is None:
            try:
                solutions = polynomial_roots(self.cleared, self.variable, self._possible)
            except NotImplementedError:
                return None
        return tuple(solutions)

    @property
    def candidates(self) -> tuple[sympy.Expr, ...] | None:
        """Every closed-form root as printed; None as for `solved`."""
        return None if self.solved is None else tuple(map(self.tidied, range(len(self.solved))))

    def tidied(self, index: int) -> sympy.Expr:
        """The index-th root as printed (`_tidy`), on first use: a cubic's formulas that are
        no crossing on any machine are placed (formula_roots) as solved, never printed, and
        not tidied (sympy's together of the formula: 5 to 25 ms)."""
        if index not in self.tidy:
            assert self.solved is not None
            self.tidy[index] = _tidy(self.solved[index])
        return self.tidy[index]

    def _possible(self, root: sympy.Expr) -> bool:
        return root.free_symbols <= {self.target} or may_be(root, self.variable)

    def condition(self, candidate: sympy.Expr) -> sympy.Basic:
        """Where the candidate root is a positive real, worked out once for each root."""
        if candidate not in self.conditions:
            self.conditions[candidate] = positive_real_condition(candidate)
        return self.conditions[candidate]

    @cached_property
    def slope(self) -> sympy.Expr:
        """d quantity / d variable, factored: its sign says on which side of a root the
        quantity exceeds the target."""
        return factored(sympy.diff(self.quantity, self.variable))

    def roots_at(self, target_value: sympy.Expr, ties_exceed: bool = True) -> list[Root]:
        """Positive real roots where the target is `target_value`, sorted by value when
        numeric; roots below 1 are dropped (sizes are positive integers). `ties_exceed`:
        where a search finds the quantity equal to the target over a range of sizes (a
        ceiling's step), whether those sizes lie on the side that exceeds it."""
        key = (target_value, ties_exceed)
        if key not in self.answered:
            self.answered[key] = self._roots_at(target_value, ties_exceed)
        return list(self.answered[key])

    def _roots_at(self, target_value: sympy.Expr, ties_exceed: bool) -> list[Root]:
        if self._no_root_from_one(target_value):
            return []
        if self.solved is None:
            return numeric_roots(self.quantity, self.variable, target_value, ties_exceed)
        roots: list[Root] = []
        placed = self._placed(target_value)
        # xreplace, not subs: a symbol for a number needs none of subs' matching, and subs
        # into a conjunction of relations compares each argument with false and true
        at_target = {self.target: target_value}
        real_roots: list[sympy.Expr] | None = None
        for index, solution in enumerate(self.solved):
            # a root in the target alone is a number here, which shows itself whether it is
            # a size: its condition is needed only to be printed
            numeric = target_value.is_number and solution.free_symbols <= {self.target}
            if placed is not None and index in placed:
                found = placed[index]
                if found.value is not None and all(root.value != found.value for root in roots):
                    candidate = self.tidied(index)
                    roots.append(Root(candidate, self.condition(candidate), found.value,
                                      found.side))
                continue
            candidate = self.tidied(index)
            if not numeric and self.condition(candidate).xreplace(at_target) is sympy.false:
                continue  # a root on some machine, not on this one
            value = candidate.xreplace(at_target)
            if value.is_number and beyond_square_roots(value):
                if real_roots is None:  # once a target, for each candidate in cube roots
                    real_roots = self._real_roots(target_value)
                value = _real_root_near(value, real_roots)
                if value is None:
                    continue  # not a real root
            else:
                value = _simplified(value)
            if value.is_number and not _at_least_one(value):
                continue
            if any(root.value == value for root in roots):
                continue  # a double root (a zero discriminant here): one place, listed once
            roots.append(Root(candidate, self.condition(candidate), value,
                              self.side_at(value, target_value)))
        return sorted_roots(roots)

    def _real_roots(self, target_value: sympy.Expr) -> list[sympy.Expr] | None:
        """The real roots of the cleared polynomial at this target, exactly (CRootOf), where
        it is one in the variable alone over the rationals; else None."""
        if self.cleared is None:
            return None
        at = self.cleared.xreplace({self.target: target_value})
        if at.free_symbols != {self.variable}:
            return None
        polynomial = sympy.Poly(at, self.variable)
        if polynomial.domain not in (sympy.ZZ, sympy.QQ):
            return None
        return polynomial.real_roots()

    def _placed(self, target_value: sympy.Expr) -> dict[int, Placed] | None:
        """The solutions in cube roots at a rational target, by place, each among the cleared
        polynomial's exact real roots there (formula_roots); None where that is left to
        sympy's substitution and evaluation."""
        if not self._formulas or not target_value.is_Rational or self._terms is None:
            return None
        found = placed_at(self._program, self.variable, self._terms, target_value)
        return None if found is None else dict(zip(self._formulas, found))

    @cached_property
    def _program(self) -> Program:
        """`_formulas` as formula_roots' steps, built once for every machine's target."""
        assert self.solved is not None
        return program([self.solved[index] for index in self._formulas], self.target)

    @cached_property
    def _formulas(self) -> tuple[int, ...]:
        """The places of the solutions in cube roots of the target alone, for formula_roots,
        which evaluates them as solved (the tidied form is the same number); none where one
        holds what it cannot evaluate."""
        solved = self.solved or ()
        formulas = tuple(index for index, solution in enumerate(solved)
                         if solution.free_symbols <= {self.target}
                         and beyond_square_roots(solution))
        return formulas if all(can_evaluate(solved[index]) for index in formulas) else ()

    @cached_property
    def _terms(self) -> dict[tuple[int, int], Fraction] | None:
        """The cleared polynomial's coefficients by powers of (variable, target), where it
        is one in those two alone with rational coefficients."""
        if self.cleared is None or not self.cleared.free_symbols <= {self.variable,
                                                                      self.target}:
            return None
        return terms_in(self.cleared, self.variable, self.target)

    def _no_root_from_one(self, target_value: sympy.Expr) -> bool:
        """True when, at this target, the cleared polynomial has no real root at or above 1,
        counted exactly: the closed form, solved once for every machine, would find none
        either, and a kernel that crosses on no machine never needs it."""
        if self._quadratic is None or not target_value.is_Rational:
            return False
        return self._quadratic.root_from_one(target_value) is False

    @cached_property
    def _quadratic(self) -> ClearedQuadratic | None:
        """The cleared equation with rational coefficients, where it is a polynomial of
        degree 1 or 2 in the variable (other sizes set), for `_no_root_from_one` and the
        slope's sign. Higher degrees are left to the closed form: sympy may have none, and
        the numeric search that replaces it must answer as before."""
        terms = self._terms
        if terms is None:
            return None
        degree = max((power for power, _ in terms), default=0)
        return ClearedQuadratic(terms) if degree in (1, 2) else None

    def side_at(self, root: sympy.Expr, target_value: sympy.Expr) -> Side | None:
        """`above` when the quantity exceeds the target just above the root (it rises through
        it), `below` when it falls through it; None at a tangency or while undecidable."""
        sign = None
        if self._quadratic is not None and target_value.is_Rational:
            sign = self._quadratic.slope_sign(root, target_value)
        if sign is None:
            return _side_of_slope(self.slope, self.variable, root)
        return ABOVE if sign > 0 else BELOW if sign < 0 else None


@lru_cache(maxsize=256)
def equation(quantity: sympy.Expr, variable: sympy.Symbol, target: sympy.Symbol) -> Equation:
    """quantity(variable) = target with the denominators cleared: solved in closed form on
    first use where it is a polynomial equation that sympy solves; otherwise searched
    numerically. Kept: every machine asks the same of a keep scope's bytes against its
    capacity."""
    numerator, denominator = sympy.fraction(cancel(quantity))
    cleared = sympy.expand(numerator - target * denominator)
    if cleared.has(variable) and not cleared.is_polynomial(variable):
        return Equation(quantity, variable, target, None)
    return Equation(quantity, variable, target, cleared)


def solve_equal(quantity: sympy.Expr, variable: sympy.Symbol, target: sympy.Symbol,
                target_value: sympy.Expr, ties_exceed: bool = True) -> list[Root]:
    """Positive real roots of quantity(variable) = target at one value of the target."""
    return equation(quantity, variable, target).roots_at(target_value, ties_exceed)


def _at_least_one(value: sympy.Expr) -> bool:
    """A number is a real at least 1: exactly where it is a rational or a quadratic's surd,
    else as sympy decides it (asking whether a surd is real costs milliseconds)."""
    sign = exact_number_sign(value - 1)
    if sign is not None:
        return sign >= 0
    return bool(value.is_real and value >= 1)


def _real_root_near(value: sympy.Expr, real_roots: list[sympy.Expr] | None
                    ) -> sympy.Expr | None:
    """A root in cube roots at a number (the cubic's formula, a real root often written
    through complex ones, whose realness sympy's assumptions leave undecided) as the real
    root of the cleared polynomial it is, exactly, told apart from the others by 30 digits;
    None where it is not real. Where those roots are not known, the value as it stands."""
    if real_roots is None:
        return value
    approximate = complex(sympy.N(value, 30))
    size = max(abs(approximate), 1.0)
    if abs(approximate.imag) > 1e-9 * size:
        return None
    near = [root for root in real_roots if abs(float(root) - approximate.real) <= 1e-9 * size]
    return near[0] if len(near) == 1 else value


def _simplified(value: sympy.Expr) -> sympy.Expr:
    """A root's value at one ridge, without sympy.simplify: its first call imports
    sympy.physics.units (about 80 ms), more than the rest of a crossing costs. A number keeps
    its radicals in lowest terms; a formula is factored, its sign inside a sum, but for one in
    cube roots of symbolic sizes (root_conditions.beyond_square_roots): it stays as solved."""
    if value.is_Rational:
        return value
    if value.is_number:
        return sympy.radsimp(value)
    if beyond_square_roots(value):
        return value
    value = factored(value)
    numerator, denominator = sympy.fraction(value)
    flipped = _minus_into_a_sum(numerator) if numerator.could_extract_minus_sign() else None
    return value if flipped is None else flipped / denominator


# the slope at a root in symbolic sizes is factored to read its sign up to this size: the
# shipped specs' are at most some 160 operations (under 50 ms); model_gemm_w8a8's at a root
# in square roots of K, M and N, 1,738, ran past any budget
MAX_FACTORED_OPS = 600


def _side_of_slope(slope: sympy.Expr, variable: sympy.Symbol, root: sympy.Expr) -> Side | None:
    if slope.is_positive:  # monotonic in the positive sizes: no need to look at the root
        return ABOVE
    if slope.is_negative:
        return BELOW
    slope = slope.xreplace({variable: root})
    if not slope.is_number:
        if beyond_square_roots(root) or sympy.count_ops(slope) > MAX_FACTORED_OPS:
            return None  # undecided: a polynomial in the root's radicals, past any budget
        slope = factored(slope)
    if slope.is_positive:
        return ABOVE
    if slope.is_negative:
        return BELOW
    if slope.is_number and slope != 0:
        return ABOVE if float(slope) > 0 else BELOW
    return None


def _tidy(root: sympy.Expr) -> sympy.Expr:
    """One fraction, factored where no radical makes that costly, then a leading minus moved
    into the denominator: -R*T/(2*R - T) -> R*T/(T - 2*R)."""
    if not any(not power.exp.is_Integer for power in root.atoms(sympy.Pow)):
        root = factored(root)
    numerator, denominator = sympy.fraction(together(root))
    if not numerator.could_extract_minus_sign():
        return root
    flipped = _minus_into_a_sum(numerator)
    if flipped is not None:  # -d*(2*T - C) -> d*(C - 2*T)
        return flipped / denominator
    if denominator != 1:
        return (-numerator) / sympy.expand(-denominator)
    return root


def _minus_into_a_sum(product: sympy.Expr) -> sympy.Expr | None:
    """-x*(a - b) as x*(b - a): the sign taken by the first sum among the factors."""
    coefficient, rest = product.as_coeff_Mul()
    if not coefficient.is_negative:
        return None
    factors = sympy.Mul.make_args(rest)
    for index, factor in enumerate(factors):
        if factor.is_Add:
            flipped = sympy.expand(-factor)
            return -coefficient * sympy.Mul(*factors[:index], flipped, *factors[index + 1:])
    return None


def sorted_roots(roots: list[Root]) -> list[Root]:
    """The roots by value, numbers first, then forms by their text. Where every value is a
    rational c times a real root r of one polynomial (a CRootOf: the cubic's formulas placed),
    by r's index, which numbers a polynomial's real roots from the smallest: a float of each
    would refine r's interval in sympy, as the first float a printer asks of it does anyway
    (from its isolating interval each evaluation refines it the same way: the printed value
    is the same)."""
    indices = _root_indices(roots)
    if indices is None:
        return sorted(roots, key=_sort_key)
    return [root for _, root in sorted(zip(indices, roots), key=lambda pair: pair[0])]


def _root_indices(roots: list[Root]) -> list[int] | None:
    """Each root's place among the real roots of their one polynomial (its negative for a
    negative c); None where they are not all c times such a root with one c."""
    found = [root.value.as_coeff_Mul() for root in roots]
    if not found or not all(isinstance(atom, sympy.CRootOf) and coefficient.is_Rational
                            and coefficient != 0
                            and (cubic_real_roots.known_real(atom) or atom.is_real)
                            for coefficient, atom in found):
        return None
    if len({atom.poly for _, atom in found}) > 1 or len({c for c, _ in found}) > 1:
        return None
    sign = 1 if found[0][0] > 0 else -1
    return [sign * int(atom.index) for _, atom in found]


def _sort_key(root: Root) -> tuple[int, float | str]:
    return (0, float(root.value)) if root.value.is_number else (1, str(root.value))
