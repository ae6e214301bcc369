"""The floating-base robot on the MuJoCo floor: any plausible URDF stands, a blow-up is reported.

Real MuJoCo throughout. The heavy variant is the case that used to fail: a 28 kg humanoid of the
packaged structure with 100 N m servos sank and blew up at a 2 ms step with stiffness
effort / 0.02 rad and no armature.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig
from ik_solvers.sim.stability import UnstableSimulation

STANDING = {"upper_leg": -0.4, "knee": 0.8, "ankle": -0.4}  # [rad] knees bent, soles flat
HEAVY = HumanoidSpec(
    leg=LegDims(thigh=0.3, shank=0.3),
    mass_scale=4.0,
    leg_servo=(100.0, 4.8),
    arm_servo=(100.0, 4.8),
    wrist_servo=(100.0, 6.0),
    name="heavy",
)
LIGHT_LONG = HumanoidSpec(leg=LegDims(thigh=0.26, shank=0.24, w=0.03), mass_scale=1.6, name="long")
ROBOTS = {
    "packaged": lambda: package_share_path("urdf", "humanoid.urdf").read_text(),
    "heavy_100Nm": lambda: humanoid_urdf(HEAVY),
    "long_legs": lambda: humanoid_urdf(LIGHT_LONG),
}


def _standing(robot: MujocoRobot) -> np.ndarray:
    return np.array([STANDING.get(name[2:], 0.0) for name in robot.joint_names])


def _tilt_degrees(quaternion: np.ndarray) -> float:
    x, y = quaternion[1], quaternion[2]
    up_z = 1.0 - 2.0 * (x * x + y * y)  # world z of the torso's z axis
    return float(np.degrees(np.arccos(np.clip(up_z, -1.0, 1.0))))


@pytest.mark.parametrize("name", ROBOTS)
@pytest.mark.parametrize("timestep", [0.002, 0.001])
def test_robot_stands_at_its_commanded_posture_for_seconds(name, timestep):
    robot = MujocoRobot(ROBOTS[name](), ServoConfig(floating_base=True, timestep=timestep))
    robot.reset(_standing(robot))
    start = robot.base_pose()
    lowest = start[2]
    for _ in range(30):  # 3 s
        robot.step(round(0.1 / timestep))
        lowest = min(lowest, robot.base_pose()[2])
    pose = robot.base_pose()
    assert lowest > 0.95 * start[2]
    assert _tilt_degrees(pose[3:]) < 3.0
    assert np.linalg.norm(pose[:2] - start[:2]) < 0.02
    assert np.abs(robot.joint_state()[0] - _standing(robot)).max() < 0.05


def test_heavy_robot_with_a_saturating_error_stays_finite():
    robot = MujocoRobot(humanoid_urdf(HEAVY), ServoConfig(floating_base=True, saturation_error=0.05))
    robot.reset(_standing(robot))
    squat = {f"{side}_{joint}": 1.5 * value for side in "lr" for joint, value in STANDING.items()}
    robot.set_targets(list(squat), list(squat.values()))  # 0.4 rad off at the knees: servos saturate
    robot.step(1500)
    assert np.isfinite(robot.data.qpos).all()
    assert robot.base_pose()[2] > 0.4  # [m] still on its feet (standing torso height 0.72 m)


def test_armature_grows_with_servo_strength_and_stays_plausible():
    light = MujocoRobot(ROBOTS["packaged"](), ServoConfig(floating_base=True))
    heavy = MujocoRobot(humanoid_urdf(HEAVY), ServoConfig(floating_base=True))
    knee = [robot.model.dof_armature[robot.model.joint("l_knee").dofadr[0]] for robot in (light, heavy)]
    assert 0.0 < knee[0] < 0.03  # [kg m^2] a small servo's reflected rotor inertia
    assert knee[1] > knee[0]


def test_a_placeholder_effort_limit_gives_way_to_the_robots_weight_times_half_its_size():
    """The OP3's descriptions say 1000 N m: as stiffness, a 0.8 kg m^2 flywheel per joint (see
    servo_tuning); a servo holding the weight on half the robot's size replaces it."""
    placeholder = HumanoidSpec(leg_servo=(1000.0, 4.8), arm_servo=(1000.0, 4.8), name="placeholder")
    robot = MujocoRobot(humanoid_urdf(placeholder), ServoConfig(floating_base=True))
    mass = float(np.sum(robot.model.body_mass))
    ceiling = robot.model.actuator("l_knee").forcerange[1]
    assert 9.81 * mass * 0.3 < ceiling < 9.81 * mass * 1.0  # [N m]: half of a robot about 1 m tall
    assert robot.model.actuator("l_wrist_roll").forcerange[1] == pytest.approx(1.5)  # a real one is kept
    assert robot.model.dof_armature[robot.model.joint("l_knee").dofadr[0]] < 0.05  # [kg m^2]


def test_a_blow_up_is_reported_with_the_reason_and_a_remedy():
    robot = MujocoRobot(humanoid_urdf(HEAVY), ServoConfig(floating_base=True, armature=0.0))
    with pytest.raises(UnstableSimulation, match="simulation unstable.*smaller timestep"):
        robot.step(1500)


def test_imu_at_rest_reads_gravity_and_no_rotation():
    robot = MujocoRobot(ROBOTS["packaged"](), ServoConfig(floating_base=True))
    robot.reset(_standing(robot))
    robot.step(1000)
    orientation, gyro, accelerometer = robot.imu()
    assert orientation == pytest.approx(robot.base_pose()[3:], abs=1e-5)  # sensors: one step earlier
    assert np.abs(gyro).max() < 0.02
    assert accelerometer == pytest.approx([0.0, 0.0, 9.81], abs=0.2)


def test_bad_armature_is_refused():
    with pytest.raises(ValueError, match="armature"):
        ServoConfig(armature=-1.0)
