"""The compiled closed forms give the answers of the float arithmetic they mirror.

The leg's single and batch solves run in numba kernels (``solvers/geometric/kernels``); its
float closed form and branch search (``BranchSolver._solve_scalar``) stay as the reference. Same
q (to 1e-9 rad), same reason (message), same ``continuous`` flag, row for row, on robots of other
dimensions and axes, unseeded, near and far seeds, out-of-reach targets included.

The arm's seed following and swivel search run compiled too; the float ``follow_one`` and
``nearest_feasible_swivel_one`` are the reference: the same candidates found (or none), q within
1e-7 rad (last-bit differences of the math library and of the swivel forms' shortcut move the
converged swivel a little along the self-motion; every answer is exact IK either way).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_continuity import ROBOTS, model_of

from ik_solvers import RobotModel, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.checks import pose_columns
from ik_solvers.solvers.geometric.arm7 import construction
from ik_solvers.solvers.geometric.arm7.follow import follow_one
from ik_solvers.solvers.geometric.arm7.swivel_search import nearest_feasible_swivel_one
from ik_solvers.solvers.geometric.branches import BranchSolver
from ik_solvers.solvers.geometric.vectors import SCALAR


def cases(chain, rng: np.random.Generator, count: int = 300):
    """Targets (some stretched out of reach) and their near, far and missing seeds."""
    q = chain.random_configurations(count, rng)
    targets = chain.fk(q)
    targets[::7, :3, 3] *= 1.8
    near = np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper)
    return targets, {"none": None, "near": near, "far": chain.random_configurations(count, rng)}


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("tip", ["l_sole", "r_sole"])
def test_compiled_leg_gives_the_float_closed_forms_answers(robot, tip):
    chain = model_of(robot).chain("base_link", tip)
    solver = make_solver("geometric", chain)
    targets, seeds_of = cases(chain, np.random.default_rng(7))
    assert_leg_agrees(solver, targets, seeds_of)


def assert_leg_agrees(solver, targets, seeds_of) -> list:
    """The compiled single solves of ``targets`` (N, 4, 4) give the float closed form's q, reason and
    continuous, for each (N, 6) seeds (or None) of ``seeds_of``; returns the results."""
    results = []
    for label, seeds in seeds_of.items():
        for i, target in enumerate(targets):
            seed = None if seeds is None else seeds[i].tolist()
            references = solver._rest_references if seed is None else solver._references(seed)
            q, reason, _, _, continuous = BranchSolver._solve_scalar(
                solver, target.ravel().tolist(), references, seed
            )
            result = solver.solve(target, seed=None if seeds is None else seeds[i])
            assert np.allclose(result.q, q, atol=1e-9, rtol=0.0), (label, i)
            assert result.success == (reason == 0), (label, i, result.message)
            assert result.message.startswith(solver._messages[reason] or solver._success_message)
            assert result.continuous == continuous, (label, i)
            results.append(result)
    return results


def test_compiled_leg_with_an_offset_shank_gives_the_float_answers():
    """The packaged leg with its ankle 3 cm ahead of the knee-ankle line, so that the two-link's
    kappa is not 0 (it is on every leg of ROBOTS): the compiled FK check turns the knee's angle
    back by kappa (kernels.leg.knee_fk), which no other leg tests."""
    with open(package_share_path("urdf", "humanoid.urdf")) as file:
        text = file.read()
    straight = '<child link="l_ankle_link"/>\n    <origin xyz="0 0 -0.2"'
    assert straight in text
    text = text.replace(straight, '<child link="l_ankle_link"/>\n    <origin xyz="0.03 0 -0.2"')
    chain = RobotModel.from_urdf_string(text).chain("base_link", "l_sole")
    solver = make_solver("geometric", chain)
    assert abs(solver.two_link.kappa) > 0.1
    targets, seeds_of = cases(chain, np.random.default_rng(7))
    results = assert_leg_agrees(solver, targets, seeds_of)
    assert sum(result.success for result in results) > 0.8 * len(results)


def test_compiled_leg_with_hip_limits_past_a_right_angle_gives_the_float_answers():
    """The packaged leg with its hip yaw and roll limits widened past ±pi/2: the seeded search
    takes an angle whose arctangent's x operand is negative as clipped without the arctangent only
    where the limits lie within ±pi/2 (kernels.leg_hip._beyond), which no leg of ROBOTS has wider."""
    with open(package_share_path("urdf", "humanoid.urdf")) as file:
        text = file.read()
    for joint, old, new in (
        ("l_hip_joint", '"-1" upper="1"', '"-2.8" upper="2.8"'),
        ("l_leg_root", '"-0.6" upper="0.9"', '"-2.5" upper="2.6"'),
    ):
        start = text.index(f'<joint name="{joint}"')
        at = text.index(f"<limit lower={old}", start)
        text = text[:at] + f"<limit lower={new}" + text[at + len(f"<limit lower={old}") :]
    chain = RobotModel.from_urdf_string(text).chain("base_link", "l_sole")
    assert chain.upper[0] > 2.0 and chain.lower[1] < -2.0
    targets, seeds_of = cases(chain, np.random.default_rng(7))
    assert_leg_agrees(make_solver("geometric", chain), targets, seeds_of)


@pytest.mark.parametrize("robot", ROBOTS)
def test_compiled_leg_batch_gives_what_single_solves_give(robot):
    chain = model_of(robot).chain("base_link", "l_sole")
    solver = make_solver("geometric", chain)
    targets, seeds_of = cases(chain, np.random.default_rng(11))
    targets[5, 0, 0] = np.nan  # a malformed row fails alone
    for seeds in seeds_of.values():
        batch = solver.solve_batch(targets, seeds=seeds)
        for i, target in enumerate(targets):
            if i == 5:
                assert not batch.success[i] and "target" in batch.messages[i]
                continue
            single = solver.solve(target, seed=None if seeds is None else seeds[i])
            assert np.array_equal(batch.q[i], single.q)
            assert (batch.success[i], batch.continuous[i]) == (single.success, single.continuous)
            assert batch.messages[i] in single.message


def float_search(solver, arm):
    """The float swivel search: q at the feasible swivel nearest the requested one, or None."""
    geo = solver.geometry
    psi = nearest_feasible_swivel_one(construction.swivel_groups(geo, arm, SCALAR))
    if psi is None:
        return None
    c, s = np.cos(psi), np.sin(psi)
    frame = tuple(SCALAR.rotate(arm.axis, c, s, column) for column in arm.frame)
    return construction.joints(geo, SCALAR, arm, frame)[0]


@pytest.mark.parametrize("robot", ROBOTS)
def test_compiled_arm_swivel_choice_gives_the_float_ones(robot):
    chain = model_of(robot).chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    geo = solver.geometry
    targets, seeds_of = cases(chain, np.random.default_rng(5), count=150)
    found = 0
    for label, seeds in seeds_of.items():
        for i, target in enumerate(targets):
            rotation, position = pose_columns(target.ravel().tolist())
            seed = solver._rest_seed if seeds is None else tuple(seeds[i].tolist())
            arm = construction.construct(solver, SCALAR, rotation, position, seed, None, seeds is not None)
            if seeds is None:
                expected, got = float_search(solver, arm), solver._kernels.search(arm)
            else:
                expected = follow_one(geo, arm, lambda a: construction.swivel_groups(geo, a, SCALAR))
                got = solver._kernels.follow(arm)
            assert (expected is None) == (got is None), (label, i)
            if got is not None:
                found += 1
                assert np.abs(np.subtract(got, expected)).max() < 1e-7, (label, i)
    assert found > 300  # most targets have an answer: the comparison is not empty


def test_compiled_constants_are_the_float_forms_ones():
    """The kernels keep their own copies of the float forms' constants (numba's cache is keyed on
    the kernel's own file): a change on one side only fails here."""
    from ik_solvers.solvers.geometric import base, leg, two_link
    from ik_solvers.solvers.geometric.arm7 import (
        axis_triple,
        construction,
        elbow_direction,
        follow,
        swivel_newton,
    )
    from ik_solvers.solvers.geometric.kernels import arm7 as arm_kernel
    from ik_solvers.solvers.geometric.kernels import arm7_follow as follow_kernel
    from ik_solvers.solvers.geometric.kernels import arm7_newton as newton_kernel
    from ik_solvers.solvers.geometric.kernels import arm7_solve, vector3
    from ik_solvers.solvers.geometric.kernels import axis_triple as triple_kernel
    from ik_solvers.solvers.geometric.kernels import leg as leg_kernel

    pairs = [
        (leg_kernel.BRANCHES, leg.BRANCHES),
        ((leg_kernel.FAR, leg_kernel.CLOSE, leg_kernel.LATERAL), (leg.FAR, leg.CLOSE, leg.LATERAL)),
        ((leg_kernel.HIP_BORDER, leg_kernel.KNEE_BORDER), (leg.HIP_BORDER, leg.KNEE_BORDER)),
        ((leg_kernel.REACH_SLACK, leg_kernel.STRETCHED), (leg.REACH_SLACK, two_link.STRETCHED)),
        (
            (vector3.NOT_MET, leg_kernel.LIMIT, leg_kernel.LIMIT_SLACK),
            (base.NOT_MET, base.LIMIT, base.LIMIT_SLACK),
        ),
        ((arm7_solve.TINY,), (elbow_direction.TINY,)),
        ((arm7_solve.REACH_SLACK, arm7_solve.STRETCH), (construction.REACH_SLACK, construction.STRETCH)),
        (
            (arm7_solve.FAR, arm7_solve.CLOSE, arm7_solve.ELBOW_LIMITS, arm7_solve.NO_SWIVEL),
            (construction.FAR, construction.CLOSE, construction.ELBOW_LIMITS, construction.NO_SWIVEL),
        ),
        ((follow_kernel.FOLLOW_STEP, follow_kernel.SAMPLES), (follow.FOLLOW_STEP, follow.SAMPLES)),
        (
            (
                triple_kernel.ALIGNED,
                triple_kernel.LIMIT_TOLERANCE,
                triple_kernel.NEAR_SEED,
                triple_kernel.ENTRIES,
            ),
            (
                axis_triple.ALIGNED,
                axis_triple.LIMIT_TOLERANCE,
                axis_triple.NEAR_SEED,
                axis_triple.ENTRY_COUNT,
            ),
        ),
        ((triple_kernel.RATE_ALIGNED,), (axis_triple.RATE_ALIGNED,)),
        (
            (newton_kernel.NEWTON_STEPS, newton_kernel.HALVINGS, newton_kernel.CONVERGED),
            (swivel_newton.NEWTON_STEPS, swivel_newton.HALVINGS, swivel_newton.CONVERGED),
        ),
        (
            (newton_kernel.FINAL_STEP, newton_kernel.SMALL_STEP, newton_kernel.SECANT_SPAN),
            (swivel_newton.FINAL_STEP, swivel_newton.SMALL_STEP, swivel_newton.SECANT_SPAN),
        ),
        (
            (
                newton_kernel.TRUST_STEP,
                newton_kernel.TRUST_SINE,
                newton_kernel.START_STEP,
                newton_kernel.MARGIN,
                newton_kernel.MARGIN_WEIGHT,
            ),
            (
                swivel_newton.TRUST_STEP,
                swivel_newton.TRUST_SINE,
                swivel_newton.START_STEP,
                swivel_newton.MARGIN,
                swivel_newton.MARGIN_WEIGHT,
            ),
        ),
        (
            (newton_kernel.LOWER, newton_kernel.UPPER, newton_kernel.SEED, newton_kernel.Q4),
            (arm_kernel.LOWER, arm_kernel.UPPER, arm_kernel.SEED, arm_kernel.Q4),
        ),
    ]
    for kernel_values, float_values in pairs:
        assert kernel_values == float_values
