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

import pytest
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
    assert traffic == 2 * rows * columns * 4  # x read once, y written once, f32: 11,390,104 B


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


# --- 04: low-memory dropout ----------------------------------------------------------------


def test_dropout_counts_the_select_and_reads_the_keep_mask():
    spec = loads(imported("04_low_memory_dropout.py", "_dropout", "f32,x_keep_ptr=i32"), "d")
    n = 1 << 20
    work, by_class, traffic = counted(spec, {"n_elements": n})
    # tl.where(x_keep, x / (1 - p), 0.0): 1 - p, the division and the select (one vector
    # operation each, the select written max(...)), on every element
    assert by_class == {"vector": 3 * n} and work == 3 * n
    assert traffic == (4 + 4 + 4) * n  # x (f32) and x_keep (int32) read, output (f32) written


def test_seeded_dropout_stops_at_tl_rand(capsys):
    target = f"{TUTORIALS / '04_low_memory_dropout.py'}::_seeded_dropout"
    assert cli.main(["import", target]) == 2
    err = capsys.readouterr().err
    assert re.search(r"04_low_memory_dropout\.py:62:14: error\[KC226\]: `tl\.rand`", err), err


# --- 03: matrix multiplication -------------------------------------------------------------

MATMUL = "03_matrix_multiplication.py"
# a hand-written spec of the tutorial's kernel at the same tiles and raster: one block a tile
# of C in Triton's grouped order, the tile's rows and columns clipped at M and N
GROUPED_GEMM = """kernel gemm_grouped(M, N, K, BLOCK_SIZE_M = 128, BLOCK_SIZE_N = 128,
                      BLOCK_SIZE_K = 32, GROUP_SIZE_M = 8, num_warps = 4) {
    in  A: f16[M, K]
    in  B: f16[K, N]
    out C: f16[M, N]
    for i0 in 0..M by BLOCK_SIZE_M, j0 in 0..N by BLOCK_SIZE_N
            parallel(threads = 32 * num_warps, raster = grouped(GROUP_SIZE_M)) {
        let acc: f32[BLOCK_SIZE_M, BLOCK_SIZE_N] in registers = 0
        for k0 in 0..K by BLOCK_SIZE_K {
            for i in i0..min(i0 + BLOCK_SIZE_M, M), j in j0..min(j0 + BLOCK_SIZE_N, N),
                    k in k0..min(k0 + BLOCK_SIZE_K, K) {
                acc[i - i0, j - j0] += A[i, k] * B[k, j]
            }
        }
        for i in i0..min(i0 + BLOCK_SIZE_M, M), j in j0..min(j0 + BLOCK_SIZE_N, N) {
            C[i, j] = acc[i - i0, j - j0]
        }
    }
}
"""


def matmul(wrap_clip: bool = False) -> str:
    return import_triton(str(TUTORIALS / MATMUL), "matmul_kernel", ImportOptions(
        dtypes={"": "f16"}, config=2, clip_wrapped=wrap_clip))  # config 2: 128 x 128 x 32


def test_matmul_takes_its_grid_raster_and_tiles_from_the_launch_and_a_config():
    text = matmul()
    assert ("for m_start in 0..M by BLOCK_SIZE_M, n_start in 0..N by BLOCK_SIZE_N "
            "parallel(threads = 32 * num_warps, raster = grouped(GROUP_SIZE_M))") in text
    assert ("BLOCK_SIZE_M = 128, BLOCK_SIZE_N = 128, BLOCK_SIZE_K = 32, GROUP_SIZE_M = 8, "
            "num_warps = 4") in text
    assert "# not taken: ACTIVATION = '' at the launch" in text  # matmul(a, b, activation="")
    assert "a_ptr[offs_am - M, offs_k]" in text  # the rows past M, read again from row 0


def test_matmul_counts_whole_tiles_on_tensor_units_and_each_element_once_from_memory():
    spec = loads(matmul(), "matmul.py::matmul_kernel")
    work, by_class, traffic = counted(spec, {"M": 512, "N": 512, "K": 512})
    assert work == by_class["tensor"] == 2 * 512**3  # a multiply-add a (m, n, k): 268,435,456
    assert traffic == (512 * 512 * 3) * 2  # A, B read and C written once, f16: 1,572,864 B
    # M = 1000, N = 300 are no multiples of 128: the last row of tiles wraps (% M) and runs
    # whole, 8 x 3 tiles of 128 x 128 x K; K = 200 is masked, not wrapped
    work, by_class, traffic = counted(spec, {"M": 1000, "N": 300, "K": 200})
    assert work == 8 * 3 * 2 * 128 * 128 * 200  # 157,286,400
    assert traffic == (1000 * 200 + 200 * 300 + 1000 * 300) * 2  # 1,120,000 B


def test_matmul_clipped_equals_the_hand_written_grouped_gemm():
    ours, theirs = loads(matmul(wrap_clip=True), "matmul.py"), loads(GROUPED_GEMM, "gemm.kcost")
    for sizes in ({"M": 512, "N": 512, "K": 512}, {"M": 1000, "N": 300, "K": 200}):
        a = analyze(ours, {k: str(v) for k, v in sizes.items()})
        b = analyze(theirs, {k: str(v) for k, v in sizes.items()})
        assert a.work.value == b.work.value == 2 * sizes["M"] * sizes["N"] * sizes["K"]
        for level in ("global", "l2"):
            assert a.traffic[level].value == b.traffic[level].value
    # at 1000 x 300 x 200, Q l2: A filled once a column of tiles (3), B once a row (8), C
    # once: 2 * (200 * 1000 * 3 + 200 * 300 * 8 + 1000 * 300) = 2,760,000 B
    assert b.traffic["l2"].value == 2_760_000


def test_matmul_analyses_on_a_machine(capsys):
    """Its grid of unequal blocks (the wrapped last row) beside a work class of no work (fma)
    once made the dispatch effect compare 0/0 (an internal error, exit 3)."""
    target = f"{TUTORIALS / MATMUL}::matmul_kernel"
    assert cli.main(["analyze", target, "--config", "2", "--dtype", "f16", "--set",
                     "M=1000,N=300,K=200", "--machine", "h100", "--no-verify"]) == 0
    assert "t_bound" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "function", "options"), [
    ("01_vector_add.py", "add_kernel", ()),
    ("02_fused_softmax.py", "softmax_kernel", ()),
    ("03_matrix_multiplication.py", "matmul_kernel", ("--config", "2", "--dtype", "f16")),
    ("04_low_memory_dropout.py", "_dropout", ("--dtype", "f32,x_keep_ptr=i32")),
    ("05_layer_norm.py", "_layer_norm_fwd_fused", ("--dtype", LAYER_NORM_TYPES)),
    ("08_block_pointer.py", "matmul_kernel_with_block_pointers", ("--config", "2", "--dtype",
                                                                  "f16")),
])
def test_check_agrees_on_each_tutorial(capsys, name, function, options):
    """The closed forms of each imported spec against the enumeration of its nest."""
    assert cli.main(["check", f"{TUTORIALS / name}::{function}", *options]) == 0
    out = capsys.readouterr().out
    assert "agree" in out and "differ" not in out


def test_an_atomic_add_accumulates_into_a_tensor_it_reads_and_writes(tmp_path):
    """A histogram-like kernel: `tl.atomic_add(out + offsets, x)` is `out[...] += x`, out
    inout (its first contents read, its sums written)."""
    text = (TUTORIALS / "01_vector_add.py").read_text().replace(
        "tl.store(output_ptr + offsets, output, mask=mask)",
        "tl.atomic_add(output_ptr + offsets, output, mask=mask)")
    path = tmp_path / "atomic.py"
    path.write_text(text)
    spec = import_triton(str(path), "add_kernel")
    assert "inout output_ptr: f32[n_elements]" in spec
    assert "output_ptr[offsets] += x_ptr[offsets] + y_ptr[offsets]" in spec
    n = 4096
    work, _, traffic = counted(loads(spec, "atomic.py"), {"n_elements": n})
    assert work == 2 * n  # x + y, then the accumulation
    assert traffic == 4 * n * 4  # x, y and output read, output written, f32


# --- 08: block pointers --------------------------------------------------------------------


def test_the_block_pointer_matmul_equals_the_hand_written_grouped_gemm():
    """tl.make_block_ptr's shape gives the extents, boundary_check the clipping, tl.advance
    the k loop's move: the same tiles, raster, W and Q as the hand-written spec."""
    text = import_triton(str(TUTORIALS / "08_block_pointer.py"),
                         "matmul_kernel_with_block_pointers",
                         ImportOptions(dtypes={"": "f16"}, config=2))
    assert "raster = grouped(GROUP_SIZE_M)" in text
    assert "for k in 0..K by BLOCK_SIZE_K" in text
    ours, theirs = loads(text, "block_pointer.py"), loads(GROUPED_GEMM, "gemm.kcost")
    for sizes in ({"M": 512, "N": 512, "K": 512}, {"M": 1000, "N": 300, "K": 200}):
        a = analyze(ours, {k: str(v) for k, v in sizes.items()})
        b = analyze(theirs, {k: str(v) for k, v in sizes.items()})
        assert a.work.value == b.work.value == 2 * sizes["M"] * sizes["N"] * sizes["K"]
        assert a.work_by_class["tensor"].value == a.work.value
        for level in ("global", "l2"):
            assert a.traffic[level].value == b.traffic[level].value


ADVANCED_FIRST = """import triton
import triton.language as tl


@triton.jit
def skip_first(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, n, BLOCK):
        p += BLOCK
        acc += tl.load(p + offs, mask=offs < n - k - BLOCK)
    tl.store(out_ptr + offs, acc, mask=offs < n)
"""


def test_a_load_after_the_pointer_advances_reads_the_next_block(tmp_path):
    path = tmp_path / "skip.py"
    path.write_text(ADVANCED_FIRST)
    text = import_triton(str(path), "skip_first", ImportOptions(grid="1"))
    assert "for offs in BLOCK + k..min(2 * BLOCK + k, n)" in text
    work, _, traffic = counted(loads(text, "skip.py"), {"n": 1000, "BLOCK": 128})
    assert work == 1000 - 128  # every block but the first accumulated, an addition each
    # x past its first block read, out written: 4,000 B; the spec language bounds x's
    # footprint over this shifted, clipped range by a box (its analysis says so), n + BLOCK,
    # cut to the n elements x holds
    assert traffic == min(1000 + 128, 1000) * 4 + 128 * 4 > (1000 - 128) * 4 + 128 * 4
