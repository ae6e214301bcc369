"""The "geometric" solver kind: picks the closed-form solver that fits the chain's geometry.

Structures are recognised from the axes, intersections and offsets at q = 0 (never from names),
tried in the order leg, 7-DoF arm, planar two-link. A chain that fits none is refused with a
message naming the supported structures and what this chain lacks.
"""

from __future__ import annotations

from ik_solvers.chain import Chain
from ik_solvers.solvers.base import UnsupportedChainError, register_solver
from ik_solvers.solvers.structure import (
    ARM7_DESCRIPTION,
    LEG_DESCRIPTION,
    PLANAR_DESCRIPTION,
    StructureMismatch,
    arm7_structure,
    leg_structure,
    planar_structure,
)


def _leg(chain: Chain, **options: object):
    from ik_solvers.solvers.leg import LegSolver

    return LegSolver(chain, **options)


def _arm7(chain: Chain, **options: object):
    arm7_structure(chain)
    try:
        from ik_solvers.solvers.arm7 import Arm7Solver
    except ImportError as error:
        raise StructureMismatch(
            f"the chain is a 7-DoF arm but the arm solver is not available ({error})"
        ) from error
    return Arm7Solver(chain, **options)


def _planar(chain: Chain, **options: object):
    from ik_solvers.solvers.planar import PlanarSolver

    return PlanarSolver(chain, **options)


STRUCTURES = ((6, leg_structure, _leg), (7, arm7_structure, _arm7), (2, planar_structure, _planar))


@register_solver("geometric")
def make_geometric_solver(chain: Chain, **options: object):
    """The closed-form solver for ``chain``'s structure, built with ``options``.

    Raises:
        UnsupportedChainError: the chain fits none of the structures; the message lists them and
            says what this chain lacks.
    """
    reasons = []
    for count, detect, build in STRUCTURES:
        if chain.n != count:
            continue
        try:
            detect(chain)
        except StructureMismatch as mismatch:
            reasons.append(str(mismatch))
            continue
        try:
            return build(chain, **options)
        except StructureMismatch as mismatch:
            reasons.append(str(mismatch))
    if not reasons:
        reasons.append(
            f"it has {chain.n} movable joints ({', '.join(chain.joint_names)}); they need 6, 7 or 2"
        )
    raise UnsupportedChainError(
        f"no geometric solver fits {chain!r}: {'; '.join(reasons)}. Supported structures: "
        f"{LEG_DESCRIPTION}; {ARM7_DESCRIPTION}; {PLANAR_DESCRIPTION}. The 'jacobian' solver handles any chain."
    )
