"""A foot as one rigid body: its link, the links fixed to it, and their collision points.

The foot is the last link a leg's joints move together with every link fixed below it (a sole
frame, a toe plate, a bumper). Its collision points (:mod:`.shapes`) bound where it can touch
the floor.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.limbs.shapes import shape_points
from ik_solvers.model import RobotModel

DOWN = np.array([0.0, 0.0, -1.0])


def rigid_links(model: RobotModel, link: str) -> dict[str, np.ndarray]:
    """``link`` and the links fixed below it → (4, 4) pose in ``link``'s frame."""
    found, stack = {link: np.eye(4)}, [link]
    while stack:
        parent = stack.pop()
        for joint in model.children(parent):
            if joint.type == "fixed":
                found[joint.child] = found[parent] @ joint.origin
                stack.append(joint.child)
    return found


def moving_link(model: RobotModel, link: str) -> str:
    """The link that ``link`` is fixed to: up through fixed joints to the child of a movable one."""
    while (joint := model.parent_joint(link)) is not None and joint.type == "fixed":
        link = joint.parent
    return link


def foot_points(model: RobotModel, foot: str, pose: np.ndarray) -> np.ndarray:
    """(k, 3) collision points of the foot ``foot`` (and the links fixed below it) [m].

    Args:
        pose: (4, 4) the frame the points are wanted in, as seen from the foot link
            (e.g. the foot's pose in the root frame gives the points in the root frame); its
            -z is "down" for spheres.
    Raises:
        MeshError: a mesh that cannot be read.
    """
    clouds = []
    for link, in_foot in rigid_links(model, foot).items():
        down = (pose @ in_foot)[:3, :3].T @ DOWN
        for shape in model.collisions.get(link, ()):
            local = shape_points(shape, down, model.source)
            clouds.append(local @ in_foot[:3, :3].T + in_foot[:3, 3])
    if not clouds:
        return np.zeros((0, 3))
    points = np.vstack(clouds)
    return points @ pose[:3, :3].T + pose[:3, 3]
