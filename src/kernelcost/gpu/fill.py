"""Stage: a grid against the machine's SMs -> GridFill, where the grid leaves SMs idle.

A grid of B blocks on a machine of S SMs with B < S runs on B SMs at most: S - B stay idle
for the whole kernel. Each per-SM roof of t_bound (tensor, vector, SFU, shared) is then the
busiest SM's one block at one SM's rate, S / B times the flat roofline's time, and where one
of them binds the grid, not the kernel's intensity, sets the time: `gemm_hopper` at
M = N = K = 512 on H100 runs 8 blocks of 128 x 256 on 132 SMs and its tensor term is 16.5x
the flat one. What would fill the machine is data here, for the report to say:

- split-K: the block's innermost sequential loop around a keep that fills from L2 (k0 of a
  GEMM) divided among ceil(S / B) blocks, each adding a partial (times the parts a spec's
  `split_k` divides it in already);
- smaller tiles: the grid loops that step by more than one (i0 by TM) give more blocks per
  element of output with a smaller step.

Only numbers and names: the report writes the sentence."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..base.records import record
from ..count.cost import GridCost

Values = Mapping[sympy.Symbol, sympy.Expr]  # sizes by symbol


@record
class GridFill:
    """A grid of fewer blocks than SMs."""

    blocks: int  # B
    sm_count: int  # S
    share: sympy.Rational  # B / S: the part of the machine's SMs the grid occupies
    fill_factor: int  # ceil(S / B): how many times more blocks would occupy every SM
    binds: bool  # a per-SM roof sets t_bound: the idle SMs cost the kernel time
    split_iterator: str | None  # the sequential loop split-K would divide (k0), if any
    tile_iterators: tuple[str, ...]  # grid loops stepping by a tile (smaller tiles, more
    # blocks); empty where every grid loop steps by 1
    split: int = 1  # the parts the spec splits the k-loop in already (split_k), 1 without


def grid_fill(grid: GridCost, blocks: sympy.Expr, sm_count: int, values: Values,
              binds: bool) -> GridFill | None:
    """The GridFill of a grid of `blocks` blocks (at the verdict's sizes) on `sm_count` SMs,
    or None where the grid occupies every SM or its block count is no number. `binds`: the
    binding term of t_bound is a per-SM roof."""
    blocks = sympy.sympify(blocks)
    if not blocks.is_Integer or not 0 < blocks < sm_count:
        return None
    count = int(blocks)
    tiles = tuple(str(iterator) for iterator, step in zip(grid.iterators, grid.steps)
                  if _steps_by_more_than_one(step, values))
    split = None if grid.step_iterator is None else str(grid.step_iterator)
    declared = sympy.sympify(grid.split).xreplace(dict(values))
    return GridFill(count, sm_count, sympy.Rational(count, sm_count), -(-sm_count // count),
                    binds, split, tiles, int(declared) if declared.is_Integer else 1)


def _steps_by_more_than_one(step: sympy.Expr, values: Values) -> bool:
    value = sympy.sympify(step).xreplace(values)
    return bool(value.is_number and value > 1)
