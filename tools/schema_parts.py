"""The parts the JSON Schemas of docs/schema/ are built from (tools/regen_schema.py): objects
that list their required keys and refuse others, quantities with their `_expr` beside them,
enumerations taken from the code's enums, so that a member added to an enum reaches the
schema when it is regenerated (tests/test_json_schema.py holds the files to this output).

Draft 2020-12. Every file has an `$id` under the tool's version; the command schemas refer
to common.schema.json by a relative `$ref`."""

from __future__ import annotations

from enum import Enum

from kernelcost.base.version import VERSION

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# not fetched: it names the schema, and its version is the package's (schemas change with it)
BASE = f"https://kernelcost.invalid/schema/{VERSION}/"


def schema_id(name: str) -> str:
    return f"{BASE}{name}.schema.json"


# what a use of a common definition means where the use does not say more
USES = {"machine_id": "the machine's id", "precision": "the precision",
        "level": "the memory level", "reuse": "how tensors outside keep scopes are counted",
        "effect_cause": "what lowers the roof", "per": "what the capacity covers",
        "misfit_unit": "what the need and the capacity are counted in",
        "roof": "the roof, as the reports name it", "term_kind": "the kind of term",
        "term_key": "the term's work class or memory level",
        "regime": "the regime the measurement is judged in",
        "roof_or_null": "the roof that binds, or null while undecided"}


def ref(name: str, description: str | None = None) -> dict:
    """A definition of common.schema.json, with this use's description (an item of a list
    or a value of a mapping may go without: its container says what it holds)."""
    found = {"$ref": f"common.schema.json#/$defs/{name}"}
    described = USES.get(name) if description is None else description
    return found if described is None else {**found, "description": described}


def local(name: str, description: str | None = None) -> dict:
    """A definition of the same file (with this use's description, where it is a key's)."""
    found = {"$ref": f"#/$defs/{name}"}
    return found if description is None else {**found, "description": description}


def typed(kind: str | list[str], description: str, **more) -> dict:
    return {"type": kind, "description": description, **more}


def text(description: str) -> dict:
    return typed("string", description)


def text_or_null(description: str) -> dict:
    return typed(["string", "null"], description)


def boolean(description: str) -> dict:
    return typed("boolean", description)


def integer(description: str, minimum: int | None = 0) -> dict:
    return typed("integer", description, **({} if minimum is None else {"minimum": minimum}))


def integer_or_null(description: str) -> dict:
    return typed(["integer", "null"], description, minimum=0)


def number(description: str) -> dict:
    """A Python float the writer never overflows (machine figures, model times)."""
    return typed("number", description)


def number_or_null(description: str) -> dict:
    return typed(["number", "null"], description)


def texts(description: str) -> dict:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def array(items: dict, description: str) -> dict:
    return {"type": "array", "items": items, "description": description}


def nullable(schema: dict, description: str) -> dict:
    """The schema or null."""
    return {"anyOf": [schema, {"type": "null"}], "description": description}


def values(*enums: type[Enum]) -> list[str]:
    """The words of the enums' members, in order, each once."""
    found: list[str] = []
    for enum in enums:
        found += [str(member.value) for member in enum if str(member.value) not in found]
    return found


def enum(description: str, *enums: type[Enum], null: bool = False) -> dict:
    words: list = values(*enums)
    return {"enum": words + [None] if null else words, "description": description}


def obj(properties: dict, description: str, optional: tuple[str, ...] = (),
        **more) -> dict:
    """An object of fixed shape: every key listed is required but the optional ones, and no
    other key is allowed."""
    missing = [key for key in optional if key not in properties]
    assert not missing, missing
    silent = [key for key, schema in properties.items() if "description" not in schema]
    assert not silent, f"every key says what it holds: {silent}"
    return {"type": "object", "description": description, "properties": properties,
            "required": [key for key in properties if key not in optional],
            "additionalProperties": False, **more}


def mapping(value: dict, description: str, **more) -> dict:
    """An object keyed by data (tensor names, levels, sizes): each value of one schema."""
    return {"type": "object", "description": description, "additionalProperties": value,
            **more}


def quantities(**named: str) -> dict:
    """NAME and NAME_expr for each named quantity (cells.quantities): a number or null, and
    its expression where it stays symbolic. `named` maps each name to its unit and meaning."""
    properties = {}
    for name, meaning in named.items():
        properties[name] = ref("quantity", f"{meaning}; null where it stays symbolic "
                                           f"({name}_expr) or is infinite")
        properties[f"{name}_expr"] = ref("expression_or_null", f"{name} as a sympy expression "
                                                               "where it stays symbolic, else "
                                                               "null")
    return properties


def document(name: str, title: str, body: dict, defs: dict | None = None) -> dict:
    """A schema file: its header, then the document's own schema."""
    header = {"$schema": DRAFT, "$id": schema_id(name), "title": title}
    found = {**header, **body}
    if defs:
        found["$defs"] = defs
    return found
