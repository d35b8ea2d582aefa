"""Regenerate tests/errors/*.expected from tests/errors/*.kcost.

Each broken spec's expected file holds the exact text the user sees: `parse` then `check`,
rendered. Run it after changing a message, then read `git diff tests/errors` as the review:

    .venv/bin/python tools/regen_errors.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from kernelcost.base.errors import KcostError
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse

ERRORS_DIR = Path(__file__).resolve().parent.parent / "tests" / "errors"


def rendered_error(spec: Path) -> str:
    """The rendered error of a broken spec, named as `errors/NAME.kcost` so that the text does
    not depend on where the repository lies."""
    text = spec.read_text("utf-8")
    try:
        check(parse(text, f"errors/{spec.name}"))
    except KcostError as error:
        return error.render() + "\n"
    raise AssertionError(f"{spec.name} is accepted, but it is in tests/errors")


def main() -> int:
    for spec in sorted(ERRORS_DIR.glob("*.kcost")):
        expected = spec.with_suffix(".expected")
        text = rendered_error(spec)
        if not expected.exists() or expected.read_text("utf-8") != text:
            expected.write_text(text, "utf-8")
            print(f"wrote {expected.relative_to(ERRORS_DIR.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
