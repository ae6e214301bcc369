"""The stabiliser's settings for the walk through the servo bus keep the torso from rocking.

Through ``ik_demo --servo-bus`` the stabilised walk rocked its torso at 10-15 Hz (roll 0.15-0.37
deg RMS about its 0.1 s mean while walking, 0.02-0.03 without the bus) and fell in the arms part
in about half the runs (docs/hardware.md, "The walk through the bus: why the arms part fell").
What the bus changes, scripted here in the offline loop (MuJoCo, no ROS) on the demo's
realistic, compensated servos with the arms raised as in the arms part: 20 ms more loop delay
and every joint position in 4096 ticks per turn, both the goals written and the positions read.
Its walk config comes from the bus demo's own walk_node arguments
(:func:`ik_solvers.demo.servo_bus.walk_parameters`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("mujoco")

from ik_solvers.demo.free_standing import CLOSED_LOOP
from ik_solvers.demo.servo_bus import walk_parameters
from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.walk.walk_log import base_matrix

TICK = 2.0 * np.pi / 4096  # [rad] a Dynamixel's position unit
EXTRA_DELAY = 0.02  # [s] the bus's loop delay beyond the simulator's (sample age 20 ms, not 10)
ARMS_RAISED = -0.55  # [rad] both shoulder pitches, as the arms part holds them
WOBBLE_WINDOW = 10  # ticks (0.1 s) of the mean the roll's wobble is taken about
WOBBLE_BOUND = 0.08  # [deg] RMS; 0.17 with the unfiltered torso level, 0.04 with its filter


def bus_config():
    """The demo's closed-loop walk config with the bus demo's ``walk.*`` overrides."""
    arguments = walk_parameters("dynamixel")
    overrides = {
        name.removeprefix("walk."): float(value)
        for name, _, value in (a.partition(":=") for a in arguments[1::2])
        if name.startswith("walk.")
    }
    return replace(load_walk_config(), **CLOSED_LOOP, **overrides)


def in_ticks(values) -> np.ndarray:
    """``values`` [rad] rounded to whole servo ticks."""
    return np.round(np.asarray(values, dtype=float) / TICK) * TICK


def through_ticks(walker: OfflineWalker) -> None:
    """Make the walker's servos take goals and report positions in whole ticks, as on the bus."""
    robot = walker.robot
    read, write = robot.joint_state, robot.set_targets

    def joint_state():
        positions, velocities, efforts = read()
        return in_ticks(positions), velocities, efforts

    robot.joint_state = joint_state
    robot.set_targets = lambda names, positions: write(names, in_ticks(positions).tolist())


def roll_wobble(bases: np.ndarray) -> float:
    """[deg] RMS of the torso's roll about its WOBBLE_WINDOW mean."""
    rotation = base_matrix(bases)[:, :3, :3]
    roll = np.degrees(np.arctan2(rotation[:, 2, 1], rotation[:, 2, 2]))
    mean = np.convolve(roll, np.ones(WOBBLE_WINDOW) / WOBBLE_WINDOW, mode="valid")
    start = WOBBLE_WINDOW // 2
    return float(np.sqrt(np.mean((roll[start : start + len(mean)] - mean) ** 2)))


def test_through_the_bus_the_stabilised_torso_does_not_rock():
    urdf = package_share_path("urdf", "humanoid.urdf").read_text()
    servos = str(package_share_path("config", "servos", "humanoid_servo_models.yaml"))
    walker = OfflineWalker(
        urdf, bus_config(), ServoConfig(servo_model=servos), latency=EXTRA_DELAY, compensate=True
    )
    names = list(walker.robot.joint_names)
    for joint in ("l_shoulder_pitch", "r_shoulder_pitch"):
        walker.targets[names.index(joint)] = ARMS_RAISED
    through_ticks(walker)
    walker.settle(0.5)
    walker.run([(1.0, (0.0, 0.0, 0.0)), (6.0, (0.06, 0.0, 0.0))])
    measured = walker.log.measured()
    walking = measured["times"] >= measured["times"][0] + 3.0  # the steps under way
    wobble = roll_wobble(measured["base"][walking])
    assert wobble < WOBBLE_BOUND, f"the torso's roll wobbles {wobble:.3f} deg RMS while walking"
