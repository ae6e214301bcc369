"""The ik_node holds a limb instead of commanding a jump along a moving target, unless branch
switches are allowed; a far target is a new goal, reached.

One ik_node process with the packaged config (``max_joint_jump`` 0.5 rad, ``allow_branch_switch``
false), real DDS on the session's own domain id. A jump is a large joint change for a small change
of the target (ik_solvers/control/goal_change.py): the arm's path below, streamed target by
target, makes the seeded geometric solver leave its branch (a shoulder joint 3 rad away for a
target moved 1 mm). A far target is not a jump: the leg's hip turned 0.8 rad, a sole turned as
much, is reached at the velocity limit (issue 21.1: before, it was held for ever).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("rclpy")

from ik_node_harness import IKNodeClient, node_arguments, pose_stamped, positions_of
from ros_helpers import spin_until
from test_continuity import sine_path

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers_interfaces.srv import SolveIK

MODEL = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
LEG, ARM = MODEL.chain("base_link", "l_sole"), MODEL.chain("base_link", "l_wrist")
# 120 steps into the joint limits on which target-by-target solves of the left arm jump (the first
# time at step 26; test_ik_node_path.py solves it whole without a jump).
ARM_PATH = sine_path(ARM, np.random.default_rng(20), 0.02, 1.4)[:120]
START = np.array([0.1, 0.05, -0.6, 1.1, -0.5, -0.05])  # [rad] a standing-like leg posture
FAR = START + np.array([-0.8, 0.0, 0.0, 0.0, 0.0, 0.0])  # hip yaw 0.8 rad away


@pytest.fixture(scope="module")
def ik(ros_module):
    client = IKNodeClient(ros_module, ros_module.processes.start_console_script("ik_node", *node_arguments()))
    client.wait_ready()
    yield client
    assert client.process.poll() is None, f"ik_node died:\n{client.output()}"


def at(q: np.ndarray, chain=LEG):
    """Condition on a JointState: the chain's joints at q (to 1e-6 rad)."""
    return lambda message: (
        (p := positions_of(message, chain.joint_names)) is not None and np.allclose(p, q, atol=1e-6)
    )


def chain_values(ik: IKNodeClient, chain: str) -> dict[str, str]:
    """The values of the chain's latest diagnostic status ({} before the first)."""
    for array in reversed(ik.diagnostics):
        for status in array.status:
            if status.name.endswith(chain):
                return {v.key: v.value for v in status.values}
    return {}


def counted(ik: IKNodeClient, chain: str, key: str) -> int:
    """A counter of the chain's diagnostics, once the next diagnostics message has come."""
    seen = len(ik.diagnostics)
    assert spin_until(ik.executor, lambda: len(ik.diagnostics) > seen), ik.output()
    return int(chain_values(ik, chain)[key])


def stream(ik: IKNodeClient, chain: str, path: np.ndarray, model_chain) -> None:
    """Send the FK targets of ``path`` (N, n) one after another, 30 ms apart (a moving target)."""
    for target in model_chain.fk(path):
        ik.send_target(chain, target)
        ik.spin(0.03)


def test_a_far_target_is_a_new_goal_reached_at_the_velocity_limit(ik):
    ik.send_target("left_leg", LEG.fk(START))
    assert ik.wait_for_command(at(START)) is not None, ik.output()
    goals = counted(ik, "left_leg", "new_goals")
    first = len(ik.commands)
    ik.send_target("left_leg", LEG.fk(FAR))
    assert ik.wait_for_command(at(FAR)) is not None, ik.output()
    hip = [positions_of(m, LEG.joint_names)[0] for m in ik.commands[first:] if not at(FAR)(m)]
    assert any(FAR[0] < value < START[0] for value in hip)  # approached, not jumped to
    assert counted(ik, "left_leg", "new_goals") == goals + 1
    values = chain_values(ik, "left_leg")
    assert values["last_far_solution"].startswith("new goal: joint 'l_hip_joint' moves 0.8"), values


def test_a_jump_along_a_moving_target_is_held_and_counted(ik):
    """Up to step 40: from step 26 on every solution jumps, and the arm holds at step 25's pose."""
    held = counted(ik, "left_arm", "jumps_held")
    stream(ik, "left_arm", ARM_PATH[:40], ARM)
    assert counted(ik, "left_arm", "jumps_held") > held, ik.output()
    assert "would jump" in ik.output() and "while the target moved" in ik.output()  # the log says why
    assert chain_values(ik, "left_arm")["last_far_solution"].startswith("jump held")
    ik.spin(0.5)  # the last steps toward step 25's solution
    commanded = ARM.fk(positions_of(ik.commands[-1], ARM.joint_names))
    assert np.allclose(commanded, ARM.fk(ARM_PATH[25]), atol=1e-4)


def test_with_branch_switches_allowed_the_jumps_are_commanded(ik):
    (result,) = ik.set_parameters(allow_branch_switch=True)
    assert result.successful, result.reason
    try:
        held = counted(ik, "left_arm", "jumps_held")
        stream(ik, "left_arm", ARM_PATH, ARM)
        last = ARM.fk(ARM_PATH[-1])
        reached = ik.wait_for_command(
            lambda m: np.allclose(ARM.fk(positions_of(m, ARM.joint_names)), last, atol=1e-6)
        )
        assert reached is not None, ik.output()
        assert counted(ik, "left_arm", "jumps_held") == held
    finally:
        ik.set_parameters(allow_branch_switch=False)


def test_solve_ik_reports_whether_the_solution_continues_the_seed(ik):
    request = SolveIK.Request(chain="left_arm", solver="geometric")
    arm = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", "l_wrist")
    q = np.clip(np.array([0.3, 0.4, 0.2, -1.0, 0.3, 0.2, 0.1]), arm.lower, arm.upper)
    request.target = pose_stamped(arm.fk(q))
    request.seed.name, request.seed.position = list(arm.joint_names), (q + 0.01).tolist()
    near = ik.call(request)
    assert near.success and near.continuous
    request.seed.position = np.clip(
        q + np.array([1.2, 0.0, -1.5, 0.0, 1.5, 0.0, -0.8]), arm.lower, arm.upper
    ).tolist()
    far = ik.call(request)
    assert far.success and not far.continuous and "no solution continues" in far.message
