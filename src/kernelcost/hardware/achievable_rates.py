"""The attainable fractions of a machine's roofs, as the machine file states them: what a
well-tuned kernel sustains of a peak or a bandwidth (a GEMM's best rate under the power limit,
a copy's bandwidth), each with its source. The effect `achievable` lowers t_model's roofs to
them; t_bound and t_floor never read them.

    [[achievable]]
    roof = "tensor"          # a work class (tensor, fma, vector, sfu) or a memory level
    path = "mma.sync"        # tensor only, optional: the MMA issue path it is measured on
    inputs = "zeros"         # tensor only, optional: the operands it is measured on (random)
    fraction = 0.803
    source = "..."
"""

from __future__ import annotations

from ..base.architectures import MmaPath
from ..base.errors import Code
from ..base.kinds import Inputs, TermKey, WorkClass
from ..base.records import record
from .machinefields import MachineFields

ACHIEVABLE_KEYS = ("roof", "path", "inputs", "fraction", "source")
MMA_PATHS = tuple(path.value for path in MmaPath)


@record
class Achievable:
    roof: TermKey  # a work class or a memory level: the term whose rate it scales
    fraction: float  # of the roof's figure as the machine file gives it, in (0, 1]
    source: str
    path: MmaPath | None = None  # tensor: the MMA issue path; None: the part's best path
    inputs: Inputs = Inputs.RANDOM  # tensor: what the operands held where it was measured


def read_achievable(fields: MachineFields, tables: object,
                    levels: tuple[str, ...]) -> tuple[Achievable, ...]:
    """The [[achievable]] tables; a roof the machine has no figure for, a path or inputs on
    anything but the tensor roof, or a second entry for one roof, path and inputs is an error
    at its key."""
    if not isinstance(tables, list):
        raise fields.error(Code.MACHINE_BAD_VALUE, "achievable",
                           "expected [[achievable]] tables")
    roofs = tuple(WorkClass) + levels
    found: list[Achievable] = []
    for position, table in enumerate(fields.entries(tables, "achievable")):
        where = f"achievable[{position}]"
        fields.known_keys(table, ACHIEVABLE_KEYS, where)
        roof = fields.choice(table, "roof", roofs, where)
        path = fields.choice(table, "path", MMA_PATHS, where, default=None)
        inputs = fields.choice(table, "inputs", tuple(Inputs), where, default=Inputs.RANDOM)
        _tensor_only(fields, where, "path", roof, path is not None,
                     "a path names how the tensor units are fed")
        _tensor_only(fields, where, "inputs", roof, inputs != Inputs.RANDOM,
                     "what the operands hold moves the tensor units' clock under the power limit")
        entry = Achievable(roof, fields.fraction(table, "fraction", where),
                           fields.string(table, "source", where, required=True),
                           None if path is None else MmaPath(path), inputs)
        if any((other.roof, other.path, other.inputs) == (entry.roof, entry.path, entry.inputs)
               for other in found):
            raise fields.error(Code.MACHINE_INCONSISTENT, f"{where}.roof",
                               f"a second achievable fraction of `{roof}`"
                               + (f" on {path}" if path else "")
                               + (f" with {inputs} inputs" if entry.inputs != Inputs.RANDOM
                                  else ""))
        found.append(entry)
    return tuple(found)


def _tensor_only(fields: MachineFields, where: str, key: str, roof: str, given: bool,
                 what: str) -> None:
    if given and roof != WorkClass.TENSOR:
        raise fields.error(Code.MACHINE_INCONSISTENT, f"{where}.{key}",
                           f"`{key}` on the `{roof}` roof", f"{what}: only `tensor` has one")
