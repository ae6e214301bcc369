"""A log that stays bounded under any flood: at most one line per ``period`` for each key; the
lines left out are counted in the next line of that key. No ROS (any logger with ``info``,
``warning`` and ``error`` methods, such as rclpy's or :mod:`logging`'s)."""

from __future__ import annotations

import time
from collections import Counter

LEVELS = ("info", "warning", "error")
MAX_KEYS = 64  # distinct keys remembered; beyond, keys share one budget (the log stays bounded)


class ThrottledLog:
    """Writes to ``logger`` at most once per ``period`` [s] per key."""

    def __init__(self, logger, period: float = 1.0, clock=time.monotonic) -> None:
        self.logger = logger
        self.period = period
        self.clock = clock
        self.last: dict[str, float] = {}
        self.left_out: Counter = Counter()

    def __call__(self, key: str, level: str, text: str) -> bool:
        """Log ``text`` at ``level`` (``info``, ``warning``, ``error``) unless a line of ``key`` went
        out less than ``period`` ago; True when it was written."""
        if key not in self.last and len(self.last) >= MAX_KEYS:
            key = "(other)"
        now = self.clock()
        if now - self.last.get(key, -float("inf")) < self.period:
            self.left_out[key] += 1
            return False
        skipped = self.left_out.pop(key, 0)
        if skipped:
            text += f" ({skipped} more like it in the last {now - self.last[key]:.1f} s not logged)"
        self.last[key] = now
        getattr(self.logger, level)(text)
        return True
