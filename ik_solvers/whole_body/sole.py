"""A sole's footprint from the URDF: the collision box under the sole frame, as a rectangle.

The footprint is the xy bounding rectangle, in the sole frame, of the collision box(es) of the sole
link and of the links fixed to it up to the first movable joint (the foot link carries the box
in the packaged humanoid). Of several boxes, the one whose bottom lies nearest the sole plane
(z = 0 of the sole frame) is taken.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.model import RobotModel

_CORNERS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])


@dataclass(frozen=True)
class SoleGeometry:
    """A sole's rectangle in its own frame.

    Attributes:
        center: (2,) the rectangle's centre, x and y in the sole frame [m].
        size: (2,) its length (along the sole's x) and width (along its y) [m].
    """

    center: np.ndarray
    size: np.ndarray

    def center_in_world(self, sole_pose: np.ndarray) -> np.ndarray:
        """(2,) world x, y [m] of the centre, for the sole's (4, 4) world pose."""
        return (sole_pose[:3, :3] @ np.array([self.center[0], self.center[1], 0.0]) + sole_pose[:3, 3])[:2]

    def corners_in_world(self, sole_pose: np.ndarray, margin: float = 0.0) -> np.ndarray:
        """(4, 2) world x, y [m] of the rectangle's corners, counter-clockwise, shrunk by ``margin``."""
        half = 0.5 * self.size - margin
        signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
        local = np.zeros((4, 3))
        local[:, :2] = self.center + signs * half
        return (local @ sole_pose[:3, :3].T + sole_pose[:3, 3])[:, :2]


def sole_geometry(model: RobotModel, sole_link: str) -> SoleGeometry:
    """The footprint of ``sole_link`` (see the module docstring).

    Raises:
        ValueError: no collision box on the sole link or the links fixed to it.
    """
    link, to_sole, candidates = sole_link, np.eye(4), []
    while True:
        for box in model.collision_boxes.get(link, ()):
            corners = (_CORNERS * box.size) @ box.origin[:3, :3].T + box.origin[:3, 3]
            in_sole = corners @ to_sole[:3, :3].T + to_sole[:3, 3]
            candidates.append(in_sole)
        joint = next((j for j in model.joints.values() if j.child == link), None)
        if joint is None or joint.type != "fixed":
            break
        to_sole = to_sole @ np.linalg.inv(joint.origin)  # parent link frame → sole frame
        link = joint.parent
    if not candidates:
        raise ValueError(
            f"no <collision><box> on '{sole_link}' or the links fixed to it: the sole's size comes from "
            "that box; add one, or give the sole size in the walking configuration"
        )
    corners = min(candidates, key=lambda c: abs(c[:, 2].min()))
    low, high = corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)
    return SoleGeometry(0.5 * (low + high), high - low)
