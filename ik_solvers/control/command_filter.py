"""Command shaping for real servos: finite, within limits, and rate-limited per joint.

No ROS here (unit-testable without rclpy): part of :mod:`ik_solvers.control`. Positions are in a chain's joint order [rad or m];
velocity limits come from the URDF [rad/s or m/s].
"""

from __future__ import annotations

import math

import numpy as np

TWO_PI = 2.0 * math.pi


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
        self._middle = 0.5 * (self.lower + self.upper)
        self._lower, self._upper = self.lower.tolist(), self.upper.tolist()
        self._middle_list, self._velocity = self._middle.tolist(), self.velocity_limits.tolist()
        self._continuous = self.continuous.astype(bool).tolist()

    def admits(self, q: np.ndarray) -> bool:
        """True when q (n,) is finite and within the position limits (continuous joints: finite)."""
        values = q.tolist()
        return all(
            lower <= x <= upper or (continuous and math.isfinite(x))
            for x, lower, upper, continuous in zip(values, self._lower, self._upper, self._continuous)
        )

    def step(self, current: np.ndarray, goal: np.ndarray, fraction: float, dt: float) -> np.ndarray:
        """The next command from ``current`` toward ``goal``, both (n,).

        Args:
            current: the last command (or the measured state before the first command).
            goal: where the joints should end up; non-finite entries hold that joint.
            fraction: share of the URDF velocity limit allowed, in (0, 1].
            dt: time since ``current`` was commanded [s].
        Returns:
            (n,) finite command within the position limits, each joint within fraction × velocity limit × dt of current.
        """
        scale = fraction * max(dt, 0.0)
        command = []
        for i, (now, wanted) in enumerate(zip(self._clipped(current), _floats(goal))):
            delta = wanted - now if math.isfinite(wanted) else 0.0
            if self._continuous[i]:
                delta = (delta + math.pi) % TWO_PI - math.pi
            limit = self._velocity[i] * scale
            if abs(delta) > limit:
                delta = math.copysign(limit, delta)
            command.append(now + delta)
        return np.array(self._clipped(command))

    def _clipped(self, q) -> list[float]:
        """(n,) q with non-finite entries replaced by the limits' midpoint, clipped into the limits;
        continuous joints wrapped into [-pi, pi) instead. Plain floats (a handful of joints: cheaper
        than numpy calls)."""
        clipped = []
        for x, lower, upper, middle, continuous in zip(
            _floats(q), self._lower, self._upper, self._middle_list, self._continuous
        ):
            if not math.isfinite(x):
                x = middle
            if continuous:
                clipped.append((x + math.pi) % TWO_PI - math.pi)
            else:
                clipped.append(min(max(x, lower), upper))
        return clipped

    def reached(self, command: np.ndarray, goal: np.ndarray, tolerance: float = 1e-9) -> bool:
        """True when ``command`` equals ``goal`` (clipped into limits) to ``tolerance``."""
        return all(abs(g - c) <= tolerance for g, c in zip(self._clipped(goal), _floats(command)))

    def travel_time(self, start: np.ndarray, end: np.ndarray, fraction: float) -> float:
        """Time [s] the slowest joint needs from ``start`` to ``end`` at ``fraction`` of its limit."""
        with np.errstate(divide="ignore", invalid="ignore"):
            times = np.abs(np.asarray(end) - np.asarray(start)) / (fraction * self.velocity_limits)
        return float(np.max(np.nan_to_num(times, nan=0.0, posinf=0.0), initial=0.0))


def _floats(values) -> list[float]:
    """(n,) array or sequence as Python floats."""
    return np.asarray(values, dtype=float).tolist()
