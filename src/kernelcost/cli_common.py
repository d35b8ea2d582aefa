"""What the commands share: exit codes, the --set option and its reader."""

from __future__ import annotations

import argparse

EXIT_OK, EXIT_MISMATCH, EXIT_USER_ERROR, EXIT_INTERNAL = 0, 1, 2, 3


def add_sizes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="size value: N=4096, n=1e8, or an expression M=N, K=2*N; "
                             "repeat, or separate by commas")


def parse_settings(items: list[str]) -> dict[str, str]:
    from .settings import parse_setting

    settings: dict[str, str] = {}
    for item in items:
        for part in _split_commas(item):
            name, value = parse_setting(part)
            settings[name] = value
    return settings


def _split_commas(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p for p in parts if p.strip()]
