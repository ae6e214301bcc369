"""The planar two-link's closed form compiled (numba): :meth:`TwoLink.solve
<ik_solvers.solvers.geometric.two_link.TwoLink.solve>` in the same order of operations, for the
leg's kernel (its knee and upper leg) and the planar arm's.

A solver's two-link constants sit in its constants array ``k`` as one block laid out by
:data:`LAYOUT`, starting at an offset the solver chooses.
"""

from __future__ import annotations

import math

from ik_solvers.compiled.jit import inlined
from ik_solvers.solvers.geometric.kernels.vector3 import turn, wrap

STRETCHED = 1.0 - 1e-12  # two_link.STRETCHED
LAYOUT = (
    "length1",
    "length2",
    "lower_b",
    "upper_b",
    "sign_a",
    "sign_b",
    "kappa",
    "ratio",
    "link1_x",
    "link1_z",
)
LENGTH1, LENGTH2, LOWER_B, UPPER_B, SIGN_A, SIGN_B, KAPPA, RATIO, LINK1_X, LINK1_Z = range(len(LAYOUT))


def block(two_link) -> list[float]:
    """The :data:`LAYOUT` block of a :class:`~ik_solvers.solvers.geometric.two_link.TwoLink`."""
    values = {"link1_x": two_link.link1[0], "link1_z": two_link.link1[1]}
    return [float(values[name]) if name in values else float(getattr(two_link, name)) for name in LAYOUT]


@inlined
def solve(k, at, dx, dz, bend):
    """TwoLink.solve for the block at ``k[at:]``: (theta_a, theta_b, phi_a, phi_b, distance) for
    the end at (dx, dz) [m] in plane coordinates, ``bend`` +1 or -1."""
    angle, distance, cosine, sine = stretch(k, at, dx, dz)
    return bent(k, at, dx, dz, bend, angle, distance, cosine, sine)[:5]


@inlined
def stretch(k, at, dx, dz):
    """What :func:`solve` works out the same for both bends: the bend's angle from the stretch
    [rad] (the ``bend`` +1 one; -1 negates it exactly), the distance to (dx, dz) [m], and the
    angle's cosine and sine (its arctangent's operands, a unit vector to rounding)."""
    length1, length2 = k[at + LENGTH1], k[at + LENGTH2]
    distance_sq = dx * dx + dz * dz
    cosine = (distance_sq - length1 * length1 - length2 * length2) / (2.0 * length1 * length2)
    cosine = min(max(cosine, -1.0), 1.0)
    if cosine > STRETCHED:
        cosine = 1.0
    sine = math.sqrt(1.0 - cosine * cosine)
    return math.atan2(sine, cosine), math.sqrt(distance_sq), cosine, sine


@inlined
def bent(k, at, dx, dz, bend, angle, distance, cosine, sine):
    """:func:`solve` from its :func:`stretch` (``angle`` [rad], ``distance`` [m], the angle's
    ``cosine`` and ``sine``) on, for ``bend``; after :func:`solve`'s five values, phi_a's
    arctangent's operands (x, y) and the cosine and sine of phi_b + kappa, for an FK check of the
    answer. Where the bend's angle is neither wrapped nor clipped, phi_b + kappa is bend × angle to
    rounding, so its cosine and sine are the stretch's (sin is odd) rather than computed."""
    psi = bend * angle
    lower_b, upper_b, sign_b, kappa = k[at + LOWER_B], k[at + UPPER_B], k[at + SIGN_B], k[at + KAPPA]
    raw = sign_b * (psi - kappa)
    theta_b = min(max(wrap(raw, 0.5 * (lower_b + upper_b)), lower_b), upper_b)
    phi_b = sign_b * theta_b
    if theta_b == raw:
        c, s = cosine, bend * sine
    else:
        c, s = math.cos(phi_b + kappa), math.sin(phi_b + kappa)
    x1, z1, ratio = k[at + LINK1_X], k[at + LINK1_Z], k[at + RATIO]
    tx, tz = turn(c, s, ratio * x1, ratio * z1)
    vx, vz = x1 + tx, z1 + tz
    x_a, y_a = dx * vx + dz * vz, dz * vx - dx * vz
    phi_a = math.atan2(y_a, x_a)
    return k[at + SIGN_A] * phi_a, theta_b, phi_a, phi_b, distance, x_a, y_a, c, s
