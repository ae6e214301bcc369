"""The ik_node over real DDS: targets in, commands out, the SolveIK service, bad input, solver switch.

One node process (the ``ik_node`` console script with the packaged config) serves the whole
module; a test node in this process talks to it on the session's own domain id.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("rclpy")

from ik_node_harness import CHAINS, IKNodeClient, node_arguments, pose_stamped, positions_of
from ros_helpers import spin_until
from sensor_msgs.msg import JointState

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.solvers import SOLVERS
from ik_solvers_interfaces.srv import SolveIK

MODEL = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
LINKS = {"left_leg": "l_sole", "right_leg": "r_sole", "left_arm": "l_wrist", "right_arm": "r_wrist"}
CHAIN = {name: MODEL.chain("base_link", tip) for name, tip in LINKS.items()}
POSITION_TOLERANCE, ORIENTATION_TOLERANCE = 1e-3, 1e-2  # [m], [rad]
COMMAND_PERIOD = 0.01  # [s] command_rate of the packaged config

if "geometric" not in SOLVERS:
    pytest.skip("the packaged config needs the geometric solver, not registered yet", allow_module_level=True)


def reachable_target(name: str, variant: int = 0) -> np.ndarray:
    """(4, 4) target in the chain's base frame that any solver of the chain can meet.

    Legs: the sole of the straight leg, raised and moved forward (sole kept level). Arms: FK of
    a configuration near the middle of the limits.
    """
    chain = CHAIN[name]
    if name.endswith("leg"):
        target = chain.fk(np.clip(np.zeros(chain.n), chain.lower, chain.upper))
        target[:3, 3] += (0.02 + 0.01 * variant, 0.0, 0.04 + 0.01 * variant)
        return target
    rng = np.random.default_rng(17 + variant)
    middle = 0.5 * (chain.lower + chain.upper)
    return chain.fk(middle + 0.25 * rng.uniform(chain.lower - middle, chain.upper - middle))


def reaches(name: str, target: np.ndarray):
    """Condition on a JointState: its positions of ``name``'s joints put the tip on ``target``."""
    chain = CHAIN[name]

    def condition(message: JointState) -> bool:
        q = positions_of(message, chain.joint_names)
        if q is None:
            return False
        pose = chain.fk(q)
        position_error = np.linalg.norm(pose[:3, 3] - target[:3, 3])
        angle = np.arccos(np.clip((np.trace(pose[:3, :3].T @ target[:3, :3]) - 1) / 2, -1, 1))
        return position_error < POSITION_TOLERANCE and angle < ORIENTATION_TOLERANCE

    return condition


def assert_commands_safe(commands: list[JointState]) -> None:
    """Every command so far: finite and within the URDF limits."""
    for message in commands:
        for name, position in zip(message.name, message.position):
            joint = MODEL.joints[name]
            assert math.isfinite(position) and joint.lower - 1e-9 <= position <= joint.upper + 1e-9, (
                name,
                position,
            )


@pytest.fixture(scope="module")
def ik(ros_module):
    # These tests send targets far apart (floods, far goals): branch switches allowed, as before
    # max_joint_jump existed; test_ik_node_jumps.py covers the default that holds jumps.
    process = ros_module.processes.start_console_script(
        "ik_node", *node_arguments("allow_branch_switch:=true")
    )
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    yield client
    assert_commands_safe(client.commands)
    assert process.poll() is None, f"ik_node died:\n{client.output()}"


def request(chain: str, target: np.ndarray, frame: str = "", **fields) -> SolveIK.Request:
    message = SolveIK.Request(chain=chain, target=pose_stamped(target, frame), **fields)
    return message


@pytest.mark.parametrize("name", CHAINS)
def test_a_target_gives_a_command_whose_fk_reaches_it(ik, name):
    target = reachable_target(name)
    ik.send_target(name, target)
    assert ik.wait_for_command(reaches(name, target)) is not None, ik.output()


def test_a_target_in_another_link_frame_is_moved_into_the_chain_base(ik):
    target_in_base = reachable_target("left_arm", variant=1)
    head = MODEL.chain("base_link", "head").fk(np.zeros(0))
    ik.send_target("left_arm", np.linalg.solve(head, target_in_base), frame="head")
    assert ik.wait_for_command(reaches("left_arm", target_in_base)) is not None, ik.output()


def test_commands_name_every_commanded_joint_and_are_stamped(ik):
    ik.send_target("right_leg", reachable_target("right_leg", variant=2))
    message = ik.wait_for_command(lambda m: True)
    assert message is not None
    assert set(CHAIN["right_leg"].joint_names) <= set(message.name)
    assert message.header.stamp.sec > 0


def test_service_solves_a_reachable_target(ik):
    target = reachable_target("left_arm", variant=3)
    response = ik.call(request("left_arm", target))
    assert response.success, response.message
    assert list(response.solution.name) == list(CHAIN["left_arm"].joint_names)
    assert reaches("left_arm", target)(response.solution)
    assert response.solver_used == "geometric"
    assert response.position_error < POSITION_TOLERANCE


def test_service_normalises_a_non_unit_quaternion(ik):
    target = reachable_target("right_arm", variant=1)
    message = request("right_arm", target)
    o = message.target.pose.orientation
    o.x, o.y, o.z, o.w = 3 * o.x, 3 * o.y, 3 * o.z, 3 * o.w
    response = ik.call(message)
    assert response.success, response.message
    assert reaches("right_arm", target)(response.solution)


def test_service_honours_seed_pole_timeout_and_a_target_frame(ik):
    target = reachable_target("left_arm", variant=4)
    head = MODEL.chain("base_link", "head").fk(np.zeros(0))
    message = request("left_arm", np.linalg.solve(head, target), frame="head", use_pole=True, timeout=0.05)
    message.pole.x, message.pole.y, message.pole.z = 0.0, 0.5, -0.5
    message.seed.name = ["l_elbow"]
    message.seed.position = [-1.0]
    response = ik.call(message)
    assert response.success, response.message
    assert reaches("left_arm", target)(response.solution)


def test_service_with_publish_commands_the_solution(ik):
    target = reachable_target("right_leg", variant=3)
    response = ik.call(request("right_leg", target, publish=True))
    assert response.success and "published" in response.message, response.message
    assert ik.wait_for_command(reaches("right_leg", target)) is not None


def _set_position(m, value):
    m.target.pose.position.x = value


def _set_orientation(m, values):
    o = m.target.pose.orientation
    o.x, o.y, o.z, o.w = values


FAILURES = {
    "unknown chain": (lambda m: setattr(m, "chain", "tail"), "valid chains"),
    "unknown solver": (lambda m: setattr(m, "solver", "magic"), "valid solvers"),
    "unknown frame": (lambda m: setattr(m.target.header, "frame_id", "moon"), "unknown frame"),
    "nan position": (lambda m: _set_position(m, math.nan), "finite"),
    "inf orientation": (lambda m: _set_orientation(m, (0.0, 0.0, math.inf, 1.0)), "unit quaternion"),
    "zero quaternion": (lambda m: _set_orientation(m, (0.0, 0.0, 0.0, 0.0)), "zero quaternion"),
    "negative timeout": (lambda m: setattr(m, "timeout", -1.0), "timeout"),
    "nan pole": (lambda m: (setattr(m, "use_pole", True), setattr(m.pole, "x", math.nan)), "pole"),
    "seed length mismatch": (lambda m: setattr(m.seed, "name", ["l_elbow"]), "seed"),
    "seed unknown joint": (
        lambda m: (setattr(m.seed, "name", ["tail"]), setattr(m.seed, "position", [0.0])),
        "unknown joints",
    ),
}


@pytest.mark.parametrize("case", FAILURES)
def test_service_refuses_bad_requests_with_a_reason(ik, case):
    change, expected = FAILURES[case]
    message = request("left_arm", reachable_target("left_arm"))
    change(message)
    response = ik.call(message)
    assert not response.success
    assert expected in response.message, response.message


def test_service_answers_an_unreachable_target_with_a_safe_failure(ik):
    far = reachable_target("left_arm")
    far[:3, 3] += (5.0, 0.0, 0.0)
    response = ik.call(request("left_arm", far, publish=True))
    assert not response.success and response.message
    q = np.array(response.solution.position)
    assert np.all(np.isfinite(q)) and CHAIN["left_arm"].within_limits(q, 1e-9)


def test_the_solver_of_a_chain_switches_at_run_time(ik):
    for kind in sorted(SOLVERS):
        (result,) = ik.set_parameters(chains__right_arm__solver=kind)
        assert result.successful, result.reason
        response = ik.call(request("right_arm", reachable_target("right_arm", variant=2)))
        used = "geometric" if kind == "auto" else kind  # auto picks the 7-DoF arm's closed form
        assert response.success and response.solver_used == used, response.message
    (result,) = ik.set_parameters(chains__right_arm__solver="geometric")
    assert result.successful


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"chains__left_arm__solver": "magic"}, "chains.left_arm.solver = 'magic' refused: one of "),
        ({"jacobian__method": "newton"}, "jacobian.method = 'newton' refused: one of dls, pinv"),
        (
            {"max_velocity_fraction": 2.0},
            "max_velocity_fraction = 2.0 refused: a finite number in [1e-06, 1]",
        ),
        ({"max_velocity_fraction": float("nan")}, "max_velocity_fraction = nan refused"),
        (
            {"jacobian__max_iterations": 2.5},
            "jacobian.max_iterations = 2.5 refused: an integer in [1, 100000]",
        ),
        ({"robot_description": "<robot/>"}, "robot_description"),
        ({"command_rate": 50.0}, "command_rate is read at start-up only"),
    ],
)
def test_bad_parameter_values_are_refused_with_a_reason(ik, values, expected):
    (result,) = ik.set_parameters(**values)
    assert not result.successful
    assert expected in result.reason and result.reason


def test_an_integer_for_a_float_parameter_is_that_number(ik):
    (result,) = ik.set_parameters(max_target_age=1)
    assert result.successful, result.reason
    value = ik.parameters.get("max_target_age")
    assert value == 1.0 and isinstance(value, float)
    ik.set_parameters(max_target_age=0.5)


def _refused(ik, chain: str) -> int:
    """The refused_inputs count of ``chain`` in the latest diagnostics."""
    for status in reversed([s for a in ik.diagnostics for s in a.status if s.name == f"ik_node: {chain}"]):
        return int({v.key: v.value for v in status.values}["refused_inputs"])
    return -1


def test_bad_targets_are_refused_and_the_node_keeps_answering(ik):
    chain, target = "left_leg", reachable_target("left_leg", variant=4)
    ik.send_target(chain, target)
    assert ik.wait_for_command(reaches(chain, target)) is not None
    assert spin_until(ik.executor, lambda: _refused(ik, chain) >= 0, 5.0)
    refused_before, commands_before = _refused(ik, chain), len(ik.commands)
    now = ik.node.get_clock().now()
    bad = [pose_stamped(target), pose_stamped(target), pose_stamped(target, "moon")]
    bad[0].pose.position.z = math.nan
    bad[1].pose.orientation.w = 0.0
    bad += [pose_stamped(target, stamp=(now - rclpy_duration(5.0)).to_msg())]
    bad += [pose_stamped(target, stamp=(now + rclpy_duration(5.0)).to_msg())]
    for message in bad:
        ik.targets[chain].publish(message)
        ik.spin(0.05)  # lets each one through the depth-1 subscription before the next
    assert spin_until(ik.executor, lambda: _refused(ik, chain) >= refused_before + len(bad), 5.0)
    assert_commands_safe(ik.commands[commands_before:])
    assert ik.call(request(chain, target)).success


def rclpy_duration(seconds: float):
    from rclpy.duration import Duration

    return Duration(nanoseconds=int(seconds * 1e9))


def test_a_flood_of_targets_leaves_the_latest_one_commanded(ik):
    chain = "right_arm"
    targets = [reachable_target(chain, variant=v % 3) for v in range(600)]
    for target in targets:
        ik.send_target(chain, target)
    assert ik.wait_for_command(reaches(chain, targets[-1])) is not None, ik.output()
    assert ik.call(request(chain, targets[0])).success


def test_commands_approach_a_far_target_within_the_velocity_limit(ik):
    chain, fraction = CHAIN["left_arm"], 0.2
    (result,) = ik.set_parameters(max_velocity_fraction=fraction)
    assert result.successful, result.reason
    try:
        near, far = reachable_target("left_arm", variant=5), reachable_target("left_arm", variant=6)
        ik.send_target("left_arm", near)
        assert ik.wait_for_command(reaches("left_arm", near)) is not None
        start = len(ik.commands)
        ik.send_target("left_arm", far)
        assert ik.wait_for_command(reaches("left_arm", far)) is not None
    finally:
        ik.set_parameters(max_velocity_fraction=0.5)
    steps = [positions_of(m, chain.joint_names) for m in ik.commands[start - 1 :]]
    steps = np.array([q for q in steps if q is not None])
    largest = np.max(np.abs(np.diff(steps, axis=0)), axis=0)
    assert len(steps) > 3, "the far target was reached in one jump"
    assert np.all(largest <= fraction * chain.velocity_limits * COMMAND_PERIOD + 1e-9)


def test_diagnostics_report_every_chain(ik):
    def complete() -> bool:
        names = {s.name for a in ik.diagnostics[-1:] for s in a.status}
        return names == {f"ik_node: {c}" for c in CHAINS} | {"ik_node: joint_states"}

    assert spin_until(ik.executor, complete, 5.0)
    keys = {v.key for v in ik.diagnostics[-1].status[0].values}
    assert {"solver", "solves", "failures", "last_error", "last_solve_time_ms"} <= keys
