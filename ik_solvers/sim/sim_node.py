"""sim_node: the URDF robot simulated in MuJoCo, headless, driven by joint commands.

Subscribes ``joint_commands`` (sensor_msgs/JointState: names and positions [rad]) and publishes
``/joint_states`` (position [rad], velocity [rad/s], effort [N m]) at ``publish_rate`` [Hz].
With a floating base it also publishes, at the same rate, the torso's (root link's) pose on
``~/base_pose`` (geometry_msgs/PoseStamped in ``odom_frame``, the simulator's world: ground truth,
what a robot's odometry estimates) and its IMU on ``~/imu`` (sensor_msgs/Imu in the IMU's link
frame, the maker's IMU link or the torso: orientation in ``odom_frame``, angular velocity [rad/s]
and specific force [m/s^2, +9.81 up at rest]) at ``imu.rate`` [Hz] of simulated time, every
sample taken (several per message burst when the rate is above ``publish_rate``), with the noise
and bias of ``imu.*`` (:class:`~ik_solvers.sim.imu.ImuConfig`; off by default; covariances are
the noise variances, all 0 without noise: unknown). Service ``~/set_torque``
(std_srvs/SetBool, as servo_bridge's): false turns every servo off (no actuator force), true on. A run that goes unstable stops the node with the reason
(:class:`~ik_solvers.sim.stability.UnstableSimulation`), exit status 1. The simulated time is
published on ``/clock`` (rosgraph_msgs/Clock, starting at 0) so that nodes run with
``use_sim_time:=true`` follow it; the achieved real-time factor (simulated time over wall time)
is logged every ``report_period`` [s] and published on ``~/real_time_factor``.
Commands for joints the robot does not have are refused with a warning.

Two ways to keep time:

- ``lock_step`` false (the default, what a real robot's servos do): physics runs in step with the
  wall clock, whatever the controllers do; a controller that stalls leaves its servo targets
  frozen while the robot moves on. Messages are stamped with the node's clock.
- ``lock_step`` true (the demo): the physics advances by one ``control_period`` [s] only once a
  ``joint_commands`` message stamped at or after the current simulated time has arrived (the
  controllers, on ``/clock``, have answered this period), or after ``lock_step_timeout`` [s] of
  wall time without one, so that nothing deadlocks when no one commands; never faster than real
  time (real-time factor at most 1). A stalled controller then stalls the simulated world with
  it, as in simulators driven by ROS (Gazebo's lock-step). Messages are stamped with the
  simulated time. While it waits, ``/clock`` repeats the unchanged time every
  ``CLOCK_KEEPALIVE`` [s] of wall time, for nodes that join late. See :class:`~ik_solvers.sim.lock_step.LockStepGate`.
  Behind a servo bus (``ik_demo --servo-bus``), ``bus_goals`` names the topic of the goals the
  bus wrote (sensor_msgs/JointState, stamped with the simulated time of the newest state the bus
  had): the servos follow those, ``joint_commands`` (the controllers') are only watched, and a
  period waits for both: it runs on the first bus write that carries the controllers' newest
  command of the period (or on the bus's stale goals after ``BUS_WAIT``): never ahead of the
  controllers, and the delay the bus adds in simulated time is that of ``command_latency`` alone
  (:class:`~ik_solvers.sim.lock_step.BusGoals`).

Parameters: the description (``robot_description``: URDF or xacro XML; or ``robot_description_file``;
``xacro_arguments``, ``package_path``: :mod:`ik_solvers.node.description_parameters`; default: the
packaged humanoid; meshes found through ``package://``, ``file://``, relative paths), ``publish_rate``,
``floating_base``, ``base_height`` [m], ``saturation_error`` [rad], ``support_stiffness``, ``weak_support_effort``,
``weak_support_stiffness``, ``damping_ratio``,
``effort_scale``, ``timestep`` [s], ``report_period`` [s], ``odom_frame`` (``odom``),
``lock_step`` (false), ``control_period`` [s] (0.01, rounded to whole timesteps),
``lock_step_timeout`` [s] (0.2), ``bus_goals`` (""), ``lock_step_pace`` ("": the topic, geometry_msgs/PointStamped,
of a controller every period also waits for once it has been heard, e.g. walk_node's ``~/zmp``:
:mod:`ik_solvers.sim.lock_step`), ``lock_step_answer`` ("": the same for a geometry_msgs/PoseStamped
topic, e.g. ik_node's ``whole_body/torso_pose``, its answer to walk_node), ``servo_model`` (``ideal``, a servo model or a YAML file of
them per joint: :mod:`ik_solvers.sim.servo_models`), ``command_latency`` [s] (0), ``imu.<field>``;
see :class:`ik_solvers.sim.mujoco_robot.ServoConfig` and :class:`ik_solvers.sim.imu.ImuConfig`.
"""

from __future__ import annotations

import math
import sys
import time
from functools import partial

import numpy as np
from geometry_msgs.msg import PointStamped, PoseStamped
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.time import Time
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64
from std_srvs.srv import SetBool

from ik_solvers.control.statistics import shortened
from ik_solvers.model import RobotModel
from ik_solvers.node.description_parameters import declare_robot_description
from ik_solvers.node.executable import run_node
from ik_solvers.node.node_parameters import NodeParameters
from ik_solvers.parameter_rules import Rule, field_rules
from ik_solvers.sensors.attitude import AttitudeFilter
from ik_solvers.sim.imu import ImuConfig, ImuSample, NoisyImu
from ik_solvers.sim.lock_step import BusGoals, LockStepGate
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig, UnstableSimulation

MAX_CATCH_UP = 0.1  # [s] most simulated time advanced in one tick when the process fell behind
CLOCK_KEEPALIVE = 0.1  # [s] of wall time between /clock messages while a lock-stepped run waits:
# each /clock wakes every use_sim_time node, and repeating an unchanged time at the timer's rate
# (200 Hz) cost the demo's four nodes CPU that a busy 2-core machine lacked (real-time factor)


NODE_RULES = {
    "publish_rate": Rule(200.0, "rate of /joint_states", "Hz", 1.0, 1000.0, start_up_only=True),
    "report_period": Rule(5.0, "wall time between real-time factor reports", "s", 0.0, 3600.0, low_open=True),
    "odom_frame": Rule("odom", "frame of ~/base_pose", non_empty=True),
    "lock_step": Rule(False, "advance only when each period's commands came", start_up_only=True),
    "control_period": Rule(
        0.01, "lock-step period (whole timesteps)", "s", 0.0, 1.0, low_open=True, start_up_only=True
    ),
    "lock_step_timeout": Rule(
        0.2,
        "wall time a lock-stepped period waits for commands",
        "s",
        0.0,
        3600.0,
        low_open=True,
        start_up_only=True,
    ),
    "bus_goals": Rule(
        "", "topic of a servo bus's goals, followed instead of joint_commands", start_up_only=True
    ),
    "lock_step_pace": Rule(
        "",
        "topic (geometry_msgs/PointStamped) of the controller each lock-stepped period also waits "
        "for, once it has been heard",
        start_up_only=True,
    ),
    "lock_step_answer": Rule(
        "",
        "topic (geometry_msgs/PoseStamped) of the answer to the pacing controller each lock-stepped "
        "period also waits for, once it has been heard",
        start_up_only=True,
    ),
}
SERVO_PARAMETERS = (
    "saturation_error",
    "support_stiffness",
    "weak_support_effort",
    "weak_support_stiffness",
    "damping_ratio",
    "effort_scale",
    "floating_base",
    "base_height",
    "timestep",
    "servo_model",
    "command_latency",
)
WARNING_THROTTLE = 5.0  # [s] between two warnings of a kind while commands keep repeating them
MAX_WARNING = 2000  # [characters] of a warning that echoes joint names


def parameter_rules() -> dict[str, Rule]:
    """Every parameter of sim_node: its own, the :class:`ServoConfig` fields it sets and
    ``imu.<field>`` of :class:`ImuConfig`."""
    servo = field_rules(ServoConfig)
    imu = {f"imu.{name}": rule for name, rule in field_rules(ImuConfig).items()}
    return {**NODE_RULES, **{name: servo[name] for name in SERVO_PARAMETERS}, **imu}


class SimNode(Node):
    """Steps a :class:`MujocoRobot` with the wall clock; commands in, joint states out.

    Raises:
        ParameterError: a parameter value is refused (the message names it and the accepted values).
    """

    def __init__(self) -> None:
        super().__init__("sim_node")
        self.parameters = NodeParameters(self, parameter_rules())
        description = declare_robot_description(self)
        rate = self.parameters["publish_rate"]
        config = ServoConfig(**{name: self.parameters[name] for name in SERVO_PARAMETERS})
        imu = ImuConfig(**{name: self.parameters[f"imu.{name}"] for name in field_rules(ImuConfig)})
        self.report_period = self.parameters["report_period"]
        self.odom_frame = self.parameters["odom_frame"]
        RobotModel.from_urdf_string(description.xml)  # first: the parser's reason for a broken URDF
        self.robot = MujocoRobot(description, config, imu)
        self.imu = NoisyImu(imu)
        self.attitude = AttitudeFilter(imu.rate) if imu.orientation == "fused" else None
        self.state_publisher = self.create_publisher(JointState, "/joint_states", 10)
        self.rtf_publisher = self.create_publisher(Float64, "~/real_time_factor", 10)
        self.base_publisher = self.imu_publisher = None
        if config.floating_base:
            self.base_publisher = self.create_publisher(PoseStamped, "~/base_pose", 10)
            self.imu_publisher = self.create_publisher(Imu, "~/imu", 50)
        self.clock_publisher = self.create_publisher(Clock, "/clock", 10)
        bus_goals = self.parameters["bus_goals"]
        self.create_subscription(
            JointState, "joint_commands", self.on_watched if bus_goals else self.on_command, 10
        )
        if bus_goals:
            self.create_subscription(JointState, bus_goals, self.on_bus_goals, 10)
        self.pace_sources: dict[str, int] = {}  # topic -> the gate's source, once heard
        for parameter, kind in (("lock_step_pace", PointStamped), ("lock_step_answer", PoseStamped)):
            topic = self.parameters[parameter]
            if topic and self.parameters["lock_step"]:
                self.create_subscription(kind, topic, partial(self.on_pace, topic), 10)
        self.create_service(SetBool, "~/set_torque", self.on_set_torque)
        self.wall_start = self.report_wall = time.monotonic()
        self.clock_wall = -math.inf  # [s] wall time of the last /clock message
        self.report_sim = 0.0
        self.gate = self._lock_step_gate()
        self.bus = BusGoals(self.gate) if self.gate is not None and bus_goals else None
        self.create_timer(1.0 / rate, self.on_tick)
        self.parameters.on_change(self.apply_parameters)
        base = "floating base" if config.floating_base else "fixed base"
        self.get_logger().info(
            f"simulating {len(self.robot.joint_names)} joints ({base}), joint states at {rate:g} Hz"
        )

    def apply_parameters(self, changes: dict[str, object]) -> None:
        """Run-time changes that passed their rules: ``report_period`` and ``odom_frame``."""
        self.report_period = changes.get("report_period", self.report_period)
        self.odom_frame = changes.get("odom_frame", self.odom_frame)

    def _lock_step_gate(self) -> LockStepGate | None:
        """The lock-step gate and period (in whole timesteps) when ``lock_step`` is on, else None."""
        lock_step, period, timeout = (
            self.parameters[name] for name in ("lock_step", "control_period", "lock_step_timeout")
        )
        self.period_steps = max(1, round(period / self.robot.config.timestep))
        if not lock_step:
            return None
        bus = " and bus write" if self.parameters["bus_goals"] else ""
        self.get_logger().info(
            f"lock-step: {self.period_steps * self.robot.config.timestep:g} s per command{bus}, "
            f"at most real time, {timeout:g} s wait without one"
        )
        return LockStepGate(timeout, MAX_CATCH_UP, self.wall_start, sources=2 if bus else 1)

    def on_set_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        """Servos on (``data`` true) or off: off, no actuator force (a fall, an emergency)."""
        self.robot.set_torque(request.data)
        response.success, response.message = True, f"torque {'on' if request.data else 'off'}"
        self.get_logger().info(f"servos {response.message} (service)")
        return response

    def on_command(self, message: JointState) -> None:
        """Apply the commanded positions of known joints; refuse the rest with a warning."""
        self._apply(message)
        if self.gate is not None:  # after applying: the period runs with these targets
            self.gate.command(Time.from_msg(message.header.stamp).nanoseconds * 1e-9)
            self._lock_step()

    def on_pace(self, topic: str, message: PointStamped | PoseStamped) -> None:
        """A pacing controller (``lock_step_pace``), or the answer to it (``lock_step_answer``),
        has answered the period it is stamped with."""
        stamp = Time.from_msg(message.header.stamp).nanoseconds * 1e-9
        if topic not in self.pace_sources:
            self.pace_sources[topic] = self.gate.add_source(stamp)
            self.get_logger().info(f"lock-step: every period now waits for {topic} too")
        self.gate.command(stamp, source=self.pace_sources[topic])
        self._lock_step()

    def on_watched(self, message: JointState) -> None:
        """A controller's command while the servos follow ``bus_goals``: its stamp and positions
        let a period run once the bus delivers them."""
        if self.bus is not None:
            stamp = Time.from_msg(message.header.stamp).nanoseconds * 1e-9
            self.bus.command(list(message.name), list(message.position), stamp, time.monotonic())

    def on_bus_goals(self, message: JointState) -> None:
        """The goals the bus wrote: applied; in lock step they count for the period once they carry
        the controllers' newest command, or BUS_WAIT after it came (counted as stale)."""
        self._apply(message)
        if self.bus is not None:
            names, positions = list(message.name), list(message.position)
            if self.bus.written(names, positions, self.robot.time, time.monotonic()):
                self._lock_step()

    def _apply(self, message: JointState) -> None:
        """Set the targets of ``message``; warn (at most every WARNING_THROTTLE per kind, each
        warning cut short) of what is refused: however many bad commands come, the log and the
        node's memory stay bounded."""
        warn = self.get_logger().warning
        if len(message.position) != len(message.name):
            warn(
                f"refused joint command: {len(message.name)} names but {len(message.position)} positions",
                throttle_duration_sec=WARNING_THROTTLE,
            )
            return
        unknown = self.robot.set_targets(list(message.name), list(message.position))
        if unknown:
            warn(
                shortened(
                    f"refused commands for {len(unknown)} unknown joints {unknown}; this robot's joints: "
                    f"{list(self.robot.joint_names)}",
                    MAX_WARNING,
                ),
                throttle_duration_sec=WARNING_THROTTLE,
            )
        if not all(math.isfinite(p) for p in message.position):
            warn("refused non-finite joint command positions", throttle_duration_sec=WARNING_THROTTLE)

    def on_tick(self) -> None:
        """Advance the physics (to the wall clock, or lock-stepped), publish, report the real-time factor."""
        now = time.monotonic()
        if self.gate is not None:
            waited = now - self.clock_wall >= CLOCK_KEEPALIVE
            if not self._lock_step() and waited:  # waiting: the clock still ticks, for nodes that join late
                self.publish_clock()
        else:
            self._follow_wall_clock(now)
        if now - self.report_wall >= self.report_period:
            self.report(now)

    def _lock_step(self) -> bool:
        """Run the periods the gate allows, publishing the clock and the state after each; True
        when at least one ran."""
        period, ran = self.period_steps * self.robot.config.timestep, False
        while self.gate.may_advance(time.monotonic(), self.robot.time, period):
            self.robot.step(self.period_steps)
            self.gate.advanced(time.monotonic())
            self.publish_state()
            ran = True
        return ran

    def publish_clock(self) -> Time:
        """Publish the simulated time on ``/clock``; return it."""
        simulated = Time(nanoseconds=round(self.robot.time * 1e9))
        self.clock_publisher.publish(Clock(clock=simulated.to_msg()))
        self.clock_wall = time.monotonic()
        return simulated

    def _follow_wall_clock(self, now: float) -> None:
        """Advance the physics to the wall clock and publish the state."""
        lag = now - self.wall_start - self.robot.time
        if lag > MAX_CATCH_UP:  # fell far behind: drop the excess rather than run in a burst
            self.wall_start += lag - MAX_CATCH_UP
            lag = MAX_CATCH_UP
        steps = int(lag / self.robot.config.timestep)
        if steps > 0:
            self.robot.step(steps)
        self.publish_state()

    def publish_state(self) -> None:
        """Publish positions, velocities and efforts of every simulated joint."""
        positions, velocities, efforts = self.robot.joint_state()
        simulated = self.publish_clock()
        message = JointState()
        message.header.stamp = (simulated if self.gate is not None else self.get_clock().now()).to_msg()
        message.name = list(self.robot.joint_names)
        message.position, message.velocity, message.effort = (
            positions.tolist(),
            velocities.tolist(),
            efforts.tolist(),
        )
        self.state_publisher.publish(message)
        if self.base_publisher is not None:
            stamp = message.header.stamp
            self.base_publisher.publish(_base_pose(self.robot.base_pose(), self.odom_frame, stamp))
            self.publish_imu(simulated)
        else:
            self.robot.take_imu_samples()  # fixed base: no IMU published

    def publish_imu(self, simulated: Time) -> None:
        """Publish every IMU sample taken since the last call, as the sensor reads it; stamped
        with its simulated time (lock-step) or the node's clock shifted by the sample's age."""
        now = self.get_clock().now()
        for sample in self.robot.take_imu_samples():
            measured = self.imu.measure(sample)
            if self.attitude is not None:
                measured = measured._replace(
                    orientation=self.attitude.update(measured.gyro, measured.accelerometer)
                )
            age = Duration(nanoseconds=round((self.robot.time - sample.time) * 1e9))
            stamp = Time(nanoseconds=round(sample.time * 1e9)) if self.gate is not None else now - age
            self.imu_publisher.publish(_imu(measured, self.imu.config, self.robot.imu_frame, stamp.to_msg()))

    def report(self, now: float) -> None:
        """Log and publish simulated time over wall time since the last report."""
        factor = (self.robot.time - self.report_sim) / (now - self.report_wall)
        self.report_wall, self.report_sim = now, self.robot.time
        self.rtf_publisher.publish(Float64(data=factor))
        waits = "" if self.gate is None else f", {self.gate.timeouts} periods without a current command"
        waits += f", {self.bus.stale_periods} on stale bus goals" if self.bus is not None else ""
        self.get_logger().info(f"real-time factor {factor:.3f} (simulated {self.robot.time:.1f} s{waits})")


def _base_pose(pose: np.ndarray, frame: str, stamp) -> PoseStamped:
    """PoseStamped in ``frame`` from MuJoCo's (x, y, z, qw, qx, qy, qz)."""
    message = PoseStamped()
    message.header.frame_id, message.header.stamp = frame, stamp
    position, orientation = message.pose.position, message.pose.orientation
    position.x, position.y, position.z = (float(v) for v in pose[:3])
    orientation.w, orientation.x, orientation.y, orientation.z = (float(v) for v in pose[3:])
    return message


def _imu(sample: ImuSample, config: ImuConfig, frame: str, stamp) -> Imu:
    """sensor_msgs/Imu of a sample: (w, x, y, z) orientation (none: covariance[0] = -1, as the
    message defines), gyro and accelerometer; covariances the noise variances (0: unknown)."""
    message = Imu()
    message.header.frame_id, message.header.stamp = frame, stamp
    o = message.orientation
    if config.orientation == "none":
        message.orientation_covariance[0] = -1.0
    else:
        o.w, o.x, o.y, o.z = (float(v) for v in sample.orientation)
    w, a = message.angular_velocity, message.linear_acceleration
    w.x, w.y, w.z = (float(v) for v in sample.gyro)
    a.x, a.y, a.z = (float(v) for v in sample.accelerometer)
    for covariance, sigma in (
        (message.angular_velocity_covariance, config.gyro_noise),
        (message.linear_acceleration_covariance, config.accel_noise),
    ):
        covariance[0] = covariance[4] = covariance[8] = sigma * sigma
    return message


def main(args: list[str] | None = None) -> int:
    """Run the simulator node until SIGINT/SIGTERM; 1 when it cannot start or the physics goes
    unstable (the reason on stderr, one line)."""
    return run_node("sim_node", SimNode, args, stop_errors=(UnstableSimulation,))


if __name__ == "__main__":
    sys.exit(main())
