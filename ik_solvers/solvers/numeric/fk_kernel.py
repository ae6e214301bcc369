"""FK with the geometric Jacobian of one configuration, compiled (numba).

The chain's constant terms come from :meth:`ik_solvers.chain.Chain.kinematic_terms`: joint i
moves by ``A_i + f(q_i) B_i + g(q_i) C_i`` (f = sin q, g = 1 − cos q for revolute joints; f = q,
g = 0 for prismatic ones), the tip adds ``A_n``. Only the top three rows of the 4x4 transforms
are computed (the bottom row is always 0 0 0 1). Chain's single-configuration FK and the
Jacobian solver's iterations both use it.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.compiled.jit import borrowing


@borrowing
def _times(frame, matrix, out):
    """out (3, 4) = frame (3, 4) · matrix (3 or 4, 4), both with an implied bottom row 0 0 0 1."""
    for r in range(3):
        for col in range(4):
            total = frame[r, 3] if col == 3 else 0.0
            for k in range(3):
                total += frame[r, k] * matrix[k, col]
            out[r, col] = total


@borrowing
def fk_jacobian(terms, q, pose, jacobian, scratch):
    """Tip pose and geometric Jacobian at q (n,) into pose (3, 4) and jacobian (6, n).

    Rows 0-2 of the Jacobian: the tip's linear velocity [m/s], rows 3-5: its angular velocity
    [rad/s], both in the base frame, per unit velocity of each joint. scratch (3, 3, 4): the
    frame before and after each joint in turn, and the joint's own motion.
    """
    a, b, c, axes, prismatic = terms
    n = q.shape[0]
    frame, following, motion = scratch[0], scratch[1], scratch[2]
    for r in range(3):
        for col in range(4):
            frame[r, col] = 1.0 if r == col else 0.0
    for i in range(n):
        if prismatic[i]:
            f, g = q[i], 0.0
        else:
            f, g = np.sin(q[i]), 1.0 - np.cos(q[i])
        for r in range(3):
            for col in range(4):
                motion[r, col] = a[i, r, col] + f * b[i, r, col] + g * c[i, r, col]
        _times(frame, motion, following)
        frame, following = following, frame
        for r in range(3):
            jacobian[r, i] = frame[r, 3]  # joint origin for now; the lever comes below
            jacobian[3 + r, i] = (
                frame[r, 0] * axes[i, 0] + frame[r, 1] * axes[i, 1] + frame[r, 2] * axes[i, 2]
            )
    _times(frame, a[n], pose)
    for i in range(n):
        if prismatic[i]:
            for r in range(3):
                jacobian[r, i] = jacobian[3 + r, i]
                jacobian[3 + r, i] = 0.0
            continue
        x, y, z = pose[0, 3] - jacobian[0, i], pose[1, 3] - jacobian[1, i], pose[2, 3] - jacobian[2, i]
        u, v, w = jacobian[3, i], jacobian[4, i], jacobian[5, i]
        jacobian[0, i], jacobian[1, i], jacobian[2, i] = v * z - w * y, w * x - u * z, u * y - v * x
