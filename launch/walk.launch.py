"""Launch the walking stack on the simulator: sim_node (floating base), ik_node, walk_node.

    ros2 launch ik_solvers walk.launch.py
    ros2 launch ik_solvers walk.launch.py urdf:=/path/to/robot.urdf
    ros2 topic pub -r 10 /cmd_vel geometry_msgs/msg/Twist "{linear: {x: 0.1}}"

walk_node turns ``cmd_vel`` into whole-body targets (``whole_body/target``) at 100 Hz; ik_node
solves the stance and publishes ``joint_commands``; sim_node stands the robot on the MuJoCo floor
and publishes ``/joint_states``, ``/sim_node/base_pose`` and ``/sim_node/imu``. Arguments:
``urdf`` (default the packaged humanoid), ``params`` (ik_node parameter file), ``walk_params``
(walk_node parameter file), ``simulate`` (``false``: no sim_node, e.g. on servos).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node


def nodes(context):
    """walk_node, ik_node and (unless simulate:=false) sim_node, all on the URDF file's XML."""
    with open(LaunchConfiguration("urdf").perform(context)) as urdf:
        robot_description = urdf.read()
    description = {"robot_description": robot_description}
    launched = [
        package_node(executable="walk_node", parameters=[LaunchConfiguration("walk_params"), description]),
        package_node(executable="ik_node", parameters=[LaunchConfiguration("params"), description]),
    ]
    if LaunchConfiguration("simulate").perform(context).lower() == "true":
        launched.append(
            package_node(executable="sim_node", parameters=[{**description, "floating_base": True}])
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
            OpaqueFunction(function=nodes),
        ]
    )
