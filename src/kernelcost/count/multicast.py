"""Which tensors a thread-block cluster reads from L2 once: a tensor a block fills from L2
that no neighbour along the cluster's axis fills differently (its elements do not move with
the axis, directly, through the lower bounds of the block's loops or through their trip
counts). One L2 read then serves the whole cluster (`parallel(cluster i = 2)`); the count of
the fills is exact unless a block's loop may run zero times, which leaves it an upper
bound."""

from __future__ import annotations

import sympy

from ..base.levels import Level
from ..base.symbols import iterator_symbol
from ..lang.check import CheckedKernel
from .counters import CounterView
from .nest import AccessSite, Nest

# how a block's elements differ from its cluster neighbours' (_moves_with)
MOVES, EMPTIES = "moves", "empties"


def cluster_multicast(checked: CheckedKernel, nest: Nest,
                      grid_depth: int) -> tuple[frozenset[str], bool]:
    """Tensors a block fills from L2 that no cluster neighbour fills differently, and whether
    a fill a cluster is an exact count. The iterator the clusters run along moves none of
    their indices, directly, through the lower bounds of the loops inside the block (`i in
    i0..i0 + T`) or through their trip counts (`j in 0..i0 + 1`), so one L2 read serves the
    whole cluster. None where it bounds another loop of the grid (`for i in 0..M, j in 0..i
    parallel(cluster i = 3)`): neighbours then differ in the blocks they hold."""
    grid = checked.grid
    if grid is None or grid.cluster_axis is None:
        return frozenset(), True
    axis = iterator_symbol(grid.cluster_axis)
    filled = {name for scope in nest.scopes for name in scope.tensors
              if scope.parent_levels[name] == Level.L2}
    grid_loops = nest.accesses[0].loops[:grid_depth] if nest.accesses else ()
    if any(axis in (loop.lo.free_symbols | loop.trips.free_symbols)
           for loop in grid_loops if loop.var != axis):
        return frozenset(), True
    moved: dict[str | None, set[str]] = {MOVES: set(), EMPTIES: set(), None: set()}
    for site in nest.accesses:  # the accesses its fills serve
        if site.tensor in filled and any(scope.parent_levels.get(site.tensor) == Level.L2
                                         for scope in site.scopes):
            moved[_moves_with(site, axis, grid_depth)].add(site.tensor)
    # a block whose loop runs zero times (`k in 0..i0` at i0 = 0) fills nothing, the
    # rest of its cluster one tile alike: read once if any block runs, which no closed
    # form here counts, so a fill a block is an upper bound
    exact = not moved[EMPTIES] - moved[MOVES]
    return frozenset(filled - moved[MOVES] - moved[EMPTIES]), exact


def _moves_with(site: AccessSite, axis: sympy.Symbol, grid_depth: int) -> str | None:
    """MOVES where the elements a block touches through `site` can differ between
    blocks along `axis`: the axis in an index, or in the trip count of a loop whose
    counter the indices use (or that such a trip count uses). A loop the indices do not
    use changes only how often an element is touched, unless it may run zero times
    (EMPTIES: a block touches its neighbours' elements or none): a clipped row tile
    (`i in i0..min(i0 + T, M)`) runs in every block, and leaves B[k, j]'s tile alike
    across a cluster along i0. A keep inside a loop whose range moves with the axis
    fills at steps the blocks do not share. None: every block touches the same."""
    moving = {axis}
    for loop in site.loops[grid_depth:]:
        if (loop.lo.free_symbols | loop.trips.free_symbols) & moving:
            moving.add(loop.var)
    if any(loop.var in moving for scope in site.scopes
           if scope.parent_levels.get(site.tensor) == Level.L2
           for loop in scope.loops[grid_depth:]):
        return MOVES
    view = CounterView(site, grid_depth)
    if any(axis in index.free_symbols for index in view.indices):
        return MOVES
    relevant = set(view.used_counters())
    pending = list(relevant)
    while pending:
        for symbol in view.trips_of[pending.pop()].free_symbols:
            if symbol in view.trips_of and symbol not in relevant:
                relevant.add(symbol)
                pending.append(symbol)
    along = [loop for loop in view.inner if axis in view.trips_of[loop.counter].free_symbols]
    if any(loop.counter in relevant for loop in along):
        return MOVES
    return EMPTIES if any(not loop.never_empty for loop in along) else None
