"""servo_bridge: joint commands in, servo bus out, /joint_states and /diagnostics back.

    servo_bridge --ros-args -p calibration:=config/servos/humanoid_dynamixel.yaml -p port:=/dev/ttyUSB0

Subscriptions: ``joint_commands`` (sensor_msgs/JointState, by name), ``~/commands``
(std_msgs/Float64MultiArray in ``command_joints`` order, a forward controller's shape),
``~/joint_trajectory`` (trajectory_msgs/JointTrajectory: its last point). Publications:
``joint_states`` (what the servos answered, each cycle), ``/diagnostics`` (1 Hz, and at once
when a servo's or the port's condition changes). Service ``~/set_torque`` (std_srvs/SetBool).
Parameters: see :func:`declare`. The bus logic is :class:`~ik_solvers.hardware.bridge.ServoBridge`;
this node only moves messages, and logs what the bridge skipped or saw change (throttled: at most
one line a second of each kind).

Threads: the bus cycle runs on a thread of its own at ``rate`` Hz on a deadline schedule
(:class:`~ik_solvers.hardware.paced_loop.PacedLoop`; missed cycles are caught up in bursts of at
most CATCH_UP back to back), and publishes ``joint_states``,
``/diagnostics`` and the log lines from there; the executor's thread only hands commands to the
bridge (under its command lock) and serves ``~/set_torque`` (under the bus lock, between two
cycles). Subscriptions and services never delay a cycle, and a cycle never waits for the executor.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool
from trajectory_msgs.msg import JointTrajectory

from ik_solvers.hardware.bridge import ServoBridge, StartupError
from ik_solvers.hardware.bridge_config import BridgeConfig, CommandUse, JointReading
from ik_solvers.hardware.bus import BusError
from ik_solvers.hardware.bus_backends import make_bus
from ik_solvers.hardware.calibration import CalibrationError, load_calibration, urdf_limits
from ik_solvers.hardware.follow_monitor import FollowLimits
from ik_solvers.hardware.goal_stepper import limb_chains
from ik_solvers.hardware.paced_loop import PacedLoop, take_fifo_priority
from ik_solvers.hardware.reading_dates import ReadingDates
from ik_solvers.hardware.servo_diagnostics import bus_status, servo_status
from ik_solvers.model import ModelError, RobotModel
from ik_solvers.node import stop_signals
from ik_solvers.node.executable import build_node
from ik_solvers.node.throttled_log import ThrottledLog
from ik_solvers.resources import package_share_path

LATEST_ONLY = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE)
DIAGNOSTICS_PERIOD = 1.0  # [s]
LOG_PERIOD = 1.0  # [s] at most one log line of each kind in this time
NAMES_LOGGED = 5  # names quoted in a log line, each cut to NAME_CHARS
NAME_CHARS = 40
# The executor's thread must not keep the bus thread waiting for the interpreter lock (default 5 ms,
# half a cycle), as in the emulator's sim link.
SWITCH_INTERVAL = 0.0002  # [s]
# Most cycles in a burst that catches up missed ones (PacedLoop): a cycle of 26 Dynamixel servos
# takes ~6.6 ms of the 10 ms period (141-152 Hz flat out), so 25 back to back make up a lag of
# ~85 ms; slower cycles (a loaded machine) make up less, and a lag they cannot is dropped. The
# demo's bus lost 0.3 % of its cycles (99.7 Hz mean) to lags of 17-53 ms, dropped once a period long.
CATCH_UP = 25


def declare(node: Node) -> dict:
    """Declare the node's parameters (defaults: the packaged humanoid on Dynamixel); their values."""
    urdf = package_share_path("urdf", "humanoid.urdf")
    defaults = {
        "calibration": str(package_share_path("config", "servos", "humanoid_dynamixel.yaml")),
        "robot_description": urdf.read_text() if urdf.is_file() else "",
        "port": "",  # "" = the calibration file's
        "baud_rate": 0,  # 0 = the calibration file's [bit/s]
        "rate": BridgeConfig.rate_hz,  # [Hz]
        "command_timeout": BridgeConfig.command_timeout,  # [s]
        "velocity_scale": BridgeConfig.velocity_scale,
        "bus_watchdog": BridgeConfig.bus_watchdog,  # [s], 0 = off
        "torque_off_on_shutdown": BridgeConfig.torque_off_on_shutdown,
        "follow_tolerance": FollowLimits.tolerance,  # [rad], 0 = no check
        "follow_time": FollowLimits.time,  # [s]
        "stall_time": BridgeConfig.stall_time,  # [s] no servo answering this long: reported
        "fast_sync_read": True,
        "latency_timer_ms": 16.0,  # [ms] USB adapter latency the SDK adds to timeouts
        "command_joints": [""],  # Float64MultiArray order; [""] = the calibration's order
        "stats_file": "",  # JSON summary of the run written at shutdown ("" = none)
        "thread_priority": 0,  # the bus thread's SCHED_FIFO priority 1-99; 0 = ordinary scheduling
    }
    return {name: node.declare_parameter(name, value).value for name, value in defaults.items()}


class ServoBridgeNode(Node):
    """Runs a :class:`ServoBridge` at ``rate`` Hz (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__("servo_bridge")
        self.log = ThrottledLog(self.get_logger(), LOG_PERIOD)  # the bus thread's
        self.command_log = ThrottledLog(self.get_logger(), LOG_PERIOD)  # the executor's
        p = declare(self)
        config = BridgeConfig(
            rate_hz=p["rate"],
            command_timeout=p["command_timeout"],
            velocity_scale=p["velocity_scale"],
            bus_watchdog=p["bus_watchdog"],
            torque_off_on_shutdown=p["torque_off_on_shutdown"],
            follow=FollowLimits(p["follow_tolerance"], p["follow_time"]),
            stall_time=p["stall_time"],
        )
        # made (and its priority checked) before the port opens; started once the node is ready
        try:
            self.loop = PacedLoop(
                1.0 / config.rate_hz,
                self.on_cycle,
                self.on_loop_error,
                "servo bus",
                priority=p["thread_priority"],
                catch_up=CATCH_UP,
            )
        except ValueError as error:
            raise ValueError(f"thread_{error}") from None  # "thread_priority must be …"
        calibration = load_calibration(p["calibration"])
        model = RobotModel.from_urdf_string(p["robot_description"])
        limits = urdf_limits(model)
        calibration.check_against_limits({name: lim[:2] for name, lim in limits.items()})
        port = p["port"] or calibration.port
        self.port_name = port
        bus = make_bus(
            calibration.protocol,
            port,
            p["baud_rate"] or calibration.baud_rate,
            latency_timer_ms=p["latency_timer_ms"],
            fast_sync_read=p["fast_sync_read"],
        )
        velocities = {n: lim[2] for n, lim in limits.items()}
        self.bridge = ServoBridge(calibration, bus, velocities, config, limb_chains(model))
        if self.get_parameter("use_sim_time").value:  # simulated servos: followed in simulated time
            self.bridge.servo_clock = lambda: self.get_clock().now().nanoseconds * 1e-9
        self.bridge.read_clock = self.get_clock().now  # the stamp of each reading (see _joint_state)
        self.dates = ReadingDates()  # readings a lock-stepped simulated clock cannot date are left out
        self.efforts = {n: lim[3] for n, lim in limits.items()}
        self.command_joints = [j for j in p["command_joints"] if j] or list(calibration.joint_names)
        unknown = sorted(set(self.command_joints) - set(calibration.joint_names))
        if unknown:
            raise CalibrationError(
                f"command_joints names joints without a servo: {unknown}; the calibration's: "
                f"{', '.join(calibration.joint_names)}"
            )
        self.stats_file = p["stats_file"]
        self.bridge.start(time.monotonic())
        self.get_logger().info(
            f"{len(calibration.joints)} {calibration.protocol} servos on {port}, torque on, {p['rate']:.0f} Hz"
        )
        self.states = self.create_publisher(JointState, "joint_states", 10)
        self.diagnostics = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_subscription(JointState, "joint_commands", self.on_joint_state, LATEST_ONLY)
        self.create_subscription(Float64MultiArray, "~/commands", self.on_array, LATEST_ONLY)
        self.create_subscription(JointTrajectory, "~/joint_trajectory", self.on_trajectory, LATEST_ONLY)
        self.create_service(SetBool, "~/set_torque", self.on_set_torque)
        self.condition = (True, True, ())
        self.next_diagnostics = 0.0  # [s] when the bus thread publishes /diagnostics next
        self.bus_lock = threading.Lock()  # one bus transaction at a time: the cycle or the service
        self.create_timer(LOG_PERIOD, self.command_log.flush)
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.loop.start()
        if p["thread_priority"]:  # the executor's thread too: it takes the interpreter lock the bus
            # thread needs, and preempted while holding it, it held cycles up 0.6-0.9 s at load 14
            take_fifo_priority(p["thread_priority"])
        self.get_logger().info(f"the bus thread runs with {self.loop.scheduling} scheduling")

    # -- commands ---------------------------------------------------------------------------------
    def on_joint_state(self, msg: JointState) -> None:
        """Joint targets by name [rad]."""
        self._command("joint_commands", list(msg.name), list(msg.position))

    def on_array(self, msg: Float64MultiArray) -> None:
        """Joint targets [rad] in ``command_joints`` order."""
        self._command("~/commands", self.command_joints, list(msg.data))

    def on_trajectory(self, msg: JointTrajectory) -> None:
        """The last point of a trajectory as the target (the bridge limits the velocity itself)."""
        if msg.points:
            self._command("~/joint_trajectory", list(msg.joint_names), list(msg.points[-1].positions))

    def _command(self, topic: str, names: list[str], positions: list[float]) -> None:
        """Hand a command to the bridge; log (throttled) what it skipped."""
        use = self.bridge.set_command(names, positions)
        if use.skipped:
            self.command_log(f"skipped {topic}", "warning", f"{topic}: {skipped_text(use)}")

    def on_set_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        """Enable (holding where the servos are) or disable torque on every servo, between two cycles."""
        try:
            with self.bus_lock:
                self.bridge.set_torque(request.data)
        except BusError as error:
            response.success, response.message = False, str(error)
            return response
        response.success, response.message = True, f"torque {'on' if request.data else 'off'}"
        return response

    # -- cycle and reports --------------------------------------------------------------------------
    def on_cycle(self, now: float) -> None:
        """One bus cycle started at ``now`` [s] (the bus thread); publish what the servos answered,
        the log lines, and the diagnostics every DIAGNOSTICS_PERIOD and at once when the bus or a
        servo changed between healthy and troubled."""
        with self.bus_lock:
            reading = self.bridge.cycle(now)
        if reading is not None and self.dates.dated(reading.read_at.nanoseconds, reading.positions):
            self.states.publish(self._joint_state(reading))
        health = self.bridge.health
        while health.events:
            event = health.events.popleft()
            self.log(event.key, event.level, event.text)
        self.log.flush()
        troubled = [s.servo_id for s in health.troubled() + health.not_following()]
        condition = (health.port_open, health.stalled_since is None, tuple(troubled))
        if condition != self.condition or now >= self.next_diagnostics:
            self.condition = condition
            self.next_diagnostics = now + DIAGNOSTICS_PERIOD
            self.on_diagnostics()

    def on_loop_error(self, error: BaseException) -> None:
        """A bus cycle raised: log it and stop the node (main raises it again, exit code 1)."""
        self.get_logger().error(f"the bus cycle failed, stopping: {error!r}")
        stop_signals.request_stop()

    def _joint_state(self, reading: JointReading) -> JointState:
        """The servos' answer, stamped with the node's clock read just before the cycle's read was
        sent, after its write: the instant the positions are from (on hardware, the read follows
        within a millisecond). Behind a lock-stepped simulator a write releases the next period,
        whose clock can reach the node before the read's answer while the servos answered from the
        state before: a stamp taken after the cycle was one period (10 ms) too new in 35 % of the
        readings of a walk; one taken at the cycle's start, before its write, one period too old in
        12.6 % of those walk_node keeps (a period released by the cycle before ran during the
        write). Either is a jitter walk_node's stabiliser reads as motion (docs/hardware.md)."""
        msg = JointState(name=reading.names, position=reading.positions, velocity=reading.velocities)
        msg.effort = [load * self.efforts[name] for name, load in zip(reading.names, reading.loads)]
        msg.header.stamp = reading.read_at.to_msg()
        return msg

    def on_diagnostics(self) -> None:
        """Publish the bus status and one status per servo."""
        health = self.bridge.health
        statuses = [bus_status(self.get_name(), self.bridge.calibration.protocol, self.port_name, health)]
        statuses += [servo_status(self.get_name(), servo) for servo in health.servos.values()]
        array = DiagnosticArray(status=statuses)
        array.header.stamp = self.get_clock().now().to_msg()
        self.diagnostics.publish(array)

    def write_stats(self) -> None:
        """The run's summary as JSON in ``stats_file`` (when set): protocol, servos and BusHealth's."""
        if self.stats_file:
            summary = {"protocol": self.bridge.calibration.protocol, "servos": len(self.bridge.ids)}
            summary |= self.bridge.health.summary()
            summary |= {"overruns": self.loop.overruns, "dropped": self.loop.dropped}
            Path(self.stats_file).write_text(json.dumps(summary))


def one_line(text: str) -> str:
    """A multi-line refusal (a heading and indented items) on one line: items joined by '; '."""
    return re.sub(r"\n\s*", "; ", re.sub(r":\n\s*", ": ", text.strip()))


def skipped_text(use: CommandUse) -> str:
    """What a command lost, in words: names quoted (at most NAMES_LOGGED, each cut short)."""
    parts = []
    for what, names in (("unknown joints", use.unknown), ("non-finite positions for", use.not_finite)):
        if names:
            quoted = ", ".join(repr(n[:NAME_CHARS]) for n in names[:NAMES_LOGGED])
            more = f" and {len(names) - NAMES_LOGGED} more" if len(names) > NAMES_LOGGED else ""
            parts.append(f"{what} {quoted}{more}")
    if use.unnamed:
        parts.append(f"{use.unnamed} positions without a joint name")
    return f"skipped {'; '.join(parts)} (used {use.used})"


def main(args: list[str] | None = None) -> int:
    """Run the bridge until SIGINT/SIGTERM, then torque off; 1 when it cannot start (reason on stderr)."""
    stop_signals.install()
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = build_node(ServoBridgeNode)  # a failed start leaves no half-built node
            except (StartupError, ModelError, BusError, OSError, ValueError, ParameterException) as error:
                print(f"servo_bridge: cannot start: {one_line(str(error))}", file=sys.stderr)
                return 1
            try:
                stop_signals.spin_until_stopped(node)
            finally:
                node.loop.stop()  # no cycle after this: nothing counted while the bus goes away
                node.write_stats()  # before the torque-off writes, which may meet a bus already gone
                node.bridge.shutdown()
            if node.loop.error is not None:
                raise node.loop.error
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
