"""Results are data, not strings: a category (a reuse mode, a work class, a regime, a term's
kind, a tensor's role, a raster order, a memory level, an effect's cause, what a figure
covers, what limits a block's residency, what a need is counted in, why tune leaves a
candidate out, what holds the bytes of a capacity crossing) is an enum member wherever it
is compared, in whatever case a literal writes it (a member's name included), and a roof's
display name ("bf16 tensor peak", "global bandwidth") is built by the printers from a
term's data and never read back. The scan walks every module of src/kernelcost with `ast`
and finds each comparison (==, !=, in, not in, `case`) and each call of a string method
that matches or cuts text (startswith, endswith, removesuffix, removeprefix, replace, ...)
against a literal that is one of those words, or that holds a piece of a display name
(" peak", " bandwidth", "memory-bound", ...), f-strings included. The enums' own modules and
presentation's name-building functions may; nothing else does."""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

import pytest
from test_effects import declared_causes

from kernelcost.answers import capacity, regimes, rejections
from kernelcost.base import kinds, levels

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "kernelcost"
GENERATED = {"lang._generated.kcost_parser"}  # lark's stand-alone parser, never edited
# where each word is written
ENUM_MODULES = {"base.kinds", "base.levels", "answers.regimes", "answers.rejections",
                "answers.capacity"}
# presentation's name-building functions: the one place a roof's name is put together
NAME_BUILDERS = {"present.roofs": {"roof_name", "short_roof_name", "model_roof_name",
                                   "device_word", "derate_word", "_parts"}}
# a word of an enum that means something else where it stands, and what it is there
NOT_A_CATEGORY = {("algebra.texts", "none"): "sympy's printing order `none`",
                  ("lang.parallel", "cluster"): "the parallel header's setting `cluster`",
                  ("lang.parallel", "threads"): "the parallel header's setting `threads`",
                  ("hardware.machinefile", "device"): "the machine file's table [device]",
                  ("present.placement", "None"): "matplotlib's word for no marker or line"}

# the effects' causes, not an enum: each effect's module declares its own
CAUSE_WORDS = frozenset(cause.lower() for cause in declared_causes())
# in lower case: a literal is compared in lower case, so `"B"` and `"SM"` are words too
WORDS = frozenset(member.value.lower() for module in (kinds, levels, regimes, rejections, capacity)
                  for enum in vars(module).values()
                  if isinstance(enum, type) and issubclass(enum, StrEnum) and enum is not StrEnum
                  for member in enum) | {"hbm", "sfu"} | CAUSE_WORDS  # tune's HBM and SFU
# pieces of the names of roofs and regimes: a literal holding one is reading a display name
PIECES = (" peak", " bandwidth", "memory-bound", "compute-bound", "under-filled",
          "no sfu figure", "latency-bound")
# string methods that match or cut text by a literal
METHODS = {"startswith", "endswith", "removesuffix", "removeprefix", "replace", "find", "rfind",
           "index", "rindex", "count", "partition", "rpartition", "split", "rsplit", "strip",
           "lstrip", "rstrip"}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found[".".join(part for part in parts if part != "__init__")] = path
    return found


def _literals(node: ast.AST, in_fstring: bool = False) -> list[str]:
    """The display strings a compared operand or a method's argument writes out: a literal,
    the literals of a tuple, list or set, the literal pieces of an f-string (where only a
    piece of a name counts: `f"{level} bandwidth"`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        is_word = not in_fstring and text.lower() in WORDS
        return [text] if is_word or any(piece in text for piece in PIECES) else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [text for element in node.elts for text in _literals(element)]
    if isinstance(node, ast.JoinedStr):
        return [text for value in node.values for text in _literals(value, in_fstring=True)]
    return []


def _functions(tree: ast.Module) -> dict[int, str]:
    """id(node) -> the name of the function (outermost first) each node stands in."""
    within: dict[int, str] = {}
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                within.setdefault(id(node), function.name)
    return within


def display_comparisons(source: str, module: str = "<snippet>") -> list[str]:
    """`module:line: text` for each comparison or string-method call against a display
    string, outside the enum modules, the name builders and NOT_A_CATEGORY."""
    if module in ENUM_MODULES:
        return []
    tree = ast.parse(source)
    within = _functions(tree)
    builders = NAME_BUILDERS.get(module, set())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            texts = [text for operand in (node.left, *node.comparators)
                     for text in _literals(operand)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in METHODS:
            texts = [text for argument in node.args for text in _literals(argument)]
        elif isinstance(node, ast.MatchValue):
            texts = _literals(node.value)
        else:
            continue
        texts = [text for text in texts if (module, text) not in NOT_A_CATEGORY]
        if texts and within.get(id(node)) not in builders:
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


MODULES = modules()


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name not in GENERATED))
def test_no_module_compares_a_display_string(module):
    assert display_comparisons(MODULES[module].read_text(), module) == []


def test_the_exceptions_name_what_is_there():
    """Each exempted module and function exists, and each word said to mean something else
    is written there: an exception that outlives its code is removed."""
    for module in ENUM_MODULES | set(NAME_BUILDERS):
        assert module in MODULES, module
    for module, names in NAME_BUILDERS.items():
        defined = {node.name for node in ast.walk(ast.parse(MODULES[module].read_text()))
                   if isinstance(node, ast.FunctionDef)}
        assert names <= defined, names - defined
    for module, word in NOT_A_CATEGORY:
        assert f'"{word}"' in MODULES[module].read_text()


@pytest.mark.parametrize("snippet, flagged", [
    ('if name == "global bandwidth":\n    pass\n', 1),
    ('if term.kind == "traffic":\n    pass\n', 1),
    ('if derate.cause == "fill_drain":\n    pass\n', 1),  # an effect's declared cause
    ('short = name.removesuffix(" peak")\n', 1),
    ('quantised = f"{level} bandwidth" in names\n', 1),
    ('tensor_units = "tensor" in ceiling_name\n', 1),
    ('match mode:\n    case "none":\n        pass\n', 1),
    ('if regime == "memory-bound" or unit in ("sfu", "vector"):\n    pass\n', 2),
    ('per_sm = flight.per == "SM"\n', 1),  # a word in another case is the same word
    ('if fit.capacity_per == "device":\n    pass\n', 1),
    ('if misfit.unit == "B":\n    pass\n', 1),  # a quantity's word, in any case
    ('mixed = level.zone.name == "MIXED"\n', 1),  # a member's name is its word too
    ('if reason in ("shared memory", "register file"):\n    pass\n', 1),  # tune's reasons
    ('whole = [c for c in found if c.what == "working set"]\n', 1),  # what holds the bytes
    # members, and words that are no category, pass
    ('if term.kind == TermKind.TRAFFIC:\n    pass\n', 0),
    ('if header == "kernel" or line.startswith("#"):\n    pass\n', 0),
    ('label = f"{level} bandwidth"\n', 0),  # building a name is no comparison
])
def test_the_scan_finds_a_display_string_compared(snippet, flagged):
    assert len(display_comparisons(snippet)) == flagged


def test_a_name_builder_may_and_its_neighbours_may_not():
    source = ('def roof_name(roof):\n    return name.removesuffix(" peak")\n\n'
              'def other(name):\n    return name.removesuffix(" peak")\n')
    assert [hit.split(":")[1] for hit in display_comparisons(source, "present.roofs")] == ["5"]


# --- results as data (issue 36): a derate's sentence is presentation's ----------------------

EFFECTS = PACKAGE / "gpu" / "effects"


def _imports_units(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module is not None
               and node.module.split(".")[-1] == "units" for node in ast.walk(tree))


def _sentences(tree: ast.Module) -> list[int]:
    """The lines that build text from values: f-strings, str.format, `"..." % values`."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "format")
            or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))]


@pytest.mark.parametrize("path", sorted(EFFECTS.glob("*.py")), ids=lambda path: path.stem)
def test_no_effect_writes_a_sentence(path):
    """An effect's derates carry findings, records of figures; present.derate_text writes
    their sentences. No module of gpu/effects builds text from a value or prints a unit."""
    tree = ast.parse(path.read_text())
    assert _sentences(tree) == []
    assert not _imports_units(tree)


def test_no_model_module_prints_a_unit():
    """The model floors (gpu, answers) hand presentation figures; none puts one into words
    with base.units' printers (si, binary)."""
    found = {name for name, path in MODULES.items() if name.split(".")[0] in ("gpu", "answers")
             and _imports_units(ast.parse(path.read_text()))}
    assert found == set()


# the model's records whose sentences presentation writes (advice_text, tune_report,
# solve_report): none builds text from a value
RECORD_MODULES = ("answers.regimes", "answers.rejections", "answers.capacity")


@pytest.mark.parametrize("module", RECORD_MODULES)
def test_no_zone_rejection_or_capacity_record_writes_a_sentence(module):
    assert _sentences(ast.parse(MODULES[module].read_text())) == []


@pytest.mark.parametrize("source, found", [
    ('detail = f"{si(x, \'B\')} in flight"\n', [1]),
    ('detail = "{} in flight".format(x)\n', [1]),
    ('detail = "%d blocks" % n\n', [1]),
    ('factor = available / needed\n', []),
])
def test_the_sentence_scan_finds_text_built_from_values(source, found):
    assert _sentences(ast.parse(source)) == found


# --- results as data (issue 36): why blocks fall into no classes is a record ----------------

def _unclassified_sentences(tree: ast.Module) -> list[int]:
    """The lines that raise Unclassified with text instead of a reason record."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Unclassified"
            and any(isinstance(argument, (ast.Constant, ast.JoinedStr, ast.BinOp))
                    for argument in node.args)]


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("gpu.")))
def test_no_unclassified_carries_a_sentence(module):
    """The class engines raise Unclassified with a Why (a reason and its figures);
    present.model_text writes the sentence."""
    assert _unclassified_sentences(ast.parse(MODULES[module].read_text())) == []


@pytest.mark.parametrize("source, found", [
    ('raise Unclassified(f"`{expr}` of a grid index")\n', [1]),
    ('raise Unclassified("a wave\'s union passes 64-bit integers")\n', [1]),
    ('raise Unclassified(Why(Reason.OF_INDEX, str(expr)))\n', []),
])
def test_the_unclassified_scan_finds_a_sentence(source, found):
    assert _unclassified_sentences(ast.parse(source)) == found
