"""Servo models in the simulator (no ROS): BAM's parameters, per-joint selection, what a real servo
does that the ideal one does not (sag under load, backlash, friction, bus latency), torque off."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig
from ik_solvers.sim.servo_commands import ServoCommands
from ik_solvers.sim.servo_models import joint_servo_models, known_models

JOINTS = ["l_knee", "l_elbow", "r_wrist_pitch"]
BENT_LEGS = {"upper_leg": -0.4, "knee": 0.8, "ankle": -0.4}  # [rad]
ELBOW_LOAD = {"l_shoulder_roll": 1.5}  # [rad] the left arm held out sideways: the elbow and shoulder carry it


@pytest.fixture(scope="module")
def urdf() -> str:
    return package_share_path("urdf", "humanoid.urdf").read_text()


def test_bam_parameters_give_the_datasheet_stall_torques():
    models = known_models()
    assert set(models) == {"mx106", "mx64", "xl320", "xl330", "sts3215"}
    # ROBOTIS / Feetech stall torques: MX-106 10.0 N m at 14.8 V, MX-64 6.0 N m at 12 V, STS3215 ~2.9 N m at 7.4 V
    assert models["mx106"].stall_torque == pytest.approx(10.7, abs=0.1)
    assert models["mx64"].stall_torque == pytest.approx(5.9, abs=0.1)
    assert models["sts3215"].stall_torque == pytest.approx(3.25, abs=0.1)
    assert models["mx106"].stiffness == pytest.approx(56.1, abs=0.5)  # [N m/rad] at the default P gain 32
    assert models["mx106"].damping == pytest.approx(2.19138**2 / 2.96499 + 0.0352024)


def test_selection_by_name_by_file_and_ideal(tmp_path):
    assert set(joint_servo_models("ideal", JOINTS).values()) == {None}
    assert {m.name for m in joint_servo_models("mx64", JOINTS).values()} == {"mx64"}
    robot_file = tmp_path / "servos.yaml"
    robot_file.write_text(
        "default: {model: mx106, p_gain: 128, backlash: 0}\njoints:\n  l_elbow: mx64\n  r_wrist_pitch: ideal\n"
    )
    chosen = joint_servo_models(str(robot_file), JOINTS)
    assert chosen["l_knee"].name == "mx106" and chosen["l_knee"].p_gain == 128.0
    assert chosen["l_knee"].backlash == 0.0 and chosen["l_elbow"].backlash == pytest.approx(0.0058)
    assert chosen["l_elbow"].name == "mx64" and chosen["l_elbow"].p_gain == 32.0
    assert chosen["r_wrist_pitch"] is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("default: mx999\n", "unknown servo model 'mx999'; known: ideal, mx106"),
        ("joints:\n  nose: mx64\n", r"joints \['nose'\] are not actuated joints"),
        ("default: {model: mx64, p_gain: -3}\n", "p_gain -3 refused"),
        ("default: {model: mx64, kp: 3}\n", r"unknown keys \['kp'\]"),
        ("default: {model: mx64, backlash: .nan}\n", "backlash nan refused"),
        ("- mx64\n", "a mapping with 'default' and 'joints' is required"),
    ],
)
def test_a_bad_selection_is_refused_saying_what_is_accepted(tmp_path, text, message):
    robot_file = tmp_path / "servos.yaml"
    robot_file.write_text(text)
    with pytest.raises(ValueError, match=message):
        joint_servo_models(str(robot_file), JOINTS)
    with pytest.raises(ValueError, match="neither 'ideal', a servo model"):
        joint_servo_models("no_such_servo", JOINTS)


def test_the_packaged_robots_servo_file_names_only_its_joints(urdf):
    robot = MujocoRobot(
        urdf,
        ServoConfig(servo_model=str(package_share_path("config", "servos", "humanoid_servo_models.yaml"))),
    )
    names = {joint: model.name for joint, model in robot.servo_models.items()}
    assert names["l_knee"] == "mx106" and names["l_elbow"] == "mx64" and names["l_wrist_pitch"] == "xl330"


def _held(urdf: str, servo: str, steps: int = 1500, **config) -> MujocoRobot:
    robot = MujocoRobot(urdf, ServoConfig(base_height=1.0, servo_model=servo, **config))
    names = list(ELBOW_LOAD)
    robot.set_targets(names, list(ELBOW_LOAD.values()))
    robot.step(steps)
    return robot


def _position(robot: MujocoRobot, joint: str) -> float:
    return float(robot.joint_state()[0][robot.joint_names.index(joint)])


def test_a_real_servo_sags_under_load_where_the_ideal_one_holds(urdf):
    ideal, real = _held(urdf, "ideal"), _held(urdf, "mx64")
    ideal_error = abs(_position(ideal, "l_shoulder_roll") - 1.5)
    real_error = abs(_position(real, "l_shoulder_roll") - 1.5)
    assert ideal_error < 0.01
    assert 0.02 < real_error < 0.2  # [rad] load / stiffness (about 30 N m/rad), plus half the play
    assert real.model.actuator_forcerange[real.joint_names.index("l_knee")][1] == pytest.approx(5.9, abs=0.1)


def test_backlash_is_a_dead_band_of_half_the_play_each_way():
    commands = ServoCommands(np.zeros(2), 0.0, np.array([0.02, 0.0]))
    commands.send(0.0, np.array([0.5, 0.5]))
    control = commands.control(0.0, np.array([0.495, 0.495]))
    assert control.tolist() == pytest.approx([0.495, 0.5])  # within the play: no push
    control = commands.control(0.0, np.array([0.4, 0.4]))
    assert control.tolist() == pytest.approx([0.49, 0.5])  # beyond: pushes towards target - play / 2


def test_commands_reach_the_servos_after_the_bus_latency(urdf):
    robot = MujocoRobot(urdf, ServoConfig(base_height=1.0, servo_model="mx106", command_latency=0.02))
    knee = robot.joint_names.index("l_knee")
    robot.set_targets(["l_knee"], [1.0])
    robot.step(9)  # 18 ms: the command is still on the bus
    assert abs(robot.joint_state()[1][knee]) < 1e-3
    robot.step(5)
    assert robot.joint_state()[1][knee] > 0.1


def test_torque_off_lets_the_standing_robot_collapse_and_on_again_holds(urdf):
    robot = MujocoRobot(urdf, ServoConfig(floating_base=True, servo_model="mx106"))
    crouch = {f"{side}_{joint}": angle for side in "lr" for joint, angle in BENT_LEGS.items()}
    robot.set_targets(list(crouch), list(crouch.values()))
    robot.step(1000)
    height = robot.base_pose()[2]
    robot.step(250)
    assert robot.base_pose()[2] == pytest.approx(height, abs=0.01)  # standing on bent knees
    robot.set_torque(False)
    assert not robot.torque_enabled
    robot.step(500)
    assert robot.base_pose()[2] < height - 0.1
    assert np.abs(robot.joint_state()[2]).max() == 0.0  # no actuator force
    robot.set_torque(True)
    assert robot.torque_enabled and np.abs(robot.model.actuator_gainprm[:, 0]).min() > 0.0
