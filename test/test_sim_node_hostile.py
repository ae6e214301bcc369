"""sim_node under hostile configuration and command floods, over real DDS (issue 22: 7, 9).

- start-up: a bad parameter stops the node with one line naming it, exit code 1; an integer for a
  float parameter is that number,
- run time: bad or start-up only values are refused with the reason,
- a flood of commands for unknown joints leaves its log bounded (warnings throttled, cut short).
"""

from __future__ import annotations

import time

import pytest
from parameter_client import ParameterClient
from ros_helpers import run_until_exit, spin_until, wait_for_matching

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from sensor_msgs.msg import JointState

BROKEN = {  # case: (parameter override, what the one-line reason must say)
    "malformed description": (
        "robot_description:=<robot name='r'><link name='a'>",
        "robot_description: URDF does not parse",
    ),
    "publish rate 0": ("publish_rate:=0.0", "publish_rate = 0.0 refused: a finite number in [1, 1000] [Hz]"),
    "control period 0": (
        "control_period:=0.0",
        "control_period = 0.0 refused: a finite number in (0, 1] [s]",
    ),
    "negative timestep": ("timestep:=-1.0", "timestep = -1.0 refused: a finite number in [0.0001, 0.05] [s]"),
    "string for a bool": (
        "floating_base:=maybe",
        "floating_base = 'maybe' refused: true or false is required",
    ),
}
START_UP_TIMEOUT = (
    120.0  # [s] a failure bound only: a refused start exits in a few seconds on a loaded machine
)
FLOOD_MESSAGES = 600
NEW_NAMES = 50  # unknown joint names per message, new in every message
WARNING_THROTTLE = 5.0  # [s] sim_node's


def test_a_bad_parameter_stops_start_up_with_one_line_naming_it(processes):
    cases = {case: ["--ros-args", "-p", override] for case, (override, _) in BROKEN.items()}
    for case, (code, output) in run_until_exit(processes, "sim_node", cases, START_UP_TIMEOUT).items():
        assert code == 1, f"{case}: exit code {code}\n{output}"
        assert f"sim_node: cannot start: {BROKEN[case][1]}" in output, f"{case}:\n{output}"
        assert "Traceback" not in output, f"{case}: one line, not a traceback:\n{output}"


@pytest.fixture(scope="module")
def sim(ros_module):
    """A running sim_node (publish_rate given as an integer), its process, a command publisher
    and a parameter client."""
    process = ros_module.processes.start_console_script("sim_node", "--ros-args", "-p", "publish_rate:=100")
    node = ros_module.make_node("sim_hostile_test")
    states: list[JointState] = []
    node.create_subscription(JointState, "/joint_states", states.append, 10)
    commands = node.create_publisher(JointState, "joint_commands", 1000)
    client = ParameterClient(node, ros_module.executor, "/sim_node")
    ready = client.wait_ready() and wait_for_matching(ros_module.executor, commands)
    ready = ready and spin_until(ros_module.executor, lambda: bool(states))
    assert ready, ros_module.processes.output(process)
    return process, commands, client, ros_module


def test_an_integer_rate_is_that_number(sim):
    _, _, client, _ = sim
    value = client.get("publish_rate")
    assert value == 100.0 and isinstance(value, float)


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("report_period", -1.0, "report_period = -1.0 refused: a finite number in (0, 3600] [s]"),
        ("odom_frame", "", "odom_frame = '' refused: a non-empty string is required"),
        ("publish_rate", 50.0, "publish_rate is read at start-up only"),
        ("timestep", 0.001, "timestep is read at start-up only"),
    ],
)
def test_a_refused_change_says_why_and_leaves_the_value(sim, name, value, reason):
    _, _, client, _ = sim
    before = client.get(name)
    (result,) = client.set(**{name: value})
    assert not result.successful and reason in result.reason, result.reason
    assert client.get(name) == before


def test_a_flood_of_unknown_joint_names_leaves_the_log_bounded(sim):
    process, commands, _, session = sim
    already = len(session.processes.output(process))
    start = time.monotonic()
    for index in range(FLOOD_MESSAGES):
        message = JointState()
        message.name = [f"flood_{index}_{k}_{'x' * 40}" for k in range(NEW_NAMES)]
        message.position = [0.0] * NEW_NAMES
        commands.publish(message)
        session.executor.spin_once(timeout_sec=0.0)
    spin_until(session.executor, lambda: False, timeout=2.0)  # the node takes what came
    warnings = [
        line for line in session.processes.output(process)[already:].splitlines() if "unknown joints" in line
    ]
    elapsed = time.monotonic() - start
    assert warnings and process.poll() is None
    # at most one warning per WARNING_THROTTLE while the flood lasts (the old node: one per message)
    assert len(warnings) <= 1 + elapsed / WARNING_THROTTLE, f"{len(warnings)} warnings in {elapsed:.1f} s"
    assert max(len(line) for line in warnings) < 2200  # each cut short to 2000 characters
