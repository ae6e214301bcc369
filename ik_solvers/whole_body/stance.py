"""Floating-base stance solve: the soles where they are on the ground, the torso placed so that
the centre of mass is over its target.

Unknowns: the torso's horizontal position (x, y) in the world. Given: both soles' world poses, the
torso's orientation and height, the other joints (arms: their masses count). For a torso position,
both legs are solved exactly (closed form; the numeric solver for legs that fit none), and the
centre of mass follows; Newton's method on the torso position drives the CoM's horizontal
projection onto its target, with the exact derivative

    dc/dp = I + R J_c,legs dq/dp,   dq/dp = -J_leg⁻¹ [Rᵀ; 0]   (each leg: its sole fixed in the world)

(R the torso rotation, J_c the CoM's joint Jacobian in the torso frame, J_leg the leg's geometric
Jacobian). A step that leaves the legs' reach or limits is halved until it does not (then tried
along x and y alone); when no step brings the CoM nearer, the last feasible pose is the answer
and the result says how far its CoM is from the target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ik_solvers.limbs import find_body
from ik_solvers.limbs.footprint import SoleGeometry, sole_geometry
from ik_solvers.model import RobotModel
from ik_solvers.solvers import InvalidTargetError
from ik_solvers.solvers.checks import check_targets
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.stance_legs import LegPair
from ik_solvers.whole_body.stance_search import StanceResult, StanceSearch

SUPPORTS = ("left", "right", "double")


class StanceSolver:
    """Torso pose and leg joints for given soles, CoM target, torso orientation and height.

    Keeps the last solution to seed the next solve (same IK branch, fewer iterations): one
    solver per robot, called once per control tick. Not thread-safe.

    Args:
        model: the robot; its root link is the floating base (the torso, or a frame on the floor).
        left_sole, right_sole: the sole links; None: the legs and soles found in the tree
            (:func:`ik_solvers.limbs.find_body`; :attr:`model` is then the model with the sole
            frames it adds).
        tolerance: [m] on the CoM's horizontal distance to its target (≤ 0.1 mm by default).
        max_iterations: leg-solve rounds per solve (a reachable target takes 1 to 3; an
            unreachable one uses them all to find the nearest stance, 3 to 8 ms here).
        soles: (left, right) footprints; None: from the feet's collision geometry. Without
            either, :attr:`soles` is None (:attr:`footprint_problem` says why) and every solve
            needs its ``com_target``.

    Raises:
        ValueError: the robot has no two 6-DoF legs with soles (the message says what it has).
    """

    def __init__(
        self,
        model: RobotModel,
        left_sole: str | None = None,
        right_sole: str | None = None,
        tolerance: float = 2e-5,
        max_iterations: int = 12,
        soles: tuple[SoleGeometry, SoleGeometry] | None = None,
    ) -> None:
        if not tolerance > 0.0 or max_iterations < 1:
            raise ValueError(f"tolerance {tolerance} m must be > 0 and max_iterations {max_iterations} >= 1")
        if left_sole is None or right_sole is None:
            body = find_body(model)
            if body.sole_links is None:
                raise ValueError(f"robot '{model.name}' cannot stand: {body.whole_body_problem}")
            model, (left_sole, right_sole) = body.model, body.sole_links
        self.model = model
        self.com = CenterOfMass(model)
        self.legs = LegPair(model, self.com, left_sole, right_sole)
        self.soles, self.footprint_problem = soles, ""
        if soles is None:
            try:
                self.soles = (sole_geometry(model, left_sole), sole_geometry(model, right_sole))
            except ValueError as error:
                self.footprint_problem = str(error)
        self.joint_names = self.legs.joint_names
        self.tolerance = float(tolerance)
        self.max_iterations = int(max_iterations)
        self.last = None  # the last solve's linearisation (stance_search.Linearised): the next guess

    def reset(self) -> None:
        """Forget the last solution (the next solve starts from the rest stance)."""
        self.last = None
        self.legs.reset()

    def com_target(
        self, left_sole: np.ndarray, right_sole: np.ndarray, support: str, offset=(0.0, 0.0)
    ) -> np.ndarray:
        """Default horizontal CoM target (2,) [m]: over the supporting sole's centre, or midway
        between both centres for double support; plus ``offset`` (world x, y [m])."""
        if support not in SUPPORTS:
            raise ValueError(f"support '{support}' is not one of {', '.join(SUPPORTS)}")
        if self.soles is None:
            raise ValueError(
                f"no default CoM target without footprints ({self.footprint_problem}); give com_target"
            )
        left = self.soles[0].center_in_world(left_sole)
        right = self.soles[1].center_in_world(right_sole)
        point = {"left": left, "right": right, "double": 0.5 * (left + right)}[support]
        return point + np.asarray(offset, dtype=float)

    def solve(
        self,
        left_sole: np.ndarray,
        right_sole: np.ndarray,
        torso_height: float,
        torso_rotation: np.ndarray | None = None,
        support: str = "double",
        com_target: np.ndarray | None = None,
        com_offset=(0.0, 0.0),
        joints: Mapping[str, float] | None = None,
    ) -> StanceResult:
        """Solve one stance.

        Args:
            left_sole, right_sole: (4, 4) sole poses in the world [m].
            torso_height: world z of the torso (root link) origin [m].
            torso_rotation: (3, 3) torso orientation in the world; None = level, facing the mean
                of the soles' headings.
            support: "left", "right" or "double"; picks the default CoM target.
            com_target: (2,) world x, y [m] instead of the default (then ``support`` is unused).
            com_offset: (2,) world x, y [m] added to the target.
            joints: positions [rad] of other joints (arms, head) by name; unnamed ones are at 0.
        Returns:
            StanceResult; never raises for an unreachable stance.
        Raises:
            ValueError: malformed poses, an unknown support or joint name, non-finite numbers.
        """
        left_sole, right_sole = _pose(left_sole, "left_sole"), _pose(right_sole, "right_sole")
        if com_target is None:
            target = self.com_target(left_sole, right_sole, support, com_offset)
        else:
            target = np.asarray(com_target, dtype=float)[:2] + np.asarray(com_offset, dtype=float)
        rotation = (
            _level_rotation(left_sole, right_sole) if torso_rotation is None else _rotation(torso_rotation)
        )
        height = float(torso_height)
        if not math.isfinite(target[0] + target[1] + height):
            raise ValueError(f"CoM target {target.tolist()} and torso height {height} must be finite")
        q = self.com.configuration(joints)
        return StanceSearch(self, left_sole, right_sole, rotation, height, target, q).run()


def _pose(pose, name: str) -> np.ndarray:
    """``pose`` as a checked (4, 4) float array; ValueError naming ``name`` otherwise."""
    try:
        return check_targets(pose)
    except InvalidTargetError as error:
        raise ValueError(f"{name}: {error}") from None


def _rotation(rotation) -> np.ndarray:
    rotation = np.asarray(rotation, dtype=float)
    if rotation.shape != (3, 3):
        raise ValueError(f"torso_rotation has shape {rotation.shape}; expected a (3, 3) rotation matrix")
    pose = np.eye(4)
    pose[:3, :3] = rotation
    return _pose(pose, "torso_rotation")[:3, :3]


def _level_rotation(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Level rotation facing the mean heading of both soles."""
    heading = left[:2, 0] + right[:2, 0]
    yaw = float(np.arctan2(heading[1], heading[0]))
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
