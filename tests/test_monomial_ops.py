"""monomial_ops: sympy's monomial arithmetic compiled with the package is sympy's own. The
file holds the functions sympy's templates write, each under its own text; each gives what
sympy's exec'd function gives; a text it does not hold is exec'd as sympy does."""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sympy.polys.domains import ZZ
from sympy.polys.monomials import MonomialOps
from sympy.polys.rings import ring
from tiers import tiered

from kernelcost.algebra import monomial_bodies, monomial_ops
from kernelcost.algebra.sympy_scope import patched, sympys_own


def test_the_compiled_bodies_are_those_monomial_ops_writes():
    """algebra/monomial_bodies.py as monomial_ops.monomial_bodies_source() writes it (after a
    sympy upgrade that changes a template: write it again)."""
    assert Path(monomial_bodies.__file__).read_text(encoding="utf-8") == (
        monomial_ops.monomial_bodies_source())


def test_each_body_is_compiled_from_the_text_it_is_held_under():
    assert len(monomial_bodies.BODIES) == 7 * monomial_ops.MOST_GENERATORS
    for text, function in monomial_bodies.BODIES.items():
        names: dict = {}
        exec(text, names)  # noqa: S102 - sympy's own template text, as sympy runs it
        (built,) = (value for key, value in names.items() if key != "__builtins__")
        assert function.__name__ == built.__name__
        for part in ("co_code", "co_consts", "co_names", "co_varnames", "co_argcount"):
            assert getattr(function.__code__, part) == getattr(built.__code__, part)


def _sympys(operation: str, ngens: int):
    """sympy's function, exec'd from its template whatever is in place."""
    template = getattr(MonomialOps, operation).__wrapped__
    return monomial_ops._SYMPY_BUILD(None, template(monomial_ops._Writer(ngens)),
                                     f"monomial_{operation}")


_monomials = st.integers(1, monomial_ops.MOST_GENERATORS).flatmap(
    lambda ngens: st.tuples(*[st.tuples(*[st.integers(0, 5)] * ngens)] * 2,
                            st.integers(0, 4)))


@tiered(200)
@given(_monomials)
def test_each_operation_is_sympys(drawn):
    first, second, power = drawn
    ngens = len(first)
    for operation in monomial_ops._OPERATIONS:
        ours = MonomialOps.__dict__[operation].__wrapped__(_Ours(ngens))
        theirs = _sympys(operation, ngens)
        if operation == "pow":
            assert ours(first, power) == theirs(first, power)
        elif operation == "mulpow":
            assert ours(first, second, power) == theirs(first, second, power)
        else:
            assert ours(first, second) == theirs(first, second)


class _Ours(monomial_ops._Writer):
    """A template's instance whose _build is kernelcost's, held texts only."""

    def _build(self, code, name):  # type: ignore[override]
        function = monomial_bodies.BODIES[code]
        assert function.__name__ == name
        return function


def test_a_ring_takes_the_compiled_functions_and_computes_as_sympy():
    """Under patched(), a new ring's functions are the compiled ones, past MOST_GENERATORS
    sympy's exec'd ones; products and gcds are sympy's either way."""
    for ngens in (3, monomial_ops.MOST_GENERATORS + 1):
        names = ", ".join(f"x{index}" for index in range(ngens))
        with patched():
            polynomial_ring, *gens = ring(names, ZZ)
            held = polynomial_ring.monomial_mul in monomial_bodies.BODIES.values()
            ours = ((gens[0] + gens[-1])**3 * (gens[0] - 2)).gcd((gens[0] + gens[-1])**2)
            ours_text = str(ours)
        assert held == (ngens <= monomial_ops.MOST_GENERATORS)
        with sympys_own():
            polynomial_ring, *gens = ring(names, ZZ)
            theirs = ((gens[0] + gens[-1])**3 * (gens[0] - 2)).gcd((gens[0] + gens[-1])**2)
        assert ours_text == str(theirs)
