"""Whole-body kinematics of a biped on its feet (no ROS): centre of mass, stance solve, walking.

Public API (stable; extend, don't rename)::

    from ik_solvers.whole_body import CenterOfMass

    com = CenterOfMass(model)                      # model: RobotModel with <inertial> blocks
    com.joint_names                                # every movable joint: the order of q
    q = com.configuration({"l_elbow": -0.5})       # (n,) from names, others 0
    com.position(q, base_pose)                     # (3,) world [m]; q (N, n) → (N, 3)
    com.jacobian(q, base_pose)                     # (3, 6 + n): base v, base w, joints
"""

from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.sole import SoleGeometry, sole_geometry
from ik_solvers.whole_body.stance import StanceResult, StanceSolver

__all__ = ["CenterOfMass", "SoleGeometry", "StanceResult", "StanceSolver", "sole_geometry"]
