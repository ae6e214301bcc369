"""The vertices of a collision mesh, read with trimesh (STL, OBJ, PLY, OFF, GLB).

URDF mesh names come as ``file://`` URLs, absolute paths, paths relative to the URDF file, or
``package://<package>/<path>`` (resolved through the ament index when it is installed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class MeshError(ValueError):
    """A mesh file that cannot be found or read; the message names it and says why."""


def resolve(filename: str, source: Path | None) -> Path:
    """The file a URDF mesh name refers to.

    Args:
        filename: as written in the URDF. source: the URDF file (relative names start from its
            folder), None when the URDF came as a string.
    Raises:
        MeshError: a ``package://`` name whose package the ament index does not know, or a
            relative name without a URDF file to start from.
    """
    if filename.startswith("file://"):
        return Path(filename[len("file://") :])
    if filename.startswith("package://"):
        return _package_file(filename)
    path = Path(filename)
    if path.is_absolute():
        return path
    if source is None:
        raise MeshError(
            f"mesh '{filename}' is a relative path, but the URDF came as a string: give an absolute "
            "path or a file:// URL, or load the URDF from its file"
        )
    return source.parent / path


def _package_file(filename: str) -> Path:
    package, _, rest = filename[len("package://") :].partition("/")
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:
        raise MeshError(f"mesh '{filename}': package:// needs the ament index (ROS 2)") from None
    try:
        return Path(get_package_share_directory(package)) / rest
    except (PackageNotFoundError, LookupError, ValueError, OSError):  # OSError: no AMENT_PREFIX_PATH
        raise MeshError(
            f"mesh '{filename}': the ament index does not know package '{package}' (source its workspace)"
        ) from None


def mesh_vertices(filename: str, scale: np.ndarray, source: Path | None) -> np.ndarray:
    """(k, 3) vertices of the mesh [m], in the mesh's frame, times ``scale`` (3,).

    Raises:
        MeshError: the file cannot be found or read as a mesh.
    """
    import trimesh  # only robots with mesh feet need it

    path = resolve(filename, source)
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
