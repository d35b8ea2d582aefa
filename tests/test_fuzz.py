"""Hardening: any text ends in a checked kernel or in one KcostError, never another exception
and never a hang. Inputs come from the grammar itself, from mutations of the shipped specs, and
from the file system (a directory, a missing file, bytes that are not UTF-8), and the attack
kinds of issue 15: hostile machine files, --set values, planted cache files, output paths,
budgets and measurements (e).

The default profile runs about 5,000 inputs; set KERNELCOST_FUZZ_EXAMPLES to run more:

    KERNELCOST_FUZZ_EXAMPLES=100000 KERNELCOST_FUZZ_SECONDS=30 \
        .venv/bin/python -m pytest tests/test_fuzz.py --hypothesis-show-statistics
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import time_budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark
from lark.lexer import PatternStr

from kernelcost.base.errors import KcostError
from kernelcost.base.inputs import normalise
from kernelcost.count.spec_count import count
from kernelcost.lang.check import check
from kernelcost.lang.parse import grammar_text, parse, parse_file

SPECS = {path.name: path.read_text("utf-8")
         for path in sorted((Path(__file__).parent.parent / "specs").glob("*.kcost"))}

# The default profile: 600 grammar texts (each tried whole and as 5 broken variants),
# 1,200 mutated specs, 300 files, 20 counted specs and 840 attacks (e): about 6,000 inputs in
# about a minute on two cores. The environment variable scales every test by the same factor;
# the fast tier runs half of it (the command-path campaign, tests/fuzz_commands.py, drives
# the same inputs and more through the whole command line by the ten thousand).
DEFAULT_TOTAL = 5_000
TOTAL = int(os.environ.get("KERNELCOST_FUZZ_EXAMPLES", DEFAULT_TOTAL // 2))
# parse and check of one input; far above the ~20 ms they take. CPU seconds, so that parallel
# workers (pytest -n) or a busy machine do not trip it, except where a FIFO among the output
# paths could block without using any: there, wall time (KERNELCOST_FUZZ_SECONDS=30 on a busy
# machine, where a niced process can wait seconds for a core).
SECONDS_PER_INPUT = float(os.environ.get("KERNELCOST_FUZZ_SECONDS", 5))


def examples(share: int) -> int:
    """This test's part of the total, for a default share out of DEFAULT_TOTAL."""
    return max(1, share * TOTAL // DEFAULT_TOTAL)


def fuzz_settings(share: int):
    return settings(max_examples=examples(share), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))




def parse_and_check(text: str):
    """The guarantee under test: a checked kernel, or a KcostError whose every diagnostic has
    a place in the text and renders; anything else propagates and fails the test."""
    with time_budget(SECONDS_PER_INPUT, cpu=True):
        try:
            return check(parse(text, "fuzz.kcost"))
        except KcostError as error:
            assert error.diagnostics
            for diagnostic in error.diagnostics:
                assert diagnostic.span is not None
                lines = normalise(text).count("\n") + 1  # CR-only endings count as lines
                assert 1 <= diagnostic.span.line <= lines
                assert diagnostic.span.column >= 1
            assert error.render()
            return None


# --- (a) text generated from the grammar ---------------------------------------------------

NAMES = ["n", "M", "N", "K", "T", "i", "j", "k", "i0", "A", "B", "C", "x", "y", "acc", "f32",
         "bf16", "fp4", "i4", "shared", "global", "l2", "registers", "perfect", "none", "exp",
         "max", "min", "fma", "sqrt", "in", "for", "keep", "_"]
# what `target` and `needs` name: architectures and features, known or not
REQUIREMENTS = ["sm_90a", "sm_100a", "sm_80", "gfx942", "sm_91x", "wgmma", "tma", "tcgen05",
                "tensor_memory", "wgmm", "x"]
IDENTIFIER_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"
NUMBERS = st.one_of(
    st.integers(0, 300).map(str),
    st.sampled_from(["0.5", "1.", "1e8", "2.5e-3", "1e400", str(10**400), "0" * 30 + "7"]),
)


def _spaced(strategy):
    """Every token is drawn with spaces around it: `kernel` followed by a name must not lex as
    one longer name, and lark's ignored whitespace is otherwise drawn only now and then."""
    return strategy.map(lambda token: f" {token} ")


@pytest.fixture(scope="module")
def grammar_texts():
    grammar = Lark(grammar_text(), parser="lalr")
    explicit = {
        "NAME": st.one_of(st.sampled_from(NAMES), st.text(IDENTIFIER_CHARACTERS, min_size=1,
                                                          max_size=6).map(lambda n: "_" + n)),
        "REQUIREMENT": st.sampled_from(REQUIREMENTS),
        "NUMBER": NUMBERS,
        "INT": st.one_of(st.integers(0, 300).map(str), st.just(str(10**400))),
        "ASSIGN_OP": st.sampled_from(["=", "+=", "max=", "min="]),
        "COMPARE": st.sampled_from(["<", "<=", ">", ">="]),
        "WS": st.sampled_from([" ", "\n", "\t"]),
        "COMMENT": st.just("# a comment\n"),
    }
    for terminal in grammar.terminals:
        if isinstance(terminal.pattern, PatternStr):
            explicit[terminal.name] = st.just(terminal.pattern.value)
    return from_lark(grammar, explicit={name: _spaced(s) for name, s in explicit.items()})


def test_text_from_the_grammar(grammar_texts):
    @fuzz_settings(600)
    @given(grammar_texts)
    def run(text):
        for variant in broken_variants(text):
            parse_and_check(variant)

    run()


def broken_variants(text: str) -> list[str]:
    """The text and five near misses of it: generation is the slow part, so each drawn text
    is used six times (parsing a broken one costs a millisecond)."""
    words = text.split()
    swapped = words[1:2] + words[:1] + words[2:]
    middle = len(text) * 2 // 3
    last_brace = text.rfind("}")
    return [
        text,
        text[:len(text) // 2],
        text[:len(text) // 3],
        text[:middle] + text[middle + 1:],
        " ".join(swapped),
        text[:last_brace] + text[last_brace + 1:] if last_brace >= 0 else text + "}",
    ]


def test_the_grammar_strategy_mostly_parses(grammar_texts):
    """Guards the generator itself: texts it draws are syntactically valid, so (a) exercises
    the checker and not only the parser's error path."""
    parsed = []

    @settings(max_examples=50, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(grammar_texts)
    def run(text):
        try:
            parse(text)
            parsed.append(True)
        except KcostError:
            parsed.append(False)

    run()
    assert sum(parsed) >= 0.9 * len(parsed)


# --- (b) mutations of the shipped specs ---------------------------------------------------

INSERTIONS = [
    "{", "}", "(", ")", "[", "]", ",", "..", "...", "=", "+=", "==", "*=", "//", "#", "\n",
    str(10**400), "1e400000", "9" * 5000, "0", "-1", "(" * 40, "[" * 40, "{" * 40,
    " + ".join(["n"] * 400), "é", "Ω", "\u2028", "\r", "\x00", "\t", "\ufeff", "😀",
    "for i in 0..n ", "keep A in shared ", "let z: f32 = 0\n", "in", "kernel", ";",
]


@st.composite
def mutated_specs(draw):
    """A shipped spec after one to four edits: truncate, delete, insert, swap or duplicate."""
    text = SPECS[draw(st.sampled_from(sorted(SPECS)))]
    for _ in range(draw(st.integers(1, 4))):
        text = _mutate(draw, text)
    return text


def _mutate(draw, text: str) -> str:
    position = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["truncate", "delete", "insert", "swap", "brace", "duplicate",
                                 "replace", "random"]))
    if kind == "truncate":
        return text[:position]
    if kind == "delete":
        return text[:position] + text[position + draw(st.integers(1, 12)):]
    if kind == "insert":
        return text[:position] + draw(st.sampled_from(INSERTIONS)) + text[position:]
    if kind == "swap":
        tokens = text.split(" ")
        first, second = (draw(st.integers(0, len(tokens) - 1)) for _ in range(2))
        tokens[first], tokens[second] = tokens[second], tokens[first]
        return " ".join(tokens)
    if kind == "brace":
        braces = [index for index, char in enumerate(text) if char in "{}[]()"]
        if not braces:
            return text
        index = draw(st.sampled_from(braces))
        return text[:index] + text[index + 1:]
    if kind == "duplicate":
        lines = text.split("\n")
        line = draw(st.integers(0, len(lines) - 1))
        return "\n".join(lines[:line + 1] + lines[line:])
    if kind == "replace":
        words = text.split(" ")
        word = draw(st.integers(0, len(words) - 1))
        words[word] = draw(st.sampled_from(NAMES + INSERTIONS))
        return " ".join(words)
    return text[:position] + draw(st.text(max_size=8)) + text[position:]


@fuzz_settings(1_200)
@given(mutated_specs())
def test_mutated_specs(text):
    parse_and_check(text)


@pytest.mark.parametrize("text", [
    "", " ", "\n\n", "\x00", "\ufeff", "kernel", "kernel k", "kernel k(", "kernel k()",
    "kernel k() {", "kernel k() {}", "}" * 1000, "{" * 1000, "(" * 100_000, "#" * 100_000,
    "kernel k(n) { y = " + "-" * 10_000 + "1 }",
    "kernel k(n) { y = " + " * ".join(["n"] * 10_000) + " }",
    "kernel k(n) { for " + ", ".join(f"i{d} in 0..n" for d in range(500)) + " { y = 1 } }",
    "kernel k(n) {\n" + "for i in 0..n {\n" * 40 + "}" * 41,
    "kernel k(n = " + "9" * 5000 + ") { out y: f32[n]\n y[0] = 1 }",
    "kernel k(n) { out y: f32[" + "9" * 999 + "]\n y[0] = 1 }",
    "kernel k(n) { out y: f32[n]\n y[0] = 1e-1000 }",
    "x" * 1_000_001,
])
def test_edge_texts(text: str):
    parse_and_check(text)


# --- (c) the file system -------------------------------------------------------------------


def test_a_directory_is_a_kcost_error(tmp_path: Path):
    with pytest.raises(KcostError):
        parse_file(tmp_path)


def test_a_missing_file_is_a_kcost_error(tmp_path: Path):
    with pytest.raises(KcostError):
        parse_file(tmp_path / "no" / "such.kcost")


@fuzz_settings(300)
@given(st.binary(max_size=200) | mutated_specs().map(lambda text: text.encode("utf-8", "replace")))
def test_any_bytes_in_a_file(tmp_path_factory, data: bytes):
    path = tmp_path_factory.mktemp("fuzz", numbered=True) / "spec.kcost"
    path.write_bytes(data)
    with time_budget(SECONDS_PER_INPUT, cpu=True):
        try:
            check(parse_file(path))
        except KcostError as error:
            assert error.render()


# --- (d) counting what the checker accepts --------------------------------------------------

SECONDS_PER_COUNT = 60  # of CPU: the clipped GEMM counts in ~3 s; a minute means a hang


@st.composite
def retuned_specs(draw):
    """A shipped spec with its integer literals changed (steps, offsets, bounds, defaults):
    edits that mostly keep it valid, so that the counting core sees new loop nests."""
    text = SPECS[draw(st.sampled_from(sorted(SPECS)))]
    pieces = re.split(r"(?<![\w.])(\d+)(?![\w.])", text)
    for index in range(1, len(pieces), 2):
        if draw(st.booleans()):
            pieces[index] = str(draw(st.sampled_from([1, 2, 3, 7, 64, 10**30])))
    return "".join(pieces)


@fuzz_settings(20)
@given(retuned_specs())
def test_count_accepts_what_check_accepts(text):
    checked = parse_and_check(text)
    if checked is None:
        return
    with time_budget(SECONDS_PER_COUNT, cpu=True):
        try:
            count(checked, reuse="spec")
        except KcostError as error:
            assert error.render()


# --- (e) the attack kinds of issue 15: machine files, --set values, cache files, output
# paths, budgets and measurements ------------------------------------------------------------

MACHINE = (Path(__file__).parent.parent / "src" / "kernelcost" / "machines" / "h100.toml"
           ).read_text("utf-8")
HOSTILE_VALUES = ["nan", "inf", "-inf", "0", "-1", "5e-324", "1e400", "9" * 400, "[1, 2]", "[]",
                  "{}", "\"x\"", "true", "[[1]]", "[" * 600 + "]" * 600, "1979e12", "\"\"",
                  "0x10", "1_000", "+nan"]
HOSTILE_TEXT = ["\ufeff", "\r", "\r\n", "\x00", "é", "１２", "[[compute]]\n", "[device]\n",
                "compute = [1, 2]\n", "memory = [1]\n", "= 1\n", "\"", "#", "\n"]


@st.composite
def mutated_machines(draw):
    """h100.toml with values replaced by hostile ones, or hostile text inserted."""
    text = MACHINE
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            keys = re.findall(r"(?m)^(\w+) = (.*)$", text)
            key, value = draw(st.sampled_from(keys))
            hostile = draw(st.sampled_from(HOSTILE_VALUES))
            text = text.replace(f"{key} = {value}", f"{key} = {hostile}", 1)
        else:
            position = draw(st.integers(0, len(text)))
            text = text[:position] + draw(st.sampled_from(HOSTILE_TEXT)) + text[position:]
    return text


@fuzz_settings(300)
@given(mutated_machines())
def test_hostile_machine_files(text):
    from kernelcost.hardware.machinefile import parse_machine

    with time_budget(SECONDS_PER_INPUT, cpu=True):
        try:
            parse_machine(text, "evil.toml")
        except KcostError as error:
            assert error.render() and "internal" not in error.render()


SET_ATOMS = ["1", "0", "-1", "1e1001", "1e999", "9" * 5000, "n", "m", "2*n", "(", ")", "+",
             "１２", "\ufeff", "\r", " ", "1e", ".5", "n+1", "min(n, 2)", "1/3", "--", "é"]


@fuzz_settings(300)
@given(st.lists(st.sampled_from(SET_ATOMS), min_size=1, max_size=6).map("".join)
       | st.text(max_size=12))
def test_hostile_set_values(value):
    from kernelcost.analysis.api import loads
    from kernelcost.lang.settings import resolve_settings

    parameters = loads("kernel k(n, m) { out y: f32[n]  for i in 0..n { y[i] = m } }")
    with time_budget(SECONDS_PER_INPUT, cpu=True):
        try:
            resolve_settings({"n": value}, parameters.parameters)
        except KcostError as error:
            assert error.diagnostics[0].span is not None or "setting" in error.render()


@fuzz_settings(100)
@given(st.sampled_from(["a.svg", "nodir/a.svg", "dir.svg", "ro.svg", "fifo.svg", "a.txt", "",
                        "/dev/full", "/dev/null.svg", "a.svg/b.svg", ".svg", "é.png"]))
def test_hostile_output_paths(tmp_path_factory, name):
    from kernelcost.present.plot import check_figure_path

    base = tmp_path_factory.mktemp("out", numbered=True)
    (base / "dir.svg").mkdir()
    (base / "ro.svg").write_text("")
    (base / "ro.svg").chmod(0o444)
    os.mkfifo(base / "fifo.svg")
    with time_budget(SECONDS_PER_INPUT):
        try:
            check_figure_path(name if name.startswith("/") else base / name)
        except KcostError as error:
            assert re.match(r"error\[KC81[01]\]: cannot write", error.render())


@fuzz_settings(100)
@given(st.text(max_size=10) | st.sampled_from(["nan", "inf", "-1", "0", "1e400", "5", "0.1"]))
def test_hostile_budgets_and_measurements(text):
    from kernelcost.base.watchdog import budget_seconds
    from kernelcost.cli.shared import measurement_of

    previous = os.environ.get("KERNELCOST_BUDGET_S")
    os.environ["KERNELCOST_BUDGET_S"] = text.replace("\x00", "")
    try:
        assert 0 < budget_seconds() < float("inf")
    except KcostError:
        pass
    finally:
        if previous is None:
            os.environ.pop("KERNELCOST_BUDGET_S", None)
        else:
            os.environ["KERNELCOST_BUDGET_S"] = previous
    for unit in ("us", "TFLOP/s", "TB/s", ""):
        try:
            (value,) = measurement_of(text + unit).values()
            assert 0 < value < float("inf")
        except KcostError:
            pass
