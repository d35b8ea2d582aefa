"""Roots found numerically, where no closed form exists: the intensity holds ceilings or
min/max and every other size is set. Sign changes on a log grid, refined by bisection.

A form that keeps a Sum (numeric_sums) is evaluated at integer sizes only, its sums added up,
and only as far as the grid's sizes cost at most POINT_TERMS terms each: a root beyond that
size is not found, and `SumSearch.searched_to` says where the search stopped."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import sympy

from ..base.errors import BudgetError, Code, Diagnostic, SizeError
from ..base.kinds import Side
from ..base.records import record
from .numeric_sums import Summed, has_sum

ABOVE, BELOW = Side.ABOVE, Side.BELOW  # the side of a root where the quantity exceeds the target
GRID = [10 ** (k / 40) for k in range(15 * 40 + 1)]  # 1 .. 1e15, 40 points a decade
POINT_TERMS = 1_000_000  # terms of its sums a form is evaluated with at one size, at most


@record
class Root:
    expr: sympy.Expr | None  # in the target symbol; None for a root found only numerically
    condition: sympy.Basic
    value: sympy.Expr  # at the target's value
    side: Side | None  # where the quantity exceeds the target
    # a root found numerically: the size nearest it on the side that exceeds (None: not
    # known), which the root's last bits cannot say where the form steps at a whole number
    edge: int | None = None


def numeric_roots(quantity: sympy.Expr, variable: sympy.Symbol, target_value: sympy.Expr,
                  ties_exceed: bool = True) -> list[Root]:
    """Where quantity - target changes side over 1 .. 1e15 on a log grid, refined by
    bisection: for intensities with ceilings or min/max, when every other parameter is set.
    The sides are `exceeds` and its opposite, a size where quantity = target on the first
    when `ties_exceed` (a ridge: compute-bound at or above it), on the second when not (a
    capacity: bytes that equal it fit). A ceiling's step holds quantity = target over a
    whole range of sizes, where grid points land: read as a third sign, the crossing across
    it was never found, and the bisection stopped at its start whichever side it was on."""
    if _other_sizes(quantity, variable):
        raise SizeError(Code.NOT_IN_CLOSED_FORM, Diagnostic(
            None, f"cannot solve {shortened(quantity)} = {target_value} in closed form",
            "set every other parameter (--set) for a numeric answer"))
    if _has_sum(quantity):
        return sum_search(quantity, variable).roots(target_value, ties_exceed)
    search = grid_search(quantity, variable) if _apart(quantity, target_value) else None
    difference: Callable[[float], object]
    if search is None:
        difference = math_function(variable, quantity - target_value)
        signs = [_sign(difference, x) for x in GRID]
    else:
        difference, signs = search.against(target_value)
    roots = []
    for (left, right), (before, after) in zip(itertools.pairwise(GRID),
                                              itertools.pairwise(signs)):
        if _sides_differ(before, after, ties_exceed):
            root = _bisect(difference, left, right, ties_exceed)
            if root < 1:
                continue
            side = ABOVE if _exceeds(after, ties_exceed) else BELOW
            edge = _edge(quantity - target_value, variable, root, side, ties_exceed)
            roots.append(Root(None, sympy.true, sympy.Float(root), side, edge))
    return roots


def _edge(difference: sympy.Expr, variable: sympy.Symbol, root: float, side: Side,
          ties_exceed: bool) -> int | None:
    """The size nearest `root` on the side that exceeds, from the form's exact value there:
    ceil(n / 3) + n reaches 14 at n = 10 exactly, and the bisection's double may lie a bit
    either side of 10; in doubles ceil(n / 105) is 4 at n = 315 ((1/105) * 315 is
    3.0000000000000004)."""
    if not root < 2 ** 53:  # past a double's whole numbers (and NaN)
        return None
    near = math.floor(root) if side == ABOVE else math.ceil(root)
    value = difference.xreplace({variable: sympy.Integer(near)})
    if not value.is_Rational:
        return None
    sign = 1 if value > 0 else -1 if value < 0 else 0
    if _exceeds(sign, ties_exceed):
        return near
    return near + 1 if side == ABOVE else near - 1


def _exceeds(sign: int | None, ties_exceed: bool) -> bool:
    return sign is not None and (sign > 0 or (ties_exceed and sign == 0))


def _sides_differ(before: int | None, after: int | None, ties_exceed: bool) -> bool:
    """Two defined signs on the two sides of the target; an undefined one (None: a pole, an
    overflow, NaN) claims no root across it."""
    return (before is not None and after is not None
            and _exceeds(before, ties_exceed) != _exceeds(after, ties_exceed))


# kept: every machine's ridge asks them of the same intensity, and each walks its whole tree
# (a third of flash_attention_hopper's searches with all machines)
@functools.lru_cache(maxsize=64)
def _other_sizes(quantity: sympy.Expr, variable: sympy.Symbol) -> bool:
    return bool(quantity.free_symbols - {variable})


@functools.lru_cache(maxsize=64)
def _has_sum(quantity: sympy.Expr) -> bool:
    return has_sum(quantity)


def shortened(expr: sympy.Expr, width: int = 160) -> str:
    text = sympy.sstr(expr)
    return text if len(text) <= width else text[:width - 3] + "..."


def _sign(function: Callable[[float], object], x: float) -> int | None:
    """The sign at x (0 where the form equals the target); None where the form is undefined
    there (a pole, an overflow), so that no root is claimed across it."""
    try:
        value = function(x)
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
    return _signed_number(value)


def _apart(quantity: sympy.Expr, target_value: sympy.Expr) -> bool:
    """Whether lambdify writes quantity - target_value as `-p/q + (quantity)`: the target
    a rational, which Python's `-p/q` rounds as `p / q` does, and the quantity no sum, whose
    number sympy would merge with the target (the additions then differ). The difference
    is then, bit for bit, the quantity's own function less that float (float addition
    commutes)."""
    return bool(target_value.is_Rational) and not quantity.is_Add


# kept: every machine's ridge asks the roots of one intensity against its own number
@functools.lru_cache(maxsize=64)
def grid_search(quantity: sympy.Expr, variable: sympy.Symbol) -> GridSearch:
    return GridSearch(quantity, variable)


class GridSearch:
    """A quantity lambdified once and evaluated once on the log grid, where numeric_roots
    lambdified `quantity - target` and evaluated it on the grid anew for every target
    (lambdify prints and compiles the form: most of a search's time)."""

    def __init__(self, quantity: sympy.Expr, variable: sympy.Symbol):
        self.function = math_function(variable, quantity)
        self.values = [_value(self.function, x) for x in GRID]

    def against(self, target_value: sympy.Expr
                ) -> tuple[Callable[[float], object], list[int | None]]:
        """The difference quantity - target as a function, and its signs on the grid."""
        number: int | float = (int(target_value) if target_value.is_Integer
                               else int(target_value.p) / int(target_value.q))
        function = self.function

        def difference(x: float) -> object:
            return function(x) - number

        return difference, _difference_signs(self.values, number)


def _value(function: Callable[[float], object], x: float) -> int | float | None:
    """The function at x; None where it raises, or gives what is no number, as _sign
    reads it."""
    try:
        value = function(x)
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
    return value if isinstance(value, (int, float)) else None


def _difference_signs(values: list[int | float | None], number: int | float
                      ) -> list[int | None]:
    """The sign of value - number at every grid point (None for none), as _sign reads the
    difference there, in one loop: each machine's ridge reads the whole grid (601 points),
    and a call a point was most of it."""
    signs: list[int | None] = []
    for value in values:
        if value is None:
            signs.append(None)
            continue
        try:
            difference = value - number
        except OverflowError:  # an integer past a double less a float, as the difference raises
            signs.append(None)
            continue
        if type(difference) is float:  # _signed_number's reading: NaN is no sign
            signs.append(None if difference != difference else
                         1 if difference > 0 else -1 if difference < 0 else 0)
        else:
            signs.append(_signed_number(difference))
    return signs


def _signed_number(value: object) -> int | None:
    """_sign's reading of a value: None for what is no number or NaN."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return 0 if value == 0 else int(math.copysign(1, value))


def _bisect(function: Callable[[float], object], left: float, right: float,
            ties_exceed: bool) -> float:
    """The root between left and right, halving 200 times or until a halving moves neither
    end. left keeps the side it has at the start (it moves only to a point of that side), so
    the side there is taken once; and once a halving moves neither end (no double lies
    between them), every later one is the same halving: the result is the 200th's."""
    left_side = _exceeds(_sign(function, left), ties_exceed)
    for _ in range(200):
        middle = (left + right) / 2
        sign = _sign(function, middle)
        if sign is not None and _exceeds(sign, ties_exceed) == left_side:
            moved, left = middle != left, middle
        else:
            moved, right = middle != right, middle
        if not moved:
            break
    return (left + right) / 2




@functools.lru_cache(maxsize=64)
def sum_search(quantity: sympy.Expr, variable: sympy.Symbol) -> SumSearch:
    """The search of a form with Sums, kept: every machine's ridge asks it of one intensity."""
    return SumSearch(quantity, variable)


class SumSearch:
    """A form that keeps Sums at the integer sizes of the log grid, each evaluated once, as
    far as POINT_TERMS terms a size reach; roots against any target found from them."""

    def __init__(self, quantity: sympy.Expr, variable: sympy.Symbol):
        self.function = Summed(quantity, variable, POINT_TERMS)
        self.values: dict[int, float] = {}
        for size in sorted({round(x) for x in GRID}):
            if self._at(size) is None:
                break
        self.sizes = sorted(self.values)

    @property
    def searched_to(self) -> int:
        """The largest size evaluated: no root beyond it is found."""
        return self.sizes[-1]

    def _at(self, size: int) -> float | None:
        """The form at one size; None past the terms a size may take."""
        if size not in self.values:
            try:
                self.values[size] = float(self.function(float(size)))
            except BudgetError:
                return None
        return self.values[size]

    def roots(self, target_value: sympy.Expr, ties_exceed: bool = True) -> list[Root]:
        """numeric_roots' sides at the grid's sizes."""
        target = float(target_value)
        roots = []
        for left, right in itertools.pairwise(self.sizes):
            before, after = _signed(self.values[left] - target), _signed(
                self.values[right] - target)
            if _sides_differ(before, after, ties_exceed):
                side = _exceeds(before, ties_exceed)
                root, edge = self._bisected(left, right, side, target, ties_exceed)
                roots.append(Root(None, sympy.true, sympy.Float(root),
                                  ABOVE if _exceeds(after, ties_exceed) else BELOW, edge))
        return roots

    def _bisected(self, left: int, right: int, side: bool, target: float,
                  ties_exceed: bool) -> tuple[float, int]:
        """Between the integers left (on `side` of the target) and right (not): the
        crossing, interpolated between the last two integers, and the one of them that
        exceeds the target."""
        while right - left > 1:
            middle = (left + right) // 2
            value = self._at(middle)
            if value is not None and _exceeds(_signed(value - target), ties_exceed) == side:
                left = middle
            else:
                right = middle
        low, high = self.values[left] - target, (self._at(right) or 0.0) - target
        root = left + low / (low - high) if high != low else float(right)
        return root, left if side else right


def _signed(value: float) -> int | None:
    return None if math.isnan(value) else 0 if value == 0 else int(math.copysign(1, value))


def math_function(variable: sympy.Symbol, expr: sympy.Expr) -> Callable[[float], float]:
    """sympy.lambdify(variable, expr, modules="math"), the same function from the same source,
    printed by `_MathPrinter`."""
    return sympy.lambdify(variable, expr, modules="math", printer=_math_printer())


def _math_printer() -> object:
    """The printer lambdify makes for modules="math" (PythonCodePrinter with these settings),
    as `_MathPrinter`."""
    return _math_printer_class()({"fully_qualified_modules": False, "inline": True,
                                  "allow_unknown_functions": True, "user_functions": {}})


@functools.cache
def _math_printer_class() -> type:
    """PythonCodePrinter with CodePrinter.doprint for one expression and no assignment, the
    same text without its first step: the import of sympy.codegen.ast (for assignments and
    code blocks, which one expression never is), some 8 ms the first time a process
    lambdifies, which a spec's crossings searched numerically paid on every command with a
    machine. Made on first use: the printers are sympy's to import."""
    from sympy.printing.pycode import PythonCodePrinter

    class _MathPrinter(PythonCodePrinter):  # type: ignore[misc]
        def doprint(self, expr, assign_to=None):  # type: ignore[no-untyped-def]
            if (assign_to is not None or not isinstance(expr, sympy.Basic)
                    or not self._settings["human"]):
                return super().doprint(expr, assign_to)
            expr = self._handle_UnevaluatedExpr(expr)
            self._not_supported: set[sympy.Basic] = set()
            self._number_symbols: set[tuple[str, sympy.Expr]] = set()
            lines = self._print(expr).splitlines()
            front = []
            if self._not_supported:
                front.append(self._get_comment(f"Not supported in {self.language}:"))
                front += [self._get_comment(type(item).__name__)
                          for item in sorted(self._not_supported, key=str)]
            front += [self._declare_number_const(name, value)
                      for name, value in sorted(self._number_symbols, key=str)]
            text = "\n".join(self._format_code(front + lines))
            self._not_supported = set()
            self._number_symbols = set()
            return text

    return _MathPrinter
