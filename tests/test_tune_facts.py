"""What `tune` ranks against what the spec allows, drawn at random: a grid spec with an
assumed bound on a size and a header count in the sizes, a random list of candidates. A
candidate is ranked exactly where the bound holds and the counts are positive whole numbers,
checked one candidate at a time with Python's own arithmetic (a candidate outside the
bound was ranked with no word; one whose count was not whole refused the whole ranking)."""

from __future__ import annotations

import operator
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.analysis.api import loads
from kernelcost.answers.tune import tune
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.varied import parse_vary

H100 = load_machine("h100")
RELATIONS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
SPEC = """kernel facts(n, T = 64) {{
    assume n {op} {bound}
    in  x: f32[n]
    out y: f32[n]
    for b in 0..n by T parallel(threads = {threads}) {{
        for i in b..min(b + T, n) {{
            y[i] = x[i] * 2
        }}
    }}
}}
"""
# threads as a function of the tile T: whole for every T, or only where 2 or 3 divides it
THREADS = {"128": lambda t: Fraction(128), "T / 2": lambda t: Fraction(t, 2),
           "T / 3 + 32": lambda t: Fraction(t, 3) + 32, "T": lambda t: Fraction(t)}


@tiered(40)
@given(op=st.sampled_from(sorted(RELATIONS)), bound=st.integers(64, 8192),
       threads=st.sampled_from(sorted(THREADS)),
       ns=st.lists(st.integers(64, 16384), min_size=1, max_size=4, unique=True),
       tiles=st.lists(st.sampled_from([32, 48, 64, 96, 128, 256]), min_size=1, max_size=3,
                      unique=True))
def test_tune_ranks_exactly_the_candidates_the_spec_allows(op, bound, threads, ns, tiles):
    spec = loads(SPEC.format(op=op, bound=bound, threads=threads), "facts.kcost")
    varied = parse_vary(f"n={','.join(map(str, ns))},T={','.join(map(str, tiles))}")
    ranking = tune(spec, H100, varied, None, {}, top=100, rescore=0)
    allowed = {(n, t) for n in ns for t in tiles
               if RELATIONS[op](n, bound) and THREADS[threads](t).denominator == 1
               and THREADS[threads](t) <= 1024}
    assert {row.values for row in ranking.top} == allowed
    assert ranking.fitting == len(allowed)
    assert sum(count for _, count in ranking.rejected_by) == len(ns) * len(tiles) - len(allowed)
