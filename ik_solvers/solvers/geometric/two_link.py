"""The planar two-link closed form (law of cosines; ``docs/algorithms.md``), shared by the planar solver and the leg's sagittal plane.

Two revolute joints a and b with parallel axes. Geometry lives in plane coordinates: a point is
``(x, z)`` in an orthonormal basis of the plane normal to the axes, oriented so that a positive
rotation about the plane normal n turns x towards z. Joint angles relate to plane angles by the
sign of each joint's URDF axis against n: ``phi = sign * theta``.

Written in plain arithmetic: every function runs on floats and on numpy columns alike
(see :mod:`ik_solvers.solvers.geometric.vectors`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ik_solvers.solvers.geometric.vectors import SCALAR, Ops, wrap

# cos(bend) above this counts as fully stretched: moves the end by < 1e-13 m for links of ~0.2 m,
# and avoids the bend of ~sqrt(machine epsilon) that rounding would otherwise produce at the stretch.
STRETCHED = 1.0 - 1e-12


@dataclass(frozen=True)
class TwoLink:
    """Constants of a two-link arm in plane coordinates [m, rad].

    Attributes:
        link1: (x, z) joint a → joint b at q = 0. ratio: |link2| / |link1|.
        length1, length2: the link lengths. kappa: plane angle from link1 to link2 at q = 0.
        sign_a, sign_b: joint axis direction against the plane normal (+1 or -1).
        lower_b, upper_b: joint b limits. natural: the bend sign (+1/-1) that moves joint b from
            the stretched angle into its limits (the knee's natural way).
        reach_min, reach_max: joint a → end distances reachable with joint b within its limits.
    """

    link1: tuple[float, float]
    ratio: float
    length1: float
    length2: float
    kappa: float
    sign_a: float
    sign_b: float
    lower_b: float
    upper_b: float
    natural: float
    reach_min: float
    reach_max: float

    @classmethod
    def build(cls, link1, link2, sign_a: float, sign_b: float, lower_b: float, upper_b: float) -> TwoLink:
        """Constants from the q = 0 links (x, z) [m], the axis signs and joint b's limits [rad]."""
        length1, length2 = math.hypot(*link1), math.hypot(*link2)
        kappa = math.atan2(
            link1[0] * link2[1] - link1[1] * link2[0], link1[0] * link2[0] + link1[1] * link2[1]
        )
        middle = 0.5 * (lower_b + upper_b)
        stretched = wrap(-sign_b * kappa, middle, SCALAR)
        natural = sign_b * (-1.0 if middle < stretched else 1.0)
        # Distance |a → end| as a function of joint b; extremes at the limits or where the links align.
        candidates = [lower_b, upper_b] + [
            angle for k in range(-4, 5) if lower_b <= (angle := sign_b * (k * math.pi - kappa)) <= upper_b
        ]
        reaches = [_reach(length1, length2, sign_b * angle + kappa) for angle in candidates]
        return cls(
            (float(link1[0]), float(link1[1])),
            length2 / length1,
            length1,
            length2,
            kappa,
            sign_a,
            sign_b,
            lower_b,
            upper_b,
            natural,
            min(reaches),
            max(reaches),
        )

    def solve(self, dx, dz, bend, ops: Ops):
        """Joint angles that put the end at (dx, dz) relative to joint a (plane coordinates).

        Args:
            dx, dz: target [m], floats or columns. bend: +1 / -1 (or a column of them), the sign
                of the plane angle from link1 to link2 relative to stretched.
        Returns:
            theta_a, theta_b [rad] (theta_b wrapped and clipped into its limits; theta_a not
            wrapped), phi_a, phi_b the plane angles, and the distance [m] |(dx, dz)|.
            Out of reach, the arm stretches (or folds to joint b's limit) towards the target.
        """
        distance_sq = dx * dx + dz * dz
        cosine = (distance_sq - self.length1**2 - self.length2**2) / (2.0 * self.length1 * self.length2)
        cosine = ops.minimum(ops.maximum(cosine, -1.0), 1.0)
        cosine = ops.where(cosine > STRETCHED, 1.0, cosine)  # exact angles at the stretch singularity
        psi = bend * ops.atan2(ops.sqrt(1.0 - cosine * cosine), cosine)
        theta_b = wrap(self.sign_b * (psi - self.kappa), 0.5 * (self.lower_b + self.upper_b), ops)
        theta_b = ops.minimum(ops.maximum(theta_b, self.lower_b), self.upper_b)
        phi_b = self.sign_b * theta_b
        c, s = ops.cos(phi_b + self.kappa), ops.sin(phi_b + self.kappa)
        x1, z1 = self.link1
        tx, tz = ops.turn(c, s, self.ratio * x1, self.ratio * z1)
        vx, vz = x1 + tx, z1 + tz
        phi_a = ops.atan2(dz * vx - dx * vz, dx * vx + dz * vz)
        return self.sign_a * phi_a, theta_b, phi_a, phi_b, ops.sqrt(distance_sq)


def _reach(length1: float, length2: float, psi: float) -> float:
    return math.sqrt(max(length1**2 + length2**2 + 2.0 * length1 * length2 * math.cos(psi), 0.0))
