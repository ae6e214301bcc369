"""The capture step from standing on scripted states (no simulator): the step choice, and the
ankles that go with the body while it swings.

The pattern stands still with nothing commanded; the base estimate is scripted (the CoM where the
plan has it, moving as a push left it). Pratt et al. 2006 / Englsberger et al. 2015: a DCM the
soles cannot hold is caught by a step towards where it will be at touch-down, within the leg's reach.
"""

from __future__ import annotations

import numpy as np
import pytest
from walking_helpers import robot

from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.capture_point import dcm
from ik_solvers.whole_body.capture_step import FOLLOW_AFTER, FOLLOW_LIMIT, LANDED_SHARE, NARROWEST
from ik_solvers.whole_body.stabiliser import Stabiliser
from ik_solvers.whole_body.state_estimate import BaseEstimate


@pytest.fixture
def standing():
    """A stabiliser with capture steps on the packaged robot's pattern, standing still."""
    return _standing(1.5)


def _standing(capture_swing: float):
    """The pattern, its capture stepper and the tick it stands still at, the capture swing
    ``capture_swing`` pendulum periods (1 / ω)."""
    model = robot("packaged")
    stance = StanceSolver(model)
    config = WalkConfig(stabilise=True, timing_com_height=0.455, capture_swing=capture_swing)
    generator = WalkingPatternGenerator(model, config, stance=stance)
    stabiliser = Stabiliser(generator, stance)
    for _ in range(20):
        tick = generator.step()
    assert stabiliser.capture.standing(tick)
    return generator, stabiliser.capture, tick


def _standing_q(stepper) -> np.ndarray:
    """(n,) joint positions [rad], every joint at zero (what the stepper's legs measure from)."""
    return np.zeros(stepper.estimator.com_model.n)


def _pushed(tick, velocity) -> BaseEstimate:
    """The base where the plan has it, its CoM moving at ``velocity`` (2,) [m/s]."""
    com = np.array([*tick.com, 0.45])
    return BaseEstimate(np.eye(4), com, np.array([*velocity, 0.0]), 0.0, 0.0, np.zeros(3), "left")


def _outside(stepper, tick, estimate) -> np.ndarray:
    """The DCM's offset (2,) [m] from the soles' midpoint beyond half a sole, as a push leaves it."""
    middle = 0.5 * (tick.left_sole[:2, 3] + tick.right_sole[:2, 3])
    return dcm(estimate.com[:2], estimate.com_velocity[:2], stepper.omega) - middle


def test_a_small_push_is_held_by_the_ankles(standing):
    _, stepper, tick = standing
    assert not stepper.update(tick, _pushed(tick, [0.05, 0.0]), np.array([0.002, 0.0]))
    assert stepper.steps == 0


@pytest.mark.parametrize(
    "velocity, side", [([0.5, 0.0], "right"), ([-0.5, 0.0], "right"), ([0.2, 0.5], "left")]
)
def test_a_large_push_steps_towards_the_dcm_within_reach(standing, velocity, side):
    generator, stepper, tick = standing
    estimate = _pushed(tick, velocity)
    assert stepper.update(tick, estimate, _outside(stepper, tick, estimate))
    phase = generator.planner.phase_at(tick.time + 1e-3)
    step = phase.step
    assert step is not None and step.side == side and step.land - tick.time == pytest.approx(stepper.swing)
    support = tick.right_sole if side == "left" else tick.left_sole
    offset = step.end[:2] - support[:2, 3]
    direction = np.asarray(velocity) / np.linalg.norm(velocity)
    start = (tick.left_sole if side == "left" else tick.right_sole)[:2, 3] - support[:2, 3]
    assert (offset - start) @ direction > 0.02  # the foot goes the push's way
    assert abs(offset[0]) <= stepper.reach + 1e-9
    # never across the support sole, nor narrower than 0.75 of the standing stance (narrower rolled over sideways)
    assert abs(offset[1]) >= NARROWEST * generator.geometry.foot_separation - 1e-9
    assert generator.controller.state[0] == pytest.approx(estimate.com[:2])  # planned from the measured CoM


@pytest.mark.parametrize("outwards, landed", [(0.10, NARROWEST), (0.16, 1.0)])
def test_a_landing_read_beyond_the_reach_goes_narrower_when_the_dcm_stays_inside(outwards, landed):
    """A target 0.5 m ahead (the estimate over-reads a large push: 0.45 m predicted against 0.28 m
    true at 0.5 m/s) lies outside every landing's hull, so the hull rule alone lands the foot a full
    stance width out and the caught DCM ends beside the landed sole. Caught at the landed sole's
    centre along the push, a target ``outwards`` [m] beside the support sole stays inside the hull at
    0.75 of the width (0.10 m: the step lands there) or not (0.16 m, on the landing's own line: it
    lands a full width out). Held 18 / 8 of the 25 forward / back standing cells on the five robots
    against main's 14 / 5 (docs/walking.md, "the landing's sideways place")."""
    generator, stepper, tick = _standing(0.8)
    support = tick.left_sole
    target = support[:2, 3] + support[:2, :2] @ np.array([0.5, -outwards])
    landing = stepper._landing("right", support, target)
    local = support[:2, :2].T @ (landing[:2] - support[:2, 3])
    assert local[0] == pytest.approx(stepper.reach)
    assert -local[1] == pytest.approx(landed * generator.geometry.foot_separation)


def test_a_sideways_push_is_left_to_the_ankles(standing):
    """Sideways the soles' polygon is wide and the ankles hold 0.5 m/s: only the sagittal part of
    the DCM's excess starts a step."""
    _, stepper, tick = standing
    assert not stepper.update(tick, _pushed(tick, [0.0, 0.6]), np.array([0.0, 0.05]))
    assert stepper.update(tick, _pushed(tick, [0.6, 0.0]), np.array([0.05, 0.0]))


def test_while_the_capture_step_swings_the_ankles_follow_the_body(standing):
    generator, stepper, tick = standing
    # nothing to follow before a step
    assert stepper.follow(tick, _pushed(tick, [0.0, 0.0]), _standing_q(stepper)) is None
    estimate = _pushed(tick, [0.3, 0.0])
    assert stepper.update(tick, estimate, np.array([0.05, 0.0]))
    first = generator.planner.phase_at(tick.time + 1e-3).step
    later = generator.step()
    faster = _pushed(later, [0.5, 0.0])  # the push went on: the DCM runs further
    target = stepper.follow(later, faster, _standing_q(stepper))
    assert target == pytest.approx(faster.com[:2] + faster.com_velocity[:2] * generator.config.dt)
    assert generator.controller.state[0] == pytest.approx(faster.com[:2])  # the plan from the measured CoM
    assert generator.controller.state[1] == pytest.approx(faster.com_velocity[:2])
    assert generator.controller.error_sum == pytest.approx(np.zeros(2))
    moved = generator.planner.phase_at(later.time + 1e-3).step
    assert moved.end[0] > first.end[0] + 0.02  # the landing goes with the DCM


def _caught_step_landed(standing) -> tuple:
    """Push the standing robot 0.5 m/s forward, let the stepper take its capture step and walk the
    plan to the landing: (the tick at touch-down, the pushed estimate, the landing time [s])."""
    generator, stepper, tick = standing
    estimate = _pushed(tick, [0.5, 0.0])
    assert stepper.update(tick, estimate, _outside(stepper, tick, estimate))
    land = generator.planner.phase_at(tick.time + 1e-3).step.land
    while tick.time < land:
        tick = generator.step()
    return tick, estimate, land


def test_after_touch_down_the_com_target_stays_near_the_measured_com(standing):
    generator, stepper, _ = standing
    tick, estimate, land = _caught_step_landed(standing)
    # landed: the stabiliser's own feedback again
    assert stepper.follow(tick, estimate, _standing_q(stepper)) is None
    far = estimate.com[:2] + np.array([-0.1, 0.0])
    limited = stepper.limit(tick, estimate, far)
    assert np.hypot(*(limited - estimate.com[:2])) == pytest.approx(FOLLOW_LIMIT)
    assert limited[0] < estimate.com[0]  # still towards the target
    near = estimate.com[:2] + np.array([0.005, 0.0])
    assert stepper.limit(tick, estimate, near) == pytest.approx(near)
    while tick.time <= land + FOLLOW_AFTER:
        tick = generator.step()
    assert stepper.limit(tick, estimate, far) == pytest.approx(far)  # over: as given


def test_after_touch_down_the_robot_stands_in_the_stance_it_landed_in(standing):
    """No second step: the other foot brought beside the landed one lifted with the body still
    over the landed sole's heel and threw the caught robot over it (docs/walking.md, "Standing
    pushes"). The plan goes on from the measured CoM, its ZMP reference between the soles."""
    generator, stepper, _ = standing
    tick, estimate, _ = _caught_step_landed(standing)
    landed = estimate.com[:2] + np.array([0.04, 0.01])
    moving = BaseEstimate(
        np.eye(4), np.array([*landed, 0.45]), np.array([0.1, 0.0, 0.0]), 0.0, 0.0, np.zeros(3), "left"
    )
    assert stepper.follow(tick, moving, _standing_q(stepper)) is None
    assert generator.controller.state[0] == pytest.approx(landed)  # re-based at touch-down
    soles = generator.geometry.soles
    centres = [
        sole.corners_in_world(pose).mean(axis=0)
        for sole, pose in zip(soles, (tick.left_sole, tick.right_sole))
    ]
    # the ZMP reference starts half-way to the caught DCM (inside the soles' hull) and moves to the midpoint
    middle = 0.5 * (centres[0] + centres[1])
    caught = dcm(moving.com[:2], moving.com_velocity[:2], stepper.omega)
    first = generator.planner.zmp_reference(np.array([tick.time]))[0]
    assert first == pytest.approx(middle + LANDED_SHARE * (caught - middle))
    for _ in range(300):  # 3 s with nothing commanded
        later = generator.step()
        assert later.support == "double"
        assert later.left_sole == pytest.approx(tick.left_sole) and later.right_sole == pytest.approx(
            tick.right_sole
        )
    assert later.zmp_reference == pytest.approx(0.5 * (centres[0] + centres[1]))


def test_the_capture_step_lands_where_the_legs_measure_its_sole(standing):
    """A 0.17 s swing lands 40-80 mm from its planned place (the servos lag, the support sole
    slides); at its last tick the plan takes the landing the legs measure, so that the estimate
    standing on the landed sole afterwards reads the CoM from where that sole really is."""
    generator, stepper, tick = standing
    estimate = _pushed(tick, [0.5, 0.0])
    assert stepper.update(tick, estimate, _outside(stepper, tick, estimate))
    step = generator.planner.phase_at(tick.time + 1e-3).step
    while tick.time + generator.config.dt < step.land:
        tick = generator.step()
    torso = np.eye(4)
    torso[:3, 3] = [0.05, -0.03, 0.5]  # [m] where the estimate has the torso at that tick
    measured = BaseEstimate(torso, estimate.com, estimate.com_velocity, 0.0, 0.0, np.zeros(3), "left")
    q = _standing_q(stepper)
    sole = torso[:3, 3] + stepper.estimator.sole_position(step.side, q)  # [m] the swing sole, measured
    assert np.hypot(*(sole[:2] - step.end[:2])) > 0.05  # far from the planned landing
    stepper.follow(tick, measured, q)
    landed = generator.planner.phase_at(tick.time + 1e-3).step
    assert landed.end[:2] == pytest.approx(sole[:2])
    assert landed.end[2] == pytest.approx(step.end[2])  # its yaw as planned
    while tick.time < step.land + 0.05:
        tick = generator.step()
    pose = tick.left_sole if step.side == "left" else tick.right_sole
    assert pose[:2, 3] == pytest.approx(sole[:2])  # the plan stands on it
