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

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.sole import SoleGeometry, sole_geometry
from ik_solvers.whole_body.stance_legs import LegPair

SUPPORTS = ("left", "right", "double")
SMALLEST_STEP = 1e-7  # [m] a blocked step halved below this ends the search
IDENTITY = np.eye(3)


@dataclass(frozen=True)
class StanceResult:
    """One stance solve.

    Attributes:
        success: both legs exact and within limits, and the CoM within tolerance of its target.
        com_reachable: the CoM target was met; False: the nearest feasible pose found is returned.
        torso_pose: (4, 4) the torso (root link) in the world [m].
        joint_names: the left leg's then the right leg's joints.
        q: (12,) their positions [rad], in ``joint_names`` order; finite, within limits.
        com: (3,) the centre of mass in the world [m]. com_target: (2,) its horizontal target [m].
        com_error: horizontal distance [m] from ``com`` to ``com_target``.
        iterations: leg-solve rounds used. message: why it failed, or how it succeeded.
    """

    success: bool
    com_reachable: bool
    torso_pose: np.ndarray
    joint_names: tuple[str, ...]
    q: np.ndarray
    com: np.ndarray
    com_target: np.ndarray
    com_error: float
    iterations: int
    message: str

    @property
    def positions(self) -> dict[str, float]:
        """Leg joint name → position [rad]."""
        return dict(zip(self.joint_names, self.q.tolist()))


class StanceSolver:
    """Torso pose and leg joints for given soles, CoM target, torso orientation and height.

    Keeps the last solution to seed the next solve (same IK branch, fewer iterations): one
    solver per robot, called once per control tick. Not thread-safe.

    Args:
        model: the robot; its root link is the torso (floating base).
        left_sole, right_sole: the sole links (REP-120 ``l_sole``, ``r_sole``).
        tolerance: [m] on the CoM's horizontal distance to its target (≤ 0.1 mm by default).
        max_iterations: leg-solve rounds per solve.
    """

    def __init__(
        self,
        model: RobotModel,
        left_sole: str = "l_sole",
        right_sole: str = "r_sole",
        tolerance: float = 2e-5,
        max_iterations: int = 30,
    ) -> None:
        if not tolerance > 0.0 or max_iterations < 1:
            raise ValueError(f"tolerance {tolerance} m must be > 0 and max_iterations {max_iterations} >= 1")
        self.model = model
        self.com = CenterOfMass(model)
        self.legs = LegPair(model, self.com, left_sole, right_sole)
        self.soles: tuple[SoleGeometry, SoleGeometry] = (
            sole_geometry(model, left_sole),
            sole_geometry(model, right_sole),
        )
        self.joint_names = self.legs.joint_names
        self.tolerance = float(tolerance)
        self.max_iterations = int(max_iterations)
        self._last = None  # (torso x, y, CoM in the torso frame, dc/dp) of the last solve: the next guess

    def reset(self) -> None:
        """Forget the last solution (the next solve starts from the rest stance)."""
        self._last = None
        self.legs.reset()

    def com_target(
        self, left_sole: np.ndarray, right_sole: np.ndarray, support: str, offset=(0.0, 0.0)
    ) -> np.ndarray:
        """Default horizontal CoM target (2,) [m]: over the supporting sole's centre, or midway
        between both centres for double support; plus ``offset`` (world x, y [m])."""
        if support not in SUPPORTS:
            raise ValueError(f"support '{support}' is not one of {', '.join(SUPPORTS)}")
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
        if not (np.all(np.isfinite(target)) and np.isfinite(height)):
            raise ValueError(f"CoM target {target.tolist()} and torso height {height} must be finite")
        q = self.com.configuration(joints)
        search = _Search(self, left_sole, right_sole, rotation, height, target, q)
        return search.run()


class _Search:
    """The Newton search of one solve (module docstring); its state between rounds."""

    def __init__(self, solver: StanceSolver, left, right, rotation, height, target, q) -> None:
        self.solver, self.legs = solver, solver.legs
        self.rotation, self.height, self.target, self.q = rotation, height, target, q
        self.legs.set_soles(left, right)
        self.rounds, self.best = 0, None  # best: (error, p, legs q, com world, com local, jacobian)
        self.derivative = None  # (best, (2, 2) dc/dp there) once computed

    def run(self) -> StanceResult:
        solver = self.solver
        p = self._first_guess()
        step = None
        while self.rounds < solver.max_iterations:
            found = self._evaluate(p)
            if found is not None and (self.best is None or found[0] < self.best[0]):
                self.best = found
                if found[0] <= solver.tolerance:
                    break
                step = self._newton_step()
            elif self.best is None:
                if step is not None or not np.allclose(p, self._hips_over_soles()):
                    p, step = self._hips_over_soles(), None
                    continue
                break
            else:
                step = 0.5 * step
                if np.linalg.norm(step) < SMALLEST_STEP:
                    step = self._slide()
                    if step is None:
                        break
            p = self.best[1] + step
        return self._result()

    def _first_guess(self) -> np.ndarray:
        """The last solve's Newton step carried over: the torso x, y where the CoM would be on the
        target if the CoM kept its place in the torso frame and its derivative (legs, arms and
        soles as last time, turned with the torso)."""
        if self.solver._last is None:
            return self._hips_over_soles()
        p, local, derivative = self.solver._last
        miss = self.target - p - (self.rotation @ local)[:2]
        return p + np.linalg.solve(derivative, miss)

    def _hips_over_soles(self) -> np.ndarray:
        """Torso x, y that puts the hips' midpoint over the soles' midpoint: inside both reaches."""
        return self.legs.hips_over_soles(self.rotation)

    def _evaluate(self, p):
        """Legs solved at torso position p; (error, p, q, com, local) if both legs succeed."""
        self.rounds += 1
        pose = self._torso(p)
        ok, q = self.legs.solve(pose, self.q)
        if not ok:
            if self.best is None:
                self.failed = (p, q.copy(), self.legs.message)
            return None
        local, jacobian = self.legs.com_local(q)
        com = self.rotation @ local + pose[:3, 3]
        return float(np.hypot(*(com[:2] - self.target))), p, q.copy(), com, local, jacobian

    def _newton_step(self) -> np.ndarray:
        _, _, q, com, _, jacobian = self.best
        if self.derivative is None or self.derivative[0] is not self.best:
            self.derivative = (self.best, self.legs.com_derivative(q, self.rotation, jacobian))
        return -np.linalg.solve(self.derivative[1], com[:2] - self.target)

    def _slide(self):
        """A step along x or y alone (half the Newton step's part), if one lowers the error."""
        full = self._newton_step()
        for axis in (0, 1):
            step = np.zeros(2)
            step[axis] = full[axis]
            while np.abs(step[axis]) >= SMALLEST_STEP and self.rounds < self.solver.max_iterations:
                found = self._evaluate(self.best[1] + step)
                if found is not None and found[0] < self.best[0] - SMALLEST_STEP:
                    self.best = found
                    return self._newton_step()
                step *= 0.5
        return None

    def _torso(self, p) -> np.ndarray:
        pose = np.eye(4)
        pose[:3, :3] = self.rotation
        pose[:2, 3], pose[2, 3] = p, self.height
        return pose

    def _result(self) -> StanceResult:
        solver = self.solver
        names = solver.joint_names
        if self.best is None:
            p, q, message = self.failed
            pose = self._torso(p)
            self.q[self.legs.columns] = q
            com = solver.com.position(self.q, pose)
            error = float(np.hypot(*(com[:2] - self.target)))
            message = f"the legs cannot reach the soles from any torso position tried: {message}"
            return StanceResult(False, False, pose, names, q, com, self.target, error, self.rounds, message)
        error, p, q, com, local, _ = self.best
        # dc/dp changes slowly: the last one serves again when this solve needed no Newton step
        if self.derivative is None and solver._last is None:
            self._newton_step()
        derivative = solver._last[2] if self.derivative is None else self.derivative[1]
        solver._last = (p, local, derivative)
        self.legs.remember(q)
        reached = error <= solver.tolerance
        message = (
            f"stance solved: legs exact, CoM {error * 1e3:.3f} mm from its target"
            if reached
            else f"CoM target out of reach within the legs' reach and joint limits: the nearest feasible "
            f"stance found leaves the CoM {error * 1e3:.2f} mm from it"
        )
        return StanceResult(
            reached, reached, self._torso(p), names, q, com, self.target, error, self.rounds, message
        )


def _pose(pose, name: str) -> np.ndarray:
    pose = np.asarray(pose, dtype=float)
    if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
        raise ValueError(
            f"{name} has shape {pose.shape} or non-finite entries; expected a finite (4, 4) pose [m]"
        )
    _rotation(pose[:3, :3])
    return pose


def _rotation(rotation) -> np.ndarray:
    rotation = np.asarray(rotation, dtype=float)
    if rotation.shape == (3, 3) and np.all(np.isfinite(rotation)):
        (a, b, c), (d, e, f), (g, h, i) = rotation.tolist()
        determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        if determinant > 0 and np.abs(rotation.T @ rotation - IDENTITY).max() <= 1e-6:
            return rotation
    raise ValueError("a rotation must be a finite (3, 3) orthonormal matrix with determinant +1")


def _level_rotation(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Level rotation facing the mean heading of both soles."""
    heading = left[:2, 0] + right[:2, 0]
    yaw = float(np.arctan2(heading[1], heading[0]))
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
