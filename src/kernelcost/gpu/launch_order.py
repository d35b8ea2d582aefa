"""The order the hardware hands blocks to SMs, for a grid of unequal blocks: which SM runs
which block, block by block in launch order, and what the busiest SM then runs.

The bound gives the busiest SM what every schedule gives it at least (the largest block, the
mean, the ceil(B / SMs) smallest: module execution). The hardware follows one schedule: it
starts the blocks in launch order, a block on an SM as soon as the SM has a free slot of its
`resident` ones. Where the last blocks launched are the longest (a causal mask's last query
tiles), they start when the others are nearly done and leave a tail the mean does not see.

An SM shares its throughput among the blocks it holds (a block alone gets the whole SM, as
the per-SM roofs assume), so it is never idle while blocks wait: its time is its blocks'
amounts added up, and the busiest SM's is the largest such sum. The first blocks go to the SMs
one each, round the SMs `resident` times; then each ending block's slot takes the next, SMs
freed at the same moment one block each in turn. Block
amounts are integers, and an SM's next ending comes after (its least remaining amount) x
(its blocks) of time: the assignment is exact, in integers."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np


def assignment(durations: Sequence[int], sms: int, resident: int) -> np.ndarray:
    """The SM each block runs on, the blocks in launch order with their amounts of work."""
    placed = np.empty(len(durations), dtype=np.int64)
    held: list[list[int]] = [[] for _ in range(sms)]  # each SM's blocks' remaining amounts
    following = 0

    def fill(free: list[int]) -> None:
        """The next blocks to the SMs' free slots, one an SM a round, the SMs in order."""
        nonlocal following
        for _ in range(resident):
            for sm in free:
                if len(held[sm]) < resident and following < len(durations):
                    held[sm].append(int(durations[following]))
                    placed[following] = sm
                    following += 1

    fill(list(range(sms)))
    endings = [(min(blocks) * len(blocks), sm) for sm, blocks in enumerate(held) if blocks]
    heapq.heapify(endings)
    while endings and following < len(durations):
        now, freed = endings[0][0], []
        while endings and endings[0][0] == now:  # SMs freed at once share the next blocks
            _, sm = heapq.heappop(endings)
            least = min(held[sm])
            held[sm] = [left - least for left in held[sm] if left > least]
            freed.append(sm)
        fill(sorted(freed))
        for sm in freed:
            if held[sm]:
                heapq.heappush(endings, (now + min(held[sm]) * len(held[sm]), sm))
    return placed


def busiest_sum(amounts: Sequence[int], placed: np.ndarray, sms: int) -> int:
    """The most any SM runs of a per-block amount under an assignment (exact integers)."""
    sums = [0] * sms
    for amount, sm in zip(amounts, placed.tolist(), strict=True):
        sums[sm] += int(amount)
    return max(sums)
