"""Launch servo_bridge on a servo bus, and the ik_node that commands it.

    ros2 launch ik_solvers servo_bridge.launch.py calibration:=/path/to/my_robot_servos.yaml port:=/dev/ttyUSB0
    ros2 launch ik_solvers servo_bridge.launch.py \\
        calibration:=$(ros2 pkg prefix ik_solvers)/share/ik_solvers/config/servos/humanoid_feetech.yaml

``calibration``: the robot's servo calibration (config/servos/*.yaml; default the packaged humanoid
on Dynamixel X-series). ``port``: serial port ("" = the calibration file's). ``rate``: bus cycles
per second. ``ik_node``: also start the ik_node (its ``joint_commands`` feed the bridge;
``max_velocity_fraction`` as in hardware.launch.py). ``urdf`` and ``params`` as in ik.launch.py. To
try it without hardware, start ``servo_bus_emulator --calibration <file> --link /tmp/ttyServo`` first
and pass ``port:=/tmp/ttyServo``.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from ik_solvers.node.launch_actions import PACKAGE, package_node, robot_description


def nodes(context):
    """servo_bridge, and the ik_node unless ik_node:=false."""
    description = robot_description(context)
    bridge = {
        "robot_description": description,
        "calibration": LaunchConfiguration("calibration").perform(context),
        "port": LaunchConfiguration("port").perform(context),
        "rate": float(LaunchConfiguration("rate").perform(context)),
    }
    started = [package_node(executable="servo_bridge", parameters=[bridge])]
    if LaunchConfiguration("ik_node").perform(context).lower() in ("true", "1"):
        ik = {
            "robot_description": description,
            "max_velocity_fraction": float(LaunchConfiguration("max_velocity_fraction").perform(context)),
        }
        started.append(package_node(executable="ik_node", parameters=[LaunchConfiguration("params"), ik]))
    return started


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
            DeclareLaunchArgument("port", default_value=""),
            DeclareLaunchArgument("rate", default_value="100.0"),
            DeclareLaunchArgument("ik_node", default_value="true"),
            DeclareLaunchArgument("max_velocity_fraction", default_value="0.2"),
            OpaqueFunction(function=nodes),
        ]
    )
