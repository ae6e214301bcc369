"""Humanoid descriptions as other makers publish them (test/descriptions/*/README.md), loaded
unedited: the quirks of their files that the package must take."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from description_data import NAO, UNITREE_H1_2, WOLFGANG

from ik_solvers import RobotModel, make_solver
from ik_solvers.description import load_description
from ik_solvers.limbs import find_body
from ik_solvers.limbs.footprint import sole_geometry
from ik_solvers.limbs.tree import zero_pose
from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig
from ik_solvers.sim.mujoco_urdf import without_missing_meshes
from ik_solvers.sim.servo_tuning import WEAK_SUPPORT_STIFFNESS
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator

WALK_TIME = 8.0  # [s] of walking forward (on default servos the H1-2 fell within it: tilt 80 deg)


def test_unnamed_visual_colours_of_unitree_h1_2_do_not_stop_the_parse():
    # every visual of the H1-2 carries <material><color .../></material> without a name, which
    # urdf_parser_py refuses ("Required attribute not set in XML: name"); colours are cosmetic
    model = RobotModel.from_urdf_file(UNITREE_H1_2)
    body = find_body(model)
    assert body.whole_body_problem == ""  # two 6-joint legs with soles from the foot meshes
    assert body.chains["left_leg"] == ("pelvis", "left_ankle_roll_link_sole")
    assert len(model.chain(*body.chains["left_arm"]).joint_names) == 7


@pytest.mark.parametrize("limb", ["left_leg", "right_arm"])
def test_unitree_h1_2_limbs_are_solved_by_auto(limb):
    body = find_body(RobotModel.from_urdf_file(UNITREE_H1_2))
    chain = body.model.chain(*body.chains[limb])
    solver = make_solver("auto", chain)  # hip yaw, pitch, roll: the Jacobian solver
    for q in chain.random_configurations(20, np.random.default_rng(3)):
        result = solver.solve(chain.fk(q))
        assert result.success, result.message
        assert result.position_error < 1e-6 and result.orientation_error < 1e-5


def test_wolfgang_feet_tilted_at_zero_get_soles_on_their_bottoms():
    # at q = 0 Wolfgang's feet are tilted 15 degrees toe up: their lowest collision points are
    # a heel edge (a line), so the sole plane is the feet's own bottom, the plane of the cleats
    body = find_body(RobotModel.from_urdf_file(WOLFGANG))
    assert body.whole_body_problem == ""
    for sole in body.sole_links:
        up = zero_pose(body.model, sole)[:3, 2]
        assert np.degrees(np.arccos(up[2])) == pytest.approx(15.0, abs=0.5)
        footprint = sole_geometry(body.model, sole)
        assert footprint.size == pytest.approx([0.184, 0.09], abs=2e-3)  # the four cleats


def test_wolfgang_walks_a_metre_on_its_soles():
    walker = OfflineWalker(WOLFGANG.read_text(), load_walk_config())
    forward = 0.9 * walker.generator.max_command[0]
    walker.settle(0.5)
    walker.run([(0.5, (0.0, 0.0, 0.0)), (1.0 / forward, (forward, 0.0, 0.0)), (2.0, (0.0, 0.0, 0.0))])
    measured = walker.log.measured()
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 5.0
    assert measured["base"][-1][0] - measured["base"][0][0] > 0.8  # [m]


def nao_without_its_meshes() -> str:
    """The NAO's URDF, its collision meshes (package nao_meshes, not in the test data) left out."""
    return without_missing_meshes(load_description(NAO)).self_contained()


def test_nao_legs_sharing_a_hip_motor_are_refused_for_standing_with_the_reason():
    body = find_body(RobotModel.from_urdf_string(nao_without_its_meshes()))
    assert "leg joint 'RHipYawPitch' follows 'LHipYawPitch' (<mimic>)" in body.whole_body_problem
    assert body.sole_links is None
    chain = body.model.chain(*body.chains["left_leg"])  # per-chain IK still serves each leg
    result = make_solver("auto", chain).solve(chain.fk(np.array([-0.3, 0.1, -0.4, 0.8, -0.4, -0.1])))
    assert result.success, result.message


def test_nao_fingers_follow_their_hand_in_the_simulator():
    # the fingers are <mimic> joints of LHand without <limit> (no effort limit for a servo)
    robot = MujocoRobot(nao_without_its_meshes())
    assert "LFinger21" not in robot.joint_names and "RHipYawPitch" not in robot.joint_names
    robot.set_targets(["LHand"], [0.8])
    robot.step(500)
    finger = robot.data.qpos[robot.model.jnt_qposadr[robot.model.joint("LFinger21").id]]
    hand = robot.data.qpos[robot.model.jnt_qposadr[robot.model.joint("LHand").id]]
    assert hand == pytest.approx(0.8, abs=0.02)
    assert finger == pytest.approx(0.999899 * hand, abs=0.01)  # a soft constraint: 4 mrad


def _stiffness(robot: MujocoRobot) -> dict[str, float]:
    """Each actuator's position gain kp [N m/rad], by joint name."""
    return {
        robot.model.actuator(i).name: float(robot.model.actuator_gainprm[i][0]) for i in range(robot.model.nu)
    }


def test_weak_support_servos_of_the_unitree_h1_2_are_stiffened_by_default():
    # Unitree's effort limits are motor torques, small for 67 kg: the ankle roll's 40 N m is 0.064
    # times the robot's gravity moment m g z_c, below weak_support_effort (0.16), so every joint
    # between the root and the feet gets 40 m g z_c [N m/rad] (docs/simulation.md)
    description = without_missing_meshes(load_description(UNITREE_H1_2))
    soft = _stiffness(MujocoRobot(description, ServoConfig(floating_base=True, weak_support_effort=0.0)))
    robot = MujocoRobot(description, ServoConfig(floating_base=True))
    stiff = _stiffness(robot)
    changed = {name for name in soft if stiff[name] != pytest.approx(soft[name])}
    joints = ("hip_yaw", "hip_pitch", "hip_roll", "knee", "ankle_pitch", "ankle_roll")
    assert changed == {f"{side}_{joint}_joint" for side in ("left", "right") for joint in joints}  # not arms
    mass = float(np.sum(robot.model.body_mass))
    centre_height = stiff["left_ankle_roll_joint"] / (WEAK_SUPPORT_STIFFNESS * mass * 9.81)  # [m] z_c
    assert 0.9 < centre_height < 1.0  # the H1-2's CoM over its soles at q = 0
    assert len({round(stiff[name]) for name in changed}) == 1  # all at the floor


def test_unitree_h1_2_walks_on_its_default_servos():
    # before the weak-support rule its ankles gave way and it fell within its first steps
    description = without_missing_meshes(load_description(UNITREE_H1_2)).self_contained()
    walker = OfflineWalker(description, load_walk_config())
    forward = 0.9 * walker.generator.max_command[0]
    walker.settle(0.5)
    walker.run([(0.5, (0.0, 0.0, 0.0)), (WALK_TIME, (forward, 0.0, 0.0)), (1.0, (0.0, 0.0, 0.0))])
    measured = walker.log.measured()
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 5.0
    assert measured["base"][-1][0] - measured["base"][0][0] > 0.5 * WALK_TIME * forward  # [m]


def test_packaged_humanoid_servos_stay_its_effort_limits_over_the_saturation_error():
    # its legs' effort limits are 0.32 times m g z_c, above weak_support_effort: no floor
    urdf = package_share_path("urdf", "humanoid.urdf")
    model = RobotModel.from_urdf_file(urdf)
    config = ServoConfig(floating_base=True)
    stiffness = _stiffness(MujocoRobot(Path(urdf).read_text(), config))
    efforts = {name: model.joints[name].effort for name in stiffness}
    assert stiffness == {name: pytest.approx(efforts[name] / config.saturation_error) for name in stiffness}


def test_support_stiffness_stiffens_only_the_unitree_h1_2s_weak_leg_servos():
    # Unitree's effort limits are motor torques, small for 67 kg: the ankle roll's 40 N m over
    # saturation_error is 3.2 times the robot's gravity moment m g z_c (docs/simulation.md)
    description = without_missing_meshes(load_description(UNITREE_H1_2))
    soft = _stiffness(MujocoRobot(description, ServoConfig(floating_base=True, weak_support_effort=0.0)))
    robot = MujocoRobot(
        description, ServoConfig(floating_base=True, support_stiffness=40.0, weak_support_effort=0.0)
    )
    stiff = _stiffness(robot)
    changed = {name for name in soft if stiff[name] != pytest.approx(soft[name])}
    joints = ("hip_yaw", "hip_pitch", "hip_roll", "knee", "ankle_pitch", "ankle_roll")
    assert changed == {f"{side}_{joint}_joint" for side in ("left", "right") for joint in joints}  # not arms
    mass = float(np.sum(robot.model.body_mass))
    centre_height = stiff["left_ankle_roll_joint"] / (40.0 * mass * 9.81)  # [m] z_c
    assert 0.9 < centre_height < 1.0  # the H1-2's CoM over its soles at q = 0
    assert len({round(stiff[name]) for name in changed}) == 1  # all at the floor


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_unitree_h1_2_walks_its_soles_close_enough_for_a_single_support_in_reach(side):
    # its heavy legs sway the torso past the supporting sole's centre, and at its standing
    # separation (0.326 m) the lifted leg then leans further out than its ankle roll turns
    # (0.26 rad): 139 stance solves of its offline walk found no stance, the swing foot froze and
    # then jumped (docs/walking.md, "Unitree G1 and H1-2: held goals and slip")
    stance = StanceSolver(
        RobotModel.from_urdf_string(without_missing_meshes(load_description(UNITREE_H1_2)).self_contained())
    )
    geometry = WalkingPatternGenerator(stance.model, load_walk_config(), stance=stance).geometry
    assert geometry.foot_separation < geometry.start_separation - 0.005  # [m]
    support, lifted = np.eye(4), np.eye(4)
    support[1, 3], lifted[1, 3] = (
        0.5 * side * geometry.foot_separation,
        -0.5 * side * geometry.foot_separation,
    )
    lifted[2, 3] = geometry.step_height  # mid-swing, beside the supporting sole
    left, right = (support, lifted) if side > 0 else (lifted, support)
    centre = geometry.soles[0 if side > 0 else 1].center_in_world(support)
    result = stance.solve(left, right, geometry.torso_height, com_target=centre)
    assert result.success, result.message


def test_packaged_humanoid_walks_its_soles_as_far_apart_as_it_stands():
    stance = StanceSolver(RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    geometry = WalkingPatternGenerator(stance.model, load_walk_config(), stance=stance).geometry
    assert geometry.foot_separation == geometry.start_separation == pytest.approx(0.16)


def _planned_liftoff_margins(urdf_xml: str, config) -> tuple[list[float], float]:
    """The plan's CoM margins [m] inside the support sole at each lift-off of a forward walk (the
    walk's 0.9 of the top speed, 6 steps, no simulation), and the robot's sole width [m]."""
    stance = StanceSolver(RobotModel.from_urdf_string(urdf_xml))
    generator = WalkingPatternGenerator(stance.model, config, stance=stance)
    generator.set_command(0.9 * generator.max_command[0], 0.0, 0.0)
    soles = generator.geometry.soles
    margins, previous = [], "double"
    for _ in range(round((config.command_delay + 6.0 * generator.config.step_period) / config.dt)):
        tick = generator.step()
        if tick.support != "double" and previous == "double":
            index = 0 if tick.support == "left" else 1
            pose = tick.left_sole if index == 0 else tick.right_sole
            hull = walk_metrics.footprint_hull([soles[index]], [pose])
            margins.append(walk_metrics.polygon_margin(tick.com, hull))
        previous = tick.support
    return margins, float(np.min([sole.size[1] for sole in soles]))


def test_unitree_h1_2_lifts_a_foot_with_its_com_well_inside_the_support_sole():
    # its soles walk 0.309 m apart on 0.081 m wide feet (the packaged robot: 0.16 on 0.08): with
    # the packaged timing the CoM trails the ZMP transfer by s / (2 ω T) = 33 mm, and lifts off
    # 7 mm inside the sole (ik_demo: CoM margin 6.4-8.0 mm against the demo's 10)
    description = without_missing_meshes(load_description(UNITREE_H1_2)).self_contained()
    margins, width = _planned_liftoff_margins(description, load_walk_config())
    assert len(margins) >= 4
    # [m] 0.8 of walk.yaml's liftoff_margin_ratio (0.2) of the sole width; the demo asks 10 mm
    assert min(margins) > 0.8 * 0.2 * width > 0.01


def test_packaged_humanoid_transfers_its_weight_in_the_time_walk_yaml_gives():
    model = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    config = load_walk_config()
    generator = WalkingPatternGenerator(model, config)
    assert generator.config.liftoff_margin_ratio > 0.0
    off = WalkingPatternGenerator(model, replace(config, liftoff_margin_ratio=0.0)).config
    assert replace(generator.config, liftoff_margin_ratio=0.0) == off  # its plan as before
