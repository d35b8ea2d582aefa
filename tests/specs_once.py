"""The commands' reading of a spec file (api.load) shared within a test module: a spec is
parsed, checked and counted once, however many commands of the module name it. A command
still runs from its command line to its exit code; only the Spec it reads is the one an
earlier command of the module read from the same path with the same text. A file that
cannot be read goes to api.load itself, which places the error."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def specs_read_once() -> Iterator[None]:
    from kernelcost.analysis import api

    original = api.load
    read: dict[tuple[str, str, bytes], api.Spec] = {}

    def load(path: str | Path) -> api.Spec:
        try:
            key = (str(path), str(Path(path).resolve()), Path(path).read_bytes())
        except OSError:
            return original(path)
        if key not in read:
            read[key] = original(path)
        return read[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "load", load)
        yield
