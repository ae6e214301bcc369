"""The closed-form leg solver on the packaged humanoid and on a robot of other sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import InvalidTargetError, RobotModel, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.geometric.leg import LegSolver
from ik_solvers.solvers.geometric.vectors import SCALAR

OTHER_ROBOT = HumanoidSpec(
    leg=LegDims(root_z=-0.05, w=0.035, upper_z=-0.02, thigh=0.24, shank=0.19, foot_z=-0.025, sole_z=-0.03),
    limit_scale=0.8,
    name="other",
)
ROBOTS = {
    "packaged": lambda: RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")),
    "other": lambda: RobotModel.from_urdf_string(humanoid_urdf(OTHER_ROBOT)),
}
CHAINS = [(robot, tip) for robot in ROBOTS for tip in ("l_sole", "r_sole")]


@pytest.fixture(scope="module", params=CHAINS, ids=[f"{r}-{t}" for r, t in CHAINS])
def leg(request):
    robot, tip = request.param
    return ROBOTS[robot]().chain("base_link", tip)


@pytest.fixture(scope="module")
def left():
    return ROBOTS["packaged"]().chain("base_link", "l_sole")


def assert_meets(chain, q, targets):
    fk = chain.fk(q)
    assert np.abs(fk[..., :3, 3] - targets[..., :3, 3]).max() < 1e-9
    assert np.abs(fk[..., :3, :3] - targets[..., :3, :3]).max() < 1e-9
    assert np.all(chain.within_limits(q))


def test_geometric_kind_builds_the_leg_solver(leg):
    assert isinstance(make_solver("geometric", leg), LegSolver)


def test_ten_thousand_random_configurations_are_solved_exactly(leg):
    q = leg.random_configurations(10_000, np.random.default_rng(3))
    targets = leg.fk(q)
    result = LegSolver(leg).solve_batch(targets)
    assert result.success.all()
    assert result.position_error.max() < 1e-9 and result.orientation_error.max() < 1e-9
    assert_meets(leg, result.q, targets)


def test_single_solve_agrees_with_the_batch(leg):
    solver = LegSolver(leg)
    targets = leg.fk(leg.random_configurations(20, np.random.default_rng(4)))
    batch = solver.solve_batch(targets)
    for i, target in enumerate(targets):
        single = solver.solve(target)
        assert single.success and single.iterations == 0
        np.testing.assert_allclose(single.q, batch.q[i], atol=1e-12)


def level_sole_configurations(chain, count, rng):
    """Configurations whose sole is level: foot roll cancels leg roll, ankle the pitch sum."""
    q = chain.random_configurations(count, rng)
    roll_low, roll_high = max(chain.lower[1], -chain.upper[5]), min(chain.upper[1], -chain.lower[5])
    q[:, 1] = rng.uniform(roll_low, roll_high, count)
    q[:, 5] = -q[:, 1]
    q[:, 4] = np.clip(-(q[:, 2] + q[:, 3]), chain.lower[4], chain.upper[4])
    return q


def heel_toe_configurations(chain, count, rng):
    """Configurations whose sole is pitched about its own y axis only (heel or toe contact).

    Rx(roll) Ry(pitch) Rx(foot) is a pure pitch only with roll = foot = 0, so the foot stands at
    the lateral offset W; yaw and the three pitch joints are free.
    """
    q = chain.random_configurations(count, rng)
    q[:, 1] = q[:, 5] = 0.0
    return q


def test_level_sole_follows_seed_001_relations(leg):
    q = level_sole_configurations(leg, 500, np.random.default_rng(5))
    targets = leg.fk(q)
    level = np.abs(targets[:, 2, 2] - 1.0) < 1e-12
    result = LegSolver(leg).solve_batch(targets[level])
    assert result.success.all() and level.sum() > 100
    yaw = np.arctan2(targets[level, 1, 0], targets[level, 0, 0])
    np.testing.assert_allclose(result.q[:, 0], yaw, atol=1e-9)  # hip yaw = foot yaw - body yaw
    np.testing.assert_allclose(result.q[:, 5], -result.q[:, 1], atol=1e-9)  # LegRoot = Foot (URDF signs)
    np.testing.assert_allclose(result.q[:, 4], -(result.q[:, 2] + result.q[:, 3]), atol=1e-9)


def test_leg_root_roll_is_the_seed_001_quadratic_root(left):
    """tan θ = (ab - W sqrt(a² + b² - W²)) / (b² - W²) in the hip-yaw frame, a, b from the seed."""
    solver = LegSolver(left)
    q = level_sole_configurations(left, 200, np.random.default_rng(6))
    for target in left.fk(q):
        if abs(target[2, 2] - 1.0) > 1e-12:
            continue
        result = solver.solve(target)
        yaw = result.q[0]
        to_hip = np.array(
            [[math.cos(yaw), math.sin(yaw), 0.0], [-math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1]]
        )
        hip = to_hip @ np.asarray(solver._hip)
        foot = to_hip @ (target[:3, :3] @ np.asarray(solver._p6_tip) + target[:3, 3])
        a, b, w = foot[1] - hip[1], hip[2] - foot[2], solver.lateral
        tan_roll = (a * b - w * math.sqrt(a * a + b * b - w * w)) / (b * b - w * w)
        assert math.atan(tan_roll) == pytest.approx(result.q[1], abs=1e-9)


def test_heel_and_toe_contact_is_solved_in_closed_form(leg):
    q = heel_toe_configurations(leg, 2000, np.random.default_rng(7))
    targets = leg.fk(q)
    assert np.abs(targets[:, 2, 1]).max() < 1e-12  # the sole is pitched about its own y axis only
    result = LegSolver(leg).solve_batch(targets)
    assert result.success.all() and not result.iterations.any()
    assert_meets(leg, result.q, targets)


def test_target_beyond_the_stretched_leg_gives_the_stretched_leg(left):
    target = left.fk(np.zeros(6))
    target[2, 3] -= 0.05
    result = LegSolver(left).solve(target)
    assert not result.success and "out of reach" in result.message and "farther" in result.message
    assert np.all(np.isfinite(result.q)) and left.within_limits(result.q)
    assert result.q[3] == pytest.approx(0.0, abs=1e-12)
    assert result.position_error == pytest.approx(0.05, abs=1e-9)


def test_target_too_close_to_the_hip_fails_with_the_knee_at_its_limit(left):
    target = left.fk(np.zeros(6))
    target[2, 3] += 0.35
    result = LegSolver(left).solve(target)
    assert not result.success and "closer" in result.message
    assert result.q[3] == pytest.approx(left.upper[3])


def test_stretched_leg_exactly_at_reach_gives_exact_finite_angles(leg):
    q = np.clip(np.zeros(6), leg.lower, leg.upper)
    result = LegSolver(leg).solve(leg.fk(q))
    assert result.success and np.all(np.isfinite(result.q))
    np.testing.assert_allclose(result.q, q, atol=1e-9)


def test_foot_roll_beyond_its_limit_fails_within_limits(left):
    q = np.array([0.0, 0.0, -0.4, 0.8, -0.4, 0.0])
    target = left.fk(q)
    roll = 1.2  # sole rolled beyond what leg roll and foot roll can give together
    rotation = np.array(
        [[1, 0, 0], [0, math.cos(roll), -math.sin(roll)], [0, math.sin(roll), math.cos(roll)]]
    )
    target[:3, :3] = rotation
    result = LegSolver(left).solve(target)
    assert not result.success and "joint limits" in result.message
    assert left.within_limits(result.q) and np.all(np.isfinite(result.q))


def test_foot_roll_axis_inside_the_lateral_offset_fails(left):
    target = left.fk(np.zeros(6))
    solver = LegSolver(left)
    foot_point = np.asarray(solver._hip) + np.array([0.0, 0.3 * solver.lateral, 0.0])
    target[:3, 3] = foot_point - np.asarray(solver._p6_tip)  # sole level: the foot roll axis is along x
    result = solver.solve(target)
    assert not result.success and "lateral offset" in result.message
    assert np.all(np.isfinite(result.q)) and left.within_limits(result.q)


def test_nan_target_is_refused_by_solve(left):
    target = left.fk(np.zeros(6))
    target[0, 3] = math.nan
    with pytest.raises(InvalidTargetError, match="finite"):
        LegSolver(left).solve(target)


@pytest.mark.parametrize(
    "target,seed,reason",
    [
        ("bottom row", None, r"bottom row \[0.0, 0.0, 0.5, 1.0\]; expected \[0, 0, 0, 1\]"),
        ("turned", np.zeros(6), "orthonormal rotation"),
        ("fk", np.full(6, math.nan), r"expected finite \(6,\) for the joints \['l_hip_joint'"),
        ("fk", np.zeros(7), r"expected finite \(6,\) for the joints"),
        ("fk", [0.0, "a", 0.0, 0.0, 0.0, 0.0], "numbers"),
    ],
)
def test_single_solve_checks_the_target_and_seed_in_its_one_compiled_call(left, target, seed, reason):
    """The leg's single solve checks its input and solves in one compiled call
    (``kernels.leg.check_solve``): a malformed target or seed is still refused, saying what was
    wrong and what is accepted, whether the check or the Python layer finds it."""
    pose = left.fk(np.zeros(6))
    if target == "bottom row":
        pose[3, 2] = 0.5
    elif target == "turned":
        pose[:3, :3] *= 1.01
    with pytest.raises(InvalidTargetError, match=reason):
        LegSolver(left).solve(pose, seed=seed)


def test_single_solve_clips_its_seed_as_the_batch_does(left):
    """A seed beyond the limits, or not a float array, gives the answer of that seed clipped (the
    batch's row, bit for bit; the batch's message of a success is "" where a single solve's says
    how it was solved)."""
    solver = LegSolver(left)
    targets = left.fk(left.random_configurations(20, np.random.default_rng(4)))
    seeds = np.where(np.arange(6) % 2, left.upper + 0.5, left.lower - 0.5) * np.ones((20, 1))
    batch = solver.solve_batch(targets, seeds=np.clip(seeds, left.lower, left.upper))
    for i, target in enumerate(targets):
        for seed in (seeds[i], seeds[i].tolist()):
            result = solver.solve(target, seed=seed)
            np.testing.assert_array_equal(result.q, batch.q[i])
            assert (result.success, result.continuous) == (batch.success[i], batch.continuous[i])


def test_nan_row_fails_alone_in_a_batch(left):
    targets = left.fk(left.random_configurations(5, np.random.default_rng(8)))
    targets[2, 1, 1] = math.nan
    targets[3, :3, :3] *= 2.0  # not a rotation
    result = LegSolver(left).solve_batch(targets)
    assert result.success.tolist() == [True, True, False, False, True]
    assert "finite pose" in result.messages[2] and "orthonormal" in result.messages[3]
    assert np.all(np.isfinite(result.q)) and np.all(left.within_limits(result.q))
    assert np.isnan(result.position_error[2:4]).all()


def test_smooth_path_gives_smooth_joint_motion(leg):
    rng = np.random.default_rng(9)
    start, end = leg.random_configurations(2, rng)
    start[3], end[3] = 0.6 * leg.upper[3], 0.4 * leg.upper[3]  # knee well bent: away from stretch
    path = leg.fk(start + np.linspace(0.0, 1.0, 400)[:, None] * (end - start))
    steps = np.linalg.norm(np.diff(path[:, :3, 3], axis=0), axis=1)
    assert steps.max() <= 0.005
    solver, q = LegSolver(leg), start
    for target in path[1:]:
        result = solver.solve(target, seed=q)
        assert result.success
        assert np.abs(result.q - q).max() <= 0.05
        q = result.q


def test_right_leg_is_the_mirror_of_the_left():
    model = ROBOTS["other"]()
    left_chain, right_chain = model.chain("base_link", "l_sole"), model.chain("base_link", "r_sole")
    q = left_chain.random_configurations(50, np.random.default_rng(10))
    mirror = np.array([-1.0, -1.0, 1.0, 1.0, 1.0, -1.0])  # yaw and roll flip sign in the mirror
    right_q = q * mirror
    inside = right_chain.within_limits(right_q)
    result = LegSolver(right_chain).solve_batch(right_chain.fk(right_q[inside]))
    np.testing.assert_allclose(result.q, right_q[inside], atol=1e-9)


def test_seeds_on_either_leg_plane_are_reproduced_single_and_batched(leg):
    """The seed's own branch goes first: FK(q) seeded with q gives q back, whichever plane q is on."""
    solver = LegSolver(leg)
    q = leg.random_configurations(2_000, np.random.default_rng(11))
    targets = leg.fk(q)
    batch = solver.solve_batch(targets, seeds=q)
    assert batch.success.all() and np.abs(batch.q - q).max() < 1e-9
    unseeded = solver.solve_batch(targets)
    assert np.sum(np.abs(unseeded.q - q).max(axis=1) > 1e-6) >= 5  # some have another solution first
    for i in range(0, 2_000, 20):
        single = solver.solve(targets[i], seed=q[i])
        np.testing.assert_allclose(single.q, batch.q[i], atol=1e-12)


def test_seed_far_from_the_target_still_gets_the_nearest_successful_branch(left):
    solver = LegSolver(left)
    q = left.random_configurations(200, np.random.default_rng(12))
    seeds = left.random_configurations(200, np.random.default_rng(13))
    targets = left.fk(q)
    batch = solver.solve_batch(targets, seeds=seeds)
    for i in range(200):
        candidates = [
            solver._branch_rows(targets[i].ravel().tolist(), solver._rest_references, b, SCALAR)
            for b in solver.branches
        ]
        distances = [np.sum((np.array(c[0]) - seeds[i]) ** 2) for c in candidates if c[1] == 0]
        assert np.sum((batch.q[i] - seeds[i]) ** 2) <= min(distances) + 1e-12
