"""Input checks every solver shares: target poses, seeds and poles.

:func:`valid_pose` is written in plain arithmetic on the 16 row-major entries of a pose, so it runs
on Python floats (one target: several times cheaper than numpy) and on numpy columns (one entry per
target of a batch) alike; the geometric solvers use it on both.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ik_solvers.solvers.errors import InvalidTargetError

if TYPE_CHECKING:
    from ik_solvers.chain import Chain

INVALID_POSE = (
    "is not a finite pose with an orthonormal rotation (det +1); "
    "send finite numbers and a unit quaternion or rotation matrix"
)  # what a malformed target is told, after "target" (and where it is in a batch)


def pose_columns(pose) -> tuple[tuple[tuple, tuple, tuple], tuple]:
    """Rotation columns and translation of a 4x4 pose given as 16 entries (row-major), each a float or column."""
    return (
        ((pose[0], pose[4], pose[8]), (pose[1], pose[5], pose[9]), (pose[2], pose[6], pose[10])),
        (pose[3], pose[7], pose[11]),
    )


def valid_pose(rotation: tuple, translation: tuple, tolerance: float = 1e-6):
    """True where the pose is finite and its rotation orthonormal with determinant +1 (to ``tolerance``).

    Args:
        rotation: three columns of three entries; translation: three entries [m] (floats or columns).
    Returns:
        bool, or an (N,) bool array for columns.
    """
    (a0, a1, a2), (b0, b1, b2), (d0, d1, d2) = rotation
    x, y, z = translation
    total = a0 + a1 + a2 + b0 + b1 + b2 + d0 + d1 + d2 + x + y + z
    finite = (total - total) == 0.0  # inf or NaN anywhere makes this NaN
    bad = abs(a0 * a0 + a1 * a1 + a2 * a2 - 1.0) + abs(b0 * b0 + b1 * b1 + b2 * b2 - 1.0)
    bad = bad + abs(d0 * d0 + d1 * d1 + d2 * d2 - 1.0) + abs(a0 * b0 + a1 * b1 + a2 * b2)
    bad = bad + abs(a0 * d0 + a1 * d1 + a2 * d2) + abs(b0 * d0 + b1 * d1 + b2 * d2)
    determinant = a0 * (b1 * d2 - b2 * d1) + a1 * (b2 * d0 - b0 * d2) + a2 * (b0 * d1 - b1 * d0)
    return finite & (bad < tolerance) & (determinant > 0.0)


def check_targets(targets: np.ndarray, batched: bool = False) -> np.ndarray:
    """Validate (4, 4) — or (N, 4, 4) when ``batched`` — poses; return them as float arrays.

    Raises:
        InvalidTargetError: wrong shape, a non-finite entry, or a rotation part that is not a
            rotation matrix (orthonormal with determinant +1, to 1e-6).
    """
    targets = np.asarray(targets, dtype=float)
    expected = (4, 4) if not batched else ("N", 4, 4)
    if targets.shape[-2:] != (4, 4) or targets.ndim != (3 if batched else 2):
        raise InvalidTargetError(f"target has shape {targets.shape}; expected {expected} homogeneous pose(s)")
    if batched:
        entries = list(targets.reshape(-1, 16).T)
        bad = ~np.isfinite(targets[:, 3]).all(axis=-1) | ~valid_pose(*pose_columns(entries))
    else:
        entries = targets.ravel().tolist()
        bad = not (math.isfinite(sum(entries[12:])) and valid_pose(*pose_columns(entries)))
    if np.any(bad):
        where = f" at indices {np.flatnonzero(bad)[:10].tolist()}" if batched else ""
        raise InvalidTargetError(f"target{where} {INVALID_POSE}")
    return targets


def check_seed(chain: Chain, seed: np.ndarray | None, count: int | None = None) -> np.ndarray:
    """A seed (n,) — or (count, n) — within limits: None gives the rest configuration.

    A finite seed outside the limits is clipped into them (a measured state can overshoot).

    Raises:
        InvalidTargetError: wrong shape or a non-finite entry.
    """
    if seed is None:
        rest = chain.rest_configuration()
        return rest if count is None else np.tile(rest, (count, 1))
    seed = np.asarray(seed, dtype=float)
    shape = (chain.n,) if count is None else (count, chain.n)
    if seed.shape != shape or not math.isfinite(seed.sum()):  # NaN or inf propagates to the sum
        raise InvalidTargetError(
            f"seed has shape {seed.shape} or non-finite entries; expected finite {shape} "
            f"for the joints {list(chain.joint_names)}"
        )
    return np.minimum(np.maximum(seed, chain.lower), chain.upper)


def check_pole(pole, count: int) -> np.ndarray:
    """A pole as a float array: finite, shape (3,) for one solve (``count`` 1) or (count, 3).

    Raises:
        InvalidTargetError: another shape or a non-finite entry.
    """
    pole = np.asarray(pole, dtype=float)
    shape = (3,) if count == 1 and pole.ndim == 1 else (count, 3)
    if pole.shape != shape or not np.all(np.isfinite(pole)):
        raise InvalidTargetError(
            f"pole has shape {pole.shape} or non-finite entries; expected finite {shape} [m]"
        )
    return pole
