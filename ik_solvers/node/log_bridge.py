"""The library's Python ``logging`` records (the ``ik_solvers`` logger) in a node's ROS log.

The library says through ``logging`` what a ROS user must see at start-up (the first compile of
the Jacobian solver's kernels and how long it took, a cache rebuilt); rclpy does not read Python
logging, so a node forwards it.
"""

from __future__ import annotations

import logging

from rclpy.node import Node


class RosLogHandler(logging.Handler):
    """Writes each record to a ROS logger at the matching severity."""

    def __init__(self, ros_logger) -> None:
        super().__init__()
        self.ros_logger = ros_logger

    def emit(self, record: logging.LogRecord) -> None:
        message = self.format(record)
        if record.levelno >= logging.ERROR:
            self.ros_logger.error(message)
        elif record.levelno >= logging.WARNING:
            self.ros_logger.warning(message)
        else:
            self.ros_logger.info(message)


def forward_library_log(node: Node) -> None:
    """Send the ``ik_solvers`` logger's records (INFO and above) to ``node``'s ROS log."""
    library = logging.getLogger("ik_solvers")
    library.setLevel(logging.INFO)
    library.addHandler(RosLogHandler(node.get_logger()))
