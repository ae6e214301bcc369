"""A log that stays bounded under any flood: at most one line per ``period`` for each key. A line
held back is not lost: the latest one of its key goes out when the period is over (at the next
:meth:`ThrottledLog.flush`), with the count of the lines it stands for, so that the log always ends
on the latest state. No ROS (any logger with ``info``, ``warning`` and ``error`` methods, such as
rclpy's or :mod:`logging`'s)."""

from __future__ import annotations

import re
import time
from collections import Counter

MAX_KEYS = 64  # distinct keys remembered; beyond, keys share one budget (the log stays bounded)


NUMBER = re.compile(r"[-+]?\d+(\.\d*)?([eE][-+]?\d+)?")


def kind_of(text: str) -> str:
    """The key of a free-text log line: ``text`` with its numbers blanked, so that the same warning
    about other values shares one budget while a different warning gets its own."""
    return NUMBER.sub("#", text)


class ThrottledLog:
    """Writes to ``logger`` at most once per ``period`` [s] per key."""

    def __init__(self, logger, period: float = 1.0, clock=time.monotonic) -> None:
        self.logger = logger
        self.period = period
        self.clock = clock
        self.last: dict[str, float] = {}  # key -> when its last line went out [s]
        self.held: dict[str, tuple[str, str]] = {}  # key -> (level, text) of the latest line held back
        self.held_count: Counter = Counter()

    def __call__(self, key: str, level: str, text: str) -> bool:
        """Log ``text`` at ``level`` (``info``, ``warning``, ``error``) now, or hold it back when a line
        of ``key`` went out less than ``period`` ago; True when it was written now."""
        if key not in self.last and len(self.last) >= MAX_KEYS:
            key = "(other)"
        if self.clock() - self.last.get(key, -float("inf")) < self.period:
            self.held[key] = (level, text)
            self.held_count[key] += 1
            return False
        self._write(key, level, text, self.held_count[key])
        return True

    def flush(self) -> None:
        """Write the lines held back whose key's period is over."""
        now = self.clock()
        for key in [k for k in self.held if now - self.last[k] >= self.period]:
            level, text = self.held[key]
            self._write(key, level, text, self.held_count[key] - 1)

    def _write(self, key: str, level: str, text: str, left_out: int) -> None:
        """Write one line, saying how many lines of its key since the last were not written."""
        self.last[key] = self.clock()
        self.held.pop(key, None)
        self.held_count.pop(key, None)
        text += f" ({left_out} more like it not logged)" if left_out else ""
        # One call site per level: rclpy's logger refuses a call site whose severity changes.
        if level == "error":
            self.logger.error(text)
        elif level == "warning":
            self.logger.warning(text)
        else:
            self.logger.info(text)
