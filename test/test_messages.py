"""ROS message conversions: poses checked and normalised, joint states by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("rclpy")

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose
from sensor_msgs.msg import JointState

from ik_solvers.node.messages import (
    MessageError,
    joint_positions,
    joint_state,
    ordered_positions,
    pose_to_matrix,
)


def make_pose(position=(0.1, 0.2, 0.3), quaternion=(0.0, 0.0, 0.0, 1.0)) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = position
    o = pose.orientation
    o.x, o.y, o.z, o.w = quaternion
    return pose


def test_a_pose_becomes_a_homogeneous_transform():
    matrix = pose_to_matrix(make_pose(quaternion=(0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5))))
    np.testing.assert_allclose(matrix[:3, 3], [0.1, 0.2, 0.3])
    np.testing.assert_allclose(matrix[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)


def test_a_non_unit_quaternion_is_normalised():
    matrix = pose_to_matrix(make_pose(quaternion=(0.0, 0.0, 0.0, 7.0)))
    np.testing.assert_allclose(matrix[:3, :3], np.eye(3))


@pytest.mark.parametrize(
    ("position", "quaternion", "reason"),
    [
        ((math.nan, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), "finite"),
        ((0.0, math.inf, 0.0), (0.0, 0.0, 0.0, 1.0), "finite"),
        ((0.0, 0.0, 0.0), (0.0, math.nan, 0.0, 1.0), "unit quaternion"),
        ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0), "zero quaternion"),
    ],
)
def test_a_malformed_pose_is_refused_with_a_reason(position, quaternion, reason):
    with pytest.raises(MessageError, match=reason):
        pose_to_matrix(make_pose(position, quaternion))


def test_joint_positions_leave_out_non_finite_entries():
    message = JointState(name=["a", "b"], position=[1.0, math.nan])
    assert joint_positions(message) == {"a": 1.0}


def test_joint_positions_refuse_names_and_positions_of_different_lengths():
    with pytest.raises(MessageError, match="one position per name"):
        joint_positions(JointState(name=["a", "b"], position=[1.0]))


def test_joint_state_carries_names_positions_and_stamp():
    message = joint_state(["a", "b"], np.array([1.0, 2.0]), Time(sec=3, nanosec=4))
    assert (list(message.name), list(message.position)) == (["a", "b"], [1.0, 2.0])
    assert (message.header.stamp.sec, message.header.stamp.nanosec) == (3, 4)


def test_ordered_positions_follow_the_requested_order_or_report_a_missing_joint():
    np.testing.assert_allclose(ordered_positions({"a": 1.0, "b": 2.0}, ["b", "a"]), [2.0, 1.0])
    assert ordered_positions({"a": 1.0}, ["a", "b"]) is None
