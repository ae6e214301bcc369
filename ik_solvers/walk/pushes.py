"""Push trials in the offline walking loop: does the robot survive a push of a given size?

A trial (no ROS, MuJoCo, :class:`~ik_solvers.walk.offline.OfflineWalker`): the robot walks forward
at ``WALK_SPEED`` of its largest speed (or stands), is pushed on the torso for ``PUSH_TIME``
[s] in the middle of a single support (standing: after ``STAND_BEFORE``), by a force of the size
that changes its velocity by Δv [m/s], then walks on and stops. It fell when the CoM dropped or
the torso tilted past :func:`ik_solvers.walk.walk_metrics.fell`'s thresholds. Conditions: side
slope and slope along the walk [rad], servo stiffness (a factor on the position gain), extra command latency [s].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.whole_body import WalkConfig

WALK_SPEED = 0.9  # fraction of the largest forward speed
WALK_BEFORE, WALK_AFTER, STOP = 2.0, 2.5, 2.0  # [s] walking before the push, after it, then stopping
STAND_BEFORE, STAND_AFTER = 0.5, 3.0  # [s]
PUSH_TIME = 0.1  # [s]
DIRECTIONS = {"forward": (1.0, 0.0), "back": (-1.0, 0.0), "left": (0.0, 1.0), "right": (0.0, -1.0)}


@dataclass(frozen=True)
class Conditions:
    """What the robot walks in: side slope [rad], slope along the walk [rad] (positive: uphill),
    servo stiffness factor, extra latency [s], the time [s] the floor takes to tilt from level to
    its slopes as the walk begins (0: the robot starts on the slope)."""

    slope: float = 0.0
    incline: float = 0.0
    stiffness: float = 1.0
    latency: float = 0.0
    tilt_time: float = 0.0


def walker(urdf: str, config: WalkConfig, conditions: Conditions = Conditions()) -> OfflineWalker:
    """An offline walker on ``urdf`` in ``conditions`` (stiffness: the servos' saturation error
    divided by it)."""
    default = ServoConfig()
    servo = ServoConfig(
        saturation_error=default.saturation_error / conditions.stiffness,
        support_stiffness=default.support_stiffness * conditions.stiffness,
        weak_support_stiffness=default.weak_support_stiffness * conditions.stiffness,
    )
    return OfflineWalker(
        urdf, config, servo, conditions.latency, conditions.slope, conditions.incline, conditions.tilt_time
    )


def survives(
    urdf: str,
    config: WalkConfig,
    velocity_change: np.ndarray,
    walking: bool = True,
    conditions: Conditions = Conditions(),
    instant: float = 0.0,
) -> bool:
    """Whether the robot neither falls before nor after a push of ``velocity_change`` (2,) [m/s];
    walking, the push comes ``instant`` (-0.5..0.5) single supports after the middle of one
    (0: centred on it; -0.25: a quarter of a swing earlier)."""
    robot = walker(urdf, config, conditions)
    robot.settle(0.3)
    command = (WALK_SPEED * robot.generator.max_command[0] if walking else 0.0, 0.0, 0.0)
    robot.run([(WALK_BEFORE if walking else STAND_BEFORE, command)])
    start = push_time(robot, instant) if walking else robot.generator.time
    robot.run([(start - robot.generator.time, command)])
    robot.push(velocity_change, robot.robot.time, PUSH_TIME)
    robot.run(
        [(WALK_AFTER if walking else STAND_AFTER, command), (STOP if walking else 0.0, (0.0, 0.0, 0.0))]
    )
    measured = robot.log.measured()
    return not walk_metrics.fell(measured["base"], measured["com"])


def push_time(robot: OfflineWalker, instant: float = 0.0) -> float:
    """The generator's time [s] that centres the push on the next single support (``instant``
    of its duration after its middle) still to come."""
    now = robot.generator.time
    for phase in robot.generator.planner.phases:
        start = 0.5 * (phase.start + phase.end) + instant * (phase.end - phase.start) - 0.5 * PUSH_TIME
        if phase.step is not None and start > now:
            return start
    return now


def largest_push(
    urdf: str,
    config: WalkConfig,
    direction: str,
    sizes: list[float],
    walking: bool = True,
    conditions: Conditions = Conditions(),
) -> float:
    """The largest Δv [m/s] of ``sizes`` (increasing) survived before the first that is not (0: none)."""
    survived = 0.0
    for size in sizes:
        if not survives(urdf, config, size * np.array(DIRECTIONS[direction]), walking, conditions):
            break
        survived = size
    return survived


def survived_instants(
    urdf: str, config: WalkConfig, direction: str, size: float, instants: list[float]
) -> int:
    """How many walking pushes of ``size`` [m/s] towards ``direction`` the robot survives, one at
    each of ``instants`` (fractions of a single support from its middle, see :func:`survives`)."""
    push = size * np.array(DIRECTIONS[direction])
    return sum(survives(urdf, config, push, instant=instant) for instant in instants)


def walks(urdf: str, config: WalkConfig, conditions: Conditions, seconds: float = 6.0) -> bool:
    """Whether the robot walks ``seconds`` forward and stops in ``conditions`` without falling."""
    robot = walker(urdf, config, conditions)
    robot.settle(0.3)
    robot.run([(seconds, (WALK_SPEED * robot.generator.max_command[0], 0.0, 0.0)), (STOP, (0.0, 0.0, 0.0))])
    measured = robot.log.measured()
    return not walk_metrics.fell(measured["base"], measured["com"])
