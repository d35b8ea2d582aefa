"""A split-K grid at one split: the grid of the unsplit kernel. lang.split_k makes the split
an iterator of the grid (the outermost), which a symbolic split (`tune` varying `split_k`)
keeps at every value; at a split of 1 it runs once, at 0, and the grid is the unsplit one.
Taking it out there gives the unsplit kernel's own figures by its own path: a grouped raster
of two axes, whose waves repeat with a period (gpu.wave_periods), where a batch axis, even of
one, has every wave evaluated."""

from __future__ import annotations

import dataclasses

import sympy

from ..count.cost import GridCost

Values = dict[sympy.Symbol, sympy.Expr]


def unsplit(grid: GridCost, values: Values) -> GridCost:
    """The grid without its split iterator where the split is 1 at `values`; else itself."""
    if grid.split_iterator is None or grid.split_iterator not in grid.iterators:
        return grid
    if sympy.sympify(grid.split).xreplace(values) != 1:
        return grid
    k = grid.iterators.index(grid.split_iterator)
    at = {grid.split_iterator: grid.lower_bounds[k]}

    def kept(items: tuple) -> tuple:
        return tuple(sympy.sympify(item).xreplace(at) for i, item in enumerate(items) if i != k)

    def box(pairs: tuple) -> tuple:
        return tuple((sympy.sympify(low).xreplace(at), sympy.sympify(high).xreplace(at))
                     for low, high in pairs)

    tiles = tuple(dataclasses.replace(tile, whole=box(tile.whole), per_step=box(tile.per_step),
                                      written=box(tile.written)) for tile in grid.tiles)
    return dataclasses.replace(
        grid, iterators=tuple(it for i, it in enumerate(grid.iterators) if i != k),
        trips=kept(grid.trips), lower_bounds=kept(grid.lower_bounds), steps=kept(grid.steps),
        work={key: sympy.sympify(v).xreplace(at) for key, v in grid.work.items()},
        traffic={key: sympy.sympify(v).xreplace(at) for key, v in grid.traffic.items()},
        tiles=tiles, split_iterator=None)
