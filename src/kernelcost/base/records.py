"""Dataclasses that compile one method where dataclass compiles six.

`@dataclass(frozen=True)` writes six methods of every class as source and compiles each
(__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__ on Python 3.11), and reads
the signature of a class with no docstring to write one: some 0.35 ms a class, and a command
defines about a hundred, 35 ms of its CPU before any work. `record` lets dataclass gather the
fields (so that dataclasses.fields and replace work as for any dataclass) and compiles only
the __init__, one assignment a field as dataclass writes them for a frozen class; every
record shares the guards against assignment and its __eq__, __hash__ and __repr__, which
read the fields each class lists once: equal when of one class with equal compared fields,
hashed by those fields, shown as dataclass shows them. The __init__ is made on a class's
first instance (a command builds instances of fewer than half the classes it imports), from
a body compiled once for every class of its shape.

The fields themselves are gathered as dataclass gathers them, without its search of each
annotation for ClassVar, InitVar and KW_ONLY (three pattern matches and lookups a field,
most of the 0.1 ms dataclass spends on a record; a command imports some 120 records), where
no annotation names one of them; anything else, and a record with slots, goes through
dataclass itself."""

from __future__ import annotations

import abc
import dataclasses
import inspect
import operator
import re
import types
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

_Class = TypeVar("_Class", bound=type)


@overload
def record(cls: _Class, *, frozen: bool = True, slots: bool = False) -> _Class: ...
@overload
def record(cls: None = None, *, frozen: bool = True,
           slots: bool = False) -> Callable[[_Class], _Class]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(cls=None, *, frozen=True, slots=False):
    """dataclass(frozen=frozen, slots=slots): its __init__ compiled, its other methods
    shared (a record that is not frozen is not hashable, as dataclass makes it)."""
    if cls is None:
        return lambda undecorated: record(undecorated, frozen=frozen, slots=slots)
    if not cls.__dict__.get("__doc__"):
        # dataclass writes a missing docstring from the signature, which it reads slowly
        cls.__doc__ = cls.__name__
    if slots or not _gathered(cls):
        cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots)
    fields = dataclasses.fields(cls)
    cls.__init__ = _compiled_on_first_call(cls, fields, frozen)
    compared = [field.name for field in fields if field.compare]
    cls._record_values = staticmethod(_values_of(compared))
    cls._record_shown = tuple(field.name for field in fields if field.repr)
    cls.__eq__, cls.__repr__ = _equal, _text
    cls.__hash__ = _hash if frozen else None
    if frozen:
        cls.__setattr__, cls.__delattr__ = _refuse_assignment, _refuse_deletion
    return cls


_NO_VALUE = object()  # the default of a parameter whose field has a default factory


@dataclasses.dataclass(init=False, repr=False, eq=False)
class _Gathered:
    """dataclass's own marks for what record asks of it: its parameters and a field's kind."""

    field: int


_PARAMS = _Gathered.__dataclass_params__  # type: ignore[attr-defined]
_FIELD_KIND = dataclasses.fields(_Gathered)[0]._field_type  # type: ignore[attr-defined]
_REPLACE = getattr(_Gathered, "__replace__", None)  # Python 3.13's copy.replace
# an annotation that may name ClassVar, InitVar or KW_ONLY, which dataclass reads itself
_SPECIAL = re.compile(r"ClassVar|InitVar|KW_ONLY")


def _gathered(cls: type) -> bool:
    """The fields of cls gathered and set on it as dataclass(init=False, repr=False,
    eq=False) sets them (__dataclass_fields__, __dataclass_params__, __match_args__, each
    default as a class attribute), where every annotation is text naming none of ClassVar,
    InitVar and KW_ONLY and no base is a frozen dataclass; else nothing done (False)."""
    annotations = inspect.get_annotations(cls)
    if any(not isinstance(text, str) or _SPECIAL.search(text)
           for text in annotations.values()):
        return False
    fields: dict[str, dataclasses.Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is not None:
            if base.__dataclass_params__.frozen:  # type: ignore[attr-defined]
                return False  # dataclass refuses it, and says so
            for base_field in base_fields.values():
                fields[base_field.name] = base_field
    own = []
    for name, text in annotations.items():
        default = getattr(cls, name, dataclasses.MISSING)
        if isinstance(default, dataclasses.Field):
            field = default
        else:
            if isinstance(default, types.MemberDescriptorType):
                default = dataclasses.MISSING
            field = dataclasses.field(default=default)  # type: ignore[arg-type]
        field.name, field.type = name, text
        field._field_type = _FIELD_KIND  # type: ignore[attr-defined]
        if field.kw_only is dataclasses.MISSING:
            field.kw_only = False
        if field.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(field.default)} for field {name} is not "
                             "allowed: use default_factory")
        own.append(field)
    for field in own:
        fields[field.name] = field
        if isinstance(getattr(cls, field.name, None), dataclasses.Field):
            if field.default is dataclasses.MISSING:
                delattr(cls, field.name)
            else:
                setattr(cls, field.name, field.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    cls.__dataclass_params__ = _PARAMS  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = fields  # type: ignore[attr-defined]
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(  # type: ignore[attr-defined,misc]
            field.name for field in fields.values() if field.init and not field.kw_only)
    if _REPLACE is not None and "__replace__" not in cls.__dict__:
        cls.__replace__ = _REPLACE  # type: ignore[attr-defined]
    abc.update_abstractmethods(cls)
    return True


def _compiled_on_first_call(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool):
    """An __init__ that puts the compiled one (_init_of) in its place, then runs it."""
    def __init__(self, *args, **kwargs):
        init = _init_of(cls, fields, frozen)
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _init_of(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool):
    """The __init__ dataclass would write: each field set (through object.__setattr__ in a
    frozen class), a default factory called where its parameter is left out, then
    __post_init__ where the class has one. Classes of one shape (as many fields, with default
    factories and fields outside __init__ at the same places) share one compiled body, their
    own names put in its code and their defaults on the function: a compile costs 0.05 ms
    and 0.01 ms a field, and a command meets some eighty classes in thirty shapes."""
    shape = _shape_of(cls, fields, frozen)
    code = _CODE_OF_SHAPE.get(shape)
    if code is None:
        code = _CODE_OF_SHAPE[shape] = _compiled_shape(shape)
    names: dict[str, Any] = {"_set": object.__setattr__, "_NO_VALUE": _NO_VALUE}
    defaults = []
    for index, field in enumerate(fields):
        if field.default_factory is not dataclasses.MISSING:
            names[f"_factory_{index}"] = field.default_factory
            defaults += [_NO_VALUE] if field.init else []
        elif field.default is not dataclasses.MISSING and field.init:
            defaults.append(field.default)
    renamed = {_placeholder(index): field.name for index, field in enumerate(fields)}
    code = code.replace(
        co_varnames=tuple(renamed.get(name, name) for name in code.co_varnames),
        co_names=tuple(renamed.get(name, name) for name in code.co_names),
        co_consts=tuple(renamed.get(item, item) if isinstance(item, str) else item
                        for item in code.co_consts))
    init = types.FunctionType(code, names, "__init__", tuple(defaults) or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


_CODE_OF_SHAPE: dict[tuple, types.CodeType] = {}


def _shape_of(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool) -> tuple:
    """What a record's __init__ body depends on: whether it is frozen and has a
    __post_init__, and for each field whether it is in __init__ and has a default factory."""
    return (frozen, hasattr(cls, "__post_init__"),
            tuple((field.init, field.default_factory is not dataclasses.MISSING)
                  for field in fields))


def _placeholder(index: int) -> str:
    """The name of a shape's field `index`, replaced in its code by the class's own."""
    return f"_f{index}_"


def _compiled_shape(shape: tuple) -> types.CodeType:
    """The __init__ of a shape, its fields named by placeholders: the body record_bodies
    holds for it (a frozen record's of up to MOST_PREBUILT_FIELDS fields all in __init__
    without default factories, and every other shape a record of the package has), compiled
    with the package; else compiled here (a record defined outside the package)."""
    from . import record_bodies

    body = getattr(record_bodies, _body_name(shape), None)
    if body is not None:
        return body.__code__.replace(co_name="__init__")
    names: dict[str, Any] = {}
    exec(_shape_source(shape, "__init__"), names)  # noqa: S102 - built from placeholders
    return names["__init__"].__code__


def _shape_source(shape: tuple, name: str) -> str:
    """The source of a shape's __init__, named `name`, in lines of at most 100 characters."""
    frozen, post_init, kinds = shape

    def assign(field: str, value: str) -> str:
        return f"_set(self, {field!r}, {value})" if frozen else f"self.{field} = {value}"

    # the defaults are the function's, not its code's: _init_of gives each class its own
    parameters, lines = [], []
    for index, (init, factory) in enumerate(kinds):
        field = _placeholder(index)
        if not init:
            if factory:
                lines.append(assign(field, f"_factory_{index}()"))
            continue
        parameters.append(field)
        value = f"_factory_{index}() if {field} is _NO_VALUE else {field}" if factory else field
        lines.append(assign(field, value))
    if post_init:
        lines.append("self.__post_init__()")
    signature, line = [], ""
    for parameter in ["self", *parameters]:  # lines of at most 100 characters
        if line and len(name) + 5 + len(line) + len(parameter) + 4 > 100:
            signature.append(line + ",")
            line = ""
        line += (", " if line else "") + parameter
    indent = "\n" + " " * (len(name) + 5)
    return (f"def {name}({indent.join([*signature, line])}):\n    "
            + "\n    ".join(lines or ["pass"]) + "\n")


MOST_PREBUILT_FIELDS = 26  # the most fields of a frozen record that record_bodies holds
# a field in a body's name: in __init__ or not, with a default factory or not
_FIELD_LETTERS = {(True, False): "p", (True, True): "f", (False, False): "n", (False, True): "m"}


def _body_name(shape: tuple) -> str:
    """The name of a shape's body in record_bodies: `_frozen_N` for a frozen record of N
    fields all in __init__ without default factories, else one that spells the shape."""
    frozen, post_init, kinds = shape
    if frozen and not post_init and all(kind == (True, False) for kind in kinds):
        return f"_frozen_{len(kinds)}"
    return (f"_{'frozen' if frozen else 'plain'}{'_post' if post_init else ''}_"
            + "".join(_FIELD_LETTERS[kind] for kind in kinds))


def package_shapes() -> set[tuple]:
    """The shape of every record a module of kernelcost defines at its top level (each
    module imported)."""
    import importlib
    import pkgutil

    import kernelcost

    shapes = set()
    for found in pkgutil.walk_packages(kernelcost.__path__, "kernelcost."):
        if found.name.endswith(".__main__"):  # runs the command line
            continue
        module = importlib.import_module(found.name)
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and "_record_shown" in vars(value)):
                frozen = value.__setattr__ is _refuse_assignment
                shapes.add(_shape_of(value, dataclasses.fields(value), frozen))
    return shapes


def record_bodies_source() -> str:
    """The text of record_bodies: the __init__ body of a frozen record of 0 to
    MOST_PREBUILT_FIELDS fields, all in __init__ and without default factories, then of
    every other shape of the package's records (package_shapes), in the order of names."""
    header = (
        '"""The __init__ bodies of frozen records of up to 26 fields and of every other shape\n'
        "of the package's records (records._init_of puts each class's own names in one):\n"
        "compiled with the package, where records would compile one for each record a command\n"
        "meets. Written by records.record_bodies_source(); tests/test_records.py holds this\n"
        'file to it."""\n\n'
        "# mypy: ignore-errors\n"
        "# ruff: noqa: F821 (_set, _NO_VALUE and _factory_N are the globals of each __init__\n"
        "# made from a body)\n")
    plain = [(True, False, ((True, False),) * count) for count in range(MOST_PREBUILT_FIELDS + 1)]
    named = {_body_name(shape): shape for shape in package_shapes()}
    for shape in plain:
        named.pop(_body_name(shape), None)
    bodies = [_shape_source(shape, _body_name(shape)) for shape in plain]
    bodies += [_shape_source(named[name], name) for name in sorted(named)]
    return header + "".join("\n" + body for body in bodies)


def _refuse_assignment(self, name: str, value) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_deletion(self, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _values_of(names: list[str]):
    """The compared fields of a record as one tuple."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        get = operator.attrgetter(names[0])
        return lambda value: (get(value),)
    return lambda value: ()


def _equal(self, other) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return self._record_values(self) == other._record_values(other)


def _hash(self) -> int:
    return hash(self._record_values(self))


def _text(self) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
    return f"{self.__class__.__qualname__}({shown})"
