"""The stamp check every target of the ik_node passes: per-chain poses and whole-body targets alike.

A target stamped further than ``max_target_age`` [s] from the node's clock, in the past or the
future (a stamp of 1970 included), is refused with :class:`RequestError`; an unstamped target
(stamp 0) is always accepted, and so is any target while ``max_target_age`` is 0 or the clock
still reads 0 (simulated time before the first ``/clock`` message: nothing to compare with).
"""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time
from rclpy.clock import Clock

from ik_solvers.control.commander import RequestError
from ik_solvers.node.messages import is_unstamped, stamp_seconds


class TargetAge:
    """Refuses stale and future targets by their header stamp.

    Args:
        clock: the node's clock (ROS time: simulated under ``use_sim_time``).
        max_age: [s] ``max_target_age``; 0 accepts any stamp. Settable at run time.
    """

    def __init__(self, clock: Clock, max_age: float) -> None:
        self.clock, self.max_age = clock, max_age

    def check(self, stamp: Time) -> None:
        """Raise RequestError when ``stamp`` is further than ``max_age`` from now."""
        now = self.clock.now().nanoseconds
        if self.max_age <= 0.0 or is_unstamped(stamp) or now == 0:
            return
        age = now * 1e-9 - stamp_seconds(stamp)
        if not math.isfinite(age) or abs(age) > self.max_age:
            when = "old" if age > 0 else "in the future"
            raise RequestError(
                f"stamp is {abs(age):.3f} s {when}; accepted: within max_target_age = {self.max_age} s "
                "of now, or an unstamped (zero) header"
            )
