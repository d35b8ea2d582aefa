"""The shipped machine files as text, for tests that read what a file says beside what the
loader makes of it."""

from __future__ import annotations

from importlib import resources


def machine_text(machine_id: str) -> str:
    return (resources.files("kernelcost.machines") / f"{machine_id}.toml").read_text("utf-8")
