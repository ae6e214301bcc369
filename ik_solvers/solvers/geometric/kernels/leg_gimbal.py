"""The leg's hip gimbal compiled (numba): :mod:`ik_solvers.solvers.geometric.leg_gimbal` (see
its docstring: the yaw chosen where the pitch axes align with the yaw axis) in the same order of
operations, on the leg's constants ``k`` (:mod:`.leg_layout`)."""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import borrowing
from ik_solvers.solvers.geometric.kernels import two_link
from ik_solvers.solvers.geometric.kernels.axis_triple import form_roots
from ik_solvers.solvers.geometric.kernels.leg_layout import (
    LINK1_X,
    LINK1_Z,
    LINK2_X,
    LINK2_Z,
    LOWER,
    REACH_MAX,
    REACH_MIN,
    SIGN3,
    SIGN5,
    TWO_LINK,
    UPPER,
    UPPER_X,
    UPPER_Z,
    W1,
    W2,
    W6,
)
from ik_solvers.solvers.geometric.kernels.vector3 import cross, dot, rotate, vector, wrap

ALIGNED = 1e-12  # leg_gimbal.ALIGNED
SLACK = 1e-10  # leg_gimbal.SLACK [rad]
REACH_SLACK = 1e-12  # [m]


@borrowing
def _plane_frame(k, roll, pitch_axis, foot_axis, relative):
    """leg_gimbal.plane_frame: (ε, a₀ x, a₀ z, γ₀)."""
    plane_x = rotate(vector(k, W2), math.cos(roll), math.sin(roll), vector(k, W6))
    plane_z = cross(pitch_axis, plane_x)
    epsilon = 1.0 if dot(pitch_axis, vector(k, W1)) >= 0.0 else -1.0
    pitch_sum = math.atan2(dot(foot_axis, plane_z), dot(foot_axis, plane_x))
    return epsilon, dot(relative, plane_x), dot(relative, plane_z), pitch_sum


@borrowing
def _roots(fx, fz, mx, mz, length, epsilon):
    """leg_gimbal._roots: (count, yaw, yaw) with |R(-εψ) m - f| = length."""
    k_c = -2.0 * (fx * mx + fz * mz)
    k_s = -2.0 * epsilon * (fx * mz - fz * mx)
    return form_roots(k_c, k_s, fx * fx + fz * fz + (mx * mx + mz * mz) - length * length)


@borrowing
def _within(k, i, angle, references):
    """Joint i's ``angle`` wrapped near its reference within its limits (± SLACK)."""
    angle = wrap(angle, references[i])
    return k[LOWER + i] - SLACK <= angle <= k[UPPER + i] + SLACK


@borrowing
def _feasible(k, yaw, frame, bend, references):
    """leg_gimbal.feasible; ``frame``: :func:`_plane_frame`."""
    epsilon, ax, az, pitch_sum = frame
    c, s = math.cos(yaw), epsilon * math.sin(yaw)
    x, z = c * ax + s * az, c * az - s * ax
    upper, _, phi_upper, phi_knee, distance = two_link.solve(
        k, TWO_LINK, x - k[UPPER_X], z - k[UPPER_Z], bend
    )
    if not k[REACH_MIN] - REACH_SLACK <= distance <= k[REACH_MAX] + REACH_SLACK:
        return False
    ankle = k[SIGN5] * (pitch_sum - epsilon * yaw - phi_upper - phi_knee)
    return (
        _within(k, 0, yaw, references)
        and _within(k, 2, upper, references)
        and _within(k, 4, ankle, references)
    )


@borrowing
def _consider(k, roots, frame, bend, references, preferred, best):
    """The (count, yaw, yaw) ``roots`` weighed against ``best`` = (yaw, its distance to
    ``preferred``): the nearer feasible one (ties: the earlier)."""
    count, first, second = roots
    for i in range(count):
        yaw = first if i == 0 else second
        distance = abs(wrap(yaw, references[0]) - preferred)
        if distance < best[1] and _feasible(k, yaw, frame, bend, references):
            best = (yaw, distance)
    return best


@borrowing
def gimbal_yaw(k, roll, pitch_axis, foot_axis, relative, bend, references, preferred):
    """leg_gimbal.gimbal_yaw: the yaw [rad] at the gimbal nearest ``preferred`` among the feasible
    candidates, else ``preferred``."""
    frame = _plane_frame(k, roll, pitch_axis, foot_axis, relative)
    if _feasible(k, preferred, frame, bend, references):
        return preferred
    epsilon, ax, az, pitch_sum = frame
    ux, uz = k[UPPER_X], k[UPPER_Z]
    best = (preferred, math.inf)
    best = _consider(k, (2, k[LOWER], k[UPPER]), frame, bend, references, preferred, best)
    for reach in (k[REACH_MIN], k[REACH_MAX]):
        best = _consider(k, _roots(ux, uz, ax, az, reach, epsilon), frame, bend, references, preferred, best)
    x1, z1, length1 = k[LINK1_X], k[LINK1_Z], k[TWO_LINK + two_link.LENGTH1]
    x2, z2, length2 = k[LINK2_X], k[LINK2_Z], k[TWO_LINK + two_link.LENGTH2]
    for limit in (k[LOWER + 2], k[UPPER + 2]):
        c, s = math.cos(k[SIGN3] * limit), math.sin(k[SIGN3] * limit)
        roots = _roots(ux + x1 * c - z1 * s, uz + x1 * s + z1 * c, ax, az, length2, epsilon)
        best = _consider(k, roots, frame, bend, references, preferred, best)
    for limit in (k[LOWER + 4], k[UPPER + 4]):
        c, s = math.cos(pitch_sum - k[SIGN5] * limit), math.sin(pitch_sum - k[SIGN5] * limit)
        roots = _roots(ax - x2 * c + z2 * s, az - x2 * s - z2 * c, ux, uz, length1, -epsilon)
        best = _consider(k, roots, frame, bend, references, preferred, best)
    return best[0]
