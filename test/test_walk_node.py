"""walk_node over real DDS: whole-body targets at 100 Hz, standing still, then stepping on cmd_vel.

The node runs as its console script with the packaged config/walk.yaml; the test listens to
``whole_body/target`` and sends ``cmd_vel``. No simulator: only what walk_node publishes.
"""

from __future__ import annotations

import numpy as np
import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")

from geometry_msgs.msg import PointStamped, Twist

from ik_solvers.resources import package_share_path
from ik_solvers_interfaces.msg import WholeBodyTarget


@pytest.fixture
def walk(processes, make_node, executor):
    config = str(package_share_path("config", "walk.yaml"))
    process = processes.start_console_script("walk_node", "--ros-args", "--params-file", config)
    node = make_node("walk_node_test")
    targets: list[WholeBodyTarget] = []
    zmp: list[PointStamped] = []
    node.create_subscription(WholeBodyTarget, "whole_body/target", targets.append, 1000)
    node.create_subscription(PointStamped, "/walk_node/zmp", zmp.append, 1000)
    commands = node.create_publisher(Twist, "cmd_vel", 10)
    started = wait_for_matching(executor, commands) and spin_until(executor, lambda: len(targets) > 10)
    assert started, f"walk_node did not come up:\n{processes.output(process)}"
    return process, targets, zmp, commands


def _forward(speed: float) -> Twist:
    twist = Twist()
    twist.linear.x = speed
    return twist


def test_standing_targets_come_at_about_100_hz_in_double_support(walk, executor):
    _, targets, zmp, _ = walk
    start = len(targets)
    spin_until(executor, lambda: False, timeout=1.0)
    received = targets[start:]
    assert 50 <= len(received) <= 150  # [per s]: 100 Hz, loose for a busy machine
    assert {t.support for t in received} == {WholeBodyTarget.SUPPORT_DOUBLE}
    assert all(t.header.frame_id == "odom" and t.use_com_target for t in received)
    assert zmp and zmp[-1].header.frame_id == "odom"


def test_cmd_vel_makes_it_step_forward(walk, executor):
    _, targets, _, commands = walk
    start = len(targets)

    def stepped() -> bool:
        commands.publish(_forward(0.08))
        return any(t.support != WholeBodyTarget.SUPPORT_DOUBLE for t in targets[start:])

    assert spin_until(executor, stepped, timeout=15.0)
    spin_until(executor, lambda: commands.publish(_forward(0.08)) or False, timeout=3.0)
    lifted = max(max(t.left_sole.position.z, t.right_sole.position.z) for t in targets[start:])
    moved = max(max(t.left_sole.position.x, t.right_sole.position.x) for t in targets[start:])
    assert lifted > 0.01 and moved > 0.02  # [m] a sole swung up and forward


def test_non_finite_cmd_vel_is_refused_and_the_node_keeps_running(walk, executor, processes):
    process, targets, _, commands = walk
    commands.publish(_forward(float("nan")))
    start = len(targets)
    spin_until(executor, lambda: len(targets) > start + 20, timeout=5.0)
    assert process.poll() is None
    assert all(np.isfinite(t.com_target.x) for t in targets[start:])
    assert "cmd_vel refused" in processes.output(process)
