"""Conversions between the walking pattern generator's ticks and ROS messages.

A :class:`~ik_solvers.whole_body.walking_pattern.WalkTick` (soles, support, CoM target, torso yaw
and height, all in the world frame) becomes an ik_solvers_interfaces/msg/WholeBodyTarget in the
walk node's world frame; a geometry_msgs/Twist becomes the generator's velocity command.
"""

from __future__ import annotations

import math

import numpy as np
from geometry_msgs.msg import Point, PointStamped, Pose, Twist, Vector3

from ik_solvers.spatial import matrix_to_quaternion
from ik_solvers_interfaces.msg import WholeBodyTarget

SUPPORT_CODES = {
    "double": WholeBodyTarget.SUPPORT_DOUBLE,
    "left": WholeBodyTarget.SUPPORT_LEFT,
    "right": WholeBodyTarget.SUPPORT_RIGHT,
}


def pose_message(pose: np.ndarray) -> Pose:
    """geometry_msgs/Pose of a (4, 4) homogeneous transform [m]."""
    message = Pose()
    message.position.x, message.position.y, message.position.z = (float(v) for v in pose[:3, 3])
    x, y, z, w = matrix_to_quaternion(pose[:3, :3])
    o = message.orientation
    o.x, o.y, o.z, o.w = float(x), float(y), float(z), float(w)
    return message


def whole_body_target(tick, frame: str, stamp, correction=None) -> WholeBodyTarget:
    """WholeBodyTarget of one pattern tick: soles, support, CoM target, torso yaw and height; with
    a stabiliser's ``correction`` (:class:`~ik_solvers.whole_body.stabiliser.Correction`) its torso
    attitude instead of the plan's, and its CoM as the plan's CoM target plus ``com_offset`` (the
    feedback's shift): ik_node's servo compensation takes the ZMP from the target alone, the smooth
    plan, whose second difference the feedback's tick-to-tick jitter would swamp."""
    message = WholeBodyTarget()
    message.header.frame_id, message.header.stamp = frame, stamp
    message.left_sole, message.right_sole = pose_message(tick.left_sole), pose_message(tick.right_sole)
    message.support = SUPPORT_CODES[tick.support]
    message.use_com_target = True
    message.com_target = Point(x=float(tick.com[0]), y=float(tick.com[1]), z=0.0)
    if correction is not None:  # the plan's CoM stays the target (ik_node's load model reads its ZMP from it)
        shift = np.asarray(correction.com, dtype=float)[:2] - np.asarray(tick.com, dtype=float)[:2]
        message.com_offset = Vector3(x=float(shift[0]), y=float(shift[1]), z=0.0)
    o = message.torso_orientation
    if correction is None:
        half = 0.5 * tick.torso_yaw
        o.x, o.y, o.z, o.w = 0.0, 0.0, math.sin(half), math.cos(half)
    else:
        o.x, o.y, o.z, o.w = (float(v) for v in matrix_to_quaternion(correction.torso_rotation))
    message.torso_height = float(tick.torso_height)
    return message


def point_stamped(xy: np.ndarray, frame: str, stamp) -> PointStamped:
    """PointStamped at (x, y, 0) [m] in ``frame``."""
    message = PointStamped()
    message.header.frame_id, message.header.stamp = frame, stamp
    message.point.x, message.point.y = float(xy[0]), float(xy[1])
    return message


def velocity_command(twist: Twist) -> tuple[float, float, float]:
    """(forward [m/s], lateral [m/s], yaw rate [rad/s]) of a Twist in the robot's heading frame;
    ValueError for non-finite values (the other components are ignored)."""
    command = (float(twist.linear.x), float(twist.linear.y), float(twist.angular.z))
    if not all(math.isfinite(v) for v in command):
        raise ValueError(f"cmd_vel {command} is not finite")
    return command
