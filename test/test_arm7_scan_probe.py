"""The seed following's scan of candidate swivels (kernels/arm7_follow._best_sample), which skips
every swivel its bounds rule out (the best so far, the probe's reach), picks the swivel, branches
and angles of the plain scan that splits every candidate, to the last bit.

The plain scan here is follow._best_sample's rule on the kernels' own pieces: each candidate in
turn split on the seed's branches, kept when within the limits and nearer the seed than the best
so far, the first within FOLLOW_STEP ending it. Checked on the arms of test_continuity's robots
from random seeds, seeds ± 0.1 rad from the answer and seeds ± 0.01 rad (where the scan mostly ends
early within FOLLOW_STEP, the case the probe's reach must not change).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import arm7, arm7_follow, arm7_solve
from ik_solvers.solvers.geometric.kernels import axis_triple as triple
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE


@numba.njit
def _plain_scan(shoulder, wrist, forms, arm, swivels, count, best):
    """follow._best_sample over ``swivels[:count]`` then SAMPLES, from ψ = 0 with ``best`` (7,)
    there, every candidate split: (ψ, shoulder branch, wrist branch) and best."""
    seed_s, seed_w = arm7._seeds(arm)
    best_distance, psi, s_upper, w_upper = arm7_follow._distance(best, arm), 0.0, True, True
    candidate = np.empty(7)
    for i in range(count + len(arm7_follow.SAMPLES)):
        at, c, s = arm7_follow._swivel(swivels, count, i)
        s_angles, s_out, s_up = triple.seed_branch(shoulder, triple.entries_at(forms[0], c, s), seed_s)
        w_angles, w_out, w_up = triple.seed_branch(wrist, triple.entries_at(forms[1], c, s), seed_w)
        arm7._store(candidate, s_angles, arm[arm7.Q4], w_angles)
        distance = arm7_follow._distance(candidate, arm)
        if s_out + w_out <= LIMIT_TOLERANCE and distance < best_distance:
            psi, s_upper, w_upper, best_distance = at, s_up, w_up, distance
            best[:] = candidate
            if arm7_follow._step(best, arm) <= arm7_follow.FOLLOW_STEP:
                break
    return psi, s_upper, w_upper


@numba.njit
def _both_scans(shoulder, wrist, geo, entries, seeds, work, pruned, plain):
    """Both scans of every row of ``entries`` (N, 16) from its seed (N, 7), from ψ = 0 on the
    seed's branches, into pruned and plain (N, 10): ψ, both branches (1.0: the first), q."""
    arm, forms, scratch, order, steps = work
    for m in range(entries.shape[0]):
        rotation, position = arm7_solve._pose(entries[m])
        arm7_solve.construct(geo, rotation, position, seeds[m], True, (0.0, 0.0, 0.0), False, False, arm)
        q = np.empty(7)
        arm7.seed_branches(shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q)
        arm7.groups(shoulder, wrist, geo, arm, forms)
        points = arm7_follow.seed_points(arm)
        count = arm7_follow._candidates(forms, points, scratch, order)
        first = q.copy()
        psi, s_up, w_up = arm7_follow._best_sample(
            shoulder, wrist, forms, arm, points, 0.0, True, True, q, steps, scratch, count
        )
        pruned[m, 0], pruned[m, 1], pruned[m, 2], pruned[m, 3:] = psi, s_up, w_up, q
        count = arm7_follow._candidates(forms, points, scratch, order)
        psi, s_up, w_up = _plain_scan(shoulder, wrist, forms, arm, scratch[0], count, first)
        plain[m, 0], plain[m, 1], plain[m, 2], plain[m, 3:] = psi, s_up, w_up, first


@pytest.mark.parametrize("robot", ROBOTS)
def test_pruned_scan_picks_the_plain_scans_swivel_bit_for_bit(robot):
    chain = model_of(robot).chain("base_link", "l_wrist")
    kernels = make_solver("geometric", chain)._kernels
    rng = np.random.default_rng(11)
    q = chain.random_configurations(400, rng)
    entries = np.ascontiguousarray(chain.fk(q).reshape(-1, 16))
    moved = 0
    for seeds in (
        chain.random_configurations(len(q), rng),
        np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper),
        np.clip(q + rng.normal(0.0, 0.01, q.shape), chain.lower, chain.upper),
    ):
        pruned, plain = np.empty((len(q), 10)), np.empty((len(q), 10))
        _both_scans(*kernels.constants, entries, seeds, kernels.work, pruned, plain)
        np.testing.assert_array_equal(pruned, plain)
        moved += np.count_nonzero(plain[:, 0] != 0.0)
    assert moved > 600  # of 1,200: most rows leave ψ = 0, so the scans' choices are compared
