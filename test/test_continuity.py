"""Seeded solves follow the seed: along smooth joint paths no branch jumps, and a flag when the
seed's branch cannot go on (``continuous``).

Paths: each joint a sinusoid within its limits moving at most 0.04 rad per step, FK gives the
targets, each solved seeded with the previous answer (what ik_node does while tracking). A jump is
a step whose largest joint change exceeds max(0.1 rad, 5 × the path's own largest change).
"""

from __future__ import annotations

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import RobotModel, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers import InvalidTargetError
from ik_solvers.solvers.geometric.vectors import SCALAR
from ik_solvers.spatial import pose_error

STEPS, MAX_STEP = 400, 0.04  # steps per path, largest joint change per step [rad]
ROBOTS = {
    "packaged": None,
    "lengths+axes": HumanoidSpec(
        leg=LegDims(thigh=0.26, shank=0.23, w=0.035, sole_z=-0.05),
        arm=ArmDims(upper_arm=0.19, forearm=0.17, hand=0.08, shoulder_axes="xyz", wrist_axes="zxz"),
    ),
    "tight limits": HumanoidSpec(limit_scale=0.7),
    "tool offset": HumanoidSpec(arm=ArmDims(tool_offset=(0.03, 0.02, -0.09), tool_rpy=(0.3, -0.2, 0.5))),
}


def model_of(robot: str) -> RobotModel:
    spec = ROBOTS[robot]
    if spec is None:
        return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    return RobotModel.from_urdf_string(humanoid_urdf(spec))


def sine_path(chain, rng: np.random.Generator, margin: float, overdrive: float = 1.0) -> np.ndarray:
    """(STEPS, n) smooth path ``margin`` [rad] inside the limits; ``overdrive`` > 1 drives the
    joints into those bounds, where they rest for a while."""
    lower, upper = chain.lower + margin, chain.upper - margin
    half, middle = 0.5 * (upper - lower), 0.5 * (upper + lower)
    amplitude = half * rng.uniform(0.3, 1.0, chain.n) * overdrive
    centre = middle + rng.uniform(-1, 1, chain.n) * np.maximum(half - amplitude, 0.0)
    cycles = np.minimum(rng.uniform(0.5, 2.0, chain.n), MAX_STEP * STEPS / (2 * np.pi * amplitude))
    t = np.arange(STEPS)[:, None] / STEPS
    path = centre + amplitude * np.sin(2 * np.pi * cycles * t + rng.uniform(0, 2 * np.pi, chain.n))
    return np.clip(path, lower, upper)


def track(solver, path: np.ndarray) -> tuple[int, list]:
    """Solve the path's targets in order, seeded with the previous answer: (jumps, results).

    Asserts on the way that no reported success is wrong or out of the limits, and for the
    geometric solvers that a step of more than 0.5 rad comes with ``continuous`` False (the seed's
    branch ran into a limit: another branch or part of the self-motion taken), one of less than
    0.1 rad never does."""
    chain, previous, jumps, results = solver.chain, path[0], 0, []
    for k, target in enumerate(chain.fk(path)):
        result = solver.solve(target, seed=previous)
        position, angle = pose_error(target, chain.fk(result.q))
        assert chain.within_limits(result.q, 1e-9)
        if result.success:
            assert position < 1e-5 and angle < 1e-4, (k, position, angle)
        own = np.abs(path[k] - path[max(k - 1, 0)]).max()
        step = np.abs(result.q - previous).max()
        jumped = step > max(0.1, 5 * own)
        assert result.continuous or step > 0.1 or not hasattr(solver, "geometry"), (k, step)
        assert not result.continuous or step <= 0.5 or not hasattr(solver, "geometry"), (k, step)
        jumps += jumped
        results.append(result)
        previous = result.q
    return jumps, results


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("overdrive", [1.0, 1.4], ids=["free", "into limits"])
def test_geometric_leg_follows_smooth_paths_without_a_jump(robot, overdrive):
    """Where the branch the leg is on runs into a limit (the other branch met it earlier), the jump
    to the other branch is flagged (asserted in :func:`track`)."""
    leg = make_solver("geometric", model_of(robot).chain("base_link", "r_sole"))
    rng = np.random.default_rng(3)
    for _ in range(3):
        jumps, results = track(leg, sine_path(leg.chain, rng, 0.02, overdrive))
        assert all(r.success for r in results)
        assert jumps <= (overdrive > 1.0)


@pytest.mark.parametrize("robot", ROBOTS)
def test_geometric_leg_follows_a_path_across_the_border_of_its_hip_branches(robot):
    """Where the two hip-plane branches meet, their solutions part like a square root and the
    seed's own branch label continues into the *other* side's solution (the mirror of the path),
    which later runs into a limit. Across the border the leg must follow the path itself."""
    leg = make_solver("geometric", model_of(robot).chain("base_link", "r_sole"))
    chain = leg.chain
    start = np.clip([-0.36, 0.04, -1.2, 1.8, 0.5, -0.42], chain.lower + 0.05, chain.upper - 0.05)
    low, high = chain.lower[4] + 0.05, chain.upper[4] - 0.05  # the ankle moves the foot across
    side = lambda ankle: leg._seed_sides(np.r_[start[:4], ankle, start[5]], SCALAR)[0]
    assert side(low) * side(high) < 0, "no border between the ankle's limits"
    for _ in range(60):  # bisection: the ankle angle on the border
        middle = 0.5 * (low + high)
        low, high = (middle, high) if side(middle) * side(low) > 0 else (low, middle)
    border = np.r_[start[:4], low, start[5]]
    direction = np.array([-0.85, 0.35, 0.15, -0.15, -0.1, 0.35]) * np.sign(side(low + 0.1) - side(low))
    path = np.clip(border + np.linspace(-0.15, 0.15, 31)[:, None] * direction, chain.lower, chain.upper)
    previous = path[0]
    for q, target in zip(path, chain.fk(path)):
        result = leg.solve(target, seed=previous)
        assert result.success and np.abs(result.q - q).max() < 1e-6, (q, result.q)
        previous = result.q


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("overdrive", [1.0, 1.4], ids=["free", "into limits"])
def test_geometric_arm_follows_smooth_paths_with_rare_jumps(robot, overdrive):
    """Every solve succeeds. The arm picks its own swivel (nearest the seed), not the path's: where
    the seed's feasible swivel interval vanishes under a limit the arm must jump (flagged when
    beyond 0.5 rad), and next to a wrist or shoulder singularity the coupled joints may have to
    turn fast. On these paths that is at most 2 steps in 100 (see docs/continuity.md)."""
    arm = make_solver("geometric", model_of(robot).chain("base_link", "l_hand"))
    rng = np.random.default_rng(4)
    total = 0
    for _ in range(3):
        jumps, results = track(arm, sine_path(arm.chain, rng, 0.02, overdrive))
        assert all(r.success for r in results)
        total += jumps
    assert total <= 0.02 * 3 * STEPS


@pytest.mark.parametrize("joint", [1, 5], ids=["shoulder", "wrist"])
def test_seed_at_a_singularity_keeps_the_split_of_the_coupled_joints(joint):
    """The middle joint of a triple at its gimbal alignment: the first and third joints may trade
    any amount; a nearby target is solved next to the seed, not with another split."""
    arm = make_solver("geometric", model_of("lengths+axes").chain("base_link", "l_hand"))
    chain = arm.chain
    seed = np.clip(np.array([0.4, -0.3, 0.5, -1.2, 0.6, 0.3, -0.5]), chain.lower, chain.upper)
    alignment = {1: -np.pi / 2, 5: 0.0}[joint]  # xyz shoulder: y at -π/2; zxz wrist: x at 0
    seed[joint] = alignment
    for offset in (0.0, 1e-6, 0.01, -0.02):
        moved = seed + offset
        result = arm.solve(chain.fk(moved), seed=seed)
        assert result.success and result.continuous
        assert np.abs(result.q - seed).max() <= max(0.05, 3 * abs(offset)), (offset, result.q - seed)


def test_a_seed_whose_branch_cannot_reach_the_target_is_flagged_with_the_nearest_other_branch():
    arm = make_solver("geometric", model_of("tight limits").chain("base_link", "l_hand"))
    chain, rng = arm.chain, np.random.default_rng(6)
    targets = chain.fk(chain.random_configurations(300, rng))
    seeds = chain.random_configurations(300, rng)
    batch = arm.solve_batch(targets, seeds=seeds)
    flagged = np.flatnonzero(~batch.continuous)
    assert flagged.size > 0  # far seeds: some branches cannot reach their target
    for i in flagged[:20]:
        single = arm.solve(targets[i], seed=seeds[i])
        assert not single.continuous and "no solution continues the seed's branch" in single.message
        assert np.abs(single.q - batch.q[i]).max() < 1e-12
    assert np.all(batch.continuous == [arm.solve(t, seed=s).continuous for t, s in zip(targets, seeds)])


def test_unseeded_solves_are_continuous():
    arm = make_solver("geometric", model_of("packaged").chain("base_link", "l_hand"))
    targets = arm.chain.fk(arm.chain.random_configurations(50, np.random.default_rng(7)))
    assert arm.solve_batch(targets).continuous.all() and arm.solve(targets[0]).continuous


@pytest.mark.parametrize("tip", ["r_sole", "l_hand"])
def test_jacobian_follows_smooth_paths_clear_of_the_limits(tip):
    solver = make_solver("jacobian", model_of("packaged").chain("base_link", tip), timeout=None)
    rng = np.random.default_rng(8)
    total = 0
    for _ in range(2):
        jumps, results = track(solver, sine_path(solver.chain, rng, 0.3))
        assert all(r.success for r in results)
        total += jumps
    assert total <= 0.01 * 2 * STEPS


def test_jacobian_flags_an_answer_far_from_the_seed_that_its_own_attempt_did_not_find():
    chain = model_of("packaged").chain("base_link", "l_hand")
    solver = make_solver("jacobian", chain, timeout=None, jump_limit=0.5)
    rng = np.random.default_rng(9)
    targets = chain.fk(chain.random_configurations(200, rng))
    seeds = chain.random_configurations(200, rng)
    batch = solver.solve_batch(targets, seeds=seeds)
    far = np.abs(batch.q - seeds).max(axis=1) > 0.5
    assert np.all(batch.continuous[~far])  # within the jump limit: always continuous
    assert not batch.continuous.all()  # random seeds: some answers came from restarts, far away
    for i in np.flatnonzero(~batch.continuous)[:5]:
        assert "no solution continues the seed's branch" in batch.messages[i]


def test_at_the_alignment_the_split_keeps_the_third_joint_within_its_limit():
    """Euler wrist (zxz) exactly aligned with its third joint at a limit: the seed's first joint
    would push the third past it, so the first joint takes the excess (no failure, no jump)."""
    arm = make_solver("geometric", model_of("lengths+axes").chain("base_link", "l_hand"))
    chain = arm.chain
    true = np.array([0.3, -0.4, 0.2, -1.0, 0.9, 0.0, chain.upper[6]])
    seed = true - np.array([0.0, 0.0, 0.0, 0.0, 0.05, 0.0, 0.0])
    result = arm.solve(chain.fk(true), seed=seed)
    assert result.success and result.continuous
    assert np.abs(result.q - true).max() < 1e-9


@pytest.mark.parametrize("robot", list(ROBOTS))
def test_a_seeded_batch_gives_what_single_solves_give(robot):
    """solve_batch settles most seeded rows in columns (the seed's swivel, the interval's nearest
    point, the swivels matching the seed's split) and the rest one by one: row for row the answer
    and flag of ``solve``. Seeds near the answers, as while tracking, and a few far ones."""
    arm = make_solver("geometric", model_of(robot).chain("base_link", "l_hand"))
    chain, rng = arm.chain, np.random.default_rng(8)
    answers = chain.random_configurations(400, rng)
    seeds = answers + rng.normal(0.0, 0.02, answers.shape)
    seeds[::40] = chain.random_configurations(10, rng)
    batch = arm.solve_batch(chain.fk(answers), seeds=seeds)
    singles = [arm.solve(target, seed=seed) for target, seed in zip(chain.fk(answers), seeds)]
    np.testing.assert_allclose(batch.q, [single.q for single in singles], rtol=0.0, atol=1e-10)
    assert list(batch.continuous) == [single.continuous for single in singles]
    assert list(batch.success) == [single.success for single in singles]


def resting_at_zero(chain, path: np.ndarray) -> np.ndarray:
    """The path with every joint whose range holds 0 kept at exactly 0 on one side of it: the arm
    rests at its shoulder or wrist alignment or at the stretch for a while (the bench's third kind)."""
    zero = (chain.lower < 0.0) & (chain.upper > 0.0)
    rested = path.copy()
    rested[:, zero] = np.maximum(path[:, zero], 0.0)
    return rested


def path_jumps(path: np.ndarray, q: np.ndarray) -> int:
    """Steps of q (from the path's start) larger than max(0.1 rad, 5 × the path's own step)."""
    change = np.abs(np.diff(np.vstack([path[:1], q]), axis=0)).max(axis=1)
    own = np.abs(np.diff(np.vstack([path[:1], path]), axis=0)).max(axis=1)
    return int((change > np.maximum(0.1, 5.0 * own)).sum())


@pytest.mark.parametrize("robot", list(ROBOTS))
@pytest.mark.parametrize("kind", ["free", "into limits", "resting at 0"])
def test_a_whole_path_solve_follows_smooth_paths_without_a_jump(robot, kind):
    """solve_path sees every target first and picks the swivel over the whole path: exact, within
    the limits, and no step larger than the path's own (seeded one by one, the arm jumps on some of
    these paths, see the next test)."""
    arm = make_solver("geometric", model_of(robot).chain("base_link", "l_hand"))
    chain = arm.chain
    path = sine_path(chain, np.random.default_rng(11), 0.02, 1.4 if kind == "into limits" else 1.0)
    if kind == "resting at 0":
        path = resting_at_zero(chain, path)
    targets = chain.fk(path)
    result = arm.solve_path(targets, seed=path[0])
    position, angle = pose_error(targets, chain.fk(result.q))
    assert result.success.all() and result.continuous.all(), [m for m in result.messages if m]
    assert position.max() < 1e-9 and angle.max() < 1e-9 and chain.within_limits(result.q).all()
    assert path_jumps(path, result.q) == 0


def test_a_whole_path_solve_avoids_the_jumps_of_seeded_solves():
    """Paths on which the arm, seeded target by target, must jump (its swivel interval vanishes
    under a limit it could not foresee): the whole-path solve has none."""
    arm = make_solver("geometric", model_of("packaged").chain("base_link", "l_hand"))
    rng, streamed, planned = np.random.default_rng(12), 0, 0
    for _ in range(3):
        path = sine_path(arm.chain, rng, 0.02, 1.4)
        streamed += track(arm, path)[0]
        result = arm.solve_path(arm.chain.fk(path), seed=path[0])
        assert result.success.all()
        planned += path_jumps(path, result.q)
    assert streamed > 0 and planned == 0, (streamed, planned)


def test_a_whole_path_solve_fails_only_the_rows_out_of_reach_and_says_why():
    arm = make_solver("geometric", model_of("packaged").chain("base_link", "l_hand"))
    chain = arm.chain
    path = sine_path(chain, np.random.default_rng(13), 0.02)[:60]
    targets = chain.fk(path)
    targets[30, :3, 3] += [2.0, 0.0, 0.0]  # two metres away: out of reach
    targets[40, 0, 0] = np.nan  # a malformed row
    result = arm.solve_path(targets)  # no seed: the path starts wherever suits it
    assert not result.success[30] and "reach" in result.messages[30]
    assert not result.success[40] and "not a finite pose" in result.messages[40]
    np.testing.assert_array_equal(result.q[40], result.q[39])  # a malformed row holds the previous one
    assert result.continuous[(np.arange(60) != 30) & (np.arange(60) != 31)].all()
    assert result.success[(np.arange(60) != 30) & (np.arange(60) != 40)].all()
    assert chain.within_limits(result.q).all()
    with pytest.raises(InvalidTargetError, match=r"\(N, 4, 4\)"):
        arm.solve_path(targets[0])
    with pytest.raises(InvalidTargetError, match="seed"):
        arm.solve_path(targets, seed=np.zeros(3))
