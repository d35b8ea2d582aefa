"""One function of sympy's that kernelcost puts its own in place of (sympy_scope says when):
where it lives, and how it is put there and taken back."""

from __future__ import annotations

import enum
from collections.abc import Callable

from ..base.records import record


class Slot(enum.Enum):
    """Where a replaced function lives."""

    ATTRIBUTE = "attribute"  # a module's or a class's attribute, a plain function
    CLASSMETHOD = "classmethod"  # a class's classmethod, replaced by one
    ITEM = "item"  # an entry of a dispatch table (a dict)
    PROPERTY = "property"  # a class's property, replaced by one with another getter


@record
class Patch:
    owner: object  # a module, a class, or a dict for Slot.ITEM
    name: str
    ours: Callable
    slot: Slot = Slot.ATTRIBUTE

    def sympys(self) -> Callable:
        """sympy's own function in this place."""
        if self.slot is Slot.ITEM:
            return self.owner[self.name]  # type: ignore[index]
        if self.slot is Slot.PROPERTY:
            return vars(self.owner)[self.name].fget
        own = getattr(self.owner, self.name)
        return own.__func__ if self.slot is Slot.CLASSMETHOD else own

    def stored(self) -> object:
        """What the place holds itself (MISSING where a class inherits it)."""
        if self.slot is Slot.ITEM:
            return self.owner[self.name]  # type: ignore[index]
        return vars(self.owner).get(self.name, MISSING)

    def put(self, function: Callable) -> None:
        if self.slot is Slot.ITEM:
            self.owner[self.name] = function  # type: ignore[index]
        elif self.slot is Slot.PROPERTY:
            setattr(self.owner, self.name, property(function))
        else:
            setattr(self.owner, self.name,
                    classmethod(function) if self.slot is Slot.CLASSMETHOD else function)

    def restore(self, stored: object) -> None:
        if self.slot is Slot.ITEM:
            self.owner[self.name] = stored  # type: ignore[index]
        elif stored is MISSING:
            delattr(self.owner, self.name)
        else:
            setattr(self.owner, self.name, stored)


MISSING = object()  # a class that inherits the function holds none of its own
