"""A sole's footprint: the convex polygon in the sole plane where the foot touches the floor.

Of the foot's collision points (:mod:`.foot`) expressed in the sole frame, those within
CONTACT_TOLERANCE of the lowest one touch the floor; their convex hull, seen from above, is the
footprint. A box foot gives its bottom face, a cylinder standing upright its bottom disc, one
lying down a strip, a few contact spheres the polygon between their lowest points, a mesh the
hull of its vertices on the sole plane. The walking configuration can instead give the sole's
length and width (a rectangle centred under the sole frame).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from ik_solvers.limbs.foot import foot_points, moving_link, rigid_links
from ik_solvers.model import RobotModel

CONTACT_TOLERANCE = 2e-3  # [m] points this close above the lowest one touch the floor
SIZE_HINT = "or give the sole size in the walking configuration (walk.sole_length, walk.sole_width [m])"


@dataclass(frozen=True)
class SoleGeometry:
    """A sole's footprint in its own frame.

    Attributes:
        polygon: (k, 2) the footprint's corners, x and y in the sole frame [m], counter-clockwise.
        center: (2,) its centroid [m]. size: (2,) its extent along the sole's x and y [m].
    """

    polygon: np.ndarray
    center: np.ndarray
    size: np.ndarray

    @classmethod
    def from_polygon(cls, polygon: np.ndarray) -> SoleGeometry:
        """From counter-clockwise corners (k, 2) [m]: area centroid and extent."""
        x, y = polygon[:, 0], polygon[:, 1]
        cross = x * np.roll(y, -1) - np.roll(x, -1) * y
        area = 0.5 * cross.sum()
        center = np.array([((x + np.roll(x, -1)) * cross).sum(), ((y + np.roll(y, -1)) * cross).sum()])
        return cls(polygon, center / (6.0 * area), polygon.max(axis=0) - polygon.min(axis=0))

    @classmethod
    def rectangle(cls, length: float, width: float) -> SoleGeometry:
        """A ``length`` × ``width`` [m] rectangle centred on the sole frame's origin."""
        signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
        return cls.from_polygon(0.5 * signs * np.array([length, width]))

    def center_in_world(self, sole_pose: np.ndarray) -> np.ndarray:
        """(2,) world x, y [m] of the centre, for the sole's (4, 4) world pose."""
        return (sole_pose[:3, :3] @ np.array([self.center[0], self.center[1], 0.0]) + sole_pose[:3, 3])[:2]

    def corners_in_world(self, sole_pose: np.ndarray) -> np.ndarray:
        """(k, 2) world x, y [m] of the polygon's corners, counter-clockwise."""
        local = np.zeros((len(self.polygon), 3))
        local[:, :2] = self.polygon
        return (local @ sole_pose[:3, :3].T + sole_pose[:3, 3])[:, :2]


def sole_geometry(model: RobotModel, sole_link: str) -> SoleGeometry:
    """The footprint of ``sole_link`` from the collision geometry of its foot (module docstring).

    Raises:
        ValueError: the foot has no collision geometry, or it touches the floor in a point or a
            line only; the message says which and how to give the size instead.
    """
    foot = moving_link(model, sole_link)
    in_sole = np.linalg.inv(rigid_links(model, foot)[sole_link])
    points = foot_points(model, foot, in_sole)
    if not len(points):
        raise ValueError(
            f"no <collision> geometry on foot '{foot}' or the links fixed to it: the footprint of "
            f"'{sole_link}' comes from it; add one, {SIZE_HINT}"
        )
    contact = points[points[:, 2] <= points[:, 2].min() + CONTACT_TOLERANCE, :2]
    try:
        hull = ConvexHull(contact)
    except (QhullError, ValueError):
        spread = np.ptp(contact, axis=0) if len(contact) else np.zeros(2)
        raise ValueError(
            f"foot '{foot}' touches the floor in a point or a line only ({len(contact)} contact points "
            f"spanning {spread[0] * 1e3:.1f} × {spread[1] * 1e3:.1f} mm): no footprint to balance on; "
            f"add collision geometry that covers the sole, {SIZE_HINT}"
        ) from None
    return SoleGeometry.from_polygon(contact[hull.vertices])
