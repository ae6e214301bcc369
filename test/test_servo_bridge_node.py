"""The servo_bridge node (real rclpy, its console script) against servo_bus_emulator over a real
pseudo-terminal, for both protocols: commands reach the goal registers, present positions come back
on /joint_states, each injected fault is reported on /diagnostics with the servo named while the
node keeps running and holds, and the bus recovers; torque off through the service and on shutdown.
"""

from __future__ import annotations

import math
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from ros_helpers import call_service, spin_until, wait_for_matching
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from ik_solvers.demo.processes import console_script
from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.emulator.client import EmulatorProcess

REPO_ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 15.0  # [s] generous deadline of every wait (never a timed assertion)


class Rig:
    """Emulator + servo_bridge process + a test node listening to joint_states and diagnostics."""

    def __init__(self, session, protocol: str, folder: Path) -> None:
        self.session = session
        path = REPO_ROOT / "config" / "servos" / f"humanoid_{protocol}.yaml"
        self.calibration = load_calibration(path)
        self.emulator = EmulatorProcess(
            ["--calibration", str(path), "--link", str(folder / "tty"), "--return-delay", "0"],
            folder / "emulator.log",
        )
        self.process = session.processes.start_console_script(
            "servo_bridge",
            "--ros-args",
            "-p",
            f"calibration:={path}",
            "-p",
            f"port:={self.emulator.port}",
        )
        self.node = session.make_node(f"servo_bridge_test_{protocol}")
        self.states: list[JointState] = []
        self.diagnostics: dict[str, DiagnosticStatus] = {}
        self.node.create_subscription(JointState, "/joint_states", self.states.append, 10)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 10)
        self.commands = self.node.create_publisher(JointState, "/joint_commands", 10)
        self.torque = self.node.create_client(SetBool, "/servo_bridge/set_torque")

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        self.diagnostics.update({status.name: status for status in msg.status})

    def spin_until(self, condition) -> bool:
        return spin_until(self.session.executor, condition, TIMEOUT)

    def log(self) -> str:
        return self.session.processes.output(self.process)

    def alive(self) -> bool:
        return self.process.poll() is None

    def status(self, suffix: str) -> DiagnosticStatus | None:
        return self.diagnostics.get(f"servo_bridge: {suffix}")

    def bus_value(self, key: str) -> str:
        status = self.status("bus")
        return {kv.key: kv.value for kv in status.values}.get(key, "") if status else ""

    def fresh_states(self, count: int = 5, servos: int = 26) -> bool:
        """Wait for ``count`` new joint_states messages, each with ``servos`` joints."""
        self.states.clear()
        return self.spin_until(lambda: sum(len(m.name) == servos for m in self.states) >= count)

    def bus_ok(self) -> bool:
        """Wait until the bus status says OK again."""
        self.diagnostics.clear()
        return self.spin_until(
            lambda: (s := self.status("bus")) is not None and s.level == DiagnosticStatus.OK
        )

    def command(self, targets: dict[str, float]) -> None:
        self.commands.publish(JointState(name=list(targets), position=list(targets.values())))


@pytest.fixture(scope="module", params=["dynamixel", "feetech"])
def rig(request, ros_module, tmp_path_factory):
    rig = Rig(ros_module, request.param, tmp_path_factory.mktemp(request.param))
    assert rig.spin_until(lambda: len(rig.states) > 0 or not rig.alive()), rig.log()
    assert rig.alive(), rig.log()
    assert wait_for_matching(ros_module.executor, rig.commands)
    yield rig
    rig.session.processes.stop(rig.process)
    rig.emulator.stop()


def test_present_positions_come_back_on_joint_states(rig):
    assert rig.fresh_states()
    message = rig.states[-1]
    knee = rig.calibration.by_id(4)
    measured = dict(zip(message.name, message.position))
    assert set(measured) == set(rig.calibration.joint_names)
    assert abs(measured["l_knee"] - knee.to_angle(round(rig.emulator.state()[4]["position"]))) < 0.01


def test_commands_reach_the_goal_registers(rig):
    targets = {"l_elbow": -0.3, "r_knee": 0.4, "l_wrist_roll": 0.2}
    joints = [rig.calibration.by_joint(name) for name in targets]
    expected = {j.servo_id: j.to_ticks(a) for j, a in zip(joints, targets.values())}
    rig.command(targets)
    assert rig.spin_until(lambda: {i: rig.emulator.state()[i]["goal"] for i in expected} == expected), (
        rig.log()
    )


@pytest.mark.parametrize("fault, kind", [("drop 3", "errors.timeout"), ("corrupt 3", "errors.corrupt")])
def test_dropped_and_corrupted_replies_are_counted_and_the_bus_recovers(rig, fault, kind):
    rig.emulator.command(fault)
    assert rig.spin_until(lambda: int(rig.bus_value(kind) or 0) >= 1), rig.diagnostics
    assert rig.alive() and rig.bus_ok() and rig.fresh_states()


def test_a_missing_servo_is_named_the_others_hold_and_it_comes_back(rig):
    elbow = rig.calibration.by_joint("l_elbow")
    before = rig.emulator.state()[elbow.servo_id]["goal"]
    rig.emulator.command("missing 4")
    knee = "l_knee (id 4)"
    assert rig.spin_until(lambda: (s := rig.status(knee)) is not None and s.level == DiagnosticStatus.ERROR)
    assert rig.fresh_states(count=2, servos=25), "the other servos' states stopped"
    rig.command({"l_elbow": elbow.to_angle(before) - 0.2})
    assert rig.fresh_states(count=3, servos=25)
    assert rig.emulator.state()[elbow.servo_id]["goal"] == before, "a goal moved while a servo was missing"
    rig.emulator.command("restore 4")
    assert rig.alive() and rig.bus_ok() and rig.fresh_states()
    rig.command({"l_elbow": elbow.to_angle(before) - 0.2})
    assert rig.spin_until(lambda: rig.emulator.state()[elbow.servo_id]["goal"] != before)


def test_a_hardware_error_is_reported_in_words_with_the_servo_named(rig):
    rig.emulator.command("error 9 32")  # overload
    name = "r_upper_leg (id 9)"
    assert rig.spin_until(lambda: (s := rig.status(name)) is not None and "overload" in s.message), (
        rig.diagnostics
    )
    assert rig.status(name).level == DiagnosticStatus.ERROR and rig.alive()
    rig.emulator.command("error 9 0")
    assert rig.bus_ok() and rig.fresh_states()


def test_a_vanished_port_is_reopened_without_a_restart(rig):
    rig.emulator.command("vanish 0.5")
    assert rig.spin_until(lambda: (s := rig.status("bus")) is not None and s.level == DiagnosticStatus.ERROR)
    assert "port lost" in rig.status("bus").message and rig.alive()
    assert rig.spin_until(lambda: int(rig.bus_value("port_reopens") or 0) >= 1), rig.log()
    assert int(rig.bus_value("errors.port")) >= 1
    assert rig.bus_ok(), (rig.status("bus"), rig.log())
    assert rig.fresh_states()
    assert rig.spin_until(lambda: "port reopened: servos brought up again" in rig.log()), rig.log()
    assert "port lost (" in rig.log()
    assert all(s["torque"] == 1 for s in rig.emulator.state().values())


def test_a_stalled_servo_is_reported_on_diagnostics_and_in_the_log_naming_it(rig):
    elbow = rig.calibration.by_joint("l_elbow")
    name = f"l_elbow (id {elbow.servo_id})"
    at = elbow.to_angle(round(rig.emulator.state()[elbow.servo_id]["position"]))
    rig.emulator.command(f"stall {elbow.servo_id}")  # a jammed joint: it answers, takes goals, stays
    rig.command({"l_elbow": at - 0.4})
    stuck = lambda: (
        (s := rig.status(name)) is not None and s.message.startswith("does not follow its goal: at")
    )
    assert rig.spin_until(stuck), rig.diagnostics
    assert rig.status(name).level == DiagnosticStatus.ERROR
    assert rig.status("bus").message.endswith(f"not following their goals: {name}")
    logged = lambda: [
        line for line in rig.log().splitlines() if f"{name} does not follow its goal: at" in line
    ]
    assert rig.spin_until(lambda: bool(logged())), rig.log()
    assert logged()[0].startswith("[ERROR]")
    rig.emulator.command(f"restore {elbow.servo_id}")
    assert rig.bus_ok() and rig.status(name).level == DiagnosticStatus.OK
    assert rig.spin_until(lambda: f"{name} follows its goal again" in rig.log()), rig.log()


def test_skipped_commands_are_logged_naming_them_at_most_once_a_second_under_a_flood(rig):
    long_name = "x" * 500
    start = time.monotonic()
    while time.monotonic() - start < 1.5:  # a flood: ~10 bad commands every 10 ms
        for _ in range(10):
            rig.commands.publish(JointState(name=[long_name, "l_knee"], position=[0.1, math.nan]))
        spin_until(rig.session.executor, lambda: False, 0.01)
    lines = lambda: [line for line in rig.log().splitlines() if "joint_commands: skipped" in line]
    assert rig.spin_until(lambda: any("more like it not logged" in line for line in lines())), rig.log()
    elapsed = time.monotonic() - start
    assert len(lines()) <= elapsed / 1.0 + 1, lines()  # at most one line a second (LOG_PERIOD)
    first = lines()[0]
    assert f"unknown joints '{'x' * 40}'; non-finite positions for 'l_knee' (used 0)" in first
    assert long_name not in rig.log() and rig.alive()


def test_the_torque_service_turns_every_servo_off_and_on(rig):
    assert rig.torque.wait_for_service(timeout_sec=TIMEOUT)
    for on in (False, True):
        response = call_service(rig.session.executor, rig.torque, SetBool.Request(data=on), TIMEOUT)
        assert response is not None and response.success, response
        assert {s["torque"] for s in rig.emulator.state().values()} == {int(on)}


def test_every_parameter_the_launch_file_sets_is_declared_by_the_node(rig):
    import ast

    from rcl_interfaces.srv import ListParameters

    tree = ast.parse((REPO_ROOT / "launch" / "servo_bridge.launch.py").read_text())
    bridge = next(n for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.targets[0].id == "bridge")
    names = {key.value for key in bridge.value.keys}
    client = rig.node.create_client(ListParameters, "/servo_bridge/list_parameters")
    assert client.wait_for_service(timeout_sec=TIMEOUT)
    response = call_service(rig.session.executor, client, ListParameters.Request(), TIMEOUT)
    assert response is not None
    assert names and names <= set(response.result.names)


def test_torque_goes_off_when_the_node_stops(rig):
    assert rig.session.processes.stop(rig.process) == 0, rig.log()
    assert {s["torque"] for s in rig.emulator.state().values()} == {0}


def broken_calibration(folder: Path, old: str, new: str) -> str:
    path = folder / "calibration.yaml"
    text = (REPO_ROOT / "config" / "servos" / "humanoid_dynamixel.yaml").read_text()
    path.write_text(text.replace(old, new, 1) if old else text + new)
    return f"calibration:={path}"


@pytest.mark.parametrize(
    "setting, refusal",
    [
        (
            lambda f: broken_calibration(f, "zero_ticks: 2033", "zero_ticks: .nan"),
            "l_knee: zero_ticks is nan",
        ),
        (
            lambda f: broken_calibration(f, "", "  l_knee: {id: 40, model: XM430-W350}\n"),
            "l_knee is listed twice (lines 12 and 35)",
        ),
        (lambda f: "rate:=0.0", "rate must be a positive finite number, not 0.0"),
        (lambda f: "rate:=fast", "Trying to set parameter 'rate' to 'fast'"),
        (lambda f: "bus_watchdog:=9.0", "bus_watchdog must be 0 (off) to 2.54 s"),
        (lambda f: "follow_tolerance:=-1.0", "follow_tolerance must be >= 0 rad"),
        (lambda f: "command_joints:=[l_knee, nope]", "command_joints names joints without a servo: ['nope']"),
        (
            lambda f: "thread_priority:=100",
            "thread_priority must be 0 (ordinary) to 99 (SCHED_FIFO), not 100",
        ),
    ],
    ids=["nan", "twice", "rate 0", "rate text", "watchdog", "tolerance", "command joints", "priority"],
)
def test_a_configuration_error_is_one_line_and_exit_code_1(setting, refusal, tmp_path):
    result = subprocess.run(
        [
            console_script("servo_bridge"),
            "--ros-args",
            "-p",
            setting(tmp_path),
            "-p",
            f"port:={tmp_path / 'none'}",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    printed = (result.stdout + result.stderr).strip()
    assert result.returncode == 1, printed
    assert "\n" not in printed and printed.startswith("servo_bridge: cannot start: "), printed
    assert refusal in printed, printed
