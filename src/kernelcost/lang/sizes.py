"""What the spec computes from the sizes must itself make sense at the sizes analysed: a
tensor's extent is positive (`f32[N / (M - 4)]` at M = 1 is -64/3 elements, and the loop over
it runs no time), a loop step is positive (`by m - n` at n = 10, m = 4 runs backwards: its
closed form counts a negative number of iterations) and whole (`by T / 2` at T = 3 ran its
iterator over halves), a derived size (`let S = N - M`) is
positive, and so is each size a parallel header states (`threads = n - 4000` at n = 3000
gave -3 resident blocks an SM, `instructions = 10 - n` a negative issue time); none of them
divides by zero there. Where a verdict times the blocks, a header's counts are also whole:
a block of `n / 3` threads, `instructions = 0.5` (half an instruction's issue time),
`cluster i0 = 3 / 2` count what comes in whole numbers only (the enumeration of `check`,
which reads a cluster, refuses one there too: oracle.enumerate); layernorm_torch's
`1155 + 472 n / 512` is whole where 64 divides n, and its listing's path is the aligned
rows'. The counts of work and bytes read no header count but a cluster and a split, so a
count without a machine is not refused for one; nor is an extent held to it: `f32[N / 3]`
is rounded up, as a ragged last tile is.

The checker refuses what is never positive (`by -1`, `by 1 - n`); here the sizes given are
known, so what is not positive at them is an error at its place in the spec, and what cannot
be proved positive at all (the sizes left symbolic) is a warning; so is a step not proved
whole by the `assume d | n` facts (`by T / 2` without `2 | T`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, KcostError, SizeError
from ..base.levels import Level
from ..base.symbols import number, text_key, to_sympy
from .check import CheckedKernel


def size_warnings(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                  ) -> tuple[str, ...]:
    """Warnings for steps and derived sizes not proved positive at `values` (numeric values
    of some parameters); a KcostError where one is zero or negative there."""
    refuse_zero_divisors(checked, values)
    refuse_fractional_steps(checked, values)
    warnings = []
    for what, expr, span in _positive_quantities(checked):
        value = expr.xreplace(dict(values))
        if value.is_number:
            if not (value.is_finite and value > 0):
                _refuse(checked, span, what, expr, values)
        elif not proved_positive(value, checked.bounds):
            warnings.append(f"{what} (line {span.line}) is not proved positive")
    for what, step, span in _steps(checked):
        value = step.xreplace(dict(values))
        if not value.is_number and not proved_whole(value, checked.divisibility):
            warnings.append(f"{what} (line {span.line}) is not proved whole")
    return tuple(warnings)


def _positive_quantities(checked: CheckedKernel
                         ) -> Iterator[tuple[str, sympy.Expr, ast.Span]]:
    """(what it is, value in the parameters, place) of every tensor extent, loop step, `let`
    size and size of a parallel header."""
    for item in checked.kernel.items:
        if isinstance(item, ast.Let) and item.dtype is None and item.name in checked.sizes:
            yield f"size `{item.name}`", checked.sizes[item.name], item.span
        elif isinstance(item, ast.TensorDecl):
            # a size named alone is a parameter or a `let` size, checked as itself
            for axis, extent in enumerate(item.shape):
                if not isinstance(extent, (ast.Name, ast.Number)):
                    yield (f"extent {axis + 1} of tensor `{item.name}`",
                           to_sympy(extent, checked.sizes), extent.span)
    yield from _steps(checked)
    yield from header_sizes(checked)


def _steps(checked: CheckedKernel) -> Iterator[tuple[str, sympy.Expr, ast.Span]]:
    """(what it is, value in the parameters, place) of every loop step the spec writes."""
    for loop in _loops(checked.kernel.statements):
        if loop.step is not None:
            step = to_sympy(loop.step, checked.sizes)
            yield f"step `{step}` of loop `{loop.var}`", step, loop.step.span


def refuse_zero_divisors(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                         ) -> None:
    """A SizeError placed at the first `a / b` of the spec whose divisor, in the sizes alone,
    is zero at `values`: `0..N / (M - 4)` at M = 4 made every count zoo, and sympy's Min
    and comparisons raised on it. A divisor that holds an iterator or a value is not a size
    and is left to the checks that read it."""
    for division in _divisions(checked.kernel):
        try:
            divisor = to_sympy(division.right, checked.sizes)
        except KcostError:  # an iterator or a value: not a size expression
            continue
        if divisor.xreplace(dict(values)) != 0:
            continue
        used = sorted(divisor.free_symbols & set(values), key=text_key)
        sizes = ", ".join(f"{symbol} = {values[symbol]}" for symbol in used)
        raise SizeError(Code.DIVIDES_BY_ZERO_AT_SIZES, Diagnostic(
            division.span, f"a division by `{written_text(checked, division.right)}`, which is 0 "
            f"at {sizes}", "give sizes where the divisor is not 0, or change the spec"),
            checked.kernel.source)


def _divisions(node: object) -> Iterator[ast.BinOp]:
    """Every `a / b` the spec writes (a rewrite's, such as split-K's, left out: its divisor
    is a header count, checked as one), in source order."""
    return (found for found in _nodes(node) if isinstance(found, ast.BinOp)
            and found.op == "/" and not found.span.synthetic)


def _nodes(node: object) -> Iterator[object]:
    """Every node of an AST node, itself first, in source order: by a stack, each kind's
    fields named once (nested generators passed every node up through each of its parents,
    and the fields of each node were listed anew)."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        kind = type(node)
        if kind not in _FIELD_NAMES:  # a dataclass's fields (a span has none to walk)
            _FIELD_NAMES[kind] = () if not dataclasses.is_dataclass(kind) or issubclass(
                kind, ast.Span) else tuple(field.name for field in dataclasses.fields(kind))
        stack.extend(getattr(node, name) for name in reversed(_FIELD_NAMES[kind]))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # each kind of node's, named once


def refuse_header_sizes(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                        ) -> None:
    """A SizeError placed at the first division by zero at `values` or size of a parallel
    header that is not a positive number there (a verdict times the blocks from them:
    `instructions = 10 - n` at n = 4096 gave a negative issue time)."""
    refuse_zero_divisors(checked, values)
    refuse_fractional_steps(checked, values)
    refuse_header_counts(checked, values)


def refuse_fractional_steps(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                            ) -> None:
    """A SizeError placed at the first loop step that is a positive number at `values` but
    not a whole one: `by T / 2` at T = 3 ran its iterator over halves, reading x[3/2]."""
    for what, step, span in _steps(checked):
        value = step.xreplace(dict(values))
        if value.is_number and value.is_finite and value > 0 and not value.is_integer:
            _refuse_fraction(checked, span, what, step, value, values)


def refuse_header_counts(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                         ) -> None:
    """refuse_header_sizes, the divisions already found nonzero at `values`."""
    for what, expr, span in header_sizes(checked):
        value = expr.xreplace(dict(values))
        if value.is_number and not (value.is_finite and value > 0):
            _refuse(checked, span, what, expr, values)
    _refuse_fractions(checked, values)


def _refuse_fractions(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr]
                      ) -> None:
    """A SizeError placed at the first count of a parallel header that is a positive number
    at `values` but not a whole one (module doc)."""
    for what, expr, span in header_sizes(checked):
        value = expr.xreplace(dict(values))
        if not (value.is_number and value.is_finite and value > 0) or value.is_integer:
            continue
        _refuse_fraction(checked, span, what, expr, value, values)


def _refuse_fraction(checked: CheckedKernel, span: ast.Span, what: str, expr: sympy.Expr,
                     value: sympy.Expr, values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A SizeError placed at a header count or loop step that is `value`, not whole, at
    `values` (a step of 3/2 ran its iterator over halves: the counts read half elements)."""
    used = sorted(expr.free_symbols & set(values), key=text_key)
    sizes = ", ".join(f"{symbol} = {values[symbol]}" for symbol in used)
    raise SizeError(Code.NOT_WHOLE_AT_SIZES, Diagnostic(
        span, f"{what} is {value}{f' at {sizes}' if sizes else ''}, not a whole number",
        "it counts whole things: give sizes where it is whole, or change the spec"),
        checked.kernel.source)


_HEADER_SIZES = {"threads": "the thread count", Level.REGISTERS: "the register count",
                 "instructions": "the instruction count", "cluster": "the cluster size",
                 "split_k": "the split count"}


def header_sizes(checked: CheckedKernel) -> Iterator[tuple[str, sympy.Expr, ast.Span]]:
    """The sizes the parallel headers state: their counts, and the group of `grouped(G)`."""
    options = {id(loop.parallel): loop.parallel.options
               for loop in _loops(checked.kernel.statements) if loop.parallel is not None}
    for option in (option for header in options.values() for option in header):
        what = _HEADER_SIZES.get(option.name.id)
        if what is not None:
            yield f"{what} `{option.name.id}`", to_sympy(option.value, checked.sizes), \
                option.value.span
        elif isinstance(option.value, ast.Call) and len(option.value.args) == 1:
            group = option.value.args[0]
            yield "the group size of `grouped`", to_sympy(group, checked.sizes), group.span


def refuse_empty_grid(checked: CheckedKernel, blocks: sympy.Expr,
                      values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A SizeError placed at the grid's first parallel loop where `blocks`, the grid's block
    count, is zero or less at `values`: CUDA refuses a launch with no block (a grid dimension of
    0 is an invalid configuration), and a verdict would divide by the blocks."""
    count = blocks.xreplace(dict(values))
    if not (count.is_number and count <= 0):
        return
    loop = next(loop for loop in _loops(checked.kernel.statements) if loop.parallel is not None)
    used = sorted(blocks.free_symbols & set(values), key=text_key)
    sizes = ", ".join(f"{symbol} = {values[symbol]}" for symbol in used)
    raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
        loop.span, f"the grid has {count} blocks{f' at {sizes}' if sizes else ''}",
        "a launch needs at least one block: give sizes where the parallel loops run"),
        checked.kernel.source)


def _loops(statements) -> Iterator[ast.For]:
    for statement in statements:
        if isinstance(statement, ast.For):
            yield statement
            yield from _loops(statement.body)
        elif isinstance(statement, ast.Keep):
            yield from _loops(statement.body)


def _refuse(checked: CheckedKernel, span: ast.Span, what: str, expr: sympy.Expr,
            values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    used = sorted(expr.free_symbols & set(values), key=text_key)
    sizes = ", ".join(f"{symbol} = {values[symbol]}" for symbol in used)
    value = expr.xreplace(dict(values))
    if not value.is_finite:
        raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
            span, f"{what} divides by zero at {sizes}",
            "it must be a positive number there: change the sizes, or the spec"),
            checked.kernel.source)
    raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
        span, f"{what} is {value} at {sizes}",
        "it must be positive: change the sizes, or the spec"), checked.kernel.source)


def refuse_broken_divisibility(checked: CheckedKernel,
                               values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A SizeError placed at the first `assume d | n` that the numbers in `values` break.

    The closed forms divide by d where the spec says d divides n; a verdict on a machine
    also counts whole tiles and blocks from them. At sizes that break the fact those are not
    the loops as written (N = 8196 against `assume TN | N`, TN = 256: 32.0156 tiles), so a
    grid's verdict at such sizes is refused (answer.refuse_verdict_sizes); the spec without
    the fact counts the ragged last tile."""
    for fact in _divides(checked):
        divisor = to_sympy(fact.divisor, checked.sizes).xreplace(dict(values))
        dividend = to_sympy(fact.dividend, checked.sizes).xreplace(dict(values))
        if not (divisor.is_Integer and dividend.is_Integer) or divisor <= 0:
            continue
        if dividend % divisor == 0:
            continue
        divisor_text = written_text(checked, fact.divisor)
        dividend_text = written_text(checked, fact.dividend)
        nearest = max(divisor, dividend - dividend % divisor)
        other = ("or a split that divides its k-steps (a rewrite's fact: lang.split_k)"
                 if fact.span.synthetic else f"or remove `{divisor_text} | {dividend_text}` "
                 "from the assume line to count the ragged last tile")
        raise SizeError(Code.ASSUMPTION_BROKEN_AT_SIZES, Diagnostic(
            fact.span,
            f"`assume {divisor_text} | {dividend_text}` does not hold at "
            f"{_at(dividend_text, dividend)}: {dividend} is not a multiple of "
            f"{_at(divisor_text, divisor)}",
            f"the counts take {dividend_text} to be a multiple of {divisor_text}: give "
            f"{dividend_text} a multiple of {divisor} (such as {nearest}), {other}"),
            checked.kernel.source)


_RELATIONS = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}


def refuse_broken_bounds(checked: CheckedKernel,
                         values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A SizeError placed at the first `assume a <= b` (or <, >=, >) that the numbers in
    `values` break. The closed forms take the fact to hold (a loop of N - 1e19 trips is
    counted as running): where it does not, a count can come out negative, and no time can
    be made of it."""
    for item in checked.kernel.items:
        if not isinstance(item, ast.Assume):
            continue
        for fact in item.facts:
            if not isinstance(fact, ast.Compare):
                continue
            sides = [to_sympy(side, checked.sizes) for side in (fact.left, fact.right)]
            left, right = (side.xreplace(dict(values)) for side in sides)
            if not (left.is_number and right.is_number):
                continue
            if left.is_finite and right.is_finite and (
                    _RELATIONS[fact.op](left, right) is not sympy.false):
                continue
            written = (f"{written_text(checked, fact.left)} {fact.op} "
                       f"{written_text(checked, fact.right)}")
            sizes = sorted(sides[0].free_symbols | sides[1].free_symbols, key=text_key)
            where = ", ".join(f"{size} = {values[size]}" for size in sizes if size in values)
            raise SizeError(Code.ASSUMPTION_BROKEN_AT_SIZES, Diagnostic(
                fact.span, f"`assume {written}` does not hold at {where or 'these sizes'}, "
                           "and the counts there are negative",
                "the closed forms take the fact to hold: give sizes where it does"),
                checked.kernel.source)


def refuse_large_numbers(kernel: ast.Kernel, limit: int, why: str) -> None:
    """A SizeError placed at the first number written in the spec above `limit`: for a
    command that computes with the spec's numbers in doubles or 64-bit integers."""
    for literal in (found for found in _nodes(kernel) if isinstance(found, ast.Number)):
        value = number(literal.text)
        if abs(value) > limit:
            raise SizeError(Code.SIZE_TOO_LARGE, Diagnostic(
                literal.span, f"the number {literal.text} is more than {why}",
                "write the kernel with smaller numbers, or analyze it without --machine"),
                kernel.source)


def written_text(checked: CheckedKernel, node: ast.Expr) -> str:
    """An expression as the spec writes it (its span's text on one line)."""
    span = node.span
    lines = checked.kernel.source.split("\n") if checked.kernel.source else []
    if not span.synthetic and span.line == span.end_line and 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    return str(to_sympy(node, checked.sizes))


def _at(text: str, value: sympy.Expr) -> str:
    """`N = 8196`; the value alone where the text is the number."""
    return str(value) if text == str(value) else f"{text} = {value}"


def _divides(checked: CheckedKernel) -> Iterator[ast.Divides]:
    for item in checked.kernel.items:
        if isinstance(item, ast.Assume):
            yield from (fact for fact in item.facts if isinstance(fact, ast.Divides))


def proved_positive(expr: sympy.Expr, bounds: tuple[sympy.Basic, ...]) -> bool:
    """Whether expr > 0 follows from the sizes being positive integers, or from one assumed
    relation: `assume n < m` gives m - n >= 1, so a step m - n is positive."""
    if expr.is_positive:
        return True
    for relation in bounds:
        gap = _gap(relation)
        if gap is None:
            continue
        gap_value, strict = gap
        difference = sympy.expand(expr - gap_value)
        if difference.is_positive or (strict and difference.is_nonnegative):
            return True
    return False


def proved_whole(expr: sympy.Expr, divisibility: tuple[tuple[sympy.Expr, sympy.Expr], ...]
                 ) -> bool:
    """Whether expr is an integer at every choice of sizes the `assume d | n` facts allow:
    each such n is d * r for some positive integer r (`T / 2` is whole under `2 | T`)."""
    if expr.is_integer:
        return True
    multiples = {dividend: divisor * sympy.Dummy("r", integer=True, positive=True)
                 for divisor, dividend in divisibility if dividend.is_Symbol}
    for _ in range(len(multiples)):  # a divisor that is itself a multiple: `Bc | Br, Br | S`
        rewritten = expr.xreplace(multiples)
        if rewritten == expr:
            break
        expr = rewritten
    return bool(sympy.cancel(expr).is_integer)


def _gap(relation: sympy.Basic) -> tuple[sympy.Expr, bool] | None:
    """An assumed relation as (g, strict): g > 0 when strict, else g >= 0."""
    if isinstance(relation, (sympy.StrictGreaterThan, sympy.GreaterThan)):
        return relation.lhs - relation.rhs, isinstance(relation, sympy.StrictGreaterThan)
    if isinstance(relation, (sympy.StrictLessThan, sympy.LessThan)):
        return relation.rhs - relation.lhs, isinstance(relation, sympy.StrictLessThan)
    return None
