"""The warp instructions one warp issues along its path through a SASS listing
(validate/sass/*.sass: `ADDRESS INSTRUCTION` a line, as cuobjdump -sass prints them, address
in hex). A specification's `instructions` is read off such a count.

Each conditional branch is decided by a rule (its address -> taken or not; a loop's back edge
-> how many times it is taken; or a tuple, taken or not at each visit in turn); without a
rule, two kinds decide themselves:
- a branch just before `BRA.DIV` guards the second level of a block reduction, which warp 0
  alone runs: taken (skipped) by every other warp;
- a branch within a few instructions after `FCHK` leaves an IEEE division's slow path
  (denormals, infinities): taken, the fast path.
Any other conditional branch without a rule takes `otherwise` where given (False: every
bounds check of a kernel whose elements are all in range falls through), else is an error.

`loads_before_use` reads what a thread keeps in flight in one trip of a loop: the global loads
it issues from the loop's head before an instruction reads what one of them loaded."""

from __future__ import annotations

import re
from pathlib import Path

FCHK_REACH = 9  # instructions between a division's FCHK and its branch, at most (as compiled)
PREDICATE = re.compile(r"^@!?U?P\w+ ")
REGISTER = re.compile(r"\bR(\d+)\b")
LOAD_BYTES = {"64": 8, "128": 16, "U16": 2, "S16": 2, "U8": 1, "S8": 1}  # else 32-bit


def load(path: Path) -> list[tuple[int, str]]:
    rows = []
    for line in path.read_text().splitlines():
        address, _, instruction = line.strip().partition(" ")
        rows.append((int(address, 16), instruction.strip()))
    return rows


def opcode(instruction: str) -> str:
    return PREDICATE.sub("", instruction).split()[0]


Rules = dict[int, bool | int | tuple[bool, ...]]


def warp_instructions(rows: list[tuple[int, str]], rules: Rules,
                      warp0: bool, otherwise: bool | None = None) -> int:
    """The instructions one warp issues from the first line to an EXIT it reaches."""
    index = {address: i for i, (address, _) in enumerate(rows)}
    taken: dict[int, int] = {}
    i = count = 0
    while True:
        address, instruction = rows[i]
        count += 1
        op, guarded = opcode(instruction), instruction.startswith("@")
        if op == "EXIT" and (not guarded or rules.get(address) is True):
            return count
        branch = op.startswith("BRA") and not op.startswith("BRA.DIV")
        if branch and (not guarded or _taken(rows, i, rules, taken, warp0, otherwise)):
            i = index[int(re.search(r"0x([0-9a-f]+)", instruction).group(1), 16)]
            continue
        i += 1


def block_instructions(rows: list[tuple[int, str]], rules: Rules,
                       warps: int, otherwise: bool | None = None) -> int:
    """Warp 0's instructions and the other warps': what one block issues."""
    return (warp_instructions(rows, rules, True, otherwise)
            + (warps - 1) * warp_instructions(rows, rules, False, otherwise))


def _taken(rows, i: int, rules: Rules, taken: dict[int, int],
           warp0: bool, otherwise: bool | None) -> bool:
    address, instruction = rows[i]
    rule = rules.get(address)
    if isinstance(rule, bool):
        return rule
    if isinstance(rule, int):
        taken[address] = taken.get(address, 0) + 1
        return taken[address] <= rule
    if isinstance(rule, tuple):
        taken[address] = taken.get(address, 0) + 1
        return rule[taken[address] - 1]
    if "BRA.DIV" in rows[i + 1][1] + rows[i + 2][1]:
        return not warp0
    if any("FCHK" in rows[j][1] for j in range(max(0, i - FCHK_REACH), i)):
        return True
    if otherwise is not None:
        return otherwise
    raise ValueError(f"no rule for the branch at {address:#06x}: {instruction}")


def loads_before_use(rows: list[tuple[int, str]], back_edge: int) -> list[int]:
    """The bytes of each global load (LDG) one trip of the loop closed by the branch at
    `back_edge` issues before any instruction reads a register those loads write."""
    index = {address: i for i, (address, _) in enumerate(rows)}
    head = index[int(re.search(r"0x([0-9a-f]+)", rows[index[back_edge]][1]).group(1), 16)]
    loads: list[int] = []
    loaded: set[int] = set()
    for _, instruction in rows[head:index[back_edge]]:
        op = opcode(instruction)
        operands = PREDICATE.sub("", instruction).split(None, 1)[1]
        written, _, read = operands.partition(",")
        if op.startswith("LDG"):
            size = next((b for part, b in LOAD_BYTES.items() if part in op.split(".")), 4)
            first = int(REGISTER.search(written).group(1))
            loaded.update(range(first, first + max(1, size // 4)))
            loads.append(size)
            continue
        sources = operands if op.startswith("ST") else read
        if loaded & {int(r) for r in REGISTER.findall(sources)}:
            break
    return loads
