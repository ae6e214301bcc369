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
from launch_ros.actions import Node

PACKAGE = "ik_solvers"


def ik_node(context):
    """The ik_node, with the URDF file's XML as robot_description."""
    with open(LaunchConfiguration("urdf").perform(context)) as urdf:
        robot_description = urdf.read()
    return [
        Node(
            package=PACKAGE,
            executable="ik_node",
            name="ik_node",
            namespace=LaunchConfiguration("namespace"),
            parameters=[LaunchConfiguration("params"), {"robot_description": robot_description}],
            output="screen",
        )
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
