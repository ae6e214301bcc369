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

FLOAT64 = np.dtype(np.float64)  # compared by identity: cheaper than ==, on one solve's hot path
# the strides of a contiguous float64 array of one axis: with the class and dtype, a seed the compiled
# input check (geometric.kernels.inputs.check, which checks its length) takes as it is
ONE_STRIDE = (FLOAT64.itemsize,)


def plain_floats(value: object, shape: tuple[int, ...]) -> bool:
    """Whether ``value`` is a C-contiguous float64 array of ``shape``: what the compiled input
    check (:func:`ik_solvers.solvers.geometric.kernels.inputs.check`) takes as it is."""
    return (
        value.__class__ is np.ndarray
        and value.dtype is FLOAT64
        and value.shape == shape
        and value.flags.c_contiguous
    )


INVALID_POSE = (
    "is not a finite pose with an orthonormal rotation (det +1) and bottom row [0, 0, 0, 1]; "
    "send finite numbers and a unit quaternion or rotation matrix"
)  # what a malformed target is told, after "target" (and where it is in a batch)


def float_array(value: object, what: str, expected: str) -> np.ndarray:
    """``value`` as a float array; complex numbers, strings and other non-numbers are refused.

    ``np.asarray(value, dtype=float)`` would drop an imaginary part with a warning and raise a
    plain ValueError for strings.

    Raises:
        InvalidTargetError: naming ``what`` and the ``expected`` value.
    """
    try:
        array = np.asarray(value)
        if array.dtype.kind == "c":
            raise InvalidTargetError(f"{what} has complex entries; expected {expected}")
        if array.dtype.kind in "USV":
            raise TypeError(f"{array.dtype} entries")
        return array.astype(float, copy=False)
    except (TypeError, ValueError) as error:
        raise InvalidTargetError(
            f"{what} is not an array of numbers ({error}); expected {expected}"
        ) from None


def check_bottom_row(row: list[float], tolerance: float = 1e-6) -> None:
    """InvalidTargetError unless a pose's bottom row (4 floats) is [0, 0, 0, 1] to ``tolerance``."""
    x, y, z, w = row
    if not (
        abs(x) <= tolerance and abs(y) <= tolerance and abs(z) <= tolerance and abs(w - 1.0) <= tolerance
    ):
        raise InvalidTargetError(f"target has bottom row {row}; expected [0, 0, 0, 1] (a homogeneous pose)")


def is_homogeneous_row(rows: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """(...) bool: the (..., 4) bottom rows are [0, 0, 0, 1] to ``tolerance`` (False for NaN)."""
    return np.all(np.abs(rows - (0.0, 0.0, 0.0, 1.0)) <= tolerance, axis=-1)


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
    expected = (4, 4) if not batched else ("N", 4, 4)
    targets = float_array(targets, "target", f"{expected} homogeneous pose(s) of real numbers")
    if targets.shape[-2:] != (4, 4) or targets.ndim != (3 if batched else 2):
        raise InvalidTargetError(f"target has shape {targets.shape}; expected {expected} homogeneous pose(s)")
    if batched:
        entries = list(targets.reshape(-1, 16).T)
        bad = ~is_homogeneous_row(targets[:, 3]) | ~valid_pose(*pose_columns(entries))
    else:
        entries = targets.ravel().tolist()
        bad = not (math.isfinite(sum(entries[12:])) and valid_pose(*pose_columns(entries)))
    if bad.any() if batched else bad:  # a single pose's bad is a Python bool: np.any costs 3 µs
        where = f" at indices {np.flatnonzero(bad)[:10].tolist()}" if batched else ""
        raise InvalidTargetError(f"target{where} {INVALID_POSE}")
    if not batched:
        check_bottom_row(entries[12:])
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
    seed = seed_array(chain, seed, count)
    if not np.isfinite(seed).all():
        _refuse_seed(chain, seed, seed.shape)
    return np.minimum(np.maximum(seed, chain.lower), chain.upper)


def seed_array(chain: Chain, seed, count: int | None = None) -> np.ndarray:
    """A seed (n,) — or (count, n) — as a C-contiguous float array, its entries not yet checked:
    for a batch kernel that checks and clips them as it solves (the geometric leg and arm).

    Raises:
        InvalidTargetError: not numbers, or another shape.
    """
    shape = (chain.n,) if count is None else (count, chain.n)
    seed = float_array(seed, "seed", f"{shape} [rad or m] for the joints {list(chain.joint_names)}")
    if seed.shape != shape:
        _refuse_seed(chain, seed, shape)
    return np.ascontiguousarray(seed)


def _refuse_seed(chain: Chain, seed: np.ndarray, shape: tuple[int, ...]) -> None:
    raise InvalidTargetError(
        f"seed has shape {seed.shape} or non-finite entries; expected finite {shape} "
        f"for the joints {list(chain.joint_names)}"
    )


def check_pole(pole, count: int) -> np.ndarray:
    """A pole as a float array: finite, shape (3,) for one solve (``count`` 1) or (count, 3).

    Raises:
        InvalidTargetError: another shape or a non-finite entry.
    """
    pole = float_array(pole, "pole", "a point (3,) [m] of real numbers")
    shape = (3,) if count == 1 and pole.ndim == 1 else (count, 3)
    if pole.shape != shape or not np.all(np.isfinite(pole)):
        raise InvalidTargetError(
            f"pole has shape {pole.shape} or non-finite entries; expected finite {shape} [m]"
        )
    return pole
