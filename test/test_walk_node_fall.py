"""walk_node's fall handling over real DDS with sim_node (MuJoCo) as the robot.

The robot stands on the floor; the test tips it over by commanding both ankles forward (a real
fall in MuJoCo). walk_node reads only the IMU (``imu`` remapped to ``/sim_node/imu``), as on
hardware: it must report the fall on ``~/fall`` and ``/diagnostics`` while the torso is still high
(the fall seen coming, not the robot lying), and turn the servos off through sim_node's
``~/set_torque`` (every joint effort then 0).
"""

from __future__ import annotations

import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

from ik_solvers.resources import package_share_path

TIP = {"l_ankle": 0.7, "r_ankle": 0.7}  # [rad] both ankles: the body leans over its heels


def test_a_fall_is_reported_early_and_the_servos_go_off(processes, make_node, executor):
    sim = processes.start_console_script("sim_node", "--ros-args", "-p", "floating_base:=true")
    walk = processes.start_console_script(
        "walk_node",
        "--ros-args",
        "--params-file",
        str(package_share_path("config", "walk.yaml")),
        "-p",
        "fall.torque_service:=/sim_node/set_torque",
        "-r",
        "imu:=/sim_node/imu",
    )
    node = make_node("walk_node_fall_test")
    falls: list[bool] = []
    statuses: list[DiagnosticStatus] = []
    poses: list[PoseStamped] = []
    states: list[JointState] = []
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(Bool, "/walk_node/fall", lambda m: falls.append(m.data), latched)
    node.create_subscription(
        DiagnosticArray,
        "/diagnostics",
        lambda m: statuses.extend(s for s in m.status if s.name == "walk_node: fall"),
        50,
    )
    node.create_subscription(PoseStamped, "/sim_node/base_pose", poses.append, 100)
    node.create_subscription(JointState, "/joint_states", states.append, 100)
    commands = node.create_publisher(JointState, "joint_commands", 10)
    up = wait_for_matching(executor, commands) and spin_until(
        executor, lambda: falls == [False] and len(poses) > 50
    )
    assert up, f"{processes.output(sim)}\n{processes.output(walk)}"
    standing = poses[-1].pose.position.z
    spin_until(executor, lambda: False, timeout=1.0)
    assert falls == [False]  # standing still: no alarm
    upright = spin_until(executor, lambda: any(s.level == DiagnosticStatus.OK for s in statuses), timeout=5.0)
    assert upright and statuses[-1].message == "upright"

    commands.publish(JointState(name=list(TIP), position=list(TIP.values())))
    fell = spin_until(executor, lambda: True in falls, timeout=10.0)
    assert fell, f"no fall reported:\n{processes.output(walk)}"
    height_when_reported = poses[-1].pose.position.z
    assert height_when_reported > 0.7 * standing  # seen coming: the torso still high
    error = spin_until(
        executor, lambda: any(s.level == DiagnosticStatus.ERROR for s in statuses), timeout=5.0
    )
    assert error and "predicted tilt" in next(
        s.message for s in statuses if s.level == DiagnosticStatus.ERROR
    )
    count = len(states)
    off = spin_until(
        executor, lambda: len(states) > count and max(abs(e) for e in states[-1].effort) == 0.0, 5.0
    )
    assert off, f"servos not turned off:\n{processes.output(walk)}\n{processes.output(sim)}"
    assert "torque off" in processes.output(sim)
    assert sim.poll() is None and walk.poll() is None
