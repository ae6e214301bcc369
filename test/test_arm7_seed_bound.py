"""The seed following's lower bound (kernels/axis_triple.seed_distance_bound) never exceeds the
distance from the seed of the split it stands for where that split is within the limits, is
infinite only where neither branch is, and is not empty.

The scan of candidate swivels (kernels/arm7_follow._best_sample) skips a swivel whose bound
already reaches the best distance, and never keeps a split outside the limits: its answers are
the reference's only while the bound is below the distance of every split it would keep
(:func:`axis_triple.seed_branch` within the limits), to the last bit. Checked on both
triples of the arms of test_continuity's robots, at random rotations, from seeds anywhere, from
seeds a hair's breadth from the split (where the bound's slack matters) and from seeds half a turn
away (where its arc series is cut).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_arm7_arc_feasible import _forms, _swivels
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import axis_triple as triple
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE


def _rotations(rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, 3, 3) random rotations (QR of Gaussian matrices, determinant +1)."""
    q, r = np.linalg.qr(rng.normal(size=(count, 3, 3)))
    q *= np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0.0, :, 0] *= -1.0
    return q


def _distance(angles, seed) -> float:
    return sum((a - s) * (a - s) for a, s in zip(angles, seed))


def _branch_violations(t, e, seed) -> tuple[float, float]:
    """How far [rad] each branch of the split of ``e`` is outside the limits."""
    raw = triple.first_raw(t, e, seed[0])
    return (
        triple.violation(t, triple.ranged(t, raw, seed)),
        triple.violation(t, triple.ranged(t, triple.other(t, raw), seed)),
    )


@pytest.mark.parametrize("robot", ROBOTS)
def test_seed_distance_bound_is_below_the_splits_distance(robot):
    solver = make_solver("geometric", model_of(robot).chain("base_link", "l_wrist"))
    rng = np.random.default_rng(7)
    tight = within = excluded = 0
    for t in solver._kernels.constants[:2]:  # the shoulder's and the wrist's triple
        lower, upper = t[triple.LOWER : triple.LOWER + 3], t[triple.UPPER : triple.UPPER + 3]
        for rotation in _rotations(rng, 300):
            e = triple.entries(t, tuple(tuple(column) for column in rotation.T))
            own, _, _ = triple.seed_branch(t, e, tuple(rng.uniform(lower, upper)))
            for seed in (
                tuple(rng.uniform(lower, upper)),
                tuple(rng.uniform(-4.0, 4.0, 3)),
                tuple(np.add(own, rng.normal(0.0, 1e-9, 3))),
                tuple(np.add(own, (np.pi, 0.0, -np.pi))),
            ):
                angles, violation, _ = triple.seed_branch(t, e, seed)
                exact = _distance(angles, seed)
                bound = triple.seed_distance_bound(t, e, triple.seed_points(seed))
                if violation <= LIMIT_TOLERANCE:
                    assert bound <= exact, (seed, bound, exact)
                    within += 1
                    tight += bound >= 0.5 * exact > 1e-6
                if bound == np.inf:
                    assert min(_branch_violations(t, e, seed)) > LIMIT_TOLERANCE, (seed, e)
                    excluded += 1
    # of 2,400: splits within the limits are checked (265-580 by robot), the bound is not
    # trivially 0 (within 2× of their distance for ~2/3), and it leaves out many rotations where
    # no branch is within the limits (1,660-2,090)
    assert within > 200 and tight > 100 and excluded > 1000, (within, tight, excluded)


@pytest.mark.parametrize("robot", ROBOTS)
def test_seed_distance_bound_leaves_out_only_branches_outside_the_limits(robot):
    """At swivels 0 to 1e-7 rad beside each limit root (a joint on its limit, or outside it
    within LIMIT_TOLERANCE, where the margin decides) and at random ones, from random seeds: an
    infinite bound only where neither branch is within the limits, and below the distance of the
    split wherever it is within them."""
    chain = model_of(robot).chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(29)
    within = excluded = 0
    for target in chain.fk(chain.random_configurations(40, rng)):
        _, forms = _forms(solver, target)
        for side, t in enumerate(solver._kernels.constants[:2]):
            lower, upper = t[triple.LOWER : triple.LOWER + 3], t[triple.UPPER : triple.UPPER + 3]
            for psi in _swivels(t, forms[side], rng):
                e = triple.entries_at(forms[side], math.cos(psi), math.sin(psi))
                seed = tuple(rng.uniform(lower, upper))
                angles, violation, _ = triple.seed_branch(t, e, seed)
                bound = triple.seed_distance_bound(t, e, triple.seed_points(seed))
                if violation <= LIMIT_TOLERANCE:
                    assert bound <= _distance(angles, seed), (robot, side, psi)
                    within += 1
                if bound == np.inf:
                    assert min(_branch_violations(t, e, seed)) > LIMIT_TOLERANCE, (robot, side, psi)
                    excluded += 1
    assert within > 500 and excluded > 500, (within, excluded)
