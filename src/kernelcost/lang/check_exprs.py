"""The expressions pass, after check_decls: the expressions of every statement in the checked
tree, each against the names declared where the statement stands. Loop bounds, steps and
stage counts are sizes; values are names, accesses and calls with their arity; indices are
sizes and iterators, affine in the iterators and whole; an assignment writes what may be
written, and the units it names can run it."""

from __future__ import annotations

import sympy

from ..base import tree as ast
from ..base.errors import Code, did_you_mean
from ..base.kinds import Role
from ..base.symbols import FUNCTION_ARITY, FUNCTIONS, iterator_symbol
from .check_context import Context, Tensor, Visit
from .check_sizes import names_known, size_expr, to_sympy, unknown
from .contraction import unit_problem


def check_expressions(context: Context) -> None:
    for visit in context.tree:
        stmt = visit.statement
        if isinstance(stmt, ast.For):
            _loop_range(context, visit, stmt)
        elif isinstance(stmt, ast.Keep):
            _stages(context, visit, stmt)
        elif isinstance(stmt, ast.Let) and stmt.dtype is not None:
            _value(context, visit, stmt.value)  # an untyped let inside a loop declares nothing
        elif isinstance(stmt, ast.Assign):
            _assign(context, visit, stmt)


# --- statements ------------------------------------------------------------------------------

def _loop_range(context: Context, visit: Visit, loop: ast.For) -> None:
    declared, scope = visit.declared, visit.scope
    bound_names = {**declared.sizes, **scope.iterator_symbols()}
    for bound in (loop.lo, loop.hi):
        if names_known(context, declared, bound, bound_names, "a loop bound", scope):
            to_sympy(context, bound, bound_names)
    if loop.step is None or not names_known(context, declared, loop.step, declared.sizes,
                                            "a loop step", scope):
        return
    value = to_sympy(context, loop.step, declared.sizes)
    if value is not None and (value.is_positive is False or value == 0):
        context.error(Code.NOT_POSITIVE, loop.step.span, f"loop step must be positive, not {value}",
                      "write the loop upward: `for i in lo..hi by s` with s > 0")
    elif value is not None and value.is_number and not value.is_integer:
        # `by 1/2` ran i over 0, 1/2, 1, ...: x[i] read 2n elements of an n-element tensor
        context.error(Code.NOT_A_SIZE_EXPRESSION, loop.step.span,
                      f"loop step must be a whole number, not {value}",
                      "iterators count whole elements: step by a size (`by 2`, `by T`)")


def _stages(context: Context, visit: Visit, keep: ast.Keep) -> None:
    if keep.stages is None:
        return
    stages = size_expr(context, visit.declared, keep.stages, "a stage count")
    if stages is not None and (stages.is_positive is False or stages == 0):
        context.error(Code.NOT_POSITIVE, keep.stages.span, f"stages must be positive, not {stages}",
                      "a pipeline holds at least one stage")


def _assign(context: Context, visit: Visit, assign: ast.Assign) -> None:
    target = assign.target
    if isinstance(target, ast.Name):
        _assign_name(context, visit, target)
    else:
        _access(context, visit, target, role=Role.OUT)
        tensor = visit.declared.tensors.get(target.tensor)
        if tensor is not None and tensor.role == Role.IN:
            _write_to_input(context, target.span, tensor)
    _value(context, visit, assign.value)
    problem = unit_problem(assign, list(visit.scope.iterators))
    if problem is not None and assign.unit is not None:
        context.error(Code.WRONG_UNIT, assign.unit.span, *problem)


def _assign_name(context: Context, visit: Visit, target: ast.Name) -> None:
    name, declared, scope = target.id, visit.declared, visit.scope
    if name in declared.tensors:
        tensor = declared.tensors[name]
        if tensor.shape:
            indices = ", ".join(f"i{axis}" for axis in range(len(tensor.shape)))
            context.error(Code.WRONG_RANK, target.span,
                          f"`{name}` is a tensor of rank {len(tensor.shape)}; "
                          "assign to one element", f"write `{name}[{indices}] = ...`")
        elif tensor.role == Role.IN:
            _write_to_input(context, target.span, tensor)
    elif name in declared.sizes:
        context.error(Code.WRONG_ASSIGNMENT, target.span, f"cannot assign to size `{name}`",
                      "sizes are fixed; for a value that changes, declare a local: "
                      "`let total: f32 = 0`")
    elif name in scope.iterators:
        context.error(Code.WRONG_ASSIGNMENT, target.span, f"cannot assign to iterator `{name}`",
                      "its loop sets it; for a value that changes, declare a local: "
                      "`let total: f32 = 0`")
    elif name not in scope.locals:
        unknown(context, target, {**declared.tensors, **scope.locals},
                f"declare it first: `out {name}: f32[...]` or `let {name}: f32 = 0`")


def _write_to_input(context: Context, span: ast.Span, tensor: Tensor) -> None:
    context.error(Code.WRONG_ASSIGNMENT, span,
                  f"`{tensor.name}` is declared `in` (line {tensor.span.line}) and "
                  "cannot be written",
                  "declare it `out` (written) or `inout` (read, then written)")


# --- values ----------------------------------------------------------------------------------

def _value(context: Context, visit: Visit, expr: ast.Expr) -> None:
    """Check a value expression: accesses, calls and names."""
    if isinstance(expr, ast.Access):
        _access(context, visit, expr)
    elif isinstance(expr, ast.Name):
        _value_name(context, visit, expr)
    elif isinstance(expr, ast.BinOp):
        _value(context, visit, expr.left)
        _value(context, visit, expr.right)
    elif isinstance(expr, ast.Neg):
        _value(context, visit, expr.operand)
    elif isinstance(expr, ast.Call):
        _call(context, visit, expr)


def _value_name(context: Context, visit: Visit, name: ast.Name) -> None:
    declared, scope = visit.declared, visit.scope
    known = {**declared.sizes, **scope.iterators, **scope.locals, **declared.tensors}
    if name.id not in known:
        hint = None
        if name.id in declared.locals:
            line = declared.local_spans[name.id].line
            hint = f"the local `{name.id}` declared at line {line} is out of scope here"
        unknown(context, name, known, hint)
    elif name.id in declared.tensors and declared.tensors[name.id].shape:
        rank = len(declared.tensors[name.id].shape)
        context.error(Code.WRONG_RANK, name.span,
                      f"`{name.id}` is a tensor of rank {rank}; read one element",
                      f"write `{name.id}[...]` with {rank} ind{'ex' if rank == 1 else 'ices'}")


def _call(context: Context, visit: Visit, call: ast.Call) -> None:
    if call.func not in FUNCTIONS:
        place = ast.Span(call.span.file, call.span.line, call.span.column, call.span.line,
                         call.span.column + len(call.func))
        context.error(Code.UNDEFINED_NAME, place, f"unknown function `{call.func}`",
                      did_you_mean(call.func, FUNCTIONS)
                      or "functions: " + ", ".join(sorted(FUNCTIONS)))
    else:
        _arity(context, call)
    for arg in call.args:
        _value(context, visit, arg)


def _arity(context: Context, call: ast.Call) -> None:
    arity = FUNCTION_ARITY.get(call.func)
    given = len(call.args)
    if arity is not None and given != arity:
        context.error(Code.WRONG_CALL, call.span,
                      f"`{call.func}` takes {_count(arity, 'argument')}, not {given}",
                      f"call it as `{_usage(call.func, arity)}`")
    elif arity is None and given < 2:
        context.error(Code.WRONG_CALL, call.span,
                      f"`{call.func}` takes at least 2 arguments, not {given}",
                      f"call it as `{call.func}(a, b)`")


def _access(context: Context, visit: Visit, access: ast.Access, role: Role = Role.IN) -> None:
    declared, scope = visit.declared, visit.scope
    if access.tensor not in declared.tensors:
        known = {**declared.tensors, **scope.locals, **declared.sizes, **scope.iterators}
        if access.tensor in known:
            context.error(Code.WRONG_RANK, access.span,
                          f"`{access.tensor}` is not a tensor and takes no indices",
                          f"write `{access.tensor}` alone")
        else:
            hint = did_you_mean(access.tensor, declared.tensors) or (
                f"declare it: `{role} {access.tensor}: f32[...]`")
            context.error(Code.UNDEFINED_NAME, access.span, f"unknown tensor `{access.tensor}`",
                          hint)
        return
    tensor = declared.tensors[access.tensor]
    if tensor.role == Role.LOCAL and access.tensor not in scope.locals:
        line = tensor.span.line
        context.error(Code.UNDEFINED_NAME, access.span,
                      f"the local array `{access.tensor}` is out of scope here",
                      f"it is declared at line {line}; use it inside the block it is declared in")
        return
    if len(access.indices) != len(tensor.shape):
        declared_as = context.source_text(tensor.span).split(":", 1)[-1].strip()
        context.error(Code.WRONG_RANK, access.span,
                      f"`{access.tensor}` has rank {len(tensor.shape)} but is indexed with "
                      f"{_count(len(access.indices), 'index')}",
                      f"declared at line {tensor.span.line}: `{access.tensor}: {declared_as}`")
    index_names = {**declared.sizes, **scope.iterator_symbols()}
    for index in access.indices:
        if names_known(context, declared, index, index_names, "an index", scope):
            _affine(context, visit, index, index_names)


# --- indices ---------------------------------------------------------------------------------

def _affine(context: Context, visit: Visit, expr: ast.Expr, names) -> None:
    """Indices must be affine in the iterators (sizes may multiply them)."""
    value = to_sympy(context, expr, names)
    if value is None or value.is_Symbol or value.is_Integer:
        return  # `i`, `N`, `0`: affine, and the most common index, without a Poly
    if value.has(sympy.Min, sympy.Max):
        context.error(Code.NOT_AFFINE, expr.span, "min/max in an index",
                      "clip the loop bound instead")
        return
    symbols = [iterator_symbol(name) for name in visit.scope.iterators]
    if not symbols or _plainly_affine(value, set(symbols)):
        return
    try:
        poly = sympy.Poly(value, *symbols)
    except sympy.PolynomialError:
        context.error(Code.NOT_AFFINE, expr.span, "index is not affine in the iterators",
                      "a footprint needs indices like `i + 1`, `2*i` or `T*i0 + i`")
        return
    if poly.total_degree() > 1:
        context.error(Code.NOT_AFFINE, expr.span, "index is not affine in the iterators",
                      "a product of iterators has no box footprint; write indices like "
                      "`i + 1`, `2*i` or `T*i0 + i`")
    elif any(sympy.denom(coefficient) != 1 for coefficient in poly.coeffs()):
        context.error(Code.NOT_AFFINE, expr.span, "index divides an iterator",
                      "indices are integers: write `2*i` rather than `i/2`, or use a step")


def _plainly_affine(value: sympy.Expr, iterators: set[sympy.Symbol]) -> bool:
    """A sum of products of integers, other symbols and their positive powers, and at most
    one iterator each: affine in the iterators with coefficients Poly finds whole, found
    without building the Poly (a third of checking an attention spec)."""
    for term in sympy.Add.make_args(value):
        found = 0
        for factor in sympy.Mul.make_args(term):
            if factor in iterators:
                found += 1
            elif not (factor.is_Integer or factor.is_Symbol or (
                    factor.is_Pow and factor.base.is_Symbol and factor.base not in iterators
                    and factor.exp.is_Integer and factor.exp > 0)):
                return False
        if found > 1:
            return False
    return True


def _count(number: int, noun: str) -> str:
    plural = {"index": "indices"}.get(noun, noun + "s")
    return f"{number} {noun if number == 1 else plural}"


def _usage(func: str, arity: int) -> str:
    return f"{func}({', '.join('abc'[:arity])})" if arity <= 3 else f"{func}(...)"
