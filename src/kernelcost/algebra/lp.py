"""A small exact simplex over Fractions: maximise c.x subject to A x <= b, x >= 0.

Written here because sympy 1.14's `lpmax` stops with "Oscillating system" on the degenerate
programs of the HBL bound (every constraint's right side is 1, many vertices coincide).
Two phases (artificial variables for rows with b < 0) and Bland's rule, which never cycles
on degenerate vertices; the programs have a handful of rows, so dense rows are fine."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

Number = Fraction | int  # or anything else Fraction takes exactly (a sympy Rational)


class Unbounded(ValueError):
    """The objective grows without limit on the feasible set."""


class Infeasible(ValueError):
    """No x satisfies the constraints."""


def maximise(c: Sequence[Number], A: Sequence[Sequence[Number]],
             b: Sequence[Number]) -> tuple[Fraction, list[Fraction]]:
    """max c.x s.t. A x <= b, x >= 0; returns (the optimum, an optimal vertex)."""
    n, m = len(c), len(A)
    costs = [Fraction(v) for v in c]
    # columns: x (n), slacks (m), artificials (one per row with b < 0)
    rows: list[list[Fraction]] = []
    basis: list[int] = []
    artificial: list[int] = []
    width = n + m + sum(1 for v in b if Fraction(v) < 0)
    next_artificial = n + m
    for i in range(m):
        row = [Fraction(v) for v in A[i]] + [Fraction(0)] * (width - n)
        row[n + i] = Fraction(1)
        rhs = Fraction(b[i])
        if rhs < 0:
            row = [-v for v in row]
            rhs = -rhs
            row[next_artificial] = Fraction(1)
            basis.append(next_artificial)
            artificial.append(next_artificial)
            next_artificial += 1
        else:
            basis.append(n + i)
        rows.append(row + [rhs])
    if artificial:
        phase1 = [Fraction(0)] * width
        for column in artificial:
            phase1[column] = Fraction(-1)  # maximise -(sum of artificials)
        value = _run(rows, basis, phase1, set())
        if value < 0:
            raise Infeasible("no point satisfies the constraints")
        for position, column in enumerate(basis):  # drive zero artificials out of the basis
            if column in artificial:
                pivot = next((j for j in range(n + m) if rows[position][j] != 0), None)
                if pivot is not None:
                    _pivot(rows, basis, position, pivot)
    objective = costs + [Fraction(0)] * (width - n)
    value = _run(rows, basis, objective, set(artificial))
    x = [Fraction(0)] * n
    for position, column in enumerate(basis):
        if column < n:
            x[column] = rows[position][-1]
    return value, x


def minimise(c: Sequence[Number], A: Sequence[Sequence[Number]],
             b: Sequence[Number]) -> tuple[Fraction, list[Fraction]]:
    value, x = maximise([-Fraction(v) for v in c], A, b)
    return -value, x


def _run(rows: list[list[Fraction]], basis: list[int], objective: list[Fraction],
         banned: set[int]) -> Fraction:
    """Pivot to the optimum of `objective` (Bland: lowest entering and leaving indices)."""
    while True:
        reduced = [objective[j] - sum(objective[basis[i]] * rows[i][j]
                                      for i in range(len(rows)))
                   for j in range(len(objective))]
        entering = next((j for j, r in enumerate(reduced) if r > 0 and j not in banned), None)
        if entering is None:
            return sum((objective[basis[i]] * rows[i][-1] for i in range(len(rows))),
                       Fraction(0))
        ratios = [(rows[i][-1] / rows[i][entering], basis[i], i)
                  for i in range(len(rows)) if rows[i][entering] > 0]
        if not ratios:
            raise Unbounded("the objective grows without limit")
        _, _, leaving = min(ratios)
        _pivot(rows, basis, leaving, entering)


def _pivot(rows: list[list[Fraction]], basis: list[int], position: int, column: int) -> None:
    pivot = rows[position][column]
    rows[position] = [v / pivot for v in rows[position]]
    for i, row in enumerate(rows):
        if i != position and row[column] != 0:
            factor = row[column]
            rows[i] = [a - factor * p for a, p in zip(row, rows[position])]
    basis[position] = column
