"""Orientation from a gyro and an accelerometer, for IMUs that give none.

No ROS here. The filter is x-io Technologies' Fusion AHRS (``imufusion``, MIT licence), a
maintained implementation of Madgwick's revised complementary filter (S. Madgwick, "AHRS
algorithms and calibration solutions to facilitate new applications using low-cost MEMS", PhD
thesis, University of Bristol, 2014): the gyro is integrated, and the accelerometer's gravity
direction pulls roll and pitch back with ``gain``; while the measured acceleration differs from
gravity by more than ``acceleration_rejection`` (30 degrees: a step's impact, a push, a fall) the
accelerometer is ignored, at most for ``rejection_timeout``. Heading (yaw) drifts with the gyro's bias, as any
AHRS without a magnetometer does. Fusion's gyro bias estimator removes a bias it sees while the
robot stands still. Frames: the IMU's (x forward, y left, z up, REP-103) in a world of z up
(Fusion's NWU convention). Units here: rad/s, m/s^2, s; Fusion's own (deg/s, g) stay inside.
"""

from __future__ import annotations

import math

import imufusion
import numpy as np

STANDARD_GRAVITY = 9.80665  # [m/s^2] one g, Fusion's accelerometer unit
GYRO_RANGE = 2000.0  # [deg/s] the gyro's range (a saturated gyro makes Fusion re-initialise)
STATIONARY_THRESHOLD = 3.0  # [deg/s] below which Fusion's bias estimator counts the gyro still
STATIONARY_PERIOD = 3.0  # [s] still for this long before the bias estimate moves
ACCELERATION_REJECTION = math.radians(30.0)  # [rad] a walking small robot's specific force leaves
# gravity's direction by more than Fusion's usual 10 deg much of the time: with 10 the accelerometer
# was ignored, the gyro bias (0.01 rad/s) drifted the tilt 6-10 deg over the demo's walk; with 30,
# median 1.6, at most 4.7 (test/test_sim_imu.py, docs/simulation.md)


class AttitudeFilter:
    """Orientation (w, x, y, z) of the IMU frame in a z-up world from gyro and accelerometer samples.

    Args:
        sample_rate: [Hz] the IMU's nominal rate (Fusion's start-up and bias timing).
        gain: weight of the accelerometer against the gyro (Fusion's default 0.5).
        acceleration_rejection: [rad] accelerometer ignored while its direction is this far
            from the estimated gravity.
        rejection_timeout: [s] the longest it is ignored before the filter re-initialises on it.
    """

    def __init__(
        self,
        sample_rate: float,
        gain: float = 0.5,
        acceleration_rejection: float = ACCELERATION_REJECTION,
        rejection_timeout: float = 5.0,
    ) -> None:
        if not (math.isfinite(sample_rate) and sample_rate > 0.0):
            raise ValueError(f"sample_rate {sample_rate!r} refused: a positive number [Hz] is required")
        self._ahrs = imufusion.Ahrs()
        self._ahrs.set_settings(
            imufusion.AhrsSettings(
                sample_rate=sample_rate,
                convention=imufusion.CONVENTION_NWU,
                gain=gain,
                gyroscope_range=GYRO_RANGE,
                acceleration_rejection=math.degrees(acceleration_rejection),
                magnetic_rejection=0.0,
                rejection_timeout=max(1, round(rejection_timeout * sample_rate)),
            )
        )
        self._bias = imufusion.Bias()
        self._bias.set_settings(
            imufusion.BiasSettings(
                sample_rate=sample_rate,
                stationary_threshold=STATIONARY_THRESHOLD,
                stationary_period=STATIONARY_PERIOD,
            )
        )
        self._period = 1.0 / sample_rate

    def update(self, gyro: np.ndarray, accelerometer: np.ndarray, dt: float | None = None) -> np.ndarray:
        """Take one sample; return the orientation (4,) (w, x, y, z).

        Args:
            gyro: (3,) angular velocity [rad/s] in the IMU frame.
            accelerometer: (3,) specific force [m/s^2] in the IMU frame (+9.81 up at rest).
            dt: [s] since the previous sample (None: the nominal period).
        """
        if dt is not None and dt > 0.0 and dt != self._period:
            self._period = dt
            self._ahrs.set_sample_period(dt)
        gyro_deg = self._bias.update(np.degrees(np.asarray(gyro, dtype=float)))
        self._ahrs.update_no_magnetometer(gyro_deg, np.asarray(accelerometer, dtype=float) / STANDARD_GRAVITY)
        return self.orientation

    @property
    def orientation(self) -> np.ndarray:
        """(4,) (w, x, y, z) the latest estimate."""
        return np.asarray(self._ahrs.get_quaternion(), dtype=float)

    @property
    def gyro_bias(self) -> np.ndarray:
        """(3,) [rad/s] the gyro bias the filter removes."""
        return np.radians(np.asarray(self._bias.get_offset(), dtype=float))


def tilt(orientation: np.ndarray) -> float:
    """[rad] angle between the frame's z axis and the world's vertical, from (w, x, y, z)."""
    w, x, y, z = (float(v) for v in orientation)
    cosine = (w * w + z * z - x * x - y * y) / (w * w + x * x + y * y + z * z)  # the frame's z, up
    return math.acos(min(max(cosine, -1.0), 1.0))
