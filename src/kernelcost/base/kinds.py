"""The categories a result holds, one enum each, as `levels` holds the memory levels: what
the counting, the model and the oracle compare, never a word written out. Values are the
words the language, the machine files, the command line and the JSON use (StrEnum: a value
prints and serialises as its word); the longer names a report shows ("bf16 tensor peak",
"global bandwidth") are built from them by the printers alone (present/roofs.py). The causes
of derates are the one open category: a type here, its values declared by the effects."""

from __future__ import annotations

from enum import StrEnum

from .levels import Level


class Reuse(StrEnum):
    """How tensors outside keep scopes are counted: by the spec (its keep scopes as written,
    other tensors by its `reuse` setting), or every tensor with perfect or no reuse."""

    SPEC = "spec"
    PERFECT = "perfect"
    NONE = "none"


class Role(StrEnum):
    """What a tensor is to its kernel: declared `in`, `out` or `inout`, an array a `let`
    declares inside the nest, or (in a change of precision) a register local."""

    IN = "in"
    OUT = "out"
    INOUT = "inout"
    LOCAL = "local"
    REGISTER = "register"


class WorkClass(StrEnum):
    """tensor: multiply-adds of matrix contractions on the tensor units; fma: every other
    multiply-add, on the vector FMA units; vector: other arithmetic; sfu: special functions.
    Each class meets its own ceiling (Machine.ceiling)."""

    TENSOR = "tensor"
    FMA = "fma"
    VECTOR = "vector"
    SFU = "sfu"


# what a time term runs against, and a derate scales: a work class's ceiling or a memory
# level's bandwidth (the key of Cost.work or Cost.traffic)
TermKey = WorkClass | Level


def term_key(key: str) -> TermKey:
    """A key of Cost.work or Cost.traffic as the member it is. Those dicts, and the levels and
    classes read from them, are typed `str` (their keys are members, but the counting and the
    answers name them in many signatures), so a term takes its key through here: a member
    passes as it is, a word becomes its member (no word is both a class and a level)."""
    if isinstance(key, (WorkClass, Level)):
        return key
    return WorkClass(key) if key in WorkClass.__members__.values() else Level(key)


class Unit(StrEnum):
    """The units whose rate a compute ceiling is: a machine file's [[compute]] tables give
    vector and tensor peaks, its [sfu] table the special-function rate."""

    VECTOR = "vector"
    TENSOR = "tensor"
    SFU = "sfu"


class TermKind(StrEnum):
    """A time term: work on a compute ceiling, or traffic on a level's bandwidth."""

    WORK = "work"
    TRAFFIC = "traffic"


class Raster(StrEnum):
    """The order a parallel spec's blocks start in: row-major (the last grid axis fastest),
    column-major, or Triton's grouped order (`group` rows of blocks at a time)."""

    ROW = "row"
    COLUMN = "column"
    GROUPED = "grouped"


class EffectCause(str):
    """What lowers a roof: the effect a derate comes from (one effect may give two causes).
    Not an enum: each effect's module declares its own (`FILL_DRAIN =
    EffectCause("fill_drain")`, gpu/effects), so that a new effect adds one where it could
    not add a member. Like a member of the enums here, a cause is compared as a value, never
    as a word written out, and prints and serialises as its word (JSON, the ledger)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"EffectCause({str.__repr__(self)})"


class Per(StrEnum):
    """What one figure covers: a thread, a block, a thread-block cluster, an SM, one of an
    L2's partitions (each serving its own SMs: MI300X's L2 per XCD) or the whole device. A
    capacity covers the device, an SM or a partition (a machine file's `capacity_per`); a
    block's need a thread, a block, a cluster or an SM; Little's law counts the bytes in
    flight over the device or one SM."""

    THREAD = "thread"
    BLOCK = "block"
    CLUSTER = "cluster"
    SM = "sm"
    PARTITION = "partition"
    DEVICE = "device"


class WaveRule(StrEnum):
    """How the wave estimate counts a parallel spec's HBM traffic: the whole footprint once
    (one wave), each wave's distinct elements once (a wave's step fits usable L2), or those
    and the share of the blocks' fills L2 does not hold (it does not fit)."""

    ONE_WAVE = "one wave"
    WAVE_UNION = "wave union"
    PARTIAL = "partial residency"


class Compulsory(StrEnum):
    """Why t_model counts compulsory global traffic, as t_bound does, instead of the wave
    estimate: a size is not a number, the blocks fall into no classes and are too many to
    enumerate, or a tile's bound is no whole number at the sizes (they break an `assume`)."""

    SIZES = "unset sizes"
    CLASSES = "unclassified blocks"
    TILES = "fractional tiles"


class Precision(StrEnum):
    """The precisions a kernel computes in. A machine file gives compute peaks for those
    from fp64 to i8, widest first (the canonical order of a machine's precisions); a kernel
    of index or packed types computes in i32 or i4, which meet the fp32 vector peak."""

    FP64 = "fp64"
    FP32 = "fp32"
    TF32 = "tf32"
    FP16 = "fp16"
    BF16 = "bf16"
    FP8 = "fp8"
    FP6 = "fp6"
    FP4 = "fp4"
    I8 = "i8"
    I32 = "i32"
    I4 = "i4"


class Inputs(StrEnum):
    """What the operands of a kernel hold, as far as the tensor units' sustained clock is
    concerned: random values (torch.randn: what a GEMM's achievable figure is measured on)
    or zeros, whose bits do not toggle, so the power limit lowers the clock less."""

    RANDOM = "random"
    ZEROS = "zeros"


class LaunchMode(StrEnum):
    """How a machine file's launch overhead was measured: kernel by kernel (eager), or
    replayed from a captured CUDA graph."""

    EAGER = "eager"
    GRAPH = "graph"


class Resource(StrEnum):
    """What limits the blocks an SM holds at once, or keeps a block from running, besides a
    memory level (shared memory, registers, tensor memory: a Level): the threads and warps
    of a block, the machine's blocks per SM, the size of a thread-block cluster."""

    THREADS = "threads"
    WARPS = "warps"
    BLOCKS = "blocks"
    CLUSTER = "cluster"


class Quantity(StrEnum):
    """What a block's need and the capacity it does not fit are counted in: bytes of a
    memory level, registers, threads, warps or blocks (of a cluster)."""

    BYTES = "B"
    REGISTERS = Level.REGISTERS.value  # one word for the level and the count of its registers
    THREADS = "threads"
    WARPS = "warps"
    BLOCKS = "blocks"


class MissingFigure(StrEnum):
    """A figure of a machine file that would limit the blocks an SM holds at once, named
    where the file lacks it (it then limits nothing)."""

    SHARED_PER_SM = "shared memory per SM"
    REGISTERS_PER_SM = "registers per SM"
    THREADS_PER_SM = "threads per SM"
    BLOCKS_PER_SM = "blocks per SM"


class Side(StrEnum):
    """A side of a root: the sizes above it or below it (where a quantity exceeds its
    target, where a kernel is compute-bound)."""

    ABOVE = "above"
    BELOW = "below"

    @property
    def opposite(self) -> Side:
        return Side.BELOW if self is Side.ABOVE else Side.ABOVE
