"""`validate --ncu` in words or, with --json, as one object: an Nsight Compute export against a
spec's Q per level and W, a line a level with the metrics it read and, for W from the tensor
pipe's utilisation, how they were turned into FLOP (answers.ncu holds the figures)."""

from __future__ import annotations

from ..algebra.jsonout import print_json
from ..answers.ncu import DURATION, Level, Profile, compare_ncu, read_ncu
from ..base.units import si


def how_text(level: Level) -> str:
    """Which metrics, and for W how they were turned into FLOP."""
    if not level.metrics:
        return f"no documented tcgen05 op counter for {level.precision}"
    summed = " + ".join(level.metrics)
    if level.peak_FLOPps is None:
        return summed
    return (f"({summed}) / 100 x {level.peak_FLOPps:.4g} FLOP/s ({level.precision} tensor peak "
            f"of {level.machine_id}) x {DURATION}")


def run(args) -> int:
    """`kernelcost validate --ncu EXPORT.csv --spec SPEC --set N=V,... --machine ID`."""
    from ..lang.settings import read_settings

    for option, given in (("--spec", args.spec), ("--machine", args.machine)):
        if not given:  # argparse's usage error: exit 2
            args.usage(f"--ncu: give {option} too (--ncu CSV --spec SPEC --set N=V,... "
                       "--machine ID)")
    sizes = read_settings([args.set] if args.set else [])  # placed, as analyze's --set
    profile = read_ncu(args.ncu)
    levels = compare_ncu(profile, args.spec, sizes, args.machine)
    if args.json:
        print_json(ncu_json(profile, levels))
        return 0
    print(f"{profile.path}: {profile.architecture.value}, {len(profile.launches)} launch(es): "
          + ", ".join(sorted({launch.kernel for launch in profile.launches})))
    if profile.duration_s is not None:
        print(f"duration: {si(profile.duration_s, 's')}")
    for level in levels:
        ratio = "-" if level.ratio is None else (  # 1e308 B measured: not 300 digits
            f"{level.ratio:.2f}x" if level.ratio < 1000 else f"{level.ratio:.3g}x")
        print(f"{level.name:<12} predicted {si(level.predicted, level.unit):>10}  measured "
              f"{si(level.measured, level.unit):>10}  measured/predicted {ratio:>7}  "
              f"[{how_text(level)}]")
    return 0


def ncu_json(profile: Profile, levels: list[Level]) -> dict:
    """`validate --ncu --json`: the export, then a row a level (bytes in B, work in FLOP)."""
    return {
        "profile": str(profile.path), "architecture": profile.architecture.value,
        "launches": len(profile.launches),
        "kernels": sorted({launch.kernel for launch in profile.launches}),
        "duration_s": profile.duration_s,
        "levels": [{"name": level.name, "unit": level.unit, "predicted": level.predicted,
                    "measured": level.measured, "ratio": level.ratio,
                    "metrics": list(level.metrics), "peak_FLOPps": level.peak_FLOPps,
                    "how": how_text(level)} for level in levels],
    }
