"""A node whose constructor fails leaves nothing half-built behind (ik_solvers/node/executable.py).

A real node process (the package's ``run_node``, real rclpy) whose constructor raises after rclpy's
``Node.__init__`` made its parameter services and after the node made a publisher and a service
(test/ros_nodes/half_built_node.py). Before ``build_node`` the half-built node was left to the
garbage collector (freed in no set order, at a random moment, or never), and the ROS context it
was made in was never finalised: ``end_process`` destroyed the fresh default context rclpy makes
after its shutdown. One CI run saw sim_node, refused ``control_period = 0.0``, end with SIGSEGV
after its one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from ros_helpers import DEFAULT_TIMEOUT

HALF_BUILT_NODE = Path(__file__).resolve().parent / "ros_nodes" / "half_built_node.py"


def test_a_failed_constructor_destroys_its_node_before_the_one_line_and_ros_shutdown(processes):
    process = processes.start_python(HALF_BUILT_NODE)
    code = process.wait(timeout=DEFAULT_TIMEOUT * 3)
    lines = processes.output(process).splitlines()
    assert code == 1, lines
    refused = "half_built_node: cannot start: half_built_node refused"
    assert "destroyed, ROS running: True" in lines and refused in lines, lines
    assert lines.index("destroyed, ROS running: True") < lines.index(refused), lines
    assert "context finalised: True" in lines, lines
    assert not any("Traceback" in line for line in lines), lines
