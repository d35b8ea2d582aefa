"""The command path hardened (issue 35): each reproducer of the issue ends in exit 0 or in an
exit 2 placed on the input that caused it, and every kind of input has a place (--set
values, options, machine and model files, measured CSVs)."""

import json
from pathlib import Path

import pytest
from hardened_runs import COPY, CSV_HEADER, GEMM, HOPPER, ROOT, SPECS, run

# --- N = 8196 against `assume TN | N` ---------------------------------------------------------

def test_a_grid_at_sizes_that_break_its_assumption_is_refused_at_the_assumption(capsys):
    code, _, err = run(capsys, "analyze", HOPPER, "--set", "M=8192,N=8196,K=8192",
                       "--machine", "h100")
    assert code == 2
    assert err.startswith(f"{HOPPER}:12:24: error[KC317]: `assume TN | N` does not hold at "
                          "N = 8196: 8196 is not a multiple of TN = 256")
    assert "                        ^^^^^^" in err  # under `TN | N`
    assert "give N a multiple of 256 (such as 8192)" in err


def test_the_json_error_object_places_it_too(capsys):
    code, out, _ = run(capsys, "analyze", HOPPER, "--set", "M=8192,N=8196,K=8192",
                       "--machine", "h100", "--json")
    place = json.loads(out)["error"]["place"]
    assert code == 2 and (place["line"], place["column"]) == (12, 24)


def test_a_validate_row_at_such_sizes_is_placed_at_the_row(capsys, tmp_path):
    results = tmp_path / "results.csv"
    results.write_text(CSV_HEADER + f"gemm,{HOPPER},M=8192;N=8196;K=8192,bf16,3.7e-03,,,\n")
    code, _, err = run(capsys, "validate", results, "--machine", "h100")
    assert code == 2
    column = len(f"gemm,{HOPPER},") + 1
    assert err.startswith(f"{results}:2:{column}: error[KC613]: gemm: `assume TN | N` does "
                          "not hold at N = 8196")
    assert f"({HOPPER}:12:24)" in err


def test_without_the_assumption_the_ragged_tiles_are_counted(capsys, tmp_path):
    ragged = tmp_path / "ragged.kcost"
    ragged.write_text(Path(HOPPER).read_text().replace("TN | N, ", ""))
    code, out, _ = run(capsys, "analyze", ragged, "--set", "M=8192,N=8196,K=8192",
                       "--machine", "h100", "--json")
    assert code == 0
    document = json.loads(out)
    assert "ceiling(N/TN)" in document["traffic"]["global"]["expr"]
    # 33 tile columns of 256 (the last holds 4 columns of C) and 32 rows of 256: every block
    assert "of 2112 blocks" in json.dumps(document)


# --- W = 0 with a rate ------------------------------------------------------------------------

def test_a_rate_for_a_kernel_without_work_asks_for_a_time(capsys):
    code, _, err = run(capsys, "analyze", COPY, "--set", "n=268435456", "--machine", "h100",
                       "--measured", "400TFLOP/s")
    assert code == 2
    assert err.startswith("--measured:1:1: error[KC604]: a rate gives no time here: the "
                          "kernel's W = 0 FLOP")
    assert "give the measured time instead" in err
    code, _, err = run(capsys, "plot", COPY, "--set", "n=268435456", "--machine", "h100",
                       "--measured", "400TFLOP/s", "-o", "never.svg")
    assert code == 2 and "error[KC315]" in err and "does no work (W = 0)" in err


# --- bound outside the divisibility and on min/max nests ---------------------------------------

MANY_WAY = """kernel mm(M, N, K, P) {
    in  A: f32[M, K]
    in  B: f32[K, N]
    out C: f32[M, N]
    for i in 0..min(M, N, K, P), j in 0..max(M, N, K, P), k in 0..min(max(M, N), max(K, P), M) {
        C[i, j] += A[i, k] * B[k, j]
    }
}
"""


@pytest.mark.parametrize("spec", ["gemv_decode", "stencil2d5pt", "minmax_window", "many_way"])
def test_bound_without_the_divisibility_line_and_on_min_max_nests(capsys, tmp_path, spec):
    if spec == "many_way":
        text = MANY_WAY
    elif spec.startswith("minmax_"):
        text = (ROOT / "tests" / "specs_minmax" / f"{spec[7:]}.kcost").read_text()
    else:  # the spec with its `assume` line removed: ceilings in its counts
        text = "\n".join(line for line in (SPECS / f"{spec}.kcost").read_text().split("\n")
                         if not line.strip().startswith("assume"))
    path = tmp_path / f"{spec}.kcost"
    path.write_text(text)
    for extra in ([], ["--machine", "h100"], ["--json", "--level", "l2"]):
        code, out, err = run(capsys, "bound", path, *extra)
        assert code == 0, err
        assert "Q_lower" in out or "q_lower" in out


# --- a loop bound past C's ssize_t ------------------------------------------------------------

HUGE_BOUND = """kernel big(n) {
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n * 1e19 {
        y[0] += x[0]
    }
}
"""


def test_a_bound_past_ssize_t_is_counted_and_sampled_without_a_range(capsys, tmp_path):
    spec = tmp_path / "big.kcost"
    spec.write_text(HUGE_BOUND)
    code, out, _ = run(capsys, "analyze", spec, "--json")
    assert code == 0 and json.loads(out)["work"]["expr"] == "10000000000000000000*n"
    code, _, err = run(capsys, "check", spec)
    assert code == 2 and err.startswith(f"{spec}:1:1: error[KC221]")
    assert "such a nest cannot be enumerated" in err


def test_the_oracle_counts_trips_without_making_them():
    from fractions import Fraction

    from kernelcost.oracle.plans import iterator_values, trip_count

    assert trip_count(0, 10**30, 1) == 10**30
    assert trip_count(3, 10, 4) == 2 == len(list(iterator_values(3, 10, 4)))
    assert trip_count(10, 3, 1) == 0
    half = Fraction(1, 2)
    assert trip_count(0, 2, half) == 4 == len(list(iterator_values(0, 2, half)))


# --- machine and model files, CSVs ------------------------------------------------------------

@pytest.mark.parametrize("command", ["machines", "model"])
def test_a_toml_file_nested_too_deeply_is_placed(capsys, tmp_path, command):
    shipped = ROOT / "src" / "kernelcost" / ("machines/h100.toml" if command == "machines"
                                             else "models/llama3_8b.toml")
    text = shipped.read_text()
    lines = text.count("\n")
    deep = tmp_path / "deep.toml"
    deep.write_text(text + "x = " + "[" * 1200 + "]" * 1200 + "\n")
    code, _, err = run(capsys, command, deep)
    assert code == 2
    family = "KC402" if command == "machines" else "KC502"
    assert err.startswith(f"{deep}:{lines + 1}:69: error[{family}]: the ")
    assert "nests arrays or tables more than 64 deep here" in err


@pytest.mark.parametrize("command, shipped, dropped, place", [
    ("model", "models/llama3_8b.toml", "head_dim_source", ":19:1: error[KC504]"),  # its figure
    ("model", "models/llama3_8b.toml", "layers = ", ":11:17: error[KC504]"),  # its source
    ("machines", "machines/h100.toml", "id = ", "error[KC404]: `id`: missing"),
])
def test_a_missing_key_is_placed_where_it_belongs(capsys, tmp_path, command, shipped, dropped,
                                                  place):
    text = (ROOT / "src" / "kernelcost" / shipped).read_text()
    path = tmp_path / "file.toml"
    path.write_text("\n".join(line for line in text.split("\n")
                               if not line.startswith(dropped)))
    code, _, err = run(capsys, command, path)
    assert code == 2 and err.startswith(str(path) + ":") and place in err.split("\n")[0], err


def test_a_csv_that_is_not_utf8_is_placed(capsys, tmp_path):
    results = tmp_path / "results.csv"
    results.write_bytes((CSV_HEADER + "copy,caf\u00e9,n=4,fp32,1e-5,,,\n").encode("latin-1"))
    code, _, err = run(capsys, "validate", results, "--machine", "h100")
    assert code == 2
    assert err.startswith(f"{results}:2:9: error[KC805]: the file is not UTF-8 text: byte 0xE9")


@pytest.mark.parametrize("row, cell, message", [
    (f"copy,{COPY},n=4096,fp32,5e-324,,,", "5e-324", "time_s `5e-324` is not a positive number"),
    (f"copy,{COPY},n=4096,fp32,1e-3,1e308,,", "1e308", "dram_bytes `1e308` is not a number from"),
    (f"gemm,{GEMM},M=64;N=64;K=64;M=2,bf16,1e-6,,,", "M=2", "the size `M` is given twice"),
])
def test_csv_values_are_range_checked_in_their_cell(capsys, tmp_path, row, cell, message):
    results = tmp_path / "results.csv"
    results.write_text(CSV_HEADER + row + "\n")
    code, _, err = run(capsys, "validate", results, "--machine", "h100")
    column = row.rindex(cell) + 1
    assert code == 2 and err.startswith(f"{results}:2:{column}: error[KC612]: {message}"), err


@pytest.mark.parametrize("arguments", [
    ["phase", str(SPECS / "moe_gemm.kcost"), "--x", "TK=64..65536", "--y", "WK=64..65536",
     "--machine", "a100", "-o", "{out}/phase.svg", "--set", "K=1000"],
    ["tune", str(SPECS / "moe_gemm.kcost"), "--machine", "h100", "--vary", "TM",
     "--set", "Ea=8,Mt=1000,N=4096,K=4096"],
])
def test_a_grid_with_a_ragged_tile_is_tuned_and_mapped(capsys, tmp_path, arguments):
    """moe_gemm clips its tile at Mt (`min(m0 + TM, Mt)`): a block's work depends on where
    it stands; tune and phase take the first block's (a whole tile) for every block. It was
    a TypeError (m0 left symbolic in numpy)."""
    code, _, err = run(capsys, *[a.replace("{out}", str(tmp_path)) for a in arguments])
    assert code == 0, err


def test_a_parallel_header_with_no_threads_is_refused_at_the_count(capsys, tmp_path):
    """`threads = 0` divided by zero in the occupancy (sympy's zoo in a Min: exit 3)."""
    spec = tmp_path / "t0.kcost"
    spec.write_text(Path(COPY).read_text().replace("threads = 256", "threads = 0"))
    code, _, err = run(capsys, "analyze", spec, "--machine", "h100", "--set", "n=1024")
    assert code == 2
    assert err.startswith(f"{spec}:13:46: error[KC211]: a thread count must be positive, not 0")


def test_a_figure_refuses_sizes_past_doubles_on_the_value(capsys, tmp_path):
    code, _, err = run(capsys, "plot", SPECS / "llm_decode.kcost", "--machine", "h200", "-o",
                       tmp_path / "figure.png", "--set", "b=1000,Theta=1e12,d=1e400")
    assert code == 2 and err.startswith("--set d:1:1: error[KC318]")  # a math domain error


def test_a_block_of_more_warps_than_an_sm_holds_does_not_fit(capsys, tmp_path):
    """A machine file's max_warps_per_sm under a block's warps made a residency of 0, and a
    time of 1/0 (sympy's zoo compared: exit 3): now a misfit, no time."""
    machine = tmp_path / "w3.toml"
    machine.write_text((ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text()
                       .replace("max_warps_per_sm = 64", "max_warps_per_sm = 3"))
    code, out, _ = run(capsys, "analyze", COPY, "--set", "n=1048576", "--machine", machine,
                       "--no-verify")
    assert code == 0 and "a block needs 8 warps, 2.67x the 3 an SM has" in " ".join(out.split())
    results = tmp_path / "results.csv"
    results.write_text(CSV_HEADER + f"copy,{COPY},n=16777216,fp32,3.68e-05,,,\n")
    code, out, _ = run(capsys, "validate", results, "--machine", machine)
    assert code == 1  # it ran, where the machine file says it cannot: a falsified figure


def test_running_out_of_memory_is_an_error_naming_the_stage(capsys, monkeypatch):
    from kernelcost import cli
    from kernelcost.base import watchdog

    def hungry(args):
        watchdog.stage("comparing with the machines")
        raise MemoryError

    monkeypatch.setitem(cli.COMMANDS, "machines", hungry)
    code, _, err = run(capsys, "machines")
    assert code == 2
    assert err.startswith("error[KC708]: the analysis ran out of memory while comparing")


# a contraction's work, free of the swept size, still held the sizes left unset: turned into
# a constant for numpy (float() of M*N: exit 3) before the sweep refused those sizes by name
CONTRACTIONS = sorted(path.stem for path in SPECS.glob("*.kcost")
                      if " += " in path.read_text() and "gemm" in path.stem)


@pytest.mark.parametrize("stem", CONTRACTIONS)
def test_a_sweep_with_other_sizes_unset_names_them(capsys, tmp_path, stem):
    from kernelcost import load

    spec = SPECS / f"{stem}.kcost"
    checked = load(spec).checked
    swept = min(map(str, checked.defaults or checked.parameters))  # a tile where there is one
    for command in (["sweep", spec, "--sweep", f"{swept}=64..4096", "--machine", "a100"],
                    ["plot", spec, "--machine", "a100", "-o", tmp_path / "f.svg", "--sweep",
                     f"{swept}=64..4096"]):
        code, _, err = run(capsys, *command)
        assert code in (0, 2)
        assert code == 0 or ("error[KC305]" in err and "unset:" in err)


# sizes that break an `assume` bound made the closed forms negative: a negative time failed
# the order check (KC903, exit 3: the campaign, seed 36, input 2989) or printed as a sweep row
CROSS = """kernel cross(N) {
    assume N >= 1000000000000000000000000000000
    in  a: f64[N, N]
    out b: f64[N, N]
    for j in 1..N - 7, i in 1..N - 1e19 {
        b[j, i] = a[j, i - 1] + a[j, i + 1e19] + a[j - 1, i] + a[j + 1, i]
    }
}
"""


@pytest.mark.parametrize("arguments, size", [
    (["analyze", "{spec}", "--set", "N=4096", "--machine", "a100"], "N = 4096"),
    (["plot", "{spec}", "--machine", "all", "--set", "N=4096", "-o", "{figure}", "--sweep",
      "N=64..65536"], "N = 4096"),
    (["sweep", "{spec}", "--sweep", "N=64..65536", "--machine", "a100", "--points", "3"],
     "N = 64"),
])
def test_sizes_that_make_the_counts_negative_are_refused_at_the_assumption(
        capsys, tmp_path, arguments, size):
    spec = tmp_path / "cross.kcost"
    spec.write_text(CROSS)
    filled = [a.format(spec=spec, figure=tmp_path / "f.svg") for a in arguments]
    code, _, err = run(capsys, *filled)
    assert code == 2
    assert err.startswith(f"{spec}:2:12: error[KC317]: `assume N >= 10000000000000000000000000"
                          f"00000` does not hold at {size}, and the counts there are negative")


def test_a_residency_left_symbolic_by_an_unset_size_gives_no_latency_derate(capsys):
    """gemv_decode with its batch b unset: the blocks resident per SM stay a Min of b, and
    Little's law compared them with a number (a TypeError, exit 3: the campaign, seed 36,
    input 2381)."""
    code, out, _ = run(capsys, "analyze", SPECS / "gemv_decode.kcost", "--set",
                       "N=1000000,K=4096", "--machine", "all", "--json")
    assert code == 0
    verdicts = json.loads(out)["verdicts"]
    assert {row["machine"] for row in verdicts} >= {"mi250x", "h100"}


def test_a_zero_divisor_in_an_assumption_is_a_broken_fact(capsys, tmp_path):
    """`assume 0 | d` took d % 0 (ZeroDivisionError, exit 3: the campaign, seed 36, input
    8806): 0 divides only 0, so at any positive size the fact is broken, and said so."""
    spec = tmp_path / "zero.kcost"
    spec.write_text("kernel zero(n, d = 1) {\n    assume 0 | d\n    in x: f32[n]\n"
                    "    out y: f32[n]\n    for i in 0..n {\n        y[i] = 2 * x[i]\n    }\n}\n")
    code, out, err = run(capsys, "analyze", spec, "--set", "n=64", "--no-verify")
    assert code == 0 and "`assume 0 | d` does not hold at 0 = 0, d = 1" in out + err
