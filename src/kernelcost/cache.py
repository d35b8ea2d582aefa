"""Files kernelcost keeps between runs to start faster: the built parser tables.

They live in the user cache directory ($XDG_CACHE_HOME/kernelcost, else ~/.cache/kernelcost;
KERNELCOST_CACHE_DIR overrides it, and an empty value turns caching off). A cache is only ever
a speed-up: when the directory cannot be made or written (a read-only home, a sandbox), the
caller gets None and builds what it needs in memory, as without a cache."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def cache_dir() -> Path | None:
    """The cache directory, created if needed, or None when caching is off or impossible."""
    configured = os.environ.get("KERNELCOST_CACHE_DIR")
    try:
        if configured is not None:
            if not configured:
                return None
            directory = Path(configured)
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            directory = Path(base) / "kernelcost"
        directory.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no home directory to expand
        return None
    if not os.access(directory, os.W_OK | os.X_OK):
        return None
    return directory


def cache_file(kind: str, *keys: str) -> str | None:
    """A path in the cache directory named after `kind` and a digest of `keys` (the grammar
    text, library versions), so a changed input never reads a stale file; None when off."""
    directory = cache_dir()
    if directory is None:
        return None
    digest = hashlib.sha256("\0".join(keys).encode("utf-8")).hexdigest()[:20]
    version = "%d%d" % sys.version_info[:2]
    return str(directory / f"{kind}-{digest}-py{version}.pickle")
