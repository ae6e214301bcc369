"""The front arms: both arms swung forward when a walking push drives the DCM back.

A push back in single support tips the robot over its support heel within 0.1-0.2 s, faster than
a 0.8 s swing can bring the other foot behind it (docs/walking.md, "Back pushes, 2026-11-29"):
the contact gives no moment about the heel's edge, so only the body's own parts can take the
backward angular momentum the push gives. Both shoulders are then flexed forward to
``front_arm_angle`` (within their joint limits), in proportion to the error up to ``FULL``
triggers: the arms' swing forward turns the body the other way by its reaction, and their mass
carries the CoM forward over the heel, the arm strategy of B. Stephens, "Humanoid push recovery"
(IEEE-RAS Humanoids 2007). The arms are held ``HOLD`` after the error last asked for them, then
brought back to where they were over ``LOWER``.

The shoulder joint is found from the limb tree (:func:`ik_solvers.limbs.tree.find_limbs`), never
by name: of an arm's first three joints, the one whose axis at q = 0 lies most along the root's y
(sideways), turned the way that moves the hand forward. A robot without arms, or whose arm no
such joint swings forward, has no front arm.

No ROS. Units: m, s, rad; world frame z up; the root frame REP-103 (x forward, y left).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.limbs.tree import find_limbs
from ik_solvers.model import RobotModel
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.far_arm import SHOULDER_JOINTS, swinging_joint

SIDEWAYS_AXIS = 0.5  # |axis · y| at least this: a joint that swings the arm forward and back
FORWARDS = 1e-3  # [m/rad] a hand moving less forward than this per radian: no flexion
STRAIGHT = 3.0  # the error back must be this many times its part across (1: pushes right fell at 0.15 m/s)
HOLD = 1.0  # [s] the arms stay forward this long after the error last asked for them
LOWER = 1.0  # [s] then come back to where they were over this time
FULL = 4.0  # the error, in triggers, that asks for the full swing (1: 0.15 m/s back fell, thrown forward)


def find_flexors(model: RobotModel, angle: float) -> dict[str, float]:
    """Shoulder joint → its angle [rad] with the arm swung ``angle`` forward (within the joint's
    limits), one per arm whose first joints include one that swings the hand forward."""
    found = {}
    for arm in find_limbs(model).arms:
        best = swinging_joint(model, arm.joint_names[:SHOULDER_JOINTS], arm.end_link, 1, SIDEWAYS_AXIS)
        if best is not None and abs(best[1][0]) >= FORWARDS:  # [m/rad] the hand's forward motion
            joint = model.joints[best[0]]
            found[best[0]] = float(np.clip(np.sign(best[1][0]) * angle, joint.lower, joint.upper))
    return found


class FrontArms:
    """When to swing both arms forward, and the shoulder angles commanded meanwhile (module docstring).

    Args:
        com: the CoM model (``q``'s order, the arms' mass in the CoM shift).
        trigger: [m] the DCM error backwards along the heading (``STRAIGHT`` times its part
            across it at least), while walking, that swings the arms forward (0: never).
        angle: [rad] how far the shoulders flex (within their limits).
    """

    def __init__(self, com: CenterOfMass, trigger: float, angle: float) -> None:
        self.com, self.trigger = com, trigger
        self.raised = find_flexors(com.model, angle) if trigger > 0.0 else {}
        self.rest: dict[str, float] = {}  # shoulder → its angle before the arms came forward [rad]
        self.asked: float | None = None  # [s] when the error last asked for the arms
        self.share = 0.0  # of the full swing, the most the error has asked for since the arms came up

    @property
    def out(self) -> bool:
        """Whether the arms are forward or being brought back (from the error's first ask until lowered)."""
        return self.asked is not None

    def update(
        self, time: float, free: bool, error: np.ndarray, yaw: float, q: np.ndarray
    ) -> dict[str, float]:
        """Shoulder joint → angle [rad] to command at ``time`` [s] (empty: the arms as they are).

        Args:
            free: single support, no other arm strategy and no capture step under way.
            error: (2,) the DCM error [m] in the world.
            yaw: [rad] the heading.
            q: (n,) the measured joints [rad].
        """
        along = np.cos(yaw) * error[0] + np.sin(yaw) * error[1]
        across = -np.sin(yaw) * error[0] + np.cos(yaw) * error[1]
        if self.raised and free and -along > max(self.trigger, STRAIGHT * abs(across)):
            if self.asked is None:
                self.rest, self.share = {name: float(q[self.com.index(name)]) for name in self.raised}, 0.0
            self.asked = time
            self.share = max(self.share, min(-along / (FULL * self.trigger), 1.0))
        if self.asked is None:
            return {}
        lowered = min(max(time - self.asked - HOLD, 0.0) / LOWER, 1.0)
        if lowered >= 1.0:
            self.asked = None
        up = self.share * (1.0 - lowered)
        return {name: rest + up * (self.raised[name] - rest) for name, rest in self.rest.items()}

    def com_shift(self, q: np.ndarray, command: dict[str, float], yaw: float) -> np.ndarray:
        """(2,) [m] how far the commanded shoulders move the CoM from where it is with the arms at
        rest (the other joints as measured in ``q``), in the world (the torso taken level at
        heading ``yaw``): added to the CoM target, so that a stance solve counting the arms' mass
        does not move the body back under them."""
        if not command:
            return np.zeros(2)
        return self.com.shift(q, command, self.rest, yaw)
