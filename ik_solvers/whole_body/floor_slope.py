"""The floor's slope from the IMU and the support sole's kinematics, and the CoM lean it asks for.

The walking plan's world is the floor's: its soles lie flat on it. An IMU measures the torso
against gravity; on a slope the two differ by the floor's tilt. With the support sole flat on
the floor, the forward kinematics of the measured joints give the sole in the torso frame,
R_sole|torso, so gravity's direction in the plan's frame is

    d = R_sole,plan · R_sole|torso^T · R_torso,gravity^T · (0, 0, −1)

(the IMU's yaw does not matter: a turn about the vertical leaves (0, 0, −1) where it is). A sole
that rolls over its edge is not flat (a push, a stumble), so d is learnt only while the robot
moves as planned: the gyro below ``STILL_RATE`` and the CoM's velocity within ``STILL_SPEED``
of the plan's (a slope offsets the CoM and leaves its velocity alone; tipping changes both).
It is low-pass filtered from a level floor (first order, time constant ``slope_filter`` [s]),
and tilts over ``MAX_SLOPE`` are not believed.

In the plan's frame gravity then pulls along the floor by d_h / |d_z| of the weight: the linear
inverted pendulum c̈ = ω² (c − p) + g d_h / |d_z| holds still with its CoM at
c = p + z_c d_h / d_z, uphill of the ZMP by z_c tan α on a slope α (the linear inverted
pendulum of S. Kajita, K. Tani, "Study of dynamic biped locomotion on rugged terrain:
derivation and application of the linear inverted pendulum mode", ICRA 1991, with gravity
tilted in the floor's frame). The stabiliser adds that lean to the CoM target: a feedforward
that the DCM feedback alone supplied only in part (a third of it at its gain of 0.5), at most
as far as the standing support polygon reaches (less its margin): further forward the legs
could not follow it in single support, and the DCM feedback then takes the rest.

No ROS, no simulator truth. Frames: the plan's world (z normal to the floor), the torso = the
model's root link. Units: m, s, rad.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.stance_legs import LegPair
from ik_solvers.whole_body.state_estimate import attitude_matrix, roll_pitch

STILL_RATE = 0.3  # [rad/s] the slope is learnt only while the gyro reads less than this
STILL_SPEED = 0.03  # [m/s] ... and the CoM's velocity is this close to the plan's
MAX_SLOPE = math.radians(20.0)  # the tilt believed at most (a sole rolling over its edge reads more)
DOWN = np.array([0.0, 0.0, -1.0])


class FloorSlope:
    """Gravity's direction in the plan's frame, one tick at a time (see the module docstring).

    Args:
        com: the robot's centre of mass (its joint order is that of ``q``).
        legs: the stance solver's legs (root → each sole).
        dt: the update period [s]; time_constant: the low-pass filter's [s] (> 0).
    """

    def __init__(self, com: CenterOfMass, legs: LegPair, dt: float, time_constant: float) -> None:
        if not (dt > 0.0 and time_constant > 0.0):
            raise ValueError(
                f"floor slope needs dt > 0 (got {dt} s) and a time constant > 0 (got {time_constant} s)"
            )
        self.chains = dict(zip(("left", "right"), legs.chains))
        self._columns = {
            side: np.array([com.index(name) for name in chain.joint_names])
            for side, chain in self.chains.items()
        }
        self._blend = dt / (dt + time_constant)
        self.gravity = DOWN.copy()  # (3,) unit, in the plan's frame: a level floor until learnt
        self.seeded = False  # the first reading taken as it is (the robot set down, standing)

    def update(
        self,
        quaternion: np.ndarray,
        gyro: np.ndarray,
        q: np.ndarray,
        support: str,
        sole: np.ndarray,
        yaw: float,
        velocity_error: np.ndarray,
    ) -> np.ndarray:
        """(3,) gravity's unit direction in the plan's frame, filtered (from a level floor).

        Args:
            quaternion: (4,) IMU orientation (w, x, y, z) against gravity; gyro: (3,) [rad/s].
            q: (n,) joint positions [rad] in ``CenterOfMass.joint_names`` order.
            support: "left" or "right": the sole flat on the floor; sole: (4, 4) its plan.
            yaw: the torso's heading [rad] (the plan's).
            velocity_error: (2,) the CoM's estimated velocity − the plan's [m/s].
        """
        if self.seeded and not self._still(gyro, velocity_error):
            return self.gravity
        torso = attitude_matrix(*roll_pitch(quaternion), yaw)
        sole_local = self.chains[support].fk(q[self._columns[support]])[:3, :3]
        return self.update_measured(torso, sole_local, gyro, sole, velocity_error)

    def update_measured(
        self,
        torso: np.ndarray,
        sole_in_torso: np.ndarray,
        gyro: np.ndarray,
        sole: np.ndarray,
        velocity_error: np.ndarray,
    ) -> np.ndarray:
        """:meth:`update` from the torso's attitude and the support sole's kinematics already
        computed (the state estimator's): ``torso`` (3, 3) R_torso,gravity (the plan's heading),
        ``sole_in_torso`` (3, 3) the support sole's rotation in the torso frame; the other
        arguments as for :meth:`update`."""
        if self.seeded and not self._still(gyro, velocity_error):
            return self.gravity
        measured = sole[:3, :3] @ (sole_in_torso.T @ (torso.T @ DOWN))
        if math.acos(min(1.0, -float(measured[2]))) > MAX_SLOPE:
            return self.gravity
        blend = self._blend if self.seeded else 1.0
        self.seeded = True
        gravity = self.gravity + blend * (measured - self.gravity)
        self.gravity = gravity / math.sqrt(float(gravity @ gravity))
        return self.gravity

    @staticmethod
    def _still(gyro: np.ndarray, velocity_error: np.ndarray) -> bool:
        """Whether the robot moves as planned: the gyro below STILL_RATE [rad/s], the CoM's
        velocity error (2,) below STILL_SPEED [m/s]."""
        g, v = gyro, velocity_error
        return (
            math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) < STILL_RATE
            and math.hypot(v[0], v[1]) < STILL_SPEED
        )

    def tip_lean(
        self, torso: np.ndarray, sole_in_torso: np.ndarray, sole: np.ndarray, com_height: float, dead: float
    ) -> np.ndarray:
        """(2,) [m] the CoM's shift (world frame) that holds the pendulum still over a support sole
        tipped over its edge: the lean of :meth:`lean` for the sole's measured tilt (not filtered,
        arguments as for :meth:`update_measured`) against the learnt floor's, for the part of the
        tilt beyond ``dead`` [rad] (a sole's compliance tilts it a little at every step)."""
        measured = sole[:3, :3] @ (sole_in_torso.T @ (torso.T @ DOWN))
        tilt = measured[:2] / -float(measured[2]) - self.gravity[:2] / -float(self.gravity[2])
        size = math.hypot(*tilt)
        beyond = math.tan(max(math.atan(size) - dead, 0.0))
        return np.zeros(2) if size == 0.0 else -com_height * beyond / size * tilt

    def lean(self, com_height: float, yaw: float, limits: np.ndarray) -> np.ndarray:
        """(2,) [m]: where the CoM holds still against the ZMP on this floor, z_c d_h / d_z
        (uphill), clipped to ± ``limits`` (2,) [m] forward and sideways of the heading ``yaw`` [rad]."""
        gx, gy, gz = (float(v) for v in self.gravity)
        lx, ly = com_height * gx / gz, com_height * gy / gz
        c, s = math.cos(yaw), math.sin(yaw)
        forward = min(max(c * lx + s * ly, -limits[0]), limits[0])
        sideways = min(max(-s * lx + c * ly, -limits[1]), limits[1])
        return np.array([c * forward - s * sideways, s * forward + c * sideways])
