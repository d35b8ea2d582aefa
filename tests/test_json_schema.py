"""Every command's `--json` document against its JSON Schema (docs/schema/, written by
tools/regen_schema.py from the code's enums): the invocations of test_json_everywhere (one a
mode of each command), the goldens (`analyze --json` of every shipped spec, and on H100), a
wider fast set (precisions, measurements, warm L2, numbers past a double, model batches and
GPUs, bounds on machines and at sizes, error objects), and in the slow tier every shipped spec
on every machine, bound on every spec and solve, model and validate more widely.

A schema lists each object's required keys and refuses others, so a renamed, added or retyped
field fails here until the writer and tools/regen_schema.py agree (then regenerate, and read
`git diff docs/schema`). JSON Schema counts 2048.0 as an integer; test_json_everywhere's scan
catches a count written as a float."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import sample_spent
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from regen_golden import GOLDEN
from regen_schema import BUILDERS, SCHEMA, schema_texts
from test_json_everywhere import INVOCATIONS, ROOT, SPECS, json_output

SPEC_FILES = sorted(SPECS.glob("*.kcost"))
HAND_WRITTEN = ROOT / "tests" / "data" / "validate_hand_written.csv"
NCU = ROOT / "tests" / "data" / "ncu"


def _spec(name: str) -> str:
    return str(SPECS / f"{name}.kcost")


# beyond one invocation a mode: what makes other keys appear or other types travel
WIDER: list[list[str]] = [
    ["analyze", _spec("gemm"), "--machine", "all", "--precision", "fp8", "--set",
     "M=4096,N=4096,K=4096", "--no-verify"],  # element types, machines left out
    ["analyze", _spec("gemm_blackwell"), "--machine", "b200", "--precision", "fp4",
     "--no-verify"],  # block scales
    ["analyze", _spec("gemm"), "--machine", "h100", "--set", "M=4096,N=4096,K=4096",
     "--measured", "200us", "--no-verify"],  # efficiency
    ["analyze", _spec("flash_attention_blackwell"), "--machine", "b200", "--exp-on-fma", "0.5",
     "--no-verify"],
    ["analyze", _spec("gemm_hopper"), "--machine", "h100", "--warm-l2", "A,B", "--no-verify"],
    ["analyze", _spec("gemm_hopper"), "--machine", "h100", "--warm-l2", "A", "--set",
     "M=2048,N=2048,K=2048", "--no-verify"],
    ["analyze", _spec("gemm"), "--machine", "h100", "--set", "M=1e200,N=1e200,K=1e200",
     "--no-verify"],  # times past a double: exact text
    ["analyze", _spec("vector_add"), "--set", "n=10**400", "--no-verify"],
    ["analyze", _spec("transpose_naive"), "--machine", "h100", "--set", "n=8192",
     "--no-verify"],  # `lanes` transfers at global (at shared: the transpose_tiled golden)
    ["analyze", _spec("gemm_blackwell"), "--machine", "h100", "--no-verify"],  # not run there
    ["solve", _spec("gemm_tiled"), "--for", "N", "--set", "M=N,K=N", "--machine", "h100"],
    ["solve", _spec("gemm"), "--for", "N", "--machine", "all"],
    ["solve", _spec("llm_decode"), "--for", "b", "--machine", "h100"],  # capacity crossings
    ["model", "mixtral_8x7b", "--gpus", "2", "--batch", "1,8"],
    ["model", "llama3_8b", "--machine", "b200", "--batch", "1,64,4096", "--context", "1024"],
    ["bound", _spec("gemm"), "--machine", "h100", "--set", "M=4096,N=4096,K=4096"],
    ["bound", _spec("gemm_hopper"), "--level", "l2", "--machine", "mi300x"],
    ["bound", _spec("matvec"), "--level", "registers", "--machine", "b200"],
    ["validate", str(HAND_WRITTEN), "--machine", "h200"],  # a falsified row
    ["validate", "--ncu", str(NCU / "blackwell_gemm.csv"), "--spec", _spec("gemm"), "--set",
     "M=4096,N=4096,K=4096", "--machine", "b200"],  # work no documented counter measures
    # the error object, from a failing command of each kind
    ["bound", _spec("copy")],
    ["solve", _spec("decode_attention"), "--for", "S"],
    ["analyze", _spec("gemm"), "--machine", "h999"],
]
FAST = [argv for each in INVOCATIONS.values() for argv in each] + WIDER


@functools.cache
def validators() -> dict[str, Draft202012Validator]:
    """Schema file stem -> its validator, the files' `$ref`s resolved among them by `$id`."""
    schemas = {path.name.removesuffix(".schema.json"): json.loads(path.read_text())
               for path in SCHEMA.glob("*.schema.json")}
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values())
    return {name: Draft202012Validator(schema, registry=registry)
            for name, schema in schemas.items()}


def document(argv: tuple[str, ...]) -> object:
    """The command's JSON document, each command run once a process (json_output's cache)."""
    return json.loads(json_output(argv)[1])


def schema_name(argv, found) -> str:
    """The schema a document answers to: the error object's, or its command's."""
    return "error" if isinstance(found, dict) and list(found) == ["error"] else argv[0]


def problems(name: str, found) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path)) or '$'}: {error.message[:300]}"
            for error in validators()[name].iter_errors(found)]


def _label(argv) -> str:
    return " ".join(Path(a).name for a in argv)


@pytest.mark.parametrize("argv", FAST, ids=_label)
def test_the_document_validates(argv):
    found = document(tuple(argv))
    assert problems(schema_name(argv, found), found) == []


def test_the_wider_set_reaches_the_error_object_and_every_command():
    names = {schema_name(argv, document(tuple(argv))) for argv in WIDER}
    assert names == {"analyze", "solve", "model", "bound", "validate", "error"}


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda path: path.name)
def test_every_golden_document_validates(path):
    # the goldens are `analyze --json` of every shipped spec, and on H100 at sizes of its own
    assert problems("analyze", json.loads(path.read_text())) == []


def test_the_schema_files_are_valid_schemas():
    for path in sorted(SCHEMA.glob("*.schema.json")):
        Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_every_command_taking_json_has_its_schema_and_nothing_else_is_there():
    # test_json_everywhere holds INVOCATIONS to the commands taking --json: a new one needs
    # its schema (tools/regen_schema.py BUILDERS) as well as its invocations
    commands = {f"{name}.schema.json" for name in INVOCATIONS}
    files = {path.name for path in SCHEMA.glob("*.schema.json")}
    assert files == commands | {"common.schema.json", "error.schema.json"}
    assert set(BUILDERS) == {name.removesuffix(".schema.json") for name in files}


def test_the_schema_files_are_as_regen_writes_them():
    # they are built from the code's enums: a new regime, level or cause regenerates them
    for name, text in schema_texts().items():
        assert (SCHEMA / name).read_text(encoding="utf-8") == text, (
            f"docs/schema/{name} is stale: run tools/regen_schema.py and review the diff")


def _analyzed() -> dict:
    return document(tuple(INVOCATIONS["analyze"][1]))  # gemm_hopper on H100, parsed anew


def test_a_renamed_field_fails():
    found = _analyzed()
    found["answers"][0]["t_minimum"] = found["answers"][0].pop("t_min")
    assert any("t_minimum" in problem for problem in problems("analyze", found))
    assert any("'t_min' is a required property" in problem
               for problem in problems("analyze", found))


@pytest.mark.parametrize("where, value", [
    (("answers", 0, "t_min"), "Max(N, 2)"),        # a time as its expression
    (("answers", 0, "t_bound"), "inf"),            # infinity as a word
    (("verdicts", 0, "regime"), "memory bound"),   # a regime the code does not have
    (("verdicts", 0, "grid", "equal_blocks"), "True"),
    (("verdicts", 0, "grid", "blocks"), 2048.5),   # a count that is no whole number
    (("answers", 0, "bound"), "registers bandwidth"),  # the register file is no roof
])
def test_a_retyped_field_fails(where, value):
    found = _analyzed()
    parent = found
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = value
    assert problems("analyze", found) != []


# --- the slow tier: every shipped spec on every machine, and the other commands widely ------

def _slow_invocations() -> list[list[str]]:
    found = []
    for spec in SPEC_FILES:
        found.append(["analyze", str(spec), "--machine", "all", "--no-verify"])
        found.append(["bound", str(spec), "--machine", "h100"])
    for spec, size in (("conv3x3", "n"), ("flash_attention", "S"), ("attention", "S"),
                       ("softmax", "n"), ("vector_add", "n"), ("gemm_tiled", "T")):
        found.append(["solve", _spec(spec), "--for", size, "--machine", "all"])
    # each model at its longest context: its max_position_embeddings
    for model, longest in (("llama3_8b", "8192"), ("llama3_70b", "8192"),
                           ("mixtral_8x7b", "32768")):
        for machine in ("h100", "b200", "mi300x"):
            found.append(["model", model, "--machine", machine, "--batch", "1,8,64,512,4096"])
        found.append(["model", model, "--gpus", "8", "--batch", "1,32", "--context", longest])
    # chunked prefill crossing prompts, its collectives at tp 2, decode from CUDA graphs
    found.append(["model", "llama3_8b", "--gpus", "2", "--batch", "1,3", "--context", "2500",
                  "--chunk", "1000", "--launch", "graphs"])
    for level in ("shared", "l2", "registers"):
        for machine in ("a100", "b200", "mi300x"):
            found.append(["bound", _spec("gemm_hopper"), "--level", level, "--machine", machine])
    for results in sorted((ROOT / "validate" / "results").glob("*.csv")):
        found.append(["validate", str(results), "--machine", "h200"])
    found.append(["validate", "--published"])
    found += [["machines", machine] for machine in
              ("a100", "h100", "h200", "b200", "mi300x", "mi250x", "l40s", "rtx4090")]
    return found


@pytest.mark.slow
def test_every_shipped_spec_and_command_widely():
    # in a slow sample, cut short when the sample's budget is spent, as the other campaigns
    checked, failures = 0, []
    for argv in _slow_invocations():
        if sample_spent():
            break
        found = document(tuple(argv))
        failures += [f"{_label(argv)}: {problem}"
                     for problem in problems(schema_name(argv, found), found)]
        checked += 1
    assert checked > 0
    assert failures == []


def test_the_readme_script_validates_a_document_and_refuses_a_broken_one(tmp_path):
    # the README's `validate.py`, as written, on a golden document and on one retyped
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [script] = re.findall(r"```python\n(# validate\.py:.*?)```", readme, flags=re.S)
    (tmp_path / "validate.py").write_text(script)
    golden = (GOLDEN / "gemm_hopper.h100.json").read_text()
    broken = json.loads(golden)
    broken["answers"][0]["t_min"] = "Max(N, 2)"
    for text, ok in ((golden, True), (json.dumps(broken), False)):
        run = subprocess.run([sys.executable, str(tmp_path / "validate.py"), "analyze"],
                             input=text, capture_output=True, text=True, cwd=ROOT,
                             check=False)
        assert (run.returncode == 0) == ok, run.stderr[-2000:]
