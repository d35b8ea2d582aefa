"""Hostile input, the fifth round: Triton sources that nest or chain past what the import
reads (each met a limit without a place, ran for minutes, or wrote a spec that kernelcost
then refused), and the figures a user's option or file makes absurd."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_runs import run, write

ROOT = Path(__file__).resolve().parent.parent

TRITON = """import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2, mask=mask)

def launch(x, y, n):
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)
    k[grid](x, y, n, BLOCK=1024)
"""
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
