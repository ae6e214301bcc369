"""Steps 1-3 of the 7-DoF arm's closed form on floats and numpy columns (Tolani et al. 2000;
see :mod:`.solver`): the elbow angle, the shoulder rotation at the wanted swivel (by pole, seed
or default), the joint split, and the swivel forms of both triples.

The compiled solve (:mod:`ik_solvers.solvers.geometric.kernels.arm7_solve`) mirrors these; they
serve whole-path planning (:meth:`.solver.Arm7Solver.elbow_constructions`) and are the float
reference of the kernels.
"""

from __future__ import annotations

from typing import NamedTuple

from ik_solvers.solvers.geometric.arm7.axis_triple import LIMIT_TOLERANCE, outside, prefer_first
from ik_solvers.solvers.geometric.arm7.elbow_direction import (
    TINY,
    any_perpendicular,
    anywhere,
    first_valid,
    following,
    normalised,
    select,
    toward,
)
from ik_solvers.solvers.geometric.arm7.geometry import IDENTITY, ArmGeometry
from ik_solvers.solvers.geometric.arm7.swivel_search import form_coefficients
from ik_solvers.solvers.geometric.vectors import Ops, scale, sub, tmatvec, wrap

FAR, CLOSE, ELBOW_LIMITS, NO_SWIVEL = 1, 2, 3, 4  # reason codes of the arm
REACH_SLACK = 1e-12  # [m²] clamping of |W - S|² that still counts as reached
STRETCH = 0.1  # [rad] elbow roots this close to each other both continue the seed's elbow


class Arm(NamedTuple):
    """One construction (floats) or a block of them (columns): what the joint split needs."""

    axis: tuple  # t, unit shoulder→wrist direction
    frame: tuple  # columns of R0, the shoulder rotation at the requested swivel
    elbow: tuple  # (cos q4, sin q4)
    goal: tuple  # columns of R_target Mᵀ = Rs R4 Rw
    seed: tuple  # 7 seed angles
    q4: object
    reason: object  # 0, FAR, CLOSE or ELBOW_LIMITS
    alternative: object  # the other elbow root is within its limits too (and the target in reach)
    kept: object  # the elbow root is the one nearest the seed's elbow (it continues the seed)


def construct(solver, ops: Ops, rotation, position, seed, pole, seeded: bool, flip: bool = False) -> Arm:
    """Steps 1-2 of the module docstring: elbow angle and the shoulder rotation R0 at the wanted swivel.

    ``flip``: take the elbow root that would not be chosen (the other bend direction).
    """
    geo = solver.geometry
    wrist = sub(position, ops.matvec(rotation, geo.tool))
    to_wrist = sub(wrist, geo.shoulder_centre)
    q4, reason, alternative, kept = elbow(geo, ops, ops.dot(to_wrist, to_wrist), seed[3], flip)
    c4, s4 = ops.cos(q4), ops.sin(q4)
    v = normalised(geo.shoulder_to_wrist(c4, s4), ops)
    k = normalised(ops.cross(geo.elbow_axis, v), ops)
    j = ops.cross(v, k)
    seed_turn = shoulder_turn(geo, seed, ops)
    length = ops.sqrt(ops.dot(to_wrist, to_wrist))
    axis = scale(to_wrist, 1.0 / ops.maximum(length, TINY))
    if anywhere(length <= TINY):  # the target at the shoulder centre: keep the seed's arm direction
        axis = select(length > TINY, axis, seed_turn(v), ops)
    offset = (ops.dot(geo.upper_arm, k), ops.dot(geo.upper_arm, j))
    candidates = []
    if pole is not None:
        candidates.append(lambda: toward(sub(pole, geo.shoulder_centre), 0.0, axis, offset, ops))
    default = lambda: toward(solver.elbow_direction, solver.swivel, axis, offset, ops)
    keep_seed = lambda: following(seed_turn(k), axis, ops)
    candidates += [keep_seed, default] if seeded else [default, keep_seed]
    candidates.append(lambda: following(any_perpendicular(axis, ops), axis, ops))
    r = first_valid(candidates, ops)
    tr = ops.cross(axis, r)
    frame = tuple(tuple(axis[i] * v[c] + r[i] * k[c] + tr[i] * j[c] for i in range(3)) for c in range(3))
    goal = rotation if geo.tip_rows == IDENTITY else tuple(ops.matvec(rotation, row) for row in geo.tip_rows)
    return Arm(axis, frame, (c4, s4), goal, seed, q4, reason, alternative, kept)


def elbow(geo: ArmGeometry, ops: Ops, distance2, seed4, flip: bool = False):
    """Elbow angle for |W - S|² (clamped to reach), the reason code (0, FAR, CLOSE, ELBOW_LIMITS),
    whether the other root is within the limits too, and whether the root is the one nearest the
    seed's elbow; ``flip`` takes the root that would not be chosen."""
    c0 = geo.distance_terms[0]
    amplitude, phase = geo.elbow_range
    x = distance2 - c0
    clamped = ops.minimum(ops.maximum(x, -amplitude), amplitude)
    spread = ops.atan2(ops.sqrt(ops.maximum((amplitude - clamped) * (amplitude + clamped), 0.0)), clamped)
    lower, upper = geo.lower[3], geo.upper[3]
    middle = 0.5 * (lower + upper)
    first, second = wrap(phase + spread, middle, ops), wrap(phase - spread, middle, ops)
    out1, out2 = outside(first, lower, upper, ops), outside(second, lower, upper, ops)
    pick = prefer_first(out1, abs(first - seed4), out2, abs(second - seed4))
    if flip:
        pick = pick != flip
    # the root nearest the seed's elbow continues it; next to the stretch both roots do
    chosen, other = ops.where(pick, first, second), ops.where(pick, second, first)
    kept = abs(chosen - seed4) <= abs(other - seed4) + STRETCH
    q4 = ops.minimum(ops.maximum(ops.where(pick, first, second), lower), upper)
    reason = ops.where(x > amplitude + REACH_SLACK, FAR, ops.where(x < -amplitude - REACH_SLACK, CLOSE, 0))
    limited = ops.where(pick, out1, out2) > LIMIT_TOLERANCE
    alternative = (reason == 0) & (out1 <= LIMIT_TOLERANCE) & (out2 <= LIMIT_TOLERANCE)
    return q4, ops.where((reason == 0) & limited, ELBOW_LIMITS, reason), alternative, kept


def joints(geo: ArmGeometry, ops: Ops, arm: Arm, frame: tuple):
    """Step 3: the seven angles for shoulder rotation ``frame``; how far shoulder and wrist are outside limits."""
    shoulder, shoulder_out = geo.shoulder.nearest(geo.shoulder.entries(frame, ops), arm.seed[:3], ops)
    forward = geo.axes[3].times(frame, *arm.elbow, ops)
    wrist_rotation = tuple(tmatvec(forward, g, ops) for g in arm.goal)
    wrist, wrist_out = geo.wrist.nearest(geo.wrist.entries(wrist_rotation, ops), arm.seed[4:], ops)
    return shoulder + (arm.q4,) + wrist, shoulder_out, wrist_out


def swivel_groups(geo: ArmGeometry, arm: Arm, ops: Ops) -> list:
    """Shoulder and wrist as the swivel search wants them: (triple, entry forms, seed angles).

    The forms are ENTRY_COUNT triples (k_c, k_s, k_1), floats or columns, in
    :meth:`AxisTriple.entry_pairs` order: the entries u·R w as functions of the swivel ψ.
    """
    forward = geo.axes[3].times(arm.frame, *arm.elbow, ops)
    groups = []
    for triple, first, second, sign, seed in (
        (geo.shoulder, arm.frame, None, 1.0, arm.seed[:3]),
        (geo.wrist, forward, arm.goal, -1.0, arm.seed[4:]),
    ):
        forms = []
        for u, w in triple.entry_pairs():
            y, x = (
                (u, ops.matvec(first, w)) if second is None else (ops.matvec(first, u), ops.matvec(second, w))
            )
            forms.append(form_coefficients(y, x, arm.axis, sign))
        groups.append((triple, forms, seed))
    return groups


def shoulder_turn(geo: ArmGeometry, seed, ops: Ops):
    """The seed's shoulder rotation Rot(a1, q1) Rot(a2, q2) Rot(a3, q3) as a function on vectors."""
    turns = [
        (axis, ops.cos(seed[i]), ops.sin(seed[i]))
        for i, axis in enumerate((geo.shoulder.a, geo.shoulder.b, geo.shoulder.c))
    ]

    def turn(vector):
        for axis, c, s in reversed(turns):
            vector = ops.rotate(axis, c, s, vector)
        return vector

    return turn
