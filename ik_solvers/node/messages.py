"""ROS messages ↔ numpy, with the checks that keep bad input out of the solvers.

Poses become 4x4 homogeneous transforms [m]; quaternions are (x, y, z, w) as in ROS. A pose with a
non-finite number or a zero quaternion is refused with :class:`MessageError`; a non-unit
quaternion is normalised.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, Pose
from sensor_msgs.msg import JointState

from ik_solvers.control.commander import RequestError
from ik_solvers.frames import UnknownFrameError
from ik_solvers.solvers import IKError

MIN_QUATERNION_NORM = 1e-6


class MessageError(ValueError):
    """A message's content cannot be used; the message says what was wrong and what is accepted."""


# What bad input raises, on topics and in service requests alike: refused and reported, never fatal.
INPUT_ERRORS = (MessageError, IKError, UnknownFrameError, RequestError)


def point_to_array(point: Point, what: str = "position") -> np.ndarray:
    """(3,) [m] from a geometry_msgs Point (or Vector3); refuses NaN/inf."""
    values = np.array([point.x, point.y, point.z], dtype=float)
    if not np.all(np.isfinite(values)):
        raise MessageError(f"{what} {values.tolist()} has NaN/inf entries; send finite numbers [m]")
    return values


def pose_to_matrix(pose: Pose) -> np.ndarray:
    """(4, 4) homogeneous transform from a geometry_msgs Pose; the quaternion is normalised.

    Plain floats until the matrix is built (this runs once per target).

    Raises:
        MessageError: NaN/inf anywhere, or a quaternion of (near) zero norm.
    """
    p, q = pose.position, pose.orientation
    position = [float(p.x), float(p.y), float(p.z)]
    if not all(map(math.isfinite, position)):
        raise MessageError(f"position {position} has NaN/inf entries; send finite numbers [m]")
    quaternion = [float(q.x), float(q.y), float(q.z), float(q.w)]
    if not all(map(math.isfinite, quaternion)):
        raise MessageError(
            f"orientation {quaternion} has NaN/inf entries; send a unit quaternion (x, y, z, w)"
        )
    norm = math.sqrt(sum(x * x for x in quaternion))
    if norm < MIN_QUATERNION_NORM:
        raise MessageError(
            f"orientation {quaternion} is a zero quaternion, which names no rotation; "
            "send a unit quaternion (x, y, z, w), e.g. (0, 0, 0, 1) for the identity"
        )
    return _pose(position, [x / norm for x in quaternion])


def _pose(position: list[float], quaternion: list[float]) -> np.ndarray:
    """(4, 4) pose from a position [m] and one unit quaternion (x, y, z, w)."""
    x, y, z, w = quaternion
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), position[0]],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), position[1]],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), position[2]],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def joint_positions(message: JointState) -> dict[str, float]:
    """Joint name → position from a JointState; non-finite positions are left out.

    Raises:
        MessageError: ``name`` and ``position`` have different lengths.
    """
    if len(message.name) != len(message.position):
        raise MessageError(
            f"JointState has {len(message.name)} names but {len(message.position)} positions; "
            "send one position per name"
        )
    return {name: float(p) for name, p in zip(message.name, message.position) if np.isfinite(p)}


def joint_state(names: Iterable[str], positions: Iterable[float], stamp: Time) -> JointState:
    """A JointState with ``names`` and ``positions`` [rad or m], stamped ``stamp``."""
    message = JointState()
    message.header.stamp = stamp
    message.name = list(names)
    message.position = [float(p) for p in positions]
    return message


def ordered_positions(positions: Mapping[str, float], names: Iterable[str]) -> np.ndarray | None:
    """Positions of ``names`` in that order, or None when any of them is missing."""
    try:
        return np.array([positions[name] for name in names], dtype=float)
    except KeyError:
        return None


def stamp_seconds(stamp: Time) -> float:
    """A builtin_interfaces Time as seconds."""
    return stamp.sec + 1e-9 * stamp.nanosec


def is_unstamped(stamp: Time) -> bool:
    """True for the zero stamp (a message sent without a time)."""
    return stamp.sec == 0 and stamp.nanosec == 0
