"""sim_node lock-stepped behind a servo bus, two controllers commanding through one IK (real DDS).

ik_node's ``joint_commands`` carry every joint commanded so far with the stamp of the request that
made them. In the demo's part two an arm target of the current period comes first: its command is
current but holds the legs' answer to the period before. A bus write carrying it must not run the
period: with ``lock_step_answer`` (ik_node's ``whole_body/torso_pose``) the period waits until the
IK has answered the walk and the bus has carried that answer. Before this, the legs' goals reached
the simulated servos 1-3 periods late in part two and the stabilised robot fell there in every bus
run (docs/hardware.md). The test's node stands in for ik_node and the bus (their own tests run them).
"""

from __future__ import annotations

import pytest
from ros_helpers import spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from geometry_msgs.msg import PoseStamped
from rclpy.time import Time
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

QUIET = 1.0  # [s] spun to see that the simulation does not advance
GOALS, ANSWER = "/servo_bus/goals", "/whole_body/torso_pose"


def _message(kind, stamp_ns: int, names=(), positions=()):
    message = kind()
    message.header.stamp = Time(nanoseconds=stamp_ns).to_msg()
    if kind is JointState:
        message.name, message.position = list(names), list(positions)
    return message


def test_a_period_runs_on_goals_that_carry_the_walks_answer_not_an_earlier_arm_command(
    processes, make_node, executor
):
    process = processes.start_console_script(
        "sim_node",
        "--ros-args",
        *("-p", "lock_step:=true", "-p", "control_period:=0.01", "-p", "lock_step_timeout:=1000.0"),
        *("-p", f"bus_goals:={GOALS}", "-p", f"lock_step_answer:={ANSWER}"),
    )
    node = make_node("bus_answer_test")
    clocks: list[int] = []
    node.create_subscription(
        Clock, "/clock", lambda m: clocks.append(Time.from_msg(m.clock).nanoseconds), 100
    )
    commands = node.create_publisher(JointState, "joint_commands", 10)
    goals = node.create_publisher(JointState, GOALS, 10)
    answers = node.create_publisher(PoseStamped, ANSWER, 10)
    assert spin_until(executor, lambda: bool(clocks), timeout=20.0), processes.output(process)
    joints = ["left_knee", "left_shoulder_pitch"]

    def step(message, publisher) -> None:
        publisher.publish(message)
        spin_until(executor, lambda: False, timeout=0.2)

    step(_message(PoseStamped, 0), answers)  # the answer source is heard: from now on it paces
    step(_message(JointState, 0, joints, [0.2, 0.0]), commands)  # the walk's answer to period 0
    step(_message(JointState, 0, joints, [0.2, 0.0]), goals)
    assert spin_until(executor, lambda: clocks[-1] == 10_000_000, timeout=20.0), "period 0 did not run"
    step(_message(JointState, 10_000_000, joints, [0.2, 0.3]), commands)  # an arm target: old legs
    step(_message(JointState, 10_000_000, joints, [0.2, 0.3]), goals)  # the bus carries it
    spin_until(executor, lambda: False, timeout=QUIET)
    assert clocks[-1] == 10_000_000, "the period ran before the IK answered the walk"
    step(_message(JointState, 10_000_000, joints, [0.25, 0.3]), commands)  # the walk's answer
    step(_message(PoseStamped, 10_000_000), answers)
    spin_until(executor, lambda: False, timeout=QUIET)
    assert clocks[-1] == 10_000_000, "the period ran on goals that do not carry the walk's answer"
    step(_message(JointState, 10_000_000, joints, [0.25, 0.3]), goals)
    assert spin_until(executor, lambda: clocks[-1] == 20_000_000, timeout=20.0), "period 1 did not run"
    assert process.poll() is None
