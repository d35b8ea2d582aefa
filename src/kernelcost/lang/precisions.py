"""`--precision P`: the spec's element types mapped to P, by one documented table, so that the
bytes (and I) change with the precision and not only the peak.

A spec declares its types at its own precision (the type most of its tensors have: bf16 for
`gemm`). At another precision P:

    in tensors of the spec's type              -> P's operand format (with its scale bytes)
    out and inout tensors of the spec's type   -> P's output type
    f32 tensors of a spec narrower than 32 bits (partials, scores), and register locals and
    local arrays of f32 or f64 (accumulators)  -> P's accumulator type
    local arrays in shared of the spec's type  -> P's operand type (staged operand tiles)
    anything else (integer types, i4 weights)  -> unchanged

Block-scaled formats carry one scale byte per block of elements, counted in the element's
bytes: fp6 is MXFP6 (32-element blocks, an E8M0 scale: 3/4 + 1/32 B), fp4 is NVFP4
(16-element blocks, an E4M3 scale: 1/2 + 1/16 B). fp8 is FP8 (E4M3 or E5M2) with per-tensor
scales, a few bytes a tensor, not counted. The low-precision GEMMs write bf16 (their epilogue
dequantizes). Sources are in FORMATS."""

from __future__ import annotations

import dataclasses

import sympy

from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Precision, Role
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import ELEMENT_BYTES, PRECISION_OF_TYPE
from .check import CheckedKernel

MX_SOURCE = ("Open Compute Project, \u201cOCP Microscaling Formats (MX) Specification\u201d, "
             "version 1.0, September 2023, https://www.opencompute.org/documents/ocp-"
             "microscaling-formats-mx-v1-0-spec-final-pdf: a block of 32 elements shares one "
             "8-bit E8M0 scale; NVIDIA Transformer Engine, \u201cMXFP8\u201d, https://nvidia."
             "github.io/TransformerEngine/features/low_precision_training/mxfp8/mxfp8.html: "
             "\u201cone scaling factor per 32 consecutive values\u201d, stored as E8M0")
NVFP4_SOURCE = ("NVIDIA Technical Blog, \u201cIntroducing NVFP4 for Efficient and Accurate "
                "Low-Precision Inference\u201d, 2025, https://developer.nvidia.com/blog/"
                "introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/: E2M1 "
                "values in blocks of 16 sharing an FP8 E4M3 scale, and an FP32 scale per "
                "tensor")
FP8_SOURCE = ("NVIDIA Transformer Engine, \u201cUsing FP8 with Transformer Engine\u201d, "
              "https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/"
              "fp8_primer.html: Hopper's FP8 is E4M3 or E5M2; \u201cFP8 Current Scaling\u201d, "
              "https://nvidia.github.io/TransformerEngine/features/low_precision_training/"
              "fp8_current_scaling/fp8_current_scaling.html: one FP32 scale factor per tensor")


@record
class Format:
    """How one precision's tensors are stored and accumulated."""

    precision: Precision  # the machine precision (a peak's name): fp8
    name: str  # the storage format: FP8 (E4M3/E5M2), MXFP6, NVFP4
    operand: str  # element type of the operands (inputs)
    output: str  # element type of the outputs
    accumulator: str  # element type of accumulators (register locals, partial sums)
    block: int | None  # elements sharing one scale byte; None: no per-block scale
    source: str = ""

    @property
    def operand_bytes(self) -> sympy.Rational:
        """Bytes an operand element takes in memory, its share of the block scale included."""
        scale = sympy.Rational(1, self.block) if self.block else 0
        return ELEMENT_BYTES[self.operand] + scale


FORMATS: dict[Precision, Format] = {form.precision: form for form in (
    Format(Precision.FP64, "FP64", "f64", "f64", "f64", None),
    Format(Precision.FP32, "FP32", "f32", "f32", "f32", None),
    Format(Precision.TF32, "TF32 (stored as 32-bit)", "tf32", "f32", "f32", None),
    Format(Precision.FP16, "FP16", "f16", "f16", "f32", None),
    Format(Precision.BF16, "BF16", "bf16", "bf16", "f32", None),
    Format(Precision.FP8, "FP8 (E4M3/E5M2), per-tensor scales", "fp8", "bf16", "f32", None,
           FP8_SOURCE),
    Format(Precision.FP6, "MXFP6 (E2M3/E3M2, an E8M0 scale per 32)", "fp6", "bf16", "f32", 32,
           MX_SOURCE),
    Format(Precision.FP4, "NVFP4 (E2M1, an E4M3 scale per 16)", "fp4", "bf16", "f32", 16,
           NVFP4_SOURCE),
    Format(Precision.I8, "INT8", "i8", "bf16", "i32", None),
)}
FLOAT_ACCUMULATORS = ("f32", "f64")
NARROW = ("tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "i8", "i4")  # narrower than 32-bit


@record
class TypeChange:
    """One tensor or local whose element type the precision changes."""

    name: str
    role: Role  # in | out | inout | local | register
    before: str
    after: str
    bytes_before: sympy.Rational
    bytes_after: sympy.Rational  # the block scale's share included


@record
class PrecisionMap:
    """The spec at precision `format.precision`: what changed from its own types."""

    own: Precision  # the spec's own precision
    format: Format
    changes: tuple[TypeChange, ...]


def precision_format(precision: str) -> Format:
    if precision not in FORMATS:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"no element-type table for precision `{precision}`",
            "precisions: " + ", ".join(FORMATS)))
    return FORMATS[Precision(precision)]


def at_precision(checked: CheckedKernel, precision: str
                 ) -> tuple[CheckedKernel, PrecisionMap | None]:
    """`checked` with its element types mapped to `precision` (the table above), and what
    changed; the kernel itself and None at its own precision."""
    own = checked.precision
    if precision == own:
        return checked, None
    target = precision_format(precision)
    tensors, changes = {}, []
    for name, tensor in checked.tensors.items():
        after = _mapped(tensor.dtype, tensor.role, tensor.level, own, target)
        if after is None:
            tensors[name] = tensor
            continue
        size = target.operand_bytes if after == target.operand else ELEMENT_BYTES[after]
        tensors[name] = dataclasses.replace(tensor, dtype=after, element_bytes=size)
        changes.append(TypeChange(name, tensor.role, tensor.dtype, after,
                                  tensor.element_bytes, size))
    locals_ = {}
    for name, dtype in checked.locals.items():
        after = _mapped(dtype, Role.REGISTER, Level.REGISTERS, own, target)
        locals_[name] = dtype if after is None else after
        if after is not None and name not in tensors:
            changes.append(TypeChange(name, Role.REGISTER, dtype, after, ELEMENT_BYTES[dtype],
                                      ELEMENT_BYTES[after]))
    mapped = dataclasses.replace(checked, tensors=tensors, locals=locals_,
                                 precision_override=target.precision)
    return mapped, PrecisionMap(own, target, tuple(changes))


def _mapped(dtype: str, role: Role, level: str, own: Precision, target: Format) -> str | None:
    """The type an element of `dtype` takes at the target precision, or None: unchanged."""
    of_spec = PRECISION_OF_TYPE.get(dtype) == own
    if role in (Role.LOCAL, Role.REGISTER):
        if of_spec and level == Level.SHARED:
            after = target.operand
        elif dtype in FLOAT_ACCUMULATORS:
            after = target.accumulator
        else:
            return None
    elif of_spec:
        after = target.operand if role == Role.IN else target.output
    elif dtype == "f32" and own in NARROW:
        after = target.accumulator
    else:
        return None
    return None if after == dtype else after
