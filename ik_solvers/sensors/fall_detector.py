"""A fall seen coming: the torso's tilt and tilt rate against thresholds scaled to the robot's size.

No ROS here. A falling humanoid tips over its sole's edge as an inverted pendulum of length h
(the CoM height) with time constant ``T_c = sqrt(h / g)``: its tilt grows like ``e^(t / T_c)``,
so a tall robot falls slowly and a small one fast, at the same angles. The detector therefore
judges angles, and rates in units of ``1 / T_c``:

- **predicted tilt**: ``tilt + lookahead * T_c * tilt_rate`` above ``tilt`` [rad], once the tilt
  itself exceeds ``min_tilt`` (a posture change, such as bending the knees from straight legs at
  the joints' velocity limits, swings the torso at 1.5-2 rad/s for an instant without tilting it:
  predicted 20-26 degrees from a tilt under 1 degree, a false alarm before this gate). For the
  linear inverted pendulum, ``x + T_c * dx/dt`` is the capture point (Pratt, Carff, Drakunov and
  Goswami, "Capture Point: A Step toward Humanoid Push Recovery", Humanoids 2006): where the CoM
  comes to rest; written in angles (x = h tilt) it is this sum, the tilt the robot is heading for;
- **tilt rate** above ``rate / T_c`` [rad/s], whatever the tilt (a violent push or a trip).

Either must hold for ``confirm * T_c`` [s] on end: bending the knees from straight legs at the
joints' velocity limits (``walk.launch.py``'s start) pitches the torso 10 degrees and back within
0.1 s, a predicted 34 degrees for 0.09 s, and the robot stands; a fall keeps its predicted tilt
rising. The tilt is the angle between the torso's z axis and the vertical, from the IMU's orientation;
the tilt rate is the angular velocity about the horizontal axis the torso tilts about (rate of
change of the tilt). A fall is latched: the detector reports it until :meth:`FallDetector.reset`.
Walking on the packaged robot tilts the torso by at most 2-3 degrees at rates under 0.5 rad/s,
far from the defaults (20 degrees predicted, 1.2 / T_c = 8 rad/s for a 0.22 m CoM height).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ik_solvers.parameter_rules import Rule, check_fields, rule_field
from ik_solvers.sensors.attitude import tilt as tilt_angle

GRAVITY = 9.81  # [m/s^2]


@dataclass(frozen=True)
class FallThresholds:
    """When the torso is falling (walk_node's ``fall.<field>`` parameters).

    Attributes:
        tilt: [rad] predicted tilt that is a fall.
        rate: tilt rate that is a fall, in units of 1 / T_c (T_c = sqrt(CoM height / g)).
        lookahead: the predicted tilt looks ``lookahead * T_c`` ahead.
        min_tilt: [rad] the predicted tilt counts only beyond this tilt.
        confirm: a condition must hold this many T_c on end to be a fall.
    """

    tilt: float = rule_field(
        Rule(math.radians(20.0), "predicted tilt that is a fall", "rad", 0.0, 1.5, low_open=True)
    )
    rate: float = rule_field(Rule(1.2, "tilt rate that is a fall, in 1 / T_c", "", 0.0, 100.0, low_open=True))
    lookahead: float = rule_field(Rule(1.0, "predicted tilt looks this many T_c ahead", "", 0.0, 10.0))
    min_tilt: float = rule_field(
        Rule(math.radians(5.0), "predicted tilt counts beyond this tilt", "rad", 0.0, 1.5)
    )
    confirm: float = rule_field(Rule(0.75, "a fall condition holds this many T_c on end", "", 0.0, 10.0))

    def __post_init__(self) -> None:
        check_fields(self, "fall.")


@dataclass(frozen=True)
class FallState:
    """What the detector saw at one sample.

    Attributes:
        fallen: a fall was detected (now or earlier: latched).
        tilt: [rad] the torso's tilt now. tilt_rate: [rad/s] its rate of change now.
        predicted_tilt: [rad] tilt + lookahead T_c tilt_rate.
        time: [s] when the fall was detected (None while none was).
        reason: why, in words ("" while no fall).
    """

    fallen: bool
    tilt: float
    tilt_rate: float
    predicted_tilt: float
    time: float | None
    reason: str


class FallDetector:
    """Watches the torso's attitude and angular velocity for a fall.

    Args:
        com_height: [m] the robot's CoM height standing (walk_node: the walk's z_c).
        thresholds: :class:`FallThresholds`.
    """

    def __init__(self, com_height: float, thresholds: FallThresholds | None = None) -> None:
        if not (math.isfinite(com_height) and com_height > 0.0):
            raise ValueError(f"com_height {com_height!r} refused: a positive number [m] is required")
        self.thresholds = thresholds or FallThresholds()
        self.time_constant = math.sqrt(com_height / GRAVITY)  # T_c [s]
        self.rate_limit = self.thresholds.rate / self.time_constant  # [rad/s]
        self.confirm_time = self.thresholds.confirm * self.time_constant  # [s]
        self.reset()

    def reset(self) -> None:
        """Forget a detected fall (the robot stands again)."""
        self.state = FallState(False, 0.0, 0.0, 0.0, None, "")
        self._since: float | None = None  # [s] since when a fall condition holds

    def update(self, time: float, orientation: np.ndarray, gyro: np.ndarray) -> FallState:
        """Judge one IMU sample.

        Args:
            time: [s] of the sample.
            orientation: (4,) (w, x, y, z) of the torso (IMU) frame in a z-up world.
            gyro: (3,) angular velocity [rad/s] in the torso frame.
        """
        angle, rate = tilt_angle(orientation), _tilt_rate(orientation, gyro)
        predicted = angle + self.thresholds.lookahead * self.time_constant * rate
        if self.state.fallen:
            self.state = FallState(True, angle, rate, predicted, self.state.time, self.state.reason)
            return self.state
        reason = ""
        if predicted > self.thresholds.tilt and angle > self.thresholds.min_tilt:
            reason = (
                f"predicted tilt {math.degrees(predicted):.1f} deg > {math.degrees(self.thresholds.tilt):.1f} "
                f"(tilt {math.degrees(angle):.1f} deg, tilting at {rate:.2f} rad/s)"
            )
        elif abs(rate) > self.rate_limit:
            reason = f"tilt rate {rate:.2f} rad/s beyond {self.rate_limit:.2f} (tilt {math.degrees(angle):.1f} deg)"
        self._since = (self._since if self._since is not None else time) if reason else None
        fallen = bool(reason) and time - self._since >= self.confirm_time
        self.state = FallState(
            fallen, angle, rate, predicted, time if fallen else None, reason if fallen else ""
        )
        return self.state


def _tilt_rate(orientation: np.ndarray, gyro: np.ndarray) -> float:
    """[rad/s] rate of change of the tilt: the world angular velocity about the horizontal axis
    that turns the vertical towards the torso's z axis (0 when upright: no axis yet)."""
    w, x, y, z = (float(v) for v in orientation)
    norm = w * w + x * x + y * y + z * z
    rotation = np.array(
        [
            [1 - 2 * (y * y + z * z) / norm, 2 * (x * y - w * z) / norm, 2 * (x * z + w * y) / norm],
            [2 * (x * y + w * z) / norm, 1 - 2 * (x * x + z * z) / norm, 2 * (y * z - w * x) / norm],
            [2 * (x * z - w * y) / norm, 2 * (y * z + w * x) / norm, 1 - 2 * (x * x + y * y) / norm],
        ]
    )
    axis = np.cross((0.0, 0.0, 1.0), rotation[:, 2])  # vertical x torso z: the tilt's axis
    length = float(np.linalg.norm(axis))
    if length < 1e-6:
        return 0.0
    return float(rotation @ np.asarray(gyro, dtype=float) @ axis) / length
