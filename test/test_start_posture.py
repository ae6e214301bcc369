"""Bending from straight legs into the walking stance, as ik_node's velocity limit shapes it, on the MuJoCo floor.

The packaged robot starts as sim_node starts it (floating base, joints at 0, dropped on the floor),
stands three periods with nothing commanded (sim_node's lock-step timeouts while ik_node starts),
then gets the commands ik_node sends toward the walk's first stance: each leg stepped from the
measured straight legs by :class:`~ik_solvers.control.command_filter.CommandFilter` at
walk.launch.py's ``max_velocity_fraction`` 1.0, one command per 10 ms period. Real MuJoCo, the real
stance solve; no ROS (the nodes add timing only). Before the straight-line step, hip and ankle
arrived in half the knee's time, the soles were commanded up to 27 degrees pitched against the
torso, and the robot tipped 10 degrees and stood rocking on its soles' edges: the start of the
walk launch's fall (docs/node.md, "Stopping, and the launch tests").
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from walking_helpers import URDF_PATH, robot

from ik_solvers.control.command_filter import CommandFilter
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator

PERIOD = 0.01  # [s] walk.dt: one command per period
IDLE_PERIODS = 3  # periods run before the first command (the launch test's failing run had 3)
FRACTION = 1.0  # walk.launch.py's max_velocity_fraction


def _tilt_degrees(quaternion: np.ndarray) -> float:
    """Angle between the torso's z axis and the vertical, of a (w, x, y, z) orientation."""
    x, y = quaternion[1], quaternion[2]
    return float(np.degrees(np.arccos(np.clip(1.0 - 2.0 * (x * x + y * y), -1.0, 1.0))))


def _stance_goal() -> tuple[list, np.ndarray]:
    """The legs' chains and their joints [rad] (both legs, in order) of the walk's first tick."""
    stance = StanceSolver(robot("packaged"))
    generator = WalkingPatternGenerator(stance.model, WalkConfig(timing_com_height=0.455), stance=stance)
    tick = generator.step()
    result = stance.solve(
        tick.left_sole, tick.right_sole, tick.torso_height, tick.torso_rotation, com_target=tick.com
    )
    assert result.success, result.message
    return list(stance.legs.chains), result.q


def test_bending_into_the_walking_stance_keeps_the_torso_level():
    chains, goal = _stance_goal()
    sim = MujocoRobot(URDF_PATH.read_text(), ServoConfig(floating_base=True))
    steps = round(PERIOD / sim.config.timestep)
    sim.step(IDLE_PERIODS * steps)
    filters = [CommandFilter(c.lower, c.upper, c.velocity_limits, c.continuous) for c in chains]
    goals = np.split(goal, np.cumsum([c.n for c in chains])[:-1])
    commands = [np.zeros(c.n) for c in chains]  # measured: straight legs
    tilts = []
    for _ in range(100):  # 1 s
        commands = [f.step(q, g, FRACTION, PERIOD) for f, q, g in zip(filters, commands, goals)]
        for chain, q in zip(chains, commands):
            sim.set_targets(list(chain.joint_names), q.tolist())
        sim.step(steps)
        tilts.append(_tilt_degrees(sim.base_pose()[3:]))
    assert all(np.allclose(q, g) for q, g in zip(commands, goals))
    # before: 10.2 degrees at 0.15 s, still 4.9 degrees at 1 s (soles on their edges); now about 1 and 0.1
    assert max(tilts) < 3.0, f"tipped {max(tilts):.1f} degrees bending into the stance"
    assert tilts[-1] < 1.0, f"stands {tilts[-1]:.1f} degrees tilted after 1 s"
