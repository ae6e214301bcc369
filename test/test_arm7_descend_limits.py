"""The seed following's refinement (kernels/arm7_newton.descend), which refuses a halved step
toward a limit by the triples' feasibility test (``_inside``) before computing its point, ends
where the plain iteration that computes every trial point ends, with the same verdict, to the
last bit.

The plain iteration here is swivel_newton.descend's rule on the kernels' own pieces: every trial
point's violation and cost from ``_point``. Checked from the scan's best samples of random seeds
on the arms of test_continuity's robots, where steps often run into a limit (over 500 halvings a
robot are out of the limits after another, the case the test before the points decides).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import arm7, arm7_follow, arm7_newton, arm7_solve
from ik_solvers.solvers.geometric.kernels.arm7_newton import (
    CONVERGED,
    FINAL_STEP,
    HALVINGS,
    NEWTON_STEPS,
    SECANT_SPAN,
    SMALL_STEP,
)
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE


@numba.njit
def _plain_descend(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, trial, outside):
    """descend without the test before the points; ``outside`` (1,) counts trial points out of
    the limits that follow another in the same halvings (those the test may refuse)."""
    point = arm7_newton._point
    violation, cost, slope, gauss = point(
        shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, True, True
    )
    if violation > LIMIT_TOLERANCE:
        return False
    last_psi, last_slope, has_last = 0.0, 0.0, False
    for _ in range(NEWTON_STEPS):
        curvature = gauss
        if has_last and abs(psi - last_psi) > SECANT_SPAN:
            secant = (slope - last_slope) / (psi - last_psi)
            curvature = secant if secant > 0.0 else gauss
        step = -slope / curvature if curvature > 0.0 else math.nan
        if not abs(step) < math.inf:
            return False
        if abs(step) < CONVERGED:
            return True
        final = has_last and abs(step) < FINAL_STEP
        accepted, was_out = False, False
        for _ in range(HALVINGS):
            moved = point(
                shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi + step, trial, False, not final
            )
            if moved[0] <= LIMIT_TOLERANCE and (moved[1] <= cost or abs(step) < SMALL_STEP):
                accepted = True
                break
            if was_out and moved[0] > LIMIT_TOLERANCE:
                outside[0] += 1
            was_out = moved[0] > LIMIT_TOLERANCE
            step *= 0.5
        if not accepted:
            return False
        last_psi, last_slope, has_last = psi, slope, True
        psi, cost, slope, gauss = psi + step, moved[1], moved[2], moved[3]
        q[:] = trial
        if final:
            return True
    return False


@numba.njit
def _both_descents(shoulder, wrist, geo, entries, seeds, work, kernel, plain, outside):
    """Both refinements of every row of ``entries`` (N, 16) from the scan's best sample for its
    seed (N, 7), into kernel and plain (N, 8): q, then 1.0 when converged; NaN rows are not
    refined (the seed's swivel within FOLLOW_STEP, or the scan's sample within it)."""
    arm, forms, scratch, order, steps = work
    q, trial = np.empty(7), np.empty(7)
    kernel[:], plain[:] = math.nan, math.nan
    for m in range(entries.shape[0]):
        rotation, position = arm7_solve._pose(entries[m])
        arm7_solve.construct(geo, rotation, position, seeds[m], True, (0.0, 0.0, 0.0), False, False, arm)
        arm7.seed_branches(shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q)
        arm7.groups(shoulder, wrist, geo, arm, forms)
        points = arm7_follow.seed_points(arm)
        count = arm7_follow._candidates(forms, points, scratch, order)
        psi, s_up, w_up = arm7_follow._best_sample(
            shoulder, wrist, forms, arm, points, 0.0, True, True, q, steps, scratch, count
        )
        if arm7_follow._step(q, arm) <= arm7_follow.FOLLOW_STEP:
            continue
        start = q.copy()
        kernel[m, 7] = arm7_newton.descend(shoulder, wrist, geo, forms, arm, s_up, w_up, psi, q, trial)
        kernel[m, :7] = q
        plain[m, 7] = _plain_descend(shoulder, wrist, geo, forms, arm, s_up, w_up, psi, start, trial, outside)
        plain[m, :7] = start


@pytest.mark.parametrize("robot", ROBOTS)
def test_descend_ends_where_the_plain_iteration_does_bit_for_bit(robot):
    chain = model_of(robot).chain("base_link", "l_wrist")
    kernels = make_solver("geometric", chain)._kernels
    rng = np.random.default_rng(5)
    q = chain.random_configurations(600, rng)
    entries = np.ascontiguousarray(chain.fk(q).reshape(-1, 16))
    seeds = chain.random_configurations(len(q), rng)
    kernel, plain, outside = np.empty((len(q), 8)), np.empty((len(q), 8)), np.zeros(1, np.int64)
    _both_descents(*kernels.constants, entries, seeds, kernels.work, kernel, plain, outside)
    np.testing.assert_array_equal(kernel, plain)
    refined = ~np.isnan(plain[:, 7])
    assert np.count_nonzero(refined) > 300  # most random seeds' samples are refined
    assert 0 < np.count_nonzero(plain[refined, 7]) < np.count_nonzero(refined)  # some converge, some not
    assert outside[0] > 100  # halvings out of the limits after another: the test's own case
