"""Which servos do not follow their goals: a jammed joint, a servo whose goal writes are refused
(an expired bus watchdog), a torque that is off although the bridge believes it on. No ROS.

A servo is *not following* when, over the last ``time`` seconds, (1) its present position was
farther than ``tolerance`` from every goal written in that time, and (2) it moved less than
``tolerance`` toward its current goal from where it was ``time`` ago. (1) allows the servo its own
travel time and the bus delay behind a moving goal, up to ``time``; (2) keeps a servo that is
slower than its goals (a velocity limit below the goals' speed, a heavy load) from counting as
stuck while it still closes in. "Toward" is the goal's side of where the servo *was*: a servo that
overshoots its goal after a fast move (it passed the goal, so the goal is now behind it) has
closed in by all it travelled, and is not reported for the overshoot. A joint that did not answer
in a cycle is not judged (its reading is NaN).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FollowLimits:
    """When a servo counts as not following.

    Attributes:
        tolerance: [rad] how far the present position may be from the goal, and how far toward
            it the servo must move within ``time`` while it is farther; 0 turns the check off.
        time: [s] the servo's allowed travel time behind its goal, and how long it must be out of
            tolerance before it is reported.
    """

    tolerance: float = 0.05
    time: float = 0.25


class FollowMonitor:
    """Judges ``n`` servos cycle by cycle (see the module docstring)."""

    def __init__(self, n: int, limits: FollowLimits) -> None:
        self.n = n
        self.limits = limits
        self.history: deque[tuple[float, np.ndarray, np.ndarray]] = deque()  # (time [s], goals, present)

    def reset(self) -> None:
        """Forget the past (torque switched, servos brought up again): nothing is judged for ``time``."""
        self.history.clear()

    def update(self, now: float, goals: np.ndarray, present: np.ndarray) -> np.ndarray:
        """Add one cycle and judge it.

        Args:
            now: time of the cycle [s].
            goals: goals written in this cycle [rad], shape (n,).
            present: present positions read in this cycle [rad], shape (n,); NaN where a servo
                did not answer.

        Returns:
            (n,) bool: True for each servo that does not follow its goal (all False until the
            history spans ``time``, or when ``tolerance`` is 0).
        """
        self.history.append((now, np.array(goals, dtype=float), np.array(present, dtype=float)))
        while len(self.history) > 1 and self.history[1][0] <= now - self.limits.time:
            self.history.popleft()
        if self.limits.tolerance <= 0.0 or self.history[0][0] > now - self.limits.time:
            return np.zeros(self.n, dtype=bool)
        recent_goals = np.array([goals for _, goals, _ in self.history])
        nearest = np.min(np.abs(recent_goals - present), axis=0)
        before = self.history[0][2]
        progress = (present - before) * np.sign(goals - before)
        with np.errstate(invalid="ignore"):
            return (nearest > self.limits.tolerance) & (progress < self.limits.tolerance)
