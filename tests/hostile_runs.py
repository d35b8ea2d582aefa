"""The command line run as a careless user runs it, for the hostile inputs' tests: an
argparse usage error is its exit code, and no traceback or internal error reaches the user."""

from pathlib import Path

from kernelcost.cli import main


def run(capsys, *arguments) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in arguments])
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return code, captured.out, captured.err


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# a small valid Triton kernel and its launch, which the hostile tests of `import` spoil
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
