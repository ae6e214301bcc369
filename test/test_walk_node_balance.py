"""walk_node with its stabiliser over real DDS: it reads sensor_msgs/Imu and /joint_states.

The node runs as its console script with ``config/walk_fast.yaml`` (``walk.stabilise`` on). The
test node publishes the IMU and the joint states itself (scripted values: a torso rolled 0.1 rad
to the left, the joints at zero), as sim_node or a robot's drivers would; no simulator runs here
(the closed loop in MuJoCo is test_walk_push.py's and test_walk_nodes_stabilised.py's). Without
them the node says so and sends the plan uncorrected. Joints at zero are straight legs, far from
the plan's stance: the feedback is held until the stance is reached (``stabiliser.stance_tolerance``),
so the tests of the correction itself accept any stance and take the feedback at once.
"""

from __future__ import annotations

import math

import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")

from geometry_msgs.msg import Twist
from sensor_msgs.msg import Imu, JointState

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver
from ik_solvers.whole_body.far_arm import find_shoulders
from ik_solvers_interfaces.msg import WholeBodyTarget

ROLL = 0.1  # [rad], the torso tipping to its right (z axis towards −y)


ANY_STANCE = ["-p", "stabiliser.stance_tolerance:=1.0", "-p", "stabiliser.ramp_time:=0.0"]


def _start(processes, make_node, executor, *arguments: str):
    config = str(package_share_path("config", "walk_fast.yaml"))
    process = processes.start_console_script(
        "walk_node", "--ros-args", "--params-file", config, "-p", "imu_topic:=/test_imu", *arguments
    )
    node = make_node("walk_node_balance_test")
    targets: list[WholeBodyTarget] = []
    node.create_subscription(WholeBodyTarget, "whole_body/target", targets.append, 1000)
    imu = node.create_publisher(Imu, "/test_imu", 10)
    joints = node.create_publisher(JointState, "/joint_states", 10)
    started = wait_for_matching(executor, imu) and spin_until(executor, lambda: len(targets) > 5)
    assert started, f"walk_node did not come up:\n{processes.output(process)}"
    return process, targets, imu, joints


@pytest.fixture
def walk(processes, make_node, executor):
    return _start(processes, make_node, executor, *ANY_STANCE)


def _imu() -> Imu:
    message = Imu()
    message.orientation.w, message.orientation.x = math.cos(ROLL / 2), math.sin(ROLL / 2)
    return message


def _corrected(executor, targets, imu, joints, timeout: float) -> bool:
    """Whether walk_node commands the torso back against the tilted IMU within ``timeout`` [s]."""
    start = len(targets)

    def corrected() -> bool:
        imu.publish(_imu())
        joints.publish(JointState(name=["l_knee", "r_knee"], position=[0.0, 0.0]))
        return any(t.torso_orientation.x < -0.01 for t in targets[start:])

    return spin_until(executor, corrected, timeout=timeout)


def test_a_tilted_imu_makes_walk_node_command_the_torso_back(walk, executor):
    _, targets, imu, joints = walk
    assert _corrected(executor, targets, imu, joints, timeout=10.0)


def test_far_from_the_plans_stance_the_feedback_is_held(processes, make_node, executor):
    process, targets, imu, joints = _start(processes, make_node, executor)  # straight legs: not the stance
    assert not _corrected(executor, targets, imu, joints, timeout=3.0)
    assert "stance reached" not in processes.output(process)


def test_without_sensors_the_plan_goes_out_and_the_node_says_why(walk, executor, processes):
    process, targets, _, _ = walk
    start = len(targets)
    spin_until(executor, lambda: len(targets) > start + 20, timeout=5.0)
    assert all(abs(t.torso_orientation.x) < 1e-9 for t in targets[start:])
    assert spin_until(executor, lambda: "stabiliser idle" in processes.output(process), timeout=5.0)
    assert "no IMU message yet" in processes.output(process)


def test_walking_tipped_over_the_support_sole_walk_node_raises_the_far_arm(walk, executor, make_node):
    # the IMU rolled to the right throughout: in right single support the DCM error runs outwards
    # over the support sole, and walk_node commands the left arm's abduction (found from the limb
    # tree) on whole_body/arm_command for ik_node; in left single support it runs inwards: no arm
    _, _, imu, joints = walk
    node = make_node("walk_node_arm_test")
    arms: list[JointState] = []
    node.create_subscription(JointState, "whole_body/arm_command", arms.append, 100)
    commands = node.create_publisher(Twist, "cmd_vel", 10)
    forward = Twist()
    forward.linear.x = 0.05

    def raised() -> bool:
        commands.publish(forward)
        imu.publish(_imu())
        joints.publish(JointState(name=["l_knee", "r_knee"], position=[0.0, 0.0]))
        return bool(arms)

    assert spin_until(executor, raised, timeout=20.0)
    stance = StanceSolver(RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    left = find_shoulders(stance.model, stance.com, 2.9)["left"]
    assert list(arms[0].name) == [left.joint]
    assert arms[0].position[0] == pytest.approx(left.raised)
