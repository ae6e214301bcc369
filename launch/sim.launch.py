"""Launch the ik_node and the MuJoCo simulator (sim_node) on the same URDF.

    ros2 launch ik_solvers sim.launch.py
    ros2 launch ik_solvers sim.launch.py floating_base:=true urdf:=/path/to/robot.urdf

The ik_node publishes ``joint_commands``; sim_node follows them and publishes ``/joint_states``,
which the ik_node reads back as its measured state. Arguments: ``urdf`` (default the packaged
humanoid), ``params`` (ik_node parameter file), ``floating_base`` (``false``: torso fixed in
space; ``true``: the robot stands on the floor), ``publish_rate`` [Hz] of the joint states.
Send targets on ``<chain>/target_pose`` as described in docs/node.md. (``ik_demo`` runs the same
pair without launch, with a target generator.)
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node, robot_description


def nodes(context):
    """ik_node and sim_node, both with the URDF file's XML as robot_description."""
    description = {"robot_description": robot_description(context)}
    floating = LaunchConfiguration("floating_base").perform(context).lower() == "true"
    rate = float(LaunchConfiguration("publish_rate").perform(context))
    simulation = {"floating_base": floating, "publish_rate": rate}
    return [
        package_node(executable="ik_node", parameters=[LaunchConfiguration("params"), description]),
        package_node(executable="sim_node", parameters=[{**description, **simulation}]),
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument("urdf", default_value=os.path.join(share, "urdf", "humanoid.urdf")),
            DeclareLaunchArgument("params", default_value=os.path.join(share, "config", "ik_solvers.yaml")),
            DeclareLaunchArgument("floating_base", default_value="false"),
            DeclareLaunchArgument("publish_rate", default_value="200.0"),
            OpaqueFunction(function=nodes),
        ]
    )
