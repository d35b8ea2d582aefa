"""Hostile input, the seventh round: `solve` against `analyze` where a ceiling holds the
bytes or the intensity equal to their target over a whole step of sizes, numeric roots past
2^23, and crossings that need the spec's defaults."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import sympy
from hostile_runs import TRITON, run, write
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

ROOT = Path(__file__).resolve().parent.parent

# x holds ceil(n / T) rows of T elements, y one element a row: 4 h (T + 1) bytes, 40 MiB
# (an A100's L2) at h = 10, that is for every n in (9437175, 10485750]
STEPPED_BYTES = """kernel k(n, T = 1048575) {
    let h = n / T
    in x: f32[h, T]
    out y: f32[h]
    for i in 0..h, j in 0..T { y[i] += x[i, j] }
}
"""

# 4 n + 4 ceil(n / 3) + 4 bytes: 60 MiB (an H200's L2) first exceeded at n = 11796480
THIRDS = """kernel k(n) {
    let h = n / 3
    in x: f32[n]
    in w: f32[h]
    out y: f32[1]
    for i in 0..n { y[0] += x[i] }
    for j in 0..h { y[0] += w[j] }
}
"""

# 8 ceil(n / 2) - 4096 bytes: 50 MiB (an H100's L2) from n = 13108223 to 13108224
HALVES = """kernel k(n) {
    let h = n / 2 - 512
    in x: f32[h]
    out y: f32[n]
    for i in 0..h { y[i] = 2 * x[i] }
}
"""


def _fits(capsys, spec: Path, machine: str, n: int) -> bool:
    code, out, err = run(capsys, "analyze", spec, "--set", f"n={n}", "--machine", machine,
                         "--no-verify")
    assert code == 0, err
    return "fits in L2" in " ".join(out.split())


@pytest.mark.parametrize(("text", "machine", "last"), [
    (STEPPED_BYTES, "a100", 10485750),
    (THIRDS, "h200", 11796479),
    (HALVES, "h100", 13108224),
])
def test_solve_s_last_size_that_fits_is_the_one_analyze_says_fits(capsys, tmp_path, text,
                                                                  machine, last):
    """The working set's crossing is searched numerically (a ceiling). STEPPED_BYTES: a
    grid point of the search landed on the step where the bytes equal 40 MiB, read as no
    side, and solve said `none, always` fits; analyze said n = 10485751 does not. THIRDS:
    the root was kept as a float of 6 digits (23 bits), 11796479.x read as 11796480, which
    does not fit. HALVES: the bisection stopped where the bytes first equal the capacity
    (n = 13108222), where sizes up to 13108224 fit."""
    spec = write(tmp_path, "k.kcost", text)
    code, out, err = run(capsys, "solve", spec, "--for", "n", "--machine", machine)
    assert code == 0, err
    assert "working set   l2" in out and f"n <= {last}" in out, out
    assert _fits(capsys, spec, machine, last) and not _fits(capsys, spec, machine, last + 1)


def test_a_crossing_with_no_closed_form_is_given_at_the_defaults(capsys):
    """flash_attention_hopper's intensity holds ceiling(S/Bc): with Bc and Br left
    symbolic there is no closed form, and `solve --for S` said `set every other parameter
    (--set)` of a spec where every other one has a default."""
    code, out, err = run(capsys, "solve", ROOT / "specs" / "flash_attention_hopper.kcost",
                         "--for", "S", "--machine", "h100")
    assert code == 0, err
    assert "values at the defaults d = 128, H = 1, Br = 128, Bc = 176" in out
    row = next(line for line in out.splitlines() if line.startswith("H100 BF16   global"))
    assert row.split()[4:8] == ["S", "=", "583.6", "S"], row  # I(583.6) = 19800/67 FLOP/B


# --- the class: a crossing searched numerically, against the sizes on each side of it

_n = sympy.Symbol("n", positive=True)


@tiered(48)
@given(step=st.integers(1, 4096), rows=st.integers(1, 64), slope=st.integers(0, 8),
       offset=st.integers(-64, 64), rounding=st.sampled_from(["ceiling", "floor"]),
       falling=st.booleans(), ties_exceed=st.booleans())
def test_a_numeric_crossing_bounds_the_sizes_on_each_side(step, rows, slope, offset, rounding,
                                                         falling, ties_exceed):
    """±(rows * ceil(n / step) + slope * n) + offset (or floor) against its value at a
    size: the sizes on the side that exceeds the target (at or over it for a ridge, over it
    for a capacity) and those on the other are the integer bounds numeric_roots gives, as
    brute force finds them. Each kind of bound was wrong before: a grid point on a step
    equal to the target (no crossing), a bisection that stopped at the step's start, a root
    rounded to 23 bits, and a whole-number root read from its double's last bit."""
    from kernelcost.algebra.equations import solve_equal
    from kernelcost.answers.unknowns import integer_bound
    from kernelcost.base.kinds import Side
    from kernelcost.base.symbols import CAPACITY

    sign = -1 if falling else 1

    def held(size: int) -> int:
        whole = -(-size // step) if rounding == "ceiling" else size // step
        return sign * (rows * whole + slope * size) + offset

    size = step * 3 + slope  # a target on a step (slope 0) or between sizes
    target = held(size)
    form = getattr(sympy, rounding)(_n / step)
    roots = solve_equal(sign * (rows * form + slope * _n) + offset, _n, CAPACITY,
                        sympy.Integer(target), ties_exceed)
    assert len(roots) == 1, roots
    root = roots[0]
    sizes = range(1, size + 2 * step + 2)
    exceeding = [k for k in sizes if held(k) > target or (ties_exceed and held(k) == target)]
    assert root.side == (Side.BELOW if falling else Side.ABOVE)
    # a ridge's bound is the compute-bound side's; a capacity's the side that fits
    if ties_exceed:
        expected = ("<=", max(exceeding)) if falling else (">=", min(exceeding))
        wanted = root.side
    else:
        fitting = [k for k in sizes if k not in exceeding]
        expected = (">=", min(fitting)) if falling else ("<=", max(fitting))
        wanted = root.side.opposite
    assert integer_bound(root.value, wanted, root.edge, root.side) == expected, (root,
                                                                                 expected)
    assert math.isfinite(float(root.value)) and 1 <= root.value <= size + step + 1


COPY = ROOT / "specs" / "copy.kcost"


@pytest.mark.parametrize("arguments", [
    ["sweep", COPY, "--sweep", "n=1024..4096", "--points", "2", "--machine", "all"],
    ["tune", COPY, "--vary", "BLK", "--values", "256,512", "--machine", "all", "--set",
     "n=4096"],
    ["model", "llama3_8b", "--batch", "1", "--machine", "all"],
])
def test_all_where_the_command_takes_one_machine_is_said_so(capsys, arguments):
    """`--machine all` is analyze's (and solve's, plot's) every machine; sweep, tune and
    model said `unknown machine `all``, listing the built-in machines, `all` among none."""
    code, out, err = run(capsys, *arguments)
    assert code == 2 and out == "", err
    assert err.startswith("--machine:1:1: error[KC401]: `all` names every built-in machine, "
                          "and this command takes one"), err
    assert "hint: give one of a100, b200, h100" in err


def test_a_fact_split_k_states_again_is_warned_about_once(capsys):
    """gemm_hopper writes `assume TK | K`, and its split_k rewrite states it again: at K = 1
    analyze warned `assume TK | K does not hold` twice."""
    code, out, err = run(capsys, "analyze", ROOT / "specs" / "gemm_hopper.kcost", "--set",
                         "M=1,N=1,K=1", "--no-verify")
    assert code == 0, err
    assert " ".join(out.split()).count("`assume TK | K` does not hold") == 1, out


NO_LAUNCH = TRITON[:TRITON.index("def launch")]


@pytest.mark.parametrize("default", ["0", "-1", "1.5", "True", "'1024'"])
def test_a_signature_default_that_is_no_size_is_refused_at_it(capsys, tmp_path, default):
    """`BLOCK: tl.constexpr = 0` (or -1, 1.5, True, '1024') with no launch giving BLOCK was
    dropped without a word: the spec kept BLOCK symbolic, its every count in BLOCK, where
    the launch's `BLOCK=0` is refused (round 5)."""
    text = NO_LAUNCH.replace("BLOCK: tl.constexpr", f"BLOCK: tl.constexpr = {default}")
    source = write(tmp_path, "k.py", text)
    code, out, err = run(capsys, "import", f"{source}::k", "--grid", "triton.cdiv(n, BLOCK)")
    assert code == 2 and out == "", err
    shown = {"'1024'": "'1024'"}.get(default, default)
    assert err.startswith(f"{source}:5:46: error[KC226]: the kernel's signature gives "
                          f"`BLOCK` = {shown}, and the spec takes `BLOCK` as a size"), err


def test_a_signature_default_a_launch_overrides_is_not_read(capsys, tmp_path):
    """A launch's `BLOCK=1024` is the value the kernel runs with; the default is not."""
    source = write(tmp_path, "k.py", TRITON.replace("BLOCK: tl.constexpr",
                                                    "BLOCK: tl.constexpr = 0"))
    code, out, err = run(capsys, "import", f"{source}::k")
    assert code == 0 and "kernel k(n, BLOCK = 1024, num_warps = 4)" in out, err


def test_a_python_file_given_as_a_spec_is_told_how_to_name_its_kernel(capsys, tmp_path):
    """`analyze k.py` said `expected kernel at the start of the spec, found name import`
    and nothing of FILE.py::FUNCTION."""
    source = write(tmp_path, "k.py", TRITON)
    code, _, err = run(capsys, "analyze", source)
    assert code == 2 and err.startswith(f"{source}:1:1: error[KC102]"), err
    assert f"hint: a Python file is read as FILE.py::FUNCTION, its @triton.jit kernel: " \
           f"{source}::k" in err


H100 = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text("utf-8")
SHARED_PER = 'capacity_B = 233472\ncapacity_per = "sm"'
L2_PER = 'capacity_B = 52428800\ncapacity_per = "device"'


@pytest.mark.parametrize(("old", "new", "level", "message"), [
    (L2_PER, 'capacity_B = 52428800\ncapacity_per = "sm"', 1,
     "`l2` is shared by the SMs, and its capacity is weighed as the whole level's, not an "
     "SM's"),
    (SHARED_PER, 'capacity_B = 233472\ncapacity_per = "device"', 2,
     "`shared` memory is on each SM, and its capacity is weighed per SM, not per device"),
])
def test_a_capacity_per_the_analysis_does_not_weigh_it_by_is_refused(capsys, tmp_path, old,
                                                                     new, level, message):
    """`machines` printed `228 KiB per device` of a shared level (and `50 MiB per SM` of an
    L2) while occupancy and the fits weighed it per SM (and as 50 MiB in all): gemm_hopper
    resided one block an SM under a device's 228 KiB."""
    machine = write(tmp_path, "m.toml", H100.replace(old, new))
    line = H100[:H100.index(old)].count("\n") + 2
    code, out, err = run(capsys, "analyze", ROOT / "specs" / "copy.kcost", "--set", "n=4096",
                         "--machine", machine)
    assert code == 2 and out == "", err
    assert err.startswith(f"{machine}:{line}:16: error[KC406]: `memory[{level}].capacity_per`: "
                          f"{message}"), err


def test_a_shared_level_without_capacity_per_is_an_sm_s(capsys, tmp_path):
    """Without `capacity_per` every level was the device's: a shared level printed `228 KiB
    per device`, and was weighed per SM."""
    machine = write(tmp_path, "m.toml", H100.replace(SHARED_PER, "capacity_B = 233472"))
    code, out, err = run(capsys, "machines", machine)
    assert code == 0 and "228 KiB per SM" in " ".join(out.split()), err


def test_two_latencies_for_one_number_of_gpus_are_refused(capsys, tmp_path):
    """`custom_allreduce_s = [[2, 3.7e-6], [2, 4.8e-6]]` was read through a dict, which
    kept the second latency for 2 GPUs without a word (as Python's json kept the last of
    two keys of a model file, round 4)."""
    old = "custom_allreduce_s = [[2, 3.7e-6], [4, 4.8e-6], [8, 5.9e-6]]"
    text = (ROOT / "src" / "kernelcost" / "topologies" / "hgx_h100.toml").read_text("utf-8")
    topology = write(tmp_path, "t.toml", text.replace(old, old.replace("[4,", "[2,")))
    line = text[:text.index(old)].count("\n") + 1
    code, out, err = run(capsys, "model", "llama3_8b", "--batch", "1", "--tp", "2",
                         "--topology", topology)
    assert code == 2 and out == "", err
    assert err.startswith(f"{topology}:{line}:22: error[KC405]: `custom_allreduce_s`: a "
                          "second latency for 2 GPUs, [2, 4.8e-06]"), err


PLANE = ["phase", ROOT / "specs" / "gemm.kcost", "--x", "M=1..4096", "--y", "N=1..4096",
         "--machine", "h100"]


@pytest.mark.parametrize(("settings", "name", "message"), [
    ("K=1,M=1_0,N=10", "M", "--set M=1_0: the spec's point needs a number"),
    ("K=1,M=٣,N=10", "M", "--set M=٣: the spec's point needs a number"),
    ("K=1,M=5", "M", "--set M=5 marks the spec's point on the plane, which needs N too, and "
                     "N has no default"),
])
def test_a_phase_point_is_read_as_written_or_refused(capsys, tmp_path, settings, name,
                                                     message):
    """float() read `--set M=1_0` as 10 and `M=٣` as 3 for the spec's point (the class of
    round 6's readers); `--set M=5` alone (N has no default) drew the plane without the
    point, and without a word."""
    figure = tmp_path / "p.svg"
    code, out, err = run(capsys, *PLANE, "--set", settings, "-o", figure)
    assert code == 2 and out == "" and not figure.exists(), err
    assert err.startswith(f"--set {name}:1:1: error[KC301]: {message}"), err


def test_tune_s_times_under_a_tenth_of_a_millisecond_keep_their_digits(capsys, tmp_path):
    """Times were printed as ms to 4 decimals: a copy's t_bound of 8 x 1024 B / 3.35 TB/s =
    2.445 ns read `0.0000 ms`, under a line saying t_model >= t_bound; and with no other
    size to fix the first line ended `; with `."""
    spec = write(tmp_path, "k.kcost", "kernel k(n) {\n    in x: f32[n]\n    out y: f32[n]\n"
                 "    for i in 0..n { y[i] = x[i] }\n}\n")
    code, out, err = run(capsys, "tune", spec, "--vary", "n=1024,2048", "--machine", "h100")
    assert code == 0, err
    assert "0.0000 ms" not in out and "2.445 ns" in out and "4.891 ns" in out, out
    assert out.splitlines()[0].endswith("2 candidates, 2 fit"), out


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--dtype", "x_ptr=", "--dtype:1:1: error[KC311]: `x_ptr=` names no element type"),
    ("--dtype", "=f16", "--dtype:1:1: error[KC311]: `=f16` names no pointer"),
    ("--set", "x_ptr=5", "--set:1:1: error[KC311]: `x_ptr` is a pointer the kernel loads or "
                         "stores through, not a size"),
])
def test_an_import_option_s_value_that_names_nothing_it_changes_is_refused(
        capsys, tmp_path, option, value, message):
    """`--dtype x_ptr=` left x_ptr f32, `--dtype =f16` made f16 the default, and `--set
    x_ptr=5` was dropped: each without a word."""
    source = write(tmp_path, "k.py", TRITON)
    code, out, err = run(capsys, "import", f"{source}::k", option, value)
    assert code == 2 and out == "", err
    assert err.startswith(message), err


def test_an_import_s_set_of_a_runtime_size_is_its_default(capsys, tmp_path):
    """`--set NAME=INT` writes the size's default (its help), but `--set n=5` of a runtime
    argument (no tl.constexpr) was dropped: the spec kept n without a value."""
    source = write(tmp_path, "k.py", TRITON)
    code, out, err = run(capsys, "import", f"{source}::k", "--set", "n=5")
    assert code == 0 and "kernel k(n = 5, BLOCK = 1024, num_warps = 4) {" in out, err


def test_the_published_figure_is_written_as_svg(tmp_path):
    """`validate --published --figure f.svg` compared the whole corpus, then matplotlib's SVG
    writer refused the PNG's `Software` metadata: `internal error: ValueError` (exit 3)."""
    from kernelcost.answers.published import calibration_rows
    from kernelcost.answers.published_report import compare_rows
    from kernelcost.present.published_page import figure

    rows = [row for row in calibration_rows() if row.source in ("cccl-pr2086", "zzc-issue-79")]
    written = figure(compare_rows(rows), tmp_path / "F.SVG")  # the suffix in any case
    assert written.read_bytes().startswith(b"<?xml")


def test_the_headline_follows_each_level_to_its_last_crossing(capsys):
    """flash_attention_hopper on H100, S free: l2 crosses its ridge four times (ceilings of
    S/128 and S/176), the third time to memory-bound and the fourth back; the headline read
    the third as `never compute-bound` and said `memory-bound at every S` above a global
    clause compute-bound from S = 584, the crossing `solve` prints."""
    code, out, err = run(capsys, "analyze", ROOT / "specs" / "flash_attention_hopper.kcost",
                         "--machine", "h100", "--no-verify")
    assert code == 0, err
    text = " ".join(out.split())
    assert "compute-bound on H100 BF16 from S = 583.6, so at S >= 584 (global: memory-bound at " \
           "S <= 583, compute-bound at S >= 584" in text, text
    assert "memory-bound on H100 BF16 at every S" not in text
