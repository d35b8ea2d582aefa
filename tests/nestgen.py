"""The generator of random affine loop nests for the property tests (test_properties.py):
hypothesis strategies that write a kernel as parts (a Nest, tests/nestparts.py) whose text
the checker accepts.

A nest is a head (sizes, `assume` facts, the steps and tiles they allow), loops outermost
first, the statements of the innermost body and some after inner loops (now and then a
matrix contraction named `on tensor`), and keeps. Some
nests run as a grid of thread blocks: their outermost loops form one `parallel(...)` header
(threads, registers, a cluster along a grid iterator, a raster order, the instructions a
block issues), and every statement
and keep sits inside it; its keeps may hold several stages, its block a local array in
registers or shared memory that statements read and write, and a tile pair may be clipped
(`i0 in 0..N by T` the grid, `i in i0..min(i0 + T, N)` in the block: the edge blocks of a
cluster). Some of those hand one loop inside the block to the lanes of a warp
(`for v in 0..E lanes`); the accesses in it then keep each warp's first address on a 32-byte
sector boundary, as lanes.py assumes: the lanes loop starts at 0 and its bounds hold no
iterator, no loop inside it depends on it, rows are whole sectors, and a last index that
moves with the lanes iterator is `v` or `2 * v`."""

from __future__ import annotations

import re

from hypothesis import strategies as st
from nestgen_block import grid_headers, keep_lines, lanes_line
from nestparts import Head, LoopLine, Nest

ITERATORS = ("i", "j", "k", "l")
TILE_ITERATORS = ("i0", "j0", "k0", "l0")

# Divisibility facts: none, one, several on one size (`T | N, U | N`), and chains (`T | K,
# K | N`), whose order in the text is shuffled (a chain written outside in, too).
DIVISIBILITY = (
    (), (), ("T | N",), ("T | N", "T | M"),
    ("T | N", "U | N"), ("T | M", "U | M", "U | N"),
    ("T | K", "K | N"), ("T | K", "K | N", "K | M"),
)
# Relations between sizes, strict and not; each may come with the steps it makes positive.
RELATIONS = {
    "T <= N": (), "T < N": (), "T <= M": (), "M <= N": (), "M < N": ("N - M",),
    "N >= 3": ("N - 2",), "N > 3": ("N - 3",), "M >= 2": ("M - 1",), "2 * T <= N": (),
    "T + 1 <= M": ("M - T",),
}


@st.composite
def heads(draw) -> Head:
    divisibility = list(draw(st.sampled_from(DIVISIBILITY)))
    relations = draw(st.lists(st.sampled_from(sorted(RELATIONS)), max_size=2, unique=True))
    if "K" in " ".join(divisibility) and draw(st.booleans()):
        relations.append("K <= M")
    facts = draw(st.permutations(divisibility + relations))
    lines: list[str] = []
    if facts:
        if draw(st.booleans()):  # one `assume` line, or one a fact
            lines.append("assume " + ", ".join(facts))
        else:
            lines += [f"assume {fact}" for fact in facts]
    text = " ".join(facts)
    params = ["N", "M", "T"] + [extra for extra in ("K", "U") if extra in text.split()]
    steps = ["2", "T", "2 * T", "T + 1"]
    tiles = ["T", "T", "2 * T", "T + 1"]
    for extra in params[3:]:
        steps += [extra, f"{extra} * T"]
        tiles += [extra, extra]
    for relation in relations:
        steps += RELATIONS.get(relation, ())
    return Head(params, lines, steps, tiles)


@st.composite
def loop_lines(draw, depth: int, head: Head, lanes_at: int | None = None,
               max_extrema: int = 2, max_clipped: int | None = None,
               tiled_first: bool = False) -> list[LoopLine]:
    """Loops outermost first: rectangular, stepped (`by 2`, `by 2 * T`, `by N - M` under
    `M < N`), triangular (`0..i + 1`, `i..N`, with outer loops over other sizes), bounds with
    min/max of sizes, iterators and constants (`0..min(T, i)`, `max(1, i)..N`,
    `0..min(N, M)`), and tile pairs (`i0 in 0..N by T` then `i in i0..i0 + T` or its
    clipped form `i0..min(i0 + T, N)`), which take two of the depth's loops; at position
    lanes_at, a lanes loop (lanes_line), which no bound further in refers to. Clipped tiles
    count among the min/max bounds, or, given max_clipped, apart from them; tiled_first
    makes the first two loops a tile pair (a grid of tiles, the block's loop clipped or
    not)."""
    lines: list[LoopLine] = []
    clipped_left = max_clipped
    sizes = ["N", "M"]
    odd_tiles_used: set[str] = set()
    extremum_bounds = 0
    while len(lines) < depth:
        var = ITERATORS[len(lines)]
        if len(lines) == lanes_at:
            lines.append(draw(lanes_line(var, head, wide=depth <= 3)))
            continue
        outer = [line for line in lines if not line.lanes]
        # at most two bounds with min/max a nest, clipped tiles included: three in a
        # four-deep nest can take sympy minutes, and the profile would spend its time on
        # them (none in a grid: its per-block sums keep the grid iterators free, and take
        # seconds with one); the campaign allows three
        extrema = ["size_extremum"] if extremum_bounds < max_extrema else []
        kinds = ["rect", "rect", "from_one", "step", *extrema]
        if outer:
            kinds += ["lower_triangle", "lower_triangle_open", "upper_triangle",
                      "upper_triangle", "upper_triangle_step"]
            if extremum_bounds < max_extrema:
                kinds += ["iterator_extremum", "iterator_extremum", "lower_extremum"]
        if len(lines) + 2 <= depth and lanes_at != len(lines) + 1:
            kinds += ["tile", "tile"]
        kind = "tile" if tiled_first and not lines and "tile" in kinds else draw(
            st.sampled_from(kinds))
        extremum_bounds += kind.endswith("extremum")
        size = draw(st.sampled_from(sizes))
        other = draw(st.sampled_from(outer)) if outer else None
        # what min/max compare an iterator or a size with: sizes, tile sizes, constants
        partner = draw(st.sampled_from([s for s in sizes if s != size]
                                       + head.params[2:] + ["2", "3"]))
        extremum = draw(st.sampled_from(["min", "max"]))
        at_least_one = False
        if kind == "rect":
            bounds = f"0..{size}"
        elif kind == "from_one":
            bounds, at_least_one = f"1..{size}", True
        elif kind == "step":
            bounds = f"0..{size} by {draw(st.sampled_from(head.steps))}"
        elif kind == "size_extremum":
            lo = draw(st.sampled_from(["0", "1"]))
            bounds, at_least_one = f"{lo}..{extremum}({size}, {partner})", lo == "1"
        elif kind == "lower_triangle":
            bounds = f"0..{other.var} + 1"
        elif kind == "lower_triangle_open":
            bounds = f"0..{other.var}"
        elif kind == "upper_triangle":
            bounds, at_least_one = f"{other.var}..{size}", other.at_least_one
        elif kind == "upper_triangle_step":
            step = draw(st.sampled_from(head.steps))
            bounds, at_least_one = f"{other.var}..{size} by {step}", other.at_least_one
        elif kind == "iterator_extremum":
            hi = draw(st.sampled_from([f"{extremum}({partner}, {other.var})",
                                       f"{extremum}({other.var} + 1, {partner})",
                                       f"{extremum}({other.var}, {size})"]))
            bounds = f"0..{hi}"
        elif kind == "lower_extremum":
            lo, at_least_one = draw(st.sampled_from([
                (f"max(1, {other.var})", True), (f"min({partner}, {other.var})", False),
                (f"max({other.var}, {partner})", other.at_least_one)]))
            hi = draw(st.sampled_from([size, "min(N, M)", "max(N, M)"]))
            bounds = f"{lo}..{hi}"
        else:
            tile = TILE_ITERATORS[len(lines)]
            # a tile no fact divides (`T + 1`) once a nest: two of them, clipped, take
            # sympy a minute
            tiles = [t for t in head.tiles if t not in odd_tiles_used]
            step = draw(st.sampled_from(tiles))
            if step == "T + 1":
                odd_tiles_used.add(step)
            lines.append(LoopLine(tile, f"{tile} in 0..{size} by {step}", False))
            var = ITERATORS[len(lines)]
            if clipped_left is None:
                clipped = extremum_bounds < max_extrema and draw(st.booleans())
                extremum_bounds += clipped
            else:
                clipped = clipped_left > 0 and draw(st.integers(0, 2)) > 0
                clipped_left -= clipped
            hi = f"min({tile} + {step}, {size})" if clipped else f"{tile} + {step}"
            bounds = f"{tile}..{hi}"
        lines.append(LoopLine(var, f"{var} in {bounds}", at_least_one))
    return lines


@st.composite
def index_text(draw, loops: list[LoopLine]) -> str:
    """An affine index: an iterator, shifted by +-1 (down only where it stays >= 0), a
    constant, or occasionally a sum of two iterators or a doubled one."""
    if not loops or draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["0", "1"]))
    line = draw(st.sampled_from(loops))
    form = draw(st.sampled_from(["plain", "plain", "plain", "up", "down", "sum", "double"]))
    if form == "up":
        return f"{line.var} + 1"
    if form == "down" and line.at_least_one:
        return f"{line.var} - 1"
    if form == "sum" and len(loops) > 1:
        other = draw(st.sampled_from([o for o in loops if o is not line]))
        return f"{line.var} + {other.var}"
    if form == "double":
        return f"2 * {line.var}"
    return line.var


@st.composite
def access_text(draw, tensor: str, rank: int, loops: list[LoopLine]) -> str:
    """Affine indices (index_text); inside a lanes loop, a last index that moves with the
    lanes iterator is that iterator, or doubled: consecutive lanes 4 or 8 bytes apart from
    an aligned start (an index shifted by 1 or by another iterator would start a warp
    inside a sector, which lanes.py's closed form does not model)."""
    indices = [draw(index_text(loops)) for _ in range(rank)]
    lanes = next((line.var for line in loops if line.lanes), None)
    if lanes and re.search(rf"\b{lanes}\b", indices[-1]) \
            and indices[-1] not in (lanes, f"2 * {lanes}"):
        indices[-1] = draw(st.sampled_from([lanes, f"2 * {lanes}"]))
    return f"{tensor}[{', '.join(indices)}]"


@st.composite
def nests(draw, max_extrema: int = 2) -> Nest:
    """A sequential nest mostly; two in seven run as a grid of thread blocks, half of those
    with a lanes loop inside the block. A sequential nest has at most `max_extrema` bounds
    with min or max."""
    execution = draw(st.sampled_from(["sequential"] * 5 + ["grid", "lanes"]))
    # four-deep nests with triangles over tiles take seconds of sympy each: fewer of them,
    # and none in a grid, whose per-block sums keep the grid iterators free
    depth = draw(st.sampled_from({"sequential": [1, 2, 2, 3, 3, 4], "grid": [1, 2, 2, 3],
                                  "lanes": [2, 2, 3]}[execution]))
    head = draw(heads())
    grid_loops = 0 if execution == "sequential" else draw(
        st.integers(1, min(2, depth - (execution == "lanes"))))
    lanes_at = draw(st.integers(grid_loops, depth - 1)) if execution == "lanes" else None
    # a grid's bounds take no min or max but one clipped tile: its per-block sums keep the
    # grid iterators free, and each min costs them seconds
    loops = draw(loop_lines(depth, head, lanes_at, max_extrema=0 if grid_loops else max_extrema,
                            max_clipped=1 if grid_loops else None,
                            tiled_first=grid_loops > 0 and draw(st.integers(0, 2)) > 0))
    roles = {"x": "in", "y": draw(st.sampled_from(["out", "inout"])),
             "z": draw(st.sampled_from(["in", "out", "inout"]))}
    ranks = {tensor: draw(st.integers(1, 2)) for tensor in roles}
    settings_lines = ["reuse none"] if draw(st.integers(0, 3)) == 0 else []
    targets = [t for t, role in roles.items() if role != "in"]
    sources = [t for t, role in roles.items() if role != "out"]
    block_lets = []
    if grid_loops and draw(st.integers(0, 2)) == 0:
        # a local array of the block, written and read by the statements like a tensor
        ranks["a"] = draw(st.integers(1, 2))
        level = draw(st.sampled_from(["registers", "registers", "shared"]))
        # as wide as the tensors: a lanes iterator runs to N + 30, doubled in an index
        extent = head.wide if lanes_at is None else head.aligned_wide
        block_lets.append(f"let a: f32[{', '.join([extent] * ranks['a'])}] in {level} = 0")
        targets.append("a")
        sources.append("a")

    def statement(scope_loops, target=None, source=None, read_loops=None):
        if target is None and source is None and read_loops is None \
                and draw(st.integers(0, 5)) == 0:
            found = contraction(scope_loops)
            if found is not None:
                return found
        target = target or draw(st.sampled_from(targets))
        reads = []
        for _ in range(draw(st.integers(1, 3))):
            read = source or draw(st.sampled_from(sources))
            reads.append(draw(access_text(read, ranks[read],
                                          scope_loops if read_loops is None else read_loops)))
        shape = draw(st.sampled_from(["product", "sum", "exp", "scaled"]))
        if shape == "product":
            value = " * ".join(reads)
        elif shape == "sum":
            value = " + ".join(reads)
        elif shape == "exp":
            value = f"exp({reads[0]})" + "".join(f" - {r}" for r in reads[1:])
        else:
            value = f"2 * {reads[0]}"
        op = draw(st.sampled_from(["=", "+=", "+=", "max="]))
        # a multiply-add may name the vector FMA units (`on fma`, docs/language.md §9.3)
        unit = (" on fma" if op == "+=" and shape == "product" and len(reads) > 1
                and draw(st.integers(0, 3)) == 0 else "")
        return f"{draw(access_text(target, ranks[target], scope_loops))} {op} {value}{unit}"

    def contraction(scope_loops):
        """`T[m, n] += X[m, k] * Y[k, n] on tensor` over the scope's three innermost loops,
        each one axis (the band docs/language.md §9.3 reads from the innermost loop out),
        operands and target in either order of their two indices; None where the scope has
        no such three loops or no arrays of rank 2."""
        band = scope_loops[-3:]
        wide = [t for t in targets if ranks[t] == 2]
        read = [t for t in sources if ranks[t] == 2]
        if len(band) < 3 or any(line.lanes for line in band) or not wide or not read:
            return None
        m, n, k = draw(st.permutations([line.var for line in band]))

        def pair(a, b):
            return f"{a}, {b}" if draw(st.booleans()) else f"{b}, {a}"

        return (f"{draw(st.sampled_from(wide))}[{pair(m, n)}] += "
                f"{draw(st.sampled_from(read))}[{pair(m, k)}] * "
                f"{draw(st.sampled_from(read))}[{pair(k, n)}] on tensor")

    # one tensor accessed by several statements (written) or reads (read), and kept
    focus = None
    pattern = draw(st.sampled_from(["free", "free", "free", "writes", "reads"]))
    # a grid of tiles in clusters whose blocks read one tensor alike (not along the tile):
    # a tile the cluster may fill once from L2, the block's row loop clipped or not
    shared_tile = (grid_loops == 1 and loops[0].var in TILE_ITERATORS
                   and draw(st.booleans()))
    if shared_tile:
        pattern = "shared tile"
        if depth == 3 and not loops[2].lanes and draw(st.booleans()):
            # a loop empty in the first block (`k in 0..i0`), which the tile's reads may not
            # use: that block of a cluster fills nothing, the others one tile alike
            loops[2] = LoopLine(loops[2].var, f"{loops[2].var} in 0..{loops[0].var}", False)
    if pattern == "writes":
        focus = draw(st.sampled_from(targets))
        inner = [statement(loops, target=focus) for _ in range(draw(st.integers(2, 3)))]
    elif pattern == "shared tile":
        focus = draw(st.sampled_from([t for t in sources if t in roles]))
        read_loops = draw(st.sampled_from([loops[2:], loops[2:], []]))  # []: `x[1]`
        inner = [statement(loops, source=focus, read_loops=read_loops)
                 for _ in range(draw(st.integers(1, 2)))]
    elif pattern == "reads":
        focus = draw(st.sampled_from(sources))
        inner = [statement(loops, source=focus) for _ in range(draw(st.integers(1, 2)))]
    else:
        inner = [statement(loops) for _ in range(draw(st.integers(1, 2)))]
    if lanes_at is not None and draw(st.integers(0, 2)) == 0:
        block_lets.append("let s: f32[96, 64] in shared swizzle = 0")
        inner.append(draw(swizzled_statement(loops, targets, sources, ranks)))
    # in a grid, statements and keeps go inside the header's loops, which share one line
    inside = max(1, grid_loops)
    after = {}
    if depth > inside and draw(st.booleans()):
        position = draw(st.integers(inside, depth - 1))
        after[position] = statement(loops[:position])
    if shared_tile:  # the block's tile of the focus in shared, around the tile's loop
        kept = [focus, *draw(st.lists(st.sampled_from([t for t in roles if t != focus]),
                                      max_size=1))]
        keeps = {grid_loops: [f"keep {', '.join(kept)} in shared"]}
    elif lanes_at is not None and draw(st.booleans()):
        # a tile in shared memory around the lanes loop: its warps meet the banks
        kept = draw(st.lists(st.sampled_from(list(roles)), min_size=1, max_size=2, unique=True))
        keeps = {draw(st.integers(grid_loops, lanes_at)): [f"keep {', '.join(kept)} in shared"]}
    else:
        keeps = draw(keep_lines(depth, list(roles), focus if focus in roles else None,
                                first=grid_loops))
    mergeable = [p for p in range(grid_loops + 1, depth)
                 if p not in keeps and p not in after]
    merged = frozenset([*range(1, grid_loops),
                        *(p for p in mergeable if draw(st.integers(0, 2)) == 0)])
    if grid_loops:  # a software pipeline: its keeps held stages times (counting unchanged)
        keeps = {position: [keep + (f" stages {draw(st.sampled_from(['2', '3', 'T']))}"
                                    if draw(st.integers(0, 2)) == 0 else "")
                            for keep in texts]
                 for position, texts in keeps.items()}
    grid = None
    if grid_loops:
        block = [line.range for line in loops[grid_loops:]] + [
            access for keep in keeps.get(grid_loops, [])[:1]
            for tensor in keep.split(" in ")[0][len("keep "):].split(", ")
            for text in [*inner, *after.values()]
            for access in re.findall(rf"\b{tensor}\[[^\]]*\]", text)]
        grid = draw(grid_headers(loops, grid_loops, block,
                                 cluster_axis=loops[0].var if shared_tile else None))
    return Nest(head, loops, keeps, inner, after, roles, ranks, settings_lines, merged, grid,
                block_lets)


@st.composite
def swizzled_statement(draw, loops: list[LoopLine], targets, sources, ranks) -> str:
    """A store to or a load from the block's swizzled tile `s` (rows of 64 words) in the
    lanes loop: along a row, down a column, every other row of a column, or a diagonal; the
    other index a non-lane iterator or 0."""
    lanes = next(line.var for line in loops if line.lanes)
    other = draw(st.sampled_from(["0", *(line.var for line in loops if not line.lanes)]))
    tile = draw(st.sampled_from([f"s[{lanes}, {other}]", f"s[2 * {lanes}, {other}]",
                                 f"s[{other}, {lanes}]", f"s[{lanes}, {lanes}]"]))
    if draw(st.booleans()):
        source = draw(st.sampled_from(sources))
        return f"{tile} = 2 * {draw(access_text(source, ranks[source], loops))}"
    target = draw(st.sampled_from(targets))
    return f"{draw(access_text(target, ranks[target], loops))} += {tile}"
