"""`validate --published` worked out once a test process: every row of the corpus against
its spec on its machine takes about 4 s, and test_published, test_json_everywhere and
test_json_schema each asked for it. A comparison depends on its row alone (compare_rows
takes each row apart), so each row is compared once and a split's results are its rows'."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernelcost.answers.published import FOLDER, Split, read_corpus
from kernelcost.answers.published_report import Result, compare_rows

_COMPARED: dict[tuple[Path, int], Result] = {}  # each row's comparison, by its file and line


def corpus_results(split: Split | None = None) -> list[Result]:
    """compare_corpus(split=split), each row compared once a process whichever splits ask."""
    rows = [r for r in read_corpus() if split is None or r.split is split]
    missing = [r for r in rows if (r.file, r.line) not in _COMPARED]
    _COMPARED.update(((r.row.file, r.row.line), r) for r in compare_rows(missing))
    return [_COMPARED[r.file, r.line] for r in rows]


@contextlib.contextmanager
def published_once() -> Iterator[None]:
    """The command (`validate --published`) given corpus_results in place of its own
    comparisons: it still parses its options, prints, draws and exits as it does."""
    import kernelcost.present.published_page as page

    def shared(folder=FOLDER, split: Split | None = None) -> list[Result]:
        assert folder == FOLDER, folder
        return corpus_results(split)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(page, "compare_corpus", shared)
        yield
