"""Whole-body kinematics of a biped on its feet (no ROS): centre of mass, stance solve, walking.

Public API (stable; extend, don't rename)::

    from ik_solvers.whole_body import (
        CenterOfMass, StanceSolver, StanceResult, WalkConfig, WalkingPatternGenerator, WalkTick,
    )

    com = CenterOfMass(model)                       # model: RobotModel with <inertial> blocks
    com.joint_names                                 # every movable joint: the order of q
    q = com.configuration({"l_elbow": -0.5})        # (n,) from names, others 0
    com.position(q, base_pose)                      # (3,) world [m]; q (N, n), poses (N, 4, 4) → (N, 3)
    com.jacobian(q, base_pose)                      # (3, 6 + n): base v, base w (world), joints

    stance = StanceSolver(model)                    # legs and soles found in the tree (ik_solvers.limbs)
    r = stance.solve(left_sole, right_sole, torso_height, torso_rotation=None, support="double",
                     com_target=None, com_offset=(0, 0), joints={"l_elbow": -0.5})
    r.success, r.com_reachable, r.torso_pose, r.joint_names, r.q, r.positions, r.com, r.com_error

    walker = WalkingPatternGenerator(model, WalkConfig(), left_sole=None, right_sole=None, stance=stance)
    walker.set_command(forward, lateral, yaw_rate)  # m/s, m/s, rad/s; clipped to walker.max_command
    tick = walker.step()                            # every WalkConfig.dt (0.01 s)
    r = stance.solve(tick.left_sole, tick.right_sole, tick.torso_height, tick.torso_rotation,
                     support=tick.support, com_target=tick.com)
    tick.zmp_reference, tick.zmp, tick.walking, walker.footsteps(), walker.geometry
    walker.stop()                                   # at once: the last step lands within one step period
    walker.observe_com(measured_xy, measured_velocity_xy, gain)   # optional feedback [m, m/s]

    stabiliser = Stabiliser(walker, stance)         # with WalkConfig(stabilise=True): balance feedback
    c = stabiliser.update(tick, imu_quaternion_wxyz, gyro, q)   # IMU and measured joints only
    stance.solve(..., c.torso_rotation, com_target=c.com)        # c.estimate, c.dcm_error, c.landing_moved

All poses are (4, 4) in a world frame with z up [m]; angles in rad.
"""

from ik_solvers.limbs.footprint import SoleGeometry, sole_geometry
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.stabiliser import Stabiliser
from ik_solvers.whole_body.stance import StanceResult, StanceSolver
from ik_solvers.whole_body.walk_config import WalkConfig
from ik_solvers.whole_body.walk_geometry import WalkGeometry
from ik_solvers.whole_body.walking_pattern import WalkingPatternGenerator, WalkTick

__all__ = [
    "CenterOfMass",
    "SoleGeometry",
    "Stabiliser",
    "StanceResult",
    "StanceSolver",
    "WalkConfig",
    "WalkGeometry",
    "WalkTick",
    "WalkingPatternGenerator",
    "sole_geometry",
]
