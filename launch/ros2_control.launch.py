"""Launch the ik_node on ros2_control: controller_manager with the servos' hardware interface, a joint
state broadcaster and a forward position controller that the ik_node commands. Untested on
hardware (docs/hardware.md); needs a full ROS 2 install with ros2_control and the
servos' hardware interface (e.g. ROBOTIS' dynamixel_hardware_interface).

    ros2 launch ik_solvers ros2_control.launch.py calibration:=<share>/config/servos/humanoid_dynamixel.yaml

The ``<ros2_control>`` block is generated from ``urdf`` and ``calibration`` at launch
(:mod:`ik_solvers.hardware.ros2_control`); ``plugin`` names the hardware interface (required for
Feetech); ``controllers`` is the controller_manager parameter file (generated the same way;
``servo_ros2_control --output-controllers`` writes one for another robot).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.ros2_control import CONTROLLER, generate
from ik_solvers.node.launch_actions import PACKAGE, package_node


def nodes(context):
    """controller_manager, the two spawners and the ik_node."""
    calibration = LaunchConfiguration("calibration").perform(context)
    plugin = LaunchConfiguration("plugin").perform(context) or None
    urdf, _ = generate(LaunchConfiguration("urdf").perform(context), calibration, plugin)
    description = {"robot_description": urdf}
    ik = {
        **description,
        "ros2_control.controller": CONTROLLER,
        "ros2_control.joints": list(load_calibration(calibration).joint_names),
        "max_velocity_fraction": float(LaunchConfiguration("max_velocity_fraction").perform(context)),
    }
    return [
        Node(
            package="controller_manager",
            executable="ros2_control_node",
            parameters=[description, LaunchConfiguration("controllers")],
            output="screen",
        ),
        Node(package="controller_manager", executable="spawner", arguments=["joint_state_broadcaster"]),
        Node(package="controller_manager", executable="spawner", arguments=[CONTROLLER]),
        package_node(executable="ik_node", parameters=[LaunchConfiguration("params"), ik]),
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription(
        [
            DeclareLaunchArgument("urdf", default_value=os.path.join(share, "urdf", "humanoid.urdf")),
            DeclareLaunchArgument("params", default_value=os.path.join(share, "config", "ik_solvers.yaml")),
            DeclareLaunchArgument(
                "calibration",
                default_value=os.path.join(share, "config", "servos", "humanoid_dynamixel.yaml"),
            ),
            DeclareLaunchArgument(
                "controllers",
                default_value=os.path.join(
                    share, "config", "ros2_control", "humanoid_dynamixel_controllers.yaml"
                ),
            ),
            DeclareLaunchArgument("plugin", default_value=""),
            DeclareLaunchArgument("max_velocity_fraction", default_value="0.2"),
            OpaqueFunction(function=nodes),
        ]
    )
