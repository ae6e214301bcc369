"""Test helper: a node, run by the package's ``run_node``, whose constructor fails after rclpy's
``Node.__init__`` made its parameter services and after the node made a publisher and a service.

    python half_built_node.py

Its constructor raises ``ValueError("half_built_node refused")`` (a start error: one line, exit 1).
It says on stderr, in the order things happen, when it is destroyed and whether ROS was still
running then (``destroyed, ROS running: True``) and, from an ``atexit`` function (run after
``run_node`` finalised the ROS context), whether the context it was made in was finalised
(``context finalised: True``).
"""

import atexit
import sys

from rclpy._rclpy_pybind11 import InvalidHandle
from rclpy.context import Context
from rclpy.node import Node
from std_msgs.msg import Empty
from std_srvs.srv import Trigger

from ik_solvers.node.executable import run_node


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def say_if_finalised(context: Context) -> None:
    try:
        context.ok()
    except InvalidHandle:  # the rcl context is gone: run_node finalised it
        say("context finalised: True")
    else:
        say("context finalised: False")


class HalfBuiltNode(Node):
    def __init__(self) -> None:
        super().__init__("half_built_node")
        atexit.register(say_if_finalised, self.context)
        self.publisher = self.create_publisher(Empty, "~/half", 1)
        self.create_service(Trigger, "~/half", lambda _, response: response)
        raise ValueError("half_built_node refused")

    def destroy_node(self) -> None:
        say(f"destroyed, ROS running: {self.context.ok()}")
        super().destroy_node()


if __name__ == "__main__":
    sys.exit(run_node("half_built_node", HalfBuiltNode))
