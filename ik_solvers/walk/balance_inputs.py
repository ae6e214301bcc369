"""What walk_node's stabiliser reads: sensor_msgs/Imu and sensor_msgs/JointState, sampled at a steady age.

Only what a real robot has: the IMU's orientation (roll and pitch used) and angular velocity,
and the joints' measured positions — never the simulator's base pose. :meth:`BalanceInputs.latest`
gives them as of one instant, ``sample_age`` [s] before the tick, by their header stamps: each
interpolated between the two messages stamped around it; when the IMU's newest sample is older
(sim_node's come 4–14 ms after the joint states of the same time), its orientation is turned on
by its gyro to that instant. Taking the newest message of each instead, the joint states' age
varied by a period from tick to tick (in a lock-stepped simulator those of a period sometimes
arrive before walk_node's tick, sometimes after) and the IMU's attitude was up to 14 ms older
than the joints: the stabiliser's CoM (leg kinematics turned by the IMU's attitude) and its
velocity, a difference per period, jittered, and the loop amplified that until the robot fell
(in the offline loop, an IMU one period older than the joints made the robot fall standing). Inputs older than ``timeout`` [s] by their arrival
on the node's clock are not used (None: the walk node then publishes the plan uncorrected, and
says why). A message without a stamp counts as stamped when it arrived.
"""

from __future__ import annotations

import bisect
import math
from collections import deque

import numpy as np
from sensor_msgs.msg import Imu, JointState

from ik_solvers.node.messages import is_unstamped, stamp_seconds
from ik_solvers.spatial import quaternion_product
from ik_solvers.whole_body import CenterOfMass

KEPT = 20  # messages of each kind kept (0.2 s of joint states at 100 Hz, 80 ms of IMU at 250 Hz)


class BalanceInputs:
    """IMU and joint positions for :class:`~ik_solvers.whole_body.stabiliser.Stabiliser`.

    Args:
        com: the robot's CoM model (its joint order is the stabiliser's ``q``).
        timeout: [s] older inputs are not used.
        sample_age: [s] the inputs are taken as of this long before the tick (≥ 0).
    """

    def __init__(self, com: CenterOfMass, timeout: float, sample_age: float = 0.0) -> None:
        self.com, self.timeout, self.sample_age = com, timeout, sample_age
        self.q = np.zeros(com.n)  # the latest joint positions, every joint measured so far [rad]
        self.imu_time = self.joints_time = -math.inf  # [s] arrival of the latest of each
        self._joints: deque[tuple[float, np.ndarray]] = deque(maxlen=KEPT)  # (stamp [s], q), stamp order
        self._imu: deque[tuple[float, np.ndarray, np.ndarray]] = deque(maxlen=KEPT)  # (stamp, wxyz, gyro)
        self.measured_at = -math.inf  # [s] the time the last inputs given describe
        self.problem = "no IMU message yet"  # why the latest inputs are not usable, or ""

    def on_imu(self, message: Imu, now: float) -> None:
        """Keep an IMU message (refused, with :attr:`problem` set, when it has no orientation)."""
        o, w = message.orientation, message.angular_velocity
        quaternion = np.array([o.w, o.x, o.y, o.z], dtype=float)
        if message.orientation_covariance[0] == -1.0 or not np.isclose(
            np.linalg.norm(quaternion), 1.0, atol=0.01
        ):
            self.problem = (
                "the IMU gives no orientation (orientation_covariance[0] = -1 or not a unit quaternion); "
                "the stabiliser needs roll and pitch from an AHRS"
            )
            return
        gyro = np.array([w.x, w.y, w.z], dtype=float)
        _insert(self._imu, (_stamp(message, now), quaternion, gyro))
        self.imu_time, self.problem = now, ""

    def on_joint_state(self, message: JointState, now: float) -> None:
        """Keep the joints' positions (names it does not know are ignored)."""
        for name, position in zip(message.name, message.position):
            if name in self.com.joint_names and math.isfinite(position):
                self.q[self.com.index(name)] = position
        _insert(self._joints, (_stamp(message, now), self.q.copy()))
        self.joints_time = now

    def latest(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(quaternion (w, x, y, z), gyro [rad/s], q [rad]) as of ``sample_age`` before ``now``
        [s] (:attr:`measured_at` set to that time) when both are fresh, else None."""
        if not self._imu or now - self.imu_time > self.timeout:
            self.problem = self.problem or f"no IMU message for {self.timeout} s"
            return None
        if now - self.joints_time > self.timeout:
            self.problem = f"no joint state for {self.timeout} s"
            return None
        when = now - self.sample_age
        (q,), self.measured_at = _sample_at(self._joints, when)
        (quaternion, gyro), imu_time = _sample_at(self._imu, when, quaternion=True)
        quaternion = _turned(quaternion / np.linalg.norm(quaternion), gyro, self.measured_at - imu_time)
        return quaternion, gyro, q

    def age(self, now: float) -> float:
        """[s] how old the last inputs given by :meth:`latest` are at ``now`` [s] (≥ 0)."""
        return max(now - self.measured_at, 0.0)


def _stamp(message, now: float) -> float:
    """[s] a message's header stamp, or ``now`` when it has none."""
    stamp = message.header.stamp
    return now if is_unstamped(stamp) else stamp_seconds(stamp)


def _insert(kept: deque, item: tuple) -> None:
    """Add ``item`` (stamp first) to ``kept``, in stamp order; a repeated stamp replaces its sample.
    When ``kept`` is full, the oldest sample goes (an item older than all of them is dropped)."""
    stamps = [entry[0] for entry in kept]
    index = bisect.bisect_left(stamps, item[0])
    if index < len(kept) and stamps[index] == item[0]:
        kept[index] = item
    elif index == len(kept):
        kept.append(item)
    elif len(kept) < kept.maxlen:
        kept.insert(index, item)
    elif index > 0:  # full (deque.insert would raise): make room at the old end
        kept.popleft()
        kept.insert(index - 1, item)


def _turned(quaternion: np.ndarray, gyro: np.ndarray, seconds: float) -> np.ndarray:
    """(4,) the orientation (w, x, y, z) ``quaternion`` turned on at the body-frame rate ``gyro``
    (3,) [rad/s] for ``seconds`` [s] (≤ 0: unchanged)."""
    angle = float(np.linalg.norm(gyro)) * seconds
    if seconds <= 0.0 or angle == 0.0:
        return quaternion
    axis = np.asarray(gyro, dtype=float) / float(np.linalg.norm(gyro))
    half = 0.5 * angle
    return quaternion_product(quaternion, np.array([math.cos(half), *(math.sin(half) * axis)]))


def _sample_at(kept: deque, when: float, quaternion: bool = False) -> tuple[tuple[np.ndarray, ...], float]:
    """(the values of ``kept``'s samples (stamp, values…) interpolated linearly at ``when`` [s],
    the time they describe): between the two samples stamped around it, else the nearest sample
    (the newest when all are older, the oldest when all are newer). With ``quaternion`` the first
    value is an orientation (w, x, y, z), interpolated the short way round and left unnormalised."""
    stamps = [entry[0] for entry in kept]
    index = bisect.bisect_right(stamps, when)
    if index == 0:
        return kept[0][1:], stamps[0]
    if index == len(kept):
        return kept[-1][1:], stamps[-1]
    before, after = kept[index - 1], kept[index]
    share = (when - before[0]) / (after[0] - before[0])
    if quaternion and float(before[1] @ after[1]) < 0.0:  # the same orientation's other sign
        after = (after[0], -after[1], *after[2:])
    return tuple(a + share * (b - a) for a, b in zip(before[1:], after[1:])), when
