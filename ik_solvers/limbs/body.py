"""A robot's body as the package uses it: its limbs and sole frames (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ik_solvers.limbs.soles import derived_sole, existing_sole
from ik_solvers.limbs.tree import Limb, Limbs, find_limbs
from ik_solvers.model import RobotModel

SOLE_SUFFIX = "_sole"
TIP_SUFFIX = "_tip"
POSITION_ONLY_JOINTS = 6  # an arm of fewer joints is solved for its tip's position only
OFF_AXIS = 1e-3  # [m] a centre of mass this far from the last joint's axis is moved by that joint


@dataclass(frozen=True)
class Body:
    """The limbs of a robot and the model they are chains of.

    Attributes:
        model: the robot, with a sole frame added to each foot that had none (named
            ``<foot link>_sole``).
        limbs: legs (tips: the soles), arms and other limbs.
        added_soles: the sole frames this package added (empty when the description has them).
        added_tips: the arm tip frames this package added (see :func:`find_body`).
        whole_body_problem: why the robot cannot stand or walk ("" when it can: two 6-DoF legs
            with sole frames).
    """

    model: RobotModel
    limbs: Limbs
    added_soles: tuple[str, ...]
    whole_body_problem: str
    added_tips: tuple[str, ...] = ()

    @property
    def legs(self) -> tuple[Limb, Limb] | None:
        """(left, right) legs, or None."""
        return self.limbs.legs

    @property
    def sole_links(self) -> tuple[str, str] | None:
        """(left, right) sole frames when the robot can stand, else None."""
        if self.whole_body_problem:
            return None
        return self.legs[0].tip_link, self.legs[1].tip_link

    @property
    def chains(self) -> dict[str, tuple[str, str]]:
        """Chain name → (base link, tip link): the legs, then the arms."""
        limbs = (*(self.legs or ()), *self.limbs.arms)
        return {limb.name: (limb.base_link, limb.tip_link) for limb in limbs}


def find_body(model: RobotModel) -> Body:
    """The limbs of ``model``, with sole frames found or made (package docstring), and a tip
    frame made for each arm that has fewer than 6 joints and nothing fixed to its last link.

    Such an arm is solved for its tip's position only, and its last link's origin lies on its
    last joint's axis (URDF puts it there), so that joint could never move it: the tip frame
    ``<last link>_tip`` sits at that link's centre of mass instead (its orientation), where the
    last joint does move it (an elbow's forearm). Without a mass off that axis the link stays
    the tip.
    """
    limbs, tips = _arm_tips(model, find_limbs(model))
    if tips:
        model = model.with_frames(tips)
    if limbs.legs is None or limbs.no_legs:
        return Body(model, limbs, (), limbs.no_legs, tuple(tips))
    frames, legs, problems = {}, [], _shared_leg_joints(model, limbs.legs)
    for leg in limbs.legs:
        try:
            sole = existing_sole(model, leg.end_link)
            if sole is None:
                sole = _free_name(model, leg.end_link + SOLE_SUFFIX)
                frames[sole] = (leg.end_link, derived_sole(model, leg.end_link))
        except ValueError as error:  # no geometry, or a mesh that does not load
            problems.append(str(error))
            sole = leg.end_link
        legs.append(replace(leg, tip_link=sole))
    model = model.with_frames(frames) if frames else model
    limbs = replace(limbs, legs=(legs[0], legs[1]))
    return Body(model, limbs, tuple(frames), "; ".join(problems), tuple(tips))


def _shared_leg_joints(model: RobotModel, legs: tuple[Limb, Limb]) -> list[str]:
    """Why the legs cannot stand when a leg joint follows another (URDF ``<mimic>``), else []."""
    return [
        f"leg joint '{name}' follows '{model.joints[name].mimic}' (<mimic>): the legs share a joint (one motor "
        f"for both, as a NAO's HipYawPitch), but standing and walking solve each leg's {len(leg.joint_names)} "
        "joints on their own; each leg needs 6 joints of its own"
        for leg in legs
        for name in leg.joint_names
        if model.joints[name].mimic
    ]


def _arm_tips(model: RobotModel, limbs: Limbs) -> tuple[Limbs, dict[str, tuple[str, np.ndarray]]]:
    """``limbs`` with the arms' tips moved to the frames made for them (:func:`find_body`), and
    those frames: name → (last link, (4, 4) pose in it)."""
    frames, arms = {}, []
    for arm in limbs.arms:
        inertial = model.inertials.get(arm.end_link)
        joint = model.joints[arm.joint_names[-1]]
        short = len(arm.joint_names) < POSITION_ONLY_JOINTS and arm.tip_link == arm.end_link
        if (
            short
            and inertial is not None
            and np.linalg.norm(np.cross(joint.axis, inertial.center)) > OFF_AXIS
        ):
            name = _free_name(model, arm.end_link + TIP_SUFFIX)
            frames[name] = (arm.end_link, _translation(inertial.center))
            arm = replace(arm, tip_link=name)
        arms.append(arm)
    return replace(limbs, arms=tuple(arms)), frames


def _translation(point: np.ndarray) -> np.ndarray:
    """(4, 4) pose at ``point`` (3,) [m] with the parent frame's orientation."""
    pose = np.eye(4)
    pose[:3, 3] = point
    return pose


def _free_name(model: RobotModel, name: str) -> str:
    """``name``, or ``name_2``, ``name_3``… when the model already has a link so called."""
    candidate, count = name, 1
    while candidate in model.links:
        count += 1
        candidate = f"{name}_{count}"
    return candidate
