"""The fix-up traffic of split-K (lang.split_k): the global bytes that S partial tiles per
output tile add, as CUTLASS's parallel split-K GEMM moves them (NVIDIA/cutlass commit
7107b05535f8977f5ecb9d01ee203205b1fd9bc4):
- the GEMM's blocks write each partial output tile in the accumulator's type to a workspace
  of S x M x N elements (`include/cutlass/gemm/device/gemm_splitk_parallel.h`:267,
  `get_workspace_size`: sizeof(ElementAccumulator) x m x n x k-slices; the kernel's epilogue
  writes at `splitk_slice_stride` x its slice, `gemm/kernel/gemm_splitk_parallel.h`:235);
- a second kernel reads the S partials of each element back, adds them and writes the output
  once (`include/cutlass/reduction/kernel/reduce_split_k.h`:194-207, ReduceSplitK).
So every element an output tensor receives costs S fp32 writes and S fp32 reads more than
the unsplit kernel, whose single write of the output is the reduction's (already among the
compulsory bytes): fix-up = [S > 1] x 2 x 4 B x S x (elements written). With S = 1 there is
no split and no workspace. The fix-up never stays on chip (two kernels), so it is charged to
global memory in t_bound as in t_model; the output tensors' inputs (beta = 0: an `out`
tensor is never read) add nothing.

Stream-K (lang.stream_k) needs one tile's partials: the fp32 bytes of what one block writes
to its output tensors; how many tiles are split is the machine's (gpu.stream_split)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ..base.kinds import Role
from ..base.levels import Level
from .cost import StreamKCost

if TYPE_CHECKING:
    from .counting import NestCount

PARTIAL_B = 4  # bytes of one partial sum: an fp32 accumulator (ElementAccumulator)


def fixup_bytes(counter: NestCount) -> sympy.Expr:
    """Global bytes of the split-K fix-up (module doc), 0 for a kernel without split-K."""
    grid = counter.checked.grid
    if grid is None or grid.split == 1:
        return sympy.Integer(0)
    written = _written(counter)
    # Min(S - 1, 1): 0 at S = 1, 1 from S = 2 on (S a whole number), one closed form for a
    # split that `tune` varies
    split = grid.split
    return counter.finish(sympy.Min(split - 1, 1) * 2 * PARTIAL_B * split * written)


def stream_k_cost(counter: NestCount, blocks: sympy.Expr) -> StreamKCost | None:
    """The grid's stream-K with one tile's partials in bytes (module doc); None without."""
    grid = counter.checked.grid
    if grid is None or grid.stream_k is None:
        return None
    declared = grid.stream_k
    return StreamKCost(counter.finish(declared.iterations),
                       None if declared.workers is None else counter.finish(declared.workers),
                       counter.finish(PARTIAL_B * _written(counter) / blocks))


def _written(counter: NestCount) -> sympy.Expr:
    """Elements the kernel writes to its global output tensors, each once."""
    written = sympy.Integer(0)
    for name, tensor in counter.checked.tensors.items():
        if tensor.role == Role.LOCAL or tensor.role == Role.IN or tensor.level != Level.GLOBAL:
            continue
        writes = [site for site in counter.nest.accesses
                  if site.tensor == name and site.is_write]
        written += counter.footprint.union(writes, 0).elements
    return written
