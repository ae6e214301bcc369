"""Walking loop cost per cycle and real-time factors: the library + MuJoCo loop, and the demo.

Part 1 (always): the offline walking loop (:class:`ik_solvers.walk.offline.OfflineWalker`, the
packaged robot, ``config/walk.yaml``) walks forward for 8 s; prints the median and 95th
percentile of one control cycle's pattern generator + stance solve [µs], of the simulator's
physics for the same 10 ms [µs], and the loop's real-time factor (simulated over wall time).
Part 2 (``--programme``): the demo's walking programme (forward 1 m, turn 90°, sidestep 0.3 m)
in the same loop, printed as the demo's walking table, on the packaged robot and the factory
variants of ``test/walking_robots.py`` (other leg lengths, hip widths, masses), and on
``--urdf FILE`` (URDF or xacro) if given, ``--drop-missing-meshes`` leaving out its collision meshes
whose files are missing (the ROBOTIS OP3 of test/descriptions); ``--config FILE`` walks another parameter file (e.g. ``config/walk_fast.yaml``).
Part 3 (``--demo``): runs the free-standing ``ik_demo`` (about two minutes) and prints the
real-time factor its simulator reported, the demo's wall time and whether the robot fell.
Run: ``make bench`` or ``python bench/walk_sim_bench.py [--programme] [--urdf FILE] [--demo]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker


def offline_loop() -> None:
    walker = OfflineWalker(package_share_path("urdf", "humanoid.urdf").read_text(), load_walk_config())
    walker.settle(0.5)
    start_sim, start = walker.robot.time, time.perf_counter()
    walker.run([(8.0, (0.08, 0.0, 0.0))])
    wall = time.perf_counter() - start
    solve = np.array(walker.solve_seconds) * 1e6
    physics = (wall - solve.sum() * 1e-6) / len(solve) * 1e6  # the rest of each cycle: mostly MuJoCo
    print(f"offline walking loop, {len(solve)} cycles of {walker.generator.config.dt * 1e3:g} ms:")
    print(
        f"  pattern + stance solve  median {np.median(solve):7.0f} µs   p95 {np.percentile(solve, 95):7.0f} µs"
    )
    print(f"  physics and logging     mean   {physics:7.0f} µs per cycle")
    print(f"  real-time factor        {(walker.robot.time - start_sim) / wall:7.2f}")


def robots(urdf: Path | None, drop_missing_meshes: bool = False) -> dict[str, str]:
    """name → URDF XML: the packaged robot, the walking variants, ``urdf`` (URDF or xacro) when
    given, its meshes as absolute paths (without the missing ones when ``drop_missing_meshes``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
    from walking_robots import WALKING_VARIANTS, variant_urdf

    from ik_solvers.description import load_description
    from ik_solvers.sim.mujoco_urdf import without_missing_meshes

    chosen = {"packaged": package_share_path("urdf", "humanoid.urdf").read_text()}
    chosen.update({name: variant_urdf(name) for name in WALKING_VARIANTS})
    if urdf is not None:
        description = load_description(urdf)
        if drop_missing_meshes:
            description = without_missing_meshes(description)
        chosen[str(urdf)] = description.self_contained()
    return chosen


def programme(name: str, urdf: str, config: Path | None = None) -> None:
    from ik_solvers.demo.walk_report import format_walk_table, walk_metrics
    from ik_solvers.demo.walk_run import WalkRun
    from ik_solvers.demo.walk_timeline import walk_commands

    walker = OfflineWalker(urdf, load_walk_config(config))
    run, settle_start = WalkRun(walker.log), walker.robot.time
    walker.settle(0.5)
    run.stretches.append(("posture", settle_start, walker.robot.time))  # standing, as the demo's stance
    start, walk_start = time.perf_counter(), walker.robot.time
    for command in walk_commands(walker.generator):
        begin = walker.robot.time
        walker.run([(command.duration, command.command)])
        run.stretches.append((command.name, begin, walker.robot.time))
    run.real_time_factors.append((walker.robot.time - walk_start) / (time.perf_counter() - start))
    print(f"\n{name}:")
    print(format_walk_table(walk_metrics(run)))
    print("  (offline loop: no ROS; its real-time factor is that of the loop, not of the demo)")


def demo() -> None:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run(
            [str(Path(sys.executable).parent / "ik_demo"), "--output", folder],
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - start
        walk = json.loads((Path(folder) / "results.json").read_text())["walk"]
    print(
        f"ik_demo (free-standing): wall time {wall:.0f} s, simulator real-time factor "
        f"{walk['real_time_factor']:.2f}, fell: {walk['fell']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programme", action="store_true", help="the demo's walk in the offline loop")
    parser.add_argument("--urdf", type=Path, help="--programme also on this robot (URDF or xacro)")
    parser.add_argument(
        "--drop-missing-meshes",
        action="store_true",
        help="--urdf without its collision meshes that are missing",
    )
    parser.add_argument("--config", type=Path, help="--programme with this walk parameter file")
    parser.add_argument("--demo", action="store_true", help="also run the free-standing demo (~2.5 min)")
    options = parser.parse_args()
    offline_loop()
    if options.programme:
        for name, urdf in robots(options.urdf, options.drop_missing_meshes).items():
            programme(name, urdf, options.config)
    if options.demo:
        demo()


if __name__ == "__main__":
    main()
