"""`model --grid` (answers.model_grid): every figure the grid gives equals the ordinary `model`
path's (answers.wholemodel.whole_model, as `kernelcost model` runs it) to 1e-9 relative at
points picked across the grid, its edges among them; where it gives no t_model, it says so;
bad input is refused before any array is made."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy
import pytest

from kernelcost.answers.model_grid import GridAxes, model_grid
from kernelcost.answers.quantisation import quantisation
from kernelcost.answers.tensor_parallel import Layout
from kernelcost.answers.wholemodel import whole_model
from kernelcost.base.kinds import LaunchMode
from kernelcost.cli import main
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.topology import default_topology
from kernelcost.present.model_grid_report import COLUMNS, grid_csv, grid_json

RELATIVE = 1e-9
LLAMA_3_1_8B = Path(__file__).resolve().parent / "data" / "hf" / "llama3_1_8b" / "config.json"


def _topology(machine, stages=1):
    return lambda tp: default_topology(machine.id) if tp * stages > 1 else None


def _check_points(grid, points, *, stages=1, served=None, launch=LaunchMode.EAGER):
    """Each (tp, batch, context) against whole_model there: TPOT and TTFT, their bounds,
    the memory and the fit; a t_model the grid does not give must be where it says so."""
    model, machine, axes = grid.model, grid.machine, grid.axes
    checked = 0
    for tp, batch, context in points:
        at = (axes.tps.index(tp), axes.batches.index(batch), axes.contexts.index(context))
        layout = Layout(_topology(machine, stages)(tp), tp, stages)
        ordinary = whole_model(model, machine, [batch], context, tp, layout,
                               quantisation=served or quantisation(), launch=launch)
        latency = ordinary.latencies()[0]
        pairs = [(grid.decode.t_bound_s, latency.tpot_bound_s),
                 (grid.prefill.t_bound_s, latency.ttft_bound_s)]
        for phase, figure in ((grid.decode, latency.tpot_s), (grid.prefill, latency.ttft_s)):
            if numpy.isnan(phase.latency_s[at]):  # left out only where gemm_hopper's stands
                assert phase.tiled[at] and not grid.tiled_asked
            else:
                pairs.append((phase.latency_s, figure))
                checked += 1
        for array, figure in pairs:
            assert array[at] == pytest.approx(figure, rel=RELATIVE), (tp, batch, context)
        assert grid.needed_B[at] == pytest.approx(ordinary.memory.needed_B(batch),
                                                  rel=RELATIVE)
        assert bool(grid.fits[at]) == ordinary.memory.fits(batch)
    return checked


def _sample(axes, count, seed):
    """The grid's corners and `count` seeded points inside it."""
    pick = random.Random(seed)
    corners = [(tp, b, c) for tp in (axes.tps[0], axes.tps[-1])
               for b in (axes.batches[0], axes.batches[-1])
               for c in (axes.contexts[0], axes.contexts[-1])]
    inside = [(pick.choice(axes.tps), pick.choice(axes.batches), pick.choice(axes.contexts))
              for _ in range(count)]
    return corners + inside


def test_sampled_points_equal_the_model_path():
    """A 512 x 256 x 3 grid (393,216 points) of Llama-3.1-8B on H100, tp 1, 2 and 8 with the
    collectives on HGX H100: its corners and six points inside. Llama-3.1-8B has the shapes
    of the shipped llama3_8b and 131,072 positions, where Llama-3-8B's 8,192 would end the
    contexts at a quarter of this grid's."""
    model, machine = load_model_or_config(str(LLAMA_3_1_8B)), load_machine("h100")
    axes = GridAxes(tuple(range(1, 513)), tuple(range(128, 32769, 128)), (1, 2, 8))
    grid = model_grid(model, machine, axes, topology=_topology(machine))
    assert grid.decode.t_bound_s.shape == (3, 512, 256)
    assert _check_points(grid, _sample(axes, 6, seed=41)) >= 8
    # t_bound everywhere; t_model left out exactly where a GEMM takes gemm_hopper's estimate
    assert not numpy.isnan(grid.decode.t_bound_s).any()
    assert numpy.array_equal(numpy.isnan(grid.decode.t_model_s), grid.decode.tiled)
    assert numpy.array_equal(numpy.isnan(grid.prefill.t_model_s), grid.prefill.tiled)
    # decode GEMMs meet gemm_hopper's 256-row clusters at batches 256 and 512 only
    assert set(numpy.array(axes.batches)[grid.decode.tiled[0, :, 0]]) == {256, 512}


def test_tiled_points_from_the_analysis():
    """Where few gemm_hopper shapes are in the grid, the analysis gives their t_model, and
    every point equals the model path: batches 255 (not tiled) and 256 (tiled decode)."""
    model, machine = load_model_or_config("llama3_8b"), load_machine("h100")
    axes = GridAxes((1, 255, 256), (1, 129), (1, 2))
    grid = model_grid(model, machine, axes, topology=_topology(machine), tiled_shapes=64)
    assert grid.tiled_asked and grid.decode.tiled.any() and grid.prefill.tiled.any()
    points = [(tp, b, c) for tp in axes.tps for b in axes.batches for c in axes.contexts]
    assert _check_points(grid, points) == 2 * len(points)


@pytest.mark.parametrize(("name", "machine_id", "served", "launch", "stages"), [
    ("mixtral_8x7b", "h100", None, LaunchMode.EAGER, 1),
    ("llama3_8b", "h100", ("fp8", "fp8", "fp8"), LaunchMode.GRAPH, 1),
    ("llama3_70b", "h200", ("int4", "bf16", "bf16"), LaunchMode.EAGER, 2),
    ("llama3_8b", "a100", ("int8", "bf16", "bf16"), LaunchMode.EAGER, 1),
])
def test_options_equal_the_model_path(name, machine_id, served, launch, stages):
    """A mixture of experts, fp8 with CUDA graphs, W4A16 over two pipeline stages, W8A16."""
    model, machine = load_model_or_config(name), load_machine(machine_id)
    chosen = quantisation(*served) if served else quantisation()
    axes = GridAxes((1, 3, 64, 100), (1, 300, 8192), (1, 4))
    grid = model_grid(model, machine, axes, topology=_topology(machine, stages),
                      stages=stages, quantisation=chosen, launch=launch)
    assert _check_points(grid, _sample(axes, 2, seed=len(name)), stages=stages,
                         served=chosen, launch=launch) >= 4


def test_csv_and_json(tmp_path, capsys):
    """The command's CSV: a row a point in tp, batch, context order, its figures the
    grid's, an empty field where t_model is not given; the JSON says which figure."""
    out = tmp_path / "grid.csv"
    argv = ["model", "llama3_8b", "--batch", "1,256", "--context", "128..384:128",
            "--tp", "1,2", "--grid", str(out), "--json"]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    rows = out.read_text().splitlines()
    assert rows[0].split(",") == [name for name, _ in COLUMNS]
    assert len(rows) == 1 + 2 * 2 * 3 == 1 + document["points"]
    model, machine = load_model_or_config("llama3_8b"), load_machine("h100")
    grid = model_grid(model, machine, GridAxes((1, 256), (128, 256, 384), (1, 2)),
                      topology=_topology(machine))
    assert grid_csv(grid).decode().splitlines() == rows
    first = dict(zip(rows[0].split(","), rows[1].split(",")))
    assert (first["tp"], first["batch"], first["context"]) == ("1", "1", "128")
    assert float(first["tpot_s"]) == pytest.approx(grid.decode.latency_s[0, 0, 0], rel=1e-15)
    tiled_row = dict(zip(rows[0].split(","), rows[4].split(",")))  # tp 1, batch 256
    assert tiled_row["decode_tiled"] == "1" and tiled_row["tpot_s"] == ""
    assert document["t_model_points"] + document["tiled_points"] == document["points"]
    assert "gemm_hopper" in document["figures"] and not document["tiled_from_analysis"]
    assert document == json.loads(json.dumps(grid_json(grid)))


@pytest.mark.parametrize(("argv", "code", "place"), [
    (["--batch", "1..100000", "--context", "1..100"], "KC309", "--batch:1:1"),
    (["--batch", "1..1001", "--context", "1..1000"], "KC309", "--batch:1:1"),  # 1,001,000
    (["--batch", "1..8,9..x"], "KC308", "--batch:1:6"),
    (["--context", "0..128"], "KC308", "--context:1:1"),
    (["--tp", "1,3"], "KC507", "--tp:1:3"),
    (["--tp", "1..4"], "KC507", "--tp:1:1"),
    (["--ep", "2"], "KC311", "--ep:1:1"),
    (["--chunk", "2048"], "KC311", "--chunk:1:1"),
])
def test_bad_input_refused(argv, code, place, tmp_path, capsys):
    out = tmp_path / "never.csv"
    assert main(["model", "llama3_8b", *argv, "--grid", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"error[{code}]" in error and error.startswith(place) and "^" in error
    assert "hint:" in error and "Traceback" not in error and not out.exists()


def test_several_contexts_or_many_batches_need_the_grid(capsys):
    assert main(["model", "llama3_8b", "--context", "128,256"]) == 2
    assert "error[KC311]" in capsys.readouterr().err
    assert main(["model", "llama3_8b", "--batch", "1..65"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("--batch:1:1: error[KC309]") and "--grid" in error


def test_a_machine_that_does_not_run_the_tiled_spec():
    """gemm_hopper needs sm_90a and its 4-stage tiles do not fit an A100's or an MI300X's
    SM: where its facts hold, the ideal spec's t_model stands in `model`, and in the grid."""
    model = load_model_or_config("llama3_8b")
    for machine in (load_machine("a100"), load_machine("mi300x")):
        axes = GridAxes((1, 256), (128, 4096), (1, 8))
        grid = model_grid(model, machine, axes, topology=_topology(machine))
        assert not grid.decode.tiled.any() and not grid.prefill.tiled.any()
        assert _check_points(grid, [(8, 256, 4096), (1, 1, 128)]) == 4



def test_the_tiled_specs_bounds_are_read_as_the_analysis_reads_them(tmp_path, capsys):
    # split-K gave gemm_hopper `assume S <= K/TK` (a bound, not a divisor): every
    # `model --grid` exited 3 (KC901) until the grid read bounds as broken_assumptions does
    import sympy

    from kernelcost.answers.composition import shipped_spec
    from kernelcost.answers.model_grid import _broken_bound

    spec = shipped_spec("gemm_hopper")
    checked = spec.checked
    assert checked.bounds, "gemm_hopper's split-K bound is what this test reads"
    names = ("M", "N", "K")
    symbols = [spec.parameters[name] for name in names]
    defaults = {s: sympy.Integer(v) for s, v in checked.defaults.items() if str(s) not in names}
    rows = [(4096, 4096, k) for k in (16, 32, 63, 64, 65, 128, 8192)]
    arrays = [numpy.array([row[i] for row in rows], dtype=numpy.float64) for i in range(3)]
    for relation in checked.bounds:
        grid = _broken_bound(relation, symbols, defaults, "gemm_hopper")(*arrays)
        expected = [relation.subs({**defaults, **dict(zip(symbols, map(sympy.Integer, row)))})
                    is sympy.false for row in rows]
        assert [bool(b) for b in grid] == expected, relation
        assert any(expected) and not all(expected)  # both sides of the bound drawn
    out = tmp_path / "grid.csv"
    assert main(["model", "llama3_8b", "--batch", "1..4", "--context", "128,4096",
                 "--grid", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 1 + 4 * 2
