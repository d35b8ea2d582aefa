"""What a kernel's assumptions prove about its sizes: divisibility facts rewritten as
products (N = T*q with q a positive integer, which lets sympy drop the ceilings), bounds as
slack substitutions, and the sign prover that the sums and footprints rely on.

The prover is one-sided: `nonnegative(e)` is True only when e >= 0 follows from the facts;
False means "not proven", never "negative"."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import sympy

from ..algebra import rational_eval
from ..algebra.factored_forms import factor
from ..algebra.quotients import cancel
from ..algebra.rounding import may_be_proven_integer
from ..algebra.shifted import shifted_nonnegative, shifted_sign
from ..base import tree as ast
from ..base.errors import BudgetError, Code, Diagnostic
from ..base.symbols import Replacer, WholeRoundings, derivative, first_minmax
from ..lang.check import CheckedKernel
from .loop_ends import at_loop_ends
from .unrounded import unrounded_lower_bound

if TYPE_CHECKING:
    from .loops import Loop

# Seconds of symbolic work one count may take before it stops with an error rather than
# leaving the user waiting; KERNELCOST_BUDGET_S overrides it. Counted in CPU time, so that a
# busy machine does not fail a count that fits (the command's watchdog bounds the wall clock).
DEFAULT_BUDGET_S = 60.0

# what a min/max node becomes while its coefficient is read: one symbol for every call
# (no answer kept holds it), so that sympy's cache answers the expressions built around it
# again
_EXTREMUM = sympy.Dummy("extremum")


class Facts:
    """What the spec assumes about its sizes, used to simplify and to prove signs."""

    def __init__(self, checked: CheckedKernel, budget_s: float | None = None):
        self.kernel = checked.kernel
        self.budget_s = _budget_seconds() if budget_s is None else budget_s
        self.deadline = time.process_time() + self.budget_s
        self.forward: dict[sympy.Symbol, sympy.Expr] = {}  # dividend -> divisor * quotient
        self.backward: dict[sympy.Symbol, sympy.Expr] = {}  # quotient -> dividend / divisor
        self.quotient_of: dict[sympy.Symbol, sympy.Symbol] = {}  # dividend -> its quotient
        # facts on a size that already has a quotient (`Br | S` after `Bc | S`): used to
        # prove a rounding argument integral, since one product cannot carry both
        self.further: list[tuple[sympy.Expr, sympy.Symbol]] = []
        for divisor, dividend in checked.divisibility:
            self._divisibility(divisor, dividend)
        self._close_chains()
        self.slack: list[dict[sympy.Symbol, sympy.Expr]] = []
        self._proven: dict[tuple[sympy.Expr, int], bool] = {}  # nonnegative's answers
        # nonnegative_within's answers: (expr, loops, how many slack substitutions) -> answer
        self._within: dict[tuple[sympy.Expr, tuple[Loop, ...], int], bool] = {}
        self._integral: dict[sympy.Expr, bool] = {}  # integral's: the divisibility is fixed
        self._admitted: dict[tuple[sympy.Symbol, sympy.Integer], bool] = {}
        # what the symbolic work is doing now and the spec place it concerns (a loop's sum),
        # for the budget's error
        self.activity: tuple[str, ast.Span | None] | None = None
        for relation in checked.bounds:
            self.slack.extend(self._slack_substitutions(relation))
        # the rules restore and drop_rounding replace with, fixed from here on: the totals
        # and bounds they are applied to share their nodes
        self._written_back = Replacer(self.backward)
        self._unrounded = WholeRoundings(self.integral)
        # each loop's iterator written in its counter: the summands of the statements under
        # a loop, and the bounds proven over it, share their inner sums and clipped bounds
        self._in_counters: dict[tuple[sympy.Expr, ...], Replacer] = {}

    def _divisibility(self, divisor: sympy.Expr, dividend: sympy.Expr) -> None:
        """`d | n` becomes n = d*q. A second fact on n, or one that would close a circle
        (`N | K` after `K | N`: N would be written in itself), proves integrality only."""
        if not isinstance(dividend, sympy.Symbol) or dividend in divisor.free_symbols:
            return
        if dividend in self.forward or dividend in self._closure(divisor).free_symbols:
            self.further.append((divisor, dividend))
            return
        quotient = sympy.Symbol(f"{dividend}__over__{sympy.sstr(divisor)}",
                                integer=True, positive=True)
        self.forward[dividend] = divisor * quotient
        self.backward[quotient] = dividend / divisor
        self.quotient_of[dividend] = quotient

    def _closure(self, expr: sympy.Expr) -> sympy.Expr:
        for _ in range(len(self.forward) + 1):
            replaced = expr.xreplace(self.forward)
            if replaced == expr:
                break
            expr = replaced
        return expr

    def _close_chains(self) -> None:
        """`T | K, K | N` gives K = T*a and N = K*b: substitute until every image is in
        sizes that are no dividend (N = T*a*b); no circle can form (see _divisibility)."""
        self.forward = {size: self._closure(image) for size, image in self.forward.items()}

    def _slack_substitutions(self,
                             relation: sympy.Expr) -> list[dict[sympy.Symbol, sympy.Expr]]:
        """`a <= b` with b a symbol becomes b = a + d, to prove signs with: a statement proven
        for every admissible d holds wherever the assumption does. d >= 0 for `<=`, and for
        `<` d > 0, or d >= 1 where both sides are integers; a slack that can be zero must never
        be declared positive=False (sympy would read that as d = 0)."""
        if isinstance(relation, (sympy.Ge, sympy.Gt)):
            small, large = relation.rhs, relation.lhs
        else:
            small, large = relation.lhs, relation.rhs
        small, large = small.subs(self.forward), large.subs(self.forward)
        strict = isinstance(relation, (sympy.Lt, sympy.Gt))
        assumptions = {"positive": True} if strict else {"nonnegative": True}
        if small.is_integer and large.is_integer:
            assumptions["integer"] = True
        delta = sympy.Dummy("slack", **assumptions)
        if isinstance(large, sympy.Symbol) and large not in small.free_symbols:
            return [{large: small + delta}]
        if isinstance(small, sympy.Symbol) and small not in large.free_symbols:
            return [{small: large - delta}]
        # neither side alone: solve large - small = delta for a symbol of coefficient +-1
        # (m - n > 0 gives m = n + delta)
        difference = sympy.expand(large - small)
        for symbol in sorted(difference.free_symbols, key=sympy.default_sort_key):
            coefficient = difference.coeff(symbol)
            rest = sympy.expand(difference - coefficient * symbol)
            if coefficient in (1, -1) and symbol not in rest.free_symbols:
                return [{symbol: (delta - rest) / coefficient}]
        return []

    def assume_positive(self, expr: sympy.Expr) -> None:
        """Take expr > 0 as a fact: a loop's step, which every count presumes positive (the
        checker refuses a step that is not, and warns where it cannot tell)."""
        if not self.positive(expr):
            self.slack.extend(self._slack_substitutions(sympy.Gt(expr, 0, evaluate=False)))

    def apply(self, expr: sympy.Expr) -> sympy.Expr:
        """expr with each dividend written as its divisor times a quotient."""
        return self.drop_rounding(expr.xreplace(self.forward))

    def restore(self, expr: sympy.Expr) -> sympy.Expr:
        """The quotients written back as dividend / divisor, in the spec's own sizes."""
        return self._written_back(self.drop_rounding(expr))

    def in_counter(self, loop: Loop) -> Replacer:
        """The replacement of the loop's iterator by lo + step * counter."""
        key = (loop.var, loop.lo, loop.step, loop.counter)
        if key not in self._in_counters:
            self._in_counters[key] = Replacer({loop.var: loop.lo + loop.step * loop.counter})
        return self._in_counters[key]

    def drop_rounding(self, expr: sympy.Expr) -> sympy.Expr:
        """floor(x) and ceiling(x) replaced by x wherever the facts prove x an integer."""
        for _ in range(8):  # a rounding inside a rounding needs a second pass
            expr, changed = self._unrounded.replaced(expr)
            if not changed:
                return expr
        return expr

    def whole_ceiling(self, value: sympy.Expr) -> sympy.Expr:
        """ceiling(value), or value itself where the facts prove it an integer: asked first,
        since building a ceiling of sizes runs sympy's sign queries on its argument."""
        if self.integral(value):
            return value
        return self.drop_rounding(sympy.ceiling(value))

    def integral(self, value: sympy.Expr) -> bool:
        """value (in quotients) is an integer for every choice of sizes the facts allow.
        A further fact `d | n` with n = c*q says q = d*r/c for some integer r: a value that is
        an integer for every integer r is one under the facts."""
        if value not in self._integral:
            self._integral[value] = self._proven_integral(value)
        return self._integral[value]

    def _proven_integral(self, value: sympy.Expr) -> bool:
        # a quotient may cancel to a polynomial: (a*b*k + a*b)/a is b*(k + 1)
        whole = value if may_be_proven_integer(value) else cancel(value)
        if may_be_proven_integer(whole) and whole.is_integer:
            return True
        for divisor, dividend in self.further:
            quotient = self.quotient_of.get(dividend)
            image = self.forward.get(dividend)
            if quotient is None or image is None or quotient not in value.free_symbols:
                continue
            free = sympy.Dummy("r", integer=True, positive=True)
            coefficient = cancel(image / quotient)
            image_of_quotient = divisor.xreplace(self.forward) * free / coefficient
            rewritten = sympy.expand(value.xreplace({quotient: image_of_quotient}))
            if may_be_proven_integer(rewritten) and rewritten.is_integer:
                return True
        return False

    def check_budget(self) -> None:
        """Stop with a clear error once the symbolic work outruns its budget, placed at the
        loop whose sum was running (`activity`) or else at the kernel."""
        if time.process_time() <= self.deadline:
            return
        kernel = self.kernel.span
        place = ast.Span(kernel.file, kernel.line, kernel.column, kernel.line,
                         kernel.column + 6)
        doing = ""
        if self.activity is not None:
            doing, place = f", stopped while {self.activity[0]}", self.activity[1] or place
        raise BudgetError(Code.SYMBOLIC_BUDGET_RAN_OUT, Diagnostic(
            place,
            f"counting `{self.kernel.name}` needs more than {self.budget_s:g} s of "
            f"symbolic work{doing}",
            "simplify the nest (fewer nested keep scopes or min/max bounds), or raise "
            "KERNELCOST_BUDGET_S"), self.kernel.source)

    def nonnegative(self, expr: sympy.Expr) -> bool:
        """True only when expr >= 0 is proven from the assumptions."""
        self.check_budget()
        # keyed on the facts too: a step taken as positive later (assume_positive) may prove
        # what could not be proven before
        key = (expr, len(self.slack))
        if key not in self._proven:
            self._proven[key] = self._proven_nonnegative(sympy.expand(expr))
        return self._proven[key]

    def _proven_nonnegative(self, expanded: sympy.Expr) -> bool:
        """The exact deciders first (terms that are plainly nonnegative, or a lower bound
        free of roundings that is, shifted coefficients, which settle signs at every size),
        then sympy's assumptions over the expression's lower bounds."""
        if _plainly_nonnegative(expanded):
            return True
        unrounded: tuple[sympy.Expr | None, ...] = ()
        if expanded.has(sympy.floor, sympy.ceiling):
            unrounded = (unrounded_lower_bound(expanded),)
            # a bound plainly nonnegative proves expr so at every size, as sympy's
            # assumptions prove the bound (a property test holds them to it): every decider
            # below gives True there or nothing, and sympy's queries on a rounding take a
            # millisecond or more (a clipped tile's last range, `S - Bc*(ceiling(S/Bc) - 1)`)
            if unrounded[0] is not None and _plainly_nonnegative(unrounded[0]):
                return True
        if shifted_nonnegative(expanded):
            return True
        sign = shifted_sign(expanded)
        if sign is not None:
            return sign >= 0  # negative at every size: no bound can prove it nonnegative
        if self._refuted(expanded):
            return False
        return any(candidate.is_nonnegative
                   for candidate in self._variants(expanded, unrounded))

    def _refuted(self, expr: sympy.Expr) -> bool:
        """expr is negative at some point its symbols' own assumptions allow: the variants
        prove only what holds at every such point, so the search through them (a
        millisecond or more) can be skipped. Not tried where bounds narrow expr's sizes (a
        slack that holds one of them), at a few small points: all ones, all twos, 1, 2,
        3, ... in both orders (T - K is negative at K = 2, T = 1), and each size at 3 with
        the others at 1 (B*S/P - 1 at P = 3: a quotient of sizes against a number)."""
        if expr.free_symbols & self._slack_symbols():
            return False
        symbols = sorted(expr.free_symbols, key=sympy.default_sort_key)
        one, three = sympy.Integer(1), sympy.Integer(3)
        counting = [sympy.Integer(n) for n in range(1, len(symbols) + 1)]
        points = ([one] * len(symbols), [sympy.Integer(2)] * len(symbols),
                  counting, counting[::-1],
                  *([three if place == raised else one for place in range(len(symbols))]
                    for raised in range(len(symbols))))
        plan = rational_eval.compiled(expr, tuple(symbols))
        for values in points:
            if not all(self._admits(symbol, value) for symbol, value in zip(symbols, values)):
                continue
            if plan is not None:  # the number xreplace gives, in integers; none where 1/0
                with contextlib.suppress(ZeroDivisionError):
                    if plan([int(value) for value in values])[0] < 0:
                        return True
                continue
            value = expr.xreplace(dict(zip(symbols, values)))
            if value.is_Rational and value < 0:
                return True
        return False

    def _admits(self, symbol: sympy.Symbol, value: sympy.Integer) -> bool:
        """_admits, once for each symbol and value: each refutation asks it of the same
        sizes at the same few points, a score of assumptions each time."""
        key = (symbol, value)
        if key not in self._admitted:
            self._admitted[key] = _admits(symbol, value)
        return self._admitted[key]

    def _slack_symbols(self) -> set[sympy.Symbol]:
        """The sizes a bound narrows, and the slack symbols standing for the bounds."""
        return {symbol for substitution in self.slack for size, image in substitution.items()
                for symbol in (size, *image.free_symbols)}

    def positive(self, expr: sympy.Expr) -> bool:
        """True only when expr > 0 is proven: an integer is positive once it is >= 1."""
        if expr.is_positive:
            return True
        return bool(expr.is_integer) and self.nonnegative(expr - 1)

    def nonpositive(self, expr: sympy.Expr) -> bool:
        return self.nonnegative(-expr)

    def nonnegative_within(self, expr: sympy.Expr, loops: Sequence[Loop]) -> bool:
        """expr >= 0 at every point of the nest `loops` (whose iterators it may use). Kept
        as nonnegative's answers are: a tile's box and its clipped edges ask again."""
        key = (expr, tuple(loops), len(self.slack))
        if key not in self._within:
            self._within[key] = (self._nonnegative_within(expr, loops)
                                 or at_loop_ends(expr, loops, self.nonnegative,
                                                 self.nonnegative_within))
        return self._within[key]

    def _nonnegative_within(self, expr: sympy.Expr, loops: Sequence[Loop]) -> bool:
        node = first_minmax(expr)
        if node is not None:
            return self._extremum_nonnegative_within(expr, node, loops)
        slack = sympy.Symbol("_within", integer=True, nonnegative=True)
        for loop in reversed(loops):
            if not expr.free_symbols & {loop.var, loop.counter}:
                # the loop moves nothing in expr: expanding it here (and again at the next
                # loop, and in nonnegative) and its slope of 0 decide nothing; a nest's bounds
                # are asked over all the loops around them, most of which they do not use
                continue
            expr = sympy.expand(self.in_counter(loop)(expr))
            slope = derivative(expr, loop.counter)
            if loop.counter not in expr.free_symbols:
                continue
            if slope.free_symbols & {loop.counter}:
                return False
            if self.nonnegative(slope):
                expr = expr.xreplace({loop.counter: slack})
            elif self.nonpositive(slope):
                expr = expr.xreplace({loop.counter: loop.trips - 1 - slack})
            else:
                return False
            if expr.has(sympy.Min, sympy.Max):
                return self.nonnegative_within(expr, loops[:loop.depth])
        return self.nonnegative(expr)

    def _extremum_nonnegative_within(self, expr: sympy.Expr, node: sympy.Expr,
                                     loops: Sequence[Loop]) -> bool:
        """c*min(a, b) + r >= 0 with c >= 0 needs both c*a + r and c*b + r, and c*max(a, b) + r
        needs one of them; a coefficient c <= 0 swaps the two rules. c of unknown sign, or
        one that holds the node itself, proves nothing."""
        stand_in = _EXTREMUM
        coefficient = derivative(expr.xreplace({node: stand_in}), stand_in)
        if stand_in in coefficient.free_symbols:
            return False
        if self.nonnegative_within(coefficient, loops):
            needs_all = isinstance(node, sympy.Min)
        elif self.nonnegative_within(-coefficient, loops):
            needs_all = isinstance(node, sympy.Max)
        else:
            return False
        cases = (self.nonnegative_within(expr.xreplace({node: arg}), loops) for arg in node.args)
        return all(cases) if needs_all else any(cases)

    def _variants(self, expr: sympy.Expr,
                  unrounded: tuple[sympy.Expr | None, ...] = ()) -> Iterator[sympy.Expr]:
        """expr, then lower bounds of it: if any is nonnegative, so is expr. `unrounded`:
        unrounded_lower_bound(expr), where the caller has it already."""
        yield expr
        lowered = [expr]
        for bound in (*(unrounded or (unrounded_lower_bound(expr),)),
                      unrounded_lower_bound(expr, ceiling_to_floor=True)):
            if bound is not None and bound != expr:
                lowered.append(bound)
                yield bound
        for substitution in self.slack:
            for base in lowered:
                yield sympy.expand(base.subs(substitution))
        if not expr.has(sympy.floor, sympy.ceiling, sympy.Min, sympy.Max):
            yield factor(expr)  # T*a - T is T*(a - 1): a product of signed factors


def _plainly_nonnegative(expr: sympy.Expr) -> bool:
    """A sum of products of nonnegative numbers and symbols (2*T*a + N, M/T): nonnegative
    without a query to sympy's assumptions, which take a millisecond on such a product."""
    return all(_plainly_nonnegative_factor(factor) for term in sympy.Add.make_args(expr)
               for factor in sympy.Mul.make_args(term))


def _plainly_nonnegative_factor(factor: sympy.Expr) -> bool:
    if factor.is_Rational or factor.is_Symbol:
        return bool(factor.is_nonnegative)
    return (factor.is_Pow and factor.base.is_Symbol and factor.exp.is_Integer
            and bool(factor.base.is_positive))


def _admits(symbol: sympy.Symbol, value: sympy.Integer) -> bool:
    """value has every property the symbol is declared with (integer, positive, ...)."""
    return all(getattr(value, f"is_{name}") == held
               for name, held in symbol.assumptions0.items())


def _budget_seconds() -> float:
    try:
        return float(os.environ.get("KERNELCOST_BUDGET_S", DEFAULT_BUDGET_S))
    except ValueError:
        return DEFAULT_BUDGET_S

