"""The schemas of the machines and model commands' `--json` documents, from the writers that
make them: machines (present/report/machine_tables.py), model (present/wholemodel_report.py).
The other commands' are in schema_analyze.py and schema_graded.py. Built by
tools/regen_schema.py."""

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
    typed,
)

from kernelcost.answers.collectives import Algorithm, Collective, Protocol
from kernelcost.answers.composition import KernelKind, Phase
from kernelcost.answers.tensor_parallel import CollectiveName
from kernelcost.base.architectures import Feature, MmaPath
from kernelcost.base.kinds import Inputs, LaunchMode, Precision, Unit, WorkClass
from kernelcost.base.levels import Level
from kernelcost.hardware.machine import UNKNOWN_BANDWIDTH
from kernelcost.hardware.resources import EXECUTION_FIGURES, execution_source_key
from kernelcost.hardware.topology import Fabric

# --- machines -------------------------------------------------------------------------------

def _machine() -> dict:
    execution = {}
    for key, kind in EXECUTION_FIGURES.items():
        execution[key] = typed("integer" if kind is int else "number", f"the figure `{key}`")
        execution[execution_source_key(key)] = text(f"where `{key}` comes from")
    features = {}
    for feature in Feature:
        features[str(feature)] = boolean(f"whether the machine has {feature}")
        features[f"{feature}_source"] = text(f"where {feature} is stated")
    return obj({
        "id": ref("machine_id"),
        "name": text("the machine's name"),
        "vendor": text("the vendor"),
        "device": obj({
            "sm_count": integer("SMs (AMD: compute units)"),
            "source": text("where sm_count comes from"),
            "max_clock_Hz": number("the maximum clock, Hz"),
            "max_clock_source": text("where max_clock_Hz comes from"),
            "architecture": text("the architecture (sm_90a, gfx942)"),
            "architecture_source": text("where the architecture is stated"),
        }, "the device", optional=("max_clock_Hz", "max_clock_source", "architecture",
                                   "architecture_source")),
        "launch": obj({
            "launch_overhead_s": number("the launch overhead, s"),
            "mode": enum("how it was measured (base.kinds.LaunchMode)", LaunchMode),
            "source": text("where it comes from"),
            "cold_start_s": number("the cold start, s"),
            "cold_start_source": text("where cold_start_s comes from"),
        }, "the launch overhead", optional=("mode", "cold_start_s", "cold_start_source")),
        "sfu": obj({
            "peak_OPps": number("special-function operations a second, 1/s"),
            "source": text("where it comes from"),
            "OP_per_clock_per_sm": number("operations a clock per SM"),
            "per_clock_source": text("where OP_per_clock_per_sm comes from"),
        }, "the special-function rate", optional=("OP_per_clock_per_sm", "per_clock_source")),
        "compute": array(obj({
            "precision": enum("the precision", Precision),
            "unit": enum("the units (base.kinds.Unit)", Unit),
            "sparse": boolean("true for a 2:4 sparse peak"),
            "peak_FLOPps": number("the peak, FLOP/s"),
            "source": text("where it comes from"),
            "FLOP_per_clock_per_sm": number("FLOP a clock per SM"),
            "per_clock_source": text("where FLOP_per_clock_per_sm comes from"),
        }, "a compute peak", optional=("FLOP_per_clock_per_sm", "per_clock_source")),
            "the compute peaks"),
        "memory": array(obj({
            "level": ref("level"),
            "technology": text("HBM3, ..."),
            "bandwidth_Bps": {"anyOf": [{"type": "number"}, {"const": UNKNOWN_BANDWIDTH}],
                              "description": "the bandwidth, B/s, or `unknown` as the machine "
                                             "file writes a bandwidth no public figure gives"},
            "bandwidth_source": text("where the bandwidth comes from"),
            "capacity_B": number("the capacity, B"),
            "capacity_per": ref("per"),
            "capacity_source": text("where the capacity comes from"),
            "B_per_clock_per_sm": number("bytes a clock per SM"),
            "per_clock_source": text("where B_per_clock_per_sm comes from"),
        }, "a memory level", optional=("technology", "capacity_B", "capacity_per",
                                       "capacity_source", "B_per_clock_per_sm",
                                       "per_clock_source")), "the memory levels"),
        "features": obj(features, "the hardware features the file states, each with its "
                                  "source", optional=tuple(features)),
        "execution": obj(execution, "the execution figures the file gives, each with its "
                                    "source", optional=tuple(execution)),
        "latency": array(obj({
            "level": ref("level"),
            "cycles": number("load-to-use latency, core cycles"),
            "clock_Hz": number("the clock of the measurement, Hz"),
            "measured_on": text_or_null("the part measured"),
            "source": text("where it comes from"),
        }, "a measured latency"), "the load latencies"),
        "achievable": array(obj({
            "roof": enum("the term whose rate it scales: a work class or a memory level",
                         WorkClass, Level),
            "path": enum("tensor: the MMA issue path (base.architectures.MmaPath)", MmaPath),
            "inputs": enum("what the operands held where it was measured (base.kinds.Inputs)",
                           Inputs),
            "fraction": number("of the roof's figure, in (0, 1]"),
            "source": text("where it comes from"),
        }, "an achievable fraction", optional=("path", "inputs")), "the achievable fractions"),
    }, "a machine in the layout of its TOML file; absent figures are left out",
        optional=("launch", "sfu", "features", "execution", "latency", "achievable"))


def machines_schema() -> dict:
    return document("machines", "kernelcost machines --json", {
        "description": "`machines --json`: every machine as a list; `machines ID --json`: "
                       "that machine",
        "anyOf": [local("machine"), array(local("machine"), "every machine")]},
        {"machine": _machine()})


# --- model ----------------------------------------------------------------------------------

def _step() -> dict:
    return obj({
        "phase": enum("the step (answers.composition.Phase)", Phase),
        "batch": integer("sequences in the step"),
        "context": integer("tokens in the KV cache (decode) or of each prefill"),
        "tokens": integer("tokens the step produces or reads"),
        "W": number("work, FLOP"),
        "Q": number("global traffic, B"),
        "t_bound": number("the step's t_bound, s"),
        "t_model": number("the step's t_model, s"),
        "binding": ref("roof", "what binds the step"),
        "launches": integer("kernel launches"),
        "launch_overhead": number("launches x the launch overhead, s"),
        "tokens_per_s": number("tokens a second at t_bound, 1/s"),
        "tokens_per_s_with_launch": number("tokens a second with the launch overhead, 1/s"),
        "kernels": array(obj({
            "kernel": text("the kernel's name in the model"),
            "kind": enum("what it does (answers.composition.KernelKind)", KernelKind),
            "spec": text("the spec that counts it"),
            "sizes": mapping(number("the size (a mixture's expected tokens per expert may be "
                                    "fractional)"), "size -> value"),
            "copies": number("copies of the kernel a step runs"),
            "launches": integer("launches"),
            "W": number("work, FLOP"),
            "Q": number("global traffic, B"),
            "I": number("intensity, FLOP/B"),
            "t_bound": number("t_bound, s"),
            "t_model": number("t_model, s"),
            "bound": ref("roof"),
            "t_model_from": text("the spec whose estimate t_model takes"),
        }, "a kernel of the step"), "the step's kernels"),
    }, "a decode step or a prefill")


def _model_crossing() -> dict:
    return obj({
        "context": integer("tokens in the KV cache"),
        "ridge": number("the machine's ridge, FLOP/B"),
        "limit": number("W/Q as the batch grows without bound, FLOP/B"),
        "batch": integer_or_null("the smallest batch at or past the ridge; null where none "
                                 "is (batch_never)"),
        "batch_never": boolean("true where no batch reaches the ridge"),
        "root": number_or_null("the real batch where W/Q equals the ridge; null where none"),
    }, "where a decode step's intensity meets the ridge as the batch grows")


def _quantisation() -> dict:
    return obj({
        "weights": {"enum": ["bf16", "fp8", "int8", "int4"],
                    "description": "the weights' precision (--weights)"},
        "activations": {"enum": ["bf16", "fp8"],
                        "description": "the activations' precision (--activations)"},
        "kv_cache": {"enum": ["bf16", "fp8", "int8"],
                     "description": "the KV cache's precision (--kv-cache)"},
        "group_size": integer("int8 and int4 weights sharing one scale (--group-size)"),
    }, "the precisions the model is served at")


def model_schema() -> dict:
    return document("model", "kernelcost model --json", {"oneOf": [obj({
        "model": text("the model's name"),
        "params": integer("parameters"),
        "machine": ref("machine_id"),
        "gpus": integer("GPUs of tensor parallelism; figures are per GPU"),
        "context": integer("tokens in the KV cache at decode, and of each prefill"),
        "decode": array(local("step"), "a decode step per batch"),
        "prefill": array(local("step"), "a prefill per batch"),
        "latency": array(obj({
            "batch": integer("sequences"),
            "ttft_bound": number("the prefill's t_bound, s"),
            "ttft": number("time to first token: the batch's prompts prefilled together, "
                           "t_model with the launches, s"),
            "tpot_bound": number("the decode step's t_bound, s"),
            "tpot": number("time per output token: a decode step's t_model with the "
                           "launches, s"),
            "ttft_launch": number("of ttft, the launches' time (eager: each kernel's), s"),
            "tpot_launch": number("of tpot, the launches' time (eager: each kernel's; "
                                  "graphs: one graph launch and the gaps inside it), s"),
        }, "a batch's serving figures"), "per batch, as decode and prefill"),
        "crossing": local("crossing", "with the KV cache"),
        "weights_crossing": local("crossing", "the weights alone"),
        "quantisation": _quantisation(),
        "memory": obj({
            "gpus": integer("GPUs"),
            "capacity_B": number_or_null("HBM per GPU, B; null where the machine file gives "
                                         "none"),
            "fraction": number("the share of HBM the weights and KV cache may take "
                               "(--memory-fraction)"),
            "usable_B": number_or_null("capacity_B x fraction, B; null without a capacity"),
            "weights_B": number("weights per GPU, B"),
            "kv_per_sequence_B": number("KV cache per sequence per GPU, B"),
            "weights_fit": typed(["boolean", "null"], "whether the weights fit; null without "
                                                      "a capacity"),
            "max_batch": integer_or_null("the most sequences whose KV cache fits beside the "
                                         "weights in usable_B; null without a capacity"),
            "warnings": texts("what does not fit"),
        }, "weights and KV cache against HBM"),
        "collectives": nullable(local("parallel"), "tensor parallelism's collectives on the "
                                                    "GPUs' topology; null on one GPU or where "
                                                    "no topology joins the machine's GPUs"),
        "launch": obj({
            "mode": {"enum": ["eager", "graphs"],
                     "description": "how a decode step launches its kernels (--launch); the "
                                    "prefill is launched eager in both"},
            "launch_overhead_s": number_or_null("one launch, the machine file's, s"),
            "launch_source": text_or_null("the machine file's source of it"),
            "graph_kernel_gap_s": number_or_null("graphs: the gap a kernel pays inside the "
                                                 "graph, s; null eager"),
            "graph_kernel_gap_source": text_or_null("its source; null eager"),
        }, "the launches, kept apart from the kernels' time (answers/launch_cost.py)"),
        "chunk": nullable(obj({
            "tokens": integer("tokens a prefill step takes (--chunk)"),
            "batches": array(obj({
                "batch": integer("sequences"),
                "steps": integer("steps of the batch's prefill: ceil(batch x context / "
                                 "tokens)"),
                "shapes": array(obj({
                    "count": integer("steps of this shape"),
                    "tokens": integer("tokens of one such step"),
                    "segments": array(obj({
                        "prefix": integer("the prompt's tokens cached before the step"),
                        "tokens": integer("its tokens in the step"),
                    }, "one prompt's part of the step"), "the step's prompts, in order"),
                    "t_bound": number("one such step's t_bound, s"),
                    "t_model": number("one such step's t_model, s"),
                    "launch": number("one such step's launches, s"),
                }, "steps that cost the same"), "the steps by shape"),
            }, "a batch's chunked prefill"), "per batch"),
        }, "the chunked prefill (answers/chunked.py)"), "null without --chunk"),
        "notes": texts("what the model leaves out and how t_model is taken"),
    }, "`model --json`: a transformer's decode steps and prefills (SI base units)"),
        _grid()]},
        {"step": _step(), "crossing": _model_crossing(), "parallel": _parallel(),
         "step_collectives": _step_collectives()})


def _grid() -> dict:
    return obj({
        "model": text("the model's name"),
        "machine": ref("machine_id"),
        "batch": array(integer("sequences"), "the grid's batches (--batch)"),
        "context": array(integer("tokens"), "its contexts (--context)"),
        "tp": array(integer("GPUs"), "its tensor parallelism (--tp)"),
        "pp": integer("pipeline stages (--pp)"),
        "points": integer("batches x contexts x tp: the CSV's rows"),
        "quantisation": _quantisation(),
        "launch": {"enum": ["eager", "graphs"],
                   "description": "how a decode step launches its kernels (--launch)"},
        "memory_fraction": number("the share of HBM the weights and KV cache may take"),
        "usable_B": number_or_null("HBM x memory_fraction a GPU, B; null without a capacity"),
        "fitting_points": integer_or_null("points whose weights and KV cache fit usable_B; "
                                          "null without a capacity"),
        "t_model_points": integer("points where TPOT and TTFT (t_model) are both given"),
        "tiled_points": integer("points where a GEMM takes gemm_hopper's estimate"),
        "tiled_shapes": integer("distinct GEMM shapes that take gemm_hopper's estimate"),
        "tiled_from_analysis": boolean("whether the analysis gave their t_model (few "
                                       "shapes); false: t_model is not given there"),
        "figures": text("which figure the grid gives, and where t_model is left out"),
        "columns": array(obj({"name": text("the CSV column"), "meaning": text("what it holds")},
                             "a column of the CSV"), "the CSV's columns, in order"),
        "best": nullable(obj({
            "tp": integer("GPUs"), "batch": integer("sequences"), "context": integer("tokens"),
            "tokens_per_s": number("output tokens a second: batch / tpot_s"),
            "tpot_s": number("time per output token, s"),
            "ttft_s": number_or_null("time to first token, s; null where not given"),
        }, "the point of most output tokens a second"), "among the points that fit, TPOT "
                                                        "given; null where none"),
    }, "`model --grid CSV --json`: what the grid holds and which figure it gives (the "
       "figures themselves in the CSV, answers/model_grid.py)")


def _parallel() -> dict:
    return obj({
        "topology": text("the topology's id"),
        "name": text("the system's name"),
        "gpus": integer("GPUs in all: tp x stages"),
        "tp": integer("GPUs of tensor parallelism, a stage"),
        "ep": integer("GPUs the experts are split over (expert parallelism, equal to tp); 1: "
                      "none"),
        "stages": integer("pipeline stages"),
        "fabric": enum("what joins the GPUs of a domain", Fabric),
        "decode": array(local("step_collectives"), "a decode step's, per batch"),
        "prefill": array(local("step_collectives"), "a prefill's, per batch"),
    }, "the collectives of tensor, pipeline and expert parallelism "
       "(answers/tensor_parallel.py)")


def _step_collectives() -> dict:
    return obj({
        "phase": enum("the step (answers.composition.Phase)", Phase),
        "batch": integer("sequences"),
        "count": integer("collectives in the step"),
        "seconds": number("their time in sequence, s"),
        "collectives": array(obj({
            "name": enum("where in the step (answers.tensor_parallel.CollectiveName)",
                         CollectiveName),
            "kind": enum("the collective", Collective),
            "copies": integer("how many a step"),
            "bytes": number("bytes of one, B (all-gather: the gathered tensor; all-to-all: "
                            "what one GPU holds, (p-1)/p of it crossing the fabric)"),
            "algorithm": enum("the fastest the topology allows", Algorithm),
            "protocol": enum("NCCL's protocol, or the engines' own kernel", Protocol),
            "latency": number("alpha, s"),
            "transfer": number("the bytes' share, s"),
            "seconds_each": number("one collective, s"),
            "seconds": number("all copies, s"),
            "bandwidth_Bps": number("a GPU's bandwidth each way, B/s"),
        }, "one collective of the step"), "the step's collectives"),
    }, "the collectives of one step")
