"""The ik_node's ``solve_ik_path`` service over real DDS: whole paths of targets, and bad requests.

One node process (the ``ik_node`` console script with the packaged config) serves the module. Paths
are FK of smooth joint paths (``sine_path`` of test_continuity.py: every joint a sinusoid within
its limits, at most 0.04 rad per step); a jump is a step larger than max(0.1 rad, 5 × the path's
own step) (``path_jumps``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("rclpy")

from ik_node_harness import IKNodeClient, node_arguments, pose_stamped, positions_of
from sensor_msgs.msg import JointState
from test_continuity import path_jumps, sine_path

from ik_solvers import RobotModel
from ik_solvers.control.path import MAX_PATH_TARGETS
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import pose_error
from ik_solvers_interfaces.srv import SolveIK, SolveIKPath

MODEL = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
TIPS = {"left_leg": "l_sole", "left_arm": "l_wrist", "right_arm": "r_wrist"}  # as config/ik_solvers.yaml
CHAIN = {name: MODEL.chain("base_link", tip) for name, tip in TIPS.items()}
STEPS = 120  # targets per path: the arm's whole-path solve takes about 6 ms each
TOLERANCE = 1e-4  # [m] and [rad]: the solvers' own tolerance or better


@pytest.fixture(scope="module")
def ik(ros_module):
    process = ros_module.processes.start_console_script("ik_node", *node_arguments())
    client = IKNodeClient(ros_module, process)
    client.wait_ready()
    yield client
    assert process.poll() is None, f"ik_node died:\n{client.output()}"


def seed_state(chain, q: np.ndarray) -> JointState:
    return JointState(name=list(chain.joint_names), position=[float(v) for v in q])


def path_request(name: str, path: np.ndarray, frames: tuple[str, ...] = ("",)) -> SolveIKPath.Request:
    """The FK targets of ``path`` (N, n) for chain ``name``, target k in ``frames[k % len(frames)]``
    (frames without joints between them and base_link), seeded with the path's start."""
    chain, request = CHAIN[name], SolveIKPath.Request(chain=name)
    for k, target in enumerate(chain.fk(path)):
        frame = frames[k % len(frames)]
        in_frame = (
            np.linalg.solve(MODEL.chain("base_link", frame).fk(np.zeros(0)), target) if frame else target
        )
        request.targets.append(pose_stamped(in_frame, frame))
    request.seed = seed_state(chain, path[0])
    return request


def solutions(name: str, answer: SolveIKPath.Response) -> np.ndarray:
    """(N, n) the answer's joint positions of chain ``name``."""
    return np.array([positions_of(state, CHAIN[name].joint_names) for state in answer.solutions])


def assert_path_followed(name: str, path: np.ndarray, answer: SolveIKPath.Response) -> None:
    """Every target met (FK checked here too), every row continuous, no jump."""
    assert answer.success, answer.message
    assert len(answer.solutions) == len(answer.met) == len(answer.continuous) == len(path)
    assert all(answer.met) and all(answer.continuous), answer.message
    q = solutions(name, answer)
    position, angle = pose_error(CHAIN[name].fk(path), CHAIN[name].fk(q))
    assert position.max() < TOLERANCE and angle.max() < TOLERANCE
    assert CHAIN[name].within_limits(q, 1e-9).all()
    assert path_jumps(path, q) == 0


def test_an_arm_path_is_solved_whole_without_a_jump(ik):
    """A path into the joint limits on which the arm, seeded target by target, jumps 5 times (its
    swivel interval vanishes under a limit it could not foresee): the whole-path solve has none."""
    path = sine_path(CHAIN["left_arm"], np.random.default_rng(20), 0.02, 1.4)[:STEPS]
    answer = ik.call_path(path_request("left_arm", path, frames=("", "head")))
    assert answer.solver_used == "geometric, whole path"
    assert_path_followed("left_arm", path, answer)


def test_a_leg_path_is_solved_target_by_target_seeded_with_the_previous_answer(ik):
    path = sine_path(CHAIN["left_leg"], np.random.default_rng(22), 0.02)[:STEPS]
    answer = ik.call_path(path_request("left_leg", path))
    assert answer.solver_used == "geometric, seeded one by one"
    assert_path_followed("left_leg", path, answer)


def test_a_jacobian_chain_goes_target_by_target(ik):
    assert ik.set_parameters(chains__right_arm__solver="jacobian")[0].successful
    try:
        path = sine_path(CHAIN["right_arm"], np.random.default_rng(23), 0.1)[:STEPS]
        answer = ik.call_path(path_request("right_arm", path))
        assert answer.solver_used == "jacobian, seeded one by one"
        assert_path_followed("right_arm", path, answer)
    finally:
        ik.set_parameters(chains__right_arm__solver="geometric")


def test_a_target_out_of_reach_fails_its_row_only_and_is_named(ik):
    path = sine_path(CHAIN["left_arm"], np.random.default_rng(24), 0.02)[:40]
    request = path_request("left_arm", path)
    request.targets[25].pose.position.x += 2.0  # two metres away
    answer = ik.call_path(request)
    assert not answer.success and "1 not met (first: targets[25]" in answer.message, answer.message
    assert [k for k, met in enumerate(answer.met) if not met] == [25]


def test_a_big_step_between_targets_is_flagged_not_continuous(ik):
    """A target far from the previous one's configuration: the row is met but not continuous."""
    chain = CHAIN["left_leg"]
    rest = np.clip(np.zeros(chain.n), chain.lower, chain.upper)
    path = np.array([rest, rest + 0.6 * (chain.upper - rest)])
    answer = ik.call_path(path_request("left_leg", path))
    assert answer.success and list(answer.met) == [True, True], answer.message
    assert list(answer.continuous) == [True, False] and "joint 'l_knee' moves" in answer.message, (
        answer.message
    )


def leg_targets(count: int) -> list:
    """``count`` fresh PoseStamped of a reachable left sole pose, in the chain's base frame."""
    leg = CHAIN["left_leg"]
    bent = leg.rest_configuration() + 0.3 * (0.5 * (leg.lower + leg.upper) - leg.rest_configuration())
    return [pose_stamped(leg.fk(bent)) for _ in range(count)]


def _with(request: SolveIKPath.Request, index: int, position=None, orientation=None) -> SolveIKPath.Request:
    """``request`` with target ``index``'s position or orientation (x, y, z, w) replaced."""
    pose = request.targets[index].pose
    if position is not None:
        pose.position.x, pose.position.y, pose.position.z = position
    if orientation is not None:
        o = pose.orientation
        o.x, o.y, o.z, o.w = orientation
    return request


def hostile_request(case: str) -> SolveIKPath.Request:
    """A request refused for the reason ``case`` names."""
    leg = "left_leg"
    if case == "unknown chain":
        return SolveIKPath.Request(chain="nose", targets=leg_targets(2))
    if case == "empty":
        return SolveIKPath.Request(chain=leg)
    if case == "too many":
        return SolveIKPath.Request(chain=leg, targets=leg_targets(MAX_PATH_TARGETS + 1))
    if case == "unknown frame":
        return SolveIKPath.Request(chain=leg, targets=[pose_stamped(np.eye(4), "l_elbow_nowhere")])
    request = SolveIKPath.Request(chain=leg, targets=leg_targets(3))
    if case == "NaN position":
        return _with(request, 1, position=(0.0, math.nan, 0.0))
    if case == "NaN quaternion":
        return _with(request, 2, orientation=(math.nan,) * 4)
    if case == "zero quaternion":
        return _with(request, 0, orientation=(0.0,) * 4)
    request.seed = JointState(name=["l_knee"], position=[math.nan])  # "NaN seed"
    return request


HOSTILE = {  # case → words its refusal must contain
    "unknown chain": ("unknown chain 'nose'", "left_leg"),
    "empty": ("0 targets", f"1 to {MAX_PATH_TARGETS}"),
    "too many": (f"{MAX_PATH_TARGETS + 1} targets", f"1 to {MAX_PATH_TARGETS}"),
    "unknown frame": ("targets[0]", "l_elbow_nowhere"),
    "NaN position": ("targets[1]", "NaN", "finite"),
    "NaN quaternion": ("targets[2]", "NaN", "unit quaternion"),
    "zero quaternion": ("targets[0]", "zero quaternion"),
    "NaN seed": ("seed", "finite"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_bad_request_is_refused_with_a_reason_and_the_node_answers_on(ik, case):
    answer = ik.call_path(hostile_request(case))
    assert not answer.success and not answer.solutions, answer.message
    for word in HOSTILE[case]:
        assert word in answer.message, (word, answer.message)
    after = ik.call_path(SolveIKPath.Request(chain="left_leg", targets=leg_targets(2)))
    assert after.success, after.message
    single = ik.call(SolveIK.Request(chain="left_leg", target=leg_targets(1)[0]))
    assert single.success, single.message


def test_a_seed_beyond_the_limits_is_clipped_as_solve_ik_clips_it_and_the_answer_says_so(ik):
    """Issue 22.12: a seed of 1e308 was judged as it came (the first row 'moves 1e+308 from the
    previous row'); it is clipped into the limits, as the solvers clip seeds, for both services."""
    request = SolveIKPath.Request(chain="left_leg", targets=leg_targets(3))
    request.seed = JointState(name=["l_knee"], position=[1e308])
    answer = ik.call_path(request)
    assert answer.success and "1e+308 from the previous row" not in answer.message, answer.message
    assert "seed clipped into the joint limits" in answer.message and "l_knee 1e+308" in answer.message
    single = ik.call(SolveIK.Request(chain="left_leg", target=leg_targets(1)[0], seed=request.seed))
    assert single.success and "seed clipped into the joint limits" in single.message, single.message
