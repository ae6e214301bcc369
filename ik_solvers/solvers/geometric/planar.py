"""Planar two-link IK (``docs/algorithms.md``): two revolute joints with parallel axes, both elbow branches.

Targets are tip positions in the plane the tip moves in (normal to the joint axes). What a 4x4
target's other parts mean here:

- orientation: not a goal (two joints cannot also set it; it follows from the position and the
  branch). ``orientation_error`` is reported, ``success`` ignores it;
- out-of-plane offset: a target farther than the tolerance from the plane fails with a message;
  q then solves its projection onto the plane.

Branches (option ``branch``): ``"up"`` puts the elbow counterclockwise of the base→target line as
seen with the first joint's axis pointing at the viewer (the + sign of the textbook formula), ``"down"`` clockwise,
``"nearest"`` (default) the one nearest the seed, else "up" where it succeeds.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.geometric.branches import BranchSolver
from ik_solvers.solvers.geometric.kernels import planar as kernel
from ik_solvers.solvers.geometric.kernels import two_link as two_link_kernel
from ik_solvers.solvers.geometric.structure import AxisLines, planar_structure, sign
from ik_solvers.solvers.geometric.two_link import TwoLink
from ik_solvers.solvers.geometric.vectors import Ops, add, dot, matvec, sub

FAR, CLOSE, OUT_OF_PLANE = 1, 2, 3
REACH_SLACK = 1e-12  # [m]
BRANCHES = {"up": (-1.0,), "down": (1.0,), "nearest": (-1.0, 1.0)}


def _tuple(vector: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in vector)


class PlanarSolver(BranchSolver):
    """Closed-form IK of a planar two-link chain; geometry read from the chain.

    Args:
        chain: two revolute joints with parallel axes. branch: "nearest", "up" or "down" (see the
            module docstring). tolerance: [m] position tolerance for success and for the plane.
        axis_lines: the chain's axis lines when :func:`planar_structure` already checked them.
    """

    def __init__(
        self,
        chain: Chain,
        branch: str = "nearest",
        tolerance: float = 1e-9,
        axis_lines: AxisLines | None = None,
    ) -> None:
        if branch not in BRANCHES:
            raise ValueError(f"branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
        lines = planar_structure(chain) if axis_lines is None else axis_lines
        w, p, tip = lines.directions, lines.points, lines.tip
        normal = w[0]
        link = p[1] - p[0]
        across = link - np.dot(link, normal) * normal
        plane_x = across / np.linalg.norm(across)
        self._basis = tuple(_tuple(v) for v in (plane_x, np.cross(normal, plane_x), normal))
        rows = np.stack([plane_x, np.cross(normal, plane_x), normal])
        self._origin = _tuple(p[0])
        self.height = float(np.dot(normal, tip[:3, 3] - p[0]))  # the tip's plane [m] along the axis
        self.two_link = TwoLink.build(
            _tuple(rows @ link)[:2],
            _tuple(rows @ (tip[:3, 3] - p[1]))[:2],
            1.0,
            sign(np.dot(w[1], normal)),
            float(chain.lower[1]),
            float(chain.upper[1]),
        )
        self._link2 = _tuple(rows @ (tip[:3, 3] - p[1]))[:2]
        self._tip_rotation = tuple(_tuple(rows @ tip[:3, j]) for j in range(3))
        super().__init__(
            chain, "planar two-link", self._reach_messages(tolerance), tolerance, BRANCHES[branch]
        )
        self._constants = self._kernel_constants()
        self._work = np.empty((2, kernel.N))

    def _kernel_constants(self) -> np.ndarray:
        """The arm's constants as the compiled solve reads them (:data:`kernels.planar.OFFSETS`)."""
        plane_x, plane_z, normal = self._basis
        values = {
            "origin": self._origin,
            "plane_x": plane_x,
            "plane_z": plane_z,
            "normal": normal,
            "tip_x": self._tip_rotation[0],
            "tip_y": self._tip_rotation[1],
            "tip_z": self._tip_rotation[2],
            "height": self.height,
            "tolerance": self.tolerance,
            "reach_min": self.two_link.reach_min,
            "reach_max": self.two_link.reach_max,
            "link2_x": self._link2[0],
            "link2_z": self._link2[1],
            "branch_count": len(self.branches),
            "branch_0": self.branches[0],
            "branch_1": self.branches[-1],
            **dict(zip(two_link_kernel.LAYOUT, two_link_kernel.block(self.two_link))),
            "lower": self._lower,
            "upper": self._upper,
            "middle": self._middle,
            "continuous": self._continuous,
        }
        return kernel.constants(values)

    def _solve_one(self, entries: np.ndarray, seed: np.ndarray | None, pole: np.ndarray | None):
        """One checked target, compiled (:func:`kernels.planar.solve`); the float form
        (BranchSolver._solve_scalar) is the reference it mirrors."""
        q = np.empty(2)
        seeded = seed is not None
        return (
            q,
            *kernel.solve_entries(self._constants, entries, seed if seeded else q, seeded, q, self._work),
        )

    def _solve_columns(self, columns: np.ndarray, seeds, poles, out) -> None:
        """Every target of (16, N) ``columns`` compiled (:func:`kernels.planar.solve_columns`)."""
        seeded = seeds is not None
        seeds = np.ascontiguousarray(seeds) if seeded else np.zeros((2, 1))
        q, *found = out
        kernel.solve_columns(self._constants, columns, seeds, seeded, q.T, *found, self._work)

    def _reach_messages(self, tolerance: float) -> dict[int, str]:
        two = self.two_link
        return {
            FAR: f"out of reach: the target is farther than {two.reach_max:.4g} m from the first joint axis; "
            "q stretches the arm towards it",
            CLOSE: f"out of reach: the target is closer than {two.reach_min:.4g} m to the first joint axis "
            "(link lengths and the second joint's limits); q folds the arm towards it",
            OUT_OF_PLANE: f"target is more than {tolerance:g} m out of the arm's plane (normal to the joint axes); "
            "a planar arm reaches positions in that plane only; q solves the target's projection",
        }

    def _missed(self, position_error, orientation_error):
        return position_error > self.tolerance

    def _closed_form(self, rotation, translation, branch, ops: Ops, seed=None):
        """The two angles of one bend; ``seed`` unused (a bend's solution is unique)."""
        (bend,) = (branch,)
        relative = sub(translation, self._origin)
        plane_x, plane_z, normal = self._basis
        two = self.two_link
        first, second, _, _, distance = two.solve(dot(relative, plane_x), dot(relative, plane_z), bend, ops)
        out_of_plane = abs(dot(relative, normal) - self.height) > self.tolerance
        reason = ops.where(distance < two.reach_min - REACH_SLACK, CLOSE, 0)
        reason = ops.where(distance > two.reach_max + REACH_SLACK, FAR, reason)
        reason = ops.where(out_of_plane, OUT_OF_PLANE, reason)
        return (first, second), reason

    def _forward(self, q, ops: Ops):
        """Tip pose (rotation columns, translation) of q."""
        phi_a, phi_b = q[0], self.two_link.sign_b * q[1]
        ca, sa = ops.cos(phi_a), ops.sin(phi_a)
        cab, sab = ops.cos(phi_a + phi_b), ops.sin(phi_a + phi_b)
        (x1, z1), (x2, z2) = self.two_link.link1, self._link2
        local = (
            x1 * ca - z1 * sa + x2 * cab - z2 * sab,
            x1 * sa + z1 * ca + x2 * sab + z2 * cab,
            self.height,
        )
        translation = add(self._origin, matvec(self._basis, local))
        rotation = tuple(
            matvec(self._basis, (cab * c[0] - sab * c[1], sab * c[0] + cab * c[1], c[2]))
            for c in self._tip_rotation
        )
        return rotation, translation
