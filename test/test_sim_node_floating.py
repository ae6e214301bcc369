"""sim_node with a floating base over real DDS: base pose in odom and the IMU while standing."""

from __future__ import annotations

import numpy as np
import pytest
from ros_helpers import spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import Imu


def test_standing_robot_publishes_its_base_pose_in_odom_and_an_imu(processes, make_node, executor):
    process = processes.start_console_script("sim_node", "--ros-args", "-p", "floating_base:=true")
    node = make_node("sim_node_floating_test")
    poses: list[PoseStamped] = []
    imus: list[Imu] = []
    node.create_subscription(PoseStamped, "/sim_node/base_pose", poses.append, 50)
    node.create_subscription(Imu, "/sim_node/imu", imus.append, 50)
    arrived = spin_until(executor, lambda: len(poses) > 100 and len(imus) > 100, timeout=20.0)
    assert arrived, f"no base pose or IMU:\n{processes.output(process)}"
    pose, imu = poses[-1], imus[-1]
    assert pose.header.frame_id == "odom"
    assert 0.4 < pose.pose.position.z < 0.6  # [m] the packaged robot's torso, standing
    assert imu.header.frame_id == "base_link"
    acceleration = imu.linear_acceleration
    assert [acceleration.x, acceleration.y, acceleration.z] == pytest.approx([0.0, 0.0, 9.81], abs=0.3)
    assert np.abs([imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z]).max() < 0.05
    assert imu.orientation.w == pytest.approx(pose.pose.orientation.w, abs=1e-3)
    assert process.poll() is None
