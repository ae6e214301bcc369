"""What the robot senses of its own body, without ROS: attitude from an IMU, falls.

- :class:`~ik_solvers.sensors.attitude.AttitudeFilter`: orientation from gyro + accelerometer
  (x-io Technologies' Fusion AHRS, ``imufusion``) for IMUs that give none;
- :class:`~ik_solvers.sensors.fall_detector.FallDetector`: a fall seen coming from the torso's
  tilt and its rate, thresholds scaled to the robot's CoM height.
"""

from ik_solvers.sensors.attitude import AttitudeFilter, tilt
from ik_solvers.sensors.fall_detector import FallDetector, FallThresholds

__all__ = ["AttitudeFilter", "FallDetector", "FallThresholds", "tilt"]
