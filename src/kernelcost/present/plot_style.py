"""How a roofline figure's marks look and how they are found: the palette, the markers and
line styles of kernels, levels and roofs, the gids tests read back, and the reach of a
kernel's ceilings; shared by the drawing (`plot`) and its words (`plot_labels`)."""

from __future__ import annotations

from ..base.kinds import Unit
from ..base.levels import Level
from .kernel_rates import Ceiling
from .scene import KernelMarks

# Okabe & Ito (2008), the colour-blind-safe palette (yellow left out: unreadable on white),
# one colour per kernel
KERNEL_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
LEVEL_MARKERS: dict[str, str] = {Level.GLOBAL: "o", Level.L2: "s", Level.SHARED: "^",
                                 Level.REGISTERS: "v"}
SLOPE_GREYS: dict[str, str] = {Level.GLOBAL: "#333333", Level.L2: "#777777",
                               Level.SHARED: "#aaaaaa", Level.REGISTERS: "#cccccc"}
ROOF_COLOUR = "#222222"
ROOF_STYLES = {Unit.TENSOR: "-", Unit.VECTOR: "--", Unit.SFU: ":"}
ACHIEVED_MARKERS = {"measured": "*", "model": "P"}
CAPACITY_MARKER = "X"

# gids: how tests (and anyone) find an artist's role in the figure
GID_ROOF, GID_SLOPE, GID_RIDGE, GID_KERNEL = "roof", "slope", "ridge", "kernel"
GID_POINT, GID_PATH, GID_CROSSING, GID_NEVER = "point", "path", "crossing", "never"
GID_CAPACITY, GID_MISFIT, GID_CEILING = "capacity", "path-misfit", "ceiling"
CEILING_REACH = 6  # a kernel's ceiling runs this factor either side of its points

ALONG_LINE = 24  # candidate anchors along a roof or a slope for its label
LEGEND_COLUMN_CHARACTERS = 70  # the longest legend entry two columns of a 9-inch figure hold
ABOVE_OR_BELOW = ((-3, 3), (-3, -3), (3, 3), (3, -3))  # points: beside a line, not on it


def kernel_colour(position: int) -> str:
    return KERNEL_COLOURS[position % len(KERNEL_COLOURS)]


def ceiling_spans(kernel: KernelMarks) -> list[tuple[Ceiling, tuple[float, float]]]:
    """Each ceiling of the kernel with the intensities it is drawn over: around its points."""
    if not kernel.points:
        return []
    intensities = [point.intensity for point in kernel.points.values()]
    span = (min(intensities) / CEILING_REACH, max(intensities) * CEILING_REACH)
    return [(ceiling, span) for ceiling in kernel.ceilings]
