"""Where the ik_node's joint commands go: one small class per output, chosen from parameters.

Every output gets the same :class:`Command` (all joints commanded so far, after each change) and
turns it into its own message. :data:`OUTPUTS` names them; :func:`make_outputs` builds those the
parameters switch on. A new output (a servo bridge's, say) is one :class:`CommandOutput` subclass
and one entry in :data:`OUTPUTS`; its settings go in :mod:`ik_solvers.node.parameters`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from builtin_interfaces.msg import Time
from rclpy.event_handler import PublisherEventCallbacks, QoSPublisherMatchedInfo
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ik_solvers.node import messages
from ik_solvers.node.parameters import NodeConfig

# Latest command wins: one message kept per topic, never a growing queue.
LATEST_ONLY = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE)
# The command publisher's history: a reliable writer resends from it when a receiver's buffer
# overflowed; with depth 1 a command published meanwhile replaced the one to resend.
COMMAND_HISTORY = QoSProfile(
    depth=10, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE
)


@dataclass(frozen=True)
class Command:
    """What every output receives when a command changed.

    Attributes:
        stamp: the target's stamp (now when unstamped).
        names: every joint commanded so far, chain by chain. positions: (len(names),) [rad or m].
        measured: the measured joint positions by name (joints no chain commands included).
        travel_time: [s] the time the slowest joint that moved needs at the allowed velocity.
    """

    stamp: Time
    names: list[str]
    positions: np.ndarray
    measured: Mapping[str, float]
    travel_time: Callable[[], float]


@dataclass(frozen=True)
class OutputContext:
    """What an output may need to set itself up: the node, its configuration, the joints the
    node commands (chain by chain), and a throttled warning logger."""

    node: Node
    config: NodeConfig
    commanded: tuple[str, ...]
    warn: Callable[[str], None]


class CommandOutput(ABC):
    """One way the node's commands leave it."""

    @abstractmethod
    def send(self, command: Command) -> None:
        """Publish ``command`` in this output's form."""


class JointStateOutput(CommandOutput):
    """sensor_msgs/JointState on ``joint_commands``: every joint commanded so far.

    The node publishes only while a limb moves, so a subscriber that matches later (a servo
    bridge or a simulator started after the node, or one whose discovery took longer than the
    first commands) would hear nothing until the targets move again, and its joints would stay
    where they are. So the last command goes out again whenever a new subscriber matches: the
    command in force, unchanged (same stamp), never an older one.
    """

    def __init__(self, context: OutputContext) -> None:
        self.last: JointState | None = None
        self.publisher = context.node.create_publisher(
            JointState,
            "joint_commands",
            COMMAND_HISTORY,
            event_callbacks=PublisherEventCallbacks(matched=self.on_matched),
        )

    def send(self, command: Command) -> None:
        self.last = messages.joint_state(command.names, command.positions, command.stamp)
        self.publisher.publish(self.last)

    def on_matched(self, info: QoSPublisherMatchedInfo) -> None:
        """A subscriber matched or went (``info.current_count_change`` > 0: matched): resend."""
        last = self.last
        if info.current_count_change > 0 and last is not None:
            self.publisher.publish(last)


class ForwardCommandOutput(CommandOutput):
    """std_msgs/Float64MultiArray on ``/<controller>/commands`` for a ros2_control forward command
    controller, in ``ros2_control.joints`` order (joints not commanded yet: their measured position).

    Raises:
        ValueError: ``ros2_control.joints`` names a joint that no chain commands.
    """

    def __init__(self, context: OutputContext) -> None:
        self.joints = self.joint_order(context)
        self.topic = f"/{context.config.controller}/commands"
        self.publisher = context.node.create_publisher(Float64MultiArray, self.topic, LATEST_ONLY)
        self.warn = context.warn

    @staticmethod
    def joint_order(context: OutputContext) -> tuple[str, ...]:
        """The controller's joints: ``ros2_control.joints``, or every commanded joint.

        Raises:
            ValueError: ``ros2_control.joints`` names a joint that no chain commands.
        """
        commanded = list(context.commanded)
        joints = context.config.controller_joints or tuple(commanded)
        unknown = [name for name in joints if name not in commanded]
        if unknown:
            raise ValueError(
                f"ros2_control.joints names {unknown}, which no chain commands; commanded joints: {commanded}"
            )
        return joints

    def send(self, command: Command) -> None:
        positions = {**command.measured, **dict(zip(command.names, command.positions))}
        values = messages.ordered_positions(positions, self.joints)
        if values is None:
            self.warn(f"{self.topic} not sent: some of its joints have no position yet")
            return
        self.publisher.publish(Float64MultiArray(data=values.tolist()))


class TrajectoryOutput(CommandOutput):
    """trajectory_msgs/JointTrajectory on ``trajectory.topic``: one point, reached after the travel
    time at the allowed velocity (at least one command period)."""

    def __init__(self, context: OutputContext) -> None:
        self.period = 1.0 / context.config.command_rate
        self.publisher = context.node.create_publisher(
            JointTrajectory, context.config.trajectory_topic, LATEST_ONLY
        )

    def send(self, command: Command) -> None:
        seconds = max(command.travel_time(), self.period)
        point = JointTrajectoryPoint(positions=command.positions.tolist())
        point.time_from_start.sec = int(seconds)
        point.time_from_start.nanosec = int((seconds % 1.0) * 1e9)
        trajectory = JointTrajectory(joint_names=command.names, points=[point])
        trajectory.header.stamp = command.stamp
        self.publisher.publish(trajectory)


# name → (is it switched on by this configuration, the class). joint_commands is always on.
OUTPUTS: dict[str, tuple[Callable[[NodeConfig], bool], type[CommandOutput]]] = {
    "joint_commands": (lambda config: True, JointStateOutput),
    "ros2_control": (lambda config: bool(config.controller), ForwardCommandOutput),
    "trajectory": (lambda config: bool(config.trajectory_topic), TrajectoryOutput),
}


def make_outputs(context: OutputContext) -> list[CommandOutput]:
    """The outputs the node's configuration switches on, in :data:`OUTPUTS` order.

    Raises:
        ValueError: a setting of an output is wrong (checked even while that output is off: the
            parameter file is wrong either way).
    """
    ForwardCommandOutput.joint_order(context)
    return [output(context) for enabled, output in OUTPUTS.values() if enabled(context.config)]
