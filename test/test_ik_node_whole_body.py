"""ik_node's whole-body interface over real DDS: soles in odom → leg commands and the torso pose.

The node runs as its console script; the test publishes WholeBodyTarget messages and checks the
commanded legs (FK from the published torso pose puts each sole on its target), the torso pose
in odom, the CoM over the support, and refusals that leave the node running.
"""

from __future__ import annotations

import numpy as np
import pytest
from ik_node_harness import IKNodeClient, node_arguments, positions_of
from ros_helpers import spin_until

pytest.importorskip("rclpy")


from ik_solvers import RobotModel
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


def _target(support: int, frame: str = "odom", height: float = HEIGHT) -> WholeBodyTarget:
    message = WholeBodyTarget()
    message.header.frame_id = frame
    message.left_sole, message.right_sole = (
        pose_message(_sole(0.3, FOOT_Y)),
        pose_message(_sole(0.3, -FOOT_Y)),
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
