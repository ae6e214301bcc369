"""walk_node: ``cmd_vel`` → walking pattern generator → whole-body targets for ik_node at 100 Hz.

Subscribes ``cmd_vel`` (geometry_msgs/Twist: ``linear.x`` forward and ``linear.y`` lateral speed
[m/s], ``angular.z`` yaw rate [rad/s], in the robot's heading frame; clipped to the step limits
read from the URDF). Publishes every period ``walk.dt`` [s]:

- ``whole_body/target`` (ik_solvers_interfaces/msg/WholeBodyTarget, in ``world_frame``): both
  soles, the support, the CoM target, the torso's yaw and height — what ik_node's whole-body
  interface solves,
- ``~/zmp`` (geometry_msgs/PointStamped): the planned ZMP (the reference the CoM follows),
- ``whole_body/arm_command`` (sensor_msgs/JointState), only while the stabiliser commands an arm
  joint (the far arm raised against a push towards the support side, ``walk.arm_trigger``,
  :mod:`ik_solvers.whole_body.far_arm`; both arms forward against a push back,
  ``walk.front_arm_trigger``, :mod:`ik_solvers.whole_body.front_arms`): published just before
  the target, which ik_node applies it with.

Falls (``fall.enabled``, :mod:`ik_solvers.walk.fall_guard`): it watches ``imu_topic`` (sensor_msgs/Imu);
on a fall it stops the walk, commands a protective crouch, turns the servos off through
``fall.torque_service`` and reports on ``~/fall`` (std_msgs/Bool) and ``/diagnostics``.

The pattern generator is :class:`ik_solvers.whole_body.WalkingPatternGenerator` (ZMP preview
control, Kajita et al. 2003). The robot stands in double support at start-up, soles at the
nominal stance around the world origin (the URDF's standing stance), and starts and stops in
double support. No ``cmd_vel`` for ``cmd_vel_timeout`` [s] on the node's clock (0: never; also
for one that came before the first ``/clock``, while the simulated time read 0) stops the walk at
once (:meth:`WalkingPatternGenerator.stop`; a log line says so): as of the last tick, which is no later than the
timeout (the tick before had not seen it), so the last step lands within ``cmd_vel_timeout`` +
one step period (``walk.single_support + walk.double_support``) of the last ``cmd_vel``. Every
command, a zero one included, changes the plan ``walk.command_delay`` later (a driver that
brakes to zero gets the preview controller's smooth stop; the dead-man is the emergency one).
The generator keeps to the node's clock (the simulated time on ``/clock`` with
``use_sim_time:=true``, else the wall clock): a late timer advances it by the periods it missed;
targets are stamped with that clock, so a lock-stepped simulator can tell them current.

With ``walk.stabilise`` the targets are corrected by
:class:`~ik_solvers.whole_body.stabiliser.Stabiliser` from ``imu_topic`` (sensor_msgs/Imu, an
orientation required: roll and pitch, and the gyro) and ``joint_states_topic``
(sensor_msgs/JointState, the measured positions); while either is older than ``sensor_timeout``
[s] the plan goes out uncorrected (a throttled warning says why). Through the nodes
(:class:`~ik_solvers.whole_body.stabiliser_loop.LoopStabiliser`, ``stabiliser.<name>``): the
inputs are taken as of one instant ``stabiliser.sample_age`` before the tick, by their stamps; the
plan they are compared with is that of one loop delay ago; the feedback is held until the
measured stance is the plan's, then ramped in over ``stabiliser.ramp_time``.

Parameters: ``robot_description`` (URDF or xacro XML, or ``robot_description_file``: see
:mod:`ik_solvers.node.description_parameters`; default: the packaged humanoid), ``world_frame``
(``odom``), ``cmd_vel_timeout`` [s], ``imu_topic``, ``joint_states_topic``, ``sensor_timeout`` [s],
``fall.<name>`` (:func:`~ik_solvers.walk.fall_guard.fall_rules`),
``walk.<name>`` for every field of
:class:`~ik_solvers.whole_body.WalkConfig` (``config/walk.yaml`` lists them). Types and ranges:
:func:`parameter_rules` (docs/node.md has the table); ``world_frame`` and ``cmd_vel_timeout``
change at run time, the others are read at start-up only (a running node refuses them, saying so).
"""

from __future__ import annotations

import sys
from dataclasses import replace

from geometry_msgs.msg import PointStamped, Twist
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from ik_solvers.model import RobotModel
from ik_solvers.node.clock import node_seconds
from ik_solvers.node.description_parameters import declare_robot_description
from ik_solvers.node.executable import run_node
from ik_solvers.node.messages import joint_state
from ik_solvers.node.node_parameters import NodeParameters
from ik_solvers.parameter_rules import Rule
from ik_solvers.walk.balance_inputs import BalanceInputs
from ik_solvers.walk.fall_guard import FallGuard, fall_rules
from ik_solvers.walk.messages import point_stamped, velocity_command, whole_body_target
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.stabiliser_loop import LoopStabiliser
from ik_solvers_interfaces.msg import WholeBodyTarget

TICK_ROUNDING = 1e-6  # periods: a time this close below a period's start counts as that period
MAX_CATCH_UP = 10  # periods advanced at most in one timer callback (then the plan slips)


NODE_RULES = {
    "world_frame": Rule("odom", "frame of the whole-body targets", non_empty=True),
    "cmd_vel_timeout": Rule(0.5, "a cmd_vel older than this counts as zero; 0: never", "s", 0.0, 3600.0),
    "imu_topic": Rule(
        "imu", "sensor_msgs/Imu the stabiliser and the fall guard read", non_empty=True, start_up_only=True
    ),
    "joint_states_topic": Rule(
        "/joint_states", "sensor_msgs/JointState the stabiliser reads", non_empty=True, start_up_only=True
    ),
    "sensor_timeout": Rule(0.1, "older IMU or joint states are not used", "s", 0.0, 10.0, low_open=True),
    "stabiliser.sample_age": Rule(
        0.01,
        "the stabiliser reads IMU and joint states as of this long ago, by their stamps",
        "s",
        0.0,
        1.0,
        start_up_only=True,
    ),
    "stabiliser.actuation_delay": Rule(
        0.01,
        "from a command to the joint states showing it, beyond their age",
        "s",
        0.0,
        1.0,
        start_up_only=True,
    ),
    "stabiliser.ramp_time": Rule(
        1.0, "the feedback comes in over this once the stance is reached", "s", 0.0, 60.0, start_up_only=True
    ),
    "stabiliser.stance_tolerance": Rule(
        0.01,
        "measured torso height and CoM this near the plan's: stance reached",
        "m",
        0.0,
        1.0,
        low_open=True,
        start_up_only=True,
    ),
}


def parameter_rules() -> dict[str, Rule]:
    """Every parameter of walk_node: its own and ``walk.<field>`` of :class:`WalkConfig`."""
    walk = {f"walk.{name}": rule for name, rule in WalkConfig.rules().items()}
    return {**NODE_RULES, **fall_rules(), **walk}


class WalkNode(Node):
    """Steps the pattern generator with the node's clock and publishes its targets.

    Raises:
        ParameterError: a parameter value is refused (the message names it and the accepted values).
        ModelError: the robot description does not load.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("walk_node", **kwargs)
        self.parameters = NodeParameters(self, parameter_rules())
        urdf = declare_robot_description(self).xml
        self.world_frame = self.parameters["world_frame"]
        self.timeout = self.parameters["cmd_vel_timeout"]
        walk = {name: self.parameters[f"walk.{name}"] for name in WalkConfig.rules()}
        self.config = WalkConfig.from_mapping(walk)
        stance = StanceSolver(RobotModel.from_urdf_string(urdf))
        self.generator = WalkingPatternGenerator(stance.model, self.config, stance=stance)
        self.stabiliser, self.inputs = None, None
        if self.config.stabilise:
            self.stabiliser = LoopStabiliser(
                self.generator,
                stance,
                actuation_delay=self.parameters["stabiliser.actuation_delay"],
                ramp_time=self.parameters["stabiliser.ramp_time"],
                stance_tolerance=self.parameters["stabiliser.stance_tolerance"],
            )
            self.inputs = BalanceInputs(
                stance.com, self.parameters["sensor_timeout"], self.parameters["stabiliser.sample_age"]
            )
            inputs = self.inputs
            self.create_subscription(
                Imu, self.parameters["imu_topic"], lambda m: inputs.on_imu(m, node_seconds(self)), 10
            )
            self.create_subscription(
                JointState,
                self.parameters["joint_states_topic"],
                lambda m: inputs.on_joint_state(m, node_seconds(self)),
                10,
            )
        self.command_time: float | None = None  # [s] of the latest cmd_vel; None: none in force
        self.latest_tick = None  # the generator's latest tick (published)
        self.target_publisher = self.create_publisher(WholeBodyTarget, "whole_body/target", 10)
        self.zmp_publisher = self.create_publisher(PointStamped, "~/zmp", 10)
        self.arm_publisher = self.create_publisher(JointState, "whole_body/arm_command", 10)
        self.create_subscription(Twist, "cmd_vel", self.on_cmd_vel, 10)
        self.protective_tick = None  # after a fall: the crouch commanded every period
        self.fall_guard = None
        if self.parameters["fall.enabled"]:
            fall = {name: self.parameters[name] for name in fall_rules()}
            self.fall_guard = FallGuard(
                self, self.parameters["imu_topic"], self.generator.geometry.com_height, fall, self.on_fall
            )
        self.start = node_seconds(self)
        self.create_timer(self.config.dt, self.on_tick)
        self.parameters.on_change(self.apply_parameters)
        limits = ", ".join(f"{v:.3g}" for v in self.generator.max_command)
        self.get_logger().info(
            f"walking at {1 / self.config.dt:g} Hz; largest command (m/s, m/s, rad/s): {limits}"
        )

    def apply_parameters(self, changes: dict[str, object]) -> None:
        """Run-time changes that passed their rules: ``world_frame`` and ``cmd_vel_timeout``."""
        self.world_frame = changes.get("world_frame", self.world_frame)
        self.timeout = changes.get("cmd_vel_timeout", self.timeout)
        if self.inputs is not None:
            self.inputs.timeout = changes.get("sensor_timeout", self.inputs.timeout)

    def on_cmd_vel(self, message: Twist) -> None:
        """Hand the velocity command to the generator (clipped to its step limits)."""
        try:
            command = velocity_command(message)
        except ValueError as error:
            self.get_logger().warning(f"cmd_vel refused: {error}", throttle_duration_sec=1.0)
            return
        self.generator.set_command(*command)
        self.command_time = node_seconds(self)

    def on_fall(self, reason: str) -> None:
        """A fall: stop walking; from now on command the protective crouch (the latest tick's soles,
        the torso lowered to ``fall.crouch`` of its height), every period, as lock-step needs."""
        self.generator.set_command(0.0, 0.0, 0.0)
        tick = self.latest_tick or self.generator.step()
        self.protective_tick = replace(tick, torso_height=tick.torso_height * self.parameters["fall.crouch"])

    def on_tick(self) -> None:
        """Advance the generator to the node's clock; publish the latest tick's targets (after a
        fall: the protective crouch)."""
        now = node_seconds(self)
        if self.protective_tick is not None:
            self.publish_targets(self.protective_tick)
            return
        # a simulated clock reads 0 until the first /clock: a cmd_vel then is as current as any
        if self.command_time is not None and self.timeout > 0.0 and now - self.command_time > self.timeout:
            self.generator.stop()  # as of the last tick, no later than the timeout: see the module docstring
            self.get_logger().info(
                f"walk stopped at {now:.2f} s: no cmd_vel for {now - self.command_time:.2f} s "
                f"(cmd_vel_timeout {self.timeout:g} s); a new cmd_vel walks again"
            )
            self.command_time = None  # stopped once; a new cmd_vel starts again
        # + TICK_ROUNDING: simulated time lands on whole periods, up to rounding
        due = int((now - self.start) / self.config.dt + TICK_ROUNDING) - self.generator.ticks
        if due <= 0:
            return
        if due > MAX_CATCH_UP:  # far behind (a stall): let the plan slip instead of rushing it
            self.start += (due - MAX_CATCH_UP) * self.config.dt
            due = MAX_CATCH_UP
        for _ in range(due):
            tick = self.generator.step()
        self.latest_tick = tick
        self.publish_targets(tick, self._correction(tick, now))

    def publish_targets(self, tick, correction=None) -> None:
        """The whole-body target (corrected by the stabiliser's ``correction``, when given) and the
        planned ZMP of ``tick``, stamped now."""
        stamp = self.get_clock().now().to_msg()
        if correction is not None and correction.arm:  # first: ik_node applies it with the target
            self.arm_publisher.publish(joint_state(correction.arm, correction.arm.values(), stamp))
        self.target_publisher.publish(whole_body_target(tick, self.world_frame, stamp, correction))
        self.zmp_publisher.publish(point_stamped(tick.zmp_reference, self.world_frame, stamp))

    def _correction(self, tick, now: float):
        """The stabiliser's correction of ``tick`` (None when off or without fresh sensors)."""
        if self.stabiliser is None:
            return None
        latest = self.inputs.latest(now)
        if latest is None:
            self.get_logger().warning(
                f"stabiliser idle, targets uncorrected: {self.inputs.problem}", throttle_duration_sec=2.0
            )
            return None
        waiting = self.stabiliser.ready_at is None
        correction = self.stabiliser.update(tick, *latest, age=self.inputs.age(now))
        if waiting and self.stabiliser.ready_at is not None:
            self.get_logger().info(
                f"stabiliser: stance reached at {tick.time:.2f} s of the plan, feedback in over "
                f"{self.stabiliser.ramp_time:g} s; loop delay {1000 * self.stabiliser.delay:.0f} ms"
            )
        return correction


def main(args: list[str] | None = None) -> int:
    """Run walk_node until SIGINT/SIGTERM; 1 when it cannot start (the reason on stderr, one line)."""
    return run_node("walk_node", WalkNode, args)


if __name__ == "__main__":
    sys.exit(main())
