"""Split-K's partial tiles, enumerated block by block (the closed form is count.fixup's,
which this module does not import): where a grid runs its k-loop in S > 1 parts, every
element a block writes to a global tensor is a partial sum, written to a workspace in fp32
and read back by the reduction (CUTLASS's parallel split-K: NVIDIA/cutlass commit
7107b05535f8977f5ecb9d01ee203205b1fd9bc4, include/cutlass/gemm/device/
gemm_splitk_parallel.h:267 and include/cutlass/reduction/kernel/reduce_split_k.h)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from ..base.levels import Level
from ..lang.check import CheckedKernel
from .exprs import sympy_substitution, sympy_value
from .grid_blocks import BlockCounts
from .results import Value

_PARTIAL_B = 4  # one fp32 partial sum (CUTLASS's ElementAccumulator for a bf16 GEMM)


def partial_tile_bytes(kernel: CheckedKernel, values: Mapping[str, Value],
                       blocks: Iterable[BlockCounts]) -> Fraction:
    """Global bytes of the partial tiles the blocks write and the reduction reads back; 0
    without split-K (S = 1 or no grid)."""
    grid = kernel.grid
    if grid is None:
        return Fraction(0)
    split = sympy_value(grid.split.xreplace(sympy_substitution(values)), "the split count")
    if split == 1:
        return Fraction(0)
    partials = sum(len(elements) for block in blocks
                   for tensor, elements in block.written.items()
                   if kernel.tensors[tensor].level == Level.GLOBAL)
    return Fraction(2 * _PARTIAL_B * partials)  # written once, read back once
