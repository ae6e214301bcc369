"""Every launch file in launch/ run for real, as ``ros2 launch`` runs it, with its arguments.

The package is built with colcon into a temporary workspace (the session's ``colcon_workspace``);
each launch file is taken from that workspace's ``install/`` and run by ``launch.LaunchService``
(test/ros_nodes/run_launch.py) with the vendored ``launch``, ``launch_ros`` and
``composition_interfaces`` (``../shared/vendor``, test tools only; absent there: the tests skip,
and fail under ``CI=true``). The test process talks to the launched nodes over real DDS: they
come up, answer a SolveIK call, turn a target into a command, and stop cleanly on Ctrl-C
(SIGINT to LaunchService, which passes it on). servo_bridge.launch.py runs against
servo_bus_emulator on a real pseudo-terminal. ros2_control.launch.py is not run (see NOT_RUN).
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("rclpy")

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, Twist
from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf
from ik_node_harness import pose_stamped, positions_of
from maker_humanoids import MakerSpec, maker_urdf
from ros_helpers import DEFAULT_TIMEOUT, call_service, spin_until, wait_for_matching
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from workspaces import VENDOR_MISSING, build_composition_interfaces, launch_environment, vendor_present

from ik_solvers import RobotModel
from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.emulator.client import EmulatorProcess
from ik_solvers.resources import package_share_path
from ik_solvers_interfaces.msg import WholeBodyTarget
from ik_solvers_interfaces.srv import SolveIK

pytestmark = [pytest.mark.colcon, pytest.mark.launch]

RUNNER = Path(__file__).resolve().parent / "ros_nodes" / "run_launch.py"
REPO_ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILES = sorted(p.name for p in (REPO_ROOT / "launch").glob("*.launch.py"))
START_TIMEOUT = 60.0  # [s] a node's start, with its kernels already compiled by colcon build
STOP_TIMEOUT = 30.0  # [s] LaunchService: SIGINT to the nodes, SIGTERM after 5 s
WALK_SPEED, WALK_SECONDS = 0.08, 6.0  # [m/s] forward command, [s] of simulated walking once stepping
FALL_DROP = 0.15  # [m] the root dropping further than this from where it stood is a fall
WALK_WALL_TIMEOUT = 120.0  # [s] of wall time for those simulated seconds (lock-step: a slow machine is slow)
PACKAGED = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
COVERED = (  # the files the tests below run
    "ik.launch.py",
    "hardware.launch.py",
    "sim.launch.py",
    "walk.launch.py",
    "servo_bridge.launch.py",
)
# Launch files deliberately not run here, and why. ros2_control.launch.py starts controller_manager's
# ros2_control_node and spawners, which come with ros2_control: not installable here (no wheels).
# It is checked statically instead: test_launch_files.py (it compiles, its ik_solvers executables are
# console scripts, the files it names exist and are installed) and test_ros2_control.py (it generates
# the <ros2_control> block and uses the controllers file).
NOT_RUN = {"ros2_control.launch.py": "needs ros2_control's controller_manager, not installable here"}


@pytest.fixture(scope="session")
def launch_env(colcon_workspace, tmp_path_factory) -> dict[str, str]:
    """Environment that runs the workspace's launch files (vendored launch, built interfaces)."""
    if not vendor_present():
        if os.environ.get("CI") == "true":
            pytest.fail(VENDOR_MISSING)
        pytest.skip(VENDOR_MISSING)
    assert colcon_workspace.returncode == 0, colcon_workspace.output
    prefix = build_composition_interfaces(REPO_ROOT / "build" / "test_vendor")
    return launch_environment(colcon_workspace.install, prefix)


class Launched:
    """One LaunchService process running an installed launch file with ``arguments``.

    It runs in a process group of its own: should it be killed, its nodes go with it.
    """

    def __init__(self, env: dict[str, str], install: Path, log: Path, name: str, **arguments: str) -> None:
        path = install / "ik_solvers" / "share" / "ik_solvers" / "launch" / name
        argv = [sys.executable, str(RUNNER), str(path), *(f"{k}:={v}" for k, v in arguments.items())]
        self.name, self.log = name, log
        with open(log, "wb") as output:
            self.process = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, executables: tuple[str, ...]) -> None:
        """Ctrl-C: SIGINT to the process group, as a terminal sends it (LaunchService then leaves
        the nodes to stop by themselves, escalating to SIGTERM after 5 s); assert LaunchService
        and every node in ``executables`` exit cleanly, on SIGINT alone."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            code = self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        output = self.output()
        assert code == 0, f"{self.name}: LaunchService exit code {code}\n{output}"
        for executable in executables:
            assert re.search(rf"\[{executable}-\d+\]: process has finished cleanly", output), (
                f"{executable} did not finish cleanly:\n{output}"
            )
        assert "Traceback" not in output and "escalating to 'SIGTERM'" not in output, output
        assert "compiling" not in output, f"the colcon install should have compiled the kernels:\n{output}"

    def kill(self) -> None:
        """Kill the whole process group if anything of it still runs."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def launch(launch_env, colcon_workspace, tmp_path):
    """``launch(name, **arguments) -> Launched``; whatever still runs after the test is killed."""
    started: list[Launched] = []

    def start(name: str, **arguments: str) -> Launched:
        log = tmp_path / f"launch-{len(started)}.log"
        started.append(Launched(launch_env, colcon_workspace.install, log, name, **arguments))
        return started[-1]

    yield start
    for launched in started:
        launched.kill()


def ready(session, launched: Launched, client) -> None:
    """Spin until ``client``'s service answers; fail with the launch output if it never does."""
    up = spin_until(
        session.executor, lambda: client.service_is_ready() or not launched.alive(), START_TIMEOUT
    )
    assert up and launched.alive(), f"{launched.name}: the node did not come up:\n{launched.output()}"


def call(session, client, request, launched: Launched):
    response = call_service(session.executor, client, request)
    assert response is not None, f"no answer:\n{launched.output()}"
    return response


def resend_until(session, publisher, message, condition, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Publish ``message`` (a list: each in turn) every spin until ``condition()``: a message sent
    before discovery has completed on the node's side is lost, even once the publisher counts the
    match. ik_node publishes a command only while it moves: resending one target whose command was
    lost on its way (ik_node's writer not yet matched to the listener) brings no new command;
    two targets in turn do."""
    turns = itertools.cycle(message if isinstance(message, list) else [message])

    def sent_and_met() -> bool:
        publisher.publish(next(turns))
        return condition()

    return wait_for_matching(session.executor, publisher) and spin_until(
        session.executor, sent_and_met, timeout
    )


def joint_states_counted(diagnostics: list[DiagnosticArray]) -> bool:
    """True once the ik_node's diagnostics count a /joint_states message."""
    for array in diagnostics:
        for status in array.status:
            if status.name.endswith(": joint_states") and int(
                {v.key: v.value for v in status.values}["messages"]
            ):
                return True
    return False


def leg_target(chain, knee: float = 0.6) -> np.ndarray:
    """(4, 4) sole pose of a slightly bent leg, in the chain's base frame (reachable by any robot)."""
    q = np.clip([0.05, 0.02, -knee / 2, knee, -knee / 2, -0.02], chain.lower, chain.upper)
    return chain.fk(q)


def leg_targets(chain) -> list:
    """Two PoseStamped targets of a slightly bent leg, to send in turn (see :func:`resend_until`)."""
    return [pose_stamped(leg_target(chain, knee)) for knee in (0.6, 0.5)]


def fk_error(chain, joint_state: JointState, target: np.ndarray) -> float:
    """Distance [m] between ``target`` and FK of the chain's positions in ``joint_state``."""
    q = positions_of(joint_state, chain.joint_names)
    return float(np.linalg.norm(chain.fk(q)[:3, 3] - target[:3, 3]))


def test_ik_launch_with_another_urdf_a_params_file_and_a_namespace(ros_module, launch, tmp_path):
    """The other URDF comes through a xacro that includes the file its argument names."""
    urdf = tmp_path / "long_legs.urdf"
    urdf.write_text(humanoid_urdf(HumanoidSpec(leg=LegDims(thigh=0.26, shank=0.23, w=0.03))))
    xacro = tmp_path / "variant.urdf.xacro"
    xacro.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="variant"><xacro:arg name="variant" '
        'default="none"/><xacro:include filename="$(arg variant)"/></robot>'
    )
    variant = RobotModel.from_urdf_file(urdf).chain("base_link", "l_sole")
    params = tmp_path / "params.yaml"
    node_parameters = {"chain_names": ["left_leg", "right_arm"], "max_velocity_fraction": 1.0}
    params.write_text(yaml.safe_dump({"/**/ik_node": {"ros__parameters": node_parameters}}))
    node = ros_module.make_node("ik_launch_client")
    solve = node.create_client(SolveIK, "/robot_a/solve_ik")
    commands: list[JointState] = []
    node.create_subscription(JointState, "/robot_a/joint_commands", commands.append, 100)
    target_publisher = node.create_publisher(
        type(pose_stamped(np.eye(4))), "/robot_a/left_leg/target_pose", 1
    )

    launched = launch(
        "ik.launch.py",
        urdf=str(xacro),
        xacro_args=f"variant:={urdf}",
        params=str(params),
        namespace="robot_a",
    )
    ready(ros_module, launched, solve)
    target = leg_target(variant)
    answer = call(ros_module, solve, SolveIK.Request(chain="left_leg", target=pose_stamped(target)), launched)
    assert answer.success, answer.message
    assert fk_error(variant, answer.solution, target) < 1e-6  # solved on the launched URDF
    assert fk_error(PACKAGED.chain("base_link", "l_sole"), answer.solution, target) > 1e-3
    refused = call(
        ros_module, solve, SolveIK.Request(chain="left_arm", target=pose_stamped(target)), launched
    )
    assert not refused.success and "valid chains: left_leg, right_arm" in refused.message

    assert resend_until(ros_module, target_publisher, leg_targets(variant), lambda: bool(commands))
    launched.stop(("ik_node",))


def test_hardware_launch_sends_commands_to_the_topic_and_the_controller(ros_module, launch):
    leg = PACKAGED.chain("base_link", "l_sole")
    node = ros_module.make_node("hardware_launch_client")
    commands: list[JointState] = []
    arrays: list[Float64MultiArray] = []
    node.create_subscription(JointState, "/servo_driver/joint_commands", commands.append, 100)
    node.create_subscription(Float64MultiArray, "/fwd/commands", arrays.append, 100)
    measured = node.create_publisher(JointState, "/joint_states", 10)
    target_publisher = node.create_publisher(type(pose_stamped(np.eye(4))), "left_leg/target_pose", 1)
    solve = node.create_client(SolveIK, "solve_ik")

    launched = launch(
        "hardware.launch.py",
        command_topic="/servo_driver/joint_commands",
        controller="fwd",
        max_velocity_fraction="1.0",
    )
    ready(ros_module, launched, solve)
    assert wait_for_matching(ros_module.executor, measured), launched.output()
    assert wait_for_matching(ros_module.executor, target_publisher), launched.output()
    state = JointState(name=list(PACKAGED.joints), position=[0.0] * len(PACKAGED.joints))
    # Every controller joint needs a measured position before the array goes out: measured first.
    diagnostics: list[DiagnosticArray] = []
    node.create_subscription(DiagnosticArray, "/diagnostics", diagnostics.append, 10)
    assert resend_until(ros_module, measured, state, lambda: joint_states_counted(diagnostics)), (
        launched.output()
    )
    answered = lambda: bool(commands) and bool(arrays)
    assert resend_until(ros_module, target_publisher, leg_targets(leg), answered), launched.output()
    assert positions_of(commands[-1], leg.joint_names) is not None
    assert all(np.isfinite(arrays[-1].data))
    launched.stop(("ik_node",))


def test_sim_launch_runs_the_node_and_the_simulator_together(ros_module, launch):
    leg = PACKAGED.chain("base_link", "l_sole")
    node = ros_module.make_node("sim_launch_client")
    states: list[JointState] = []
    commands: list[JointState] = []
    node.create_subscription(JointState, "/joint_states", states.append, 10)
    node.create_subscription(JointState, "joint_commands", commands.append, 10)
    target_publisher = node.create_publisher(type(pose_stamped(np.eye(4))), "left_leg/target_pose", 1)
    solve = node.create_client(SolveIK, "solve_ik")

    launched = launch("sim.launch.py", publish_rate="50.0")
    ready(ros_module, launched, solve)
    assert spin_until(ros_module.executor, lambda: bool(states), START_TIMEOUT), launched.output()
    target = leg_target(leg)
    answer = call(ros_module, solve, SolveIK.Request(chain="left_leg", target=pose_stamped(target)), launched)
    assert answer.success, answer.message
    # The simulator follows the node's commands: its measured sole comes near the target.
    near = lambda: fk_error(leg, states[-1], target) < 0.01
    # in turn with a target a few mm away, so that ik_node keeps commanding (see resend_until)
    beside = pose_stamped(leg_target(leg, knee=0.59))
    assert resend_until(ros_module, target_publisher, [pose_stamped(target), beside], near, 20.0), (
        f"{fk_error(leg, states[-1], target)} m off; {len(commands)} commands, the last "
        f"{fk_error(leg, commands[-1], target) if commands else None} m off\n{launched.output()}"
    )
    launched.stop(("ik_node", "sim_node"))


def test_servo_bridge_launch_on_the_emulated_bus(ros_module, launch, tmp_path):
    calibration_file = REPO_ROOT / "config" / "servos" / "humanoid_dynamixel.yaml"
    calibration = load_calibration(calibration_file)
    leg = PACKAGED.chain("base_link", "l_sole")
    node = ros_module.make_node("servo_bridge_launch_client")
    states: list[JointState] = []
    node.create_subscription(JointState, "/joint_states", states.append, 10)
    commands: list[JointState] = []  # what ik_node sent, and the bridge's diagnostics: for a failure's report
    node.create_subscription(JointState, "joint_commands", commands.append, 10)
    diagnostics: list[DiagnosticArray] = []
    node.create_subscription(DiagnosticArray, "/diagnostics", diagnostics.append, 10)
    target_publisher = node.create_publisher(type(pose_stamped(np.eye(4))), "left_leg/target_pose", 1)
    solve = node.create_client(SolveIK, "solve_ik")
    emulator = EmulatorProcess(
        ["--calibration", str(calibration_file), "--link", str(tmp_path / "tty"), "--return-delay", "0"],
        tmp_path / "emulator.log",
    )
    try:
        launched = launch(
            "servo_bridge.launch.py",
            calibration=str(calibration_file),
            port=emulator.port,
            max_velocity_fraction="1.0",
        )
        ready(ros_module, launched, solve)
        every_joint = lambda: bool(states) and set(states[-1].name) == set(calibration.joint_names)
        assert spin_until(ros_module.executor, every_joint, START_TIMEOUT), launched.output()
        # ik_node's joint_commands reach the servos' goal registers through the bridge.
        knee = calibration.by_joint("l_knee").servo_id
        before = emulator.state()[knee]["goal"]
        moved = lambda: emulator.state()[knee]["goal"] != before
        assert resend_until(ros_module, target_publisher, leg_targets(leg), moved), (
            f"{launched.output()}\n{bridge_report(commands, diagnostics, emulator.state()[knee])}"
        )
        launched.stop(("servo_bridge", "ik_node"))
    finally:
        emulator.stop()


def bridge_report(commands: list[JointState], diagnostics: list[DiagnosticArray], knee: dict) -> str:
    """What the bridge was told and said, for a failure's message: ik_node's commands of l_knee,
    the bridge's last bus status, and the knee servo's registers."""
    knee_commands = [dict(zip(m.name, m.position)).get("l_knee") for m in commands]
    bus = [s for array in diagnostics for s in array.status if s.name == "servo_bridge: bus"]
    last = f"{bus[-1].message} {[(v.key, v.value) for v in bus[-1].values]}" if bus else "none"
    return (
        f"joint_commands received: {len(commands)}, l_knee in the last ones: {knee_commands[-3:]}\n"
        f"servo_bridge bus status: {last}\nl_knee servo: {knee}"
    )


MAKER = MakerSpec(arm_joints=5, root_on_floor=True)
WALKERS = {  # robot → its URDF XML and a leg's joints (what ik_node must command)
    "packaged": (
        package_share_path("urdf", "humanoid.urdf").read_text,
        PACKAGED.chain("base_link", "l_sole"),
    ),
    # no base_link, no sole frames, the root a frame on the floor below the feet, 5-joint arms, a head
    "maker_root_on_floor": (
        lambda: maker_urdf(MAKER),
        RobotModel.from_urdf_string(maker_urdf(MAKER)).chain("pelvis", "l_foot"),
    ),
}


@pytest.mark.parametrize("robot", list(WALKERS))
def test_walk_launch_walks_the_simulated_robot_on_cmd_vel(ros_module, launch, tmp_path, robot):
    """cmd_vel → walk_node → ik_node → sim_node (lock-stepped, simulated time): the free-standing
    robot steps forward without falling, judged from the simulator's base pose; on the packaged
    humanoid and on a maker's (``urdf:=``, with the packaged parameter files)."""
    urdf, leg = WALKERS[robot]
    path = tmp_path / f"{robot}.urdf"
    path.write_text(urdf())
    node = ros_module.make_node("walk_launch_client")
    targets: list[WholeBodyTarget] = []
    commands: list[JointState] = []
    bases: list[PoseStamped] = []
    node.create_subscription(WholeBodyTarget, "whole_body/target", targets.append, 1000)
    node.create_subscription(JointState, "joint_commands", commands.append, 100)
    node.create_subscription(PoseStamped, "/sim_node/base_pose", bases.append, 100)
    cmd_vel = node.create_publisher(Twist, "cmd_vel", 10)

    launched = launch("walk.launch.py", urdf=str(path))
    # walk_node's standing targets reach ik_node, which solves the stance into joint commands.
    up = lambda: (bool(commands) and bool(bases)) or not launched.alive()
    assert spin_until(ros_module.executor, up, START_TIMEOUT) and launched.alive(), launched.output()
    assert set(leg.joint_names) <= set(commands[-1].name)
    forward = Twist()
    forward.linear.x = WALK_SPEED
    stepping = lambda: any(t.support != WholeBodyTarget.SUPPORT_DOUBLE for t in targets)
    assert resend_until(ros_module, cmd_vel, forward, stepping, 30.0), launched.output()
    start = bases[-1]
    walked = lambda: seconds(bases[-1]) - seconds(start) >= WALK_SECONDS or not launched.alive()
    assert resend_until(ros_module, cmd_vel, forward, walked, WALK_WALL_TIMEOUT), launched.output()
    heights = [base.pose.position.z for base in bases]  # the root's: on the maker's, below the floor
    assert heights[0] - min(heights) < FALL_DROP, (
        f"fell: root from {heights[0]:.3f} m down to {min(heights):.3f} m"
    )
    advanced = bases[-1].pose.position.x - start.pose.position.x
    assert advanced > 0.3 * WALK_SPEED * WALK_SECONDS, f"{advanced:.3f} m in {WALK_SECONDS} s simulated"
    assert all(np.isfinite(commands[-1].position))
    launched.stop(("walk_node", "ik_node", "sim_node"))


def seconds(message: PoseStamped) -> float:
    return message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec


def test_every_launch_file_has_a_run_test_above():
    assert not set(COVERED) & set(NOT_RUN)
    assert set(LAUNCH_FILES) == set(COVERED) | set(NOT_RUN), (
        "a launch file without a test that runs it (nor a documented reason in NOT_RUN), or a stale name"
    )
