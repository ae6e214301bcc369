"""3-vector arithmetic that runs unchanged on floats and on numpy columns.

A vector is a tuple ``(x, y, z)`` whose entries are either Python floats (one solve) or (N,) numpy
arrays holding one entry per target (a batch, "column arithmetic"). The closed-form solvers are
written once with these helpers and plain operators; :data:`SCALAR` or :data:`COLUMNS` supplies the
few functions that differ between the two (``math`` for floats, ``numpy`` for columns).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Vector = tuple  # (x, y, z): floats or (N,) arrays


@dataclass(frozen=True)
class Ops:
    """The functions that differ between float and column arithmetic."""

    sqrt: Callable
    atan2: Callable
    cos: Callable
    sin: Callable
    floor: Callable
    minimum: Callable
    maximum: Callable
    where: Callable  # where(condition, a, b)
    # Vector helpers: plain for floats; for columns, versions that skip constant 0 and ±1 factors
    # (the URDF's axes are mostly coordinate axes, so most constant factors are 0 or ±1).
    dot: Callable = None
    cross: Callable = None
    rotate: Callable = None
    matvec: Callable = None
    combine: Callable = None
    turn: Callable = None  # turn(c, s, x, y) = (x c - y s, x s + y c): a plane rotation


def _choose(condition, a, b):
    return a if condition else b


def dot(a: Vector, b: Vector):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vector, b: Vector) -> Vector:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def add(a: Vector, b: Vector) -> Vector:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vector, b: Vector) -> Vector:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(a: Vector, k) -> Vector:
    return (a[0] * k, a[1] * k, a[2] * k)


def combine(a: Vector, ka, b: Vector, kb) -> Vector:
    """ka a + kb b."""
    return (a[0] * ka + b[0] * kb, a[1] * ka + b[1] * kb, a[2] * ka + b[2] * kb)


def matvec(columns: tuple[Vector, Vector, Vector], v: Vector) -> Vector:
    """M v for the matrix whose columns are ``columns``."""
    c0, c1, c2 = columns
    return (
        c0[0] * v[0] + c1[0] * v[1] + c2[0] * v[2],
        c0[1] * v[0] + c1[1] * v[1] + c2[1] * v[2],
        c0[2] * v[0] + c1[2] * v[1] + c2[2] * v[2],
    )


def tmatvec(columns: tuple[Vector, Vector, Vector], v: Vector, ops: Ops) -> Vector:
    """Mᵀ v for the matrix M whose columns are ``columns`` (floats or columns, see :class:`Ops`)."""
    return (ops.dot(columns[0], v), ops.dot(columns[1], v), ops.dot(columns[2], v))


def turn(c, s, x, y):
    """(x, y) rotated in its plane by the angle whose cosine and sine are c, s."""
    return (x * c - y * s, x * s + y * c)


def rotate(axis: Vector, c, s, v: Vector) -> Vector:
    """Rotate v about the unit ``axis`` by the angle whose cosine and sine are c, s (Rodrigues)."""
    ax, ay, az = axis
    x, y, z = v
    k = (ax * x + ay * y + az * z) * (1.0 - c)  # inline dot and cross: this runs often on floats
    return (
        x * c + (ay * z - az * y) * s + ax * k,
        y * c + (az * x - ax * z) * s + ay * k,
        z * c + (ax * y - ay * x) * s + az * k,
    )


def wrap(angle, reference, ops: Ops):
    """``angle`` shifted by a multiple of 2 pi into [reference - pi, reference + pi) [rad]."""
    return angle - (2.0 * math.pi) * ops.floor((angle - reference + math.pi) / (2.0 * math.pi))


def pose_errors(rotation, translation, target_rotation, target_translation, ops: Ops):
    """Position error [m] and rotation angle [rad] between two poses given as columns.

    The float/column form of :func:`ik_solvers.spatial.pose_error` (which takes (..., 4, 4) arrays and
    uses it); the numeric kernels have their own compiled one, which also returns the 6D error vector.
    """
    dx, dy, dz = (
        translation[0] - target_translation[0],
        translation[1] - target_translation[1],
        translation[2] - target_translation[2],
    )
    (t00, t01, t02), (t10, t11, t12), (t20, t21, t22) = target_rotation
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = rotation
    trace = t00 * r00 + t01 * r01 + t02 * r02 + t10 * r10 + t11 * r11 + t12 * r12
    trace = trace + t20 * r20 + t21 * r21 + t22 * r22
    vx = t20 * r10 + t21 * r11 + t22 * r12 - (t10 * r20 + t11 * r21 + t12 * r22)
    vy = t00 * r20 + t01 * r21 + t02 * r22 - (t20 * r00 + t21 * r01 + t22 * r02)
    vz = t10 * r00 + t11 * r01 + t12 * r02 - (t00 * r10 + t01 * r11 + t02 * r12)
    angle = ops.atan2(0.5 * ops.sqrt(vx * vx + vy * vy + vz * vz), 0.5 * (trace - 1.0))
    return ops.sqrt(dx * dx + dy * dy + dz * dz), angle


def _mul(a, b):
    """a b, skipping the product when either factor is the constant 0, 1 or -1."""
    for constant, other in ((a, b), (b, a)):
        if isinstance(constant, float):
            if constant == 0.0:
                return 0.0
            if constant == 1.0:
                return other
            if constant == -1.0:
                return -other
    return a * b


def _add(a, b):
    if isinstance(a, float) and a == 0.0:
        return b
    if isinstance(b, float) and b == 0.0:
        return a
    return a + b


def _sub(a, b):
    if isinstance(b, float) and b == 0.0:
        return a
    if isinstance(a, float) and a == 0.0:
        return -b
    return a - b


def _sparse_dot(a: Vector, b: Vector):
    return _add(_add(_mul(a[0], b[0]), _mul(a[1], b[1])), _mul(a[2], b[2]))


def _sparse_cross(a: Vector, b: Vector) -> Vector:
    return (
        _sub(_mul(a[1], b[2]), _mul(a[2], b[1])),
        _sub(_mul(a[2], b[0]), _mul(a[0], b[2])),
        _sub(_mul(a[0], b[1]), _mul(a[1], b[0])),
    )


def _sparse_combine(a: Vector, ka, b: Vector, kb) -> Vector:
    return tuple(_add(_mul(x, ka), _mul(y, kb)) for x, y in zip(a, b))


def _sparse_matvec(columns: tuple[Vector, Vector, Vector], v: Vector) -> Vector:
    c0, c1, c2 = columns
    return tuple(_add(_add(_mul(c0[i], v[0]), _mul(c1[i], v[1])), _mul(c2[i], v[2])) for i in range(3))


def _sparse_turn(c, s, x, y):
    return (_sub(_mul(x, c), _mul(y, s)), _add(_mul(x, s), _mul(y, c)))


def _sparse_rotate(axis: Vector, c, s, v: Vector) -> Vector:
    k = _mul(_sparse_dot(axis, v), 1.0 - c)
    w = _sparse_cross(axis, v)
    return tuple(_add(_add(_mul(v[i], c), _mul(w[i], s)), _mul(axis[i], k)) for i in range(3))


SCALAR = Ops(
    math.sqrt,
    math.atan2,
    math.cos,
    math.sin,
    math.floor,
    min,
    max,
    _choose,
    dot,
    cross,
    rotate,
    matvec,
    combine,
    turn,
)
COLUMNS = Ops(
    np.sqrt,
    np.arctan2,
    np.cos,
    np.sin,
    np.floor,
    np.minimum,
    np.maximum,
    np.where,
    _sparse_dot,
    _sparse_cross,
    _sparse_rotate,
    _sparse_matvec,
    _sparse_combine,
    _sparse_turn,
)
