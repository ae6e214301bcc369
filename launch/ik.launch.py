"""Launch the ik_node with the packaged parameters (config/ik_solvers.yaml).

    ros2 launch ik_solvers ik.launch.py
    ros2 launch ik_solvers ik.launch.py urdf:=/path/to/robot.urdf params:=/path/to/params.yaml

Arguments: ``urdf`` (a URDF file passed as robot_description; default the packaged humanoid),
``params`` (a parameter file in the ``ik_node: ros__parameters:`` layout), ``namespace``.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node, robot_description


def ik_node(context):
    """The ik_node, with the URDF file's XML as robot_description."""
    parameters = [LaunchConfiguration("params"), {"robot_description": robot_description(context)}]
    return [
        package_node(executable="ik_node", parameters=parameters, namespace=LaunchConfiguration("namespace"))
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument("urdf", default_value=os.path.join(share, "urdf", "humanoid.urdf")),
            DeclareLaunchArgument("params", default_value=os.path.join(share, "config", "ik_solvers.yaml")),
            DeclareLaunchArgument("namespace", default_value=""),
            OpaqueFunction(function=ik_node),
        ]
    )
