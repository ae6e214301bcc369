"""Cost of one 100 Hz walking cycle: the pattern generator's tick plus the stance solve.

The walk of the demo (1 m forward, a 90° turn in place, a 0.3 m sidestep, each followed by a stop)
is generated tick by tick, and each tick's targets go through ``StanceSolver.solve`` as the walk
node does. Printed per robot: medians and 90th percentiles [µs] of the generator's ``step``, the
stance solve and their sum (wall time, and the cycle's CPU time of this thread, which other
processes' load on the shared cores does not inflate), the share of the 10 ms period they use, and the stance solves'
success rate and leg-solve rounds. Robots: the packaged humanoid, a factory variant with longer
legs and heavier links (from test/humanoid_factory.py), and ``--urdf FILE`` if given.
Run: ``python bench/walk_bench.py``. This machine is shared and noisy: medians over ~4000 ticks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator

SEGMENTS = (  # (forward [m/s], lateral [m/s], yaw rate [rad/s]), seconds; each followed by a stop
    ((0.1, 0.0, 0.0), 10.0),
    ((0.0, 0.0, 0.25), 0.5 * np.pi / 0.25),
    ((0.0, 0.05, 0.0), 6.0),
)
STOP = 5.0  # [s] of zero command after each segment


def factory_variant() -> RobotModel | None:
    """The walking tests' variant robot, when the test folder is beside this one."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
    try:
        from walking_helpers import robot
    except ImportError:
        return None
    return robot("variant")


def bench_walk(name: str, model: RobotModel) -> None:
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(model, stance=stance)
    pattern, solve, rounds, solved, cpu = [], [], [], [], []
    for command, seconds in SEGMENTS:
        for current, duration in ((command, seconds), ((0.0, 0.0, 0.0), STOP)):
            generator.set_command(*current)
            for _ in range(round(duration / generator.config.dt)):
                start, start_cpu = time.perf_counter(), time.thread_time()
                tick = generator.step()
                middle = time.perf_counter()
                result = stance.solve(
                    tick.left_sole,
                    tick.right_sole,
                    tick.torso_height,
                    tick.torso_rotation,
                    com_target=tick.com,
                )
                pattern.append(middle - start)
                solve.append(time.perf_counter() - middle)
                cpu.append(time.thread_time() - start_cpu)
                rounds.append(result.iterations)
                solved.append(result.success)
    cycle = np.array(pattern) + np.array(solve)
    period = generator.config.dt
    print(
        f"== {name}: {len(cycle)} ticks, {len(generator.footsteps())} steps, {np.mean(solved) * 100:.1f} % solved"
    )
    for label, values in (
        ("pattern", pattern),
        ("stance solve", solve),
        ("cycle", cycle),
        ("cycle (CPU)", cpu),
    ):
        micro = np.array(values) * 1e6
        print(
            f"{label:<13} median {statistics.median(micro):7.1f} µs   p90 {np.percentile(micro, 90):7.1f} µs"
        )
    print(
        f"{'share of dt':<13} median {statistics.median(cycle) / period * 100:6.2f} %   "
        f"stance rounds: 1 in {np.mean(np.array(rounds) == 1) * 100:.0f} % of ticks, max {max(rounds)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urdf", help="another humanoid URDF to time as well")
    args = parser.parse_args()
    bench_walk("packaged humanoid", RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    variant = factory_variant()
    if variant is not None:
        bench_walk("factory variant (longer legs, heavier)", variant)
    if args.urdf:
        bench_walk(args.urdf, RobotModel.from_urdf_file(args.urdf))


if __name__ == "__main__":
    main()
