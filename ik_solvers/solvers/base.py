"""What every solver shares: typed results, errors, target checks and the name → solver registry.

A solver answers ``solve(target, seed=None, pole=None)`` with an :class:`IKResult` and
``solve_batch(targets, seeds=None, poles=None)`` with a :class:`BatchResult`. Targets are 4x4 poses
of the chain's tip link in the chain's base link frame [m]; ``q`` is in ``chain.joint_names`` order.
A returned ``q`` is always finite and within the joint limits; when the target cannot be met,
``success`` is False, ``q`` is the closest solution found and ``message`` says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.spatial import pose_error


class IKError(ValueError):
    """Base class of the solvers' refusals; the message says what was wrong and what is accepted."""


class InvalidTargetError(IKError):
    """A target, seed or pole is malformed (shape, NaN/inf, not a rotation)."""


class UnsupportedChainError(IKError):
    """The chain's structure fits no solver of the requested kind."""


class UnknownSolverError(IKError):
    """No solver is registered under the requested name."""


@dataclass(frozen=True)
class IKResult:
    """One solve.

    Attributes:
        success: the target is met within the solver's tolerances and q is within limits.
        q: (n,) joint positions [rad or m], chain.joint_names order; finite and within limits.
        position_error: distance [m] between the target and FK(q).
        orientation_error: angle [rad] between the target and FK(q) orientations.
        iterations: iterations used (0 for closed forms without refinement).
        message: why it failed, or a short description of success.
    """

    success: bool
    q: np.ndarray
    position_error: float
    orientation_error: float
    iterations: int
    message: str


@dataclass(frozen=True)
class BatchResult:
    """N solves at once: the fields of :class:`IKResult` as arrays over the batch.

    Attributes:
        success: (N,) bool. q: (N, n). position_error, orientation_error: (N,) [m], [rad].
        iterations: (N,) int. messages: N strings, "" where nothing needs saying.
    """

    success: np.ndarray
    q: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    iterations: np.ndarray
    messages: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.success)

    def __getitem__(self, index: int) -> IKResult:
        return IKResult(
            bool(self.success[index]),
            self.q[index],
            float(self.position_error[index]),
            float(self.orientation_error[index]),
            int(self.iterations[index]),
            self.messages[index],
        )


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
        bad = ~np.isfinite(targets).all(axis=(-2, -1)) | ~is_rotation(targets[..., :3, :3])
        bad |= ~is_homogeneous_row(targets[..., 3, :])
    else:
        bad = not _is_finite_pose(targets)
    if np.any(bad):
        where = f" at indices {np.flatnonzero(bad)[:10].tolist()}" if batched else ""
        raise InvalidTargetError(
            f"target{where} is not a finite pose with an orthonormal rotation (det +1) and bottom row "
            "[0, 0, 0, 1]; "
            "send finite numbers and a unit quaternion or rotation matrix"
        )
    if not batched:
        check_bottom_row(targets[3].tolist())
    return targets


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


def _is_finite_pose(target: np.ndarray, tolerance: float = 1e-6) -> bool:
    """One (4, 4) pose: finite, rotation orthonormal with determinant +1 within ``tolerance``.

    Plain floats: for one pose this is several times cheaper than :func:`is_rotation`.
    """
    rows = target.tolist()
    if not math.isfinite(sum(map(sum, rows))):  # NaN or inf anywhere propagates to the sum
        return False
    (a, b, c, _), (d, e, f, _), (g, h, i, _) = rows[:3]
    products = (
        a * a + b * b + c * c - 1.0,
        d * d + e * e + f * f - 1.0,
        g * g + h * h + i * i - 1.0,
        a * d + b * e + c * f,
        a * g + b * h + c * i,
        d * g + e * h + f * i,
    )
    determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return max(map(abs, products)) < tolerance and determinant > 0.0


def is_rotation(rotation: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """(...) bool: (..., 3, 3) is orthonormal with determinant +1 within ``tolerance``."""
    with np.errstate(invalid="ignore"):
        gram = np.swapaxes(rotation, -1, -2) @ rotation
        orthonormal = np.all(np.abs(gram - np.eye(3)) < tolerance, axis=(-2, -1))
        return orthonormal & (np.linalg.det(rotation) > 0)


def check_seed(chain: Chain, seed: np.ndarray | None, count: int | None = None) -> np.ndarray:
    """A seed (n,) — or (count, n) — within limits: None gives the limits' midpoint clipped to 0.

    A finite seed outside the limits is clipped into them (a measured state can overshoot).

    Raises:
        InvalidTargetError: wrong shape or a non-finite entry.
    """
    if seed is None:
        rest = np.clip(np.zeros(chain.n), chain.lower, chain.upper)
        return rest if count is None else np.tile(rest, (count, 1))
    shape = (chain.n,) if count is None else (count, chain.n)
    seed = float_array(seed, "seed", f"{shape} [rad or m] for the joints {list(chain.joint_names)}")
    if seed.shape != shape or not np.isfinite(seed).all():
        raise InvalidTargetError(
            f"seed has shape {seed.shape} or non-finite entries; expected finite {shape} "
            f"for the joints {list(chain.joint_names)}"
        )
    return np.minimum(np.maximum(seed, chain.lower), chain.upper)


def measure(chain: Chain, q: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position [m] and orientation [rad] errors of FK(q) against target, single or batched."""
    return pose_error(target, chain.fk(q))


SolverFactory = Callable[..., object]
SOLVERS: dict[str, SolverFactory] = {}


def register_solver(kind: str) -> Callable[[SolverFactory], SolverFactory]:
    """Decorator: make ``factory(chain, **options)`` available as ``make_solver(kind, chain)``."""

    def register(factory: SolverFactory) -> SolverFactory:
        SOLVERS[kind] = factory
        return factory

    return register


def make_solver(kind: str, chain: Chain, **options: object):
    """The solver ``kind`` ("geometric" or "jacobian") for ``chain``, configured by ``options``.

    Raises:
        UnknownSolverError: no solver of that name; the message lists the valid names.
        UnsupportedChainError: the chain's structure fits none of that kind's solvers.
    """
    factory = SOLVERS.get(kind)
    if factory is None:
        raise UnknownSolverError(f"unknown solver '{kind}'; valid solvers: {', '.join(sorted(SOLVERS))}")
    return factory(chain, **options)
