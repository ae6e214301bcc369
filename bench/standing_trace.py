"""One standing push, traced: what the stabiliser believes against MuJoCo's truth (no ROS).

The robot stands (closed loop, ``walk.stabilise`` on), is pushed on the torso for
``PUSH_TIME`` by a force of the size that changes its velocity by ``--size`` [m/s] (as
``bench/push_bench.py --standing-only``), and stands on; with ``--walking`` it walks, is pushed
in the middle of a single support and walks on, as ``push_bench.py``'s walking pushes (the
first 1.5 s after the push printed). Printed: whether it fell, every swing
the plan made (the capture steps), then every ``--every`` seconds from the push on: the plan's
support (0 double, 1 left, 2 right), the DCM ξ = c + ċ/ω by MuJoCo's truth and by the
stabiliser's estimate, the CoM likewise and its target, and each sole's measured position and
yaw / pitch / roll [deg] (the truth). World frame, m, m/s.

``--true-anchor``: the estimate stands on the support sole where MuJoCo has it instead of
where the plan put it (``state_estimate.py`` assumes a sole never slides): a diagnostic that
says whether a sliding sole's estimate error is what makes a push fall.

Run: ``python bench/standing_trace.py --robot packaged --direction fwd --size 0.45 [--config
FILE] [--true-anchor] [--walking] [--every 0.05]``. Findings in docs/walking.md.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
from push_bench import SHORT, robots

from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.walk.pushes import (
    DIRECTIONS,
    PUSH_TIME,
    STAND_AFTER,
    STAND_BEFORE,
    STOP,
    WALK_AFTER,
    WALK_BEFORE,
    WALK_SPEED,
    push_time,
    walker,
)
from ik_solvers.walk.walk_log import base_matrix


def anchor_on_truth(robot: OfflineWalker) -> None:
    """Make ``robot``'s state estimate stand on the support sole's true position (MuJoCo's torso
    and the measured joints) instead of the plan's; the sole's orientation stays the plan's."""
    estimator = robot.stabiliser.estimator
    planned = estimator.update

    def update(quaternion, gyro, q, support, sole, yaw, elapsed=None):
        torso = base_matrix(np.asarray(robot.robot.base_pose())[None])[0]
        true_sole = np.array(sole, dtype=float)
        true_sole[:3, 3] = torso[:3, :3] @ estimator.sole_position(support, q) + torso[:3, 3]
        return planned(quaternion, gyro, q, support, true_sole, yaw, elapsed)

    estimator.update = update


def trace(robot: OfflineWalker, push: np.ndarray, every: float, walking: bool = False) -> None:
    """Stand (or walk as ``push_bench``'s walking pushes do), push by ``push`` (2,) [m/s], go on;
    print the trace (module docstring)."""
    robot.settle(0.3)
    command = (WALK_SPEED * robot.generator.max_command[0] if walking else 0.0, 0.0, 0.0)
    robot.run([(WALK_BEFORE if walking else STAND_BEFORE, command)])
    if walking:
        robot.run([(push_time(robot) - robot.generator.time, command)])
    pushed = robot.generator.time
    started = robot.robot.time
    robot.push(push, started, PUSH_TIME)
    robot.run([(WALK_AFTER, command), (STOP, (0.0, 0.0, 0.0))] if walking else [(STAND_AFTER, command)])
    measured = robot.log.measured()
    print(f"fell: {walk_metrics.fell(measured['base'], measured['com'])}")
    for step in robot.generator.planner.footsteps():
        start, end = np.round(step.start[:2], 3), np.round(step.end[:2], 3)
        print(
            f"swing {step.side}: {start} -> {end}, lifts {step.lift - pushed:.2f} s, lands {step.land - pushed:.2f} s"
        )
    times = measured["times"] - started
    velocity = np.gradient(measured["com"][:, :2], measured["times"], axis=0)
    corrections = robot.corrections[len(robot.corrections) - len(times) :]
    omega = robot.stabiliser.omega
    stride = max(round(every / robot.generator.config.dt), 1)
    for i in range(0, len(times), stride):
        if times[i] < -0.05 or (walking and times[i] > 1.5):
            continue
        estimate = corrections[i].estimate
        true_dcm = measured["com"][i, :2] + velocity[i] / omega
        estimated_dcm = estimate.com[:2] + estimate.com_velocity[:2] / omega
        soles = " ".join(_sole(name, sole) for name, sole in zip("LR", measured["soles"][i]))
        print(
            f"{times[i]:5.2f} s support {measured['support'][i]:2d} | DCM true {_xy(true_dcm)} est "
            f"{_xy(estimated_dcm)} | CoM true {_xy(measured['com'][i, :2])} est {_xy(estimate.com[:2])} "
            f"target {_xy(corrections[i].com)} | {soles}"
        )


def _xy(point: np.ndarray) -> str:
    return f"({point[0]:+.3f}, {point[1]:+.3f})"


def _sole(name: str, sole: np.ndarray) -> str:
    """A sole's measured position [m] and yaw / pitch / roll [deg] (the truth)."""
    yaw = np.degrees(np.arctan2(sole[1, 0], sole[0, 0]))
    pitch = np.degrees(-np.arcsin(np.clip(sole[2, 0], -1.0, 1.0)))
    roll = np.degrees(np.arctan2(sole[2, 1], sole[2, 2]))
    return f"{name} ({sole[0, 3]:+.3f}, {sole[1, 3]:+.3f}, {sole[2, 3]:+.3f}) {yaw:+.1f}/{pitch:+.1f}/{roll:+.1f}°"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="packaged", help="packaged or a variant of test/walking_robots.py")
    parser.add_argument("--direction", choices=list(SHORT), default="fwd", help="the push's way")
    parser.add_argument("--size", type=float, default=0.45, help="the push's Δv [m/s]")
    parser.add_argument("--config", type=Path, help="walk parameter file (default config/walk.yaml)")
    parser.add_argument("--true-anchor", action="store_true", help="the estimate stands on the true sole")
    parser.add_argument(
        "--walking", action="store_true", help="pushed walking, as push_bench's walking pushes"
    )
    parser.add_argument("--every", type=float, default=0.05, help="[s] between printed samples")
    return parser.parse_args()


def main() -> None:
    options = arguments()
    config = replace(load_walk_config(options.config), stabilise=True)
    robot = walker(robots(None, False, [options.robot])[options.robot], config)
    if options.true_anchor:
        anchor_on_truth(robot)
    trace(
        robot, options.size * np.array(DIRECTIONS[SHORT[options.direction]]), options.every, options.walking
    )


if __name__ == "__main__":
    main()
