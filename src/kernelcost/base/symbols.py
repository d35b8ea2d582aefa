"""Sympy symbols for sizes and iterators, created in one place, and the one translation of
AST expressions into sympy. User text never reaches sympify: each node maps to a constructor."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import sympy
from sympy.core.cache import cacheit

from . import tree as ast
from .errors import Code, Diagnostic, SpecCheckError
from .kinds import Precision
from .levels import Level

# Bytes per element. Sub-byte types are fractions: 8 fp4 values take 4 bytes.
ELEMENT_BYTES: dict[str, sympy.Rational] = {
    "f64": sympy.Integer(8), "f32": sympy.Integer(4), "tf32": sympy.Integer(4),
    "f16": sympy.Integer(2), "bf16": sympy.Integer(2), "fp8": sympy.Integer(1),
    "fp6": sympy.Rational(3, 4), "fp4": sympy.Rational(1, 2), "i64": sympy.Integer(8),
    "i32": sympy.Integer(4), "i16": sympy.Integer(2), "i8": sympy.Integer(1),
    "i4": sympy.Rational(1, 2), "u8": sympy.Integer(1), "bool": sympy.Integer(1),
}

# The machine precision each element type computes in (names of the machine database).
PRECISION_OF_TYPE: dict[str, Precision] = {
    "f64": Precision.FP64, "f32": Precision.FP32, "tf32": Precision.TF32,
    "f16": Precision.FP16, "bf16": Precision.BF16, "fp8": Precision.FP8, "fp6": Precision.FP6,
    "fp4": Precision.FP4, "i8": Precision.I8, "i4": Precision.I4, "u8": Precision.I8,
    "i16": Precision.I32, "i32": Precision.I32, "i64": Precision.I32, "bool": Precision.I32,
}

LEVELS: tuple[str, ...] = (Level.GLOBAL, Level.MALL, Level.L2, Level.SHARED, Level.TMEM,
                           Level.REGISTERS)  # slowest first
# the levels only some machines have: a spec that uses one needs a machine that defines it
MACHINE_LEVELS: tuple[str, ...] = (Level.MALL, Level.TMEM)
# the levels on the SM, their capacities per SM: a block holds its keeps and arrays there
ON_CHIP_LEVELS: tuple[str, ...] = (Level.SHARED, Level.TMEM, Level.REGISTERS)

# The targets a crossing's closed forms are written in (algebra.equations): a machine's ridge
# intensity and a level's capacity, put in for each machine.
RIDGE = sympy.Symbol("I_crit", positive=True)
CAPACITY = sympy.Symbol("capacity_B", positive=True)

SFU_FUNCTIONS = frozenset({"exp", "log", "sqrt", "rsqrt", "tanh", "sin", "cos"})
VECTOR_FUNCTIONS = frozenset({"max", "min"})
FMA_FUNCTIONS = frozenset({"fma"})
FUNCTIONS = SFU_FUNCTIONS | VECTOR_FUNCTIONS | FMA_FUNCTIONS
FUNCTION_ARITY = {**{f: 1 for f in SFU_FUNCTIONS}, "fma": 3}  # max and min take 2 or more


@functools.cache
def size_symbol(name: str) -> sympy.Symbol:
    """A size parameter or derived quantity: a positive integer."""
    return sympy.Symbol(name, integer=True, positive=True)


@functools.cache
def iterator_symbol(name: str) -> sympy.Symbol:
    """A loop iterator: an integer (it may start below zero)."""
    return sympy.Symbol(name, integer=True)


@functools.cache
def counter_symbol(name: str) -> sympy.Symbol:
    """The normalised counter 0, 1, 2, ... of the loop over `name`."""
    return sympy.Symbol(f"_{name}_t", integer=True, nonnegative=True)


def text_key(symbol: sympy.Symbol) -> str:
    """str(symbol) without sympy's printer (a dummy is written with a leading underscore):
    the key symbols are sorted by, thousands of times a command."""
    return "_" + symbol.name if symbol.is_Dummy else symbol.name


def number(text: str) -> sympy.Rational:
    """The exact value of a numeric literal: 1e8 -> 100000000, 0.5 -> 1/2."""
    try:
        value = Fraction(Decimal(text))
    except (InvalidOperation, ValueError):
        raise ValueError(f"not a number: {text!r}") from None
    return sympy.Rational(value.numerator, value.denominator)


def to_sympy(expr: ast.Expr, names: Mapping[str, sympy.Expr]) -> sympy.Expr:
    """Translate an index or size expression. Names must be in `names`; tensor accesses and
    functions other than min/max are not size expressions (the checker reports them first)."""
    if isinstance(expr, ast.Number):
        return number(expr.text)
    if isinstance(expr, ast.Name):
        if expr.id not in names:
            raise SpecCheckError(Code.UNDEFINED_NAME, Diagnostic(
                expr.span, f"`{expr.id}` is not a size or iterator"))
        return names[expr.id]
    if isinstance(expr, ast.Neg):
        return -to_sympy(expr.operand, names)
    if isinstance(expr, ast.BinOp):
        left, right = to_sympy(expr.left, names), to_sympy(expr.right, names)
        if expr.op == "+":
            return left + right
        if expr.op == "-":
            return left - right
        if expr.op == "*":
            return left * right
        if right == 0:
            raise SpecCheckError(Code.DIVISION_BY_ZERO, Diagnostic(expr.span, "division by zero"))
        return left / right
    if isinstance(expr, ast.Call) and expr.func in ("min", "max") and len(expr.args) >= 2:
        args = [to_sympy(arg, names) for arg in expr.args]
        return sympy.Min(*args) if expr.func == "min" else sympy.Max(*args)
    raise SpecCheckError(Code.NOT_A_SIZE_EXPRESSION, Diagnostic(
        expr.span, "not a size expression",
        "sizes and indices use + - * /, min and max of sizes and iterators"))


def is_monomial(expr: sympy.Expr) -> bool:
    """A number times powers of symbols with integer exponents (2*K*M*N, M/6, 1/T): an
    expression sympy's factor and cancel give back unchanged."""
    return all(factor.is_Rational or factor.is_Symbol
               or (factor.is_Pow and factor.base.is_Symbol and factor.exp.is_Integer)
               for factor in sympy.Mul.make_args(expr))


def derivative(expr: sympy.Expr, var: sympy.Symbol) -> sympy.Expr:
    """d expr / d var, as sympy.diff writes it. Where each term is free of var, var itself,
    or var times factors free of it (an affine index, a bound), the factors are read off
    the terms: sympy.diff's dispatch costs a tenth of a millisecond a call, and the count
    takes hundreds of slopes. Any other term (var**2, floor(var/T)) goes to sympy.diff."""
    terms = []
    for term in sympy.Add.make_args(expr):
        if term == var:
            terms.append(sympy.S.One)
        elif var not in term.free_symbols:
            continue
        elif term.is_Mul and term.args.count(var) == 1:
            rest = [factor for factor in term.args if factor != var]
            if any(var in factor.free_symbols for factor in rest):
                return sympy.diff(expr, var)
            terms.append(sympy.Mul(*rest))
        else:
            return sympy.diff(expr, var)
    return sympy.Add(*terms)


def determinant_of(rows: list[list[sympy.Expr]]) -> sympy.Expr:
    """The determinant of a small square matrix by cofactors along its first row: expanded,
    the polynomial sympy's Matrix.det gives, without a Matrix (building one loads sympy's
    block matrices, and the minors are at most 3 by 3 or so)."""
    if len(rows) == 1:
        return rows[0][0]
    return sympy.Add(*[(-1) ** column * entry
                       * determinant_of([row[:column] + row[column + 1:] for row in rows[1:]])
                       for column, entry in enumerate(rows[0]) if entry != 0])


def replace_symbols(expr: sympy.Expr, images: Mapping[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    """expr.xreplace(images) for plain symbols, with each min/max node that changes taken
    from a cache: building a min/max compares its arguments through sympy's assumptions (a
    millisecond or more), and the nest's clipped bounds meet the same substitution in many
    sums and views. A symbol's image that is the symbol itself is dropped (xreplace would
    build every node above it again), and a node is cached by the images of its own
    symbols."""
    images = {symbol: image for symbol, image in images.items() if image != symbol}
    changed = [node for node in expr.atoms(sympy.Min, sympy.Max)
               if node.free_symbols & images.keys()]
    if not changed:
        return expr.xreplace(images)
    return expr.xreplace({**images, **{node: _replaced_node(node, _own_images(node, images))
                                        for node in changed}})


def _own_images(node: sympy.Expr, images: Mapping[sympy.Symbol, sympy.Expr]) -> tuple:
    symbols = sorted(node.free_symbols & images.keys(), key=text_key)
    return tuple((symbol, images[symbol]) for symbol in symbols)


@cacheit  # sympy's cache, emptied with it by sympy.core.cache.clear_cache
def _replaced_node(node: sympy.Expr, images: tuple) -> sympy.Expr:
    return node.xreplace(dict(images))


def preorder(expr: sympy.Basic):
    """The nodes of expr in the order sympy.preorder_traversal(expr) yields them (a node,
    then each argument's nodes; a Min's or Max's arguments in the order of their set, as
    sympy walks them). Replaces sympy's walker, whose generator per node and checks for
    skipping and keys cost a few microseconds a node: the count walks the same bounds
    hundreds of times looking for a min/max."""
    pending = [expr]
    while pending:
        node = pending.pop()
        yield node
        args = getattr(node, "_argset", None)
        if args is None:
            args = node.args
        pending.extend(reversed(tuple(args)))


def first_minmax(expr: sympy.Basic) -> sympy.Expr | None:
    """The first Min or Max of expr in preorder (sympy.preorder_traversal's order), or None."""
    return next((node for node in preorder(expr) if isinstance(node, (sympy.Min, sympy.Max))),
                None)


class Replacer:
    """expr.xreplace(rule) for one fixed rule, each distinct node replaced once: Basic's
    _xreplace walked node by node, its answers kept by node. A count replaces with the same
    rule (the quotients written back, the roundings it proves whole) in every total it
    finishes, and the totals share their clipped bounds and roundings: xreplace rebuilds
    each of them, and each Min or Max through its evaluation, in every total again. Equal
    nodes have equal images, so the answers are xreplace's; a property test holds the two
    equal. `image` may be overridden by a rule that is a test rather than a table."""

    def __init__(self, rule: Mapping[sympy.Basic, sympy.Basic] | None = None):
        self.rule = dict(rule or {})
        self._done: dict[sympy.Basic, tuple[sympy.Basic, bool]] = {}

    def __call__(self, expr: sympy.Basic) -> sympy.Basic:
        return self.replaced(expr)[0]

    def image(self, node: sympy.Basic) -> sympy.Basic | None:
        """The node's image under the rule, or None where the rule holds no such node."""
        return self.rule.get(node)

    def replaced(self, node: sympy.Basic) -> tuple[sympy.Basic, bool]:
        """The node replaced, and whether anything in it was."""
        found = self._done.get(node)
        if found is None:
            found = self._done[node] = self._replace(node)
        return found

    def _replace(self, node: sympy.Basic) -> tuple[sympy.Basic, bool]:
        image = self.image(node)
        if image is not None:
            return image, True
        args = []
        changed = False
        for arg in node.args:
            if isinstance(arg, sympy.Basic):
                arg, moved = self.replaced(arg)
                changed |= moved
            args.append(arg)
        if changed:
            return node.func(*args), True
        return node, False


class WholeRoundings(Replacer):
    """The xreplace of every floor and ceiling by its argument where `whole` holds of that
    argument (a fixed test: the facts' integral): one pass of Facts.drop_rounding."""

    def __init__(self, whole: Callable[[sympy.Expr], bool]):
        super().__init__()
        self.whole = whole

    def image(self, node: sympy.Basic) -> sympy.Basic | None:
        if isinstance(node, (sympy.floor, sympy.ceiling)) and self.whole(node.args[0]):
            return node.args[0]
        return None
