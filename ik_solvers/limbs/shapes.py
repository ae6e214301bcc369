"""Points of collision geometries that bound where a foot can touch a plane below it.

Box: its 8 corners. Cylinder: both rims, sampled every 360/RIM_POINTS degrees (the lowest point
is missed by at most radius × (1 - cos(π / RIM_POINTS)), 0.1 % of the radius). Sphere: its lowest
point along ``down`` (a ball touches a plane in one point). Mesh: its vertices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ik_solvers.limbs.mesh import mesh_vertices
from ik_solvers.model import CollisionShape

RIM_POINTS = 64
_CORNERS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])


def shape_points(shape: CollisionShape, down: np.ndarray, source: Path | None) -> np.ndarray:
    """(k, 3) points of ``shape`` in its link's frame [m].

    Args:
        down: (3,) unit vector pointing down, in the link frame (spheres only).
        source: the URDF file, for relative mesh names.
    Raises:
        MeshError: a mesh that cannot be read.
    """
    if shape.kind == "box":
        local = _CORNERS * shape.size
    elif shape.kind == "cylinder":
        radius, length = shape.size[:2]
        angles = np.linspace(0.0, 2.0 * np.pi, RIM_POINTS, endpoint=False)
        ring = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
        local = np.vstack(
            [np.column_stack([ring, np.full(RIM_POINTS, z)]) for z in (-length / 2, length / 2)]
        )
    elif shape.kind == "sphere":
        down_in_shape = shape.origin[:3, :3].T @ down
        local = (shape.size[0] * down_in_shape)[None]
    else:
        local = mesh_vertices(shape.filename, shape.size, source)
    return local @ shape.origin[:3, :3].T + shape.origin[:3, 3]
