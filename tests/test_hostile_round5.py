"""Hostile input, the fifth round: Triton sources that nest or chain past what the import
reads (each met a limit without a place, ran for minutes, or wrote a spec that kernelcost
then refused), and the figures a user's option or file makes absurd."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostile_runs import TRITON, run, write

ROOT = Path(__file__).resolve().parent.parent

STORE = "    tl.store(y_ptr + offs, x * 2, mask=mask)"


@pytest.mark.parametrize("lines", [1, 12, 40])
def test_a_chain_of_blocks_each_read_twice_imports_in_linear_time(capsys, tmp_path, lines):
    """`a1 = a0 * 3 + a0 * 5`, `a2 = a1 * 3 + a1 * 5`, ...: each block carried its operand's
    masks twice, so the n-th statement clipped its lanes by 2^n copies of one bound (20
    lines: 54 s; 25 lines: the 60 s budget). The masks are a set: one bound a statement."""
    body = "    a0 = x\n" + "".join(f"    a{i + 1} = a{i} * 3 + a{i} * 5\n"
                                    for i in range(lines))
    source = write(tmp_path, "k.py", TRITON.replace(
        STORE, f"{body}    tl.store(y_ptr + offs, a{lines}, mask=mask)"))
    code, out, err = run(capsys, "import", f"{source}::k")
    assert code == 0, err
    # a0 .. a(n-1) read twice are register blocks, each a loop clipped once at n; a(n),
    # read once, is written into the store
    assert out.count("let a") == lines and out.count(", n - pid_start) {") == lines - 1
    last = f"a{lines - 1}[offs - pid_start]"
    assert f"y_ptr[offs] = {last} * 3 + {last} * 5\n" in out, out


@pytest.mark.parametrize(("terms", "code", "message"), [
    (300, "KC107", "the spec nests more than 300 levels deep here (in the spec this "
                   "statement imports to)"),  # `import` wrote it; analyze refused it
    (600, "KC705", "the input nests too deeply to analyse while importing the Triton kernel"),
    (3000, "KC109", "the Python source nests too deeply to read"),  # ast.parse's own stack
])
def test_a_long_chain_of_operators_is_placed_at_its_line(capsys, tmp_path, terms, code,
                                                         message):
    """`x + x + ... + x` in a tl.store: 300 terms were imported (exit 0) into a spec that
    analyze refuses; 600 met the recursion limit with no place; 3000, Python's parser's
    limit, were placed at 1:1."""
    source = write(tmp_path, "k.py", TRITON.replace("x * 2", " + ".join(["x"] * terms)))
    exit_code, out, err = run(capsys, "import", f"{source}::k")
    assert exit_code == 2 and out == "", err
    column = 1 if code == "KC109" else 5  # a statement's place, or its line's
    assert err.startswith(f"{source}:10:{column}: error[{code}]: {message}"), err


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    ("(" * 300 + "x" + ")" * 300 + " * 2", 10, 27 + 200, "nests brackets too deeply"),
    ("x\0 * 2", 10, 29, "source code string cannot contain null bytes"),
])
def test_python_that_cannot_be_read_is_placed_where_it_fails(capsys, tmp_path, text, line,
                                                             column, message):
    """Both were placed at 1:1, the file's `import triton`: the 201st bracket, and the NUL
    byte (Python's SyntaxError gives it no line)."""
    source = write(tmp_path, "k.py", TRITON.replace("x * 2", text))
    code, _, err = run(capsys, "import", f"{source}::k")
    assert code == 2 and err.startswith(f"{source}:{line}:{column}: error[KC109]"), err
    assert message in err


@pytest.mark.parametrize(("arguments", "option"), [
    (["model", "llama3_8b", "--chunk", "9" * 30], "--chunk"),
    (["model", "llama3_8b", "--memory-fraction", "9" * 30], "--memory-fraction"),
    (["model", "llama3_8b", "--launch", "eager" * 10], "--launch"),
    (["model", "llama3_8b", "--weights", "int4" * 10], "--weights"),
    (["import", f"{ROOT}/tests/triton_tutorials/01_vector_add.py::add_kernel", "--config",
      "x" * 30], "--config"),
])
def test_a_long_value_is_cut_inside_its_quotes(capsys, arguments, option):
    """`{text!r:.20}` cut the value's repr, closing quote and all: `not '9999999999999999999
    (vLLM's ...`, a quote opened and never closed."""
    code, _, err = run(capsys, *arguments)
    shown = next(line for line in err.splitlines() if option in line and "error" in line)
    assert code == 2 and re.search(r"'[^' ]{10,20}…'", shown), err


def _usable(out: str) -> float:
    """The usable GB of a model report's memory line."""
    return float(re.search(r"% usable: ([\d.]+) GB", out)[1])


@pytest.mark.parametrize("fraction", ["0.1", "0.02", "0.01"])
def test_the_tp_a_model_is_told_to_take_is_one_it_accepts_and_fits(capsys, fraction):
    """At --memory-fraction 0.1 of an H100 the 16.1 GB of Llama-3-8B were told `they need
    --tp 3 or more`, a --tp the command refuses (3 does not divide the 32 heads, KC507);
    the suggestion is the least divisor of the heads that holds the weights."""
    code, out, _ = run(capsys, "model", "llama3_8b", "--batch", "1", "--memory-fraction",
                       fraction)
    out = " ".join(out.split())  # the page's lines unwrapped
    tp = int(out.split("they need --tp ")[1].split()[0])
    weights = float(re.search(r"the weights alone \(([\d.]+) GB", out)[1])
    assert code == 0 and 32 % tp == 0 and weights / tp <= _usable(out)
    smaller = [d for d in range(1, tp) if 32 % d == 0]
    assert all(weights / d > _usable(out) for d in smaller)  # none smaller holds them
    code, out, _ = run(capsys, "model", "llama3_8b", "--batch", "1", "--memory-fraction",
                       fraction, "--tp", tp)
    assert code == 0 and "do not fit" not in out


@pytest.mark.parametrize("fraction", ["0.001", "1e-300"])
def test_weights_no_tp_holds_are_said_to_be_past_it(capsys, fraction):
    """--memory-fraction 1e-300 printed `8e-281 nB` usable and `they need --tp` of 300
    digits; 0.001 (80 MB) asked for --tp 201 of a 32-head model."""
    code, out, _ = run(capsys, "model", "llama3_8b", "--batch", "1", "--memory-fraction",
                       fraction)
    out = " ".join(out.split())
    assert code == 0 and "more than --tp splits them over (at most the 32 attention heads" in out
    assert "nB" not in out and "need --tp" not in out
    assert not re.search(r"\d{10}", out), out


H100 = ROOT / "src" / "kernelcost" / "machines" / "h100.toml"


@pytest.mark.parametrize(("machine_id", "start"), [
    ("../../evil", "'../../evil' is no machine id"),  # plot: ValueError, exit 3
    ("a,b", "'a,b' is no machine id"),  # a comma splits --machine lists
    ("h\u0301100", "'h\u0301100' is no machine id"),  # a combining accent
    ("h" * 65, "'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh…' is no machine id"),
    ("h1\\n00", "`id` holds the control character U+000A at its character 3"),
])
def test_a_machine_id_is_a_name(capsys, tmp_path, machine_id, start):
    """The id names the machine in --machine lists and in a figure's file name a machine
    (`p.h100.svg`): `id = "../../evil"` ended `plot --machine h100,FILE` in `ValueError:
    Invalid suffix` (exit 3), and a newline split `machines`' title in two."""
    machine = write(tmp_path, "m.toml", H100.read_text().replace('id = "h100"',
                                                                 f'id = "{machine_id}"', 1))
    code, _, err = run(capsys, "plot", ROOT / "specs" / "gemm.kcost", "--set", "M=N,K=N,N=64",
                       "--machine", f"h100,{machine}", "-o", tmp_path / "p.svg")
    assert code == 2 and err.startswith(f"{machine}:8:6: error[KC405]: "), err
    assert start in err and not list(tmp_path.glob("*.svg"))


@pytest.mark.parametrize(("path", "old", "new", "key", "code"), [
    (H100, 'name = "NVIDIA H100 SXM5 80 GB"', 'name = "\\u001b[31mRED"', "name", "KC405"),
    (H100, 'vendor = "NVIDIA"', 'vendor = "NV\\u202eAIDI"', "vendor", "KC405"),
    (ROOT / "src" / "kernelcost" / "models" / "llama3_8b.toml", 'name = "Llama-3-8B"',
     'name = "Llama\\r3"', "name", "KC505"),
])
def test_a_control_character_in_a_file_s_text_is_placed(capsys, tmp_path, path, old, new,
                                                        key, code):
    """TOML writes any character as an escape: a name of `\\u001b[31m` recoloured the
    terminal `machines` printed it on, a U+202E reversed the rest of the line, a `\\r`
    overwrote a model's title from its start."""
    text = path.read_text()
    assert old in text
    given = write(tmp_path, f"x{path.suffix}", text.replace(old, new, 1))
    line = text[:text.index(old)].count("\n") + 1
    command = ["machines", given] if "machines" in str(path) else ["model", given, "--batch",
                                                                   "1"]
    exit_code, out, err = run(capsys, *command)
    assert exit_code == 2 and out == "", err
    assert err.startswith(f"{given}:{line}:{len(key) + 4}: error[{code}]: `{key}` holds the "
                          "control character"), err


NCU = ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv"
NCU_RUN = ["--spec", ROOT / "specs" / "gemm_hopper.kcost", "--set", "M=2048,N=2048,K=2048",
           "--machine", "h200"]


def _ncu(tmp_path, old: str, new: str, line: int = 3) -> Path:
    rows = NCU.read_text("utf-8").splitlines()
    assert old in rows[line]
    rows[line] = rows[line].replace(old, new, 1)
    return write(tmp_path, "ncu.csv", "\n".join(rows) + "\n")


RESULTS = ("kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop\n"
           f"copy,{ROOT / 'specs' / 'copy.kcost'},n=268435456,fp32,5.2e-4,,,\n")


@pytest.mark.parametrize("command", ["ncu", "results"])
def test_a_cell_past_csv_s_field_limit_is_read(capsys, tmp_path, command):
    """csv's reader refuses a field of more than 131,072 characters: a kernel name of 200 kB
    (inside the 20 MB an export may have) was `internal error: field larger than field
    limit` (exit 3). Each line is read with the limit lifted."""
    name = "k" * 200_000
    if command == "ncu":
        export = _ncu(tmp_path, "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_NNT", name)
        code, out, err = run(capsys, "validate", "--ncu", export, *NCU_RUN)
        assert code == 0 and f"1 launch(es): {name}\n" in out, err
        assert "global       predicted    25.2 MB  measured    16.8 MB" in out  # 16834560 B
    else:
        results = write(tmp_path, "r.csv", RESULTS.replace(",,,", f",,,\n{name},x,n=1,fp32,1,,,"))
        code, _, err = run(capsys, "validate", results, "--machine", "h200")
        assert code == 2 and f"{results}:3:" in err and "error[KC61" in err, err


def test_an_ncu_header_naming_a_metric_twice_is_refused(capsys, tmp_path):
    """`dram__bytes.sum` twice (the second over lts__t_bytes.sum): the launch's dict kept the
    second column, so L2's 110 MB were compared as DRAM bytes (4.39x) and L2 went unread."""
    export = _ncu(tmp_path, '"lts__t_bytes.sum"', '"dram__bytes.sum"', line=1)
    code, out, err = run(capsys, "validate", "--ncu", export, *NCU_RUN)
    header = NCU.read_text("utf-8").splitlines()[1]
    column = header.index('"lts__t_bytes.sum"') + 1
    assert code == 2 and out == "", err
    assert err.startswith(f"{export}:2:{column}: error[KC611]: the header names "
                          "`dram__bytes.sum` twice"), err


def test_a_huge_measured_ratio_is_printed_in_a_few_digits(capsys, tmp_path):
    """dram__bytes.sum `1e308` printed `measured/predicted 39736429850260415120246...x`,
    a ratio of 301 digits."""
    export = _ncu(tmp_path, '"16834560"', '"1e308"')
    code, out, _ = run(capsys, "validate", "--ncu", export, *NCU_RUN)
    ratio = 1e308 / 25_165_824  # the predicted 25.2 MB of global traffic, as the report says
    assert code == 0 and f"measured/predicted {ratio:.3g}x" in out, out


def test_an_ncu_export_that_is_not_utf8_is_placed_at_the_byte(capsys, tmp_path):
    """The export was read with Path.read_text: a Latin-1 byte in a kernel name was
    `internal error: UnicodeDecodeError` (exit 3), where a results CSV places it."""
    rows = NCU.read_bytes().split(b"\n")
    rows[3] = rows[3].replace(b"nvjet", b"nv\xffjet", 1)
    export = tmp_path / "ncu.csv"
    export.write_bytes(b"\n".join(rows))
    code, _, err = run(capsys, "validate", "--ncu", export, *NCU_RUN)
    column = rows[3].index(b"\xff") + 1
    assert code == 2 and err.startswith(f"{export}:4:{column}: error[KC805]: the file is not "
                                        "UTF-8 text: byte 0xFF here"), err


@pytest.mark.parametrize(("path", "message"), [
    ("/dev/null", "/dev/null is a device, not a regular file"),  # was `no such file`
    ("{tmp}", "{tmp} is a directory"),
])
def test_an_ncu_export_that_is_no_file_says_what_it_is(capsys, tmp_path, path, message):
    code, _, err = run(capsys, "validate", "--ncu", path.replace("{tmp}", str(tmp_path)),
                       *NCU_RUN)
    assert code == 2 and f"error[KC803]: {message.replace('{tmp}', str(tmp_path))}" in err, err


@pytest.mark.parametrize(("raised", "code", "message"), [
    (MemoryError, "KC708", "the analysis ran out of memory while counting"),
    (RecursionError, "KC705", "the input nests too deeply to analyse while counting"),
])
@pytest.mark.parametrize("source_reads", [True, False])
def test_a_limit_met_mid_stage_is_placed_at_the_stage(capsys, monkeypatch, raised, code,
                                                       message, source_reads):
    """Memory and recursion met while counting said neither file nor line, where the time
    budget's report places the stage; the excerpt's file read again in the report of a
    MemoryError may itself run out of memory: then the place is given without it."""
    from kernelcost import cli
    from kernelcost.base import inputs, tree, watchdog

    copy = ROOT / "specs" / "copy.kcost"

    def hungry(args):
        watchdog.stage("counting", tree.Span(str(copy), 8, 1, 8, 7))
        raise raised

    def no_memory(*arguments):
        raise MemoryError

    monkeypatch.setitem(cli.COMMANDS, "machines", hungry)
    if not source_reads:
        monkeypatch.setattr(inputs, "read_text", no_memory)
    exit_code, _, err = run(capsys, "machines")
    assert exit_code == 2 and err.startswith(f"{copy}:8:1: error[{code}]: {message}"), err
    assert ("   8 | kernel copy(n, BLK = 1024) {" in err) == source_reads, err


@pytest.mark.parametrize("where", ["launch", "--grid"])
def test_a_grid_too_deep_for_the_spec_is_placed_where_it_is_given(capsys, tmp_path, where):
    """A grid of `n * n * ... * n` (500 factors) imported into a spec its parser refuses:
    the error had no place (its spec line names no line of the kernel)."""
    product = " * ".join(["n"] * 500)
    text = TRITON.replace("(triton.cdiv(n, meta['BLOCK']),)", f"({product},)")
    if where == "--grid":
        text = TRITON.replace("    k[grid](x, y, n, BLOCK=1024)\n", "")
    source = write(tmp_path, "k.py", text)
    code, _, err = run(capsys, "import", f"{source}::k",
                       *(["--grid", product] if where == "--grid" else []))
    start = "--grid:1:1:" if where == "--grid" else f"{source}:14:5:"  # the launch's line
    assert code == 2 and err.startswith(f"{start} error[KC107]"), err


def test_a_stream_k_of_fewer_k_steps_than_workers_is_said_in_the_singular(capsys):
    """M = N = 256, K = 64 at 128 x 256 x 64 tiles: 2 tiles of one k-step each, so 2 of the
    132 persistent workers get work, one k-step each; the report said `the busiest 1
    k-steps (1 tiles of 1)`."""
    code, out, _ = run(capsys, "analyze", ROOT / "specs" / "gemm_hopper_streamk.kcost", "--set",
                       "M=256,N=256,K=64", "--machine", "h100")
    out = " ".join(out.split())
    assert code == 0 and ("stream-K: 2 workers, the busiest 1 k-step (1 tile of 1), 0 partial "
                          "tiles fixed up (0 B)") in out, out
