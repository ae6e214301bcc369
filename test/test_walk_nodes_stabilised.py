"""The stabilised fast gait closed loop through the real nodes: walk_node → ik_node → sim_node.

Real rclpy nodes over DDS and a real MuJoCo robot, as ``walk.launch.py`` runs them: sim_node
lock-stepped to walk_node's period on simulated time, the robot starting from straight legs;
walk_node with ``config/walk_fast.yaml`` (0.6 s steps, the stabiliser on) reads only the IMU
(``/sim_node/imu``) and ``/joint_states``. Open loop this gait falls at once
(``test_walk_fast.py``); before walk_node sampled its inputs by their stamps and ramped the
feedback in, the closed loop fell here within its first steps. The test walks forward for a few
steps and fails on a fall (walk_node's own detector, or the torso tilted or sunk).
"""

from __future__ import annotations

import math
import time

import pytest
from ros_helpers import spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from geometry_msgs.msg import PoseStamped, Twist
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import Bool

from ik_solvers.demo.free_standing import lock_step_sim_arguments
from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config

WALKED = 4.0  # [s] of simulated time walked after the first step could start
SPEED = 0.9  # share of the gait's largest forward speed (0.207 m/s on the packaged robot)
SETTLE = 1.0  # [s] of simulated time standing before the walk (the knees bend from straight legs)
COMMAND_PERIOD = 0.1  # [s] of wall time between cmd_vel messages
START = 2.4  # [s] from the first cmd_vel to the first lift-off: command_delay + start_transfer (+ slack)


def _tilt_degrees(message: PoseStamped) -> float:
    """The torso's z axis from the vertical [deg]."""
    o = message.pose.orientation
    return math.degrees(math.acos(max(-1.0, min(1.0, 1.0 - 2.0 * (o.x * o.x + o.y * o.y)))))


def _seconds(message: PoseStamped) -> float:
    return message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec


def test_the_stabilised_fast_gait_walks_through_the_nodes(processes, make_node, executor):
    walk_yaml = package_share_path("config", "walk_fast.yaml")
    config = load_walk_config(walk_yaml)
    assert config.stabilise
    sim_time = ["-p", "use_sim_time:=true"]
    sim = processes.start_console_script(
        "sim_node", "--ros-args", *lock_step_sim_arguments(config.dt, lock_step_timeout=1.0)
    )
    ik = processes.start_console_script(
        "ik_node",
        "--ros-args",
        "--params-file",
        str(package_share_path("config", "ik_solvers.yaml")),
        "-p",
        "max_velocity_fraction:=1.0",
        *sim_time,
    )
    walk = processes.start_console_script(
        "walk_node",
        "--ros-args",
        "--params-file",
        str(walk_yaml),
        *sim_time,
        "-p",
        "fall.torque_service:=/sim_node/set_torque",
        "-r",
        "imu:=/sim_node/imu",
    )
    node = make_node("walk_nodes_stabilised_test")
    poses: list[PoseStamped] = []
    falls: list[bool] = []
    node.create_subscription(PoseStamped, "/sim_node/base_pose", poses.append, 100)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(Bool, "/walk_node/fall", lambda m: falls.append(m.data), latched)
    commands = node.create_publisher(Twist, "cmd_vel", 10)

    def outputs() -> str:
        return "\n".join(
            f"--- {n}:\n{processes.output(p)[-3000:]}" for n, p in (("sim", sim), ("ik", ik), ("walk", walk))
        )

    up = spin_until(executor, lambda: falls == [False] and len(poses) > 20, timeout=60.0)
    assert up, outputs()
    first = _seconds(poses[-1])  # the legs bend from straight into the stance, then it stands
    settled = spin_until(executor, lambda: _seconds(poses[-1]) - first > SETTLE, timeout=60.0)
    assert settled and True not in falls, outputs()
    standing, start = poses[-1].pose.position, _seconds(poses[-1])
    twist = Twist()
    twist.linear.x = SPEED * 0.207  # clipped by walk_node to the gait's limit on another robot

    sent = {"at": -math.inf}

    def walked() -> bool:
        if time.monotonic() - sent["at"] > COMMAND_PERIOD:  # walk_node's dead-man timeout stops a silent one
            commands.publish(twist)
            sent["at"] = time.monotonic()
        return True in falls or _seconds(poses[-1]) - start > START + WALKED

    done = spin_until(executor, walked, timeout=240.0)
    assert done, f"simulated time did not advance enough\n{outputs()}"
    assert "stabiliser: stance reached" in processes.output(walk), outputs()
    tilts = [_tilt_degrees(p) for p in poses if _seconds(p) >= start]
    lowest = min(p.pose.position.z for p in poses if _seconds(p) >= start)
    assert True not in falls, f"walk_node detected a fall\n{outputs()}"
    assert max(tilts) < 10.0 and lowest > 0.8 * standing.z, (max(tilts), lowest, standing.z)
    forward = poses[-1].pose.position.x - standing.x
    assert forward > 0.25, f"walked {forward:.3f} m forward in {WALKED} s of steps"
