"""Test helper: a node, run by the package's ``run_node``, whose timer callback never returns.

    python blocking_node.py

It prints ``blocked`` once its callback has started waiting (on a lock nobody releases: the wait
a node that hangs after Ctrl-C is stuck in, whatever it is; here made on purpose, since the one
seen once in sim_node could not be reproduced), so that a stop signal lands while the spin is
inside the callback.
"""

import sys
import threading

from rclpy.node import Node

from ik_solvers.node.executable import run_node


class BlockingNode(Node):
    def __init__(self) -> None:
        super().__init__("blocking_node")
        self.create_timer(0.05, self.wait_forever)

    def wait_forever(self) -> None:
        print("blocked", flush=True)
        never = threading.Lock()
        never.acquire()
        never.acquire()  # held by this thread already: never returns


if __name__ == "__main__":
    sys.exit(run_node("blocking_node", BlockingNode))
