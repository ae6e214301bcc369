"""The nearest swivel angle at which every joint of an S-R-S arm is within its limits, for many arms at once.

For a fixed elbow angle the arm's solutions form a circle: the shoulder rotation is Rot(t, ψ) R0 with
t the shoulder→wrist direction and ψ the swivel (arm) angle. Each entry u·R w of the shoulder and of
the wrist rotation is then ``k_c cos ψ + k_s sin ψ + k_1`` (Rodrigues' formula). As in Shimizu et al.
(2008), a joint reaches one of its limits only where such a form vanishes (see
:meth:`AxisTriple.limit_equations`), which has at most two roots; between consecutive roots of all
limit equations, feasibility does not change. The search therefore solves the equations in closed
form, tests one point inside every piece between roots, and returns the feasible point nearest to
ψ = 0 (the requested swivel) — exact, and vectorised over the M arms (no loop over them).

The ``*_one`` functions are the same search for one arm on Python floats, on purpose: numpy's
per-call overhead on one-element arrays would make a single ``solve`` several times slower.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ik_solvers.solvers.geometric.arm7.axis_triple import ENTRY_COUNT, LIMIT_TOLERANCE, AxisTriple
from ik_solvers.solvers.geometric.vectors import COLUMNS, SCALAR

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


def _limit_roots(triple: AxisTriple, forms: np.ndarray) -> np.ndarray:
    """(12, M) swivel angles in (-π, π] where a joint of ``triple`` meets a limit; NaN where none."""
    equations = triple.limit_equations()
    combined = np.einsum("ek,kjm->ejm", equations[:, :ENTRY_COUNT], forms)
    combined[:, 2] += equations[:, ENTRY_COUNT, None]
    return _form_roots_columns(combined[:, 0], combined[:, 1], combined[:, 2])


def _form_roots_columns(k_c: np.ndarray, k_s: np.ndarray, k_1: np.ndarray) -> np.ndarray:
    """:func:`_form_roots` on (E, M) arrays of equations: (2E, M) roots in (-π, π], NaN where none."""
    amplitude = np.hypot(k_c, k_s)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = -k_1 / amplitude  # cos(ψ - γ), γ the phase of (k_c, k_s)
    spread = np.arccos(np.where(np.abs(ratio) <= 1.0, ratio, np.nan))
    phase = np.arctan2(k_s, k_c)
    roots = np.concatenate([phase + spread, phase - spread])
    return np.angle(np.exp(1j * roots))


def _feasible(group: Group, cos_psi: np.ndarray, sin_psi: np.ndarray) -> np.ndarray:
    """(K, M) True where some branch of the group (or the group's own branch) has all three joints
    within limits at ψ."""
    triple, forms, seed = group[:3]
    entries = tuple(forms[i, 0] * cos_psi + forms[i, 1] * sin_psi + forms[i, 2] for i in range(6))
    first, second = (triple.violation(angles, COLUMNS) for angles in triple.branches(entries, seed, COLUMNS))
    if len(group) > 3:
        return np.where(group[3], first, second) <= LIMIT_TOLERANCE
    return np.minimum(first, second) <= LIMIT_TOLERANCE


def _as_array(forms: list) -> np.ndarray:
    """ENTRY_COUNT triples of columns (or constants) as one (ENTRY_COUNT, 3, M) array."""
    flat = np.broadcast_arrays(*(part for triple in forms for part in triple))
    return np.reshape(flat, (len(forms), 3, -1))


def nearest_feasible_swivel(groups: list[Group]) -> tuple[np.ndarray, np.ndarray]:
    """The swivel ψ [rad] nearest to 0 at which every group has a branch within limits.

    Args:
        groups: per 3-joint group (shoulder, wrist): its :class:`AxisTriple`, the coefficients
            (k_c, k_s, k_1) of its ENTRY_COUNT entries (:meth:`AxisTriple.entry_pairs` order; columns
            of M) as functions of ψ, and its seed angles (3 columns of M) for the alignment split.
    Returns:
        psi: (M,) the nearest feasible swivel, 0 where none exists. found: (M,) bool.
    """
    groups = [(group[0], _as_array(group[1]), *group[2:]) for group in groups]
    count = groups[0][1].shape[-1]
    ends = np.full((1, count), np.pi)
    bounds = np.concatenate([_limit_roots(triple, forms) for triple, forms, *_ in groups] + [-ends, ends])
    bounds = np.sort(np.where(np.isnan(bounds), np.pi, bounds), axis=0)
    low, high = bounds[:-1], bounds[1:]
    middle = 0.5 * (low + high)
    cos_psi, sin_psi = np.cos(middle), np.sin(middle)
    feasible = np.logical_and.reduce([_feasible(group, cos_psi, sin_psi) for group in groups])
    contains_zero = (low <= 0.0) & (high >= 0.0)
    nearer_end = np.where(np.abs(low) < np.abs(high), low, high)
    point = np.where(contains_zero, 0.0, nearer_end)
    distance = np.where(feasible, np.abs(point), np.inf)
    best = np.argmin(distance, axis=0)
    columns = np.arange(count)
    found = np.isfinite(distance[best, columns])
    return np.where(found, point[best, columns], 0.0), found


def nearest_feasible_swivel_one(groups: list[Group]) -> float | None:
    """:func:`nearest_feasible_swivel` for one arm, on floats: ψ [rad], or None when none is feasible.

    The same pieces between limit roots, tested in order of their distance to ψ = 0 (ties: lower
    first, as the batch's argmin) and only until the first feasible one: usually a handful.
    """
    bounds = [-math.pi, math.pi]
    for triple, forms, _ in groups:
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


def matching_swivels(triple: AxisTriple, forms: list, angles: tuple) -> np.ndarray:
    """:func:`matching_swivels_one` for M arms (columns): (4, M) swivels in the same order, NaN
    where an equation has no root."""
    rows = []
    for (i, j, sign), angle in (((1, 2, 1.0), angles[0]), ((3, 6, -1.0), angles[2])):
        c, s = np.cos(angle), sign * np.sin(angle)
        k_c, k_s, k_1 = (c * forms[i][k] + s * forms[j][k] for k in range(3))
        rows.append(_form_roots_columns(*(np.atleast_2d(x) for x in np.broadcast_arrays(k_c, k_s, k_1))))
    return np.concatenate(rows)


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


def feasible_span_one(groups: list[Group]) -> tuple[float, float, float] | None:
    """The feasible swivel interval nearest ψ = 0 for one arm (floats): (nearest point, low, high)
    [rad], or None. Neighbouring feasible pieces are joined (a root of the other branch's limits
    splits nothing when only the group's own branch counts). The interval does not wrap past ±π.
    """
    bounds = [-math.pi, math.pi]
    for triple, forms, *_ in groups:
        bounds += _limit_roots_one(triple, forms)
    bounds.sort()
    pieces = list(itertools.pairwise(bounds))
    feasible: dict[int, bool] = {}

    def ok(i: int) -> bool:
        if i not in feasible:
            middle = 0.5 * sum(pieces[i])
            cos_psi, sin_psi = math.cos(middle), math.sin(middle)
            feasible[i] = all(_feasible_one(group, cos_psi, sin_psi) for group in groups)
        return feasible[i]

    order = sorted(
        range(len(pieces)),
        key=lambda i: min(abs(x) for x in pieces[i]) if pieces[i][0] > 0.0 or pieces[i][1] < 0.0 else 0.0,
    )
    for i in order:
        if ok(i):
            first = last = i
            while first > 0 and ok(first - 1):
                first -= 1
            while last < len(pieces) - 1 and ok(last + 1):
                last += 1
            low, high = pieces[first][0], pieces[last][1]
            return min(max(0.0, low), high), low, high
    return None
