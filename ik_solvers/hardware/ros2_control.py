"""The ros2_control route: a ``<ros2_control>`` URDF block and a controllers file, generated from the
URDF and the servo calibration (never hand-copied). Untested on hardware: checked statically here.

Dynamixel: the block follows ROBOTIS' ``dynamixel_hardware_interface`` (plugin
``dynamixel_hardware_interface/DynamixelHardware``): one ``<joint>`` per URDF joint with a position
command interface bounded by the URDF limits, one ``<gpio>`` per servo with its ID, Goal/Present
Position, and the calibration expressed in the servo's own registers (Drive Mode bit 0 reverses
the direction; Homing Offset moves ``zero_ticks`` to 2048, the X-series' zero radian).
Feetech: the same joints and a ``<param>`` set per joint (id, model, direction, zero_ticks,
ticks_per_rev, min_ticks, max_ticks) for the Feetech hardware interface named with ``--plugin``.

    servo_ros2_control --calibration config/servos/humanoid_dynamixel.yaml --urdf urdf/humanoid.urdf \\
        --output-urdf humanoid_ros2_control.urdf --output-controllers controllers.yaml
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from xml.etree import ElementTree

import yaml

from ik_solvers.description import load_description
from ik_solvers.hardware.calibration import Calibration, JointCalibration, load_calibration, urdf_limits
from ik_solvers.hardware.control_tables import DYNAMIXEL
from ik_solvers.model import RobotModel

DYNAMIXEL_PLUGIN = "dynamixel_hardware_interface/DynamixelHardware"
DYNAMIXEL_ZERO_TICKS = 2048  # X-series: Present Position 2048 is 0 rad
CONTROLLER = "forward_position_controller"
UPDATE_RATE = 100  # [Hz]


def _param(parent: ElementTree.Element, name: str, value: object) -> None:
    ElementTree.SubElement(parent, "param", name=name).text = str(value)


def _joint(
    block: ElementTree.Element, joint: JointCalibration, limits: tuple[float, float]
) -> ElementTree.Element:
    element = ElementTree.SubElement(block, "joint", name=joint.joint)
    command = ElementTree.SubElement(element, "command_interface", name="position")
    _param(command, "min", f"{limits[0]:.6g}")
    _param(command, "max", f"{limits[1]:.6g}")
    for state in ("position", "velocity"):
        ElementTree.SubElement(element, "state_interface", name=state)
    return element


def _dynamixel_gpio(block: ElementTree.Element, joint: JointCalibration) -> None:
    gpio = ElementTree.SubElement(block, "gpio", name=f"dxl{joint.servo_id}")
    _param(gpio, "type", "dxl")
    _param(gpio, "ID", joint.servo_id)
    ElementTree.SubElement(gpio, "command_interface", name="Goal Position")
    for state in ("Present Position", "Present Velocity"):
        ElementTree.SubElement(gpio, "state_interface", name=state)
    _param(gpio, "Drive Mode", int(joint.direction < 0))
    _param(gpio, "Homing Offset", DYNAMIXEL_ZERO_TICKS - joint.zero_ticks)
    _param(gpio, "Min Position Limit", joint.min_ticks)
    _param(gpio, "Max Position Limit", joint.max_ticks)


def ros2_control_block(
    calibration: Calibration, limits: dict[str, tuple[float, float]], name: str, plugin: str | None = None
) -> ElementTree.Element:
    """The ``<ros2_control>`` element for the calibrated joints (see the module docstring).

    Args:
        limits: joint name -> (lower, upper) [rad] from the URDF.
        plugin: the hardware interface plugin (default: ROBOTIS' for Dynamixel; required for Feetech).
    """
    if plugin is None and calibration.protocol != DYNAMIXEL:
        raise ValueError(
            f"name the ros2_control hardware plugin of your {calibration.protocol} servos (--plugin)"
        )
    block = ElementTree.Element("ros2_control", name=name, type="system")
    hardware = ElementTree.SubElement(block, "hardware")
    ElementTree.SubElement(hardware, "plugin").text = plugin or DYNAMIXEL_PLUGIN
    _param(hardware, "port_name", calibration.port)
    _param(hardware, "baud_rate", calibration.baud_rate)
    n = len(calibration.joints)
    if calibration.protocol == DYNAMIXEL:
        identity = ", ".join("1" if i == j else "0" for i in range(n) for j in range(n))
        for key in ("number_of_joints", "number_of_transmissions"):
            _param(hardware, key, n)
        _param(hardware, "transmission_to_joint_matrix", identity)
        _param(hardware, "joint_to_transmission_matrix", identity)
    for joint in calibration.joints:
        element = _joint(block, joint, limits[joint.joint])
        if calibration.protocol == DYNAMIXEL:
            continue
        for key in ("servo_id", "direction", "zero_ticks", "ticks_per_rev", "min_ticks", "max_ticks"):
            _param(element, "id" if key == "servo_id" else key, getattr(joint, key))
        _param(element, "model", joint.model.name)
    if calibration.protocol == DYNAMIXEL:
        for joint in calibration.joints:
            _dynamixel_gpio(block, joint)
    ElementTree.indent(block, "  ")
    return block


def urdf_with_block(urdf: str, block: ElementTree.Element) -> str:
    """The URDF text with the block inserted before ``</robot>``."""
    end = urdf.rindex("</robot>")
    return urdf[:end] + "  " + ElementTree.tostring(block, encoding="unicode") + "\n" + urdf[end:]


def controllers(calibration: Calibration) -> dict:
    """controller_manager parameters: a joint state broadcaster and a forward position controller."""
    return {
        "controller_manager": {
            "ros__parameters": {
                "update_rate": UPDATE_RATE,
                "joint_state_broadcaster": {"type": "joint_state_broadcaster/JointStateBroadcaster"},
                CONTROLLER: {"type": "forward_command_controller/ForwardCommandController"},
            }
        },
        CONTROLLER: {
            "ros__parameters": {"joints": list(calibration.joint_names), "interface_name": "position"}
        },
    }


def generate(urdf_path: Path, calibration_path: Path, plugin: str | None = None) -> tuple[str, str]:
    """(URDF with the ros2_control block, controllers YAML) for a robot (URDF or xacro file) and its
    calibration."""
    urdf = load_description(urdf_path).xml
    calibration = load_calibration(calibration_path)
    limits = {name: lim[:2] for name, lim in urdf_limits(RobotModel.from_urdf_string(urdf)).items()}
    calibration.check_against_limits(limits)
    block = ros2_control_block(calibration, limits, f"{Path(calibration_path).stem}_servos", plugin)
    header = f"# Generated by servo_ros2_control from {Path(calibration_path).name}; do not edit by hand.\n"
    return urdf_with_block(urdf, block), header + yaml.safe_dump(controllers(calibration), sort_keys=False)


def main(argv: list[str] | None = None) -> int:
    """Console script ``servo_ros2_control``."""
    parser = argparse.ArgumentParser(prog="servo_ros2_control", description=__doc__.split("\n")[0])
    parser.add_argument("--calibration", type=Path, required=True)
    parser.add_argument("--urdf", type=Path, required=True)
    parser.add_argument("--plugin", help=f"hardware interface plugin (Dynamixel default: {DYNAMIXEL_PLUGIN})")
    parser.add_argument("--output-urdf", type=Path, required=True)
    parser.add_argument("--output-controllers", type=Path)
    args = parser.parse_args(argv)
    try:
        urdf, controllers_yaml = generate(args.urdf, args.calibration, args.plugin)
    except (ValueError, OSError) as error:
        print(f"servo_ros2_control: {error}", file=sys.stderr)
        return 1
    args.output_urdf.write_text(urdf)
    if args.output_controllers:
        args.output_controllers.write_text(controllers_yaml)
    return 0


if __name__ == "__main__":
    sys.exit(main())
