"""What the grid and the lanes read of the count of a nest (spec_count's counter): a protocol,
so that blocks and lanes, which spec_count calls, never import it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import sympy

from ..lang.check import CheckedKernel
from .footprint import Footprints
from .loops import Loop
from .nest import Nest


class NestCount(Protocol):
    checked: CheckedKernel
    nest: Nest
    footprint: Footprints
    grid_depth: int  # the grid's iterators: the outermost loops of a parallel spec
    multicast: frozenset[str]  # tensors a cluster fills once for all its blocks

    def finish(self, expr: sympy.Expr) -> sympy.Expr: ...

    def executions(self, loops: Sequence[Loop]) -> sympy.Expr: ...

    def work(self, depth: int = 0) -> dict[str, sympy.Expr]: ...

    def traffic(self, depth: int = 0) -> dict[str, sympy.Expr]: ...
