"""The free-standing demo's first part over real DDS: posture phases, then walking on cmd_vel.

The demo's node sends ``whole_body/target`` (WholeBodyTarget) to ik_node for the posture phases
(:class:`~ik_solvers.demo.walk_timeline.PostureTimeline`), then starts ``walk_node`` and sends it
``cmd_vel`` (:func:`~ik_solvers.demo.walk_timeline.walk_commands`, repeated at 10 Hz). It records
into a :class:`~ik_solvers.walk.walk_log.WalkLog` every whole-body target on the topic (its own,
then walk_node's: the plan), walk_node's planned ZMP, and the simulator's base pose with the joint
state of the same tick (the measurement). The node runs on the simulator's ``/clock``
(``use_sim_time``; the simulator is lock-stepped): times are simulated seconds since the start of
the posture phases (in the log: the stamps of what it records), and the phases and commands last
their durations in simulated time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import rclpy
from geometry_msgs.msg import PointStamped, PoseStamped, Twist
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64

from ik_solvers.demo.run import TICK_ROUNDING, next_tick_offset
from ik_solvers.demo.walk_timeline import PostureTimeline, WalkCommand
from ik_solvers.node.clock import node_seconds
from ik_solvers.node.messages import pose_to_matrix
from ik_solvers.walk import walk_metrics as wm
from ik_solvers.walk.messages import pose_message
from ik_solvers.walk.walk_log import SUPPORT_CODES, WalkLog
from ik_solvers_interfaces.msg import WholeBodyTarget

RATE = 100.0  # [Hz] of the demo's own whole-body targets
COMMAND_RATE = 10.0  # [Hz] of cmd_vel
READY_TIMEOUT = 30.0  # [s]
SUPPORT_NAMES = {code: name for name, code in SUPPORT_CODES.items()}
WORLD = "odom"
PREROLL = 3.0  # [s] from standing straight to the stance (the simulator starts with straight legs)
START_DROP = 0.0005  # [m] the first stance target below the standing torso (straight knees cannot
# lower at all: a drop d bends them by about 2·sqrt(d / leg length) at once; 2 mm (0.2 rad within
# 40 ms at the velocity limit) made the soft legs of realistic servos hop and the soles slide 5.8 mm)


@dataclass
class WalkRun:
    """What the run produced: the log, when each named stretch began and ended [s], RTF reports."""

    log: WalkLog
    stretches: list[tuple[str, float, float]] = field(default_factory=list)
    real_time_factors: list[float] = field(default_factory=list)
    zmp: list[tuple[float, float, float]] = field(default_factory=list)  # (t, x, y) planned ZMP
    wall_time: float = 0.0

    def stretch(self, name: str) -> tuple[float, float]:
        """(start, end) [s] of the first stretch called ``name``."""
        return next((start, end) for n, start, end in self.stretches if n == name)


class WalkDemoNode(Node):
    """Sends posture targets and cmd_vel; records targets, planned ZMP, base poses, joint states."""

    def __init__(self, log: WalkLog, run: WalkRun, measured_states: str = "/joint_states") -> None:
        super().__init__("ik_demo_walk", parameter_overrides=[Parameter("use_sim_time", value=True)])
        self.log, self.run = log, run
        self.start = node_seconds(self)
        self.positions: dict[str, float] = {}  # the latest joint positions [rad]
        self.samples: dict[int, dict] = {}  # stamp [ns] → the halves of a simulator sample that came
        self.target_publisher = self.create_publisher(WholeBodyTarget, "whole_body/target", 10)
        self.command_publisher = self.create_publisher(Twist, "cmd_vel", 10)
        self.create_subscription(WholeBodyTarget, "whole_body/target", self.on_target, 100)
        self.create_subscription(PointStamped, "/walk_node/zmp", self.on_zmp, 100)
        self.create_subscription(JointState, measured_states, self.on_joint_states, 100)
        self.create_subscription(PoseStamped, "/sim_node/base_pose", self.on_base_pose, 100)
        self.create_subscription(Float64, "/sim_node/real_time_factor", self.on_rtf, 10)
        self.last_zmp: np.ndarray | None = None
        self.sent = self.received = 0  # whole-body targets sent by this node, and seen on the topic

    def now(self) -> float:
        """[s] of simulated time since the node started."""
        return node_seconds(self) - self.start

    def since_start(self, stamp) -> float:
        """[s] of simulated time from the node's start to ``stamp`` (builtin_interfaces/Time). The
        log's times are the messages' stamps, not when this node took them: on a loaded machine it
        takes them late and in bursts (up to 280 ms after their stamps at load 20), and a sample
        then met the support of a later plan instant."""
        return stamp.sec + 1e-9 * stamp.nanosec - self.start

    def on_target(self, message: WholeBodyTarget) -> None:
        self.received += 1
        com = np.array([message.com_target.x, message.com_target.y])
        zmp = com if self.last_zmp is None else self.last_zmp
        left, right = pose_to_matrix(message.left_sole), pose_to_matrix(message.right_sole)
        self.log.add_plan(
            self.since_start(message.header.stamp), SUPPORT_NAMES[message.support], left, right, com, zmp
        )

    def on_zmp(self, message: PointStamped) -> None:
        self.last_zmp = np.array([message.point.x, message.point.y])
        self.run.zmp.append((self.since_start(message.header.stamp), message.point.x, message.point.y))

    def on_joint_states(self, message: JointState) -> None:
        self.positions.update(zip(message.name, message.position))
        self._pair(message.header.stamp, "positions", dict(self.positions))

    def on_base_pose(self, message: PoseStamped) -> None:
        p, o = message.pose.position, message.pose.orientation
        self._pair(message.header.stamp, "base", np.array([p.x, p.y, p.z, o.w, o.x, o.y, o.z]))

    def _pair(self, stamp, half: str, value) -> None:
        """Log a measurement once the base pose and the joint state of one simulator sample (the
        same stamp: sim_node publishes them together) have both come. Paired as they arrive
        instead, a base pose met joint positions a period or more older or newer, and the soles
        computed from them moved by millimetres while the robot's did not (the packaged robot's
        "slip" in the demo 2.1-5.2 mm from run to run; 1.6 mm in the offline loop)."""
        key = stamp.sec * 1_000_000_000 + stamp.nanosec
        sample = self.samples.setdefault(key, {})
        sample[half] = value
        if len(sample) == 2:
            self.log.add_measured(self.since_start(stamp), sample["base"], sample["positions"])
            self.samples = {k: v for k, v in self.samples.items() if k > key}  # older halves never pair

    def on_rtf(self, message: Float64) -> None:
        self.run.real_time_factors.append(float(message.data))

    def ready(self) -> bool:
        """ik_node listens to whole-body targets and the simulator publishes."""
        return self.target_publisher.get_subscription_count() > 0 and bool(self.log.measured_times)

    def send_posture(self, timeline: PostureTimeline, t: float, height: float | None = None) -> None:
        """Publish the posture target at ``t`` [s] of the posture phases (torso ``height`` [m]
        instead of the timeline's when given)."""
        pose = timeline.at(t)
        message = WholeBodyTarget()
        message.header.frame_id = WORLD
        message.header.stamp = self.get_clock().now().to_msg()  # simulated: the period it answers
        left, right = timeline.left.copy(), timeline.right.copy()
        if pose.lifted is not None:
            (left if pose.lifted == "left" else right)[2, 3] += pose.lift
        message.left_sole, message.right_sole = pose_message(left), pose_message(right)
        message.support = SUPPORT_CODES[pose.support]
        message.use_com_target = True
        message.com_target.x, message.com_target.y = float(pose.com[0]), float(pose.com[1])
        message.torso_orientation.w = 1.0
        message.torso_height = float(pose.height if height is None else height)
        self.target_publisher.publish(message)
        self.sent += 1

    def where(self) -> str:
        """The torso's simulated position, heading and tilt, for the progress line."""
        if not self.log.bases:
            return ""
        base = self.log.bases[-1][None]
        x, y, z = base[0, :3]
        heading, tilt = np.degrees(wm.yaw(base)[0]), wm.tilt_degrees(base)[0]
        return f"torso x {x:6.3f} y {y:6.3f} z {z:5.3f} m, heading {heading:6.1f} deg, tilt {tilt:4.1f} deg"

    def send_command(self, command: tuple[float, float, float]) -> None:
        twist = Twist()
        twist.linear.x, twist.linear.y, twist.angular.z = (float(v) for v in command)
        self.command_publisher.publish(twist)


def run_walk(
    log: WalkLog,
    timeline: PostureTimeline,
    commands: list[WalkCommand],
    start_walk_node: Callable[[], None],
    check_children: Callable[[], None],
    postures: bool = True,
    measured_states: str = "/joint_states",
    attach: Callable[[Node], None] | None = None,
) -> WalkRun:
    """Posture phases (unless ``postures`` is False: the stance only), then walking; raise
    TimeoutError when the pipeline does not come up. ``measured_states``: the simulator's joint
    states topic; ``attach(node)`` adds subscriptions of the caller's to the demo's node."""
    run = WalkRun(log)
    wall = time.monotonic()
    with rclpy.init(args=["ik_demo_walk"]):
        node = WalkDemoNode(log, run, measured_states)
        if attach is not None:
            attach(node)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        _spin_until(executor, node.ready, check_children, "ik_node's whole-body interface and the simulator")
        start_height = timeline.reachable(node.log.bases[-1][2] - START_DROP)  # gently from where it stands

        def reach_stance(t: float) -> None:
            # the height ramped in as the square of time: from straight legs a knee bends as the square
            # root of the drop, so its angle then grows about evenly instead of jolting at the start
            ramp = min(t / (PREROLL - 1.0), 1.0) ** 2
            node.send_posture(timeline, 0.0, start_height + ramp * (timeline.height - start_height))

        _every(
            executor,
            node.now,
            1.0 / RATE,
            PREROLL,
            reach_stance,
            check_children,
            lambda t: "posture: reach the stance",
            node.where,
        )
        begin = node.now()
        _every(
            executor,
            node.now,
            1.0 / RATE,
            timeline.DURATION if postures else 0.0,
            lambda t: node.send_posture(timeline, t),
            check_children,
            lambda t: f"posture: {_posture_name(t)}",
            node.where,
        )
        run.stretches.append(("posture", begin, node.now()))
        start_walk_node()
        walkers = lambda: node.received > node.sent  # a target that this node did not send
        # hold the last posture until walk_node's first target: without a target each period, the
        # lock-stepped simulator would wait its timeout per period while walk_node starts
        held = {"t": None}

        def hold_posture() -> None:
            if node.now() != held["t"]:
                held["t"] = node.now()
                node.send_posture(timeline, timeline.DURATION)

        _spin_until(executor, walkers, check_children, "walk_node", act=hold_posture)
        for command in commands:
            begin = node.now()
            _every(
                executor,
                node.now,
                1.0 / COMMAND_RATE,
                command.duration,
                lambda t, c=command: node.send_command(c.command),
                check_children,
                lambda t, c=command: f"walk: {c.name}",
                node.where,
            )
            run.stretches.append((command.name, begin, node.now()))
        print(flush=True)
        run.wall_time = time.monotonic() - wall
        executor.remove_node(node)
        node.destroy_node()
    return run


def _posture_name(t: float) -> str:
    for end, name in ((2.0, "stand"), (7.0, "squat"), (12.0, "shift weight"), (18.0, "lift right foot")):
        if t < end:
            return name
    return "lift left foot"


def _spin_until(executor, condition, check_children, what: str, act=None) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while not condition():
        check_children()
        if act is not None:
            act()
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {READY_TIMEOUT:g} s for {what}")
        executor.spin_once(timeout_sec=0.05)


def _every(executor, clock, period: float, duration: float, act, check_children, describe, where) -> None:
    """Call ``act(t)`` every ``period`` [s] for ``duration`` [s] on ``clock()`` [s]; a progress
    line every second."""
    start = clock()
    last_progress = -1
    while (t := clock() - start) < duration:
        act(t)
        if int(t) != last_progress:
            last_progress = int(t)
            check_children()
            end = "\r" if sys.stdout.isatty() else "\n"
            print(f"  {describe(t):<32s} {t:5.1f}/{duration:.1f} s  {where()}", end=end, flush=True)
        next_tick = start + next_tick_offset(t, period)
        while clock() < next_tick - TICK_ROUNDING * period:  # simulated time lands on ticks
            check_children()  # a simulator that stopped stops its clock: this loop would wait forever
            executor.spin_once(timeout_sec=max(next_tick - clock(), 0.0))
