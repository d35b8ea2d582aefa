"""Stage: the steps of a chunked prefill (`kernelcost model --chunk C`), as data: which
prompts' tokens each step takes, first come first served, C tokens a step (chunked.py times
them). Kept apart from chunked.py so that a WholeModel can hold a plan without importing the
composition that builds on it."""

from __future__ import annotations

import math
from collections import Counter

from ..base.errors import Code, Diagnostic, SizeError
from ..base.records import record

MAX_CHUNKS = 100_000  # steps of one batch's prefill composed; more is refused at --chunk


@record
class Segment:
    """One prompt's part of a step: `tokens` new tokens after `prefix` already cached."""

    prefix: int
    tokens: int


@record
class Chunk:
    """One step of the chunked prefill: its segments, one a prompt it touches, in order."""

    segments: tuple[Segment, ...]

    @property
    def tokens(self) -> int:
        return sum(segment.tokens for segment in self.segments)

    def shape(self) -> tuple[tuple[Segment, int], ...]:
        """The segments as a multiset: steps of the same shape cost the same."""
        return tuple(sorted(Counter(self.segments).items(),
                            key=lambda item: (item[0].prefix, item[0].tokens)))


@record
class ChunkShape:
    """The steps of one shape: one of them, how many there are, and what one takes."""

    chunk: Chunk
    count: int
    t_bound_s: float
    t_model_s: float
    launch_s: float


@record
class ChunkedPrefill:
    """A batch's prefill in steps of at most `budget` tokens, its steps grouped by shape."""

    batch: int
    budget: int
    chunks: tuple[Chunk, ...]
    shapes: tuple[ChunkShape, ...]

    @property
    def t_model_s(self) -> float:
        return sum(shape.t_model_s * shape.count for shape in self.shapes)


def chunk_count(batch: int, prompt: int, budget: int) -> int:
    return math.ceil(batch * prompt / budget)


def check_budget(batch: int, prompt: int, budget: int) -> None:
    """Refuse, naming --chunk, a plan of more than MAX_CHUNKS steps (before any work)."""
    steps = chunk_count(batch, prompt, budget)
    if steps > MAX_CHUNKS:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--chunk {budget}: batch {batch} x context {prompt} is {steps:,} steps; at "
                  f"most {MAX_CHUNKS:,} are composed",
            f"a --chunk of {math.ceil(batch * prompt / MAX_CHUNKS):,} tokens or more"))


def plan(batch: int, prompt: int, budget: int) -> tuple[Chunk, ...]:
    """The steps of b prompts of P tokens at C tokens a step, first come first served."""
    check_budget(batch, prompt, budget)
    chunks, segments, room = [], [], budget
    for _ in range(batch):
        done = 0
        while done < prompt:
            take = min(room, prompt - done)
            segments.append(Segment(done, take))
            done, room = done + take, room - take
            if room == 0:
                chunks.append(Chunk(tuple(segments)))
                segments, room = [], budget
    if segments:
        chunks.append(Chunk(tuple(segments)))
    return tuple(chunks)
