"""The checker and the rendered errors: every broken spec in tests/errors/ gives exactly the
text in its .expected file (regenerate with tools/regen_errors.py and review the diff)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.base.errors import Code, KcostError
from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.lang import check_exprs
from kernelcost.lang.check import MAX_LOOP_DEPTH, check
from kernelcost.lang.check_context import _word_at
from kernelcost.lang.parse import parse, parse_file

TESTS = Path(__file__).parent
ERRORS = TESTS / "errors"
SPECS = TESTS.parent / "specs"
BROKEN_SPECS = sorted(ERRORS.glob("*.kcost"))


def errors_of(text: str) -> list[str]:
    """The messages of the diagnostics a spec raises, in order."""
    with pytest.raises(KcostError) as raised:
        check(parse(text, "t.kcost"))
    return [diagnostic.message for diagnostic in raised.value.diagnostics]


def test_there_are_enough_broken_specs():
    assert len(BROKEN_SPECS) >= 18


@pytest.mark.parametrize("spec", BROKEN_SPECS, ids=lambda path: path.stem)
def test_broken_spec_renders_its_expected_error(spec: Path):
    text = spec.read_text("utf-8")
    expected = spec.with_suffix(".expected").read_text("utf-8")
    with pytest.raises(KcostError) as raised:
        check(parse(text, f"errors/{spec.name}"))
    assert raised.value.render() + "\n" == expected


@pytest.mark.parametrize("spec", BROKEN_SPECS, ids=lambda path: path.stem)
def test_every_diagnostic_has_a_place_and_a_hint(spec: Path):
    with pytest.raises(KcostError) as raised:
        check(parse(spec.read_text("utf-8"), spec.name))
    for diagnostic in raised.value.diagnostics:
        assert diagnostic.span is not None and diagnostic.span.line >= 1
        assert diagnostic.span.column >= 1
        assert diagnostic.hint


@pytest.mark.parametrize("spec", sorted(SPECS.glob("*.kcost")), ids=lambda path: path.stem)
def test_shipped_specs_pass_the_checker(spec: Path):
    checked = check(parse_file(spec))
    assert checked.tensors


def test_several_errors_come_sorted_by_position():
    spec = (ERRORS / "several_errors.kcost").read_text("utf-8")
    with pytest.raises(KcostError) as raised:
        check(parse(spec, "t.kcost"))
    places = [(d.span.line, d.span.column) for d in raised.value.diagnostics]
    assert len(places) == 4
    assert places == sorted(places)


def test_a_broken_declaration_does_not_cascade_into_its_uses():
    # A's shape names an undefined size; its uses must not add "unknown tensor" errors
    messages = errors_of("""kernel k(M) {
        in A: f32[M, Q]
        out y: f32[M]
        for i in 0..M { y[i] = A[i, 0] }
    }""")
    assert messages == ["undefined name `Q`"]


def test_locals_in_sibling_blocks_may_share_a_name():
    check(parse("""kernel k(n) {
        in x: f32[n]
        out y: f32[n]
        for i in 0..n { let t: f32 = x[i]; y[i] = t }
        for i in 0..n { let t: f32 = 2 * x[i]; y[i] += t }
    }"""))


def test_a_local_redeclared_with_another_type_is_an_error():
    messages = errors_of("""kernel k(n) {
        out y: f32[n]
        for i in 0..n { let t: f32 = 1; y[i] = t }
        for i in 0..n { let t: f16 = 1; y[i] = t }
    }""")
    assert messages == ["local `t` is `f32` at line 3, `f16` here"]


@pytest.mark.parametrize("word, what", [
    ("target", "keyword"), ("needs", "keyword"), ("keep", "keyword"), ("assume", "keyword"),
    ("per", "keyword"), ("on", "keyword"), ("exp", "built-in function"),
    ("max", "built-in function"),
])
def test_a_reserved_word_cannot_name_an_iterator(word: str, what: str):
    """As it cannot name a size, a tensor or a local (KC202, not `already declared`); its
    uses in the loop report nothing more."""
    with pytest.raises(KcostError) as raised:
        check(parse(f"kernel k(n) {{\n  in x: f32[n]\n  out y: f32[n]\n"
                    f"  for {word} in 0..n {{ y[{word}] = x[{word}] }}\n}}", "t.kcost"))
    (diagnostic,) = raised.value.diagnostics
    assert raised.value.code == Code.RESERVED_NAME
    assert diagnostic.message == f"`{word}` is a {what} and cannot name an iterator"
    assert diagnostic.hint == "rename this iterator"
    assert (diagnostic.span.line, diagnostic.span.column) == (4, 7)


def test_loop_nests_deeper_than_the_limit_are_refused():
    depth = MAX_LOOP_DEPTH + 1
    ranges = ", ".join(f"i{level} in 0..n" for level in range(depth))
    messages = errors_of(f"kernel k(n) {{ out y: f32[n]\n for {ranges} {{ y[i0] = 1 }} }}")
    assert messages == [f"loops nest more than {MAX_LOOP_DEPTH} deep"]


def test_steps_that_use_an_iterator_are_refused():
    messages = errors_of("""kernel k(n) {
        out y: f32[n]
        for i in 1..n { for j in 0..n by i { y[j] = 1 } }
    }""")
    assert messages == ["a loop step uses iterator `i`"]


@pytest.mark.parametrize("extent, message", [
    ("0", "tensor extent `0` is 0, not positive"),
    ("n - n", "tensor extent `n - n` is 0, not positive"),
])
def test_tensor_extents_must_be_positive(extent: str, message: str):
    assert errors_of(f"kernel k(n) {{ out y: f32[{extent}]\n y[0] = 1 }}") == [message]


def test_a_default_must_be_positive():
    assert errors_of("kernel k(n = 0) { out y: f32[n]\n y[0] = 1 }") == [
        "default of `n` must be positive, not 0"]


def test_division_by_zero_in_an_index_is_one_diagnostic():
    messages = errors_of("kernel k(n) { out y: f32[n]\n for i in 0..n { y[i / 0] = 1 } }")
    assert messages == ["division by zero"]


def test_a_huge_loop_bound_is_fine():
    text = f"kernel k(n) {{ out y: f32[n]\n for i in 0..{10**400} {{ y[0] = 1 }} }}"
    checked = check(parse(text))
    assert checked.name == "k"



# --- indices affine at a glance ------------------------------------------------------------

ITERATORS = [iterator_symbol("i"), iterator_symbol("j")]
_N, _T = size_symbol("N"), size_symbol("T")
INDEX_FACTORS = st.sampled_from([*ITERATORS, _N, _T, _N**2, 1 / _T, ITERATORS[0]**2,
                                 sympy.Integer(2), sympy.Integer(-3), sympy.Rational(1, 2),
                                 _N + ITERATORS[0], sympy.floor(ITERATORS[0] / 2),
                                 sympy.Min(_N, _T)])
INDICES = st.lists(st.lists(INDEX_FACTORS, min_size=1, max_size=3).map(lambda f: sympy.Mul(*f)),
                   min_size=1, max_size=3).map(lambda terms: sympy.Add(*terms))


@tiered(400)
@given(INDICES)
@example(ITERATORS[0] * _N + ITERATORS[1] - 3)
def test_an_index_affine_at_a_glance_is_affine_to_poly(value):
    """The shortcut accepts only what the Poly the check builds finds affine, with whole
    coefficients: of degree 1 or less in the iterators, every coefficient's denominator 1."""
    if check_exprs._plainly_affine(value, set(ITERATORS)):
        poly = sympy.Poly(value, *ITERATORS)
        assert poly.total_degree() <= 1, value
        assert all(sympy.denom(coefficient) == 1 for coefficient in poly.coeffs()), value


@given(line=st.text(alphabet="ab_1 (,)x", max_size=20),
       name=st.sampled_from(["a", "ab", "x1", "_"]), start=st.integers(0, 22))
def test_a_name_is_found_as_a_whole_word(line, name, start):
    """The place of a declared name in its line, as the regular expression finds it."""
    match = re.compile(rf"(?<![A-Za-z_0-9]){re.escape(name)}(?![A-Za-z_0-9])").search(line, start)
    assert _word_at(line, name, start) == (-1 if match is None else match.start())
