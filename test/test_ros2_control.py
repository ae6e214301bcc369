"""The ros2_control files, checked statically (ros2_control is not installable here; the route is
untested on hardware): the generated <ros2_control> block matches the URDF and the calibration, the
committed controllers file is what the generator writes, and the launch file uses both."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from ik_solvers.hardware.calibration import load_calibration, urdf_limits
from ik_solvers.hardware.ros2_control import CONTROLLER, DYNAMIXEL_PLUGIN, generate, main
from ik_solvers.model import RobotModel

REPO_ROOT = Path(__file__).resolve().parent.parent
URDF = REPO_ROOT / "urdf" / "humanoid.urdf"
CALIBRATION = REPO_ROOT / "config" / "servos" / "humanoid_dynamixel.yaml"
CONTROLLERS = REPO_ROOT / "config" / "ros2_control" / "humanoid_dynamixel_controllers.yaml"


def block_of(urdf: str) -> ElementTree.Element:
    (block,) = ElementTree.fromstring(urdf).findall("ros2_control")
    return block


def params(element: ElementTree.Element) -> dict[str, str]:
    return {p.get("name"): p.text for p in element.findall("param")}


def test_every_calibrated_joint_has_a_position_interface_bounded_by_the_urdf_limits():
    urdf, _ = generate(URDF, CALIBRATION)
    block = block_of(urdf)
    limits = urdf_limits(RobotModel.from_urdf_file(URDF))
    joints = {j.get("name"): j for j in block.findall("joint")}
    assert set(joints) == set(load_calibration(CALIBRATION).joint_names)
    for name, joint in joints.items():
        command = joint.find("command_interface")
        assert command.get("name") == "position"
        assert [float(params(command)[k]) for k in ("min", "max")] == pytest.approx(
            limits[name][:2], abs=1e-6
        )
        assert {s.get("name") for s in joint.findall("state_interface")} == {"position", "velocity"}


def test_every_servo_has_a_gpio_with_its_id_and_its_calibration_in_servo_registers():
    urdf, _ = generate(URDF, CALIBRATION)
    block = block_of(urdf)
    assert block.find("hardware/plugin").text == DYNAMIXEL_PLUGIN
    hardware = params(block.find("hardware"))
    assert hardware["port_name"] == "/dev/ttyUSB0" and hardware["number_of_joints"] == "26"
    gpios = {int(params(g)["ID"]): params(g) for g in block.findall("gpio")}
    for joint in load_calibration(CALIBRATION).joints:
        gpio = gpios[joint.servo_id]
        assert int(gpio["Drive Mode"]) == (joint.direction < 0)
        assert int(gpio["Homing Offset"]) + joint.zero_ticks == 2048
        assert (int(gpio["Min Position Limit"]), int(gpio["Max Position Limit"])) == (
            joint.min_ticks,
            joint.max_ticks,
        )


def test_the_rest_of_the_urdf_is_unchanged():
    urdf, _ = generate(URDF, CALIBRATION)
    tree = ElementTree.fromstring(urdf)
    tree.remove(tree.find("ros2_control"))
    canonical = lambda xml: ElementTree.canonicalize(xml, strip_text=True)
    assert canonical(ElementTree.tostring(tree, encoding="unicode")) == canonical(URDF.read_text())


def test_the_committed_controllers_file_is_the_generated_one():
    _, controllers = generate(URDF, CALIBRATION)
    assert CONTROLLERS.read_text() == controllers
    data = yaml.safe_load(controllers)
    assert data[CONTROLLER]["ros__parameters"]["joints"] == list(load_calibration(CALIBRATION).joint_names)
    assert CONTROLLER in data["controller_manager"]["ros__parameters"]


def test_feetech_needs_a_named_plugin_and_then_carries_the_calibration_per_joint(tmp_path):
    feetech = CALIBRATION.with_name("humanoid_feetech.yaml")
    assert (
        main(["--calibration", str(feetech), "--urdf", str(URDF), "--output-urdf", str(tmp_path / "a")]) == 1
    )
    urdf, _ = generate(URDF, feetech, plugin="my_feetech/Hardware")
    knee = next(j for j in block_of(urdf).findall("joint") if j.get("name") == "l_knee")
    calibrated = load_calibration(feetech).by_joint("l_knee")
    assert params(knee)["id"] == str(calibrated.servo_id) and params(knee)["zero_ticks"] == str(
        calibrated.zero_ticks
    )


def test_the_launch_file_generates_the_block_and_uses_the_controllers_file():
    text = (REPO_ROOT / "launch" / "ros2_control.launch.py").read_text()
    assert "generate(" in text and '"config", "ros2_control", "humanoid_dynamixel_controllers.yaml"' in text
    assert "ros2_control.controller" in text and "ros2_control.joints" in text


def test_a_xacro_description_is_expanded_before_the_block_is_added(tmp_path):
    xacro = tmp_path / "humanoid.urdf.xacro"
    xacro.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="humanoid">'
        f'<xacro:include filename="{URDF}"/></robot>'
    )
    urdf, _ = generate(xacro, CALIBRATION)
    assert "xacro:" not in urdf
    assert len(block_of(urdf).findall("joint")) == len(load_calibration(CALIBRATION).joint_names)
