"""The closed-form leg solves every reachable in-limit target exactly (1e-9 m, rad against the
chain's own FK), unseeded and seeded near the answer.

Legs with wide limits (±0.9π, the OP3's): there the hip's yaw-roll pair has a second solution for
the same leg plane (yaw turned by π, roll mirrored), within the limits where the first is not.
Legs whose hip axes only nearly meet (the structure check accepts 1e-6 m): the closed form of the
ideal leg is refined to the chain's own FK, and reports the chain's FK error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from description_data import OP3_XACRO
from humanoid_factory import LEG_LIMITS, HumanoidSpec, LegDims, humanoid_urdf
from test_compiled_closed_forms import assert_leg_agrees

from ik_solvers import RobotModel, make_solver
from ik_solvers.solvers.geometric.leg import LegSolver
from ik_solvers.solvers.geometric.vectors import SCALAR

WIDE = HumanoidSpec(
    leg=LegDims(root_z=-0.04, w=0.03, upper_z=-0.025, thigh=0.22, shank=0.18, foot_z=-0.01, sole_z=-0.035),
    leg_limits={name: (-0.9 * math.pi, 0.9 * math.pi) for name in LEG_LIMITS},
    name="wide",
)
LEGS = {
    "op3-left": ("op3", "body_link", "l_ank_roll_link"),
    "op3-right": ("op3", "body_link", "r_ank_roll_link"),
    "wide-left": ("wide", "base_link", "l_sole"),
    "wide-right": ("wide", "base_link", "r_sole"),
}


def model(robot: str) -> RobotModel:
    if robot == "op3":
        return RobotModel.from_urdf_file(OP3_XACRO)
    return RobotModel.from_urdf_string(humanoid_urdf(WIDE))


@pytest.fixture(scope="module", params=list(LEGS))
def leg(request):
    robot, base, tip = LEGS[request.param]
    return model(robot).chain(base, tip)


NEAR = HumanoidSpec(leg=LegDims(hip_gap=5e-7), name="near")


def assert_exact(chain, result, targets):
    assert result.success.all(), sorted({m for m, ok in zip(result.messages, result.success) if not ok})
    fk = chain.fk(result.q)
    assert np.abs(fk - targets).max() < 1e-9
    assert np.all(chain.within_limits(result.q))


def configurations(chain, count: int, rng: np.random.Generator, gimbal: float = 0.1) -> np.ndarray:
    """(count, 6) random in-limit configurations, a ``gimbal`` share of them with the hip roll
    exactly at ±π/2 (the hip gimbal, where the yaw and pitch axes align: a measure-zero set that
    uniform samples never hit, and where the closed form's yaw is free)."""
    q = chain.random_configurations(count, rng)
    rows = rng.random(count) < gimbal
    q[rows, 1] = np.where(rng.random(rows.sum()) < 0.5, -0.5, 0.5) * math.pi
    return q


def test_every_in_limit_configuration_is_solved_unseeded(leg):
    targets = leg.fk(configurations(leg, 2000, np.random.default_rng(0)))
    solver = make_solver("geometric", leg)
    assert isinstance(solver, LegSolver)
    assert_exact(leg, solver.solve_batch(targets), targets)


def test_every_in_limit_configuration_is_solved_seeded_near(leg):
    rng = np.random.default_rng(1)
    q = configurations(leg, 2000, rng)
    targets = leg.fk(q)
    seeds = np.clip(q + rng.normal(0.0, 0.05, q.shape), leg.lower, leg.upper)
    result = make_solver("geometric", leg).solve_batch(targets, seeds=seeds)
    assert_exact(leg, result, targets)
    assert np.abs(result.q - q).max() < 0.5  # the answer near the seed, not another branch
    self_seeded = make_solver("geometric", leg).solve_batch(targets, seeds=q)
    assert np.abs(self_seeded.q - q).max() < 1e-9  # the seed's own branch, hip turn included


def test_pitch_axis_nearly_along_the_yaw_axis_is_solved_exactly(leg):
    """Hip roll within 1e-7 rad of ±π/2 (the hip gimbal: the pitch axis along the yaw axis). The
    roll's cosine part came from sqrt(1 - along²), which loses half the digits there (~1e-8 rad)."""
    rng = np.random.default_rng(4)
    q = leg.random_configurations(1000, rng)
    q[:, 1] = np.where(rng.random(1000) < 0.5, -1.0, 1.0) * (0.5 * math.pi - rng.uniform(1e-10, 1e-7, 1000))
    targets = leg.fk(q)
    assert_exact(leg, make_solver("geometric", leg).solve_batch(targets), targets)


def test_targets_exactly_at_the_hip_gimbal_are_solved_nearest_the_seed(leg):
    """Hip roll exactly ±π/2: the yaw and the pitch axes align, the sole pose fixes only their
    combination, and the yaw the closed form read from rounding left the hip pitch outside its
    limits on 0.1-0.4 % (OP3) to 3 % (the wide leg, whose pitch axis passes 25 mm from the hip centre)
    of such targets. The yaw is now the feasible one nearest the seed's (unseeded: the rest's),
    compiled and in floats alike."""
    rng = np.random.default_rng(7)
    q = configurations(leg, 1000, rng, gimbal=1.0)
    targets = leg.fk(q)
    solver = make_solver("geometric", leg)
    assert_exact(leg, solver.solve_batch(targets), targets)
    self_seeded = solver.solve_batch(targets, seeds=q)
    assert_exact(leg, self_seeded, targets)
    assert np.abs(self_seeded.q - q).max() < 1e-9  # the seed's own yaw, not another of the family
    near = np.clip(q + rng.normal(0.0, 0.05, q.shape), leg.lower, leg.upper)
    assert_exact(leg, solver.solve_batch(targets, seeds=near), targets)
    results = assert_leg_agrees(solver, targets[:40], {"none": None, "near": near[:40]})
    assert all(result.success for result in results)


def test_compiled_leg_gives_the_float_answers_on_both_hip_turns(leg):
    """The compiled solve gives the float closed form's answers (BranchSolver._solve_scalar), single,
    unseeded and seeded near, answers on the turned yaw-roll pair among them."""
    rng = np.random.default_rng(2)
    q = leg.random_configurations(300, rng)
    solver = make_solver("geometric", leg)
    near = np.clip(q + rng.normal(0.0, 0.1, q.shape), leg.lower, leg.upper)
    results = assert_leg_agrees(solver, leg.fk(q), {"none": None, "near": near})
    assert all(result.success for result in results)
    assert any(solver._seed_branch(result.q.tolist(), SCALAR)[0][2] < 0.0 for result in results)


def test_the_jacobian_solver_meets_reachable_targets_next_to_the_hip_gimbal(leg):
    """The Jacobian solver within its restart budget: ≥ 99.9 % of reachable in-limit targets,
    unseeded and seeded at random. A few mrad from the hip gimbal (hip roll near ±π/2) a
    direction of the leg is nearly singular (σ² ≈ 1e-8 on the OP3); a damping bias above that
    (1e-5, before) left 0.3 % of the OP3's targets 2-6 µm away (docs/algorithms.md)."""
    rng = np.random.default_rng(5)
    q = leg.random_configurations(1000, rng)
    q[:100, 1] = np.where(rng.random(100) < 0.5, -1.0, 1.0) * (0.5 * math.pi - rng.uniform(1e-3, 1e-2, 100))
    q = np.clip(q, leg.lower, leg.upper)
    targets = leg.fk(q)
    solver = make_solver("jacobian", leg, timeout=None)
    for seeds in (None, leg.random_configurations(1000, rng)):
        result = solver.solve_batch(targets, seeds)
        assert result.success.mean() >= 0.999, sorted(set(np.round(q[~result.success, 1], 4)))
        assert np.all(leg.within_limits(result.q))


@pytest.mark.parametrize("tip", ["l_sole", "r_sole"])
def test_hip_axes_that_only_nearly_meet_are_solved_to_the_chains_own_fk(tip):
    chain = RobotModel.from_urdf_string(humanoid_urdf(NEAR)).chain("base_link", tip)
    solver = make_solver("geometric", chain)
    assert solver.refined and not make_solver("geometric", model("wide").chain("base_link", tip)).refined
    rng = np.random.default_rng(3)
    q = chain.random_configurations(1000, rng)
    targets = chain.fk(q)
    result = solver.solve_batch(targets)
    assert_exact(chain, result, targets)
    assert result.position_error.max() < 1e-9 and result.position_error.max() > 0.0
    seeds = np.clip(q + rng.normal(0.0, 0.05, q.shape), chain.lower, chain.upper)
    for i in range(0, 1000, 50):
        single = solver.solve(targets[i], seed=seeds[i])
        assert single.success and np.abs(chain.fk(single.q) - targets[i]).max() < 1e-9
        assert single.position_error == pytest.approx(
            np.linalg.norm(chain.fk(single.q)[:3, 3] - targets[i, :3, 3])
        )
