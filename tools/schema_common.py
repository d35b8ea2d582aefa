"""docs/schema/common.schema.json: what several commands' documents share (numbers that may
travel as exact text, quantities, expressions, the enumerations of base/kinds.py and
base/levels.py, roof names, element types, a ledger, a crossing of a ridge). Built by
tools/regen_schema.py."""

from __future__ import annotations

import re

from schema_parts import (
    array,
    boolean,
    document,
    enum,
    integer,
    integer_or_null,
    number,
    obj,
    quantities,
    ref,
    text,
    text_or_null,
    typed,
    values,
)

from kernelcost.answers.ledger import Cause
from kernelcost.answers.regimes import Regime
from kernelcost.base.kinds import (
    MissingFigure,
    Per,
    Precision,
    Quantity,
    Resource,
    Reuse,
    Role,
    Side,
    TermKind,
    Unit,
    WorkClass,
)
from kernelcost.base.levels import Level
from kernelcost.base.symbols import LEVELS
from kernelcost.gpu.effects import registry
from kernelcost.hardware.machine import UNBOUNDING_LEVELS
from kernelcost.present.roofs import derate_word

# algebra.jsonout.exact_text: an integer or fraction exactly, else 30 significant digits as
# sympy writes them (1.00000000000000000000000000000e+400); never `inf` or `nan`
EXACT_PATTERN = r"^-?[0-9]+(/[0-9]+)?$|^-?[0-9]+\.[0-9]+(e[+-]?[0-9]+)?$"


def roof_pattern() -> str:
    """present/roofs.roof_name's words, from the enums: `bf16 tensor peak`, `fp32 vector FMA
    peak (no sfu figure)`, `sfu`, `l2 bandwidth (latency-bound, sectors)`. A bandwidth is a
    level's a spec places data in, less the register file, which is no roof."""
    roof_levels = [level for level in LEVELS if level not in UNBOUNDING_LEVELS]
    causes = _one_of(derate_word(cause) for cause in registry.causes())
    peak = (f"{_one_of(values(Precision))} {_one_of(values(Unit))}( FMA)? peak"
            r"( \(no sfu figure\))?")
    bandwidth = f"{_one_of(roof_levels)} bandwidth( \\({causes}(, {causes})*\\))?"
    return f"^({peak}|sfu|{bandwidth})$"


def _causes(description: str, null: bool = False) -> dict:
    """The effects' causes: declared by their modules (no enum), gathered by the registry."""
    words: list = [str(cause) for cause in registry.causes()]
    return {"enum": words + [None] if null else words, "description": description}


def _one_of(words) -> str:
    """An alternation of plain words (ECMA-262 has no `\\ ` or `\\-` in unicode mode: none is
    escaped, and none needs it)."""
    words = [str(word) for word in words]
    assert all(re.fullmatch(r"[a-z0-9_ -]+", word) for word in words), words
    return "(" + "|".join(words) + ")"


def ledger() -> dict:
    return obj({
        **quantities(t_bound="t_bound in s, where the ledger starts",
                     t_model="t_model in s, the ledger's sum"),
        "steps": array(obj({
            "cause": enum("what the step adds (answers.ledger.Cause)", Cause),
            "effect": _causes("for cause `effect`: the derate's cause (base.kinds.EffectCause), "
                              "else null", null=True),
            **quantities(delta_s="the signed step in s"),
        }, "one cause's signed step from t_bound towards t_model"),
            "the steps, in order; t_bound plus their delta_s is t_model"),
    }, "the gap ledger: t_bound, each cause's signed step, and t_model, their sum")


def element_types() -> dict:
    return obj({
        "precision": enum("the precision asked for (--precision)", Precision),
        "from": enum("the spec's own precision", Precision),
        "format": text("the format's name (`FP8 (E4M3/E5M2), per-tensor scales`)"),
        "operand": text("the element type of the operands"),
        "output": text("the element type of the outputs"),
        "accumulator": text("the element type of the accumulators"),
        "scale_block": integer_or_null("elements per block scale (NVFP4: 16); null without "
                                       "block scales"),
        "source": text_or_null("where the format's layout is stated"),
        "changes": array(obj({
            "name": text("the tensor or local"),
            "role": enum("what it is to the kernel (base.kinds.Role)", Role),
            "from": text("its element type in the spec"),
            "to": text("its element type at this precision"),
            "bytes_from": ref("number", "bytes an element in the spec, B"),
            "bytes_to": ref("number", "bytes an element at this precision (with its share of "
                                      "a block scale), B"),
        }, "one tensor whose element type changes"), "the tensors whose type changes"),
    }, "the element types a precision gave the spec")


def crossing() -> dict:
    return obj({
        "machine": ref("machine_id"),
        "precision": ref("precision"),
        "level": ref("level", "the memory level whose ridge is crossed"),
        "parameter": text("the size solved for"),
        **quantities(value="the size at which I(level) equals the ridge (a size, no unit)"),
        "expr": ref("expression_or_null", "the closed form of the crossing in the ridge "
                                          "I_crit, where one is found, else null"),
        **condition("where the closed form holds"),
        **quantities(limit="I(level) as the size grows without bound, FLOP/B"),
        "limit_infinite": boolean("true where I(level) grows without bound as the size "
                                  "grows (limit is then null)"),
        "compute_bound_side": enum("the sizes on which side of value are compute-bound; null "
                                   "without a crossing", Side, null=True),
        "searched_to": integer_or_null("a form that keeps a Sum: the size up to which it was "
                                       "searched numerically (limit is I there); else null"),
    }, "where a level's intensity crosses its ridge as one size varies")


def condition(meaning: str) -> dict:
    return {"condition": typed(["boolean", "null"], f"{meaning}: true or false where it is "
                                                    "decided, null with condition_expr"),
            "condition_expr": ref("expression_or_null", "the condition as a sympy relation "
                                                        "where it holds sizes or the ridge")}


def common_schema() -> dict:
    defs = {
        "exact_text": typed("string", "a finite number too large or small for a double, as "
                                      "its exact text (an integer or fraction, else 30 "
                                      "significant digits); the command says so on stderr",
                            pattern=EXACT_PATTERN),
        "number": {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/exact_text"}],
                   "description": "a number; past a double, its exact text"},
        "quantity": {"anyOf": [{"$ref": "#/$defs/number"}, {"type": "null"}],
                     "description": "a number (SI base units: FLOP, B, s, FLOP/s, B/s, "
                                    "FLOP/B), or null where it stays symbolic or is "
                                    "infinite"},
        "expression": text("a sympy expression as sympy writes it (parseable by "
                           "sympy.sympify)"),
        "expression_or_null": text_or_null("a sympy expression, or null"),
        "machine_id": text("a machine's id (a100, h100, ... or a machine file's own)"),
        "level": enum("a memory level (base.levels.Level)", Level),
        "precision": enum("a precision (base.kinds.Precision)", Precision),
        "reuse": enum("how tensors outside keep scopes are counted (base.kinds.Reuse)", Reuse),
        "work_class": enum("a class of work (base.kinds.WorkClass)", WorkClass),
        "term_kind": enum("a time term: work on a compute ceiling or traffic on a bandwidth "
                          "(base.kinds.TermKind)", TermKind),
        "term_key": enum("a term's key: its work class or memory level", WorkClass, Level),
        "per": enum("what a figure covers (base.kinds.Per)", Per),
        "side": enum("a side of a root (base.kinds.Side)", Side),
        "regime": enum("which side of the ridge binds (answers.regimes.Regime)", Regime),
        "effect_cause": _causes("what lowers a roof (base.kinds.EffectCause)"),
        "misfit_unit": enum("what a need is counted in (base.kinds.Quantity)", Quantity),
        "limiter": enum("a memory level or a resource (base.kinds.Resource)", Level, Resource),
        "missing_figure": enum("a machine figure that would limit residency "
                               "(base.kinds.MissingFigure)", MissingFigure),
        "roof": typed("string", "a roof as the reports name it (present/roofs.roof_name): "
                                "`PRECISION UNIT [FMA] peak`, `sfu`, or `LEVEL bandwidth` with "
                                "the causes that lower it", pattern=roof_pattern()),
        "roof_or_null": {"anyOf": [{"$ref": "#/$defs/roof"}, {"type": "null"}],
                         "description": "a roof, or null while undecided"},
        "ledger": ledger(),
        "element_types": element_types(),
        "crossing": crossing(),
        "count": integer("a count"),
        "seconds": number("a time in s"),
    }
    return document("common", "kernelcost: definitions the command schemas share",
                    {"description": "Not a document of its own: the definitions the command "
                                    "schemas refer to."}, defs)
