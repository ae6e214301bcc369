"""The demo's own rclpy node: sends the targets, records what comes back, switches solvers.

Publishes ``<chain>/target_pose`` (PoseStamped, in the chain's base frame) and
``<chain>/pole_target`` (PointStamped); subscribes ``joint_commands`` (the IK node's output),
``/joint_states`` (the simulator's) and ``/diagnostics`` (the IK node's solve counters); samples
the IK node's own errors through its ``solve_ik`` service (same target, pole and solver as the
topic, nothing published); sets the IK node's ``chains.<name>.solver`` parameters through its
SetParameters service. Joint messages are placed in time by their header stamps (when they were
published), so that a busy demo process does not distort the tracking figures. With
``sim_time`` the node runs on ``/clock`` (``use_sim_time``): its times and stamps are simulated.
"""

from __future__ import annotations

import time

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.task import Future
from sensor_msgs.msg import JointState

from ik_solvers.chain import Chain
from ik_solvers.demo.metrics import Recording
from ik_solvers.node.clock import node_seconds
from ik_solvers.spatial import matrix_to_quaternion
from ik_solvers_interfaces.srv import SolveIK

LOST_ANSWER = 2.0  # [s] a solve_ik call unanswered this long is taken as lost and sent again
# Messages kept for this node per recorded topic. A starved demo process (a third of a core, the
# pipeline's biggest user, at load 10-18 beside a CPU-bound neighbour) falls seconds behind: with
# 100 the oldest /joint_states were dropped, and the recording had 1.5-2 s without a state, which
# the tracking figures bridged by interpolation (arms "57-60 mm off" at a hold the robot held).
# Messages are placed in time by their stamps, so late is harmless; lost is not.
RECORD_DEPTH = 5000  # 12 s of joint_commands at 4 chains x 100 Hz, 50 s of /joint_states


def _stamp_nanoseconds(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


class DemoNode(Node):
    """Target generator and recorder; times are seconds since :attr:`start` (on :meth:`seconds`)."""

    def __init__(self, chains: dict[str, Chain], ik_node_name: str, sim_time: bool = False, **kwargs) -> None:
        overrides = [Parameter("use_sim_time", value=True)] if sim_time else []
        super().__init__("ik_demo", parameter_overrides=overrides, **kwargs)
        self.chains = chains
        self.recording = Recording(chains)
        self.start = self.seconds()
        # ROS time − this node's seconds [s]: 0 on simulated time, system − monotonic otherwise
        self.clock_offset = 0.0 if sim_time else time.time() - time.monotonic()
        # chain → (monotonic send time [s], future) of its solve_ik call in flight
        self.pending: dict[str, tuple[float, Future]] = {}
        self.solve_counts: dict[str, tuple[int, int]] = {}
        self.target_publishers = {
            name: self.create_publisher(PoseStamped, f"{name}/target_pose", 10) for name in chains
        }
        self.pole_publishers = {
            name: self.create_publisher(PointStamped, f"{name}/pole_target", 10) for name in chains
        }
        self.command_subscription = self.create_subscription(
            JointState, "joint_commands", self.on_command, RECORD_DEPTH
        )
        self.create_subscription(JointState, "/joint_states", self.on_state, RECORD_DEPTH)
        self.create_subscription(DiagnosticArray, "/diagnostics", self.on_diagnostics, 10)
        self.create_subscription(PoseStamped, "/sim_node/base_pose", self.on_base_pose, RECORD_DEPTH)
        self.parameters = AsyncParameterClient(self, ik_node_name)
        self.solve_client = self.create_client(SolveIK, "solve_ik")

    def seconds(self) -> float:
        """[s] on this node's clock: simulated on ``/clock``, else monotonic."""
        return node_seconds(self)

    def now(self) -> float:
        """[s] since the start of the demo's motion."""
        return self.seconds() - self.start

    def begin(self, delay: float) -> None:
        """Start the motion's clock ``delay`` [s] from now; forget what was recorded before."""
        self.start = self.seconds() + delay
        self.recording = Recording(self.chains)

    def stamp_time(self, stamp) -> float:
        """A header stamp (ROS time: system or simulated) as [s] since the start of the demo's motion."""
        return _stamp_nanoseconds(stamp) * 1e-9 - self.clock_offset - self.start

    def ready(self) -> bool:
        """True when the IK node listens to every target topic, commands come, and joint states arrive."""
        listening = all(p.get_subscription_count() > 0 for p in self.target_publishers.values())
        states = any(len(series.times) for series in self.recording.states.values())
        commands = self.command_subscription.get_publisher_count() > 0
        return listening and states and commands and self.solve_client.service_is_ready()

    def send(self, chain: str, pose: np.ndarray, pole: np.ndarray | None) -> None:
        """Publish a pole (if any), then the target pose (4, 4) in the chain's base frame."""
        stamp = self.get_clock().now().to_msg()
        if pole is not None:
            point = PointStamped()
            point.header.frame_id, point.header.stamp = self.chains[chain].base_link, stamp
            point.point.x, point.point.y, point.point.z = (float(v) for v in pole)
            self.pole_publishers[chain].publish(point)
        self.target_publishers[chain].publish(self._pose_message(chain, pose, stamp))
        self.recording.add_target(chain, self.now(), pose)

    def _pose_message(self, chain: str, pose: np.ndarray, stamp=None) -> PoseStamped:
        """PoseStamped of a (4, 4) pose in the chain's base frame."""
        message = PoseStamped()
        message.header.frame_id = self.chains[chain].base_link
        message.header.stamp = stamp or self.get_clock().now().to_msg()
        position, orientation = message.pose.position, message.pose.orientation
        position.x, position.y, position.z = (float(v) for v in pose[:3, 3])
        quaternion = matrix_to_quaternion(pose[:3, :3])
        orientation.x, orientation.y, orientation.z, orientation.w = (float(v) for v in quaternion)
        return message

    def check(self, chain: str, pose: np.ndarray, pole: np.ndarray | None) -> None:
        """Ask ``solve_ik`` for the same target (unless a call for ``chain`` is in flight); record the answer."""
        in_flight = self.pending.get(chain)
        if in_flight is not None:
            if time.monotonic() - in_flight[0] < LOST_ANSWER:
                return
            self.solve_client.remove_pending_request(in_flight[1])  # lost: DDS discovery can drop one
        request = SolveIK.Request(chain=chain, target=self._pose_message(chain, pose))
        if pole is not None:
            request.use_pole = True
            request.pole.x, request.pole.y, request.pole.z = (float(v) for v in pole)
        sent = self.now()
        future = self.solve_client.call_async(request)
        self.pending[chain] = (time.monotonic(), future)
        future.add_done_callback(lambda done: self._on_solved(chain, sent, done))

    def _on_solved(self, chain: str, sent: float, future: Future) -> None:
        self.pending.pop(chain, None)
        response = future.result()
        if response is not None:
            self.recording.add_solve(
                chain, sent, response.success, response.position_error, response.orientation_error
            )

    def on_command(self, message: JointState) -> None:
        time_ = self.stamp_time(message.header.stamp)
        self.recording.add_joint_message("command", time_, message.name, message.position)

    def on_state(self, message: JointState) -> None:
        time_ = self.stamp_time(message.header.stamp)
        self.recording.add_joint_message("state", time_, message.name, message.position)

    def on_base_pose(self, message: PoseStamped) -> None:
        """The simulated torso pose in the world: (x, y, z, qw, qx, qy, qz), MuJoCo's order."""
        p, o = message.pose.position, message.pose.orientation
        self.recording.add_base_pose(
            self.stamp_time(message.header.stamp), (p.x, p.y, p.z, o.w, o.x, o.y, o.z)
        )

    def on_diagnostics(self, message: DiagnosticArray) -> None:
        """Keep each chain's latest (solves, failures) from the IK node's diagnostics."""
        for status in message.status:
            values = {item.key: item.value for item in status.values}
            if status.hardware_id in self.chains and "solves" in values and "failures" in values:
                self.solve_counts[status.hardware_id] = (
                    int(values["solves"]),
                    int(values["failures"]),
                )

    def set_solver(self, chains: list[str], solver: str) -> Future:
        """Ask the IK node to use ``solver`` for ``chains``; the future holds the SetParameters response."""
        parameters = [Parameter(f"chains.{name}.solver", value=solver) for name in chains]
        return self.parameters.set_parameters(parameters)
