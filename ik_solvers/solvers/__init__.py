"""The solvers: the :class:`Solver` interface, results, errors and the registry behind ``make_solver``.

- :mod:`.base`: the :class:`Solver` protocol. :mod:`.results`, :mod:`.errors`: what solvers return
  and raise. :mod:`.checks`: target, seed and pole checks. :mod:`.registry`: the kinds.
- :mod:`.geometric`: closed forms picked from the chain's structure (leg, 7-DoF arm, planar).
- :mod:`.numeric`: Jacobian methods for any serial chain, with their compiled kernels.
"""

from ik_solvers.solvers.base import Solver
from ik_solvers.solvers.errors import (
    IKError,
    InvalidOptionError,
    InvalidTargetError,
    UnknownSolverError,
    UnsupportedChainError,
)
from ik_solvers.solvers.registry import SOLVERS, make_solver, warm_up
from ik_solvers.solvers.results import BatchResult, IKResult

__all__ = [
    "SOLVERS",
    "BatchResult",
    "IKError",
    "IKResult",
    "InvalidOptionError",
    "InvalidTargetError",
    "Solver",
    "UnknownSolverError",
    "UnsupportedChainError",
    "make_solver",
    "warm_up",
]
