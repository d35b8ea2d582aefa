"""grid_shapes.distinct_shapes against numpy.unique over the stacked rows: the same distinct
shapes, each first met at the same point, however the kernels' columns repeat or stay one
number."""

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.answers.grid_shapes import distinct_shapes

COLUMN = st.lists(st.integers(1, 6), min_size=1, max_size=12)


@st.composite
def kernels(draw) -> list[list[numpy.ndarray]]:
    """Kernels of 1-3 sizes, some sharing a column with an earlier kernel (as the prefill
    GEMMs share the tokens) and some one number throughout (the model's widths)."""
    sizes = draw(st.integers(1, 3))
    found: list[list[numpy.ndarray]] = []
    for _ in range(draw(st.integers(1, 4))):
        points = draw(st.integers(1, 12))
        parts = []
        for k in range(sizes):
            kind = draw(st.sampled_from(["drawn", "constant", "shared"]))
            earlier = [each[k] for each in found if len(each[k]) == points]
            if kind == "shared" and earlier:
                parts.append(earlier[0].copy())
            elif kind == "constant":
                parts.append(numpy.full(points, draw(st.integers(1, 6)), dtype=numpy.int64))
            else:
                parts.append(numpy.array(draw(st.lists(st.integers(1, 6), min_size=points,
                                                       max_size=points)), dtype=numpy.int64))
        found.append(parts)
    return found


@settings(max_examples=300, deadline=None)
@given(kernels())
def test_distinct_shapes_are_numpy_unique_of_the_rows(parts):
    shapes = distinct_shapes(parts)
    rows = numpy.stack([numpy.concatenate(each) for each in zip(*parts)], axis=1)
    unique, firsts = numpy.unique(rows, axis=0, return_index=True)
    assert len(shapes.firsts) == len(unique)
    assert sorted(shapes.firsts.tolist()) == sorted(firsts.tolist())
    assert all(numpy.array_equal(column, rows[:, k]) for k, column in enumerate(shapes.columns))


def test_one_shape_throughout_is_one_first_point():
    shapes = distinct_shapes([[numpy.full(5, 7), numpy.full(5, 3)],
                              [numpy.full(2, 7), numpy.full(2, 3)]])
    assert shapes.firsts.tolist() == [0]
