"""Launch the walking stack on the simulator: sim_node (floating base), ik_node, walk_node.

    ros2 launch ik_solvers walk.launch.py
    ros2 launch ik_solvers walk.launch.py urdf:=/path/to/robot.urdf
    ros2 topic pub -r 10 /cmd_vel geometry_msgs/msg/Twist "{linear: {x: 0.1}}"

walk_node turns ``cmd_vel`` into whole-body targets (``whole_body/target``) at 100 Hz; ik_node
solves the stance and publishes ``joint_commands``; sim_node stands the robot on the MuJoCo floor
and publishes ``/joint_states``, ``/sim_node/base_pose`` and ``/sim_node/imu``. Arguments:
``urdf`` (default the packaged humanoid), ``params`` (ik_node parameter file), ``walk_params``
(walk_node parameter file), ``simulate`` (``false``: no sim_node, e.g. on servos),
``max_velocity_fraction`` (ik_node's share of each joint's URDF velocity limit: 1.0, as a swinging
knee of the slow gait needs about 3.6 rad/s; the packaged humanoid's limit is 4.8).

Simulated, the three nodes run on simulated time, as ``ik_demo`` runs them: sim_node lock-steps
its physics to walk_node's control period (``walk.dt`` of ``walk_params``) and publishes
``/clock``; walk_node and ik_node use it (``use_sim_time``). Each period waits for ik_node's
command and walk_node's planned ZMP of that period (``lock_step_pace``; ik_node alone answers
with walk_node's last target while a busy machine pauses walk_node), up to 3 s
(``lock_step_timeout``). A machine too busy to keep up then slows the simulated world down
instead of freezing the robot's targets while its physics runs on, then jumping them. walk_node
watches ``/sim_node/imu`` for falls and turns the servos off through ``/sim_node/set_torque`` (on
hardware: its ``imu`` topic, remapped to the robot's IMU, and ``/servo_bridge/set_torque``).
"""

import os
from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node, robot_description
from ik_solvers.sim.lock_step import WALK_TIMEOUT
from ik_solvers.walk.config import load_walk_config

PACE = "walk_node/zmp"  # walk_node's planned ZMP, one per period: each lock-stepped period waits for it


def nodes(context):
    """walk_node, ik_node and (unless simulate:=false) sim_node, all on the URDF file's XML."""
    description = {"robot_description": robot_description(context)}
    simulate = LaunchConfiguration("simulate").perform(context).lower() == "true"
    clock = {"use_sim_time": simulate}
    speed = {"max_velocity_fraction": float(LaunchConfiguration("max_velocity_fraction").perform(context))}
    walk_params = LaunchConfiguration("walk_params").perform(context)
    # simulated, walk_node watches sim_node's IMU for falls and turns its servos off on one
    fall = {"fall.torque_service": "/sim_node/set_torque"} if simulate else {}
    imu = [("imu", "/sim_node/imu")] if simulate else []
    launched = [
        package_node(
            executable="walk_node", parameters=[walk_params, description, clock, fall], remappings=imu
        ),
        package_node(
            executable="ik_node", parameters=[LaunchConfiguration("params"), description, clock, speed]
        ),
    ]
    if simulate:
        lock_step = {"lock_step": True, "control_period": load_walk_config(Path(walk_params)).dt}
        lock_step.update(lock_step_timeout=WALK_TIMEOUT, lock_step_pace=PACE)  # as ik_demo runs it
        launched.append(
            package_node(
                executable="sim_node", parameters=[{**description, "floating_base": True, **lock_step}]
            )
        )
    return launched


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument("urdf", default_value=os.path.join(share, "urdf", "humanoid.urdf")),
            DeclareLaunchArgument("params", default_value=os.path.join(share, "config", "ik_solvers.yaml")),
            DeclareLaunchArgument("walk_params", default_value=os.path.join(share, "config", "walk.yaml")),
            DeclareLaunchArgument("simulate", default_value="true"),
            DeclareLaunchArgument("max_velocity_fraction", default_value="1.0"),
            OpaqueFunction(function=nodes),
        ]
    )
