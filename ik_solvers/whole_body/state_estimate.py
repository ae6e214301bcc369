"""Floating-base state from what a real robot measures: IMU attitude and the legs' joint positions.

No simulator truth here. The torso's roll and pitch come from the IMU (an AHRS orientation, or
any quaternion whose yaw is ignored), its yaw from the walking plan (the yaw an IMU reports
drifts; the plan's heading is what the legs were told). The torso's position follows from the
supporting sole by leg kinematics: the sole lies flat where the plan put it, so

    p_torso = p_sole − R_torso · p_sole|torso,    c = p_torso + R_torso · c|torso,

with p_sole|torso the sole by forward kinematics of the measured joints and c|torso the CoM
from the URDF inertials (both in the torso frame). The CoM velocity is the difference of two
successive estimates over the same support sole divided by the time between their measurements
(``dt`` unless told: a loop that misses periods measures further apart), low-pass filtered
(first order, time constant ``velocity_filter`` [s]); a change of support sole, or a measurement
no newer than the last, keeps the last velocity for that tick.

The result is the linear inverted pendulum's state for :mod:`ik_solvers.whole_body.capture_point`.
Frames: world z up (the plan's), torso = the model's root link. Units: m, m/s, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.stance_legs import LegPair


@dataclass(frozen=True)
class BaseEstimate:
    """The floating base at one instant (world frame).

    Attributes:
        torso: (4, 4) torso pose [m].
        com: (3,) CoM [m]; com_velocity: (3,) [m/s].
        roll, pitch: the torso's attitude [rad] (from the IMU).
        angular_velocity: (3,) [rad/s] in the torso frame (the gyro).
        support: the sole the estimate stands on ("left" or "right").
    """

    torso: np.ndarray
    com: np.ndarray
    com_velocity: np.ndarray
    roll: float
    pitch: float
    angular_velocity: np.ndarray
    support: str


def roll_pitch(quaternion: np.ndarray) -> tuple[float, float]:
    """(roll, pitch) [rad] of a (w, x, y, z) orientation in a z-up world (Z-Y-X Euler angles)."""
    w, x, y, z = np.asarray(quaternion, dtype=float).tolist()
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2.0 * (w * y - z * x))))
    return roll, pitch


def attitude_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """(3, 3) rotation R_z(yaw) R_y(pitch) R_x(roll)."""
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


class BaseStateEstimator:
    """Torso pose and CoM state from the IMU and the joint positions, one tick at a time.

    Args:
        com: the robot's centre of mass (its joint order is that of ``q``).
        legs: the stance solver's legs (root → each sole).
        dt: the period of :meth:`update` [s]. velocity_filter: low-pass time constant [s].
    """

    def __init__(self, com: CenterOfMass, legs: LegPair, dt: float, velocity_filter: float = 0.02) -> None:
        if not (dt > 0.0 and velocity_filter >= 0.0):
            raise ValueError(
                f"state estimate needs dt > 0 (got {dt} s) and velocity_filter >= 0 (got {velocity_filter} s)"
            )
        self.com_model, self.dt = com, float(dt)
        self.chains = dict(zip(("left", "right"), legs.chains))
        self._columns = {
            side: np.array([com.index(name) for name in chain.joint_names])
            for side, chain in self.chains.items()
        }
        self.velocity_filter = float(velocity_filter)
        self._com_local, self._jacobian = np.empty(3), np.empty((3, com.n))
        self._last: BaseEstimate | None = None
        self.sole_in_torso = np.eye(4)  # the last update's support sole in the torso frame [m]

    def reset(self) -> None:
        """Forget the last estimate (the next one starts at zero velocity)."""
        self._last = None

    def sole_position(self, side: str, q: np.ndarray) -> np.ndarray:
        """(3,) the ``side`` sole's origin in the torso frame [m] by forward kinematics of ``q``."""
        return self.sole_pose(side, q)[:3, 3]

    def sole_pose(self, side: str, q: np.ndarray) -> np.ndarray:
        """(4, 4) the ``side`` sole's pose in the torso frame [m] by forward kinematics of ``q``."""
        return self.chains[side].fk(q[self._columns[side]])

    def update(
        self,
        quaternion: np.ndarray,
        gyro: np.ndarray,
        q: np.ndarray,
        support: str,
        sole: np.ndarray,
        yaw: float,
        elapsed: float | None = None,
    ) -> BaseEstimate:
        """The estimate now.

        Args:
            quaternion: (4,) IMU orientation (w, x, y, z); only its roll and pitch are used.
            gyro: (3,) angular velocity [rad/s] in the torso frame.
            q: (n,) joint positions [rad] in ``CenterOfMass.joint_names`` order.
            support: "left" or "right": the sole standing on the ground.
            sole: (4, 4) where that sole stands in the world (its plan).
            yaw: the torso's heading [rad] (the plan's).
            elapsed: [s] since the last update's measurement (None: ``dt``).
        """
        roll, pitch = roll_pitch(quaternion)
        rotation = attitude_matrix(roll, pitch, yaw)
        chain = self.chains[support]
        sole_local = self.sole_in_torso = chain.fk(q[self._columns[support]])
        torso = np.eye(4)
        torso[:3, :3] = rotation
        torso[:3, 3] = sole[:3, 3] - rotation @ sole_local[:3, 3]
        self.com_model.local_single(np.ascontiguousarray(q, dtype=float), self._com_local, self._jacobian)
        com = torso[:3, 3] + rotation @ self._com_local
        velocity = np.zeros(3)
        last = self._last
        if last is not None:
            velocity = last.com_velocity
            elapsed = self.dt if elapsed is None else elapsed
            if last.support == support and elapsed > 0.0:
                blend = elapsed / (elapsed + self.velocity_filter)
                velocity = velocity + blend * ((com - last.com) / elapsed - velocity)
        estimate = BaseEstimate(torso, com, velocity, roll, pitch, np.asarray(gyro, float).copy(), support)
        self._last = estimate
        return estimate
