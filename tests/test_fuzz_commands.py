"""The command-path fuzz campaign (tests/fuzz_commands.py) as tests: a bounded sample in the
fast tier, one input of each kind through the CLI's entry point and its watchdog, and a
longer run marked slow (`pytest -m slow`). A long campaign is run from the command line:

    PYTHONPATH=src .venv/bin/python tests/fuzz_commands.py --inputs 100000 --jobs 2
"""

import os

import fuzz_commands
import pytest
from conftest import sample_spent
from fuzz_headers import planted_fraction
from fuzz_inputs import KINDS, Case, draw

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the campaign forks")
SAMPLE = int(os.environ.get("KERNELCOST_COMMAND_FUZZ", 7))


def test_a_bounded_sample_of_every_kind_ends_well():
    # seed 7: seven quick inputs (about 2 s); a `model` on h200 alone takes 4 s of CPU
    totals = fuzz_commands.campaign(seed=7, first=0, count=SAMPLE, jobs=2, log=None)
    assert totals["inputs"] == SAMPLE
    assert set(totals["by_kind"]) == set(KINDS[:SAMPLE])
    assert not totals["findings"], fuzz_commands.table(totals)


@pytest.mark.slow
def test_a_longer_campaign_ends_well():
    # in a slow sample, cut short when the sample's budget is spent, as the other campaigns
    totals = fuzz_commands.campaign(seed=3500, first=0, count=700, jobs=2, log=None,
                                    stop=sample_spent)
    assert totals["inputs"] > 0
    assert not totals["findings"], fuzz_commands.table(totals)


def test_the_cases_are_reproducible_and_cover_every_kind():
    assert [draw(1, index).kind for index in range(len(KINDS))] == list(KINDS)
    assert draw(1, 4711) == draw(1, 4711)


@pytest.mark.parametrize("stderr, exit_code, finding", [
    ("", 0, None),
    ("error[KC302]: `Q` is not a parameter\n", 2, "KC302 without a place"),
    ("--set:1:5: error[KC302]: `Q` is not a parameter\n", 2, None),
    ("internal error[KC901]: ValueError\n", 3, "exit 3"),
    ("x.py:3: RuntimeWarning: overflow\n", 0, "traceback or warning on stderr"),
    ("usage: kernelcost ...\nkernelcost: error: the following arguments are required\n", 2,
     None),
    ("", None, "hang"),
])
def test_the_judge(stderr, exit_code, finding):
    case = Case("set", "analyze", [], placed=("KC301", "KC302"))
    assert fuzz_commands.judge(case, exit_code, 1.0, stderr).finding == finding


def test_the_judge_finds_an_input_taken_that_must_be_refused():
    """A header count written as a number that is not whole (`instructions = 0.5`) was
    timed as it came, exit 0: for the `header` kind on analyze --machine, a finding."""
    case = Case("header", "analyze", [], placed=("KC321",), refused=True)
    assert fuzz_commands.judge(case, 0, 1.0, "").finding == "accepted: the input must be refused"
    assert fuzz_commands.judge(case, 2, 1.0, "x.kcost:3:4: error[KC321]: t").finding is None


@pytest.mark.parametrize("header, planted", [
    ("parallel(threads = 128, instructions = 0.5)", True),
    ("parallel(threads = 128, raster = grouped(3 / 2))", True),
    ("parallel(threads = 128, cluster i0 = 2.5)", True),
    ("parallel(threads = 128, instructions = 4 / 2)", False),
    ("parallel(threads = n / 3)", False),  # not a number: whole or not by the sizes
    ("parallel(threads = 128, width x = 0.5)", False),  # not a count
])
def test_a_planted_fraction_is_recognised(header, planted):
    text = f"kernel k(n) {{\n    for i0 in 0..n {header} {{\n    }}\n}}\n"
    assert planted_fraction(text) is planted
