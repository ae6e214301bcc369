"""The biped leg's forward kinematics by its leg-plane structure, compiled (numba): LegSolver._forward
in the same order of operations, for :mod:`.leg`'s FK check of each answer; the leg's constants
``k`` laid out by :mod:`.leg_layout`."""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import inlined
from ik_solvers.solvers.geometric.kernels.leg_layout import (
    ANKLE_HEIGHT,
    FOOT_OFFSET,
    HIP,
    LINK1_X,
    LINK1_Z,
    LINK2_X,
    LINK2_Z,
    SIGN3,
    SIGN4,
    SIGN5,
    TIP_OFFSET,
    TIP_X,
    TIP_Y,
    TIP_Z,
    TRIG,
    UPPER_X,
    UPPER_Z,
    W1,
    W2,
    W3,
    W6,
)
from ik_solvers.solvers.geometric.kernels.vector3 import add, cross, matvec, rotate, turn, vector


@inlined
def forward(k, q, part, knee):
    """LegSolver._forward: the sole pose (rotation columns, translation) of q (N,). The cosine and
    sine of q's yaw, roll and foot roll are taken from the hip ``part`` (:func:`.leg.hip_part`) where
    its angle is q's (the same float; the part has them from the arctangent's operands, equal to
    the angle's cosine and sine to rounding), else computed; so are the upper leg's and the thigh's
    from ``knee`` (:func:`.leg.knee_fk`) where q's upper leg and knee are its raw ones, and the
    foot pitch's from the part's pitch sum where q's ankle is raw too (then the foot pitch, the sum
    of the three pitch angles, is the pitch sum to rounding)."""
    c1, s1 = _cos_sin(q[0], part, 0, TRIG)
    c2, s2 = _cos_sin(q[1], part, 1, TRIG + 2)
    w1, w2 = vector(k, W1), vector(k, W2)
    plane_x = rotate(w1, c1, s1, rotate(w2, c2, s2, vector(k, W6)))
    pitch_axis = rotate(w1, c1, s1, rotate(w2, c2, s2, vector(k, W3)))
    basis = (plane_x, cross(pitch_axis, plane_x), pitch_axis)
    phi_upper, phi_knee = k[SIGN3] * q[2], k[SIGN4] * q[3]
    phi = phi_upper + phi_knee + k[SIGN5] * q[4]
    raw = q[2] == knee[0] and q[3] == knee[1]
    if raw:
        c3, s3, c34, s34 = knee[3], knee[4], knee[5], knee[6]
    else:
        c3, s3 = math.cos(phi_upper), math.sin(phi_upper)
        c34, s34 = math.cos(phi_upper + phi_knee), math.sin(phi_upper + phi_knee)
    thigh = turn(c3, s3, k[LINK1_X], k[LINK1_Z])
    shank = turn(c34, s34, k[LINK2_X], k[LINK2_Z])
    ankle_point = (k[UPPER_X] + thigh[0] + shank[0], k[UPPER_Z] + thigh[1] + shank[1], k[ANKLE_HEIGHT])
    if raw and q[4] == knee[2]:
        cp, sp = part[TRIG + 6], part[TRIG + 7]
    else:
        cp, sp = math.cos(phi), math.sin(phi)
    c6, s6 = _cos_sin(q[5], part, 2, TRIG + 4)
    foot_offset = turn(cp, sp, k[FOOT_OFFSET], k[FOOT_OFFSET + 1])
    foot_offset = (foot_offset[0], foot_offset[1], k[FOOT_OFFSET + 2])
    tip_local = add(add(ankle_point, foot_offset), _pitch_then_roll(vector(k, TIP_OFFSET), cp, sp, c6, s6))
    translation = add(vector(k, HIP), matvec(basis, tip_local))
    rotation = (
        matvec(basis, _pitch_then_roll(vector(k, TIP_X), cp, sp, c6, s6)),
        matvec(basis, _pitch_then_roll(vector(k, TIP_Y), cp, sp, c6, s6)),
        matvec(basis, _pitch_then_roll(vector(k, TIP_Z), cp, sp, c6, s6)),
    )
    return rotation, translation


@inlined
def _cos_sin(angle, part, at, trig):
    """The cosine and sine of ``angle`` [rad]: part[trig], part[trig + 1] where part[at] is it."""
    if angle == part[at]:
        return part[trig], part[trig + 1]
    return math.cos(angle), math.sin(angle)


@inlined
def _pitch_then_roll(v, cp, sp, c6, s6):
    """Rz(phi) Rx(foot) v in the leg-plane basis."""
    y, z = turn(c6, s6, v[1], v[2])
    x, y = turn(cp, sp, v[0], y)
    return (x, y, z)
