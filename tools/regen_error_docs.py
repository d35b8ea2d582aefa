"""Write docs/errors.md: every error code with its family, summary and a real example, the
message in it produced by running the example (tests/error_examples.py), never by hand.

    .venv/bin/python tools/regen_error_docs.py

Run it after adding a code or changing a message, and read `git diff docs/errors.md` as the
review; tests/test_error_codes.py holds the document and the codes together."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the examples

from error_examples import COMMON, EXAMPLES, Example
from example_runs import Outcome, run_example

from kernelcost.base.error_codes import FAMILIES, all_codes
from kernelcost.base.errors import FAMILY_CLASSES

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
SHOWN_LINES = 40  # a file longer than this is described, not shown

INTRO = """\
# Error codes

Every error kernelcost reports carries a stable code, `KC` and three digits; the first digit
names the family. A script tests the code, never the message: messages are reworded as the
tool improves, codes are not renumbered, and a code that stops being raised stays in this
list, retired, so that its number is never given to another error. This file is written by
`tools/regen_error_docs.py`, which runs every example below; `tests/test_error_codes.py`
checks that every code the source raises is listed here and every code here exists.

**Text.** An error is printed on stderr as `file:line:col: error[KC203]: message`, the source
line with a caret under the place, then a hint. The place comes first, as compilers write it,
so that an editor can jump to it; an error with no place in a file starts with
`error[KC801]:`. The checker reports every problem of a spec at once, each with its own code.
A bug in kernelcost reads `internal error[KC901]:`.

**JSON.** A command run with `--json` prints, when it fails, one JSON object on stdout as well
(the text still goes to stderr): the code, its family and one-line summary, the exit code,
the first diagnostic's message, hint and place, and every diagnostic
([docs/schema/error.schema.json](schema/error.schema.json) is its JSON Schema). For the example
of KC303:

```json
{json}
```

**Exit codes.** 2 for bad input (every family but internal), 3 for a bug (KC9xx), as before
the codes; 1 is not an error but a mismatch (`check`, or `analyze`'s verification).

**Python.** Every error is a `kernelcost.KcostError`; the family is its subclass in
`kernelcost.base.errors` (`except SizeError:`), the code is `error.code` (a `str`, `"KC303"`,
with `.summary` and `.family`), and `error.diagnostics[i].code` is each diagnostic's own.

| codes | family | class | covers |
|---|---|---|---|
"""


def family_table() -> str:
    rows = []
    for digit, (name, covers) in FAMILIES.items():
        rows.append(f"| KC{digit}xx | {name} | `{FAMILY_CLASSES[name].__name__}` | {covers} |")
    return "\n".join(rows) + "\n"


def section(example: Example, outcome: Outcome) -> str:
    lines = []
    if example.note:
        lines.append(f"{example.note}.\n")
    shown = {name: content for name, content in example.files.items()
             if isinstance(content, str) and content.count("\n") <= SHOWN_LINES
             and not (example.note and example.note.startswith(name + ":"))
             and COMMON.get(name) != content}
    for name, content in shown.items():
        lines.append(f"`{name}`:\n\n```\n{content.rstrip()}\n```\n")
    if example.python:
        lines.append("```python\n" + example.python.rstrip() + "\n```\n")
        if outcome.raised:
            lines.append(f"raises `{outcome.raised}`:\n")
        lines.append("```\n" + outcome.text.rstrip() + "\n```\n")
    else:
        environment = "".join(f"{name}={value} " for name, value in example.env.items())
        redirect = f" > {example.stdout}" if example.stdout else ""
        command = " ".join(example.argv)
        lines.append(f"```console\n$ {environment}kernelcost {command}{redirect}\n"
                     f"{outcome.text.rstrip()}\n```\n")
        lines.append(f"exit code {outcome.exit_code}\n")
    return "\n".join(lines)


def document() -> str:
    by_code = {example.code: example for example in EXAMPLES}
    parts, json_example = [], ""
    family = None
    for code in all_codes():
        if code.family != family:
            family = code.family
            digit = code[2]
            parts.append(f"## KC{digit}xx: {family}\n\n{FAMILIES[int(digit)][1].capitalize()}.\n")
        example = by_code[str(code)]
        with tempfile.TemporaryDirectory() as folder:
            outcome = run_example(example, Path(folder))
            if str(code) == "KC303":
                json_example = run_example(example, Path(folder), ("--json",)).stdout.rstrip()
        if outcome.code != str(code):
            raise AssertionError(f"the example of {code} gives {outcome.code}:\n{outcome.text}")
        parts.append(f"### {code}: {code.summary}\n\n" + section(example, outcome))
    common = "".join(f"`{name}`:\n\n```\n{text.rstrip()}\n```\n\n"
                     for name, text in COMMON.items())
    return (INTRO.replace("{json}", json_example) + family_table() + "\n"
            + "The examples write their files in an empty folder and run there. These two "
            "stand beside many of\nthem (`gemm.kcost` is the repository's "
            "`specs/gemm.kcost`):\n\n" + common + "\n".join(parts))


def main() -> int:
    text = document()
    if not DOC.exists() or DOC.read_text("utf-8") != text:
        DOC.write_text(text, "utf-8")
        print(f"wrote {DOC.relative_to(DOC.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
