"""The capture point, the step adjustment and the stabiliser on scripted states (no simulator).

The robot's joints are where the stance solve put them (a robot that follows its plan exactly);
the IMU's orientation is scripted: level, or tilted as a robot tipping over a sole's edge is.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, humanoid_urdf
from walking_helpers import robot

from ik_solvers import RobotModel
from ik_solvers.limbs.tree import find_limbs
from ik_solvers.parameter_rules import ParameterError
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.capture_point import (
    clip_to_polygon,
    convex_hull,
    dcm,
    dcm_after,
    landing_offset,
    natural_frequency,
)
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.far_arm import find_shoulders
from ik_solvers.whole_body.stabiliser import Stabiliser, TiltFilter
from ik_solvers.whole_body.state_estimate import attitude_matrix, roll_pitch

LEVEL = np.array([1.0, 0.0, 0.0, 0.0])


def tilted(roll: float, pitch: float) -> np.ndarray:
    """(w, x, y, z) of R_y(pitch) R_x(roll)."""
    cr, sr, cp, sp = math.cos(roll / 2), math.sin(roll / 2), math.cos(pitch / 2), math.sin(pitch / 2)
    return np.array([cp * cr, cp * sr, sp * cr, -sp * sr])


def test_dcm_runs_away_from_the_zmp_as_the_pendulum_does():
    omega = natural_frequency(0.45)
    assert omega == pytest.approx(math.sqrt(9.81 / 0.45))
    com, velocity, zmp, dt = np.array([0.01, 0.0]), np.array([0.05, -0.02]), np.zeros(2), 1e-4
    for _ in range(2000):  # the linear inverted pendulum c'' = ω² (c − p), 0.2 s
        velocity = velocity + omega**2 * (com - zmp) * dt
        com = com + velocity * dt
    expected = dcm_after(dcm([0.01, 0.0], [0.05, -0.02], omega), zmp, omega, 0.2)
    assert dcm(com, velocity, omega) == pytest.approx(expected, abs=2e-4)
    with pytest.raises(ValueError, match="CoM height must be > 0"):
        natural_frequency(0.0)


def test_landing_moves_only_by_what_the_support_cannot_absorb():
    omega = 5.0
    assert landing_offset(np.array([0.02, 0.0]), np.array([0.02, 0.0]), omega, 0.3) == pytest.approx([0, 0])
    moved = landing_offset(np.array([0.05, -0.01]), np.array([0.03, -0.01]), omega, 0.3)
    assert moved == pytest.approx([0.02 * math.exp(1.5), 0.0])


def test_points_are_clipped_into_the_shrunk_polygon():
    square = np.array([[-0.05, -0.04], [0.05, -0.04], [0.05, 0.04], [-0.05, 0.04]])
    points = np.array([[0.0, 0.0], [0.2, 0.0], [0.2, 0.2], [-0.1, 0.01]])
    clipped = clip_to_polygon(points, square, margin=0.01)
    assert clipped == pytest.approx(np.array([[0.0, 0.0], [0.04, 0.0], [0.04, 0.03], [-0.04, 0.01]]))
    assert clip_to_polygon([0.3, 0.0], square, margin=0.05) == pytest.approx(square.mean(axis=0))
    both = convex_hull(np.concatenate([square, square + [0.1, 0.2]]))
    assert len(both) == 6  # two corners of each square lie inside the hull
    assert clip_to_polygon([0.05, 0.1], both) == pytest.approx([0.05, 0.1])  # between the squares


def test_attitude_round_trip():
    roll, pitch = roll_pitch(tilted(0.1, -0.2))
    assert (roll, pitch) == pytest.approx((0.1, -0.2))
    rotation = attitude_matrix(0.1, -0.2, 0.3)
    assert rotation @ rotation.T == pytest.approx(np.eye(3))


@pytest.fixture
def walking():
    """A stabiliser on the packaged robot's pattern, walking forward, mid single support."""
    model = robot("packaged")
    stance = StanceSolver(model)
    config = WalkConfig(stabilise=True, timing_com_height=0.455, single_support=0.8, double_support=0.4)
    generator = WalkingPatternGenerator(model, config, stance=stance)
    stabiliser = Stabiliser(generator, stance)
    generator.set_command(0.05, 0.0, 0.0)
    while True:
        tick = generator.step()
        q = _joints(stance, tick)
        correction = stabiliser.update(tick, LEVEL, np.zeros(3), q)
        phase = generator.planner.phase_at(tick.time)
        if phase.step is not None and tick.time > phase.start + 0.1:
            return generator, stance, stabiliser, tick, correction


def _joints(stance, tick) -> np.ndarray:
    result = stance.solve(
        tick.left_sole, tick.right_sole, tick.torso_height, tick.torso_rotation, com_target=tick.com
    )
    assert result.success
    return stance.com.configuration(result.positions)


def test_a_robot_that_follows_its_plan_is_left_alone(walking):
    *_, tick, correction = walking
    assert correction.estimate.com[:2] == pytest.approx(tick.com, abs=1e-4)
    assert np.hypot(*correction.dcm_error) < 0.005
    assert correction.com == pytest.approx(tick.com, abs=0.003)
    assert correction.landing_moved == pytest.approx([0.0, 0.0])
    assert correction.torso_rotation == pytest.approx(tick.torso_rotation, abs=1e-6)


def test_a_robot_tipping_sideways_steps_out_and_leans_back(walking):
    generator, stance, stabiliser, tick, _ = walking
    step = generator.planner.phase_at(tick.time).step
    outward = 1.0 if step.side == "left" else -1.0  # tipping towards the swing foot
    for _ in range(5):
        tick = generator.step()
        correction = stabiliser.update(tick, tilted(-outward * 0.08, 0.0), np.zeros(3), _joints(stance, tick))
    assert correction.dcm_error[1] * outward > 0.02
    assert correction.landing_moved[1] * outward > 0.01  # the swing lands further out
    assert np.hypot(*correction.landing_moved) <= stabiliser.max_adjust + 1e-9
    assert (correction.com[1] - tick.com[1]) * outward < 0.0  # the body back over the support
    roll, _ = roll_pitch(_quaternion(correction.torso_rotation))
    assert roll * outward > 0.0  # commanded against the tilt
    landed = generator.planner.phase_at(tick.time).step.end
    support = tick.right_sole if step.side == "left" else tick.left_sole
    assert abs(landed[1] - support[1, 3]) >= stabiliser.inner - 1e-9


def _quaternion(rotation: np.ndarray) -> np.ndarray:
    w = math.sqrt(max(1.0 + np.trace(rotation), 0.0)) / 2
    return np.array(
        [
            w,
            (rotation[2, 1] - rotation[1, 2]) / (4 * w),
            (rotation[0, 2] - rotation[2, 0]) / (4 * w),
            (rotation[1, 0] - rotation[0, 1]) / (4 * w),
        ]
    )


def test_stabiliser_parameters_are_checked():
    with pytest.raises(ParameterError, match="walk.com_feedback_gain"):
        WalkConfig(com_feedback_gain=-1.0)
    with pytest.raises(ParameterError, match="walk.step_adjust_ratio"):
        WalkConfig(step_adjust_ratio=3.0)


def test_a_swinging_foot_down_early_under_a_push_lands_now(walking):
    generator, stance, stabiliser, tick, _ = walking
    step = generator.planner.phase_at(tick.time).step
    outward = 1.0 if step.side == "left" else -1.0
    while tick.time - step.lift < 0.35 * (step.land - step.lift):  # past touch_after (0.3)
        tick = generator.step()
        stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick))
    tick = generator.step()
    down = tick.left_sole.copy() if step.side == "left" else tick.right_sole.copy()
    down[2, 3] = tick.left_sole[2, 3] if step.side == "right" else tick.right_sole[2, 3]
    soles = (down, tick.right_sole) if step.side == "left" else (tick.left_sole, down)
    result = stance.solve(*soles, tick.torso_height, tick.torso_rotation, com_target=tick.com)
    q = stance.com.configuration(result.positions)
    stabiliser.update(tick, tilted(-outward * 0.08, 0.0), np.zeros(3), q)  # rolling onto it
    landed = generator.planner.last_step(step.side, tick.time)
    assert landed.land == pytest.approx(tick.time)  # not step.land, later
    assert landed.end[:2] == pytest.approx(down[:2, 3])  # where it is
    assert generator.planner.phase_at(tick.time + 1e-6).support == "double"


def test_a_swinging_foot_near_the_floor_without_a_push_swings_on(walking):
    generator, stance, stabiliser, tick, _ = walking
    step = generator.planner.phase_at(tick.time).step
    while tick.time < step.land - 0.05:  # the foot near the floor at the end of its swing
        tick = generator.step()
        stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick))
    assert generator.planner.last_step(step.side, tick.time).land == pytest.approx(step.land)


def test_the_torso_level_tilt_filter_passes_through_at_zero_and_lags_otherwise():
    unfiltered = TiltFilter(0.0, 0.01)
    assert unfiltered.update(0.1, -0.2) == (0.1, -0.2)
    assert unfiltered.update(0.3, 0.0) == (0.3, 0.0)
    filtered = TiltFilter(0.01, 0.01)  # time constant of one period: half the way each period
    assert filtered.update(0.0, 0.0) == (0.0, 0.0)  # the first measurement is taken as it is
    assert filtered.update(0.2, -0.4) == pytest.approx((0.1, -0.2))
    assert filtered.update(0.2, -0.4, elapsed=0.03) == pytest.approx((0.1 + 0.75 * 0.1, -0.2 - 0.75 * 0.2))


@pytest.mark.parametrize("axes, index", [("yxz", 1), ("xyz", 0), ("zxy", 1)])
def test_the_far_arm_shoulder_is_the_arm_joint_that_swings_it_sideways(axes, index):
    model = RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec(arm=ArmDims(shoulder_axes=axes))))
    com = CenterOfMass(model)
    shoulders = find_shoulders(model, com, 2.0)
    arms = {arm.name: arm for arm in find_limbs(model).arms}
    for side, sign in (("left", 1.0), ("right", -1.0)):
        joint = model.joints[shoulders[side].joint]
        assert shoulders[side].joint == arms[f"{side}_arm"].joint_names[index]
        assert shoulders[side].raised == pytest.approx(np.clip(sign * 2.0, joint.lower, joint.upper))
        assert abs(shoulders[side].raised) > 1.0  # outwards: the limits allow it


@pytest.fixture
def far_arm_walk():
    """A stabiliser with the far arm on (``arm_trigger`` 25 mm), walking forward, mid single support."""
    model = robot("packaged")
    stance = StanceSolver(model)
    config = WalkConfig(
        stabilise=True, timing_com_height=0.455, single_support=0.8, double_support=0.4, arm_trigger=0.025
    )
    generator = WalkingPatternGenerator(model, config, stance=stance)
    stabiliser = Stabiliser(generator, stance)
    generator.set_command(0.05, 0.0, 0.0)
    commanded = []
    while True:
        tick = generator.step()
        correction = stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick))
        commanded.append(correction.arm)
        phase = generator.planner.phase_at(tick.time)
        if phase.step is not None and tick.time > phase.start + 0.1 and tick.time > 3.0:
            return generator, stance, stabiliser, tick, commanded


def test_the_torso_rolls_into_the_fall_while_the_far_arm_is_up(far_arm_walk):
    generator, stance, stabiliser, tick, _ = far_arm_walk
    arm = stabiliser.far_arm
    arm.roll = 0.3  # walk.arm_torso_roll [rad]
    support = tick.support
    outward = 1.0 if support == "left" else -1.0  # the support sole's outer side (world y)
    errors = []
    for _ in range(20):  # 0.2 s tipped over the support sole: the arm goes up, the roll rises
        tick = generator.step()
        correction = stabiliser.update(tick, tilted(-outward * 0.08, 0.0), np.zeros(3), _joints(stance, tick))
        errors.append(correction.dcm_error[1] * outward)
    assert correction.arm  # the far arm is up
    assert arm.peak == pytest.approx(max(errors))
    # its size: 0.3 rad times the error's excess over the trigger (25 mm) / the trigger, at most 1
    roll = 0.3 * min(max(arm.peak / 0.025 - 1.0, 0.0), 1.0)
    assert roll > 0.05
    # the torso level alone turns the top 0.04 rad away from the tilt; the roll turns it into it
    assert correction.torso_rotation[1, 2] * outward == pytest.approx(np.sin(roll - 0.04), abs=0.01)
    while generator.planner.phase_at(tick.time).support in (support, "double"):
        tick = generator.step()
        correction = stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick))
    assert correction.torso_rotation[1, 2] * outward == pytest.approx(np.sin(roll), abs=0.01)  # held
    start = tick.time
    while tick.time < start + 2.1:  # lowered with the arm, over arm_lower_time (2 s)
        tick = generator.step()
        correction = stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick))
        if abs(tick.time - (start + 1.0)) < 0.005:
            assert correction.torso_rotation[1, 2] * outward == pytest.approx(np.sin(0.5 * roll), abs=0.01)
    assert correction.arm == {}
    assert correction.torso_rotation[1, 2] == pytest.approx(0.0, abs=1e-9)


def test_a_push_towards_the_support_side_raises_the_far_arm_and_a_normal_walk_does_not(far_arm_walk):
    generator, stance, stabiliser, tick, commanded = far_arm_walk
    assert not any(commanded)  # 3 s of walking as planned: no arm
    support = tick.support
    far = "right" if support == "left" else "left"
    shoulder = stabiliser.far_arm.shoulders[far]
    outward = 1.0 if support == "left" else -1.0  # the support sole's outer side
    for _ in range(5):
        tick = generator.step()
        q = _joints(stance, tick)
        correction = stabiliser.update(tick, tilted(-outward * 0.08, 0.0), np.zeros(3), q)
    assert correction.dcm_error[1] * outward > 0.02
    assert correction.arm == {shoulder.joint: shoulder.raised}
    rest = stabiliser.far_arm.com_shift(q, {shoulder.joint: q[shoulder.column]}, tick.torso_yaw)
    assert rest == pytest.approx([0.0, 0.0])
    shift = stabiliser.far_arm.com_shift(q, correction.arm, tick.torso_yaw)
    assert shift[1] * outward < -0.003  # the CoM target follows the arm away from the push
    angles = []
    while generator.planner.phase_at(tick.time).support in (support, "double"):  # held through that step
        tick = generator.step()
        angles.append(stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick)).arm[shoulder.joint])
    assert angles == pytest.approx([shoulder.raised] * len(angles))
    start = tick.time
    while tick.time < start + 2.5:  # the next single support: lowered over arm_lower_time (2 s)
        tick = generator.step()
        arm = stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick)).arm
        if tick.time < start + 1.0:
            assert abs(arm[shoulder.joint]) < abs(shoulder.raised) and abs(arm[shoulder.joint]) > 0.4
    assert arm == {}  # down at its rest angle (0) and released
