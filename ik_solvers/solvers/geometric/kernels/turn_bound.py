"""A cheap lower bound of the seed-following distance at a swivel (numba): rotation angles.

A triple's rotation Rot(a1, q1) Rot(a2, q2) Rot(a3, q3) is at most |Δq1| + |Δq2| + |Δq3| from the
seed's, in the angle of the relative rotation (a metric invariant on both sides: Huynh, "Metrics
for 3D rotations: comparison and analysis", 2009; triangle inequality and invariance), so
Δq1² + Δq2² + Δq3² ≥ θ²/3. Turning the arm by the swivel ψ makes the shoulder's rotation
Rot(axis, ψ) F and the wrist's (F R4)ᵀ Rot(axis, -ψ) G, whose traces against the seed's rotations
are k + kc cos ψ + ks sin ψ (three constants each), so the bound costs two arccosines a swivel
(its sine and cosine are shared with the swivel's evaluation).
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import borrowing
from ik_solvers.solvers.geometric.kernels.vector3 import cross, dot, matvec, rotate

SLACK = 1e-6  # [rad] taken off each rotation angle: its rounding (≲ 1e-7 near 0) never lifts the bound


@borrowing
def rotation(axes, angles):
    """Columns of Rot(a1, q1) Rot(a2, q2) Rot(a3, q3); axes: (9,) the three unit axes, angles (3,) [rad]."""
    columns = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    for i in range(2, -1, -1):
        axis, c, s = (axes[3 * i], axes[3 * i + 1], axes[3 * i + 2]), math.cos(angles[i]), math.sin(angles[i])
        columns = (
            rotate(axis, c, s, columns[0]),
            rotate(axis, c, s, columns[1]),
            rotate(axis, c, s, columns[2]),
        )
    return columns


@borrowing
def _trace_form(axis, left, right):
    """(k, kc, ks) with tr(Rot(axis, ψ) L Rᵀ) = k + kc cos ψ + ks sin ψ, L and R given by columns."""
    product = (
        matvec(left, (right[0][0], right[1][0], right[2][0])),
        matvec(left, (right[0][1], right[1][1], right[2][1])),
        matvec(left, (right[0][2], right[1][2], right[2][2])),
    )
    along = trace = across = 0.0
    for i in range(3):
        along += axis[i] * dot(axis, product[i])
        trace += product[i][i]
        across += cross(axis, product[i])[i]
    return along, trace - along, across


@borrowing
def forms(axis, frame, forward, goal, shoulder_seed, wrist_seed):
    """The trace forms of the shoulder's rotation Rot(axis, ψ) ``frame`` against ``shoulder_seed``
    and of the wrist's ``forward``ᵀ Rot(axis, -ψ) ``goal`` against ``wrist_seed`` (all columns;
    ``forward`` = frame R4)."""
    reach = (matvec(forward, wrist_seed[0]), matvec(forward, wrist_seed[1]), matvec(forward, wrist_seed[2]))
    return _trace_form(axis, frame, shoulder_seed), _trace_form(axis, goal, reach)


@borrowing
def _angle(form, c, s):
    """The rotation angle [rad] of the trace form ``form`` at (cos ψ, sin ψ), less SLACK (≥ 0)."""
    cosine = min(max(0.5 * (form[0] + form[1] * c + form[2] * s - 1.0), -1.0), 1.0)
    return max(math.acos(cosine) - SLACK, 0.0)


@borrowing
def parts(turn_forms, c, s):
    """Lower bounds [rad²] of the shoulder's and of the wrist's share of |q - seed|² of any
    solution at the swivel ψ with c = cos ψ, s = sin ψ; ``turn_forms``: :func:`forms`. With the
    elbow's share (its change squared) they sum to a lower bound of the whole distance."""
    shoulder, wrist = _angle(turn_forms[0], c, s), _angle(turn_forms[1], c, -s)
    return shoulder * shoulder / 3.0, wrist * wrist / 3.0
