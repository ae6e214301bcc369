"""The 6D pose error of one configuration's tip against a target (numba kernel)."""

from __future__ import annotations

import numpy as np

from ik_solvers.compiled.jit import borrowing

NEAR_PI_SIN = 1e-6  # below this sin(angle) with angle > 1 rad, the axis comes from the symmetric part


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
