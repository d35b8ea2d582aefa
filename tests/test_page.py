"""The printed page (issue 16, items 2, 7 and 8): sentences wrapped between words with a
number on the line of its unit, tables that leave out optional columns rather than wrap a row,
the regime and the chapter's zone in one clause, capacities in binary units and rates in
decimal SI. The goldens of every command at 80 and 120 columns are in test_golden.py."""

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from kernelcost import cli
from kernelcost.present.report import page
from kernelcost.present.report.page import Column, fitted_table, left_out_note, wrap

SPECS = Path(__file__).resolve().parent.parent / "specs"


def text_of(capsys, monkeypatch, columns: int, *argv) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert cli.main([str(a) for a in argv]) == cli.EXIT_OK
    return capsys.readouterr().out


def test_a_number_stays_with_its_unit_and_the_lines_hang():
    line = ("memory-bound on H100 BF16: I_shared = 0.5 FLOP/B is 0.0152× the shared ridge "
            "(33 FLOP/B)")
    wrapped = wrap(line, 78).splitlines()
    # at 78 columns the break falls between "(33" and "FLOP/B)": the pair moves down whole
    first = "memory-bound on H100 BF16: I_shared = 0.5 FLOP/B is 0.0152× the shared ridge"
    assert wrapped == [first, "  (33 FLOP/B)"]
    label = wrap("program    maximise x_i + x_j + x_k subject to x_i + x_j <= 1", 40)
    assert label.splitlines()[1] == " " * 11 + "subject to x_i + x_j <= 1"  # under the text


def test_a_word_longer_than_the_page_is_not_split():
    url = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/x.html"
    assert wrap(f"[1]  see {url}", 40).splitlines() == ["[1]  see", f"     {url}"]


def test_a_narrow_table_leaves_out_its_optional_columns_last_first():
    columns = [Column("name"), Column("first", optional=True), Column("second", optional=True)]
    rows = [["a" * 10, "b" * 20, "c" * 20]]
    _, left_out = fitted_table("t", columns, rows, 40)
    assert left_out == ["second"]  # 10 + 20 + 3 fits 40; 10 + 20 + 20 + 6 does not
    _, left_out = fitted_table("t", columns, rows, 20)
    assert left_out == ["first", "second"]
    _, left_out = fitted_table("t", columns, rows, None)
    assert left_out == [] and left_out_note(left_out) is None
    assert left_out_note(["attainable FLOP/s"]) == "(--wide adds: attainable FLOP/s)"


# cells as the reports write them: units, signs, wide and combining characters, markup-like
# brackets and emoji codes, a header's unit on a second line
CELLS = st.text(st.sampled_from("ab 1.5×µ→≤∞[]/:é中"), max_size=12)


def printed(renderable, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.file.getvalue()


@settings(max_examples=150)
@given(st.lists(st.tuples(CELLS, CELLS, st.booleans()), min_size=1, max_size=6),
       st.lists(st.lists(st.one_of(CELLS, st.none()), min_size=6, max_size=6), max_size=4),
       st.integers(5, 80))
def test_the_width_a_table_is_fitted_to_is_the_width_rich_measures(headers, rows, width):
    columns = [Column(f"{index}{name}\n{unit}" if unit else f"{index}{name}", optional=optional)
               for index, (name, unit, optional) in enumerate(headers)]
    rows = [row[:len(columns)] for row in rows]
    table, left_out = fitted_table("t", columns, rows, width)
    kept = [index for index, column in enumerate(columns)
            if column.header.replace("\n", " ") not in left_out]
    # the widths given to rich are those it finds measuring the cells itself, on a page
    # wide enough and on one it must narrow the table to
    sized = [printed(table, page_width) for page_width in (100_000, width)]
    for column in table.columns:
        column.width = None
    assert sized == [printed(table, page_width) for page_width in (100_000, width)]
    measured = Console(width=100_000).measure(table).maximum
    content = page._content_widths(columns, rows)
    assert page._natural_width([content[index] for index in kept]) == measured
    # leaving out a column more was not needed, or there was none left to leave out
    assert measured <= width or not any(columns[index].optional for index in kept)


def test_a_cell_is_printed_as_it_is_written():
    # rich reads a str as markup and emoji codes: `[b]` would be a tag, `:smile:` an emoji
    cells = ["Q[b]", "[bold]x[/bold]", ":smile:", r"a\[b]"]
    table, _ = fitted_table("t", [Column(f"c{index}") for index in range(4)], [cells], None)
    assert printed(table, 200).splitlines()[-1].split() == cells


def test_a_crossing_whose_side_is_undecided_is_a_blank_cell():
    # a root that holds sizes left unset (flash_attention_causal's l2 crossing in S with its
    # tiles unset): which side of it is compute-bound is not decided, and the table's cell for
    # it is None (blank in rich)
    import sympy

    from kernelcost.answers.solve import Crossing
    from kernelcost.present.report.solve_report import _crossing_cells

    br = sympy.Symbol("Br", positive=True, integer=True)
    crossing = Crossing("h100", "bf16", "l2", "S", 3 * br, 3 * br, sympy.true, sympy.oo, None,
                        sympy.Integer(99))
    assert _crossing_cells(crossing) == ("S = 3*Br", None)


def test_solve_at_80_columns_cuts_no_cell_and_moves_long_formulas_under_the_table(
        capsys, monkeypatch):
    # eight machines' crossings of gemm in N, formulas in K and M: the crossing column cut
    # them short ("N = 312000*K*M/(2039*K*M - 312000*K - 3120…"), and the level and ridge
    # columns with them ("g…", "29…")
    out = text_of(capsys, monkeypatch, 80, "solve", SPECS / "gemm.kcost", "--for", "N",
                  "--machine", "all")
    assert "…" not in out and max(map(len, out.splitlines())) <= 80
    assert "A100 BF16       global      153   [1]" in out
    assert "[1] N = 312000*K*M/(2039*K*M - 312000*K - 312000*M)" in out


def test_compute_bound_in_the_mixed_zone_reads_as_one_position(capsys, monkeypatch):
    # gemm 4096 on H100: I = 4096/3 = 1365 FLOP/B against the 295.5 ridge (990 TFLOP/s over
    # 3.35 TB/s): 4.62x, compute-bound and inside the chapter's 0.1x..10x mixed zone
    out = text_of(capsys, monkeypatch, 200, "analyze", SPECS / "gemm.kcost", "--set",
                  "M=4096,N=4096,K=4096", "--machine", "h100", "--no-verify")
    assert ("compute-bound at global, 4.62× the ridge: in the mixed zone (0.1× to 10×), both "
            "levers count: fewer bytes and faster arithmetic.") in out
    assert "mixed at global" not in out and "near the ridge" not in out


def test_the_memory_zone_names_its_span(capsys, monkeypatch):
    # gemm_tiled N = 8192 binds at shared: I = 1/2 against the 33 ridge, 0.0152x < 0.1x
    out = text_of(capsys, monkeypatch, 200, "analyze", SPECS / "gemm_tiled.kcost", "--set",
                  "M=N,K=N,N=8192", "--machine", "h100", "--no-verify")
    assert ("memory-bound at shared, 0.0152× the ridge: in the clearly memory-bound zone "
            "(under 0.1×), bytes are the limit") in out


def test_capacities_binary_rates_decimal(capsys, monkeypatch):
    # h100.toml: L2 52428800 B = 50 MiB, shared 233472 B = 228 KiB per SM, HBM 3.35e12 B/s
    out = text_of(capsys, monkeypatch, 200, "machines", "h100")
    assert "50 MiB per device" in out and "228 KiB per SM" in out
    assert "3.35 TB/s" in out and "52.4 MB" not in out and "233 kB" not in out
    out = text_of(capsys, monkeypatch, 200, "machines")
    assert "MiB" in out.split("\n")[1] + out.split("\n")[2]  # the L2 column's unit
    out = text_of(capsys, monkeypatch, 200, "solve", SPECS / "gemm_tiled.kcost", "--for", "T",
                  "--set", "M=N,K=N,N=8192", "--machine", "h100")
    assert "228 KiB/SM" in out and "50 MiB" in out
    out = text_of(capsys, monkeypatch, 200, "bound", SPECS / "gemm_hopper.kcost", "--level",
                  "l2", "--machine", "h100")
    assert "S = 50 MiB" in out


def test_the_working_set_and_l2_are_binary(capsys, monkeypatch):
    # gemm 4096 bf16: 3 x 4096^2 x 2 B = 96 MiB, under B200's 126.5 MiB of L2
    out = text_of(capsys, monkeypatch, 200, "analyze", SPECS / "gemm.kcost", "--set",
                  "M=4096,N=4096,K=4096", "--machine", "b200", "--no-verify")
    assert "the working set (96 MiB) fits in L2 (126 MiB)" in out


def test_wide_shows_every_column_at_any_width(capsys, monkeypatch):
    narrow = text_of(capsys, monkeypatch, 80, "analyze", SPECS / "gemm.kcost", "--set",
                     "M=4096,N=4096,K=4096", "--machine", "all", "--no-verify")
    assert "(--wide adds: attainable FLOP/s)" in narrow and "2.25P" not in narrow
    wide = text_of(capsys, monkeypatch, 80, "analyze", SPECS / "gemm.kcost", "--set",
                   "M=4096,N=4096,K=4096", "--machine", "all", "--no-verify", "--wide")
    assert "--wide adds" not in wide and "2.25P" in wide  # B200: 2250 TFLOP/s bf16 tensor


def test_a_zone_decided_at_every_size_is_said_without_a_ratio(capsys, monkeypatch):
    # conv3x3 with n symbolic on an L40S: I(n) < 9/4 FLOP/B, under 0.1x of the 5725/54 ridge
    # (91.6 TFLOP/s fp32 over 864 GB/s) at every n, though the ratio itself has no number
    out = text_of(capsys, monkeypatch, 200, "analyze", SPECS / "conv3x3.kcost", "--machine",
                  "l40s", "--no-verify")
    assert ("memory-bound at global at every size: in the clearly memory-bound zone "
            "(under 0.1×), bytes are the limit") in out
    # reduce_sum with n symbolic on an RTX 4090 (L2 bandwidth unknown): the same at global
    out = text_of(capsys, monkeypatch, 200, "analyze", SPECS / "reduce_sum.kcost", "--machine",
                  "rtx4090", "--no-verify")
    assert "memory-bound at global at every size: in the clearly memory-bound zone" in out
