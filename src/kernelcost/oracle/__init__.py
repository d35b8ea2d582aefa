"""The oracle: run a checked kernel's loop nest at concrete sizes and count, by enumeration, the
quantities that the count package derives in closed form: work by class, bytes per level,
footprints per tensor and, for every keep scope, the distinct elements filled and written back
at each entry.

It is the test oracle for every closed form, so it shares nothing with the count package's
summation or footprint logic: it only reads the syntax tree, the checked kernel and the FLOP
rules (lang/work.py), and it counts with plain Python ints and Fractions. Each bound and index
is turned once into a closure (sizes folded in as constants); the loop nest then runs with
iterator values in a dict.

    enumerate_counts(kernel, sizes, reuse) -> Counts      the enumeration
    comparisons(cost, counts)              -> [Comparison] closed forms evaluated against it
    compare(cost, counts)                  -> [Mismatch]  the comparisons that fail
    sample_sizes(kernel, count, rng)       -> [sizes]     small sizes meeting the assumptions
    draw_sizes(kernel, pick)               -> sizes       one draw of them (divisibility met)
    enumerate_lanes(kernel, sizes)         -> [LaneCounts] sectors and bank wavefronts of
                                                           every warp of the `lanes` loops

The counting rules are those of DESIGN.md; where the oracle had to settle a detail it says so
at the place (scalar tensors, the accumulation skip, per-entry fills of nested scopes).

Independence, on purpose: the oracle shares the FLOP rules (work.statement_work) and the
checked kernel with the counting code, and nothing else. It must never import count, nest,
facts, sums or footprint: a closed form and its check that share a mistake would agree.

Floor 4 of kernelcost.layers; may import: base, algebra, lang, frontend, count.
"""

from .compare import compare, comparisons, evaluate
from .enumerate import enumerate_counts
from .exprs import resolve_sizes
from .grid_blocks import BlockCounts
from .results import Comparison, Counts, Mismatch, ScopeCounts, ScopeEntry
from .sample import assumptions_hold, count_steps, draw_sizes, sample_sizes, tile_like_sizes
from .warp_lanes import LaneCounts, enumerate_lanes

__all__ = ["BlockCounts", "Comparison", "Counts", "LaneCounts", "Mismatch", "ScopeCounts",
           "ScopeEntry", "assumptions_hold", "compare", "comparisons", "count_steps",
           "draw_sizes", "enumerate_counts", "enumerate_lanes", "evaluate", "resolve_sizes",
           "sample_sizes", "tile_like_sizes"]
