"""Sizes resolved to numbers, and index and bound expressions turned once into closures
(sizes folded in as constants), so that the nest runs on plain ints and Fractions."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from fractions import Fraction

import sympy

from ..algebra import rational_eval
from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SizeError, SpecCheckError
from ..base.symbols import number, size_symbol
from ..lang.check import CheckedKernel
from .results import Element, Env, Value

# --- sizes -------------------------------------------------------------------------------


def resolve_sizes(kernel: CheckedKernel, sizes: Mapping[str, int]) -> dict[str, Value]:
    """Every size name -> its value: the given parameters, defaults for the rest, and the
    derived (`let`) sizes evaluated. A missing, unknown or non-positive size is a KcostError."""
    parameter_names = [symbol.name for symbol in kernel.parameters]
    for name in sizes:
        if name not in parameter_names:
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                None, f"`{name}` is not a size parameter of `{kernel.name}`",
                "parameters: " + ", ".join(parameter_names)))
    values: dict[str, Value] = {}
    for symbol in kernel.parameters:
        value = sizes.get(symbol.name, kernel.defaults.get(symbol))
        if value is None:
            raise SizeError(Code.SIZES_UNSET, Diagnostic(
                None, f"size `{symbol.name}` needs a value", f"set it: {symbol.name}=8"))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SizeError(Code.SIZE_NOT_POSITIVE_INTEGER, Diagnostic(
                None, f"size `{symbol.name}` must be a positive integer, not {value!r}"))
        values[symbol.name] = value
    derived = [(name, expression) for name, expression in kernel.sizes.items()
               if name not in values]
    if derived:  # each at the parameters' values alone
        at = _ParameterValues(values)
        for name, expression in derived:
            values[name] = _derived_value(expression, at, name)
    return values


class _ParameterValues:
    """The parameters' values, as integers by symbol for the plans, and as sympy's numbers
    for a substitution, made only where a plan cannot evaluate a size."""

    def __init__(self, values: Mapping[str, Value]):
        self.values = dict(values)
        self.integers = {size_symbol(name): value for name, value in values.items()
                         if type(value) is int}  # every parameter's, checked above
        self._substitution: dict[sympy.Symbol, sympy.Rational] | None = None

    def substitution(self) -> dict[sympy.Symbol, sympy.Rational]:
        if self._substitution is None:
            self._substitution = sympy_substitution(self.values)
        return self._substitution


def _derived_value(expression: sympy.Expr, at: _ParameterValues, name: str) -> Value:
    """A `let` size at the parameters' values: by its plan in integers where it has one (the
    self-verification resolves the sizes of every draw, and substituting rebuilds the
    expression in sympy), else substituted, as sympy_value says."""
    planned = rational_eval.value_at_integers(expression, at.integers)
    if planned is not None:
        return normal(Fraction(*planned))
    return sympy_value(expression.xreplace(at.substitution()), f"size `{name}`")


def sympy_substitution(values: Mapping[str, Value]) -> dict[sympy.Symbol, sympy.Rational]:
    return {size_symbol(name): rational(value) for name, value in values.items()}


def rational(value: Value) -> sympy.Rational:
    if type(value) is int:  # most values: sizes, iterators (Integer is Rational's own form)
        return sympy.Integer(value)
    value = Fraction(value)
    return sympy.Rational(value.numerator, value.denominator)


def sympy_value(expression: sympy.Expr, what: str) -> Value:
    if not expression.is_Rational:
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None, f"{what} does not evaluate to a number: {expression}"))
    return normal(Fraction(int(expression.p), int(expression.q)))


def normal(value: Value) -> Value:
    """Integral Fractions become ints, so that loops can use range()."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


# --- expressions as closures -------------------------------------------------------------
# An expression compiles to a constant (a Value) when it depends on sizes only, otherwise to a
# function of the iterator environment. Values are never callable, so callable() tells them
# apart.

Compiled = Value | Callable[[Env], Value]


def _divide(left: Value, right: Value) -> Value:
    if right == 0:
        raise SpecCheckError(Code.DIVISION_BY_ZERO, Diagnostic(
            None, "division by zero in an index or a loop bound"))
    if isinstance(left, int) and isinstance(right, int) and left % right == 0:
        return left // right
    return normal(Fraction(left) / right)


_OPERATORS: dict[str, Callable[[Value, Value], Value]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _divide,
}


def compile_expr(expr: ast.Expr, sizes: Mapping[str, Value]) -> Compiled:
    """An index or bound expression (sizes, iterators, + - * /, min, max) as a closure."""
    if isinstance(expr, ast.Number):
        rational = number(expr.text)
        return normal(Fraction(int(rational.p), int(rational.q)))
    if isinstance(expr, ast.Name):
        if expr.id in sizes:
            return sizes[expr.id]
        return operator.itemgetter(expr.id)
    if isinstance(expr, ast.Neg):
        operand = compile_expr(expr.operand, sizes)
        if not callable(operand):
            return -operand
        return lambda env: -operand(env)
    if isinstance(expr, ast.BinOp):
        return compile_binary(_OPERATORS[expr.op], compile_expr(expr.left, sizes),
                               compile_expr(expr.right, sizes))
    if isinstance(expr, ast.Call) and expr.func in ("min", "max"):
        return compile_extremum(min if expr.func == "min" else max,
                                 [compile_expr(arg, sizes) for arg in expr.args])
    raise SpecCheckError(Code.NOT_A_SIZE_EXPRESSION, Diagnostic(
        expr.span, "not an index or bound expression",
        "indices and bounds use sizes, iterators, + - * /, min, max"))


def compile_binary(apply, left: Compiled, right: Compiled) -> Compiled:
    if not callable(left):
        if not callable(right):
            return normal(apply(left, right))
        return lambda env: apply(left, right(env))
    if not callable(right):
        return lambda env: apply(left(env), right)
    return lambda env: apply(left(env), right(env))


def compile_extremum(choose, args: list[Compiled]) -> Compiled:
    if not any(callable(arg) for arg in args):
        return choose(args)
    functions = [as_function(arg) for arg in args]
    return lambda env: choose([function(env) for function in functions])


def as_function(compiled: Compiled) -> Callable[[Env], Value]:
    if callable(compiled):
        return compiled
    return lambda env: compiled


def compile_index(indices: tuple[ast.Expr, ...],
                   sizes: Mapping[str, Value]) -> Callable[[Env], Element]:
    """The element an access touches, as a tuple of index values (() for a scalar tensor)."""
    parts = [as_function(compile_expr(index, sizes)) for index in indices]
    if not parts:
        return lambda env: ()
    if len(parts) == 1:
        (first,) = parts
        return lambda env: (first(env),)
    if len(parts) == 2:
        first, second = parts
        return lambda env: (first(env), second(env))
    if len(parts) == 3:
        first, second, third = parts
        return lambda env: (first(env), second(env), third(env))
    return lambda env: tuple(part(env) for part in parts)


def fraction_of(value: sympy.Rational) -> Fraction:
    return Fraction(int(value.p), int(value.q))
