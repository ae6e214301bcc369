"""The leg's hip compiled (numba): the leg plane and the hip angles of
:class:`~ik_solvers.solvers.geometric.leg.LegSolver` (its ``_closed_form`` and ``_hip_angles``),
and cheap lower bounds of a branch's distance to the seed, with which the seeded search of
:func:`.leg.solve` skips the branches that cannot beat the answer it has.

A branch's answer q is wrapped and clipped joint by joint (:func:`wrapped`), and its distance to
the seed is the sum of the squared joint differences, so any part of that sum bounds it from below.
The other branches share most of their joints with one already solved: the first's own hip pair
with the knee flipped has the same hip angles and foot roll, and a knee mirrored about the stretch
(the two-link's bend -ψ for ψ: θ' = -θ - 2 s κ); a hip pair's yaw and roll cost a leg plane and two
arctangents, the yaw's one alone often enough; once a pair's hip part is solved, its yaw, roll
and foot roll terms bound both its knee bends before their knee parts (:func:`.leg._hip_check`).
The bounds are inlined into the search (a call each cost 4 % of a seeded solve).
A branch of the seed's other hip turn counts only where it succeeds, so a pair of that turn whose
yaw or roll a limit clips (on most legs the turned yaw, the first's ± π, is out of limits) is not
solved at all, whether or not the first succeeded.
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import ieee_inlined, inlined
from ik_solvers.solvers.geometric.kernels import two_link
from ik_solvers.solvers.geometric.kernels.leg_gimbal import ALIGNED
from ik_solvers.solvers.geometric.kernels.leg_layout import (
    CONTINUOUS,
    COS_ACROSS,
    COS_YAW,
    HIP,
    HIP_SIGN,
    KAPPA,
    LATERAL_W,
    LOWER,
    P6_TIP,
    ROLL_SIGN,
    SHARED,
    SIN_ACROSS,
    SIN_YAW,
    TWO_LINK,
    UPPER,
    W1,
    W6_TIP,
    YAW_COSINE,
    YAW_SINE,
)
from ik_solvers.solvers.geometric.kernels.vector3 import (
    add,
    combine,
    cross,
    dot,
    matvec,
    scale,
    sub,
    vector,
    wrap,
)

REACH_SLACK = 1e-12  # [m] leg.REACH_SLACK
FLIP_SLACK = 1e-8  # [rad] the flipped knee from the answer's: off by its clip (≤ 1e-9) and rounding
TURN_SLACK = 1e-12  # [rad] the turned yaw from the first's: off by rounding
LIMIT_SLACK = 1e-9  # [rad] leg.LIMIT_SLACK
WRAP_SLACK = 1e-9  # [rad] a turned yaw this near its wrap's ends is not bounded (see _turned_bound)
ACUTE = 0.5 * math.pi - 1e-6  # [rad] limits within ±ACUTE clip an angle whose cosine is < 0 (see _beyond)
# bounds' out[4], out[5]: the other hip plane's raw roll and yaw on the first's turn, NaN where not worked out
MIRROR_ROLL, MIRROR_YAW = 4, 5


@inlined
def leg_plane(k, rotation, translation, hip_branch):
    """The first steps of :func:`.leg.closed_form`: (foot roll axis, a point of it, the leg plane's
    normal (the pitch axis) on ``hip_branch``'s side, whether the plane misses W, the other hip
    plane's normal: its mirror, the same bits as on ``-hip_branch``'s side as IEEE products are
    symmetric in sign)."""
    foot_axis = matvec(rotation, vector(k, W6_TIP))
    foot_point = add(matvec(rotation, vector(k, P6_TIP)), translation)
    offset = sub(foot_point, vector(k, HIP))
    normal = sub(offset, scale(foot_axis, dot(offset, foot_axis)))
    rho = math.sqrt(dot(normal, normal))
    inverse = 1.0 / max(rho, 1e-12)
    cosine = k[LATERAL_W] * inverse
    lateral_miss = abs(cosine) > 1.0 + REACH_SLACK
    cosine = min(max(cosine, -1.0), 1.0)
    unit = scale(normal, inverse)
    side, across = cross(foot_axis, unit), hip_branch * k[HIP_SIGN] * math.sqrt(1.0 - cosine * cosine)
    pitch_axis, mirror = combine(unit, cosine, side, across), combine(unit, cosine, side, -across)
    return foot_axis, foot_point, pitch_axis, lateral_miss, mirror


@inlined
def hip_terms(k, pitch_axis):
    """What both hip pairs' angles are made of: (the pitch axis along the yaw axis, the length of
    its part across it (0 at the gimbal), its yaw sine and cosine terms)."""
    along_yaw = dot(vector(k, W1), pitch_axis)
    beside = sub(pitch_axis, scale(vector(k, W1), along_yaw))  # LegSolver._hip_angles: exact at the gimbal
    spread = math.sqrt(dot(beside, beside))
    return along_yaw, spread, dot(pitch_axis, vector(k, YAW_SINE)), dot(pitch_axis, vector(k, YAW_COSINE))


@inlined
def hip_roll(k, terms, turn):
    """The roll [rad] of the hip pair ``turn`` from :func:`hip_terms`."""
    y, x = _roll_operands(k, terms, turn)
    return math.atan2(y, x)


@inlined
def _roll_operands(k, terms, turn):
    """The operands (y, x) of the roll's arctangent (:func:`hip_roll`)."""
    along_yaw, spread = terms[0], terms[1]
    across = turn * k[ROLL_SIGN] * spread
    return along_yaw * k[SIN_YAW] + across * k[SIN_ACROSS], along_yaw * k[COS_YAW] + across * k[COS_ACROSS]


@inlined
def hip_yaw(terms, turn):
    """The raw yaw [rad] of the hip pair ``turn`` from :func:`hip_terms` (its arctangent)."""
    return math.atan2(turn * terms[2], turn * terms[3])


@inlined
def hip_angles(k, terms, turn, yaw, roll):
    """LegSolver._hip_angles: yaw (``yaw``, :func:`hip_yaw`) and roll (``roll``, :func:`hip_roll`)
    [rad], both computed by the caller, who may have needed them before, that turn the q = 0
    pitch axis onto the pitch axis whose :func:`hip_terms` are ``terms`` (``turn``: the pair), the
    length of its part across the yaw axis, then the cosine and sine of the yaw and of the roll
    from their arctangents' operands (x / r, y / r: the cosine and sine of the angle to rounding,
    without calling them)."""
    roll_y, roll_x = _roll_operands(k, terms, turn)
    c1, s1 = unit_xy(turn * terms[3], turn * terms[2])
    c2, s2 = unit_xy(roll_x, roll_y)
    return yaw, roll, terms[1], c1, s1, c2, s2


@inlined
def unit_xy(x, y):
    """(x, y) / |(x, y)|: the cosine and sine of atan2(y, x) to rounding ((1, 0) at the origin,
    where atan2 gives 0)."""
    length = math.sqrt(x * x + y * y)
    if length > 0.0:
        return x / length, y / length
    return 1.0, 0.0


@inlined
def wrapped(k, i, angle, reference):
    """Joint i's ``angle`` wrapped near ``reference``, and that clipped into its limits [rad]."""
    if not reference - math.pi <= angle < reference + math.pi:
        angle = wrap(angle, reference)
    return angle, min(max(angle, k[LOWER + i]), k[UPPER + i])


@ieee_inlined
def _square(x):
    return x * x


@ieee_inlined
def _limited(k, i, angle, reference):
    """Joint i's ``angle`` wrapped near ``reference`` and clipped into its limits [rad], and False
    where the clip moves it by more than LIMIT_SLACK (and TURN_SLACK, for an angle off by
    rounding): every branch with that angle fails its limit check (:func:`.leg._limit`)."""
    angle, clipped = wrapped(k, i, angle, reference)
    return clipped, abs(clipped - angle) <= LIMIT_SLACK + TURN_SLACK


@ieee_inlined
def _pair_bound(k, terms, turn, references, seed, enough):
    """The yaw's and roll's terms of the distance of hip pair ``turn``'s answer to the seed (the
    yaw's alone where it reaches ``enough``, or where the yaw is beyond its limits (:func:`_beyond`)
    the smaller of its two limits' terms, if that reaches ``enough``; the roll's alone at the
    gimbal, where the yaw is chosen later). Then the pair's raw roll and yaw [rad]
    (:func:`hip_roll`, :func:`hip_yaw`), for its hip part, each NaN where it was not needed."""
    total, yaw = 0.0, math.nan
    if terms[1] > ALIGNED:
        if _beyond(k, 0, turn * terms[3]):
            floor = min(_square(k[LOWER] - seed[0]), _square(k[UPPER] - seed[0]))
            if floor >= enough:  # the exact term is one of the two
                return floor, math.nan, yaw
        yaw = hip_yaw(terms, turn)
        total = _square(_limited(k, 0, yaw, references[0])[0] - seed[0])
        if total >= enough:
            return total, math.nan, yaw
    roll = hip_roll(k, terms, turn)
    return total + _square(_limited(k, 1, roll, references[1])[0] - seed[1]), roll, yaw


@ieee_inlined
def _beyond(k, i, x):
    """Whether joint i's angle, the arctangent of operands (y, ``x``), is clipped by its limits
    whatever its wrap: ``x`` < 0 puts it beyond ±π/2 (atan2 rounds no nearer), every wrap keeps its
    cosine < 0, and limits within ±ACUTE stay more than 1e-6 rad inside ±π/2 (LIMIT_SLACK,
    TURN_SLACK ≪ that)."""
    return x < 0.0 and -ACUTE < k[LOWER + i] and k[UPPER + i] < ACUTE


@ieee_inlined
def _flip_bound(k, answer, gimbal, references, seed):
    """The roll's, foot roll's, yaw's and knee's terms of the distance to the seed of the answer's
    own hip pair with the knee flipped (the yaw's and knee's left out at the gimbal, where the yaw
    and with it the knee follow the bend; elsewhere the pair's yaw is the answer's, the same float)."""
    total = _square(answer[1] - seed[1]) + _square(answer[5] - seed[5])
    if gimbal:
        return total
    total += _square(answer[0] - seed[0])
    lower, upper = k[TWO_LINK + two_link.LOWER_B], k[TWO_LINK + two_link.UPPER_B]
    knee = wrap(-answer[3] - 2.0 * k[TWO_LINK + two_link.SIGN_B] * k[KAPPA], 0.5 * (lower + upper))
    knee = wrapped(k, 3, min(max(knee, lower), upper), references[3])[1]
    return total + _square(max(abs(knee - seed[3]) - FLIP_SLACK, 0.0))


@ieee_inlined
def _turned_bound(k, terms, yaw, turn, references, seed, enough):
    """:func:`_pair_bound` of hip pair ``turn`` (``terms``: its hip plane's :func:`hip_terms`),
    its yaw the other turn's raw ``yaw`` ± π: no arctangent unless the roll's term is wanted too
    (the yaw's less TURN_SLACK, as ± π and the arctangent of the negated terms may differ in the
    last bit). Infinite where a limit clips the yaw (not tested on a continuous yaw, whose wrap
    near the seed may differ in turn by that bit) or the roll. Within WRAP_SLACK of the wrap's
    ends (the reference ± π) that bit may wrap the yaw to the other end: no yaw term there.
    Infinite first, without the roll's arctangent, where the roll is beyond its limits
    (:func:`_beyond`; on most legs the turned pairs' rolls): where the yaw's term alone would
    have reached ``enough``, that skips the pair all the same."""
    roll_y, roll_x = _roll_operands(k, terms, turn)
    if _beyond(k, 1, roll_x):
        return math.inf
    total = 0.0
    if terms[1] > ALIGNED:  # not at the gimbal (:func:`.leg.hip_part`)
        turned = yaw - math.pi if yaw > 0.0 else yaw + math.pi
        angle, clipped = wrapped(k, 0, turned, references[0])
        if abs(angle - references[0]) < math.pi - WRAP_SLACK:
            if abs(clipped - angle) > LIMIT_SLACK + TURN_SLACK and k[CONTINUOUS] == 0.0:
                return math.inf
            total = _square(max(abs(clipped - seed[0]) - TURN_SLACK, 0.0))
            if total >= enough:
                return total
    roll, inside = _limited(k, 1, math.atan2(roll_y, roll_x), references[1])
    return total + _square(roll - seed[1]) if inside else math.inf


@ieee_inlined
def bounds(k, terms, mirror_terms, references, first, answer, part, seed, solved, enough, out):
    """Lower bounds [rad²] of the distance to the seed of the answers of the branches other than
    ``first`` (its answer ``answer``, its hip part ``part``: :func:`.leg.hip_part`; ``terms`` and
    ``mirror_terms``: :func:`hip_terms` of its hip plane's pitch axis and the other's), per pair into
    ``out``[:4]: 0 the first's hip pair (its knee flipped), 1 its hip turned, 2 and 3 the other hip
    plane (the first's turn, the other). A bound may stop short once it reaches ``enough`` [rad²];
    the other turn's pairs' are infinite where a limit clips their yaw or roll (such branches fail,
    and count for ``continuous`` only on the seed's turn). Where the first did not succeed (not
    ``solved``) only the other turn's pairs are bounded, and the seed's turn's are 0.
    ``out``[MIRROR_ROLL], ``out``[MIRROR_YAW]: the raw roll and yaw of pair 2 where its bounds
    worked them out (its hip part takes them rather than a second arctangent of the same
    operands), else NaN."""
    limit = enough if solved else math.inf
    out[0] = _flip_bound(k, answer, part[SHARED] == 0.0, references, seed) if solved else 0.0
    out[1] = _turned_bound(k, terms, part[0], -first[2], references, seed, limit)
    if solved:
        out[2], out[MIRROR_ROLL], mirror_yaw = _pair_bound(k, mirror_terms, first[2], references, seed, limit)
    else:
        out[2], out[MIRROR_ROLL], mirror_yaw = 0.0, math.nan, math.nan
    if _beyond(k, 1, _roll_operands(k, mirror_terms, -first[2])[1]):
        out[3] = math.inf  # as _turned_bound finds first, without the turned yaw's arctangent
    else:
        mirror_yaw = hip_yaw(mirror_terms, first[2]) if math.isnan(mirror_yaw) else mirror_yaw
        out[3] = _turned_bound(k, mirror_terms, mirror_yaw, -first[2], references, seed, limit)
    out[MIRROR_YAW] = mirror_yaw
