"""Servo compliance compensation: command each leg joint past its goal by the deflection its load
will cause, so that a soft position servo ends where the plan wants it.

A position servo of stiffness ``k`` [N m/rad] holding a load torque ``tau`` [N m] settles at
``q = q_command - tau / k`` (and, with gear play ``b`` [rad], a further ``b / 2`` the same way:
the motor turns through half the play before it pushes). Commanding ``q_plan + tau / k +
sign(tau) b / 2`` puts the joint at ``q_plan``: a static compensation of the actuators' elasticity
(J. Kim, M. Kim and J. Park, "Improvement of Humanoid Walking Control by Compensating Actuator
Elasticity", IEEE-RAS Humanoids 2016, model the joints' deformation and compensate it the same way).

The load is that of the planned stance in static (or cart-table) equilibrium, each leg a chain
from the torso (the floating base) to its sole:

    tau = dV/dq - sum over the soles of J_sole^T W_sole

with ``V`` the potential energy of the links below each joint (``-M g . J_com``, the CoM's
Jacobian in the torso frame) and ``W_sole`` the ground's wrench on each sole (force [N]; moment
[N m] about the sole frame's origin; torso frame). The ground pushes with the robot's weight plus
the horizontal force of the cart-table model, ``M g / z_c (c - p)``, through the planned ZMP ``p``;
in double support the weight is shared linearly by where the ZMP lies between the soles' centres,
each sole's centre of pressure shifted by the same amount so that the moments add up.

A joint that carries (almost) no static load, a hip yaw above all, has its gear resting against
the side it is driven towards (friction and the links' inertia push back): where ``|tau|`` is
below ``BACKLASH_RAMP`` the play's side comes from the planned motion since the previous call
(the last direction moved, kept while the plan stands still). Left out, the hip yaws' play made
every turning step land its sole short, 0.75 deg a step on the packaged robot's MX-106 legs
(docs/walking.md, "The demo walks closed loop").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ik_solvers.whole_body.stance import SUPPORTS, StanceSolver

GRAVITY = 9.81  # [m/s^2]
BACKLASH_RAMP = 0.05  # [N m] load over which the play's half-width comes in fully (no chatter at 0)
MOTION_STEP = 1e-5  # [rad] a planned change between two calls smaller than this is no motion


@dataclass(frozen=True)
class Support:
    """The ground under the planned stance (world frame).

    Attributes:
        left_sole, right_sole: (4, 4) sole poses [m].
        support: "left", "right" or "double".
        zmp: (2,) world x, y [m] where the ground reaction acts (the planned ZMP; the CoM's
            horizontal position for a static stance).
    """

    left_sole: np.ndarray
    right_sole: np.ndarray
    support: str
    zmp: np.ndarray


class ComplianceCompensation:
    """Leg joint offsets [rad] that cancel the servos' deflection under the planned stance's load.

    Args:
        stance: the robot's stance solver (its legs, soles and centre of mass).
        stiffness: joint name → servo stiffness [N m/rad] (> 0); leg joints not named are not
            compensated (an ideal, stiff servo).
        backlash: joint name → total gear play [rad] (missing: 0).

    Raises:
        ValueError: a stiffness that is not a positive number (inf: stiff), a negative or non-finite
            backlash, or a name that is no leg joint (the message names the leg joints).
    """

    def __init__(
        self,
        stance: StanceSolver,
        stiffness: Mapping[str, float],
        backlash: Mapping[str, float] | None = None,
    ) -> None:
        self.stance = stance
        self.joint_names = stance.joint_names
        backlash = backlash or {}
        unknown = sorted(set(stiffness) - set(self.joint_names)) + sorted(
            set(backlash) - set(self.joint_names)
        )
        if unknown:
            raise ValueError(f"{unknown} are not leg joints; the legs' joints: {list(self.joint_names)}")
        self.compliance = np.zeros(len(self.joint_names))  # 1 / k [rad/(N m)], 0: stiff
        self.half_play = np.zeros(len(self.joint_names))  # [rad]
        for i, name in enumerate(self.joint_names):
            k, b = float(stiffness.get(name, np.inf)), float(backlash.get(name, 0.0))
            if not k > 0.0 or np.isnan(k):
                raise ValueError(f"{name}: stiffness {k} N m/rad refused; a positive number is required")
            if not (b >= 0.0 and np.isfinite(b)):
                raise ValueError(f"{name}: backlash {b} rad refused; a finite number >= 0 is required")
            self.compliance[i] = 0.0 if np.isinf(k) else 1.0 / k
            self.half_play[i] = 0.5 * b if np.isfinite(k) else 0.0
        self._mass = stance.com.total_mass
        self._last_plan: np.ndarray | None = None  # (12,) the legs' planned positions at the last call
        self._moved = np.zeros(len(self.joint_names))  # the sign of each joint's last planned motion

    @classmethod
    def from_servo_models(
        cls, stance: StanceSolver, models: Mapping[str, object | None]
    ) -> ComplianceCompensation:
        """From each joint's servo model (:class:`ik_solvers.sim.servo_models.ServoModel`: its
        ``stiffness`` [N m/rad] and ``backlash`` [rad]; None: ideal); joints that are not leg
        joints are left out."""
        legs = {
            name: model for name, model in models.items() if name in stance.joint_names and model is not None
        }
        return cls(
            stance,
            {name: model.stiffness for name, model in legs.items()},
            {name: model.backlash for name, model in legs.items()},
        )

    def offsets(self, q: np.ndarray, torso_pose: np.ndarray, ground: Support) -> np.ndarray:
        """(12,) [rad] to add to the legs' planned positions (``stance.joint_names`` order).

        Args:
            q: (n,) every joint's planned position [rad] (``stance.com.joint_names`` order).
            torso_pose: (4, 4) the torso (root link) in the world [m], as the stance solve placed it.
            ground: where the ground supports the robot.
        """
        torque = self.torques(q, torso_pose, ground)
        load = np.clip(torque / BACKLASH_RAMP, -1.0, 1.0)
        side = load + (1.0 - np.abs(load)) * self._motion(q[self.stance.legs.columns])
        return torque * self.compliance + self.half_play * side

    def _motion(self, plan: np.ndarray) -> np.ndarray:
        """(12,) the sign (-1, 0, 1) of each leg joint's last planned motion, ``plan`` (12,) [rad]
        the planned positions of this call (module docstring)."""
        if self._last_plan is not None:
            change = plan - self._last_plan
            self._moved = np.where(np.abs(change) > MOTION_STEP, np.sign(change), self._moved)
        self._last_plan = plan.copy()
        return self._moved

    def torques(self, q: np.ndarray, torso_pose: np.ndarray, ground: Support) -> np.ndarray:
        """(12,) [N m] the torque each leg servo holds in the planned stance (module docstring)."""
        rotation = torso_pose[:3, :3]
        com, jacobian = self.stance.com.local(q[None, :])
        gravity = rotation.T @ np.array([0.0, 0.0, -GRAVITY])  # torso frame
        legs = self.stance.legs
        torque = -self._mass * gravity @ jacobian[0][:, legs.columns]
        world_com = rotation @ com[0] + torso_pose[:3, 3]
        start = 0
        for chain, sole, share, pressure in zip(
            legs.chains, (ground.left_sole, ground.right_sole), *self._shares(ground)
        ):
            size = chain.n
            if share > 0.0:
                wrench = self._sole_wrench(world_com, sole, share, pressure, ground.zmp, torso_pose)
                torque[start : start + size] -= (
                    chain.jacobian(q[legs.columns[start : start + size]]).T @ wrench
                )
            start += size
        return torque

    def _shares(self, ground: Support) -> tuple[tuple[float, float], tuple[np.ndarray, np.ndarray]]:
        """Each sole's share of the weight and its centre of pressure (2,) in the world [m], kept
        within the sole's footprint (the ground pushes nowhere else)."""
        poses = (ground.left_sole, ground.right_sole)
        shares, pressures = self._spread(ground)
        return shares, tuple(self._on_sole(p, pose, i) for i, (p, pose) in enumerate(zip(pressures, poses)))

    def _on_sole(self, point: np.ndarray, pose: np.ndarray, side: int) -> np.ndarray:
        """``point`` (2,) world x, y [m] moved into the box around sole ``side``'s footprint."""
        if self.stance.soles is None:
            return point
        polygon = self.stance.soles[side].polygon
        local = pose[:2, :2].T @ (point - pose[:2, 3])
        return pose[:2, :2] @ np.clip(local, polygon.min(axis=0), polygon.max(axis=0)) + pose[:2, 3]

    def _spread(self, ground: Support) -> tuple[tuple[float, float], tuple[np.ndarray, np.ndarray]]:
        """Each sole's share of the weight and its centre of pressure (2,) in the world [m]."""
        zmp = np.asarray(ground.zmp, dtype=float)[:2]
        if ground.support not in SUPPORTS:
            raise ValueError(f"support '{ground.support}' is not one of {', '.join(SUPPORTS)}")
        if ground.support != "double":
            left = 1.0 if ground.support == "left" else 0.0
            return (left, 1.0 - left), (zmp, zmp)
        soles = self.stance.soles
        centres = (
            [soles[0].center_in_world(ground.left_sole), soles[1].center_in_world(ground.right_sole)]
            if soles is not None
            else [ground.left_sole[:2, 3], ground.right_sole[:2, 3]]
        )
        across = centres[0] - centres[1]
        left = float(np.clip((zmp - centres[1]) @ across / max(across @ across, 1e-12), 0.0, 1.0))
        shift = zmp - (left * centres[0] + (1.0 - left) * centres[1])
        return (left, 1.0 - left), (centres[0] + shift, centres[1] + shift)

    def _sole_wrench(
        self,
        com: np.ndarray,
        sole: np.ndarray,
        share: float,
        pressure: np.ndarray,
        zmp: np.ndarray,
        torso_pose: np.ndarray,
    ) -> np.ndarray:
        """(6,) the ground's force and moment about the sole origin on one sole, torso frame."""
        height = max(com[2] - sole[2, 3], 1e-3)
        force = share * self._mass * GRAVITY * np.array([*(com[:2] - zmp[:2]) / height, 1.0])
        point = np.array([pressure[0], pressure[1], sole[2, 3]])
        moment = np.cross(point - sole[:3, 3], force)
        rotation = torso_pose[:3, :3]
        return np.concatenate([rotation.T @ force, rotation.T @ moment])


class CartTableZmp:
    """The ZMP of a stream of CoM targets, for a caller that is not told the plan's ZMP.

    Cart-table model (Kajita et al. 2003): ``p = c - z_c / g * c''``, ``c''`` from the last three
    CoM targets' second difference over their times (the pattern's CoM is smooth at 100 Hz). The
    CoM itself until three targets came, and after a gap longer than ``max_gap`` [s].
    """

    def __init__(self, max_gap: float = 0.1) -> None:
        self.max_gap = float(max_gap)
        self._history: list[tuple[float, np.ndarray]] = []

    def update(self, time: float, com: np.ndarray, height: float) -> np.ndarray:
        """(2,) world x, y [m] of the ZMP for the CoM target ``com`` (2,) [m] at ``time`` [s],
        ``height`` [m] the CoM's height over the ground."""
        com = np.asarray(com, dtype=float)[:2].copy()
        if self._history and not 0.0 < time - self._history[-1][0] <= self.max_gap:
            self._history.clear()
        self._history = [*self._history[-2:], (float(time), com)]
        if len(self._history) < 3:
            return com
        (t0, c0), (t1, c1), (t2, c2) = self._history
        acceleration = 2.0 * ((c2 - c1) / (t2 - t1) - (c1 - c0) / (t1 - t0)) / (t2 - t0)
        return com - max(height, 0.0) / GRAVITY * acceleration
