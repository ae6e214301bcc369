"""What walk_node's stabiliser reads: the latest sensor_msgs/Imu and sensor_msgs/JointState.

Only what a real robot has: the IMU's orientation (roll and pitch used) and angular velocity,
and the joints' measured positions — never the simulator's base pose. Each message is kept with
the node-clock time it arrived; :meth:`BalanceInputs.latest` gives them while both are fresher
than ``timeout`` [s], else None (the walk node then publishes the plan uncorrected, and says why).
"""

from __future__ import annotations

import math

import numpy as np
from sensor_msgs.msg import Imu, JointState

from ik_solvers.whole_body import CenterOfMass


class BalanceInputs:
    """Latest IMU and joint positions for :class:`~ik_solvers.whole_body.stabiliser.Stabiliser`.

    Args:
        com: the robot's CoM model (its joint order is the stabiliser's ``q``).
        timeout: [s] older inputs are not used.
    """

    def __init__(self, com: CenterOfMass, timeout: float) -> None:
        self.com, self.timeout = com, timeout
        self.q = np.zeros(com.n)
        self.quaternion = self.gyro = None
        self.imu_time = self.joints_time = -math.inf
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
        self.quaternion, self.gyro = quaternion, np.array([w.x, w.y, w.z], dtype=float)
        self.imu_time, self.problem = now, ""

    def on_joint_state(self, message: JointState, now: float) -> None:
        """Keep the joints' positions (names it does not know are ignored)."""
        for name, position in zip(message.name, message.position):
            if name in self.com.joint_names and math.isfinite(position):
                self.q[self.com.index(name)] = position
        self.joints_time = now

    def latest(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(quaternion (w, x, y, z), gyro [rad/s], q [rad]) when both are fresh at ``now`` [s], else None."""
        if self.quaternion is None or now - self.imu_time > self.timeout:
            self.problem = self.problem or f"no IMU message for {self.timeout} s"
            return None
        if now - self.joints_time > self.timeout:
            self.problem = f"no joint state for {self.timeout} s"
            return None
        return self.quaternion, self.gyro, self.q
