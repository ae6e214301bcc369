"""The "geometric" solver kind: picks the closed-form solver that fits the chain's geometry.

Structures are recognised from the axes, intersections and offsets at q = 0 (never from names),
by the checks of :mod:`~ik_solvers.solvers.geometric.structure`, once per chain: the axis lines
a check returns are handed to the solver it selects. A chain that fits none is refused with a
message naming the supported structures and what this chain lacks.

To add a structure: a check in ``structure.py`` that returns :class:`AxisLines` or raises
:class:`StructureMismatch`, a solver class that accepts ``axis_lines``, and one row of
:data:`STRUCTURES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ik_solvers.chain import Chain
from ik_solvers.solvers.base import Solver
from ik_solvers.solvers.errors import StructureMismatch, UnsupportedChainError
from ik_solvers.solvers.geometric.arm7.solver import Arm7Solver
from ik_solvers.solvers.geometric.leg import LegSolver
from ik_solvers.solvers.geometric.planar import PlanarSolver
from ik_solvers.solvers.geometric.structure import (
    ARM7_DESCRIPTION,
    LEG_DESCRIPTION,
    PLANAR_DESCRIPTION,
    AxisLines,
    arm7_structure,
    leg_structure,
    planar_structure,
)


class Structure(NamedTuple):
    """A structure the geometric kind solves: its joint count, its check and its solver class."""

    joints: int
    detect: Callable[[Chain], AxisLines]
    solver: Callable[..., Solver]
    description: str


STRUCTURES = (
    Structure(6, leg_structure, LegSolver, LEG_DESCRIPTION),
    Structure(7, arm7_structure, Arm7Solver, ARM7_DESCRIPTION),
    Structure(2, planar_structure, PlanarSolver, PLANAR_DESCRIPTION),
)


def make_geometric_solver(chain: Chain, **options: object) -> Solver:
    """The closed-form solver for ``chain``'s structure, built with ``options``.

    Raises:
        UnsupportedChainError: the chain fits none of the structures; the message lists them and
            says what this chain lacks.
    """
    reasons = []
    for structure in STRUCTURES:
        if chain.n != structure.joints:
            continue
        try:
            return structure.solver(chain, axis_lines=structure.detect(chain), **options)
        except StructureMismatch as mismatch:
            reasons.append(str(mismatch))
    if not reasons:
        counts = ", ".join(str(structure.joints) for structure in STRUCTURES)
        reasons.append(
            f"it has {chain.n} movable joints ({', '.join(chain.joint_names)}); they need {counts}"
        )
    supported = "; ".join(structure.description for structure in STRUCTURES)
    raise UnsupportedChainError(
        f"no geometric solver fits {chain!r}: {'; '.join(reasons)}. Supported structures: "
        f"{supported}. The 'jacobian' solver handles any chain."
    )
