"""A seeded 7-DoF arm solve that continues the seed: its elbow, shoulder and wrist branches, the
swivel nearest the seed in joint space.

For a fixed elbow angle the arm's solutions on one pair of shoulder and wrist branches form a curve
q(ψ) over the swivel ψ. The seed's branches are those whose solution at the seed's own swivel
(ψ = 0 here) is nearest the seed, whatever the limits; they continue the seed, also next to the
shoulder or wrist singularity, where the two branches of a triple are π apart in its first and
third joints. Along a smooth path the answer is then:

1. q(0) itself when it is within the limits and no joint is more than ``FOLLOW_STEP`` from the seed
   (the common case while tracking: one construction, no search);
2. otherwise, from ψ = 0 or the point of the feasible swivel interval of those branches nearest it
   (Shimizu et al. 2008: arm-angle intervals bounded by the closed-form roots of the joint-limit
   equations), the converged minimum of |q(ψ) - seed|² (plus a weak pull off the limits) by
   Newton steps with exact dq/dψ (:mod:`.swivel_newton`) when it is trusted (near the seed, away
   from a triple's alignment, not against a limit); else candidate swivels, the best refined by
   the same Newton steps kept inside the interval. Near a singularity, where the first and third joints of a
   triple turn fast with ψ, the candidates keep their split nearest the seed instead of keeping
   the swivel angle itself;
3. when the interval is empty on the seed's branches, None: the caller falls back to any branch and
   reports the result as not continuous.

:func:`follow_one` runs on floats (one target): the reference of the compiled seed following
(:mod:`ik_solvers.solvers.geometric.kernels.arm7`) that ``solve`` and ``solve_batch`` run.
:func:`at_swivels` evaluates one construction at many swivels for whole-path planning.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.geometric.arm7.axis_triple import LIMIT_TOLERANCE
from ik_solvers.solvers.geometric.arm7.swivel_newton import descend, nearest_swivel
from ik_solvers.solvers.geometric.arm7.swivel_search import (
    matching_swivels_one,
    nearest_feasible_swivel_one,
)
from ik_solvers.solvers.geometric.vectors import COLUMNS, SCALAR, Ops, tmatvec

FOLLOW_STEP = 0.05  # [rad] the seed's swivel is kept while no joint moves more than this from the seed
SAMPLES = tuple(sign * x for x in (0.01, 0.03, 0.1, 0.3, 0.6, 1.0, 1.5, 2.2, 3.0) for sign in (1.0, -1.0))


def seed_branches(geo, arm, frame, ops):
    """q at the shoulder rotation ``frame`` on the branches nearest the seed; violation; branches."""
    shoulder, shoulder_out, shoulder_upper = geo.shoulder.seed_branch(
        geo.shoulder.entries(frame, ops), arm.seed[:3], ops
    )
    wrist_rotation = _wrist_rotation(geo, arm, frame, ops)
    wrist, wrist_out, wrist_upper = geo.wrist.seed_branch(
        geo.wrist.entries(wrist_rotation, ops), arm.seed[4:], ops
    )
    return shoulder + (arm.q4,) + wrist, shoulder_out + wrist_out, (shoulder_upper, wrist_upper)


def follow_one(geo, arm, groups_of):
    """Steps 1-3 for one target (floats): the seven angles continuing the seed, or None.

    ``groups_of(arm)``: the swivel search's groups (shoulder, wrist) of the construction. The
    Newton short way (:func:`.swivel_newton.nearest_swivel`) first; where it is not trusted, candidate
    swivels, tried in turn until one gives a solution within ``FOLLOW_STEP`` of the seed: ψ = 0;
    the feasible point nearest 0 on the seed's branches (when ψ = 0 leaves the limits); the swivels
    where a first or third joint takes its seed value (next to a singularity, the split of the
    coupled joints nearest the seed); ``SAMPLES``. The best within the limits is then refined
    (:func:`.swivel_newton.descend`).
    """
    q, violation, branches = seed_branches(geo, arm, arm.frame, SCALAR)
    if violation <= LIMIT_TOLERANCE and _step(q, arm.seed) <= FOLLOW_STEP:
        return q
    groups = groups_of(arm)
    best = (0.0, branches, q) if violation <= LIMIT_TOLERANCE else None
    if best is None:
        psi = nearest_feasible_swivel_one([group + (branch,) for group, branch in zip(groups, branches)])
        if psi is None:
            return None
        best = (psi, branches, _at(geo, arm, branches, psi))
    short = nearest_swivel(geo, arm, groups, branches, best[0], best[2])
    if short is not None:
        return short
    if _step(best[2], arm.seed) > FOLLOW_STEP:
        matching = [
            psi for triple, forms, seed in groups for psi in matching_swivels_one(triple, forms, seed)
        ]
        best = _best_sample(geo, arm, best, sorted(matching, key=abs) + list(SAMPLES))
    psi, branches, q = best
    if _step(q, arm.seed) <= FOLLOW_STEP:
        return q
    return descend(geo, arm, groups, branches, psi, q)[0]


def _best_sample(geo, arm, best, swivels):
    """Among ``best`` (ψ, branches, q) and the ``swivels`` in turn, the solution on the branches
    nearest the seed that is within the limits and nearest the seed; the first within
    ``FOLLOW_STEP`` of the seed ends the search."""
    best_distance = _distance(best[2], arm.seed)
    for psi in swivels:
        q, violation, branches = seed_branches(geo, arm, _turned(arm, psi, SCALAR), SCALAR)
        distance = _distance(q, arm.seed)
        if violation <= LIMIT_TOLERANCE and distance < best_distance:
            best, best_distance = (psi, branches, q), distance
            if _step(q, arm.seed) <= FOLLOW_STEP:
                break
    return best


def _at(geo, arm, branches, psi, ops: Ops = SCALAR):
    """q at swivel ψ [rad] (relative to the construction's frame) on the given branches."""
    frame = _turned(arm, psi, ops)
    shoulder, _ = geo.shoulder.on_branch(geo.shoulder.entries(frame, ops), arm.seed[:3], branches[0], ops)
    wrist_rotation = _wrist_rotation(geo, arm, frame, ops)
    wrist, _ = geo.wrist.on_branch(geo.wrist.entries(wrist_rotation, ops), arm.seed[4:], branches[1], ops)
    return shoulder + (arm.q4,) + wrist


def at_swivels(geo, arm, branches, psi: np.ndarray) -> np.ndarray:
    """(K, 7) solutions at the swivels ``psi`` (K,) [rad] of a one-target construction, on
    ``branches`` (shoulder, wrist: True for the first branch of each triple)."""
    return np.column_stack([np.broadcast_to(x, psi.shape) for x in _at(geo, arm, branches, psi, COLUMNS)])


def _turned(arm, psi, ops: Ops):
    """The construction's shoulder rotation turned by the swivel ψ [rad] about the shoulder→wrist axis."""
    c, s = ops.cos(psi), ops.sin(psi)
    return tuple(ops.rotate(arm.axis, c, s, column) for column in arm.frame)


def _wrist_rotation(geo, arm, frame, ops):
    """Rw = (Rs R4)ᵀ R_target Mᵀ for the shoulder rotation ``frame`` (columns)."""
    forward = geo.axes[3].times(frame, *arm.elbow, ops)
    return tuple(tmatvec(forward, g, ops) for g in arm.goal)


def _step(q, seed, ops: Ops = SCALAR):
    """The largest joint change [rad] from the seed (a float, or a column)."""
    step = 0.0
    for x, s in zip(q, seed):
        step = ops.maximum(step, abs(x - s))
    return step


def _distance(q, seed) -> float:
    return sum((a - b) * (a - b) for a, b in zip(q, seed))
