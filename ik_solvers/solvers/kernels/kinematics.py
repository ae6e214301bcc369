"""FK with the geometric Jacobian, and the 6D pose error, for one configuration (numba kernels).

The chain's constant terms come from :meth:`ik_solvers.chain.Chain.kinematic_terms`: joint i
moves by ``A_i + f(q_i) B_i + g(q_i) C_i`` (f = sin q, g = 1 − cos q for revolute joints; f = q,
g = 0 for prismatic ones), the tip adds ``A_n``. Only the top three rows of the 4x4 transforms
are computed (the bottom row is always 0 0 0 1).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.kernels import borrowing

NEAR_PI_SIN = 1e-6  # below this sin(angle) with angle > 1 rad, the axis comes from the symmetric part


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


@borrowing
def pose_error(target, pose, error, relative):
    """Error of pose (3, 4) against target (4, 4); returns the rotation error angle [rad].

    error (6,): target minus tip position [m], then the rotation vector of the rotation error
    [rad], both in the base frame (what the geometric Jacobian maps steps to). relative (3, 3):
    the rotation error, target rotation times the tip rotation transposed.
    """
    for r in range(3):
        error[r] = target[r, 3] - pose[r, 3]
        for col in range(3):
            relative[r, col] = (
                target[r, 0] * pose[col, 0] + target[r, 1] * pose[col, 1] + target[r, 2] * pose[col, 2]
            )
    vx = 0.5 * (relative[2, 1] - relative[1, 2])
    vy = 0.5 * (relative[0, 2] - relative[2, 0])
    vz = 0.5 * (relative[1, 0] - relative[0, 1])
    sin = np.sqrt(vx * vx + vy * vy + vz * vz)
    angle = np.arctan2(sin, 0.5 * (relative[0, 0] + relative[1, 1] + relative[2, 2] - 1.0))
    if sin < NEAR_PI_SIN and angle > 1.0:
        _axis_near_pi(relative, vx, vy, vz, error)
        for r in range(3, 6):
            error[r] *= angle
        return angle
    ratio = angle / sin if sin > 1e-300 else 1.0
    error[3], error[4], error[5] = vx * ratio, vy * ratio, vz * ratio
    return angle


@borrowing
def _axis_near_pi(relative, vx, vy, vz, error):
    """Unit rotation axis of a rotation by nearly pi into error[3:6], from (R + Rᵀ)/2 + I = 2 u uᵀ.

    The sign follows the (tiny) skew part, so that the axis stays continuous through pi.
    """
    column, largest = 0, -np.inf
    for k in range(3):
        if relative[k, k] > largest:
            column, largest = k, relative[k, k]
    norm = 0.0
    for r in range(3):
        value = 0.5 * (relative[r, column] + relative[column, r]) + (1.0 if r == column else 0.0)
        error[3 + r] = value
        norm += value * value
    norm = np.sqrt(norm)
    sign = -1.0 if error[3] * vx + error[4] * vy + error[5] * vz < 0.0 else 1.0
    for r in range(3):
        error[3 + r] *= sign / norm
