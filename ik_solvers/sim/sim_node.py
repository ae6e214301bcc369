"""sim_node: the URDF robot simulated in MuJoCo, headless, driven by joint commands.

Subscribes ``joint_commands`` (sensor_msgs/JointState: names and positions [rad]) and publishes
``/joint_states`` (position [rad], velocity [rad/s], effort [N m]) at ``publish_rate`` [Hz].
With a floating base it also publishes the torso's pose in the world on ``~/base_pose``
(geometry_msgs/PoseStamped, frame ``world``) at the same rate. Physics runs in step with the wall clock; the achieved real-time factor (simulated time over
wall time) is logged every ``report_period`` [s] and published on ``~/real_time_factor``.
Commands for joints the robot does not have are refused with a warning.

Parameters: ``robot_description`` (URDF XML; default: the packaged humanoid), ``publish_rate``,
``floating_base``, ``base_height`` [m], ``saturation_error`` [rad], ``damping_ratio``,
``effort_scale``, ``timestep`` [s], ``report_period`` [s]; see
:class:`ik_solvers.sim.mujoco_robot.ServoConfig`.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64

from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig

MAX_CATCH_UP = 0.1  # [s] most simulated time advanced in one tick when the process fell behind


class SimNode(Node):
    """Steps a :class:`MujocoRobot` with the wall clock; commands in, joint states out."""

    def __init__(self) -> None:
        super().__init__("sim_node")
        defaults = ServoConfig()
        urdf = self.declare_parameter("robot_description", "").value
        if not urdf:
            urdf = package_share_path("urdf", "humanoid.urdf").read_text()
        rate = self.declare_parameter("publish_rate", 200.0).value
        config = ServoConfig(
            saturation_error=self.declare_parameter("saturation_error", defaults.saturation_error).value,
            damping_ratio=self.declare_parameter("damping_ratio", defaults.damping_ratio).value,
            effort_scale=self.declare_parameter("effort_scale", defaults.effort_scale).value,
            floating_base=self.declare_parameter("floating_base", defaults.floating_base).value,
            base_height=self.declare_parameter("base_height", defaults.base_height).value,
            timestep=self.declare_parameter("timestep", defaults.timestep).value,
        )
        self.report_period = self.declare_parameter("report_period", 5.0).value
        self.robot = MujocoRobot(urdf, config)
        self.warned: set[str] = set()
        self.state_publisher = self.create_publisher(JointState, "/joint_states", 10)
        self.rtf_publisher = self.create_publisher(Float64, "~/real_time_factor", 10)
        self.base_publisher = (
            self.create_publisher(PoseStamped, "~/base_pose", 10) if config.floating_base else None
        )
        self.create_subscription(JointState, "joint_commands", self.on_command, 10)
        self.wall_start = self.report_wall = time.monotonic()
        self.report_sim = 0.0
        self.create_timer(1.0 / rate, self.on_tick)
        base = "floating base" if config.floating_base else "fixed base"
        self.get_logger().info(
            f"simulating {len(self.robot.joint_names)} joints ({base}), joint states at {rate:g} Hz"
        )

    def on_command(self, message: JointState) -> None:
        """Apply the commanded positions of known joints; refuse the rest with a warning."""
        if len(message.position) != len(message.name):
            self.get_logger().warning(
                f"refused joint command: {len(message.name)} names but {len(message.position)} positions"
            )
            return
        unknown = self.robot.set_targets(list(message.name), list(message.position))
        new = sorted(set(unknown) - self.warned)
        if new:
            self.warned.update(new)
            self.get_logger().warning(
                f"refused commands for unknown joints {new}; this robot's joints: {list(self.robot.joint_names)}"
            )
        if not all(math.isfinite(p) for p in message.position):
            self.get_logger().warning("refused non-finite joint command positions", throttle_duration_sec=5.0)

    def on_tick(self) -> None:
        """Advance the physics to the wall clock, publish the joint state, report the real-time factor."""
        now = time.monotonic()
        lag = now - self.wall_start - self.robot.time
        if lag > MAX_CATCH_UP:  # fell far behind: drop the excess rather than run in a burst
            self.wall_start += lag - MAX_CATCH_UP
            lag = MAX_CATCH_UP
        steps = int(lag / self.robot.config.timestep)
        if steps > 0:
            self.robot.step(steps)
        self.publish_state()
        if now - self.report_wall >= self.report_period:
            self.report(now)

    def publish_state(self) -> None:
        """Publish positions, velocities and efforts of every simulated joint."""
        positions, velocities, efforts = self.robot.joint_state()
        message = JointState()
        message.header.stamp = self.get_clock().now().to_msg()
        message.name = list(self.robot.joint_names)
        message.position, message.velocity, message.effort = (
            positions.tolist(),
            velocities.tolist(),
            efforts.tolist(),
        )
        self.state_publisher.publish(message)
        if self.base_publisher is not None:
            self.base_publisher.publish(_base_pose(self.robot.base_pose(), message.header.stamp))

    def report(self, now: float) -> None:
        """Log and publish simulated time over wall time since the last report."""
        factor = (self.robot.time - self.report_sim) / (now - self.report_wall)
        self.report_wall, self.report_sim = now, self.robot.time
        self.rtf_publisher.publish(Float64(data=factor))
        self.get_logger().info(f"real-time factor {factor:.3f} (simulated {self.robot.time:.1f} s)")


def _base_pose(pose: np.ndarray, stamp) -> PoseStamped:
    """PoseStamped in ``world`` from MuJoCo's (x, y, z, qw, qx, qy, qz)."""
    message = PoseStamped()
    message.header.frame_id, message.header.stamp = "world", stamp
    position, orientation = message.pose.position, message.pose.orientation
    position.x, position.y, position.z = (float(v) for v in pose[:3])
    orientation.w, orientation.x, orientation.y, orientation.z = (float(v) for v in pose[3:])
    return message


def main(args: list[str] | None = None) -> int:
    """Run the simulator node until interrupted."""
    try:
        with rclpy.init(args=args):
            rclpy.spin(SimNode())
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
