"""Collectives across GPUs: each algorithm's alpha-beta time by hand for one size and
topology, the fastest one chosen, and topology files read strictly."""

import math

import pytest

from kernelcost.answers.collectives import Algorithm, Collective, Protocol, collective_time
from kernelcost.base.errors import MachineFileError
from kernelcost.hardware.topology import (
    Fabric,
    builtin_topology_ids,
    default_topology,
    load_topology,
)

MIB = 1 << 20
HGX_H100 = load_topology("hgx_h100")


def _way(result, algorithm, protocol):
    return next(timed for timed in result.candidates
                if timed.algorithm is algorithm and timed.protocol is protocol)


def test_ring_all_reduce_by_hand():
    # 16 MiB on 4 GPUs of an HGX H100 (450 GB/s each way), NCCL's ring with Simple:
    # alpha = base 8.4 us + 2 (p - 1) = 6 steps of 3.4 us = 28.8 us;
    # beta term = 2 (p - 1) / p S / B = 1.5 x 16777216 B / 450e9 B/s = 55.924 us
    result = collective_time(Collective.ALL_REDUCE, 16 * MIB, 4, HGX_H100)
    ring = _way(result, Algorithm.RING, Protocol.SIMPLE)
    assert ring.latency_s == pytest.approx(28.8e-6)
    assert ring.transfer_s == pytest.approx(1.5 * 16777216 / 450e9)
    # LL: base 6.6 + 6 x 0.6 = 10.2 us, half the bandwidth (a flag in every 8-byte line),
    # 225 GB/s, capped at NCCL's 141 GB/s for one Hopper node (llMaxBws)
    ll = _way(result, Algorithm.RING, Protocol.LL)
    assert ll.latency_s == pytest.approx(10.2e-6)
    assert ll.transfer_s == pytest.approx(1.5 * 16777216 / 141e9)
    # no cap where the topology gives none (RCCL on an MI300X): 448 GB/s x 0.5
    mesh = collective_time(Collective.ALL_REDUCE, 16 * MIB, 4, load_topology("mi300x_platform"))
    assert _way(mesh, Algorithm.RING, Protocol.LL).transfer_s == pytest.approx(
        1.5 * 16777216 / 224e9)


def test_tree_all_reduce_by_hand():
    # 1 MiB on 8 GPUs, tree with Simple: base 8.4 us + 2 x 7 steps x 4.0 us =
    # 64.4 us; 2 S at 0.92 of the bandwidth: 2 x 1048576 / (0.92 x 450e9) = 5.066 us
    result = collective_time(Collective.ALL_REDUCE, MIB, 8, HGX_H100)
    tree = _way(result, Algorithm.TREE, Protocol.SIMPLE)
    assert tree.latency_s == pytest.approx(64.4e-6)
    assert tree.transfer_s == pytest.approx(2 * 1048576 / (0.92 * 450e9))


def test_nvls_one_shot_and_two_shot_by_hand():
    # 16 MiB on 8 GPUs: NVLS = 25 us + 7/8 x S / (0.85 x 450e9) = 25 + 38.38 us;
    # one-shot = 5.9 us (measured) + 7 S / 450e9 = 5.9 + 260.98 us;
    # two-shot = 2 x 5.9 us + 2 x 7/8 x S / 450e9 = 11.8 + 65.24 us
    result = collective_time(Collective.ALL_REDUCE, 16 * MIB, 8, HGX_H100)
    size = 16 * MIB
    nvls = _way(result, Algorithm.NVLS, Protocol.SIMPLE)
    assert nvls.seconds == pytest.approx(25e-6 + 7 / 8 * size / (0.85 * 450e9))
    one = _way(result, Algorithm.ONE_SHOT, Protocol.CUSTOM)
    assert one.seconds == pytest.approx(5.9e-6 + 7 * size / 450e9)
    two = _way(result, Algorithm.TWO_SHOT, Protocol.CUSTOM)
    assert two.seconds == pytest.approx(11.8e-6 + 1.75 * size / 450e9)
    assert result.best == nvls  # 63.4 us against two-shot's 77.0 us


def test_a_decode_all_reduce_is_latency_bound_and_one_shot():
    # Llama-3-70B at batch 8: 8 x 8192 x 2 B = 128 KiB a reduction; on 4 GPUs the one-shot
    # kernel takes 4.8 us + 3 x 131072 / 450e9 = 4.8 + 0.874 us, every NCCL way over 10 us
    result = collective_time(Collective.ALL_REDUCE, 8 * 8192 * 2, 4, HGX_H100)
    assert result.best.algorithm is Algorithm.ONE_SHOT
    assert result.best.seconds == pytest.approx(4.8e-6 + 3 * 131072 / 450e9)
    assert all(timed.seconds > 10e-6 for timed in result.candidates
               if timed.protocol is not Protocol.CUSTOM)


def test_gather_scatter_and_all_to_all_by_hand():
    # all-gather of a 64 MiB tensor on 8 GPUs, ring Simple: 8.4 + 7 x 3.4 us = 32.2 us,
    # 7/8 x S / B; all-to-all: 8.4 + 3.4 us and 7/8 x S / B
    size = 64 * MIB
    gather = collective_time(Collective.ALL_GATHER, size, 8, HGX_H100)
    ring = _way(gather, Algorithm.RING, Protocol.SIMPLE)
    assert ring.seconds == pytest.approx(32.2e-6 + 7 / 8 * size / 450e9)
    assert not any(t.algorithm in (Algorithm.NVLS, Algorithm.ONE_SHOT)
                   for t in gather.candidates)
    scatter = collective_time(Collective.REDUCE_SCATTER, size, 8, HGX_H100)
    assert _way(scatter, Algorithm.RING, Protocol.SIMPLE) == ring
    to_all = collective_time(Collective.ALL_TO_ALL, size, 8, HGX_H100)
    assert to_all.best.seconds == pytest.approx(11.8e-6 + 7 / 8 * size / 450e9)


def test_across_domains_pcie_binds_and_no_custom_kernel():
    # H100 NVL pairs: 2 GPUs share a 300 GB/s bridge; 4 GPUs span two pairs, so the ring
    # runs at PCIe's 63 GB/s with PCI step latencies (Simple 5.7 us): 8.4 + 6 x 5.7 us
    nvl = load_topology("h100_nvl")
    pair = collective_time(Collective.ALL_REDUCE, 16 * MIB, 2, nvl)
    assert pair.bandwidth_Bps == 300e9
    four = collective_time(Collective.ALL_REDUCE, 16 * MIB, 4, nvl)
    assert four.bandwidth_Bps == 63e9
    ring = _way(four, Algorithm.RING, Protocol.SIMPLE)
    assert ring.latency_s == pytest.approx((8.4 + 6 * 5.7) * 1e-6)
    assert all(t.protocol is not Protocol.CUSTOM and t.algorithm is not Algorithm.NVLS
               for t in four.candidates)


def test_h200_nvl_groups_of_four_by_hand():
    # H200 NVL, 4-way bridges: 4 GPUs of one group share 900 GB/s a GPU (450 each way), a
    # 16 MiB ring with Simple as on the switch: 8.4 + 6 x 3.4 us, 1.5 x S / 450e9; 8 GPUs
    # span two groups, so PCIe's 63 GB/s and its step latencies (8.4 + 14 x 5.7 us); no switch
    # reduces (no NVLS) and no engine's one-shot latency was measured on the bridges
    nvl = load_topology("h200_nvl")
    assert (nvl.fabric, nvl.domain, nvl.gpu) == (Fabric.BRIDGE, 4, "h200")
    four = collective_time(Collective.ALL_REDUCE, 16 * MIB, 4, nvl)
    ring = _way(four, Algorithm.RING, Protocol.SIMPLE)
    assert (ring.latency_s, ring.transfer_s) == pytest.approx(
        (28.8e-6, 1.5 * 16777216 / 450e9))
    eight = collective_time(Collective.ALL_REDUCE, 16 * MIB, 8, nvl)
    assert eight.bandwidth_Bps == 63e9
    assert _way(eight, Algorithm.RING, Protocol.SIMPLE).latency_s == pytest.approx(
        (8.4 + 14 * 5.7) * 1e-6)
    assert all(t.algorithm not in (Algorithm.NVLS, Algorithm.ONE_SHOT)
               for result in (four, eight) for t in result.candidates)


def test_the_best_is_the_fastest_and_one_gpu_costs_nothing():
    for name in builtin_topology_ids():
        topology = load_topology(name)
        for gpus in (2, 4, 8):
            for size in (1024, MIB, 256 * MIB):
                result = collective_time(Collective.ALL_REDUCE, size, gpus, topology)
                assert result.best.seconds == min(t.seconds for t in result.candidates)
                assert math.isfinite(result.best.seconds) and result.best.seconds > 0
    alone = collective_time(Collective.ALL_REDUCE, MIB, 1, HGX_H100)
    assert alone.best.seconds == 0


def test_shipped_topologies_name_their_machine_and_every_figure_has_a_source():
    from kernelcost.hardware.machinefile import load_machine

    for name in builtin_topology_ids():
        topology = load_topology(name)
        load_machine(topology.gpu)
        assert {key for key, _ in topology.sources} >= {
            "gpu", "gpus", "fabric", "domain", "fabric_Bps", "host_Bps"}
        assert all("http" in source or "PCIe" in source for _, source in topology.sources)
    assert default_topology("h100").fabric is Fabric.NVSWITCH
    assert default_topology("rtx4090") is None


@pytest.mark.parametrize(("text", "key"), [
    ('fabric = "ethernet"', "fabric"),
    ("domain = 16", "domain"),
    ("fabric_Bps = -1", "fabric_Bps"),
    ("custom_allreduce_s = [[9, 1e-6]]", "custom_allreduce_s"),
    ("links = 18", "links"),
])
def test_a_bad_topology_file_is_placed(tmp_path, text, key):
    base = {"name": '"x"', "gpu": '"h100"', "gpus": "8", "fabric": '"nvswitch"',
            "domain": "8", "fabric_Bps": "450e9", "host_Bps": "63e9"}
    lines = [f"{k} = {v}\n{k}_source = \"s\"" for k, v in base.items()
             if not text.startswith(k + " ")]
    lines.append(text if key == "links" else f"{text}\n{key}_source = \"s\"")
    path = tmp_path / "bad.toml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MachineFileError) as caught:
        load_topology(path)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.span is not None and diagnostic.span.line > 0
    assert f"`{key}`" in diagnostic.message


def test_model_tp_lists_the_all_reduces_with_their_algorithm_and_time(capsys):
    # Llama-3-70B on 4 GPUs of an HGX H200 at batch 8: 2 all-reduces a layer of
    # 8 x 8192 x 2 B = 131072 B, one-shot: 4.8 us + 3 x 131072 / 450e9 = 5.674 us each
    import json

    from kernelcost.cli import main

    assert main(["model", "llama3_70b", "--tp", "4", "--machine", "h200", "--batch", "8",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    collectives = document["collectives"]
    assert collectives["topology"] == "hgx_h200" and collectives["gpus"] == 4
    decode = collectives["decode"][0]
    reduces = {c["name"]: c for c in decode["collectives"]}
    attention = reduces["attention out"]
    assert (attention["kind"], attention["copies"], attention["bytes"]) == (
        "all-reduce", 80, 131072)
    assert attention["algorithm"] == "one-shot"
    assert attention["seconds_each"] == pytest.approx(4.8e-6 + 3 * 131072 / 450e9)
    assert decode["count"] == 162  # 2 x 80 layers, the embedding, the logits
    assert main(["model", "llama3_70b", "--tp", "4", "--machine", "h200", "--batch", "8"]) == 0
    text = capsys.readouterr().out
    assert "attention out" in text and "one-shot" in text and "5.67 µs" in text


def test_model_tp_refuses_a_topology_of_other_gpus_or_too_few(capsys):
    from kernelcost.cli import main

    assert main(["model", "llama3_8b", "--tp", "2", "--machine", "h100",
                 "--topology", "dgx_b200"]) == 2
    err = capsys.readouterr().err
    assert "joins b200 GPUs, not h100" in err and "dgx_b200.toml:" in err
    assert main(["model", "llama3_8b", "--tp", "16", "--machine", "h100",
                 "--topology", "hgx_h100"]) == 2
    assert "8 GPUs, fewer than the 16 asked for" in capsys.readouterr().err


def test_model_pp_hands_the_activations_on_and_splits_the_memory(capsys):
    # Llama-3-70B, --tp 2 --pp 2 on an HGX H100 at batch 8: one hand-off of
    # 8 x 8192 x 2 = 131072 B, a send: 8.4 + 3.4 us (NCCL's ring Simple, one step) +
    # 131072 / 450e9 s; every GPU holds a quarter of the weights
    import json

    from kernelcost.cli import main
    from kernelcost.hardware.modelfile import load_model

    assert main(["model", "llama3_70b", "--tp", "2", "--pp", "2", "--machine", "h100",
                 "--batch", "8", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["collectives"]["tp"], document["collectives"]["stages"]) == (2, 2)
    uses = {c["name"]: c for c in document["collectives"]["decode"][0]["collectives"]}
    handoff = uses["stage hand-off"]
    assert (handoff["kind"], handoff["copies"], handoff["bytes"]) == ("send", 1, 131072)
    assert handoff["seconds_each"] == pytest.approx(11.8e-6 + 131072 / 450e9)
    assert uses["attention out"]["seconds_each"] == pytest.approx(3.7e-6 + 131072 / 450e9)
    weights = load_model("llama3_70b").weight_bytes()
    assert document["memory"]["weights_B"] == pytest.approx(weights / 4)
    assert main(["model", "llama3_70b", "--pp", "81"]) == 2
    assert "more stages than the 80 layers" in capsys.readouterr().err
