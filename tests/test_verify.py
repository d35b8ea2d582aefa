"""`kernelcost check` (verify.check_against_oracle and its table): the table and the verdict
come from one comparison, a default left unset takes its value, a bound shows as a bound."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import pytest

from conftest import SPECS
from kernelcost import cli, loads
from kernelcost.analysis import load
from kernelcost.verify import check_against_oracle

# a footprint that is a bounding box: x[i] and x[2*i] are not shifted copies of one box
BOUNDING_BOX = """
kernel strided(n) {
    in  x: f32[2*n]
    out y: f32[n]
    for i in 0..n {
        y[i] = x[i] + x[2*i]
    }
}
"""


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per table row, for table_rows


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def table_rows(out: str) -> dict[str, list[str]]:
    """quantity -> the other cells of its row, from the rich table of `check`."""
    rows = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in re.split(r"[│┃]", line)[1:-1]]
        if len(cells) == 4:
            rows[cells[0]] = cells[1:]
    return rows


def test_an_unset_default_takes_its_value_in_the_table_and_the_verdict(capsys):
    # issue 9, defect 7: T = 128 left unset printed "None B ... differs", then "agree"
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled_clipped.kcost",
                       "--set", "M=5,N=7,K=9")
    assert code == cli.EXIT_OK
    assert "T = 128 (default)" in out
    assert "None" not in out and "differs" not in out
    rows = table_rows(out)
    # one tile (T = 128 > 5, 7, 9): A and B cross once, C is written once, all bf16:
    # (5*9 + 9*7 + 5*7) * 2 B = 286 B
    assert rows["traffic[global]"] == ["286 B", "286 B", "ok"]
    assert rows["work[fma]"] == ["630 FLOP", "630 FLOP", "ok"]  # 2 * 5 * 7 * 9
    assert "closed forms agree with the enumeration" in out


def test_the_table_shows_exactly_the_comparisons_the_verdict_counts():
    spec = load(SPECS / "gemm_tiled_clipped.kcost")
    (result,) = check_against_oracle(spec, {"M": "5", "N": "7", "K": "9"})
    assert result.counts.sizes["T"] == 128
    assert result.mismatches == ()
    assert all(row.closed_form is not None for row in result.rows)
    assert {row.quantity for row in result.rows} >= {"work[fma]", "traffic[global]",
                                                     "traffic[shared]"}


def test_a_bound_row_shows_as_a_bound_and_agrees(capsys, tmp_path):
    spec = tmp_path / "strided.kcost"
    spec.write_text(BOUNDING_BOX)
    code, out, _ = run(capsys, "check", spec, "--set", "n=5")
    assert code == cli.EXIT_OK
    rows = table_rows(out)
    # x touches {0..4} and {0, 2, 4, 6, 8}: 7 distinct elements; its box 0..8 holds 9
    assert rows["footprint[x].read"] == ["<= 9 elements", "7 elements", "ok (bound)"]
    # y written 5 * 4 B, x read 9 * 4 B (the box), against 7 * 4 B enumerated
    assert rows["traffic[global]"] == ["<= 56 B", "48 B", "ok (bound)"]
    assert "differs" not in out
    assert "closed forms agree with the enumeration" in out


def test_a_bound_below_the_enumeration_is_a_mismatch_in_the_table_too():
    spec = loads(BOUNDING_BOX, "strided.kcost")
    real_cost = spec.cost("spec")
    low = real_cost.traffic["global"] - 20  # 36 B < 48 B enumerated
    spec._costs["spec"] = _with_traffic(real_cost, low)  # the counted form, made wrong
    (result,) = check_against_oracle(spec, {"n": "5"})
    (mismatch,) = result.mismatches
    assert (mismatch.quantity, mismatch.closed_form, mismatch.enumerated) == (
        "traffic[global]", Fraction(36), Fraction(48))
    failing = [row for row in result.rows if not row.holds]
    assert [row.quantity for row in failing] == ["traffic[global]"]


def _with_traffic(cost, global_traffic):
    return replace(cost, traffic={**cost.traffic, "global": global_traffic})


def test_a_wrong_per_entry_form_shows_where_it_differs(capsys, monkeypatch):
    import kernelcost.analysis as analysis_module

    from kernelcost.symbols import iterator_symbol

    real_load = analysis_module.load

    def load_with_a_wrong_tile(path):
        spec = real_load(path)
        cost = spec.cost("spec")
        (scope,) = cost.scopes
        # right only for the first row of tiles: one element too many where i0 = 2
        wrong = replace(scope, read_elements={**scope.read_elements,
                                              "A": scope.read_elements["A"]
                                              + iterator_symbol("i0") / 2})
        spec._costs["spec"] = replace(cost, scopes=(wrong,))
        return spec

    monkeypatch.setattr(analysis_module, "load", load_with_a_wrong_tile)
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "M=4,N=2,K=2,T=2")
    assert code == cli.EXIT_MISMATCH
    rows = table_rows(out)
    # tiles of 2 x 2 = 4 elements of A; at i0 = 2 the wrong form says 4 + 2/2 = 5
    assert rows["scope 0 (A, B in shared) read[A], 2 entries checked"] == [
        "5 elements", "4 elements", "differs at i0=2, j0=0, k0=0"]
    assert "mismatch: scope 0 (A, B in shared) read[A] at i0=2, j0=0, k0=0" in out
    assert "agree" not in out
