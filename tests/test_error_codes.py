"""Every error kernelcost raises carries a stable code, every code is documented with a real
example in docs/errors.md, and the command line shows the code in its text and its JSON.

The source is read with `ast`, not run: a raise on a path no test reaches is checked too."""

from __future__ import annotations

import ast
import functools
import json
import re
import tempfile
from pathlib import Path

import pytest
from error_examples import EXAMPLES
from example_runs import run_example

from kernelcost import cli
from kernelcost.base.error_codes import FAMILIES, RETIRED, Code, all_codes
from kernelcost.base.errors import FAMILY_CLASSES, KcostError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "kernelcost"
DOC = ROOT / "docs" / "errors.md"
CLASSES = {cls.__name__: cls for cls in FAMILY_CLASSES.values()}
# where an error takes the code its diagnostics already carry (each built with its own)
CODE_OF_DIAGNOSTIC = {"lang/check.py", "lang/parse.py"}


@functools.cache
def sources() -> dict[str, ast.Module]:
    """The package's modules parsed once a process (two scans read them; neither changes a
    tree)."""
    return {str(path.relative_to(PACKAGE)): ast.parse(path.read_text("utf-8"))
            for path in sorted(PACKAGE.rglob("*.py")) if path.name != "kcost_parser.py"}


def named_code(node: ast.expr) -> str | None:
    """`Code.NAME` -> NAME."""
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "Code"):
        return node.attr
    return None


def called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else None)


def code_parameters(tree: ast.Module) -> dict[str, int]:
    """Helpers that take the code as a parameter annotated ErrorCode: name -> its position
    among the arguments a caller passes (self left out)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name != "__init__":
            names = [a.arg for a in node.args.args if a.arg != "self"]
            for position, argument in enumerate(a for a in node.args.args if a.arg != "self"):
                annotation = argument.annotation
                if isinstance(annotation, ast.Name) and annotation.id == "ErrorCode":
                    found[node.name] = position
                    assert names[position] == "code", (node.name, names)
    return found


def enclosing_code_parameter(tree: ast.Module) -> dict[ast.AST, bool]:
    """Each node -> whether its function has an ErrorCode parameter named `code`."""
    inside = {}
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            has = any(isinstance(a.annotation, ast.Name) and a.annotation.id == "ErrorCode"
                      for a in function.args.args)
            for node in ast.walk(function):
                inside[node] = inside.get(node, False) or has
    return inside


def problems_of(name: str, tree: ast.Module, helpers: dict[str, int]) -> list[str]:
    found = []
    inside = enclosing_code_parameter(tree)
    wrapped = set()  # Diagnostics built as an argument of an error or a helper taking a code

    def passes(node: ast.expr, call: ast.Call, cls: type[KcostError] | None) -> bool:
        code = named_code(node)
        if code is not None:
            if not hasattr(Code, code):
                found.append(f"{name}:{call.lineno}: Code.{code} is not a code")
            elif cls is not None and getattr(Code, code).family != cls.family:
                found.append(f"{name}:{call.lineno}: {cls.__name__} raised with {code}, a "
                             f"{getattr(Code, code).family} code")
            return True
        if isinstance(node, ast.Name) and node.id == "code" and inside.get(call):
            return True  # a helper's own parameter, which its callers pass (checked there)
        # the first diagnostic's, each built with a code (checked below)
        return (isinstance(node, ast.Name) and node.id == "code"
                and name in CODE_OF_DIAGNOSTIC)

    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        function = called(call)
        if function == "KcostError":
            found.append(f"{name}:{call.lineno}: KcostError itself: raise its family's class")
        elif function in CLASSES or function == "error_for":
            if not call.args or not passes(call.args[0], call, CLASSES.get(function)):
                found.append(f"{name}:{call.lineno}: {function}(...) without a code")
            wrapped.update(a for a in call.args[1:] if isinstance(a, ast.Call))
        elif function in helpers and function != "Diagnostic":
            position = helpers[function]
            given = call.args[position] if len(call.args) > position else next(
                (k.value for k in call.keywords if k.arg == "code"), None)
            if given is None or not passes(given, call, None):
                found.append(f"{name}:{call.lineno}: {function}(...) without a code")
            wrapped.update(a for a in call.args if isinstance(a, ast.Call))
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and called(call) == "Diagnostic" and call not in wrapped:
            given = call.args[3] if len(call.args) > 3 else next(
                (k.value for k in call.keywords if k.arg == "code"), None)
            if given is None or not passes(given, call, None):
                found.append(f"{name}:{call.lineno}: a Diagnostic of no error, without a code")
    return found


def test_every_error_raised_passes_a_code_of_its_family():
    trees = sources()
    helpers = {}
    for tree in trees.values():
        helpers.update(code_parameters(tree))
    assert {"error", "_error", "toml_data"} <= set(helpers)  # the scan sees the helpers
    problems = [p for name, tree in trees.items() for p in problems_of(name, tree, helpers)]
    assert problems == []


def test_the_scan_finds_what_it_is_for():
    source = ast.parse(
        "raise SizeError(Diagnostic(None, 'no code'))\n"
        "raise SizeError(Code.UNKNOWN_MACHINE, Diagnostic(None, 'a machine code'))\n"
        "raise KcostError(Code.SIZES_UNSET, Diagnostic(None, 'the base class'))\n"
        "raise SizeError(Code.NO_SUCH_CODE, Diagnostic(None, 'no such code'))\n"
        "found = Diagnostic(None, 'a diagnostic of no error')\n"
        "raise self.error(key, 'a helper without a code')\n"
        "raise SizeError(Code.SIZES_UNSET, Diagnostic(None, 'right'))\n")
    lines = [int(p.split(":")[1]) for p in problems_of("x.py", source, {"error": 0})]
    assert sorted(set(lines)) == [1, 2, 3, 4, 5, 6]


def test_every_code_is_raised_unless_retired():
    used = {named_code(node) for tree in sources().values() for node in ast.walk(tree)}
    raised = {str(getattr(Code, name)) for name in used if name and hasattr(Code, name)}
    assert {str(code) for code in all_codes()} - raised == set(RETIRED)


def test_codes_are_unique_and_well_formed():
    codes = all_codes()
    assert len({str(c) for c in codes}) == len(codes)
    assert len({c.name for c in codes}) == len(codes)
    for code in codes:
        assert re.fullmatch(r"KC[1-9]\d\d", code), code
        assert int(code[2]) in FAMILIES and code.summary and "\n" not in code.summary
    assert [str(c) for c in codes] == sorted(str(c) for c in codes)  # the table in order


def test_docs_list_every_code_and_no_other():
    text = DOC.read_text("utf-8")
    documented = re.findall(r"^### (KC\d{3}): (.*)$", text, re.MULTILINE)
    assert [code for code, _ in documented] == [str(c) for c in all_codes()]
    assert {code: summary for code, summary in documented} == {
        str(c): c.summary for c in all_codes()}
    assert set(re.findall(r"\bKC\d{3}\b", text)) <= {str(c) for c in all_codes()}


def test_every_code_has_an_example():
    assert sorted(e.code for e in EXAMPLES) == [str(c) for c in all_codes()]


def normalised(text: str) -> str:
    """The document less the output of the examples whose message names where slow work
    stopped: the machine's speed decides that."""
    volatile = {e.code for e in EXAMPLES if e.volatile}
    sections = text.split("\n### ")
    return "\n### ".join(section.split("\n", 1)[0] if section[:5] in volatile else section
                         for section in sections)


def test_docs_are_what_the_examples_give():
    """Each example raises its own code, with the message the document shows."""
    import regen_error_docs

    assert normalised(regen_error_docs.document()) == normalised(DOC.read_text("utf-8")), (
        "docs/errors.md is stale: run .venv/bin/python tools/regen_error_docs.py")


# -- the command line --------------------------------------------------------------------

def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("code, argv", [
    ("KC303", ["analyze", "{spec}", "--set", "n=0"]),
    ("KC302", ["analyze", "{spec}", "--set", "m=4"]),
    ("KC401", ["analyze", "{spec}", "--machine", "h1000"]),
    ("KC409", ["analyze", "{spec}", "--machine", "h100", "--precision", "bf61"]),
    ("KC601", ["analyze", "{spec}", "--machine", "h100", "--measured", "fast"]),
    ("KC308", ["sweep", "{spec}", "--sweep", "n=4096..64", "--csv"]),
    ("KC801", ["analyze", "{folder}/missing.kcost"]),
])
def test_a_bad_input_shows_its_code_in_text_and_json(capsys, tmp_path, code, argv):
    spec = tmp_path / "scale.kcost"
    spec.write_text(next(e for e in EXAMPLES if e.code == "KC302").files["scale.kcost"])
    argv = [a.format(spec=spec, folder=tmp_path) for a in argv]
    exit_code, out, err = run(capsys, *argv)
    assert (exit_code, out) == (2, "")
    assert re.search(r"error\[(KC\d{3})\]: ", err).group(1) == code
    if argv[0] != "sweep":  # a sweep's --csv and --json are one or the other
        exit_code, out, err = run(capsys, *argv, "--json")
        error = json.loads(out)["error"]
        assert (exit_code, error["code"], error["exit_code"]) == (2, code, 2)
        assert error["family"] == getattr(Code, error_name(code)).family
        assert f"error[{code}]" in err  # the text still goes to stderr


def error_name(code: str) -> str:
    return next(c.name for c in all_codes() if c == code)


def test_the_checker_gives_each_problem_its_own_code(capsys, tmp_path):
    spec = tmp_path / "two.kcost"
    spec.write_text("kernel two(n) {\n    in x: f23[n]\n    out y: f32[n]\n"
                    "    for i in 0..n {\n        y[i] = x[j]\n    }\n}\n")
    exit_code, out, err = run(capsys, "analyze", spec, "--json")
    assert re.findall(r"error\[(KC\d{3})\]", err) == ["KC204", "KC203"]
    error = json.loads(out)["error"]
    assert exit_code == 2 and error["code"] == "KC204" and error["family"] == "check"
    assert [d["code"] for d in error["diagnostics"]] == ["KC204", "KC203"]
    assert error["place"] == {"file": str(spec), "line": 2, "column": 11, "end_line": 2,
                              "end_column": 14}


def test_a_bug_is_internal_with_exit_code_3(capsys, monkeypatch):
    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(cli.COMMANDS, "machines", broken)
    exit_code, out, err = run(capsys, "machines", "--json")
    assert exit_code == 3 and err.startswith("internal error[KC901]: ZeroDivisionError")
    assert json.loads(out)["error"]["code"] == "KC901"
    assert json.loads(out)["error"]["exit_code"] == 3


def test_an_api_error_is_its_family_and_a_kcost_error():
    from kernelcost.base.errors import SizeError

    example = next(e for e in EXAMPLES if e.code == "KC303")
    with tempfile.TemporaryDirectory() as folder:
        outcome = run_example(example, Path(folder))
    assert outcome.code == "KC303" and outcome.exit_code == 2
    with pytest.raises(SizeError) as raised:
        from kernelcost.lang.settings import resolve_settings

        resolve_settings({"n": "0"}, {"n": __import__("sympy").Symbol("n")})
    assert isinstance(raised.value, KcostError) and raised.value.code == "KC303"
    assert raised.value.code.family == "size"
