"""Regenerate docs/schema/: the JSON Schema (draft 2020-12) of each command's `--json`
document and of the error object, built from the code's enums (tools/schema_common.py,
schema_analyze.py, schema_commands.py, schema_graded.py). Run it after changing a JSON writer
or an enum, then read `git diff docs/schema` as the review; tests/test_json_schema.py fails
until the files match:

    PYTHONPATH=src .venv/bin/python tools/regen_schema.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from schema_analyze import analyze_schema, solve_schema
from schema_commands import machines_schema, model_schema
from schema_common import common_schema
from schema_graded import bound_schema, error_schema, tune_schema, validate_schema

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "schema"
# file name -> its schema: one a command that takes --json, the shared definitions, the error
BUILDERS = {"common": common_schema, "analyze": analyze_schema, "solve": solve_schema,
            "machines": machines_schema, "model": model_schema, "bound": bound_schema,
            "tune": tune_schema, "validate": validate_schema, "error": error_schema}


def schema_texts() -> dict[str, str]:
    """File name -> the text regen writes there."""
    return {f"{name}.schema.json": json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
            for name, build in BUILDERS.items()}


def main() -> None:
    SCHEMA.mkdir(parents=True, exist_ok=True)
    for name, text in schema_texts().items():
        (SCHEMA / name).write_text(text, encoding="utf-8")
        print(f"wrote docs/schema/{name}")


if __name__ == "__main__":
    main()
