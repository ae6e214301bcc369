"""The seed following's lower bound (kernels/axis_triple.seed_distance_bound) never exceeds the
distance from the seed of the split it stands for, and is not empty.

The scan of candidate swivels (kernels/arm7_follow._best_sample) skips a swivel whose bound
already reaches the best distance: its answers are the reference's only while the bound is below
the exact split's distance (:func:`axis_triple.seed_branch`), to the last bit. Checked on both
triples of the arms of test_continuity's robots, at random rotations, from seeds anywhere, from
seeds a hair's breadth from the split (where the bound's slack matters) and from seeds half a turn
away (where its arc series is cut).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import axis_triple as triple


def _rotations(rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, 3, 3) random rotations (QR of Gaussian matrices, determinant +1)."""
    q, r = np.linalg.qr(rng.normal(size=(count, 3, 3)))
    q *= np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0.0, :, 0] *= -1.0
    return q


def _distance(angles, seed) -> float:
    return sum((a - s) * (a - s) for a, s in zip(angles, seed))


@pytest.mark.parametrize("robot", ROBOTS)
def test_seed_distance_bound_is_below_the_splits_distance(robot):
    solver = make_solver("geometric", model_of(robot).chain("base_link", "l_wrist"))
    rng = np.random.default_rng(7)
    tight = 0
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
                exact = _distance(triple.seed_branch(t, e, seed)[0], seed)
                bound = triple.seed_distance_bound(t, e, triple.seed_points(seed))
                assert bound <= exact, (seed, bound, exact)
                tight += bound >= 0.5 * exact > 1e-6
    assert tight > 600  # of 2,400: the bound is not trivially 0 (it is within 2× for ~40 %)
