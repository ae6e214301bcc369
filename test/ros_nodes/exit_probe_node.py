"""Test helper: a node, run by the package's ``run_node``, that shows what its process's end keeps.

    python exit_probe_node.py

It prints ``spinning`` from its first timer callback; at exit its ``atexit`` function prints
``atexit ran`` into stdout's buffer, unflushed: it reaches the pipe only if the process's end runs
the atexit functions and then flushes stdout (``run_node`` skips the interpreter's finalization).
"""

import atexit
import sys

from rclpy.node import Node

from ik_solvers.node.executable import run_node


class ExitProbeNode(Node):
    def __init__(self) -> None:
        super().__init__("exit_probe_node")
        self.timer = self.create_timer(0.05, self.say_spinning)

    def say_spinning(self) -> None:
        print("spinning", flush=True)
        self.timer.cancel()


if __name__ == "__main__":
    atexit.register(print, "atexit ran")
    sys.exit(run_node("exit_probe_node", ExitProbeNode))
