"""Without the plot extra (`pip install kernelcost`), `plot` says how to install it and exits
2, and `roofline()` raises a KcostError with the same hint (issue 16, item 10)."""

import builtins
import sys
from pathlib import Path

import pytest

import kernelcost
from kernelcost import cli
from kernelcost.base.errors import KcostError

SPECS = Path(__file__).resolve().parent.parent / "specs"


@pytest.fixture
def no_matplotlib(monkeypatch):
    real_import = builtins.__import__

    def refusing(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return real_import(name, *args, **kwargs)

    for name in [m for m in list(sys.modules) if m.split(".")[0] == "matplotlib"]:
        monkeypatch.delitem(sys.modules, name)  # restored after the test
    monkeypatch.setattr(builtins, "__import__", refusing)


def test_plot_says_how_to_install_the_extra(no_matplotlib, capsys, tmp_path):
    code = cli.main(["plot", str(SPECS / "gemm.kcost"), "--machine", "h100",
                     "-o", str(tmp_path / "fig.svg")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USER_ERROR
    assert "pip install 'kernelcost[plot]'" in err
    assert "internal error" not in err
    assert not (tmp_path / "fig.svg").exists()


def test_roofline_raises_the_same_hint(no_matplotlib):
    analysis = kernelcost.analyze(SPECS / "gemm.kcost", {"M": 4096, "N": 4096, "K": 4096},
                                  verify=False)
    with pytest.raises(KcostError) as raised:
        analysis.roofline("h100")
    assert "pip install 'kernelcost[plot]'" in raised.value.render()


def test_a_verdict_falls_back_to_text(no_matplotlib):
    analysis = kernelcost.analyze(SPECS / "gemm.kcost", {"M": 4096, "N": 4096, "K": 4096},
                                  verify=False)
    from kernelcost.answers.answer import answers

    (answer,) = answers(analysis, ["h100"], None)
    assert answer.verdict._repr_svg_() is None
