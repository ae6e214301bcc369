"""The 7-DoF arm's swivel pieces compiled (numba): the triples' split at a swivel, the swivel
forms, and the nearest feasible swivel; the seed following (:mod:`.arm7_follow`) is built on them.

The float arithmetic of the solver's swivel search (Shimizu et al.'s arm-angle intervals: the
feasible swivel nearest the requested one) and of the pieces of
:func:`ik_solvers.solvers.geometric.arm7.follow.follow_one`, in the same order of operations but
for one shortcut: away from the construction's own swivel, a triple's entries come from their
swivel forms (:func:`groups`, k_c cos ψ + k_s sin ψ + k_1: 18 operations instead of turning the
shoulder and wrist rotations), equal but for rounding (< 1e-7 rad on the answers; same branches,
flags and messages). One construction (``arm``: the elbow and the shoulder rotation at the
requested swivel, from the solver's step 1-2) is packed by :func:`pack`; the arm's constants are
the two triples' arrays (:mod:`.axis_triple`) and ``geo`` (:data:`GEO_SIZE`: the elbow axis, then
the seven limits).
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.compiled.jit import ieee_borrowing, ieee_inlined
from ik_solvers.solvers.geometric.kernels import axis_triple as triple
from ik_solvers.solvers.geometric.kernels.axis_triple import ENTRIES
from ik_solvers.solvers.geometric.kernels.vector3 import cross, dot, matvec, rotate, tmatvec

# where ``geo`` holds each constant of the arm (ArmGeometry's names; then the solver's options)
GEO_LAYOUT = (("elbow_axis", 3), ("lower", 7), ("upper", 7), ("shoulder_centre", 3), ("upper_arm", 3))
GEO_LAYOUT += (("forearm_along", 3), ("forearm_across", 3), ("forearm_turned", 3), ("tool", 3))
GEO_LAYOUT += (("tip_rows", 9), ("tip_columns", 9), ("tip_identity", 1), ("c0", 1), ("amplitude", 1))
GEO_LAYOUT += (("phase", 1), ("axes", 21), ("elbow_direction", 3), ("swivel", 1), ("rest", 7))
GEO_LAYOUT += (("jump_limit", 1), ("tolerance", 1))
GEO = {name: sum(size for _, size in GEO_LAYOUT[:i]) for i, (name, _) in enumerate(GEO_LAYOUT)}
GEO_SIZE = sum(size for _, size in GEO_LAYOUT)
ELBOW_AXIS, LOWER, UPPER, AXES = GEO["elbow_axis"], GEO["lower"], GEO["upper"], GEO["axes"]
AXIS, FRAME, ELBOW, GOAL, SEED, Q4, ARM_SIZE = 0, 3, 12, 14, 23, 30, 31  # where ``arm`` holds what
ROOTS = 2 + 2 * 12  # ±π and two roots per limit equation of both triples


def pack(arm) -> np.ndarray:
    """(ARM_SIZE,) one float construction (the solver's ``_Arm``) as the kernels read it."""
    return np.array(
        [*arm.axis, *arm.frame[0], *arm.frame[1], *arm.frame[2], *arm.elbow]
        + [*arm.goal[0], *arm.goal[1], *arm.goal[2], *arm.seed, arm.q4]
    )


@ieee_borrowing
def _columns(a, start):
    return (
        (a[start], a[start + 1], a[start + 2]),
        (a[start + 3], a[start + 4], a[start + 5]),
        (a[start + 6], a[start + 7], a[start + 8]),
    )


@ieee_inlined
def _times(axis, columns, c, s):
    """Columns of M · Rot(axis, q) for c = cos q, s = sin q."""
    basis = (
        rotate(axis, c, s, (1.0, 0.0, 0.0)),
        rotate(axis, c, s, (0.0, 1.0, 0.0)),
        rotate(axis, c, s, (0.0, 0.0, 1.0)),
    )
    return (matvec(columns, basis[0]), matvec(columns, basis[1]), matvec(columns, basis[2]))


@ieee_borrowing
def _turned(arm, psi):
    """The construction's shoulder rotation turned by ψ [rad] about the shoulder→wrist axis."""
    axis, frame = (arm[AXIS], arm[AXIS + 1], arm[AXIS + 2]), _columns(arm, FRAME)
    c, s = math.cos(psi), math.sin(psi)
    return (rotate(axis, c, s, frame[0]), rotate(axis, c, s, frame[1]), rotate(axis, c, s, frame[2]))


@ieee_inlined
def _wrist_rotation(geo, arm, frame):
    """Rw = (Rs R4)ᵀ R_target Mᵀ for the shoulder rotation ``frame``."""
    forward = _times(
        (geo[ELBOW_AXIS], geo[ELBOW_AXIS + 1], geo[ELBOW_AXIS + 2]), frame, arm[ELBOW], arm[ELBOW + 1]
    )
    goal = _columns(arm, GOAL)
    return (tmatvec(forward, goal[0]), tmatvec(forward, goal[1]), tmatvec(forward, goal[2]))


@ieee_borrowing
def _seeds(arm):
    return (arm[SEED], arm[SEED + 1], arm[SEED + 2]), (arm[SEED + 4], arm[SEED + 5], arm[SEED + 6])


@ieee_borrowing
def _store(q, shoulder, q4, wrist):
    q[0], q[1], q[2], q[3], q[4], q[5], q[6] = (
        shoulder[0],
        shoulder[1],
        shoulder[2],
        q4,
        wrist[0],
        wrist[1],
        wrist[2],
    )


@ieee_borrowing
def seed_branches(shoulder, wrist, geo, arm, frame, q):
    """q (7,) at the shoulder rotation ``frame`` on the branches nearest the seed; returns the
    violation [rad] and the branches (shoulder, wrist: True for the first)."""
    seed_s, seed_w = _seeds(arm)
    s_angles, s_out, s_upper = triple.seed_branch(shoulder, triple.entries(shoulder, frame), seed_s)
    w_entries = triple.entries(wrist, _wrist_rotation(geo, arm, frame))
    w_angles, w_out, w_upper = triple.seed_branch(wrist, w_entries, seed_w)
    _store(q, s_angles, arm[Q4], w_angles)
    return s_out + w_out, s_upper, w_upper


@ieee_borrowing
def _at(shoulder, wrist, forms, arm, s_upper, w_upper, psi, q):
    """q (7,) at swivel ψ [rad] on the given branches, its entries from the swivel forms ``forms``
    (:func:`groups`); returns its violation [rad]."""
    c, s = math.cos(psi), math.sin(psi)
    seed_s, seed_w = _seeds(arm)
    s_angles, s_out = triple.on_branch(shoulder, triple.entries_at(forms[0], c, s), seed_s, s_upper)
    w_angles, w_out = triple.on_branch(wrist, triple.entries_at(forms[1], c, s), seed_w, w_upper)
    _store(q, s_angles, arm[Q4], w_angles)
    return s_out + w_out


@ieee_borrowing
def joints(shoulder, wrist, geo, arm, frame, q):
    """The solver's step 3 (``_joints``): q (7,) at the shoulder rotation ``frame``, each triple on
    its branch within limits nearest the seed; returns how far both are outside their limits [rad]."""
    seed_s, seed_w = _seeds(arm)
    s_angles, s_out = triple.nearest(shoulder, triple.entries(shoulder, frame), seed_s)
    w_angles, w_out = triple.nearest(wrist, triple.entries(wrist, _wrist_rotation(geo, arm, frame)), seed_w)
    _store(q, s_angles, arm[Q4], w_angles)
    return s_out + w_out


@ieee_borrowing
def _form(y, x, axis, sign, forms, i):
    """forms[i] = (k_c, k_s, k_1) of y · Rot(axis, sign ψ) x (swivel_search.form_coefficients)."""
    along = (y[0] * axis[0] + y[1] * axis[1] + y[2] * axis[2]) * (
        axis[0] * x[0] + axis[1] * x[1] + axis[2] * x[2]
    )
    across = cross(axis, x)
    forms[i, 0] = dot(y, x) - along
    forms[i, 1] = sign * dot(y, across)
    forms[i, 2] = along


@ieee_borrowing
def groups(shoulder, wrist, geo, arm, forms):
    """The swivel forms of both triples (the solver's ``_groups``) into ``forms`` (2, ENTRIES, 3)."""
    axis, frame = (arm[AXIS], arm[AXIS + 1], arm[AXIS + 2]), _columns(arm, FRAME)
    elbow_axis = (geo[ELBOW_AXIS], geo[ELBOW_AXIS + 1], geo[ELBOW_AXIS + 2])
    forward, goal = _times(elbow_axis, frame, arm[ELBOW], arm[ELBOW + 1]), _columns(arm, GOAL)
    for i in range(ENTRIES):
        start = triple.PAIRS + 6 * i
        u = (shoulder[start], shoulder[start + 1], shoulder[start + 2])
        _form(
            u,
            matvec(frame, (shoulder[start + 3], shoulder[start + 4], shoulder[start + 5])),
            axis,
            1.0,
            forms[0],
            i,
        )
        u = (wrist[start], wrist[start + 1], wrist[start + 2])
        w = (wrist[start + 3], wrist[start + 4], wrist[start + 5])
        _form(matvec(forward, u), matvec(goal, w), axis, -1.0, forms[1], i)


@ieee_borrowing
def _order(keys, count, order):
    """order[:count] = the indices of keys[:count] by increasing key, ties in index order (stable)."""
    for i in range(count):
        key, j = keys[i], i - 1
        while j >= 0 and keys[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = i


# what the walk of :func:`nearest_feasible_swivel` knows of one triple on a piece: nothing yet, or
# its verdict there (within its limits on a wanted branch, or not)
UNKNOWN, WITHIN, OUTSIDE = 0, 1, -1


@ieee_borrowing
def _verdicts(shoulder, wrist, forms, arm, s_branch, w_branch, middle, s_known, w_known):
    """Both triples' verdicts (WITHIN, OUTSIDE; :func:`.axis_triple.feasible` on the given branches,
    -1: either) at swivel ``middle`` [rad], given what is already known there (``s_known``,
    ``w_known``): a known verdict is kept and not tested again; once one is OUTSIDE, the other is
    left as it is (the piece is not feasible either way). The wrist first: with its narrower
    ranges it is the one that fails more often (471 of 622 pieces tried against 231 for the
    shoulder on the packaged arm's random targets)."""
    if s_known == OUTSIDE or w_known == OUTSIDE:
        return s_known, w_known
    c, s = math.cos(middle), math.sin(middle)
    seed_s, seed_w = _seeds(arm)
    if w_known == UNKNOWN:
        w_known = WITHIN if triple.feasible(wrist, forms[1], seed_w, w_branch, c, s) else OUTSIDE
        if w_known == OUTSIDE:
            return s_known, w_known
    if s_known == UNKNOWN:
        s_known = WITHIN if triple.feasible(shoulder, forms[0], seed_s, s_branch, c, s) else OUTSIDE
    return s_known, w_known


@ieee_inlined
def _split(roots, start, end, below, above, left, right):
    """roots[start:end] split by sign after the ``left`` and ``right`` already there: ψ < 0 negated
    into ``below``, the others into ``above``; returns the new counts."""
    for i in range(start, end):
        if roots[i] < 0.0:
            below[left] = -roots[i]
            left += 1
        else:
            above[right] = roots[i]
            right += 1
    return left, right


@ieee_borrowing
def _split_bounds(shoulder, wrist, forms, scratch):
    """±π and every limit root of both triples, unsorted, split by sign in the order found: the
    roots ψ < 0 negated into scratch[1], the others into scratch[2]. Returns their two counts,
    then how many of each side's come first from ±π and the shoulder (the wrist's follow)."""
    roots, below, above = scratch[0], scratch[1], scratch[2]
    roots[0], roots[1] = -math.pi, math.pi
    shoulder_end = triple.limit_roots(shoulder, forms[0], roots, 2)
    count = triple.limit_roots(wrist, forms[1], roots, shoulder_end)
    left_shoulder, right_shoulder = _split(roots, 0, shoulder_end, below, above, 0, 0)
    left, right = _split(roots, shoulder_end, count, below, above, left_shoulder, right_shoulder)
    return left, right, left_shoulder, right_shoulder


@ieee_borrowing
def _take_least(values, count):
    """The least of values[:count] not yet taken, the first found on ties, and its index; marks it
    taken (NaN). One at least must be left."""
    least, index = math.inf, 0
    for i in range(count):
        if values[i] < least:
            least, index = values[i], i
    values[index] = math.nan
    return least, index


@ieee_borrowing
def nearest_feasible_swivel(shoulder, wrist, forms, arm, s_branch, w_branch, scratch):
    """swivel_search.nearest_feasible_swivel_one: (found, ψ [rad]) with every joint within limits
    on the given branches (1: the first, 0: the second, -1: either), nearest ψ = 0: the nearest
    point of the first feasible piece between consecutive limit roots, the pieces tried by the
    distance of their nearest point from ψ = 0 (0 for the piece holding it; on a tie the left
    piece first). The pieces are walked outward from the one holding 0, each side's next root
    taken from the unsorted roots only when its piece is tried (most searches end within a few
    pieces of 0): the sorted order's pieces in the sorted order's turn, so the same answer.

    Each side remembers both triples' verdicts on its last piece tried (:func:`_verdicts`): a
    triple's are constant between its own limit roots (Shimizu et al., 2008; what testing one
    point a piece already relies on), so crossing a root of the other triple keeps them, and a
    piece whose remembered verdict is OUTSIDE is passed without a test (about half the pieces
    tried on the packaged arm). scratch: (3, ROOTS)."""
    below, above = scratch[1], scratch[2]
    left_count, right_count, left_shoulder, right_shoulder = _split_bounds(shoulder, wrist, forms, scratch)
    left_high, index = _take_least(below, left_count)  # the piece holding 0: [-left_high, right's first]
    left_high, left_by_shoulder = -left_high, index < left_shoulder
    right_low, right_by_shoulder, left_left, right_left = (
        left_high,
        left_by_shoulder,
        left_count - 1,
        right_count,
    )
    s_left = w_left = s_right = w_right = UNKNOWN
    first = True
    while left_left > 0 or right_left > 0:
        if left_left == 0 or (right_left > 0 and max(right_low, 0.0) < -left_high):
            (high, index), low = _take_least(above, right_count), right_low
            s_right, w_right = _crossed(right_by_shoulder, s_right, w_right)
            s_right, w_right = _verdicts(
                shoulder, wrist, forms, arm, s_branch, w_branch, 0.5 * (low + high), s_right, w_right
            )
            right_low, right_by_shoulder, right_left = high, index < right_shoulder, right_left - 1
            s_known, w_known = s_right, w_right
            if first:
                s_left, w_left, first = s_right, w_right, False
        else:
            (low, index), high = _take_least(below, left_count), left_high
            low = -low
            s_left, w_left = _crossed(left_by_shoulder, s_left, w_left)
            s_left, w_left = _verdicts(
                shoulder, wrist, forms, arm, s_branch, w_branch, 0.5 * (low + high), s_left, w_left
            )
            left_high, left_by_shoulder, left_left = low, index < left_shoulder, left_left - 1
            s_known, w_known = s_left, w_left
        if s_known == WITHIN and w_known == WITHIN:
            return True, 0.0 if low <= 0.0 <= high else low if abs(low) < abs(high) else high
    return False, 0.0


@ieee_inlined
def _crossed(by_shoulder, s_known, w_known):
    """What a side knows of both triples after crossing a root of the shoulder (``by_shoulder``) or
    of the wrist: that triple's verdict is no longer known."""
    return (UNKNOWN, w_known) if by_shoulder else (s_known, UNKNOWN)


@ieee_borrowing
def search(shoulder, wrist, geo, arm, q, forms, scratch):
    """The solver's swivel search (step 4) into q (7,): the angles at the feasible swivel nearest the
    requested one (True), or False when no swivel keeps every joint within its limits."""
    groups(shoulder, wrist, geo, arm, forms)
    found, psi = nearest_feasible_swivel(shoulder, wrist, forms, arm, -1, -1, scratch)
    if found:
        joints(shoulder, wrist, geo, arm, _turned(arm, psi), q)
    return found
