"""Each foot's sole frame: the one the description has, or one made from the foot's geometry.

At q = 0 the robot stands upright in its root frame (REP-103: z up). A *sole frame* is a
massless link fixed to the foot whose origin lies on the sole plane (within CONTACT_TOLERANCE of
the foot's lowest collision point; below the ankle when the foot has no collision geometry) and
whose z axis points up (within UPRIGHT_DEGREES). A foot
without one gets one (REP-120's convention):

- origin: below the foot link's origin (the last leg joint, the ankle), on the plane through the
  lowest point of the foot's collision geometry,
- z up; x along the foot: the long axis of the contact points (the principal axis of their
  spread when it is at least ELONGATION times the other one), pointing forward (+x of the root);
  the root's x for a round or square foot.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.limbs.foot import foot_points, rigid_links
from ik_solvers.limbs.footprint import CONTACT_TOLERANCE
from ik_solvers.limbs.tree import zero_pose
from ik_solvers.model import RobotModel

UPRIGHT_DEGREES = 2.0
ELONGATION = 1.5


def existing_sole(model: RobotModel, foot: str) -> str | None:
    """The foot's sole frame as the description gives it (module docstring), or None."""
    pose = zero_pose(model, foot)
    points = foot_points(model, foot, pose)
    upright = math.cos(math.radians(UPRIGHT_DEGREES))
    for link, in_foot in rigid_links(model, foot).items():
        if link == foot or link in model.inertials or link in model.collisions:
            continue
        frame = pose @ in_foot
        if len(points):
            on_plane = abs(frame[2, 3] - points[:, 2].min()) <= CONTACT_TOLERANCE
        else:  # no geometry to tell the plane: a frame below the ankle
            on_plane = frame[2, 3] < pose[2, 3] - CONTACT_TOLERANCE
        if frame[2, 2] >= upright and on_plane:
            return link
    return None


def derived_sole(model: RobotModel, foot: str) -> np.ndarray:
    """(4, 4) pose, in the foot link's frame, of a sole frame made from the foot's geometry.

    Raises:
        ValueError: the foot has no collision geometry (the message says what to add).
    """
    pose = zero_pose(model, foot)
    points = foot_points(model, foot, pose)
    if not len(points):
        raise ValueError(
            f"foot '{foot}' has no sole frame and no <collision> geometry to make one from: add a "
            f"collision shape to it or a sole frame (a massless link fixed at the bottom of the foot, z up)"
        )
    lowest = points[:, 2].min()
    contact = points[points[:, 2] <= lowest + CONTACT_TOLERANCE, :2]
    x_axis = _along(contact)
    sole = np.eye(4)
    sole[:3, 0] = (x_axis[0], x_axis[1], 0.0)
    sole[:3, 1] = (-x_axis[1], x_axis[0], 0.0)
    sole[:3, 3] = (pose[0, 3], pose[1, 3], lowest)
    return np.linalg.inv(pose) @ sole


def _along(contact: np.ndarray) -> np.ndarray:
    """(2,) unit direction along the foot in the root's x-y plane (module docstring)."""
    if len(contact) >= 2:
        spread = np.cov(contact.T)
        values, vectors = np.linalg.eigh(spread)
        if values[1] > ELONGATION * max(values[0], 0.0) and values[1] > 0.0:
            axis = vectors[:, 1]
            return axis if axis[0] > 0 or (axis[0] == 0 and axis[1] > 0) else -axis
    return np.array([1.0, 0.0])
