"""Frozen dataclasses that compile three methods where dataclass compiles six.

`@dataclass(frozen=True)` writes six methods of every class as source and compiles each
(__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__ on Python 3.11), some 0.7 ms
a class; a command defines about 90 such classes, 20 to 25 ms of its CPU before any work.
`record` keeps dataclass's __init__ and its guards against assignment, and gives every
record the same __eq__, __hash__ and __repr__, which read the fields each class lists once:
equal when of one class with equal compared fields, hashed by those fields, shown as
dataclass shows them."""

from __future__ import annotations

import dataclasses
import operator


def record(cls: type) -> type:
    """dataclass(frozen=True), its equality, hash and text shared rather than compiled."""
    cls = dataclasses.dataclass(cls, frozen=True, eq=False, repr=False)
    fields = dataclasses.fields(cls)
    compared = [field.name for field in fields if field.compare]
    cls._record_values = staticmethod(_values_of(compared))
    cls._record_shown = tuple(field.name for field in fields if field.repr)
    cls.__eq__, cls.__hash__, cls.__repr__ = _equal, _hash, _text
    return cls


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
