"""Balance in real MuJoCo (the offline walking loop, no ROS): the state estimate against the
simulator's truth, and a push that tips the open-loop walk over but not the stabilised one.

The stabiliser reads only the simulated IMU (the torso's orientation and gyro sensors) and the
joint positions; the simulator's base pose is used here only as the truth to compare with.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("mujoco")

from walking_robots import variant_urdf

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.walk.pushes import Conditions, survives, walks
from ik_solvers.whole_body import stabiliser
from ik_solvers.whole_body.state_estimate import roll_pitch

URDF = package_share_path("urdf", "humanoid.urdf").read_text()
CLOSED = replace(load_walk_config(), stabilise=True)
OPEN = replace(CLOSED, stabilise=False)


def test_state_estimate_follows_the_simulated_robot():
    walker = OfflineWalker(URDF, CLOSED)
    walker.settle(0.3)
    walker.run([(3.0, (0.9 * walker.generator.max_command[0], 0.0, 0.0))])
    truth = walker.log.measured()
    estimate = np.array([c.estimate.com for c in walker.corrections])
    # the plan's world is where the plan put the soles; the simulator's is where it placed the
    # robot (mm apart at the start): the estimate must follow the truth's motion from there
    drift = (estimate - truth["com"]) - (estimate[0] - truth["com"][0])
    assert np.abs(drift).max() < 0.003
    attitude = np.array([[c.estimate.roll, c.estimate.pitch] for c in walker.corrections])
    true_attitude = np.array([roll_pitch(base[3:]) for base in truth["base"]])
    assert np.abs(attitude - true_attitude).max() < 0.003
    velocity = np.array([c.estimate.com_velocity for c in walker.corrections])
    true_velocity = np.gradient(truth["com"], truth["times"], axis=0)
    assert np.sqrt(np.mean((velocity - true_velocity)[20:, :2] ** 2)) < 0.01


def test_a_sideways_push_that_tips_the_open_loop_walk_is_survived():
    push = np.array([0.0, -0.1])  # [m/s], to the right, mid single support
    assert not survives(URDF, OPEN, push)
    assert survives(URDF, CLOSED, push)


def test_half_stiff_servos_walk_with_the_stabiliser_only():
    soft = Conditions(stiffness=0.5)
    assert not walks(URDF, OPEN, soft)
    assert walks(URDF, CLOSED, soft)


def test_a_push_onto_the_swinging_foot_lands_it_early():
    # 0.3 m/s to the right at mid single support (left sole standing): the push rolls the robot onto
    # its swinging foot; landing that foot when it touches down (Stabiliser._touched_down) holds
    # the robot, finishing the swing into the floor lifted the support sole and the walk fell
    push = np.array([0.0, -0.3])
    assert survives(URDF, CLOSED, push)
    assert not survives(URDF, replace(CLOSED, touch_after=1.0), push)  # never lands early


def test_a_push_towards_the_support_side_is_held_with_the_zmp_inset():
    # 0.2 m/s to the left at mid single support (left sole standing): the DCM jumps towards the
    # support sole's outer edge; with the ZMP reference 0.2 of the sole's width inside each sole's
    # centre (walk.zmp_inset_ratio, off in config/walk.yaml: docs/walking.md) it has that much more
    # room and the robot walks on
    push, armless = np.array([0.0, 0.2]), replace(CLOSED, arm_trigger=0.0)  # the inset alone
    assert not survives(URDF, armless, push)
    assert survives(URDF, replace(armless, zmp_inset_ratio=0.2), push)


def test_a_push_towards_the_support_side_is_held_with_the_far_arm():
    # 0.2 m/s to the left a quarter of a single support after its middle (left sole standing):
    # the DCM runs past the support sole's outer edge; the right arm raised (walk.arm_trigger,
    # whole_body/far_arm.py), held to the next single support and lowered over 2 s, takes the CoM
    # and the body's roll back and the robot walks on; without it, it rolls over the left sole
    push = np.array([0.0, 0.2])
    assert survives(URDF, CLOSED, push, instant=0.25)
    assert not survives(URDF, replace(CLOSED, arm_trigger=0.0), push, instant=0.25)


def test_a_push_towards_the_support_side_is_held_with_the_torso_rolled_into_the_fall():
    # 0.2 m/s to the left in the middle of a single support (left sole standing): the far arm
    # alone holds the push but not the robot (it rolls over the left sole's outer edge); with the
    # torso rolled into the fall (up to 0.3 rad) while that arm is up (walk.arm_torso_roll, a hip
    # strategy) it walks on
    push = np.array([0.0, 0.2])
    assert CLOSED.arm_torso_roll > 0.0
    assert survives(URDF, CLOSED, push, instant=0.0)
    assert not survives(URDF, replace(CLOSED, arm_torso_roll=0.0), push, instant=0.0)


def test_a_push_towards_the_support_side_keeps_the_landing_out_for_the_rebound():
    # 0.2 m/s to the left an eighth of a single support after its middle (left sole standing):
    # the robot tips onto the left sole's outer edge, the far arm holds it, and it rocks back onto
    # the right foot; that foot landed where planned catches the rebound (walk.landing_out_ratio,
    # stabiliser._not_inwards), moved 40 mm inwards towards the push (ratio 0, as before) the DCM
    # ran beyond its outer edge and the robot fell to the right during the next swing
    # (the torso's roll into the fall, walk.arm_torso_roll, off: with it the push is held either way)
    push = np.array([0.0, 0.2])
    unrolled = replace(CLOSED, arm_torso_roll=0.0)
    assert survives(URDF, unrolled, push, instant=0.125)
    assert not survives(URDF, replace(unrolled, landing_out_ratio=0.0), push, instant=0.125)


def test_a_push_back_lands_the_swinging_heel_when_it_meets_the_floor(monkeypatch):
    # 0.3 m/s back at mid single support: the robot tips onto its support heel, the swinging foot,
    # its landing moved behind (recovery_reach_ratio), meets the floor before its planned landing;
    # landing it then holds the robot, driving it on to its landing rolled the robot over the
    # support sole's outer corner (the front arms off: with them it holds either way)
    push, armless = np.array([-0.3, 0.0]), replace(CLOSED, front_arm_trigger=0.0)
    assert survives(URDF, armless, push)
    monkeypatch.setattr(stabiliser, "_sagittal", lambda error, yaw: False)  # as before: lateral only
    assert not survives(URDF, armless, push)


def test_a_push_forward_lands_the_swinging_toe_as_it_meets_the_floor():
    # 0.35 m/s forward at mid single support: the robot pitches over its support toe and the
    # swinging sole, pitched with it, meets the floor with its toe while its origin is still
    # about half a step height up; landing it then (config/walk.yaml's touch_height_ratio 0.5)
    # holds the robot, waiting until the origin came within a quarter of the step height drove
    # the toe on into the floor, pitched the robot 13 deg and rolled it over the soles' diagonal
    push = np.array([0.35, 0.0])
    assert survives(URDF, CLOSED, push)
    assert not survives(URDF, replace(CLOSED, touch_height_ratio=0.25), push)


def test_a_forward_push_lands_the_toe_early_on_wider_hips_too():
    # 0.3 m/s forward at mid single support on the factory variant with hips 0.19 m apart (the
    # packaged robot's soles stand 0.16 m apart): the swinging toe meets the floor as on the
    # packaged robot, but the DCM error's share towards that sole's mid-swing place (mostly
    # sideways of the CoM) stayed below 0.2 of the wider stance, so the swing was driven on into
    # the floor and the robot rolled over; a sagittal error is now measured along the heading
    # against 0.2 of the sole's length (Stabiliser._touched_down, docs/walking.md)
    assert survives(variant_urdf("wider_hips"), CLOSED, np.array([0.3, 0.0]))


def test_a_push_back_is_held_with_the_front_arms_on_wider_hips():
    # 0.35 m/s back at mid single support on the factory variant with hips 0.19 m apart: the robot
    # tips over its support heel faster than the swing can land behind it; both shoulders flexed
    # forward (walk.front_arm_trigger, whole_body/front_arms.py) turn the body forward by their
    # reaction and carry the CoM over the heel; without them it falls back
    urdf, push = variant_urdf("wider_hips"), np.array([-0.35, 0.0])
    assert survives(urdf, CLOSED, push)
    assert not survives(urdf, replace(CLOSED, front_arm_trigger=0.0), push)


def test_an_unpushed_walk_never_swings_the_front_arms():
    walker = OfflineWalker(URDF, CLOSED)
    walker.settle(0.3)
    walker.run([(6.0, (0.9 * walker.generator.max_command[0], 0.0, 0.0)), (2.0, (0.0, 0.0, 0.0))])
    assert walker.stabiliser.front_arms.raised  # the packaged robot has them
    assert not any(c.arm for c in walker.corrections)


def test_a_push_back_is_held_by_leaning_against_the_tipped_heels():
    # 0.35 m/s back at mid single support on the packaged robot: after the early touch-down both
    # soles stand on their heel edges (12-25 deg) and turn about them until the CoM is over those
    # edges; leaning the CoM target forward by z_c tan(tilt - walk.heel_lean_tilt) brings them back
    # down, without it the robot falls back over them (docs/walking.md, "Back pushes: the heel lean")
    push = np.array([-0.35, 0.0])
    assert survives(URDF, CLOSED, push)
    assert not survives(URDF, replace(CLOSED, heel_lean_tilt=0.0), push)
