"""The largest batch that fits HBM (answers.hbm_fit, `model` and `model --grid`), against the
batch counted here in exact Fractions from the model's bytes: weights and KV cache split over
three pipeline stages are thirds of bytes, whose floats put a batch that fills the room to the
byte a rounding over it (llama3_8b, h100, tp 4, 3 stages, 0.91, context 60023: 108, not 109).
And the batch where decode turns compute-bound, against the one counted in Fractions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.answers.hbm_fit import memory
from kernelcost.answers.model_grid import GridAxes, model_grid
from kernelcost.answers.quantisation import BF16_ONLY
from kernelcost.base.levels import Level
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.modelfile import load_model


def exact_most(model, machine, context: int, gpus: int, stages: int, fraction: float) -> int:
    """max b with weights + b x KV <= capacity x fraction (the float vLLM forms), in Fractions."""
    weights = Fraction(BF16_ONLY.weight_bytes(model)) / (gpus * stages)
    kv = Fraction(BF16_ONLY.kv_bytes_per_token(model)) * context / min(gpus, model.kv_heads) \
        / stages
    room = Fraction(machine.capacity(Level.GLOBAL) * fraction) - weights
    return max(math.floor(room / kv), 0)


@tiered(200)
@given(model_id=st.sampled_from(["llama3_8b", "llama3_70b", "mixtral_8x7b"]),
       machine_id=st.sampled_from(["h100", "a100", "h200"]),
       gpus=st.sampled_from([1, 2, 3, 4, 8]), stages=st.integers(1, 7),
       fraction=st.integers(50, 99).map(lambda p: p / 100), context=st.integers(1, 200_000))
@example(model_id="llama3_8b", machine_id="h100", gpus=4, stages=3, fraction=0.91,
         context=60023)  # room / KV is 109 exactly; in floats 108.99999999999999
@example(model_id="llama3_8b", machine_id="h100", gpus=2, stages=3, fraction=0.54,
         context=77)  # 24091 exactly; 24090 in floats
def test_the_largest_batch_is_counted_exactly(model_id, machine_id, gpus, stages, fraction,
                                              context):
    model, machine = load_model(model_id), load_machine(machine_id)
    held = memory(model, machine, context, gpus, stages, fraction=fraction)
    most = exact_most(model, machine, context, gpus, stages, fraction)
    assert held.max_batch == most
    assert held.fits(most) is (most > 0 or held.fits() is True)
    assert held.fits(most + 1) is False


def test_the_grid_fits_the_batch_that_fills_the_room():
    """model --grid's fit column at the batches around the exact largest one."""
    model, machine = load_model("llama3_8b"), load_machine("h100")
    most = exact_most(model, machine, 60023, 4, 3, 0.91)
    axes = GridAxes((most - 1, most, most + 1), (60023,), (4,))
    grid = model_grid(model, machine, axes, stages=3, fraction=0.91)
    assert most == 109 and grid.fits[0, :, 0].tolist() == [True, True, False]


RIDGE_H100 = Fraction(19800, 67)  # h100's bf16 tensor peak over its HBM bandwidth, FLOP/B


@tiered(100)
@given(tie=st.integers(1, 2000), slope=st.integers(1, 500), per_ridge=st.integers(1, 40),
       nudge=st.sampled_from([-1, 0, 0, 1]))
@example(tie=10, slope=3, per_ridge=1, nudge=0)  # 1980 b against 3 b + 37 B: 0 at b = 10
def test_the_decode_crossing_is_the_first_whole_batch_past_the_ridge(tie, slope, per_ridge,
                                                                     nudge):
    """W = w b, Q = c b + d with W/Q = ridge exactly at the batch `tie` (d = tie (67 m - c)),
    or just off it: the crossing is the least b with w b - ridge (c b + d) >= 0, in Fractions.
    In floats the gap at the tie was -1.5e-11 and the crossing a batch past it."""
    from kernelcost.answers import wholemodel

    weights = tie * (67 * per_ridge - slope)
    assume(weights > 0)
    per_batch = 19800 * per_ridge + nudge
    past = per_batch - RIDGE_H100 * slope
    expected = None if past <= 0 else max(1, math.ceil(RIDGE_H100 * weights / past))
    assume(expected is None or expected < 2**29)  # the search stops near 10**9
    batch = wholemodel.BATCH
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wholemodel, "step_amounts", lambda *_, **__: (
            per_batch * batch, slope * batch + weights))
        found = wholemodel.decode_crossing(load_model("llama3_8b"), load_machine("h100"), 4096)
    assert Fraction(found.ridge) == Fraction(float(RIDGE_H100))
    assert found.batch == expected
