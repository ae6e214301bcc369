"""The ik_node under hostile input, over real DDS: what issue 10 found, each case checked.

Each test starts its own ik_node process (the packaged config; /joint_states and /diagnostics are
global topics, so one node at a time) and stops it at the end.
"""

from __future__ import annotations

import itertools
import math
import signal
import subprocess
import time

import numpy as np
import pytest

pytest.importorskip("rclpy")

from ik_node_harness import IKNodeClient, node_arguments, pose_stamped, positions_of
from ros_helpers import spin_until
from sensor_msgs.msg import JointState

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import rotation_log
from ik_solvers_interfaces.srv import SolveIK

MODEL = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
LEFT, RIGHT = MODEL.chain("base_link", "l_sole"), MODEL.chain("base_link", "r_sole")
FRACTION, PERIOD = 0.5, 0.01  # max_velocity_fraction and 1 / command_rate of the packaged config
NAME_LIMIT = 1000  # [characters] what an answer, a log line or a diagnostic value may reasonably hold


@pytest.fixture
def ik(ros_module):
    """A fresh ik_node with the packaged config, and a client; the node is stopped after the test.

    Branch switches are allowed: these tests send far targets on purpose, and a solution that
    jumps would be held (the jump bound has tests of its own in test_ik_node_jumps.py).
    """
    process = ros_module.processes.start_console_script(
        "ik_node", *node_arguments("allow_branch_switch:=true")
    )
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    yield client
    ros_module.processes.stop(process)
    for node in [client.node]:
        ros_module.executor.remove_node(node)
        node.destroy_node()


def leg_target(chain, yaw: float = 0.3, lift: float = 0.0) -> np.ndarray:
    """(4, 4) sole pose of a bent leg turned by ``yaw`` at the hip [rad], raised by ``lift`` [m]."""
    pose = chain.fk(np.clip([yaw, 0.02, -0.4, 0.8, -0.4, -0.02], chain.lower, chain.upper))
    pose[2, 3] += lift
    return pose


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(rotation_log(a[:3, :3].T @ b[:3, :3])))


def joint_states_status(ik: IKNodeClient) -> dict[str, str] | None:
    """The values of the latest ``ik_node: joint_states`` diagnostic status, or None."""
    for array in reversed(ik.diagnostics):
        for status in array.status:
            if status.name == "ik_node: joint_states":
                return {v.key: v.value for v in status.values}
    return None


def chain_values(ik: IKNodeClient, chain: str) -> dict[str, str] | None:
    for array in reversed(ik.diagnostics):
        for status in array.status:
            if status.name == f"ik_node: {chain}":
                return {v.key: v.value for v in status.values} | {"message": status.message}
    return None


@pytest.mark.parametrize("scale", [1e200, 1e-300])
def test_huge_or_tiny_quaternion_is_normalised_not_refused_or_lost(ik, scale):
    target = leg_target(LEFT, yaw=0.3)
    message = pose_stamped(target)
    o = message.pose.orientation
    o.x, o.y, o.z, o.w = o.x * scale, o.y * scale, o.z * scale, o.w * scale
    answer = ik.call(SolveIK.Request(chain="left_leg", target=message))
    assert answer.success, answer.message
    solved = LEFT.fk(positions_of(answer.solution, LEFT.joint_names))
    assert angle_between(solved, target) < 1e-6


def test_huge_frame_id_is_cut_short_in_answers_and_diagnostics(ik):
    huge = "f" * 2_000_000
    answer = ik.call(SolveIK.Request(chain="left_leg", target=pose_stamped(np.eye(4), frame=huge)))
    assert not answer.success and "characters" in answer.message, answer.message[:300]
    assert len(answer.message) < NAME_LIMIT
    ik.targets["left_leg"].publish(pose_stamped(np.eye(4), frame=huge))

    def reported() -> bool:
        values = chain_values(ik, "left_leg")
        return values is not None and "characters" in values["last_error"]

    assert spin_until(ik.executor, reported, 5.0), ik.output()[:2000]
    values = chain_values(ik, "left_leg")
    assert len(values["last_error"]) < NAME_LIMIT and len(values["message"]) < NAME_LIMIT
    assert max(map(len, ik.output().splitlines())) < NAME_LIMIT


def publish_until_counted(ik: IKNodeClient, state: JointState, condition) -> dict[str, str]:
    """Publish ``state`` on /joint_states until the node's joint_states diagnostics satisfy ``condition``."""

    def counted() -> bool:
        ik.joint_states.publish(state)
        values = joint_states_status(ik)
        return values is not None and condition(values)

    assert spin_until(ik.executor, counted), f"{joint_states_status(ik)}\n{ik.output()}"
    return joint_states_status(ik)


def test_a_joint_measured_beyond_its_limits_is_approached_at_the_velocity_limit_and_reported(ik):
    measured = np.clip(np.zeros(LEFT.n), LEFT.lower, LEFT.upper)
    measured[0] = LEFT.upper[0] + 1.0  # l_hip_joint far beyond its upper limit
    state = JointState(name=list(LEFT.joint_names), position=measured.tolist())
    values = publish_until_counted(ik, state, lambda v: "l_hip_joint" in v["measured_outside_limits"])
    assert "l_hip_joint" in values["measured_outside_limits"]

    ik.send_target("left_leg", leg_target(LEFT, yaw=0.0))
    first = ik.wait_for_command(lambda m: positions_of(m, LEFT.joint_names) is not None)
    assert first is not None, ik.output()
    q = positions_of(first, LEFT.joint_names)
    step = FRACTION * LEFT.velocity_limits[0] * PERIOD
    assert abs(q[0] - measured[0]) <= step + 1e-9, (q[0], measured[0])
    assert "outside its limits" in ik.output() or "outside their limits" in ik.output()


def test_unknown_and_non_finite_joint_states_are_counted_not_kept(ik):
    names = [f"ghost_{i}" for i in range(5000)] + ["l_knee", "r_knee"]
    state = JointState(name=names, position=[0.1] * 5000 + [math.nan, 0.2])
    values = publish_until_counted(ik, state, lambda v: int(v["unknown_names"]) >= 5000)
    assert int(values["non_finite_positions"]) >= 1
    assert int(values["measured_joints"]) <= len(MODEL.joints)


def test_consecutive_commands_respect_the_speed_limit_whichever_chain_moved(ik):
    for chain, name in ((LEFT, "left_leg"), (RIGHT, "right_leg")):
        ik.send_target(name, leg_target(chain, yaw=0.0, lift=0.0))
    both = (*LEFT.joint_names, *RIGHT.joint_names)
    assert spin_until(ik.executor, lambda: any(positions_of(m, both) is not None for m in ik.commands))
    ik.spin(0.5)
    start = len(ik.commands)
    for round_ in range(30):  # far targets, the two legs interleaved and out of step with the timer
        lift = 0.08 * (round_ % 2)
        ik.send_target("left_leg", leg_target(LEFT, yaw=0.2 * (round_ % 2), lift=lift))
        ik.spin(0.003)
        ik.send_target("right_leg", leg_target(RIGHT, yaw=-0.2 * (round_ % 2), lift=lift))
        ik.spin(0.004)
    ik.spin(0.2)
    messages = ik.commands[start - 1 :]
    assert len(messages) > 20
    limits = {
        name: FRACTION * MODEL.joints[name].velocity for name in (*LEFT.joint_names, *RIGHT.joint_names)
    }
    worst = 0.0
    for before, after in itertools.pairwise(messages):
        dt = (after.header.stamp.sec - before.header.stamp.sec) + 1e-9 * (
            after.header.stamp.nanosec - before.header.stamp.nanosec
        )
        previous = dict(zip(before.name, before.position))
        for name, position in zip(after.name, after.position):
            if name in previous and name in limits:
                worst = max(worst, abs(position - previous[name]) - limits[name] * max(dt, 0.0))
    assert worst <= 1e-9, f"a joint moved {worst} rad more than its velocity limit allows"


def test_seed_naming_another_chains_joints_is_said_in_the_answer(ik):
    seed = JointState(name=["l_knee", "r_knee"], position=[0.8, 0.5])
    answer = ik.call(SolveIK.Request(chain="left_leg", target=pose_stamped(leg_target(LEFT)), seed=seed))
    assert answer.success, answer.message
    assert "r_knee" in answer.message and "other chains" in answer.message, answer.message


def test_two_sigints_10_ms_apart_shut_the_node_down_cleanly(ros_module):
    process = ros_module.processes.start_console_script("ik_node", *node_arguments(namespace="/twice"))
    client = IKNodeClient(ros_module, process, namespace="/twice")
    client.wait_ready()
    process.send_signal(signal.SIGINT)
    time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout=20.0)
    except subprocess.TimeoutExpired:
        code = None
    output = client.output()
    assert code == 0 and "Traceback" not in output, f"exit code {code}\n{output}"
