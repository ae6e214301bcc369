"""The planar two-link arm's closed form compiled (numba): one target, and many in one call.

The arithmetic of :class:`~ik_solvers.solvers.geometric.planar.PlanarSolver` (the target in the
arm's plane, the two-link of :mod:`.two_link`, the plane check) and the branch search of
:meth:`BranchSolver._solve_scalar
<ik_solvers.solvers.geometric.branches.BranchSolver._solve_scalar>` for a solver without seed
branches (the default branch first; unseeded the first that succeeds, seeded the successful one
nearest the seed), in the same order of operations, so the answers are the Python layer's to
rounding. The constants come in one float array ``k`` laid out by :data:`OFFSETS`.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.compiled.jit import borrowing
from ik_solvers.solvers.geometric.kernels import layout, two_link
from ik_solvers.solvers.geometric.kernels.vector3 import (
    NOT_MET,
    add,
    dot,
    matvec,
    pose_errors,
    sub,
    vector,
    wrap,
)

N = 2
FAR, CLOSE, OUT_OF_PLANE = 1, 2, 3  # planar.FAR, CLOSE, OUT_OF_PLANE
LIMIT = 100  # geometric.base.LIMIT
REACH_SLACK = 1e-12  # [m] planar.REACH_SLACK
LIMIT_SLACK = 1e-9  # [rad] geometric.base.LIMIT_SLACK
VECTORS = ("origin", "plane_x", "plane_z", "normal", "tip_x", "tip_y", "tip_z")
SCALARS = ("height", "tolerance", "reach_min", "reach_max", "link2_x", "link2_z", "branch_count")
SCALARS += ("branch_0", "branch_1", *two_link.LAYOUT)
JOINTS = ("lower", "upper", "middle", "continuous")
OFFSETS, SIZE = layout.offsets(VECTORS, SCALARS, JOINTS, N)
ORIGIN, PLANE_X, PLANE_Z, NORMAL, TIP_X, TIP_Y, TIP_Z = (OFFSETS[n] for n in VECTORS)
HEIGHT, TOLERANCE, REACH_MIN, REACH_MAX, LINK2_X, LINK2_Z, BRANCH_COUNT, BRANCH_0 = (
    OFFSETS[n] for n in SCALARS[:8]
)
TWO_LINK = OFFSETS[two_link.LAYOUT[0]]
LINK1_X, LINK1_Z, SIGN_B = (OFFSETS[n] for n in ("link1_x", "link1_z", "sign_b"))
LOWER, UPPER, MIDDLE, CONTINUOUS = (OFFSETS[n] for n in JOINTS)


def constants(values: dict) -> np.ndarray:
    """(SIZE,) the arm's constants laid out by :data:`OFFSETS` (``values``: name → float or floats)."""
    return layout.pack(OFFSETS, SIZE, values, "planar")


@borrowing
def closed_form(k, translation, bend, q):
    """PlanarSolver._closed_form: the raw angles into q (N,); the reach reason."""
    relative = sub(translation, vector(k, ORIGIN))
    dx, dz = dot(relative, vector(k, PLANE_X)), dot(relative, vector(k, PLANE_Z))
    q[0], q[1], _, _, distance = two_link.solve(k, TWO_LINK, dx, dz, bend)
    if abs(dot(relative, vector(k, NORMAL)) - k[HEIGHT]) > k[TOLERANCE]:
        return OUT_OF_PLANE
    if distance > k[REACH_MAX] + REACH_SLACK:
        return FAR
    if distance < k[REACH_MIN] - REACH_SLACK:
        return CLOSE
    return 0


@borrowing
def forward(k, q):
    """PlanarSolver._forward: the tip pose (rotation columns, translation) of q (N,)."""
    phi_a, phi_b = q[0], k[SIGN_B] * q[1]
    ca, sa = math.cos(phi_a), math.sin(phi_a)
    cab, sab = math.cos(phi_a + phi_b), math.sin(phi_a + phi_b)
    x1, z1, x2, z2 = k[LINK1_X], k[LINK1_Z], k[LINK2_X], k[LINK2_Z]
    local = (x1 * ca - z1 * sa + x2 * cab - z2 * sab, x1 * sa + z1 * ca + x2 * sab + z2 * cab, k[HEIGHT])
    basis = (vector(k, PLANE_X), vector(k, PLANE_Z), vector(k, NORMAL))
    translation = add(vector(k, ORIGIN), matvec(basis, local))
    return (
        matvec(basis, _turned(vector(k, TIP_X), cab, sab)),
        matvec(basis, _turned(vector(k, TIP_Y), cab, sab)),
        matvec(basis, _turned(vector(k, TIP_Z), cab, sab)),
    ), translation


@borrowing
def _turned(c, cab, sab):
    return (cab * c[0] - sab * c[1], sab * c[0] + cab * c[1], c[2])


@borrowing
def _branch(k, rotation, translation, references, bend, q):
    """One branch: q (N,) wrapped near ``references``, clipped and checked (position only):
    (reason, position error [m], orientation error [rad])."""
    reason = closed_form(k, translation, bend, q)
    for i in range(N):
        angle, reference = q[i], references[i]
        if not reference - math.pi <= angle < reference + math.pi:
            angle = wrap(angle, reference)
        clipped = min(max(angle, k[LOWER + i]), k[UPPER + i])
        if reason == 0 and abs(clipped - angle) > LIMIT_SLACK:
            reason = LIMIT + i
        q[i] = clipped
    position_error, orientation_error = pose_errors(*forward(k, q), rotation, translation)
    if reason == 0 and position_error > k[TOLERANCE]:
        reason = NOT_MET
    return reason, position_error, orientation_error


@borrowing
def _distance(q, seed):
    return (q[0] - seed[0]) * (q[0] - seed[0]) + (q[1] - seed[1]) * (q[1] - seed[1])


@borrowing
def solve(k, rotation, translation, seed, seeded, q, work):
    """One target: the branch search into q (N,); ``work`` (2, N) scratch.

    Returns:
        (reason, position error [m], orientation error [rad], continuous).
    """
    references, other = work[0], work[1]
    for i in range(N):
        references[i] = seed[i] if seeded and k[CONTINUOUS + i] != 0.0 else k[MIDDLE + i]
    found = _branch(k, rotation, translation, references, k[BRANCH_0], q)
    if found[0] == 0 and not seeded:
        return found[0], found[1], found[2], True
    closest = _distance(q, seed) if seeded else math.inf
    for b in range(1, int(k[BRANCH_COUNT])):
        checked = _branch(k, rotation, translation, references, k[BRANCH_0 + b], other)
        if seeded:
            closest = min(closest, _distance(other, seed))
        if checked[0] == 0 and (found[0] != 0 or not seeded or _distance(other, seed) < _distance(q, seed)):
            found = checked
            q[0], q[1] = other[0], other[1]
            if not seeded:
                break
    return found[0], found[1], found[2], not seeded or _distance(q, seed) <= closest


@borrowing
def solve_entries(k, e, seed, seeded, q, work):
    """:func:`solve` for a target given as 16 row-major entries ``e``."""
    rotation = ((e[0], e[4], e[8]), (e[1], e[5], e[9]), (e[2], e[6], e[10]))
    return solve(k, rotation, (e[3], e[7], e[11]), seed, seeded, q, work)


@borrowing
def solve_columns(k, columns, seeds, seeded, q, reason, position_error, orientation_error, continuous, work):
    """:func:`solve` for each target of ``columns`` (16, M); seeds (N, M) read when ``seeded``;
    into q (M, N) and the (M,) result columns."""
    for m in range(columns.shape[1]):
        found = solve_entries(k, columns[:, m], seeds[:, m if seeded else 0], seeded, q[m], work)
        reason[m], position_error[m], orientation_error[m], continuous[m] = found
