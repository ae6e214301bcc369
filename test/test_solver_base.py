"""What every solver shares: target and seed checks, the registry's refusals, batch results."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers import InvalidTargetError, RobotModel, UnknownSolverError, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.checks import check_seed, check_targets


@pytest.fixture(scope="module")
def arm():
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain(
        "base_link", "l_wrist"
    )


def turned(angle: float) -> np.ndarray:
    pose = np.eye(4)
    pose[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    return pose


@pytest.mark.parametrize(
    "target",
    [
        np.full((4, 4), np.nan),
        np.where(np.eye(4) > 0, np.inf, 0.0),
        np.diag([1.0, 1.0, -1.0, 1.0]),  # a reflection, not a rotation
        np.diag([1.0, 1.0, 1.0 + 1e-4, 1.0]),  # not orthonormal
    ],
)
def test_single_target_that_is_not_a_finite_rotation_is_refused(target):
    with pytest.raises(InvalidTargetError, match="unit quaternion or rotation matrix"):
        check_targets(target)


def test_single_target_rotated_about_z_is_accepted_as_float_array():
    accepted = check_targets(turned(0.7).tolist())
    assert accepted.dtype == float and accepted.shape == (4, 4)


def test_batch_refusal_names_the_bad_indices():
    targets = np.stack([np.eye(4), turned(1.0), np.full((4, 4), np.nan), np.diag([2.0, 1.0, 1.0, 1.0])])
    with pytest.raises(InvalidTargetError, match=r"at indices \[2, 3\]"):
        check_targets(targets, batched=True)


def test_wrong_target_shape_says_what_is_expected():
    with pytest.raises(InvalidTargetError, match=r"shape \(3, 3\); expected \(4, 4\)"):
        check_targets(np.eye(3))


def test_seed_outside_the_limits_is_clipped_into_them(arm):
    seed = check_seed(arm, arm.upper + 1.0)
    np.testing.assert_array_equal(seed, arm.upper)


@pytest.mark.parametrize("seed", [np.full(7, np.nan), np.zeros(6), np.full(7, -np.inf)])
def test_malformed_seed_is_refused_naming_the_joints(arm, seed):
    with pytest.raises(
        InvalidTargetError, match=r"expected finite \(7,\) for the joints \['l_shoulder_pitch'"
    ):
        check_seed(arm, seed)


def test_no_seed_means_zero_clipped_into_the_limits(arm):
    np.testing.assert_array_equal(check_seed(arm, None), np.clip(0.0, arm.lower, arm.upper))


def test_unknown_solver_kind_lists_the_valid_ones(arm):
    with pytest.raises(
        UnknownSolverError, match="unknown solver 'analytic'; valid solvers: auto, geometric, jacobian"
    ):
        make_solver("analytic", arm)


@pytest.mark.parametrize("kind", ["geometric", "jacobian"])
def test_batch_result_rows_read_as_single_results(arm, kind):
    solver = make_solver(kind, arm)
    configurations = arm.random_configurations(3, np.random.default_rng(2))
    batch = solver.solve_batch(arm.fk(configurations), seeds=configurations)
    assert len(batch) == 3
    for index in range(3):
        row = batch[index]
        assert row.success == batch.success[index]
        np.testing.assert_array_equal(row.q, batch.q[index])
        assert row.message == batch.messages[index]


def bad_bottom_row() -> np.ndarray:
    pose = np.eye(4)
    pose[3] = [1.0, 2.0, 3.0, 5.0]
    return pose


@pytest.mark.parametrize("kind", ["geometric", "jacobian"])
@pytest.mark.parametrize(
    "target,reason",
    [
        (bad_bottom_row(), r"bottom row \[1.0, 2.0, 3.0, 5.0\]; expected \[0, 0, 0, 1\]"),
        (np.eye(4) + 1e-3j, "complex"),
        (np.full((4, 4), "a"), "numbers"),
        ([[1, 0, 0, "x"], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "numbers"),
    ],
)
def test_malformed_target_array_is_refused_by_both_solvers(arm, kind, target, reason):
    with pytest.raises(InvalidTargetError, match=reason):
        make_solver(kind, arm).solve(target)


@pytest.mark.parametrize("kind", ["geometric", "jacobian"])
def test_complex_or_string_seed_is_refused(arm, kind):
    solver = make_solver(kind, arm)
    with pytest.raises(InvalidTargetError, match="complex"):
        solver.solve(np.eye(4), seed=np.zeros(7) + 1j)
    with pytest.raises(InvalidTargetError, match="numbers"):
        solver.solve(np.eye(4), seed=["a"] * 7)


@pytest.mark.parametrize("kind", ["geometric", "jacobian"])
def test_non_finite_target_or_seed_arrays_are_refused_by_a_solve(arm, kind):
    solver = make_solver(kind, arm)
    with pytest.raises(InvalidTargetError, match="unit quaternion or rotation matrix"):
        solver.solve(np.full((4, 4), np.nan))
    with pytest.raises(InvalidTargetError, match=r"expected finite \(7,\) for the joints"):
        solver.solve(np.eye(4), seed=np.full(7, np.inf))


@pytest.mark.parametrize("tip,length", [("l_wrist", 6), ("l_wrist", 8), ("l_sole", 5), ("l_sole", 7)])
def test_float_seed_of_another_length_is_refused_by_a_geometric_solve(tip, length):
    """A contiguous float64 seed goes to the compiled check as it is, which checks its length."""
    chain = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", tip)
    solver = make_solver("geometric", chain)
    with pytest.raises(
        InvalidTargetError, match=rf"seed has shape \({length},\).*expected finite \({chain.n},\)"
    ):
        solver.solve(chain.fk(np.zeros(chain.n)), seed=np.zeros(length))


def test_batch_with_a_bad_bottom_row_fails_that_row_only_or_is_refused(arm):
    targets = np.stack([arm.fk(np.zeros(7)), bad_bottom_row()])
    batch = make_solver("geometric", arm).solve_batch(targets)
    assert batch.success.tolist() == [True, False]
    assert "bottom row" in batch.messages[1] or "homogeneous" in batch.messages[1]
    with pytest.raises(InvalidTargetError, match=r"at indices \[1\]"):
        make_solver("jacobian", arm).solve_batch(targets)


@pytest.mark.parametrize("kind", ["geometric", "jacobian"])
def test_huge_finite_seed_is_clipped_without_overflow_warning(arm, kind, recwarn):
    result = make_solver(kind, arm).solve(arm.fk(np.zeros(7)), seed=np.full(7, 1e308))
    assert np.all(np.isfinite(result.q))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], [
        str(w.message) for w in recwarn
    ]
    np.testing.assert_array_equal(check_seed(arm, np.full(7, 1e308)), arm.upper)


@pytest.mark.parametrize("tip", ["l_sole", "l_wrist"])
@pytest.mark.parametrize("parallel", [False, True])
def test_batch_rows_are_single_solves_and_a_non_finite_seed_refuses_the_batch(monkeypatch, tip, parallel):
    """The leg's and the arm's batch kernels check each row's target and clip its seed as they
    solve it: every row, a malformed one and seeds beyond the limits included, is what a single
    solve gives (a malformed target: q at rest, NaN errors, the refusal's message), and a seed with
    a non-finite entry refuses the whole batch even where its own target is malformed."""
    chain = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", tip)
    solver = make_solver("geometric", chain)
    module = type(solver).__module__
    monkeypatch.setattr(f"{module}.PARALLEL_ROWS", 1 if parallel else 10_000)
    rng = np.random.default_rng(8)
    q = chain.random_configurations(300, rng)
    targets, seeds = chain.fk(q), q + rng.normal(0.0, 0.8, q.shape)  # seeds beyond the limits too
    targets[4, 0, 0] = np.nan
    batch = solver.solve_batch(targets, seeds=seeds)
    for row in (0, 4, 150, 299):
        single = batch[row]
        if row == 4:
            assert not single.success and np.isnan(single.position_error) and "quaternion" in single.message
            np.testing.assert_array_equal(single.q, chain.rest_configuration())
            continue
        expected = solver.solve(targets[row], seed=seeds[row])
        np.testing.assert_array_equal(single.q, expected.q)
        assert (single.success, single.continuous) == (expected.success, expected.continuous)
    seeds[4, 2] = np.inf
    with pytest.raises(InvalidTargetError, match=rf"expected finite \(300, {chain.n}\) for the joints"):
        solver.solve_batch(targets, seeds=seeds)
