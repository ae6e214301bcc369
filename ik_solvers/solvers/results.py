"""What a solve returns: :class:`IKResult` for one target, :class:`BatchResult` for N."""

from __future__ import annotations

from dataclasses import dataclass

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
