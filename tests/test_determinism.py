"""The same spec gives byte-identical JSON across runs and across PYTHONHASHSEED values.

Each run is a fresh `kernelcost analyze --json` process, so that set and dict orders seeded by
the hash seed and sympy's caches all start over."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
KERNELCOST = Path(sys.executable).with_name("kernelcost")
HASH_SEEDS = ("0", "1", "12345")

CASES = {
    "gemm_tiled": [],
    "gemm_tiled square": ["--set", "M=N,K=N"],
    "stencil2d5pt": [],
    "attention": [],
    "llm_decode": ["--set", "Theta=7e10,b=8"],  # the chapter's 70B decode step, batch 8
}


def analyze_json(spec: str, options: list[str], hash_seed: str) -> bytes:
    environment = {**os.environ, "PYTHONHASHSEED": hash_seed}
    completed = subprocess.run(
        [str(KERNELCOST), "analyze", str(SPECS / f"{spec}.kcost"), *options, "--json"],
        capture_output=True, env=environment, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr.decode()
    return completed.stdout


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_is_byte_identical_across_hash_seeds(case):
    spec = case.split()[0]
    outputs = {seed: analyze_json(spec, CASES[case], seed) for seed in HASH_SEEDS}
    first = outputs[HASH_SEEDS[0]]
    assert first.startswith(b"{")
    for seed, output in outputs.items():
        assert output == first, f"{case}: PYTHONHASHSEED={seed} gives other bytes"
