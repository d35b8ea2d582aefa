"""One real input for every error code: the examples of docs/errors.md, written there with
the exact message each gives by tools/regen_error_docs.py, and run again by
tests/test_error_codes.py. An example is a command line (files written in a temporary folder,
the command's working folder) or, for errors only the Python API or a broken machine can
reach, a snippet run in process (tests/example_runs.py runs one). Each example must raise its
own code first."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SHIPPED = ROOT / "src" / "kernelcost"


@dataclass(frozen=True)
class Example:
    code: str
    argv: tuple[str, ...] = ()  # kernelcost's arguments; empty for a `python` example
    files: dict[str, str | bytes] = field(default_factory=dict)
    python: str = ""  # a snippet run in process, `files` written beside it
    env: dict[str, str] = field(default_factory=dict)
    process: bool = False  # run as the console script does (the watchdog, a real stdout)
    stdout: str = ""  # where the process's stdout goes: "/dev/full" for a failed write
    note: str = ""  # what the files are, where showing them would not help
    volatile: bool = False  # the message names where slow work stopped, which timing decides


SCALE = """kernel scale(n) {
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n {
        y[i] = 2 * x[i]
    }
}
"""
SPIN = """kernel spin(n) {
    let acc: f32 = 0
    for i in 0..n {
        acc += 1.5
    }
}
"""
COPY = SCALE.replace("kernel scale", "kernel copy").replace("2 * x[i]", "x[i]")
GEMM = (ROOT / "specs" / "gemm.kcost").read_text("utf-8")
# a grid of thread blocks of B elements each, which the spec assumes divide n
BLOCKS = """kernel blocks(n, B = 256) {
    assume B | n
    in  x: f32[n]
    out y: f32[n]
    for b0 in 0..n by B parallel(threads = 256) {
        for i in b0..b0 + B {
            y[i] = 2 * x[i]
        }
    }
}
"""
# a Triton kernel and its launch, as `kernelcost import` reads them (tutorial 01's shape)
TRITON_ADD = """import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y, out):
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)
    add_kernel[grid](x, y, out, n, BLOCK=1024)
"""
COMMON = {"scale.kcost": SCALE, "gemm.kcost": GEMM}  # shown once, above the examples


def golden(name: str) -> dict[str, str]:
    """A broken spec of tests/errors, as `NAME.kcost`."""
    return {f"{name}.kcost": (TESTS / "errors" / f"{name}.kcost").read_text("utf-8")}


def shipped(folder: str, name: str) -> str:
    return (SHIPPED / folder / name).read_text("utf-8")


def h100_with(old: str, new: str) -> str:
    """The shipped H100 file with one edit."""
    text = shipped("machines", "h100.toml")
    assert text.count(old) == 1, old
    return text.replace(old, new)


def llama_with(old: str, new: str) -> str:
    text = shipped("models", "llama3_8b.toml")
    assert text.count(old) == 1, old
    return text.replace(old, new)


CSV_HEADER = ("kernel,spec,sizes,dtype,time_s,dram_read_B,dram_write_B,l2_read_B,l2_write_B,"
              "flop\n")

EXAMPLES = [
    # syntax
    Example("KC101", ("analyze", "empty.kcost"), {"empty.kcost": "\n"},
            note="empty.kcost: an empty line"),
    Example("KC102", ("analyze", "syntax_unexpected_token.kcost"),
            golden("syntax_unexpected_token")),
    Example("KC103", ("analyze", "syntax_unexpected_eof.kcost"), golden("syntax_unexpected_eof")),
    Example("KC104", ("analyze", "syntax_unexpected_character.kcost"),
            golden("syntax_unexpected_character")),
    Example("KC105", ("analyze", "syntax_compound_operator.kcost"),
            golden("syntax_compound_operator")),
    Example("KC106", python='from kernelcost.lang.parse import parse\n'
                            'parse("#" * 1_000_001, "long.kcost")'),
    Example("KC107", ("analyze", "nesting_too_deep.kcost"), golden("nesting_too_deep")),
    Example("KC108", ("analyze", "number_too_large.kcost"), golden("number_too_large")),
    Example("KC109", ("import", "kernel.py::add_kernel"), {"kernel.py": TRITON_ADD.replace(
        "mask = offsets < n", "mask = offsets < n)")}),
    Example("KC110", ("analyze", "name_too_long.kcost"), golden("name_too_long")),
    # check
    Example("KC201", ("check", "duplicate.kcost"),
            {"duplicate.kcost": SCALE.replace("out y: f32[n]", "out x: f32[n]")}),
    Example("KC202", ("check", "keyword_as_name.kcost"), golden("keyword_as_name")),
    Example("KC203", ("check", "undefined_name.kcost"), golden("undefined_name")),
    Example("KC204", ("check", "unknown_element_type.kcost"), golden("unknown_element_type")),
    Example("KC205", ("check", "unknown_home_level.kcost"), golden("unknown_home_level")),
    Example("KC206", ("check", "wrong_index_count.kcost"), golden("wrong_index_count")),
    Example("KC207", ("check", "non_affine_index.kcost"), golden("non_affine_index")),
    Example("KC208", ("check", "index_reads_tensor.kcost"), golden("index_reads_tensor")),
    Example("KC209", ("check", "write_in_tensor.kcost"), golden("write_in_tensor")),
    Example("KC210", ("check", "wrong_arity.kcost"), golden("wrong_arity")),
    Example("KC211", ("check", "bad_step_zero.kcost"), golden("bad_step_zero")),
    Example("KC212", ("check", "empty_kernel.kcost"), golden("empty_kernel")),
    Example("KC213", ("check", "local_array_without_shape.kcost"),
            golden("local_array_without_shape")),
    Example("KC214", ("check", "parallel_missing_threads.kcost"),
            golden("parallel_missing_threads")),
    Example("KC215", ("check", "lanes_outside_grid.kcost"), golden("lanes_outside_grid")),
    Example("KC216", ("check", "keep_not_faster.kcost"), golden("keep_not_faster")),
    Example("KC217", ("check", "deep.kcost"), {"deep.kcost": """kernel deep(n) {
    out y: f32[n]
    for i0 in 0..n, i1 in 0..n, i2 in 0..n, i3 in 0..n, i4 in 0..n, i5 in 0..n,
        i6 in 0..n, i7 in 0..n, i8 in 0..n, i9 in 0..n, i10 in 0..n, i11 in 0..n,
        i12 in 0..n, i13 in 0..n, i14 in 0..n, i15 in 0..n, i16 in 0..n {
        y[i0] += 1
    }
}
"""}),
    Example("KC218", ("check", "unknown_reuse_mode.kcost"), golden("unknown_reuse_mode")),
    Example("KC219", ("check", "zero.kcost"), {"zero.kcost": SCALE.replace(
        "    in  x: f32[n]\n", "    let h = n / 0\n    in  x: f32[n]\n")}),
    Example("KC220", ("check", "past_the_end.kcost", "--set", "n=4"),
            {"past_the_end.kcost": SCALE.replace("0..n", "0..n + 1")}),
    Example("KC221", ("check", "impossible.kcost"), {"impossible.kcost": SCALE.replace(
        "    in  x", "    assume n > 4, n < 3\n    in  x")}),
    Example("KC222", ("check", "scale.kcost"), {"scale.kcost": SCALE.replace(
        "y[i] = 2 * x[i]", "y[i] = 2 * x[i] on tensor")}),
    Example("KC223", ("check", "scale.kcost"), {"scale.kcost": SCALE.replace(
        "    in  x", "    needs wgmma, tcgen5\n    in  x")}),
    Example("KC224", ("check", "scale.kcost"), {"scale.kcost": SCALE.replace(
        "    in  x", "    serial vector, sfuu\n    in  x")}),
    Example("KC225", ("import", "kernel.py::add"), {"kernel.py": TRITON_ADD}),
    Example("KC226", ("import", "kernel.py::add_kernel"), {"kernel.py": TRITON_ADD.replace(
        "x = tl.load(x_ptr + offsets, mask=mask)", "x = tl.load(x_ptr + offsets // 7)")}),
    Example("KC227", ("import", "kernel.py::add_kernel"), {"kernel.py": TRITON_ADD.replace(
        "triton.cdiv(n, meta['BLOCK'])", "x.numel()")}),
    Example("KC228", ("check", "parallel_stream_k_with_split_k.kcost"),
            golden("parallel_stream_k_with_split_k")),
    Example("KC250", ("bound", "copy.kcost"), {"copy.kcost": COPY}),
    Example("KC251", ("bound", "conv3x3.kcost"),
            {"conv3x3.kcost": (ROOT / "specs" / "conv3x3.kcost").read_text("utf-8")},
            note="conv3x3.kcost: the repository's specs/conv3x3.kcost"),
    # size
    Example("KC301", ("analyze", "scale.kcost", "--set", "n"), {"scale.kcost": SCALE}),
    Example("KC302", ("analyze", "scale.kcost", "--set", "m=4096"), {"scale.kcost": SCALE}),
    Example("KC303", ("analyze", "scale.kcost", "--set", "n=1.5"), {"scale.kcost": SCALE}),
    Example("KC304", ("analyze", "gemm.kcost", "--set", "M=N,N=M"), {"gemm.kcost": GEMM}),
    Example("KC305", ("sweep", "gemm.kcost", "--sweep", "N=64..4096"), {"gemm.kcost": GEMM}),
    Example("KC306", ("solve", "scale.kcost", "--for", "n", "--set", "n=4096"),
            {"scale.kcost": SCALE}),
    Example("KC307", ("analyze", "halo.kcost", "--set", "n=4"), {"halo.kcost": SCALE.replace(
        "    for i in", "    let m = n - 8\n    for i in").replace("0..n {", "0..m {")}),
    Example("KC308", ("sweep", "scale.kcost", "--sweep", "n=4096..64"), {"scale.kcost": SCALE}),
    Example("KC309", ("sweep", "scale.kcost", "--sweep", "n=64..4096", "--points", "1"),
            {"scale.kcost": SCALE}),
    Example("KC310", ("analyze", "scale.kcost", "--measured", "1ms"), {"scale.kcost": SCALE}),
    Example("KC311", ("analyze", "scale.kcost", "--machine", "b200", "--exp-on-fma", "2"),
            {"scale.kcost": SCALE}),
    Example("KC312", ("analyze", "scale.kcost", "--machine", "h100", "--warm-l2", "w"),
            {"scale.kcost": SCALE}),
    Example("KC313", ("solve", "scale.kcost", "--for", "n", "--machine", "h100", "--level",
                      "shared"), {"scale.kcost": SCALE}),
    Example("KC314", ("solve", "clamp.kcost", "--for", "N", "--machine", "h100"),
            {"clamp.kcost": (TESTS / "specs_minmax" / "clamp.kcost").read_text("utf-8")},
            note="clamp.kcost: the repository's tests/specs_minmax/clamp.kcost"),
    Example("KC315", ("plot", "copy.kcost", "--machine", "h100", "--set", "n=4096", "-o",
                      "copy.svg"), {"copy.kcost": COPY}),
    Example("KC316", ("plot", "scale.kcost", "--machine", "h100", "--set", "copy:n=4096", "-o",
                      "scale.svg"), {"scale.kcost": SCALE}),
    Example("KC317", ("analyze", "blocks.kcost", "--machine", "h100", "--set", "n=1000"),
            {"blocks.kcost": BLOCKS}),
    Example("KC318", ("sweep", "gemm.kcost", "--sweep", "N=64..1024", "--set", "M=1e309,K=N"),
            {"gemm.kcost": GEMM}),
    Example("KC319", ("tune", "scale.kcost", "--machine", "h100", "--vary",
                      "n=64..256,stages=1..4"), {"scale.kcost": SCALE}),
    Example("KC320", ("analyze", "rows.kcost", "--set", "n=4096,m=4096"),
            {"rows.kcost": SCALE.replace("kernel scale(n)", "kernel rows(n, m)").replace(
                "0..n {", "0..n / (m - 4096) {")}),
    Example("KC321", ("analyze", "blocks.kcost", "--machine", "h100", "--set", "n=4096"),
            {"blocks.kcost": BLOCKS.replace("threads = 256", "threads = B / 3")}),
    Example("KC322", ("tune", "scale.kcost", "--machine", "h100", "--vary", "n=64",
                      "--vary", "n=128"), {"scale.kcost": SCALE}, process=True),
    # machine
    Example("KC401", ("analyze", "scale.kcost", "--machine", "h1000"), {"scale.kcost": SCALE}),
    Example("KC402", ("analyze", "scale.kcost", "--machine", "mine.toml"),
            {"scale.kcost": SCALE, "mine.toml": 'id = "mine"\nname = "My GPU\n'}),
    Example("KC403", ("analyze", "scale.kcost", "--machine", "mine.toml"),
            {"scale.kcost": SCALE, "mine.toml": h100_with("[device]", "[device]\ncolour = 1")},
            note="mine.toml: the shipped h100.toml with `colour = 1` added to [device]"),
    Example("KC404", ("analyze", "scale.kcost", "--machine", "mine.toml"),
            {"scale.kcost": SCALE, "mine.toml": 'id = "mine"\n'}),
    Example("KC405", ("analyze", "scale.kcost", "--machine", "mine.toml"),
            {"scale.kcost": SCALE, "mine.toml": h100_with('id = "h100"', 'id = "H100"')},
            note='mine.toml: the shipped h100.toml with `id = "H100"`'),
    Example("KC406", ("analyze", "scale.kcost", "--machine", "mine.toml"),
            {"scale.kcost": SCALE, "mine.toml": h100_with('[[memory]]\nlevel = "l2"',
                                                     '[[memory]]\nlevel = "global"')},
            note="mine.toml: the shipped h100.toml with its `l2` level renamed `global`"),
    Example("KC407", ("analyze", "scale.kcost", "--machine", "mine.toml", "--warm-l2", "x"),
            {"scale.kcost": SCALE, "mine.toml": re.sub(
                r'(level = "l2"\n)bandwidth_Bps = [^\n]*\nbandwidth_source = [^\n]*\n', r"\1",
                shipped("machines", "h100.toml"))},
            note="mine.toml: the shipped h100.toml without the L2 bandwidth"),
    Example("KC408", ("analyze", "scale.kcost", "--machine", "a100", "--precision", "fp8"),
            {"scale.kcost": SCALE}),
    Example("KC409", ("analyze", "scale.kcost", "--machine", "h100", "--precision", "bf61"),
            {"scale.kcost": SCALE}),
    Example("KC410", ("solve", "scale.kcost", "--for", "n", "--machine", "h100"),
            {"scale.kcost": SCALE.replace("    in  x", "    target sm_100a\n    in  x")}),
    Example("KC411", ("model", "llama3_8b", "--tp", "2", "--topology", "hgx_h1000")),
    # model
    Example("KC501", ("model", "llama9")),
    Example("KC502", ("model", "mine.toml"), {"mine.toml": 'name = "Mine\n'}),
    Example("KC503", ("model", "mine.toml"),
            {"mine.toml": llama_with("layers = 32", "layers = 32\nlayer = 32")},
            note="mine.toml: the shipped llama3_8b.toml with `layer = 32` added"),
    Example("KC504", ("model", "mine.toml"), {"mine.toml": 'name = "Mine"\n'}),
    Example("KC505", ("model", "mine.toml"),
            {"mine.toml": llama_with("layers = 32", "layers = -32")},
            note="mine.toml: the shipped llama3_8b.toml with `layers = -32`"),
    Example("KC506", ("model", "mine.toml"),
            {"mine.toml": llama_with("kv_heads = 8", "kv_heads = 5")},
            note="mine.toml: the shipped llama3_8b.toml with `kv_heads = 5`"),
    Example("KC507", ("model", "llama3_70b", "--gpus", "3")),
    Example("KC508", python="import sympy\n"
                            "from kernelcost.hardware.machinefile import load_machine\n"
                            "from kernelcost.answers.wholemodel import KernelUse, kernel_cost\n"
                            "sizes = tuple((name, sympy.Integer(4096)) for name in 'MNK')\n"
                            "use = KernelUse('tiled GEMM', 'mlp', 'gemm_tiled', sizes, "
                            "sympy.Integer(1), 1)\n"
                            "kernel_cost(use, load_machine('mine.toml'))",
            files={"mine.toml": h100_with("capacity_B = 233472", "capacity_B = 16384").replace(
                "shared_per_block_max_B = 232448", "shared_per_block_max_B = 15360")},
            note="mine.toml: the shipped h100.toml with 16 KiB of shared memory per SM (15 KiB a "
                 "block beside the 1 KiB reserved); no shipped model's kernels keep tiles on "
                 "chip, so `kernelcost model` does not meet this error on a shipped machine"),
    Example("KC509", ("model", "config.json"),
            {"config.json": '{\n  "model_type": "llama",\n  "hidden_size": 4096\n'}),
    Example("KC510", ("model", "config.json"),
            {"config.json": '{\n  "architectures": ["GPT2LMHeadModel"],\n'
                            '  "model_type": "gpt2",\n  "n_layer": 12\n}\n'}),
    Example("KC511", ("model", "config.json", "--context", "65536"),
            {"config.json": '{\n  "_name_or_path": "tiny-llama",\n  "model_type": "llama",\n'
                            '  "hidden_size": 512,\n'
                            '  "num_attention_heads": 8,\n  "num_key_value_heads": 8,\n'
                            '  "num_hidden_layers": 2,\n  "intermediate_size": 1024,\n'
                            '  "vocab_size": 1000,\n  "max_position_embeddings": 32768\n}\n'}),
    # measurement
    Example("KC601", ("analyze", "scale.kcost", "--machine", "h100", "--measured", "fast"),
            {"scale.kcost": SCALE}),
    Example("KC602", ("analyze", "scale.kcost", "--machine", "h100", "--measured", "0us"),
            {"scale.kcost": SCALE}),
    Example("KC603", ("plot", "scale.kcost", "--machine", "h100,a100", "--set", "n=4096",
                      "--measured", "1ms", "-o", "scale.svg"), {"scale.kcost": SCALE}),
    Example("KC604", ("analyze", "spin.kcost", "--machine", "h100", "--set", "n=4096",
                      "--measured", "1TB/s"), {"spin.kcost": SPIN}),
    Example("KC610", ("validate", "runs.csv", "--machine", "h100"), {"runs.csv": "# none yet\n"}),
    Example("KC611", ("validate", "runs.csv", "--machine", "h100"),
            {"runs.csv": "kernel,spec,sizes,time_s\n"}),
    Example("KC612", ("validate", "runs.csv", "--machine", "h100"), {"runs.csv": CSV_HEADER.replace(
        "dram_read_B,dram_write_B,l2_read_B,l2_write_B", "dram_bytes,l2_bytes")
        + "scale,scale.kcost,n=4096,fp32,-1,,,\n", "scale.kcost": SCALE}),
    Example("KC613", ("validate", "runs.csv", "--machine", "h100"), {"runs.csv": CSV_HEADER.replace(
        "dram_read_B,dram_write_B,l2_read_B,l2_write_B", "dram_bytes,l2_bytes")
        + "scale,scael.kcost,n=4096,fp32,1e-5,,,\n", "scale.kcost": SCALE}),
    # budget
    Example("KC701", ("analyze", "slow.kcost"),
            {"slow.kcost": (TESTS / "specs_slow" / "slow.kcost").read_text("utf-8")},
            env={"KERNELCOST_BUDGET_S": "3"}, process=True, volatile=True,
            note="slow.kcost: the repository's tests/specs_slow/slow.kcost"),
    Example("KC702", ("machines",), env={"KERNELCOST_BUDGET_S": "soon"}),
    Example("KC703", python='import kernelcost\n'
                            'from kernelcost.count.spec_count import count\n'
                            'count(kernelcost.load("slow.kcost").checked, budget_s=0.01)',
            files={"slow.kcost": (TESTS / "specs_slow" / "slow.kcost").read_text("utf-8")},
            note="slow.kcost: the repository's tests/specs_slow/slow.kcost", volatile=True),
    Example("KC704", python='import kernelcost\n'
                            'from kernelcost.oracle import enumerate_counts\n'
                            'spec = kernelcost.load("scale.kcost")\n'
                            'enumerate_counts(spec.checked, {"n": 10**6}, max_steps=1000)',
            files={"scale.kcost": SCALE}),
    Example("KC705", python="from kernelcost import cli\n"
                            "from kernelcost.base import watchdog\n"
                            "watchdog.stage('counting')\n"
                            "def deep(args):\n"
                            "    return deep(args)  # what a deep sympy recursion comes to\n"
                            "cli.COMMANDS['machines'] = deep\n"
                            "cli.main(['machines'])"),
    Example("KC706", ("analyze", "big.kcost", "--set", "n=4"), {"big.kcost": SCALE.replace(
        "0..n", "0..n * 1e1000 * 1e1000 * 1e1000 * 1e1000 * 1e1000").replace(
        "y[i] = 2 * x[i]", "y[0] += x[i]")}),
    Example("KC707", python="import numpy, sympy\n"
                            "from kernelcost.algebra.numeric_sums import Summed\n"
                            "from kernelcost.base.symbols import counter_symbol, size_symbol\n"
                            "n, i = size_symbol('n'), counter_symbol('i')\n"
                            "form = sympy.Sum(sympy.Min(i ** 2, n), (i, 0, n - 1))\n"
                            "Summed(form, n, max_terms=1000)(numpy.array([1001.0]))"),
    Example("KC708", python="from kernelcost import cli\n"
                            "from kernelcost.base import watchdog\n"
                            "def hungry(args):\n"
                            "    watchdog.stage('comparing with the machines')\n"
                            "    raise MemoryError  # what a grid of 10^12 blocks came to\n"
                            "cli.COMMANDS['machines'] = hungry\n"
                            "cli.main(['machines'])"),
    # io
    Example("KC801", ("analyze", "scael.kcost"), {"scale.kcost": SCALE}),
    Example("KC802", python='from kernelcost.base.inputs import read_text\n'
                            'read_text("scale\\0.kcost", 1_000_000)'),
    Example("KC803", ("analyze", "specs"), {"specs/scale.kcost": SCALE}),
    Example("KC804", ("analyze", "huge.kcost"), {"huge.kcost": SCALE + "#" * 1_000_000},
            note="huge.kcost: a spec followed by a comment of a million characters"),
    Example("KC805", ("analyze", "latin1.kcost"),
            {"latin1.kcost": ("# caf\u00e9\n" + SCALE).encode("latin-1")},
            note="latin1.kcost: the spec with a comment `# café` saved as Latin-1"),
    Example("KC810", ("plot", "scale.kcost", "--machine", "h100", "--set", "n=4096", "-o",
                      "figures/scale.svg"), {"scale.kcost": SCALE}),
    Example("KC811", ("plot", "scale.kcost", "--machine", "h100", "--set", "n=4096", "-o",
                      "scale.txt"), {"scale.kcost": SCALE}),
    Example("KC812", ("machines",), process=True, stdout="/dev/full"),
    Example("KC820", python="import sys\n"
                            "sys.modules['matplotlib'] = None  # as if it were not installed\n"
                            "from kernelcost import cli\n"
                            "cli.main(['plot', 'scale.kcost', '--machine', 'h100', '--set', "
                            "'n=4096', '-o', 'scale.svg'])", files={"scale.kcost": SCALE}),
    # internal
    Example("KC901", python="from kernelcost import cli\n"
                            "def broken(args):\n"
                            "    return {}['machines']  # a bug\n"
                            "cli.COMMANDS['machines'] = broken\n"
                            "cli.main(['machines'])"),
    Example("KC902", python="import os, signal\n"
                            "from kernelcost.base.watchdog import run_watched, stage\n"
                            "stage('counting')\n"
                            "run_watched(lambda: os.kill(os.getpid(), signal.SIGTERM), 10)"),
    Example("KC903", python="import sympy\n"
                            "from kernelcost.gpu.order import check_order\n"
                            "from kernelcost.base.symbols import size_symbol\n"
                            "sizes = {size_symbol('n'): sympy.Integer(4096)}\n"
                            "one, two, three = (sympy.Integer(k) for k in (1, 2, 3))\n"
                            "check_order('h100', 'bf16', sizes, two, one, three)"),
]
