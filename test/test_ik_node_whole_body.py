"""ik_node's whole-body interface over real DDS: soles in odom → leg commands and the torso pose.

The node runs as its console script; the test publishes WholeBodyTarget messages and checks the
commanded legs (FK from the published torso pose puts each sole on its target), the torso pose
in odom, the CoM over the support, and refusals that leave the node running and are counted in
both legs' diagnostics (issue 22.5, 22.6: stale and future stamps, a frame, swapped soles).
"""

from __future__ import annotations

import numpy as np
import pytest
from ik_node_harness import IKNodeClient, node_arguments, positions_of
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")

from builtin_interfaces.msg import Time
from sensor_msgs.msg import JointState

from ik_solvers import RobotModel
from ik_solvers.limbs.tree import find_limbs
from ik_solvers.node.messages import pose_to_matrix
from ik_solvers.resources import package_share_path
from ik_solvers.walk.messages import pose_message
from ik_solvers.whole_body import CenterOfMass
from ik_solvers_interfaces.msg import WholeBodyTarget

HEIGHT = 0.50  # [m] torso height over the floor (straight legs: 0.53 m)
FOOT_Y = 0.08  # [m]


@pytest.fixture(scope="module")
def model() -> RobotModel:
    return RobotModel.from_urdf_string(package_share_path("urdf", "humanoid.urdf").read_text())


@pytest.fixture(scope="module")
def client(ros_module):
    process = ros_module.processes.start_console_script("ik_node", *node_arguments())
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    client.listen_whole_body()
    return client


def _sole(x: float, y: float) -> np.ndarray:
    pose = np.eye(4)
    pose[:3, 3] = (x, y, 0.0)
    return pose


def _target(
    support: int, frame: str = "odom", height: float = HEIGHT, left_y: float = FOOT_Y
) -> WholeBodyTarget:
    message = WholeBodyTarget()
    message.header.frame_id = frame
    message.left_sole, message.right_sole = (
        pose_message(_sole(0.3, left_y)),
        pose_message(_sole(0.3, -left_y)),
    )
    message.support = support
    message.torso_height = height
    return message


def _send_and_settle(client, message: WholeBodyTarget) -> tuple[np.ndarray, dict[str, float]]:
    """Publish until the legs' commands stop changing; the last torso pose (4, 4) and commands."""
    count = len(client.torso_poses)
    for _ in range(40):  # the velocity limit needs a few commands to reach the goal
        client.whole_body.publish(message)
        client.spin(0.05)
    assert spin_until(client.executor, lambda: len(client.torso_poses) > count), client.output()
    torso = pose_to_matrix(client.torso_poses[-1].pose)
    return torso, dict(zip(client.commands[-1].name, client.commands[-1].position))


def test_double_support_puts_both_soles_on_their_targets(client, model):
    torso, commands = _send_and_settle(client, _target(WholeBodyTarget.SUPPORT_DOUBLE))
    assert client.torso_poses[-1].header.frame_id == "odom"
    assert torso[2, 3] == pytest.approx(HEIGHT)
    for tip, y in (("l_sole", FOOT_Y), ("r_sole", -FOOT_Y)):
        chain = model.chain("base_link", tip)
        q = np.array([commands[name] for name in chain.joint_names])
        sole = torso @ chain.fk(q)
        assert sole[:3, 3] == pytest.approx([0.3, y, 0.0], abs=1e-4)


def test_left_support_moves_the_centre_of_mass_over_the_left_sole(client, model):
    torso, commands = _send_and_settle(client, _target(WholeBodyTarget.SUPPORT_LEFT))
    com = CenterOfMass(model)
    q = com.configuration({name: value for name, value in commands.items() if name in com.joint_names})
    centre = com.position(q, torso)
    assert centre[1] == pytest.approx(FOOT_Y, abs=2e-3)  # sole box centred on the sole frame in y


def test_target_in_another_frame_is_refused_and_the_node_keeps_running(client):
    count = len(client.torso_poses)
    client.whole_body.publish(_target(WholeBodyTarget.SUPPORT_DOUBLE, frame="map"))
    client.spin(0.5)
    assert len(client.torso_poses) == count
    assert "not the world frame" in client.output()
    assert client.process.poll() is None


def test_non_finite_height_is_refused(client):
    count = len(client.torso_poses)
    client.whole_body.publish(_target(WholeBodyTarget.SUPPORT_DOUBLE, height=float("nan")))
    client.spin(0.5)
    assert len(client.torso_poses) == count
    assert client.process.poll() is None
    assert positions_of(client.commands[-1], ["l_knee"]) is not None


def _leg_values(client) -> dict[str, dict[str, str]]:
    """Both legs' latest diagnostic values, once a diagnostics message newer than the call came."""
    seen = len(client.diagnostics)
    assert spin_until(client.executor, lambda: len(client.diagnostics) > seen), client.output()
    values = {}
    for status in client.diagnostics[-1].status:
        for leg in ("left_leg", "right_leg"):
            if status.name == f"ik_node: {leg}":
                values[leg] = {v.key: v.value for v in status.values}
    return values


def _refused(client, message: WholeBodyTarget, reason: str) -> None:
    """``message`` is not commanded, and both legs count it with ``reason`` as the last error."""
    before = _leg_values(client)
    count = len(client.torso_poses)
    client.whole_body.publish(message)
    after = _leg_values(client)
    assert len(client.torso_poses) == count
    for leg in ("left_leg", "right_leg"):
        assert int(after[leg]["refused_inputs"]) == int(before[leg]["refused_inputs"]) + 1, after
        assert reason in after[leg]["last_error"], after[leg]
    assert client.process.poll() is None


@pytest.mark.parametrize("offset", [-3600.0, 3600.0, None], ids=["1 h old", "1 h ahead", "1970"])
def test_stamps_far_from_now_are_refused_as_for_per_chain_targets(client, offset):
    message = _target(WholeBodyTarget.SUPPORT_DOUBLE)
    if offset is None:
        message.header.stamp = Time(sec=1)
    else:
        now = client.node.get_clock().now().nanoseconds * 1e-9
        message.header.stamp = Time(sec=int(now + offset))
    _refused(client, message, "max_target_age")


def test_a_refusal_is_counted_in_both_legs_diagnostics(client):
    _refused(client, _target(WholeBodyTarget.SUPPORT_DOUBLE, frame="map"), "not the world frame")


def test_swapped_soles_are_refused_with_a_reason(client):
    _refused(client, _target(WholeBodyTarget.SUPPORT_DOUBLE, left_y=-FOOT_Y), "soles look swapped")


def test_a_com_target_outside_both_soles_is_commanded_with_a_warning(client):
    message = _target(WholeBodyTarget.SUPPORT_DOUBLE)
    message.use_com_target = True
    message.com_target.x, message.com_target.y = 0.45, 0.0  # 50 mm ahead of both soles, within reach
    count = len(client.torso_poses)
    client.whole_body.publish(message)
    assert spin_until(client.executor, lambda: len(client.torso_poses) > count), client.output()
    assert spin_until(client.executor, lambda: "outside the footprints of both soles" in client.output())


def test_an_unreachable_com_target_is_answered_with_the_held_legs(client):
    # a lock-stepped simulator waits for every period's command (ik_demo: up to 3 s of wall time);
    # the G1's out-of-reach CoM targets left every period unanswered (real-time factor 0.005)
    _send_and_settle(client, _target(WholeBodyTarget.SUPPORT_DOUBLE))
    held = positions_of(client.commands[-1], ["l_knee", "r_knee"])
    message = _target(WholeBodyTarget.SUPPORT_DOUBLE)
    message.use_com_target = True
    message.com_target.x, message.com_target.y = 1.5, 0.0  # 1.2 m ahead of the soles: no stance
    message.header.stamp = client.node.get_clock().now().to_msg()
    count = len(client.torso_poses)
    client.whole_body.publish(message)
    stamped = client.wait_for_command(lambda command: command.header.stamp == message.header.stamp)
    assert np.allclose(positions_of(stamped, ["l_knee", "r_knee"]), held)
    assert len(client.torso_poses) == count  # no stance: no torso pose
    assert "no stance, holding the last command" in client.output()


def test_an_arm_command_moves_that_arm_joint_with_the_next_target(client, model):
    # the walk's stabiliser raises the far arm (whole_body/far_arm.py) through walk_node's
    # whole_body/arm_command; ik_node applies it to the arm chain's goal with the next target,
    # the arm's other joints kept where they are measured
    arm = next(limb for limb in find_limbs(model).arms if limb.name == "left_arm").joint_names
    limits = np.array([(model.joints[name].lower, model.joints[name].upper) for name in arm])
    measured = np.clip(0.1 * np.arange(1, len(arm) + 1), limits[:, 0], limits[:, 1])
    client.joint_states.publish(JointState(name=list(arm), position=measured.tolist()))
    publisher = client.node.create_publisher(JointState, "whole_body/arm_command", 10)
    assert wait_for_matching(client.executor, publisher), client.output()
    client.spin(0.2)
    publisher.publish(JointState(name=[arm[1]], position=[0.9]))
    client.spin(0.2)
    _, commands = _send_and_settle(client, _target(WholeBodyTarget.SUPPORT_DOUBLE))
    expected = measured.copy()
    expected[1] = 0.9
    assert np.array([commands[name] for name in arm]) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("name, value", [("l_knee", 0.1), ("nope", 0.1), ("l_shoulder_roll", float("nan"))])
def test_an_arm_command_for_a_leg_an_unknown_joint_or_nan_is_refused(client, name, value):
    publisher = client.node.create_publisher(JointState, "whole_body/arm_command", 10)
    assert wait_for_matching(client.executor, publisher), client.output()
    before = int(_leg_values(client)["left_leg"]["refused_inputs"])
    publisher.publish(JointState(name=[name], position=[value]))
    client.spin(0.3)
    after = _leg_values(client)["left_leg"]
    assert int(after["refused_inputs"]) == before + 1, after
    assert "arm command refused" in after["last_error"], after
    assert client.process.poll() is None
