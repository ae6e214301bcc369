"""The nearest swivel angle at which every joint of an S-R-S arm is within its limits, on floats.

For a fixed elbow angle the arm's solutions form a circle: the shoulder rotation is Rot(t, ψ) R0 with
t the shoulder→wrist direction and ψ the swivel (arm) angle. Each entry u·R w of the shoulder and of
the wrist rotation is then ``k_c cos ψ + k_s sin ψ + k_1`` (Rodrigues' formula). As in Shimizu et al.
(2008), a joint reaches one of its limits only where such a form vanishes (see
:meth:`AxisTriple.limit_equations`), which has at most two roots; between consecutive roots of all
limit equations, feasibility does not change. The search therefore solves the equations in closed
form, tests one point inside every piece between roots, and returns the feasible point nearest to
ψ = 0 (the requested swivel) — exact.

These float functions are the reference of the compiled search
(:mod:`ik_solvers.solvers.geometric.kernels.axis_triple`, :mod:`~ik_solvers.solvers.geometric.kernels.arm7`)
that ``solve`` and ``solve_batch`` run; whole-path planning uses :func:`limit_swivels_one`.
"""

from __future__ import annotations

import itertools
import math

from ik_solvers.solvers.geometric.arm7.axis_triple import LIMIT_TOLERANCE, AxisTriple
from ik_solvers.solvers.geometric.vectors import SCALAR

# triple, forms (ENTRY_COUNT × (k_c, k_s, k_1)), seed angles (3), and optionally the one branch that
# counts (True: the first, see AxisTriple.seed_branch); without it, either branch within limits does.
Group = tuple


def form_coefficients(y: tuple, x: tuple, axis: tuple, sign: float) -> tuple:
    """(k_c, k_s, k_1) of y · Rot(axis, sign ψ) x for unit ``axis``; vectors of (M,) columns."""
    along = (y[0] * axis[0] + y[1] * axis[1] + y[2] * axis[2]) * (
        axis[0] * x[0] + axis[1] * x[1] + axis[2] * x[2]
    )
    across = (
        axis[1] * x[2] - axis[2] * x[1],
        axis[2] * x[0] - axis[0] * x[2],
        axis[0] * x[1] - axis[1] * x[0],
    )
    direct = y[0] * x[0] + y[1] * x[1] + y[2] * x[2]
    turned = y[0] * across[0] + y[1] * across[1] + y[2] * across[2]
    return direct - along, sign * turned, along


def nearest_feasible_swivel_one(groups: list[Group]) -> float | None:
    """The swivel ψ [rad] nearest 0 at which every group (on its own branch where it names one)
    is within its limits, on floats, or None when none is.

    The pieces between limit roots, tested in order of their distance to ψ = 0 (ties: lower
    first) and only until the first feasible one (usually a handful): its point nearest 0.
    """
    bounds = [-math.pi, math.pi]
    for triple, forms, *_ in groups:
        bounds += _limit_roots_one(triple, forms)
    bounds.sort()
    pieces = []
    for low, high in itertools.pairwise(bounds):
        point = 0.0 if low <= 0.0 <= high else low if abs(low) < abs(high) else high
        pieces.append((abs(point), point, 0.5 * (low + high)))
    for _, point, middle in sorted(pieces, key=lambda piece: piece[0]):
        cos_psi, sin_psi = math.cos(middle), math.sin(middle)
        if all(_feasible_one(group, cos_psi, sin_psi) for group in groups):
            return point
    return None


def limit_swivels_one(groups: list[Group]) -> list[float]:
    """Every swivel angle [rad] in [-π, π] where a joint of a group meets one of its limits: the
    ends of the feasible pieces (floats; ``groups`` as :func:`nearest_feasible_swivel_one`'s)."""
    return [psi for triple, forms, *_ in groups for psi in _limit_roots_one(triple, forms)]


def _limit_roots_one(triple: AxisTriple, forms: list) -> list[float]:
    """Swivel angles in [-π, π] where a joint of ``triple`` meets a limit (floats)."""
    roots = []
    for terms, constant in triple.limit_terms():
        k_c = sum(coefficient * forms[j][0] for j, coefficient in terms)
        k_s = sum(coefficient * forms[j][1] for j, coefficient in terms)
        k_1 = sum(coefficient * forms[j][2] for j, coefficient in terms) + constant
        roots += _form_roots(k_c, k_s, k_1)
    return roots


def matching_swivels_one(triple: AxisTriple, forms: list, angles: tuple) -> list[float]:
    """Swivel angles where the first or the third joint of ``triple`` takes its value in ``angles``
    (on either branch; floats). Next to a singularity of the triple these are where the split of
    its coupled first and third joints matches the seed's (see :meth:`AxisTriple.limit_equations`
    for the equations: θ1 = L ⟺ n1 cos L + d1 sin L = 0, θ3 = L ⟺ n3 cos L - d3 sin L = 0)."""
    roots = []
    for (i, j, sign), angle in (((1, 2, 1.0), angles[0]), ((3, 6, -1.0), angles[2])):
        c, s = math.cos(angle), sign * math.sin(angle)
        roots += _form_roots(*(c * forms[i][k] + s * forms[j][k] for k in range(3)))
    return roots


def _form_roots(k_c: float, k_s: float, k_1: float) -> list[float]:
    """The ψ in [-π, π] with k_c cos ψ + k_s sin ψ + k_1 = 0 (none, or two)."""
    amplitude = math.hypot(k_c, k_s)
    if not (amplitude > 0.0 and abs(k_1) <= amplitude):
        return []
    spread, phase = math.acos(-k_1 / amplitude), math.atan2(k_s, k_c)
    return [math.remainder(phase + spread, 2.0 * math.pi), math.remainder(phase - spread, 2.0 * math.pi)]


def _feasible_one(group: Group, cos_psi: float, sin_psi: float) -> bool:
    """Some branch of the group (or the group's own branch) has all three joints within limits at ψ."""
    triple, forms, seed = group[:3]
    entries = tuple(k_c * cos_psi + k_s * sin_psi + k_1 for k_c, k_s, k_1 in forms[:6])
    first, second = triple.branches(entries, seed, SCALAR)
    if len(group) > 3:
        return triple.violation(first if group[3] else second, SCALAR) <= LIMIT_TOLERANCE
    return min(triple.violation(first, SCALAR), triple.violation(second, SCALAR)) <= LIMIT_TOLERANCE
