"""The issue effect: a thread's memory instructions against the SM's instruction issue.

Each load or store a thread issues takes one issue slot of its warp's scheduler, whatever
its width; an SM issues `issue_per_clock_per_sm` warp instructions a clock (the machine
file's figure), the memory instructions among them. A kernel moving its bytes in narrow
loads issues more of them:

    instructions = blocks x sum over the tensors a block touches of
                   (its box's bytes / the width of one load) / warp size
    t_issue      = instructions / (SMs x issue_per_clock_per_sm x max clock)

The width is the spec's `width` (lang.parallel), else the load the latency effect takes (the
element, or a vector of up to 16 B where a thread reads several elements). Each element of a
block's boxes is counted once: a tensor read twice issues at least these, so t_issue is the
least the memory instructions take, the other instructions (address arithmetic, the FLOP)
left out. Where a spec states `instructions` (the warp instructions one block issues, counted
off its compiled code), all of them are counted, on the SM that runs the most blocks:

    t_issue = ceil(blocks / SMs) x instructions / (issue_per_clock_per_sm x max clock)

Where t_issue exceeds the global term's time before any derate, the global bandwidth is
scaled by that time / t_issue. A kernel that states its instructions but moves no global byte
(its blocks work in shared memory and registers) has no global rate to scale: its longest
term is scaled instead, so that t_model counts the instructions there too. No figure is
fitted."""

from __future__ import annotations

from typing import ClassVar

import sympy

from ...base.kinds import EffectCause, TermKey
from ...base.levels import Level
from ...base.records import record
from ...base.sentences import Sentence
from ...count.cost import Cost
from ...count.values import exact
from ...hardware.machine import Machine
from ..derates import At, Derate, Term, outlasts
from .context import ROOFS, EffectContext
from .latency import one_load

ISSUE = EffectCause("issue")


@record
class IssueFinding:
    """The memory instructions of a kernel at the SMs' issue rate, over its global term."""

    sentence: ClassVar[Sentence] = Sentence(
        "its threads issue {instructions} warp memory instructions ({narrowest_B:B} the "
        "narrowest, of {tensor}); at {per_clock} a clock on each of {sms} SMs they take "
        "{issue_s:s}, over the global term's {global_s:s}")

    instructions: sympy.Expr  # warp memory instructions over the kernel
    tensor: str  # the tensor of the narrowest loads
    narrowest_B: sympy.Expr  # their width
    per_clock: int  # warp instructions an SM issues a clock
    sms: int
    issue_s: sympy.Expr  # t_issue
    global_s: sympy.Expr  # the global term's time before any derate


@record
class StatedIssueFinding:
    """The instructions a spec states a block issues, on the busiest SM, over its global
    term."""

    sentence: ClassVar[Sentence] = Sentence(
        "its blocks issue {instructions} warp instructions each, as compiled; the busiest SM "
        "runs {blocks} of them, at {per_clock} a clock in {issue_s:s}, over the global "
        "term's {global_s:s}")

    instructions: sympy.Expr  # warp instructions one block issues (`instructions`)
    blocks: sympy.Expr  # blocks the busiest SM runs
    per_clock: int  # warp instructions an SM issues a clock
    issue_s: sympy.Expr  # t_issue
    global_s: sympy.Expr  # the global term's time before any derate


@record
class StatedIssueOverTermFinding:
    """The instructions a spec states a block issues, on the busiest SM, over the longest
    term of a kernel that moves no global byte."""

    sentence: ClassVar[Sentence] = Sentence(
        "its blocks issue {instructions} warp instructions each, as compiled, and move no "
        "global byte; the busiest SM runs {blocks} of them, at {per_clock} a clock in "
        "{issue_s:s}, over the {term} term's {term_s:s}, the kernel's longest")

    instructions: sympy.Expr  # warp instructions one block issues (`instructions`)
    blocks: sympy.Expr  # blocks the busiest SM runs
    per_clock: int  # warp instructions an SM issues a clock
    issue_s: sympy.Expr  # t_issue
    term: TermKey  # the longest term's: a work class or an on-chip level
    term_s: sympy.Expr  # its time before any derate


class Issue:
    """A kernel's memory instructions at the issue rate, where they outlast its global term
    (or, stated and with no global byte, its longest term)."""

    name = ISSUE
    stage = ROOFS
    findings = (IssueFinding, StatedIssueFinding, StatedIssueOverTermFinding)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        global_term = next((term for term in context.terms if term.key == Level.GLOBAL), None)
        stated = stated_issue(context.cost, context.machine, context.at)
        if stated is not None:
            return _stated(context, global_term, *stated)
        if global_term is None:
            return ()
        found = issue_time(context.cost, context.machine, context.at)
        if found is None:
            return ()
        instructions, tensor, narrowest, t_issue = found
        global_s = context.at(global_term.seconds)
        if not outlasts(t_issue, global_s):
            return ()
        per_clock = context.machine.execution.issue_per_clock_per_sm
        assert per_clock is not None  # issue_time gives None without it
        return (Derate(ISSUE, global_s / t_issue,
                       IssueFinding(instructions, tensor, narrowest, per_clock,
                                    context.machine.sm_count, t_issue, global_s),
                       Level.GLOBAL),)


def _stated(context: EffectContext, global_term: Term | None, blocks: sympy.Expr,
            t_issue: sympy.Expr) -> tuple[Derate, ...]:
    """The stated instructions over the global term, or, where the kernel moves no global
    byte (no global term, or one of no time), over its longest term."""
    per_clock = context.machine.execution.issue_per_clock_per_sm
    assert per_clock is not None and context.cost.grid is not None  # stated_issue
    instructions = context.at(context.cost.grid.instructions)
    global_s = None if global_term is None else context.at(global_term.seconds)
    if global_s is not None and not global_s.is_zero:
        if not outlasts(t_issue, global_s):
            return ()
        return (Derate(ISSUE, global_s / t_issue,
                       StatedIssueFinding(instructions, blocks, per_clock, t_issue, global_s),
                       Level.GLOBAL),)
    timed = [(context.at(term.seconds), term) for term in context.terms]
    timed = [(seconds, term) for seconds, term in timed if seconds.is_number and seconds > 0]
    if not timed:
        return ()
    longest_s, longest = max(timed, key=lambda pair: pair[0])  # the first of a tie
    if not outlasts(t_issue, longest_s):
        return ()
    return (Derate(ISSUE, longest_s / t_issue,
                   StatedIssueOverTermFinding(instructions, blocks, per_clock, t_issue,
                                              longest.key, longest_s), longest.key),)


def stated_issue(cost: Cost, machine: Machine, at: At) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(the busiest SM's blocks, t_issue) of a spec that states its blocks' instructions, at
    numeric sizes; None where it states none or a figure is missing."""
    grid = cost.grid
    per_clock = machine.execution.issue_per_clock_per_sm
    if (grid is None or grid.instructions is None or per_clock is None
            or machine.max_clock_Hz is None):
        return None
    blocks, instructions = at(grid.blocks), at(grid.instructions)
    if not (blocks.is_number and instructions.is_number):
        return None
    busiest = sympy.ceiling(blocks / machine.sm_count)
    return busiest, busiest * instructions / (per_clock * exact(machine.max_clock_Hz))


def issue_time(cost: Cost, machine: Machine, at: At) -> tuple[
        sympy.Expr, str, sympy.Expr, sympy.Expr] | None:
    """(warp memory instructions, the tensor of the narrowest loads, their width, t_issue) of a
    parallel spec at numeric sizes; None where a figure is missing (no issue rate or clock in
    the machine file, a warp size, symbolic sizes, unequal blocks)."""
    grid = cost.grid
    per_clock, warp = machine.execution.issue_per_clock_per_sm, machine.execution.warp_size
    if grid is None or per_clock is None or warp is None or machine.max_clock_Hz is None:
        return None
    blocks = at(grid.blocks)
    if not blocks.is_number:  # an unset size: no count of instructions, whatever the tiles
        return None
    threads = at(grid.threads)
    stated = dict(grid.widths)
    per_block, widths = sympy.Integer(0), []
    for tile in grid.tiles:
        elements = at(sympy.Mul(*(last - first + 1 for first, last in tile.whole)))
        element = at(tile.element_bytes)
        if not (elements.is_number and element.is_number and threads.is_number):
            return None
        width = stated.get(tile.tensor, one_load(element, elements, threads))
        per_block += elements * element / width
        widths.append((width, tile.tensor))
    if not widths:
        return None
    instructions = blocks * per_block / warp
    narrowest, tensor = min(widths)
    t_issue = instructions / (machine.sm_count * per_clock * exact(machine.max_clock_Hz))
    return instructions, tensor, narrowest, t_issue
