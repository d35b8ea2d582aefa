"""Stage `phase`: the plane of two size parameters coloured by what binds t_min there
(HBM, L2, shared, tensor, vector, SFU, or does-not-fit), with the ridge curves
I_level(x, y) = P / B_level solved in closed form (not read off the grid) and the spec's point.
The chapter's roofline: its figures as the machine file gives them, as the ridges of `solve`
(t_bound's peaks at the maximum clock, module clocks, would move the curves off them).

The map evaluates tune.Evaluator over a log-spaced grid (the closed forms taken as continuous
functions, so divisibility facts are not checked there); the curves come from sympy: the
equation W = (P / B) Q at each level is solved for x as a function of y, and each positive
real branch is drawn where it falls in the plane. The same for the sizes where an on-chip
tile stops fitting: held bytes = capacity, solved for y (or x)."""

from __future__ import annotations

import numpy
import sympy

from ..algebra.quotients import cancel
from ..analysis.api import Spec, load
from ..answers.not_run import refuse_not_run
from ..answers.rejections import CODES, Rejected
from ..answers.search import HOLDS, ROOF_LEVELS, Evaluator
from ..answers.tune import fixed_values
from ..base.csvcells import cell_number
from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..base.tree import Span
from ..lang.settings import FLOAT_SIZES, MAX_FLOAT_SIZE, without
from ..lang.sizes import refuse_large_numbers
from .roofs import device_word

# device_word's, then the sizes where a block does not fit, those that break an assumed
# bound (`assume n <= 4096`: the spec's counts are not the kernel's there), and those where
# the loops run no iteration
CATEGORIES = ("HBM", "L2", Level.SHARED, "tensor", "vector", "SFU", "does not fit",
              "outside an assume", "runs nothing")
COLOURS = ("#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#1f77b4", "#9467bd", "#7f7f7f",
           "#e8e8e8", "#ffffff")
_UNFIT, _OUTSIDE = CATEGORIES.index("does not fit"), CATEGORIES.index("outside an assume")
_IDLE = CATEGORIES.index("runs nothing")  # no work, no byte: no roof binds a time of 0 s


@record
class Axis:
    name: str
    low: float
    high: float
    option: str = "--x"  # the option that gave it, and its text: where its errors point
    text: str = ""


@record
class Curve:
    gid: str  # ridge:global, fit:shared
    label: str
    x: numpy.ndarray
    y: numpy.ndarray
    expr: sympy.Expr  # x(y) or y(x), as solved


@record
class Phase:
    kernel: str
    machine: str
    x: Axis
    y: Axis
    xs: numpy.ndarray
    ys: numpy.ndarray
    codes: numpy.ndarray  # (len(ys), len(xs)) index into CATEGORIES
    curves: tuple[Curve, ...]
    never: tuple[str, ...]  # ridges with no branch in the plane, with the reason
    point: tuple[float, float] | None  # the spec's own (x, y)
    fixed: tuple[tuple[str, str], ...]


def parse_axis(text: str, label: str = "--x") -> Axis:
    from ..lang.sizerange import parse_range

    found = parse_range(text, label=label)
    return Axis(found.parameter, found.low, found.high, label, text)


def phase(spec: Spec | str, machine, x: Axis, y: Axis, raw: dict | None = None,
          points: tuple[int, int] = (160, 120)) -> Phase:
    spec = spec if isinstance(spec, Spec) else load(spec)
    raw = raw or {}
    own = {name: raw[name] for name in (x.name, y.name) if name in raw}
    raw = without(raw, own)
    if x.name == y.name:
        raise SizeError(Code.BAD_RANGE, Diagnostic(
            Span(y.option, 1, 1, 1, len(y.name) + 1),
            f"both axes vary `{y.name}`", "give --y another size than --x"), y.text)
    places = {axis.name: (Span(axis.option, 1, 1, 1, len(axis.name) + 1), axis.text)
              for axis in (x, y)}
    refuse_not_run(spec.kernel, spec.cost(Reuse.SPEC), machine, "phase")
    refuse_large_numbers(spec.kernel, MAX_FLOAT_SIZE, FLOAT_SIZES)  # the plane is in doubles
    fixed = fixed_values(spec, [x.name, y.name], raw, follow=x.name, places=places)
    if not any(amount != 0 for amount in spec.cost(Reuse.SPEC).work.values()):
        raise SizeError(Code.NOTHING_TO_PLOT, Diagnostic(
            None, f"`{spec.name}` does no work (W = 0): no roof of compute binds anywhere, and "
                  "its intensity is 0 in the whole plane",
            f"its time is Q / B: kernelcost sweep {spec.path} --sweep ... --machine ..."))
    evaluator = Evaluator(spec, machine, [x.name, y.name], fixed, check_facts=False,
                          max_clock=False)
    xs = numpy.geomspace(x.low, x.high, points[0])
    ys = numpy.geomspace(y.low, y.high, points[1])
    X, Y = numpy.meshgrid(xs, ys)
    result = evaluator([X.ravel(), Y.ravel()])
    codes = numpy.array([CATEGORIES.index(device_word(roof)) for roof in result.roofs]
                        )[result.binding]
    # every reason but a broken `assume`, which the continuous map does not check
    codes = numpy.where(result.reject > CODES[Rejected.ASSUMPTION], _UNFIT, codes)
    codes = numpy.where(_outside_bounds(spec, evaluator, [X.ravel(), Y.ravel()]), _OUTSIDE,
                        codes)
    idle = result.full(result.t_bound, numpy.arange(X.size)) <= 0
    codes = numpy.where(idle, _IDLE, codes)
    curves, never = _ridges(spec, machine, evaluator, x, y)
    curves += _fits(spec, machine, evaluator, x, y)
    point = _point(spec, own, x, y)
    return Phase(spec.name, machine.id, x, y, xs, ys, codes.reshape(Y.shape), tuple(curves),
                 tuple(never), point, tuple((str(k), str(v)) for k, v in fixed.items()))


def _outside_bounds(spec, evaluator, arrays) -> numpy.ndarray:
    """Where the plane's sizes break an assumed bound (`assume n <= 4096`), which the
    continuous map checks, as it does not a divisibility fact: between the multiples a
    bound still holds, past it no size does."""
    outside = numpy.zeros(numpy.shape(arrays[0]), dtype=bool)
    for relation in spec.checked.bounds:
        left = evaluator.compiled(relation.lhs)(arrays)
        right = evaluator.compiled(relation.rhs)(arrays)
        with numpy.errstate(invalid="ignore"):
            outside |= ~HOLDS[type(relation)](left, right)
    return outside


def _ridges(spec, machine, evaluator, x, y):
    cost = evaluator.cost
    xs_symbol, ys_symbol = evaluator.symbols
    work_class = max(cost.work, key=lambda c: _weight(cost, c, evaluator))
    peak = machine.peak(spec.checked.precision, work_class)
    curves, never = [], []
    work = sympy.sympify(cost.total_work).xreplace(evaluator.fixed)
    for level, traffic in cost.traffic.items():
        bandwidth = machine.bandwidth(level)
        if level not in ROOF_LEVELS or not bandwidth:
            continue
        ridge = sympy.Rational(repr(peak)) / sympy.Rational(repr(bandwidth))
        q = sympy.sympify(traffic).xreplace(evaluator.fixed)
        numerator, denominator = sympy.fraction(cancel(sympy.together(work / q)))
        equation = sympy.expand(numerator - ridge * denominator)
        branches = _branches(equation, xs_symbol, ys_symbol, y, x)
        label = f"I_{level} = P/B = {float(ridge):.4g} FLOP/B"
        if not branches:
            never.append(f"{level}: I = P/B nowhere in the plane")
        for k, (expr, cx, cy) in enumerate(branches):
            curves.append(Curve(f"ridge:{level}" + (f":{k}" if k else ""), label, cx, cy, expr))
    return curves, never


def _weight(cost, work_class, evaluator) -> float:
    """The size of a work class at the middle of the plane, to pick the roof that counts."""
    try:
        expr = sympy.sympify(cost.work[work_class]).xreplace(evaluator.fixed)
        return float(expr.subs({s: 1000 for s in expr.free_symbols}))
    except (TypeError, ValueError):
        return 0.0


def _branches(equation, xs_symbol, ys_symbol, y_axis, x_axis):
    """Positive real solutions x(y) of equation = 0, sampled over the y range; a solution
    free of y is drawn as a vertical line, one free of x (an equation in y alone) as a
    horizontal one."""
    if not equation.has(xs_symbol):
        return _horizontal(equation, ys_symbol, y_axis, x_axis)
    real = sympy.Dummy("x", positive=True)  # sizes are integers; a crossing is a real number
    try:
        solutions = sympy.solve(equation.xreplace({xs_symbol: real}), real)
    except NotImplementedError:
        return []
    found = []
    ys = numpy.geomspace(y_axis.low, y_axis.high, 400)
    for solution in solutions:
        # in floats: an integer past int64 (a sqrt of one) made numpy's array of Python ints
        function = sympy.lambdify(ys_symbol, sympy.N(solution), modules="numpy")
        with numpy.errstate(all="ignore"):
            values = numpy.broadcast_to(numpy.asarray(function(ys), dtype=complex), ys.shape)
        is_real = numpy.abs(values.imag) < 1e-9 * numpy.maximum(1, numpy.abs(values.real))
        xs = numpy.where(is_real, values.real, numpy.nan)
        inside = (xs >= x_axis.low) & (xs <= x_axis.high)
        if inside.any():
            found.append((solution, numpy.where(inside, xs, numpy.nan), ys))
    return found


def _horizontal(equation, ys_symbol, y_axis, x_axis):
    """The y inside the range where an equation in y alone holds, each a horizontal line
    across the x range (llm_decode's I_global = b meets the ridge at one batch whatever the
    parameter count)."""
    if not equation.has(ys_symbol):
        return []
    real = sympy.Dummy("y", positive=True)
    try:
        solutions = sympy.solve(equation.xreplace({ys_symbol: real}), real)
    except NotImplementedError:
        return []
    xs = numpy.geomspace(x_axis.low, x_axis.high, 400)
    return [(solution, xs, numpy.full(xs.shape, float(solution))) for solution in solutions
            if solution.is_real and not solution.free_symbols
            and y_axis.low <= float(solution) <= y_axis.high]


def _fits(spec, machine, evaluator, x, y) -> list[Curve]:
    """Where a block's (or a scope's) on-chip bytes reach the capacity of its level."""
    cost = evaluator.cost
    needs = {}
    if cost.grid is not None:
        needs = dict(cost.grid.on_chip)
    else:
        for scope in cost.scopes:
            if scope.level in (Level.SHARED, Level.REGISTERS):
                needs[scope.level] = needs.get(scope.level, 0) + scope.held_bytes * scope.stages
    curves = []
    xs_symbol, ys_symbol = evaluator.symbols
    for level, need in needs.items():
        capacity = machine.capacity(level)
        if not capacity:
            continue
        expr = sympy.sympify(need).xreplace(evaluator.fixed)
        equation = sympy.expand(expr - sympy.Rational(repr(capacity)))
        for k, (solution, cy, cx) in enumerate(_branches(equation, ys_symbol, xs_symbol, x, y)):
            curves.append(Curve(f"fit:{level}" + (f":{k}" if k else ""),
                                f"{level} full ({capacity / 1024:g} KiB)", cx, cy, solution))
    return curves


def _point(spec, own, x, y):
    """The spec's point on the plane: each axis's --set, or its default. float() read
    `--set M=1_0` as 10 and `M=٣` as 3; and one axis set where the other has no value was
    dropped without a word."""
    defaults = {str(p): v for p, v in spec.checked.defaults.items()}
    values = []
    for axis, other in ((x, y), (y, x)):
        text = own.get(axis.name, defaults.get(axis.name))
        if text is None:
            if own.get(other.name) is None:
                return None
            shown = str(own[other.name])
            raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
                Span(f"--set {other.name}", 1, 1, 1, len(shown) + 1),
                f"--set {other.name}={shown} marks the spec's point on the plane, which "
                f"needs {axis.name} too, and {axis.name} has no default",
                f"give {axis.name} a value in --set as well, or leave {other.name} out of "
                "--set"), shown)
        value = cell_number(str(text))
        if value is None or value <= 0:
            shown = str(text)
            raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
                Span(f"--set {axis.name}", 1, 1, 1, len(shown) + 1),
                f"--set {axis.name}={shown}: the spec's point needs a number",
                f"give {axis.name} a number in ASCII digits, such as 4096"), shown)
        values.append(value)
        if not axis.low <= value <= axis.high:
            if axis.name not in own:  # a default off the plane: nothing to mark
                return None
            shown = str(text)
            raise SizeError(Code.BAD_RANGE, Diagnostic(
                Span(f"--set {axis.name}", 1, 1, 1, len(shown) + 1),
                f"--set {axis.name}={shown}: the point lies off the plane, whose "
                f"{axis.option} runs {axis.text}",
                f"widen {axis.option} to take it in, or leave {axis.name} out of --set"),
                shown)
    return values[0], values[1]


def draw(result: Phase):
    from matplotlib.artist import Artist
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    figure = Figure(figsize=(8, 6), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    colours = ListedColormap(COLOURS)
    norm = BoundaryNorm(numpy.arange(len(CATEGORIES) + 1) - 0.5, len(CATEGORIES))
    mesh = axes.pcolormesh(result.xs, result.ys, result.codes, cmap=colours, norm=norm,
                           shading="nearest", rasterized=True)
    mesh.set_gid("phase:map")
    for curve in result.curves:
        style = "-" if curve.gid.startswith("ridge") else "--"
        (line,) = axes.plot(curve.x, curve.y, style, color="black", lw=1.5, label=curve.label)
        line.set_gid(curve.gid)
    if result.point is not None:
        (marker,) = axes.plot([result.point[0]], [result.point[1]], "*", color="white",
                              markeredgecolor="black", markersize=14, label="the spec")
        marker.set_gid("point:spec")
    axes.set_xlim(result.x.low, result.x.high)
    axes.set_ylim(result.y.low, result.y.high)
    axes.set_xlabel(result.x.name)
    axes.set_ylabel(result.y.name)
    _size_ticks(axes)
    _label_regions(axes, result)
    fixed = ", ".join(f"{k}={v}" for k, v in result.fixed)
    axes.set_title(f"{result.kernel} on {result.machine}: what binds t_min"
                   + (f" ({fixed})" if fixed else ""), fontsize=10)
    present = sorted(set(numpy.unique(result.codes).tolist()))
    handles: list[Artist] = [Patch(color=COLOURS[c], label=CATEGORIES[c]) for c in present]
    handles += [line for line in axes.get_lines()]
    axes.legend(handles=handles, fontsize=8, loc="best")
    for k, text in enumerate(result.never):
        axes.text(0.01, 0.01 + 0.04 * k, text, transform=axes.transAxes, fontsize=8,
                  gid=f"never:{k}")
    return figure


def _size_ticks(axes) -> None:
    """Sizes as a user writes them on both axes (200, 4096, 10^8), none between the decades'
    labels: matplotlib's log axes label minor ticks 2 x 10^2."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from .report.cells import size_number

    for axis in (axes.xaxis, axes.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda value, _: size_number(value)))
        axis.set_minor_formatter(NullFormatter())


def _label_regions(axes, result: Phase) -> None:
    """Each region of the map named where it lies (at the median of its cells, in log
    space); a map of one colour says that one roof binds in the whole plane."""
    present = sorted(set(numpy.unique(result.codes).tolist()))
    X, Y = numpy.meshgrid(result.xs, result.ys)
    for code in present:
        inside = result.codes == code
        x = float(numpy.exp(numpy.median(numpy.log(X[inside]))))
        y = float(numpy.exp(numpy.median(numpy.log(Y[inside]))))
        words = CATEGORIES[code] + (" binds in the whole plane" if len(present) == 1 else "")
        axes.text(x, y, words, fontsize=9, ha="center", va="center", gid=f"region:{code}",
                  bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none"})
