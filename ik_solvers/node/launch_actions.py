"""What the launch files in ``launch/`` share: a node of this package given the robot's URDF (or
xacro: ``urdf:=robot.urdf.xacro xacro_args:="name:=value ..."``).

Imported only by launch files (it needs ``launch_ros``, which a ROS 2 installation has and the
package itself never needs).
"""

from __future__ import annotations

from launch.launch_context import LaunchContext
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from ik_solvers.description import load_description, parse_xacro_arguments

PACKAGE = "ik_solvers"


def robot_description(context: LaunchContext) -> str:
    """The URDF XML of the file named by the launch argument ``urdf``: a URDF, or a xacro expanded
    with the launch argument ``xacro_args`` (``"name:=value name:=value"``, default none).
    ``package://`` URIs stay as written: the nodes find their packages in the ament index."""
    arguments = LaunchConfiguration("xacro_args", default="").perform(context).split()
    path = LaunchConfiguration("urdf").perform(context)
    return load_description(path, parse_xacro_arguments(arguments)).xml


def package_node(executable: str, parameters: list, **options) -> Node:
    """The node ``executable`` of this package, named after it, its output on the screen.

    Args:
        executable: a console script of the package (ik_node, sim_node, ...).
        parameters: parameter files or dicts, in order (the launch files put robot_description last).
        options: further ``launch_ros.actions.Node`` arguments (namespace, remappings, ...).
    """
    return Node(
        package=PACKAGE,
        executable=executable,
        name=executable,
        parameters=parameters,
        output="screen",
        **options,
    )
