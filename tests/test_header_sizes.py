"""What a spec computes from its sizes, at the sizes given: a `let` size, a loop step and each
count a parallel header states (threads, registers, instructions, a cluster, a split, a
group) divides by zero there or comes out zero or negative: one error placed under the
expression (KC307, exit 2), on every command that times the blocks. Each case below was an
internal error (exit 3: sympy compared zoo) or a silent answer (`threads = n - 4000` at
n = 3000 gave -3 resident blocks an SM; `instructions = 10 - n` a negative issue time the
issue effect dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelcost.cli import main

ROOT = Path(__file__).resolve().parent.parent
SOFTMAX = (ROOT / "specs" / "softmax_torch_reg4.kcost").read_text("utf-8")
HEADER = "parallel(threads = 1024, registers = 30, instructions = 10173)"
ROWS = "R=1000,n=4096"
EXTENT = ("kernel extent(N, M) {\n    in  x: f32[N / (M - 4)]\n    out y: f32[N / (M - 4)]\n"
          "    for i in 0..N / (M - 4) {\n        y[i] = x[i]\n    }\n}\n")


def run(capsys, *arguments) -> tuple[int, str, str]:
    code = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return code, captured.out, captured.err


def softmax(tmp_path: Path, header: str) -> Path:
    """softmax_torch_reg4 with its parallel header replaced."""
    assert HEADER in SOFTMAX
    spec = tmp_path / "softmax.kcost"
    spec.write_text(SOFTMAX.replace(HEADER, header))
    return spec


def caret_under(err: str, spec: Path, text: str) -> None:
    """The error's caret line marks exactly `text` on the quoted line."""
    lines = err.splitlines()
    quoted = next(index for index, line in enumerate(lines) if "|" in line and text in line)
    column = lines[quoted].index(text)
    assert lines[quoted + 1] == " " * column + "^" * len(text), err
    assert err.startswith(f"{spec}:"), err


@pytest.mark.parametrize(("setting", "message"), [
    ("instructions = 1 / (n - 4096)", "KC320: a division by `n - 4096`, which is 0 at n = 4096"),
    ("instructions = 10 - n", "KC307: the instruction count `instructions` is -4086 at n = 4096"),
    ("instructions = n - 4096", "KC307: the instruction count `instructions` is 0 at n = 4096"),
])
@pytest.mark.parametrize("command", [
    ["analyze", "{spec}", "--set", ROWS, "--machine", "all"],
    ["analyze", "{spec}", "--set", ROWS, "--machine", "h100", "--json"],
    ["plot", "{spec}", "--machine", "h100", "--set", ROWS, "-o", "{figure}"],
    ["solve", "{spec}", "--for", "R", "--set", "n=4096", "--machine", "h100"],
])
def test_an_instruction_count_that_is_not_positive_at_the_sizes_is_placed(
        capsys, tmp_path, setting, message, command):
    spec = softmax(tmp_path, f"parallel(threads = 1024, registers = 30, {setting})")
    arguments = [a.format(spec=spec, figure=tmp_path / "f.svg") for a in command]
    code, out, err = run(capsys, *arguments)
    assert code == 2
    if "--json" in command:
        error = json.loads(out)["error"]
        assert f"{error['code']}: {error['message']}" == message
        assert error["place"]["line"] == SOFTMAX[:SOFTMAX.index(HEADER)].count("\n") + 1
        return
    assert f"error[{message[:5]}]{message[5:]}" in err
    caret_under(err, spec, setting.split(" = ", 1)[1])


@pytest.mark.parametrize(("setting", "value"), [("instructions = 10 - n", "-4086"),
                                              ("instructions = n - 4096", "0")])
def test_tune_rejects_a_candidate_whose_count_is_not_positive(capsys, tmp_path, setting, value):
    """`tune` has other candidates to offer: one whose count is not positive is rejected,
    with the count and its value, not the command (it was KC307 for the whole ranking)."""
    spec = softmax(tmp_path, f"parallel(threads = 1024, registers = 30, {setting})")
    code, out, _ = run(capsys, "tune", spec, "--machine", "h100", "--vary", "n=4096",
                       "--set", "R=1000")
    assert code == 0 and "no candidate fits" in out
    assert (f"n=4096: the instruction count `instructions` is {value}, not a positive whole "
            "number") in " ".join(out.split())


@pytest.mark.parametrize(("header", "sizes", "message", "under"), [
    ("parallel(threads = n - 4000, registers = 30)", "R=1000,n=3000",
     "the thread count `threads` is -1000 at n = 3000", "n - 4000"),
    ("parallel(threads = 1024, registers = 64 - n / 64)", ROWS,
     "the register count `registers` is 0 at n = 4096", "64 - n / 64"),
    ("parallel(threads = 1024, raster = grouped(n - 4096))", ROWS,
     "the group size of `grouped` is 0 at n = 4096", "n - 4096"),
])
def test_other_header_counts_are_checked_at_the_sizes(capsys, tmp_path, header, sizes,
                                                      message, under):
    spec = softmax(tmp_path, header)
    code, _, err = run(capsys, "analyze", spec, "--set", sizes, "--machine", "h100")
    assert code == 2 and f"error[KC307]: {message}" in err
    caret_under(err, spec, under)


def test_a_split_count_that_is_not_positive_is_placed(capsys, tmp_path):
    text = (ROOT / "specs" / "gemm_hopper.kcost").read_text("utf-8")
    assert "split_k k0 = 1)" in text
    spec = tmp_path / "gemm.kcost"
    spec.write_text(text.replace("split_k k0 = 1)", "split_k k0 = 4096 / (K - 4096))"))
    code, _, err = run(capsys, "analyze", spec, "--set", "M=4096,N=4096,K=4096",
                       "--machine", "h100")
    assert code == 2
    assert "error[KC320]: a division by `K - 4096`, which is 0 at K = 4096" in err
    caret_under(err, spec, "4096 / (K - 4096)")
    spec.write_text(text.replace("split_k k0 = 1)", "split_k k0 = 4096 - K)"))
    code, _, err = run(capsys, "analyze", spec, "--set", "M=4096,N=4096,K=4096",
                       "--machine", "h100")
    assert code == 2 and "error[KC307]: the split count `split_k` is 0 at K = 4096" in err
    caret_under(err, spec, "4096 - K")


ZERO = ("kernel zero(N, M) {{\n    {head}\n    in  x: f32[N]\n    out y: f32[N]\n"
        "    for i0 in 0..N by 64 parallel(threads = 64) {{\n"
        "        for i in i0..min(i0 + 64, {bound}) {{\n            y[i] = x[i]\n"
        "        }}\n    }}\n}}\n")


@pytest.mark.parametrize(("head", "bound", "under"), [
    ("let S = N / (M - 4)", "S", "N / (M - 4)"),  # was exit 3: Min(i0 + 64, zoo)
    ("let S = N - M", "N / (M - 4)", "N / (M - 4)"),
    ("let D = M - 4", "N / D", "N / D"),  # the divisor through a `let`
])
@pytest.mark.parametrize("command", [
    ["analyze", "{spec}", "--set", "N=64,M=4"],
    ["analyze", "{spec}", "--set", "N=64,M=4", "--machine", "all"],
    ["plot", "{spec}", "--machine", "h100", "--set", "N=64,M=4", "-o", "{figure}"],
    ["tune", "{spec}", "--machine", "h100", "--vary", "M=4", "--set", "N=64"],
    ["check", "{spec}", "--set", "N=64,M=4"],
])
def test_a_division_by_a_size_that_is_zero_at_the_sizes_is_placed(capsys, tmp_path, head,
                                                                   bound, under, command):
    spec = tmp_path / "zero.kcost"
    spec.write_text(ZERO.format(head=head, bound=bound))
    code, _, err = run(capsys, *[a.format(spec=spec, figure=tmp_path / "f.svg")
                                 for a in command])
    assert code == 2 and "error[KC320]: a division by `" in err, err
    assert "which is 0 at M = 4" in err
    caret_under(err, spec, under)


def test_a_step_that_divides_by_zero_at_the_sizes_is_placed(capsys, tmp_path):
    spec = tmp_path / "step.kcost"
    spec.write_text("kernel step(N, M) {\n    in  x: f32[N]\n    out y: f32[N]\n"
                    "    for i in 0..N by N / (M - 4) {\n        y[i] = x[i]\n    }\n}\n")
    code, _, err = run(capsys, "analyze", spec, "--set", "N=64,M=4")
    assert code == 2
    assert "error[KC320]: a division by `M - 4`, which is 0 at M = 4" in err
    caret_under(err, spec, "N / (M - 4)")


def test_a_let_size_that_is_zero_at_the_sizes_is_placed(capsys, tmp_path):
    spec = tmp_path / "steps.kcost"
    spec.write_text("kernel steps(N) {\n    let S = N - 64\n    in  x: f32[N]\n"
                    "    out y: f32[N]\n    for i in 0..N by S {\n        y[i] = x[i]\n"
                    "    }\n}\n")
    code, _, err = run(capsys, "analyze", spec, "--set", "N=64")
    assert code == 2 and "error[KC307]: size `S` is 0 at N = 64" in err


def test_an_assumption_that_divides_by_zero_at_the_sizes_is_placed(capsys, tmp_path):
    """`assume N / (M - 4) >= 2` at M = 4 compared zoo with 2 (exit 3)."""
    spec = tmp_path / "fact.kcost"
    spec.write_text("kernel fact(N, M) {\n    assume N / (M - 4) >= 2\n    in  x: f32[N]\n"
                    "    out y: f32[N]\n    for i in 0..N {\n        y[i] = x[i]\n    }\n}\n")
    code, _, err = run(capsys, "analyze", spec, "--set", "N=64,M=4", "--machine", "h100")
    assert code == 2 and "error[KC320]: a division by `M - 4`, which is 0 at M = 4" in err
    caret_under(err, spec, "N / (M - 4)")


def test_a_level_that_moves_nothing_at_the_sizes_has_no_roof(capsys, tmp_path):
    """`min(i0 + 64, M - 4)` at M = 3: the block's loop is empty, W = 0 and L2 moves 0 B,
    and 0 / 0 was compared with the ridge (exit 3); the global level's bytes (its bounding
    box) still have their roof. Swept over M, the L2 bytes hold M where no tile bound does
    (Fraction of a symbolic expression, exit 3)."""
    spec = tmp_path / "empty.kcost"
    spec.write_text(ZERO.format(head="let S = N", bound="M - 4"))
    code, out, _ = run(capsys, "analyze", spec, "--set", "N=64,M=3", "--machine", "h100",
                       "--json")
    assert code == 0
    verdicts = json.loads(out)["verdicts"]
    assert [row["level"] for row in verdicts] == ["global"]
    assert verdicts[0]["t_model"] > 0
    code, out, _ = run(capsys, "plot", spec, "--machine", "h100", "--set", "N=64", "--sweep",
                       "M=5..100", "-o", tmp_path / "f.svg")
    assert code == 0 and (tmp_path / "f.svg").stat().st_size > 0


def test_a_count_left_symbolic_is_a_warning_and_the_shipped_counts_are_proved(capsys, tmp_path):
    """Unset, `n - 4000` may be negative: a warning; the shipped stated counts (1155 +
    472 n / 512 and the like) are positive at every size, and warn of nothing."""
    spec = softmax(tmp_path, "parallel(threads = 1024, instructions = n - 4000)")
    code, out, err = run(capsys, "analyze", spec)
    assert code == 0
    assert "the instruction count `instructions` (line 21) is not proved positive" in \
        " ".join((out + err).split())
    for name in ("softmax_rows_gmem", "layernorm_torch", "softmax_torch_reg8"):
        code, out, err = run(capsys, "analyze", ROOT / "specs" / f"{name}.kcost")
        assert code == 0 and "not proved positive" not in out + err, name


def test_a_cluster_size_not_positive_at_the_drawn_sizes_is_placed_by_check(capsys, tmp_path):
    """`cluster e = WK / (E - 4096)` with E's default 8: negative at every size `check`
    draws, and the enumeration took blocks // 0 (ZeroDivisionError, exit 3: the campaign,
    kind `header`, seed 12, input 150)."""
    text = (ROOT / "specs" / "moe_gemm.kcost").read_text("utf-8")
    assert "parallel(threads = 128" in text
    spec = tmp_path / "moe.kcost"
    spec.write_text(text.replace("parallel(threads = 128",
                                 "parallel(cluster e = WK / (E - 4096), threads = 128"))
    code, _, err = run(capsys, "check", spec, "--samples", "2")
    assert code == 2 and "error[KC307]: the cluster size is -" in err, err
    assert "^^^" in err  # under the header


def test_a_number_past_doubles_in_a_header_is_refused_by_phase(capsys, tmp_path):
    """`registers = 10**30`: the plane of `phase` is computed in doubles, and numpy took
    the square root of a Python int (TypeError, exit 3: kind `header`, seed 12, input 106)."""
    spec = softmax(tmp_path, f"parallel(threads = 1024, registers = {10**30})")
    code, _, err = run(capsys, "phase", spec, "--x", "n=64..4096", "--y", "R=1..4096",
                       "--machine", "h100", "-o", tmp_path / "phase.svg")
    assert code == 2 and f"error[KC318]: the number {10**30} is more than 2^53" in err
    caret_under(err, spec, str(10**30))


def test_a_sweep_through_a_zero_divisor_is_placed_at_the_division(capsys, tmp_path):
    """`f32[N / (M - 4)]` swept over M = 1..10: the row at M = 4 read Q = ∞ and t_min = ∞ s
    (exit 0); now the division is refused there, as analyze refuses it."""
    spec = tmp_path / "extent.kcost"
    spec.write_text(EXTENT)
    code, out, err = run(capsys, "sweep", spec, "--sweep", "M=1..10", "--linear", "--set",
                         "N=64", "--machine", "h100")
    assert code == 2 and "∞" not in out
    assert "error[KC320]: a division by `M - 4`, which is 0 at M = 4" in err
    caret_under(err, spec, "N / (M - 4)")
    code, out, _ = run(capsys, "sweep", spec, "--sweep", "M=5..8", "--linear", "--set", "N=64",
                       "--machine", "h100", "--csv")
    rows = [line.split(",") for line in out.splitlines() if line[:1].isdigit()]
    assert code == 0 and [row[0] for row in rows] == ["5", "6", "7", "8"]
    # Q = x and y, 64 / (M - 4) f32 elements each, rounded up: 512, 256, 176, 128 B
    assert [float(row[2]) for row in rows] == [2 * 4 * -(-64 // (m - 4)) for m in (5, 6, 7, 8)]


@pytest.mark.parametrize("command", [
    ["plot", "{spec}", "--machine", "h100", "--set", "N=64", "--sweep", "M=1..10", "-o",
     "{figure}"],
    ["analyze", "{spec}", "--machine", "h100", "--set", "N=64,M=1"],
])
def test_an_extent_negative_at_the_sizes_is_placed(capsys, tmp_path, command):
    """`f32[N / (M - 4)]` at M = 1 is -64/3 elements: the loop over it runs no time, so the
    kernel moves nothing there. The plot's path through M = 1..3 drew points of no work
    and no traffic and matplotlib's arrow to them raised StopIteration (exit 3); analyze
    said the kernel has nothing h100 has a ceiling for. Now the extent is refused there."""
    spec = tmp_path / "extent.kcost"
    spec.write_text(EXTENT)
    figure = tmp_path / "figure.svg"
    code, _, err = run(capsys, *[a.format(spec=spec, figure=figure) for a in command])
    assert code == 2 and not figure.exists()
    assert "error[KC307]: extent 1 of tensor `x` is -64/3 at M = 1, N = 64" in err
    caret_under(err, spec, "N / (M - 4)")
    code, _, _ = run(capsys, "plot", spec, "--machine", "h100", "--set", "N=64", "--sweep",
                     "M=5..10", "-o", figure)
    assert code == 0 and figure.exists()


@pytest.mark.parametrize("command", [
    ["sweep", "{spec}", "--sweep", "S=64..65536", "--machine", "h100"],
    ["phase", "{spec}", "--x", "S=64..65536", "--y", "Br=16..4096", "--machine", "h100", "-o",
     "{figure}"],
    ["tune", "{spec}", "--vary", "Br=16,32", "--set", "S=4096", "--machine", "h100"],
])
def test_a_count_not_positive_at_the_sizes_held_fixed_is_placed(capsys, tmp_path, command):
    """`registers = 1 / (WM - 4096)` with WM's default 16 is negative at every point a sweep,
    a phase plane or a tune visits: refused before the points (the campaign, kind `header`,
    seed 31, input 360, drew phase a plane of it)."""
    text = (ROOT / "specs" / "flash_attention_causal_split.kcost").read_text("utf-8")
    assert "registers = 255" in text
    spec = tmp_path / "fa.kcost"
    spec.write_text(text.replace("registers = 255", "registers = 1 / (WM - 4096)"))
    code, _, err = run(capsys, *[a.format(spec=spec, figure=tmp_path / "p.svg")
                                 for a in command])
    assert code == 2
    assert "error[KC307]: the register count `registers` is -1/4080 at WM = 16" in err
    caret_under(err, spec, "1 / (WM - 4096)")


def test_a_phase_plane_whose_ridge_holds_an_integer_past_int64_is_drawn(capsys, tmp_path):
    """flash_attention_causal_split over S and Br on MI250X: a ridge crossing solved in
    closed form holds a square root of an integer past int64, which numpy evaluated as a
    Python int (TypeError, exit 3: kind `header`, seed 31, inputs 346, 360, 366, all
    the shipped spec's plane)."""
    figure = tmp_path / "phase.svg"
    code, _, _ = run(capsys, "phase", ROOT / "specs" / "flash_attention_causal_split.kcost",
                       "--x", "S=64..65536", "--y", "Br=1..4096", "--machine", "mi250x",
                       "-o", figure)
    assert code == 0 and figure.stat().st_size > 0
    assert "<svg" in figure.read_text("utf-8")


@pytest.mark.parametrize(("header", "sizes", "message", "under"), [
    ("parallel(threads = 1024, registers = 30, instructions = 0.5)", ROWS,
     "the instruction count `instructions` is 1/2, not a whole number", "0.5"),
    ("parallel(threads = n / 3, registers = 30)", ROWS,
     "the thread count `threads` is 4096/3 at n = 4096, not a whole number", "n / 3"),
    ("parallel(threads = 1024, registers = n / 100)", ROWS,
     "the register count `registers` is 1024/25 at n = 4096, not a whole number", "n / 100"),
    ("parallel(threads = 1024, raster = grouped(n / 3))", ROWS,
     "the group size of `grouped` is 4096/3 at n = 4096, not a whole number", "n / 3"),
    ("parallel(threads = 1024, instructions = 1155 + 472 * n / 512)", "R=1000,n=1000",
     "the instruction count `instructions` is 16615/8 at n = 1000, not a whole number",
     "1155 + 472 * n / 512"),
])
def test_a_header_count_that_is_not_whole_at_the_sizes_is_placed(capsys, tmp_path, header,
                                                                  sizes, message, under):
    """A block of 1365.33 threads, 0.5 instructions (the issue effect's time of half an
    instruction), a group of 1365.33 rows: each was taken as it came (exit 0). Each header
    setting counts whole things; a value that is not whole at the sizes is refused where it
    is written (KC321), as one that is not positive is (KC307). layernorm_torch's
    `1155 + 472 n / 512` is 1155 + 921.875 = 16615/8 at n = 1000, whole only where 64 divides
    n: its listing's path is the aligned rows', and n = 1000 is not one."""
    spec = softmax(tmp_path, header)
    code, _, err = run(capsys, "analyze", spec, "--set", sizes, "--machine", "h100")
    assert code == 2 and f"error[KC321]: {message}" in err, err
    caret_under(err, spec, under)


def test_a_cluster_or_split_not_whole_at_the_sizes_is_placed(capsys, tmp_path):
    """`cluster i0 = 3 / 2`: the enumeration of `check` took int(3/2) = 1 block a cluster,
    and analyze read 1.5; `split_k k0 = K / 3` at K = 4096 split the k-loop in 1365.33
    parts. Each is refused at its value."""
    text = (ROOT / "specs" / "gemm_hopper.kcost").read_text("utf-8")
    assert "cluster i0 = 2," in text and "split_k k0 = 1)" in text
    spec = tmp_path / "gemm.kcost"
    spec.write_text(text.replace("cluster i0 = 2,", "cluster i0 = 3 / 2,"))
    for command in (["check", spec, "--samples", "2"],
                    ["analyze", spec, "--set", "M=4096,N=4096,K=4096", "--machine", "h100"]):
        code, _, err = run(capsys, *command)
        assert code == 2 and "error[KC321]: the cluster size" in err, err
        assert "is 3/2" in err and "not a whole number" in err
    spec.write_text(text.replace("split_k k0 = 1)", "split_k k0 = K / 3)"))
    code, _, err = run(capsys, "analyze", spec, "--set", "M=4096,N=4096,K=4096", "--machine",
                       "h100")
    assert code == 2, err
    assert "error[KC321]: the split count `split_k` is 4096/3 at K = 4096, not a whole " \
        "number" in err
    caret_under(err, spec, "K / 3")


EMPTY_GRID = ("kernel e(N, M, T = 4) {\n    in  x: f32[N]\n    out y: f32[N]\n"
              "    for i0 in T..M by T parallel(threads = 256) {\n"
              "        for i in i0..i0 + T { y[i] = 2 * x[i] }\n    }\n}\n")


@pytest.mark.parametrize("command", [
    ["analyze", "{spec}", "--set", "M=4,N=10", "--machine", "all"],
    ["analyze", "{spec}", "--set", "M=2,N=10", "--machine", "h100", "--json"],
    ["sweep", "{spec}", "--sweep", "M=4..12", "--set", "N=10", "--machine", "h100"],
])
def test_a_grid_with_no_block_at_the_sizes_is_placed(capsys, tmp_path, command):
    """`for i0 in T..M by T` at M = 4, T = 4 launches no block, which CUDA refuses; the
    verdict divided the blocks' shares by zero and compared NaN (exit 3, found by the slow
    tier's generated grids at M = 1 over `1..M`)."""
    spec = tmp_path / "empty.kcost"
    spec.write_text(EMPTY_GRID)
    code, out, err = run(capsys, *[part.format(spec=spec) for part in command])
    assert code == 2
    if "--json" in command:
        assert json.loads(out)["error"]["code"] == "KC307"
        return
    assert out == "" and "error[KC307]: the grid has 0 blocks at M = 4, T = 4" in err
    caret_under(err, spec, "f")
    assert main(["analyze", str(spec), "--set", "M=8,N=10", "--machine", "h100"]) == 0


def test_the_library_verdict_refuses_a_grid_with_no_block():
    """kernelcost.verdict, called without the command line's placed check, refuses too."""
    import kernelcost
    from kernelcost.answers.model import verdict
    from kernelcost.base.errors import Code, SizeError
    from kernelcost.base.symbols import size_symbol
    from kernelcost.hardware.machinefile import load_machine

    cost = kernelcost.loads(EMPTY_GRID).cost()
    with pytest.raises(SizeError) as raised:
        verdict(cost, load_machine("h100"), values={size_symbol("M"): 4, size_symbol("N"): 10})
    assert raised.value.code == Code.NOT_POSITIVE_AT_SIZES
    assert "has 0 blocks" in raised.value.diagnostics[0].message
