"""Servo targets as the servos see them: late by the bus latency, through the gears' backlash.

No ROS here. A command sent at simulated time t reaches the servos at t + ``latency`` [s] (the
servo bridge measured 5-7 ms from a command to the last byte of its Sync Write on a 100 Hz bus).
The backlash is a dead band of the position error: within half the play of the target the servo
does not push (its encoder reads the output shaft; the motor turns through the play first).
"""

from __future__ import annotations

from collections import deque

import numpy as np

MAX_PENDING = 10_000  # commands held at most (a flood within the latency drops the oldest)
DUE_ROUNDING = 1e-9  # [s] a command due this close after now counts as due


class ServoCommands:
    """The targets each servo holds, from the commands sent to them.

    Args:
        targets: (n,) [rad] the targets held at the start.
        latency: [s] from a command to the servos.
        backlash: (n,) [rad] each joint's total play (0: none).
    """

    def __init__(self, targets: np.ndarray, latency: float, backlash: np.ndarray) -> None:
        self.latency = latency
        self.half_play = 0.5 * np.asarray(backlash, dtype=float)
        self.every_step = latency > 0.0 or bool(np.any(self.half_play > 0.0))
        self.held = np.array(targets, dtype=float)
        self.sent = self.held.copy()  # the latest command, as sent
        self._pending: deque[tuple[float, np.ndarray]] = deque(maxlen=MAX_PENDING)

    def reset(self, targets: np.ndarray) -> None:
        """Hold ``targets`` now; forget commands on their way."""
        self.held, self.sent = np.array(targets, dtype=float), np.array(targets, dtype=float)
        self._pending.clear()

    def send(self, time: float, targets: np.ndarray) -> None:
        """A command of (n,) targets [rad] sent at simulated ``time`` [s]."""
        self.sent = np.array(targets, dtype=float)
        if self.latency > 0.0:
            self._pending.append((time + self.latency, self.sent))
        else:
            self.held = self.sent

    def control(self, time: float, positions: np.ndarray) -> np.ndarray:
        """(n,) position-servo inputs at ``time`` [s] for joints at ``positions`` [rad]: the held
        target moved towards the joint by half the play (never past it)."""
        while self._pending and self._pending[0][0] <= time + DUE_ROUNDING:
            self.held = self._pending.popleft()[1]
        error = self.held - positions
        return positions + np.sign(error) * np.maximum(np.abs(error) - self.half_play, 0.0)
