"""The seed following's short way: the swivel nearest the seed by Newton steps with analytic rates.

On fixed shoulder and wrist branches the arm's joints are functions q(ψ) of the swivel ψ; each
joint of a triple is an atan2 of terms linear in cos ψ and sin ψ (the entries' swivel forms, see
:func:`~ik_solvers.solvers.geometric.arm7.construction.swivel_groups`), so dq/dψ is exact and cheap
(:meth:`~ik_solvers.solvers.geometric.arm7.axis_triple.AxisTriple.first_rates`). :func:`nearest_swivel`
minimises the seed following's cost (|q(ψ) - seed|² plus the weak pull off the limits, see
``MARGIN``) from a start swivel by Newton steps on its slope (:func:`descend`): the first step's
curvature is Gauss-Newton's, later ones the secant of the slope (superlinear), each step halved
while it leaves the limits or raises the cost. It answers only when the steps converge (|Δψ| <
``CONVERGED``) within the limits and no joint ends more than ``TRUST_STEP`` from the seed; else
None and the caller scans the swivels (a far seed, a minimum against a limit, a singularity) and
refines the best one it finds with the same steps.

Floats, one target: the reference of :mod:`ik_solvers.solvers.geometric.kernels.arm7_newton`.
"""

from __future__ import annotations

import math

from ik_solvers.solvers.geometric.arm7.axis_triple import LIMIT_TOLERANCE
from ik_solvers.solvers.geometric.vectors import SCALAR

NEWTON_STEPS = 12  # steps before the short way gives up
CONVERGED = 1e-10  # [rad] a Newton step this short ends the search
FINAL_STEP = 1e-7  # [rad] a secant step this short is the last (the next would be < CONVERGED)
SMALL_STEP = 1e-6  # [rad] steps this short are kept even where rounding raises the cost
SECANT_SPAN = 1e-8  # [rad] the secant of the slope needs swivels this far apart
HALVINGS = 4  # halvings of a step that leaves the limits or raises the cost
START_STEP = 1.0  # [rad] a start with a joint further than this from the seed: a far seed, scanned at once
TRUST_STEP = 0.3  # [rad] the short way's answer stands when no joint is further than this from the seed
TRUST_SINE = 0.1  # [1] |sin(θ2 - α)| of a triple below this (next to its alignment, where the split of
# its first and third joints matters): the scan is trusted instead
# [rad], [1]: the cost adds MARGIN_WEIGHT × how far a joint is inside MARGIN of a limit (squared), a weak
# pull off the limits, so that a joint does not stay pinned at a limit (where the seed's feasible
# swivel interval would later vanish) when it can leave it cheaply
MARGIN, MARGIN_WEIGHT = 0.1, 0.5


def nearest_swivel(geo, arm, groups, branches, psi: float, q: tuple) -> tuple | None:
    """The seven angles at the swivel minimising the following cost on ``branches`` (shoulder,
    wrist: True for the first), from swivel ``psi`` [rad] where the angles are ``q``, or None when
    the answer is not trusted. ``groups``: the construction's swivel groups (triple, forms, seed)."""
    if max(abs(x - s) for x, s in zip(q, arm.seed)) > START_STEP:
        return None
    q, converged = descend(geo, arm, groups, branches, psi, q)
    return _trusted(groups, q, arm.seed) if converged else None


def descend(geo, arm, groups, branches, psi: float, q: tuple) -> tuple[tuple, bool]:
    """Newton steps on the following cost's slope from swivel ``psi`` [rad] where the angles are
    ``q`` (within the limits), each kept only within the limits and not raising the cost (else
    halved): (the angles at the last swivel kept, True when the steps converged). A start outside
    the limits, rates that vanish (at a triple's alignment) or a step that cannot be kept stop it
    unconverged; the seed following's scan refines its best swivel with it too."""
    point = _point(geo, arm, groups, branches, psi, q)
    if point[1] > LIMIT_TOLERANCE:
        return q, False
    last = None
    for _ in range(NEWTON_STEPS):
        q, _, cost, slope, gauss = point
        curvature = gauss
        if last is not None and abs(psi - last[0]) > SECANT_SPAN:
            secant = (slope - last[1]) / (psi - last[0])
            curvature = secant if secant > 0.0 else gauss
        step = -slope / curvature if curvature > 0.0 else math.nan
        if not abs(step) < math.inf:
            return q, False
        if abs(step) < CONVERGED:
            return q, True
        final = last is not None and abs(step) < FINAL_STEP
        for _ in range(HALVINGS):
            trial = _point(geo, arm, groups, branches, psi + step)
            if trial[1] <= LIMIT_TOLERANCE and (trial[2] <= cost or abs(step) < SMALL_STEP):
                break
            step *= 0.5
        else:
            return q, False
        last, psi, point = (psi, slope), psi + step, trial
        if final:
            return trial[0], True
    return point[0], False


def _trusted(groups, q: tuple, seed) -> tuple | None:
    """q when no joint is further than ``TRUST_STEP`` from the seed and neither triple is within
    ``TRUST_SINE`` of its alignment (|sin(θ2 - α)|), else None."""
    apart = min(abs(math.sin(q[1] - groups[0][0].alpha)), abs(math.sin(q[5] - groups[1][0].alpha)))
    return q if max(abs(x - s) for x, s in zip(q, seed)) <= TRUST_STEP and apart >= TRUST_SINE else None


def _point(geo, arm, groups, branches, psi: float, known: tuple | None = None) -> tuple:
    """(q, violation [rad], cost, half its slope, Gauss-Newton curvature) at swivel ψ [rad];
    ``known``: the angles there when they are known already."""
    c, s = math.cos(psi), math.sin(psi)
    q, rates, violation = [], [], 0.0
    for k, ((triple, forms, seed), upper) in enumerate(zip(groups, branches)):
        entries = tuple(k_c * c + k_s * s + k_1 for k_c, k_s, k_1 in forms[:6])
        if known is None:
            raw = triple._first_raw(entries, seed, SCALAR)
            angles = triple._ranged(raw if upper else triple._other(raw, SCALAR), seed, SCALAR)
        else:
            angles = tuple(known[4 * k : 4 * k + 3])
        rate1, rate2, rate3 = triple.first_rates(
            entries, tuple(k_s * c - k_c * s for k_c, k_s, _ in forms[:6])
        )
        q += angles if not q else (arm.q4, *angles)
        rates += (
            (rate1, rate2 if upper else -rate2, rate3)
            if not rates
            else (0.0, rate1, rate2 if upper else -rate2, rate3)
        )
        violation += triple.violation(angles, SCALAR)
    cost, slope, gauss = _cost(geo, q, rates, arm.seed)
    return tuple(q), violation, cost, slope, gauss


def _cost(geo, q, rates, seed) -> tuple[float, float, float]:
    """The following cost (Σ r² of the residuals q - seed and the ``MARGIN`` pulls), Σ r dr/dψ and
    Σ (dr/dψ)² for the angles q and their rates."""
    cost = slope = gauss = 0.0
    for i, (x, rate) in enumerate(zip(q, rates)):
        residual = x - seed[i]
        cost, slope, gauss = cost + residual * residual, slope + residual * rate, gauss + rate * rate
        below, above = x - geo.lower[i], geo.upper[i] - x
        inside, inside_rate = (below, rate) if below < above else (above, -rate)
        if inside < MARGIN:
            near, near_rate = MARGIN_WEIGHT * (MARGIN - inside), -MARGIN_WEIGHT * inside_rate
            cost, slope, gauss = cost + near * near, slope + near * near_rate, gauss + near_rate * near_rate
    return cost, slope, gauss
