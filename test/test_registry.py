"""The registry behind make_solver: every kind builds a Solver, warm-up runs, refusals name the kinds."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers import RobotModel, Solver, UnknownSolverError, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers import SOLVERS, warm_up


@pytest.fixture(scope="module")
def leg():
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", "l_sole")


@pytest.mark.parametrize("kind", sorted(SOLVERS))
def test_every_registered_kind_builds_a_solver_that_solves_its_chain(kind, leg):
    solver = make_solver(kind, leg)
    assert isinstance(solver, Solver) and solver.chain is leg
    target = leg.fk(0.5 * (leg.lower + leg.upper))
    result = solver.solve(target, seed=leg.rest_configuration())
    assert result.success and result.position_error < 1e-5
    batch = solver.solve_batch(target[None])
    assert batch.q.shape == (1, leg.n) and bool(batch.success[0])


def test_an_object_without_solve_batch_is_no_solver(leg):
    class SolveOnly:
        chain = leg

        def solve(self, target, seed=None, pole=None): ...

    assert not isinstance(SolveOnly(), Solver)


def test_warm_up_runs_every_kind_and_refuses_an_unknown_one():
    warm_up()
    with pytest.raises(UnknownSolverError, match="geometric"):
        warm_up(("analytic",))


def test_rest_configuration_is_zero_clipped_into_the_limits(leg):
    rest = leg.rest_configuration()
    np.testing.assert_array_equal(rest, np.clip(np.zeros(leg.n), leg.lower, leg.upper))
