"""The real ik_node on humanoids described the way other makers describe them (test/maker_humanoids.py):
no ``base_link``, no sole frames, other names, a root frame on the floor, 3-joint arms, a head.

The node gets nothing but the URDF: it must find the limbs, command them, answer SolveIK on each
(the arms position only, said in the message), and stand the robot through its whole-body
interface with the root below the feet. A robot whose feet have no collision geometry starts with
per-chain IK and one line saying why whole-body is off; ``solver: geometric`` on chains no closed
form fits falls back with one warning line each.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from ik_node_harness import IKNodeClient, node_arguments, pose_stamped
from maker_humanoids import MakerSpec, maker_urdf
from ros_helpers import spin_until

pytest.importorskip("rclpy")


from ik_solvers import RobotModel
from ik_solvers.limbs import find_body
from ik_solvers.node.messages import pose_to_matrix
from ik_solvers.walk.messages import pose_message
from ik_solvers_interfaces.msg import WholeBodyTarget
from ik_solvers_interfaces.srv import SolveIK

CHAINS = ("left_leg", "right_leg", "left_arm", "right_arm")
FLOOR_ROOT = MakerSpec(name="floor_root", foot="cylinder", arm_joints=3, root_on_floor=True)
ROOT_HEIGHT = -0.04  # [m] the floor-level root 4 cm below the floor: knees bent (straight: 0)
FOOT_Y = 0.08  # [m]


def start(session, tmp_path_factory, spec: MakerSpec, *parameters: str, namespace: str = ""):
    """An ik_node process given only ``spec``'s URDF (and ``parameters``), and its client."""
    folder = tmp_path_factory.mktemp(spec.name)
    path = folder / "robot.yaml"
    path.write_text(yaml.safe_dump({"/**": {"ros__parameters": {"robot_description": maker_urdf(spec)}}}))
    arguments = node_arguments(*parameters, config=path, namespace=namespace)
    process = session.processes.start_console_script("ik_node", *arguments)
    return IKNodeClient(session, process, namespace=namespace)


@pytest.fixture(scope="module")
def body():
    return find_body(RobotModel.from_urdf_string(maker_urdf(FLOOR_ROOT)))


@pytest.fixture(scope="module")
def client(ros_module, tmp_path_factory):
    client = start(ros_module, tmp_path_factory, FLOOR_ROOT)
    client.wait_ready()
    client.listen_whole_body()
    return client


@pytest.mark.parametrize("name", CHAINS)
def test_every_limb_found_in_the_tree_is_served(client, body, name):
    chain = body.model.chain(*body.chains[name])
    target = chain.fk(0.3 * chain.lower + 0.2 * chain.upper)
    response = client.call(SolveIK.Request(chain=name, target=pose_stamped(target)))
    assert response.success, response.message
    assert response.solver_used == ("jacobian" if name.endswith("arm") else "geometric")  # auto's pick
    q = np.array(
        [dict(zip(response.solution.name, response.solution.position))[n] for n in chain.joint_names]
    )
    np.testing.assert_allclose(chain.fk(q)[:3, 3], target[:3, 3], atol=2e-4)
    assert ("position only" in response.message) == name.endswith("arm"), response.message


def test_the_floor_level_root_is_stood_on_its_feet_by_the_whole_body_interface(client, body):
    message = WholeBodyTarget()
    message.header.frame_id = "odom"
    for field, y in (("left_sole", FOOT_Y), ("right_sole", -FOOT_Y)):
        sole = np.eye(4)
        sole[:3, 3] = (0.2, y, 0.0)
        setattr(message, field, pose_message(sole))
    message.support, message.torso_height = WholeBodyTarget.SUPPORT_DOUBLE, ROOT_HEIGHT
    for _ in range(40):  # the velocity limit needs a few commands to reach the goal
        client.whole_body.publish(message)
        client.spin(0.05)
    assert spin_until(client.executor, lambda: bool(client.torso_poses)), client.output()
    root = pose_to_matrix(client.torso_poses[-1].pose)
    assert root[2, 3] == pytest.approx(ROOT_HEIGHT)
    commands = dict(zip(client.commands[-1].name, client.commands[-1].position))
    for name, y in (("left_leg", FOOT_Y), ("right_leg", -FOOT_Y)):
        chain = body.model.chain(body.model.root, body.chains[name][1])
        sole = root @ chain.fk(np.array([commands[joint] for joint in chain.joint_names]))
        assert sole[:3, 3] == pytest.approx([0.2, y, 0.0], abs=1e-4)


def test_feet_without_geometry_start_per_chain_ik_with_one_line_saying_why_whole_body_is_off(
    ros_module, tmp_path_factory
):
    client = start(ros_module, tmp_path_factory, MakerSpec(name="bare_feet", foot="none"), namespace="/bare")
    client.wait_ready()
    response = client.call(SolveIK.Request(chain="left_leg", target=pose_stamped(np.eye(4), "l_foot")))
    assert response.success, response.message
    lines = [line for line in client.output().splitlines() if "whole-body interface off" in line]
    assert len(lines) == 1 and "foot 'l_foot' has no sole frame and no <collision> geometry" in lines[0]


def test_geometric_named_on_chains_it_does_not_fit_falls_back_with_one_warning_each(
    ros_module, tmp_path_factory
):
    solvers = [f"chains.{name}.solver:=geometric" for name in CHAINS]
    spec = MakerSpec(name="geometric_everywhere", arm_joints=3)
    client = start(ros_module, tmp_path_factory, spec, *solvers, namespace="/geometric")
    client.wait_ready()
    lines = [line for line in client.output().splitlines() if "falls back to 'auto'" in line]
    assert len(lines) == 2 and "left_arm: no closed form fits its 3 joints" in lines[0], client.output()
    assert client.set_parameters(chains__left_leg__solver="jacobian")[0].successful
