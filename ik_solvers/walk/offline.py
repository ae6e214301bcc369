"""The walking loop in one process, without ROS: pattern generator → stance solve → MuJoCo.

What ``walk_node`` → ``ik_node`` → ``sim_node`` do over DDS, done in a plain loop at the
generator's period: for tests of the physics, the walking benchmark and quick experiments. The
servo targets are the stance solve's leg joints (no velocity shaping: the generator's motion is
smooth); the arms hold their positions.

Each tick is recorded as a :class:`~ik_solvers.walk.walk_log.WalkSample` (the plan and what the
simulator did), the input of :mod:`ik_solvers.walk.walk_metrics`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig
from ik_solvers.walk.walk_log import WalkLog
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator

Command = tuple[float, float, float]  # forward [m/s], lateral [m/s], yaw rate [rad/s]


class OfflineWalker:
    """A simulated robot standing on the floor, walked by the pattern generator.

    Args:
        urdf_xml: the robot.
        config: walking parameters (default :class:`WalkConfig`).
        servo: simulator set-up (floating base forced on).
    """

    def __init__(
        self, urdf_xml: str, config: WalkConfig | None = None, servo: ServoConfig | None = None
    ) -> None:
        self.stance = StanceSolver(RobotModel.from_urdf_string(urdf_xml))
        self.model = self.stance.model  # with the sole frames found or made for it
        self.generator = WalkingPatternGenerator(self.model, config, stance=self.stance)
        servo = servo or ServoConfig()
        self.robot = MujocoRobot(urdf_xml, ServoConfig(**{**servo.__dict__, "floating_base": True}))
        self.log = WalkLog.for_walk(self.stance, self.generator.geometry)
        self.solve_seconds: list[float] = []  # per tick: pattern + stance solve [s]
        self._index = {name: i for i, name in enumerate(self.robot.joint_names)}
        first = self.generator.step()
        self.targets = np.zeros(len(self.robot.joint_names))
        self._solve(first)
        self.robot.reset(self.targets)

    def _solve(self, tick) -> bool:
        """Stance for ``tick``; the leg targets updated when it succeeds."""
        result = self.stance.solve(
            tick.left_sole,
            tick.right_sole,
            tick.torso_height,
            tick.torso_rotation,
            com_target=tick.com,
        )
        if result.success:
            for name, value in result.positions.items():
                self.targets[self._index[name]] = value
        return result.success

    def settle(self, seconds: float) -> None:
        """Let the robot stand still for ``seconds`` (not logged)."""
        self.robot.step(round(seconds / self.robot.config.timestep))

    def run(
        self, schedule: Iterable[tuple[float, Command]], progress: Callable[[float], None] | None = None
    ) -> None:
        """Walk ``schedule``: (duration [s], command) pairs in order, a zero command stopping at
        once as walk_node's (:meth:`WalkingPatternGenerator.stop`); logs every tick."""
        dt = self.generator.config.dt
        substeps = max(round(dt / self.robot.config.timestep), 1)
        for duration, command in schedule:
            if any(command):
                self.generator.set_command(*command)
            else:
                self.generator.stop()
            for _ in range(round(duration / dt)):
                start = time.perf_counter()
                tick = self.generator.step()
                self._solve(tick)
                self.solve_seconds.append(time.perf_counter() - start)
                self.robot.set_targets(list(self.robot.joint_names), self.targets.tolist())
                self.robot.step(substeps)
                positions = dict(zip(self.robot.joint_names, self.robot.joint_state()[0]))
                self.log.add(tick, self.robot.time, self.robot.base_pose(), positions)
            if progress is not None:
                progress(self.robot.time)
