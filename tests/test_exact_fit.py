"""The largest batch that fits HBM (answers.hbm_fit, `model` and `model --grid`), against the
batch counted here in exact Fractions from the model's bytes: weights and KV cache split over
three pipeline stages are thirds of bytes, whose floats put a batch that fills the room to the
byte a rounding over it (llama3_8b, h100, tp 4, 3 stages, 0.91, context 60023: 108, not 109)."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import example, given
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
