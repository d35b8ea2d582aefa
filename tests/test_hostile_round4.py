"""Command lines a careless user writes, the fourth round: an option given twice, a size both
swept and set. Each was taken as it came (exit 0: the last value kept, the other dropped
without a word) and now ends in one error naming its option (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_runs import run, write

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "specs" / "gemm_hopper.kcost"
COPY = ROOT / "specs" / "copy.kcost"


@pytest.mark.parametrize(("arguments", "option", "first", "second"), [
    (["tune", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=8192", "--vary",
      "TM=64,128,256", "--vary", "TN=128,256"], "--vary", "TM=64,128,256", "TN=128,256"),
    (["model", "llama3_8b", "--batch", "1", "--batch", "64"], "--batch", "1", "64"),
    (["sweep", ROOT / "specs" / "gemm.kcost", "--set", "K=64,N=64", "--sweep", "N=64..4096",
      "--sweep", "M=64..128"], "--sweep", "N=64..4096", "M=64..128"),
    (["sweep", COPY, "--sweep", "n=1024..4096", "--points", "3", "--points", "4"], "--points",
     "3", "4"),
    (["bound", ROOT / "specs" / "gemm_tiled.kcost", "--level", "shared", "--level", "l2"],
     "--level", "shared", "l2"),
    (["analyze", COPY, "--inputs", "zeros", "--inputs", "random"], "--inputs", "zeros",
     "random"),
])
def test_a_single_valued_option_given_twice_is_refused(capsys, arguments, option, first,
                                                        second):
    """`tune --vary TM=64,128,256 --vary TN=128,256` ranked 2 candidates varying TN alone
    (TM left at the spec's 128), `model --batch 1 --batch 64` ran batch 64 alone, a second
    --sweep replaced the first: argparse keeps the last value of an option."""
    code, out, err = run(capsys, *arguments)
    assert code == 2 and out == "", err
    assert f"argument {option}: given twice, as `{first}` and as `{second}`" in err, err
    assert "usage:" in err and "give it once" in err


def test_an_option_given_twice_with_one_value_is_that_value(capsys):
    code, out, _ = run(capsys, "analyze", COPY, "--set", "n=4096", "--json", "--reuse", "spec",
                       "--reuse", "spec")
    assert code == 0 and json.loads(out)["traffic"]["global"]["value"] == 8 * 4096  # 2 x 4 B


def test_a_size_both_swept_and_set_is_refused_at_its_setting(capsys):
    """`sweep --sweep M=64..128 --set M=64` swept M and dropped M=64 without a word; tune
    refuses a size both varied and set (KC306)."""
    code, out, err = run(capsys, "sweep", ROOT / "specs" / "gemm.kcost", "--sweep", "M=64..128",
                         "--set", "K=64, M=64,N=64")
    assert code == 2 and out == ""
    assert err.startswith("--set:1:7: error[KC306]: `M` is both swept (M=64..128) and set"), err
    assert "hint: leave `M` out of --set" in err
    code, out, _ = run(capsys, "sweep", ROOT / "specs" / "gemm.kcost", "--sweep", "M=64..128",
                       "--set", "K=64,N=M", "--points", "2", "--csv")
    # M = N = 128, K = 64: W = 2 x 128 x 128 x 64 = 2,097,152 FLOP
    assert code == 0 and out.splitlines()[-1].startswith("128,2097152"), out


def test_a_swept_name_that_is_no_parameter_is_placed_in_the_sweep(capsys):
    """`--sweep H=1..8` where H is the spec's `let H = h / g`: the error had no place, where
    tune's --vary, solve's --for and phase's --x place the same name."""
    code, _, err = run(capsys, "sweep", ROOT / "specs" / "decode_attention_split.kcost",
                       "--sweep", "H=1..8", "--machine", "h100")
    assert code == 2, err
    assert err.startswith("--sweep:1:1: error[KC302]: `H` is not a parameter"), err
    assert "   1 | H=1..8\n       ^\n" in err


def test_a_size_past_a_double_is_printed_as_given(capsys, tmp_path):
    """A default of 10^29 - 1 (and --set of 10^29 - 2) printed `B = 99999999999999991433150857216`:
    the double nearest it, written out as if exact."""
    spec = write(tmp_path, "wide.kcost", "kernel z(n, B = 99999999999999999999999999999) {\n"
                 "    in  x: f32[n]\n    out y: f32[n]\n    for i in 0..n by B {\n"
                 "        y[i] = x[i] * 2\n    }\n}\n")
    code, out, _ = run(capsys, "analyze", spec, "--set", "n=1000", "--no-verify")
    assert code == 0 and "B = 99999999999999999999999999999\n" in out, out
    code, out, _ = run(capsys, "analyze", spec, "--set", "n=1000,B=99999999999999999999999999998",
                       "--no-verify")
    assert code == 0 and "B = 99999999999999999999999999998\n" in out, out
    assert "W (work)         1 FLOP" in out  # ceiling(1000 / B) = 1 block, one multiply


RESULTS = "kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop\n"
COPY_ROW = f"copy,{COPY},n=268435456,fp32,5.2e-4,,,"


@pytest.mark.parametrize(("old", "new", "message"), [
    ("5.2e-4", "٥", "time_s `٥` is not a positive number of seconds"),  # read as 5 s
    ("5.2e-4", "5_2e-4", "time_s `5_2e-4` is not a positive number"),  # read as 5.2e-3 s
    ("fp32,", "fp99,", "dtype `fp99` is no precision"),  # noted `measured in fp99`
    (",,,", ",١٢,,", "dram_bytes `١٢` is not a number from 0"),  # read as 12 B
])
def test_a_results_cell_is_read_as_written(capsys, tmp_path, old, new, message):
    """float() reads other scripts' digits and underscores: a time of `٥` was compared as
    5 s; a dtype that names no precision was carried into a note as it came."""
    row = COPY_ROW.replace(old, new, 1)
    results = write(tmp_path, "results.csv", RESULTS + row + "\n")
    code, out, err = run(capsys, "validate", results, "--machine", "h200")
    assert code == 2 and out == "" and f"error[KC612]: {message}" in err, err
    column = row.index(new.strip(",")) + 1
    assert err.startswith(f"{results}:2:{column}:"), err  # at the cell


def test_a_results_header_naming_a_column_twice_is_refused(capsys, tmp_path):
    """`kernel,kernel,...`: a row's dict kept the second column's value."""
    results = write(tmp_path, "results.csv", RESULTS.replace("kernel,", "kernel,kernel,")
                    + "copy," + COPY_ROW + "\n")
    code, _, err = run(capsys, "validate", results, "--machine", "h200")
    assert code == 2 and err.startswith(f"{results}:1:1: error[KC611]: the header names "
                                        "`kernel` twice"), err


def test_an_ncu_metric_in_other_digits_is_not_a_number(capsys, tmp_path):
    """dram__bytes.sum `١٦٨٣٤٥٦٠` (Arabic-Indic digits) was read as 16834560 B."""
    ncu = (ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv").read_text("utf-8").splitlines()
    ncu[3] = ncu[3].replace('"16834560"', '"١٦٨٣٤٥٦٠"', 1)
    export = write(tmp_path, "ncu.csv", "\n".join(ncu) + "\n")
    code, _, err = run(capsys, "validate", "--ncu", export, "--spec", GEMM, "--set",
                       "M=2048,N=2048,K=2048", "--machine", "h200")
    assert code == 2 and "dram__bytes.sum `١٦٨٣٤٥٦٠` is not a number" in err, err
    column = ncu[3].index('"١') + 1  # its opening quote
    assert err.startswith(f"{export}:4:{column}:"), err


def test_a_results_size_naming_no_parameter_is_placed_at_its_name(capsys, tmp_path):
    """The error ended in `(--set:1:1)`: a place in an option the user never gave."""
    row = COPY_ROW.replace("n=268435456", "n=1024;m=3")
    results = write(tmp_path, "results.csv", RESULTS + row + "\n")
    code, _, err = run(capsys, "validate", results, "--machine", "h200")
    assert code == 2 and "--set" not in err, err
    assert err.startswith(f"{results}:2:{row.index(';m=') + 2}: error[KC613]: copy: `m` is not "
                          "a parameter"), err


@pytest.mark.parametrize(("arguments", "start"), [
    (["analyze", ROOT / "specs" / "gemm.kcost", "--machine", "a100,h100", "--precision",
      "bf16,fp8"], "--precision:1:6:"),
    (["sweep", ROOT / "specs" / "gemm.kcost", "--sweep", "N=64..4096", "--set", "M=N,K=N",
      "--machine", "a100", "--precision", "fp8"], "--precision:1:1:"),
    (["model", "llama3_8b", "--machine", "a100", "--kv-cache", "fp8"], "--kv-cache:1:1:"),
])
def test_a_precision_the_machine_lacks_is_placed_in_its_option(capsys, arguments, start):
    """`machine a100 has no fp8 peak` had no place: the machine knows the precision, not the
    option that asked for it (an A100 has no FP8 tensor cores)."""
    code, _, err = run(capsys, *arguments)
    assert code == 2, err
    assert err.startswith(f"{start} error[KC408]: machine `a100` (NVIDIA A100 SXM4 80 GB) has "
                          "no `fp8` peak"), err


def test_a_check_past_the_enumeration_budget_names_no_missing_option(capsys):
    """`check --set n=1e12` said `raise max_steps`, a parameter of the Python API that no
    option sets, and had no place."""
    code, _, err = run(capsys, "check", COPY, "--set", "n=1e12")
    assert code == 2 and err.startswith("--set:1:1: error[KC704]"), err
    assert "max_steps" not in err and "give smaller sizes" in err


@pytest.mark.parametrize(("value", "shown"), [
    ("BLK/3", "`BLK/3` (= 1024/3) is not a whole number"),
    ("BLK-1024", "`BLK-1024` (= 0) is not positive"),
])
def test_a_setting_in_terms_of_a_default_is_a_size_there(capsys, value, shown):
    """`--set n=BLK/3` (BLK = 1024 by default) analysed n = 341.33: a warning, and
    Q = 8 x 1024/3 = 2.73 kB of a non-whole count, where `--set n=1024/3` is refused."""
    code, out, err = run(capsys, "analyze", COPY, "--set", f"n={value}", "--no-verify")
    assert code == 2 and out == "", err
    assert err.startswith(f"--set n:1:1: error[KC303]: size `n` must be a positive integer: "
                          f"{shown}"), err
    code, out, _ = run(capsys, "analyze", COPY, "--set", "n=BLK*2", "--json", "--no-verify")
    assert code == 0 and json.loads(out)["traffic"]["global"]["value"] == 8 * 2048  # 2 x 4 B


def _slow_h100(tmp_path, machine_id="h100"):
    """The shipped h100.toml with 1 TB/s of HBM, under the id given."""
    text = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text()
    text = text.replace("bandwidth_Bps = 3.35e12", "bandwidth_Bps = 1.0e12", 1)
    return write(tmp_path, "slow.toml", text.replace('id = "h100"', f'id = "{machine_id}"', 1))


@pytest.mark.parametrize(("command", "machines", "start", "message"), [
    ("analyze", "h100,h100", "--machine:1:6:", "`h100` is given twice"),
    ("analyze", "h100,{slow}", "--machine:1:6:",
     "`h100` and `{slow}` are both machines of the id `h100`"),
    ("plot", "h100,{slow}", "--machine:1:6:",
     "`h100` and `{slow}` are both machines of the id `h100`"),
])
def test_two_machines_of_one_id_are_refused(capsys, tmp_path, command, machines, start,
                                            message):
    """h100 and a file of id h100 at 1 TB/s printed two rows `H100 FP32` (2.5 µs and 8.39 µs
    for copy at n = 2^20) told apart by nothing, and in JSON two verdicts of `h100`; plot
    wrote both figures to p.h100.svg, the second over the first."""
    slow = _slow_h100(tmp_path)
    code, out, err = run(capsys, command, COPY, "--set", "n=1048576", "--machine",
                         machines.replace("{slow}", str(slow)),
                         *(["-o", tmp_path / "p.svg"] if command == "plot" else []))
    assert code == 2 and out == "", err
    assert err.startswith(f"{start} error[KC311]: {message.replace('{slow}', str(slow))}"), err
    assert not list(tmp_path.glob("p*.svg"))


def test_all_keeps_the_machine_files_named_beside_it(capsys, tmp_path):
    """`--machine all,slow.toml` analysed the built-in machines alone, and `all,nonexistent`
    ran without a word about the unknown name."""
    slow = _slow_h100(tmp_path, "h100slow")
    code, out, _ = run(capsys, "analyze", COPY, "--set", "n=1048576", "--machine", f"all,{slow}",
                       "--json")
    times = {v["machine"]: v["t_min"] for v in json.loads(out)["verdicts"]
             if v["level"] == "global"}
    assert code == 0 and len(times) == 9  # the 8 shipped machines and the file
    assert times["h100slow"] == pytest.approx(8 * 2**20 / 1.0e12)  # 8 B an element at 1 TB/s
    code, _, err = run(capsys, "analyze", COPY, "--set", "n=1048576", "--machine",
                       "all,nonexistent")
    assert code == 2 and err.startswith("--machine:1:5: error[KC401]"), err


def test_compare_without_a_curve_is_refused(capsys, tmp_path):
    """`model --compare a100` without --curve printed the h100 table alone: the machines of
    --compare were dropped without a word; `--compare a100,h100` beside --machine h100 drew
    two curves named H100."""
    code, out, err = run(capsys, "model", "llama3_8b", "--compare", "a100", "--batch", "1")
    assert code == 2 and out == "" and err.startswith("--compare:1:1: error[KC311]"), err
    assert "add --curve" in err
    code, _, err = run(capsys, "model", "llama3_8b", "--compare", "a100,h100", "--batch", "1,8",
                       "--curve", tmp_path / "c.svg")
    assert code == 2 and err.startswith("--compare:1:6: error[KC311]: `h100` is given twice")
    assert not (tmp_path / "c.svg").exists()


def test_two_specs_of_one_name_on_a_plot_are_refused(capsys, tmp_path):
    """`plot specs/gemm.kcost other/gemm.kcost --set gemm:N=2048` gave N = 2048 to both: the
    options name a spec by its file's stem, and both were drawn as `gemm`."""
    other = write(tmp_path, "gemm.kcost", (ROOT / "specs" / "gemm_tiled.kcost").read_text())
    gemm = ROOT / "specs" / "gemm.kcost"
    for second, message in ((other, f"`{gemm}` and `{other}` are both the spec `gemm`"),
                            (gemm, f"the spec `{gemm}` is given twice")):
        code, _, err = run(capsys, "plot", gemm, second, "--machine", "h100", "--set",
                           "M=N,K=N,N=1024", "--set", "gemm:N=2048", "-o", tmp_path / "p.svg")
        assert code == 2 and err.startswith(f"SPEC:1:1: error[KC311]: {message}"), err
    assert not (tmp_path / "p.svg").exists()


@pytest.mark.parametrize(("shapes", "start", "message"), [
    (["--set", "N=4096", "--shape", "N=8192"], "--shape:1:1:",
     "`N` is set in --set (to 4096) and in --shape (to 8192)"),
    (["--shape", "N=8192", "--shape", " N=8192"], "--shape:1:1:", "this shape is given twice"),
])
def test_a_tune_shape_that_overlaps_is_refused(capsys, shapes, start, message):
    """`--set N=4096 --shape N=8192` ranked at N = 8192 alone (the shape's size replaced
    --set's without a word); a shape given twice doubled every sum of times."""
    code, out, err = run(capsys, "tune", GEMM, "--machine", "h100", "--vary", "TM=128",
                         "--set", "M=N,K=N", *shapes)
    assert code == 2 and out == "" and err.startswith(f"{start} error[KC301]: {message}"), err
    code, out, _ = run(capsys, "tune", GEMM, "--machine", "h100", "--vary", "TM=128", "--set",
                       "M=N,K=N,N=8192", "--shape", "N=8192", "--json")
    assert code == 0 and json.loads(out)["fitting"] == 1


@pytest.mark.parametrize(("extra", "start"), [
    (["--values", "16..32"], "--values:1:1: error[KC311]: --values applies to a bare name"),
    (["--pow2"], "error[KC311]: --pow2 applies to a bare name"),
])
def test_values_for_no_bare_name_are_refused(capsys, extra, start):
    """`--vary TM=48,96 --pow2` ranked TM = 48 and 96, neither a power of two: --pow2 and
    --values shape the values of a bare name alone, and were dropped unread."""
    code, out, err = run(capsys, "tune", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=4096",
                         "--vary", "TM=48,96", *extra)
    assert code == 2 and out == "" and err.startswith(start), err


@pytest.mark.parametrize(("arguments", "message"), [
    (["{results}", "--machine", "h200", "--published"],
     "RESULTS.csv and --published are two comparisons: give one"),
    (["--published", "--ncu", "{ncu}"], "--ncu and --published are two comparisons"),
    (["{results}", "--machine", "h200", "--split", "calibration"],
     "--split goes with --published"),
    (["{results}", "--machine", "h200", "--figure", "{tmp}/f.png"],
     "--figure goes with --published"),
    (["{results}", "--machine", "h200", "--spec", COPY], "--spec goes with --ncu"),
])
def test_validate_runs_one_comparison_with_its_own_options(capsys, tmp_path, arguments,
                                                           message):
    """`validate results.csv --published` compared the corpus alone, `--published --ncu X`
    too, and --split, --figure (with --published) and --spec (with --ncu) given to another
    comparison were dropped unread (no figure written)."""
    results = write(tmp_path, "results.csv", RESULTS + COPY_ROW + "\n")
    ncu = ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv"
    code, out, err = run(capsys, "validate", *[str(a).replace("{results}", str(results))
                                              .replace("{ncu}", str(ncu))
                                              .replace("{tmp}", str(tmp_path))
                                              for a in arguments])
    assert code == 2 and out == "" and "usage:" in err and message in err, err
    assert not (tmp_path / "f.png").exists()


def test_a_level_solved_at_twice_is_refused(capsys):
    """`solve --level shared,shared` printed each row twice."""
    code, out, err = run(capsys, "solve", ROOT / "specs" / "gemm_tiled.kcost", "--for", "T",
                         "--machine", "h100", "--level", "shared,shared")
    assert code == 2 and out == "", err
    assert err.startswith("--level:1:8: error[KC311]: --level names `shared` twice"), err


@pytest.mark.parametrize("command", [["analyze"], ["solve", "--for", "N"]])
def test_a_precision_named_twice_is_refused(capsys, command):
    """`--precision fp32,fp32` printed each verdict (or crossing) twice."""
    code, out, err = run(capsys, command[0], ROOT / "specs" / "gemm.kcost", *command[1:],
                         "--set", "M=N,K=N", "--machine", "h100", "--precision", "fp32,fp32")
    assert code == 2 and out == "", err
    assert err.startswith("--precision:1:6: error[KC311]: --precision names `fp32` twice"), err


def test_a_usage_error_under_json_prints_its_json_error_object(capsys):
    """`--json` prints a JSON error object on stdout when a command fails (README), but an
    option argparse could not read printed nothing there: a script found an empty stdout."""
    code, out, err = run(capsys, "tune", GEMM, "--machine", "h100", "--json", "--vary",
                         "TM=64", "--vary", "TN=128")
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "KC322" and error["exit_code"] == 2
    assert error["message"].startswith("argument --vary: given twice"), error
    assert "error: argument --vary: given twice" in err and "error[KC322]" in err


def test_a_machine_figure_of_five_thousand_digits_is_placed(capsys, tmp_path):
    """tomllib raises ValueError, not its TOMLDecodeError, past Python's 4,300 digits of an
    integer: `bandwidth_Bps = 999...9` (5,000 nines) was an internal error, exit 3."""
    text = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text()
    text = text.replace("bandwidth_Bps = 3.35e12", "bandwidth_Bps = " + "9" * 5000, 1)
    machine = write(tmp_path, "big.toml", text)
    line = text[:text.index("9" * 5000)].count("\n") + 1
    code, _, err = run(capsys, "analyze", COPY, "--machine", machine)
    assert code == 2, err
    assert err.startswith(f"{machine}:{line}:17: error[KC402]: an integer of 5,000 digits"), err


def test_a_machine_figure_out_of_range_is_shown_as_written(capsys, tmp_path):
    """`bandwidth_Bps = 0` said `got an integer of 1 digits`."""
    text = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text()
    machine = write(tmp_path, "zero.toml", text.replace("bandwidth_Bps = 3.35e12",
                                                         "bandwidth_Bps = 0", 1))
    code, _, err = run(capsys, "analyze", COPY, "--machine", machine)
    assert code == 2 and "SI base units, got 0\n" in err, err


NINES = "9" * 5000  # past the 4,300 digits Python's int() converts


@pytest.mark.parametrize(("arguments", "start"), [
    (["model", "llama3_8b", "--batch", NINES], "--batch:1:1: error[KC308]"),
    (["model", "llama3_8b", "--context", f"1..{NINES}"], "--context:1:4: error[KC308]"),
    (["tune", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=4096", "--vary", f"TM={NINES}"],
     "--vary:1:4: error[KC308]"),
    (["tune", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=4096", "--vary", "TM",
      "--values", NINES], "--values:1:1: error[KC308]"),
])
def test_a_number_of_five_thousand_digits_in_an_option_is_placed(capsys, arguments, start):
    """int() of more than 4,300 digits raises ValueError: `--batch 999...9` was an internal
    error (exit 3), as --context, --tp, --vary and --values were."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith(start) and "a number of 5,000 digits" in err, err


def test_exponentials_moved_where_there_are_none_is_refused(capsys):
    """`analyze copy --exp-on-fma 0.5` said `exponentials: 0.5 of the exponentials as a
    degree-3 polynomial on the FP32 vector units` of a kernel that computes none."""
    code, out, err = run(capsys, "analyze", COPY, "--set", "n=4096", "--machine", "b200",
                         "--exp-on-fma", "0.5")
    assert code == 2 and out == "", err
    assert err.startswith("--exp-on-fma:1:1: error[KC311]: --exp-on-fma: `copy` computes no "
                          "exponential"), err


def test_a_bound_names_the_fast_memory_as_its_formulas_do(capsys, tmp_path):
    """A spec with a size `S`: the fast memory's symbol is S_mem, but the report said
    `machine h100: S = 484 KiB` beside `--set S=100`, the spec's S."""
    spec = write(tmp_path, "s.kcost", "kernel k(S) {\n    in  x: f32[S]\n    out y: f32[S]\n"
                 "    for i in 0..S {\n        y[i] = x[i] * 2 + S\n    }\n}\n")
    code, out, _ = run(capsys, "bound", spec, "--machine", "h100", "--set", "S=100")
    assert code == 0 and "machine    h100: S_mem = 484 KiB" in out, out
    assert "h100: S =" not in out
