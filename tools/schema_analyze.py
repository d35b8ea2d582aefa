"""The schemas of `analyze --json` and `solve --json`, from the writers that make them:
present/report/spec_report.py, verdict_report.py, grid.py, times.py, precision.py and
solve_report.py. Built by tools/regen_schema.py."""

from __future__ import annotations

from schema_common import condition
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
    quantities,
    ref,
    text,
    text_or_null,
    texts,
    typed,
    values,
)

from kernelcost.answers.capacity import Held
from kernelcost.answers.efficiency import Metric
from kernelcost.base.kinds import Side
from kernelcost.base.levels import Level
from kernelcost.gpu.support import Lack


def _quantity(meaning: str) -> dict:
    return ref("quantity", f"{meaning}; null where it stays symbolic or is infinite")


# --- analyze --------------------------------------------------------------------------------

def _closed_form(meaning: str, unit: str, **more: dict) -> dict:
    """spec_report._quantity_json: the closed form, its value and its leading term, and the
    keys `more` adds."""
    return obj({"expr": ref("expression", f"{meaning}, {unit}, in closed form"),
                "value": _quantity(f"{meaning} at the sizes set, {unit}"),
                "leading": ref("expression_or_null", f"the leading term as the sizes grow, "
                                                     f"{unit}; null where the form keeps a Sum "
                                                     "(a count closed only at numeric tiles)"),
                **more}, f"{meaning}, {unit}")


def _intensity() -> dict:
    return _closed_form(
        "I = W / Q at this level", "FLOP/B",
        limit=ref("expression_or_null", "I as every size without a default grows together; "
                                        "null where it grows without bound or is unknown"),
        limit_infinite=boolean("true where I grows without bound (limit is then null)"),
        limits=mapping(ref("expression_or_null"), "size -> I as that size alone grows (null "
                                                  "where it grows without bound)"),
        limits_infinite=texts("the sizes alone in which I grows without bound"),
        limit_at_sizes=ref("expression_or_null", "I as the sizes left unset grow, the others "
                                                 "at their values; null where none is set or "
                                                 "none is left"),
        growing_at_sizes=texts("the sizes left unset, which limit_at_sizes lets grow"))


def _verified() -> dict:
    return nullable(obj({
        "samples": integer("small size assignments compared"),
        "agree": typed(["boolean", "null"], "true, false at the first that disagrees, null "
                                            "when none was compared"),
        "skipped": text_or_null("why it stopped early or did not run, else null"),
        "failed_at": typed(["object", "null"], "size -> value where agree is false, else null",
                           additionalProperties={"type": "integer"}),
        "mismatches": texts("the forms that disagree there, as text"),
    }, "the closed forms against enumeration at small sizes"), "null with --no-verify")


def _transfer() -> dict:
    found = obj({
        "access": text("the access as written in the spec"),
        "tensor": text("the tensor accessed"),
        "write": boolean("true for a write"),
        "level": enum("where the access goes", Level),
        "warp_instructions": _quantity("warp instructions of the access"),
        "useful_B": _quantity("the bytes the kernel uses, B"),
        "sectors_per_warp": integer("global: 32-byte sectors one warp instruction touches"),
        "l1_l2_B": _quantity("global: bytes between L1 and L2, B"),
        "ratio": _quantity("global: l1_l2_B over useful_B"),
        "wavefronts_per_warp": integer("shared: wavefronts one warp instruction takes"),
        "bank_conflict_degree": _quantity("shared: the bank-conflict degree"),
    }, "one `lanes` access", optional=("sectors_per_warp", "l1_l2_B", "ratio",
                                       "wavefronts_per_warp", "bank_conflict_degree"))
    found["oneOf"] = [{"required": ["sectors_per_warp", "l1_l2_B", "ratio"]},
                      {"required": ["wavefronts_per_warp", "bank_conflict_degree"]}]
    return found


def _grid() -> dict:
    count = "; null while symbolic"
    return nullable(obj({
        "blocks": integer_or_null(f"blocks of the grid{count}"),
        "sm_count": integer("SMs of the machine"),
        "resident_per_sm": integer_or_null(f"blocks resident on an SM at once{count}"),
        "limited_by": nullable(ref("limiter"), "what sets resident_per_sm; null while "
                                               "undecided"),
        "busiest_sm_blocks": integer_or_null(f"blocks the busiest SM runs{count}"),
        "waves": integer_or_null(f"waves of resident blocks{count}"),
        "wave_efficiency": number_or_null("blocks over wave slots, 0 to 1; null while "
                                          "symbolic"),
        "tail_share": number_or_null("the share of t_bound quantisation adds, 0 to 1; null "
                                     "while symbolic"),
        "equal_blocks": boolean("true where every block does the same work"),
        "bound": ref("roof_or_null", "what binds t_bound on the grid"),
        "model_bound": ref("roof_or_null", "what binds t_model"),
        "model_rule": text("how t_model counted global traffic, in words"),
        "model_detail": text("the wave estimate's figures, in words"),
        "missing_figures": array(ref("missing_figure"), "machine figures absent that would "
                                                        "limit residency"),
        "latency_unknown": array(ref("level"), "levels whose load latency the machine file "
                                               "does not cite"),
        "transfers": array(local("transfer"), "the `lanes` accesses"),
        "compulsory_floor": boolean("true where t_model's global bytes were raised to "
                                    "t_bound's compulsory bytes"),
        "fill": nullable(obj({
            "blocks": integer("blocks of the grid"),
            "sm_count": integer("SMs of the machine"),
            "share": number("blocks over SMs, 0 to 1"),
            "fill_factor": integer("how many times the blocks would fill the machine"),
            "binds": boolean("true where a per-SM roof binds on the busiest SM alone"),
            "split_iterator": text_or_null("the sequential loop a split-K would split"),
            "tile_iterators": texts("the tile loops smaller tiles would multiply"),
        }, "a grid of fewer blocks than SMs"), "null where the grid fills the SMs"),
        "fallbacks": texts("figures bounded where the blocks fall into no classes"),
        "stream_k": obj({
            "tiles": integer("output tiles"),
            "k_steps_per_tile": integer("k-steps of one tile"),
            "workers": integer("persistent workers that get k-steps"),
            "busiest_worker_k_steps": integer("k-steps of the busiest worker: ceil(tiles x "
                                              "k_steps_per_tile / workers)"),
            "partial_tiles": integer("fp32 partial tiles of the fix-up: over the tiles, the "
                                     "workers on each less one"),
            "fixup_B": integer("global bytes of the fix-up: each partial tile written and "
                               "read once"),
        }, "a stream-K grid's schedule (gpu/stream_split.py)"),
    }, "the execution model of a parallel spec", optional=("fallbacks", "stream_k")),
        "null for a sequential spec")


def _verdict() -> dict:
    return obj({
        "machine": ref("machine_id"),
        "precision": ref("precision"),
        "level": ref("level", "the memory level of this row"),
        **quantities(ridge="the level's ridge P/B, FLOP/B",
                     ratio="I over the ridge, no unit",
                     t_min="the kernel's t_min at the figures as given, s",
                     performance="the attainable rate at this level, FLOP/s"),
        "regime": nullable(ref("regime"), "the level's side of its ridge; null while "
                                          "undecided"),
        "bound": ref("roof_or_null", "the roof that binds the kernel's t_min"),
        "derates": array(obj({
            "cause": ref("effect_cause"),
            "key": nullable(ref("term_key"), "the term it scales; null: the call around "
                                             "the kernel"),
            "factor": ref("number", "the fraction of the roof's rate kept, in (0, 1]"),
            "detail": text("the derate in words"),
        }, "what lowers a roof (t_model only)"), "the derates, in order"),
        "t_floor": _quantity("what no implementation beats, s"),
        "t_bound": _quantity("this schedule's lower bound, s; null where it does not fit or "
                             "run"),
        "t_model": _quantity("the estimate, s; null where it does not fit or run"),
        "misfits": array(obj({
            "level": ref("limiter", "what is outgrown"),
            "needed": _quantity("what the kernel needs, in unit"),
            "capacity": _quantity("what the machine has, in unit"),
            "per": ref("per", "what the need and the capacity are counted per"),
            "unit": ref("misfit_unit"),
        }, "a block, keep or tensor that outgrows its level"), "what does not fit"),
        "unsupported": array(obj({
            "needs": text("the architecture, feature or level the spec needs"),
            "lack": enum("how the machine lacks it (gpu.support.Lack)", Lack),
            "machine_architecture": text_or_null("the machine's architecture"),
            "source": text_or_null("where the machine file states it"),
        }, "a requirement the machine does not meet"), "why the machine does not run the "
                                                       "spec"),
        "ledger": nullable(ref("ledger"), "null where there is no ledger"),
        "grid": _grid(),
    }, "one machine x precision x memory level")


def _warm_l2() -> dict:
    return nullable(obj({
        "tensors": texts("the tensors the previous kernel left in L2"),
        **quantities(read_B="their compulsory reads, B"),
        "capacity_B": ref("number", "the machine's L2, B"),
        "usable_B": ref("number", "the L2 usable for shared data, B"),
        "fits": typed(["boolean", "null"], "whether the warm bytes fit usable L2; null "
                                           "while symbolic"),
        **quantities(t_bound_from_l2_B="bytes t_bound reads from L2, B",
                     t_model_from_l2_B="bytes t_model reads from L2, B"),
        "l2_bandwidth_Bps": ref("number", "L2 bandwidth, B/s"),
        "global_bandwidth_Bps": ref("number", "global bandwidth, B/s"),
        "detail": text("the warm state in words"),
    }, "the stated initial state of L2 (--warm-l2)"), "null without --warm-l2")


def _answer() -> dict:
    return obj({
        "machine": ref("machine_id"),
        "precision": ref("precision"),
        "sentence": text("the verdict in one sentence"),
        **quantities(t_min="the chapter's roofline time at the figures as given, s (null "
                           "where the machine does not run the spec)",
                     t_bound="this schedule's lower bound at the maximum clock, s",
                     t_floor="what no implementation beats, s",
                     t_model="the estimate, s",
                     t_min_with_launch="t_min plus the machine's launch overhead, s"),
        "bound_at_max_clock": ref("roof_or_null", "the term that sets t_bound"),
        "terms": array(obj({
            "name": ref("roof"),
            "kind": ref("term_kind"),
            "key": ref("term_key"),
            **quantities(seconds="the term's time, s"),
        }, "a time term of t_min"), "the terms of t_min"),
        "floor_terms": array(obj({
            "kind": ref("term_kind"),
            "key": ref("term_key"),
            "units": array(ref("roof"), "the roofs the term may use"),
            **quantities(amount="the work (FLOP) or compulsory bytes (B)",
                         rate="the rate it meets, FLOP/s or B/s",
                         seconds="amount over rate, s"),
        }, "a term of t_floor"), "the terms of t_floor"),
        "exp_on_fma": nullable(obj({
            "fraction": number("the fraction of exponentials on the FMA units"),
            "k": integer("the polynomial's degree"),
            "vector_FLOP_per_exp": integer("vector FLOP an exponential costs there"),
        }, "--exp-on-fma"), "null without --exp-on-fma"),
        "warm_l2": _warm_l2(),
        "rate": nullable(obj({
            "item": text("what is counted (`token`)"),
            "unit": text("items a second (`tokens/s`)"),
            **quantities(count="items a run", per_s="items a second at t_min, 1/s",
                         per_s_with_launch="items a second with the launch overhead, 1/s"),
        }, "items a second (`per token = b`)"), "null where the spec counts no item"),
        "element_types": nullable(ref("element_types"), "null at the spec's own precision"),
        "bound": ref("roof_or_null", "the roof that binds t_min"),
        "regime": nullable(ref("regime"), "the verdict; null while symbolic or where "
                                          "nothing runs"),
        "crossings": array(ref("crossing"), "one per roof level, where one size is left free"),
        "fits": array(obj({
            "scope": integer("the keep scope's index"),
            "level": ref("level"),
            **quantities(held_B="the bytes the scope holds, B"),
            "capacity_B": ref("number", "the level's capacity, B"),
            "per": ref("per", "what the capacity covers"),
            "fits": typed(["boolean", "null"], "whether it fits; null while symbolic"),
        }, "a keep scope against its level's capacity"), "the keep scopes' fits"),
        "efficiency": nullable(obj({
            "regime": ref("regime"),
            "metric": enum("the rate's unit (answers.efficiency.Metric)", Metric),
            "achieved": number("the measured rate, in metric"),
            "roof": number("the roof's rate, in metric"),
            "fraction": number("achieved over roof"),
            "text": text("in words"),
        }, "a measurement against its roof (--measured)"), "null without --measured"),
    }, "one machine x precision")


def analyze_schema() -> dict:
    machines_only = ("verdicts", "answers", "dropped_machines")
    body = obj({
        "kernel": text("the kernel's name"),
        "spec": text("the spec's path as given"),
        "reuse": ref("reuse"),
        "parameters": mapping(ref("quantity", "the size's value; null while symbolic"),
                              "size -> its value (a size, no unit)"),
        "settings": mapping(ref("expression"), "size -> the expression --set gave it"),
        "precision": ref("precision", "the precision the spec computes in"),
        "element_types": nullable(ref("element_types"), "null at the spec's own precision"),
        "exact": boolean("false when a footprint is a bounding box (traffic is then an upper "
                         "bound)"),
        "closed_form": boolean("false when a sum stayed unevaluated (still exact)"),
        "warnings": texts("assumptions the sizes break, values not proved to be sizes, numbers "
                          "written as exact text"),
        "verified": _verified(),
        "work": _closed_form("W, the work", "FLOP", by_class=mapping(
            _closed_form("W of a class", "FLOP"), "work class -> W of that class",
            propertyNames=ref("work_class"))),
        "traffic": mapping(_closed_form("Q, the traffic", "B"), "level -> Q, the bytes moved "
                                                                "there",
                           propertyNames=ref("level")),
        "intensity": mapping(_intensity(), "level -> I, the intensity there",
                             propertyNames=ref("level")),
        "footprints": mapping(obj({
            "read_elements": ref("expression", "distinct elements read"),
            "write_elements": ref("expression", "distinct elements written"),
            "exact": boolean("false for a bounding box"),
        }, "a tensor's footprint"), "tensor -> its footprint, in elements"),
        "scopes": array(obj({
            "index": integer("the keep scope's index"),
            "level": ref("level"),
            "tensors": texts("the tensors it keeps"),
            "entries": ref("expression", "how many times it is entered"),
            "held_bytes": ref("expression", "bytes it holds at its first entry, B"),
            "exact": boolean("false for a bounding box"),
        }, "a keep scope"), "the keep scopes"),
        "verdicts": array(local("verdict"), "with --machine: one per machine x precision x "
                                            "level"),
        "answers": array(local("answer"), "with --machine: one per machine x precision"),
        "dropped_machines": local("dropped_machines", "with --machine: the built-in machines "
                                                      "`--machine all` left out"),
    }, "`analyze --json`: closed forms, values and, with --machine, verdicts",
        optional=machines_only)
    body["dependentRequired"] = {key: [k for k in machines_only if k != key]
                                 for key in machines_only}
    return document("analyze", "kernelcost analyze --json", body, {
        "verdict": _verdict(), "answer": _answer(), "transfer": _transfer(),
        "dropped_machines": dropped_machines()})


def dropped_machines() -> dict:
    return array(obj({
        "machine": ref("machine_id"),
        "name": text("the machine's name"),
        "missing": array(ref("precision"), "the precisions it has no peak for"),
    }, "a machine `--machine all` left out"), "the built-in machines `--machine all` left "
                                              "out for lacking a precision asked for")


# --- solve ----------------------------------------------------------------------------------

def _capacity() -> dict:
    return obj({
        "machine": ref("machine_id"),
        "what": text("what holds the bytes: `keep scope N (A, B)`, `tensors in LEVEL`, "
                     "`working set` (answers.capacity.Held: "
                     + ", ".join(values(Held)) + ")"),
        "level": ref("level"),
        "parameter": text("the size solved for"),
        "held_B": ref("expression", "the bytes held, B"),
        "capacity_B": ref("number", "the level's capacity, B"),
        "capacity_per": ref("per"),
        **quantities(value="the size at which the bytes held reach the capacity"),
        "expr": ref("expression_or_null", "the crossing in closed form in capacity_B"),
        **condition("where the closed form holds"),
        "exceeds_side": enum("the sizes on which side of value exceed the capacity; null "
                             "without a crossing", Side, null=True),
        "fits_everywhere": typed(["boolean", "null"], "true or false where it fits at every "
                                                      "size or at none; null otherwise"),
    }, "where the bytes held reach a level's capacity")


def solve_schema() -> dict:
    return document("solve", "kernelcost solve --json", obj({
        "kernel": text("the kernel's name"),
        "parameter": text("the size solved for"),
        "settings": mapping(ref("expression"), "size -> the expression --set gave it"),
        "crossings": array(ref("crossing"), "each roof level's crossing, defaults kept "
                                            "symbolic"),
        "crossings_at_defaults": array(ref("crossing"), "the same with the defaults put in "
                                                        "([] where none is left)"),
        "capacity": array(local("capacity"), "where tiles or the working set reach a "
                                             "capacity"),
        "capacity_at_defaults": array(local("capacity"), "the same with the defaults put in"),
        "dropped_machines": dropped_machines(),
    }, "`solve --json`: where the kernel crosses each ridge and capacity"),
        {"capacity": _capacity()})
