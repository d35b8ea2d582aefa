"""Stage: a stated initial state of L2 -> the HBM reads that L2 serves instead.

The chapter's cache caveat across kernels: when the previous kernel left a tensor in L2 (a
GEMM's output, read next by an RMSNorm), this kernel reads it from L2, not from HBM. The user
states the initial state (`--warm-l2 x,w`: these tensors are in L2 when the kernel starts);
kernelcost checks that it can hold, against the machine's L2 capacity (binary units, as the
data sheets give it), and moves the compulsory reads of those tensors (each element once)
from the global level to L2:

- t_bound stays a lower bound under the stated state: it takes from L2 as much of the warm
  reads as L2 can hold at all, min(warm bytes, capacity). No run that starts from that state
  reads them from HBM, and a run cannot find more than the capacity in L2.
- t_model, the estimate, takes them from L2 only when the warm tensors fit the usable part of
  L2 (capacity x execution.usable_l2_fraction); otherwise it reads them all from HBM: this
  kernel streams through them in order and evicts the warm lines before it reaches them.

The reads served by L2 still cross L2: where the spec counts no traffic at L2 (a nest
without l2 scopes), they become its L2 traffic; where it does (a parallel spec, whose L2
traffic holds every read that passes through L2), it already counts them there."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from ..base.errors import Code, Diagnostic, MachineFileError, SizeError, did_you_mean
from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost
from ..count.values import evaluate, exact

if TYPE_CHECKING:
    from ..hardware.machine import Machine


@record
class WarmL2:
    """The tensors a previous kernel left in L2, and what each time takes from L2 for them."""

    machine: str  # its name, as the verdict says it
    tensors: tuple[str, ...]
    read_B: sympy.Expr  # compulsory reads of the warm tensors: each element once
    written_B: dict[str, sympy.Expr]  # per warm tensor: bytes this kernel writes of it
    capacity_B: sympy.Rational  # the machine's L2
    usable_B: sympy.Rational  # capacity x usable_l2_fraction
    l2_bandwidth_Bps: sympy.Rational
    global_bandwidth_Bps: sympy.Rational

    @property
    def fits(self) -> bool | None:
        """Do the warm tensors fit usable L2? None while the sizes are symbolic."""
        return _decided(self.read_B <= self.usable_B)

    @property
    def bound_B(self) -> sympy.Expr:
        """The reads t_bound takes from L2: what L2 can hold of them."""
        return sympy.Min(self.read_B, self.capacity_B)

    @property
    def model_B(self) -> sympy.Expr:
        """The reads t_model takes from L2 without a wave estimate: all of them when they fit
        usable L2, none otherwise."""
        return self.read_B if self.fits else sympy.Integer(0)


def warm_l2(cost: Cost, machine: Machine, values: dict[sympy.Symbol, sympy.Expr],
            tensors: tuple[str, ...]) -> WarmL2:
    """The stated initial state of L2 for `cost` on `machine` at `values`."""
    tensors = tuple(dict.fromkeys(tensors))  # a tensor named twice is warm once
    for name in tensors:
        footprint = cost.footprints.get(name)
        if footprint is None:
            raise SizeError(Code.NOT_A_TENSOR_READ, Diagnostic(
                None, f"--warm-l2: `{name}` is not a tensor of `{cost.kernel}`",
                did_you_mean(name, cost.footprints) or
                "name tensors of the spec: --warm-l2 x,w"))
        if sympy.sympify(footprint.read_elements) == 0:
            raise SizeError(Code.NOT_A_TENSOR_READ, Diagnostic(
                None, f"--warm-l2: `{cost.kernel}` never reads `{name}`",
                "a warm L2 saves reads only: name tensors it reads"))
    figures = {"L2 capacity": machine.capacity(Level.L2),
               "L2 bandwidth": machine.bandwidth(Level.L2),
               "global bandwidth": machine.bandwidth(Level.GLOBAL)}
    missing = [name for name, figure in figures.items() if figure is None]
    if missing:
        raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
            None,
            f"--warm-l2 needs the {' and the '.join(missing)} "
            f"of {machine.id}, which its machine file does not give",
            "add it with its source, or choose another machine"))
    capacity, l2, hbm = figures.values()
    read = sympy.Add(*(_bytes(cost, name, "read_elements", values) for name in tensors))
    written = {name: _bytes(cost, name, "write_elements", values) for name in tensors}
    capacity = exact(capacity)
    usable = capacity * exact(machine.execution.usable_l2_fraction or 1)
    return WarmL2(machine.name, tuple(tensors), read, written, capacity, usable, exact(l2),
                  exact(hbm))


def served_cost(cost: Cost, served_B: sympy.Expr) -> Cost:
    """`cost` with `served_B` of its global reads served by L2 instead (see the module)."""
    if served_B == 0:
        return cost
    traffic = dict(cost.traffic)
    traffic[Level.GLOBAL] = traffic[Level.GLOBAL] - served_B
    if Level.L2 not in cost.traffic:
        traffic[Level.L2] = served_B
    return dataclasses.replace(cost, traffic=traffic)


def wave_served_B(warm: WarmL2, bytes_by_tensor: dict[str, Fraction]) -> sympy.Expr:
    """What the wave estimate's HBM bytes lose to warm tensors that fit usable L2: per warm
    tensor its estimated bytes less what this kernel writes of it (writes still reach HBM)."""
    served = sympy.Integer(0)
    for name in warm.tensors:
        estimated = bytes_by_tensor.get(name, Fraction(0))
        estimated = sympy.Rational(estimated.numerator, estimated.denominator)
        served += sympy.Max(0, estimated - warm.written_B[name])
    return served


def _bytes(cost: Cost, name: str, field: str,
           values: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    footprint = cost.footprints[name]
    return evaluate(getattr(footprint, field) * footprint.element_bytes, values)


def _decided(relation: object) -> bool | None:
    if relation in (sympy.true, True):
        return True
    if relation in (sympy.false, False):
        return False
    return None
