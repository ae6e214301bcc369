"""The solvers: results, errors and the registry behind ``make_solver``.

Importing this package registers every solver kind (each module registers itself).
"""

from ik_solvers.solvers.base import (
    BatchResult,
    IKError,
    IKResult,
    InvalidTargetError,
    UnknownSolverError,
    UnsupportedChainError,
    make_solver,
)

__all__ = [
    "BatchResult",
    "IKError",
    "IKResult",
    "InvalidTargetError",
    "UnknownSolverError",
    "UnsupportedChainError",
    "make_solver",
]

from ik_solvers.solvers import (
    geometric,  # noqa: F401  (registers the "geometric" solver)
    jacobian,  # noqa: F401  (registers the "jacobian" solver)
)
