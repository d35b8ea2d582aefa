"""Stage `bound`: the least traffic any schedule of a loop nest moves through a fast memory of
S bytes, for nests whose array indices are projections of the loop iterators.

The class. Each statement that does work is a set Z of iteration points (its point loops: the
loops whose iterators index the arrays; a tile loop, whose iterator only places a later
loop's window, is schedule, not iteration space). Every index of every array must be one point
iterator (times a nonzero size, plus sizes, constants, or for a local array the tile
iterators around its declaration, which make it a fresh array per tile). Then each access
is a coordinate projection phi_A: Z -> the array's elements (GEMM, batched GEMM, tensor
contractions, MTTKRP, matrix-vector, the two products of attention). `x[i + dy]` is not:
it sums two iterators, and the program below does not cover it.

The program (Christ, Demmel, Knight, Scanlon, Yelick, "Communication lower bounds and optimal
algorithms for programs that reference arrays", UCB/EECS-2013-61, 2013: the
Hoelder-Brascamp-Lieb inequality for coordinate projections): with x_j >= 0 per point loop j,

    sigma = max sum_j x_j   subject to   sum_{j in phi_A} x_j <= 1 for every array A,

solved exactly (lp.py: a rational simplex). Its dual, min sum_A s_A subject to
sum_{A : j in phi_A} s_A >= 1 for every j, gives the HBL exponents s_A, and
|E| <= prod_A |phi_A(E)|^(s_A) for every finite set E of points. The primal solution is
the tile: x_j is the exponent of the tile's side along j (side ~ S^(x_j)).

The constant (the segment argument of Hong and Kung 1981, as Irony, Toledo and Tiskin 2004
and Christ et al. 2013 use it): cut any schedule into segments of S words moved. In one
segment at most 2 S elements of each array can be used (S held at its start, S moved in),
so it runs at most (2 S)^sigma points; all but the last segment move S words, hence

    Q >= S * (|Z| / (2 S)^sigma - 1) = |Z| / (2^sigma S^(sigma - 1)) - S   words.

Words: S bytes hold at most S / b elements of the narrowest element type (b bytes) and each
element moved costs at least b bytes, so the bound in bytes is b times the bound in
elements with S_e = S / b. Compulsory traffic (each element of the arrays homed outside
the fast memory once) is a bound too; Q_lower is the larger of the two.
Matrix products (three arrays, every loop in two or three of them) also get the tight
bound 2 |Z| / sqrt(S_e) - 2 S_e elements (Smith, Lowery, Langou, van de Geijn, "A tight I/O
lower bound for matrix multiplication", 2019; Kwasniewski et al., "Red-blue pebbling
revisited: near optimal parallel matrix-matrix multiplication" (COSMA), SC 2019), attained
by keeping a sqrt(S_e) x sqrt(S_e) block of the output and streaming the inputs."""

from __future__ import annotations

from fractions import Fraction

import sympy

from ..algebra import lp
from ..algebra.factored_forms import factor
from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SpecCheckError
from ..base.kinds import Reuse, Role
from ..base.records import record
from ..base.symbols import iterator_symbol, size_symbol, to_sympy
from ..count.facts import Facts
from ..count.loops import Loop
from ..count.nest import Nest, build_nest
from ..count.sums import Summer
from ..lang.check import CheckedKernel
from ..lang.work import statement_work

OUTSIDE_CLASS = "outside the projection class"


@record
class Projection:
    """One array access seen as a projection: the point loops its indices select."""

    array: str  # tensor or local name
    text: str  # the access as written, for reports
    dims: frozenset[str]  # point iterators the indices use
    element_bytes: sympy.Expr
    written: bool


@record
class Program:
    """The HBL linear program of one statement, solved exactly."""

    dims: tuple[str, ...]
    projections: tuple[Projection, ...]
    exponent: sympy.Rational  # sigma
    tile: dict[str, sympy.Rational]  # x_j: the tile side along j is S^(x_j)
    tile_range: dict[str, tuple[sympy.Rational, sympy.Rational]]  # x_j over every optimum
    weights: dict[str, sympy.Rational]  # s_A of the dual: the HBL exponents


@record
class MatrixProduct:
    """Loops grouped as a matrix product C[m, n] += A[m, k] B[k, n] (batch loops in all)."""

    m: tuple[str, ...]
    n: tuple[str, ...]
    k: tuple[str, ...]
    batch: tuple[str, ...]


@record
class StatementBound:
    text: str  # the statement's first line as written
    span: ast.Span
    program: Program
    extents: dict[str, sympy.Expr]  # point loop -> the length of its range in the nest
    points: sympy.Expr  # |Z|
    work: sympy.Expr  # FLOP of the statement over the nest
    element_bytes: sympy.Expr  # b: the narrowest element type among its arrays
    product: MatrixProduct | None


def analyse(checked: CheckedKernel) -> tuple[StatementBound, ...]:
    """The statements that do work, each with its program. Raises KcostError, placed at the
    access, when an index is not a projection."""
    facts = Facts(checked)
    nest = build_nest(checked, facts, Reuse.PERFECT)
    summer = Summer(facts)
    found: list[StatementBound] = []
    for stmt, loops, local_loops in _work_statements(checked, nest):
        work = sum(statement_work(stmt).values())
        if work == 0:
            continue  # a copy or an initialisation: no operation to bound
        projections, dims, extents = _projections(checked, stmt, loops, local_loops)
        program = solve_program(dims, projections, stmt)
        points = facts.restore(summer.over_loops(sympy.Integer(1), loops))
        points = factor(sympy.expand(points))
        widths = min(p.element_bytes for p in projections) if projections else sympy.Integer(4)
        found.append(StatementBound(
            _first_line(checked, stmt), stmt.span, program,
            {**_extents(loops, dims, facts), **extents},
            points, factor(work * points), widths, matrix_product(program)))
    if not found:
        raise SpecCheckError(Code.NOTHING_TO_BOUND, Diagnostic(
            checked.kernel.span, "no statement does work: nothing to bound"), checked.kernel.source)
    return tuple(found)


def solve_program(dims: tuple[str, ...], projections: tuple[Projection, ...],
                  stmt: ast.Statement | None = None) -> Program:
    """sigma = max sum x_j s.t. sum_{j in phi_A} x_j <= 1, x >= 0, exactly; the dual weights;
    the tile exponents, averaged over loops that sit in the same arrays (any such average of
    optima is an optimum: the program is symmetric in them), with each one's range."""
    rows = [[1 if d in p.dims else 0 for d in dims] for p in projections if p.dims]
    ones = [1] * len(rows)
    try:
        sigma, vertex = lp.maximise([1] * len(dims), rows, ones)
    except lp.Unbounded:
        free = [d for d in dims if not any(d in p.dims for p in projections)]
        span = getattr(stmt, "span", None)
        raise SpecCheckError(Code.OUTSIDE_BOUND_CLASS, Diagnostic(
            span,
            f"{OUTSIDE_CLASS}: the loop `{free[0]}` indexes no array, so its "
            "iterations reuse the same elements without limit",
            "the bound needs every point loop to index some array")) from None
    at_optimum = rows + [[-1] * len(dims)]  # sum x >= sigma, written -sum x <= -sigma
    bounds = ones + [-sigma]
    ranges: dict[str, tuple[sympy.Rational, sympy.Rational]] = {}
    for position, d in enumerate(dims):
        unit = [1 if j == position else 0 for j in range(len(dims))]
        ranges[d] = (_rational(lp.minimise(unit, at_optimum, bounds)[0]),
                     _rational(lp.maximise(unit, at_optimum, bounds)[0]))
    signature = {d: frozenset(p.text for p in projections if d in p.dims) for d in dims}
    tile: dict[str, sympy.Rational] = {}
    for d in dims:
        group = [j for j, e in enumerate(dims) if signature[e] == signature[d]]
        tile[d] = _rational(sum((vertex[j] for j in group), Fraction(0)) / len(group))
    # the dual: min sum s_A s.t. every loop covered, sum_{A : j in A} s_A >= 1
    cover = [[-1 if d in p.dims else 0 for p in projections] for d in dims]
    _, weights = lp.minimise([1] * len(projections), cover, [-1] * len(dims))
    return Program(dims, projections, _rational(sigma), tile, ranges,
                   {p.text: _rational(w) for p, w in zip(projections, weights)})


def _rational(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def matrix_product(program: Program) -> MatrixProduct | None:
    """Three arrays, one written, where every loop is in exactly two of them or in all three:
    C[m, n] += A[m, k] B[k, n] with the loops grouped (a tensor contraction is one)."""
    arrays = {p.array for p in program.projections}
    written = [p for p in program.projections if p.written]
    reads = [p for p in program.projections if not p.written and p.array != written[0].array] \
        if len(written) == 1 else []
    if len(arrays) != 3 or len(program.projections) != 3 or len(reads) != 2:
        return None
    out, a, b = written[0], reads[0], reads[1]
    groups: dict[str, list[str]] = {"m": [], "n": [], "k": [], "batch": []}
    for d in program.dims:
        where = (d in out.dims, d in a.dims, d in b.dims)
        key = {(True, True, False): "m", (True, False, True): "n", (False, True, True): "k",
               (True, True, True): "batch"}.get(where)
        if key is None:
            return None
        groups[key].append(d)
    if not (groups["m"] and groups["n"] and groups["k"]):
        return None
    return MatrixProduct(*(tuple(groups[key]) for key in ("m", "n", "k", "batch")))


# --- the nest, read as projections -----------------------------------------------------

WorkStatement = tuple[ast.Assign | ast.Let, tuple[Loop, ...], dict[str, tuple[str, ...]]]


def _work_statements(checked: CheckedKernel, nest: Nest) -> list[WorkStatement]:
    """(statement, its loops, loops around each local's declaration) in source order; the
    nest lists one execution per typed `let` and assignment, in the same order."""
    executions = iter(nest.executions)
    local_loops: dict[str, tuple[str, ...]] = {}
    found: list[WorkStatement] = []

    def walk(statements: tuple[ast.Statement, ...], around: tuple[str, ...]) -> None:
        for stmt in statements:
            if isinstance(stmt, ast.For):
                walk(stmt.body, around + (stmt.var,))
            elif isinstance(stmt, ast.Keep):
                walk(stmt.body, around)
            elif isinstance(stmt, ast.Let) and stmt.dtype is not None:
                execution = next(executions)
                local_loops[stmt.name] = around
                found.append((stmt, execution.loops, dict(local_loops)))
            elif isinstance(stmt, ast.Assign):
                found.append((stmt, next(executions).loops, dict(local_loops)))

    walk(checked.kernel.statements, ())
    return found


def tile_loops(loops: tuple[Loop, ...]) -> set[sympy.Symbol]:
    """Loops whose iterator places the window of a later loop (`i in i0..i0 + T`)."""
    tiles: set[sympy.Symbol] = set()
    for position, loop in enumerate(loops):
        if any(loop.var in later.lo.free_symbols for later in loops[position + 1:]):
            tiles.add(loop.var)
    return tiles


def _projections(checked: CheckedKernel, stmt: ast.Assign | ast.Let, loops: tuple[Loop, ...],
                 local_loops: dict[str, tuple[str, ...]]
                 ) -> tuple[tuple[Projection, ...], tuple[str, ...], dict[str, sympy.Expr]]:
    tiles = tile_loops(loops)
    points = tuple(loop.var for loop in loops if loop.var not in tiles)
    dims = tuple(str(p) for p in points)
    names = {name: value for name, value in checked.sizes.items()}
    names.update({str(loop.var): loop.var for loop in loops})
    projections: list[Projection] = []
    extents: dict[str, sympy.Expr] = {}
    for access, written in _accesses(checked, stmt):
        tensor = checked.tensors.get(access.tensor)
        if tensor is None:  # a register scalar: an array over the loops around its `let`
            around = local_loops.get(access.tensor, ())
            chosen = frozenset(d for d in around if d in dims)
            if (isinstance(stmt, ast.Let) and stmt.name == access.tensor) or chosen == set(dims):
                continue  # lives within one iteration: never held across points
            projections.append(Projection(access.tensor, access.tensor, chosen,
                                          _local_bytes(checked, access.tensor), written))
            continue
        allowed = set(tiles)
        if tensor.role == Role.LOCAL:  # a fresh array per tile around its declaration
            allowed &= {iterator_symbol(v) for v in local_loops.get(access.tensor, ())}
        else:
            allowed = set()
        selected: set[sympy.Symbol | None] = set()
        for position, index in enumerate(access.indices):
            expr = to_sympy(index, names)
            point = _projected(expr, set(points), allowed, index, checked, access)
            selected.add(point)
            if point is not None and tensor.role != Role.LOCAL and expr == point:
                extents.setdefault(str(point), tensor.shape[position])  # the logical range
        selected.discard(None)
        text = f"{access.tensor}[{', '.join(_text(checked, i) for i in access.indices)}]"
        projections.append(Projection(access.tensor, text, frozenset(map(str, selected)),
                                      tensor.element_bytes, written))
    unique = {(p.array, p.dims, p.written): p for p in projections}
    return tuple(unique.values()), dims, extents


def _projected(expr: sympy.Expr, points: set[sympy.Symbol], allowed: set[sympy.Symbol],
               index: ast.Expr, checked: CheckedKernel,
               access: ast.Access) -> sympy.Symbol | None:
    """The one point iterator an index selects, None for a constant; else an error."""
    used = expr.free_symbols & points
    if len(used) > 1:
        names = " and ".join(sorted(str(u) for u in used))
        raise SpecCheckError(Code.OUTSIDE_BOUND_CLASS, Diagnostic(
            index.span,
            f"{OUTSIDE_CLASS}: the index `{_text(checked, index)}` of "
            f"{access.tensor} combines the iterators {names}",
            "the HBL program here needs each index to be one loop iterator (a projection); "
            "a convolution's `i + di` needs the general HBL polytope (Christ et al. 2013)"),
            checked.kernel.source)
    rest = expr - sum(expr.coeff(u) * u for u in used)
    iterators = {s for s in rest.free_symbols if s not in _size_symbols(checked)} - allowed
    if iterators or any(expr.coeff(u).free_symbols & points for u in used):
        raise SpecCheckError(Code.OUTSIDE_BOUND_CLASS, Diagnostic(
            index.span,
            f"{OUTSIDE_CLASS}: the index `{_text(checked, index)}` of "
            f"{access.tensor} is not one iterator",
            "write a tile as `for i in i0..i0 + T` and index with `i` alone"),
            checked.kernel.source)
    return next(iter(used)) if used else None


def _size_symbols(checked: CheckedKernel) -> set[sympy.Symbol]:
    symbols = {size_symbol(name) for name in checked.sizes}
    for value in checked.sizes.values():
        symbols |= value.free_symbols
    return symbols


def _accesses(checked: CheckedKernel,
              stmt: ast.Assign | ast.Let) -> list[tuple[ast.Access, bool]]:
    """(access, written) for every array or register scalar the statement touches."""
    values = [stmt.value]
    found: list[tuple[ast.Access, bool]] = []
    if isinstance(stmt, ast.Assign):
        target = stmt.target
        if isinstance(target, ast.Name):
            target = ast.Access(target.id, (), target.span)
        found.append((target, True))
    elif isinstance(stmt, ast.Let):
        found.append((ast.Access(stmt.name, (), stmt.span), True))
    for value in values:
        for node in ast.walk_expr(value):
            if isinstance(node, ast.Access):
                found.append((node, False))
            elif isinstance(node, ast.Name) and (node.id in checked.tensors
                                                 or node.id in checked.locals):
                found.append((ast.Access(node.id, (), node.span), False))
    return found


def _local_bytes(checked: CheckedKernel, name: str) -> sympy.Expr:
    from ..base.symbols import ELEMENT_BYTES

    return sympy.nsimplify(ELEMENT_BYTES[checked.locals.get(name, "f32")])


def _extents(loops: tuple[Loop, ...], dims: tuple[str, ...],
             facts: Facts) -> dict[str, sympy.Expr]:
    """Each point loop's range over the nest, where its bounds are sizes (else its trips)."""
    extents: dict[str, sympy.Expr] = {}
    for loop in loops:
        if str(loop.var) in dims:
            extents[str(loop.var)] = facts.restore(loop.trips)
    return extents


def _text(checked: CheckedKernel, node: ast.Expr) -> str:
    span = node.span
    lines = checked.kernel.source.split("\n") if checked.kernel.source else []
    if not span.synthetic and span.line == span.end_line and 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    return "?"


def _first_line(checked: CheckedKernel, stmt: ast.Assign | ast.Let) -> str:
    lines = checked.kernel.source.split("\n") if checked.kernel.source else []
    if 1 <= stmt.span.line <= len(lines):
        return lines[stmt.span.line - 1].strip()
    return "?"
