"""What no printed sentence may say: a count of one with its noun in the plural ("1 blocks",
"x 1 stages"). The nouns are the ones kernelcost counts in its sentences."""

from __future__ import annotations

import re

NOUNS = ("block", "resident block", "wave", "stage", "SM", "tile", "warp", "thread", "split",
         "GPU", "layer", "token", "kernel", "load", "row", "wavefront", "instruction",
         "element", "launch", "size", "level", "machine", "candidate", "point", "round")
_ALTERNATIVES = "|".join(re.escape(noun) for noun in NOUNS)
_SLIP = re.compile(rf"(?<![\w.,/-])1 (?:{_ALTERNATIVES})s\b")


def plural_slips(text: str) -> list[str]:
    """Each "1 <noun>s" in the text."""
    return _SLIP.findall(text)
