"""A node's time in seconds: simulated when it runs on ``/clock`` (``use_sim_time``), else monotonic."""

from __future__ import annotations

import time

from rclpy.node import Node


def node_seconds(node: Node) -> float:
    """[s] on ``node``'s clock: the simulated time when ``use_sim_time`` is on and ``/clock`` is
    published, else the monotonic wall clock (immune to system clock changes)."""
    clock = node.get_clock()
    if clock.ros_time_is_active:
        return clock.now().nanoseconds * 1e-9
    return time.monotonic()
