from pathlib import Path

import pytest
import sympy

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"


def size(name: str) -> sympy.Symbol:
    from kernelcost.symbols import size_symbol

    return size_symbol(name)


@pytest.fixture(scope="session")
def spec_cost():
    """spec name -> Cost under a reuse mode, counted once per session."""
    import kernelcost

    specs: dict = {}

    def get(name: str, reuse: str = "spec"):
        if name not in specs:
            specs[name] = kernelcost.load(SPECS / f"{name}.kcost")
        return specs[name].cost(reuse)

    return get
