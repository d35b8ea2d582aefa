"""The stream-K schedule of a grid (lang.stream_k) on one machine: which worker runs which
MAC-loop iterations, the busiest worker's share and the partial tiles' fix-up, in closed form.

What it models, after CUTLASS's sm90 stream-K scheduler (NVIDIA/cutlass commit
7107b05535f8977f5ecb9d01ee203205b1fd9bc4) and Osama et al., "Stream-K: Work-centric
Parallel Decomposition for Dense Matrix-Matrix Multiplication on the GPU" (PPoPP 2023,
arXiv:2301.03598, Algorithm 5: each CTA takes an even share of the iteration space):
- the iterations are the T output tiles' I k-steps each, tile after tile, TI = T x I in all;
  W workers (at most TI: none idle) take them in order, the first TI mod W one more than the
  others (`include/cutlass/gemm/kernel/tile_scheduler_params.h`:1566, big_units_in_ctas =
  k_tiles_per_group % sk_units; `sm90_tile_scheduler_stream_k.hpp`:818-831, "big units ...
  will be the first in the linearized ID space"). The busiest worker runs ceil(TI / W)
  iterations, where a data-parallel grid's busiest SM runs ceil(T / SMs) whole tiles;
- a tile that p workers share costs p - 1 partial tiles written to a global workspace and
  read back: the first peer stores its fp32 accumulators, each middle one reads, adds and
  stores, the last reads and adds before its epilogue (`sm90_tile_scheduler_stream_k.hpp`:
  508-551, `fixup`: BlockStripedReduceT::store, ::reduce, ::load_add); so 2 x (p - 1) x
  TM x TN x 4 B. Summed over tiles, p - 1 is the number of worker boundaries that fall
  inside a tile rather than on a tile's edge (`split_peers`).
CUTLASS's stream-K decomposition is a hybrid (data-parallel waves, then the last one or two
waves' tiles streamed: tile_scheduler_params.h:1066-1108, get_num_sk_tiles); it gives the
same busiest worker and the same boundaries modulo I (its data-parallel part is whole tiles
a worker), so the same fix-up. It is what DecompositionMode::StreamK asks for; the
scheduler's default, Heuristic (sm90_tile_scheduler_stream_k.hpp:201), keeps data-parallel
tiles where the last wave is at least half full (tile_scheduler_params.h:1100-1105), which a
spec then writes without `stream_k`. Not modelled: the groups (at most 8,
tile_scheduler_params.h:470), clusters of units, the eight k-steps a unit must get at least
(min_iters_per_sk_unit_, :467), the fall-back to data-parallel tiles where the tiles fill
their waves or a tile has eight k-steps or fewer, and the wait of the last peer for the
others' partials (which the scheduler shortens by running a unit's tiles from its last,
`sm90_tile_scheduler_stream_k.hpp`:923-931)."""

from __future__ import annotations

import dataclasses
import math

import sympy

from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost, GridCost

Values = dict[sympy.Symbol, sympy.Expr]


@record
class StreamKSplit:
    """A stream-K schedule at numbers (module doc)."""

    tiles: int  # T: output tiles
    iterations: int  # I: k-steps of one tile
    workers: int  # W: workers that get iterations, min(declared or the machine's, T x I)
    busiest: int  # ceil(T x I / W): the busiest worker's iterations
    peers: int  # partial tiles of the fix-up: sum over tiles of the workers on it, less one
    fixup_B: int  # global bytes of the fix-up: each partial tile written and read once


def split_peers(tiles: int, iterations: int, workers: int) -> int:
    """The worker boundaries inside a tile (module doc), in closed form: W - 1 boundaries,
    less those on a multiple of I. Worker w starts at s_w = w u + min(w, r) (u = floor(TI /
    W), r = TI mod W): for w <= r, s_w = w (u + 1), a multiple of I for every I / gcd(u + 1,
    I)-th w; after, s_w = r (u + 1) + j u (j = w - r), on a multiple of I where j u = -r (u +
    1) mod I, a congruence with a solution every I / gcd(u, I) values of j where gcd(u, I)
    divides r (u + 1)."""
    total = tiles * iterations
    workers = min(workers, total)
    u, r = divmod(total, workers)
    aligned = r // (iterations // math.gcd(u + 1, iterations))
    g = math.gcd(u, iterations)
    period, last = iterations // g, workers - 1 - r
    if (r * (u + 1)) % g == 0:
        first = 0 if period == 1 else (-(r * (u + 1)) // g * pow(u // g, -1, period)) % period
        first = first or period  # the smallest positive j
        aligned += (last - first + period) // period
    return workers - 1 - aligned


def stream_k_split(tiles: int, iterations: int, workers: int, partial_B: int) -> StreamKSplit:
    """The schedule of T tiles of I k-steps over W workers, a tile's partials `partial_B`."""
    used = min(workers, tiles * iterations)
    peers = split_peers(tiles, iterations, used)
    return StreamKSplit(tiles, iterations, used, -(-tiles * iterations // used), peers,
                        2 * peers * partial_B)


def stream_k_at(grid: GridCost, resident: sympy.Expr | None, sms: int,
                values: Values) -> StreamKSplit | None:
    """The grid's stream-K schedule at `values` on a machine of `sms` SMs holding `resident`
    blocks each; None without stream-K, with unequal tiles (whose k-steps are not alike), or
    where a figure it needs is no whole number (then the grid is taken as data-parallel)."""
    declared = grid.stream_k
    if declared is None or not grid.equal_blocks:
        return None
    workers = declared.workers
    if workers is None:
        workers = None if resident is None else sms * sympy.sympify(resident)
    figures = [_whole(expr, values) for expr in (grid.blocks, declared.iterations, workers,
                                                 declared.partial_B)]
    if any(figure is None or figure < 1 for figure in figures):
        return None
    tiles, iterations, count, partial_B = (int(figure) for figure in figures)  # type: ignore[arg-type]
    return stream_k_split(tiles, iterations, count, partial_B)


def busiest_sm_tiles(split: StreamKSplit, sms: int) -> sympy.Rational:
    """The tiles' worth of iterations the busiest SM runs: its ceil(W / SMs) workers, each
    the busiest worker's ceil(TI / W) iterations, in tiles of I."""
    return sympy.Rational(-(-split.workers // sms) * split.busiest, split.iterations)


def with_fixup(cost: Cost, split: StreamKSplit | None) -> Cost:
    """The cost with the fix-up's bytes added where they go: written to global memory
    through L2 and read back (module doc); the cost itself without a fix-up."""
    if split is None or split.fixup_B == 0:
        return cost
    traffic = dict(cost.traffic)
    for level in (Level.GLOBAL, Level.L2):
        if level in traffic:
            traffic[level] = sympy.sympify(traffic[level]) + split.fixup_B
    return dataclasses.replace(cost, traffic=traffic)


def _whole(expr: sympy.Expr | None, values: Values) -> int | None:
    if expr is None:
        return None
    value = sympy.sympify(expr).xreplace(values)
    return int(value) if value.is_Integer else None
