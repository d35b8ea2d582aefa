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


FIELD_ATTRIBUTES = ("name", "type", "default", "default_factory", "init", "repr", "hash",
                    "compare", "metadata", "kw_only", "_field_type")
GATHERED = [  # (body, annotations, bases as names of the records above): shapes records use
    ({}, {}, ()),
    ({}, {"x": "int", "y": "str | None"}, ()),
    ({"y": None, "z": ()}, {"x": "int", "y": "str | None", "z": "tuple[int, ...]"}, ()),
    ({"tag": dataclasses.field(default="", compare=False, repr=False),
      "seen": dataclasses.field(default_factory=dict, compare=False)},
     {"x": "int", "tag": "str", "seen": "dict[str, int]"}, ()),
    ({"w": 2}, {"w": "int"}, ("base",)),  # a base's field given a default
    ({}, {"extra": "float"}, ("base",)),
]


def _base(gather: bool) -> type:
    namespace = {"__annotations__": {"x": "int", "w": "int"}, "__module__": __name__}
    made = type("Base", (), namespace)
    return record(made) if gather else dataclasses.dataclass(init=False, repr=False,
                                                             eq=False)(made)


@pytest.mark.parametrize("body, annotations, bases", GATHERED)
def test_a_record_s_fields_are_those_dataclass_gathers(body, annotations, bases):
    """records._gathered sets what dataclass(init=False, repr=False, eq=False) sets: the same
    fields, in the same order, with the same options; the defaults as class attributes; the
    match arguments. Checked on copies of one class body."""
    made = []
    for gather in (True, False):
        namespace = {name: (dataclasses.field(**{k: getattr(value, k) for k in (
            "default", "default_factory", "init", "repr", "hash", "compare", "metadata")})
            if isinstance(value, dataclasses.Field) else value) for name, value in body.items()}
        namespace.update(__annotations__=dict(annotations), __module__=__name__)
        cls = type("Shape", tuple(_base(gather) for _ in bases), namespace)
        if gather:
            from kernelcost.base import records

            assert records._gathered(cls)
        else:
            cls = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
        made.append(cls)
    ours, theirs = made
    assert [tuple(getattr(f, a) for a in FIELD_ATTRIBUTES) for f in dataclasses.fields(ours)] \
        == [tuple(getattr(f, a) for a in FIELD_ATTRIBUTES) for f in dataclasses.fields(theirs)]
    assert ours.__match_args__ == theirs.__match_args__
    for name in annotations:
        assert vars(ours).get(name, "absent") == vars(theirs).get(name, "absent")
    assert ours.__dataclass_params__.__repr__() == theirs.__dataclass_params__.__repr__()


def test_an_annotation_dataclass_reads_itself_goes_to_dataclass():
    from kernelcost.base import records

    for text in ("ClassVar[int]", "typing.ClassVar[int]", "InitVar[int]", "KW_ONLY"):
        cls = type("Odd", (), {"__annotations__": {"x": text}, "__module__": __name__})
        assert not records._gathered(cls)


def test_every_record_of_the_package_has_dataclass_fields():
    """Each record a command loads answers dataclasses.fields and replace as a dataclass."""
    import importlib
    import sys

    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "machines" not in parts and "models" not in parts and path.name != "__main__.py":
            importlib.import_module(".".join(p for p in parts if p != "__init__"))
    checked = 0
    for name, module in list(sys.modules.items()):
        for value in vars(module).values() if name.startswith("kernelcost") else ():
            if isinstance(value, type) and "_record_values" in vars(value):
                assert dataclasses.is_dataclass(value)
                assert all(f._field_type is dataclasses._FIELD
                           and f.kw_only is False for f in dataclasses.fields(value))
                checked += 1
    assert checked > 150
