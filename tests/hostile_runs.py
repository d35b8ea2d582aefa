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
