"""A robot's servo calibration: which servo drives which joint, and how its ticks map to radians.

A calibration file (``config/servos/*.yaml``) holds the bus settings and one entry per joint::

    bus: {protocol: dynamixel, port: /dev/ttyUSB0, baud_rate: 1000000}
    joints:
      l_knee: {id: 4, model: XM430-W350, direction: 1, zero_ticks: 2048,
               ticks_per_rev: 4096, min_ticks: 2028, max_ticks: 3717}

``angle = direction * (ticks - zero_ticks) * 2 pi / ticks_per_rev`` [rad]. ``min_ticks`` ..
``max_ticks`` is the calibrated range: no goal outside it is ever written. At start-up the
calibration is checked against the URDF: a joint limit that the calibrated range cannot reach is
refused, naming the joint. Every value of a joint must be an integer (a NaN, an inf, 2048.5 or
a string is refused, naming the joint and the key), and a joint or key written twice is refused
(YAML would silently keep the last). This module imports without ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from ik_solvers.hardware.control_tables import PROTOCOLS, ServoModel, servo_model

_JOINT_KEYS = {"id", "model", "direction", "zero_ticks", "ticks_per_rev", "min_ticks", "max_ticks"}
_INTEGER_KEYS = ("id", "direction", "zero_ticks", "ticks_per_rev", "min_ticks", "max_ticks")


class CalibrationError(ValueError):
    """A calibration file or its match with the URDF is wrong; the message names the joint."""


@dataclass(frozen=True)
class JointCalibration:
    """One joint's servo. Ticks are the servo's position units; angles are the URDF's [rad]."""

    joint: str
    servo_id: int
    model: ServoModel
    direction: int
    zero_ticks: int
    ticks_per_rev: int
    min_ticks: int
    max_ticks: int

    @property
    def radians_per_tick(self) -> float:
        """Size of one tick [rad]."""
        return 2.0 * math.pi / self.ticks_per_rev

    def to_ticks(self, angle: float) -> int:
        """The goal [tick] for a joint angle [rad], clamped to the calibrated range."""
        return min(max(round(self.servo_position(angle)), self.min_ticks), self.max_ticks)

    def servo_position(self, angle: float) -> float:
        """Where the servo's position reads [tick, not rounded] at a joint angle [rad] (any angle)."""
        return self.zero_ticks + self.direction * angle / self.radians_per_tick

    def to_angle(self, ticks: int) -> float:
        """The joint angle [rad] of a servo position [tick]."""
        return self.direction * (ticks - self.zero_ticks) * self.radians_per_tick

    def angle_range(self) -> tuple[float, float]:
        """(lower, upper) joint angle [rad] the calibrated range allows."""
        ends = sorted((self.to_angle(self.min_ticks), self.to_angle(self.max_ticks)))
        return ends[0], ends[1]


@dataclass(frozen=True)
class Calibration:
    """The bus settings and the joints' servos of one robot, in file order."""

    protocol: str
    port: str
    baud_rate: int
    joints: tuple[JointCalibration, ...]

    @property
    def joint_names(self) -> tuple[str, ...]:
        """Joint names in file order."""
        return tuple(j.joint for j in self.joints)

    @property
    def servo_ids(self) -> tuple[int, ...]:
        """Servo IDs in file order."""
        return tuple(j.servo_id for j in self.joints)

    def by_id(self, servo_id: int) -> JointCalibration:
        """The joint that servo ``servo_id`` drives."""
        return next(j for j in self.joints if j.servo_id == servo_id)

    def by_joint(self, name: str) -> JointCalibration:
        """The servo of joint ``name``."""
        return next(j for j in self.joints if j.joint == name)

    def to_ticks(self, angles: np.ndarray) -> list[int]:
        """Goals [tick] for joint angles [rad], shape (n_joints,) in file order."""
        return [j.to_ticks(float(a)) for j, a in zip(self.joints, angles)]

    def check_against_limits(self, limits: dict[str, tuple[float, float]], tolerance: float = 1e-3) -> None:
        """Refuse a calibration whose range cannot reach a URDF joint limit.

        Args:
            limits: joint name -> (lower, upper) [rad], from the URDF.
            tolerance: how far [rad] a limit may lie beyond the calibrated range (rounding to ticks).

        Raises:
            CalibrationError: naming each joint missing from the URDF or whose limit is out of range.
        """
        problems = []
        for joint in self.joints:
            if joint.joint not in limits:
                problems.append(f"{joint.joint}: not a movable joint of the URDF")
                continue
            lower, upper = limits[joint.joint]
            low, high = joint.angle_range()
            if lower < low - tolerance or upper > high + tolerance:
                problems.append(
                    f"{joint.joint}: URDF limits [{lower:.3f}, {upper:.3f}] rad go beyond the servo's "
                    f"calibrated range [{low:.3f}, {high:.3f}] rad (ticks {joint.min_ticks}..{joint.max_ticks})"
                )
        if problems:
            raise CalibrationError("calibration does not fit the URDF:\n  " + "\n  ".join(problems))


def _joint(name: str, entry: dict) -> JointCalibration:
    missing = _JOINT_KEYS - set(entry)
    if missing:
        raise CalibrationError(f"{name}: missing keys {sorted(missing)} (needed: {sorted(_JOINT_KEYS)})")
    try:
        model = servo_model(str(entry["model"]))
    except ValueError as error:
        raise CalibrationError(f"{name}: {error}") from None
    values = {key: integer(entry[key], f"{name}: {key}") for key in _INTEGER_KEYS}
    joint = JointCalibration(
        joint=name,
        servo_id=values["id"],
        model=model,
        direction=values["direction"],
        zero_ticks=values["zero_ticks"],
        ticks_per_rev=values["ticks_per_rev"],
        min_ticks=values["min_ticks"],
        max_ticks=values["max_ticks"],
    )
    _check_joint(joint)
    return joint


def integer(value, what: str) -> int:
    """``value`` as an int: an int, or a float with an integral finite value; else
    CalibrationError naming ``what``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise CalibrationError(f"{what} is {value!r}; an integer is needed")


def _check_joint(joint: JointCalibration) -> None:
    low, high = joint.model.position_range
    if joint.direction not in (1, -1):
        raise CalibrationError(f"{joint.joint}: direction must be 1 or -1, not {joint.direction}")
    if not 0 <= joint.servo_id <= 252:
        raise CalibrationError(f"{joint.joint}: servo id {joint.servo_id} is outside 0..252")
    if not low <= joint.min_ticks < joint.max_ticks <= high:
        raise CalibrationError(
            f"{joint.joint}: range {joint.min_ticks}..{joint.max_ticks} ticks must be increasing and "
            f"within the {joint.model.name}'s {low}..{high}"
        )
    if joint.ticks_per_rev <= 0:
        raise CalibrationError(f"{joint.joint}: ticks_per_rev must be positive, not {joint.ticks_per_rev}")


def calibration_from_dict(data: dict) -> Calibration:
    """A Calibration from the parsed YAML mapping (see the module docstring for the layout)."""
    bus = data.get("bus") or {}
    protocol = bus.get("protocol")
    if protocol not in PROTOCOLS:
        raise CalibrationError(f"bus.protocol is {protocol!r}; accepted: {', '.join(PROTOCOLS)}")
    joints = tuple(_joint(name, entry or {}) for name, entry in (data.get("joints") or {}).items())
    if not joints:
        raise CalibrationError("the calibration names no joints")
    wrong = [j.joint for j in joints if j.model.protocol != protocol]
    if wrong:
        raise CalibrationError(f"{', '.join(wrong)}: servo model does not speak the bus protocol {protocol}")
    ids = [j.servo_id for j in joints]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise CalibrationError(f"servo ids used by more than one joint: {repeated}")
    baud_rate = integer(bus.get("baud_rate", 1_000_000), "bus.baud_rate")
    if baud_rate <= 0:
        raise CalibrationError(f"bus.baud_rate is {baud_rate}; a positive rate [bit/s] is needed")
    return Calibration(protocol, str(bus.get("port", "")), baud_rate, joints)


def urdf_limits(model) -> dict[str, tuple[float, float, float, float]]:
    """Movable joints of a :class:`~ik_solvers.model.RobotModel`: name -> (lower [rad], upper [rad],
    velocity [rad/s], effort [N m]) from the URDF."""
    return {
        name: (joint.lower, joint.upper, joint.velocity, joint.effort)
        for name, joint in model.joints.items()
        if joint.type != "fixed"
    }


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a mapping that names a key twice (YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):  # PyYAML's method name
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise CalibrationError(
                    f"{key} is listed twice (lines {seen[key] + 1} and {key_node.start_mark.line + 1}); "
                    "each joint and key once"
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


def load_calibration(path: str | Path) -> Calibration:
    """Read and check a calibration file; :class:`CalibrationError` says what is wrong."""
    with open(path) as stream:
        try:
            data = yaml.load(stream, Loader=_UniqueKeyLoader)
        except yaml.YAMLError as error:
            raise CalibrationError(f"{path} is not valid YAML: {error}") from None
    if data is not None and not isinstance(data, dict):
        raise CalibrationError(
            f"{path} holds a {type(data).__name__}; a mapping with bus and joints is needed"
        )
    return calibration_from_dict(data or {})
