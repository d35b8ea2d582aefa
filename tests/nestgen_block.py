"""The parts of a generated nest (tests/nestgen.py) that belong to a grid of thread blocks:
the `parallel(...)` header's options, the keeps with their levels, and the loop handed to the
lanes of a warp."""

from __future__ import annotations

import re

from hypothesis import strategies as st
from nestparts import GridHeader, Head, LoopLine

# stated instruction counts: a constant, and counts that grow with the sizes (as
# layernorm_torch's 1155 + 472 n / 512), some large enough that the issue effect binds
INSTRUCTIONS = ("12", "10173", "64 + 3 * N", "N * T / 4 + 7", "M + N", "1000000")



@st.composite
def lanes_line(draw, var: str, head: Head, wide: bool) -> LoopLine:
    """`v in 0..E [by 2] lanes`: from 0 and over sizes only, so that every warp starts at
    the same aligned address whatever runs around it; `N + 30` gives full warps and a
    partial one (in nests shallow enough to enumerate it)."""
    extents = ["N", "M", *head.params[2:]] + (["N + 30"] if wide else [])
    extent = draw(st.sampled_from(extents))
    step = draw(st.sampled_from(["", "", " by 2"]))
    return LoopLine(var, f"{var} in 0..{extent}{step} lanes", False, lanes=True)


@st.composite
def grid_headers(draw, loops: list[LoopLine], count: int, block: list[str],
                 cluster_axis: str | None = None) -> GridHeader:
    """The first `count` loops as the grid: threads, sometimes registers, sometimes clusters
    of 2 or 3 blocks along one grid iterator (their common fills read from L2 once: mostly
    along an iterator that none of `block`, the loop ranges inside and the accesses of the
    first kept tensors, holds; always along `cluster_axis` where given), a raster order,
    and now and then the instructions a block issues."""
    options = [f"threads = {draw(st.sampled_from([128, 32, 256]))}"]
    if draw(st.booleans()):
        options.append("registers = 64")
    if cluster_axis is not None:
        options.append(f"cluster {cluster_axis} = {draw(st.sampled_from([2, 3]))}")
    elif draw(st.booleans()):
        axes = [line.var for line in loops[:count]]
        shared = [axis for axis in axes
                  if not any(re.search(rf"\b{axis}\b", text) for text in block)]
        axis = draw(st.sampled_from(shared if shared and draw(st.integers(0, 3)) else axes))
        options.append(f"cluster {axis} = {draw(st.sampled_from([2, 3]))}")
    raster = draw(st.sampled_from(["", "", "row", "column", "grouped(2)"]))
    if raster:
        options.append(f"raster = {raster}")
    if draw(st.integers(0, 3)) == 0:  # the warp instructions a block issues, as compiled
        options.append(f"instructions = {draw(st.sampled_from(INSTRUCTIONS))}")
    return GridHeader(count, ", ".join(options))


@st.composite
def keep_lines(draw, depth: int, tensors: list[str], focus: str | None = None, first: int = 0
               ) -> dict[int, list[str]]:
    """No keep, one keep, or a keep nested in another (l2 or shared, then shared or
    registers further in), from loop position `first` in: each tensor is kept only in
    faster levels as it goes in. A focus tensor (one that several accesses touch) is kept
    by the first keep, mostly."""
    keeps: dict[int, list[str]] = {}
    count = draw(st.sampled_from([1, 1, 2] if focus else [0, 1, 1, 2]))
    levels = ["l2", "shared", "registers"]
    position = first
    level_floor = 0
    for _ in range(count):
        position = draw(st.integers(position, depth))
        level_index = draw(st.integers(level_floor, len(levels) - 1 - (count - 1)))
        level_floor = level_index + 1
        chosen = draw(st.lists(st.sampled_from(tensors), min_size=1, max_size=2, unique=True))
        if focus and focus not in chosen and draw(st.integers(0, 3)):
            chosen = [focus, *chosen[:1]]
        focus = None
        keeps.setdefault(position, []).append(
            f"keep {', '.join(chosen)} in {levels[level_index]}")
        count -= 1
    return keeps
