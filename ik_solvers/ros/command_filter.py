"""Command shaping for real servos: finite, within limits, and rate-limited per joint.

No ROS here (unit-testable without rclpy). Positions are in a chain's joint order [rad or m];
velocity limits come from the URDF [rad/s or m/s].
"""

from __future__ import annotations

import numpy as np


class CommandFilter:
    """Moves a command toward a goal, never faster than ``fraction`` of each joint's velocity limit.

    A joint whose URDF gives no velocity limit (inf) is not rate-limited; every output is clipped
    into the position limits. Continuous joints are stepped along the shorter way round.
    """

    def __init__(
        self,
        lower: np.ndarray,
        upper: np.ndarray,
        velocity_limits: np.ndarray,
        continuous: np.ndarray | None = None,
    ) -> None:
        """Args: (n,) lower and upper position limits, (n,) velocity limits, (n,) continuous mask."""
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.velocity_limits = np.asarray(velocity_limits, dtype=float)
        self.continuous = np.zeros(len(self.lower), bool) if continuous is None else np.asarray(continuous)
        self._any_continuous = bool(self.continuous.any())
        self._middle = 0.5 * (self.lower + self.upper)

    def max_step(self, fraction: float, dt: float) -> np.ndarray:
        """(n,) largest allowed change per joint in ``dt`` [s] at ``fraction`` of the velocity limits."""
        return fraction * self.velocity_limits * max(dt, 0.0)

    def step(self, current: np.ndarray, goal: np.ndarray, fraction: float, dt: float) -> np.ndarray:
        """The next command from ``current`` toward ``goal``, both (n,).

        Args:
            current: the last command (or the measured state before the first command).
            goal: where the joints should end up; non-finite entries hold that joint.
            fraction: share of the URDF velocity limit allowed, in (0, 1].
            dt: time since ``current`` was commanded [s].
        Returns:
            (n,) finite command within the position limits, each joint within max_step of current.
        """
        current = self.clip(current)
        delta = np.where(np.isfinite(goal), np.asarray(goal, dtype=float) - current, 0.0)
        if self._any_continuous:
            delta = np.where(self.continuous, _wrap(delta), delta)
        limit = self.max_step(fraction, dt)
        return self.clip(current + np.clip(delta, -limit, limit))

    def clip(self, q: np.ndarray) -> np.ndarray:
        """(n,) q with non-finite entries replaced by the limits' midpoint, clipped into the limits.

        Continuous joints are wrapped into [-pi, pi) instead of clipped.
        """
        q = np.asarray(q, dtype=float)
        q = np.where(np.isfinite(q), q, self._middle)
        clipped = np.clip(q, self.lower, self.upper)
        return np.where(self.continuous, _wrap(q), clipped) if self._any_continuous else clipped

    def reached(self, command: np.ndarray, goal: np.ndarray, tolerance: float = 1e-9) -> bool:
        """True when ``command`` equals ``goal`` (clipped into limits) to ``tolerance``."""
        return bool(np.all(np.abs(self.clip(goal) - command) <= tolerance))

    def travel_time(self, start: np.ndarray, end: np.ndarray, fraction: float) -> float:
        """Time [s] the slowest joint needs from ``start`` to ``end`` at ``fraction`` of its limit."""
        with np.errstate(divide="ignore", invalid="ignore"):
            times = np.abs(np.asarray(end) - np.asarray(start)) / (fraction * self.velocity_limits)
        return float(np.max(np.nan_to_num(times, nan=0.0, posinf=0.0), initial=0.0))


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles [rad] wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2 * np.pi) - np.pi
