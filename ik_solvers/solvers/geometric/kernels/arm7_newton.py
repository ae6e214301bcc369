"""The seed following's short way compiled (numba): the swivel nearest the seed by Newton steps.

The float arithmetic of :mod:`ik_solvers.solvers.geometric.arm7.swivel_newton` (see its docstring:
Newton steps on the slope of the following cost with the joints' analytic rates dq/dψ, converged,
trusted only near the seed), in the same order of operations. ``arm``, ``geo`` and the triples'
arrays as in :mod:`.arm7`; ``forms``: both triples' swivel forms (:func:`.arm7.groups`).
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import ieee_borrowing, ieee_inlined
from ik_solvers.solvers.geometric.kernels import axis_triple as triple
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE

NEWTON_STEPS, HALVINGS = 12, 4  # swivel_newton.NEWTON_STEPS, HALVINGS
TRUST_SINE, START_STEP = 0.1, 1.0  # swivel_newton.TRUST_SINE, START_STEP [rad]
CONVERGED, FINAL_STEP, SMALL_STEP, SECANT_SPAN = 1e-10, 1e-7, 1e-6, 1e-8  # swivel_newton's [rad]
TRUST_STEP, MARGIN, MARGIN_WEIGHT = 0.3, 0.1, 0.5  # swivel_newton.TRUST_STEP [rad], MARGIN [rad], [1]
LOWER, UPPER, SEED, Q4 = 3, 10, 23, 30  # arm7.LOWER, arm7.UPPER in ``geo``; arm7.SEED, arm7.Q4 in ``arm``


@ieee_inlined
def _term(geo, arm, i, x, rate, sums):
    """Add joint i's cost terms (its change from the seed, its pull off the limits) at angle x
    [rad] with rate dx/dψ to ``sums`` (cost, slope, curvature); returns the new sums."""
    cost, slope, gauss = sums
    residual = x - arm[SEED + i]
    cost, slope, gauss = cost + residual * residual, slope + residual * rate, gauss + rate * rate
    below, above = x - geo[LOWER + i], geo[UPPER + i] - x
    inside, inside_rate = (below, rate) if below < above else (above, -rate)
    if inside < MARGIN:
        near, near_rate = MARGIN_WEIGHT * (MARGIN - inside), -MARGIN_WEIGHT * inside_rate
        cost, slope, gauss = cost + near * near, slope + near * near_rate, gauss + near_rate * near_rate
    return cost, slope, gauss


@ieee_inlined
def _rates(t, forms, entries, upper, c, s):
    """One triple's angle rates dθ/dψ on its branch at swivel (cos ψ, sin ψ), ``entries`` its
    :func:`.axis_triple.entries_at` there."""
    rate1, rate2, rate3 = triple.first_rates(t, entries, triple.rates_at(forms, c, s))
    return rate1, rate2 if upper else -rate2, rate3


@ieee_inlined
def _angles(t, entries, seed, upper):
    """One triple's angles on its branch at the swivel of ``entries`` (its
    :func:`.axis_triple.entries_at`) and their violation [rad]."""
    raw = triple.first_raw(t, entries, seed[0])
    angles = triple.ranged(t, raw if upper else triple.other(t, raw), seed)
    return angles, triple.violation(t, angles)


@ieee_borrowing
def _point(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, known, sloped):
    """q (7,) at swivel ψ [rad] (``known``: q holds them already); returns (violation [rad], cost,
    half its slope, its Gauss-Newton curvature), the last three only when ``sloped`` (else 0)."""
    c, s = math.cos(psi), math.sin(psi)
    s_entries, w_entries = triple.entries_at(forms[0], c, s), triple.entries_at(forms[1], c, s)  # once
    if known:
        s_out = triple.violation(shoulder, (q[0], q[1], q[2]))
        w_out = triple.violation(wrist, (q[4], q[5], q[6]))
    else:
        s_angles, s_out = _angles(shoulder, s_entries, (arm[SEED], arm[SEED + 1], arm[SEED + 2]), s_upper)
        w_angles, w_out = _angles(wrist, w_entries, (arm[SEED + 4], arm[SEED + 5], arm[SEED + 6]), w_upper)
        q[0], q[1], q[2], q[3], q[4], q[5], q[6] = (
            s_angles[0],
            s_angles[1],
            s_angles[2],
            arm[Q4],
            w_angles[0],
            w_angles[1],
            w_angles[2],
        )
    if not sloped:
        return s_out + w_out, 0.0, 0.0, 0.0
    s_rates = _rates(shoulder, forms[0], s_entries, s_upper, c, s)
    w_rates = _rates(wrist, forms[1], w_entries, w_upper, c, s)
    sums = (0.0, 0.0, 0.0)
    for i in range(3):
        sums = _term(geo, arm, i, q[i], s_rates[i], sums)
    sums = _term(geo, arm, 3, q[3], 0.0, sums)
    for i in range(3):
        sums = _term(geo, arm, 4 + i, q[4 + i], w_rates[i], sums)
    return s_out + w_out, sums[0], sums[1], sums[2]


@ieee_borrowing
def _trusted(shoulder, wrist, q, arm):
    """No joint of q further than TRUST_STEP from the seed, and neither triple within
    TRUST_SINE of its alignment (|sin(θ2 - α)|)."""
    far = 0.0
    for i in range(7):
        far = max(far, abs(q[i] - arm[SEED + i]))
    apart = min(abs(math.sin(q[1] - shoulder[triple.ALPHA])), abs(math.sin(q[5] - wrist[triple.ALPHA])))
    return far <= TRUST_STEP and apart >= TRUST_SINE


@ieee_borrowing
def nearest_swivel(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, trial):
    """swivel_newton.nearest_swivel from swivel ``psi`` [rad] where q (7,) holds the angles, into
    q: True when the answer is trusted, else False (q undefined). ``trial``: (7,) scratch."""
    far = 0.0
    for i in range(7):
        far = max(far, abs(q[i] - arm[SEED + i]))
    if far > START_STEP:
        return False
    return descend(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, trial) and _trusted(
        shoulder, wrist, q, arm
    )


@ieee_borrowing
def _inside(shoulder, wrist, forms, arm, s_upper, w_upper, psi):
    """False when the wrist's or the shoulder's branch leaves its limits at swivel ``psi`` [rad]
    (:func:`.axis_triple.feasible`, the violations' own verdict, mostly from the angles' points
    without an arctangent): then :func:`_point`'s violation, their sum, is over LIMIT_TOLERANCE too."""
    c, s = math.cos(psi), math.sin(psi)
    w_seed = (arm[SEED + 4], arm[SEED + 5], arm[SEED + 6])
    if not triple.feasible(wrist, forms[1], w_seed, 1 if w_upper else 0, c, s):
        return False
    s_seed = (arm[SEED], arm[SEED + 1], arm[SEED + 2])
    return triple.feasible(shoulder, forms[0], s_seed, 1 if s_upper else 0, c, s)


@ieee_borrowing
def descend(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, trial):
    """swivel_newton.descend from swivel ``psi`` [rad] where q (7,) holds the angles: q ends at
    the last swivel kept; True when the steps converged. ``trial``: (7,) scratch. A last step
    (shorter than FINAL_STEP, so kept whatever the cost) is taken without the rates. After a trial
    out of the limits, the next halvings are first tested by :func:`_inside` (~90 ns against
    ~190 ns a point): a step halved toward a limit it crossed is refused without its arctangents,
    with the same verdict."""
    violation, cost, slope, gauss = _point(
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
        accepted, outside = False, False
        for _ in range(HALVINGS):
            if outside and not _inside(shoulder, wrist, forms, arm, s_upper, w_upper, psi + step):
                step *= 0.5
                continue
            moved = _point(
                shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi + step, trial, False, not final
            )
            if moved[0] <= LIMIT_TOLERANCE and (moved[1] <= cost or abs(step) < SMALL_STEP):
                accepted = True
                break
            outside = moved[0] > LIMIT_TOLERANCE
            step *= 0.5
        if not accepted:
            return False
        last_psi, last_slope, has_last = psi, slope, True
        psi, cost, slope, gauss = psi + step, moved[1], moved[2], moved[3]
        for i in range(7):
            q[i] = trial[i]
        if final:
            return True
    return False
