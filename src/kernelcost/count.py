"""Stage 3: CheckedKernel -> Cost. Exact symbolic counting with sympy.

Every loop `for v in lo..hi by s` becomes a counter t = 0, 1, ..., trips - 1 with
v = lo + s*t and trips = ceiling((hi - lo)/s). Counts are nested sums over these counters,
evaluated in closed form; `min`/`max` bounds are split at the counter value where the
smaller argument changes, so clipped edge tiles count exactly (full tiles plus remainder).

Divisibility facts (`assume T | N`) are applied by writing N = T*q with q a positive integer,
which lets sympy drop the ceilings; q is written back as N/T at the end."""

from __future__ import annotations

import itertools
import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import sympy

from . import ast
from .check import CheckedKernel
from .cost import WORK_CLASSES, Cost, ScopeCost, TensorFootprint
from .errors import Diagnostic, KcostError
from .symbols import LEVELS, counter_symbol, iterator_symbol, to_sympy
from .work import statement_work

REUSE_MODES = ("spec", "perfect", "none")
# Seconds of symbolic work one count may take before it stops with an error rather than
# leaving the user waiting; KERNELCOST_BUDGET_S overrides it.
DEFAULT_BUDGET_S = 60.0
MAX_UNION_ACCESSES = 8  # distinct shifted boxes unioned exactly; more get a bounding box
ACCUMULATIONS = ("+=", "max=", "min=")


# --- the loop nest, flattened -----------------------------------------------------------


@dataclass(frozen=True)
class Loop:
    var: sympy.Symbol
    counter: sympy.Symbol
    lo: sympy.Expr
    hi: sympy.Expr
    step: sympy.Expr
    trips: sympy.Expr
    depth: int  # position in the nest, 0 outermost
    never_empty: bool = True  # proven to run at least once at every outer iteration


@dataclass(frozen=True)
class Scope:
    index: int
    level: str
    tensors: tuple[str, ...]
    loops: tuple[Loop, ...]  # loops around the scope
    parent_levels: dict[str, str]  # tensor -> the level it is in when the scope starts


@dataclass(frozen=True)
class AccessSite:
    """One tensor access in one statement: read or write, with its place in the nest."""

    tensor: str
    indices: tuple[sympy.Expr, ...]
    is_write: bool
    accumulation_read: bool  # the read half of `X[..] += ...`
    loops: tuple[Loop, ...]
    scopes: tuple[Scope, ...]  # keep scopes around the access, outermost first
    extent: tuple[sympy.Expr, ...]  # the tensor's declared shape


@dataclass(frozen=True)
class Execution:
    """A statement that does work, with the loops around it."""

    work: Counter
    loops: tuple[Loop, ...]


@dataclass
class Nest:
    executions: list[Execution] = field(default_factory=list)
    accesses: list[AccessSite] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)


# --- facts: divisibility and bounds -----------------------------------------------------


class Facts:
    """What the spec assumes about its sizes, used to simplify and to prove signs."""

    def __init__(self, checked: CheckedKernel, budget_s: float | None = None):
        self.kernel = checked.kernel
        self.budget_s = _budget_seconds() if budget_s is None else budget_s
        self.deadline = time.monotonic() + self.budget_s
        self.forward: dict[sympy.Symbol, sympy.Expr] = {}
        self.backward: dict[sympy.Symbol, sympy.Expr] = {}
        for divisor, dividend in checked.divisibility:
            if not isinstance(dividend, sympy.Symbol) or dividend in self.forward:
                continue
            divisor = divisor.subs(self.forward)
            quotient = sympy.Symbol(f"{dividend}__over__{sympy.sstr(divisor)}",
                                    integer=True, positive=True)
            self.forward[dividend] = divisor * quotient
            self.backward[quotient] = dividend / divisor
        self.slack: list[dict[sympy.Symbol, sympy.Expr]] = []
        for relation in checked.bounds:
            self.slack.extend(self._slack_substitutions(relation))

    def _slack_substitutions(self, relation) -> list[dict]:
        """`a <= b` with b a symbol becomes b = a + d (d >= 0), to prove signs with."""
        if isinstance(relation, (sympy.Ge, sympy.Gt)):
            small, large = relation.rhs, relation.lhs
        else:
            small, large = relation.lhs, relation.rhs
        strict = isinstance(relation, (sympy.Lt, sympy.Gt))
        delta = sympy.Symbol("_slack", integer=True, positive=strict, nonnegative=True)
        substitutions = []
        small, large = small.subs(self.forward), large.subs(self.forward)
        for free in (large.free_symbols if isinstance(large, sympy.Symbol) else ()):
            substitutions.append({free: small + delta})
        if isinstance(small, sympy.Symbol) and not substitutions:
            substitutions.append({small: large - delta})
        return substitutions

    def apply(self, expr: sympy.Expr) -> sympy.Expr:
        return expr.subs(self.forward)

    def restore(self, expr: sympy.Expr) -> sympy.Expr:
        return expr.subs(self.backward)

    def check_budget(self) -> None:
        """Stop with a clear error once the symbolic work outruns its budget."""
        if time.monotonic() > self.deadline:
            raise KcostError(Diagnostic(
                ast.Span(self.kernel.span.file, self.kernel.span.line, self.kernel.span.column,
                         self.kernel.span.line, self.kernel.span.column + 6),
                f"counting `{self.kernel.name}` needs more than {self.budget_s:g} s of "
                "symbolic work",
                "simplify the nest (fewer nested keep scopes or min/max bounds), or raise "
                "KERNELCOST_BUDGET_S"), self.kernel.source)

    def nonnegative(self, expr: sympy.Expr) -> bool:
        """True only when expr >= 0 is proven from the assumptions."""
        self.check_budget()
        for candidate in self._variants(sympy.expand(expr)):
            if candidate.is_nonnegative:
                return True
        return False

    def nonpositive(self, expr: sympy.Expr) -> bool:
        return self.nonnegative(-expr)

    def nonnegative_within(self, expr: sympy.Expr, loops) -> bool:
        """expr >= 0 at every point of the nest `loops` (whose iterators it may use)."""
        node = next((n for n in sympy.preorder_traversal(expr)
                     if isinstance(n, (sympy.Min, sympy.Max))), None)
        if node is not None:
            # min(a, b) + r >= 0 needs both a + r and b + r; max(a, b) + r needs one
            cases = [self.nonnegative_within(expr.xreplace({node: arg}), loops)
                     for arg in node.args]
            return all(cases) if isinstance(node, sympy.Min) else any(cases)
        slack = sympy.Symbol("_within", integer=True, nonnegative=True)
        for loop in reversed(loops):
            expr = sympy.expand(expr.subs(loop.var, loop.lo + loop.step * loop.counter))
            slope = sympy.diff(expr, loop.counter)
            if loop.counter not in expr.free_symbols:
                continue
            if slope.free_symbols & {loop.counter}:
                return False
            if self.nonnegative(slope):
                expr = expr.subs(loop.counter, slack)
            elif self.nonpositive(slope):
                expr = expr.subs(loop.counter, loop.trips - 1 - slack)
            else:
                return False
            if expr.has(sympy.Min, sympy.Max):
                return self.nonnegative_within(expr, loops[:loop.depth])
        return self.nonnegative(expr)

    def _variants(self, expr):
        """expr, then lower bounds of it: if any is nonnegative, so is expr."""
        yield expr
        lowered = [expr]
        for bound in (_lower_bound(expr), _lower_bound(expr, ceiling_to_floor=True)):
            if bound is not None and bound != expr:
                lowered.append(bound)
                yield bound
        for substitution in self.slack:
            for base in lowered:
                yield sympy.expand(base.subs(substitution))


def _integer_ratio(value):
    numerator, denominator = sympy.fraction(sympy.together(value))
    if numerator.is_integer and denominator.is_integer and denominator.is_positive:
        return numerator, denominator
    return None


def _floor_at_least(value):
    """floor(p/q) >= (p - q + 1)/q for integers p and q > 0; else floor(x) > x - 1."""
    ratio = _integer_ratio(value)
    return value - 1 if ratio is None else (ratio[0] - ratio[1] + 1) / ratio[1]


def _ceiling_at_most(value):
    """ceiling(p/q) <= (p + q - 1)/q for integers p and q > 0; else ceiling(x) < x + 1."""
    ratio = _integer_ratio(value)
    return value + 1 if ratio is None else (ratio[0] + ratio[1] - 1) / ratio[1]


def _lower_bound(expr, ceiling_to_floor=False):
    """A lower bound of expr free of floor/ceiling terms (x - 1 < floor(x) <= x, and
    x <= ceiling(x) < x + 1), chosen by the sign of each term's coefficient; or with
    ceiling_to_floor, ceiling(x) >= floor(x) where a ceiling adds. None when a term is not
    of the form coefficient * floor(...)."""
    terms = []
    for term in sympy.Add.make_args(sympy.expand(expr)):
        rounded = [f for f in term.atoms(sympy.floor, sympy.ceiling)]
        if not rounded:
            terms.append(term)
            continue
        if len(rounded) > 1:
            return None
        (node,) = rounded
        coefficient = sympy.cancel(term / node)
        if coefficient.has(sympy.floor, sympy.ceiling):
            return None
        inner = node.args[0]
        adds = coefficient.is_nonnegative
        subtracts = coefficient.is_nonpositive
        if ceiling_to_floor:
            if isinstance(node, sympy.ceiling) and adds:
                terms.append(coefficient * sympy.floor(inner))
            else:
                terms.append(term)
            continue
        if isinstance(node, sympy.floor):
            value = inner if subtracts else (_floor_at_least(inner) if adds else None)
        else:
            value = inner if adds else (_ceiling_at_most(inner) if subtracts else None)
        if value is None:
            return None
        terms.append(coefficient * value)
    return sympy.expand(sympy.Add(*terms))


# --- walking the AST ---------------------------------------------------------------------


class _NestBuilder:
    def __init__(self, checked: CheckedKernel, facts: Facts, reuse: str):
        self.checked = checked
        self.facts = facts
        self.ignore_keeps = reuse != "spec"
        self.sizes = {name: facts.apply(value) for name, value in checked.sizes.items()}
        self.nest = Nest()
        self.scope_count = 0

    def build(self) -> Nest:
        for stmt in self.checked.kernel.statements:
            self._statement(stmt, (), (), {})
        return self.nest

    def _names(self, loops) -> dict[str, sympy.Expr]:
        names = dict(self.sizes)
        for loop in loops:
            names[loop.var.name] = loop.var
        return names

    def _statement(self, stmt, loops, scopes, levels) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, loops, scopes, levels)
        elif isinstance(stmt, ast.Keep):
            self._keep(stmt, loops, scopes, levels)
        elif isinstance(stmt, ast.Let) and stmt.dtype is not None:  # untyped: a size
            self.nest.executions.append(Execution(statement_work(stmt), loops))
            self._reads(stmt.value, loops, scopes)
        elif isinstance(stmt, ast.Assign):
            self.nest.executions.append(Execution(statement_work(stmt), loops))
            self._reads(stmt.value, loops, scopes)
            self._target(stmt, loops, scopes)

    def _for(self, loop: ast.For, loops, scopes, levels) -> None:
        names = self._names(loops)
        lo = to_sympy(loop.lo, names)
        hi = to_sympy(loop.hi, names)
        step = to_sympy(loop.step, names) if loop.step is not None else sympy.Integer(1)
        trips = sympy.ceiling((hi - lo) / step)
        if not self.facts.nonnegative_within(hi - lo, loops):
            trips = sympy.Max(0, trips)
        never_empty = self.facts.nonnegative_within(hi - lo - 1, loops)
        this = Loop(iterator_symbol(loop.var), counter_symbol(loop.var), lo, hi, step, trips,
                    len(loops), never_empty)
        for stmt in loop.body:
            self._statement(stmt, loops + (this,), scopes, levels)

    def _keep(self, keep: ast.Keep, loops, scopes, levels) -> None:
        index = self.scope_count
        self.scope_count += 1
        if self.ignore_keeps:
            for stmt in keep.body:
                self._statement(stmt, loops, scopes, levels)
            return
        tensors = tuple(name.id for name in keep.tensors)
        parent_levels = {t: levels.get(t, self.checked.tensors[t].level) for t in tensors}
        scope = Scope(index, keep.level.id, tensors, loops, parent_levels)
        self.nest.scopes.append(scope)
        inner_levels = {**levels, **{t: keep.level.id for t in tensors}}
        for stmt in keep.body:
            self._statement(stmt, loops, scopes + (scope,), inner_levels)

    def _site(self, access: ast.Access, loops, scopes, is_write, accumulation_read=False):
        names = self._names(loops)
        indices = tuple(to_sympy(index, names) for index in access.indices)
        tensor_scopes = tuple(s for s in scopes if access.tensor in s.tensors)
        extent = tuple(self.facts.apply(e) for e in self.checked.tensors[access.tensor].shape)
        return AccessSite(access.tensor, indices, is_write, accumulation_read, loops,
                          tensor_scopes, extent)

    def _reads(self, expr: ast.Expr, loops, scopes) -> None:
        for node in ast.walk_expr(expr):
            if isinstance(node, ast.Access):
                self.nest.accesses.append(self._site(node, loops, scopes, False))
            elif isinstance(node, ast.Name) and node.id in self.checked.tensors:
                scalar = ast.Access(node.id, (), node.span)
                self.nest.accesses.append(self._site(scalar, loops, scopes, False))

    def _target(self, assign: ast.Assign, loops, scopes) -> None:
        target = assign.target
        if isinstance(target, ast.Name):
            if target.id not in self.checked.tensors:
                return  # a register local
            target = ast.Access(target.id, (), target.span)
        if assign.op in ACCUMULATIONS:
            self.nest.accesses.append(self._site(target, loops, scopes, False, True))
        self.nest.accesses.append(self._site(target, loops, scopes, True))


# --- sums ------------------------------------------------------------------------------


class Summer:
    """Closed-form sums over loop counters."""

    def __init__(self, facts: Facts):
        self.facts = facts
        self.closed = True  # False once a sum had to stay unevaluated

    def over_loops(self, summand: sympy.Expr, loops) -> sympy.Expr:
        """Sum summand (in the loops' iterators) over every point of the nest `loops`."""
        total = summand
        for loop in reversed(loops):
            total = total.subs(loop.var, loop.lo + loop.step * loop.counter)
            total = self.range_sum(total, loop.counter, sympy.Integer(0), loop.trips - 1)
        return total

    def range_sum(self, summand, counter, first, last) -> sympy.Expr:
        """sum of summand for counter = first..last (empty when last < first)."""
        self.facts.check_budget()
        summand = sympy.expand(summand) if not summand.has(sympy.Min, sympy.Max) else summand
        if counter not in summand.free_symbols:
            return summand * (last - first + 1)
        choice = self._first_minmax(summand, counter)
        if choice is not None:
            return self._split_minmax(summand, counter, first, last, choice)
        result = sympy.summation(summand, (counter, first, last))
        if result.has(sympy.Sum):
            self.closed = False
        return result

    @staticmethod
    def _first_minmax(expr, counter):
        """An innermost min/max over the counter: split it first, the outer ones then
        often resolve on each side. Never one inside an unevaluated Sum: it may hold that
        sum's bound counters, and a split point made of them would leak out of the sum."""
        if isinstance(expr, sympy.Sum):
            return None
        for arg in expr.args:
            node = Summer._first_minmax(arg, counter)
            if node is not None:
                return node
        if isinstance(expr, (sympy.Min, sympy.Max)) and counter in expr.free_symbols:
            return expr
        return None

    def _split_minmax(self, summand, counter, first, last, node) -> sympy.Expr:
        left, *rest = node.args
        right = node.func(*rest) if len(rest) > 1 else rest[0]
        # `chosen_left` holds where left is the one min (max) picks
        difference = sympy.expand(left - right)
        if not isinstance(node, sympy.Min):
            difference = -difference  # Max picks left where left - right >= 0
        poly = sympy.Poly(difference, counter) if difference.is_polynomial(counter) else None
        if poly is None or poly.degree() > 1:
            self.closed = False
            return sympy.Sum(summand, (counter, first, last))
        slope, offset = poly.all_coeffs() if poly.degree() == 1 else (0, poly.as_expr())
        with_left = summand.xreplace({node: left})
        with_right = summand.xreplace({node: right})
        at_first = difference.subs(counter, first)
        at_last = difference.subs(counter, last)
        if self.facts.nonpositive(at_first) and self.facts.nonpositive(at_last):
            return self.range_sum(with_left, counter, first, last)
        if self.facts.nonnegative(at_first) and self.facts.nonnegative(at_last) and not (
            at_first == 0 and at_last == 0
        ):
            return self.range_sum(with_right, counter, first, last)
        if slope == 0:
            self.closed = False
            return sympy.Sum(summand, (counter, first, last))
        # slope*t + offset <= 0  <=>  t <= -offset/slope (slope > 0), t >= .. (slope < 0)
        if self.facts.nonnegative(slope):
            split = sympy.floor(sympy.expand(-offset / slope))
            split = self._clamp(split, first - 1, last)
            return (self.range_sum(with_left, counter, first, split)
                    + self.range_sum(with_right, counter, split + 1, last))
        if self.facts.nonpositive(slope):
            split = sympy.ceiling(sympy.expand(-offset / slope))
            split = self._clamp(split, first, last + 1)
            return (self.range_sum(with_right, counter, first, split - 1)
                    + self.range_sum(with_left, counter, split, last))
        self.closed = False
        return sympy.Sum(summand, (counter, first, last))

    def _clamp(self, value, low, high):
        if not self.facts.nonnegative(value - low):
            value = sympy.Max(value, low)
        if not self.facts.nonnegative(high - value):
            value = sympy.Min(value, high)
        return value


# --- footprints --------------------------------------------------------------------------


@dataclass(frozen=True)
class Footprint:
    elements: sympy.Expr  # in the iterators outside the region and the sizes
    exact: bool


class Footprints:
    """Distinct elements a set of accesses touches while the loops inside a region run.

    The analysis works in counter space: each inner iterator is replaced by lo + step*t,
    innermost first, so that tiles (`i in i0..i0+T` under `i0 in 0..M by T`) become
    affine maps of counters with rectangular ranges."""

    def __init__(self, facts: Facts, summer: Summer):
        self.facts = facts
        self.summer = summer

    def union(self, sites: list[AccessSite], outer_depth: int) -> Footprint:
        """Footprint of the union of `sites`; loops at depth >= outer_depth are inside."""
        if not sites:
            return Footprint(sympy.Integer(0), True)
        views = [_CounterView(site, outer_depth) for site in sites]
        distinct = list({(view.indices, view.trips): view for view in views}.values())
        if len(distinct) == 1:
            return self._single(distinct[0])
        boxes = [self._box(view) for view in distinct]
        if all(box is not None for box in boxes) and self._translates(boxes):
            return self._union_of_shifted_boxes(boxes)
        return self._bounding_box(distinct)

    def _single(self, view: "_CounterView") -> Footprint:
        used = view.used_counters()
        if not used:
            # one element, touched only when the loops inside run at all (`1..M`, M = 1)
            if all(loop.never_empty for loop in view.inner):
                return Footprint(sympy.Integer(1), True)
            runs = self.summer.over_loops(sympy.Integer(1), view.inner)
            return Footprint(sympy.Min(1, runs), True)
        injective = self._injective(view.indices, used) or self._mixed_radix(view, used)
        # a loop the access does not use still hides its points where it runs zero times
        unused_can_be_empty = any(not loop.never_empty for loop in view.inner
                                  if loop.counter not in used)
        if injective and view.closed(used) and not unused_can_be_empty:
            return Footprint(self.summer.over_loops(sympy.Integer(1), view.counter_loops(used)),
                             True)
        box = self._box(view)
        if box is not None:
            return Footprint(sympy.Mul(*[length for _, length in box]), True)
        return self._bounding_box([view])

    @staticmethod
    def _injective(indices, counters) -> bool:
        if not indices:
            return False
        matrix = sympy.Matrix([[sympy.diff(index, c) for c in counters] for index in indices])
        return matrix.rank() == len(counters)

    def _mixed_radix(self, view: "_CounterView", used) -> bool:
        """Each counter moves one dimension, and within a dimension each stride exceeds
        the span of the finer ones (i = T*t0 + t with t < T): distinct counter values give
        distinct elements, even where edge tiles are clipped."""
        dimension_terms = []
        for index in view.indices:
            terms = [(sympy.diff(index, c), c) for c in used if c in index.free_symbols]
            dimension_terms.append(terms)
        counters = [c for terms in dimension_terms for _, c in terms]
        if len(counters) != len(set(counters)):
            return False
        for terms in dimension_terms:
            spans = []
            for coefficient, counter in terms:
                sign = self._sign(coefficient)
                most_trips = _largest_value(view.trips_of[counter], view.counters)
                if sign is None or most_trips is None:
                    return False
                spans.append((coefficient * sign, most_trips))
            if not self._strictly_nested(spans):
                return False
        return True

    def _strictly_nested(self, spans) -> bool:
        covered = sympy.Integer(0)
        for stride, trips in _finest_first(spans):
            if not self.facts.nonnegative(stride - covered - 1):
                return False
            covered += stride * (trips - 1)
        return True

    def _box(self, view: "_CounterView"):
        """Per dimension (first index value, number of values) when the access covers a
        contiguous box: each counter moves one dimension, the counter ranges are
        rectangular, and the values in each dimension leave no gap."""
        if not view.rectangular() or not all(loop.never_empty for loop in view.inner):
            return None
        box = []
        claimed: set = set()
        for index in view.indices:
            terms = [(sympy.diff(index, c), c) for c in view.counters if c in index.free_symbols]
            if any(c in claimed for _, c in terms):
                return None
            claimed.update(c for _, c in terms)
            signs = [self._sign(coefficient) for coefficient, _ in terms]
            if any(sign is None for sign in signs):
                return None
            strides = [(coefficient * sign, view.trips_of[c]) for (coefficient, c), sign
                       in zip(terms, signs)]
            if not self._gapless(strides):
                return None
            start = index.subs({c: 0 if sign > 0 else view.trips_of[c] - 1
                                for (_, c), sign in zip(terms, signs)})
            length = 1 + sum((stride * (trips - 1) for stride, trips in strides),
                             sympy.Integer(0))
            box.append((sympy.expand(start), sympy.expand(length)))
        return box

    def _sign(self, value):
        if self.facts.nonnegative(value) and value != 0:
            return 1
        if self.facts.nonpositive(value) and value != 0:
            return -1
        return None

    def _gapless(self, strides) -> bool:
        """Progressions add up to an interval when, taken from the finest stride up, each
        stride is at most the span covered so far plus one."""
        covered = sympy.Integer(0)
        for stride, trips in _finest_first(strides):
            if not self.facts.nonnegative(covered + 1 - stride):
                return False
            covered += stride * (trips - 1)
        return True

    @staticmethod
    def _translates(boxes) -> bool:
        if len(boxes) > MAX_UNION_ACCESSES:
            return False
        lengths = [tuple(length for _, length in box) for box in boxes]
        if any(length != lengths[0] for length in lengths):
            return False
        starts = [tuple(start for start, _ in box) for box in boxes]
        return all(sympy.expand(a - b).is_number
                   for start in starts for a, b in zip(start, starts[0]))

    def _union_of_shifted_boxes(self, boxes) -> Footprint:
        """Inclusion-exclusion over the distinct shifts of one box."""
        unique = list({tuple(start for start, _ in box): box for box in boxes}.values())
        lengths = [length for _, length in unique[0]]
        offsets = [[sympy.expand(start - unique[0][dim][0]) for dim, (start, _) in
                    enumerate(box)] for box in unique]
        total = sympy.Integer(0)
        for size in range(1, len(unique) + 1):
            sign = 1 if size % 2 else -1
            for subset in itertools.combinations(range(len(unique)), size):
                volume = sympy.Integer(1)
                for dim, length in enumerate(lengths):
                    values = [offsets[k][dim] for k in subset]
                    overlap = length - (max(values) - min(values))
                    if not self.facts.nonnegative(overlap):
                        overlap = sympy.Max(0, overlap)
                    volume *= overlap
                total += sign * volume
        return Footprint(sympy.expand(total), True)

    def _bounding_box(self, views) -> Footprint:
        """Upper bound: the product of each dimension's value range over every access
        (the declared extent where a range cannot be bounded)."""
        volume = sympy.Integer(1)
        for dim in range(len(views[0].indices)):
            lows, highs = [], []
            for view in views:
                low, high = self._interval(view.indices[dim], view)
                if low is None or high is None:
                    lows, highs = [sympy.Integer(0)], [view.extent[dim] - 1]
                    break
                lows.append(low)
                highs.append(high)
            outer = views[0].outer
            high = self._dominant(highs, outer, largest=True)
            low = self._dominant(lows, outer, largest=False)
            if outer and _iterator_minmax(high - low, outer):
                high, low = self._whole_nest_range(views, dim)
            width = high - low + 1
            if not self.facts.nonnegative_within(width, outer):
                # negative only where the loops inside never run: nothing is touched then
                width = sympy.Max(0, width)
            volume *= width
        return Footprint(volume, False)

    def _whole_nest_range(self, views, dim):
        """The dimension's range over the whole nest, outer loops included: wider than one
        entry's, so still an upper bound, and free of the outer iterators. A min/max of them
        left in a fill would be split at every sum over the outer loops, term by term, which
        takes minutes for a 4-deep nest; a fill made of sizes only sums at once."""
        lows, highs = [], []
        for view in (_CounterView(view.site, 0) for view in views):
            low, high = self._interval(view.indices[dim], view)
            if low is None or high is None:
                return view.extent[dim] - 1, sympy.Integer(0)
            lows.append(low)
            highs.append(high)
        return (self._dominant(highs, (), largest=True),
                self._dominant(lows, (), largest=False))

    def _dominant(self, values, loops, largest: bool) -> sympy.Expr:
        """max (min) of values, leaving out each value another one is proven to bound at
        every point of the outer loops: `max(0, j)` with j >= 0 there is j. A min/max left
        in a fill would have to be split in every sum over the outer loops."""
        kept: list = []
        for value in dict.fromkeys(sympy.expand(v) for v in values):
            def bounds(a, b):  # a >= b (a <= b for a min) everywhere in the nest
                return self.facts.nonnegative_within(a - b if largest else b - a, loops)
            if any(bounds(other, value) for other in kept):
                continue
            kept = [other for other in kept if not bounds(value, other)] + [value]
        return sympy.Max(*kept) if largest else sympy.Min(*kept)

    def _interval(self, expr, view):
        """Bounds of expr over the counters, innermost first; None where unbounded."""
        low, high = expr, expr
        for counter in reversed(view.counters):
            most = self._straighten(view.trips_of[counter], upward=True)
            if low is None or high is None or most is None:
                return None, None
            low = self._extreme(low, counter, most - 1, smallest=True)
            high = self._extreme(high, counter, most - 1, smallest=False)
        return low, high

    def _extreme(self, expr, counter, last, smallest):
        """expr at the end of [0, last] where it is smallest (largest), after replacing
        rounding and min/max by straight bounds; None if its slope's sign is unknown."""
        if expr is None or counter not in expr.free_symbols:
            return expr
        expr = self._straighten(expr, upward=not smallest)
        if expr is None:
            return None
        slope = sympy.diff(expr, counter)
        if counter in slope.free_symbols:
            return None
        at_first, at_last = expr.subs(counter, 0), expr.subs(counter, last)
        if self.facts.nonnegative(slope):
            return at_first if smallest else at_last
        if self.facts.nonpositive(slope):
            return at_last if smallest else at_first
        return None

    def _straighten(self, expr, upward: bool):
        """A bound of expr (upper if upward) free of floor, ceiling, min and max."""
        while True:
            node = next((n for n in sympy.postorder_traversal(expr)
                         if isinstance(n, (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max))),
                        None)
            if node is None:
                return expr
            stand_in = sympy.Dummy("node")
            replaced = expr.xreplace({node: stand_in})
            slope = sympy.diff(replaced, stand_in)
            if self.facts.nonnegative(slope):
                wanted_upper = upward
            elif self.facts.nonpositive(slope):
                wanted_upper = not upward
            else:
                return None
            bound = _node_bound(node, wanted_upper)
            if bound is None:
                return None
            expr = sympy.expand(replaced.subs(stand_in, bound))


def _node_bound(node, upper: bool):
    """A straight bound of one rounding or min/max node: ceiling(x) < x + 1, floor(x) <= x,
    min(a, b) <= a; and x <= ceiling(x), x - 1 < floor(x), a <= max(a, b)."""
    argument = node.args[0]
    if isinstance(node, sympy.ceiling):
        return argument + 1 if upper else argument
    if isinstance(node, sympy.floor):
        return argument if upper else argument - 1
    if isinstance(node, sympy.Min):
        return argument if upper else None
    return None if upper else argument


def _iterator_minmax(expr, loops) -> bool:
    """expr holds a min or max whose arguments move with the iterators of `loops`."""
    iterators = {loop.var for loop in loops}
    return any(isinstance(node, (sympy.Min, sympy.Max)) and node.free_symbols & iterators
               for node in sympy.preorder_traversal(expr))


def _finest_first(strides):
    """Numeric strides by value, then symbolic ones (a tile size T > 1 comes after 1)."""
    return sorted(strides, key=lambda item: (not item[0].is_number,
                                             item[0] if item[0].is_number else 0))


def _largest_value(trips, counters):
    """An upper bound of a trip count free of the counters: the count itself, or the count
    with a min replaced by one of its arguments (min(M, T*t + T) - T*t <= T)."""
    counters = set(counters)
    if not trips.free_symbols & counters:
        return trips
    for node in sympy.preorder_traversal(trips):
        if isinstance(node, sympy.Min):
            coefficient = sympy.expand(trips).coeff(node)
            if not (coefficient.is_number and coefficient > 0):
                continue
            for argument in node.args:
                bound = sympy.expand(trips.xreplace({node: argument}))
                if not bound.free_symbols & counters:
                    return bound
    return None


class _CounterView:
    """An access seen from a region: its indices and the inner loops' trip counts in
    terms of the inner loops' counters (outer iterators stay as they are)."""

    def __init__(self, site: AccessSite, outer_depth: int):
        inner = site.loops[outer_depth:]
        self.inner = inner
        self.outer = site.loops[:outer_depth]  # the loops the region itself runs inside
        self.site = site
        self.extent = site.extent
        # xreplace, not subs: plain symbols to expressions free of them, ten times faster
        to_counters = {}
        for loop in inner:  # outermost first, so inner bounds see outer counters
            to_counters[loop.var] = (loop.lo + loop.step * loop.counter).xreplace(to_counters)
        self.counters = tuple(loop.counter for loop in inner)
        self.trips_of = {loop.counter: loop.trips.xreplace(to_counters) for loop in inner}
        self.indices = tuple(sympy.expand(index.xreplace(to_counters)) for index in site.indices)
        self.trips = tuple(self.trips_of[c] for c in self.counters)

    def used_counters(self):
        return [c for c in self.counters if any(c in i.free_symbols for i in self.indices)]

    def closed(self, used) -> bool:
        """The trip counts of the counters used depend on no other inner counter."""
        others = set(self.counters) - set(used)
        return not any(self.trips_of[c].free_symbols & others for c in used)

    def rectangular(self) -> bool:
        counters = set(self.counters)
        return not any(trips.free_symbols & counters for trips in self.trips)

    def counter_loops(self, used):
        return [Loop(c, c, sympy.Integer(0), self.trips_of[c], sympy.Integer(1),
                     self.trips_of[c], depth) for depth, c in enumerate(used)]


# --- assembling the cost -------------------------------------------------------------------


def _budget_seconds() -> float:
    try:
        return float(os.environ.get("KERNELCOST_BUDGET_S", DEFAULT_BUDGET_S))
    except ValueError:
        return DEFAULT_BUDGET_S


def count(checked: CheckedKernel, reuse: str = "spec", budget_s: float | None = None) -> Cost:
    """Count work, traffic per level and footprints of a checked kernel.

    reuse: "spec" counts keep scopes as written and other tensors by the kernel's own
    `reuse` setting; "perfect" or "none" ignore the keep scopes and count every tensor so.
    budget_s: seconds of symbolic work allowed (default 60, or KERNELCOST_BUDGET_S)."""
    if reuse not in REUSE_MODES:
        raise KcostError(Diagnostic(None, f"unknown reuse mode `{reuse}`",
                                    "use spec, perfect or none"))
    facts = Facts(checked, budget_s)
    nest = _NestBuilder(checked, facts, reuse).build()
    summer = Summer(facts)
    counter = _Counter(checked, facts, summer, nest, reuse)
    work = counter.work()
    traffic = counter.traffic()
    footprints = counter.footprints()
    scopes = counter.scope_costs()
    exact = all(f.exact for f in footprints.values()) and all(s.exact for s in scopes)
    return Cost(
        kernel=checked.name,
        parameters=checked.parameters,
        defaults=dict(checked.defaults),
        precision=checked.precision,
        reuse=reuse,
        work=work,
        traffic=traffic,
        footprints=footprints,
        scopes=scopes,
        exact=exact and counter.exact,
        closed_form=summer.closed,
    )


class _Counter:
    def __init__(self, checked, facts, summer, nest, reuse):
        self.checked = checked
        self.facts = facts
        self.summer = summer
        self.nest = nest
        self.reuse = reuse
        self.footprint = Footprints(facts, summer)
        self.exact = True
        self._executions_cache: dict = {}

    def finish(self, expr: sympy.Expr) -> sympy.Expr:
        """Write the quotients back and put the expression in a readable canonical form."""
        expr = self.facts.restore(expr)
        if expr.has(sympy.Sum):
            return expr
        # factor, not simplify: as readable on these sums of products, and simplify's search
        # cost most of the time on clipped tiles
        return sympy.factor(sympy.expand(expr))

    def executions(self, loops) -> sympy.Expr:
        key = tuple(loops)
        if key not in self._executions_cache:
            self._executions_cache[key] = self.summer.over_loops(sympy.Integer(1), loops)
        return self._executions_cache[key]

    def work(self) -> dict[str, sympy.Expr]:
        totals = {cls: sympy.Integer(0) for cls in WORK_CLASSES}
        for execution in self.nest.executions:
            count = self.executions(execution.loops)
            for cls, flops in execution.work.items():
                totals[cls] += flops * count
        return {cls: self.finish(total) for cls, total in totals.items() if total != 0}

    # traffic

    def traffic(self) -> dict[str, sympy.Expr]:
        bytes_at = defaultdict(lambda: sympy.Integer(0))
        for name, tensor in self.checked.tensors.items():
            sites = [s for s in self.nest.accesses if s.tensor == name]
            direct = [s for s in sites if not s.scopes]
            mode = self.reuse if self.reuse != "spec" else self.checked.reuse
            bytes_at[tensor.level] += tensor.element_bytes * self._direct_elements(
                tensor, direct, mode)
            for scope in self.nest.scopes:
                if name not in scope.tensors:
                    continue
                inside = [s for s in sites if scope in s.scopes]
                fill = self._scope_fill(tensor, scope, inside)
                bytes_at[scope.parent_levels[name]] += tensor.element_bytes * fill
                served = [s for s in inside if s.scopes[-1] is scope]
                bytes_at[scope.level] += tensor.element_bytes * self._dynamic(served)
        return {level: self.finish(bytes_at[level]) for level in LEVELS
                if level in bytes_at and bytes_at[level] != 0}

    def _dynamic(self, sites) -> sympy.Expr:
        return sympy.Add(*[self.executions(site.loops) for site in sites])

    def _direct_elements(self, tensor, sites, mode) -> sympy.Expr:
        if not sites:
            return sympy.Integer(0)
        if mode == "none":
            return self._dynamic(sites)
        reads = [s for s in sites if not s.is_write
                 and not (s.accumulation_read and tensor.role == "out")]
        writes = [s for s in sites if s.is_write]
        read = self.footprint.union(reads, 0)
        write = self.footprint.union(writes, 0)
        self.exact &= read.exact and write.exact
        return read.elements + write.elements

    def _scope_reads_and_writes(self, tensor, scope, inside):
        depth = len(scope.loops)
        reads = [s for s in inside if not s.is_write
                 and not (s.accumulation_read and tensor.role == "out"
                          and self._encloses_reduction(scope, s))]
        writes = [s for s in inside if s.is_write]
        return self.footprint.union(reads, depth), self.footprint.union(writes, depth)

    def _scope_fill(self, tensor, scope, inside) -> sympy.Expr:
        read, write = self._scope_reads_and_writes(tensor, scope, inside)
        self.exact &= read.exact and write.exact
        return self.summer.over_loops(read.elements + write.elements, scope.loops)

    @staticmethod
    def _encloses_reduction(scope, site) -> bool:
        """Every loop outside the scope moves the target (directly, or through the bounds of
        the loops inside, as `i` in `i0..i0 + T` does): the scope holds whole sums."""
        indices = _CounterView(site, len(scope.loops)).indices
        outside = site.loops[:len(scope.loops)]
        return all(any(loop.var in index.free_symbols for index in indices)
                   for loop in outside)

    # footprints and scopes

    def footprints(self) -> dict[str, TensorFootprint]:
        result = {}
        for name in self.checked.tensors:
            sites = [s for s in self.nest.accesses if s.tensor == name]
            read = self.footprint.union([s for s in sites if not s.is_write], 0)
            write = self.footprint.union([s for s in sites if s.is_write], 0)
            result[name] = TensorFootprint(
                name, self.finish(read.elements), self.finish(write.elements),
                read.exact and write.exact, self.checked.tensors[name].element_bytes)
        return result

    def scope_costs(self) -> tuple[ScopeCost, ...]:
        costs = []
        for scope in self.nest.scopes:
            reads, writes, held, exact = {}, {}, sympy.Integer(0), True
            for name in scope.tensors:
                tensor = self.checked.tensors[name]
                inside = [s for s in self.nest.accesses if s.tensor == name and scope in s.scopes]
                read, write = self._scope_reads_and_writes(tensor, scope, inside)
                touched = self.footprint.union(inside, len(scope.loops))
                reads[name] = self.finish(read.elements)
                writes[name] = self.finish(write.elements)
                held += tensor.element_bytes * self._at_first_entry(touched.elements, scope)
                exact &= read.exact and write.exact and touched.exact
            costs.append(ScopeCost(
                index=scope.index, level=scope.level, tensors=scope.tensors,
                outer_iterators=tuple(loop.var for loop in scope.loops),
                entries=self.finish(self.executions(scope.loops)),
                read_elements=reads, write_elements=writes, exact=exact,
                held_bytes=self.finish(held),
            ))
        return tuple(costs)

    @staticmethod
    def _at_first_entry(expr, scope) -> sympy.Expr:
        for loop in scope.loops:  # outermost first: inner bounds may use outer iterators
            expr = expr.subs(loop.var, loop.lo)
        return expr
