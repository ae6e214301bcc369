"""Closed-form IK of a 7-DoF S-R-S arm (Tolani et al. 2000; Shimizu et al. 2008; ``docs/algorithms.md``).

Tolani et al.'s construction, with every length, centre and axis from the chain (:class:`ArmGeometry`):

1. The wrist centre W = target position - R_target · tool offset; the elbow angle q4 follows from
   |W - S| by the law of cosines (|W - S|² = c0 + A cos q4 + B sin q4); of its two roots the elbow
   limits decide (nearest the seed if both fit). Beyond reach (too far or too close) the distance is
   clamped: the nearest pose, success False.
2. The elbow lies on a circle around the shoulder→wrist line: the shoulder rotation is any Rs with
   Rs v = W - S (v = e + R4 f), i.e. Rot(t, ψ) R0 with t the unit shoulder→wrist direction and ψ the
   swivel. R0 places the elbow toward the pole target projected onto the plane normal to t; without
   a pole it keeps the seed's swivel (the seed's arm frame projected onto that plane); without a
   seed it uses the configured default (``elbow_direction`` turned by ``swivel`` about t).
3. Rs and the wrist rotation Rw = (Rs R4)ᵀ R_target Mᵀ are split into the URDF's own three joint
   axes (:class:`AxisTriple`), the branch within limits nearest the seed.
4. Where a joint would leave its limits, the swivel moves to the nearest ψ at which all seven are
   within (exact arm-angle intervals, :mod:`ik_solvers.solvers.geometric.arm7.swivel_search`); if there is none, success
   False and q is the requested swivel's solution clipped into the limits. When both elbow roots
   fit the elbow limits and no swivel fits the chosen one, the other bend gets the same search.

``solve`` runs on Python floats (fast for one target, the swivel search included); ``solve_batch``
runs the same code on numpy columns, in blocks, with no Python loop over targets. Target, seed and
pole checks and the block loop are :class:`~ik_solvers.solvers.geometric.base.GeometricSolver`'s.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.checks import pose_columns
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
from ik_solvers.solvers.geometric.arm7.follow import follow_columns, follow_fast_columns
from ik_solvers.solvers.geometric.arm7.geometry import IDENTITY, ArmGeometry
from ik_solvers.solvers.geometric.arm7.path import solve_path
from ik_solvers.solvers.geometric.arm7.swivel_search import (
    form_coefficients,
    limit_swivels_one,
    nearest_feasible_swivel,
)
from ik_solvers.solvers.geometric.base import BLOCK, NOT_MET, GeometricSolver, rows_of
from ik_solvers.solvers.geometric.structure import AxisLines
from ik_solvers.solvers.geometric.vectors import (
    COLUMNS,
    SCALAR,
    Ops,
    pose_errors,
    scale,
    sub,
    tmatvec,
    wrap,
)
from ik_solvers.solvers.results import BatchResult

FAR, CLOSE, ELBOW_LIMITS, NO_SWIVEL = 1, 2, 3, 4
REACH_SLACK = 1e-12  # [m²] clamping of |W - S|² that still counts as reached
STRETCH = 0.1  # [rad] elbow roots this close to each other both continue the seed's elbow


class _Arm(NamedTuple):
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


class Arm7Solver(GeometricSolver):
    """Closed-form IK of a 7-DoF arm with swivel control and joint-limit aware swivel choice.

    Args:
        chain: base → tip chain of an S-R-S arm (the tip may be a tool point after the wrist).
        swivel: [rad] default swivel when neither pole nor seed is given: the elbow's angle about
            the shoulder→wrist line from ``elbow_direction`` (right-handed about shoulder→wrist).
        elbow_direction: (3,) base-frame direction the elbow points to at swivel 0; default: the
            direction the elbow takes with the shoulder at zero and the elbow at mid-limits.
        tolerance: [m], [rad] allowed FK error of a success.
        axis_lines: the chain's axis lines when the structure check already ran.
        jump_limit: [rad] a seeded answer on the seed's branches that still moves a joint further
            than this from the seed (its swivel interval vanished: the nearest solution lies on
            another part of the self-motion) is reported as not continuous.
    Raises:
        UnsupportedChainError: the chain is no S-R-S arm (the message says what it lacks).
    """

    def __init__(
        self,
        chain: Chain,
        swivel: float = 0.0,
        elbow_direction=None,
        tolerance: float = 1e-9,
        axis_lines: AxisLines | None = None,
        jump_limit: float = 0.5,
    ) -> None:
        self.geometry = geometry = ArmGeometry(chain, axis_lines)
        self.jump_limit = _finite_number(jump_limit, "jump_limit")
        self.swivel = _finite_number(swivel, "swivel")
        direction = geometry.elbow_direction if elbow_direction is None else _unit(elbow_direction)
        self.elbow_direction = direction
        super().__init__(chain, "7-DoF arm", _reach_messages(chain, geometry), tolerance)
        self._kernels = geometry.kernels

    def solve_path(self, targets: np.ndarray, seed: np.ndarray | None = None) -> BatchResult:
        """Targets (N, 4, 4) solved as one path from ``seed`` (7,) [rad], the swivel chosen over the
        whole path so that no joint jumps (:mod:`~ik_solvers.solvers.geometric.arm7.path`); about
        6–15 ms per target. Rows as :meth:`solve_batch`'s; ``continuous`` False where a joint still
        moves more than ``jump_limit`` from the previous row.

        Raises:
            InvalidTargetError: targets not shaped (N, 4, 4); a bad seed.
        """
        return solve_path(self, targets, seed)

    def elbow_constructions(self, target: np.ndarray, seed: np.ndarray) -> list[tuple[_Arm, list[float]]]:
        """The constructions (steps 1-2, floats) of the elbow roots that reach ``target`` (4, 4)
        within the elbow's limits — the root nearest ``seed``'s elbow, and the other when it fits
        too — each with the swivels [rad] where a shoulder or wrist joint meets a limit."""
        rotation, position = pose_columns(target.ravel().tolist())
        seed = tuple(seed.tolist())
        arm = _construct(self, SCALAR, rotation, position, seed, None, True)
        if arm.reason != 0:
            return []
        arms = [arm]
        if arm.alternative:
            arms.append(_construct(self, SCALAR, rotation, position, seed, None, True, flip=True))
        return [(arm, limit_swivels_one(_groups(self.geometry, arm, SCALAR))) for arm in arms]

    def _solve_one(self, entries: list, seed: list | None, pole: tuple | None):
        """One target on floats: construction, joint split, and where needed the scalar swivel search."""
        rotation, position = pose_columns(entries)
        seeded = seed is not None
        seed = tuple(seed) if seeded else self._rest_seed
        arm = _construct(self, SCALAR, rotation, position, seed, pole, seeded)
        reason = arm.reason
        if seeded and pole is None and reason != ELBOW_LIMITS:
            followed = self._kernels.follow(arm)
            if followed is not None:
                near = max(abs(x - s) for x, s in zip(followed, seed)) <= self.jump_limit
                return (*self._finish(followed, reason, rotation, position, SCALAR), arm.kept and near)
        q, shoulder_out, wrist_out = _joints(self.geometry, SCALAR, arm, arm.frame)
        if reason != ELBOW_LIMITS and shoulder_out + wrist_out > LIMIT_TOLERANCE:
            moved = _search_one(self.geometry, arm)
            if moved is None and arm.alternative:  # the other elbow bend fits its limits too
                other = _construct(self, SCALAR, rotation, position, seed, pole, seeded, flip=True)
                moved = _search_one(self.geometry, other)
            if moved is None:
                reason = NO_SWIVEL if reason == 0 else reason
            else:
                q = moved
        continuous = not seeded or (arm.kept and (pole is not None or reason == ELBOW_LIMITS))
        return (*self._finish(q, reason, rotation, position, SCALAR), continuous)

    def _solve_columns(self, columns: np.ndarray, seeds, poles, out) -> None:
        """All rows of (16, N) ``columns`` in blocks; seeds (7, N), poles (3, N) or None.

        Seeded without poles, a row whose seed's swivel gives a solution within the limits and
        ``FOLLOW_STEP`` of the seed is done in columns; the others follow the seed one by one
        (:func:`~ik_solvers.solvers.geometric.arm7.follow.follow_one`), as :meth:`solve` does.
        """
        seeded = seeds is not None
        count = columns.shape[1]
        if not seeded:
            seeds = np.broadcast_to(self._rest_q[:, None], (7, count))
        for start in range(0, count, BLOCK):
            rows = slice(start, start + BLOCK)
            block_poles = None if poles is None else tuple(poles[:, rows])
            block = list(columns[:, rows])
            if seeded and poles is None:
                q, *found, slow = self._follow_block(block, tuple(seeds[:, rows]))
            else:
                q, *found = self._solve_block(block, tuple(seeds[:, rows]), block_poles, seeded)
                slow = ()
            for i, angle in enumerate(q):
                out[0][i, rows] = angle
            for target, values in zip(out[1:], found):
                target[rows] = values
            for row in slow:
                index = start + row
                q, *found = self._solve_one(columns[:, index].tolist(), seeds[:, index].tolist(), None)
                out[0][:, index] = q
                for target, value in zip(out[1:], found):
                    target[index] = value

    def _follow_block(self, entries, seed: tuple):
        """Seeded block: q (7 columns), reason, errors, continuous, and the rows left to follow_one."""
        rotation, position = pose_columns(entries)
        arm = _construct(self, COLUMNS, rotation, position, seed, None, True)
        q, fast = follow_fast_columns(self.geometry, arm)
        q = [np.broadcast_to(x, arm.q4.shape).copy() for x in q]
        fast = np.broadcast_to(fast, arm.q4.shape).copy()
        pending = np.flatnonzero(~fast & (arm.reason != ELBOW_LIMITS))
        if pending.size:
            rows = rows_of(arm, pending)
            moved, settled = follow_columns(self.geometry, rows, _groups(self.geometry, rows, COLUMNS))
            for i in range(7):
                q[i][pending[settled]] = np.broadcast_to(moved[i], settled.shape)[settled]
            fast[pending[settled]] = True
        slow = np.flatnonzero(~fast | (arm.reason == ELBOW_LIMITS))
        found = self._finish(q, arm.reason, rotation, position, COLUMNS)
        return (*found, np.broadcast_to(arm.kept, arm.q4.shape), slow.tolist())

    def _solve_block(self, entries, seed: tuple, pole: tuple | None, seeded: bool):
        """q (7 columns), reason, errors of one block; rows outside limits get the swivel search."""
        rotation, position = pose_columns(entries)
        arm = _construct(self, COLUMNS, rotation, position, seed, pole, seeded)
        q, shoulder_out, wrist_out = _joints(self.geometry, COLUMNS, arm, arm.frame)
        q = [np.broadcast_to(x, arm.q4.shape).copy() for x in q]
        reason = arm.reason
        search = np.flatnonzero((reason != ELBOW_LIMITS) & (shoulder_out + wrist_out > LIMIT_TOLERANCE))
        if search.size:
            reason = np.array(reason)
            found = _search_rows(self.geometry, rows_of(arm, search), q, search)
            retry = search[~found & (np.asarray(arm.alternative)[search])]
            if retry.size:  # the other elbow bend fits its limits too: its own swivel search
                taken = rows_of((rotation, position, seed, pole), retry)
                other = _construct(self, COLUMNS, *taken, seeded, flip=True)
                found[np.searchsorted(search, retry)] = _search_rows(self.geometry, other, q, retry)
            hopeless = search[~found]
            reason[hopeless] = np.where(reason[hopeless] == 0, NO_SWIVEL, reason[hopeless])
        continuous = True if not seeded else arm.kept
        return (*self._finish(q, reason, rotation, position, COLUMNS), continuous)

    @property
    def _rest_seed(self) -> tuple:
        return tuple(self._rest_q.tolist())

    def _finish(self, q, reason, rotation, position, ops: Ops):
        """Clip q into the limits, compare its FK with the target: (q, reason, errors)."""
        lower, upper = self._lower, self._upper
        q = [ops.minimum(ops.maximum(x, lower[i]), upper[i]) for i, x in enumerate(q)]
        fk_rotation, fk_position = self.geometry.forward(q, ops)
        position_error, orientation_error = pose_errors(fk_rotation, fk_position, rotation, position, ops)
        missed = self._missed(position_error, orientation_error)
        reason = ops.where((reason == 0) & missed, NOT_MET, reason)
        return q, reason, position_error, orientation_error


def _construct(
    solver: Arm7Solver, ops: Ops, rotation, position, seed, pole, seeded: bool, flip: bool = False
) -> _Arm:
    """Steps 1-2 of the module docstring: elbow angle and the shoulder rotation R0 at the wanted swivel.

    ``flip``: take the elbow root that would not be chosen (the other bend direction).
    """
    geo = solver.geometry
    wrist = sub(position, ops.matvec(rotation, geo.tool))
    to_wrist = sub(wrist, geo.shoulder_centre)
    q4, reason, alternative, kept = _elbow(geo, ops, ops.dot(to_wrist, to_wrist), seed[3], flip)
    c4, s4 = ops.cos(q4), ops.sin(q4)
    v = normalised(geo.shoulder_to_wrist(c4, s4), ops)
    k = normalised(ops.cross(geo.elbow_axis, v), ops)
    j = ops.cross(v, k)
    seed_turn = _shoulder_turn(geo, seed, ops)
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
    return _Arm(axis, frame, (c4, s4), goal, seed, q4, reason, alternative, kept)


def _elbow(geo: ArmGeometry, ops: Ops, distance2, seed4, flip: bool = False):
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


def _joints(geo: ArmGeometry, ops: Ops, arm: _Arm, frame: tuple):
    """Step 3: the seven angles for shoulder rotation ``frame``; how far shoulder and wrist are outside limits."""
    shoulder, shoulder_out = geo.shoulder.nearest(geo.shoulder.entries(frame, ops), arm.seed[:3], ops)
    forward = geo.axes[3].times(frame, *arm.elbow, ops)
    wrist_rotation = tuple(tmatvec(forward, g, ops) for g in arm.goal)
    wrist, wrist_out = geo.wrist.nearest(geo.wrist.entries(wrist_rotation, ops), arm.seed[4:], ops)
    return shoulder + (arm.q4,) + wrist, shoulder_out, wrist_out


def _search_rows(geo: ArmGeometry, arm: _Arm, q: list, rows: np.ndarray) -> np.ndarray:
    """Step 4 for the block rows ``rows`` (``arm`` holds just those): q (7 block columns) takes the
    angles at the nearest feasible swivel where one exists; returns where it does (bool per row)."""
    psi, found = nearest_feasible_swivel(_groups(geo, arm, COLUMNS))
    c, s = np.cos(psi[found]), np.sin(psi[found])
    arm = rows_of(arm, np.flatnonzero(found))
    frame = tuple(COLUMNS.rotate(arm.axis, c, s, column) for column in arm.frame)
    moved, _, _ = _joints(geo, COLUMNS, arm, frame)
    for i in range(7):
        q[i][rows[found]] = moved[i]
    return found


def _search_one(geo: ArmGeometry, arm: _Arm):
    """Step 4 for one target (floats): the seven angles at the nearest feasible swivel, or None.

    :func:`_search_rows` for one construction, compiled (:mod:`ik_solvers.solvers.geometric.kernels.arm7`)."""
    return geo.kernels.search(arm)


def _groups(geo: ArmGeometry, arm: _Arm, ops: Ops) -> list:
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


def _shoulder_turn(geo: ArmGeometry, seed, ops: Ops):
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


def _reach_messages(chain: Chain, geo: ArmGeometry) -> dict[int, str]:
    c0 = geo.distance_terms[0]
    amplitude, _ = geo.elbow_range
    near, far = math.sqrt(max(c0 - amplitude, 0.0)), math.sqrt(c0 + amplitude)
    span = f"the wrist centre must be {near:.4g} to {far:.4g} m from the shoulder centre"
    return {
        FAR: f"target out of reach (too far): {span}; returned the nearest pose",
        CLOSE: f"target out of reach (too close): {span}; returned the nearest pose",
        ELBOW_LIMITS: (
            f"the shoulder-wrist distance needs an elbow angle outside '{chain.joint_names[3]}' limits "
            f"[{geo.lower[3]:.4g}, {geo.upper[3]:.4g}]; returned the nearest pose"
        ),
        NO_SWIVEL: (
            "joint limits: no swivel angle keeps all seven joints within their limits; returned the "
            "requested swivel's solution clipped into the limits"
        ),
    }


def _finite_number(value, name: str) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number of radians, got {value!r}")
    return number


def _unit(vector) -> tuple[float, float, float]:
    array = np.asarray(vector, dtype=float)
    norm = float(np.linalg.norm(array)) if array.shape == (3,) else 0.0
    if not (math.isfinite(norm) and norm > 0.0):
        raise ValueError(
            f"elbow_direction must be a finite non-zero 3-vector in the base frame, got {vector!r}"
        )
    return tuple(float(x) / norm for x in array)
