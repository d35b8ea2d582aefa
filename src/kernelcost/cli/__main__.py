"""`python -m kernelcost.cli`: the console script's entry point."""

import sys

from . import main

sys.exit(main())
