"""The 7-DoF arm's whole solve compiled (numba): one target, and many in one call.

The float arithmetic of :mod:`ik_solvers.solvers.geometric.arm7.solver` (steps 1-2: the elbow
angle and the shoulder rotation at the wanted swivel, by pole, seed or default; step 3: the joint
split; step 4: seed following or the swivel search of :mod:`.arm7`; then clipping and the FK
check), in the same order of operations. Constants: the two triples (:mod:`.axis_triple`) and
``geo`` (:data:`.arm7.GEO`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ik_solvers.compiled.jit import ieee_borrowing, ieee_inlined, ieee_parallel_borrowing
from ik_solvers.solvers.geometric.kernels import arm7, arm7_follow, inputs
from ik_solvers.solvers.geometric.kernels.arm7 import GEO
from ik_solvers.solvers.geometric.kernels.axis_triple import ENTRIES, LIMIT_TOLERANCE, prefer_first
from ik_solvers.solvers.geometric.kernels.vector3 import (
    add,
    checked,
    cross,
    dot,
    matvec,
    rotate,
    scale,
    sub,
    wrap,
)

FAR, CLOSE, ELBOW_LIMITS, NO_SWIVEL = 1, 2, 3, 4  # arm7.solver's reason codes
CHUNK = 32  # rows a batch thread takes at a time: 0.05-0.3 ms of work, against a few µs to hand one out
REACH_SLACK, STRETCH, TINY = 1e-12, 0.1, 1e-12  # solver.REACH_SLACK [m²], STRETCH [rad], TINY [m]
SHOULDER_CENTRE, UPPER_ARM, TOOL, AXES = GEO["shoulder_centre"], GEO["upper_arm"], GEO["tool"], GEO["axes"]
ALONG, ACROSS, TURNED = GEO["forearm_along"], GEO["forearm_across"], GEO["forearm_turned"]
TIP_ROWS, TIP_COLUMNS, TIP_IDENTITY = GEO["tip_rows"], GEO["tip_columns"], GEO["tip_identity"]
C0, AMPLITUDE, PHASE, SWIVEL, REST = GEO["c0"], GEO["amplitude"], GEO["phase"], GEO["swivel"], GEO["rest"]
ELBOW_DIRECTION, JUMP_LIMIT, TOLERANCE = GEO["elbow_direction"], GEO["jump_limit"], GEO["tolerance"]
LOWER, UPPER, ELBOW_AXIS = GEO["lower"], GEO["upper"], GEO["elbow_axis"]


@ieee_borrowing
def _v(a, start):
    return (a[start], a[start + 1], a[start + 2])


@ieee_inlined
def _normalised(v):
    return scale(v, 1.0 / max(math.sqrt(dot(v, v)), TINY))


@ieee_inlined
def _shoulder_to_wrist(geo, c4, s4):
    """v = e + R4 f with Rs = I [m] (ArmGeometry.shoulder_to_wrist)."""
    return (
        geo[UPPER_ARM] + geo[ALONG] + geo[ACROSS] * c4 + geo[TURNED] * s4,
        geo[UPPER_ARM + 1] + geo[ALONG + 1] + geo[ACROSS + 1] * c4 + geo[TURNED + 1] * s4,
        geo[UPPER_ARM + 2] + geo[ALONG + 2] + geo[ACROSS + 2] * c4 + geo[TURNED + 2] * s4,
    )


@ieee_borrowing
def _seed_turn(geo, seed, vector):
    """The seed's shoulder rotation Rot(a1, q1) Rot(a2, q2) Rot(a3, q3) applied to ``vector``."""
    for i in range(2, -1, -1):
        vector = rotate(_v(geo, AXES + 3 * i), math.cos(seed[i]), math.sin(seed[i]), vector)
    return vector


@ieee_inlined
def _normal_part(vector, axis):
    across = sub(vector, scale(axis, dot(vector, axis)))
    return across, math.sqrt(dot(across, across))


@ieee_inlined
def _toward(direction, angle, axis, offset):
    """elbow_direction.toward: (valid, R0 k for the elbow toward ``direction`` turned by ``angle``)."""
    across, length = _normal_part(direction, axis)
    ek, ej = offset
    lever = math.sqrt(ek * ek + ej * ej)
    inverse = 1.0 / max(lever, TINY)
    cb, sb = ek * inverse, ej * inverse
    ca, sa = math.cos(angle), math.sin(angle)
    c, s = ca * cb + sa * sb, sa * cb - ca * sb
    turned = rotate(axis, c, s, scale(across, 1.0 / max(length, TINY)))
    return length > 1e-9 and lever > 1e-9, turned


@ieee_inlined
def _following(vector, axis):
    across, length = _normal_part(vector, axis)
    return length > 1e-6, scale(across, 1.0 / max(length, TINY))


@ieee_borrowing
def _outside(angle, lower, upper):
    return max(lower - angle, 0.0) + max(angle - upper, 0.0)


@ieee_inlined
def _elbow(geo, distance2, seed4, flip):
    """solver._elbow: (q4, reason, the other root fits too, the root continues the seed's elbow)."""
    amplitude = geo[AMPLITUDE]
    x = distance2 - geo[C0]
    clamped = min(max(x, -amplitude), amplitude)
    spread = math.atan2(math.sqrt(max((amplitude - clamped) * (amplitude + clamped), 0.0)), clamped)
    lower, upper = geo[LOWER + 3], geo[UPPER + 3]
    middle = 0.5 * (lower + upper)
    first, second = wrap(geo[PHASE] + spread, middle), wrap(geo[PHASE] - spread, middle)
    out1, out2 = _outside(first, lower, upper), _outside(second, lower, upper)
    pick = prefer_first(out1, abs(first - seed4), out2, abs(second - seed4))
    if flip:
        pick = not pick
    chosen, other = (first, second) if pick else (second, first)
    kept = abs(chosen - seed4) <= abs(other - seed4) + STRETCH
    q4 = min(max(chosen, lower), upper)
    reason = FAR if x > amplitude + REACH_SLACK else CLOSE if x < -amplitude - REACH_SLACK else 0
    limited = (out1 if pick else out2) > LIMIT_TOLERANCE
    alternative = reason == 0 and out1 <= LIMIT_TOLERANCE and out2 <= LIMIT_TOLERANCE
    if reason == 0 and limited:
        reason = ELBOW_LIMITS
    return q4, reason, alternative, kept


@ieee_borrowing
def construct(geo, rotation, position, seed, seeded, pole, has_pole, flip, arm):
    """solver._construct into ``arm`` (:func:`.arm7.pack`'s layout): returns (reason, the other
    elbow root fits too, the root continues the seed's elbow)."""
    wrist = sub(position, matvec(rotation, _v(geo, TOOL)))
    to_wrist = sub(wrist, _v(geo, SHOULDER_CENTRE))
    q4, reason, alternative, kept = _elbow(geo, dot(to_wrist, to_wrist), seed[3], flip)
    c4, s4 = math.cos(q4), math.sin(q4)
    v = _normalised(_shoulder_to_wrist(geo, c4, s4))
    k = _normalised(cross(_v(geo, ELBOW_AXIS), v))
    j = cross(v, k)
    length = math.sqrt(dot(to_wrist, to_wrist))
    axis = scale(to_wrist, 1.0 / max(length, TINY))
    if length <= TINY:  # the target at the shoulder centre: keep the seed's arm direction
        axis = _seed_turn(geo, seed, v)
    offset = (dot(_v(geo, UPPER_ARM), k), dot(_v(geo, UPPER_ARM), j))
    valid, r = False, (0.0, 0.0, 0.0)
    if has_pole:
        valid, r = _toward(sub(pole, _v(geo, SHOULDER_CENTRE)), 0.0, axis, offset)
    for candidate in range(2):
        if not valid:
            if (candidate == 0) == seeded:
                valid, r = _following(_seed_turn(geo, seed, k), axis)
            else:
                valid, r = _toward(_v(geo, ELBOW_DIRECTION), geo[SWIVEL], axis, offset)
    if not valid:
        near_x = abs(axis[0]) > 0.6
        valid, r = _following((0.0 if near_x else 1.0, 1.0 if near_x else 0.0, 0.0), axis)
    tr = cross(axis, r)
    for c in range(3):
        for i in range(3):
            arm[arm7.FRAME + 3 * c + i] = axis[i] * v[c] + r[i] * k[c] + tr[i] * j[c]
    for c in range(3):
        goal = rotation[c] if geo[TIP_IDENTITY] != 0.0 else matvec(rotation, _v(geo, TIP_ROWS + 3 * c))
        arm[arm7.GOAL + 3 * c], arm[arm7.GOAL + 3 * c + 1], arm[arm7.GOAL + 3 * c + 2] = goal
    arm[arm7.AXIS], arm[arm7.AXIS + 1], arm[arm7.AXIS + 2] = axis
    arm[arm7.ELBOW], arm[arm7.ELBOW + 1], arm[arm7.Q4] = c4, s4, q4
    for i in range(7):
        arm[arm7.SEED + i] = seed[i]
    return reason, alternative, kept


@ieee_inlined
def _turn(axis, c, s):
    """Columns of Rot(axis, q) for c = cos q, s = sin q: :func:`.vector3.rotate` of the three unit
    vectors with its products by their 0 and 1 left out. Every value that is not zero is the same to
    the bit; a zero may differ in its sign, which :func:`forward`'s pose errors do not see (they are
    sums with non-zero terms, squares, and an arctangent of a square root)."""
    ax, ay, az = axis
    t = 1.0 - c
    kx, ky, kz = ax * t, ay * t, az * t
    return (
        (c + ax * kx, az * s + ay * kx, az * kx - ay * s),
        (ax * ky - az * s, c + ay * ky, ax * s + az * ky),
        (ay * s + ax * kz, ay * kz - ax * s, c + az * kz),
    )


@ieee_borrowing
def forward(geo, q):
    """ArmGeometry.forward: the tip pose (rotation columns, position [m]) of q (7,), for the FK
    check of :func:`_finish` (its zeros' signs may differ from ArmGeometry's: :func:`_turn`)."""
    rotation = _turn(_v(geo, AXES), math.cos(q[0]), math.sin(q[0]))
    reach = (0.0, 0.0, 0.0)
    for i in range(1, 7):
        turn = _turn(_v(geo, AXES + 3 * i), math.cos(q[i]), math.sin(q[i]))
        rotation = (matvec(rotation, turn[0]), matvec(rotation, turn[1]), matvec(rotation, turn[2]))
        if i == 2:
            reach = matvec(rotation, _shoulder_to_wrist(geo, math.cos(q[3]), math.sin(q[3])))
    if geo[TIP_IDENTITY] == 0.0:
        tip = (_v(geo, TIP_COLUMNS), _v(geo, TIP_COLUMNS + 3), _v(geo, TIP_COLUMNS + 6))
        rotation = (matvec(rotation, tip[0]), matvec(rotation, tip[1]), matvec(rotation, tip[2]))
    return rotation, add(add(_v(geo, SHOULDER_CENTRE), reach), matvec(rotation, _v(geo, TOOL)))


@ieee_borrowing
def _finish(geo, q, reason, rotation, position):
    """Clip q (7,) into the limits, compare its FK with the target: (reason, errors)."""
    for i in range(7):
        q[i] = min(max(q[i], geo[LOWER + i]), geo[UPPER + i])
    fk_rotation, fk_position = forward(geo, q)
    return checked(fk_rotation, fk_position, rotation, position, geo[TOLERANCE], reason)


@ieee_borrowing
def solve(shoulder, wrist, geo, rotation, position, seed, seeded, pole, has_pole, q, work):
    """solver.Arm7Solver._solve_one into q (7,): (reason, position error [m], orientation error
    [rad], continuous). ``seed`` (7,) read when ``seeded``; ``pole`` (3,) when ``has_pole``.
    work: the scratch of :func:`workspace`; its first entry holds the construction afterwards.
    """
    arm, forms, scratch, order, steps = work
    if not seeded:
        seed = geo[REST : REST + 7]
    target_pole = (pole[0], pole[1], pole[2])
    reason, alternative, kept = construct(
        geo, rotation, position, seed, seeded, target_pole, has_pole, False, arm
    )
    following = seeded and not has_pole and reason != ELBOW_LIMITS
    if following and arm7_follow.follow(shoulder, wrist, geo, arm, q, forms, scratch, order, steps):
        near = True
        for i in range(7):
            near = near and abs(q[i] - seed[i]) <= geo[JUMP_LIMIT]
        reason, position_error, orientation_error = _finish(geo, q, reason, rotation, position)
        return reason, position_error, orientation_error, kept and near
    violation = arm7.joints(shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q)
    if reason != ELBOW_LIMITS and violation > LIMIT_TOLERANCE:
        candidate = steps[3]
        moved = arm7.search(shoulder, wrist, geo, arm, candidate, forms, scratch)
        if not moved and alternative:  # the other elbow bend fits its limits too
            construct(geo, rotation, position, seed, seeded, target_pole, has_pole, True, arm)
            moved = arm7.search(shoulder, wrist, geo, arm, candidate, forms, scratch)
        if moved:
            for i in range(7):
                q[i] = candidate[i]
        elif reason == 0:
            reason = NO_SWIVEL
    continuous = not seeded or (kept and (has_pole or reason == ELBOW_LIMITS))
    reason, position_error, orientation_error = _finish(geo, q, reason, rotation, position)
    return reason, position_error, orientation_error, continuous


@ieee_borrowing
def _pose(e):
    """Rotation columns and translation of 16 row-major entries."""
    return ((e[0], e[4], e[8]), (e[1], e[5], e[9]), (e[2], e[6], e[10])), (e[3], e[7], e[11])


@ieee_borrowing
def solve_entries(shoulder, wrist, geo, e, seed, seeded, pole, has_pole, q, work):
    """:func:`solve` for a target given as 16 row-major entries ``e``."""
    rotation, position = _pose(e)
    return solve(shoulder, wrist, geo, rotation, position, seed, seeded, pole, has_pole, q, work)


@ieee_borrowing
def solve_rows(constants, targets, seeds, seeded, poles, has_pole, bounds, out, clipped, work):
    """:func:`solve_entries` for each target of ``targets`` (M, 16) (row-major pose entries), as
    :func:`.leg_batch.solve_rows` does for the leg: the targets checked and the seeds clipped in
    the same pass. constants: (shoulder, wrist, geo). seeds (M, 7) [rad] read when ``seeded``,
    clipped into ``clipped`` (M, 7); poles (M, 3) [m] read when ``has_pole`` ((1, ·) placeholders
    otherwise). bounds: (3, 7) lower and upper limits and the rest q [rad]. out: q (M, 7) and the
    (M,) result columns; a malformed target's row gets :func:`.inputs.refuse_row`. A seed with
    a non-finite entry leaves its row unsolved, its reason :data:`.inputs.BAD_SEED_ROW` (the
    caller refuses the batch).
    """
    shoulder, wrist, geo = constants
    q, reason, position_error, orientation_error, continuous = out
    for m in range(targets.shape[0]):
        if inputs.row_ready(m, targets, seeds, seeded, bounds, clipped, out):
            e, seed = targets[m], clipped[m if seeded else 0]
            pole = poles[m if has_pole else 0]
            found = solve_entries(shoulder, wrist, geo, e, seed, seeded, pole, has_pole, q[m], work)
            reason[m], position_error[m], orientation_error[m], continuous[m] = found


@ieee_parallel_borrowing
def solve_rows_parallel(constants, targets, seeds, seeded, poles, has_pole, bounds, out, clipped, works):
    """:func:`solve_rows` on the cores: the M targets in chunks of CHUNK rows that the threads of
    numba's pool take as they come free (:func:`solve_rows_dynamic`), each thread in its own
    scratch of ``works`` (from :func:`workspaces`, one per thread numba may run). Row by row the
    same arithmetic, so the same answers."""
    arms, forms, scratch, order, steps = works
    count = targets.shape[0]
    for chunk in numba.prange((count + CHUNK - 1) // CHUNK):
        start, stop = chunk * CHUNK, min((chunk + 1) * CHUNK, count)
        seed_start, seed_stop = (start, stop) if seeded else (0, 1)
        pole_start, pole_stop = (start, stop) if has_pole else (0, 1)
        part = numba.get_thread_id()
        solve_rows(
            constants,
            targets[start:stop],
            seeds[seed_start:seed_stop],
            seeded,
            poles[pole_start:pole_stop],
            has_pole,
            bounds,
            (
                out[0][start:stop],
                out[1][start:stop],
                out[2][start:stop],
                out[3][start:stop],
                out[4][start:stop],
            ),
            clipped[seed_start:seed_stop],
            (arms[part], forms[part], scratch[part], order[part], steps[part]),
        )


def solve_rows_dynamic(*arguments) -> None:
    """:func:`solve_rows_parallel` with its chunks handed out one at a time (OpenMP's dynamic
    schedule, as the leg's batch, :mod:`.leg_batch`): on a shared machine a thread that loses its
    core does not hold up half the batch. numba reads the calling thread's chunk size when the loop
    starts."""
    previous = numba.set_parallel_chunksize(1)
    try:
        solve_rows_parallel(*arguments)
    finally:
        numba.set_parallel_chunksize(previous)


def workspaces(count: int) -> tuple:
    """``count`` scratches of :func:`solve` stacked (each array's first axis): one per thread of
    :func:`solve_rows_parallel` (``count``: numba.config.NUMBA_NUM_THREADS)."""
    return (
        np.empty((count, arm7.ARM_SIZE)),
        np.empty((count, 2, ENTRIES, 3)),
        np.empty((count, 5, arm7.ROOTS)),
        np.empty((count, arm7.ROOTS), dtype=np.int64),
        np.empty((count, 4, 7)),
    )


def workspace() -> tuple:
    """The scratch :func:`solve` works in (one per solver; numba holds the GIL while it runs)."""
    return tuple(array[0] for array in workspaces(1))
