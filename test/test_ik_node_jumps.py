"""The ik_node holds a limb instead of commanding a jump, unless branch switches are allowed.

One ik_node process with the packaged config (``max_joint_jump`` 0.5 rad, ``allow_branch_switch``
false), real DDS on the session's own domain id. The leg is used: a 6-DoF leg has no redundancy,
so a target whose solution is 0.8 rad from the current one can only be reached by that jump.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("rclpy")

from ik_node_harness import IKNodeClient, node_arguments, pose_stamped, positions_of
from ros_helpers import spin_until

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers_interfaces.srv import SolveIK

LEG = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", "l_sole")
START = np.array([0.1, 0.05, -0.6, 1.1, -0.5, -0.05])  # [rad] a standing-like leg posture
FAR = START + np.array([-0.8, 0.0, 0.0, 0.0, 0.0, 0.0])  # hip yaw 0.8 rad away


@pytest.fixture(scope="module")
def ik(ros_module):
    client = IKNodeClient(ros_module, ros_module.processes.start_console_script("ik_node", *node_arguments()))
    client.wait_ready()
    yield client
    assert client.process.poll() is None, f"ik_node died:\n{client.output()}"


def at(q: np.ndarray):
    """Condition on a JointState: the left leg's joints at q (to 1e-6 rad)."""
    return lambda message: (
        (p := positions_of(message, LEG.joint_names)) is not None and np.allclose(p, q, atol=1e-6)
    )


def jumps_held(ik: IKNodeClient) -> int:
    """The left leg's ``jumps_held`` in the latest diagnostics (-1 before the first)."""
    for array in reversed(ik.diagnostics):
        for status in array.status:
            if status.name.endswith("left_leg"):
                return int({v.key: v.value for v in status.values}["jumps_held"])
    return -1


def test_a_jump_is_held_and_counted_then_commanded_once_switches_are_allowed(ik):
    ik.send_target("left_leg", LEG.fk(START))
    assert ik.wait_for_command(at(START)) is not None, ik.output()
    held = jumps_held(ik) if spin_until(ik.executor, lambda: jumps_held(ik) >= 0, 5.0) else 0
    ik.send_target("left_leg", LEG.fk(FAR))
    assert spin_until(ik.executor, lambda: jumps_held(ik) == held + 1), ik.output()
    assert all(not at(FAR)(m) for m in ik.commands)  # nothing moved toward the far solution
    assert "would jump" in ik.output()  # the log says why
    (result,) = ik.set_parameters(allow_branch_switch=True)
    assert result.successful, result.reason
    try:
        ik.send_target("left_leg", LEG.fk(FAR))
        assert ik.wait_for_command(at(FAR)) is not None, ik.output()
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
