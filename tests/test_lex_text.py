"""The forms in the reports and the JSON are sympy's text in lex order (and in str's order),
character for character: kernelcost.algebra.texts orders a sum's terms by their monomials (for every
printer and sort key of the process) and leaves to sympy only the sums where the monomials do
not decide (a repeated monomial, a numeric factor), over the rational functions of sizes the
analysis writes, expanded and factored, and the wider forms (floats, open sums, symbols with
no assumptions) that reach the printer too; and the precedence of a product it gives sympy's
printers is sympy's."""

import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_quotients import expressions, wide_expressions
from tiers import tiered

from kernelcost.algebra.sympy_scope import sympys_own
from kernelcost.algebra.texts import _SYMPY_PRECEDENCE_MUL, _precedence_of_product, lex_text, text
from kernelcost.base.symbols import size_symbol

N, M, T = (size_symbol(name) for name in ("N", "M", "T"))


def sympys_texts(expr: sympy.Basic) -> tuple[str, str]:
    """sympy.sstr(expr, order="lex") and str(expr), as sympy writes them alone."""
    with sympys_own():
        return sympy.sstr(expr, order="lex"), str(expr)


def assert_printed_as_sympy(expr: sympy.Basic) -> None:
    assert (lex_text(expr), text(expr)) == sympys_texts(expr)


@tiered(200)
@given(expressions)
def test_a_form_expanded_or_factored_prints_as_sympy_prints_it(expr):
    for form in (expr, sympy.expand(expr), sympy.factor(expr)):
        assert_printed_as_sympy(form)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_expressions)
def test_wider_forms_print_as_sympy_prints_them(expr):
    assert_printed_as_sympy(expr)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(expressions, wide_expressions))
def test_a_sums_terms_and_sort_key_are_sympys(expr):
    """The order on Add for every caller, not only the printers: as_ordered_terms in each
    order and with its data, and the sort key of a product of sums, which orders the
    factors a printed product lists."""
    forms = [form for form in (expr, sympy.expand(expr), sympy.factor(expr)) if form.is_Add]
    ours = [(form.as_ordered_terms(order), form.as_ordered_terms(order, data=True))
            for form in forms for order in (None, "lex", "grlex")]
    product = sympy.Mul(expr, sympy.expand(expr) + 1, evaluate=False)
    our_key = product.sort_key()
    with sympys_own():
        assert ours == [(form.as_ordered_terms(order), form.as_ordered_terms(order, data=True))
                        for form in forms for order in (None, "lex", "grlex")]
        assert our_key == product.sort_key()


def test_terms_sympy_orders_by_their_coefficients_are_left_to_it():
    # x*sqrt(2) and x share a monomial: sympy's order reads the complex coefficients
    for expr in (N * sympy.sqrt(2) + N + 1, 3 * N**2 * M - N**2 * M / 2 + T, N * M + M * N + 1,
                 1 - 2 * N, sympy.Rational(3, 2) - 4 * N * M):
        assert_printed_as_sympy(expr)


def test_str_writes_a_number_first_beside_a_negative_term():
    # Expr.as_ordered_terms' own case, where str's order is not lex order
    for expr in (1 - 2 * N, 3 - N * M / 2, sympy.pi - 2 * T, (1 - 2 * N) / (3 - M), 2 + N,
                 sympy.Max(1 - N, 4 - 2 * M), N - 1):
        assert_printed_as_sympy(expr)
    assert text(1 - 2 * N) == "1 - 2*N" and lex_text(1 - 2 * N) == "-2*N + 1"


PRODUCT_FACTORS = [N, M, T, sympy.Integer(-3), sympy.Rational(-1, 2), sympy.Integer(0),
                   sympy.Rational(5, 7), N + 1, 1 - M, sympy.ceiling(N / T), sympy.Max(N, M),
                   sympy.Float(-0.5), sympy.oo, -sympy.oo, sympy.zoo, sympy.nan, sympy.pi,
                   sympy.sqrt(2), N**-2, (M - N)**3]


@tiered(300)
@given(st.lists(st.sampled_from(PRODUCT_FACTORS), min_size=2, max_size=4), st.booleans())
def test_a_products_precedence_is_sympys(factors, evaluate):
    """The precedence the package puts in sympy's table, read off the coefficient, against
    sympy's own test (the product's negation built and compared), products left unevaluated
    (zoo, 0 or a float first) included."""
    product = sympy.Mul(*factors, evaluate=evaluate)
    if isinstance(product, sympy.Mul):
        assert _precedence_of_product(product) == _SYMPY_PRECEDENCE_MUL(product), product


def test_a_form_printed_again_is_sympys_text_wherever_it_stands():
    # the text of each form is kept for the next time it is printed, inside another form or
    # alone; a float alone is printed with all its digits, inside a form without
    inner = (N + 3) * sympy.ceiling(M / 66) / 7
    floating = sympy.Float(2.5) * N
    for form in (inner * T + 1, inner, floating + M, floating, sympy.Min(floating, inner),
                 floating):
        assert_printed_as_sympy(form)


QUOTIENT_FACTORS = [*PRODUCT_FACTORS, 1 / (N + 1), (M + 2 * T)**-2, 1 / (N * M + 1), N**-1, T**-3,
                    sympy.Rational(-7, 3), sympy.Rational(9, 4), sympy.Integer(-1),
                    sympy.Pow(N * M, -1, evaluate=False), sympy.Pow(N**2, -1, evaluate=False),
                    sympy.ceiling(N * M / 152)**-1, sympy.Max(N, 2 * M)**-2, 2**N, N**M,
                    N**(-M), sympy.sqrt(N + 1), 1 / sympy.sqrt(M), sympy.Symbol("x")]


@tiered(400)
@given(st.lists(st.sampled_from(QUOTIENT_FACTORS), min_size=1, max_size=5), st.booleans())
def test_a_product_prints_as_sympy_prints_it(factors, evaluate):
    """The package's product printer (each list ordered alone, numerator and denominator)
    against StrPrinter._print_Mul: a rational times powers over sums, negative coefficients,
    powers -1 of products, products left unevaluated."""
    product = sympy.Mul(*factors, evaluate=evaluate)
    assume(product.args[0] is not sympy.nan if product.is_Mul else True)  # sympy's raises
    assert_printed_as_sympy(product)
    assert_printed_as_sympy(product + N)
    assert_printed_as_sympy(sympy.Function("f")(product, M))


NUMBERS = [sympy.Integer(1), sympy.Integer(-3), sympy.Rational(5, 2), sympy.Rational(-7, 4),
           sympy.pi, -sympy.pi, sympy.Float(2.5), sympy.Float(-0.5), sympy.sqrt(3),
           sympy.I, 1 + sympy.I]
FORMS = [N, N * M, N**2, T / M, sympy.ceiling(N / 128), sympy.sqrt(N), sympy.I * N,
         sympy.sqrt(3) * N, (N + 1) * M, sympy.Max(N, M), (-1 + sympy.sqrt(3) * sympy.I) * N,
         3**sympy.Rational(1, 3) * N**2 * (sympy.Rational(-1, 2) + sympy.sqrt(3) * sympy.I / 2),
         sympy.pi * sympy.sqrt(2) * M, (N + 1)**sympy.Rational(1, 3) * sympy.I,
         sympy.sqrt(N + sympy.sqrt(3)) * sympy.Float(1.5),
         N / (3 * (sympy.Rational(-1, 2) + sympy.sqrt(3) * sympy.I / 2)),
         (1 - sympy.sqrt(3) * sympy.I)**2 * M * (N + 5)**sympy.Rational(2, 3)]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NUMBERS), st.sampled_from(NUMBERS), st.sampled_from(FORMS))
def test_a_number_beside_a_term_is_ordered_as_sympy_orders_it(number, coefficient, form):
    """A number beside a number times a form, where str writes a positive number first
    beside a negative coefficient (sympy's own case, spotted as it spots it) and lex order
    otherwise: as_ordered_terms and the texts, against sympy's."""
    expr = number + coefficient * form
    assume(expr.is_Add)
    ours = (expr.as_ordered_terms(), expr.as_ordered_terms("lex"))
    with sympys_own():
        assert ours == (expr.as_ordered_terms(), expr.as_ordered_terms("lex"))
    assert_printed_as_sympy(expr)
    assert_printed_as_sympy(sympy.Function("f")(expr, 2 * N) * (expr + M))
