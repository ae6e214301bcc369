"""One arm's compiled solve (:mod:`ik_solvers.solvers.geometric.kernels.arm7_solve`) and swivel
choice (:mod:`ik_solvers.solvers.geometric.kernels.arm7`): its constants and scratch, and the
calls the solver makes."""

from __future__ import annotations

import numba
import numpy as np

from ik_solvers.solvers.geometric.arm7.geometry import IDENTITY, ArmGeometry
from ik_solvers.solvers.geometric.kernels import arm7, arm7_follow, arm7_solve, axis_triple

NO_POLE, NO_SEED = np.zeros(3), np.zeros(7)  # placeholders the kernels do not read


class ArmKernels:
    """The compiled solve of one arm: its geometry and the solver's options as the kernels read
    them (:data:`.arm7.GEO`), and the scratch they work in (``work``: one solve's; ``works``: one
    per thread of a parallel batch).

    Args:
        geometry: the arm. elbow_direction: (3,) unit; swivel, jump_limit: [rad];
            tolerance: [m], [rad] (the solver's options, see Arm7Solver); rest: (7,) [rad] the
            seed of unseeded solves.
    """

    def __init__(
        self,
        geometry: ArmGeometry,
        elbow_direction,
        swivel: float,
        jump_limit: float,
        tolerance: float,
        rest: np.ndarray,
    ) -> None:
        values = {
            "elbow_axis": geometry.axes[3].vector,
            "lower": geometry.lower,
            "upper": geometry.upper,
            "shoulder_centre": geometry.shoulder_centre,
            "upper_arm": geometry.upper_arm,
            "forearm_along": geometry.forearm_along,
            "forearm_across": geometry.forearm_across,
            "forearm_turned": geometry.forearm_turned,
            "tool": geometry.tool,
            "tip_rows": np.ravel(geometry.tip_rows),
            "tip_columns": np.ravel(geometry.tip_columns),
            "tip_identity": float(geometry.tip_rows == IDENTITY),
            "c0": geometry.distance_terms[0],
            "amplitude": geometry.elbow_range[0],
            "phase": geometry.elbow_range[1],
            "axes": np.ravel([axis.vector for axis in geometry.axes]),
            "elbow_direction": elbow_direction,
            "swivel": swivel,
            "rest": rest,
            "jump_limit": jump_limit,
            "tolerance": tolerance,
        }
        geo = np.zeros(arm7.GEO_SIZE)
        for name, size in arm7.GEO_LAYOUT:
            geo[arm7.GEO[name] : arm7.GEO[name] + size] = np.ravel(values[name])
        self.constants = (
            axis_triple.constants(geometry.shoulder),
            axis_triple.constants(geometry.wrist),
            geo,
        )
        self.work = arm7_solve.workspace()
        self.works = arm7_solve.workspaces(numba.config.NUMBA_NUM_THREADS)  # one per batch thread

    def search(self, arm) -> list[float] | None:
        """The 7 angles [rad] at the feasible swivel nearest the requested one of the construction
        ``arm`` (a float ``_Arm``, or the kernels' packed one), or None."""
        packed = arm if isinstance(arm, np.ndarray) else arm7.pack(arm)
        q, (_, forms, scratch, _, _) = np.empty(7), self.work
        found = arm7.search(*self.constants, packed, q, forms, scratch)
        return q.tolist() if found else None

    def follow(self, arm) -> list[float] | None:
        """follow.follow_one for the float construction ``arm``: 7 angles [rad], or None."""
        q, (_, forms, scratch, order, steps) = np.empty(7), self.work
        found = arm7_follow.follow(*self.constants, arm7.pack(arm), q, forms, scratch, order, steps)
        return q.tolist() if found else None
