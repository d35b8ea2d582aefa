"""Write the tables of the pages that compare the model with published measurements, each
computed by its comparison module under tests/, never by hand:

- docs/collectives.md, "Against published measurements": every row of
  validate/published/collectives.csv with the model's time on its topology and the error,
  and the median and 90th-percentile |error| per collective and size class
  (tests/collectives_measured.py);
- docs/serving.md: every row of validate/published/serving.csv with the model's TTFT, TPOT
  and the error, and the median and 90th-percentile |error| per split and quantity
  (tests/serving_measured.py).

    .venv/bin/python tools/regen_measured_docs.py

Run it after a change to a CSV or to the model, and read `git diff docs/` as the review;
tests/test_collectives_measured.py and tests/test_serving_measured.py fail while a page and
the code disagree."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the comparisons

import collectives_measured
import serving_measured


def main() -> None:
    for comparison in (collectives_measured, serving_measured):
        text = comparison.DOC.read_text(encoding="utf-8")
        written = comparison.render(comparison.compare_all())
        comparison.DOC.write_text(text.replace(comparison.doc_block(text), written),
                                  encoding="utf-8")
        print(f"wrote {comparison.DOC}")


if __name__ == "__main__":
    main()
