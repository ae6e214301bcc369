"""3-vector and pose arithmetic for the compiled closed forms (numba): vectors are 3-tuples of floats,
rotations the tuple of their three columns.

The same formulas, in the same order of operations, as :mod:`ik_solvers.solvers.geometric.vectors`
(the float/column arithmetic of the Python layer), so that a compiled solve gives the Python one's
answers to rounding.
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import borrowing

TWO_PI = 2.0 * math.pi
NOT_MET = 91  # geometric.base.NOT_MET: the closed form missed the target by more than the tolerance


@borrowing
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@borrowing
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@borrowing
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@borrowing
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@borrowing
def scale(a, k):
    return (a[0] * k, a[1] * k, a[2] * k)


@borrowing
def combine(a, ka, b, kb):
    """ka a + kb b."""
    return (a[0] * ka + b[0] * kb, a[1] * ka + b[1] * kb, a[2] * ka + b[2] * kb)


@borrowing
def matvec(columns, v):
    """M v for the matrix whose columns are ``columns``."""
    c0, c1, c2 = columns
    return (
        c0[0] * v[0] + c1[0] * v[1] + c2[0] * v[2],
        c0[1] * v[0] + c1[1] * v[1] + c2[1] * v[2],
        c0[2] * v[0] + c1[2] * v[1] + c2[2] * v[2],
    )


@borrowing
def tmatvec(columns, v):
    """Mᵀ v for the matrix M whose columns are ``columns``."""
    return (dot(columns[0], v), dot(columns[1], v), dot(columns[2], v))


@borrowing
def turn(c, s, x, y):
    """(x, y) rotated in its plane by the angle whose cosine and sine are c, s."""
    return (x * c - y * s, x * s + y * c)


@borrowing
def rotate(axis, c, s, v):
    """v rotated about the unit ``axis`` by the angle whose cosine and sine are c, s (Rodrigues)."""
    ax, ay, az = axis
    x, y, z = v
    k = (ax * x + ay * y + az * z) * (1.0 - c)
    return (
        x * c + (ay * z - az * y) * s + ax * k,
        y * c + (az * x - ax * z) * s + ay * k,
        z * c + (ax * y - ay * x) * s + az * k,
    )


@borrowing
def wrap(angle, reference):
    """``angle`` shifted by a multiple of 2π into [reference - π, reference + π) [rad]."""
    return angle - TWO_PI * math.floor((angle - reference + math.pi) / TWO_PI)


@borrowing
def vector(values, start):
    """values[start : start + 3] as a 3-tuple."""
    return (values[start], values[start + 1], values[start + 2])


@borrowing
def pose_errors(rotation, translation, target_rotation, target_translation):
    """Position error [m] and rotation angle [rad] between two poses (columns, translation)."""
    dx = translation[0] - target_translation[0]
    dy = translation[1] - target_translation[1]
    dz = translation[2] - target_translation[2]
    (t00, t01, t02), (t10, t11, t12), (t20, t21, t22) = target_rotation
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = rotation
    trace = t00 * r00 + t01 * r01 + t02 * r02 + t10 * r10 + t11 * r11 + t12 * r12
    trace = trace + t20 * r20 + t21 * r21 + t22 * r22
    vx = t20 * r10 + t21 * r11 + t22 * r12 - (t10 * r20 + t11 * r21 + t12 * r22)
    vy = t00 * r20 + t01 * r21 + t02 * r22 - (t20 * r00 + t21 * r01 + t22 * r02)
    vz = t10 * r00 + t11 * r01 + t12 * r02 - (t00 * r10 + t01 * r11 + t02 * r12)
    angle = math.atan2(0.5 * math.sqrt(vx * vx + vy * vy + vz * vz), 0.5 * (trace - 1.0))
    return math.sqrt(dx * dx + dy * dy + dz * dz), angle


@borrowing
def checked(fk_rotation, fk_translation, rotation, translation, tolerance, reason):
    """The FK check of an answer whose pose is (fk_rotation, fk_translation): (reason, NOT_MET
    where a reason of 0 misses the target by more than ``tolerance`` [m], [rad]; position error
    [m], orientation error [rad])."""
    position_error, orientation_error = pose_errors(fk_rotation, fk_translation, rotation, translation)
    if reason == 0 and (position_error > tolerance or orientation_error > tolerance):
        reason = NOT_MET
    return reason, position_error, orientation_error
