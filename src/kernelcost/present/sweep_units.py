"""The units of a sweep's contractions, size by size: a contraction whose tile the swept size
sets (a decode GEMV over the batch b) runs on the tensor units where the tile reaches the MMA
minimum and on the vector FMA units where it does not, as `analyze` decides at each size
(mma.on_units). The sweep counts its multiply-adds in class `fma` at the sizes under it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy
import sympy

from ..base.kinds import WorkClass
from ..count.cost import Contraction, Cost
from ..count.mma import on_units, tile_at
from ..count.values import evaluate
from ..lang.work import MMA_MINIMUM, meets_mma_minimum


class SweptUnits:
    """The contractions of `cost` that the swept size moves between units."""

    def __init__(self, cost: Cost, symbol: sympy.Symbol, values: Mapping,
                 vectorized: Callable[[sympy.Expr, sympy.Symbol], Callable]):
        """`cost` counted; `values`: every other size (defaults included); `vectorized`
        turns a closed form in `symbol` into a numpy function (sweep.vectorized)."""
        self.cost = on_units(cost, values)  # the contractions the other sizes decide
        self.symbol = symbol
        self.values = dict(values)
        self.moving = []
        for contraction in self.cost.contractions:
            work = evaluate(contraction.work, values)
            # a size left unset: the sweep refuses it by name (sweep.closed_forms)
            if contraction.unit == WorkClass.TENSOR and contraction.named is None \
                    and not work.free_symbols - {symbol}:
                self.moving.append((contraction, vectorized(work, symbol),
                                    self._tile_function(contraction, vectorized)))

    def __call__(self, sizes: numpy.ndarray,
                 work_by_class: dict[str, numpy.ndarray]) -> dict[str, numpy.ndarray]:
        """work_by_class with each moving contraction's FLOP taken from tensor to fma at the
        sizes where its tile is under the minimum."""
        if not self.moving:
            return work_by_class
        result = dict(work_by_class)
        for _, work, tile in self.moving:
            under = tile(sizes)
            if not under.any():
                continue
            amount = numpy.where(under, numpy.broadcast_to(work(sizes), sizes.shape), 0.0)
            result[WorkClass.TENSOR] = (result.get(WorkClass.TENSOR, numpy.zeros_like(sizes))
                                        - amount)
            result[WorkClass.FMA] = result.get(WorkClass.FMA, numpy.zeros_like(sizes)) + amount
        return {name: result[name] for name in WorkClass if name in result}

    def _tile_function(self, contraction: Contraction, vectorized
                       ) -> Callable[[numpy.ndarray], numpy.ndarray]:
        """sizes -> whether the tile is under the minimum there."""
        trips = [[evaluate(trip, self.values) for trip in axis] for axis in contraction.trips]
        iterators = {loop[0] for loop in contraction.loops}
        if any(trip.free_symbols & iterators for axis in trips for trip in axis):
            return lambda sizes: self._one_by_one(contraction, sizes)
        if any(trip.free_symbols - {self.symbol} for axis in trips for trip in axis):
            # a size left unset: the sweep refuses it by name (sweep.closed_forms); until then
            # the contraction stays on the tensor units
            return lambda sizes: numpy.zeros(numpy.shape(sizes), dtype=bool)
        functions = [[vectorized(trip, self.symbol) for trip in axis] for axis in trips]

        def under(sizes: numpy.ndarray) -> numpy.ndarray:
            m, n, k = (numpy.prod([numpy.broadcast_to(f(sizes), sizes.shape) for f in axis],
                                  axis=0) for axis in functions)
            longer, shorter, depth = MMA_MINIMUM
            reaches = ((numpy.maximum(m, n) >= longer) & (numpy.minimum(m, n) >= shorter)
                       & (k >= depth))
            return ~reaches

        return under

    def _one_by_one(self, contraction: Contraction, sizes: numpy.ndarray) -> numpy.ndarray:
        """The rule at each size (a tile that moves with outer iterators); a tile that cannot
        be told stays on the tensor units, as on_units leaves it."""
        under = numpy.zeros(sizes.shape, dtype=bool)
        for position, size in enumerate(sizes):
            values = {**self.values, self.symbol: sympy.Integer(round(float(size)))}
            tile = tile_at(contraction, values)
            under[position] = tile is not None and not meets_mma_minimum(*tile)
        return under
