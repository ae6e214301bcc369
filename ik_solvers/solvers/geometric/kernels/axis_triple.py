"""A rotation split into three joints R = Rot(a, θ1) Rot(b, θ2) Rot(c, θ3), compiled (numba).

The float arithmetic of :class:`~ik_solvers.solvers.geometric.arm7.axis_triple.AxisTriple` (see
its docstring: both branches, the alignment split, the 2π representatives within the limits) and
of its swivel forms (:mod:`ik_solvers.solvers.geometric.arm7.swivel_search`), in the same order of
operations. A triple's constants come as one float array ``t`` laid out by :data:`OFFSETS`
(:func:`constants` fills it from an ``AxisTriple``).
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.compiled.jit import ieee_borrowing, ieee_inlined
from ik_solvers.solvers.geometric.kernels.vector3 import dot, matvec, wrap

ALIGNED = 1e-12  # axis_triple.ALIGNED
LIMIT_TOLERANCE = 1e-10  # axis_triple.LIMIT_TOLERANCE [rad]
RATE_ALIGNED = 1e-6  # axis_triple.RATE_ALIGNED
NEAR_SEED = (0.5 * math.pi) ** 2  # axis_triple.NEAR_SEED [rad²]
RAW, MIDDLE, SEED = 0.0, 1.0, 2.0  # how an angle is brought into its limits (AxisTriple._kind)
ENTRIES = 7  # entries u·R w of the swivel forms (axis_triple.ENTRY_COUNT)
# where each constant starts in ``t``
ALPHA, COS_ALPHA, SIN_ALPHA, CXB_A, CXB_X, ALL_RAW = range(6)
LOWER, UPPER, MIDDLE_ANGLE, KIND = 6, 9, 12, 15  # 3 each
PAIRS = 18  # ENTRIES × (u, w): 6 floats each
LIMITS = PAIRS + 6 * ENTRIES  # 6 limit equations × (ENTRIES coefficients, constant)
ARCS = LIMITS + 6 * (ENTRIES + 1)  # each joint's limits as a circle arc: cos, sin of its ends
LONG, ARCS_USABLE = ARCS + 12, ARCS + 15  # 3 flags (arc longer than π), 1 flag (no "seed" kind)
SIZE = ARCS_USABLE + 1
KINDS = {"raw": RAW, "middle": MIDDLE, "seed": SEED}
# [rad²] taken off each angle's term in seed_distance_bound: far more than the rounding of the
# chords and of the split's own angles (~1e-15)
CHORD_SLACK = 1e-12
BOUND_ALIGNED = 1e-9  # h below this (the triple near its alignment): seed_distance_bound gives 0
TINY_NORM = 1e-150  # (yb, s3) shorter than this: the third angle's terms of the bound are 0
# [rad, as a sine] an angle this near a limit is not decided from its point (:func:`_arc_side`):
# far more than the rounding of the points and the arcs' ends (~1e-15), more than LIMIT_TOLERANCE
ARC_MARGIN = 1e-9
# k_1² above (k_c² + k_s²) times this: |k_1| > hypot(k_c, k_s) for certain (each side's rounding is
# ~1e-16 relative), so k_c cos ψ + k_s sin ψ + k_1 has no root (:func:`form_roots`)
ROOTLESS = 1.0 + 1e-9


def constants(triple) -> np.ndarray:
    """(SIZE,) the constants of an :class:`~ik_solvers.solvers.geometric.arm7.axis_triple.AxisTriple`."""
    t = np.zeros(SIZE)
    t[:6] = (triple.alpha, triple.cos_alpha, triple.sin_alpha, triple.cxb_a, triple.cxb_x, triple._all_raw)
    t[LOWER : LOWER + 3], t[UPPER : UPPER + 3] = triple.lower, triple.upper
    t[MIDDLE_ANGLE : MIDDLE_ANGLE + 3] = triple.middle
    t[KIND : KIND + 3] = [KINDS[kind] for kind in triple._range_kind]
    t[PAIRS:LIMITS] = np.ravel(triple.entry_pairs())
    t[LIMITS:ARCS] = triple.limit_equations().ravel()
    for i in range(3):
        offset = triple.alpha if i == 1 else 0.0  # θ2 = α + atan2(h, g)
        ends = (triple.lower[i] - offset, triple.upper[i] - offset)
        t[ARCS + 4 * i : ARCS + 4 * i + 4] = [f(end) for end in ends for f in (math.cos, math.sin)]
        t[LONG + i] = triple.upper[i] - triple.lower[i] > math.pi
    t[ARCS_USABLE] = "seed" not in triple._range_kind
    return t


@ieee_inlined
def entry(t, i, rotation):
    """u·R w of pair i (:meth:`AxisTriple.entry_pairs` order) for R given by its columns."""
    start = PAIRS + 6 * i
    u = (t[start], t[start + 1], t[start + 2])
    return dot(u, matvec(rotation, (t[start + 3], t[start + 4], t[start + 5])))


@ieee_inlined
def entries(t, rotation):
    """The six entries :func:`first_raw` needs."""
    return (
        entry(t, 0, rotation),
        entry(t, 1, rotation),
        entry(t, 2, rotation),
        entry(t, 3, rotation),
        entry(t, 4, rotation),
        entry(t, 5, rotation),
    )


@ieee_inlined
def _third_point(t, e, h, c1, s1):
    """(s3, yb): the point whose ``atan2`` is the first branch's θ3, from the entries ``e``, h and
    θ1's point (c1, s1)."""
    g, _, _, n3, bb, ab = e
    c2 = t[COS_ALPHA] * g - t[SIN_ALPHA] * h
    s2 = t[SIN_ALPHA] * g + t[COS_ALPHA] * h
    yb, yx = bb * c1 + ab * s1, ab * c1 - bb * s1
    return (t[CXB_A] * c2 + t[CXB_X] * s2) * n3 + (t[CXB_X] * c2 - t[CXB_A] * s2) * yx, yb


@ieee_inlined
def first_raw(t, e, seed0):
    """The first branch's angles before they are brought into range (AxisTriple._first_raw)."""
    g, n1, d1 = e[0], e[1], e[2]
    h = math.sqrt(n1 * n1 + d1 * d1)
    inverse = 1.0 / max(h, ALIGNED)
    regular = h > ALIGNED
    c1 = -d1 * inverse if regular else math.cos(seed0)
    s1 = n1 * inverse if regular else math.sin(seed0)
    s3, yb = _third_point(t, e, h, c1, s1)
    first, middle, third = math.atan2(s1, c1), t[ALPHA] + math.atan2(h, g), math.atan2(s3, yb)
    if not regular:  # at the alignment θ1 keeps the seed's value unless θ3 would leave its limits
        sigma = 1.0 if g >= 0.0 else -1.0
        bounded = min(max(third, t[LOWER + 2]), t[UPPER + 2])
        first, third = first + sigma * (third - bounded), bounded
    return first, middle, third


@ieee_borrowing
def _half_turn(angle):
    return angle + (-math.pi if angle > 0.0 else math.pi)


@ieee_borrowing
def other(t, angles):
    """The second branch's raw angles from the first's."""
    return _half_turn(angles[0]), 2.0 * t[ALPHA] - angles[1], _half_turn(angles[2])


@ieee_borrowing
def _in_range(t, i, angle, seed):
    kind = t[KIND + i]
    if kind == RAW:
        return angle
    near_middle = wrap(angle, t[MIDDLE_ANGLE + i])
    if kind == MIDDLE:
        return near_middle
    near_seed = wrap(angle, seed)
    return near_seed if t[LOWER + i] <= near_seed <= t[UPPER + i] else near_middle


@ieee_inlined
def ranged(t, angles, seed):
    """Each angle at its representative within the limits (nearest the seed where several)."""
    if t[ALL_RAW] != 0.0:
        return angles
    return (
        _in_range(t, 0, angles[0], seed[0]),
        _in_range(t, 1, angles[1], seed[1]),
        _in_range(t, 2, angles[2], seed[2]),
    )


@ieee_borrowing
def violation(t, angles):
    """Total distance [rad] of the angles outside their limits."""
    total = 0.0
    for i in range(3):
        total += _outside(t, i, angles[i])
    return total


@ieee_inlined
def _outside(t, i, angle):
    """Distance [rad] of joint i's ``angle`` outside its limits; 0 within."""
    lower, upper = t[LOWER + i], t[UPPER + i]
    return lower - angle if angle < lower else angle - upper if angle > upper else 0.0


@ieee_borrowing
def _distance(angles, seed):
    total = 0.0
    for i in range(3):
        total += (angles[i] - seed[i]) * (angles[i] - seed[i])
    return total


@ieee_borrowing
def seed_branch(t, e, seed):
    """The branch nearest the seed whatever the limits: angles, violation, True for the first."""
    raw = first_raw(t, e, seed[0])
    first, second = ranged(t, raw, seed), ranged(t, other(t, raw), seed)
    upper = _distance(first, seed) <= _distance(second, seed)
    chosen = first if upper else second
    return chosen, violation(t, chosen), upper


@ieee_borrowing
def seed_points(seed):
    """(cos, sin) of each of the three seed angles [rad]: the points :func:`seed_distance_bound`
    measures chords to."""
    return (
        (math.cos(seed[0]), math.sin(seed[0])),
        (math.cos(seed[1]), math.sin(seed[1])),
        (math.cos(seed[2]), math.sin(seed[2])),
    )


@ieee_inlined
def _arc_squared(chord2):
    """A lower bound [rad²] of d² for the arc d whose chord² (2 - 2 cos d) is ``chord2``, less
    CHORD_SLACK: 4 asin²(c/2) = c² + c⁴/12 + c⁶/90 + c⁸/560 + … (all terms positive), cut there."""
    u = min(max(chord2, 0.0), 4.0)
    return max(u * (1.0 + u * (1.0 / 12.0 + u * (1.0 / 90.0 + u / 560.0))) - CHORD_SLACK, 0.0)


@ieee_inlined
def _surely_out(t, i, x, y, margin):
    """Joint i's angle at the point (x, y) (its arctangent's) outside its limits by more than
    ARC_MARGIN for certain: :func:`_arc_side`'s -1, as a select (no branch)."""
    sa, sb = _crosses(t, i, x, y)
    below_a, below_b = sa < -margin, sb < -margin
    return (below_a & below_b) if t[LONG + i] != 0.0 else (below_a | below_b)


@ieee_inlined
def seed_distance_bound(t, e, points):
    """A lower bound [rad²] of the distance from the seed of :func:`seed_branch`'s angles for the
    entries ``e`` where that split is within the limits, without an arctangent: each angle of
    both branches as the point (cos, sin) that :func:`first_raw`'s ``atan2`` reads, its chord to
    the seed's point (``points``, from :func:`seed_points`) turned into a lower bound of the arc
    (:func:`_arc_squared`; no representative within the limits is nearer than the arc); the
    smaller branch's sum, a branch whose angle is surely outside its limits left out (as
    :func:`_arc_feasible` decides it; where usable): the split takes the nearer branch, and when
    that one is within the limits its sum is at least the bound. Infinite when both branches are
    surely outside: no split there is within the limits. On the second branch θ1 and θ3 are
    turned by π (chord² 4 - c²) and θ2 = 2α - (α + β) is α - β. 0 near the alignment
    (h < BOUND_ALIGNED), where the split takes the seed's first angle. Every term is computed and
    the cases chosen by selects, without branches, so that :func:`seed_distance_bounds`
    vectorises."""
    g, n1, d1, n3, bb, ab = e
    h = math.sqrt(n1 * n1 + d1 * d1)
    inverse = 1.0 / max(h, ALIGNED)
    c1, s1 = -d1 * inverse, n1 * inverse
    ca, sa = t[COS_ALPHA], t[SIN_ALPHA]
    c2, s2 = ca * g - sa * h, sa * g + ca * h
    yb, yx = bb * c1 + ab * s1, ab * c1 - bb * s1
    s3 = (t[CXB_A] * c2 + t[CXB_X] * s2) * n3 + (t[CXB_X] * c2 - t[CXB_A] * s2) * yx
    (cs0, ss0), (cs1, ss1), (cs2, ss2) = points
    first = 2.0 - 2.0 * (c1 * cs0 + s1 * ss0)
    to_middle = 2.0 / math.sqrt(g * g + h * h)
    middle = 2.0 - to_middle * (c2 * cs1 + s2 * ss1)
    mirrored = 2.0 - to_middle * ((ca * g + sa * h) * cs1 + (sa * g - ca * h) * ss1)
    norm = math.sqrt(yb * yb + s3 * s3)
    third = 2.0 - 2.0 * (yb * cs2 + s3 * ss2) / max(norm, TINY_NORM)
    has_third = norm > TINY_NORM
    upper = _arc_squared(first) + _arc_squared(middle) + (_arc_squared(third) if has_third else 0.0)
    lower = (
        _arc_squared(4.0 - first) + _arc_squared(mirrored) + (_arc_squared(4.0 - third) if has_third else 0.0)
    )
    length = abs(yb) + abs(s3)
    decided = (t[ARCS_USABLE] != 0.0) & (h > ALIGNED) & (length > TINY_NORM)
    m1, m0, m2 = ARC_MARGIN * (abs(g) + h), ARC_MARGIN * (abs(c1) + abs(s1)), ARC_MARGIN * length
    upper_out = _surely_out(t, 1, g, h, m1) | _surely_out(t, 0, c1, s1, m0) | _surely_out(t, 2, yb, s3, m2)
    lower_out = (
        _surely_out(t, 1, g, -h, m1) | _surely_out(t, 0, -c1, -s1, m0) | _surely_out(t, 2, -yb, -s3, m2)
    )
    upper = math.inf if decided & upper_out else upper
    lower = math.inf if decided & lower_out else lower
    return min(upper, lower) if h > BOUND_ALIGNED else 0.0


@ieee_borrowing
def seed_distance_bounds(t, forms, points, cosines, sines, bounds, count):
    """:func:`seed_distance_bound` at the swivels (cosines[i], sines[i]) into bounds[i], i < count;
    ``forms``: the triple's swivel forms (ENTRIES, 3). Without a branch or a checked division
    (:func:`~ik_solvers.compiled.jit.ieee_borrowing`), LLVM runs this loop on four swivels at once."""
    for i in range(count):
        bounds[i] = seed_distance_bound(t, entries_at(forms, cosines[i], sines[i]), points)


@ieee_borrowing
def on_branch(t, e, seed, upper):
    """The angles of one branch (``upper``: the first) and their violation."""
    raw = first_raw(t, e, seed[0])
    chosen = ranged(t, raw if upper else other(t, raw), seed)
    return chosen, violation(t, chosen)


@ieee_borrowing
def prefer_first(violation1, distance1, violation2, distance2):
    """axis_triple.prefer_first: less outside the limits, else nearer the seed."""
    return violation1 < violation2 - LIMIT_TOLERANCE or (
        violation1 <= violation2 + LIMIT_TOLERANCE and distance1 <= distance2
    )


@ieee_inlined
def nearest(t, e, seed):
    """The branch within limits nearest the seed (else the one least outside): angles, violation."""
    raw = first_raw(t, e, seed[0])
    first = ranged(t, raw, seed)
    v1 = violation(t, first)
    d1 = (first[0] - seed[0]) ** 2 + (first[1] - seed[1]) ** 2 + (first[2] - seed[2]) ** 2
    if v1 == 0.0 and d1 < NEAR_SEED:
        return first, v1
    second = ranged(t, other(t, raw), seed)
    v2 = violation(t, second)
    if prefer_first(v1, d1, v2, _distance(second, seed)):
        return first, v1
    return second, v2


@ieee_inlined
def entries_at(forms, cos_psi, sin_psi):
    """The six entries :func:`first_raw` needs at swivel ψ, from their swivel forms (ENTRIES, 3):
    each entry is k_c cos ψ + k_s sin ψ + k_1."""
    return (
        forms[0, 0] * cos_psi + forms[0, 1] * sin_psi + forms[0, 2],
        forms[1, 0] * cos_psi + forms[1, 1] * sin_psi + forms[1, 2],
        forms[2, 0] * cos_psi + forms[2, 1] * sin_psi + forms[2, 2],
        forms[3, 0] * cos_psi + forms[3, 1] * sin_psi + forms[3, 2],
        forms[4, 0] * cos_psi + forms[4, 1] * sin_psi + forms[4, 2],
        forms[5, 0] * cos_psi + forms[5, 1] * sin_psi + forms[5, 2],
    )


@ieee_inlined
def _both_outside(t, i, angle, mirrored, seed):
    """:func:`_outside` of joint i's angle on the first branch and ``mirrored`` on the second,
    each brought into range as :func:`ranged` does."""
    if t[ALL_RAW] == 0.0:
        angle, mirrored = _in_range(t, i, angle, seed[i]), _in_range(t, i, mirrored, seed[i])
    return _outside(t, i, angle), _outside(t, i, mirrored)


@ieee_inlined
def _within(branch, first, second):
    """:func:`feasible`'s answer from the branches' violations (or partial sums of them)."""
    if branch == 1:
        return first <= LIMIT_TOLERANCE
    if branch == 0:
        return second <= LIMIT_TOLERANCE
    return min(first, second) <= LIMIT_TOLERANCE


@ieee_inlined
def _arc_side(t, i, sa, sb, margin):
    """Whether joint i's angle is within its limits, told from its point P on the circle: 1 within
    by more than ARC_MARGIN, -1 outside by more, 0 too near a limit to tell. sa = A × P and
    sb = P × B for the arc's ends A, B (ARCS); ``margin``: ARC_MARGIN × an upper bound of |P|.
    "raw" angles are atan2's, in [-π, π], with limits within it, so the arc from the lower limit
    counterclockwise to the upper is the set within them (its ends at the cut ±π decide nothing,
    being limits); "middle" angles are brought into [m - π, m + π) for the middle m of limits at
    most 2π apart, so the arc is too. An arc up to π long is the wedge left of A and right of B;
    a longer one is all but the wedge of its complement. Outside by more than the margin on the
    circle is outside by more in the angle's own range, and more than LIMIT_TOLERANCE."""
    if t[LONG + i] == 0.0:
        if sa > margin and sb > margin:
            return 1
        return -1 if sa < -margin or sb < -margin else 0
    if sa < -margin and sb < -margin:
        return -1
    return 1 if sa > margin or sb > margin else 0


@ieee_inlined
def _crosses(t, i, x, y):
    """(A × P, P × B) for joint i's arc ends A, B and the point P = (x, y)."""
    start = ARCS + 4 * i
    return t[start] * y - t[start + 1] * x, x * t[start + 3] - y * t[start + 2]


@ieee_inlined
def _merge(state, side):
    """A branch's state (1: every joint so far within, 0: some undecided, -1: some outside)
    after one more joint's :func:`_arc_side`."""
    return -1 if state < 0 or side < 0 else min(state, side)


@ieee_inlined
def _merge_both(t, i, x, y, margin, first, second):
    """Both branches' states after joint i, its angle at the point (x, y) on the first branch and
    half a turn on, at (-x, -y), on the second."""
    sa, sb = _crosses(t, i, x, y)
    return _merge(first, _arc_side(t, i, sa, sb, margin)), _merge(second, _arc_side(t, i, -sa, -sb, margin))


@ieee_inlined
def _arc_verdict(branch, first, second):
    """:func:`feasible`'s answer from both branches' states when they decide it (1 feasible, -1
    not), else 0. A branch not wanted counts as outside."""
    if branch == 0:
        first = -1
    elif branch == 1:
        second = -1
    if first > 0 or second > 0:
        return 1
    return -1 if first < 0 and second < 0 else 0


@ieee_borrowing
def _arc_feasible(t, e, h, c1, s1, branch):
    """:func:`feasible` away from the alignment without an arctangent: each joint's angle on both
    branches placed against its limits as a point on the circle (:func:`_arc_side`): θ2 - α at
    (g, ±h), θ1 at ±(c1, s1), θ3 at ±(yb, s3) (the second branch's θ1, θ3 half a turn on). Returns
    1 (feasible), -1 (not) or 0 where an angle within ARC_MARGIN of a limit leaves it undecided:
    where it decides, the violations' sums are 0 or a term exceeds LIMIT_TOLERANCE, so it is the
    arctangents' answer."""
    g = e[0]
    margin = ARC_MARGIN * (abs(g) + h)
    sa, sb = _crosses(t, 1, g, h)
    first = _arc_side(t, 1, sa, sb, margin)
    sa, sb = _crosses(t, 1, g, -h)
    second = _arc_side(t, 1, sa, sb, margin)
    if _arc_verdict(branch, first, second) < 0:
        return -1
    first, second = _merge_both(t, 0, c1, s1, ARC_MARGIN * (abs(c1) + abs(s1)), first, second)
    if _arc_verdict(branch, first, second) < 0:
        return -1
    s3, yb = _third_point(t, e, h, c1, s1)
    length = abs(yb) + abs(s3)
    if not length > TINY_NORM:  # too short a point to place by its products
        return 0
    first, second = _merge_both(t, 2, yb, s3, ARC_MARGIN * length, first, second)
    return _arc_verdict(branch, first, second)


@ieee_borrowing
def feasible(t, forms, seed, branch, cos_psi, sin_psi):
    """A branch (``branch`` 1: the first, 0: the second, -1: either) within limits at swivel ψ;
    ``forms`` (ENTRIES, 3): the entries' (k_c, k_s, k_1). The angles of :func:`first_raw` and
    :func:`other` one joint at a time, θ2 (one ``atan2``) first: once the violations summed so far
    rule out the wanted branches, the rest is not computed (a sum of terms ≥ 0 only grows, so the
    answer is that of the whole sums, which are summed in :func:`violation`'s order). Before the
    arctangents, :func:`_arc_feasible` decides it from the angles' points where no angle is
    within ARC_MARGIN of a limit (all but a few in 10,000 tests), with the same answer."""
    e = entries_at(forms, cos_psi, sin_psi)
    g, n1, d1 = e[0], e[1], e[2]
    h = math.sqrt(n1 * n1 + d1 * d1)
    if not h > ALIGNED:  # the alignment: θ1 and θ3 depend on each other
        raw = first_raw(t, e, seed[0])
        first, second = violation(t, ranged(t, raw, seed)), violation(t, ranged(t, other(t, raw), seed))
        return _within(branch, first, second)
    inverse = 1.0 / max(h, ALIGNED)
    c1, s1 = -d1 * inverse, n1 * inverse
    if t[ARCS_USABLE] != 0.0:
        verdict = _arc_feasible(t, e, h, c1, s1, branch)
        if verdict != 0:
            return verdict > 0
    middle = t[ALPHA] + math.atan2(h, g)
    middle1, middle2 = _both_outside(t, 1, middle, 2.0 * t[ALPHA] - middle, seed)
    if not _within(branch, middle1, middle2):
        return False
    angle = math.atan2(s1, c1)
    first, second = _both_outside(t, 0, angle, _half_turn(angle), seed)
    first, second = first + middle1, second + middle2
    if not _within(branch, first, second):
        return False
    s3, yb = _third_point(t, e, h, c1, s1)
    angle = math.atan2(s3, yb)
    third1, third2 = _both_outside(t, 2, angle, _half_turn(angle), seed)
    return _within(branch, first + third1, second + third2)


@ieee_borrowing
def form_roots(k_c, k_s, k_1):
    """The ψ in [-π, π] with k_c cos ψ + k_s sin ψ + k_1 = 0: (count 0 or 2, root, root).

    A form whose squares say |k_1| exceeds the amplitude by far more than their rounding
    (ROOTLESS) has none, known without the ``hypot`` (which decides the others): about half of
    the limit equations on the packaged arm's random targets (the limit roots 14 % faster)."""
    if k_1 * k_1 > (k_c * k_c + k_s * k_s) * ROOTLESS:
        return 0, 0.0, 0.0
    amplitude = math.hypot(k_c, k_s)
    if not (amplitude > 0.0 and abs(k_1) <= amplitude):
        return 0, 0.0, 0.0
    spread, phase = math.acos(-k_1 / amplitude), math.atan2(k_s, k_c)
    return 2, _remainder(phase + spread), _remainder(phase - spread)


@ieee_borrowing
def _remainder(angle):
    """math.remainder(angle, 2π) for angles within [-2π, 2π] (exact: Sterbenz)."""
    two_pi = 2.0 * math.pi
    if angle > math.pi:
        return angle - two_pi
    if angle < -math.pi:
        return angle + two_pi
    return angle


@ieee_borrowing
def limit_roots(t, forms, roots, count):
    """Append the swivels where a joint meets a limit (swivel_search._limit_roots_one) to
    ``roots`` from index ``count``; returns the new count."""
    for row in range(6):
        start = LIMITS + row * (ENTRIES + 1)
        k_c = k_s = k_1 = 0.0
        for j in range(ENTRIES):
            coefficient = t[start + j]
            if coefficient != 0.0:
                k_c += coefficient * forms[j, 0]
                k_s += coefficient * forms[j, 1]
                k_1 += coefficient * forms[j, 2]
        found, first, second = form_roots(k_c, k_s, k_1 + t[start + ENTRIES])
        if found:
            roots[count], roots[count + 1] = first, second
            count += 2
    return count


@ieee_borrowing
def matching_roots(forms, points, roots, count):
    """Append the swivels where the first or third joint takes its value in the seed whose
    :func:`seed_points` are ``points`` (swivel_search.matching_swivels_one: the same cos and sin of
    those angles); returns the new count."""
    for i, j, sign, point in ((1, 2, 1.0, points[0]), (3, 6, -1.0, points[2])):
        c, s = point[0], sign * point[1]
        found, first, second = form_roots(
            c * forms[i, 0] + s * forms[j, 0],
            c * forms[i, 1] + s * forms[j, 1],
            c * forms[i, 2] + s * forms[j, 2],
        )
        if found:
            roots[count], roots[count + 1] = first, second
            count += 2
    return count


@ieee_inlined
def rates_at(forms, cos_psi, sin_psi):
    """d/dψ of :func:`entries_at`'s six entries: -k_c sin ψ + k_s cos ψ each."""
    return (
        forms[0, 1] * cos_psi - forms[0, 0] * sin_psi,
        forms[1, 1] * cos_psi - forms[1, 0] * sin_psi,
        forms[2, 1] * cos_psi - forms[2, 0] * sin_psi,
        forms[3, 1] * cos_psi - forms[3, 0] * sin_psi,
        forms[4, 1] * cos_psi - forms[4, 0] * sin_psi,
        forms[5, 1] * cos_psi - forms[5, 0] * sin_psi,
    )


@ieee_inlined
def first_rates(t, e, de):
    """AxisTriple.first_rates: d/dψ of :func:`first_raw`'s angles [rad/rad] from the entries ``e``
    and their rates ``de``; NaN near the alignment (|R c × a| < ``RATE_ALIGNED``)."""
    g, n1, d1, n3, bb, ab = e
    dg, dn1, dd1, dn3, dbb, dab = de
    h2 = n1 * n1 + d1 * d1
    if h2 < RATE_ALIGNED * RATE_ALIGNED:
        return math.nan, math.nan, math.nan
    h = math.sqrt(h2)
    c1, s1 = -d1 / h, n1 / h
    rate1 = (n1 * dd1 - d1 * dn1) / h2
    dh = (n1 * dn1 + d1 * dd1) / h
    rate2 = (g * dh - h * dg) / (g * g + h2)
    dc1, ds1 = -s1 * rate1, c1 * rate1
    ca, sa, xa, xx = t[COS_ALPHA], t[SIN_ALPHA], t[CXB_A], t[CXB_X]
    c2, s2 = ca * g - sa * h, sa * g + ca * h
    dc2, ds2 = ca * dg - sa * dh, sa * dg + ca * dh
    yb, yx = bb * c1 + ab * s1, ab * c1 - bb * s1
    dyb = dbb * c1 + bb * dc1 + dab * s1 + ab * ds1
    dyx = dab * c1 + ab * dc1 - dbb * s1 - bb * ds1
    p, r = xa * c2 + xx * s2, xx * c2 - xa * s2
    s3 = p * n3 + r * yx
    ds3 = (xa * dc2 + xx * ds2) * n3 + p * dn3 + (xx * dc2 - xa * ds2) * yx + r * dyx
    return rate1, rate2, (yb * ds3 - s3 * dyb) / (yb * yb + s3 * s3)
