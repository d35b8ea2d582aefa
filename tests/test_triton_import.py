"""`kernelcost import`: Triton's tutorials (tests/triton_tutorials, excerpts at pinned commits,
each file's header names it) imported to specs whose W and Q at the tutorials' sizes are
counted here by hand, and equal the hand-written library specs where one models the same
kernel; every statement of a spec names its source line; hostile Python gets a placed exit 2.

Where the spec's counting and the GPU differ (a reduction counted as n additions, not n - 1; a
scalar `1 - p` counted on every lane), the hand count follows the language's rules
(docs/language.md, sections 9 and 10), which docs/triton.md states for the import."""

from __future__ import annotations

import re
from pathlib import Path

import sympy

from kernelcost import cli
from kernelcost.analysis.api import analyze, load, loads
from kernelcost.frontend.triton_spec import ImportOptions, import_triton, parse_dtypes

TESTS = Path(__file__).resolve().parent
TUTORIALS = TESTS / "triton_tutorials"
SPECS = TESTS.parent / "specs"


def imported(name: str, function: str, dtypes: str = "", grid: str | None = None) -> str:
    return import_triton(str(TUTORIALS / name), function,
                         ImportOptions(grid=grid, dtypes=parse_dtypes(dtypes)))


def counted(spec, sizes: dict[str, int]):
    """W, W by class and Q global, exact, with the closed forms checked by enumeration."""
    result = analyze(spec, {k: str(v) for k, v in sizes.items()}, verify=True)
    assert result.verified is not None and result.verified.agree
    values = result.values

    def exact(quantity) -> int:
        return int(sympy.Integer(quantity.expr.subs(values)))

    by_class = {str(k): exact(q) for k, q in result.work_by_class.items()}
    return exact(result.work), by_class, exact(result.traffic["global"])


# --- 01: vector add ------------------------------------------------------------------------


def test_vector_add_counts_one_addition_and_three_f32_accesses_an_element():
    spec = loads(imported("01_vector_add.py", "add_kernel"), "add.py::add_kernel")
    n = 98432  # the tutorial's size; BLOCK_SIZE = 1024 from its launch
    work, by_class, traffic = counted(spec, {"n_elements": n})
    assert work == n  # x + y: one addition an element
    assert by_class == {"vector": n}
    assert traffic == 3 * n * 4  # x and y read, output written, 4 bytes each: 1,181,184 B


def test_vector_add_moves_what_the_library_spec_moves():
    spec = loads(imported("01_vector_add.py", "add_kernel"), "add.py::add_kernel")
    for n in (98432, 1000, 4096 * 4096 + 3):  # the masked tail of a last block included
        ours = counted(spec, {"n_elements": n})
        theirs = counted(load(SPECS / "vector_add.kcost"), {"n": n})
        assert ours[0] == theirs[0] and ours[2] == theirs[2]


def test_the_grid_comes_from_the_launch_lambda_and_the_block_from_its_keyword():
    text = imported("01_vector_add.py", "add_kernel")
    assert "kernel add_kernel(n_elements, BLOCK_SIZE = 1024, num_warps = 4)" in text
    assert "for pid_start in 0..n_elements by BLOCK_SIZE parallel(threads = 32 * num_warps)" in (
        text)
    assert "for offsets in pid_start..min(BLOCK_SIZE + pid_start, n_elements)" in text


def test_each_statement_names_its_source_line():
    text = imported("01_vector_add.py", "add_kernel")
    source = (TUTORIALS / "01_vector_add.py").read_text().split("\n")
    named = re.findall(r"# line (\d+): (.*)$", text, re.MULTILINE)
    assert named, text
    for number, excerpt in named:
        assert source[int(number) - 1].strip().startswith(excerpt.removesuffix("..."))
    assert any("tl.store(output_ptr + offsets" in excerpt for _, excerpt in named)


# --- 02: fused softmax ---------------------------------------------------------------------


def test_softmax_counts_five_operations_an_element_and_one_read_one_write():
    spec = loads(imported("02_fused_softmax.py", "softmax_kernel"), "softmax.py")
    rows, columns = 1823, 781  # the tutorial's unit test; BLOCK_SIZE the next power of two
    work, by_class, traffic = counted(spec, {"n_rows": rows, "n_cols": columns,
                                             "BLOCK_SIZE": 1024})
    # a row: max (1), x - max (1), exp (1, SFU), sum (1), / (1) an element; the masked
    # lanes past n_cols do no counted work and move nothing (`other=` is no traffic)
    assert by_class == {"vector": 4 * rows * columns, "sfu": rows * columns}
    assert work == 5 * rows * columns
    assert traffic == 2 * rows * columns * 4  # x read once, y written once, f32: 11,388,504 B


def test_softmax_moves_what_the_library_softmax_rows_moves():
    spec = loads(imported("02_fused_softmax.py", "softmax_kernel", "bf16"), "softmax.py")
    for rows, columns in ((1823, 781), (4096, 1024)):
        ours = counted(spec, {"n_rows": rows, "n_cols": columns, "BLOCK_SIZE": 1024})
        theirs = counted(load(SPECS / "softmax_rows.kcost"), {"R": rows, "n": columns})
        assert ours[2] == theirs[2] == 4 * rows * columns  # bf16: 2 B read + 2 B written
        # the library spec recomputes exp in its third pass as PyTorch does (7n a row);
        # Triton's kernel keeps the exponentials in registers (5n)
        assert theirs[0] - ours[0] == 2 * rows * columns


def test_a_grid_stride_loop_is_the_grid():
    text = imported("02_fused_softmax.py", "softmax_kernel")
    assert "for row_idx in 0..n_rows parallel" in text
    assert "the grid-stride loop, line 19" in text
    assert "in    input_ptr: f32[n_rows, n_cols]" in text  # strides become axes


# --- 05: layer norm, forward ---------------------------------------------------------------

LAYER_NORM_TYPES = "f16,Mean=f32,Rstd=f32"  # the tutorial's test: fp16 data, fp32 statistics


def test_layer_norm_forward_counts_by_hand():
    spec = loads(imported("05_layer_norm.py", "_layer_norm_fwd_fused", LAYER_NORM_TYPES), "ln")
    rows, columns, block = 1151, 8192, 8192  # the tutorial's test_layer_norm(1151, 8192)
    work, by_class, traffic = counted(spec, {"M": rows, "N": columns, "BLOCK_SIZE": block})
    # a row: the mean's loop N additions, tl.sum over the block BLOCK, / N 1; the variance's
    # loop x - mean N and x * x accumulated 2N (fma), tl.sum BLOCK, / N 1; rstd: + eps,
    # sqrt (SFU), 1 / 3; the output's loop (x - mean) * rstd * w + b 4N
    assert by_class == {"vector": rows * (6 * columns + 2 * block + 4), "fma": rows * 2 * columns,
                        "sfu": rows}
    assert work == rows * (8 * columns + 2 * block + 5)
    # X read once (2 B) and Y written once (2 B) per element, W and B once (2 B each), Mean
    # and Rstd one f32 a row: 37,757,944 B
    assert traffic == 4 * rows * columns + 4 * columns + 8 * rows


def test_layer_norm_moves_the_library_spec_plus_the_saved_statistics():
    spec = loads(imported("05_layer_norm.py", "_layer_norm_fwd_fused", "bf16,Mean=f32,Rstd=f32"),
                 "ln")
    rows, columns = 1151, 8192
    ours = counted(spec, {"M": rows, "N": columns, "BLOCK_SIZE": 8192})
    theirs = counted(load(SPECS / "layernorm_rows.kcost"), {"R": rows, "n": columns})
    # layernorm_rows leaves out the saved mean and rstd (its header says so): 8 B a row
    assert ours[2] - theirs[2] == 8 * rows


def test_layer_norm_takes_the_grid_of_its_launch_and_a_float_argument_as_a_register():
    text = imported("05_layer_norm.py", "_layer_norm_fwd_fused", LAYER_NORM_TYPES)
    assert "kernel _layer_norm_fwd_fused(N, BLOCK_SIZE, M, num_warps = 4)" in text
    assert "let eps: f32 = 0  # a scalar argument" in text
    assert "in    X: f16[M, N]" in text and "out   Mean: f32[M]" in text


# --- the command line ----------------------------------------------------------------------


def test_import_writes_a_spec_that_analyze_reads(tmp_path, capsys):
    target = f"{TUTORIALS / '01_vector_add.py'}::add_kernel"
    out = tmp_path / "add.kcost"
    assert cli.main(["import", target, "--set", "BLOCK_SIZE=256", "-o", str(out)]) == 0
    assert "BLOCK_SIZE = 256" in out.read_text()
    assert cli.main(["analyze", str(out), "--set", "n_elements=4096", "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["analyze", target, "--set", "n_elements=4096", "--json"]) == 0
    assert '"expr": "12*n_elements"' in capsys.readouterr().out
