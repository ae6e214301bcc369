"""The 7-DoF arm's seed following compiled (numba): the swivel whose solution is nearest the seed.

The float arithmetic of :func:`ik_solvers.solvers.geometric.arm7.follow.follow_one` (the seed's
branches, the feasible interval, the Newton short way of :mod:`.arm7_newton`, then where that is
not trusted the swivels matching the seed's split, the samples and the same Newton steps from the
best), on the pieces of :mod:`.arm7` (``arm``, ``geo``, the triples' arrays and the scratch as
there).

The candidate swivels (the matching ones, then ``SAMPLES``) are scanned in the reference's order;
one whose solution cannot beat the best so far skips its exact splits: a lower bound of each
triple's distance from the seed where its split is within the limits
(:func:`.axis_triple.seed_distance_bound`: the chords between the splits' angles and the
seed's, a branch surely outside the limits left out, no arctangent) decides first. Only skipped swivels differ, none of
which the scan would keep, so the answer is the reference's bit for bit.
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import ieee_borrowing
from ik_solvers.solvers.geometric.kernels import arm7, arm7_newton
from ik_solvers.solvers.geometric.kernels import axis_triple as triple
from ik_solvers.solvers.geometric.kernels.arm7 import FRAME, Q4, SEED
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE

FOLLOW_STEP = 0.05  # follow.FOLLOW_STEP [rad]
PROBES = 3  # candidates _probe splits at most
NEAR_STEP = 0.02  # [rad²] more than 7 FOLLOW_STEP² (0.0175): the distance of any q within FOLLOW_STEP
SAMPLES = (0.01, -0.01, 0.03, -0.03, 0.1, -0.1, 0.3, -0.3, 0.6, -0.6, 1.0, -1.0, 1.5, -1.5, 2.2, -2.2)
SAMPLES += (3.0, -3.0)  # follow.SAMPLES, in its order
SAMPLE_COS, SAMPLE_SIN = tuple(math.cos(x) for x in SAMPLES), tuple(math.sin(x) for x in SAMPLES)


@ieee_borrowing
def _step(q, arm):
    """The largest joint change [rad] from the seed."""
    step = 0.0
    for i in range(7):
        step = max(step, abs(q[i] - arm[SEED + i]))
    return step


@ieee_borrowing
def _distance(q, arm):
    total = 0.0
    for i in range(7):
        total += (q[i] - arm[SEED + i]) * (q[i] - arm[SEED + i])
    return total


@ieee_borrowing
def _shoulder_distance(s_angles, arm):
    """The first four terms of :func:`_distance` (shoulder angles, elbow), summed in its order: a
    lower bound of the whole distance [rad²], as the wrist's terms are squares."""
    total = 0.0
    for i in range(3):
        total += (s_angles[i] - arm[SEED + i]) * (s_angles[i] - arm[SEED + i])
    return total + (arm[Q4] - arm[SEED + 3]) * (arm[Q4] - arm[SEED + 3])


@ieee_borrowing
def _copy(source, destination):
    for i in range(destination.shape[0]):
        destination[i] = source[i]


@ieee_borrowing
def _swivel(swivels, count, i):
    """The i-th candidate swivel (ψ, cos ψ, sin ψ): ``swivels[i]`` for i < count, then SAMPLES."""
    if i < count:
        return swivels[i], math.cos(swivels[i]), math.sin(swivels[i])
    return SAMPLES[i - count], SAMPLE_COS[i - count], SAMPLE_SIN[i - count]


@ieee_borrowing
def _bounds(shoulder, wrist, forms, points, scratch, count):
    """Every candidate swivel's (:func:`_swivel`) cos ψ, sin ψ and the shoulder's and the wrist's
    :func:`.axis_triple.seed_distance_bound` there into scratch[1:5], computed for all candidates
    at once (a vectorised loop, 4.5× faster than one by one); ``points``: the shoulder's and the
    wrist's :func:`.axis_triple.seed_points`. Returns their number."""
    cosines, sines, s_bounds, w_bounds = scratch[1], scratch[2], scratch[3], scratch[4]
    total = count + len(SAMPLES)
    for i in range(total):
        _, cosines[i], sines[i] = _swivel(scratch[0], count, i)
    triple.seed_distance_bounds(shoulder, forms[0], points[0], cosines, sines, s_bounds, total)
    triple.seed_distance_bounds(wrist, forms[1], points[1], cosines, sines, w_bounds, total)
    return total


@ieee_borrowing
def _least(scratch, total):
    """The candidate whose bounds (:func:`_bounds`) sum least, the first on ties; -1 when every
    sum is infinite."""
    s_bounds, w_bounds = scratch[3], scratch[4]
    index, least = -1, math.inf
    for i in range(total):
        if s_bounds[i] + w_bounds[i] < least:
            index, least = i, s_bounds[i] + w_bounds[i]
    return index


@ieee_borrowing
def _probe(shoulder, wrist, forms, arm, scratch, total, probe):
    """Up to PROBES candidates, the least bounds first (:func:`_least`), split exactly on the
    seed's branches until one is within the limits, into ``probe`` (7,): (its index, its distance
    from the seed [rad²], its shoulder and wrist branches), or (-1, inf, …) when none is. A
    candidate tried and out of limits gets an infinite shoulder bound: the scan would not keep it
    either (:func:`_best_sample`), and skips it then without its splits."""
    seed_s, seed_w = arm7._seeds(arm)
    for _ in range(PROBES):
        index = _least(scratch, total)
        if index < 0:
            break
        c, s = scratch[1][index], scratch[2][index]
        s_angles, s_out, s_up = triple.seed_branch(shoulder, triple.entries_at(forms[0], c, s), seed_s)
        if s_out <= LIMIT_TOLERANCE:  # else the sum is over too: the wrist's split is not needed
            w_angles, w_out, w_up = triple.seed_branch(wrist, triple.entries_at(forms[1], c, s), seed_w)
            if s_out + w_out <= LIMIT_TOLERANCE:
                arm7._store(probe, s_angles, arm[Q4], w_angles)
                return index, _distance(probe, arm), s_up, w_up
        scratch[3][index] = math.inf  # out of limits: never kept
    return -1, math.inf, False, False


@ieee_borrowing
def _best_sample(shoulder, wrist, forms, arm, points, psi, s_upper, w_upper, best, work, scratch, count):
    """follow._best_sample over the ``count`` swivels of ``scratch[0]``, then SAMPLES: the solution
    on the seed's branches within limits nearest the seed; the first within FOLLOW_STEP ends it.
    The entries come from the swivel forms ``forms`` (:func:`.arm7.groups`); ``points``: the
    shoulder's and the wrist's :func:`.axis_triple.seed_points`. Returns (ψ, shoulder branch,
    wrist branch) of ``best`` (7,). scratch: (5, ROOTS); work: (4, 7), rows 2-3 used.

    A swivel whose shoulder's bound (:func:`.axis_triple.seed_distance_bound`, all computed first
    by :func:`_bounds`) with the elbow's change, then with the wrist's bound, then whose
    shoulder's exact terms with the wrist's bound are no nearer than the best so far is skipped:
    it cannot be nearer the seed. The shoulder is split first and one whose shoulder split leaves
    the limits is not kept, without the wrist's split. The bounds leave out a branch surely
    outside the limits already (infinite where both are), so a test of both branches'
    feasibility (:func:`.axis_triple.feasible`) before the splits rejected too few candidates to
    pay (it was ~9 % of a random-seeded scan, docs/benchmarks.md, 2026-11-29, ``armseed3``).

    Before the scan, the candidate whose bounds sum least is split (:func:`_probe`, its distance
    D when within the limits); then a swivel whose bound exceeds ``reach`` = max(D, NEAR_STEP)
    is skipped too. The full scan's answer is a candidate that beat every one before it: either
    the first such within FOLLOW_STEP (its distance at most 7 FOLLOW_STEP² < NEAR_STEP) or, if
    none, the first nearest of all, at most D (the probe is one of them). Neither is skipped, and
    whether a candidate beats every one before it depends only on those nearer than it, none of
    which is skipped either (the ones skipped for the best so far are no nearer than a kept one
    before them). A candidate further than ``reach`` that is kept for a while is never within
    FOLLOW_STEP, and is beaten by the probe at the latest: the answer is the full scan's."""
    best_distance = _distance(best, arm)
    elbow = (arm[Q4] - arm[SEED + 3]) * (arm[Q4] - arm[SEED + 3])
    seed_s, seed_w = arm7._seeds(arm)
    total = _bounds(shoulder, wrist, forms, points, scratch, count)
    cosines, sines, s_bounds, w_bounds = scratch[1], scratch[2], scratch[3], scratch[4]
    probe, candidate = work[2], work[3]
    probe_index, probe_distance, probe_s_up, probe_w_up = _probe(
        shoulder, wrist, forms, arm, scratch, total, probe
    )
    reach = max(probe_distance, NEAR_STEP)
    for i in range(total):
        if s_bounds[i] + elbow >= best_distance:
            continue  # no solution at this swivel is nearer the seed than the best
        bound = s_bounds[i] + elbow + w_bounds[i]
        if bound >= best_distance or bound > reach:
            continue
        if i == probe_index:  # split already
            if probe_distance < best_distance:
                psi, s_upper, w_upper, best_distance = (
                    _swivel(scratch[0], count, i)[0],
                    probe_s_up,
                    probe_w_up,
                    probe_distance,
                )
                _copy(probe, best)
                if _step(best, arm) <= FOLLOW_STEP:
                    break
            continue
        c, s = cosines[i], sines[i]
        s_angles, s_out, s_up = triple.seed_branch(shoulder, triple.entries_at(forms[0], c, s), seed_s)
        if s_out > LIMIT_TOLERANCE:
            continue  # the violations' sum is over too: not kept, whatever the wrist
        shoulder_bound = _shoulder_distance(s_angles, arm) + w_bounds[i]
        if shoulder_bound >= best_distance or shoulder_bound > reach:
            continue  # the wrist's terms are at least its bound
        w_angles, w_out, w_up = triple.seed_branch(wrist, triple.entries_at(forms[1], c, s), seed_w)
        arm7._store(candidate, s_angles, arm[Q4], w_angles)
        distance = _distance(candidate, arm)
        if s_out + w_out <= LIMIT_TOLERANCE and distance < best_distance:
            psi, s_upper, w_upper, best_distance = _swivel(scratch[0], count, i)[0], s_up, w_up, distance
            _copy(candidate, best)
            if _step(best, arm) <= FOLLOW_STEP:
                break
    return psi, s_upper, w_upper


@ieee_borrowing
def _candidates(forms, points, scratch, order):
    """The swivels where a first or third joint takes its seed value (``points``: the shoulder's
    and the wrist's :func:`.axis_triple.seed_points`), nearest ψ = 0 first (ties in the order
    found), into scratch[0]; returns their count. scratch: (2, ROOTS); order: (ROOTS,)."""
    swivels, keys = scratch[0], scratch[1]
    count = triple.matching_roots(forms[0], points[0], swivels, 0)
    count = triple.matching_roots(forms[1], points[1], swivels, count)
    for i in range(count):
        keys[i] = abs(swivels[i])
    arm7._order(keys, count, order)
    for i in range(count):
        keys[i] = swivels[order[i]]
    for i in range(count):
        swivels[i] = keys[i]
    return count


@ieee_borrowing
def seed_points(arm):
    """The shoulder's and the wrist's :func:`.axis_triple.seed_points` of the seed, computed once
    for the matching swivels and the bounds."""
    seed_s, seed_w = arm7._seeds(arm)
    return triple.seed_points(seed_s), triple.seed_points(seed_w)


@ieee_borrowing
def follow(shoulder, wrist, geo, arm, q, forms, scratch, order, work):
    """follow.follow_one into q (7,): True, or False when the seed's branches have no feasible
    swivel. Scratch: forms (2, ENTRIES, 3), scratch (5, ROOTS), order (ROOTS,) ints, work (4, 7)."""
    violation, s_upper, w_upper = arm7.seed_branches(shoulder, wrist, geo, arm, arm7._columns(arm, FRAME), q)
    if violation <= LIMIT_TOLERANCE and _step(q, arm) <= FOLLOW_STEP:
        return True
    arm7.groups(shoulder, wrist, geo, arm, forms)
    psi = 0.0
    if violation > LIMIT_TOLERANCE:
        s_branch, w_branch = 1 if s_upper else 0, 1 if w_upper else 0
        found, psi = arm7.nearest_feasible_swivel(shoulder, wrist, forms, arm, s_branch, w_branch, scratch)
        if not found:
            return False
        arm7._at(shoulder, wrist, forms, arm, s_upper, w_upper, psi, q)
    short = work[0]
    _copy(q, short)
    if arm7_newton.nearest_swivel(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, short, work[1]):
        _copy(short, q)
        return True
    if _step(q, arm) > FOLLOW_STEP:
        points = seed_points(arm)
        count = _candidates(forms, points, scratch, order)
        psi, s_upper, w_upper = _best_sample(
            shoulder, wrist, forms, arm, points, psi, s_upper, w_upper, q, work, scratch, count
        )
    if _step(q, arm) > FOLLOW_STEP:
        arm7_newton.descend(shoulder, wrist, geo, forms, arm, s_upper, w_upper, psi, q, work[1])
    return True
