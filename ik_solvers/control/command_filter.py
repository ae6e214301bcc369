"""Command shaping for real servos: finite, within limits, and rate-limited per joint.

No ROS here (unit-testable without rclpy): part of :mod:`ik_solvers.control`. Positions are in a chain's joint order [rad or m];
velocity limits come from the URDF [rad/s or m/s].

A goal further than one step away is approached along the straight line in joint space: the whole
step is shortened until no joint exceeds its limit, so the joint the limit holds back most moves
at its limit and the others in proportion, and all arrive together. Clamping each joint on its own
(as before) bent the path: bending a leg from straight to the walking stance (hip and ankle
pitch -0.51 rad, knee +1.07 rad, all limited to 4.8 rad/s), hip and ankle arrived in 11 periods
and the knee in 22, and on the way the sole was commanded up to 0.48 rad (27 degrees) pitched
against the torso; standing on the floor, the robot was thrown 10 degrees and stood rocking on
its soles' edges for seconds (docs/node.md, "Stopping, and the launch tests").
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
            current: the last command (or the measured state before the first command). A joint
                beyond its limits (a measured overshoot) is brought back from where it is, at the
                velocity limit, not clipped into the limits in one jump.
            goal: where the joints should end up, clipped into the limits; non-finite entries
                hold that joint.
            fraction: share of the URDF velocity limit allowed, in (0, 1].
            dt: time since ``current`` was commanded [s].
        Returns:
            (n,) finite command, each joint within fraction × velocity limit × dt of current and
            within the position limits, or between current and the limits. The rate-limited
            joints move along the straight line toward the goal (the module docstring); a joint
            without a velocity limit (inf) is at its goal at once.
        """
        scale = fraction * max(dt, 0.0)
        started = self._started(current)
        deltas = [self._delta(i, now, wanted) for i, (now, wanted) in enumerate(zip(started, _floats(goal)))]
        share = 1.0  # of the step to the goal that every joint's limit allows
        for delta, velocity in zip(deltas, self._velocity):
            limit = velocity * scale
            if abs(delta) > limit:
                share = min(share, limit / abs(delta))
        command = [
            now + (delta if math.isinf(velocity) else share * delta)
            for now, delta, velocity in zip(started, deltas, self._velocity)
        ]
        return np.array(self._started(command))

    def _delta(self, i: int, now: float, wanted: float) -> float:
        """Joint ``i``'s way [rad or m] from ``now`` to ``wanted`` (clipped into its limits; the
        shorter way round for a continuous joint; 0 when ``wanted`` is not finite)."""
        if not math.isfinite(wanted):
            return 0.0
        if self._continuous[i]:
            return (wanted - now + math.pi) % TWO_PI - math.pi
        return min(max(wanted, self._lower[i]), self._upper[i]) - now

    def _started(self, q) -> list[float]:
        """(n,) q as floats: non-finite entries → the limits' midpoint, continuous joints wrapped
        into [-pi, pi); others as they are (possibly beyond the limits)."""
        return [
            middle if not math.isfinite(x) else (x + math.pi) % TWO_PI - math.pi if continuous else x
            for x, middle, continuous in zip(_floats(q), self._middle_list, self._continuous)
        ]

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
