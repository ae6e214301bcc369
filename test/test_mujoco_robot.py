"""The URDF humanoid in MuJoCo: servos from the URDF, holding a posture, standing, refusing unknown joints."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig

POSTURE = {  # [rad] knees and elbows bent, an arm raised: gravity loads every servo
    "l_upper_leg": -0.4,
    "l_knee": 0.8,
    "l_ankle": -0.4,
    "r_upper_leg": -0.4,
    "r_knee": 0.8,
    "r_ankle": -0.4,
    "l_shoulder_pitch": -0.8,
    "l_elbow": -1.0,
    "r_elbow": -0.5,
    "r_wrist_pitch": 0.4,
}
HOLD_TOLERANCE = 0.01  # [rad] steady-state servo error under gravity (saturation_error 0.02 rad)


@pytest.fixture(scope="module")
def urdf() -> str:
    return package_share_path("urdf", "humanoid.urdf").read_text()


def _error(robot: MujocoRobot, posture: dict[str, float]) -> np.ndarray:
    positions = dict(zip(robot.joint_names, robot.joint_state()[0]))
    return np.array([positions[name] - value for name, value in posture.items()])


def test_every_movable_joint_gets_a_servo_limited_to_its_urdf_effort(urdf):
    robot = MujocoRobot(urdf)
    assert robot.model.nu == 26
    l_knee, l_wrist = robot.model.actuator("l_knee"), robot.model.actuator("l_wrist_roll")
    assert l_knee.forcerange.tolist() == pytest.approx([-10.6, 10.6])
    assert l_wrist.forcerange.tolist() == pytest.approx([-1.5, 1.5])


def test_effort_scale_and_stiffness_are_configurable(urdf):
    robot = MujocoRobot(urdf, ServoConfig(effort_scale=0.5, saturation_error=0.1))
    actuator = robot.model.actuator("l_knee")
    assert actuator.forcerange.tolist() == pytest.approx([-5.3, 5.3])
    assert actuator.gainprm[0] == pytest.approx(10.6 / 0.1)


def test_fixed_base_holds_a_commanded_posture(urdf):
    robot = MujocoRobot(urdf, ServoConfig(floating_base=False))
    robot.set_targets(list(POSTURE), list(POSTURE.values()))
    robot.step(1000)  # 2 s
    assert np.abs(_error(robot, POSTURE)).max() < HOLD_TOLERANCE
    assert np.abs(robot.joint_state()[1]).max() < 1e-3


def test_floating_base_stands_on_its_feet(urdf):
    robot = MujocoRobot(urdf, ServoConfig(floating_base=True))
    start = robot.base_pose()
    robot.step(1500)  # 3 s
    pose = robot.base_pose()
    tilt = 2.0 * np.degrees(np.arccos(min(abs(pose[3]), 1.0)))
    assert tilt < 3.0
    assert abs(pose[2] - start[2]) < 0.03
    assert np.linalg.norm(pose[:2] - start[:2]) < 0.03


def test_commands_are_clipped_into_the_joint_limits(urdf):
    robot = MujocoRobot(urdf)
    robot.set_targets(["l_knee"], [5.0])
    assert robot.data.ctrl[robot.joint_names.index("l_knee")] == pytest.approx(2.5)


def test_unknown_joints_are_reported_and_the_known_ones_applied(urdf):
    robot = MujocoRobot(urdf)
    unknown = robot.set_targets(["no_such_joint", "l_elbow"], [1.0, -1.0])
    assert unknown == ["no_such_joint"]
    assert robot.data.ctrl[robot.joint_names.index("l_elbow")] == pytest.approx(-1.0)


def test_non_finite_commands_are_ignored(urdf):
    robot = MujocoRobot(urdf)
    robot.set_targets(["l_elbow"], [float("nan")])
    assert np.isfinite(robot.data.ctrl).all()


def test_bad_configuration_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="saturation_error"):
        ServoConfig(saturation_error=0.0)
