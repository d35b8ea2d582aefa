"""The parts of a generated kernel (tests/nestgen.py writes them): the head (sizes, `assume`
facts, steps and tiles), its loop lines, the `parallel(...)` header of a grid, and the Nest
that assembles them into .kcost text. Kept apart from the strategies, so that a known case
can be written in the same parts (test_properties.known_nest)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Head:
    """The kernel's parameters and `assume` lines, the positive size expressions that may be
    loop steps, and the tile sizes (the steps of tile pairs)."""

    params: list[str]
    facts: list[str]  # the text of each `assume` line
    steps: list[str]
    tiles: list[str]

    @property
    def wide(self) -> str:
        """An extent every index the generator writes stays below: indices are at most two
        iterators, each below max(N, M) plus two tiles plus 3."""
        return " + ".join(f"4 * {param}" for param in self.params) + " + 8"

    @property
    def aligned_wide(self) -> str:
        """A wide extent of whole 32-byte sectors of f32 (a multiple of 8), with room for a
        lanes iterator below N + 30, doubled."""
        return " + ".join(f"8 * {param}" for param in self.params) + " + 64"


@dataclass
class LoopLine:
    var: str
    range: str  # `v in lo..hi [by s] [lanes]`
    at_least_one: bool  # the iterator is >= 1 everywhere: `v - 1` stays inside the tensor
    lanes: bool = False  # its iterations go to the lanes of a warp


@dataclass
class GridHeader:
    """The `parallel(...)` header of a nest that runs as thread blocks."""

    loops: int  # the outermost loops that form the grid, written in one header
    options: str  # `threads = 128, cluster i0 = 2`


@dataclass
class Nest:
    """A generated kernel, kept as parts so that a failure prints readable text."""

    head: Head
    loops: list[LoopLine]
    keeps: dict[int, list[str]]  # loop position (0 outermost, len(loops) innermost) -> keeps
    inner: list[str]  # statements in the innermost body
    after: dict[int, str]  # loop position -> a statement after the loop at that position
    roles: dict[str, str]
    ranks: dict[str, int]
    settings: list[str]  # `reuse none`
    merged: frozenset[int] = frozenset()  # loops written in the header of the loop outside
    grid: GridHeader | None = None
    block_lets: list[str] = field(default_factory=list)  # local arrays of each thread block

    @property
    def has_lanes(self) -> bool:
        return any(loop.lanes for loop in self.loops)

    def text(self) -> str:
        lines = [f"kernel generated({', '.join(self.head.params)}) {{",
                 *("    " + line for line in self.settings + self.head.facts)]
        extent = self.head.aligned_wide if self.has_lanes else self.head.wide
        for tensor, role in self.roles.items():
            shape = ", ".join([extent] * self.ranks[tensor])
            lines.append(f"    {role} {tensor}: f32[{shape}]")
        lines += self._block(0, 1)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _block(self, position: int, depth: int) -> list[str]:
        """The keeps opened at this position, the loop there (with the loops merged into its
        header) or the innermost statements, then the statement that follows it in the
        enclosing loop."""
        keeps = self.keeps.get(position, [])
        lines = []
        if self.grid is not None and position == self.grid.loops:
            lines += ["    " * depth + let for let in self.block_lets]
        lines += ["    " * (depth + n) + keep + " {" for n, keep in enumerate(keeps)]
        inside = depth + len(keeps)
        if position < len(self.loops):
            last = position
            while last + 1 in self.merged:
                last += 1
            ranges = ", ".join(line.range for line in self.loops[position:last + 1])
            if position == 0 and self.grid is not None:
                ranges += f" parallel({self.grid.options})"
            lines.append("    " * inside + f"for {ranges} {{")
            lines += self._block(last + 1, inside + 1)
            lines.append("    " * inside + "}")
        else:
            lines += ["    " * inside + statement for statement in self.inner]
        lines += ["    " * (depth + n) + "}" for n in reversed(range(len(keeps)))]
        if position in self.after:
            lines.append("    " * depth + self.after[position])
        return lines
