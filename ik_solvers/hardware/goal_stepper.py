"""The servo bridge's goals: commands taken by joint name, goals stepped toward them, held when stale.

Goals move toward the latest command at no more than each joint's velocity limit [rad/s] and
never leave the calibrated range. The joints of one chain (a limb: :func:`limb_chains`) move
along the straight line in joint space: each step of the chain is shortened until no joint of it
exceeds its limit, so that they all arrive together. Stepping each joint on its own bent a far
move (ik_node's :mod:`~ik_solvers.control.command_filter` had the same fault: a leg bent from
straight to the walking stance with its knee arriving in 22 periods, hip and ankle in 11, had
the sole commanded 27 degrees pitched on the way). Chains step apart: an arm's far goal does not
slow a leg.

A command is followed for ``command_timeout`` seconds of the bridge's own steps (each cycle
counts what its goal step covers, at most 0.1 s: a late cycle does not age a command more than
it moves the goals), then the goals hold. Commands may arrive on another thread than the
cycle's: they are taken whole under a lock.

No ROS, no bus. Angles in radians, joint order the calibration's.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np

from ik_solvers.hardware.bridge_config import CommandUse
from ik_solvers.hardware.calibration import JointCalibration
from ik_solvers.limbs.tree import find_limbs
from ik_solvers.model import RobotModel


def limb_chains(model: RobotModel) -> tuple[tuple[str, ...], ...]:
    """The movable joints of each limb of ``model`` (legs, arms, others: :func:`find_limbs`),
    from the body outwards: the chains whose joints step together."""
    return tuple(limb.joint_names for limb in find_limbs(model).every)


class GoalStepper:
    """Goals [rad] one step at a time toward the latest command (see the module docstring).

    Args:
        joints: the calibration's joints (their calibrated ranges bound commands and goals).
        max_velocity: (n,) each joint's largest goal speed [rad/s].
        command_timeout: [s] of goal steps a command is followed for.
        chains: joint names of each chain whose joints step together (names without a servo are
            passed over); a joint in none steps on its own.

    Raises:
        ValueError: a joint named in two chains (both named).
    """

    def __init__(
        self,
        joints: tuple[JointCalibration, ...],
        max_velocity: np.ndarray,
        command_timeout: float,
        chains: Sequence[Sequence[str]] = (),
    ) -> None:
        self.index = {j.joint: k for k, j in enumerate(joints)}
        self.chain_of = _chain_numbers(self.index, chains)  # (n,) joints of one chain share a number
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
            way = command - self.goals
            self.goals = np.clip(self.goals + self._share(way, dt) * way, self.low, self.high)
        return self.goals

    def _share(self, way: np.ndarray, dt: float) -> np.ndarray:
        """(n,) the share of ``way`` (n,) [rad] each joint moves in a step of ``dt`` [s]: its
        chain's, the largest that keeps every joint of the chain within its velocity limit (1
        when all arrive)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            steps = np.where(way == 0.0, 0.0, np.abs(way) / (self.max_velocity * dt))  # > 1: beyond
        worst = np.ones(int(self.chain_of.max(initial=-1)) + 1)
        np.maximum.at(worst, self.chain_of, steps)
        return 1.0 / worst[self.chain_of]


def _chain_numbers(index: dict[str, int], chains: Sequence[Sequence[str]]) -> np.ndarray:
    """(n,) a number per joint of ``index`` (name → position), the same for the joints of one of
    ``chains``, its own for a joint in none."""
    numbers = np.arange(len(chains), len(chains) + len(index))
    named: dict[str, int] = {}
    for number, chain in enumerate(chains):
        for name in chain:
            if name in named:
                raise ValueError(
                    f"joint {name!r} is in two chains ({named[name]} and {number}); one chain each is accepted"
                )
            named[name] = number
            if name in index:
                numbers[index[name]] = number
    return numbers
