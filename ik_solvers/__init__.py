"""ik_solvers: inverse kinematics for humanoid and legged robots described by a URDF.

The library (this package, ``description``, ``solvers``, ``limbs``, ``control``, ``whole_body``) imports
without ROS; only the feature folders ``node``, ``sim``, ``hardware``, ``walk`` and ``demo`` import rclpy
(docs/layout.md).

The public API below is imported on first use (PEP 562 ``__getattr__``): ``import ik_solvers`` alone
loads nothing heavy (numba, numpy), so that the console scripts take the stop signals over before
those imports (:mod:`ik_solvers.console_scripts`). ``from ik_solvers import RobotModel`` works as ever.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ik_solvers.chain import Chain, Joint
    from ik_solvers.model import ModelError, RobotModel
    from ik_solvers.solvers import (
        BatchResult,
        IKError,
        IKResult,
        InvalidTargetError,
        Solver,
        UnknownSolverError,
        UnsupportedChainError,
        make_solver,
    )

__all__ = [
    "BatchResult",
    "Chain",
    "IKError",
    "IKResult",
    "InvalidTargetError",
    "Joint",
    "ModelError",
    "RobotModel",
    "Solver",
    "UnknownSolverError",
    "UnsupportedChainError",
    "make_solver",
]
_MODULE_OF = {  # public name → the module that defines it
    "BatchResult": "ik_solvers.solvers",
    "Chain": "ik_solvers.chain",
    "IKError": "ik_solvers.solvers",
    "IKResult": "ik_solvers.solvers",
    "InvalidTargetError": "ik_solvers.solvers",
    "Joint": "ik_solvers.chain",
    "ModelError": "ik_solvers.model",
    "RobotModel": "ik_solvers.model",
    "Solver": "ik_solvers.solvers",
    "UnknownSolverError": "ik_solvers.solvers",
    "UnsupportedChainError": "ik_solvers.solvers",
    "make_solver": "ik_solvers.solvers",
}


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use."""
    if name not in _MODULE_OF:
        raise AttributeError(
            f"module 'ik_solvers' has no attribute '{name}'; its public names: {', '.join(__all__)}"
        )
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
