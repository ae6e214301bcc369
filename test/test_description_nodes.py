"""Nodes started on descriptions as makers publish them — real sim_node and ik_node processes over
real DDS: a xacro file with arguments, the OP3's xacro, a parameter file; and the wrong route,
``-p robot_description:="$(cat F)"``, refused with the routes that work."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import yaml
from description_data import MAKER_BOT_XACRO, OP3_JOINTS, OP3_XACRO, without_geometry
from ros_helpers import spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from sensor_msgs.msg import JointState

from ik_solvers import RobotModel
from ik_solvers.description import load_description
from ik_solvers.resources import package_share_path

START_UP_TIMEOUT = 60.0  # [s] a busy machine compiles kernels and loads MuJoCo slowly


def _joint_states(make_node, name: str) -> list[JointState]:
    states: list[JointState] = []
    make_node(name).create_subscription(JointState, "/joint_states", states.append, 10)
    return states


def _exit_code(process: subprocess.Popen) -> int | None:
    try:
        return process.wait(timeout=START_UP_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def test_sim_node_runs_a_xacro_file_with_its_arguments(processes, make_node, executor):
    states = _joint_states(make_node, "maker_bot_listener")
    process = processes.start_console_script(
        "sim_node",
        "--ros-args",
        "-p",
        f"robot_description_file:={MAKER_BOT_XACRO}",
        "-p",
        "xacro_arguments:=[prefix=m_, leg_length=0.25]",
        "-p",
        "floating_base:=true",
    )
    assert spin_until(executor, lambda: bool(states) or process.poll() is not None, START_UP_TIMEOUT)
    assert states, f"sim_node did not come up:\n{processes.output(process)}"
    assert list(states[-1].name) == [f"m_{s}_{j}" for s in "lr" for j in ("hip_pitch", "knee", "ankle_pitch")]


def test_sim_node_runs_the_op3_from_a_parameter_file(processes, make_node, executor, tmp_path):
    """The OP3's meshes are not in the test data (see its README): its geometry is taken out."""
    parameters = tmp_path / "op3.yaml"
    urdf = without_geometry(load_description(OP3_XACRO).xml)
    parameters.write_text(yaml.safe_dump({"/**": {"ros__parameters": {"robot_description": urdf}}}))
    states = _joint_states(make_node, "op3_listener")
    process = processes.start_console_script("sim_node", "--ros-args", "--params-file", str(parameters))
    assert spin_until(executor, lambda: bool(states) or process.poll() is not None, START_UP_TIMEOUT)
    assert states, f"sim_node did not come up:\n{processes.output(process)}"
    assert len(states[-1].name) == OP3_JOINTS and "l_ank_roll" in states[-1].name


def test_sim_node_on_the_op3_xacro_names_the_missing_mesh(processes):
    process = processes.start_console_script(
        "sim_node", "--ros-args", "-p", f"robot_description_file:={OP3_XACRO}"
    )
    code, output = _exit_code(process), processes.output(process)
    assert code == 1, output
    assert (
        "cannot start: mesh 'package://op3_description/meshes/body.stl' of link 'body_link' not found"
        in output
    )
    assert "Traceback" not in output


@pytest.mark.parametrize("executable", ["sim_node", "ik_node"])
def test_robot_description_on_the_command_line_is_refused_with_the_routes_that_work(processes, executable):
    urdf = package_share_path("urdf", "humanoid.urdf").read_text()
    process = processes.start_console_script(executable, "--ros-args", "-p", f"robot_description:={urdf}")
    code, output = _exit_code(process), processes.output(process)
    assert code == 1, output
    assert f"{executable}: cannot start" in output and "Traceback" not in output
    assert "--params-file" in output and "robot_description_file" in output, output


def test_ik_node_reads_a_xacro_file(ros_module, tmp_path):
    """The packaged humanoid through a xacro that includes it. (ik_node on the OP3 waits for the
    whole-body interface to find soles from the tree instead of ``l_sole``: another branch.)"""
    from ik_node_harness import IKNodeClient, node_arguments, pose_stamped

    from ik_solvers_interfaces.srv import SolveIK

    humanoid = package_share_path("urdf", "humanoid.urdf")
    xacro = tmp_path / "humanoid.urdf.xacro"
    xacro.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="humanoid">'
        f'<xacro:include filename="{humanoid}"/></robot>'
    )
    process = ros_module.processes.start_console_script(
        "ik_node", *node_arguments(f"robot_description_file:={xacro}")
    )
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    arm = RobotModel.from_urdf_file(xacro).chain("base_link", "l_wrist")
    target = arm.fk(0.3 * arm.lower + 0.7 * arm.upper)
    answer = client.call(SolveIK.Request(chain="left_arm", target=pose_stamped(target)))
    assert answer.success, answer.message
    assert np.allclose(arm.fk(np.array(answer.solution.position))[:3, 3], target[:3, 3], atol=1e-3)


def test_ik_demo_names_a_description_that_does_not_load(tmp_path, capsys):
    from ik_solvers.demo import ik_demo

    broken = tmp_path / "robot.urdf.xacro"
    broken.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r"><xacro:oops/></robot>')
    assert ik_demo.main(["--urdf", str(broken), "--output", str(tmp_path / "demo")]) == 1
    error = capsys.readouterr().err
    assert (
        f"ik_demo: cannot run on {broken}: xacro file '{broken}' does not expand" in error and "oops" in error
    )
