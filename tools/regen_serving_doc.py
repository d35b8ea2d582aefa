"""Write the table of docs/serving.md: every row of validate/published/serving.csv with the
model's TTFT, TPOT and the error, and the median and 90th-percentile |error| per split and
quantity, computed by tests/serving_measured.py, never by hand.

    .venv/bin/python tools/regen_serving_doc.py

Run it after a change to the CSV or to the model, and read `git diff docs/serving.md` as the
review; tests/test_serving_measured.py fails while the page and the code disagree."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the comparison

from serving_measured import DOC, compare_all, doc_block, render


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(doc_block(text), render(compare_all())), encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
