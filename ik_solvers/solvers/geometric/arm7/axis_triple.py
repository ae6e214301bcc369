"""A rotation split into three revolute joints about given axes: R = Rot(a, θ1) Rot(b, θ2) Rot(c, θ3).

The unit axes a, b, c are fixed in one frame (a group of three joints at the zero pose, in the base
frame) with a ⊥ b and b ⊥ c. The first and third may be orthogonal (roll-pitch-yaw orders such as
xyz, yxz, zyx), parallel (Euler orders such as zyz, xyx) or at any other angle α measured about b.
Every rotation has two solutions, the branches (they differ by π in θ1 and θ3 and by a reflection
of θ2 about α). When Rot(b, θ2) c lies along a (the gimbal alignment), only a
sum or difference of θ1 and θ3 is fixed: θ1 then keeps the seed's value and θ3 takes the rest, so
the split stays continuous and finite.

Written once for floats and for numpy columns (see :mod:`ik_solvers.solvers.geometric.vectors`): a rotation is
the tuple of its three columns; angles are in radians.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.solvers.geometric.rotations import bilinear
from ik_solvers.solvers.geometric.vectors import SCALAR, Ops, cross, dot, wrap

ALIGNED = 1e-12  # below this |Rot(b, θ2) c × a|, θ1 and θ3 share one degree of freedom
LIMIT_TOLERANCE = 1e-10  # [rad] an angle this far outside its limits still counts as within
NEAR_SEED = (0.5 * math.pi) ** 2  # [rad²] within this of the seed, no other branch is nearer
RATE_ALIGNED = 1e-6  # below this |Rot(b, θ2) c × a| the angles' rates are not trusted (NaN)
ENTRY_COUNT = 7  # entries u·R w used by the swivel search: the six of ``entries`` and d3


class AxisTriple:
    """Three joints with axes a ⊥ b ⊥ c and limits; decomposes rotations into their angles.

    Args:
        a, b, c: unit axes (3-tuples) in a common frame.
        lower, upper: (3,) joint limits [rad].
    """

    def __init__(self, a, b, c, lower, upper) -> None:
        self.a, self.b, self.c = a, b, c
        self.a_cross_b = cross(a, b)
        self.c_cross_b = cross(c, b)
        alpha = math.atan2(dot(a, cross(b, c)), dot(a, c))  # a = Rot(b, α) c
        self.alpha = 0.0 if abs(alpha) < 1e-12 else alpha
        self.cos_alpha, self.sin_alpha = math.cos(self.alpha), math.sin(self.alpha)
        # c × b in the orthonormal basis (a, b, a × b): it has no b part.
        self.cxb_a, self.cxb_x = dot(self.c_cross_b, a), dot(self.c_cross_b, self.a_cross_b)
        self.lower = tuple(float(x) for x in lower)
        self.upper = tuple(float(x) for x in upper)
        self.middle = tuple(0.5 * (lo + hi) for lo, hi in zip(self.lower, self.upper))
        self._range_kind = tuple(self._kind(i) for i in range(3))
        self._all_raw = self._range_kind == ("raw", "raw", "raw")
        self._readers = tuple(bilinear(u, w) for u, w in self.entry_pairs()[:6])
        self._limit_terms = None

    def _kind(self, i: int) -> str:
        """How angle i is brought into its limits: as computed, near the middle, or near the seed."""
        within_pi = self.lower[i] >= -math.pi and self.upper[i] <= math.pi
        if within_pi and (i != 1 or self.alpha == 0.0):
            return "raw"
        return "middle" if self.upper[i] - self.lower[i] <= 2.0 * math.pi else "seed"

    def entry_pairs(self) -> list[tuple[tuple, tuple]]:
        """(u, w) of the entries u·R w: g, n1, d1, n3, bb, ab (see :meth:`entries`) and d3 = a·R (c × b)."""
        a, b, c, axb = self.a, self.b, self.c, self.a_cross_b
        return [(a, c), (b, c), (axb, c), (a, b), (b, b), (axb, b), (a, self.c_cross_b)]

    def entries(self, rotation: tuple, ops: Ops) -> tuple:
        """The six entries u·R w of ``rotation`` (columns) that :meth:`branches` needs."""
        return tuple(read(rotation, ops) for read in self._readers)

    def branches(self, entries: tuple, seed: tuple, ops: Ops) -> tuple[tuple, tuple]:
        """(θ1, θ2, θ3) of both branches [rad], each within limits where possible; ``seed`` (3 angles)
        settles θ1 at alignment and picks among 2π-turns of wide-range joints.

        θ1 and θ2 come from R c; θ3 from the residual Rot(b, -θ2) Rot(a, -θ1) R applied to b, which
        keeps the product exact even where θ1 is ill-determined. The second branch is
        (θ1 + π, 2α - θ2, θ3 + π).
        """
        first = self._first_raw(entries, seed, ops)
        return self._ranged(first, seed, ops), self._ranged(self._other(first, ops), seed, ops)

    def _first_raw(self, entries: tuple, seed: tuple, ops: Ops) -> tuple:
        """The first branch's angles before they are brought into range (see :meth:`branches`)."""
        g, n1, d1, n3, bb, ab = entries[:6]
        h = ops.sqrt(n1 * n1 + d1 * d1)  # |R c × a|
        inverse = 1.0 / ops.maximum(h, ALIGNED)
        regular = h > ALIGNED
        c1 = ops.where(regular, -d1 * inverse, ops.cos(seed[0]))
        s1 = ops.where(regular, n1 * inverse, ops.sin(seed[0]))
        c2 = self.cos_alpha * g - self.sin_alpha * h
        s2 = self.sin_alpha * g + self.cos_alpha * h
        # Rot(a, -θ1) R b in the basis (a, b, a × b), then its angle about c after Rot(b, -θ2).
        yb, yx = bb * c1 + ab * s1, ab * c1 - bb * s1
        s3 = (self.cxb_a * c2 + self.cxb_x * s2) * n3 + (self.cxb_x * c2 - self.cxb_a * s2) * yx
        angles = (ops.atan2(s1, c1), self.alpha + ops.atan2(h, g), ops.atan2(s3, yb))
        if not (regular if regular.__class__ is bool else regular.all()):
            return self._aligned_within_limits(angles, regular, g, ops)
        return angles

    def first_rates(self, entries: tuple, rates: tuple) -> tuple[float, float, float]:
        """d/dψ of the first branch's angles [rad/rad] (floats) where the six entries are functions
        of ψ with the given ``rates`` (the second branch's are (r1, -r2, r3)): the derivatives of
        the three atan2 of :meth:`_first_raw`. NaN within ``RATE_ALIGNED`` of the alignment."""
        g, n1, d1, n3, bb, ab = entries[:6]
        dg, dn1, dd1, dn3, dbb, dab = rates[:6]
        h2 = n1 * n1 + d1 * d1
        if h2 < RATE_ALIGNED * RATE_ALIGNED:
            return math.nan, math.nan, math.nan
        h = math.sqrt(h2)
        c1, s1 = -d1 / h, n1 / h
        rate1 = (n1 * dd1 - d1 * dn1) / h2
        dh = (n1 * dn1 + d1 * dd1) / h
        rate2 = (g * dh - h * dg) / (g * g + h2)
        dc1, ds1 = -s1 * rate1, c1 * rate1
        ca, sa, xa, xx = self.cos_alpha, self.sin_alpha, self.cxb_a, self.cxb_x
        c2, s2 = ca * g - sa * h, sa * g + ca * h
        dc2, ds2 = ca * dg - sa * dh, sa * dg + ca * dh
        yb, yx = bb * c1 + ab * s1, ab * c1 - bb * s1
        dyb = dbb * c1 + bb * dc1 + dab * s1 + ab * ds1
        dyx = dab * c1 + ab * dc1 - dbb * s1 - bb * ds1
        p, r = xa * c2 + xx * s2, xx * c2 - xa * s2
        s3 = p * n3 + r * yx
        ds3 = (xa * dc2 + xx * ds2) * n3 + p * dn3 + (xx * dc2 - xa * ds2) * yx + r * dyx
        return rate1, rate2, (yb * ds3 - s3 * dyb) / (yb * yb + s3 * s3)

    def _aligned_within_limits(self, angles: tuple, regular, g, ops: Ops) -> tuple:
        """At the alignment only θ1 + σ θ3 is fixed (σ = sign of a·R c): where the seed's θ1 puts θ3
        outside its limits, θ1 takes the excess so that θ3 stays at its limit (the split nearest
        the seed within the limits); elsewhere the angles are unchanged."""
        first, middle, third = angles
        sigma = ops.where(g >= 0.0, 1.0, -1.0)
        bounded = ops.minimum(ops.maximum(third, self.lower[2]), self.upper[2])
        first = ops.where(regular, first, first + sigma * (third - bounded))
        return first, middle, ops.where(regular, third, bounded)

    def _other(self, first: tuple, ops: Ops) -> tuple:
        """The second branch's raw angles from the first's."""
        return (_half_turn(first[0], ops), 2.0 * self.alpha - first[1], _half_turn(first[2], ops))

    def _ranged(self, angles: tuple, seed: tuple, ops: Ops) -> tuple:
        if self._all_raw:
            return angles
        return tuple(self._in_range(i, angles[i], seed[i], ops) for i in range(3))

    def _in_range(self, i: int, angle, seed, ops: Ops):
        """``angle`` shifted by 2π k to its representative within the limits (nearest the seed if several)."""
        kind = self._range_kind[i]
        if kind == "raw":
            return angle
        near_middle = wrap(angle, self.middle[i], ops)
        if kind == "middle":
            return near_middle
        near_seed = wrap(angle, seed, ops)
        return ops.where((near_seed >= self.lower[i]) & (near_seed <= self.upper[i]), near_seed, near_middle)

    def violation(self, angles: tuple, ops: Ops):
        """Total distance [rad] of the angles outside their limits (0 when all are within)."""
        if ops is SCALAR:
            return sum(
                lower - angle if angle < lower else angle - upper if angle > upper else 0.0
                for angle, lower, upper in zip(angles, self.lower, self.upper)
            )
        total = 0.0
        for angle, lower, upper in zip(angles, self.lower, self.upper):
            total = total + outside(angle, lower, upper, ops)
        return total

    def nearest(self, entries: tuple, seed: tuple, ops: Ops) -> tuple[tuple, object]:
        """The branch within limits nearest the seed (else the one least outside): angles, violation."""
        raw = self._first_raw(entries, seed, ops)
        first = self._ranged(raw, seed, ops)
        v1 = self.violation(first, ops)
        d1 = (first[0] - seed[0]) ** 2 + (first[1] - seed[1]) ** 2 + (first[2] - seed[2]) ** 2
        if v1.__class__ is float and v1 == 0.0 and d1 < NEAR_SEED:
            return first, v1  # the other branch is π away in θ1 and θ3: farther from the seed
        second = self._ranged(self._other(raw, ops), seed, ops)
        v2 = self.violation(second, ops)
        d2 = sum((x - s) * (x - s) for x, s in zip(second, seed))
        pick = prefer_first(v1, d1, v2, d2)
        chosen = tuple(ops.where(pick, x, y) for x, y in zip(first, second))
        return chosen, ops.where(pick, v1, v2)

    def seed_branch(self, entries: tuple, seed: tuple, ops: Ops) -> tuple[tuple, object, object]:
        """The branch nearest the seed whatever the limits (the one that continues the seed):
        angles, their violation [rad], and True where it is the first branch (θ2 - α in [0, π])."""
        raw = self._first_raw(entries, seed, ops)
        first = self._ranged(raw, seed, ops)
        second = self._ranged(self._other(raw, ops), seed, ops)
        d1 = sum((x - s) * (x - s) for x, s in zip(first, seed))
        d2 = sum((x - s) * (x - s) for x, s in zip(second, seed))
        upper = d1 <= d2
        chosen = tuple(ops.where(upper, x, y) for x, y in zip(first, second))
        return chosen, self.violation(chosen, ops), upper

    def on_branch(self, entries: tuple, seed: tuple, upper, ops: Ops) -> tuple[tuple, object]:
        """The angles of one branch (``upper``: the first, see :meth:`seed_branch`) and their violation."""
        raw = self._first_raw(entries, seed, ops)
        if upper.__class__ is bool or upper.__class__ is np.bool_:
            chosen = self._ranged(raw if upper else self._other(raw, ops), seed, ops)
        else:
            first, second = self._ranged(raw, seed, ops), self._ranged(self._other(raw, ops), seed, ops)
            chosen = tuple(ops.where(upper, x, y) for x, y in zip(first, second))
        return chosen, self.violation(chosen, ops)

    def limit_terms(self) -> list[tuple[list[tuple[int, float]], float]]:
        """:meth:`limit_equations` as sparse rows for float code: ([(entry index, k), ...], b)."""
        if self._limit_terms is None:
            self._limit_terms = [
                (
                    [(j, float(k)) for j, k in enumerate(row[:ENTRY_COUNT]) if k != 0.0],
                    float(row[ENTRY_COUNT]),
                )
                for row in self.limit_equations()
            ]
        return self._limit_terms

    def limit_equations(self) -> np.ndarray:
        """(6, ENTRY_COUNT + 1) rows k, b: a joint is at one of its limits where k · entries + b = 0.

        Entries in :meth:`entry_pairs` order. θ1 = L ⟺ n1 cos L + d1 sin L = 0; θ2 = L ⟺
        g = cos(L - α); θ3 = L ⟺ n3 cos L - d3 sin L = 0 (each also holds on the other branch).
        """
        rows = []
        for limit in (self.lower, self.upper):
            first, middle, third = (
                np.zeros(ENTRY_COUNT + 1),
                np.zeros(ENTRY_COUNT + 1),
                np.zeros(ENTRY_COUNT + 1),
            )
            first[1], first[2] = math.cos(limit[0]), math.sin(limit[0])
            middle[0], middle[ENTRY_COUNT] = 1.0, -math.cos(limit[1] - self.alpha)
            third[3], third[6] = math.cos(limit[2]), -math.sin(limit[2])
            rows += [first, middle, third]
        return np.array(rows)


def _half_turn(angle, ops: Ops):
    """angle + π brought back into [-π, π] for an angle in [-π, π]."""
    return angle + ops.where(angle > 0.0, -math.pi, math.pi)


def outside(angle, lower: float, upper: float, ops: Ops):
    """Distance [rad] of ``angle`` outside [lower, upper]; 0 within."""
    return ops.maximum(lower - angle, 0.0) + ops.maximum(angle - upper, 0.0)


def prefer_first(violation1, distance1, violation2, distance2):
    """True where candidate 1 wins: less outside the limits, else (both alike) nearer the seed."""
    return (violation1 < violation2 - LIMIT_TOLERANCE) | (
        (violation1 <= violation2 + LIMIT_TOLERANCE) & (distance1 <= distance2)
    )
