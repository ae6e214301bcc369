"""The far arm: raised sideways when a push drives the DCM out over the support sole's outer edge.

A push towards the support side in single support (the DCM error beyond ``arm_trigger`` outwards
over the support sole) asks the ankle for more than the sole's half width; the swinging foot is on
the wrong side to step under it. The arm on the other side (the swing side) is then abducted to
``arm_raise_angle`` (within its joint limit): its mass moves away from the push (the CoM with it)
and the abduction's reaction rolls the body back, the angular momentum strategy of J. Pratt,
J. Carff, S. Drakunov, A. Goswami, "Capture point: a step toward humanoid push recovery"
(Humanoids 2006). The arm is held until the next single support begins, then lowered to where it
was over ``arm_lower_time`` (lowered at once it threw the body back towards the fall:
docs/walking.md, "Support-side pushes: the two-step, the estimator's delay, the far arm").

While the arm is up the torso may also roll into the fall, its top towards the support side, up
to ``torso_roll`` [rad] as the DCM error grows from the trigger to twice it (reached over
``ROLL_RISE``, returned as the arm is lowered): the hip
strategy of B. Stephens, "Humanoid push recovery" (IEEE-RAS Humanoids 2007), the upper body's
rotation about the support hip pushing the hips and the CoM back (docs/walking.md,
"Support-side pushes: the torso's roll with the far arm").

The shoulder joint is found from the limb tree (:func:`ik_solvers.limbs.tree.find_limbs`), never
by name: of an arm's first three joints, the one whose axis at q = 0 lies most along the root's x
(forward), turned the way that moves the hand away from the middle plane. A robot without arms,
or whose arm no such joint moves outwards, has no far arm (:attr:`FarArm.shoulders` lacks it).

No ROS. Units: m, s, rad; world frame z up; the root frame REP-103 (x forward, y left).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.limbs.tree import find_limbs, zero_pose
from ik_solvers.model import RobotModel
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.swing import minimum_jerk

SHOULDER_JOINTS = 3  # an arm's shoulder: its first joints
SIDEWAYS = 0.5  # |axis · x| at least this: a joint that swings the arm sideways
OUTWARDS = 1e-3  # [m/rad] a hand moving less sideways than this per radian: no abduction
ROLL_RISE = 0.1  # [s] the torso's roll into the fall reaches its size over this (0.05 s: the same counts on the packaged robot)


@dataclass(frozen=True)
class Shoulder:
    """The abduction joint of one arm.

    Attributes:
        joint: its name; column: its index in ``q`` (:attr:`CenterOfMass.joint_names`).
        raised: [rad] the angle ``arm_raise_angle`` outwards, within the joint's limits.
    """

    joint: str
    column: int
    raised: float


def find_shoulders(model: RobotModel, com: CenterOfMass, angle: float) -> dict[str, Shoulder]:
    """Side ("left", "right") → the arm's :class:`Shoulder` raised by ``angle`` [rad]; sides
    without an arm, or whose shoulder swings no joint sideways, are absent."""
    found = {}
    for arm in find_limbs(model).arms:
        side = arm.name.split("_")[0]
        shoulder = _abduction(model, arm.joint_names[:SHOULDER_JOINTS], arm.end_link, side)
        if shoulder is not None:
            name, sign = shoulder
            joint = model.joints[name]
            raised = float(np.clip(sign * angle, joint.lower, joint.upper))
            found[side] = Shoulder(name, com.index(name), raised)
    return found


def swinging_joint(
    model: RobotModel, joints: tuple[str, ...], hand: str, axis: int, least: float
) -> tuple[str, np.ndarray] | None:
    """(joint, (3,) [m/rad] how fast ``hand`` moves per radian of it, in the root frame) of the
    joint among ``joints`` whose axis lies most along the root's axis ``axis`` (0: x, 1: y), at
    least ``least`` along it, at q = 0 (the first on ties); None when none is. The far arm's
    abduction joint (about x) and the front arms' flexion joint (about y) are found so."""
    hand_at = zero_pose(model, hand)[:3, 3]
    best, along = None, least
    for name in joints:
        frame = zero_pose(model, model.joints[name].child)
        turning = frame[:3, :3] @ model.joints[name].axis
        if abs(turning[axis]) >= along:
            best, along = (name, np.cross(turning, hand_at - frame[:3, 3])), abs(turning[axis])
    return best


def _abduction(model: RobotModel, joints: tuple[str, ...], hand: str, side: str) -> tuple[str, float] | None:
    """(joint, +1 or -1: the angle's sign that moves ``hand`` outwards) of the joint among
    ``joints`` whose axis lies most along the root's x, at q = 0; None when none is sideways."""
    found = swinging_joint(model, joints, hand, 0, SIDEWAYS)
    if found is None:
        return None
    outwards = found[1][1] * (1.0 if side == "left" else -1.0)  # [m/rad] the hand's sideways motion
    if abs(outwards) < OUTWARDS:
        return None
    return found[0], float(np.sign(outwards))


class FarArm:
    """When to raise which arm, and the shoulder angle commanded meanwhile (module docstring).

    Args:
        com: the CoM model (``q``'s order, the arm's mass in the CoM shift).
        trigger: [m] the lateral DCM error outwards over the support sole that raises the far
            arm (0: never).
        angle: [rad] how far the shoulder abducts (within its limits).
        lower_time: [s] the arm returns to where it was over this time, once the next single
            support has begun.
        torso_roll: [rad] the torso's roll into the fall while the arm is up (0: none).
    """

    def __init__(
        self, com: CenterOfMass, trigger: float, angle: float, lower_time: float, torso_roll: float = 0.0
    ) -> None:
        self.com, self.trigger, self.lower_time, self.roll = com, trigger, lower_time, torso_roll
        self.shoulders = find_shoulders(com.model, com, angle) if trigger > 0.0 else {}
        self.side: str | None = None  # the raised arm's side
        self.rest = 0.0  # [rad] the raised shoulder's angle before it was raised
        self.support = ""  # the single support it was raised in
        self.lowering_from: float | None = None  # [s] when it began to come down
        self.raised_at = 0.0  # [s] when it went up
        self.peak = 0.0  # [m] the largest outward DCM error while it is up (the roll's size)

    def update(
        self, time: float, support: str, error: np.ndarray, yaw: float, q: np.ndarray
    ) -> dict[str, float]:
        """The shoulder joint → angle [rad] to command at ``time`` [s] (empty: none raised).

        Args:
            support: "left", "right" or "double" (the plan's); error: (2,) the DCM error [m] in
                the world; yaw: [rad] the heading; q: (n,) the measured joints [rad].
        """
        if support in ("left", "right"):
            self._maybe_raise(time, support, error, yaw, q)
        if self.side is None:
            return {}
        shoulder = self.shoulders[self.side]
        if self.lowering_from is None and support in ("left", "right") and support != self.support:
            self.lowering_from = time
        if self.lowering_from is None:
            return {shoulder.joint: shoulder.raised}
        share = min((time - self.lowering_from) / self.lower_time, 1.0)
        if share >= 1.0:
            self.side = None
        return {shoulder.joint: shoulder.raised + share * (self.rest - shoulder.raised)}

    def torso_roll(self, time: float) -> float:
        """[rad] the roll about the heading to add to the torso's at ``time`` [s]: into the fall
        (its top towards the support side the push drives the robot to), ``torso_roll`` times the
        largest outward DCM error's excess over the trigger / the trigger (at most 1: a push that
        only just raises the arm rolls the torso little; a constant 0.2-0.3 rad lost 0.15 m/s
        pushes at 2-4 instants of 5 on two robots), reached over ``ROLL_RISE`` from the arm's
        raising and brought back as the arm is lowered; 0 while no arm is up. Call after
        :meth:`update` at the same time."""
        if self.side is None or self.roll == 0.0:
            return 0.0
        share = min(max(self.peak / self.trigger - 1.0, 0.0), 1.0)
        size = self.roll * share * minimum_jerk((time - self.raised_at) / ROLL_RISE)
        if self.lowering_from is not None:
            size *= 1.0 - min((time - self.lowering_from) / self.lower_time, 1.0)
        return -size if self.support == "left" else size  # R_x(-a) turns the top towards +y (left)

    def _maybe_raise(self, time: float, support: str, error: np.ndarray, yaw: float, q: np.ndarray) -> None:
        """Raise the arm opposite ``support`` when the error runs outwards over it beyond the
        trigger at ``time`` [s] (again, if it is coming down); not while the other arm is still up."""
        far = "right" if support == "left" else "left"
        outwards = -np.sin(yaw) * error[0] + np.cos(yaw) * error[1]  # towards the heading's left
        outwards = outwards if support == "left" else -outwards  # over the support sole's outer side
        if far not in self.shoulders or outwards <= self.trigger:
            return
        if self.side is None:
            self.side, self.rest = far, float(q[self.shoulders[far].column])
            self.raised_at, self.peak = time, 0.0
        if self.side == far:
            self.support, self.lowering_from = support, None
            self.peak = max(self.peak, outwards)

    def com_shift(self, q: np.ndarray, command: dict[str, float], yaw: float) -> np.ndarray:
        """(2,) [m] how far the commanded shoulder moves the CoM from where it is with the arm at
        rest (the other joints as measured in ``q``), in the world (the torso taken level at
        heading ``yaw``): added to the CoM target, so that a stance solve counting the raised
        arm's mass does not move the body back under it."""
        if not command:
            return np.zeros(2)
        return self.com.shift(q, command, dict.fromkeys(command, self.rest), yaw)
