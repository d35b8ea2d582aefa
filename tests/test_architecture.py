"""The package's shape, as docs/architecture.md draws it: no import circle, and imports run
one way, from the command line down to the foundations. Every `from . import` and
`from .x import` in src/kernelcost counts, wherever it stands (lazy imports inside functions
too); imports only for type checkers (`if TYPE_CHECKING:`) do not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "kernelcost"

# floors, lowest first: a module may import from its own floor and the floors below it
FLOORS = {
    "foundations": ["machines", "models", "errors", "ast", "symbols", "units", "inputs",
                    "error_codes", "error_report",
                    "kcost_parser", "jsonout", "tomlplaces", "magnitude", "watchdog", "launch",
                    "outputs",
                    "quotients", "no_tensors", "lean_sympy", "sound_signs", "number_facts",
                    "records", "drawable", "rational_eval", "witnesses", "shifted", "texts",
                    "held_quotients",
                    "rounding", "axis_signs", "sympy_patch", "sympy_scope", "numeric_sums"],
    "language": ["syntax_errors", "parse", "parallel", "check_decls", "check_exprs",
                 "check_lanes", "check", "work", "contraction", "precisions", "settings",
                 "sizes", "sizerange"],
    "count": ["cost", "facts", "nest", "sums", "counters", "footprint", "lanes", "blocks",
              "mma", "count", "asymptotic"],
    "oracle": ["oracle"],
    "hardware": ["values", "machine", "clocks", "machinefields", "machinefile", "hardware",
                 "modelfile"],
    "analysis": ["verify", "analysis"],
    "model": ["thresholds", "decide",
              "efficiency", "polyexp", "derates", "transfer", "warm", "occupancy", "axis_classes",
              "block_classes", "block_enumeration", "wave_pieces", "wave_tables", "wave_periods",
              "wave_classes", "waves", "fill", "execution", "fits", "floor", "order", "model",
              "numeric_roots", "quadratic", "cleared", "equations", "solve",
              "rates", "answer",
              "lp", "lower", "bound"],
    "uses": ["tune", "wholemodel", "validate", "published", "published_report", "ncu"],
    "presentation": ["sweep_units", "vectorize", "grid_sweep", "sweep", "trajectory", "scene",
                     "report", "textplot", "placement", "plot",
                     "phase", "ski", "bound_report",
                     "wholemodel_report", "display", "published_page"],
    "front": ["cli_common", "cli_model", "cli_plot", "cli_bounds", "cli_inspect", "cli_sweep",
              "cli", "__init__"],
}
FLOOR_OF = {module: level for level, (_, modules) in enumerate(FLOORS.items())
            for module in modules}
GENERATED = {"kcost_parser"}  # lark's stand-alone parser, written by tests/regen_parser.py
FORBIDDEN = {  # the oracle checks the counting code: it must not share its logic
    "oracle": {"count", "nest", "facts", "sums", "footprint", "blocks", "asymptotic", "lanes"},
}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found[".".join(part for part in parts if part != "__init__") or "__init__"] = path
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def imports_of(name: str, path: Path) -> set[str]:
    """Top-level kernelcost modules `name` imports (package-relative, outside TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    skipped = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
               and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}
    package = [] if name == "__init__" else name.split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0 or id(node) in skipped:
            continue
        base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        target = [*base, *(node.module.split(".") if node.module else [])]
        if target:
            found.add(target[0])
        else:  # `from . import x`: x is a module, or a name of the package itself
            found.update(alias.name for alias in node.names if alias.name in TOP_MODULES)
    return {module for module in found if module != top(name)}


TOP_MODULES = {top(name) for name in modules()} - {"__init__"}
# lark's own code: two relative imports in it (lark's cache path, and UnexpectedEOF, which only
# the Earley parser raises) are never run here, and it is regenerated, never edited
GRAPH = {name: set() if name in GENERATED else imports_of(name, path)
         for name, path in modules().items()}
TOP_GRAPH: dict[str, set[str]] = {}
for _name, _targets in GRAPH.items():
    TOP_GRAPH.setdefault(top(_name), set()).update(_targets)


def test_every_module_has_a_floor():
    assert set(TOP_GRAPH) - set(FLOOR_OF) == set()


@pytest.mark.parametrize("module", sorted(TOP_GRAPH))
def test_imports_run_down_the_floors(module):
    for target in TOP_GRAPH[module]:
        assert FLOOR_OF[target] <= FLOOR_OF[module], f"{module} imports {target}, a floor above"
        assert target not in FORBIDDEN.get(module, set()), f"{module} must not import {target}"


def test_no_import_circle():
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(TOP_GRAPH.get(module, ())):
            if state.get(target) == 1:
                raise AssertionError("import circle: " + " -> ".join([*path, module, target]))
            if target not in state:
                visit(target, [*path, module])
        state[module] = 2

    for module in sorted(TOP_GRAPH):
        if module not in state:
            visit(module, [])


def test_no_file_is_much_over_400_lines():
    long = {name: len(path.read_text().splitlines()) for name, path in modules().items()
            if name not in GENERATED}
    assert {name: lines for name, lines in long.items() if lines > 450} == {}
