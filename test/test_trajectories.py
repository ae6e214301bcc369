"""The demo's target trajectories: smooth, sole parallel to the floor, one foot lifted at a time, solvable."""

from __future__ import annotations

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import RobotModel, make_solver
from ik_solvers.demo.trajectories import SQUAT_KEYS, DemoTrajectories, ease, still
from ik_solvers.resources import package_share_path

PHASE = 6.0  # [s]
LIMBS = {
    "left_leg": ("base_link", "l_sole"),
    "right_leg": ("base_link", "r_sole"),
    "left_arm": ("base_link", "l_wrist"),
    "right_arm": ("base_link", "r_wrist"),
}
OTHER_ROBOT = HumanoidSpec(
    leg=LegDims(hip_y=0.08, w=0.03, thigh=0.26, shank=0.22), arm=ArmDims(upper_arm=0.2, forearm=0.18)
)


def _trajectories(urdf: str) -> tuple[RobotModel, DemoTrajectories]:
    model = RobotModel.from_urdf_string(urdf)
    chains = {name: model.chain(*links) for name, links in LIMBS.items()}
    legs = {n: chains[n] for n in ("left_leg", "right_leg")}
    arms = {n: chains[n] for n in ("left_arm", "right_arm")}
    return model, DemoTrajectories(model, legs, arms, PHASE)


@pytest.fixture(scope="module")
def packaged():
    return _trajectories(package_share_path("urdf", "humanoid.urdf").read_text())


@pytest.fixture(scope="module")
def times():
    return np.linspace(0.0, 2 * PHASE, 1201)


def test_ease_passes_through_key_frames_with_zero_velocity():
    keys = ((0.0, 0.0), (0.5, 2.0), (1.0, -1.0))
    t = np.array([0.0, 1.0, 2.0, 1.0 - 1e-6, 1.0 + 1e-6])
    values = ease(t, keys, 2.0)
    assert values[:3] == pytest.approx([0.0, 2.0, -1.0])
    assert values[3:] == pytest.approx([2.0, 2.0], abs=1e-9)


def test_still_marks_only_holds_after_the_settling_time():
    t = np.array([0.5, 8.3, 9.0, 11.0])
    assert still(t, SQUAT_KEYS, 10.0, since=0.5).tolist() == [False, False, True, True]


def test_soles_stay_parallel_to_the_floor(packaged, times):
    model, trajectories = packaged
    samples = trajectories.sample(times)
    for name in trajectories.legs:
        rotations = samples[name][0][:, :3, :3]
        straight = model.chain(*LIMBS[name]).fk(np.zeros(6))[:3, :3]
        assert np.allclose(rotations, straight)


def test_one_foot_is_lifted_at_a_time_and_both_are(packaged, times):
    _, trajectories = packaged
    lifted = [leg.lifted(times, PHASE) for leg in trajectories.legs.values()]
    assert not np.any(lifted[0] & lifted[1])
    assert lifted[0].any() and lifted[1].any()


def test_targets_move_smoothly(packaged, times):
    _, trajectories = packaged
    step = times[1] - times[0]
    for name, (poses, _) in trajectories.sample(times).items():
        velocity = np.diff(poses[:, :3, 3], axis=0) / step
        acceleration = np.linalg.norm(np.diff(velocity, axis=0), axis=1) / step
        assert acceleration.max() < 5.0, f"{name}: a jump in velocity (m/s^2 {acceleration.max():.1f})"


def test_targets_hold_still_at_the_end_of_each_phase(packaged):
    _, trajectories = packaged
    assert trajectories.settled(np.array([0.99 * PHASE, 1.99 * PHASE])).all()
    assert not trajectories.settled(np.array([0.3 * PHASE, 1.3 * PHASE])).any()


@pytest.mark.parametrize("robot", ["packaged", "other"])
def test_every_target_is_solved_by_the_geometric_solvers(robot, packaged, times):
    model, trajectories = packaged if robot == "packaged" else _trajectories(humanoid_urdf(OTHER_ROBOT))
    for name, (poses, poles) in trajectories.sample(times).items():
        solver = make_solver("geometric", model.chain(*LIMBS[name]))
        result = solver.solve_batch(poses, poles=poles)
        assert result.success.all(), f"{name}: {np.count_nonzero(~result.success)} targets not solved"


def test_arm_pole_is_below_the_shoulder_and_outside(packaged):
    model, trajectories = packaged
    for name, arm in trajectories.arms.items():
        shoulder = model.chain("base_link", model.chain(*LIMBS[name]).joints[0].child).fk(np.zeros(1))[:3, 3]
        assert arm.pole[2] < shoulder[2] - 0.5 * arm.length
        assert np.sign(arm.pole[1]) == np.sign(shoulder[1])
