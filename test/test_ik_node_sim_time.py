"""ik_node on simulated time over real DDS: a target stamped ahead of the node's clock still moves.

In the lock-stepped demo walk_node's target for the next period can reach ik_node before that
period's ``/clock`` does. The velocity limit's step is then timed by the target's stamp: timed by
the node's clock, the step got no time, the command went out unchanged and the simulated servos
held last period's targets (the realistic servos' soles slipped 5.4-6.3 mm through the nodes
instead of 1.3 mm offline, docs/simulation.md). Here the test node owns ``/clock`` and never
advances it, so the node's own command timer never runs: only the target's stamp can time a step.
"""

from __future__ import annotations

import numpy as np
import pytest
from ik_node_harness import IKNodeClient, node_arguments
from ros_helpers import spin_until

pytest.importorskip("rclpy")

from rclpy.time import Time
from rosgraph_msgs.msg import Clock

from ik_solvers.walk.messages import pose_message
from ik_solvers_interfaces.msg import WholeBodyTarget

CLOCK_NS = 10_000_000_000  # the simulated time the test holds [ns]
PERIOD_NS = 10_000_000  # walk_node's period [ns]
FRACTION = 1.0  # max_velocity_fraction
VELOCITY_LIMIT = 4.8  # [rad/s] the packaged humanoid's leg joints (URDF)
LEG_JOINTS = [
    f"{side}_{joint}"
    for side in "lr"
    for joint in ("hip_joint", "leg_root", "upper_leg", "knee", "ankle", "foot")
]


@pytest.fixture(scope="module")
def client(ros_module):
    process = ros_module.processes.start_console_script(
        "ik_node", *node_arguments("use_sim_time:=true", f"max_velocity_fraction:={FRACTION}")
    )
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    client.listen_whole_body()
    return client


def _target(height: float, stamp_ns: int) -> WholeBodyTarget:
    message = WholeBodyTarget()
    message.header.frame_id = "odom"
    message.header.stamp = Time(nanoseconds=stamp_ns).to_msg()
    for name, y in (("left_sole", 0.08), ("right_sole", -0.08)):
        sole = np.eye(4)
        sole[:3, 3] = (0.0, y, 0.0)
        setattr(message, name, pose_message(sole))
    message.support = WholeBodyTarget.SUPPORT_DOUBLE
    message.torso_height = height
    return message


def _legs(message) -> np.ndarray:
    positions = dict(zip(message.name, message.position))
    return np.array([positions[name] for name in LEG_JOINTS])


def test_a_target_stamped_before_its_clock_arrives_moves_the_legs_one_period(client):
    clock = client.node.create_publisher(Clock, "/clock", 10)
    now = Clock(clock=Time(nanoseconds=CLOCK_NS).to_msg())

    def answered(stamp_ns: int) -> bool:
        clock.publish(now)
        client.spin(0.05)
        return any(Time.from_msg(c.header.stamp).nanoseconds == stamp_ns for c in client.commands)

    first = _target(0.50, CLOCK_NS)  # nothing measured: the first command is the goal itself
    assert spin_until(client.executor, lambda: client.whole_body.publish(first) or answered(CLOCK_NS))
    before = _legs(client.commands[-1])
    ahead = CLOCK_NS + PERIOD_NS  # the next period's target; /clock stays at CLOCK_NS
    lower = _target(0.45, ahead)  # 5 cm lower: the knees have far more than one period to go
    assert spin_until(client.executor, lambda: client.whole_body.publish(lower) or answered(ahead))
    command = next(c for c in client.commands if Time.from_msg(c.header.stamp).nanoseconds == ahead)
    step = np.abs(_legs(command) - before).max()
    one_period = FRACTION * VELOCITY_LIMIT * PERIOD_NS * 1e-9
    assert step == pytest.approx(one_period, rel=1e-6), client.output()
