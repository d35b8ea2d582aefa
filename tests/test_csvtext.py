"""Column-at-once CSV text (issue 17): every figure exactly as Python's '%.16g' writes it,
checked against Python itself over values chosen to hit every layout and rounding case."""

import numpy
import pytest

from kernelcost.present.report.csvtext import csv_rows, figure_field, label_field


def texts(values) -> list[str]:
    return csv_rows([figure_field(values)]).decode().splitlines()


def python_texts(values) -> list[str]:
    return [format(value, ".16g") for value in values]


RNG = numpy.random.default_rng(17)

CASES = {
    "every decade": 10.0 ** numpy.arange(-323, 309),
    "just under every decade": numpy.nextafter(10.0 ** numpy.arange(-300, 300), 0),
    "random magnitudes": RNG.standard_normal(50_000) * 10.0 ** RNG.integers(-40, 40, 50_000),
    "fractions of one": RNG.random(50_000),
    "positional edges": numpy.array([1e-4, 9.999999999999999e-5, 1e-5, 0.00012345,
                                     999999999999999.9, 1e15, 1e16, 1.234e16, 0.1, 0.3,
                                     1 / 3, 2 / 3, 1.5e300, 5e-324, 1.7976931348623157e308]),
    # 17 digits ending in 5, exact in binary (a quarter apart there): ties, to even
    "halfway at the 16th digit": 1234567890123456.0 + numpy.arange(40) + 0.5,
    "ratios of small integers": (numpy.arange(1, 20_001)[:, None]
                                 / numpy.array([3, 7, 11, 13])).ravel(),
    "zero, infinities and nan": numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan]),
}


@pytest.mark.parametrize("values", CASES.values(), ids=CASES.keys())
def test_figures_are_written_as_python_writes_them(values):
    assert texts(values) == python_texts(values)
    assert texts(-values) == python_texts(-values)


@pytest.mark.parametrize("values", [
    numpy.arange(-5000.0, 5000.0),
    numpy.array([0.0, 1.0, 9.0, 10.0, 99.0, 100.0, 1e15, 2.0**53 - 1, 2.0**53, 4096.0**3]),
    RNG.integers(-(2**53), 2**53, 20_000).astype(float),
], ids=["small", "edges", "random below 2^53"])
def test_whole_numbers_keep_every_digit(values):
    assert texts(values) == python_texts(values)


def test_sixteen_digits_read_back_to_the_value():
    values = RNG.random(10_000) * 10.0 ** RNG.integers(-20, 20, 10_000)
    read = numpy.array([float(text) for text in texts(values)])
    assert numpy.all(numpy.abs(read - values) <= 1e-15 * numpy.abs(values))


def test_labels_and_rows():
    sizes = figure_field([1.0, 2.5, 1e20])
    bound = label_field([1, 0, 1], ("global bandwidth", "bf16 tensor peak"))
    assert csv_rows([sizes, bound]) == (b"1,bf16 tensor peak\n2.5,global bandwidth\n"
                                        b"1e+20,bf16 tensor peak\n")
    assert csv_rows([figure_field([])]) == b""
