"""walk_node: ``cmd_vel`` → walking pattern generator → whole-body targets for ik_node at 100 Hz.

Subscribes ``cmd_vel`` (geometry_msgs/Twist: ``linear.x`` forward and ``linear.y`` lateral speed
[m/s], ``angular.z`` yaw rate [rad/s], in the robot's heading frame; clipped to the step limits
read from the URDF). Publishes every period ``walk.dt`` [s]:

- ``whole_body/target`` (ik_solvers_interfaces/msg/WholeBodyTarget, in ``world_frame``): both
  soles, the support, the CoM target, the torso's yaw and height — what ik_node's whole-body
  interface solves,
- ``~/zmp`` (geometry_msgs/PointStamped): the planned ZMP (the reference the CoM follows).

The pattern generator is :class:`ik_solvers.whole_body.WalkingPatternGenerator` (ZMP preview
control, Kajita et al. 2003). The robot stands in double support at start-up, soles at the
nominal stance around the world origin (the URDF's standing stance), and starts and stops in
double support. A ``cmd_vel`` older than ``cmd_vel_timeout`` [s] counts as zero (0: never).
The generator keeps to the node's clock (the simulated time on ``/clock`` with
``use_sim_time:=true``, else the wall clock): a late timer advances it by the periods it missed;
targets are stamped with that clock, so a lock-stepped simulator can tell them current.

Parameters: ``robot_description`` (URDF or xacro XML, or ``robot_description_file``: see
:mod:`ik_solvers.node.description_parameters`; default: the packaged humanoid), ``world_frame``
(``odom``), ``cmd_vel_timeout`` [s], ``walk.<name>`` for every field of
:class:`~ik_solvers.whole_body.WalkConfig` (``config/walk.yaml`` lists them).
"""

from __future__ import annotations

import sys
from dataclasses import fields

import rclpy
from geometry_msgs.msg import PointStamped, Twist
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from ik_solvers.model import ModelError, RobotModel
from ik_solvers.node import stop_signals
from ik_solvers.node.clock import node_seconds
from ik_solvers.node.description_parameters import declare_robot_description
from ik_solvers.walk.messages import point_stamped, velocity_command, whole_body_target
from ik_solvers.whole_body import WalkConfig, WalkingPatternGenerator
from ik_solvers_interfaces.msg import WholeBodyTarget

TICK_ROUNDING = 1e-6  # periods: a time this close below a period's start counts as that period
MAX_CATCH_UP = 10  # periods advanced at most in one timer callback (then the plan slips)


class WalkNode(Node):
    """Steps the pattern generator with the wall clock and publishes its targets."""

    def __init__(self, **kwargs) -> None:
        super().__init__("walk_node", **kwargs)
        urdf = declare_robot_description(self).xml
        self.world_frame = self.declare_parameter("world_frame", "odom").value
        self.timeout = self.declare_parameter("cmd_vel_timeout", 0.5).value
        defaults = WalkConfig()
        values = {
            item.name: self.declare_parameter(f"walk.{item.name}", float(getattr(defaults, item.name))).value
            for item in fields(WalkConfig)
        }
        self.config = WalkConfig.from_mapping(values)
        self.generator = WalkingPatternGenerator(RobotModel.from_urdf_string(urdf), self.config)
        self.command_time = -float("inf")
        self.target_publisher = self.create_publisher(WholeBodyTarget, "whole_body/target", 10)
        self.zmp_publisher = self.create_publisher(PointStamped, "~/zmp", 10)
        self.create_subscription(Twist, "cmd_vel", self.on_cmd_vel, 10)
        self.start = node_seconds(self)
        self.create_timer(self.config.dt, self.on_tick)
        limits = ", ".join(f"{v:.3g}" for v in self.generator.max_command)
        self.get_logger().info(
            f"walking at {1 / self.config.dt:g} Hz; largest command (m/s, m/s, rad/s): {limits}"
        )

    def on_cmd_vel(self, message: Twist) -> None:
        """Hand the velocity command to the generator (clipped to its step limits)."""
        try:
            command = velocity_command(message)
        except ValueError as error:
            self.get_logger().warning(f"cmd_vel refused: {error}", throttle_duration_sec=1.0)
            return
        self.generator.set_command(*command)
        self.command_time = node_seconds(self)

    def on_tick(self) -> None:
        """Advance the generator to the node's clock; publish the latest tick's targets."""
        now = node_seconds(self)
        if self.timeout > 0.0 and now - self.command_time > self.timeout and self.command_time > 0.0:
            self.generator.set_command(0.0, 0.0, 0.0)
            self.command_time = 0.0  # zeroed once; a new cmd_vel starts again
        # + TICK_ROUNDING: simulated time lands on whole periods, up to rounding
        due = int((now - self.start) / self.config.dt + TICK_ROUNDING) - self.generator.ticks
        if due <= 0:
            return
        if due > MAX_CATCH_UP:  # far behind (a stall): let the plan slip instead of rushing it
            self.start += (due - MAX_CATCH_UP) * self.config.dt
            due = MAX_CATCH_UP
        for _ in range(due):
            tick = self.generator.step()
        stamp = self.get_clock().now().to_msg()
        self.target_publisher.publish(whole_body_target(tick, self.world_frame, stamp))
        self.zmp_publisher.publish(point_stamped(tick.zmp_reference, self.world_frame, stamp))


def main(args: list[str] | None = None) -> int:
    """Run walk_node until SIGINT/SIGTERM; 1 when it cannot start (the reason on stderr)."""
    stop_signals.install()
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = WalkNode()
            except (ModelError, ValueError) as error:
                print(f"walk_node: cannot start: {error}", file=sys.stderr)
                return 1
            stop_signals.spin_until_stopped(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
