"""sim_node's IMU and torque service over real DDS, against the simulator's truth (its base pose).

The packaged robot stands on the floor; its IMU is on the torso (the root link), so the IMU's
orientation and the base pose's are the same rotation. With noise and bias on and the orientation
estimated by the Fusion AHRS (``imu.orientation:=fused``), the published orientation must stay
within 2 degrees of tilt of the truth; with ``none`` the message says it has no orientation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ros_helpers import call_service, spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import Imu, JointState
from std_srvs.srv import SetBool

from ik_solvers.sensors import tilt

NOISY = ["-p", "imu.gyro_noise:=0.005", "-p", "imu.gyro_bias:=0.01", "-p", "imu.accel_noise:=0.05"]


def _start(processes, make_node, executor, *parameters: str):
    process = processes.start_console_script(
        "sim_node", "--ros-args", "-p", "floating_base:=true", "-p", "imu.rate:=500.0", *parameters
    )
    node = make_node("sim_node_imu_test")
    poses: list[PoseStamped] = []
    imus: list[Imu] = []
    node.create_subscription(PoseStamped, "/sim_node/base_pose", poses.append, 100)
    node.create_subscription(Imu, "/sim_node/imu", imus.append, 500)
    arrived = spin_until(executor, lambda: len(poses) > 400 and len(imus) > 1000, timeout=30.0)
    assert arrived, f"no base pose or IMU:\n{processes.output(process)}"
    return process, node, poses, imus


def _quaternion(q) -> np.ndarray:
    return np.array([q.w, q.x, q.y, q.z])


def test_noisy_imu_with_fused_orientation_follows_the_truth_at_its_rate(processes, make_node, executor):
    process, _, poses, imus = _start(processes, make_node, executor, *NOISY, "-p", "imu.orientation:=fused")
    stamps = np.array([m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in imus])
    assert np.median(np.diff(stamps)) == pytest.approx(0.002, abs=2e-4)  # 500 Hz of simulated time
    assert {m.header.frame_id for m in imus} == {"base_link"}
    gyro = np.array([[m.angular_velocity.x, m.angular_velocity.y, m.angular_velocity.z] for m in imus[-500:]])
    assert 0.003 < gyro.std(axis=0).mean() < 0.008  # the configured noise, 0.005 rad/s
    assert imus[-1].angular_velocity_covariance[0] == pytest.approx(0.005**2)
    truth, estimate = tilt(_quaternion(poses[-1].pose.orientation)), tilt(_quaternion(imus[-1].orientation))
    assert abs(math.degrees(estimate - truth)) < 2.0
    assert process.poll() is None


def test_without_orientation_the_message_says_so_and_torque_off_zeroes_every_effort(
    processes, make_node, executor
):
    process, node, _, imus = _start(processes, make_node, executor, "-p", "imu.orientation:=none")
    assert imus[-1].orientation_covariance[0] == -1.0
    states: list[JointState] = []
    node.create_subscription(JointState, "/joint_states", states.append, 100)
    assert spin_until(executor, lambda: len(states) > 5)
    assert (
        max(abs(e) for e in states[-1].effort) > 1e-3
    )  # [N m] the servos hold the robot up (straight legs: little)
    client = node.create_client(SetBool, "/sim_node/set_torque")
    assert client.wait_for_service(timeout_sec=10.0), processes.output(process)
    response = call_service(executor, client, SetBool.Request(data=False))
    assert response is not None and response.success
    count = len(states)
    assert spin_until(executor, lambda: len(states) > count + 5)
    assert max(abs(e) for e in states[-1].effort) == 0.0
    assert process.poll() is None
