"""Small specs and brute-force searches shared by the tests of the facts module: what the
prover proves is checked against every admissible assignment of small sizes."""

import itertools

import kernelcost
from kernelcost.count.facts import Facts

SMALL = range(1, 9)  # sizes tried by the brute-force searches


def checked(assume: str = "", params: str = "N, M, T", body: str = "for i in 0..N { y[i] = x[i] }"):
    fact = f"assume {assume}\n" if assume else ""
    return kernelcost.loads(f"kernel k({params}) {{ {fact} in x: f32[N]\n out y: f32[N]\n"
                            f" {body} }}").checked


def facts_of(assume: str = "", params: str = "N, M, T") -> Facts:
    return Facts(checked(assume, params))


def admissible(symbols, holds):
    """Every assignment of SMALL values to `symbols` for which `holds(values)` is true."""
    for values in itertools.product(SMALL, repeat=len(symbols)):
        point = dict(zip(symbols, values))
        if holds(point):
            yield point


def smallest(expr, symbols, holds):
    """The least value of expr over the admissible small sizes (exact rationals)."""
    return min(expr.subs(point) for point in admissible(symbols, holds))


def internal_names(expr) -> set[str]:
    return {s.name for s in expr.free_symbols if "__" in s.name}
