"""Real ROS 2 smoke tests: DDS pub/sub within and across processes, and the SolveIK service.

The fixtures in conftest.py keep every node on loopback and on this session's own domain id.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState

HERE = Path(__file__).resolve().parent
SRV_FILE = HERE.parent / "ik_solvers_interfaces" / "srv" / "SolveIK.srv"

# SolveIK as DESIGN.md defines it: fields may grow, never be renamed.
SOLVE_IK_REQUEST = {
    "chain": "string",
    "target": "geometry_msgs/PoseStamped",
    "pole": "geometry_msgs/Point",
    "use_pole": "boolean",
    "solver": "string",
    "seed": "sensor_msgs/JointState",
    "timeout": "double",
    "publish": "boolean",
}
SOLVE_IK_RESPONSE = {
    "success": "boolean",
    "message": "string",
    "solution": "sensor_msgs/JointState",
    "position_error": "double",
    "orientation_error": "double",
    "iterations": "int32",
    "solver_used": "string",
    "continuous": "boolean",  # grown after the design (fields may grow): the solution continues the seed
}


def _joint_state(positions: list[float]) -> JointState:
    """A JointState naming joints j0, j1, ... at ``positions`` [rad]."""
    message = JointState()
    message.name = [f"j{i}" for i in range(len(positions))]
    message.position = positions
    return message


def test_joint_state_between_two_nodes_in_one_process(make_node, executor):
    talker, listener = make_node("smoke_talker"), make_node("smoke_listener")
    received: list[JointState] = []
    publisher = talker.create_publisher(JointState, "smoke_joint_states", 10)
    listener.create_subscription(JointState, "smoke_joint_states", received.append, 10)

    assert wait_for_matching(executor, publisher), "publisher and subscription never matched"
    publisher.publish(_joint_state([0.1, -0.2, 0.3]))

    assert spin_until(executor, lambda: bool(received)), "no JointState arrived"
    assert list(received[0].name) == ["j0", "j1", "j2"]
    assert list(received[0].position) == pytest.approx([0.1, -0.2, 0.3])


def test_joint_state_round_trip_through_another_process(make_node, executor, processes):
    echo = processes.start_python(HERE / "ros_nodes" / "joint_state_echo.py")
    node = make_node("smoke_echo_client")
    received: list[JointState] = []
    publisher = node.create_publisher(JointState, "echo_in", 10)
    subscription = node.create_subscription(JointState, "echo_out", received.append, 10)

    matched = wait_for_matching(executor, publisher) and wait_for_matching(executor, subscription)
    assert matched, f"echo process never matched; its output:\n{processes.output(echo)}"
    publisher.publish(_joint_state([1.0, 2.0]))

    assert spin_until(executor, lambda: bool(received)), processes.output(echo)
    assert list(received[0].position) == pytest.approx([1.0, 2.0])
    assert processes.stop(echo) == 0, processes.output(echo)


def _srv_fields(section: str) -> dict[str, str]:
    """Field name → type as written in one section of SolveIK.srv (comments dropped)."""
    fields = {}
    for line in section.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            field_type, name = line.split()
            fields[name] = field_type
    return fields


def test_solve_ik_srv_file_matches_the_design():
    request, response = SRV_FILE.read_text().split("---")
    to_idl = {"bool": "boolean", "float64": "double"}
    assert {k: to_idl.get(v, v) for k, v in _srv_fields(request).items()} == SOLVE_IK_REQUEST
    assert {k: to_idl.get(v, v) for k, v in _srv_fields(response).items()} == SOLVE_IK_RESPONSE


def test_generated_solve_ik_has_every_designed_field():
    from ik_solvers_interfaces.srv import SolveIK

    def generated(message_class) -> dict[str, str]:
        return {
            name: re.sub(r"^(\w+)/msg/", r"\1/", t)
            for name, t in message_class.get_fields_and_field_types().items()
        }

    assert SOLVE_IK_REQUEST.items() <= generated(SolveIK.Request).items()
    assert SOLVE_IK_RESPONSE.items() <= generated(SolveIK.Response).items()


def test_solve_ik_service_round_trip_between_two_nodes(make_node, executor):
    from ik_solvers_interfaces.srv import SolveIK

    def handle(request: SolveIK.Request, response: SolveIK.Response) -> SolveIK.Response:
        response.success = request.use_pole
        response.message = f"solved {request.chain}"
        response.solution = _joint_state([request.target.pose.position.x])
        response.iterations = 3
        response.solver_used = request.solver or "geometric"
        return response

    make_node("smoke_ik_server").create_service(SolveIK, "solve_ik", handle)
    client = make_node("smoke_ik_client").create_client(SolveIK, "solve_ik")
    assert spin_until(executor, client.service_is_ready), "SolveIK service never became ready"

    request = SolveIK.Request(chain="left_arm", use_pole=True)
    request.target.pose.position.x = 0.25
    future = client.call_async(request)
    assert spin_until(executor, future.done), "no SolveIK response"

    response = future.result()
    assert response.success and response.message == "solved left_arm"
    assert list(response.solution.position) == pytest.approx([0.25])
    assert (response.iterations, response.solver_used) == (3, "geometric")
