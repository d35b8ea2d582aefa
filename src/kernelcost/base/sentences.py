"""A finding's sentence as data: the words of a result record with named places for its
fields, which presentation fills (present/derate_text.py). A record that declares one
(`sentence: ClassVar[Sentence]`) needs no text function of its own; a sentence whose words
depend on its figures (a clause that is there or not, a unit chosen by a kind) keeps its
function in presentation.

A place is `{field}` or `{field:unit}`, the field one of the record's:
- `{tensors}`: the value as it prints, a tuple its items joined by ", ";
- `{edge_B:B}`: the figure in SI with the unit (`4.1 MB`); units are those of UNITS;
- `{of_total:%}`: a fraction as a percentage (`16.7 %`).
- `{blocks:#block}`: a count with its noun, singular at one (`1 block`, `4 blocks`).
The record holds the words and the figures; only presentation formats a figure."""

from __future__ import annotations

from .records import record

# the units a place may print a figure in, and `%`, a fraction as a percentage
UNITS = frozenset({"B", "B/s", "s", "FLOP", "FLOP/s", "%"})
COUNT = "#"  # `{field:#noun}`: the field is a count of the noun


def is_place_unit(unit: str) -> bool:
    """Whether a place may carry this unit: one of UNITS, or a count's `#noun`."""
    return unit in UNITS or (unit.startswith(COUNT) and unit[len(COUNT):].replace(" ", "")
                             .isalpha())


@record
class Sentence:
    """The words, with `{field}` and `{field:unit}` places (the module docstring)."""

    template: str
