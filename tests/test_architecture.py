"""The package's shape, as kernelcost.layers declares it and docs/architecture.md draws it:
packages by floor, imports one way, from the command line down to the foundations. Every
`from . import` and `from .x import` in src/kernelcost counts, wherever it stands (lazy imports
inside functions too); between packages, imports only for type checkers (`if TYPE_CHECKING:`)
count as well."""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

from kernelcost import layers
from kernelcost.base.levels import Level

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "kernelcost"
DATA = {"machines", "models", "topologies"}  # TOML files shipped as packages, no code
GENERATED = {
    "lang._generated.kcost_parser",  # lark's stand-alone parser (tools/regen_parser.py)
    "base.record_bodies",  # records.record_bodies_source(): one __init__ body a field count
    "algebra.monomial_bodies",  # monomial_ops.monomial_bodies_source(): sympy's templates
}
TOP_LEVEL = {"__init__", "layers"}  # at most five modules beside the packages
FORBIDDEN = {  # the oracle checks the counting code: it must not share its logic
    "oracle": {"count.spec_count", "count.nest", "count.facts", "count.sums", "count.footprint",
               "count.blocks", "count.asymptotic", "count.lanes"},
}


def modules() -> dict[str, Path]:
    """Dotted names under kernelcost ("" for the package itself) -> their files."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] not in DATA:
            found[".".join(part for part in parts if part != "__init__")] = path
    return found


MODULES = modules()


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    return {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
            and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}


def imports_of(name: str, type_checking: bool) -> set[str]:
    """The kernelcost modules `name` imports (relative imports, resolved), with or without
    those only for type checkers."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    skipped = set() if type_checking else _type_checking_nodes(tree)
    package = name.split(".") if name else []
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0 or id(node) in skipped:
            continue
        base = package[: len(package) - (node.level - 1)]
        target = ".".join([*base, *(node.module.split(".") if node.module else [])])
        for alias in node.names:
            module = f"{target}.{alias.name}" if target else alias.name
            found.add(module if module in MODULES else target)
    return found - {name}


def package_of(name: str) -> str:
    return name.split(".")[0] if name else ""


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's kernelcost imports, type checking included: read when a test asks, not
    at collection (each pytest-xdist worker collects every file; this reads 280 modules)."""
    return {name: set() if name in GENERATED else imports_of(name, type_checking=True)
            for name in MODULES}
PACKAGES = sorted({package_of(name) for name in MODULES if "." in name})


def test_every_package_has_a_floor_and_the_top_level_is_small():
    assert set(PACKAGES) == set(layers.FLOOR_OF)
    top = {name or "__init__" for name in MODULES if "." not in name} - set(PACKAGES)
    assert top == TOP_LEVEL and len(top) <= 5


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_run_down_the_floors(package):
    allowed = {package, *layers.may_import(package)}
    for name in (n for n in MODULES if package_of(n) == package):
        for target in graph()[name]:
            assert package_of(target) in allowed, f"{name} imports {target}, not below it"
            assert target not in FORBIDDEN.get(package, set()), f"{name} must not import {target}"


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_states_its_floor_and_imports(package):
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text())) or ""
    allowed = layers.may_import(package)
    stated = " ".join(doc.split())
    expected = (f"Floor {layers.FLOOR_OF[package] + 1} of kernelcost.layers; may import: "
                + (", ".join(allowed) if allowed else "nothing of kernelcost") + ".")
    assert expected in stated


def test_the_architecture_doc_draws_the_floors():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    drawn = re.findall(r"^\| (\d) \| `([a-z_]+)` \|", doc, re.MULTILINE)
    assert [(int(floor) - 1, package) for floor, package in drawn] == [
        (layers.FLOOR_OF[package], package) for floor in layers.FLOORS for package in floor]


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path, node, target]
            if target not in state and (found := visit(target, [*path, node])):
                return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node, [])):
            return found
    return None


def test_no_circle_between_packages_type_checking_included():
    packages: dict[str, set[str]] = {}
    for name, targets in graph().items():
        packages.setdefault(package_of(name), set()).update(
            package_of(t) for t in targets if package_of(t) != package_of(name))
    assert _circle(packages) is None


def test_no_import_circle_between_modules_type_checking_included():
    assert _circle(graph()) is None


def test_no_module_name_twice_and_none_named_like_the_standard_library():
    leaves: dict[str, list[str]] = {}
    for name in MODULES:
        if name and "." in name:
            leaves.setdefault(name.split(".")[-1], []).append(name)
    twice = {leaf: names for leaf, names in leaves.items() if len(names) > 1}
    assert twice == {}
    assert {leaf for leaf in leaves if leaf in sys.stdlib_module_names} == set()


def test_no_file_is_much_over_400_lines():
    long = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()
            if name not in GENERATED}
    assert {name: lines for name, lines in long.items() if lines > 450} == {}


MOST_POSITIONAL = 6  # more travel together as a record, or are named at the call


def positional_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                          ) -> list[str]:
    """The parameters a call may pass by position, a method's self or cls aside."""
    names = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def long_parameter_lists(tree: ast.AST) -> list[str]:
    return [f"{getattr(node, 'name', 'lambda')}:{node.lineno} ({len(found)})"
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            and len(found := positional_parameters(node)) > MOST_POSITIONAL]


def test_no_function_takes_more_than_six_positional_parameters():
    long = {name: found for name, path in MODULES.items() if name not in GENERATED
            if (found := long_parameter_lists(ast.parse(path.read_text())))}
    assert long == {}


def test_the_positional_parameter_scan_counts_what_a_call_may_pass_by_position():
    tree = ast.parse("def seven(a, b, c, d, e, f, g=1): pass\n"
                     "def six(a, b, c, d, e, /, f, *, g, h): pass\n"
                     "class C:\n"
                     "    def method(self, a, b, c, d, e, f): pass\n"
                     "    def more(self, a, b, c, d, e, f, g): pass\n"
                     "squeezed = lambda a, b, c, d, e, f, g: a\n")
    assert long_parameter_lists(tree) == ["seven:1 (7)", "more:5 (7)", "lambda:6 (7)"]


def test_the_version_is_the_one_pyproject_gives():
    from kernelcost.base.version import VERSION

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"$', pyproject, re.MULTILINE).group(1) == VERSION


def test_no_comment_or_docstring_carries_history():
    # comments say why, not which issue or session changed a line
    # (another project's issue, cited as owner/repo issue N, is a source, not history)
    named = {name: [number for number, line in enumerate(path.read_text().splitlines(), 1)
                    if re.search(r"\bissue \d+|\bissue's\b", line)
                    and not re.search(r"[\w.-]+/[\w.-]+ issue \d+", line)]
             for name, path in MODULES.items() if name not in GENERATED}
    assert {name: lines for name, lines in named.items() if lines} == {}


def test_every_package_is_installed():
    """A regular install ships the packages pyproject.toml lists, no others: a package missing
    there imports from a source tree and fails once installed."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    found = {"kernelcost" + "".join(f".{part}" for part in init.parent.relative_to(
        PACKAGE).parts) for init in PACKAGE.rglob("__init__.py")}
    assert found - listed == set()


def test_the_architecture_doc_names_every_module():
    """Every module but an effect's: gpu/effects/registry.py lists those, so that a new
    effect is its module, its tests and the registry's line."""
    from kernelcost.gpu.effects import registry

    effects = {type(effect).__module__.removeprefix("kernelcost.") for effect in registry.EFFECTS}
    doc = (ROOT / "docs" / "architecture.md").read_text()
    unnamed = [name for name in MODULES if "." in name and name not in GENERATED | effects
               and f"`{name.rsplit('.', 1)[-1]}`" not in doc
               and MODULES[name].name != "__init__.py"]  # a package: its folder is named
    assert unnamed == []


LEVEL_NAMES = {level.value for level in Level}  # every level, those of some machines too


def test_level_names_are_written_once():
    """A memory level is a kernelcost.base.levels.Level, never its name as a literal:
    printers and counts name the member (f-strings and docstrings aside)."""
    written = []
    for name, path in MODULES.items():
        if name in GENERATED or name == "base.levels":
            continue
        tree = ast.parse(path.read_text())
        in_fstrings = {id(node) for joined in ast.walk(tree) if isinstance(joined, ast.JoinedStr)
                       for node in ast.walk(joined)}
        written += [f"{name}:{node.lineno}" for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in LEVEL_NAMES
                    and id(node) not in in_fstrings]
    assert written == []
