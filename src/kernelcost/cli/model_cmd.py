"""`kernelcost model`: the whole-model view on the command line. Kept out of cli.py, which
only registers it, so that the command's options and its run live together."""

from __future__ import annotations

import argparse
import os

from ..base.errors import (
    Code,
    Diagnostic,
    ModelFileError,
    SizeError,
    option_span,
    placed,
    quoted,
)
from ..base.watchdog import stage
from .shared import add_wide, refuse_one_id_twice

MAX_BATCH = 10**7
MAX_BATCHES = 64  # a table's batches without --grid


def build_model_parser(commands) -> None:
    parser = commands.add_parser(
        "model", help="a transformer's decode step and prefill composed from the specs: "
                      "time per kernel, tokens/s, memory, where decode turns compute-bound")
    parser.add_argument("model", metavar="MODEL",
                        help="a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, "
                             "Qwen3, Qwen3-MoE), a model file (.toml) or a shipped id: "
                             "llama3_8b llama3_70b mixtral_8x7b")
    parser.add_argument("--machine", default="h100", metavar="ID|PATH",
                        help="a machine id or .toml path (default h100)")
    parser.add_argument("--batch", default="1,8,64,512", metavar="VALUES",
                        help="sequences per step: values and ranges, comma-separated "
                             "(1,8,64 or 1..512 or 8..512:8; default 1,8,64,512)")
    parser.add_argument("--context", default="4096", metavar="VALUES",
                        help="tokens in the KV cache at decode, and of each prefill "
                             "(default 4096; several values or a range with --grid)")
    parser.add_argument("--tp", "--gpus", dest="gpus", default="1", metavar="VALUES",
                        help="tensor parallelism over N GPUs: figures per GPU, and the "
                             "collectives between the kernels (default 1; several values "
                             "with --grid)")
    parser.add_argument("--grid", metavar="CSV",
                        help="every point of --batch x --context x --tp at once, with numpy: "
                             "a row a point (TTFT, TPOT, their bounds, the fit in HBM) to "
                             "CSV, - for standard output; a summary on the terminal "
                             "(docs/serving.md)")
    parser.add_argument("--pp", default=1, type=_positive("pp"),
                        help="pipeline parallelism: the layers in N stages of --tp GPUs each "
                             "(default 1)")
    parser.add_argument("--ep", default=1, type=_positive("ep"),
                        help="expert parallelism of a mixture of experts: its experts split "
                             "over the --tp GPUs (equal to --tp, dividing the experts), "
                             "all-to-all dispatch and combine a layer (default 1)")
    parser.add_argument("--topology", metavar="ID|PATH",
                        help="how the GPUs are joined: a topology id (hgx_a100 hgx_h100 hgx_h200 "
                             "dgx_b200 h100_nvl h200_nvl pcie_h100 mi300x_platform) or .toml path "
                             "(default: the machine's 8-GPU switch or mesh system)")
    parser.add_argument("--weights", default="bf16", metavar="bf16|fp8|int8|int4",
                        help="the weights' precision: fp8 with --activations fp8 (W8A8), "
                             "int8 and int4 with group scales (weight-only, W8A16 and W4A16); "
                             "default bf16")
    parser.add_argument("--activations", default="bf16", metavar="bf16|fp8",
                        help="the activations' precision: fp8 runs the GEMMs at the "
                             "machine's fp8 tensor peak (default bf16)")
    parser.add_argument("--kv-cache", default="bf16", metavar="bf16|fp8|int8",
                        help="the KV cache's precision (default bf16)")
    parser.add_argument("--group-size", default=128, type=_positive("group-size"),
                        help="int8 and int4 weights sharing one bf16 scale (default 128)")
    parser.add_argument("--memory-fraction", default=0.9, type=_fraction,
                        help="the share of HBM the weights and KV cache may take, as vLLM's "
                             "gpu_memory_utilization (default 0.9)")
    parser.add_argument("--chunk", type=_chunk, metavar="TOKENS",
                        help="chunked prefill: at most TOKENS tokens a step, as vLLM's "
                             "max_num_batched_tokens (default: the batch's prompts in one step)")
    parser.add_argument("--launch", default="eager", type=_launch, metavar="eager|graphs",
                        help="eager: every kernel pays the machine's launch overhead (default); "
                             "graphs: a decode step is one CUDA graph launch and a gap a kernel")
    parser.add_argument("--kernels", action="store_true",
                        help="each step's kernels in a table: W, Q, I, t_bound, t_model and the "
                             "roof that binds")
    add_wide(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--curve", metavar="FIGURE",
                        help="the throughput/latency curve over --batch (.svg .png .pdf): "
                             "output tokens/s against the time per output token")
    parser.add_argument("--compare", metavar="ID[,ID]", type=_machines,
                        help="more machines on the --curve figure, beside --machine")
    parser.add_argument("-o", "--output", metavar="FIGURE",
                        help="a stacked bar figure of where the time goes (.svg .png .pdf)")


def _read(kind, text: str):
    """int(text) or float(text), in ASCII digits only, as --set reads numbers: both read any
    script's digits (`١٢` as 12), and a digit group's underscore (`0.1_0` as 0.1)."""
    if not text.isascii() or "_" in text:
        raise ValueError(text)
    return kind(text)


def _positive(name: str):
    def parse(text: str) -> int:
        try:
            value = _read(int, text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number, not {text!r}") from None
        if not 0 < value <= MAX_BATCH:
            raise argparse.ArgumentTypeError(f"{name} must be between 1 and {MAX_BATCH:,}")
        return value
    return parse


def _chunk(text: str) -> int:
    try:
        value = _read(int, text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"tokens a prefill step, a whole number such as 2048, not {quoted(text)}") from None
    if not 0 < value <= MAX_BATCH:
        raise argparse.ArgumentTypeError(
            f"tokens a prefill step must be between 1 and {MAX_BATCH:,}, not {quoted(text)} "
            "(vLLM's max_num_batched_tokens: 2048 and 8192 are usual)")
    return value


def _launch(text: str):
    from ..answers.launch_cost import WORDS

    if text not in WORDS:
        raise argparse.ArgumentTypeError(
            f"expected eager or graphs, not {quoted(text)} (graphs: each decode step replayed "
            "from a CUDA graph, as vLLM runs decode by default)")
    return WORDS[text]


def _fraction(text: str) -> float:
    try:
        value = _read(float, text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a fraction such as 0.9, not {quoted(text)}") from None
    if not 0 < value <= 1:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, not {quoted(text)}")
    return value


def _machines(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give a machine id or .toml path, e.g. h200")
    return names


def run_model(args) -> int:
    from ..answers.quantisation import quantisation
    from ..hardware.hfconfig import load_model_or_config
    from ..hardware.machinefile import load_machine
    from ..hardware.modelfile import refuse_past_positions
    from ..lang.varied import parse_values

    batches = parse_values("--batch", args.batch, MAX_BATCH)
    contexts = parse_values("--context", args.context, MAX_BATCH)
    tps = parse_values("--tp", args.gpus, MAX_BATCH)
    if args.grid is not None:
        from .model_grid_cmd import run_grid

        return run_grid(args, batches, contexts, tps)
    _refuse_lists_without_grid(args, batches, contexts, tps)
    args.batch, args.context, args.gpus = list(batches), contexts[0], tps[0]
    _check_before_the_work(args)
    served = quantisation(args.weights, args.activations, args.kv_cache, args.group_size)
    if args.chunk is not None:
        from ..answers.chunk_plan import check_budget

        check_budget(max(args.batch), args.context, args.chunk)
    model = load_model_or_config(args.model)
    refuse_past_positions(model, contexts, str(args.context))
    machine = load_machine(args.machine)
    _refuse_parallelism(args, model)
    _refuse_compare_alone(args)
    machines = [machine, *(load_machine(name) for name in (args.compare or []))]
    stage("composing the model's kernels")
    results = _composed(args, model, machines if args.curve else machines[:1], served)
    stage("writing the output")
    _write(args, results)
    return 0


def _refuse_compare_alone(args) -> None:
    """--compare draws its machines on the --curve figure: without one they were dropped
    without a word; a machine of --machine's id drew two curves of one name."""
    if not args.compare:
        return
    given = ",".join(args.compare)
    if not args.curve:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--compare", given), "--compare draws its machines on the --curve "
            "figure, and no --curve is given", "add --curve curve.svg"), given)
    refuse_one_id_twice([given], [args.machine, *args.compare], "--compare")


def _refuse_lists_without_grid(args, batches, contexts, tps) -> None:
    """Without --grid: at most MAX_BATCHES batches, one context and one --tp."""
    if len(batches) > MAX_BATCHES:  # each batch composed by the analysis: some 0.3 s each
        raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
            option_span("--batch", args.batch),
            f"{len(batches):,} batches, more than {MAX_BATCHES} without --grid",
            "--grid FILE.csv evaluates every batch at once (the same figures)"), args.batch)
    for option, text, values in (("--context", args.context, contexts),
                                 ("--tp", args.gpus, tps)):
        if len(values) > 1:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                option_span(option, text), f"{option} takes one value without --grid",
                f"--grid FILE.csv for every point of --batch x --context x --tp, or "
                f"{option} {values[0]}"), text)


def _check_before_the_work(args) -> None:
    """A bad figure name fails before the work, and so do two figures of one file (the
    curve was written over the stacked bars, and both names printed)."""
    for figure in (args.output, args.curve):
        if figure:
            from ..present.plot import check_figure_path

            check_figure_path(figure)
    if args.output and args.curve and os.path.realpath(args.output) == os.path.realpath(
            args.curve):
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--curve", args.curve), f"--curve names the file -o writes "
            f"(`{args.output}`): the curve would replace the stacked bars",
            "give each figure a name of its own"), args.curve)


def _refuse_parallelism(args, model) -> None:
    """Refuse a --tp that does not divide the heads, a --pp over the layers, an --ep the
    experts do not take."""
    from ..answers.tensor_parallel import check_expert_parallel

    if args.gpus > 1 and model.heads % args.gpus:
        raise ModelFileError(Code.GPUS_DO_NOT_DIVIDE, Diagnostic(
            None,
            f"--tp {args.gpus} does not divide the "
            f"{model.heads} attention heads of {model.name}"))
    if args.pp > model.layers:
        raise ModelFileError(Code.GPUS_DO_NOT_DIVIDE, Diagnostic(
            None, f"--pp {args.pp}: more stages than the {model.layers} layers of "
                  f"{model.name}", f"--pp {model.layers} or fewer"))
    try:
        check_expert_parallel(model, args.gpus, args.ep)
    except SizeError as error:  # about --ep: placed on its value
        raise placed(error, option_span("--ep", str(args.ep)), str(args.ep)) from None


def _composed(args, model, machines, served) -> list:
    """The model on each machine, the first --machine's; in chunks with --chunk."""
    from ..answers.tensor_parallel import Layout
    from ..answers.wholemodel import whole_model

    results = [
        whole_model(model, each, args.batch, args.context, args.gpus,
                    Layout(_topology(args, each.id), args.gpus, args.pp, args.ep),
                    quantisation=served, fraction=args.memory_fraction, launch=args.launch)
        for each in machines]
    if args.chunk is not None:
        from ..answers.chunked import chunked_model

        results = [chunked_model(each, args.chunk) for each in results]
    return results


def _write(args, results: list) -> None:
    """The first machine's report (text or JSON), its figure, and the curve of them all."""
    from ..algebra.jsonout import print_json
    from ..present.wholemodel_report import model_json, save_stack, text_report
    from .shared import page, print_items

    result = results[0]
    if args.json:
        print_json(model_json(result))
    else:
        console, width = page(args)
        print_items(console, text_report(result, args.kernels, width), width)
    if args.output:
        print(save_stack(result, args.output))
    if args.curve:
        from ..present.serving_curve import save_curve

        print(save_curve(results, args.curve))


def _topology(args, machine_id: str):
    """The topology asked for (its GPUs the machine's, at least --tp x --pp of them), or the
    machine's default."""
    from ..hardware.topology import default_topology, load_topology

    gpus = args.gpus * args.pp
    if args.topology is None:
        return default_topology(machine_id) if gpus > 1 else None
    return load_topology(args.topology, machine_id, gpus)
