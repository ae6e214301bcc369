"""The seed following's short way (arm7/swivel_newton.py): exact swivel rates, converged answers.

Real URDF (the packaged humanoid's left arm), real constructions; nothing mocked."""

from __future__ import annotations

import numpy as np
from test_continuity import model_of

from ik_solvers import make_solver
from ik_solvers.solvers.checks import pose_columns
from ik_solvers.solvers.geometric.arm7 import construction, follow, swivel_newton
from ik_solvers.solvers.geometric.vectors import SCALAR


def near_cases(count: int = 60):
    """(solver, constructions) of targets seeded ± 0.1 rad σ from a solution."""
    chain = model_of("packaged").chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(11)
    q = chain.random_configurations(count, rng)
    seeds = np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper)
    arms = []
    for target, seed in zip(chain.fk(q), seeds):
        rotation, position = pose_columns(target.ravel().tolist())
        arms.append(
            construction.construct(solver, SCALAR, rotation, position, tuple(seed.tolist()), None, True)
        )
    return solver, arms


def test_swivel_rates_are_the_derivatives_of_the_cost():
    """Half the cost's slope from the analytic rates matches central finite differences."""
    solver, arms = near_cases(30)
    geo = solver.geometry
    checked = 0
    for arm in arms:
        groups = construction.swivel_groups(geo, arm, SCALAR)
        _, _, branches = follow.seed_branches(geo, arm, arm.frame, SCALAR)
        for psi in (-0.4, 0.1, 0.7):
            point = swivel_newton._point(geo, arm, groups, branches, psi)
            ahead = swivel_newton._point(geo, arm, groups, branches, psi + 1e-6)[2]
            behind = swivel_newton._point(geo, arm, groups, branches, psi - 1e-6)[2]
            if abs(ahead - behind) > 1.0:
                continue  # a joint wrapped to another representative between the two
            assert abs((ahead - behind) / 4e-6 - point[3]) < 1e-5 * (1.0 + abs(point[3])), (psi, point[3])
            checked += 1
    assert checked > 60


def test_trusted_short_answers_are_converged_minima():
    """Where the short way answers, the cost's slope there is zero (converged, not a fixed number
    of steps) and the answer is no further from the seed than TRUST_STEP."""
    solver, arms = near_cases()
    geo = solver.geometry
    answered = 0
    for arm in arms:
        groups = construction.swivel_groups(geo, arm, SCALAR)
        q, violation, branches = follow.seed_branches(geo, arm, arm.frame, SCALAR)
        if violation > 0.0:
            continue
        short = swivel_newton.nearest_swivel(geo, arm, groups, branches, 0.0, q)
        if short is None:
            continue
        answered += 1
        assert np.abs(np.subtract(short, arm.seed)).max() <= swivel_newton.TRUST_STEP
        psi = np.linspace(-np.pi, np.pi, 20001)
        sampled = follow.at_swivels(geo, arm, branches, psi)
        distance = np.sum((sampled - np.array(short)) ** 2, axis=1)
        point = swivel_newton._point(geo, arm, groups, branches, float(psi[np.argmin(distance)]))
        assert abs(point[3]) < 1e-3 * (1.0 + point[4]), point[3]  # stationary, to the grid's spacing
    assert answered > 40
