"""The Jacobian solver family: convergence per method, limits, singular postures, unreachable targets."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ik_solvers import InvalidTargetError, RobotModel, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.numeric.kernels import attempts
from ik_solvers.solvers.numeric.kernels.starts import NOT_SEARCHED
from ik_solvers.solvers.numeric.options import InvalidOptionError
from ik_solvers.spatial import pose_error

PANDA_URDF = Path(__file__).parent / "urdf" / "panda_like.urdf"
METHODS = ("dls", "pinv", "weighted_pinv", "transpose", "ccd")
SLOW = {"tolerance": 1e-4, "max_iterations": 2000}  # first-order methods creep: looser, longer


@pytest.fixture(scope="module")
def humanoid() -> RobotModel:
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(str(PANDA_URDF)).chain("panda_link0", "panda_link8")


def near_problems(chain, count: int, seed: int, spread: float = 0.25):
    """Targets FK(q) of random in-limit q and seeds within ±spread [rad] of q, clipped to limits."""
    rng = np.random.default_rng(seed)
    solutions = chain.random_configurations(count, rng)
    seeds = np.clip(solutions + rng.uniform(-spread, spread, solutions.shape), chain.lower, chain.upper)
    return chain.fk(solutions), seeds


@pytest.mark.parametrize("method", METHODS)
def test_every_method_converges_from_nearby_seeds(humanoid, method):
    chain = humanoid.chain("base_link", "l_hand")
    options = {} if method in ("dls", "pinv", "weighted_pinv") else SLOW
    solver = make_solver("jacobian", chain, method=method, timeout=None, max_restarts=8, **options)
    targets, seeds = near_problems(chain, 20, seed=1, spread=0.1)
    batch = solver.solve_batch(targets, seeds)
    assert batch.success.mean() >= 0.9
    assert np.all(chain.within_limits(batch.q))


def test_weighted_pinv_moves_heavy_joints_less(humanoid):
    chain = humanoid.chain("base_link", "l_hand")
    heavy = np.array([100.0, 100.0, 100.0, 1.0, 1.0, 1.0, 1.0])
    targets, seeds = near_problems(chain, 20, seed=2, spread=0.1)
    plain = make_solver("jacobian", chain, method="pinv", max_restarts=0, timeout=None, task="position")
    weighted = make_solver(
        "jacobian",
        chain,
        method="weighted_pinv",
        joint_weights=heavy,
        max_restarts=0,
        timeout=None,
        task="position",
    )
    moved_plain = np.abs(plain.solve_batch(targets, seeds).q - seeds)[:, :3].sum()
    moved_weighted = np.abs(weighted.solve_batch(targets, seeds).q - seeds)[:, :3].sum()
    assert moved_weighted < moved_plain


@pytest.mark.parametrize("tip", ["l_sole", "r_sole", "l_wrist", "r_wrist", "l_hand"])
def test_dls_with_restarts_solves_random_reachable_targets_from_random_seeds(humanoid, tip):
    chain = humanoid.chain("base_link", tip)
    rng = np.random.default_rng(7)
    targets = chain.fk(chain.random_configurations(300, rng))
    seeds = chain.random_configurations(300, rng)
    batch = make_solver("jacobian", chain, timeout=None, max_restarts=40).solve_batch(targets, seeds)
    assert batch.success.mean() >= 0.99
    assert np.all(batch.position_error[batch.success] <= 1e-6)
    assert np.all(batch.orientation_error[batch.success] <= 1e-5)


def test_dls_solves_the_panda_like_arm(panda):
    rng = np.random.default_rng(8)
    targets = panda.fk(panda.random_configurations(300, rng))
    seeds = panda.random_configurations(300, rng)
    batch = make_solver("jacobian", panda, timeout=None, max_restarts=40).solve_batch(targets, seeds)
    assert batch.success.mean() >= 0.99
    assert np.all(panda.within_limits(batch.q))


def test_torso_to_wrist_chain_from_below_the_root_is_solved(humanoid):
    chain = humanoid.chain("l_shoulder_pitch_link", "l_wrist")
    targets, seeds = near_problems(chain, 50, seed=9)
    batch = make_solver("jacobian", chain, timeout=None).solve_batch(targets, seeds)
    assert batch.success.mean() >= 0.99


@pytest.mark.parametrize("method", METHODS)
def test_returned_configurations_are_always_within_limits(humanoid, method):
    chain = humanoid.chain("base_link", "r_hand")
    rng = np.random.default_rng(10)
    targets = chain.fk(chain.random_configurations(20, rng))
    targets[:5, :3, 3] *= 3.0  # out of reach: the iteration presses against the limits
    seeds = chain.random_configurations(20, rng)
    batch = make_solver("jacobian", chain, method=method, timeout=None, max_restarts=2).solve_batch(
        targets, seeds
    )
    assert np.all(chain.within_limits(batch.q)) and np.all(np.isfinite(batch.q))


@pytest.mark.parametrize("method", METHODS)
def test_stretched_leg_towards_an_unreachable_target_takes_bounded_steps(humanoid, method):
    chain = humanoid.chain("base_link", "l_sole")
    stretched = np.clip(np.zeros(chain.n), chain.lower, chain.upper)  # straight leg: singular
    target = chain.fk(stretched)
    target[2, 3] -= 0.05  # further down than the straight leg reaches
    solver = make_solver("jacobian", chain, method=method, max_step=0.2)
    q = stretched
    for _ in range(10):
        following = solver._advance(q, target)
        assert np.linalg.norm(following - q) <= 0.2 + 1e-12
        q = following


def test_unreachable_target_returns_the_closest_pose_with_the_remaining_error(humanoid):
    chain = humanoid.chain("base_link", "l_wrist")
    target = chain.fk(np.clip(np.zeros(chain.n), chain.lower, chain.upper))
    target[:3, 3] = [0.0, 1.0, 0.2]  # a metre to the side: out of reach
    result = make_solver("jacobian", chain, timeout=None, max_restarts=4).solve(target)
    assert not result.success
    assert chain.within_limits(result.q)
    shoulder_to_target = 1.0 - 0.13
    assert result.position_error == pytest.approx(shoulder_to_target - 0.29, abs=0.02)
    assert f"{result.position_error:.3g} m" in result.message


def test_position_task_ignores_orientation(humanoid):
    chain = humanoid.chain("base_link", "l_hand")
    targets, seeds = near_problems(chain, 10, seed=11)
    targets[:, :3, :3] = np.eye(3)  # orientations the hand may not reach
    batch = make_solver("jacobian", chain, task="position", timeout=None).solve_batch(targets, seeds)
    assert batch.success.all()
    assert np.all(batch.position_error <= 1e-6)


def test_rest_posture_goal_keeps_the_redundant_arm_closer_to_rest(panda):
    rest = 0.5 * (panda.lower + panda.upper)
    targets, seeds = near_problems(panda, 20, seed=12, spread=0.05)
    task = {"method": "pinv", "task": "position", "max_restarts": 0, "timeout": None}
    free = make_solver("jacobian", panda, **task).solve_batch(targets, seeds)
    pulled = make_solver("jacobian", panda, rest_posture=rest, rest_weight=0.1, **task).solve_batch(
        targets, seeds
    )
    assert pulled.success.mean() >= 0.5
    both = free.success & pulled.success
    assert (
        np.linalg.norm(pulled.q[both] - rest, axis=1).mean()
        < np.linalg.norm(free.q[both] - rest, axis=1).mean()
    )


def test_continuous_joints_wrap_into_their_range():
    urdf = PANDA_URDF.read_text().replace('type="revolute"', 'type="continuous"', 1)
    chain = RobotModel.from_urdf_string(urdf).chain("panda_link0", "panda_link8")
    solution = np.array([3.0, 0.3, 0.2, -1.5, 0.1, 1.5, 0.2])
    seed = solution.copy()
    seed[0] = -3.0  # the short way round crosses ±pi
    result = make_solver("jacobian", chain, timeout=None).solve(chain.fk(solution), seed)
    assert result.success
    assert -np.pi <= result.q[0] <= np.pi
    assert abs(np.angle(np.exp(1j * (result.q[0] - seed[0])))) < 0.5  # went across ±pi, not round


def test_same_random_seed_gives_the_same_answers(humanoid):
    chain = humanoid.chain("base_link", "l_hand")
    rng = np.random.default_rng(13)
    targets, seeds = chain.fk(chain.random_configurations(30, rng)), chain.random_configurations(30, rng)
    first = make_solver("jacobian", chain, timeout=None, random_seed=4).solve_batch(targets, seeds)
    second = make_solver("jacobian", chain, timeout=None, random_seed=4).solve_batch(targets, seeds)
    np.testing.assert_array_equal(first.q, second.q)


def test_a_single_solve_does_not_depend_on_the_solves_before_it(panda):
    """Single solves reuse one state's arrays: each answers as its own batch row (restarts from
    the pose table, a failed target's closest pose and its worn slots included)."""
    rng = np.random.default_rng(21)
    targets, seeds = panda.fk(panda.random_configurations(12, rng)), panda.random_configurations(12, rng)
    targets[3, :3, 3] *= 3.0  # out of reach: every restart runs out
    solver = make_solver("jacobian", panda, timeout=None, max_restarts=12)
    rows = solver.solve_batch(targets, seeds)
    for i, (target, seed) in enumerate(zip(targets, seeds)):
        result = solver.solve(target, seed)
        np.testing.assert_array_equal(result.q, rows.q[i])
        assert result.message == rows.messages[i]
        assert result.position_error == pytest.approx(rows.position_error[i], rel=1e-12, abs=1e-15)
    assert not rows.success[3]
    assert (
        rows.position_error[3] < pose_error(targets[3], panda.fk(seeds[3]))[0] - 0.1
    )  # closer than the seed


def test_a_refused_target_or_seed_gives_its_reused_state_back(panda):
    """A single solve whose target or seed is refused leaves the state it took for the next solve,
    whose answer is the one it gives without the refusals before it."""
    rng = np.random.default_rng(23)
    target, seed = panda.fk(panda.random_configurations(1, rng)[0]), panda.random_configurations(1, rng)[0]
    solver = make_solver("jacobian", panda, timeout=None)
    expected = solver.solve(target, seed).q
    spare = [id(state) for state in solver._spare]
    bad_target = target.copy()
    bad_target[0, 3] = np.nan
    for bad in ((bad_target, seed), (target, np.full(panda.n, np.nan)), (target[:3], seed)):
        with pytest.raises(InvalidTargetError):
            solver.solve(*bad)
        assert [id(state) for state in solver._spare] == spare
    np.testing.assert_array_equal(solver.solve(target, seed).q, expected)


def test_a_reset_state_is_a_new_one():
    """What :func:`attempts.reset` leaves, field by field, after a state was used."""
    seeds = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
    state = attempts.new_state(seeds, 3)
    for field in state:  # as a solve leaves it: anything
        field[...] = 7
    attempts.reset(tuple(state), seeds)
    np.testing.assert_array_equal(state.slot_q, np.repeat(seeds[:, None], 3, axis=1))
    np.testing.assert_array_equal(state.best_q, state.slot_q)
    assert np.all(state.slot_energy == np.inf)
    active = np.zeros((2, 3, 3), dtype=int)
    active[:, 0, attempts.S_ACTIVE] = 1
    np.testing.assert_array_equal(state.slot_counts, active)
    pending = np.zeros((2, 8), dtype=int)
    pending[:, attempts.T_PENDING] = 1
    np.testing.assert_array_equal(state.target_counts, pending)
    np.testing.assert_array_equal(state.answer_q, seeds)
    assert np.all(np.isnan(state.answer_error))
    assert np.all(state.nearest == NOT_SEARCHED)


def test_single_solves_from_threads_give_the_answers_of_one_thread(panda):
    """Each solve takes a state no other thread uses (threads switched as often as Python allows)."""
    rng = np.random.default_rng(22)
    targets, seeds = panda.fk(panda.random_configurations(200, rng)), panda.random_configurations(200, rng)
    solver = make_solver("jacobian", panda, timeout=None)
    alone = [solver.solve(target, seed).q for target, seed in zip(targets, seeds)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda pair: solver.solve(*pair).q, zip(targets, seeds)))
    finally:
        sys.setswitchinterval(interval)
    np.testing.assert_array_equal(np.array(together), np.array(alone))


def test_answer_found_from_the_seed_moves_least(humanoid):
    chain = humanoid.chain("base_link", "l_hand")
    targets, seeds = near_problems(chain, 20, seed=14, spread=0.05)
    batch = make_solver("jacobian", chain, timeout=None).solve_batch(targets, seeds)
    assert np.all(np.linalg.norm(batch.q - seeds, axis=1) < 0.3)


@pytest.mark.parametrize(
    "options",
    [
        {"method": "newton"},
        {"task": "twist"},
        {"damping": -1.0},
        {"max_iterations": 0},
        {"joint_weights": [1, 2]},
    ],
)
def test_bad_options_are_refused_with_what_is_accepted(humanoid, options):
    chain = humanoid.chain("base_link", "l_hand")
    with pytest.raises(InvalidOptionError, match="expected|valid"):
        make_solver("jacobian", chain, **options)


def test_unknown_option_names_the_valid_ones(humanoid):
    with pytest.raises(InvalidOptionError, match="max_iterations"):
        make_solver("jacobian", humanoid.chain("base_link", "l_hand"), max_iteration=5)
