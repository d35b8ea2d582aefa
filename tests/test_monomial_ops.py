"""monomial_ops: sympy's monomial arithmetic compiled with the package is sympy's own. The
file holds the functions sympy's templates write; each gives what sympy's exec'd function
gives; under patched() a ring takes them, and past the number of generators held (or under
another version of sympy) sympy's own."""

from pathlib import Path

import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.polys.domains import ZZ
from sympy.polys.monomials import MonomialOps
from sympy.polys.rings import ring
from tiers import tiered

from kernelcost.algebra import monomial_bodies, monomial_ops
from kernelcost.algebra.sympy_scope import patched, sympys_own


def test_the_compiled_bodies_are_those_monomial_ops_writes():
    """algebra/monomial_bodies.py as monomial_ops.monomial_bodies_source() writes it from
    the templates of the sympy installed (after a sympy upgrade: write it again)."""
    assert Path(monomial_bodies.__file__).read_text(encoding="utf-8") == (
        monomial_ops.monomial_bodies_source())
    assert sympy.__version__ == monomial_bodies.SYMPY_VERSION


def _exec(text: str):
    names: dict = {}
    exec(text, names)  # noqa: S102 - sympy's own template text, as sympy's _build runs it
    (function,) = (value for key, value in names.items() if key != "__builtins__")
    return function


def test_each_body_is_compiled_from_its_template():
    assert len(monomial_bodies.BODIES) == (len(monomial_ops.OPERATIONS)
                                           * monomial_ops.MOST_GENERATORS)
    for (operation, ngens), function in monomial_bodies.BODIES.items():
        built = _exec(monomial_ops.template_text(operation, ngens))
        assert function.__name__ == built.__name__
        for part in ("co_code", "co_consts", "co_names", "co_varnames", "co_argcount"):
            assert getattr(function.__code__, part) == getattr(built.__code__, part)


_monomials = st.integers(1, monomial_ops.MOST_GENERATORS).flatmap(
    lambda ngens: st.tuples(*[st.tuples(*[st.integers(0, 5)] * ngens)] * 2,
                            st.integers(0, 4)))


@tiered(200)
@given(_monomials)
def test_each_operation_gives_what_sympys_gives(drawn):
    first, second, power = drawn
    for operation in monomial_ops.OPERATIONS:
        ours = monomial_bodies.BODIES[operation, len(first)]
        theirs = _exec(monomial_ops.template_text(operation, len(first)))
        if operation == "pow":
            assert ours(first, power) == theirs(first, power)
        elif operation == "mulpow":
            assert ours(first, second, power) == theirs(first, second, power)
        else:
            assert ours(first, second) == theirs(first, second)


def test_a_ring_takes_the_compiled_functions_and_computes_as_sympy():
    """Under patched(), a new ring's functions are the compiled ones, past MOST_GENERATORS
    sympy's exec'd ones; products and gcds are sympy's either way."""
    for ngens in (3, monomial_ops.MOST_GENERATORS + 1):
        names = ", ".join(f"x{index}" for index in range(ngens))
        with patched():
            polynomial_ring, *gens = ring(names, ZZ)
            held = all(getattr(polynomial_ring, f"monomial_{operation}")
                       in monomial_bodies.BODIES.values()
                       for operation in monomial_ops.OPERATIONS)
            ours = str(((gens[0] + gens[-1])**3 * (gens[0] - 2)).gcd((gens[0] + gens[-1])**2))
        assert held == (ngens <= monomial_ops.MOST_GENERATORS)
        with sympys_own():
            polynomial_ring, *gens = ring(names, ZZ)
            assert polynomial_ring.monomial_mul not in monomial_bodies.BODIES.values()
            theirs = ((gens[0] + gens[-1])**3 * (gens[0] - 2)).gcd((gens[0] + gens[-1])**2)
        assert ours == str(theirs)


def test_under_another_version_of_sympy_the_makers_are_sympys(monkeypatch):
    monkeypatch.setattr(monomial_bodies, "SYMPY_VERSION", "0.0")
    with patched():
        function = vars(MonomialOps)["lcm"](MonomialOps(5))
    assert function is not monomial_bodies.BODIES["lcm", 5]
    assert function((1, 4, 0, 2, 2), (3, 1, 0, 2, 5)) == (3, 4, 0, 2, 5)
