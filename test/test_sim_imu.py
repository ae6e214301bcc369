"""The simulated IMU (no ROS): where it sits, its rate, its noise, and MuJoCo's truth against the AHRS."""

from __future__ import annotations

import math
from xml.etree import ElementTree

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from maker_humanoids import MakerSpec, maker_urdf

from ik_solvers.parameter_rules import ParameterError
from ik_solvers.resources import package_share_path
from ik_solvers.sensors import AttitudeFilter, tilt
from ik_solvers.sim.imu import ImuConfig, ImuSample, NoisyImu
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig

FLOATING = ServoConfig(floating_base=True)


def _with_imu_link(xml: str, parent: str, xyz: str, rpy: str) -> str:
    """``xml`` with a maker's ``imu_link`` fixed to ``parent`` at ``xyz`` / ``rpy``."""
    robot = ElementTree.fromstring(xml)
    ElementTree.SubElement(robot, "link", name="imu_link")
    joint = ElementTree.SubElement(robot, "joint", name="imu_joint", type="fixed")
    ElementTree.SubElement(joint, "parent", link=parent)
    ElementTree.SubElement(joint, "child", link="imu_link")
    ElementTree.SubElement(joint, "origin", xyz=xyz, rpy=rpy)
    return ElementTree.tostring(robot, encoding="unicode")


def test_packaged_robot_imu_is_on_its_torso_at_250_hz():
    robot = MujocoRobot(package_share_path("urdf", "humanoid.urdf").read_text(), FLOATING)
    assert robot.imu_frame == "base_link"
    robot.step(500)  # 1 s
    samples = robot.take_imu_samples()
    assert len(samples) == 250
    assert np.diff([s.time for s in samples]) == pytest.approx(0.004)
    assert samples[-1].accelerometer == pytest.approx([0.0, 0.0, 9.81], abs=0.3)
    assert robot.take_imu_samples() == []


def test_imu_sits_on_the_heaviest_link_fixed_to_a_root_on_the_floor():
    robot = MujocoRobot(maker_urdf(MakerSpec(root_on_floor=True)), FLOATING)
    assert robot.imu_frame == "torso"  # 1.4 kg, fixed to the 0.6 kg pelvis under base_footprint
    site = robot.data.site("imu")
    torso_height = robot.base_pose()[2]  # base_footprint is on the floor; the torso is above it
    assert site.xpos[2] > torso_height + 0.2


def test_a_makers_imu_link_is_used_at_its_pose_and_measures_in_its_frame():
    xml = _with_imu_link(maker_urdf(MakerSpec()), "torso", "0.03 0 0.1", "0 0 1.5707963")
    robot = MujocoRobot(xml, FLOATING)
    assert robot.imu_frame == "imu_link"
    torso = robot.data.body(robot.model.site_bodyid[robot.model.site("imu").id])
    offset = robot.data.site("imu").xpos - torso.xpos
    assert offset == pytest.approx([0.03, 0.0, 0.1], abs=1e-6)
    robot.step(100)
    robot.data.qvel[3:6] = (0.0, 0.0, 0.5)  # the torso yawing: the IMU turned 90° reads it on its own z
    robot.data.qvel[0] = 0.0
    mujoco.mj_forward(robot.model, robot.data)
    gyro = robot.imu()[1]
    assert gyro == pytest.approx([0.0, 0.0, 0.5], abs=0.05)
    robot.data.qvel[3:6] = (0.5, 0.0, 0.0)  # rolling about the torso's x: the IMU's -y
    mujoco.mj_forward(robot.model, robot.data)
    assert robot.imu()[1] == pytest.approx([0.0, -0.5, 0.0], abs=0.05)


def test_noise_and_bias_have_the_configured_spread_and_are_off_by_default():
    truth = ImuSample(0.0, np.array([1.0, 0, 0, 0]), np.zeros(3), np.array([0.0, 0.0, 9.81]))
    assert NoisyImu(ImuConfig()).measure(truth).gyro.tolist() == [0.0, 0.0, 0.0]
    imu = NoisyImu(ImuConfig(gyro_noise=0.01, gyro_bias=0.02, accel_noise=0.1, seed=3))
    gyros = np.array([imu.measure(truth).gyro for _ in range(4000)])
    assert gyros.mean(axis=0) == pytest.approx(imu.gyro_bias, abs=0.001)
    assert gyros.std(axis=0) == pytest.approx([0.01] * 3, rel=0.1)
    assert np.abs(imu.gyro_bias).max() > 0.0
    again = NoisyImu(ImuConfig(gyro_noise=0.01, gyro_bias=0.02, accel_noise=0.1, seed=3))
    assert again.gyro_bias.tolist() == imu.gyro_bias.tolist()


@pytest.mark.parametrize(
    ("field", "value"),
    [("rate", 0.0), ("gyro_noise", -1.0), ("orientation", "guess"), ("accel_bias", math.nan)],
)
def test_imu_settings_out_of_range_are_refused_naming_the_parameter(field, value):
    with pytest.raises(ParameterError, match=f"imu.{field}"):
        ImuConfig(**{field: value})


def test_attitude_filter_follows_mujocos_truth_from_a_noisy_imu_through_a_fall():
    """The Fusion AHRS fed the noisy gyro and accelerometer of a robot that stands, is pushed and
    falls: its tilt within 2 degrees of MuJoCo's while standing, 5 while falling."""
    robot = MujocoRobot(package_share_path("urdf", "humanoid.urdf").read_text(), FLOATING)
    noisy = NoisyImu(ImuConfig(gyro_noise=0.005, gyro_bias=0.01, accel_noise=0.05, accel_bias=0.1, seed=2))
    attitude = AttitudeFilter(250.0)
    errors = {"standing": [], "falling": []}
    for phase, steps in (("standing", 1500), ("falling", 400)):
        if phase == "falling":
            robot.data.qvel[0] += 0.8  # a push forward: the robot tips over
        robot.step(steps)
        for sample in robot.take_imu_samples():
            measured = noisy.measure(sample)
            estimate = attitude.update(measured.gyro, measured.accelerometer)
            errors[phase].append(abs(tilt(estimate) - tilt(sample.orientation)))
    assert tilt(robot.imu()[0]) > math.radians(30)  # it did fall
    assert math.degrees(max(errors["standing"][250:])) < 2.0  # after the filter's first second
    assert math.degrees(max(errors["falling"])) < 5.0


def test_attitude_filter_follows_a_walking_robot_from_a_noisy_imu():
    """Walking forward then sideways with the IMU's noise and biases: the AHRS's tilt within 5
    degrees of MuJoCo's at every sample (the walk's accelerations pull the gravity estimate)."""
    from ik_solvers.walk.config import load_walk_config
    from ik_solvers.walk.offline import OfflineWalker

    walker = OfflineWalker(package_share_path("urdf", "humanoid.urdf").read_text(), load_walk_config())
    noisy = NoisyImu(ImuConfig(gyro_noise=0.005, gyro_bias=0.01, accel_noise=0.05, accel_bias=0.1, seed=1))
    attitude = AttitudeFilter(250.0)
    speeds = walker.generator.max_command
    errors = []
    for command in ((0.9 * speeds[0], 0.0, 0.0), (0.0, 0.9 * speeds[1], 0.0)):
        for _ in range(800):
            walker.run([(0.01, command)])
            for sample in walker.robot.take_imu_samples():
                measured = noisy.measure(sample)
                estimate = attitude.update(measured.gyro, measured.accelerometer)
                errors.append(abs(tilt(estimate) - tilt(sample.orientation)))
    assert len(errors) == 4000
    assert math.degrees(max(errors)) < 5.0
