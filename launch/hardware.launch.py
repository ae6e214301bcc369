"""Launch the ik_node for real servos: commands go to a servo driver or a ros2_control controller.

    ros2 launch ik_solvers hardware.launch.py command_topic:=/servo_driver/joint_commands
    ros2 launch ik_solvers hardware.launch.py controller:=forward_position_controller

``command_topic``: where the node's sensor_msgs/JointState commands go (``joint_commands`` is
remapped to it). ``controller``: a ros2_control forward command controller; the node then also
publishes std_msgs/Float64MultiArray on ``/<controller>/commands`` (set ``ros2_control.joints``
in the parameter file to the controller's joint order). ``max_velocity_fraction``: share of each
joint's URDF velocity limit a command may use (start low on a new robot). ``urdf`` and ``params``
as in ik.launch.py. The measured state is read from /joint_states (the driver's or
joint_state_broadcaster's).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node, robot_description


def ik_node(context):
    """The ik_node with its output remapped and the controller output enabled."""
    overrides = {
        "robot_description": robot_description(context),
        "ros2_control.controller": LaunchConfiguration("controller").perform(context),
        "max_velocity_fraction": float(LaunchConfiguration("max_velocity_fraction").perform(context)),
    }
    return [
        package_node(
            executable="ik_node",
            parameters=[LaunchConfiguration("params"), overrides],
            remappings=[("joint_commands", LaunchConfiguration("command_topic"))],
        )
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument("urdf", default_value=os.path.join(share, "urdf", "humanoid.urdf")),
            DeclareLaunchArgument("params", default_value=os.path.join(share, "config", "ik_solvers.yaml")),
            DeclareLaunchArgument("command_topic", default_value="/servo_driver/joint_commands"),
            DeclareLaunchArgument("controller", default_value=""),
            DeclareLaunchArgument("max_velocity_fraction", default_value="0.2"),
            OpaqueFunction(function=ik_node),
        ]
    )
