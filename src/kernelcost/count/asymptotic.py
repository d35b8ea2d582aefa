"""Asymptotic forms: the leading term of a size expression and limits as sizes grow.

Sizes grow together: each symbol s in the growing set becomes lam*s and lam -> oo. A floor or
ceiling whose argument grows is its argument plus a bounded remainder (ceiling(x) = x + r,
0 <= r < 1); a form in which a remainder survives has no single limit and is not given. A
rounding of sizes that stay fixed stays as it is (ceiling(N/T) with N and T fixed).

The expression is brought over one denominator once (`Asymptotics`); each growing set then
only scales that numerator and denominator, so the limit in every size alone, the limit as all
grow and the leading term share one `as_numer_denom`. The pair need not be in lowest terms: a
common factor scales both leading coefficients alike and leaves the degree difference, and
every ratio of them shown is cancelled and factored (`_readable`). sympy's `together`, which
would pull common factors out first, took a quarter of this stage."""

from __future__ import annotations

from collections.abc import Iterable

import sympy

from ..algebra.factored_forms import factor, factored
from ..algebra.quotients import polynomial_terms
from ..base.records import record
from ..base.symbols import is_monomial

_SCALE = sympy.Symbol("_lambda", positive=True)


_REMAINDER = "remainder"
# A form of more operations has no readable leading term or limit, and settling its min/max
# and sympy's limit on it take minutes (a warpgroup loop clipped inside a stepped loop: 2809
# operations, ten minutes without an answer); the shipped specs' largest has 63.
MAX_OPERATIONS = 500


# sympy's count_ops charges a node at most its arguments plus two (a product split into
# numerator and denominator, a negation, a division) and walks no node twice, save the
# terms of a sum a rational distributes over when it splits a product (one more each): so
# it counts at most 4 operations a node of the tree, and 5 is a margin
_OPERATIONS_PER_NODE = 5


def _past_operations(expr: sympy.Expr) -> bool:
    """sympy.count_ops(expr) > MAX_OPERATIONS, asked of sympy only where the tree has more
    than MAX_OPERATIONS / _OPERATIONS_PER_NODE nodes: counting them takes a twentieth of
    count_ops's time, and the forms of the shipped specs have fewer (some 120 at most)."""
    most = MAX_OPERATIONS // _OPERATIONS_PER_NODE
    nodes, pending = 0, [expr]
    while pending:
        nodes += 1
        if nodes > most:
            return sympy.count_ops(expr) > MAX_OPERATIONS
        pending.extend(pending.pop().args)
    return False


# a rounding's remainder, by the rounding and the pass of _smooth that replaced it
Remainders = dict[tuple[sympy.Expr, int], sympy.Dummy]


def _smooth(expr: sympy.Expr, growing: Iterable[sympy.Symbol],
            remainders: Remainders | None = None) -> sympy.Expr:
    """Each floor or ceiling of a growing argument as its argument plus a remainder symbol,
    inner roundings too (a replaced node is not searched again in the same pass). Forms
    smoothed with one table of `remainders` share the remainder of a rounding replaced in
    the same pass (a rounding met again in a later pass has one of its own, as the pass
    gives it): the intensities of a spec smooth its work and traffic again, and their sums
    and products, built of the same symbols, are then sympy's cache's."""
    growing = set(growing)
    remainders = {} if remainders is None else remainders
    passes = 0
    while True:
        nodes = [node for node in expr.atoms(sympy.floor, sympy.ceiling)
                 if node.args[0].free_symbols & growing]
        if not nodes:
            return expr
        replacements = {}
        for node in sorted(nodes, key=sympy.default_sort_key):
            if (node, passes) not in remainders:
                remainders[node, passes] = sympy.Dummy(_REMAINDER, nonnegative=True)
            sign = 1 if isinstance(node, sympy.ceiling) else -1
            replacements[node] = node.args[0] + sign * remainders[node, passes]
        expr = expr.xreplace(replacements)
        passes += 1


def _has_remainder(expr: sympy.Expr) -> bool:
    return any(isinstance(s, sympy.Dummy) and s.name == _REMAINDER for s in expr.free_symbols)


def eventual(expr: sympy.Expr, growing: Iterable[sympy.Symbol]) -> sympy.Expr:
    """expr with each Max and Min replaced by the argument it takes once the sizes in
    `growing` are large enough (Max(0, N - 4) -> N - 4 as N grows), innermost first; an
    argument pair whose order depends on a size that stays put is left as it is."""
    growing = tuple(growing)
    if not growing or not expr.has(sympy.Max, sympy.Min):
        return expr

    def settle(node: sympy.Expr) -> sympy.Expr:
        if not isinstance(node, (sympy.Max, sympy.Min)):
            return node
        largest = isinstance(node, sympy.Max)
        chosen = node.args[0]
        for other in node.args[1:]:
            sign = _eventual_sign(chosen - other, growing)
            if sign is None:
                return node
            if (sign < 0) == largest:
                chosen = other
        return chosen

    return expr.replace(lambda e: isinstance(e, (sympy.Max, sympy.Min)), settle)


def _eventual_sign(difference: sympy.Expr,
                   growing: tuple[sympy.Symbol, ...]) -> int | None:
    """The sign difference takes for all large enough sizes: 1, -1, 0 (they meet), or None
    when it depends on the sizes themselves (N - T as N and T grow together)."""
    forms = Asymptotics(difference)
    growing = forms._growing(growing)
    if not growing:
        sign = sympy.sign(difference)
        return int(sign) if sign.is_number and sign is not sympy.nan else None
    parts = forms._scaled_parts(growing)
    if parts is None:
        return None
    numerator, denominator = parts
    if numerator.coefficient == 0 or numerator.degree < denominator.degree:
        return 0
    sign = _sign(factor(numerator.coefficient / denominator.coefficient))
    return int(sign) if sign.is_number and sign is not sympy.nan else None


@record
class Leading:
    """The term of highest degree in lam of a polynomial p(lam*s): lam**degree times the
    coefficient (degree -1 and coefficient 0 for the zero polynomial)."""

    degree: int
    coefficient: sympy.Expr


def _leading_in_scale(part: sympy.Expr, growing: tuple[sympy.Symbol, ...]) -> Leading:
    """The leading term in lam of part(lam*s), s in `growing`: the sum of part's terms of
    highest degree in the growing sizes, read off its polynomial in every symbol over the
    rationals; as a polynomial in lam where part has other atoms (a Min of fixed sizes, a
    radical), whose coefficients form a ring of their own, several times slower to build.
    Raises PolynomialError where part(lam*s) is no polynomial in lam."""
    written = polynomial_terms(part)
    if written is None:
        in_scale = sympy.Poly(part.xreplace({s: _SCALE * s for s in growing}), _SCALE)
        if in_scale.is_zero:
            return Leading(-1, sympy.Integer(0))
        return Leading(in_scale.degree(), in_scale.LC())
    symbols, written_terms = written
    if not written_terms:
        return Leading(-1, sympy.Integer(0))
    scaled = [index for index, symbol in enumerate(symbols) if symbol in growing]
    terms = [(sum(exponents[index] for index in scaled), exponents, coefficient)
             for exponents, coefficient in written_terms]
    degree = max(term[0] for term in terms)
    return Leading(degree, sympy.Add(*[
        coefficient * sympy.Mul(*[symbol**power for symbol, power in zip(symbols, exponents)])
        for term_degree, exponents, coefficient in terms if term_degree == degree]))


class Asymptotics:
    """The asymptotic forms of one expression, for any number of growing sets."""

    def __init__(self, expr: sympy.Expr, remainders: Remainders | None = None):
        """remainders: the table _smooth shares with other forms (one of its own if None)."""
        self.expr = expr
        self.remainders: Remainders = {} if remainders is None else remainders
        self.free_symbols = expr.free_symbols  # computed once: slow on sums left open
        # (the roundings smoothed, the growing sizes where Max and Min settle) -> fraction
        self._fractions: dict[tuple[frozenset[sympy.Expr], tuple[sympy.Symbol, ...]],
                              tuple[sympy.Expr, sympy.Expr]] = {}
        self._parts: dict[tuple[sympy.Symbol, ...], tuple[Leading, Leading] | None] = {}
        self._ratios: dict[sympy.Expr, sympy.Expr] = {}  # leading and limits share ratios
        # a sum left open has no polynomial form in the scale, and settling the min/max of
        # its bounds, or sympy's limit, searches for minutes (a four-deep stepped triangle)
        # to find nothing; so does a form past MAX_OPERATIONS
        self._unreadable = expr.has(sympy.Sum) or _past_operations(expr)

    @property
    def unreadable(self) -> bool:
        """Whether the form has no readable limit: a sum left open, or past MAX_OPERATIONS."""
        return self._unreadable

    def _growing(self, growing: Iterable[sympy.Symbol]) -> tuple[sympy.Symbol, ...]:
        return tuple(s for s in growing if s in self.free_symbols)

    def _scaled_parts(self,
                      growing: tuple[sympy.Symbol, ...]) -> tuple[Leading, Leading] | None:
        """The leading terms in lam of the numerator and denominator of expr(lam*s), or
        None where they are no polynomials in lam."""
        if growing not in self._parts and self._unreadable:
            self._parts[growing] = None
        if growing not in self._parts:
            numerator, denominator = self._fraction(growing)
            try:
                self._parts[growing] = (_leading_in_scale(numerator, growing),
                                        _leading_in_scale(denominator, growing))
            except sympy.PolynomialError:
                self._parts[growing] = None
        return self._parts[growing]

    def _fraction(self, growing: tuple[sympy.Symbol, ...]) -> tuple[sympy.Expr, sympy.Expr]:
        """Numerator and denominator of the smoothed expression, computed once for every
        growing set that smooths the same roundings."""
        rounded = frozenset(node for node in self.expr.atoms(sympy.floor, sympy.ceiling)
                            if node.args[0].free_symbols & set(growing))
        settled = self.expr.has(sympy.Max, sympy.Min)  # the settled form depends on `growing`
        key = (rounded, tuple(growing) if settled else ())
        if key not in self._fractions:
            expr = eventual(self.expr, growing) if settled else self.expr
            self._fractions[key] = _smooth(expr, growing, self.remainders).as_numer_denom()
        return self._fractions[key]

    def leading(self, growing: Iterable[sympy.Symbol]) -> sympy.Expr | None:
        """The part of expr that dominates as every symbol in `growing` goes to infinity
        together (2*(M*K + K*N + M*N) stays whole; 4*M*N*K/T + 2*M*N -> 4*M*N*K/T), or None."""
        growing = self._growing(growing)
        if not growing:
            return self.expr
        if self.expr != 0 and is_monomial(self.expr):
            # one term of one degree in the scale: the numerator's and denominator's leading
            # terms are themselves, and their quotient the product back (a total's work)
            return _without_remainder(self.expr)
        parts = self._scaled_parts(growing)
        if parts is None:
            return None
        numerator, denominator = parts
        top = numerator.coefficient * _SCALE ** numerator.degree
        bottom = denominator.coefficient * _SCALE ** denominator.degree
        return _without_remainder(self._readable((top / bottom).xreplace({_SCALE: 1})))

    def limit(self, growing: Iterable[sympy.Symbol]) -> sympy.Expr | None:
        """lim expr as every symbol in `growing` goes to infinity together; oo, a finite
        expression in the other symbols, or None when it cannot be found."""
        growing = self._growing(growing)
        if not growing:
            return self.expr
        parts = self._scaled_parts(growing)
        if parts is None:
            return None if self._unreadable else _sympy_limit(self.expr, growing)
        numerator, denominator = parts
        if numerator.degree > denominator.degree:
            sign = _sign(numerator.coefficient / denominator.coefficient)
            if not sign.is_number:
                return None  # (M - 5)*N**2 grows to oo or -oo as M says
            return sympy.oo * sign
        if numerator.degree < denominator.degree:
            return sympy.Integer(0)
        return _without_remainder(self._readable(numerator.coefficient /
                                                 denominator.coefficient))

    def _readable(self, ratio: sympy.Expr) -> sympy.Expr:
        """ratio cancelled and factored, once for each ratio the forms meet (the limit as
        all sizes grow is the leading term where the degrees are equal)."""
        if is_monomial(ratio):
            return ratio  # cancelled and factored already (2*K*M*N, M/6)
        if ratio not in self._ratios:
            self._ratios[ratio] = factored(ratio)
        return self._ratios[ratio]


def _sign(expr: sympy.Expr) -> sympy.Expr:
    """sympy.sign(expr), 1 at once where expr is plainly positive: sympy proves each such
    sum positive too, after a search of milliseconds through its terms' bounds."""
    return sympy.Integer(1) if _plainly_positive(expr) else sympy.sign(expr)


def _plainly_positive(expr: sympy.Expr) -> bool:
    """A positive number or symbol, or sums, products and integer powers of such."""
    if expr.is_Rational or expr.is_Symbol:
        return bool(expr.is_positive)
    if expr.is_Pow:
        return expr.exp.is_Integer and _plainly_positive(expr.base)
    return (expr.is_Add or expr.is_Mul) and all(map(_plainly_positive, expr.args))


def _without_remainder(expr: sympy.Expr) -> sympy.Expr | None:
    """expr, or None where it still depends on a rounding remainder (no single limit)."""
    return None if _has_remainder(expr) else expr


def leading_term(expr: sympy.Expr, growing: Iterable[sympy.Symbol],
                 remainders: Remainders | None = None) -> sympy.Expr | None:
    """The dominant part of expr as the sizes in `growing` grow together (Asymptotics.leading)."""
    return Asymptotics(expr, remainders).leading(growing)


def _sympy_limit(expr: sympy.Expr, growing: tuple[sympy.Symbol, ...]) -> sympy.Expr | None:
    scaled = _smooth(expr, growing).subs({s: _SCALE * s for s in growing}, simultaneous=True)
    try:
        result = sympy.limit(scaled, _SCALE, sympy.oo)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if result.has(sympy.Limit) or result.has(_SCALE):
        return None
    return _without_remainder(result)
