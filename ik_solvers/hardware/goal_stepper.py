"""The servo bridge's goals: commands taken by joint name, goals stepped toward them, held when stale.

Goals move toward the latest command at no more than each joint's velocity limit [rad/s] and
never leave the calibrated range; a command is followed for ``command_timeout`` seconds of the
bridge's own steps (each cycle counts what its goal step covers, at most 0.1 s: a late cycle does
not age a command more than it moves the goals), then the goals hold. Commands may arrive on
another thread than the cycle's: they are taken whole under a lock.

No ROS, no bus. Angles in radians, joint order the calibration's.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ik_solvers.hardware.bridge_config import CommandUse
from ik_solvers.hardware.calibration import JointCalibration


class GoalStepper:
    """Goals [rad] one step at a time toward the latest command (see the module docstring).

    Args:
        joints: the calibration's joints (their calibrated ranges bound commands and goals).
        max_velocity: (n,) each joint's largest goal speed [rad/s].
        command_timeout: [s] of goal steps a command is followed for.
    """

    def __init__(
        self, joints: tuple[JointCalibration, ...], max_velocity: np.ndarray, command_timeout: float
    ) -> None:
        self.index = {j.joint: k for k, j in enumerate(joints)}
        self.max_velocity = max_velocity
        self.low, self.high = np.array([j.angle_range() for j in joints]).T
        self.command_timeout = command_timeout
        self.goals = np.zeros(len(joints))  # [rad]
        self.command = np.zeros(len(joints))  # [rad]
        self.command_age = math.inf  # [s] of goal steps since the latest command arrived
        self.command_lock = threading.Lock()  # set_command may come from another thread than next_goals

    def hold_at(self, present: np.ndarray) -> None:
        """Goals and command := ``present`` (n,) [rad] (clamped to the calibrated range); no
        command is pending."""
        self.goals = np.clip(present, self.low, self.high)
        with self.command_lock:
            self.command = self.goals.copy()
            self.command_age = math.inf

    def set_command(self, names: list[str], positions: list[float]) -> CommandUse:
        """Take joint targets [rad] by name, received now; what was used and skipped.

        Unknown names, non-finite values and values without a name are skipped; targets are
        clamped to the calibrated range. Safe to call from another thread than
        :meth:`next_goals`'s: the command is taken whole, never half written.
        """
        unknown, not_finite, targets = [], [], {}
        for name, value in zip(names, positions):
            k = self.index.get(name)
            if k is None:
                unknown.append(name)
            elif not math.isfinite(value):
                not_finite.append(name)
            else:
                targets[k] = min(max(value, self.low[k]), self.high[k])
        used = min(len(names), len(positions)) - len(unknown) - len(not_finite)
        with self.command_lock:
            for k, value in targets.items():
                self.command[k] = value
            if used:
                self.command_age = 0.0
        return CommandUse(used, unknown, not_finite, max(0, len(positions) - len(names)))

    def next_goals(self, dt: float, moving: bool) -> np.ndarray:
        """Goals [rad] one step of ``dt`` [s] toward the command when ``moving`` (the servos
        healthy, torque on) and the command fresh; else held. The command ages by ``dt`` either way."""
        with self.command_lock:
            command, fresh = self.command.copy(), self.command_age <= self.command_timeout
            self.command_age += dt
        if fresh and moving:
            step = np.clip(command - self.goals, -self.max_velocity * dt, self.max_velocity * dt)
            self.goals = np.clip(self.goals + step, self.low, self.high)
        return self.goals
