"""Regenerate parsed.json beside the shipped TOML files (src/kernelcost/machines, models and
topologies): each file's tables as tomllib reads them, keyed by a digest of its text (its
length and CRC-32), which kernelcost.base.tomlplaces takes instead of parsing the file
again. Run it after editing a shipped machine, model or topology file (a test fails until then; an
edited file is parsed as it stands meanwhile):

    .venv/bin/python tools/regen_shipped_toml.py          # writes the files
    .venv/bin/python tools/regen_shipped_toml.py --check  # exit 1 when one is out of date"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = tuple(ROOT / "src" / "kernelcost" / name for name in ("machines", "models", "topologies"))
sys.path.insert(0, str(ROOT / "src"))

from kernelcost.base.inputs import normalise  # noqa: E402
from kernelcost.base.tomlplaces import PARSED_FILE, text_digest  # noqa: E402


def parsed_text(folder: Path) -> str:
    """The JSON of every TOML file in the folder, in file-name order."""
    parsed = {}
    for path in sorted(folder.glob("*.toml")):
        text = normalise(path.read_text(encoding="utf-8"))
        parsed[text_digest(text)] = tomllib.loads(text)
    return json.dumps(parsed, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for folder in FOLDERS:
        target = folder / PARSED_FILE
        text = parsed_text(folder)
        if "--check" in argv:
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                stale.append(str(target.relative_to(ROOT)))
        else:
            target.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{path} is out of date: run tools/regen_shipped_toml.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
