"""The 7-DoF arm solver: exactness, swivel control, joint limits, reach, bad input, continuity."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, humanoid_urdf

from ik_solvers import InvalidTargetError, RobotModel, UnsupportedChainError, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.geometric.arm7.solver import Arm7Solver
from ik_solvers.solvers.geometric.vectors import COLUMNS
from ik_solvers.spatial import pose_error

OTHER_ARM = ArmDims(
    upper_arm=0.2,
    forearm=0.17,
    hand=0.05,
    shoulder_axes="xyz",
    wrist_axes="zxz",
    upper_arm_direction=(0.3, 0.0, -1.0),
    forearm_direction=(1.0, 0.0, -0.4),
)
ROBOTS = ("packaged", "other")
TIPS = ("l_wrist", "r_wrist", "l_hand")


@lru_cache
def model(robot: str) -> RobotModel:
    if robot == "packaged":
        return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    return RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec(arm=OTHER_ARM, limit_scale=0.7)))


@lru_cache
def solver(robot: str, tip: str) -> Arm7Solver:
    return Arm7Solver(model(robot).chain("base_link", tip))


def elbow_points(robot: str, tip: str, q: np.ndarray) -> np.ndarray:
    """(N, 3) elbow joint origins of configurations q (N, 7)."""
    return model(robot).chain("base_link", f"{tip[0]}_elbow_link").fk(q[:, :4])[:, :3, 3]


def assert_exact(chain, targets, q) -> None:
    position, orientation = pose_error(targets, chain.fk(q))
    assert position.max() < 1e-9 and orientation.max() < 1e-9
    assert chain.within_limits(q).all()


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("tip", TIPS)
def test_seeded_batch_reproduces_random_poses_exactly(robot, tip):
    arm = solver(robot, tip)
    q_true = arm.chain.random_configurations(10_000, np.random.default_rng(1))
    targets = arm.chain.fk(q_true)
    result = arm.solve_batch(targets, seeds=q_true + 0.01)
    assert result.success.all()
    assert_exact(arm.chain, targets, result.q)


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("tip", TIPS)
def test_pole_at_the_true_elbow_reproduces_random_poses_and_elbows(robot, tip):
    arm = solver(robot, tip)
    q_true = arm.chain.random_configurations(10_000, np.random.default_rng(2))
    targets = arm.chain.fk(q_true)
    elbows = elbow_points(robot, tip, q_true)
    result = arm.solve_batch(targets, poles=elbows)
    assert result.success.all()
    assert_exact(arm.chain, targets, result.q)
    assert np.abs(elbow_points(robot, tip, result.q) - elbows).max() < 1e-9


def test_unseeded_batch_without_pole_meets_every_reachable_pose():
    arm = solver("other", "r_hand")
    q_true = arm.chain.random_configurations(5_000, np.random.default_rng(3))
    targets = arm.chain.fk(q_true)
    result = arm.solve_batch(targets)
    assert result.success.all()
    assert_exact(arm.chain, targets, result.q)


def test_single_solve_matches_batch():
    arm = solver("packaged", "l_hand")
    q_true = arm.chain.random_configurations(50, np.random.default_rng(4))
    targets = arm.chain.fk(q_true)
    batch = arm.solve_batch(targets, seeds=q_true, poles=elbow_points("packaged", "l_hand", q_true))
    for i in range(50):
        single = arm.solve(targets[i], seed=q_true[i], pole=elbow_points("packaged", "l_hand", q_true)[i])
        assert single.success and np.abs(single.q - batch.q[i]).max() < 1e-12


def test_geometric_factory_builds_the_arm_solver():
    chain = model("other").chain("base_link", "l_wrist")
    assert isinstance(make_solver("geometric", chain), Arm7Solver)


def test_chain_that_is_no_arm_is_refused_with_reason():
    with pytest.raises(UnsupportedChainError, match="7"):
        Arm7Solver(model("packaged").chain("base_link", "l_sole"))


def rotations(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """(G, 3, 3) rotations about the unit ``axis`` by ``angles`` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    angles = np.asarray(angles, dtype=float)[:, None, None]
    return np.eye(3) + np.sin(angles) * k + (1.0 - np.cos(angles)) * (k @ k)


def swivel_axis(arm: Arm7Solver, q: np.ndarray) -> np.ndarray:
    """Unit shoulder→wrist-centre direction of configuration q."""
    tip = arm.chain.fk(q)
    axis = tip[:3, 3] - tip[:3, :3] @ np.array(arm.geometry.tool) - np.array(arm.geometry.shoulder_centre)
    return axis / np.linalg.norm(axis)


def feasible_swivels(arm: Arm7Solver, q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Brute force, independent of the solver's interval search: True per offset δ where the arm of q
    turned by δ about its shoulder→wrist line has a shoulder and a wrist branch within limits."""
    chain, geometry = arm.chain, arm.geometry
    axes = chain.jacobian(np.zeros(7))[3:].T  # world axes at q = 0 (product of exponentials)
    turn = [rotations(axes[i], [q[i]])[0] for i in range(7)]
    shoulder = rotations(swivel_axis(arm, q), offsets) @ (turn[0] @ turn[1] @ turn[2])
    wrist_goal = turn[4] @ turn[5] @ turn[6]  # Rs R4 Rw stays fixed: Rw = (Rs R4)ᵀ (Rs0 R4 Rw0)
    wrist = np.swapaxes(shoulder @ turn[3], 1, 2) @ (turn[0] @ turn[1] @ turn[2] @ turn[3] @ wrist_goal)
    feasible = np.ones(len(offsets), dtype=bool)
    for triple, matrices in ((geometry.shoulder, shoulder), (geometry.wrist, wrist)):
        columns = tuple(tuple(matrices[:, i, j] for i in range(3)) for j in range(3))
        entries = triple.entries(columns, COLUMNS)
        seed = (0.0, 0.0, 0.0)
        outside = [triple.violation(angles, COLUMNS) for angles in triple.branches(entries, seed, COLUMNS)]
        feasible &= np.minimum(*outside) <= 1e-10
    return feasible


def signed_angle(first: np.ndarray, second: np.ndarray, axis: np.ndarray) -> float:
    """Angle [rad] about ``axis`` from ``first`` to ``second`` (both projected on the normal plane)."""
    first, second = (v - axis * (v @ axis) for v in (first, second))
    return math.atan2(axis @ np.cross(first, second), first @ second)


def test_infeasible_pole_moves_the_swivel_to_the_nearest_feasible_one():
    arm = solver("other", "l_wrist")
    rng = np.random.default_rng(5)
    offsets = np.linspace(-math.pi, math.pi, 20_001)
    step = offsets[1] - offsets[0]
    moved = 0
    for q in arm.chain.random_configurations(40, rng):
        axis = swivel_axis(arm, q)
        feasible = feasible_swivels(arm, q, offsets)
        requested = rng.uniform(-math.pi, math.pi)
        centre = np.array(arm.geometry.shoulder_centre)
        elbow = elbow_points("other", "l_wrist", q[None])[0]
        pole = centre + rotations(axis, [requested])[0] @ (elbow - centre)
        result = arm.solve(arm.chain.fk(q), pole=pole)
        assert result.success and arm.chain.within_limits(result.q)
        achieved = signed_angle(
            elbow - centre, elbow_points("other", "l_wrist", result.q[None])[0] - centre, axis
        )
        gap = np.abs(np.angle(np.exp(1j * (offsets - requested))))
        nearest = gap[feasible].min()
        achieved_gap = abs(np.angle(np.exp(1j * (achieved - requested))))
        assert nearest - step <= achieved_gap <= nearest + step
        moved += nearest > step
    assert moved >= 5


def test_no_feasible_swivel_fails_with_reason_and_q_within_limits():
    arm = solver("other", "l_wrist")
    rng = np.random.default_rng(6)
    q_wide = rng.uniform(-math.pi, math.pi, size=(300, 7))
    q_wide[:, 3] = rng.uniform(arm.chain.lower[3], arm.chain.upper[3], size=300)
    offsets = np.linspace(-math.pi, math.pi, 3_601)
    hopeless = [q for q in q_wide if not feasible_swivels(arm, q, offsets).any()][:10]
    assert hopeless
    result = arm.solve_batch(arm.chain.fk(np.array(hopeless)))
    assert not result.success.any()
    assert all("no swivel angle" in message for message in result.messages)
    assert arm.chain.within_limits(result.q).all() and np.isfinite(result.q).all()


def test_seed_keeps_its_swivel_and_reproduces_itself():
    arm = solver("packaged", "r_wrist")
    q_true = arm.chain.random_configurations(1_000, np.random.default_rng(7))
    result = arm.solve_batch(arm.chain.fk(q_true), seeds=q_true)
    assert np.abs(result.q - q_true).max() < 1e-9


def test_default_swivel_points_the_elbow_along_the_configured_direction():
    chain = model("packaged").chain("base_link", "l_wrist")
    q_true = chain.random_configurations(20, np.random.default_rng(8))
    elbows = elbow_points("packaged", "l_wrist", q_true)
    centre = None
    for q, elbow in zip(q_true, elbows):
        arm = Arm7Solver(
            chain, elbow_direction=elbow - (centre := np.array(Arm7Solver(chain).geometry.shoulder_centre))
        )
        result = arm.solve(chain.fk(q))
        assert (
            result.success
            and np.abs(elbow_points("packaged", "l_wrist", result.q[None])[0] - elbow).max() < 1e-9
        )
    turned = Arm7Solver(chain, elbow_direction=elbows[0] - centre, swivel=0.2).solve(chain.fk(q_true[0]))
    axis = swivel_axis(Arm7Solver(chain), q_true[0])
    achieved = signed_angle(
        elbows[0] - centre, elbow_points("packaged", "l_wrist", turned.q[None])[0] - centre, axis
    )
    assert turned.success and abs(achieved - 0.2) < 1e-9


def test_target_beyond_reach_gives_nearest_pose_and_failure():
    arm = solver("packaged", "l_hand")
    target = arm.chain.fk(np.array([0.0, 0.3, 0.0, -0.5, 0.0, 0.0, 0.0]))
    target[:3, 3] += np.array([0.5, 0.2, -0.1])
    result = arm.solve(target)
    assert not result.success and "too far" in result.message
    assert np.isfinite(result.q).all() and arm.chain.within_limits(result.q)
    reach = math.sqrt(sum(arm.geometry.distance_terms[:1]) + arm.geometry.elbow_range[0])
    wrist = target[:3, 3] - target[:3, :3] @ np.array(arm.geometry.tool)
    expected = np.linalg.norm(wrist - arm.geometry.shoulder_centre) - reach
    assert abs(result.position_error - expected) < 1e-9 and result.orientation_error < 1e-9


@pytest.mark.parametrize(("distance", "words"), [(0.004, "too close"), (0.05, "elbow angle outside")])
def test_target_too_close_fails_with_reason(distance, words):
    arm = solver("packaged", "l_wrist")
    target = np.eye(4)
    target[:3, 3] = np.array(arm.geometry.shoulder_centre) + np.array([distance, 0.0, 0.0])
    result = arm.solve(target)
    assert not result.success and words in result.message
    assert np.isfinite(result.q).all() and arm.chain.within_limits(result.q)


@pytest.mark.parametrize("robot", ROBOTS)
def test_stretched_arm_exactly_at_reach_gives_exact_finite_angles(robot):
    arm = solver(robot, "l_hand")
    q = arm.chain.random_configurations(200, np.random.default_rng(9))
    q[:, 3] = np.clip(-arm.geometry.elbow_range[1], arm.chain.lower[3], arm.chain.upper[3])
    targets = arm.chain.fk(q)
    for result in (arm.solve_batch(targets), arm.solve_batch(targets, seeds=q)):
        assert np.isfinite(result.q).all() and result.success.all()
        assert_exact(arm.chain, targets, result.q)
    single = arm.solve(targets[0])
    assert single.success and np.isfinite(single.q).all()


def test_nan_target_raises_in_solve_and_fails_its_row_in_batch():
    arm = solver("packaged", "l_wrist")
    targets = arm.chain.fk(arm.chain.random_configurations(3, np.random.default_rng(10)))
    targets[1, 0, 3] = np.nan
    with pytest.raises(InvalidTargetError):
        arm.solve(targets[1])
    result = arm.solve_batch(targets)
    assert result.success.tolist() == [True, False, True]
    assert "finite" in result.messages[1] and np.isfinite(result.q).all()


def test_bad_pole_is_refused():
    arm = solver("packaged", "l_wrist")
    with pytest.raises(InvalidTargetError, match="pole"):
        arm.solve(arm.chain.fk(np.zeros(7)), pole=np.array([np.nan, 0.0, 0.0]))


@pytest.mark.parametrize(("robot", "joint"), [("packaged", 1), ("other", 5)])
def test_gimbal_alignment_keeps_the_seed_split(robot, joint):
    """Axes 1 and 3 of a group aligned: only θ1 ± θ3 is fixed; the seed's θ1 is kept."""
    arm = solver(robot, "l_wrist")
    chain = arm.chain
    q = chain.random_configurations(50, np.random.default_rng(11))
    first, triple = (joint - 1, arm.geometry.shoulder if joint == 1 else arm.geometry.wrist)
    aligned = triple.alpha + math.pi * np.arange(-2, 3)
    q[:, joint] = aligned[(aligned >= chain.lower[joint]) & (aligned <= chain.upper[joint])][0]
    sign = math.cos(q[0, joint] - triple.alpha)  # the group turns by θ1 + sign θ3 about axis 1
    seeds = q.copy()
    seeds[:, first] += 0.05
    seeds[:, first + 2] -= sign * 0.05  # the same arm pose, split differently
    inside = chain.within_limits(seeds)
    targets = chain.fk(q[inside])
    result = arm.solve_batch(targets, seeds=seeds[inside])
    assert np.isfinite(result.q).all() and result.success.all()
    assert_exact(chain, targets, result.q)
    assert np.abs(result.q - seeds[inside]).max() < 1e-9


def smooth_path(arm: Arm7Solver, rng: np.random.Generator, steps: int) -> np.ndarray:
    """(steps, 7) sinusoidal joint path within limits that stays 0.3 rad from the arm's singularities
    (stretched elbow, shoulder or wrist axes 1 and 3 aligned)."""
    chain, geometry = arm.chain, arm.geometry
    times = np.linspace(0.0, 1.0, steps)[:, None]
    while True:
        start = rng.uniform(chain.lower + 0.3, chain.upper - 0.3)
        path = start + 0.3 * np.sin(2.0 * np.pi * times * rng.uniform(0.5, 1.5, 7))
        clear = [
            np.abs(np.sin(path[:, 1] - geometry.shoulder.alpha)),
            np.abs(np.sin(path[:, 5] - geometry.wrist.alpha)),
            np.abs(np.sin(0.5 * (path[:, 3] - geometry.elbow_range[1]))),
        ]
        if min(c.min() for c in clear) > 0.3 and chain.within_limits(path).all():
            return path


@pytest.mark.parametrize("robot", ROBOTS)
def test_smooth_path_gives_small_joint_steps(robot):
    arm = solver(robot, "l_hand")
    q_path = smooth_path(arm, np.random.default_rng(12), 1_000)
    targets = arm.chain.fk(q_path)
    position_steps, angle_steps = pose_error(targets[1:], targets[:-1])
    assert position_steps.max() <= 0.005 and angle_steps.max() <= math.radians(1.0)
    previous = q_path[0]
    for target in targets:
        result = arm.solve(target, seed=previous)
        assert result.success and np.abs(result.q - previous).max() <= 0.05
        previous = result.q


def test_other_elbow_bend_is_tried_when_no_swivel_fits_the_chosen_one():
    """Elbow limits that admit both bends: seeds on the wrong bend still find the true one."""
    urdf = humanoid_urdf(HumanoidSpec(limit_scale=0.6))
    urdf = urdf.replace('lower="-1.56" upper="0"', 'lower="-2.4" upper="2.4"')  # l_elbow, both ways
    chain = RobotModel.from_urdf_string(urdf).chain("base_link", "l_wrist")
    assert chain.lower[3] < 0.0 < chain.upper[3]
    arm = Arm7Solver(chain)
    q_true = chain.random_configurations(2_000, np.random.default_rng(12))
    targets = chain.fk(q_true)
    seeds = q_true * np.array([1, 1, 1, -1, 1, 1, 1])  # each seed bends the elbow the other way
    batch = arm.solve_batch(targets, seeds=seeds)
    assert batch.success.all()
    assert_exact(chain, targets, batch.q)
    assert np.mean(np.sign(batch.q[:, 3]) == np.sign(q_true[:, 3])) > 0.5  # the flipped bend was needed
    for i in range(0, 2_000, 40):
        single = arm.solve(targets[i], seed=seeds[i])
        assert single.success and np.abs(single.q - batch.q[i]).max() < 1e-12


def test_single_solve_that_needs_the_swivel_search_matches_the_batch():
    from ik_solvers.solvers.checks import pose_columns
    from ik_solvers.solvers.geometric.arm7 import construction
    from ik_solvers.solvers.geometric.vectors import SCALAR

    arm = solver("other", "l_hand")
    q_true = arm.chain.random_configurations(400, np.random.default_rng(13))
    targets = arm.chain.fk(q_true)
    batch = arm.solve_batch(targets)
    searched = 0
    for i in range(400):
        single = arm.solve(targets[i])
        assert single.success == batch.success[i] and np.abs(single.q - batch.q[i]).max() < 1e-12
        rotation, position = pose_columns(targets[i].ravel().tolist())
        built = construction.construct(arm, SCALAR, rotation, position, arm._rest_seed, None, False)
        _, shoulder_out, wrist_out = construction.joints(arm.geometry, SCALAR, built, built.frame)
        searched += built.reason == 0 and shoulder_out + wrist_out > 1e-10
    assert searched > 20  # the default swivel left the limits that often: the swivel search ran
