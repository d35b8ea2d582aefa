"""Stage: Cost -> Cost with part of the special-function work moved to the FP32 vector units.

FlashAttention-4 on B200 computes a fraction of its exponentials as a polynomial on the FMA
units rather than on the SFU (MUFU, 16 operations per clock per SM against 128 FP32 lanes):
Cody-Waite range reduction (2^x = 2^floor(x) x 2^frac(x)), a degree-k polynomial for 2^frac
in Horner form (k FMA), then the integer exponent added into the result. Per exponential moved:
k FMA (2 FLOP each) and RANGE_REDUCTION_OPS other operations (1 FLOP each, the counting rule
of a non-FMA vector operation: floor, the fraction's subtraction, the exponent's shift and
add), all in the `vector` class (FP32 vector units), never the tensor class.

The `sfu` class counts every special function of the spec (exp, log, sqrt, ...); the option
treats them all as exponentials: apply it to specs whose SFU work is exponentials (the
attention specs)."""

from __future__ import annotations

import dataclasses

import sympy

from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import WorkClass
from ..base.records import record
from ..base.tree import Span
from ..count.cost import Cost

RANGE_REDUCTION_OPS = 4  # floor, x - floor(x), shift and integer add of the exponent
DEFAULT_DEGREE = 3  # FlashAttention-4's degree-3 polynomial
MAX_DEGREE = 64  # a polynomial of higher degree costs more than the SFU it stands in for


@record
class ExpOnFma:
    fraction: sympy.Rational  # of the exponentials, in [0, 1]
    k: int = DEFAULT_DEGREE  # FMA per exponential (the polynomial's degree)

    @property
    def vector_FLOP_per_exp(self) -> int:
        return 2 * self.k + RANGE_REDUCTION_OPS


def parse_exp_on_fma(text: str) -> ExpOnFma:
    """FRACTION[:K], as `--exp-on-fma 0.5` or `--exp-on-fma 1/2:3`."""
    fraction_text, _, k_text = text.partition(":")
    try:
        if len(text) > 100 or not text.isascii() or "_" in text:  # Fraction reads `0.٥`
            raise ValueError(text)
        fraction = sympy.Rational(fraction_text.strip())
        k = int(k_text) if k_text.strip() else DEFAULT_DEGREE
    except (TypeError, ValueError, ZeroDivisionError, sympy.SympifyError):
        fraction, k = None, 0
    if fraction is None or not 0 <= fraction <= 1 or not 1 <= k <= MAX_DEGREE:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            Span("--exp-on-fma", 1, 1, 1, max(2, len(text) + 1)),
            f"--exp-on-fma {text!r}: expected FRACTION[:K], a fraction from 0 to 1 and a "
            f"whole K from 1 to {MAX_DEGREE}", "--exp-on-fma 0.5 or --exp-on-fma 0.5:3"),
            text)
    return ExpOnFma(fraction, k)


def exp_on_fma(cost: Cost, option: ExpOnFma | None) -> Cost:
    """`cost` with option.fraction of its sfu work moved to the vector class."""
    if option is None or option.fraction == 0:
        return cost

    def moved(work: dict[str, sympy.Expr]) -> dict[str, sympy.Expr]:
        sfu = work.get(WorkClass.SFU, 0)
        if sfu == 0:
            return work
        result = dict(work)
        result[WorkClass.SFU] = sympy.expand(sfu * (1 - option.fraction))
        result[WorkClass.VECTOR] = sympy.expand(result.get(WorkClass.VECTOR, 0)
                                        + sfu * option.fraction * option.vector_FLOP_per_exp)
        return {name: amount for name, amount in result.items() if amount != 0}

    grid = cost.grid
    if grid is not None:
        grid = dataclasses.replace(grid, work=moved(grid.work))
    return dataclasses.replace(cost, work=moved(cost.work), grid=grid)
