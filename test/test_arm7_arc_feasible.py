"""The swivel search's feasibility test decided from the angles' points on the circle
(``kernels/axis_triple._arc_feasible``) gives the arctangents' answer.

Each triple's test runs with its arcs (as the kernels do) and without them (the flag
``ARCS_USABLE`` cleared in a copy of its constants, so only the arctangents and the violations'
sums decide), on every branch choice, at random swivels and at swivels 0, 1e-12, 1e-10, 1e-9 and
1e-7 rad from each limit root, where a joint sits on a limit or just outside it within
LIMIT_TOLERANCE: the same answer everywhere, on robots of other limits and axes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_continuity import ROBOTS, model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.kernels import arm7, arm7_solve
from ik_solvers.solvers.geometric.kernels import axis_triple as triple

OFFSETS = (0.0, 1e-12, -1e-12, 1e-10, -1e-10, 1e-9, -1e-9, 1e-7, -1e-7)  # [rad] from a limit root


def _forms(solver, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The unseeded construction of ``target`` (4, 4) and both triples' swivel forms."""
    shoulder, wrist, geo = solver._kernels.constants
    arm, forms = np.empty(arm7.ARM_SIZE), np.empty((2, triple.ENTRIES, 3))
    rotation, position = arm7_solve._pose(target.ravel())
    rest = geo[arm7.GEO["rest"] : arm7.GEO["rest"] + 7]
    arm7_solve.construct(geo, rotation, position, rest, False, (0.0, 0.0, 0.0), False, False, arm)
    arm7.groups(shoulder, wrist, geo, arm, forms)
    return arm, forms


def _swivels(t: np.ndarray, forms: np.ndarray, rng: np.random.Generator) -> list[float]:
    """Random swivels [rad] and swivels just beside each limit root of the triple."""
    roots = np.empty(arm7.ROOTS)
    count = triple.limit_roots(t, forms, roots, 0)
    near = [root + offset for root in roots[:count] for offset in OFFSETS]
    return list(rng.uniform(-math.pi, math.pi, 20)) + near


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_arc_feasibility_is_the_arctangents(robot):
    chain = model_of(robot).chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(23)
    targets = chain.fk(chain.random_configurations(60, rng))
    decided = undecided = 0
    for target in targets:
        arm, forms = _forms(solver, target)
        seeds = arm7._seeds(arm)
        for side, t in enumerate(solver._kernels.constants[:2]):
            exact = t.copy()
            exact[triple.ARCS_USABLE] = 0.0
            for psi in _swivels(t, forms[side], rng):
                c, s = math.cos(psi), math.sin(psi)
                for branch in (-1, 0, 1):
                    got = triple.feasible(t, forms[side], seeds[side], branch, c, s)
                    expected = triple.feasible(exact, forms[side], seeds[side], branch, c, s)
                    assert got == expected, (robot, side, psi, branch)
                e = triple.entries_at(forms[side], c, s)
                h = math.hypot(e[1], e[2])
                if t[triple.ARCS_USABLE] and h > triple.ALIGNED:
                    verdict = triple._arc_feasible(t, e, h, -e[2] / h, e[1] / h, -1)
                    decided, undecided = decided + (verdict != 0), undecided + (verdict == 0)
    assert decided > undecided > 0  # both ways are taken (most near-root swivels are left undecided)
