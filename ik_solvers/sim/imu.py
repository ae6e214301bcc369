"""The simulated IMU: where it sits on the robot, its rate, and the noise of a real one.

No ROS here. The IMU sits on a maker's IMU link when the URDF has one (a link whose name contains
``imu``), else at the origin of the torso: the heaviest link rigidly attached to the root link (the
root itself on the packaged robot; the pelvis under a ``base_footprint`` root). MuJoCo's URDF
importer merges links joined by fixed joints into one body, so the site goes on the body that
carries that link, at the link's pose in it.

A real MEMS IMU measures with white noise and a bias that the robot does not know. Both are off by
default (``ImuConfig``); with ``seed`` the same run draws the same noise. Typical figures for a
small robot's IMU (MPU-6500 / BMI088 class, calibrated at rest): gyro noise 0.002-0.005 rad/s and
bias 0.005-0.02 rad/s per axis, accelerometer noise 0.02-0.05 m/s^2 and bias 0.05-0.2 m/s^2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple
from xml.etree import ElementTree

import mujoco
import numpy as np

from ik_solvers.description import root_link
from ik_solvers.model import rpy_to_matrix
from ik_solvers.parameter_rules import Rule, check_fields, rule_field

IMU_NAME = "imu"  # a link whose name contains this (any case) is taken for the maker's IMU
IMU_SITE = "imu"  # the MuJoCo site; its sensors are imu_orientation, imu_gyro, imu_accelerometer
ORIENTATIONS = ("true", "fused", "none")


def _rule(default, text: str, unit: str = "", low=None, high=None, **extra):
    return rule_field(Rule(default, text, unit, low, high, start_up_only=True, **extra))


@dataclass(frozen=True)
class ImuConfig:
    """The simulated IMU (sim_node's ``imu.<field>`` parameters).

    Attributes:
        rate: [Hz] samples per second, rounded to whole physics steps (250 Hz: every 2nd 2 ms step).
        gyro_noise: [rad/s] standard deviation of the gyro's white noise, per axis and sample.
        gyro_bias: [rad/s] standard deviation of the gyro's constant bias, drawn once per axis.
        accel_noise: [m/s^2] standard deviation of the accelerometer's white noise.
        accel_bias: [m/s^2] standard deviation of the accelerometer's constant bias.
        orientation: ``true`` (the simulator's attitude, as an IMU with on-chip fusion gives it),
            ``fused`` (estimated from the noisy gyro and accelerometer by
            :class:`~ik_solvers.sensors.attitude.AttitudeFilter`) or ``none`` (no orientation:
            ``orientation_covariance[0] = -1``, as sensor_msgs/Imu says).
        seed: seed of the noise and bias draws.
    """

    rate: float = _rule(250.0, "IMU samples per second (whole physics steps)", "Hz", 1.0, 2000.0)
    gyro_noise: float = _rule(0.0, "gyro white noise, standard deviation", "rad/s", 0.0, 10.0)
    gyro_bias: float = _rule(0.0, "gyro constant bias, standard deviation per axis", "rad/s", 0.0, 10.0)
    accel_noise: float = _rule(0.0, "accelerometer white noise, standard deviation", "m/s^2", 0.0, 100.0)
    accel_bias: float = _rule(0.0, "accelerometer bias, standard deviation per axis", "m/s^2", 0.0, 100.0)
    orientation: str = _rule("true", "orientation published: true, fused or none", choices=ORIENTATIONS)
    seed: int = _rule(0, "seed of the noise draws", "", 0, 1_000_000_000)

    def __post_init__(self) -> None:
        check_fields(self, "imu.")


class ImuSample(NamedTuple):
    """One IMU reading.

    Attributes:
        time: [s] simulated time.
        orientation: (4,) quaternion (w, x, y, z) of the IMU frame in the world.
        gyro: (3,) angular velocity [rad/s] in the IMU frame.
        accelerometer: (3,) specific force [m/s^2] in the IMU frame (+9.81 up at rest).
    """

    time: float
    orientation: np.ndarray
    gyro: np.ndarray
    accelerometer: np.ndarray


class NoisyImu:
    """Adds the white noise and the constant biases of ``config`` to true samples."""

    def __init__(self, config: ImuConfig) -> None:
        self.config = config
        self._random = np.random.default_rng(config.seed)
        self.gyro_bias = self._random.normal(0.0, config.gyro_bias, 3)  # [rad/s]
        self.accel_bias = self._random.normal(0.0, config.accel_bias, 3)  # [m/s^2]

    def measure(self, sample: ImuSample) -> ImuSample:
        """``sample`` as the sensor reads it: gyro and accelerometer with bias and noise."""
        c = self.config
        gyro = sample.gyro + self.gyro_bias + self._random.normal(0.0, c.gyro_noise, 3)
        accelerometer = sample.accelerometer + self.accel_bias + self._random.normal(0.0, c.accel_noise, 3)
        return ImuSample(sample.time, sample.orientation, gyro, accelerometer)


class ImuMount(NamedTuple):
    """Where the IMU sits.

    Attributes:
        frame: the URDF link whose frame the IMU measures in (the maker's IMU link or the torso).
        body_link: the link whose MuJoCo body carries it (``frame`` or a link it is fixed to).
        position: (3,) [m] of ``frame`` in ``body_link``.
        quaternion: (4,) (w, x, y, z) of ``frame`` in ``body_link``.
    """

    frame: str
    body_link: str
    position: np.ndarray
    quaternion: np.ndarray


def imu_mount(robot: ElementTree.Element, has_body) -> ImuMount:
    """The IMU's link and its pose in the nearest link that is a simulated body.

    Args:
        robot: the URDF ``<robot>`` element.
        has_body: ``has_body(link) -> bool``: whether MuJoCo kept ``link`` as a body.
    """
    joints = {j.find("child").get("link"): j for j in robot.findall("joint")}
    frame = _maker_imu(robot, joints) or _torso(robot, joints)
    transform, link = np.eye(4), frame
    while not has_body(link):
        joint = joints[link]  # the root is always a body: the walk stops there
        transform = _origin(joint) @ transform
        link = joint.find("parent").get("link")
    quaternion = np.zeros(4)
    mujoco.mju_mat2Quat(quaternion, transform[:3, :3].flatten())
    return ImuMount(frame, link, transform[:3, 3].copy(), quaternion)


def add_imu_site(spec: mujoco.MjSpec, mount: ImuMount, name: str = IMU_SITE) -> None:
    """A site ``name`` at ``mount`` with orientation, gyro and accelerometer sensors
    (``<name>_orientation``, ``<name>_gyro``, ``<name>_accelerometer``)."""
    site = spec.body(mount.body_link).add_site()
    site.name, site.pos, site.quat = name, mount.position, mount.quaternion
    for kind, suffix in (
        (mujoco.mjtSensor.mjSENS_FRAMEQUAT, "orientation"),
        (mujoco.mjtSensor.mjSENS_GYRO, "gyro"),
        (mujoco.mjtSensor.mjSENS_ACCELEROMETER, "accelerometer"),
    ):
        sensor = spec.add_sensor()
        sensor.name, sensor.type, sensor.objname = f"{name}_{suffix}", kind, name
        sensor.objtype = mujoco.mjtObj.mjOBJ_SITE


def _maker_imu(robot: ElementTree.Element, joints: dict) -> str | None:
    """The maker's IMU link: the shortest name containing ``imu``, rigidly on the root's body first."""
    names = [link.get("name") for link in robot.findall("link") if IMU_NAME in link.get("name", "").lower()]
    if not names:
        return None
    group = _rigid_group(robot, joints)
    return min(names, key=lambda name: (name not in group, len(name), name))


def _rigid_group(robot: ElementTree.Element, joints: dict) -> set[str]:
    """The root link and every link joined to it by fixed joints only."""
    group = {root_link(robot)}
    while True:
        added = {
            child
            for child, joint in joints.items()
            if joint.get("type") == "fixed" and joint.find("parent").get("link") in group
        } - group
        if not added:
            return group
        group |= added


def _torso(robot: ElementTree.Element, joints: dict) -> str:
    """The heaviest link of the root's rigid group (the root when none has mass)."""
    group = _rigid_group(robot, joints)
    masses = {link.get("name"): _mass(link) for link in robot.findall("link") if link.get("name") in group}
    root = root_link(robot)
    return max(masses, key=lambda name: (masses[name], name == root))


def _mass(link: ElementTree.Element) -> float:
    mass = link.find("inertial/mass")
    return float(mass.get("value", 0.0)) if mass is not None else 0.0


def _origin(joint: ElementTree.Element) -> np.ndarray:
    """(4, 4) transform of a joint's ``<origin>`` (parent link → child link at zero motion)."""
    transform = np.eye(4)
    origin = joint.find("origin")
    if origin is not None:
        transform[:3, :3] = rpy_to_matrix(tuple(float(v) for v in origin.get("rpy", "0 0 0").split()))
        transform[:3, 3] = [float(v) for v in origin.get("xyz", "0 0 0").split()]
    return transform
