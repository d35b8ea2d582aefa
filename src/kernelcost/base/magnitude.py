"""A bound on the numbers inside the closed forms.

Literals are bounded (1,000 digits), but a loop bound may multiply several of them:
`0..n * 1e1000 * 1e1000 * 1e1000 * 1e1000 * 1e1000` counts 10^5000 n iterations. Python will
not even print an integer of more than 4,300 digits, and sympy slows down long before, so a
count holding a constant of more than MAX_CONSTANT_DIGITS digits is refused at the kernel."""

from __future__ import annotations

import math

import sympy

from .errors import BudgetError, Code, Diagnostic
from .tree import Kernel

MAX_LITERAL_DIGITS = 1000  # digits or exponent of a literal: 10**400 is fine, 1e400000000 is not
MAX_CONSTANT_DIGITS = 4_000
_MAX_BITS = int(MAX_CONSTANT_DIGITS * math.log2(10))


def refuse_huge_constants(cost, kernel: Kernel) -> None:
    expressions = [*cost.work.values(), *cost.traffic.values()]
    for footprint in cost.footprints.values():
        expressions += [footprint.read_elements, footprint.write_elements]
    for scope in cost.scopes:
        expressions += [scope.entries, scope.held_bytes]
    for expr in expressions:
        for number in sympy.sympify(expr).atoms(sympy.Rational):
            bits = max(abs(number.p).bit_length(), abs(number.q).bit_length())
            if bits > _MAX_BITS:
                digits = int(bits / math.log2(10))
                raise BudgetError(Code.COUNTS_TOO_LARGE, Diagnostic(
                    kernel.span,
                    f"the counts of `{kernel.name}` hold a number of about "
                    f"{digits:,} digits, more than {MAX_CONSTANT_DIGITS:,}",
                    "a loop bound or an extent multiplies large literals; write large "
                    "quantities as sizes (parameters) and set them with --set"), kernel.source)
