"""ik_solvers: inverse kinematics for humanoid and legged robots described by a URDF.

The library (this package, ``description``, ``solvers``, ``limbs``, ``control``, ``whole_body``) imports
without ROS; only the feature folders ``node``, ``sim``, ``hardware``, ``walk`` and ``demo`` import rclpy
(docs/layout.md).
"""

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
