"""The nearest feasible swivel (``kernels/arm7.nearest_feasible_swivel``), whose walk remembers
each triple's verdict across the other triple's limit roots and passes pieces it already knows to
be outside, answers as the plain search that sorts every root and tests both triples in every
piece in turn (swivel_search.nearest_feasible_swivel_one's rule on the kernels' own roots and
feasibility test), to the last bit: found or not, and ψ.

Checked on the arms of test_continuity's robots, reachable and out-of-reach targets, with either
branch allowed (the unseeded search) and on each of the four branch pairs (the seed following's).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_arm7_arc_feasible import _forms
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import arm7
from ik_solvers.solvers.geometric.kernels import axis_triple as triple

BRANCHES = ((-1, -1), (1, 1), (1, 0), (0, 1), (0, 0))  # (shoulder, wrist); -1: either


def _plain(shoulder, wrist, forms, arm, s_branch: int, w_branch: int) -> tuple[bool, float]:
    """Every root of both triples sorted with ±π, the pieces between them tried by the distance of
    their nearest point from ψ = 0 (ties: the left one first), each tested on both triples at its
    middle: the first feasible one's nearest point."""
    roots = np.empty(arm7.ROOTS)
    roots[0], roots[1] = -math.pi, math.pi
    count = triple.limit_roots(wrist, forms[1], roots, triple.limit_roots(shoulder, forms[0], roots, 2))
    bounds = np.sort(roots[:count])
    pieces = []
    for low, high in itertools.pairwise(bounds):
        point = 0.0 if low <= 0.0 <= high else low if abs(low) < abs(high) else high
        pieces.append((abs(point), point, 0.5 * (low + high)))
    seed_s, seed_w = arm7._seeds(arm)
    for _, point, middle in sorted(pieces, key=lambda piece: piece[0]):
        c, s = math.cos(middle), math.sin(middle)
        if triple.feasible(wrist, forms[1], seed_w, w_branch, c, s) and triple.feasible(
            shoulder, forms[0], seed_s, s_branch, c, s
        ):
            return True, point
    return False, 0.0


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_walk_is_the_plain_search(robot):
    chain = model_of(robot).chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    shoulder, wrist, _ = solver._kernels.constants
    rng = np.random.default_rng(29)
    targets = chain.fk(chain.random_configurations(150, rng))
    targets[rng.random(len(targets)) < 0.2, :3, 3] *= 1.5
    scratch = np.empty((3, arm7.ROOTS))
    found = 0
    for target in targets:
        arm, forms = _forms(solver, target)
        for s_branch, w_branch in BRANCHES:
            got = arm7.nearest_feasible_swivel(shoulder, wrist, forms, arm, s_branch, w_branch, scratch)
            expected = _plain(shoulder, wrist, forms, arm, s_branch, w_branch)
            assert got == expected, (robot, s_branch, w_branch)
            found += got[0] and got[1] != 0.0
    assert found > 100  # most searches end away from ψ = 0, past pieces outside the limits
