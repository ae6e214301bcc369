"""The biped leg's closed form compiled (numba): one target (:mod:`.leg_batch` runs it on many).

The arithmetic of :class:`~ik_solvers.solvers.geometric.leg.LegSolver` (the leg plane, the hip
angles, the planar two-link in the leg plane; see that module's docstring) and the branch search
of :class:`~ik_solvers.solvers.geometric.branches.BranchSolver` (the seed's own branch first, every
branch near a border, the successful solution nearest the seed), in the same order of operations,
so the answers are the Python layer's to rounding. The leg's constants come in one float array,
``k``, laid out by :mod:`.leg_layout` (:class:`~ik_solvers.solvers.geometric.leg.LegSolver` fills it).
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import ieee_borrowing, ieee_inlined, inlined
from ik_solvers.solvers.geometric.kernels import inputs, leg_gimbal, leg_hip, two_link
from ik_solvers.solvers.geometric.kernels.leg_forward import forward
from ik_solvers.solvers.geometric.kernels.leg_hip import (
    hip_angles,
    hip_roll,
    hip_terms,
    hip_yaw,
    leg_plane,
    unit_xy,
    wrapped,
)
from ik_solvers.solvers.geometric.kernels.leg_layout import (
    ANKLE_TIP,
    B1,
    B2,
    CONTINUOUS,
    COS_KAPPA,
    FOOT_OFFSET,
    HIP,
    HIP_PART,
    HIP_SIGN,
    KAPPA,
    KEPT,
    KNEE,
    KNEE_FK,
    LINK1_X,
    LINK1_Z,
    LINK2_X,
    LINK2_Z,
    MIDDLE,
    NATURAL,
    NEAR_SEED,
    REACH_MAX,
    REACH_MIN,
    REST_YAW,
    SHARED,
    SIGN3,
    SIGN4,
    SIGN5,
    SIN_KAPPA,
    STRETCH,
    TOLERANCE,
    TURN_COS,
    TURN_SIN,
    TWO_LINK,
    UPPER_X,
    UPPER_Z,
    W1,
    W2,
    W6,
    N,
)
from ik_solvers.solvers.geometric.kernels.vector3 import (
    add,
    checked,
    cross,
    dot,
    matvec,
    rotate,
    sub,
    tmatvec,
    vector,
)

FAR, CLOSE, LATERAL = 1, 2, 3
LIMIT = 100  # ik_solvers.solvers.geometric.base.LIMIT: LIMIT + i, joint i clipped
SKIPPED = -1  # a branch not solved: it cannot beat the answer already found
PENDING = -2  # a branch of the seed's hip turn failing at its hip: its knee part only if continuous needs it
STRETCHED = two_link.STRETCHED  # the knee's (kernels.two_link), as leg.py's knee takes two_link's
REACH_SLACK = 1e-12  # [m]
LIMIT_SLACK = 1e-9  # [rad]
HIP_BORDER, KNEE_BORDER, TURN_BORDER = 0.05, 0.05, 0.05  # [1] × reach, [rad], [1]: as leg.*_BORDER
# leg.BRANCHES: (hip plane, knee bend, hip turn), the default first
BRANCHES = tuple((hip, knee, turn) for turn in (1.0, -1.0) for knee in (1.0, -1.0) for hip in (1.0, -1.0))
PARTS = len(BRANCHES) + 4  # work's first row of hip parts, one per (hip, turn) pair (leg_hip.bounds' order)
WORK = (PARTS + 4, max(len(BRANCHES), KEPT))  # solve's scratch: references, best, the other
# branches' q, their distances, their reasons (rows of N entries or one per other branch), the hip
# pairs' bounds, the hip pairs' parts


@inlined
def closed_form(k, rotation, translation, hip_branch, knee_branch, turn, q, references, preferred):
    """LegSolver._closed_form for one sole pose: the raw angles into q (N,); the reach reason, the
    knee's FK values (:func:`knee_fk`) and the hip part (:func:`hip_part`). At the hip gimbal the yaw is the feasible one nearest
    ``preferred`` [rad] (:mod:`.leg_gimbal`; ``references``: the limit check's, per joint)."""
    bend = knee_branch * k[NATURAL]
    plane = leg_plane(k, rotation, translation, hip_branch)
    terms = hip_terms(k, plane[2])
    yaw, roll = hip_yaw(terms, turn), hip_roll(k, terms, turn)
    part = hip_part(k, rotation, plane, plane[2], terms, yaw, roll, turn, bend, references, preferred)
    stretch = two_link.stretch(k, TWO_LINK, part[4], part[5])
    raw, operands = knee_part(k, part, bend, q, stretch)
    return raw, knee_fk(k, operands), part


@inlined
def hip_part(k, rotation, plane, pitch_axis, terms, yaw, roll, turn, bend, references, preferred):
    """:func:`closed_form` up to the knee, as :data:`HIP_PART` floats: yaw, roll, foot roll, pitch
    sum [rad], the ankle from the upper leg's axis in the leg plane (x, z) [m], 1.0 where the plane
    misses W, 1.0 where all of it holds for both knee bends (0.0 at the hip gimbal, where the yaw
    follows the knee's ``bend``), then (from :data:`TRIG`) the cosine and sine of the yaw, the roll,
    the foot roll and the pitch sum, for the FK check (:func:`_checked`).

    ``plane``: :func:`.leg_hip.leg_plane` of the target, ``pitch_axis`` its (or its mirror's: the
    other hip plane's) pitch axis, ``terms`` that axis's :func:`.leg_hip.hip_terms`, ``yaw`` and
    ``roll`` the pair's raw yaw and roll (:func:`.leg_hip.hip_yaw`, :func:`.leg_hip.hip_roll`);
    worked out by the caller, as the seeded search's bounds take them too."""
    foot_axis, foot_point, lateral_miss = plane[0], plane[1], plane[3]
    hip = vector(k, HIP)
    yaw, roll, spread, c1, s1, c2, s2 = hip_angles(k, terms, turn, yaw, roll)
    v = tmatvec(rotation, pitch_axis)
    foot_y, foot_x = dot(vector(k, B1), v), dot(vector(k, B2), v)
    foot = -math.atan2(foot_y, foot_x)
    c6, s6 = unit_xy(foot_x, -foot_y)  # the foot roll's cosine and sine from its arctangent's operands
    ankle = add(foot_point, rotate(foot_axis, c6, -s6, matvec(rotation, vector(k, ANKLE_TIP))))
    relative = sub(ankle, hip)
    shared = spread > leg_gimbal.ALIGNED
    if not shared:
        yaw = leg_gimbal.gimbal_yaw(k, roll, pitch_axis, foot_axis, relative, bend, references, preferred)
        c1, s1 = math.cos(yaw), math.sin(yaw)
    plane_x = rotate(vector(k, W1), c1, s1, rotate(vector(k, W2), c2, s2, vector(k, W6)))
    plane_z = cross(pitch_axis, plane_x)
    pitch_x, pitch_y = dot(foot_axis, plane_x), dot(foot_axis, plane_z)
    cp, sp = unit_xy(pitch_x, pitch_y)
    return (
        yaw,
        roll,
        foot,
        math.atan2(pitch_y, pitch_x),
        dot(relative, plane_x) - k[UPPER_X],
        dot(relative, plane_z) - k[UPPER_Z],
        1.0 if lateral_miss else 0.0,
        1.0 if shared else 0.0,
        c1,
        s1,
        c2,
        s2,
        c6,
        s6,
        cp,
        sp,
    )


@inlined
def _keep(k, part, row):
    """A hip pair's ``part`` (:func:`hip_part`) and its two-link's :func:`.two_link.stretch` into
    ``row`` (:data:`KEPT`), for its other knee bend; that stretch (angle [rad], distance [m], the
    angle's cosine and sine)."""
    for i in range(HIP_PART):
        row[i] = part[i]
    stretch = two_link.stretch(k, TWO_LINK, part[4], part[5])
    row[STRETCH], row[STRETCH + 1], row[STRETCH + 2], row[STRETCH + 3] = stretch
    return stretch


@inlined
def _keep_hip(part, row):
    """A hip pair's ``part`` (:func:`hip_part`) into ``row`` (:data:`KEPT`) without its stretch
    (:func:`_kept_stretch` works it out if a knee part is ever wanted)."""
    for i in range(HIP_PART):
        row[i] = part[i]
    row[STRETCH + 1] = math.nan


@inlined
def _kept_stretch(k, row):
    """The two-link's :func:`.two_link.stretch` of a hip pair kept in ``row`` (:data:`KEPT`), worked
    out and kept where :func:`_keep_hip` left it out."""
    if math.isnan(row[STRETCH + 1]):
        row[STRETCH], row[STRETCH + 1], row[STRETCH + 2], row[STRETCH + 3] = two_link.stretch(
            k, TWO_LINK, row[4], row[5]
        )
    return row[STRETCH], row[STRETCH + 1], row[STRETCH + 2], row[STRETCH + 3]


@inlined
def knee_part(k, part, bend, q, stretch):
    """:func:`closed_form` from the hip pair's ``part`` (:func:`hip_part`, or a row it was kept in)
    and its two-link's ``stretch`` (:func:`.two_link.stretch`'s four values) on:
    the knee's ``bend`` (+1 / -1 × the natural one); the raw angles into q (N,); the reach reason
    and what the knee's FK values are made of (:func:`knee_fk`'s ``operands``: worked out only for
    the branches the FK check reaches)."""
    upper, knee, phi_upper, phi_knee, distance, x_a, y_a, c, s = two_link.bent(
        k, TWO_LINK, part[4], part[5], bend, stretch[0], stretch[1], stretch[2], stretch[3]
    )
    q[0], q[1], q[2], q[3] = part[0], part[1], upper, knee
    q[4], q[5] = k[SIGN5] * (part[3] - phi_upper - phi_knee), part[2]
    operands = (q[2], q[3], q[4], x_a, y_a, c, s)
    if part[6] != 0.0:
        return LATERAL, operands
    if distance > k[REACH_MAX] + REACH_SLACK:
        return FAR, operands
    if distance < k[REACH_MIN] - REACH_SLACK:
        return CLOSE, operands
    return 0, operands


@inlined
def knee_fk(k, operands):
    """What the FK check (:func:`.leg_forward.forward`) takes from the two-link rather than calling
    cos and sin, as :data:`KNEE` floats: the raw q[2], q[3], q[4] [rad] (as :func:`knee_part`
    wrote them), then the cosine and sine of the upper leg's plane angle (from its arctangent's
    operands x_a, y_a) and of the thigh's (the upper leg's and the knee's: the knee's from
    c, s, the cosine and sine of phi_b + kappa, turned back by kappa); ``operands``: (the raw
    q[2], q[3], q[4], x_a, y_a, c, s) from :func:`knee_part`. The leg's pitch signs are the
    two-link's (LegSolver builds it from them), so these are the angles FK reads."""
    q2, q3, q4, x_a, y_a, c, s = operands
    c3, s3 = unit_xy(x_a, y_a)
    cos_b = c * k[COS_KAPPA] + s * k[SIN_KAPPA]
    sin_b = s * k[COS_KAPPA] - c * k[SIN_KAPPA]
    return q2, q3, q4, c3, s3, c3 * cos_b - s3 * sin_b, s3 * cos_b + c3 * sin_b


@inlined
def seed_sides(k, seed):
    """LegSolver._seed_sides and the turn of LegSolver._seed_branch: signed hip-plane side [m],
    knee side and hip turn side of the seed (N,)."""
    phi_upper, phi_knee = k[SIGN3] * seed[2], k[SIGN4] * seed[3]
    phi_thigh, phi = phi_upper + phi_knee, phi_upper + phi_knee + k[SIGN5] * seed[4]
    ux, uz, x1, z1, x2, z2 = k[UPPER_X], k[UPPER_Z], k[LINK1_X], k[LINK1_Z], k[LINK2_X], k[LINK2_Z]
    c3, s3, c34, s34 = math.cos(phi_upper), math.sin(phi_upper), math.cos(phi_thigh), math.sin(phi_thigh)
    ankle_x = ux + x1 * c3 - z1 * s3 + x2 * c34 - z2 * s34
    ankle_z = uz + x1 * s3 + z1 * c3 + x2 * s34 + z2 * c34
    side = math.cos(phi) * ankle_z - math.sin(phi) * ankle_x + k[FOOT_OFFSET + 1]
    turn = k[TURN_COS] * math.cos(seed[1]) + k[TURN_SIN] * math.sin(seed[1])
    return side, math.sin(phi_knee + k[KAPPA]), turn


@inlined
def _limit(k, q, references, reason):
    """BranchSolver._limit_scalar: q wrapped near ``references`` and clipped; the first clipped joint."""
    for i in range(N):
        angle, clipped = wrapped(k, i, q[i], references[i])
        if reason == 0 and abs(clipped - angle) > LIMIT_SLACK:
            reason = LIMIT + i
        q[i] = clipped
    return reason


@inlined
def _checked(k, rotation, translation, q, reason, part, knee):
    """The FK check of a branch's q (N,) (``part``: its hip part, ``knee``: its :func:`knee_fk`;
    :func:`forward`): (reason,
    NOT_MET where it misses the target by more than the tolerance; position error [m], orientation
    error [rad])."""
    fk_rotation, fk_translation = forward(k, q, part, knee)
    return checked(fk_rotation, fk_translation, rotation, translation, k[TOLERANCE], reason)


@inlined
def _branch(k, rotation, translation, references, preferred, branch, q):
    """One branch: q (N,) wrapped and clipped; (reason, position error [m], orientation error [rad]).
    ``preferred``: as :func:`closed_form` takes it."""
    hip, knee, turn = branch
    raw, fk, part = closed_form(k, rotation, translation, hip, knee, turn, q, references, preferred)
    reason = _limit(k, q, references, raw)
    return _checked(k, rotation, translation, q, reason, part, fk)


@inlined
def _copy(source, destination):
    for i in range(N):
        destination[i] = source[i]


@inlined
def _distance(q, seed):
    total = 0.0
    for i in range(N):
        total += (q[i] - seed[i]) * (q[i] - seed[i])
    return total


@ieee_borrowing
def solve(k, rotation, translation, seed, seeded, q, work):
    """One sole pose: the branch search of BranchSolver._solve_scalar into q (N,).

    Seeded, the answer is the successful branch nearest the seed (ties: the seed's own branch, then
    BRANCHES order), so the other branches' FK checks run nearest first and stop at the first pass.

    Args:
        k: the leg's constants (:data:`OFFSETS`). rotation, translation: the target (columns, [m]).
        seed: (N,) [rad], read when ``seeded``. work: :data:`WORK` scratch.
    Returns:
        (reason, position error [m], orientation error [rad], continuous).
    """
    references, best = work[0], work[1]
    for i in range(N):
        references[i] = seed[i] if seeded and k[CONTINUOUS + i] != 0.0 else k[MIDDLE + i]
    if not seeded:
        return _first_success(k, rotation, translation, references, q, work[2])
    preferred = seed[0]
    hip, knee, turn = seed_sides(k, seed)
    first = (
        k[HIP_SIGN] if hip >= 0.0 else -k[HIP_SIGN],
        k[NATURAL] if knee >= 0.0 else -k[NATURAL],
        1.0 if turn >= 0.0 else -1.0,
    )
    border = abs(hip) < HIP_BORDER * k[REACH_MAX] or abs(knee) < math.sin(KNEE_BORDER)
    border = border or abs(turn) < TURN_BORDER
    bend = first[1] * k[NATURAL]
    plane = leg_plane(k, rotation, translation, first[0])
    terms = hip_terms(k, plane[2])
    yaw, roll = hip_yaw(terms, first[2]), hip_roll(k, terms, first[2])
    part = hip_part(k, rotation, plane, plane[2], terms, yaw, roll, first[2], bend, references, preferred)
    raw, operands = knee_part(k, part, bend, best, _keep(k, part, work[PARTS]))
    reason = _limit(k, best, references, raw)
    found = _checked(k, rotation, translation, best, reason, part, knee_fk(k, operands))
    best_distance = closest = _distance(best, seed)
    if not (found[0] == 0 and best_distance < k[NEAR_SEED] and not border):
        others = len(BRANCHES) - 1
        distances, reasons, count = work[2 + others], work[3 + others], 0
        bounds = work[4 + others]  # leg_hip.bounds per (hip, turn) pair
        for pair in range(1, 4):
            work[PARTS + pair, SHARED] = 0.0  # not solved yet; pair 0 is the first's
        # other branches whose bound is no nearer than a successful first are skipped: a successful
        # first is only displaced by one strictly nearer the seed, and such a branch does not lower
        # ``closest`` below the answer's distance either; a bound is infinite where the branch must
        # fail its limits and cannot count for ``closest`` (the other hip turn's)
        solved = found[0] == 0
        mirror_terms = hip_terms(k, plane[4])  # the other hip plane's
        leg_hip.bounds(
            k,
            terms,
            mirror_terms,
            references,
            first,
            best,
            work[PARTS],
            seed,
            solved,
            best_distance,
            bounds,
        )
        beaten = best_distance if solved else math.inf
        for branch in BRANCHES:
            if branch == first:
                continue
            hip_branch, knee_branch, turn_branch = branch
            pair = _pair_of(branch, first)
            if bounds[pair] >= beaten:
                reasons[count] = SKIPPED
                count += 1
                continue
            row, kept, bend = work[2 + count], work[PARTS + pair], knee_branch * k[NATURAL]
            rival = turn_branch == first[2]  # LegSolver._rival: the seed's own hip turn
            if kept[SHARED] != 0.0:  # the pair's hip part, solved for the other knee bend
                hip_distance, fails = _hip_check(k, kept, references, seed)
                if fails:  # as its other bend did: no knee part now
                    reasons[count], distances[count] = PENDING if rival else SKIPPED, hip_distance
                    count += 1
                    continue
                raw, operands = knee_part(k, kept, bend, row, _kept_stretch(k, kept))
            else:
                mirrored = hip_branch != first[0]
                axis, axis_terms = (plane[4], mirror_terms) if mirrored else (plane[2], terms)
                known = mirrored and turn_branch == first[2]  # its yaw and roll may have had a bound
                yaw = bounds[leg_hip.MIRROR_YAW] if known else math.nan
                yaw = hip_yaw(axis_terms, turn_branch) if math.isnan(yaw) else yaw
                roll = bounds[leg_hip.MIRROR_ROLL] if known else math.nan
                roll = hip_roll(k, axis_terms, turn_branch) if math.isnan(roll) else roll
                part = hip_part(
                    k, rotation, plane, axis, axis_terms, yaw, roll, turn_branch, bend, references, preferred
                )
                hip_distance, fails = _hip_check(k, part, references, seed)
                if hip_distance >= beaten:  # its hip and foot roll alone lose: no knee part
                    if part[SHARED] != 0.0:  # nor for the pair's other knee bend
                        bounds[pair] = hip_distance
                    reasons[count] = SKIPPED
                    count += 1
                    continue
                if fails and part[SHARED] != 0.0:  # no knee part now (at the gimbal the yaw follows it)
                    _keep_hip(part, kept)  # for the pair's other bend, and _pending_closest
                    reasons[count], distances[count] = PENDING if rival else SKIPPED, hip_distance
                    count += 1
                    continue
                raw, operands = knee_part(k, part, bend, row, _keep(k, part, kept))
            for i in range(KNEE):
                row[KNEE_FK + i] = operands[i]
            reasons[count], distances[count] = _limit(k, row, references, raw), _distance(row, seed)
            if rival:
                closest = min(closest, distances[count])
            count += 1
        while True:  # the nearest successful other branch (strictly nearer than a successful first)
            pick = _nearest(reasons, distances, count, found[0] == 0, best_distance)
            if pick < 0:
                break
            row = work[2 + pick]
            knee = knee_fk(k, _knee_kept(row))
            checked = _checked(k, rotation, translation, row, 0, work[PARTS + _pair(first, pick)], knee)
            if checked[0] == 0:
                found, best_distance = checked, distances[pick]
                _copy(work[2 + pick], best)
                break
            reasons[pick] = checked[0]
        if best_distance <= closest:  # only a pending branch nearer than the answer can flag a jump
            closest = _pending_closest(k, work, first, count, references, seed, best_distance, closest)
    _copy(best, q)
    return found[0], found[1], found[2], best_distance <= closest


@inlined
def _hip_check(k, part, references, seed):
    """For a branch whose hip part is ``part`` (:func:`hip_part`): the yaw's, roll's and foot
    roll's terms of :func:`_distance` [rad²], wrapped and clipped as :func:`_limit` does (no more
    than that branch's distance, in floats too: the same terms, the first two summed in the same
    order, and a float sum of non-negative terms only grows as terms are added); and whether every
    branch of that hip pair fails :func:`_limit` whatever its knee (the plane misses W, or a limit
    clips the yaw, the roll or the foot roll, the q[0], q[1], q[5] :func:`knee_part` writes, by
    more than LIMIT_SLACK)."""
    yaw, yaw_clipped = wrapped(k, 0, part[0], references[0])
    roll, roll_clipped = wrapped(k, 1, part[1], references[1])
    foot, foot_clipped = wrapped(k, N - 1, part[2], references[N - 1])
    distance = (
        (yaw_clipped - seed[0]) * (yaw_clipped - seed[0])
        + (roll_clipped - seed[1]) * (roll_clipped - seed[1])
        + (foot_clipped - seed[N - 1]) * (foot_clipped - seed[N - 1])
    )
    clipped = abs(yaw_clipped - yaw) > LIMIT_SLACK or abs(roll_clipped - roll) > LIMIT_SLACK
    return distance, part[6] != 0.0 or clipped or abs(foot_clipped - foot) > LIMIT_SLACK


@inlined
def _pending_closest(k, work, first, count, references, seed, best_distance, closest):
    """``closest`` [rad²] lowered by the PENDING branches among the first ``count`` other branches
    of :func:`solve` (``work``: its scratch) whose hip terms (their ``distances``) are below the
    answer's ``best_distance``: each one's knee part, clipped q and distance, until one is nearer
    than the answer (then ``continuous`` is False whatever the rest). The others cannot be nearer
    than the answer (:func:`_hip_check`), so ``continuous``, best_distance <= closest, is what
    all their distances would give."""
    others = len(BRANCHES) - 1
    distances, reasons, index = work[2 + others], work[3 + others], 0
    for branch in BRANCHES:
        if branch == first:
            continue
        if index < count and reasons[index] == PENDING and distances[index] < best_distance:
            kept, row = work[PARTS + _pair_of(branch, first)], work[2 + index]
            raw = knee_part(k, kept, branch[1] * k[NATURAL], row, _kept_stretch(k, kept))[0]
            _limit(k, row, references, raw)
            closest = min(closest, _distance(row, seed))
            if closest < best_distance:
                return closest
        index += 1
    return closest


@inlined
def _knee_kept(row):
    """The :func:`knee_fk` operands a branch's scratch row keeps from :data:`KNEE_FK` on."""
    at = KNEE_FK
    return (row[at], row[at + 1], row[at + 2], row[at + 3], row[at + 4], row[at + 5], row[at + 6])


@inlined
def _pair_of(branch, first):
    """The row of ``branch``'s hip pair among the kept parts (0: the first's, as in :func:`solve`)."""
    return (0 if branch[0] == first[0] else 2) + (0 if branch[2] == first[2] else 1)


@ieee_inlined
def _pair(first, index):
    """The hip pair of the ``index``-th branch other than ``first`` (in BRANCHES order)."""
    count = 0
    for branch in BRANCHES:
        if branch == first:
            continue
        if count == index:
            return _pair_of(branch, first)
        count += 1
    return 0


@ieee_inlined
def _nearest(reasons, distances, count, first_solved, best_distance):
    """Index of the nearest branch whose limits and reach passed (strictly nearer than
    ``best_distance`` when the first branch solved; ties: the lower index), or -1."""
    pick = -1
    for i in range(count):
        wanted = reasons[i] == 0 and (not first_solved or distances[i] < best_distance)
        if wanted and (pick < 0 or distances[i] < distances[pick]):
            pick = i
    return pick


@ieee_borrowing
def _first_success(k, rotation, translation, references, q, other):
    """Unseeded: the first branch in BRANCHES order that succeeds (else the first's result), into
    q; ``other`` (N,) is scratch."""
    found = _branch(k, rotation, translation, references, k[REST_YAW], BRANCHES[0], q)
    if found[0] != 0:
        for branch in BRANCHES[1:]:
            checked = _branch(k, rotation, translation, references, k[REST_YAW], branch, other)
            if checked[0] == 0:
                _copy(other, q)
                return checked[0], checked[1], checked[2], True
    return found[0], found[1], found[2], True


@ieee_borrowing
def solve_entries(k, e, seed, seeded, q, work):
    """:func:`solve` for a target given as 16 row-major entries ``e``: (reason, position error,
    orientation error, continuous)."""
    rotation = ((e[0], e[4], e[8]), (e[1], e[5], e[9]), (e[2], e[6], e[10]))
    return solve(k, rotation, (e[3], e[7], e[11]), seed, seeded, q, work)


@ieee_borrowing
def check_solve(k, e, seed, seeded, lower, upper, clipped, q, work):
    """One solve's whole compiled part in one call from Python (a dispatch from Python costs more
    than this check): :func:`.inputs.check` of the 16 row-major entries ``e`` and, when
    ``seeded``, of ``seed`` (clipped into [lower, upper] into ``clipped``), then where both pass
    :func:`solve_entries` on the clipped seed into q (N,).

    Returns:
        (the check's code, then :func:`solve_entries`' reason, position error [m], orientation
        error [rad] and continuous; where the check fails nothing is solved: 0, NaN, NaN, True).
    """
    code = inputs.check(e, seed, seeded, lower, upper, clipped)
    if code != inputs.VALID:
        return code, 0, math.nan, math.nan, True
    reason, position_error, orientation_error, continuous = solve_entries(k, e, clipped, seeded, q, work)
    return code, reason, position_error, orientation_error, continuous
