"""Readers of a spec's closed forms shared by the counting tests: the cost of a spec's text
or of a shipped spec, symbolic equality, values at sizes, and the mismatches against the
oracle's enumeration."""

from pathlib import Path

import sympy
from conftest import size

import kernelcost
from kernelcost.count.cost import Cost
from kernelcost.count.spec_count import count
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse_file

SPECS = Path(__file__).resolve().parent.parent / "specs"


def cost_of(text: str, reuse: str = "spec"):
    return kernelcost.loads(text).cost(reuse)


def counted(spec: str) -> Cost:
    """A shipped spec's Cost under its own reuse."""
    return count(check(parse_file(SPECS / f"{spec}.kcost")))


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def at(expr, **values):
    return expr.subs({size(k): v for k, v in values.items()})


def mismatches(text: str, reuse: str = "spec", **sizes) -> list[str]:
    """The closed forms' disagreements with the oracle's enumeration at the sizes."""
    from kernelcost.oracle import compare, enumerate_counts

    spec = kernelcost.loads(text)
    counts = enumerate_counts(spec.checked, sizes, reuse)
    return [str(m) for m in compare(spec.cost(reuse), counts, sizes)]
