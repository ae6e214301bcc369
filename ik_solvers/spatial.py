"""Rotations, quaternions and pose errors, vectorised over leading axes.

Quaternions are in ROS order ``(x, y, z, w)``. Rotation matrices are (..., 3, 3), poses (..., 4, 4)
homogeneous transforms [m]. Angles are in radians.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.checks import pose_columns
from ik_solvers.solvers.geometric.vectors import COLUMNS, pose_errors


def matrix_to_quaternion(rotation: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices → (..., 4) unit quaternions (x, y, z, w) with w >= 0."""
    rotation = np.asarray(rotation, dtype=float)
    m = rotation
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    # Four candidate formulas; each is accurate where its pivot (|w|, |x|, |y|, |z|) is largest.
    candidates = np.stack(
        [
            np.stack(
                [
                    m[..., 2, 1] - m[..., 1, 2],
                    m[..., 0, 2] - m[..., 2, 0],
                    m[..., 1, 0] - m[..., 0, 1],
                    1 + trace,
                ],
                -1,
            ),
            np.stack(
                [
                    1 + 2 * m[..., 0, 0] - trace,
                    m[..., 0, 1] + m[..., 1, 0],
                    m[..., 0, 2] + m[..., 2, 0],
                    m[..., 2, 1] - m[..., 1, 2],
                ],
                -1,
            ),
            np.stack(
                [
                    m[..., 0, 1] + m[..., 1, 0],
                    1 + 2 * m[..., 1, 1] - trace,
                    m[..., 1, 2] + m[..., 2, 1],
                    m[..., 0, 2] - m[..., 2, 0],
                ],
                -1,
            ),
            np.stack(
                [
                    m[..., 0, 2] + m[..., 2, 0],
                    m[..., 1, 2] + m[..., 2, 1],
                    1 + 2 * m[..., 2, 2] - trace,
                    m[..., 1, 0] - m[..., 0, 1],
                ],
                -1,
            ),
        ],
        axis=-2,
    )
    pivots = np.stack(
        [1 + trace, 1 + 2 * m[..., 0, 0] - trace, 1 + 2 * m[..., 1, 1] - trace, 1 + 2 * m[..., 2, 2] - trace],
        -1,
    )
    best = np.take_along_axis(candidates, np.argmax(pivots, axis=-1)[..., None, None], axis=-2)[..., 0, :]
    quaternion = best / np.linalg.norm(best, axis=-1, keepdims=True)
    return np.where(quaternion[..., 3:] < 0, -quaternion, quaternion)


def quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(4,) the Hamilton product a ⊗ b of two quaternions (w, x, y, z): b's rotation, then a's."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def rotation_log(rotation: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotations → (..., 3) rotation vectors (axis × angle, angle in [0, pi]).

    Accurate near 0 (no arccos of a number near 1) and near pi (axis from the symmetric part).
    """
    rotation = np.asarray(rotation, dtype=float)
    s = 0.5 * np.stack(
        [
            rotation[..., 2, 1] - rotation[..., 1, 2],
            rotation[..., 0, 2] - rotation[..., 2, 0],
            rotation[..., 1, 0] - rotation[..., 0, 1],
        ],
        axis=-1,
    )
    sin_angle = np.linalg.norm(s, axis=-1)
    cos_angle = 0.5 * (np.trace(rotation, axis1=-2, axis2=-1) - 1.0)
    angle = np.arctan2(sin_angle, cos_angle)
    scale = np.where(sin_angle > 1e-12, angle / np.maximum(sin_angle, 1e-300), 1.0)
    result = s * scale[..., None]
    near_pi = (cos_angle < 0.0) & (sin_angle < 1e-6)
    if np.any(near_pi):
        result[near_pi] = _log_near_pi(rotation[near_pi], angle[near_pi])
    return result


def _log_near_pi(rotation: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotation vectors of (M, 3, 3) rotations whose angle is close to pi."""
    symmetric = 0.5 * (rotation + np.swapaxes(rotation, -1, -2)) + np.eye(3)  # = 2 u uᵀ at angle pi
    column = np.argmax(np.diagonal(symmetric, axis1=-2, axis2=-1), axis=-1)
    axis = np.take_along_axis(symmetric, column[:, None, None], axis=-1)[..., 0]
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    return axis * angle[:, None]


def pose_error(target: np.ndarray, actual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position error [m] and orientation error [rad] between (..., 4, 4) poses.

    The geometric solvers' float/column formula (:func:`ik_solvers.solvers.geometric.vectors.pose_errors`)
    on numpy arrays: one definition for the library.
    """
    target, actual = np.asarray(target, dtype=float), np.asarray(actual, dtype=float)
    return pose_errors(*_columns(actual), *_columns(target), COLUMNS)


def _columns(pose: np.ndarray) -> tuple[tuple, tuple]:
    """Rotation columns and translation of (..., 4, 4) poses, each entry an (...) array."""
    return pose_columns([pose[..., row, column] for row in range(4) for column in range(4)])
