"""Stage: TOML -> Machine. The machine model (machine: sourced peaks, bandwidths,
capacities, execution resources) and its file format (machinefile), under one name for the
stages above: `from .hardware import Machine, load_machine`."""

from .clocks import at_max_clock_terms, max_clock_factor  # noqa: F401
from .machine import *  # noqa: F403 (the model's public names, one import for the stages above)
from .machinefile import (  # noqa: F401
    builtin_machine_ids,
    builtin_machines_with,
    load_machine,
    parse_machine,
)
