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

Steps 1-3 are written once for floats and numpy columns in :mod:`.construction` (whole-path
planning uses them); ``solve`` and ``solve_batch`` run all four steps compiled
(:mod:`ik_solvers.solvers.geometric.kernels.arm7_solve`), seed following included: one kernel call
per solve, one per batch. Target, seed and pole checks are
:class:`~ik_solvers.solvers.geometric.base.GeometricSolver`'s.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.checks import pose_columns
from ik_solvers.solvers.geometric.arm7.construction import (
    CLOSE,
    ELBOW_LIMITS,
    FAR,
    NO_SWIVEL,
    Arm,
    construct,
    swivel_groups,
)
from ik_solvers.solvers.geometric.arm7.geometry import ArmGeometry
from ik_solvers.solvers.geometric.arm7.kernel import NO_POLE, NO_SEED, ArmKernels
from ik_solvers.solvers.geometric.arm7.path import solve_path
from ik_solvers.solvers.geometric.arm7.swivel_search import limit_swivels_one
from ik_solvers.solvers.geometric.base import GeometricSolver
from ik_solvers.solvers.geometric.kernels import arm7_solve, prepare_kernels
from ik_solvers.solvers.geometric.structure import AxisLines
from ik_solvers.solvers.geometric.vectors import SCALAR
from ik_solvers.solvers.results import BatchResult

PARALLEL_ROWS = 64  # a batch of this many rows or more is split over the cores (fewer: one thread)


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
        prepare_kernels()
        self._kernels = ArmKernels(
            geometry, direction, self.swivel, self.jump_limit, self.tolerance, self._rest_q
        )

    def solve_path(self, targets: np.ndarray, seed: np.ndarray | None = None) -> BatchResult:
        """Targets (N, 4, 4) solved as one path from ``seed`` (7,) [rad], the swivel chosen over the
        whole path so that no joint jumps (:mod:`~ik_solvers.solvers.geometric.arm7.path`); about
        6–15 ms per target. Rows as :meth:`solve_batch`'s; ``continuous`` False where a joint still
        moves more than ``jump_limit`` from the previous row.

        Raises:
            InvalidTargetError: targets not shaped (N, 4, 4); a bad seed.
        """
        return solve_path(self, targets, seed)

    def elbow_constructions(self, target: np.ndarray, seed: np.ndarray) -> list[tuple[Arm, list[float]]]:
        """The constructions (steps 1-2, floats) of the elbow roots that reach ``target`` (4, 4)
        within the elbow's limits — the root nearest ``seed``'s elbow, and the other when it fits
        too — each with the swivels [rad] where a shoulder or wrist joint meets a limit."""
        rotation, position = pose_columns(target.ravel().tolist())
        seed = tuple(seed.tolist())
        arm = construct(self, SCALAR, rotation, position, seed, None, True)
        if arm.reason != 0:
            return []
        arms = [arm]
        if arm.alternative:
            arms.append(construct(self, SCALAR, rotation, position, seed, None, True, flip=True))
        return [(arm, limit_swivels_one(swivel_groups(self.geometry, arm, SCALAR))) for arm in arms]

    def _solve_one(self, entries: np.ndarray, seed: np.ndarray | None, pole: np.ndarray | None):
        """One target, compiled (:func:`~ik_solvers.solvers.geometric.kernels.arm7_solve.solve`,
        the swivel search included)."""
        kernels, seeded, has_pole = self._kernels, seed is not None, pole is not None
        shoulder, wrist, geo = kernels.constants
        seed = seed if seeded else NO_SEED
        pole = pole if has_pole else NO_POLE
        q = np.empty(7)
        found = arm7_solve.solve_entries(
            shoulder, wrist, geo, entries, seed, seeded, pole, has_pole, q, kernels.work
        )
        return (q, *found)

    def _solve_rows(self, targets: np.ndarray, seeds, poles, out) -> None:
        """All rows of (N, 16) row-major ``targets``, compiled and checked as they are solved
        (:func:`~ik_solvers.solvers.geometric.kernels.arm7_solve.solve_rows`): what :meth:`solve`
        gives, row by row; from :data:`PARALLEL_ROWS` rows on over the cores, in chunks the
        threads take as they come free (the same answers).

        ``seeds``: (N, 7) or None; ``poles``: (N, 3) or None.
        """
        seeded, has_pole, kernels = seeds is not None, poles is not None, self._kernels
        read, clipped = (seeds, np.empty_like(seeds)) if seeded else (NO_SEED[None], NO_SEED[None])
        poles = poles if has_pole else NO_POLE[None]
        arguments = (
            kernels.constants,
            targets,
            read,
            seeded,
            poles,
            has_pole,
            self._row_bounds,
            out,
            clipped,
        )
        functions = (arm7_solve.solve_rows, arm7_solve.solve_rows_dynamic)
        self._run_rows(functions, arguments, (kernels.work, kernels.works), PARALLEL_ROWS, seeds, out[1])

    @property
    def _rest_seed(self) -> tuple:
        return tuple(self._rest_q.tolist())


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
