"""The planar two-link arm's compiled solve (``solvers/geometric/kernels/planar.py``) gives the
answers of the float closed form and branch search it mirrors (``BranchSolver._solve_scalar``):
same q (to 1e-9 rad), reason (message) and ``continuous`` flag, for every branch option, unseeded
and from random seeds, with targets out of reach and out of the arm's plane; a batch gives what
single solves give, row for row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_compiled_closed_forms import assert_leg_agrees

from ik_solvers import RobotModel
from ik_solvers.solvers.geometric.planar import PlanarSolver

PLANAR_URDF = Path(__file__).parent / "urdf" / "planar_two_link.urdf"  # tilted, reversed 2nd axis, tool


@pytest.fixture(scope="module")
def arm():
    return RobotModel.from_urdf_file(PLANAR_URDF).chain("base", "tip")


def cases(arm, count: int = 400):
    rng = np.random.default_rng(5)
    targets = arm.fk(arm.random_configurations(count, rng))
    targets[::5, :3, 3] += rng.normal(0.0, 0.3, (len(targets[::5]), 3))  # out of reach or plane
    return targets, {"none": None, "random": arm.random_configurations(count, rng)}


@pytest.mark.parametrize("branch", ["nearest", "up", "down"])
def test_compiled_planar_gives_the_float_closed_forms_answers(arm, branch):
    targets, seeds_of = cases(arm)
    results = assert_leg_agrees(PlanarSolver(arm, branch=branch), targets, seeds_of)
    assert 0 < sum(r.success for r in results) < len(results)  # both kinds of rows were compared


def test_compiled_planar_batch_gives_what_single_solves_give(arm):
    solver = PlanarSolver(arm)
    targets, seeds_of = cases(arm)
    for seeds in seeds_of.values():
        batch = solver.solve_batch(targets, seeds=seeds)
        for i, target in enumerate(targets):
            single = solver.solve(target, seed=None if seeds is None else seeds[i])
            assert np.array_equal(batch.q[i], single.q)
            assert (batch.success[i], batch.continuous[i]) == (single.success, single.continuous)
            assert single.message.endswith(batch.messages[i])


def test_planar_kernel_constants_are_the_float_forms_ones():
    """The kernel keeps its own copies of the float form's constants: a change on one side fails here."""
    from ik_solvers.solvers.geometric import base, planar, two_link
    from ik_solvers.solvers.geometric.kernels import planar as kernel
    from ik_solvers.solvers.geometric.kernels import two_link as two_link_kernel

    assert (kernel.FAR, kernel.CLOSE, kernel.OUT_OF_PLANE) == (planar.FAR, planar.CLOSE, planar.OUT_OF_PLANE)
    assert (kernel.REACH_SLACK, kernel.LIMIT, kernel.LIMIT_SLACK) == (
        planar.REACH_SLACK,
        base.LIMIT,
        base.LIMIT_SLACK,
    )
    assert two_link_kernel.STRETCHED == two_link.STRETCHED
