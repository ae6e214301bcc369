"""``ik_demo --servo-bus dynamixel|feetech``: the demo with a servo bus between ik_node and MuJoCo.

ik_node -> joint_commands -> servo_bridge -> serial bytes (Sync Write) -> servo_bus_emulator ->
servo_bus/goals -> sim_node (MuJoCo) -> sim/joint_states -> emulator -> serial bytes (Sync Read) ->
servo_bridge -> /joint_states. The emulated bus paces its bytes at 1 Mbit/s. The bridge writes a
summary of its run (rate, errors) at shutdown; it becomes the ``servo_bus`` section of results.json.

Fixed base (``--fixed-base``): sim_node follows the wall clock, its commands remapped to the
goals. Free-standing (the walk, :func:`walk_sim_parameters`): sim_node runs lock-stepped, one
period per bus write once ik_node has answered the period (its ``bus_goals`` parameter), and
everything but the bus's paced cycle on the simulated clock; the walk's log takes the simulator's
own joint states (``sim/joint_states``, paired with its base pose by stamp), and
:mod:`ik_solvers.demo.bus_latency` measures how late the bus delivers the commands.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rclpy.node import Node
from rclpy.time import Time
from sensor_msgs.msg import JointState

from ik_solvers.demo.bus_latency import BusLatencyRecorder, bus_latency, format_latency
from ik_solvers.demo.processes import Children
from ik_solvers.hardware.emulator.sim_link import GOALS_TOPIC, SIM_STATES_TOPIC
from ik_solvers.resources import package_share_path

PROTOCOLS = ("dynamixel", "feetech")
# The bridge's bus thread asks for SCHED_FIFO, as on a robot: on a busy machine its cycles came up
# to 1.3 s apart (ordinary scheduling), past the servos' watchdog; refused without the right, logged.
# The emulator's bus loop too: servos answer in hardware time, not when a core is free.
BUS_THREAD_PRIORITY = 50
# [s] for the emulator's pty to appear; a failure bound only: at load 17-19 the emulator's start-up
# (rclpy, the sim link) once took 22.8 s, and the demo gave up at 20 s. The emulator opens it only
# once sim_node is connected (it gives up itself after SIM_TIMEOUT, saying why).
SIM_TIMEOUT = 60.0
PORT_TIMEOUT = SIM_TIMEOUT + 30.0
SIM_STATE_RATE = 100.0  # [Hz] sim_node's states, read by the emulator only (the bridge cycles at 100 Hz)
# The SDKs wait 2 x the USB adapter's latency timer + 2 ms for an answer (34 ms at the adapters'
# 16 ms). An emulated servo answers through a pseudo-terminal, with no adapter, but only once the
# scheduler runs its process: on a loaded machine that is the latency that matters, and answers
# 35-100 ms late were common. Each one taken for lost cost a timeout, a retry and a cycle.
# With 50 ms the SDK waits ~102 ms: timeouts in a demo run beside a CPU-bound neighbour fell from
# 69-113 to 12-32 (load 9-12; docs/hardware.md). A real adapter keeps the bridge's default.
EMULATED_LATENCY_MS = 50.0
# [s] walk_node's stabiliser.sample_age through the bus (10 ms without it). The stabiliser samples
# its joints and IMU as of this long before each tick, by their stamps, and needs the joints of
# that instant to have arrived: behind the simulator alone a period's state is there before the
# next period's tick, but the bus delivers it a bridge cycle later, and in 10-15 % of walk_node's
# ticks (--walk-only runs at load 10-17) the joints of 10 ms before had not come; it then took the
# newest, 20-30 ms old, and the inputs' age jumped from tick to tick (docs/hardware.md, "The walk
# through the bus: where its loop delay came from"). Still so with the emulator releasing a period
# only after a read's answers (7-11 % of the periods' readings came after the next state): with
# 10 ms the forward metre slipped 1.5-3.1 mm but 3 of 4 Dynamixel runs fell in the arms part; with
# 20 ms 2 of 4 (one Feetech), slipping 6.0-9.8 mm ("... the legs' answer, the readings' dates, the release").
BUS_SAMPLE_AGE = 0.02
# [s] walk_node's walk.torso_level_filter through the bus (none without it). With the loop delay
# above and positions in 4096 ticks (goals written and readings taken), the torso level's
# unfiltered feedback of the IMU's roll and pitch rocked the torso at 10-15 Hz (roll 0.15-0.37 deg
# RMS walking, 0.02-0.03 without the bus) and, once the arms rose, over (docs/hardware.md, "The
# walk through the bus: why the arms part fell"); the lean it corrects is far slower.
BUS_TORSO_LEVEL_FILTER = 0.05
# ik_node's answer to walk_node's target, published after the legs' command: behind the bus each
# period waits for it too (sim_node's lock_step_answer), else a write of a command made for an arm
# target, still holding the legs' answer to the period before, ran the period (ik_solvers.sim.lock_step)
WALK_ANSWER = "/whole_body/torso_pose"


def add_option(parser: argparse.ArgumentParser) -> None:
    """The ``--servo-bus`` option."""
    parser.add_argument(
        "--servo-bus",
        choices=PROTOCOLS,
        help="drive the simulator through servo_bridge and an emulated servo bus of this protocol "
        "(the walk, or the fixed-base programme with --fixed-base)",
    )


def sim_remaps(protocol: str | None) -> list[str]:
    """sim_node's remappings (commands from the emulated servos, its states to the emulator) and
    state rate."""
    if not protocol:
        return []
    remaps = ["-r", f"joint_commands:=/{GOALS_TOPIC}", "-r", f"/joint_states:=/{SIM_STATES_TOPIC}"]
    return [*remaps, "-p", f"publish_rate:={SIM_STATE_RATE!r}"]


def walk_sim_parameters(protocol: str | None) -> list[str]:
    """sim_node's arguments behind the bus in the free-standing demo (none without a bus): the
    servos follow the bus's goals; its states go to the emulator."""
    if not protocol:
        return []
    return [
        *("-p", f"bus_goals:=/{GOALS_TOPIC}", "-r", f"/joint_states:=/{SIM_STATES_TOPIC}"),
        *("-p", f"lock_step_answer:={WALK_ANSWER}"),
    ]


def walk_parameters(protocol: str | None) -> list[str]:
    """walk_node's arguments behind the bus (none without one): the stabiliser's sample age and
    torso level filter for the bus's loop delay and resolution."""
    if not protocol:
        return []
    return [
        *("-p", f"stabiliser.sample_age:={BUS_SAMPLE_AGE}"),
        *("-p", f"walk.torso_level_filter:={BUS_TORSO_LEVEL_FILTER}"),
    ]


def measured_states(protocol: str | None) -> str:
    """The topic of the simulator's joint states, which the walk's log pairs with its base pose."""
    return f"/{SIM_STATES_TOPIC}" if protocol else "/joint_states"


def start(children: Children, protocol: str, output: Path, sim_time: bool = False) -> Path:
    """Start the emulator (behind the simulator) and servo_bridge (on the simulated clock when
    ``sim_time``: its stamps are then the other nodes'); the path of the bridge's summary."""
    calibration = package_share_path("config", "servos", f"humanoid_{protocol}.yaml")
    port = output / "logs" / f"tty_{protocol}"
    stats = output / "logs" / "servo_bus.json"
    stats.unlink(missing_ok=True)
    emulator = ["--calibration", str(calibration), "--link", str(port)]
    emulator += ["--sim", "--sim-timeout", f"{SIM_TIMEOUT:g}"]
    children.start("servo_bus_emulator", *emulator, "--priority", str(BUS_THREAD_PRIORITY))
    deadline = time.monotonic() + PORT_TIMEOUT
    while not port.exists():
        children.check_running()
        if time.monotonic() > deadline:
            raise TimeoutError(f"servo_bus_emulator did not open {port} within {PORT_TIMEOUT:g} s")
        time.sleep(0.05)
    parameters = {"calibration": calibration, "port": port, "stats_file": stats}
    parameters["latency_timer_ms"] = EMULATED_LATENCY_MS
    parameters["thread_priority"] = BUS_THREAD_PRIORITY
    if sim_time:
        parameters["use_sim_time"] = "true"
    children.start(
        "servo_bridge", "--ros-args", *[a for k, v in parameters.items() for a in ("-p", f"{k}:={v}")]
    )
    return stats


def record_latency(node: Node, recorder: BusLatencyRecorder) -> None:
    """Subscribe ``node`` to ik_node's commands and the bus's goals, kept in ``recorder``."""

    def keep(into: list):
        def on_message(message: JointState) -> None:
            stamp = Time.from_msg(message.header.stamp).nanoseconds * 1e-9
            recorder.add(into, stamp, list(message.name), list(message.position))

        return on_message

    node.create_subscription(JointState, "/joint_commands", keep(recorder.commands), 100)
    node.create_subscription(JointState, f"/{GOALS_TOPIC}", keep(recorder.goals), 100)


def section(stats: Path) -> dict:
    """The ``servo_bus`` section of results.json from the bridge's summary (empty if it wrote none)."""
    return json.loads(stats.read_text()) if stats.is_file() else {}


def add_to_results(results: Path, summary: dict) -> None:
    """Add ``summary`` as ``servo_bus`` to results.json."""
    data = json.loads(results.read_text())
    data["servo_bus"] = summary
    results.write_text(json.dumps(data, indent=2, allow_nan=True))


def format_section(summary: dict) -> str:
    """One line for the printed table."""
    if not summary:
        return "servo bus: the bridge wrote no summary (see logs/servo_bridge.log)"
    return (
        f"servo bus: {summary['protocol']}, {summary['servos']} servos, {summary['cycle_hz']:.1f} Hz "
        f"read+write cycles, {summary['errors']} bus errors"
    )


class WalkBus:
    """The bus in the free-standing demo, or nothing when ``protocol`` is None (every method then
    does nothing): sim_node's and walk_node's arguments, the bus's processes, the latency recorder, the report.

    Args:
        protocol: ``dynamixel``, ``feetech`` or None.
        output: the demo's output folder.
        joints: the joints whose commands identify a goal (the legs').
        period: [s] of the lock-stepped simulation (walk_node's).
    """

    def __init__(self, protocol: str | None, output: Path, joints: list[str], period: float) -> None:
        self.protocol, self.output, self.period = protocol, output, period
        self.recorder = BusLatencyRecorder(joints)
        self.stats: Path | None = None
        self.sim_parameters = walk_sim_parameters(protocol)
        self.walk_parameters = walk_parameters(protocol)
        self.measured_states = measured_states(protocol)

    def start(self, children: Children) -> None:
        """Start the emulator and servo_bridge (after sim_node, before ik_node)."""
        if self.protocol:
            self.stats = start(children, self.protocol, self.output, sim_time=True)

    def attach(self, node: Node) -> None:
        """Record the commands and goals on the demo's walking node."""
        if self.protocol:
            record_latency(node, self.recorder)

    def report(self, results: dict) -> None:
        """Print the bus's line and its latency; add them to ``results`` as ``servo_bus``."""
        if not self.protocol:
            return
        summary = section(self.stats) | {"latency": bus_latency(self.recorder, self.period)}
        print(format_section(summary))
        print(format_latency(summary["latency"], self.period))
        results["servo_bus"] = summary
