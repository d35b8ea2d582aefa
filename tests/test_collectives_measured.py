"""The collectives model against published measurements (validate/published/collectives.csv):
every row sound (its topology and GPUs exist, its size is positive, its time is its published
value converted, its side is SPLIT.md's rule), the comparison well defined for every row, and
docs/collectives.md's table exactly what tests/collectives_measured.py computes."""

import math
import re

import pytest
from collectives_measured import (
    CSV,
    DOC,
    compare,
    compare_all,
    doc_block,
    expected_time,
    p90,
    read_rows,
    render,
    summary,
)

from kernelcost.answers.collectives import Algorithm, Collective, Protocol
from kernelcost.answers.published import read_corpus
from kernelcost.hardware.topology import builtin_topology_ids, load_topology

ALGORITHMS = {"NVLS", "any", "custom"}
SPLIT_MD = CSV.parent / "SPLIT.md"


@pytest.fixture(scope="module")
def rows():
    return read_rows()


@pytest.fixture(scope="module")
def compared(rows):
    return compare_all(rows)


def test_every_row_is_sound(rows):
    assert len(rows) >= 100
    shipped = set(builtin_topology_ids())
    for row in rows:
        f = row.fields
        where = f"collectives.csv line {row.line}"
        assert f["topology"] in shipped, where
        topology = load_topology(f["topology"])
        assert 2 <= row.gpus <= topology.gpus, where
        assert row.size_B > 0, where
        assert row.collective in set(Collective), where
        assert f["algorithm"] in ALGORITHMS, where
        assert f["source"] and f["citation"] and f["part"] and f["timed"], where
        assert math.isfinite(row.time_s) and row.time_s > 0, where
        # the time is the published value converted, to the CSV's six digits
        assert row.time_s == pytest.approx(expected_time(row), rel=1e-5), where


def test_each_side_is_the_rule_of_split_md(rows):
    assert "## collectives.csv" in SPLIT_MD.read_text(encoding="utf-8")
    for row in rows:
        rule = ("calibration" if row.fields["source"] == "sglang-pr2904" and row.size_B == 2048
                else "validation")
        assert row.fields["split"] == rule, f"collectives.csv line {row.line}"
    calibration = [row for row in rows if row.fields["split"] == "calibration"]
    assert len(calibration) == 6
    assert sum(row.fields["split"] == "validation" for row in rows) > 0.9 * len(rows)


def test_the_calibration_rows_are_what_the_topology_files_read(rows):
    # custom_allreduce_s of hgx_h100 is the TensorRT-LLM row at 512 elements: the model's
    # one-shot there is the measured time plus the bytes' few nanoseconds
    for row in rows:
        if row.fields["split"] == "calibration" and "TensorRT-LLM" in row.fields["implementation"]:
            result = compare(row)
            assert result.way.algorithm is Algorithm.ONE_SHOT
            assert result.error == pytest.approx(0, abs=0.01)


def test_each_row_is_compared_with_the_way_it_ran(compared):
    for c in compared:
        algorithm = c.row.fields["algorithm"]
        if algorithm == "NVLS":
            assert c.way.algorithm is Algorithm.NVLS
        elif algorithm == "custom":
            assert c.way.protocol is Protocol.CUSTOM
        else:
            assert c.way.protocol is not Protocol.CUSTOM
        assert c.model_s > 0 and math.isfinite(c.error)


def test_the_page_holds_the_table_the_code_computes(compared):
    text = DOC.read_text(encoding="utf-8")
    assert doc_block(text) == render(compared), (
        "docs/collectives.md is stale: run tools/regen_measured_docs.py")


def test_the_page_names_every_source(rows):
    text = DOC.read_text(encoding="utf-8")
    for source in {row.fields["source"] for row in rows}:
        assert f"`{source}`" in text, source


def test_the_kernel_corpus_leaves_the_collectives_file_out():
    assert all(row.file.name != CSV.name for row in read_corpus())


def test_p90_is_linear_between_order_statistics():
    assert p90([1.0]) == 1.0
    assert p90([float(v) for v in range(11)]) == pytest.approx(9.0)
    assert p90([0.0, 1.0]) == pytest.approx(0.9)


def test_the_pages_headline_is_the_validation_summary(compared):
    [line] = [s for s in summary(compared) if s[1] == "all" and s[2] == "validation"]
    _, _, _, count, median, ninety = line
    low = sum(c.error < 0 for c in compared if c.row.fields["split"] == "validation")
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    headline = re.search(r"validation side, (\d+) rows: median \|error\| (\d+) %, p90 (\d+) %; "
                         r"the model is low on (\d+) of them", text)
    assert headline is not None
    assert tuple(int(g) for g in headline.groups()) == (
        count, round(median * 100), round(ninety * 100), low)
