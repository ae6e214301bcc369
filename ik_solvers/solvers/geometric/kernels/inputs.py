"""The checks of one solve's target and seed compiled (numba), so that a single solve pays one
kernel call for them instead of some 5 µs of Python floats.

The arithmetic of :func:`ik_solvers.solvers.checks.valid_pose` and
:func:`~ik_solvers.solvers.checks.check_bottom_row` in the same order of operations (the same
verdict on every target), and the seed's clipping of :func:`~ik_solvers.solvers.checks.check_seed`.
The caller raises the same errors with the same messages from the code returned
(:func:`refuse_target`, then :func:`~ik_solvers.solvers.checks.check_seed` for BAD_SEED). A batch's
targets are checked by :func:`columns` with the same verdicts, row by row, or, where a solver's
batch runs on row-major targets (the leg, the 7-DoF arm), inside its batch kernel as each row is
solved (:func:`clip_seed`, :func:`refuse_row`).
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.compiled.jit import borrowing, inlined
from ik_solvers.solvers.checks import INVALID_POSE, check_bottom_row
from ik_solvers.solvers.errors import InvalidTargetError

VALID, BAD_POSE, BAD_BOTTOM_ROW, BAD_SEED = 0, 1, 2, 3
TOLERANCE = 1e-6  # checks.valid_pose's and checks.check_bottom_row's default
INVALID_ROW = 90  # a batch row's reason code for a malformed target (geometric.base.INVALID)
BAD_SEED_ROW = -1  # a batch kernel's reason code for a row whose seed is not finite: refused


def refuse_target(code: int, entries: np.ndarray) -> None:
    """Raise what :func:`~ik_solvers.solvers.checks.check_targets` raises for a target whose 16
    row-major ``entries`` :func:`check` found ``code`` (BAD_POSE or BAD_BOTTOM_ROW); return for
    the other codes."""
    if code == BAD_POSE:
        raise InvalidTargetError(f"target {INVALID_POSE}")
    if code == BAD_BOTTOM_ROW:
        check_bottom_row(entries[12:].tolist())


@borrowing
def check(e, seed, seeded, lower, upper, clipped):
    """Check a target given as 16 row-major entries ``e`` and, when ``seeded``, a seed (n,) [rad].

    The seed clipped into [lower, upper] goes to ``clipped`` (n,).

    Returns:
        VALID; BAD_POSE (not finite, or the rotation not orthonormal with det +1, to 1e-6);
        BAD_BOTTOM_ROW (not [0, 0, 0, 1] to 1e-6); BAD_SEED (a non-finite seed entry, or not as
        many entries as ``clipped``: the caller checks only the seed's type, not its length).
    """
    a0, a1, a2, b0, b1, b2, d0, d1, d2 = e[0], e[4], e[8], e[1], e[5], e[9], e[2], e[6], e[10]
    x, y, z = e[3], e[7], e[11]
    total = a0 + a1 + a2 + b0 + b1 + b2 + d0 + d1 + d2 + x + y + z
    finite = (total - total) == 0.0
    bad = abs(a0 * a0 + a1 * a1 + a2 * a2 - 1.0) + abs(b0 * b0 + b1 * b1 + b2 * b2 - 1.0)
    bad = bad + abs(d0 * d0 + d1 * d1 + d2 * d2 - 1.0) + abs(a0 * b0 + a1 * b1 + a2 * b2)
    bad = bad + abs(a0 * d0 + a1 * d1 + a2 * d2) + abs(b0 * d0 + b1 * d1 + b2 * d2)
    determinant = a0 * (b1 * d2 - b2 * d1) + a1 * (b2 * d0 - b0 * d2) + a2 * (b0 * d1 - b1 * d0)
    if not (finite and bad < TOLERANCE and determinant > 0.0):
        return BAD_POSE
    row_ok = abs(e[12]) <= TOLERANCE and abs(e[13]) <= TOLERANCE and abs(e[14]) <= TOLERANCE
    if not (row_ok and abs(e[15] - 1.0) <= TOLERANCE):
        return BAD_BOTTOM_ROW
    if seeded and (seed.shape[0] != clipped.shape[0] or not clip_seed(seed, lower, upper, clipped)):
        return BAD_SEED
    return VALID


@inlined
def clip_seed(seed, lower, upper, clipped):
    """``seed`` (n,) [rad] clipped into [lower, upper] into ``clipped`` (n,) (as
    :func:`~ik_solvers.solvers.checks.check_seed` clips); False, and ``clipped`` partly written,
    when an entry is not finite."""
    for i in range(seed.shape[0]):
        value = seed[i]
        if not math.isfinite(value):
            return False
        clipped[i] = min(max(value, lower[i]), upper[i])
    return True


@inlined
def refuse_row(m, rest, out):
    """Row ``m`` of a batch's ``out`` (q (M, n), reason, position error, orientation error,
    continuous (M,)) for a malformed target: q at ``rest`` (n,), INVALID_ROW, NaN errors (nothing
    was solved), continuous."""
    q = out[0]
    for i in range(rest.shape[0]):
        q[m, i] = rest[i]
    out[1][m], out[2][m], out[3][m], out[4][m] = INVALID_ROW, math.nan, math.nan, True


@inlined
def row_ready(m, targets, seeds, seeded, bounds, clipped, out):
    """Whether row ``m`` of a batch kernel's (M, 16) ``targets`` is to be solved: its seed
    (``seeds[m]``, when ``seeded``) clipped into ``clipped[m]`` and its target well-formed. Else
    False, with its reason in ``out`` (as for :func:`refuse_row`): :data:`BAD_SEED_ROW` for a seed
    with a non-finite entry (the row left unsolved: the caller refuses the batch), a malformed
    target's row refused by :func:`refuse_row`. bounds: (3, n) lower and upper limits and the rest
    q [rad]."""
    if seeded and not clip_seed(seeds[m], bounds[0], bounds[1], clipped[m]):
        out[1][m] = BAD_SEED_ROW
        return False
    e = targets[m]
    if check(e, e, False, e, e, e) != VALID:
        refuse_row(m, bounds[2], out)
        return False
    return True


@borrowing
def columns(flat, out, valid):
    """The (16, N) ``out`` columns of (N, 16) row-major poses ``flat``, and into ``valid`` (N,)
    where a pose passes :func:`check` (finite, a rotation, a homogeneous bottom row)."""
    for m in range(flat.shape[0]):
        e = flat[m]
        for i in range(16):
            out[i, m] = e[i]
        valid[m] = check(e, e, False, e, e, e) == VALID
