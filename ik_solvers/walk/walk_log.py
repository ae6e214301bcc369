"""A record of a walk: what the pattern generator planned and what the simulated robot did.

No ROS here. Two series, each in time order (seconds of simulated or wall time, one clock):

- plan: support state, both soles' planned poses, the CoM target and the ZMP reference,
- measured: the torso (root link) pose in the world and every joint's position, from which the
  soles' actual poses and the actual centre of mass follow (FK and the URDF inertials).

The world frame is the simulator's (``odom``): z up, the floor at z = 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.whole_body import CenterOfMass, SoleGeometry, StanceSolver, WalkGeometry

SUPPORT_CODES = {"double": 0, "left": 1, "right": 2}  # WholeBodyTarget's SUPPORT_* values


def base_matrix(pose: np.ndarray) -> np.ndarray:
    """(..., 4, 4) of (..., 7) poses (x, y, z, qw, qx, qy, qz) [m]."""
    pose = np.asarray(pose, dtype=float)
    w, x, y, z = (pose[..., i] for i in range(3, 7))
    matrix = np.zeros((*pose.shape[:-1], 4, 4))
    matrix[..., 0, :3] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1)
    matrix[..., 1, :3] = np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1)
    matrix[..., 2, :3] = np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)
    matrix[..., :3, 3] = pose[..., :3]
    matrix[..., 3, 3] = 1.0
    return matrix


class WalkLog:
    """Plan and measurement samples of one walk; see the module docstring."""

    def __init__(
        self, model: RobotModel, soles: tuple[str, str], footprints: tuple[SoleGeometry, SoleGeometry]
    ) -> None:
        """Args: model: the robot, with its sole frames (``StanceSolver.model``); soles: the (left,
        right) sole links; footprints: their footprints (for the support polygons)."""
        self.model = model
        self.com_model = CenterOfMass(model)
        self.legs = (model.chain(model.root, soles[0]), model.chain(model.root, soles[1]))
        self.footprints = footprints
        self.plan_times: list[float] = []
        self.supports: list[int] = []
        self.planned_soles: list[np.ndarray] = []  # (2, 4, 4) left, right
        self.planned_com: list[np.ndarray] = []  # (2,)
        self.zmp_reference: list[np.ndarray] = []  # (2,)
        self.measured_times: list[float] = []
        self.bases: list[np.ndarray] = []  # (7,)
        self.joints: list[np.ndarray] = []  # (n,) in CenterOfMass.joint_names order

    @classmethod
    def for_walk(cls, stance: StanceSolver, geometry: WalkGeometry) -> WalkLog:
        """A log of the walk that ``stance`` solves, with ``geometry``'s footprints."""
        return cls(stance.model, stance.legs.sole_links, geometry.soles)

    def add_plan(self, t: float, support: str, left: np.ndarray, right: np.ndarray, com, zmp) -> None:
        """A planned instant: support ("double" | "left" | "right"), soles (4, 4), CoM and ZMP (2,) [m]."""
        self.plan_times.append(t)
        self.supports.append(SUPPORT_CODES[support])
        self.planned_soles.append(np.stack([left, right]))
        self.planned_com.append(np.asarray(com, dtype=float)[:2])
        self.zmp_reference.append(np.asarray(zmp, dtype=float)[:2])

    def add_measured(self, t: float, base: np.ndarray, positions: Mapping[str, float]) -> None:
        """A simulated instant: torso pose (7,) (x, y, z, qw, qx, qy, qz) and joint positions [rad]."""
        self.measured_times.append(t)
        self.bases.append(np.asarray(base, dtype=float))
        self.joints.append(self.com_model.configuration(positions))

    def add(self, tick, t: float, base: np.ndarray, positions: Mapping[str, float]) -> None:
        """A pattern-generator tick and the simulated state at the same time ``t`` [s]."""
        self.add_plan(t, tick.support, tick.left_sole, tick.right_sole, tick.com, tick.zmp_reference)
        self.add_measured(t, base, positions)

    def measured(self) -> dict[str, np.ndarray]:
        """Arrays of the measured series: times (N,), base (N, 7), soles (N, 2, 4, 4), com (N, 3),
        support (N,) (the planned support at each measurement, -1 before the plan starts)."""
        times, bases = np.array(self.measured_times), np.array(self.bases)
        q = np.array(self.joints)
        torso = base_matrix(bases)
        soles = []
        for chain in self.legs:
            columns = [self.com_model.index(name) for name in chain.joint_names]
            soles.append(torso @ chain.fk(q[:, columns]))
        return {
            "times": times,
            "base": bases,
            "soles": np.stack(soles, axis=1),
            "com": self.com_model.position(q, torso),
            "support": self.support_at(times),
        }

    def support_at(self, times: np.ndarray) -> np.ndarray:
        """(N,) the planned support code in force at each time (-1 before the first plan sample).
        Plan samples in time order (recorded by their stamps, two planners' may interleave at a
        hand-over), equal times in the order recorded."""
        if not self.plan_times:
            return np.full(len(times), -1)
        order = np.argsort(self.plan_times, kind="stable")
        index = np.searchsorted(np.array(self.plan_times)[order], times, side="right") - 1
        supports = np.array(self.supports)[order]
        return np.where(index >= 0, supports[np.clip(index, 0, None)], -1)
