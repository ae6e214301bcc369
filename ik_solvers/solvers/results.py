"""What a solve returns: :class:`IKResult` for one target, :class:`BatchResult` for N."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
        continuous: q continues the seed (its branch); True without a seed. False: no solution on
            the seed's branch fits (joint limits), q is the nearest solution of another branch.
    """

    success: bool
    q: np.ndarray
    position_error: float
    orientation_error: float
    iterations: int
    message: str
    continuous: bool = True

    @classmethod
    def of(cls, success, q, position_error, orientation_error, iterations, message, continuous) -> IKResult:
        """The IKResult of these fields (in the order above), built without the frozen dataclass's
        seven ``object.__setattr__`` calls: half its cost, on a closed-form solve's hot path."""
        result = object.__new__(cls)
        result.__dict__.update(
            success=success,
            q=q,
            position_error=position_error,
            orientation_error=orientation_error,
            iterations=iterations,
            message=message,
            continuous=continuous,
        )
        return result


@dataclass(frozen=True)
class BatchResult:
    """N solves at once: the fields of :class:`IKResult` as arrays over the batch.

    Attributes:
        success: (N,) bool. q: (N, n). position_error, orientation_error: (N,) [m], [rad].
        iterations: (N,) int. messages: N strings, "" where nothing needs saying.
        continuous: (N,) bool, as in :class:`IKResult` (all True when not given).
    """

    success: np.ndarray
    q: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    iterations: np.ndarray
    messages: tuple[str, ...]
    continuous: np.ndarray = field(default=None)

    def __post_init__(self) -> None:
        if self.continuous is None:
            object.__setattr__(self, "continuous", np.ones(len(self.success), dtype=bool))

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
            bool(self.continuous[index]),
        )


DISCONTINUOUS = (
    "; no solution continues the seed's branch within the joint limits: q is the nearest solution "
    "of another branch"
)
