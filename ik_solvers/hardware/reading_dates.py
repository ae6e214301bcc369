"""Which servo readings a node on a lock-stepped simulated clock can date (no ROS).

servo_bridge stamps each reading with its clock read just before the read is sent. On hardware
that clock is the wall clock: it moves on between any two reads. On the simulated clock of a
lock-stepped simulator it stands still for a period while the bridge reads several times, and
the clock and the simulator's state travel to the bridge and to the emulated servos separately:
a reading can carry the next period's state under this period's stamp (the state reached the
servos before the clock reached the bridge: 5-7 % of the readings walk_node kept in
``ik_demo --walk-only --servo-bus dynamixel``), or this period's stamp on the previous period's
state (the clock came first). walk_node keeps the last reading per stamp, so the second kind is
replaced by the next reading and the first kind is what it keeps.

:class:`ReadingDates` tells them apart by the data: under one stamp the positions may change
once, from those of the stamp before to the period's own; a reading whose positions change again,
after they already differed from the stamp before, is a later period's state under a stale
clock, and is left out. On a clock that moves between reads nothing is ever left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class ReadingDates:
    """Per reading: whether its stamp dates its positions (see the module docstring).

    Args:
        tolerance: [rad] positions closer than this are the same state (half a 4096-tick step).
    """

    def __init__(self, tolerance: float = 7e-4) -> None:
        self.tolerance = tolerance
        self.stamp: object = None  # the last kept reading's stamp
        self.positions: np.ndarray | None = None  # [rad] its positions
        self.before: np.ndarray | None = None  # [rad] the positions kept under the stamp before
        self.moved = False  # the positions under this stamp already differ from those before

    def dated(self, stamp: object, positions: Sequence[float]) -> bool:
        """Whether the reading of ``positions`` [rad] stamped ``stamp`` is dated right (keep it)."""
        q = np.asarray(positions, dtype=float)
        if stamp != self.stamp or self.positions is None or q.shape != self.positions.shape:
            self.before = self.positions if stamp != self.stamp else None
            self.stamp, self.positions = stamp, q
            self.moved = self._other_state(q, self.before)
            return True
        if not self._other_state(q, self.positions):
            return True
        if self.moved:
            return False  # a second change under one stamp: a later state, the clock behind
        self.positions, self.moved = q, True
        return True

    def _other_state(self, q: np.ndarray, earlier: np.ndarray | None) -> bool:
        """Whether positions ``q`` [rad] are another state than ``earlier`` [rad]: some joint
        more than ``tolerance`` away. False when there is nothing to compare with (no ``earlier``,
        or one of another shape: another set of joints)."""
        if earlier is None or q.shape != earlier.shape:
            return False
        return bool(np.any(np.abs(q - earlier) > self.tolerance))
