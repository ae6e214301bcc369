"""Push recovery, open loop against the stabiliser, in the offline walking loop (MuJoCo, no ROS).

Per robot (the packaged humanoid and the factory variant ``long_legs_heavier`` of
``test/walking_robots.py``; ``--urdf FILE`` adds one), open loop and closed loop
(``walk.stabilise``) side by side:

- walking at 0.9 of the largest forward speed: the largest push survived [m/s] forward, back,
  left and right (a 0.1 s force on the torso in the middle of a single support, given as the
  velocity change Δv it gives the whole robot; sizes ``SIZES`` in turn until the first fall),
- standing: the same forward, back and sideways,
- the largest slope of ``SLOPES`` on which it walks 6 s and stops: sideways (downhill to its
  left), up and down, the floor tilting from level over ``TILT_TIME`` as the walk begins (as
  one walking onto a slope meets it; ``--placed``: the robot starts on the slope, falling for
  0.3 s before the walk's first tick); whether it does so with servos half as stiff, with 20 ms of extra command
  latency,
- the stabiliser's cost per 10 ms tick (CPU time of the whole update, median and 95th percentile).

With ``--instants SIZE [SIZE ...]``, instead: per robot, loop and direction (``--direction``: only those), how many of
``INSTANTS`` walking pushes of each size it survives, the push coming at each of those
fractions of a single support from its middle (one push per trial). The single-instant figure
above is fragile: a push 0.08 s earlier or later in the swing can fall where the centred one
did not, and the other way round; the counts say how robust a size is.

With ``--sizes SIZE [SIZE ...]``: per push column (as ``--standing-only`` etc. choose), H (held) or
F (fell) for each of those sizes, not stopping at the first fall. Standing, the largest push held
flips between neighbouring sizes (F H F H H) and a push's instant does not change it (the robot
stands still: pushed after 0.3 / 0.4 / 0.5 / 0.6 / 0.7 s of standing, the five outcomes were
equal at each size tried), so a change is ranked over a fine grid of sizes, e.g. ``--sizes 0.3
0.325 0.35 ... 0.6``.

Run: ``python bench/push_bench.py [--urdf FILE] [--quick] [--config FILE] [--placed] [--instants SIZE ...]``
(a few minutes; ``--quick``: the packaged robot only; ``--config``: another walk parameter file,
e.g. ``config/walk_fast.yaml``, whose own ``stabilise`` is overridden in both rows). One case
quickly: ``--robot NAME [NAME ...]`` (``packaged`` or a variant of ``test/walking_robots.py``),
``--standing-only`` or ``--walking-only`` (only those push columns, no slopes, servos or cost),
``--direction fwd|back|left|right [...]`` (only those pushes), ``--loop open|closed``; e.g.
``python bench/push_bench.py --robot packaged --standing-only --direction fwd --loop closed``.
Figures in docs/walking.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.pushes import (
    DIRECTIONS,
    Conditions,
    largest_push,
    survived_instants,
    survives,
    walker,
    walks,
)
from ik_solvers.whole_body import WalkConfig

SIZES = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7]  # Δv [m/s]
SLOPES = [2.0, 5.0, 8.0, 10.0]  # [deg]
SLOPE_WAYS = [(1.0, False), (1.0, True), (-1.0, True)]  # sideways, up, down
TILT_TIME = 1.0  # [s] the floor tilts from level to the slope over this time
INSTANTS = [-0.25, -0.125, 0.0, 0.125, 0.25]  # push instants, fractions of a single support from its middle


SHORT = {"fwd": "forward", "back": "back", "left": "left", "right": "right"}  # --direction names
STANDING = ("forward", "back", "left")  # the standing pushes of the full table (sideways is symmetric)
LOOPS = {None: (False, True), "open": (False,), "closed": (True,)}  # --loop: stabilise in each row


def robots(urdf: Path | None, quick: bool, names: list[str] | None = None) -> dict[str, str]:
    """The robots measured: ``names`` (``packaged`` or variants of ``test/walking_robots.py``) when
    given, else the packaged robot and, unless ``quick``, ``long_legs_heavier``; and ``urdf``."""
    names = names or (["packaged"] if quick else ["packaged", "long_legs_heavier"])
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
    from walking_robots import WALKING_VARIANTS, variant_urdf

    unknown = sorted(set(names) - {"packaged", *WALKING_VARIANTS})
    if unknown:
        raise SystemExit(f"unknown robot {unknown}: accepted are packaged, {', '.join(WALKING_VARIANTS)}")
    chosen = {
        name: package_share_path("urdf", "humanoid.urdf").read_text()
        if name == "packaged"
        else variant_urdf(name)
        for name in names
    }
    if urdf is not None:
        chosen[str(urdf)] = urdf.read_text()
    return chosen


def pushes(
    urdf: str,
    config: WalkConfig,
    directions: tuple[str, ...],
    walking: bool,
    sizes: list[float] | None = None,
) -> str:
    """The largest push survived [m/s] towards each of ``directions``, walking or standing, "a / b";
    with ``sizes`` [m/s], H (held) or F (fell) for each of them instead, "HHF / HFF"."""
    if sizes:
        return " / ".join(
            "".join(
                "H" if survives(urdf, config, s * np.array(DIRECTIONS[d]), walking) else "F" for s in sizes
            )
            for d in directions
        )
    return " / ".join(f"{largest_push(urdf, config, d, SIZES, walking=walking):.2f}" for d in directions)


def row(urdf: str, config: WalkConfig, stabilise: bool, tilt_time: float = TILT_TIME) -> list[str]:
    config = replace(config, stabilise=stabilise)
    cells = [pushes(urdf, config, tuple(DIRECTIONS), True), pushes(urdf, config, STANDING, False)]
    slopes = (steepest(urdf, config, sign, along, tilt_time) for sign, along in SLOPE_WAYS)
    cells.append(" / ".join(f"{degrees:g}°" for degrees in slopes))
    cells.append("walks" if walks(urdf, config, Conditions(stiffness=0.5)) else "falls")
    cells.append("walks" if walks(urdf, config, Conditions(latency=0.02)) else "falls")
    return cells


def steepest(urdf: str, config: WalkConfig, sign: float, along: bool, tilt_time: float) -> float:
    """The largest slope of ``SLOPES`` [deg] walked before the first that is not (0: none); ``sign``
    × the angle sideways (``along`` False) or along the walk (True: uphill when positive), the
    floor tilting over ``tilt_time`` [s]."""
    walked = 0.0
    for degrees in SLOPES:
        angle = sign * np.radians(degrees)
        slopes = {"incline": angle} if along else {"slope": angle}
        if not walks(urdf, config, Conditions(**slopes, tilt_time=tilt_time)):
            break
        walked = degrees
    return walked


def instants_row(urdf: str, config: WalkConfig, sizes: list[float], directions: tuple[str, ...]) -> list[str]:
    """Per direction of ``directions``, "size: survived/tried" for each of ``sizes`` [m/s] over
    ``INSTANTS``."""
    return [
        " ".join(
            f"{size:g}: {survived_instants(urdf, config, d, size, INSTANTS)}/{len(INSTANTS)}"
            for size in sizes
        )
        for d in directions
    ]


def print_instants(options: argparse.Namespace, config: WalkConfig) -> None:
    directions = tuple(SHORT[d] for d in options.direction or ()) or tuple(DIRECTIONS)
    print(f"pushes survived of {len(INSTANTS)}, at {INSTANTS} of a single support from its middle")
    print("| robot | loop | " + " | ".join(directions) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in directions) + " |")
    for name, urdf in robots(options.urdf, options.quick, options.robot).items():
        for stabilise in LOOPS[options.loop]:
            cells = instants_row(urdf, replace(config, stabilise=stabilise), options.instants, directions)
            print(f"| {name} | {'closed' if stabilise else 'open'} | " + " | ".join(cells) + " |", flush=True)


def stabiliser_cost(urdf: str, config: WalkConfig) -> str:
    robot = walker(urdf, replace(config, stabilise=True))
    robot.settle(0.3)
    stabiliser, costs = robot.stabiliser, []
    update = stabiliser.update

    def timed(*args):
        start = time.process_time()
        result = update(*args)
        costs.append(time.process_time() - start)
        return result

    stabiliser.update = timed
    robot.run([(6.0, (0.9 * robot.generator.max_command[0], 0.0, 0.0))])
    micro = np.array(costs) * 1e6
    return f"median {np.median(micro):.0f} µs, p95 {np.percentile(micro, 95):.0f} µs CPU per tick"


def print_pushes(options: argparse.Namespace, config: WalkConfig) -> None:
    """Only the push columns asked for (``--standing-only``, ``--walking-only``, ``--direction``)."""
    chosen = tuple(SHORT[d] for d in options.direction or ())
    parts = [
        (walking, chosen or (tuple(DIRECTIONS) if walking else STANDING))
        for walking in (True, False)
        if not (options.standing_only if walking else options.walking_only)
    ]
    names = [f"{'walking' if walking else 'standing'}: {' / '.join(ways)}" for walking, ways in parts]
    print(f"Δv survived [m/s], sizes {options.sizes or SIZES}{' (H held, F fell)' if options.sizes else ''}")
    print("| robot | loop | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for name, urdf in robots(options.urdf, options.quick, options.robot).items():
        for stabilise in LOOPS[options.loop]:
            looped = replace(config, stabilise=stabilise)
            cells = [pushes(urdf, looped, ways, walking, options.sizes) for walking, ways in parts]
            print(f"| {name} | {'closed' if stabilise else 'open'} | " + " | ".join(cells) + " |", flush=True)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urdf", type=Path, help="also this robot")
    parser.add_argument("--quick", action="store_true", help="the packaged robot only")
    parser.add_argument(
        "--robot", nargs="+", metavar="NAME", help="packaged or factory variants (test/walking_robots.py)"
    )
    parser.add_argument("--config", type=Path, help="walk parameter file (default config/walk.yaml)")
    parser.add_argument(
        "--instants",
        type=float,
        nargs="+",
        metavar="SIZE",
        help="walking pushes of these Δv [m/s] at several instants",
    )
    parser.add_argument(
        "--sizes",
        type=float,
        nargs="+",
        metavar="SIZE",
        help="push columns only: held (H) or fell (F) at each of these Δv [m/s]",
    )
    parser.add_argument("--placed", action="store_true", help="slopes: start on the slope, not tilting to it")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--standing-only", action="store_true", help="standing pushes only")
    only.add_argument("--walking-only", action="store_true", help="walking pushes only")
    parser.add_argument("--direction", nargs="+", choices=list(SHORT), help="only pushes this way")
    parser.add_argument("--loop", choices=["open", "closed"], help="only this loop (default both)")
    return parser.parse_args()


def main() -> None:
    options = arguments()
    config = load_walk_config(options.config)
    print(f"load average {os.getloadavg()[0]:.1f}; step period {config.step_period:g} s")
    if options.instants:
        print_instants(options, config)
        return
    if options.standing_only or options.walking_only or options.direction or options.sizes:
        print_pushes(options, config)
        return
    print(f"Δv survived [m/s], sizes {SIZES}")
    print(
        "| robot | loop | walking: fwd / back / left / right | standing: fwd / back / side "
        "| slope walked: side / up / down | servos half as stiff | +20 ms latency |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, urdf in robots(options.urdf, options.quick, options.robot).items():
        for stabilise in LOOPS[options.loop]:
            cells = row(urdf, config, stabilise, 0.0 if options.placed else TILT_TIME)
            print(f"| {name} | {'closed' if stabilise else 'open'} | " + " | ".join(cells) + " |", flush=True)
        print(f"  stabiliser cost on {name}: {stabiliser_cost(urdf, config)}", flush=True)


if __name__ == "__main__":
    main()
