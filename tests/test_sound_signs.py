"""sympy's deductions about sizes as the package leaves them: every order and integrality
they prove holds at every size. sympy 1.14 proves false orders of c + A/F(x, y, ...), which
reached the occupancy of a spec with its tiles left symbolic, and holds 6/(2*y + 1) never an
integer (sound_signs)."""

from __future__ import annotations

import itertools
import random

import pytest
import sympy
from conftest import SPECS, size
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

import kernelcost
from kernelcost.algebra import sound_signs
from kernelcost.gpu.occupancy import occupancy
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine
from kernelcost.oracle.sample import sample_sizes

a, b, c = (sympy.Symbol(name, integer=True, positive=True) for name in "abc")
SYMBOLS = (a, b, c)
# small sizes, where A/F is largest, and large ones, where it nears 0
POINTS = list(itertools.product((1, 2, 3, 17, 1000), repeat=3))


def test_the_false_orders_sympy_proves_are_undecided():
    assert (1 / (a * b) - sympy.Rational(1, 2)).is_positive is None
    assert sympy.Min(200 / (b * c**2), 2) != 2
    assert sympy.Max(1 / (a * b), sympy.Rational(1, 2)) != 1 / (a * b)
    assert sympy.Min(1 / (a * b + 1), sympy.Rational(1, 3)) != sympy.Rational(1, 3)
    # floor(x) >= 16 is asked as x >= 16
    assert sympy.Min(16, sympy.floor(167936 / (8 * a * b + 1024))) != 16


def test_an_even_number_over_an_odd_one_may_be_an_integer():
    quotient = 6 / (2 * a + 1)  # 2 at a = 1
    assert quotient.is_integer is None and quotient.is_even is None
    assert sympy.Eq(quotient, 2) not in (sympy.true, sympy.false)
    assert (sympy.floor(quotient) < quotient) is not sympy.true
    assert ((8 * a * b + 4 * a) / (2 * a * b + 1)).is_integer is None  # 4 at a = b = 1
    # what sympy proves soundly stays: odd over even, a fraction below 1, a half
    assert (1 / (2 * a + 1)).is_integer is False
    assert (a + sympy.Rational(1, 2)).is_integer is False
    assert (2 * a).is_integer is True


def test_the_orders_sympy_proves_soundly_stay():
    assert (1 / (a * b) + 1).is_positive is True
    assert (a * b + 1 - 2).is_nonnegative is True
    assert (1 / (a + 1) - 1).is_negative is True  # one symbol: sympy's own branch
    assert sympy.Max(a * b + 1, 2) == a * b + 1
    assert sympy.Min(a * b / 2, sympy.Rational(1, 2)) == sympy.Rational(1, 2)


monomials = st.builds(
    lambda coefficient, powers: coefficient * sympy.Mul(*(s**k for s, k in zip(SYMBOLS, powers))),
    st.sampled_from((1, 2, 3, 8, 1024)), st.tuples(*[st.integers(0, 2)] * 3))
polynomials = st.lists(monomials, min_size=1, max_size=3).map(lambda terms: sympy.Add(*terms))
numbers = st.sampled_from((1, 7, 200, 167936)).map(sympy.Integer)


@st.composite
def quantities(draw) -> sympy.Expr:
    """c + A/F and its relatives: the forms of occupancy limits and per-block ratios."""
    numerator, denominator = draw(numbers), draw(polynomials)
    form = draw(st.sampled_from(("A/F", "P/F", "P + A/F", "floor", "ceiling")))
    if form == "A/F":
        return numerator / denominator
    if form == "P/F":
        return draw(polynomials) / denominator
    if form == "P + A/F":
        return draw(polynomials) + numerator / denominator
    rounding = sympy.floor if form == "floor" else sympy.ceiling
    return rounding(numerator / denominator)


def at(expr: sympy.Expr, point) -> sympy.Rational:
    return expr.xreplace(dict(zip(SYMBOLS, map(sympy.Integer, point))))


@tiered(150)
@given(quantities(), st.sampled_from((1, 2, 16, 100, 3000)), st.sampled_from((1, 3)))
@example(200 / (2 * a + 1), 1, 1)  # 40 at a = 2: an integer
def test_every_proven_sign_order_and_rounding_holds_at_every_size(quantity, top, bottom):
    constant = sympy.Rational(top, bottom)
    difference = quantity - constant
    values = [at(difference, point) for point in POINTS]
    claims = {"is_positive": lambda v: v > 0, "is_nonnegative": lambda v: v >= 0,
              "is_negative": lambda v: v < 0, "is_nonpositive": lambda v: v <= 0,
              "is_integer": lambda v: v.is_integer}
    for name, holds in claims.items():
        claim = getattr(difference, name)
        if claim is not None:
            assert all(holds(v) == claim for v in values), (name, claim, difference)
    for lattice in (sympy.Min, sympy.Max):
        chosen = lattice(quantity, constant)
        for point in POINTS:
            expected = lattice(at(quantity, point), constant)
            assert at(chosen, point) == expected, (lattice, quantity, constant, point)


def parallel_specs() -> list[str]:
    return sorted(path.stem for path in SPECS.glob("*.kcost")
                  if "parallel(" in path.read_text())


@pytest.mark.parametrize("name", parallel_specs())
def test_symbolic_occupancy_takes_the_values_of_the_numeric_one(name):
    """Occupancy with every size a symbol, then the sizes substituted, is occupancy at the
    sizes: resident blocks, busiest SM and waves, on every machine, at the spec's defaults
    and at small sizes its assumptions allow."""
    spec = kernelcost.load(SPECS / f"{name}.kcost")
    cost = spec.cost()
    drawn = sample_sizes(spec.checked, 2, random.Random(name), max_steps=10**9)
    settings_ = [{symbol: sympy.Integer(drawn_sizes[symbol.name]) for symbol in cost.parameters}
                 for drawn_sizes in drawn]
    # the shipped tiles, where limits fall below the fixed ones small tiles stay above
    settings_.append({symbol: sympy.Integer(cost.defaults.get(symbol, 4096))
                      for symbol in cost.parameters})
    for machine in map(load_machine, builtin_machine_ids()):
        symbolic = occupancy(cost.grid, machine, {})
        for values in settings_:
            numeric = occupancy(cost.grid, machine, values)
            for field in ("resident", "busiest_sm_blocks", "waves"):
                found, expected = getattr(symbolic, field), getattr(numeric, field)
                if expected is None or symbolic.misfits or numeric.misfits:
                    continue
                assert found is not None, (machine.name, field)
                assert found.xreplace(values) == expected, (machine.name, field, values)


def test_moe_gemm_with_symbolic_tiles_prints_no_resident_count():
    """The regression: 16 blocks per SM, printed where the default tiles allow 2."""
    from kernelcost.answers.model import verdict

    spec = kernelcost.load(SPECS / "moe_gemm.kcost")
    cost = spec.cost()
    tiles = {size(name) for name in ("TM", "TN", "TK")}
    sizes = {symbol: sympy.Integer(value) for symbol, value in
             {size("Ea"): 2, size("Mt"): 64, size("N"): 4096, size("K"): 4096}.items()}
    defaults = {symbol: value for symbol, value in cost.defaults.items() if symbol not in tiles}
    v = verdict(cost, load_machine("h100"), values={**defaults, **sizes}, apply_defaults=False)
    resident = v.grid.occupancy.resident
    assert resident is None or not resident.is_number or resident == 2
    at_defaults = {**sizes, **{s: sympy.Integer(cost.defaults[s]) for s in tiles}}
    assert resident.xreplace(at_defaults) == 2


ITERATOR = kernelcost.base.symbols.iterator_symbol("i0")  # an integer of either sign


@tiered(150)
@given(st.sampled_from([sympy.Min, sympy.Max]), st.lists(
    st.builds(lambda coefficient, symbol, rest: coefficient * symbol + rest,
              st.integers(-3, 3), st.sampled_from((a, b, c, ITERATOR)),
              st.sampled_from((0, 1, a, b * c, ITERATOR, 2 * a - b))),
    min_size=2, max_size=4))
def test_a_min_or_max_is_built_as_sympy_builds_it_when_witnesses_split_a_pair(kind, arguments):
    # the pairs whose difference takes both signs at witness sizes are left unordered at
    # once: the same Min or Max as sympy's own search gives
    built = kind(*arguments)
    sympy.core.cache.clear_cache()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sympy.functions.elementary.miscellaneous.MinMaxBase, "_is_connected",
                      classmethod(sound_signs._SYMPY_IS_CONNECTED))
        searched = kind(*arguments)
    sympy.core.cache.clear_cache()
    assert built == searched


def test_an_iterator_takes_the_witness_sizes():
    # an iterator is an integer of either sign: every size is a value it may take, so
    # T + i0 against M splits, where sympy searched four orders and a factored difference
    from kernelcost.algebra import witnesses

    assert witnesses.both_signs(a + ITERATOR - b, 0)
    assert not witnesses._takes_witnesses(sympy.Symbol("y"))  # may be complex
    assert not witnesses._takes_witnesses(sympy.Symbol("n", negative=True))
    assert not witnesses._takes_witnesses(sympy.Symbol("e", even=True))
