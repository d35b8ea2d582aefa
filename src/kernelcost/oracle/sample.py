"""Small sizes that meet a kernel's assumptions, and the steps a nest will take before it
runs (so that an enumeration too large is refused at once)."""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, KcostError, SpecCheckError
from ..base.records import record
from ..base.symbols import size_symbol
from ..lang.check import CheckedKernel
from .compare import evaluate
from .exprs import as_function, compile_expr, resolve_sizes, sympy_substitution
from .plans import iterator_values, trip_count
from .results import SAMPLE_MAX_STEPS, Env, Value

# --- sampling sizes ----------------------------------------------------------------------


def sample_sizes(kernel: CheckedKernel, count: int, rng: random.Random, *,
                 max_steps: int = SAMPLE_MAX_STEPS, extra_facts: Iterable[sympy.Basic] = (),
                 max_attempts: int = 4000, stop: Callable[[], bool] | None = None,
                 partial: bool = False, pinned: Mapping[str, int] | None = None
                 ) -> list[dict[str, int]]:
    """Draw `count` small assignments of every size parameter that satisfy the kernel's
    assumptions (divisibility and bounds, plus extra_facts such as a Cost's conditions) and
    whose nest runs at most max_steps loop iterations plus statements (counted by count_steps
    before the nest is ever run). Parameters that divide others
    or have a default (tile sizes) are drawn from 1..4, the others from 1..12; the ranges
    shrink when draws keep failing. Distinct assignments are preferred. `stop`, asked before
    each draw, ends the search early: the assignments found so far are returned, as they are
    when the attempts run out with `partial` (else fewer than `count` is an error). The
    `pinned` sizes take their given values in every assignment; the others are drawn."""
    extra_facts = tuple(extra_facts)
    order, nest = _DrawOrder(kernel), _nest_shape(kernel)
    samples: list[dict[str, int]] = []
    seen: set[tuple] = set()
    too_long = 0  # draws that met the assumptions but run more than max_steps
    for attempt in range(max_attempts):
        if len(samples) == count:
            break
        if stop is not None and stop():
            return samples
        shrink = attempt * 4 // max_attempts  # 0, 1, 2, 3 over the attempts
        candidate = order.draw(lambda name, top: rng.randint(1, top),
                               size_top=12 - 3 * shrink, tile_top=4 - shrink, pinned=pinned)
        key = tuple(sorted(candidate.items()))
        if key in seen and attempt < max_attempts // 2:
            continue
        resolved = resolve_sizes(kernel, candidate)  # once a draw, for both questions
        if not _assumptions_hold_at(kernel, resolved, extra_facts):
            continue
        if not nest.whole_steps_at(resolved):
            continue  # sizes refused where analysed (lang.sizes.refuse_fractional_steps)
        if nest.steps_at(resolved, max_steps) > max_steps:
            too_long += 1
            continue
        seen.add(key)
        samples.append(candidate)
    if len(samples) < count and not partial:
        hint = ("even its smallest sizes run more than that (a bound such as n * 1e19): "
                "such a nest cannot be enumerated; `analyze --no-verify` counts it"
                if too_long else "check that the `assume` facts can hold together")
        if pinned:
            given = ", ".join(f"{name} = {value}" for name, value in pinned.items())
            hint = (f"with {given} as set: " + ("smaller sizes run fewer steps" if too_long
                    else "check them against the `assume` facts"))
        raise SpecCheckError(Code.ASSUMPTIONS_UNMET, Diagnostic(
            kernel.kernel.span,
            f"found only {len(samples)} of {count} size "
            f"assignments of `{kernel.name}` that satisfy its "
            f"assumptions within {max_steps:,} steps", hint), kernel.kernel.source)
    return samples


def draw_sizes(kernel: CheckedKernel, pick: Callable[[str, int], int], *, size_top: int = 12,
               tile_top: int = 4) -> dict[str, int]:
    """One assignment, with `pick(name, top)` choosing an integer in 1..top (a random draw,
    or a hypothesis draw in the property tests). Tile-like parameters (divisors, and those
    with a default) take top = tile_top, the others size_top. Divisors are drawn before what
    they divide, which is then drawn as a multiple of their least common multiple; a cycle
    of facts is drawn freely (assumptions_hold filters it). A parameter bounded by another
    (`A <= T`, `B < A`) is drawn after it and under it; other relations are not enforced
    here: the caller filters with assumptions_hold."""
    return _DrawOrder(kernel).draw(pick, size_top, tile_top)


def tile_like_sizes(kernel: CheckedKernel) -> frozenset[str]:
    """The parameters drawn as tiles (1..4): the divisors of `assume` facts and those with a
    default; the others are drawn as problem sizes."""
    return frozenset(_DrawOrder(kernel).tile_like)


class _DrawOrder:
    """What every draw of one kernel's sizes reads: its parameters, which are tile-like, the
    divisors of each, and the sizes that bound each from above (`Ea <= E`: most draws of
    Ea up to 12 would fail against E up to 4). sample_sizes makes one for all its draws."""

    def __init__(self, kernel: CheckedKernel):
        self.parameters = [symbol.name for symbol in kernel.parameters]
        self.divisors = _divisors_by_dividend(kernel)
        self.tile_like = {symbol.name for divisor, _ in kernel.divisibility
                          for symbol in divisor.free_symbols}
        self.tile_like |= {symbol.name for symbol in kernel.defaults}
        self.bounds = _bounds_by_size(kernel)
        self._orders: dict[frozenset[str], tuple[tuple[str, bool], ...]] = {}

    def draw(self, pick: Callable[[str, int], int], size_top: int, tile_top: int,
             pinned: Mapping[str, int] | None = None) -> dict[str, int]:
        values = {name: value for name, value in (pinned or {}).items()
                  if name in self.parameters}
        for name, ready in self._order(frozenset(values)):
            top = tile_top if name in self.tile_like else size_top
            if ready:
                top = min([top] + [values[bound] - strict
                                   for bound, strict in self.bounds.get(name, ())])
            base = _divisors_lcm(self.divisors.get(name, ()), values) if ready else 1
            values[name] = base * pick(name, max(1, top // base))
        return values

    def _order(self, given: frozenset[str]) -> tuple[tuple[str, bool], ...]:
        """The names a draw takes in turn, each with whether its divisors and bounds are
        drawn before it (not where a cycle of facts leaves none ready: it is drawn freely).
        The order depends on which names are given only, so it is found once for them."""
        if given not in self._orders:
            drawn, pending, order = set(given), [n for n in self.parameters if n not in given], []
            while pending:
                ready = [name for name in pending if self._ready(name, drawn)]
                name = ready[0] if ready else pending[0]
                order.append((name, bool(ready)))
                drawn.add(name)
                pending.remove(name)
            self._orders[given] = tuple(order)
        return self._orders[given]

    def _ready(self, name: str, drawn: set[str]) -> bool:
        return (all(names <= drawn for _, names in self.divisors.get(name, ()))
                and all(bound in drawn for bound, _ in self.bounds.get(name, ())))


def _bounds_by_size(kernel: CheckedKernel) -> dict[str, list[tuple[str, int]]]:
    """Each parameter a relation between two parameters bounds from above: (the bounding
    one, 1 for a strict bound, else 0)."""
    parameters = set(kernel.parameters)
    bounds: dict[str, list[tuple[str, int]]] = {}
    for relation in kernel.bounds:
        if not isinstance(relation, (sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt)):
            continue
        small, large = ((relation.lhs, relation.rhs) if isinstance(relation, (sympy.Le, sympy.Lt))
                        else (relation.rhs, relation.lhs))
        if small in parameters and large in parameters:
            bounds.setdefault(small.name, []).append(
                (large.name, int(isinstance(relation, (sympy.Lt, sympy.Gt)))))
    return bounds


def _divisors_by_dividend(kernel: CheckedKernel) -> dict[str, list[tuple[sympy.Expr, set[str]]]]:
    """Each size that a fact divides, with its divisors and the sizes each divisor holds."""
    divisors: dict[str, list[tuple[sympy.Expr, set[str]]]] = {}
    for divisor, dividend in kernel.divisibility:
        if dividend.is_Symbol:
            names = {symbol.name for symbol in divisor.free_symbols}
            divisors.setdefault(dividend.name, []).append((divisor, names))
    return divisors


def _divisors_lcm(divisors, values: Mapping[str, int]) -> int:
    base = 1
    for divisor, _ in divisors:
        if divisor.is_Symbol:  # a size's own value, an int: no sympy number to make
            value = int(values[divisor.name])
            if value > 0:
                base = math.lcm(base, value)
            continue
        found = divisor.xreplace(sympy_substitution(values))
        if found.is_Integer and found > 0:
            base = math.lcm(base, int(found))
    return base


def assumptions_hold(kernel: CheckedKernel, sizes: Mapping[str, int],
                     extra_facts: Iterable[sympy.Basic] = ()) -> bool:
    """Whether the sizes satisfy every `assume` fact of the kernel, and the extra relations."""
    return _assumptions_hold_at(kernel, resolve_sizes(kernel, sizes), extra_facts)


def _assumptions_hold_at(kernel: CheckedKernel, resolved: Mapping[str, Value],
                         extra_facts: Iterable[sympy.Basic] = ()) -> bool:
    """assumptions_hold at sizes already resolved (resolve_sizes)."""
    at = _AtSizes(resolved)
    for divisor, dividend in kernel.divisibility:
        divisor_value = at.value(divisor)
        dividend_value = at.value(dividend)
        if divisor_value is None or dividend_value is None or divisor_value == 0:
            return False
        if (dividend_value / divisor_value).denominator != 1:
            return False
    return all(_relation_holds(relation, at) for relation in (*kernel.bounds, *extra_facts))


class _AtSizes:
    """Expressions at one assignment of the sizes: a size or a number read off, anything
    else evaluated exactly (the sympy substitution built on first need: most facts relate
    sizes, and a draw is refused at its first fact that fails)."""

    def __init__(self, values: Mapping[str, Value]):
        self.values = values
        self._substitution: dict[sympy.Symbol, sympy.Rational] | None = None

    def substitution(self) -> dict[sympy.Symbol, sympy.Rational]:
        if self._substitution is None:
            self._substitution = sympy_substitution(self.values)
        return self._substitution

    def value(self, expr: sympy.Expr) -> Fraction | None:
        if expr.is_Rational:
            return Fraction(int(expr.p), int(expr.q))
        if expr.is_Symbol and expr.name in self.values and expr == size_symbol(expr.name):
            return Fraction(self.values[expr.name])
        return evaluate(expr, self.substitution())


_RELATIONS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt,
              "==": operator.eq, "!=": operator.ne}


def _relation_holds(relation: sympy.Basic, at: _AtSizes) -> bool:
    if relation in (sympy.true, True):
        return True
    if relation in (sympy.false, False):
        return False
    if isinstance(relation, sympy.And):
        return all(_relation_holds(arg, at) for arg in relation.args)
    if isinstance(relation, sympy.Or):
        return any(_relation_holds(arg, at) for arg in relation.args)
    if getattr(relation, "rel_op", None) in _RELATIONS:
        left, right = at.value(relation.lhs), at.value(relation.rhs)
        return left is not None and right is not None and _RELATIONS[relation.rel_op](left, right)
    return bool(relation.xreplace(at.substitution()) == sympy.true)


# --- counting the steps before running the nest -----------------------------------------


class _OverLimit(Exception):
    pass


@record
class _LoopShape:
    """A loop with its bounds compiled and its body reduced to what costs steps."""

    lo: Callable[[Env], Value]
    hi: Callable[[Env], Value]
    step: Callable[[Env], Value]  # of the sizes alone
    var: str
    statements: int  # statements directly in the body (keeps flattened)
    loops: tuple[_LoopShape, ...]
    names: frozenset[str]  # the names its bounds and those of the loops inside use
    span: ast.Span
    moves: bool  # a loop inside bounds itself by this loop's iterator: counted value by value
    # the loops inside, split into those that move with it (counted at each value) and those
    # that do not (counted once a run of it, then times its trips)
    moving: tuple[_LoopShape, ...] = ()
    fixed: tuple[_LoopShape, ...] = ()


def count_steps(kernel: CheckedKernel, sizes: Mapping[str, int],
                limit: int = SAMPLE_MAX_STEPS) -> float:
    """Loop iterations plus statement executions of the nest, as enumerate_counts would run
    them, or inf as soon as they pass `limit`. Much cheaper than the enumeration: no access is
    evaluated, and a loop whose body does not move with it is counted from its trip count."""
    return _nest_shape(kernel).steps(sizes, limit)


# kept: the self-verification counts the steps of its draws, then of each sample it runs
# (enumerate_counts), all of one kernel
_LAST_SHAPE: list[tuple[CheckedKernel, _NestShape]] = []


def _nest_shape(kernel: CheckedKernel) -> _NestShape:
    """The _NestShape of the kernel, the last one built where it is the same kernel."""
    if not _LAST_SHAPE or _LAST_SHAPE[0][0] is not kernel:
        _LAST_SHAPE[:] = [(kernel, _NestShape(kernel))]
    return _LAST_SHAPE[0][1]


class _NestShape:
    """The nest reduced to what costs steps, its bounds compiled once with the sizes read from
    the environment beside the iterators (sample_sizes counts all its draws with one)."""

    def __init__(self, kernel: CheckedKernel):
        self.kernel = kernel
        sizes = {symbol.name for symbol in kernel.parameters} | set(kernel.sizes)
        self.statements, self.loops = _shape(kernel.kernel.statements, sizes)

    def steps(self, sizes: Mapping[str, int], limit: int) -> float:
        return self.steps_at(resolve_sizes(self.kernel, sizes), limit)

    def steps_at(self, resolved: Mapping[str, Value], limit: int) -> float:
        """steps at sizes already resolved (resolve_sizes)."""
        env = dict(resolved)
        _check_steps(self.loops, env)
        try:
            return _count_block(self.statements, self.loops, env, limit)
        except _OverLimit:
            return math.inf


    def whole_steps_at(self, resolved: Mapping[str, Value]) -> bool:
        """Whether every loop's step is a whole number at sizes already resolved: `by T / 2`
        at T = 3 would run its iterator over halves."""
        return _whole_steps(self.loops, dict(resolved))


def _whole_steps(loops: tuple[_LoopShape, ...], env: Env) -> bool:
    return all(Fraction(loop.step(env)).denominator == 1 and _whole_steps(loop.loops, env)
               for loop in loops)


def _shape(statements, sizes: set[str]) -> tuple[int, tuple[_LoopShape, ...]]:
    count, loops = 0, []
    for stmt in statements:
        if isinstance(stmt, ast.For):
            if stmt.step is not None and not ast.names_in(stmt.step) <= sizes:
                raise _step_error(stmt.span, stmt.var)  # a step that moves with an iterator
            step = 1 if stmt.step is None else compile_expr(stmt.step, {})
            inner_count, inner_loops = _shape(stmt.body, sizes)
            names = frozenset().union(ast.names_in(stmt.lo), ast.names_in(stmt.hi),
                                      *(inner.names for inner in inner_loops))
            moving = tuple(inner for inner in inner_loops if stmt.var in inner.names)
            fixed = tuple(inner for inner in inner_loops if stmt.var not in inner.names)
            loops.append(_LoopShape(as_function(compile_expr(stmt.lo, {})),
                                    as_function(compile_expr(stmt.hi, {})), as_function(step),
                                    stmt.var, inner_count, inner_loops, names, stmt.span,
                                    bool(moving), moving, fixed))
        elif isinstance(stmt, ast.Keep):
            inner_count, inner_loops = _shape(stmt.body, sizes)
            count += inner_count
            loops.extend(inner_loops)
        elif isinstance(stmt, ast.Assign) or (isinstance(stmt, ast.Let) and stmt.dtype):
            count += 1
    return count, tuple(loops)


def _check_steps(loops: tuple[_LoopShape, ...], env: Env) -> None:
    """Every loop's step positive at these sizes, whether or not the loop runs."""
    for loop in loops:
        if loop.step(env) <= 0:
            raise _step_error(loop.span, loop.var)
        _check_steps(loop.loops, env)


def _step_error(span: ast.Span, var: str) -> KcostError:
    return SpecCheckError(Code.NOT_A_SIZE_EXPRESSION, Diagnostic(
        span, f"loop step of `{var}` must be a positive size expression"))


def _count_block(statements: int, loops: tuple[_LoopShape, ...], env: Env, limit: int) -> int:
    """The steps of a block; a loop whose body takes the same steps at every value of its
    iterator (no bound inside uses it) is counted from its trip count."""
    total = statements
    for loop in loops:
        lo, hi, step = loop.lo(env), loop.hi(env), loop.step(env)
        if not loop.moves:
            trips = trip_count(lo, hi, step)
            if trips:
                total += trips * (1 + _count_block(loop.statements, loop.loops, env, limit))
        elif trip_count(lo, hi, step):
            # the part of an iteration that does not move with the loop, counted once; each
            # value still adds it, so that a long loop reaches the limit however little moves
            same = 1 + _count_block(loop.statements, loop.fixed, env, limit)
            for value in iterator_values(lo, hi, step):
                env[loop.var] = value
                total += same + _count_block(0, loop.moving, env, limit)
                if total > limit:
                    raise _OverLimit
            env.pop(loop.var, None)
        if total > limit:
            raise _OverLimit
    return total

