"""A spec's `target` and `needs` against the machine: a machine that does not run the spec's
on-chip pattern gives t_floor only, with the reason; one that runs it is unaffected."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from kernelcost.analysis.api import load, loads
from kernelcost.answers.model import verdict
from kernelcost.base.architectures import Feature, parse_architecture
from kernelcost.base.errors import Code, KcostError
from kernelcost.base.levels import Level
from kernelcost.base.symbols import size_symbol
from kernelcost.cli import main
from kernelcost.gpu.support import Lack
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine, parse_machine
from kernelcost.present.roofs import roof_name

SPECS = Path(__file__).resolve().parent.parent / "specs"
MACHINES = Path(__file__).resolve().parent.parent / "src" / "kernelcost" / "machines"


@pytest.mark.parametrize("spec, machine, runs", [
    ("sm_90a", "sm_90a", True),
    ("sm_90a", "sm_100a", False),   # wgmma and setmaxnreg are not forward compatible
    ("sm_100a", "sm_90a", False),
    ("sm_80", "sm_90a", True),      # mma.sync and cp.async code runs on later parts
    ("sm_90", "sm_100a", True),
    ("sm_89", "sm_80", False),
    ("gfx942", "gfx942", True),
    ("gfx90a", "gfx942", False),    # an AMD code object runs on its own target only
    ("sm_80", "gfx942", False),
    ("gfx942", "sm_90a", False),
])
def test_which_architectures_run_which_code(spec, machine, runs):
    written, target = parse_architecture(spec), parse_architecture(machine)
    assert written is not None and target is not None
    assert written.runs_on(target) is runs


@pytest.mark.parametrize("text", ["sm90", "sm_9", "sm_90b", "gfx", "gfx94z", "ampere", "SM_90",
                                  "sm_999a", "gfxffff", "sm_91"])
def test_what_is_not_an_architecture(text):
    assert parse_architecture(text) is None


def test_every_shipped_machine_states_its_architecture_and_features():
    for machine_id in builtin_machine_ids():
        machine = load_machine(machine_id)
        assert machine.architecture is not None and machine.architecture_source, machine_id
        for feature in Feature:
            assert machine.features.has(feature) is not None, (machine_id, feature)
            assert machine.features.source(feature), (machine_id, feature)


@pytest.mark.parametrize("machine_id, features", [
    ("h100", {Feature.WGMMA, Feature.TMA, Feature.THREAD_BLOCK_CLUSTERS, Feature.SETMAXNREG}),
    ("h200", {Feature.WGMMA, Feature.TMA, Feature.THREAD_BLOCK_CLUSTERS, Feature.SETMAXNREG}),
    ("b200", {Feature.TCGEN05, Feature.TENSOR_MEMORY, Feature.TMA,
              Feature.THREAD_BLOCK_CLUSTERS, Feature.SETMAXNREG}),
    ("a100", set()), ("l40s", set()), ("rtx4090", set()), ("mi250x", set()), ("mi300x", set()),
])
def test_each_machine_has_the_features_of_its_architecture(machine_id, features):
    machine = load_machine(machine_id)
    assert {feature for feature in Feature if machine.features.has(feature)} == features


GEMM = """kernel g(M, N, K) {{
    {lines}
    in A: bf16[M, K]
    in B: bf16[K, N]
    out C: bf16[M, N]
    for i in 0..M, j in 0..N, k in 0..K {{ C[i, j] += A[i, k] * B[k, j] }}
}}
"""


@pytest.mark.parametrize("lines, column, message, code", [
    ("target sm_91x", 12, "unknown architecture `sm_91x`", Code.UNKNOWN_REQUIREMENT),
    ("needs wgmma, tcgen5", 18, "unknown hardware feature `tcgen5`", Code.UNKNOWN_REQUIREMENT),
    # what is stated twice is a duplicate, as a name or a `per` line declared twice is
    ("target sm_90a\n    target sm_100a", 5, "a second `target` line (the first at line 2)",
     Code.DUPLICATE_NAME),
    ("needs wgmma, wgmma", 18, "`wgmma` is already needed at line 2, column 11",
     Code.DUPLICATE_NAME),
    ("needs wgmma\n    needs tma, wgmma", 16, "`wgmma` is already needed at line 2",
     Code.DUPLICATE_NAME),
])
def test_unknown_and_repeated_requirements_are_placed(lines, column, message, code):
    with pytest.raises(KcostError) as raised:
        loads(GEMM.format(lines=lines), "g.kcost")
    (diagnostic,) = raised.value.diagnostics
    assert raised.value.code == code
    assert diagnostic.message == message and diagnostic.hint
    assert diagnostic.span.line == 2 + lines.count("\n") and diagnostic.span.column == column
    assert "^" in raised.value.render()


def test_a_feature_needed_twice_is_one_error_under_its_second_mention():
    with pytest.raises(KcostError) as raised:
        loads(GEMM.format(lines="needs wgmma, tma, wgmma, tma"), "g.kcost")
    assert [(d.message, d.span.column, d.span.end_column)
            for d in raised.value.diagnostics] == [
        ("`wgmma` is already needed at line 2, column 11", 23, 28),
        ("`tma` is already needed at line 2, column 18", 30, 33)]


def test_a_feature_name_gets_a_suggestion():
    with pytest.raises(KcostError) as raised:
        loads(GEMM.format(lines="needs setmaxreg"), "g.kcost")
    assert "did you mean `setmaxnreg`?" in raised.value.render()


# a `target` or `needs` line that stops early: the next line's first word (`in`, `let`, `}`)
# is no architecture or feature, and the error stands where the name is missing, with the
# names it may be
@pytest.mark.parametrize("lines, column, message, hint", [
    ("target", 11, "expected an architecture after `target`, found `in` at line 3",
     "`sm_90a`"),
    ("target  # the architecture", 11,
     "expected an architecture after `target`, found `in` at line 3", "`sm_90a`"),
    ("needs", 10, "expected a hardware feature after `needs`, found `in` at line 3",
     "thread_block_clusters, tma, wgmma"),
    ("needs wgmma,", 17, "expected a hardware feature after `,`, found `in` at line 3",
     "thread_block_clusters, tma, wgmma"),
    ("needs wgmma, tma,\n    let T = 2", 22,
     "expected a hardware feature after `,`, found `let` at line 3",
     "thread_block_clusters, tma, wgmma"),
    ("target }", 11, "expected an architecture after `target`, found `}`", "`sm_90a`"),
])
def test_a_missing_requirement_is_placed_on_its_own_line(lines, column, message, hint):
    with pytest.raises(KcostError) as raised:
        loads(GEMM.format(lines=lines), "g.kcost")
    (diagnostic,) = raised.value.diagnostics
    assert raised.value.code == Code.UNEXPECTED_TOKEN
    assert diagnostic.message == message
    assert hint in diagnostic.hint
    assert (diagnostic.span.line, diagnostic.span.column) == (2, column)
    source, caret = raised.value.render().splitlines()[1:3]
    assert source.endswith(lines.splitlines()[0]) and caret.index("^") == len(
        source.split("|", 1)[0]) + 1 + column  # the caret just after `target`, `needs`, `,`


def test_a_keyword_is_never_an_architecture_or_a_feature():
    """Before, `target` with the next line `let T = 2` parsed as `target let` and `T = 2`."""
    with pytest.raises(KcostError) as raised:
        loads(GEMM.format(lines="target\n    let T = 2"), "g.kcost")
    assert raised.value.diagnostics[0].message == (
        "expected an architecture after `target`, found `let` at line 3")
    checked = loads(GEMM.format(lines="target\n        sm_90a  # on a line of its own"),
                    "g.kcost").checked
    assert str(checked.requirements.target) == "sm_90a"


def _gemm_hopper(machine_id: str, size: int = 1024):
    spec = load(SPECS / "gemm_hopper.kcost")
    return verdict(spec.cost(), load_machine(machine_id), values={"M": size, "N": size, "K": size})


def test_gemm_hopper_on_b200_gives_the_floor_only():
    result = _gemm_hopper("b200")
    assert result.t_bound is None and result.t_model is None and not result.runs
    # the floor is the computation's: 2 * 1024^3 FLOP at the bf16 peak at the maximum clock
    # (8192 FLOP per clock per SM x 148 SMs x 1.965 GHz), compulsory bytes at 8 TB/s
    work = sympy.Rational(2 * 1024**3) / (8192 * 148 * sympy.Rational("1.965e9"))
    traffic = sympy.Rational(3 * 2 * 1024**2) / sympy.Rational("8e12")
    assert result.t_floor == max(work, traffic)
    lacks = {(str(item.needed), item.lack) for item in result.unsupported}
    assert lacks == {("sm_90a", Lack.OTHER_ARCHITECTURE), ("wgmma", Lack.FEATURE_ABSENT)}


def test_gemm_hopper_on_mi300x_lacks_clusters_too():
    lacks = {str(item.needed) for item in _gemm_hopper("mi300x").unsupported}
    assert lacks == {"sm_90a", "wgmma", "tma", "thread_block_clusters"}


def test_gemm_hopper_on_h100_runs_as_before():
    result = _gemm_hopper("h100")
    assert result.runs and not result.unsupported
    assert result.t_floor <= result.t_bound <= result.t_model


def test_the_command_says_why_and_gives_the_floor(capsys):
    code = main(["analyze", str(SPECS / "gemm_hopper.kcost"), "--set", "M=1024,N=1024,K=1024",
                 "--machine", "b200"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert "not run on B200 BF16: the spec is written for sm_90a, which runs on sm_90a only, " \
           "and the B200 runs sm_100a; it needs wgmma, which the B200 lacks" in out
    assert "this machine does not run the spec: no t_bound, no t_model." in out


def test_a_machine_file_with_a_bad_architecture_is_placed():
    text = (MACHINES / "h100.toml").read_text("utf-8")
    assert 'architecture = "sm_90a"' in text
    with pytest.raises(KcostError) as raised:
        parse_machine(text.replace('architecture = "sm_90a"', 'architecture = "hopper"'),
                      "evil.toml")
    assert raised.value.code == Code.MACHINE_BAD_VALUE
    assert "`device.architecture`" in raised.value.diagnostics[0].message
    assert raised.value.render().startswith("evil.toml:")


# pytorch/ao pull request 2427 "add-to-benchmarks" (drisspg, 2025-06-23), description: the
# output of benchmarks/float8/bench_matmul.py on "gpu_name: NVIDIA B200", lines
# "torch.bfloat16 time_sec" after "M, K, N: n n n": a bf16 nn.Linear without bias, the
# profiler's GPU kernel time per call, the mean of 5 calls (benchmarks/float8/utils.py,
# commit faf788a); https://github.com/pytorch/ao/pull/2427
AO_PR2427_B200_BF16 = [(1024, 5.08e-6), (1536, 7.87e-6), (2048, 1.52e-5), (3072, 3.84e-5),
                       (4096, 9.74e-5), (6144, 3.19e-4), (8192, 7.74e-4)]


def _blackwell(machine_id: str, size: int):
    spec = load(SPECS / "gemm_blackwell.kcost")
    return verdict(spec.cost(), load_machine(machine_id), values={"M": size, "N": size, "K": size})


@pytest.mark.parametrize("size, measured_s", AO_PR2427_B200_BF16)
def test_the_sm100_gemm_bound_holds_under_the_published_b200_times(size, measured_s):
    result = _blackwell("b200", size)
    assert result.runs
    assert result.t_floor <= result.t_bound <= result.t_model
    assert float(result.t_bound) <= measured_s


def test_the_sm100_gemm_at_1024_is_one_tile_per_sm_on_the_tensor_peak():
    """32 blocks of 128 x 256 on 148 SMs: the busiest SM runs one tile of 2 * 128 * 256 *
    1024 FLOP at 8192 FLOP per clock at 1.965 GHz."""
    result = _blackwell("b200", 1024)
    assert result.t_bound == sympy.Rational(2 * 128 * 256 * 1024) / (
        8192 * sympy.Rational("1.965e9"))


@pytest.mark.parametrize("machine_id", ["h100", "mi300x"])
def test_the_sm100_gemm_is_not_run_where_there_is_no_tensor_memory(machine_id):
    result = _blackwell(machine_id, 1024)
    assert result.t_bound is None and result.t_model is None and result.t_floor is not None
    assert (Level.TMEM, Lack.LEVEL_ABSENT) in {(item.needed, item.lack)
                                               for item in result.unsupported}


TWICE = """kernel twice(n) {
    in  x: f32[n]
    out y: f32[n]
    keep x in mall {
        for r in 0..2, i in 0..n { y[i] += x[i] }
    }
}
"""


def test_a_spec_keeping_data_in_the_infinity_cache_runs_on_mi300x_only():
    cost = loads(TWICE, "twice.kcost").cost()
    n = 1 << 24
    there = verdict(cost, load_machine("mi300x"), values={"n": n})
    # x crosses global memory once and the memory-side cache twice (17.2 TB/s, AMD CDNA 3
    # white paper p. 11); y is read and written once a pass
    assert cost.traffic[Level.MALL] == 2 * 4 * size_symbol("n")
    assert there.runs and there.level(Level.MALL).ridge is not None
    elsewhere = verdict(cost, load_machine("h100"), values={"n": n})
    assert not elsewhere.runs
    assert [(item.needed, item.lack) for item in elsewhere.unsupported] == [
        (Level.MALL, Lack.LEVEL_ABSENT)]


def test_mi300x_has_an_l2_per_xcd_and_the_infinity_cache():
    machine = load_machine("mi300x")
    assert machine.capacity(Level.L2) == 4 * 2**20 and machine.capacity_per(Level.L2) == \
        "partition"
    assert machine.execution.l2_partitions == 8
    assert machine.capacity(Level.MALL) == 256 * 2**20 and machine.bandwidth(Level.MALL) == 17.2e12
    assert "white paper" in machine.memory_level(Level.MALL).bandwidth_source


def test_a_partitioned_capacity_needs_the_partition_count():
    text = (MACHINES / "mi300x.toml").read_text("utf-8")
    start = text.index("l2_partitions = 8")
    broken = text[:start] + text[text.index("\n", text.index("l2_partitions_source")) + 1:]
    with pytest.raises(KcostError) as raised:
        parse_machine(broken, "evil.toml")
    assert raised.value.code == Code.MACHINE_INCONSISTENT
    assert "capacity_per" in raised.value.diagnostics[0].message


# Dao-AILab/flash-attention pull request 2280 (jayhshah, 2026-02-27), description, the Sm100
# forward: "headdim = 128, causal = False, seqlen = 8192, batch_size = 4, nheads = 16 ...
# FA Python fwd: 1.433ms, 1534.8 TFLOPS"; the GPU is not named in the text (the PR is
# FlashAttention-4's sm100 path; a B200 is assumed, UNCERTAIN: on a GB200 the same time is
# slower against a higher peak, and the bound below holds either way on the B200 figures).
FA4_PR2280_NONCAUSAL_S = 1.433e-3


def test_the_sm100_attention_bound_holds_under_the_published_fa4_time():
    spec = load(SPECS / "flash_attention_blackwell.kcost")
    result = verdict(spec.cost(), load_machine("b200"), values={"S": 8192, "H": 4 * 16})
    assert result.runs and roof_name(result.bound) == "bf16 tensor peak"
    assert result.t_floor <= result.t_bound <= result.t_model
    assert float(result.t_bound) <= FA4_PR2280_NONCAUSAL_S
    # the FA2-style spec's schedule is slower than FlashAttention-4's measured time there:
    # its shared reads per warp bind (the issue this spec answers)
    fa2 = verdict(load(SPECS / "flash_attention.kcost").cost(), load_machine("b200"),
                  values={"S": 8192, "H": 4 * 16})
    assert float(fa2.t_bound) > FA4_PR2280_NONCAUSAL_S > float(result.t_bound)


def test_the_sm100_attention_runs_a_share_of_its_exponentials_on_the_fma_units():
    cost = load(SPECS / "flash_attention_blackwell.kcost").cost()
    values = {size_symbol("S"): 512, size_symbol("H"): 1, size_symbol("Bc"): 128,
              size_symbol("Be"): 24}
    rows, keys = 512, 512
    # per row and key tile: Bc - Be = 104 exponentials on the SFU and 1 for the rescale
    assert cost.work["sfu"].subs(values) == rows * (keys // 128) * (104 + 1)


def test_an_amd_target_runs_on_its_own_target_only():
    spec = GEMM.format(lines="target gfx90a")
    result = verdict(loads(spec, "g.kcost").cost(), load_machine("mi300x"),
                     values={"M": 1024, "N": 1024, "K": 1024})
    from kernelcost.present.report.unsupported_report import unsupported_sentence

    sentence = unsupported_sentence(result, "MI300X BF16")
    assert "the spec is written for gfx90a, which runs on gfx90a only, and the MI300X runs " \
           "gfx942" in sentence


@pytest.mark.parametrize("command", [
    ["tune", "--vary", "TN", "--values", "64,128,256", "--set", "M=4096,N=4096,K=4096"],
    ["solve", "--for", "K", "--set", "M=4096,N=4096"],
])
def test_commands_that_need_the_schedule_refuse_a_machine_that_does_not_run_it(command,
                                                                            capsys):
    name, *options = command
    code = main([name, str(SPECS / "gemm_hopper.kcost"), "--machine", "b200", *options])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{SPECS / 'gemm_hopper.kcost'}:10:12: error[KC410]: b200 does not run " \
           "`gemm_hopper`: it needs sm_90a, and b200 runs sm_100a" in err


def test_tensor_memory_beyond_the_sm_does_not_fit():
    """A 128 x 1024 fp32 accumulator (512 KiB) in tensor memory, against the B200's 256 KiB
    per SM (PTX ISA §9.7.16.1)."""
    spec = load(SPECS / "gemm_blackwell.kcost")
    result = verdict(spec.cost(), load_machine("b200"),
                     values={"M": 4096, "N": 4096, "K": 4096, "TN": 1024, "TK": 16})
    (misfit,) = result.misfits
    assert misfit.level == Level.TMEM and misfit.capacity == 256 * 1024
    assert misfit.needed == 128 * 1024 * 4
    assert result.t_bound is None and result.t_model is None


def test_tensor_memory_stated_absent_beside_a_tmem_level_is_refused():
    text = (MACHINES / "b200.toml").read_text("utf-8")
    assert "tensor_memory = true" in text
    with pytest.raises(KcostError) as raised:
        parse_machine(text.replace("tensor_memory = true", "tensor_memory = false"), "evil.toml")
    assert raised.value.code == Code.MACHINE_INCONSISTENT
    assert "`features.tensor_memory`" in raised.value.diagnostics[0].message


def test_a_plot_says_the_machine_does_not_run_the_spec(tmp_path):
    figure = tmp_path / "gemm_hopper.svg"
    assert main(["plot", str(SPECS / "gemm_hopper.kcost"), "--set", "M=4096,N=4096,K=4096",
                 "--machine", "b200", "-o", str(figure)]) == 0
    text = figure.read_text("utf-8")
    assert "gemm_hopper: not run on this machine" in text and " binds" not in text
