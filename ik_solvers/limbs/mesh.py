"""The vertices of a collision mesh, read with trimesh (STL, OBJ, PLY, OFF, GLB).

URDF mesh names come as ``file://`` URLs, absolute paths, paths relative to the URDF file, or
``package://<package>/<path>``, resolved as every description URI is
(:func:`ik_solvers.description.resolve_uri`: the folders around the URDF file, then the ament index).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ik_solvers.description import DescriptionError, resolve_uri


class MeshError(ValueError):
    """A mesh file that cannot be found or read; the message names it and says why."""


def mesh_vertices(filename: str, scale: np.ndarray, source: Path | None) -> np.ndarray:
    """(k, 3) vertices of the mesh [m], in the mesh's frame, times ``scale`` (3,).

    Raises:
        MeshError: the file cannot be found or read as a mesh.
    """
    import trimesh  # only robots with mesh feet need it

    try:
        path = resolve_uri(filename, near=source)
    except DescriptionError as error:
        raise MeshError(str(error)) from error
    if not path.is_file():
        raise MeshError(f"mesh '{filename}': no file at {path}")
    try:
        mesh = trimesh.load(str(path), force="mesh")
    except Exception as error:  # trimesh raises many types for unreadable files
        raise MeshError(f"mesh '{filename}' ({path}) does not load: {error}") from error
    vertices = np.asarray(mesh.vertices, dtype=float)
    if vertices.ndim != 2 or len(vertices) == 0:
        raise MeshError(f"mesh '{filename}' ({path}) has no vertices")
    return vertices * np.asarray(scale, dtype=float)
