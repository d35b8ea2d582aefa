"""LevelBound -> text lines and a JSON object. No arithmetic beyond formatting."""

from __future__ import annotations

import sympy

from ..answers.lower import LevelBound
from ..base.levels import Level
from ..base.units import binary

HBL_SOURCE = ("Christ, Demmel, Knight, Scanlon, Yelick, \"Communication lower bounds and "
              "optimal algorithms for programs that reference arrays\", UCB/EECS-2013-61, 2013")
SEGMENT_SOURCE = ("segments of S words: Hong and Kung 1981; Irony, Toledo, Tiskin 2004; "
                  "Christ et al. 2013")
TIGHT_SOURCE = ("Smith, Lowery, Langou, van de Geijn, \"A tight I/O lower bound for matrix "
                "multiplication\", 2019; Kwasniewski et al., \"Red-blue pebbling revisited\" "
                "(COSMA), SC 2019")


def capacity_text(parts) -> str:
    """How S is made up: `L2 (device)`, `registers + tensor memory per SM`."""
    if tuple(parts) == (Level.L2,):
        return "L2 (device)"
    return " + ".join("tensor memory" if part == Level.TMEM else str(part)
                      for part in parts) + " per SM"

def _e(expr) -> str:
    return sympy.sstr(expr)


def _num(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:.4g}"


def program_text(result: LevelBound) -> str:
    program = result.headline.program
    terms = " + ".join(f"x_{d}" for d in program.dims)
    rows = [f"{' + '.join(f'x_{d}' for d in program.dims if d in p.dims)} <= 1 ({p.text})"
            for p in program.projections if p.dims]
    return f"maximise {terms} subject to " + ", ".join(rows) + ", x >= 0"


def text_lines(result: LevelBound, path: str) -> list[str]:
    h = result.headline
    program = h.program
    S = str(result.S)
    lines = [f"bound: {result.kernel} ({path}), level {result.level}: a fast memory of {S} "
             f"words of {result.word_bytes} B",
             f"statement  {h.text}   (line {h.span.line}; the one doing the most work of "
             f"{len(result.statements)})",
             "loops      " + ", ".join(f"{d}: {_e(h.extents.get(d, '?'))}" for d in program.dims)
             + f"   |Z| = {_e(h.points)} points, W = {_e(h.work)} FLOP",
             f"program    {program_text(result)}",
             f"           (Hoelder-Brascamp-Lieb for projections: {HBL_SOURCE})",
             f"exponent   sigma = {program.exponent}; dual (HBL) weights "
             + ", ".join(f"{text} {w}" for text, w in program.weights.items()),
             "tile       " + ", ".join(f"{d} ~ {S}^({program.tile[d]})" for d in program.dims)
             + _range_note(program)]
    lines.append(f"Q_lower    max({_e(result.hbl)}, "
                 + (f"{_e(result.tight)}, " if result.tight is not None else "")
                 + f"{_e(result.compulsory)}) words")
    lines.append(f"           HBL term |Z|/(2^sigma {S}^(sigma-1)) - {S} ({SEGMENT_SOURCE})"
                 + (f"; tight term 2|Z|/sqrt({S}) - 2{S} (Smith et al. 2019)"
                    if result.tight is not None else "")
                 + "; compulsory: each element outside the level once")
    lines.append(f"leading    {_e(result.leading)} words = {_e(result.word_bytes * result.leading)}"
                 " B as the sizes grow")
    lines.append(f"holds      for every schedule running each of the |Z| points once (no "
                 f"recomputation) with at most {S} words in the fast memory")
    if result.reference is not None:
        p = h.product
        assert p is not None  # the reference bound is a matrix product's
        lines.append(f"reference  {_e(result.reference)} words, the tight bound for matrix "
                     f"products ({TIGHT_SOURCE}); attained by a sqrt({S}) x sqrt({S}) block of "
                     f"the output ({'·'.join(p.m)} x {'·'.join(p.n)}) kept while the inputs "
                     f"stream along {'·'.join(p.k)}")
    lines.append(f"I_max({S})  W / Q_lower -> {_e(result.i_max)} FLOP/B as the sizes grow")
    lines.extend(_spec_lines(result))
    if result.verdict is not None:
        lines.extend(_verdict_lines(result))
    return lines


def _range_note(program) -> str:
    loose = [d for d in program.dims if program.tile_range[d][0] != program.tile_range[d][1]]
    if not loose:
        return "   (the only optimum)"
    return ("   (one optimum of several: " + ", ".join(
        f"x_{d} in [{program.tile_range[d][0]}, {program.tile_range[d][1]}]" for d in loose)
        + "; loops in the same arrays share their exponent evenly)")


def _spec_lines(result: LevelBound) -> list[str]:
    if result.spec_traffic is None:
        return [f"spec       no traffic into {result.level} in the spec as written"]
    lines = [f"spec       traffic into {result.level} as written: {result.spec_level} "
             f"{_e(result.spec_traffic)} B"]
    gap = result.gap
    if gap == 0:
        lines.append(f"gap        spec / Q_lower -> 0 as the sizes grow: the spec's "
                     f"{result.spec_level} traffic grows slower than any schedule through "
                     f"{result.S} words can; it assumes a larger (perfect) fast memory")
    elif gap is not None:
        lines.append(f"gap        spec / Q_lower -> {_e(gap)} as the sizes grow")
    return lines


def _verdict_lines(result: LevelBound) -> list[str]:
    v = result.verdict
    assert v is not None  # asked only where there is a machine
    level = result.level
    made_of = capacity_text(v.capacity_parts)
    lines = [f"machine    {v.machine}: {result.S} = {binary(v.capacity_B)} ({made_of}) = "
             f"{_num(v.capacity_B / float(result.word_bytes))} words; fed by {v.bandwidth_level}"
             f"; ridge P/B = {_num(v.ridge)} FLOP/B"]
    verb = "can" if v.can else "cannot"
    lines.append(f"answer     no schedule of this nest can exceed I = {_num(v.i_max)} FLOP/B "
                 f"through {v.machine}'s {level}; it {verb} be compute-bound there")
    if v.can and v.from_size is not None:
        lines.append(f"sizes      with every size without a default equal to n: compute-bound "
                     f"is possible from n = {_num(v.from_size)} (below, even the compulsory "
                     f"traffic keeps I under {_num(v.ridge)}); at no size above does the "
                     "bound stop it")
    elif not v.can:
        lines.append(f"sizes      at no size: I_max stays under the ridge {_num(v.ridge)} "
                     "FLOP/B")
    if v.gap is not None:
        if v.gap == 0:
            where = ("" if v.below_from is None else
                     f" from n = {_num(v.below_from)} (every size without a default equal)")
            lines.append(f"gap        the spec's {result.spec_level} traffic is below Q_lower"
                         f"{where}: it counts reuse no schedule through this {level} can "
                         "give, so its time there is optimistic")
        else:
            lines.append(f"gap        the spec moves {v.gap:.3g}x Q_lower into {level} "
                         "(as the sizes grow)")
    return lines


def json_object(result: LevelBound, path: str) -> dict:
    h = result.headline
    program = h.program
    document: dict[str, object] = {
        "kernel": result.kernel, "file": path, "level": result.level,
        "S": str(result.S), "word_bytes": _e(result.word_bytes),
        "statement": {"text": h.text, "line": h.span.line, "points": _e(h.points),
                      "work": _e(h.work),
                      "loops": {d: _e(h.extents.get(d, "?")) for d in program.dims}},
        "program": {"text": program_text(result), "exponent": _e(program.exponent),
                    "tile_exponents": {d: _e(x) for d, x in program.tile.items()},
                    "tile_ranges": {d: [_e(a), _e(b)] for d, (a, b) in
                                    program.tile_range.items()},
                    "weights": {t: _e(w) for t, w in program.weights.items()},
                    "source": HBL_SOURCE},
        "q_lower": {"expr": _e(result.q_lower), "hbl": _e(result.hbl),
                    "tight": None if result.tight is None else _e(result.tight),
                    "compulsory": _e(result.compulsory), "leading": _e(result.leading),
                    "unit": "words", "constant_source": SEGMENT_SOURCE},
        "reference": None if result.reference is None else {
            "expr": _e(result.reference), "source": TIGHT_SOURCE},
        "i_max": _e(result.i_max),
        "spec": {"level": result.spec_level,
                 "traffic": None if result.spec_traffic is None else _e(result.spec_traffic),
                 "gap": None if result.gap is None else _e(result.gap)},
        "statements": [{"text": s.text, "line": s.span.line,
                        "exponent": _e(s.program.exponent)} for s in result.statements],
    }
    v = result.verdict
    if v is not None:
        document["machine"] = {
            "id": v.machine, "S_B": v.capacity_B, "S_text": capacity_text(v.capacity_parts),
            "fed_by": v.bandwidth_level, "ridge": v.ridge, "i_max": v.i_max,
            "compute_bound_possible": v.can, "from_size": v.from_size, "gap": v.gap,
            "spec_below_bound_from": v.below_from}
    return document


def at_sizes_line(found, result: LevelBound) -> str:
    assert result.verdict is not None  # at_sizes finds numbers only on a machine
    sizes = ", ".join(f"{name}={value:g}" for name, value in found.sizes)
    if found.i_bound is None:
        return (f"at {sizes}: Q_lower = 0 B: no byte is compulsory through "
                f"{result.verdict.machine}'s {result.level} there, so no intensity is bounded"
                + ("" if found.spec_B is None else f"; the spec moves {found.spec_B:.4g} B"))
    line = (f"at {sizes}: Q_lower = {found.q_lower_B:.4g} B, so no schedule exceeds "
            f"I = {_num(found.i_bound)} FLOP/B through {result.verdict.machine}'s "
            f"{result.level}")
    if found.spec_B is not None:
        line += (f"; the spec moves {found.spec_B:.4g} B "
                 f"({found.spec_B / found.q_lower_B:.3g}x Q_lower)")
    return line
