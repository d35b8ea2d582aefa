"""Every command on every shipped spec, and on specs whose counts hold Max and Min (issue
15.10, 15.11): analyze, solve --for each size, sweep and plot --sweep each end in exit 0 or in
a clear exit-2 error, never in "internal error" or a hang (solve for every size: some 20 s
of CPU in all; a shipped spec's `analyze --json` is test_verify's, which also checks its
verification; a shipped spec's plot is in the slow tier). Called in process
(kernelcost.cli.main): a subprocess a call would cost a second of start-up each."""

import functools
import re
from pathlib import Path

import pytest

import kernelcost
from kernelcost.cli import main

ROOT = Path(__file__).resolve().parent
SPECS = sorted((ROOT.parent / "specs").glob("*.kcost")) + sorted(
    (ROOT / "specs_minmax").glob("*.kcost"))
SIZE = "1024"  # every size not swept or solved for, and not a tile with a default (kept): a
# multiple of every shipped tile (decode_attention: P * TL = 1024), so that no `assume d | n`
# is broken where a verdict is drawn (a verdict refuses such sizes, KC317)


@pytest.fixture(scope="module", autouse=True)
def specs_read_once():
    """Each spec parsed, checked and counted once a process, not once a command: a command
    reads its spec through api.load, the Spec it returns counts a reuse mode once, and a spec
    is solved for each of its sizes (a quarter to a third of a light spec's solve went to
    reading and counting it again). Every command still runs from its command line to its
    exit code."""
    from kernelcost.analysis import api

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "load", functools.cache(api.load))
        yield


def read(spec: Path) -> kernelcost.Spec:
    from kernelcost.analysis import api

    return api.load(str(spec))  # the commands' own (cached) reading of the file


def parameters(spec: Path) -> list[str]:
    return list(read(spec).parameters)


def run(arguments, capsys) -> int:
    code = main(arguments)
    err = capsys.readouterr().err
    assert code in (0, 2), f"{arguments}: exit {code}\n{err}"
    assert "internal error" not in err and "Traceback" not in err
    if code == 2:
        assert re.search(r"error\[KC[1-8]\d\d\]: ", err), err
    return code


def others(names: list[str], chosen: str, spec: Path | None = None) -> list[str]:
    tiles = set() if spec is None else {str(p) for p in read(spec).checked.defaults}
    settings = [f"{name}={SIZE}" for name in names if name != chosen and name not in tiles]
    return ["--set", ",".join(settings)] if settings else []


def sweep(spec: Path, names: list[str], capsys) -> int:
    """The first size swept over 8..4096; where the spec's `assume` makes it a multiple of
    more than that range holds, the refusal (KC308) names a range that holds one, which must
    then sweep."""
    swept = names[0]

    def command(extent: str) -> list[str]:
        return ["sweep", str(spec), "--sweep", f"{swept}={extent}", "--points", "5",
                "--machine", "h100", "--csv", *others(names, swept)]

    code = main(command("8..4096"))
    err = capsys.readouterr().err
    if code != 2:
        return code
    hint = re.search(rf"a range that holds one: {swept}=(\S+)", err)
    assert "error[KC308]: no multiple of" in err and hint is not None, err
    return run(command(hint.group(1)), capsys)


@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
def test_every_command_on_the_spec(spec, capsys, tmp_path):
    names = parameters(spec)
    if spec.parent.name != "specs":  # a shipped spec's `analyze --json`: test_verify's
        assert run(["analyze", str(spec), "--json"], capsys) == 0
    # the first size's crossings (their JSON: test_json_everywhere); the others' in the slow tier
    run(["solve", str(spec), "--for", names[0], "--machine", "h100"], capsys)
    assert sweep(spec, names, capsys) == 0
    if spec.parent.name != "specs":  # a shipped spec's figure: the slow twin below
        plot(spec, capsys, tmp_path)


# The slow tier: a shipped spec's figure draws the sweep and the first size's crossings that
# the test above computes for every spec in the fast tier, and test_plot and test_plot_marks
# draw and place a dozen shipped specs with their figures' numbers checked; what is left, the
# drawing of each shipped spec, cost 0.6 s of CPU a spec (33 s, 7 % of the fast tier's).
@pytest.mark.slow
@pytest.mark.parametrize("spec", [spec for spec in SPECS if spec.parent.name == "specs"],
                         ids=lambda path: path.stem)
def test_every_shipped_spec_plots(spec, capsys, tmp_path):
    plot(spec, capsys, tmp_path)


def plot(spec: Path, capsys, folder: Path) -> None:
    names = parameters(spec)
    assert run(["plot", str(spec), "--machine", "h100", "--sweep", f"{names[0]}=8..4096",
                *others(names, names[0], spec), "-o", str(folder / "figure.svg")], capsys) == 0


@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
def test_solve_for_every_size_of_the_spec(spec, capsys):
    for name in parameters(spec)[1:]:
        run(["solve", str(spec), "--for", name, "--machine", "h100"], capsys)


@pytest.mark.parametrize("spec", sorted((ROOT / "specs_minmax").glob("*.kcost")),
                         ids=lambda path: path.stem)
def test_solve_with_max_answers_once_the_other_sizes_are_set(spec, capsys):
    names = parameters(spec)
    for name in names:
        assert run(["solve", str(spec), "--for", name, "--machine", "h100",
                    *others(names, name)], capsys) == 0


def test_cross_stencil_limit_and_leading_term(capsys):
    import json

    assert main(["analyze", str(ROOT / "specs_minmax" / "cross.kcost"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["intensity"]["global"]["limit"] == "3/16"
    assert document["traffic"]["global"]["leading"] == "16*N**2"


def test_vectorized_max_and_min_of_several_arguments():
    import numpy
    import sympy

    from kernelcost.present.vectorize import vectorized

    n = sympy.Symbol("n", positive=True)
    function = vectorized(sympy.Max(0, n - 4) + sympy.Min(3, n, n ** 2), n)
    assert list(function(numpy.array([1.0, 5.0]))) == [1.0, 4.0]
