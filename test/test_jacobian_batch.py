"""solve_batch: lockstep over many targets, the same answers as solve, large random sweeps."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers import RobotModel, make_solver
from ik_solvers.resources import package_share_path


@pytest.fixture(scope="module")
def humanoid() -> RobotModel:
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))


@pytest.mark.parametrize("method", ["dls", "pinv"])
@pytest.mark.parametrize("tip", ["l_sole", "r_wrist"])
def test_batch_equals_single_solves(humanoid, method, tip):
    chain = humanoid.chain("base_link", tip)
    rng = np.random.default_rng(21)
    targets = chain.fk(chain.random_configurations(8, rng))
    seeds = chain.random_configurations(8, rng)
    solver = make_solver("jacobian", chain, method=method, timeout=None, max_restarts=6, max_iterations=40)
    batch = solver.solve_batch(targets, seeds)
    for index, (target, seed) in enumerate(zip(targets, seeds)):
        single = solver.solve(target, seed)
        assert single.success == batch.success[index]
        assert single.iterations == batch.iterations[index]
        np.testing.assert_allclose(single.q, batch.q[index], atol=1e-9)


@pytest.mark.parametrize("tip", ["l_sole", "r_sole", "l_hand", "r_hand"])
def test_ten_thousand_nearby_targets_are_solved_in_one_batch(humanoid, tip):
    chain = humanoid.chain("base_link", tip)
    rng = np.random.default_rng(22)
    solutions = chain.random_configurations(10_000, rng)
    seeds = np.clip(solutions + rng.uniform(-0.25, 0.25, solutions.shape), chain.lower, chain.upper)
    batch = make_solver("jacobian", chain, timeout=None, max_restarts=10).solve_batch(
        chain.fk(solutions), seeds
    )
    assert batch.success.mean() >= 0.99
    assert np.all(chain.within_limits(batch.q))


def test_batch_messages_say_why_a_target_failed(humanoid):
    chain = humanoid.chain("base_link", "l_sole")
    targets = chain.fk(chain.random_configurations(3, np.random.default_rng(23)))
    targets[1, 2, 3] -= 1.0  # a metre lower than the foot reaches
    batch = make_solver("jacobian", chain, timeout=None, max_restarts=2).solve_batch(targets)
    assert batch.success.tolist() == [True, False, True]
    assert "no solution within tolerance" in batch.messages[1]
    assert batch[1].position_error > 0.5
