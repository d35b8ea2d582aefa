"""The schemas of the documents that bound, rank and grade a kernel: bound
(present/bound_report.py, cli/bounds_cmd.py), tune (present/tune_report.py), validate
(present/report/validation.py, present/published_page.py), and of the error object any command
prints when it fails (base/errors.py). Built by tools/regen_schema.py."""

from __future__ import annotations

from schema_parts import (
    array,
    boolean,
    document,
    enum,
    integer,
    integer_or_null,
    local,
    mapping,
    nullable,
    number,
    number_or_null,
    obj,
    ref,
    text,
    text_or_null,
    texts,
)

from kernelcost.answers.lower import BOUND_LEVELS
from kernelcost.answers.ncu import Architecture as NcuArchitecture
from kernelcost.answers.published import Family, Split
from kernelcost.answers.published import Machine as CorpusMachine
from kernelcost.answers.published_report import Beaten
from kernelcost.answers.validate import COUNTERS
from kernelcost.base.error_codes import FAMILIES, Code, ErrorCode
from kernelcost.base.kinds import Raster

# --- bound ----------------------------------------------------------------------------------

def bound_schema() -> dict:
    expression = lambda meaning: ref("expression", meaning)  # noqa: E731
    return document("bound", "kernelcost bound --json", obj({
        "kernel": text("the kernel's name"),
        "file": text("the spec's path as given"),
        "level": {"enum": [str(level) for level in BOUND_LEVELS],
                  "description": "the fast memory bounded (bound --level)"},
        "S": text("the symbol of the fast memory's size, words"),
        "word_bytes": expression("bytes a word, B"),
        "statement": obj({
            "text": text("the statement doing the most work"),
            "line": integer("its line"),
            "points": expression("|Z|, the points of its nest"),
            "work": expression("its work, FLOP"),
            "loops": mapping(expression("the loop's extent"), "loop -> extent"),
        }, "the headline statement"),
        "program": obj({
            "text": text("the linear program, in words"),
            "exponent": expression("sigma, the HBL exponent"),
            "tile_exponents": mapping(expression("the tile's exponent of S"),
                                      "loop -> exponent"),
            "tile_ranges": mapping(array(expression("a bound of the exponent"),
                                         "[low, high]"), "loop -> the range of optima"),
            "weights": mapping(expression("the dual weight"), "projection -> weight"),
            "source": text("the HBL reference"),
        }, "the HBL linear program"),
        "q_lower": obj({
            "expr": expression("Q_lower, words"),
            "hbl": expression("the HBL term, words"),
            "tight": ref("expression_or_null", "the tight matrix-product term, words; null "
                                               "for other nests"),
            "compulsory": expression("each element outside the level once, words"),
            "leading": expression("the leading term as the sizes grow, words"),
            "unit": {"const": "words", "description": "the unit of the bounds above"},
            "constant_source": text("the reference of the constant"),
        }, "the least traffic any schedule moves"),
        "reference": nullable(obj({
            "expr": expression("the tight bound for matrix products, words"),
            "source": text("its reference"),
        }, "the reference bound"), "null for other nests"),
        "i_max": expression("the highest intensity any schedule reaches, FLOP/B"),
        "spec": obj({
            "level": nullable(ref("level"), "the level the spec's traffic comes from"),
            "traffic": ref("expression_or_null", "the spec's traffic into the level, B"),
            "gap": ref("expression_or_null", "the spec's traffic over Q_lower as the sizes "
                                             "grow"),
        }, "the spec as written"),
        "statements": array(obj({
            "text": text("the statement"),
            "line": integer("its line"),
            "exponent": expression("its HBL exponent"),
        }, "a statement"), "every statement doing work"),
        "machine": obj({
            "id": ref("machine_id"),
            "S_B": number("the fast memory's size on the machine, B"),
            "S_text": text("what S is made of"),
            "fed_by": ref("level", "whose bandwidth feeds the fast memory"),
            "ridge": number("P/B, FLOP/B"),
            "i_max": number("the highest intensity any schedule reaches there, FLOP/B"),
            "compute_bound_possible": boolean("i_max >= ridge"),
            "from_size": integer_or_null("every free size equal: compute-bound possible from "
                                         "here; null where never"),
            "gap": number_or_null("the spec's traffic over Q_lower, no unit; null where it "
                                  "keeps sizes"),
            "spec_below_bound_from": integer_or_null("every free size equal: from here the "
                                                     "spec's traffic is below Q_lower"),
        }, "with --machine: the bound on that machine"),
        "at_sizes": obj({
            "sizes": mapping(number("the size"), "size -> value"),
            "q_lower_B": number("Q_lower at the sizes, B"),
            "spec_B": number_or_null("the spec's traffic into the level, B"),
            "i_bound": number_or_null("W / Q_lower, FLOP/B; null where Q_lower is 0 B"),
        }, "with --machine and every size set: the bound in numbers"),
    }, "`bound --json`: the least traffic any schedule moves through a fast memory",
        optional=("machine", "at_sizes")))


# --- tune -----------------------------------------------------------------------------------

def _tune_row(description: str) -> dict:
    return obj({
        "values": mapping(integer("the value"), "each varied name -> its value"),
        "raster": enum("the raster order, where varied; null where not", Raster, null=True),
        "t_model_s": number_or_null("t_model at this configuration, as the analysis gives "
                                    "it, s; null where it was not re-scored"),
        "t_bound_s": number("t_bound from the vectorised search, s"),
        "analysis_t_bound_s": number_or_null("t_bound as the analysis gives it, s (equal "
                                             "to t_bound_s, or over it by a stream-K "
                                             "grid's fix-up, which the search leaves "
                                             "out); null where not re-scored"),
        "bound_by": text("what binds t_bound: HBM, L2, shared, tensor, vector or SFU"),
        "model_bound_by": text_or_null("the roof that binds t_model, with its derates"),
        "blocks": integer("thread blocks"),
        "resident_per_sm": integer("blocks an SM holds at once"),
        "waves": integer("ceil(blocks / (SMs x resident))"),
        "on_chip_B": number("shared memory and registers one block holds, B"),
        "shapes": array(obj({
            "t_model_s": number_or_null("t_model at the shape, s"),
            "t_bound_s": number("t_bound at the shape from the vectorised search, s"),
            "analysis_t_bound_s": number_or_null("t_bound at the shape as the analysis "
                                                 "gives it, s"),
        }, "one shape's times"), "with --shape: each shape's times, in the order given (the "
            "row's times are their sums; blocks, residency and waves the first shape's)"),
    }, description)


def tune_schema() -> dict:
    row = local("row")
    return document("tune", "kernelcost tune --json", obj({
        "kernel": text("the kernel's name"),
        "machine": ref("machine_id"),
        "parameters": texts("the varied names in the order given: sizes and schedule "
                            "settings (stages, threads, registers, cluster, group)"),
        "values": mapping(array(integer("a value"), "its values"),
                          "each varied name -> its values"),
        "rasters": array(enum("a raster order", Raster), "the raster orders varied, if any"),
        "fixed": mapping(number("the value"), "every parameter not varied -> its value "
                                              "(with --shape, the first shape's)"),
        "shapes": array(mapping(number("the value"), "a parameter -> its value"),
                        "with --shape: each shape's parameters not varied; empty without"),
        "candidates": integer("the combinations evaluated, each raster order one"),
        "points": integer("the numeric combinations the arrays held (candidates / raster "
                          "orders: t_bound does not depend on the raster)"),
        "fitting": integer("the candidates that fit"),
        "rejected": mapping(integer("how many"), "each reason -> the candidates it rejects"),
        "search_s": number("the vectorised evaluation and ranking by t_bound, s"),
        "rescored": integer("the candidates the analysis re-scored for t_model"),
        "rescore_s": number("the re-scoring, s"),
        "proven": boolean("whether the top is the top by t_model of every fitting candidate"),
        "top": array(row, "the best, by t_model then the tie rule"),
        "own": nullable(obj({"place": integer_or_null("its place among the re-scored"),
                             **_tune_row("")["properties"]},
                            "the spec's own configuration"),
                        "null where it is not a fitting candidate"),
        "pareto": array(obj({
            "values": mapping(integer("the value"), "each varied name -> its value"),
            "t_bound_s": number("t_bound, s"),
            "on_chip_B": number("bytes on chip, B"),
        }, "a candidate no other beats on both t_bound and bytes on chip"),
            "with --pareto: the Pareto set, fewest bytes first"),
    }, "`tune --json`: candidates, how many fit, the best ranked by t_model"),
        {"row": _tune_row("a candidate")})


# --- validate -------------------------------------------------------------------------------

def _results() -> dict:
    return obj({
        "machine": ref("machine_id"),
        "rows": array(obj({
            "line": integer("the CSV line"),
            "kernel": text("the kernel's name"),
            "spec": text("the spec's path"),
            "sizes": mapping(text("the size as the CSV gives it"), "size -> value"),
            "dtype": text("the element type measured"),
            "measured_s": number("the measured time, s"),
            "t_floor": number_or_null("t_floor, s"),
            "t_bound": number_or_null("t_bound, s; null where the spec does not run"),
            "t_model": number_or_null("t_model, s"),
            "bound": ref("roof_or_null"),
            "roof_fraction": number_or_null("t_bound over measured"),
            "model_error": number_or_null("(t_model - measured) / measured"),
            "falsified": boolean("true where the run beat t_bound"),
            "counters": {"type": "object", "description": "counter -> predicted and measured",
                         "propertyNames": {"enum": list(COUNTERS)},
                         "additionalProperties": obj({
                             "predicted": number("the spec's count, FLOP or B"),
                             "model": number_or_null("t_model's count, B"),
                             "measured": number("the counter, FLOP or B"),
                             "ratio": number_or_null("measured over predicted"),
                         }, "a counter")},
            "notes": texts("the sizes' warnings and the verdict's notes"),
            "ledger": nullable(ref("ledger"), "null where there is none"),
        }, "a measured run against its prediction"), "one per CSV row"),
        "falsified": integer("rows falsified"),
    }, "`validate RESULTS.csv --machine ID --json`")


def _published() -> dict:
    times = "; null where the spec does not run there"
    return obj({
        "rows": array(obj({
            "source": text("the source of the row"),
            "line": integer("its line in the corpus"),
            "machine": enum("the machine", CorpusMachine),
            "family": enum("the kernel family", Family),
            "split": enum("calibration or validation", Split),
            "sizes": mapping(text("the size as the corpus gives it"), "size -> value"),
            "t_floor_s": number_or_null(f"t_floor, s{times}"),
            "t_bound_s": number_or_null(f"t_bound, s{times}"),
            "t_model_s": number_or_null(f"t_model, s{times}"),
            "cold_start_s": number_or_null("the machine's cold start where the row was timed "
                                           "alone after an L2 flush, s"),
            "measured_s": number("the published time, s"),
            "error": number_or_null("(t_model + cold - measured) / measured"),
            "floor_beaten": boolean("true where the run beat t_floor"),
            "bound_beaten": boolean("true where the run beat t_bound"),
            "reason": enum("why it beat t_bound, from the fixed list", Beaten, null=True),
        }, "a published run"), "the corpus's rows"),
        "summaries": array(obj({
            "split": enum("the split", Split),
            "family": enum("the family; null for the whole split", Family, null=True),
            "rows": integer("rows"),
            "median_abs_error": number_or_null("median |error|"),
            "p90_abs_error": number_or_null("90th percentile |error|"),
            "geomean_measured_over_model": number_or_null("geometric mean of measured over "
                                                          "t_model + cold"),
        }, "a summary"), "per split and family"),
        "figure": text("with --figure: its path"),
    }, "`validate --published --json`", optional=("figure",))


def _ncu() -> dict:
    return obj({
        "profile": text("the export's path"),
        "architecture": enum("the architecture the export was profiled on", NcuArchitecture),
        "launches": integer("kernel launches in the export"),
        "kernels": texts("the kernels' names"),
        "duration_s": number_or_null("the launches' summed duration, s; null where a launch "
                                     "lacks it"),
        "levels": array(obj({
            "name": text("a memory level's traffic or `tensor work`"),
            "unit": {"enum": ["B", "FLOP"], "description": "the unit of predicted and "
                                                           "measured"},
            "predicted": number_or_null("the spec's count at the sizes, in unit"),
            "measured": number_or_null("the counters' sum, in unit; null where no counter "
                                       "measures it"),
            "ratio": number_or_null("measured over predicted"),
            "metrics": texts("the metrics summed"),
            "peak_FLOPps": number_or_null("W from the tensor pipe's utilisation: the tensor "
                                          "peak it is scaled by, FLOP/s; else null"),
            "how": text("which metrics, and how they became FLOP"),
        }, "a level's or the work's prediction against the counters"), "a row a level"),
    }, "`validate --ncu EXPORT.csv --spec SPEC --machine ID --json`")


def validate_schema() -> dict:
    return document("validate", "kernelcost validate --json", {
        "description": "`validate --json`: measured runs against their predictions, from a "
                       "results CSV, (--published) the published corpus, or (--ncu) an Nsight "
                       "Compute export",
        "oneOf": [local("results"), local("published"), local("ncu")]},
        {"results": _results(), "published": _published(), "ncu": _ncu()})


# --- the error object -------------------------------------------------------------------------

def error_schema() -> dict:
    codes = sorted(str(code) for code in vars(Code).values() if isinstance(code, ErrorCode))
    place = nullable(obj({
        "file": text_or_null("the file, or the option (`--set`)"),
        "line": integer("line, from 1", minimum=1),
        "column": integer("column, from 1", minimum=1),
        "end_line": integer("last line", minimum=1),
        "end_column": integer("column after the last character", minimum=1),
    }, "where the error is"), "null where it has no place")
    diagnostic = {
        "code": local("code", "the stable code (docs/errors.md)"),
        "message": text("what is wrong"),
        "hint": text_or_null("what to do"),
        "place": place,
    }
    return document("error", "kernelcost --json: the error object", obj({
        "error": obj({
            **diagnostic,
            "family": {"enum": [name for name, _ in FAMILIES.values()],
                       "description": "the code's family (its first digit)"},
            "summary": text("the code's one-line summary"),
            "exit_code": {"enum": [2, 3], "description": "2 bad input, 3 a bug"},
            "diagnostics": array(obj(diagnostic, "one diagnostic"), "every diagnostic, the "
                                                                    "first as above"),
        }, "the first diagnostic's fields, then all"),
    }, "what any command prints on stdout under --json when it fails"),
        {"code": {"enum": codes, "description": "a stable code (base.error_codes, "
                                                "docs/errors.md)"}})
