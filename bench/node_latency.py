"""Latency of the ik_node across processes: PoseStamped published → JointState received.

Targets for ``left_leg`` (a small circle of the sole, so each command reaches its goal in one
velocity-limited step) are sent at 100 Hz and at 1 kHz, stamped with the send time; the node
stamps each command with its target's stamp, so latency = receive time − stamp. A bare echo node
(same topics, same QoS, republishes a JointState with the target's stamp) in the same run gives
the floor: what DDS and rclpy cost without IK (same QoS). Lost = targets whose
command never came; "burst" counts those of them sent less than 1 ms after the previous target (a
sender that stalled and caught up), which the node's depth-1 target queue drops by design.

Run: ``make bench`` or ``python bench/node_latency.py`` (sets the loopback-only discovery range and
a domain id of its own). Machine is shared: read p50 more than p99.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # before rclpy initialises, here and in children

from ik_solvers.node import domains

domains.hold_a_free_domain(domains.BENCH_DOMAINS)  # a domain of its own, held while it runs

import numpy as np
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState

from ik_solvers import RobotModel
from ik_solvers.node.outputs import COMMAND_HISTORY, LATEST_ONLY
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import matrix_to_quaternion

CHAIN = "left_leg"
RATES = (100.0, 1000.0)  # [Hz]
RADIUS, FREQUENCY = 0.01, 0.5  # [m], [Hz] of the sole's circle
SETTLE = 0.5  # [s] waited after the last target for late commands


class EchoNode(Node):
    """The floor: PoseStamped on <chain>/target_pose → JointState on joint_commands, same stamp."""

    def __init__(self) -> None:
        super().__init__("echo_node")
        self.publisher = self.create_publisher(JointState, "joint_commands", COMMAND_HISTORY)
        self.create_subscription(PoseStamped, f"{CHAIN}/target_pose", self.echo, LATEST_ONLY)

    def echo(self, target: PoseStamped) -> None:
        command = JointState(name=[f"j{i}" for i in range(6)], position=[0.0] * 6)
        command.header.stamp = target.header.stamp
        self.publisher.publish(command)


def run_echo() -> int:
    """Entry of the echo subprocess."""
    try:
        with rclpy.init():
            rclpy.spin(EchoNode())
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


def circle_targets(count: int, rate: float) -> list[np.ndarray]:
    """(4, 4) sole targets in base_link: the raised straight-leg sole moving on a small circle."""
    chain = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain(
        "base_link", "l_sole"
    )
    centre = chain.fk(chain.rest_configuration())
    centre[:3, 3] += (0.02, 0.0, 0.05)
    targets = []
    for i in range(count):
        phase = 2 * np.pi * FREQUENCY * i / rate
        target = centre.copy()
        target[:3, 3] += RADIUS * np.array([np.cos(phase), np.sin(phase), 0.0])
        targets.append(target)
    return targets


def pose_message(target: np.ndarray) -> PoseStamped:
    """An unstamped PoseStamped of a (4, 4) target in the chain's base frame."""
    message = PoseStamped()
    p, o = message.pose.position, message.pose.orientation
    p.x, p.y, p.z = (float(v) for v in target[:3, 3])
    o.x, o.y, o.z, o.w = (float(v) for v in matrix_to_quaternion(target[:3, :3]))
    return message


class Probe:
    """Sends targets at a fixed rate and records when each one's command comes back."""

    def __init__(self, context) -> None:
        self.node = Node("latency_probe", context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.publisher = self.node.create_publisher(PoseStamped, f"{CHAIN}/target_pose", 10)
        self.received: dict[int, int] = {}  # stamp [ns] → receive time [ns]
        self.node.create_subscription(JointState, "joint_commands", self.on_command, QoSProfile(depth=10000))

    def on_command(self, message: JointState) -> None:
        stamp = message.header.stamp.sec * 1_000_000_000 + message.header.stamp.nanosec
        self.received.setdefault(stamp, time.time_ns())

    def wait_matched(self, timeout: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.publisher.get_subscription_count() and self.node.count_publishers("joint_commands"):
                return True
            self.executor.spin_once(timeout_sec=0.05)
        return False

    def run(self, targets: list[np.ndarray], rate: float) -> tuple[list[int], dict[int, int]]:
        """Publish ``targets`` at ``rate`` [Hz], spinning in between; (sent stamps, received)."""
        messages = [pose_message(target) for target in targets]
        self.received = {}
        sent, period, start = [], 1.0 / rate, time.monotonic()
        for i, message in enumerate(messages):
            while (remaining := start + i * period - time.monotonic()) > 0:
                self.executor.spin_once(timeout_sec=remaining)
            stamp = time.time_ns()
            message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
            self.publisher.publish(message)
            sent.append(stamp)
        settle = time.monotonic() + SETTLE
        while time.monotonic() < settle:
            self.executor.spin_once(timeout_sec=0.01)
        return sent, dict(self.received)


def summarise(sent: list[int], received: dict[int, int]) -> tuple[float, float, int, int]:
    """(p50 [ms], p99 [ms], lost, lost in bursts) over the targets whose command came back."""
    latencies = np.array([received[s] - s for s in sent if s in received]) * 1e-6
    lost = len(sent) - len(latencies)
    burst = sum(1 for i, s in enumerate(sent[:-1]) if s not in received and sent[i + 1] - s < 1_000_000)
    if not len(latencies):
        return float("nan"), float("nan"), lost, burst
    return float(np.percentile(latencies, 50)), float(np.percentile(latencies, 99)), lost, burst


def start(kind: str) -> subprocess.Popen:
    """The echo node or the ik_node (packaged config) as a subprocess."""
    if kind == "echo":
        argv = [sys.executable, str(Path(__file__).resolve()), "--echo"]
    else:
        argv = [str(Path(sys.executable).parent / "ik_node"), "--ros-args", "--params-file"]
        argv += [str(package_share_path("config", "ik_solvers.yaml")), "-p", "max_target_age:=0.0"]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(process: subprocess.Popen) -> None:
    process.send_signal(2)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()


def measure(kind: str, seconds: float, context) -> dict[float, tuple[float, float, int, int, int]]:
    """rate → (p50, p99, lost, lost in bursts, sent) for one node kind."""
    process = start(kind)
    probe = Probe(context)
    try:
        if not probe.wait_matched():
            raise RuntimeError(
                f"{kind} node never matched: {process.stderr.read1().decode(errors='replace')}"
            )
        probe.run(circle_targets(50, 100.0), 100.0)  # warm-up
        results = {}
        for rate in RATES:
            count = int(seconds * rate)
            sent, received = probe.run(circle_targets(count, rate), rate)
            results[rate] = (*summarise(sent, received), count)
        return results
    finally:
        probe.node.destroy_node()
        probe.executor.shutdown()
        stop(process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each rate's run [s]")
    parser.add_argument("--echo", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        return run_echo()
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        figures = {kind: measure(kind, args.seconds, context) for kind in ("echo", "ik_node")}
    finally:
        context.try_shutdown()
    print(f"PoseStamped -> JointState across processes, {CHAIN}, {args.seconds:g} s per rate")
    print(f"{'node':<10}{'rate':>8}{'sent':>8}{'lost':>7}{'burst':>7}{'p50 ms':>9}{'p99 ms':>9}")
    for kind, results in figures.items():
        for rate, (p50, p99, lost, burst, sent) in results.items():
            print(f"{kind:<10}{rate:>6.0f}Hz{sent:>8}{lost:>7}{burst:>7}{p50:>9.3f}{p99:>9.3f}")
    for rate in RATES:
        (e50, e99, *_), (n50, n99, *_) = figures["echo"][rate], figures["ik_node"][rate]
        print(f"{rate:>6.0f} Hz: ik_node - floor: p50 {n50 - e50:+.3f} ms, p99 {n99 - e99:+.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
