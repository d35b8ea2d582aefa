"""records.record behaves as dataclass(frozen=True): the same equality, hash, text and
guards, field options included; and the package declares its frozen classes with it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernelcost.base.records import record

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "kernelcost"


def both(body: dict, annotations: dict) -> tuple[type, type]:
    """The same class body as a record and as a frozen dataclass."""
    made = []
    for decorate in (record, dataclasses.dataclass(frozen=True)):
        namespace = dict(body, __annotations__=dict(annotations))
        made.append(decorate(type("Point", (), namespace)))
    return made[0], made[1]


SHAPES = [
    ({}, {}),
    ({}, {"x": "int"}),
    ({"y": "a"}, {"x": "int", "y": "str"}),
    ({"tag": dataclasses.field(default="", compare=False)}, {"x": "int", "tag": "str"}),
    ({"hidden": dataclasses.field(default=0, repr=False)}, {"x": "int", "hidden": "int"}),
]
values = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.tuples(st.integers(0, 2)))


@pytest.mark.parametrize("body, annotations", SHAPES)
@given(first=st.lists(values, min_size=2, max_size=2),
       second=st.lists(values, min_size=2, max_size=2))
def test_a_record_is_a_frozen_dataclass(body, annotations, first, second):
    ours, theirs = both(body, annotations)
    count = len(annotations)
    a, b = ours(*first[:count]), ours(*second[:count])
    x, y = theirs(*first[:count]), theirs(*second[:count])
    assert repr(a) == repr(x)
    assert (a == b) == (x == y)
    if a == b:
        assert hash(a) == hash(b)
    assert hash(a) == hash(x)  # both hash the tuple of compared fields
    assert a != x  # another class
    for name in annotations:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, name, 1)
    assert dataclasses.replace(a, **{}) == a


def test_the_package_declares_frozen_classes_as_records():
    """Lark's generated parser aside, which is not ours to edit."""
    declared = [path.relative_to(PACKAGE) for path in PACKAGE.rglob("*.py")
                if path.name != "kcost_parser.py"
                and "\n@dataclass(frozen=True)\n" in path.read_text()]
    assert declared == []


def test_records_of_one_shape_keep_their_own_names_and_defaults():
    """Classes with the same kinds of fields share one compiled __init__ body."""
    @record
    class First:
        a: int
        b: str = "b"
        c: list = dataclasses.field(default_factory=list)

    @record
    class Second:
        x: int
        y: str = "y"
        z: dict = dataclasses.field(default_factory=dict)

    assert First(1) == First(a=1, b="b", c=[])
    assert Second(x=2) == Second(2, "y", {})
    assert repr(First(1, c=[3])).endswith("First(a=1, b='b', c=[3])")
    assert repr(Second(2, z={1: 2})).endswith("Second(x=2, y='y', z={1: 2})")
    assert First(1).c is not First(1).c  # a fresh list each time
    with pytest.raises(TypeError, match="'x'"):
        Second()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'a'"):
        Second(a=1)  # type: ignore[call-arg]


def test_the_prebuilt_bodies_are_those_records_writes():
    """base/record_bodies.py as records.record_bodies_source() writes it (after a change to
    the bodies: write that text to the file)."""
    from kernelcost.base import record_bodies, records

    assert Path(record_bodies.__file__).read_text(encoding="utf-8") == (
        records.record_bodies_source())
