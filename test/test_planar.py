"""The planar two-link solver: exact solutions, both branches, reach and plane checks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ik_solvers import RobotModel, make_solver
from ik_solvers.solvers.geometric.planar import PlanarSolver

PLANAR_URDF = (
    Path(__file__).parent / "urdf" / "planar_two_link.urdf"
)  # tilted, reversed 2nd axis, tool offset


@pytest.fixture(scope="module")
def arm():
    return RobotModel.from_urdf_file(PLANAR_URDF).chain("base", "tip")


def test_geometric_kind_builds_the_planar_solver(arm):
    assert isinstance(make_solver("geometric", arm), PlanarSolver)


def test_ten_thousand_random_configurations_are_solved_exactly(arm):
    q = arm.random_configurations(10_000, np.random.default_rng(1))
    targets = arm.fk(q)
    result = PlanarSolver(arm).solve_batch(targets)
    assert result.success.all() and result.position_error.max() < 1e-9
    assert np.abs(arm.fk(result.q)[:, :3, 3] - targets[:, :3, 3]).max() < 1e-9
    assert np.all(arm.within_limits(result.q))


def test_seed_picks_its_own_branch(arm):
    q = arm.random_configurations(2000, np.random.default_rng(2))
    result = PlanarSolver(arm).solve_batch(arm.fk(q), seeds=q)
    assert result.success.all()
    np.testing.assert_allclose(result.q, q, atol=1e-9)


def test_up_and_down_branches_bend_the_elbow_opposite_ways(arm):
    q = np.array([0.4, 1.0])
    target = arm.fk(q)
    up, down = PlanarSolver(arm, branch="up").solve(target), PlanarSolver(arm, branch="down").solve(target)
    assert up.success and down.success
    stretched = PlanarSolver(arm).two_link.kappa  # elbow angle (about the reversed axis) when stretched
    assert (up.q[1] - stretched) * (down.q[1] - stretched) < 0.0
    assert up.position_error < 1e-9 and down.position_error < 1e-9


def test_unknown_branch_is_refused(arm):
    with pytest.raises(ValueError, match="nearest"):
        PlanarSolver(arm, branch="sideways")


def test_far_target_stretches_the_arm(arm):
    solver = PlanarSolver(arm)
    far = arm.fk(np.array([0.3, 0.0]))
    normal, shoulder = np.array([0.0, -math.sin(0.3), math.cos(0.3)]), np.array([0.1, 0.0, 0.2])
    reach = far[:3, 3] - shoulder
    far[:3, 3] += 2.0 * (reach - np.dot(reach, normal) * normal)  # three times as far, in the plane
    result = solver.solve(far)
    assert not result.success and "farther" in result.message
    assert np.all(np.isfinite(result.q)) and arm.within_limits(result.q)


def test_target_out_of_the_plane_fails_with_a_message(arm):
    target = arm.fk(np.array([0.2, 0.5]))
    normal = np.array([0.0, -math.sin(0.3), math.cos(0.3)])  # the tilted joint axis
    target[:3, 3] += 0.01 * normal
    result = PlanarSolver(arm).solve(target)
    assert not result.success and "plane" in result.message
    np.testing.assert_allclose(result.q, [0.2, 0.5], atol=1e-9)  # the projection's solution


def test_orientation_is_not_a_goal(arm):
    target = arm.fk(np.array([0.2, 0.5]))
    target[:3, :3] = np.eye(3)
    result = PlanarSolver(arm).solve(target)
    assert result.success and result.orientation_error > 0.1
