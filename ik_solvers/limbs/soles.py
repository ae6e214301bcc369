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

A foot that is not flat at q = 0 (its lowest collision points make a point or a line: a leg whose
zero configuration tilts the foot, as the Bit-Bots Wolfgang's tilts it 15° toe up) gets its sole on
the foot's own bottom instead: the plane of the largest face of the convex hull of its collision
points that faces down (within TILT_LIMIT_DEGREES); z is that face's inward normal, and the
origin and x axis are found on that plane as above.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from ik_solvers.limbs.foot import foot_points, rigid_links
from ik_solvers.limbs.footprint import CONTACT_TOLERANCE
from ik_solvers.limbs.tree import zero_pose
from ik_solvers.model import RobotModel

UPRIGHT_DEGREES = 2.0
ELONGATION = 1.5
TILT_LIMIT_DEGREES = 45.0
UP = np.array([0.0, 0.0, 1.0])


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
    up = _sole_normal(points)
    heights = points @ up
    lowest = heights.min()
    across, ahead = _plane_basis(up)
    contact = points[heights <= lowest + CONTACT_TOLERANCE]
    along = _along(np.column_stack([contact @ across, contact @ ahead]))
    sole = np.eye(4)
    sole[:3, 0] = along[0] * across + along[1] * ahead
    sole[:3, 1] = np.cross(up, sole[:3, 0])
    sole[:3, 2] = up
    sole[:3, 3] = pose[:3, 3] - (pose[:3, 3] @ up - lowest) * up  # below the ankle, on the plane
    return np.linalg.inv(pose) @ sole


def _spans_area(points: np.ndarray) -> bool:
    """Whether (k, 2) points span an area (not a point or a line)."""
    try:
        ConvexHull(points)
    except (QhullError, ValueError):
        return False
    return True


def _sole_normal(points: np.ndarray) -> np.ndarray:
    """(3,) the sole plane's upward unit normal in the root frame, from the foot's (k, 3) collision
    points at q = 0: the root's z when the points within CONTACT_TOLERANCE of the lowest span an
    area (a flat foot), else the inward normal of the largest downward face of their convex hull
    (coplanar hull facets summed; module docstring); the root's z when there is none."""
    if _spans_area(points[points[:, 2] <= points[:, 2].min() + CONTACT_TOLERANCE, :2]):
        return UP
    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):
        return UP
    facing = hull.equations[:, :3] @ -UP > math.cos(math.radians(TILT_LIMIT_DEGREES))
    if not facing.any():
        return UP
    corners = points[hull.simplices[facing]]
    areas = 0.5 * np.linalg.norm(
        np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1
    )
    planes, which = np.unique(np.round(hull.equations[facing], 4), axis=0, return_inverse=True)
    normal = planes[np.argmax(np.bincount(which.ravel(), weights=areas)), :3]
    return -normal / np.linalg.norm(normal)


def _plane_basis(up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors across the plane of normal ``up``: the root's x and y as seen in it
    (exactly x and y when ``up`` is z)."""
    across = np.array([1.0, 0.0, 0.0]) - up[0] * up
    across /= np.linalg.norm(across)
    return across, np.cross(up, across)


def _along(contact: np.ndarray) -> np.ndarray:
    """(2,) unit direction along the foot in the root's x-y plane (module docstring)."""
    if len(contact) >= 2:
        spread = np.cov(contact.T)
        values, vectors = np.linalg.eigh(spread)
        if values[1] > ELONGATION * max(values[0], 0.0) and values[1] > 0.0:
            axis = vectors[:, 1]
            return axis if axis[0] > 0 or (axis[0] == 0 and axis[1] > 0) else -axis
    return np.array([1.0, 0.0])
