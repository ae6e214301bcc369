"""Emulated servos whose motion comes from the MuJoCo simulation (``servo_bus_emulator --sim``).

The emulator publishes its servos' goal registers as joint angles (sensor_msgs/JointState on
``servo_bus/goals``, which sim_node takes as its commands) and answers reads with the angles
sim_node publishes (``sim/joint_states``), converted with the robot's calibration. So the demo runs
ik_node -> servo_bridge -> serial bytes -> emulated servos -> MuJoCo -> serial bytes -> /joint_states.
The goals are stamped with the newest simulator state's stamp (simulated time when sim_node is
lock-stepped: they were written after that state).

The bus comes up connected: :meth:`SimLink.wait_for_simulator` holds the emulator's port closed
until sim_node is heard (its first state: the servos' present positions) and subscribes to the
goals (the servos' goal writes reach the physics), as powered servos answer with their real
position from the first read. Opened before, a demo's first goals were lost while discovery
matched the two nodes, and the bridge saw servos at 0 rad refuse them (issue 21).

The goals go out once an instruction's answers are on the wire (:meth:`SimLink.publish_goals`,
the emulator's ``PtyBus.answered``), never while the bus is busy with it: a lock-stepped
simulator runs its next period on them, so time passes between the bus's transactions, never
inside one. A read answers from the state the write before it was made against, and that
reading reaches servo_bridge before the next period's state and clock exist. Published when the
read arrived (before its answers, 3-5 ms of bytes for 26 servos), the period often ran before the
reading was through: walk_node found the joints of the period before missing at 10-13 % of its
ticks (docs/hardware.md).

The bus loop must answer within the SDK's packet timeout even on a loaded machine, so the ROS side
costs it as little as possible: the goals are published from the bus loop itself, at most every
``1 / GOAL_RATE`` s, once every servo of the bus has been brought up to date; a background
thread only takes the simulator's states, with a node that has no timer and no parameter services
(each entity of a wait set costs the Python executor time at every wake-up, and that thread shares
the interpreter lock with the bus loop).
"""

from __future__ import annotations

import sys
import threading
import time

import rclpy
from builtin_interfaces.msg import Time
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState

from ik_solvers.hardware.calibration import Calibration

GOALS_TOPIC = "servo_bus/goals"
SIM_STATES_TOPIC = "sim/joint_states"
GOAL_RATE = 200.0  # [Hz] most times the same goals are published again for the same simulator
# state (a bridge run flat out); new goals, or goals written after a new state, always go out: a
# lock-stepped simulator's period waits for the first write after its state that carries its
# command. Goals go out after each answered instruction (a cycle's Sync Write has no answer, its
# Sync Read's answer sends the new goals); a plain 200 Hz limit once dropped those until the next
# cycle (ik_demo --servo-bus: each period took two cycles, real-time factor 0.50)
# The ROS thread must not keep the bus loop waiting for the interpreter lock (default 5 ms).
SWITCH_INTERVAL = 0.0002  # [s]
WAIT_POLL = 0.02  # [s] between two looks at the simulator's connection
LATEST = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE)


class SimLink:
    """The ROS side of a simulated bus for the servos of ``calibration``."""

    def __init__(self, calibration: Calibration) -> None:
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.calibration = calibration
        self.joints = {joint.servo_id: joint for joint in calibration.joints}
        self.names = [joint.joint for joint in calibration.joints]
        self.goals: dict[str, float] = {}  # joint -> goal angle [rad]
        self.measured: dict[str, float] = {}  # joint -> simulated angle [rad]
        self.state_stamp = Time()  # the newest simulator state's stamp: the goals' stamp
        self.published_at = -float("inf")  # [s] monotonic
        self.published: tuple[Time, list[float]] | None = None  # (state stamp, goals [rad]) last published
        rclpy.init()
        self.node = Node("servo_bus_emulator", start_parameter_services=False)
        self.publisher = self.node.create_publisher(JointState, GOALS_TOPIC, LATEST)
        self.node.create_subscription(JointState, SIM_STATES_TOPIC, self.on_states, LATEST)
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except ExternalShutdownException:
            pass

    def wait_for_simulator(self, timeout: float) -> None:
        """Return once sim_node's first state came and it subscribes to the goals.

        Raises:
            TimeoutError: not within ``timeout`` [s]; the message says which half is missing.
        """
        deadline = time.monotonic() + timeout
        while not (self.measured and self.publisher.get_subscription_count()):
            if time.monotonic() > deadline:
                raise TimeoutError(self._missing_simulator(timeout))
            time.sleep(WAIT_POLL)

    def _missing_simulator(self, timeout: float) -> str:
        """What of the simulator's connection did not come within ``timeout`` [s], in words."""
        missing = [] if self.measured else [f"no joint state on {SIM_STATES_TOPIC}"]
        if not self.publisher.get_subscription_count():
            missing.append(f"no subscriber to {GOALS_TOPIC}")
        return (
            f"no simulator within {timeout:g} s ({', '.join(missing)}): start sim_node with "
            f"joint_commands:={GOALS_TOPIC} and /joint_states:={SIM_STATES_TOPIC} (or bus_goals:="
            f"{GOALS_TOPIC}) on the same ROS_DOMAIN_ID"
        )

    def on_states(self, msg: JointState) -> None:
        """Keep the simulator's latest joint angles."""
        self.measured.update(zip(msg.name, msg.position))
        self.state_stamp = msg.header.stamp

    def publish_goals(self) -> None:
        """The servos' goals as joint angles (once every servo has been given one), after an
        instruction was answered; the same goals for the same state at most at GOAL_RATE."""
        now = time.monotonic()
        if not rclpy.ok():  # stopping: SIGINT shut the context down before the bus loop ended
            return
        if len(self.goals) != len(self.names):
            return
        published = (self.state_stamp, [self.goals[n] for n in self.names])
        if published == self.published and now - self.published_at < 1.0 / GOAL_RATE:
            return
        self.published_at, self.published = now, published
        goals = JointState(name=self.names, position=published[1])
        goals.header.stamp = self.state_stamp  # written after that state: a lock-stepped period may run
        self.publisher.publish(goals)

    def position_source(self, servo_id: int, goal: int) -> float:
        """The present position [tick] of servo ``servo_id`` whose goal is ``goal`` [tick]."""
        joint = self.joints[servo_id]
        self.goals[joint.joint] = joint.to_angle(goal)
        return joint.servo_position(self.measured.get(joint.joint, joint.to_angle(goal)))

    def close(self) -> None:
        """Stop spinning and shut rclpy down."""
        self.executor.shutdown(timeout_sec=1.0)
        self.thread.join(timeout=1.0)
        self.node.destroy_node()
        rclpy.try_shutdown()
