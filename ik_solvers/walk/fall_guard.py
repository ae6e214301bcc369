"""walk_node's fall handling: the IMU watched for a fall; then stop, crouch, torque off, report.

Subscribes walk_node's ``imu_topic`` (default ``imu``; sensor_msgs/Imu: orientation, angular
velocity, specific force; an IMU that gives no orientation, ``orientation_covariance[0] = -1``, gets one from
:class:`~ik_solvers.sensors.attitude.AttitudeFilter`) and judges each sample with
:class:`~ik_solvers.sensors.fall_detector.FallDetector` (thresholds ``fall.tilt``, ``fall.rate``,
``fall.lookahead``, scaled to the walk's CoM height). On a fall, at once: the walk stops and the
node commands the protective posture (the torso lowered to ``fall.crouch`` of its walking height,
the soles where they were: the CoM falls from lower, the knees bent), ``~/fall`` (std_msgs/Bool,
latched: transient local) turns true, ``/diagnostics`` says ERROR with the reason, and
``fall.torque_off_delay`` [s] later the servos go off through ``fall.torque_service``
(std_srvs/SetBool: servo_bridge's ``/servo_bridge/set_torque``, or sim_node's
``/sim_node/set_torque``; empty: none). A fall is latched: the node stays stopped until it restarts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from rclpy.time import Time
from sensor_msgs.msg import Imu
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from ik_solvers.parameter_rules import Rule, field_rules
from ik_solvers.sensors import AttitudeFilter, FallDetector, FallThresholds

DIAGNOSTIC_PERIOD = 1.0  # [s] between two /diagnostics messages (and at once on a fall)
NOMINAL_IMU_RATE = 250.0  # [Hz] the attitude filter's start-up timing when the IMU gives no orientation


def fall_rules() -> dict[str, Rule]:
    """walk_node's ``fall.<name>`` parameters."""
    thresholds = {f"fall.{name}": rule for name, rule in field_rules(FallThresholds).items()}
    return {
        "fall.enabled": Rule(True, "watch the IMU for falls", start_up_only=True),
        **{name: replace(rule, start_up_only=True) for name, rule in thresholds.items()},
        "fall.torque_service": Rule(
            "/servo_bridge/set_torque",
            "std_srvs/SetBool turning the servos off on a fall; empty: none",
            start_up_only=True,
        ),
        "fall.torque_off_delay": Rule(
            0.1, "from a detected fall to torque off", "s", 0.0, 1.0, start_up_only=True
        ),
        "fall.crouch": Rule(
            0.8, "torso height of the protective posture / walking height", "", 0.3, 1.0, start_up_only=True
        ),
    }


class FallGuard:
    """Watches ``imu`` for a fall and handles it (module docstring).

    Args:
        node: walk_node.
        imu_topic: the sensor_msgs/Imu topic it watches.
        com_height: [m] the walk's CoM height (z_c).
        parameters: the checked ``fall.*`` values.
        on_fall: called once, at the fall, with the reason (walk_node stops and crouches).
    """

    def __init__(
        self,
        node: Node,
        imu_topic: str,
        com_height: float,
        parameters: dict[str, object],
        on_fall: Callable[[str], None],
    ) -> None:
        self.node, self.on_fall = node, on_fall
        self.service_name = parameters["fall.torque_service"]
        self.torque_off_delay = parameters["fall.torque_off_delay"]
        thresholds = FallThresholds(
            **{name: parameters[f"fall.{name}"] for name in field_rules(FallThresholds)}
        )
        self.detector = FallDetector(com_height, thresholds)
        self.attitude: AttitudeFilter | None = None
        self.last_stamp: float | None = None
        self.torque_off: str = ""  # what the torque-off request answered ("" before one)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.fall_publisher = node.create_publisher(Bool, "~/fall", latched)
        self.diagnostics_publisher = node.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.fall_publisher.publish(Bool(data=False))
        node.create_subscription(Imu, imu_topic, self.on_imu, 50)
        node.create_timer(DIAGNOSTIC_PERIOD, self.publish_diagnostics)
        self._torque_timer = None
        # made at start-up, not at the fall: a client made just before its call can see the service
        # ready while the service cannot answer it yet (DDS discovery still matching)
        self.torque_client = node.create_client(SetBool, self.service_name) if self.service_name else None

    @property
    def fallen(self) -> bool:
        """Whether a fall was detected."""
        return self.detector.state.fallen

    def on_imu(self, message: Imu) -> None:
        """Judge one IMU sample; handle the fall the first time one is seen."""
        stamp = Time.from_msg(message.header.stamp).nanoseconds * 1e-9
        gyro = _vector(message.angular_velocity)
        if not np.isfinite(gyro).all():
            return
        orientation = self._orientation(message, gyro, stamp)
        was_fallen = self.fallen
        state = self.detector.update(stamp, orientation, gyro)
        if state.fallen and not was_fallen:
            self._handle(state.reason)

    def _orientation(self, message: Imu, gyro: np.ndarray, stamp: float) -> np.ndarray:
        """(w, x, y, z) the IMU's, or the attitude filter's when the IMU gives none."""
        dt = None if self.last_stamp is None else stamp - self.last_stamp
        self.last_stamp = stamp
        if message.orientation_covariance[0] != -1.0:
            o = message.orientation
            return np.array([o.w, o.x, o.y, o.z])
        if self.attitude is None:
            self.attitude = AttitudeFilter(NOMINAL_IMU_RATE)
        return self.attitude.update(gyro, _vector(message.linear_acceleration), dt)

    def _handle(self, reason: str) -> None:
        self.node.get_logger().error(
            f"fall detected: {reason}; walk stopped, torque off in {self.torque_off_delay:g} s"
        )
        self.on_fall(reason)
        self.fall_publisher.publish(Bool(data=True))
        self.publish_diagnostics()
        if self.service_name:
            self._torque_timer = self.node.create_timer(
                max(self.torque_off_delay, 1e-3), self._switch_torque_off
            )

    def _switch_torque_off(self) -> None:
        """Ask the torque service to turn the servos off (once; its answer goes to diagnostics)."""
        self.node.destroy_timer(self._torque_timer)
        client = self.torque_client
        if not client.service_is_ready():
            self.torque_off = f"service {self.service_name} not available"
            self.node.get_logger().error(f"cannot turn torque off after the fall: {self.torque_off}")
            self.publish_diagnostics()
            return
        client.call_async(SetBool.Request(data=False)).add_done_callback(self._torque_answer)
        self.torque_off = "requested"

    def _torque_answer(self, future) -> None:
        answer = future.result()
        self.torque_off = answer.message if answer is not None and answer.success else "refused"
        self.node.get_logger().info(f"after the fall: {self.torque_off}")
        self.publish_diagnostics()

    def publish_diagnostics(self) -> None:
        """``<node>: fall``: OK while standing or walking, WARN before the first IMU sample, ERROR
        with the reason after a fall."""
        state = self.detector.state
        if state.fallen:
            level, text = DiagnosticStatus.ERROR, f"fallen: {state.reason}"
        elif self.last_stamp is None:
            level, text = DiagnosticStatus.WARN, "no IMU sample yet: falls cannot be detected"
        else:
            level, text = DiagnosticStatus.OK, "upright"
        values = {
            "tilt_deg": f"{math.degrees(state.tilt):.1f}",
            "predicted_tilt_deg": f"{math.degrees(state.predicted_tilt):.1f}",
            "fall_time": "" if state.time is None else f"{state.time:.3f}",
            "torque_off": self.torque_off,
        }
        status = DiagnosticStatus(
            level=level,
            name=f"{self.node.get_name()}: fall",
            message=text,
            values=[KeyValue(key=k, value=v) for k, v in values.items()],
        )
        array = DiagnosticArray(status=[status])
        array.header.stamp = self.node.get_clock().now().to_msg()
        self.diagnostics_publisher.publish(array)


def _vector(v) -> np.ndarray:
    return np.array([v.x, v.y, v.z], dtype=float)
