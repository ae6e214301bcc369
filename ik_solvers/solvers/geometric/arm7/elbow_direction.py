"""Where the elbow should point: the vector R0 k of the arm frame, per target, by pole, seed or default.

Helpers of :mod:`ik_solvers.solvers.geometric.arm7.solver`, written for floats and numpy columns alike. Each way of
choosing gives a flag (it is defined here) and a unit vector normal to the shoulder→wrist direction
t; :func:`first_valid` takes, per target, the first that is defined.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.solvers.geometric.vectors import Ops, scale, sub

TINY = 1e-12  # lengths [m] and projections below this count as zero


def toward(direction, angle: float, axis, offset, ops: Ops):
    """R0 k for the elbow toward ``direction`` turned by ``angle`` about t: (valid, unit vector ⊥ t).

    ``offset`` = (e·k, e·j): the elbow offset from the shoulder-wrist line in the arm frame; its angle β
    is taken off so that the elbow itself, not k, points the requested way.
    """
    across, length = normal_part(direction, axis, ops)
    ek, ej = offset
    lever = ops.sqrt(ek * ek + ej * ej)
    inverse = 1.0 / ops.maximum(lever, TINY)
    cb, sb = ek * inverse, ej * inverse
    ca, sa = math.cos(angle), math.sin(angle)
    c, s = ca * cb + sa * sb, sa * cb - ca * sb
    turned = ops.rotate(axis, c, s, scale(across, 1.0 / ops.maximum(length, TINY)))
    return (length > 1e-9) & (lever > 1e-9), turned


def following(vector, axis, ops: Ops):
    """``vector`` projected onto the plane normal to t and normalised: (valid, unit vector)."""
    across, length = normal_part(vector, axis, ops)
    return length > 1e-6, scale(across, 1.0 / ops.maximum(length, TINY))


def normal_part(vector, axis, ops: Ops):
    """The part of ``vector`` normal to the unit ``axis``, and its length."""
    across = sub(vector, scale(axis, ops.dot(vector, axis)))
    return across, ops.sqrt(ops.dot(across, across))


def any_perpendicular(axis, ops: Ops):
    """A vector not parallel to the unit ``axis``: x, or y where the axis is near x."""
    near_x = abs(axis[0]) > 0.6
    return (ops.where(near_x, 0.0, 1.0), ops.where(near_x, 1.0, 0.0), 0.0)


def first_valid(candidates, ops: Ops):
    """Per row, the vector of the first candidate whose flag is True (the last is always valid)."""
    result, done = None, False
    for make in candidates:
        valid, vector = make()
        if result is None:
            result, done = vector, valid
        else:
            result = select(done, result, vector, ops)
            done = done | valid
        if everywhere(done):
            break
    return result


def everywhere(condition) -> bool:
    """True if the flag (a bool or a column of them) is set everywhere."""
    return condition if condition.__class__ is bool else bool(np.all(condition))


def anywhere(condition) -> bool:
    """True if the flag (a bool or a column of them) is set anywhere."""
    return condition if condition.__class__ is bool else bool(np.any(condition))


def select(condition, first, second, ops: Ops):
    return tuple(ops.where(condition, a, b) for a, b in zip(first, second))


def normalised(vector, ops: Ops):
    return scale(vector, 1.0 / ops.maximum(ops.sqrt(ops.dot(vector, vector)), TINY))
