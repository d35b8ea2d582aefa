"""The accesses of `lanes` loops, and what one warp instruction of each costs, in closed form.

Inside a thread block, a `lanes` loop hands consecutive iterations to consecutive lanes: a warp
instruction is 32 consecutive iterations of it, the other iterators fixed. An affine index then
puts consecutive lanes a fixed number of bytes apart (the stride, from the index's slope along
the lanes iterator and the tensor's row-major layout), and from that stride alone:

- global memory: the L1<->L2 link moves whole 32-byte sectors. A warp whose lanes sit s bytes
  apart (first address aligned) touches ceil((31 s + e) / 32) sectors when s < 32 (the lanes
  leave no sector of the span untouched) and 32 when s >= 32 (each lane its own sector); for
  4-byte elements that is 4 sectors (128 B, coalesced) up to 32 (1024 B for 128 B useful: 8x).
- shared memory: 32 banks of 4-byte words; lanes reading distinct words of one bank are served
  one after another (a word read by several lanes is a broadcast). 8- and 16-byte accesses run
  in phases of 16 and 8 lanes. With element stride k (k != 0) and w words an element, a phase
  of L = 32 / w lanes puts gcd(k, L) lanes on each bank it uses: the conflict degree. A 32 x 32
  f32 tile read down a column (k = 32) is 32-way; rows padded to 33 (k = 33) are conflict-free;
  a bf16 column (k = 32 half-words, 16 words) is 16-way. An XOR-swizzled row layout stores word
  c of row r at c XOR (r mod 32): a column read then meets 32 distinct banks, but every
  other row of a column meets 16 (2-way) and a diagonal one (32-way); a swizzled warp is
  counted lane by lane, from an aligned start (row 0, word 0) as sectors are.

The oracle (oracle/lanes.py) checks these by enumerating every lane of every warp."""

from __future__ import annotations

from math import ceil, gcd
from typing import TYPE_CHECKING

import sympy

from ..base.levels import Level
from ..base.symbols import derivative
from .cost import LaneAccess
from .loops import Loop
from .nest import AccessSite

if TYPE_CHECKING:
    from ..lang.check import CheckedKernel
    from .counting import NestCount

WARP = 32  # lanes
SECTOR_B = 32  # bytes the L1<->L2 link moves at a time
BANKS = 32
WORD_B = 4  # bytes a shared bank serves a clock
PHASE_B = 128  # bytes of requests shared memory serves in one wavefront (32 banks x 4 B)


def lane_accesses(counter: NestCount) -> tuple[LaneAccess, ...]:
    """Every global or shared access inside a `lanes` loop (spec_count._Counter's nest)."""
    found = []
    for site in counter.nest.accesses:
        lanes_loop = next((loop for loop in site.loops if loop.lanes), None)
        level = _served_at(counter.checked, site)
        if lanes_loop is None or level is None:
            continue
        tensor = counter.checked.tensors[site.tensor]
        stride = _stride_elements(site, lanes_loop)
        found.append(LaneAccess(
            text=_text(site, counter.checked.kernel.source), tensor=site.tensor,
            is_write=site.is_write, level=level,
            element_bytes=tensor.element_bytes,
            stride_bytes=counter.finish(stride * tensor.element_bytes),
            lanes=counter.finish(lanes_loop.trips),
            executions=counter.finish(counter.executions(site.loops)),
            tensor_elements=counter.finish(sympy.Mul(*site.extent)),
            swizzled_row_bytes=(counter.finish(site.extent[-1] * tensor.element_bytes)
                                if tensor.swizzled else None),
        ))
    return tuple(found)


def _served_at(checked: CheckedKernel, site: AccessSite) -> Level | None:
    """global (through L1 and L2) or shared; None for registers."""
    level = site.scopes[-1].level if site.scopes else checked.tensors[site.tensor].level
    if level in (Level.GLOBAL, Level.L2):
        return Level.GLOBAL
    return Level.SHARED if level == Level.SHARED else None


def _stride_elements(site: AccessSite, lanes_loop: Loop) -> sympy.Expr:
    """Elements between the addresses of consecutive lanes: the slope of the row-major offset
    along the lanes iterator, times the loop's step."""
    offset, row = sympy.Integer(0), sympy.Integer(1)
    for index, extent in zip(reversed(site.indices), reversed(site.extent)):
        offset += index * row
        row *= extent
    return sympy.expand(derivative(offset, lanes_loop.var) * lanes_loop.step)


def _text(site: AccessSite, source: str) -> str:
    """The access as the spec writes it, or as sympy prints it where the span is unknown."""
    span = site.span
    if span is not None and span.line == span.end_line:
        return source.split("\n")[span.line - 1][span.column - 1:span.end_column - 1]
    if not site.indices:
        return site.tensor
    return f"{site.tensor}[{', '.join(str(index) for index in site.indices)}]"


# --- one warp instruction, in closed form -------------------------------------------------

def sectors_per_warp(stride_B: int, element_B: int, lanes: int = WARP) -> int:
    """32-byte sectors `lanes` lanes touch, `stride_B` bytes apart, the first one aligned."""
    stride_B = abs(stride_B)
    per_element = ceil(element_B / SECTOR_B)
    if lanes <= 0:
        return 0
    if stride_B == 0:
        return per_element
    if stride_B >= SECTOR_B:
        return lanes * per_element
    return ceil(((lanes - 1) * stride_B + element_B) / SECTOR_B)


def bank_wavefronts(stride_B: int, element_B: int, lanes: int = WARP,
                    swizzled_row_B: int | None = None) -> int:
    """Shared-memory wavefronts one warp instruction takes: per phase, the most distinct
    4-byte words that fall into one bank (1 when none conflict)."""
    stride_B = abs(stride_B)
    words_per_element = max(1, element_B // WORD_B)
    per_phase = WARP // words_per_element
    phases = ceil(lanes / per_phase)
    if lanes <= 0:
        return 0
    if stride_B == 0:
        return phases  # one word (or element) for every lane: a broadcast
    if swizzled_row_B is not None and swizzled_row_B % (BANKS * WORD_B) == 0:
        return _swizzled_wavefronts(stride_B, element_B, lanes, per_phase, swizzled_row_B)
    if element_B < WORD_B and stride_B % WORD_B != 0:
        return _subword_degree(stride_B, element_B, lanes)
    step = stride_B // WORD_B // words_per_element if element_B >= WORD_B else \
        stride_B // WORD_B
    shared_bank = gcd(step, per_phase)
    full, rest = divmod(lanes, per_phase)
    return full * shared_bank + ceil(rest * shared_bank / per_phase)


def _subword_degree(stride_B: int, element_B: int, lanes: int) -> int:
    """Elements narrower than a word at a stride that is no whole number of words: lanes share
    some words and spread over others; the words of one warp, bank by bank."""
    words: dict[int, set[int]] = {}
    for lane in range(lanes):
        word = lane * stride_B // WORD_B
        words.setdefault(word % BANKS, set()).add(word)
    return max(len(found) for found in words.values())


def _swizzled_wavefronts(stride_B: int, element_B: int, lanes: int, per_phase: int,
                         row_B: int) -> int:
    """Lanes `stride_B` apart from the start of a row, in rows of `row_B` bytes that keep
    word w of row r at w XOR (r mod 32): per phase, the most distinct words in one bank.
    The XOR moves words, not banks, only where it depends on the lane (rows change)."""
    words_per_row = row_B // WORD_B
    total = 0
    for first in range(0, lanes, per_phase):
        banks: dict[int, set[int]] = {}
        for lane in range(first, min(lanes, first + per_phase)):
            row, in_row = divmod(lane * stride_B, row_B)
            word = row * words_per_row + (in_row // WORD_B ^ row % BANKS)
            banks.setdefault(word % BANKS, set()).add(word)
        total += max(len(words) for words in banks.values())
    return total


def bank_degree(stride_B: int, element_B: int, lanes: int = WARP,
                swizzled_row_B: int | None = None) -> sympy.Rational:
    """Wavefronts over those a conflict-free instruction takes: 32 for a 32-way conflict."""
    ideal = ceil(lanes * element_B / PHASE_B) if element_B >= WORD_B else 1
    return sympy.Rational(bank_wavefronts(stride_B, element_B, lanes, swizzled_row_B), ideal)
