"""`check` tables and the self-verification note and error."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...analysis.api import Spec
from .page import Column, fitted_table

if TYPE_CHECKING:
    from ...analysis.verify import CheckResult, Verification
    from ...oracle import Comparison


# --- check ----------------------------------------------------------------------------------


def check_tables(spec: Spec, results: list[CheckResult], width: int | None = None,
                 rows: bool = False) -> list:
    """One table of the samples, a row each (its sizes, the quantities compared, how many as
    bounds, whether they agree), then each sample whose closed forms differ, or every sample
    with `rows`, as a table of its comparisons (a fitted table, report.page) and its verdict:
    both read the same rows, so a table can never show a difference that the verdict
    missed."""
    tables = [summary_table(spec, results, width)]
    shown = [result for result in results if rows or result.mismatches]
    tables += sample_tables(spec, shown, width)
    if not shown:
        from rich.text import Text

        tables.append(Text("(--rows adds each sample's comparisons, a quantity a row)"))
    return tables


def summary_table(spec: Spec, results: list[CheckResult], width: int | None):
    """The samples, one a row: a column a size, then the quantities compared."""
    from rich.text import Text

    names = [name for name in results[0].counts.sizes if name in spec.parameters]
    columns = [*(Column(name, "right") for name in names), Column("quantities", "right"),
               Column("as bounds", "right"), Column("closed forms\nvs enumeration")]
    table_rows: list[list] = []
    for result in results:
        quantities = {row.quantity for row in result.rows}
        bounds = len({row.quantity for row in result.rows if row.relation != "=="})
        differ = len({row.quantity for row in result.rows if not row.holds})
        table_rows.append([*(str(result.counts.sizes[name]) for name in names),
                           str(len(quantities)), str(bounds),
                           Text(f"{differ} differ", style="red") if differ
                           else Text("agree", style="green")])
    samples = f"{len(results)} sample" + ("s" if len(results) > 1 else "")
    return fitted_table(f"{spec.name}, {samples}", columns, table_rows, width)


def sample_tables(spec: Spec, results: list[CheckResult], width: int | None) -> list:
    """Each sample's comparisons, a row a quantity, then its verdict."""
    from rich.text import Text

    tables = []
    for result in results:
        table, scopes = _check_table(spec, result, width)
        tables.append(table)
        if scopes:
            tables.append(Text("; ".join(f"scope {index}: {what}"
                                         for index, what in scopes.items())))
        for mismatch in result.mismatches:
            tables.append(Text(f"mismatch: {mismatch}", style="red"))
        if not result.mismatches:
            bounds = len({row.quantity for row in result.rows if row.relation != "=="})
            note = f" ({bounds} of the quantities as bounds)" if bounds else ""
            tables.append(Text(f"closed forms agree with the enumeration{note}",
                               style="green"))
    return tables


CHECK_COLUMNS = [Column("quantity"), Column("closed form", "right"),
                 Column("enumerated", "right"), Column("")]
# `scope 0 (A, B in shared) read[A]`: the scope's contents go to a note under the table
_SCOPE_LABEL = re.compile(r"scope (\d+) \(([^)]*)\) (.*)")


def _check_table(spec: Spec, result: CheckResult, width: int | None):
    """The fitted table, and what each scope keeps where (`A, B in shared`) by its index."""
    from rich.text import Text

    sizes = ", ".join(f"{name} = {value}" + ("" if name in result.sizes else " (default)")
                      for name, value in result.counts.sizes.items() if name in spec.parameters)
    rows, scopes = [], {}
    for label, row, where in _check_rows(result.rows):
        scope = _SCOPE_LABEL.fullmatch(label)
        if scope is not None:
            index, what, quantity = scope.groups()
            scopes[int(index)] = what
            label = f"scope {index} {quantity}"
        closed = "no number" if row.closed_form is None else _counted(row.closed_form, row.unit)
        if row.relation != "==" and row.closed_form is not None:
            closed = f"{_BOUND_SIGN[row.relation]} {closed}"
        rows.append([Text(label), closed, _counted(row.enumerated, row.unit),
                     _check_status(row, where)])
    return fitted_table(f"{spec.name} at {sizes}", CHECK_COLUMNS, rows, width), scopes


_BOUND_SIGN = {">=": "<=", "<=": ">="}  # what the closed form says of the enumerated value
_ONE = {"elements": "element", "blocks": "block"}  # the units that are counts of a noun


def _counted(value: object, unit: str) -> str:
    """A value with its unit, a counted noun singular at one (`1 element`, `4 elements`)."""
    return f"{value} {_ONE.get(unit, unit) if value == 1 else unit}"


def _check_rows(rows: tuple[Comparison, ...]) -> Iterator[tuple[str, Comparison, str]]:
    """(label, row shown, where it fails) per quantity: the rows checked at several points
    (a scope's entries, a grid's blocks) become one line showing the first point that fails,
    or the first point when all hold."""
    entries: dict[str, list] = {}
    for row in rows:
        if row.where:
            entries.setdefault(row.quantity, []).append(row)
    shown = set()
    for row in rows:
        if not row.where:
            yield row.quantity, row, ""
        elif row.quantity not in shown:
            shown.add(row.quantity)
            group = entries[row.quantity]
            failing = [entry for entry in group if not entry.holds]
            first = failing[0] if failing else group[0]
            label = f"{row.quantity} ({len(group)} points)"
            yield label, first, first.where if failing else ""


def _check_status(row: Comparison, where: str):
    from rich.text import Text

    at = f" at {where}" if where else ""
    if row.holds:
        return Text("ok" if row.relation == "==" else "ok (bound)", style="green")
    if row.closed_form is None:
        return Text(f"no number{at}", style="red")
    wrong = {"==": "differs", ">=": "below the enumeration", "<=": "above the enumeration"}
    return Text(wrong[row.relation] + at, style="red")


# --- self-verification (analyze) ------------------------------------------------------------


def verification_json(verified: Verification | None) -> dict | None:
    """`verified` of the analyze JSON: null when verification was turned off."""
    if verified is None:
        return None
    failure = verified.failure
    return {"samples": verified.samples, "agree": verified.agree, "skipped": verified.skipped,
            "failed_at": dict(failure.sizes) if failure else None,
            "mismatches": [str(m) for m in failure.mismatches] if failure else []}


def verification_note(verified: Verification) -> str:
    """One line for the terminal and Markdown reports."""
    sizes = "size" if verified.samples == 1 else "sizes"
    if verified.agree is False:
        assert verified.failure is not None  # a disagreement has its assignment
        return (f"verification failed: the closed forms disagree with enumeration at "
                f"{_sizes_text(verified.failure.sizes)}")
    if verified.skipped is None:
        return (f"verified: the closed forms agree with enumeration at {verified.samples} "
                f"small {sizes}")
    if verified.samples:
        return (f"verified at {verified.samples} small {sizes} only: {verified.skipped}")
    return f"not verified: {verified.skipped}"


def verification_error(verified: Verification) -> str:
    """The error `analyze` prints when a closed form disagrees with the enumeration."""
    lines = [f"error: {verification_note(verified)}"]
    assert verified.failure is not None  # asked only of a failed verification
    lines += [f"  {mismatch}" for mismatch in verified.failure.mismatches]
    lines.append("  hint: this is a bug in kernelcost; please report it with the spec "
                 "(`kernelcost check` shows the comparison; --no-verify prints the forms)")
    return "\n".join(lines)


def _sizes_text(sizes: dict[str, int]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in sizes.items())
