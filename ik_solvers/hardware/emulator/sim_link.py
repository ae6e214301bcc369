"""Emulated servos whose motion comes from the MuJoCo simulation (``servo_bus_emulator --sim``).

The emulator publishes its servos' goal registers as joint angles (sensor_msgs/JointState on
``servo_bus/goals``, which sim_node takes as its commands) and answers reads with the angles
sim_node publishes (``sim/joint_states``), converted with the robot's calibration. So the demo runs
ik_node -> servo_bridge -> serial bytes -> emulated servos -> MuJoCo -> serial bytes -> /joint_states.
rclpy spins in a background thread; the pty loop only reads the latest values.
"""

from __future__ import annotations

import sys
import threading

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from ik_solvers.hardware.calibration import Calibration

GOALS_TOPIC = "servo_bus/goals"
SIM_STATES_TOPIC = "sim/joint_states"
GOAL_RATE = 100.0  # [Hz] goals published to the simulator (the bridge writes them at 100 Hz)
# The ROS thread must not keep the bus loop waiting for the interpreter lock (default 5 ms).
SWITCH_INTERVAL = 0.0002  # [s]


class SimLink:
    """The ROS side of a simulated bus for the servos of ``calibration``."""

    def __init__(self, calibration: Calibration) -> None:
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.calibration = calibration
        self.joints = {joint.servo_id: joint for joint in calibration.joints}
        self.goals: dict[str, float] = {}  # joint -> goal angle [rad]
        self.measured: dict[str, float] = {}  # joint -> simulated angle [rad]
        rclpy.init()
        self.node = Node("servo_bus_emulator")
        self.publisher = self.node.create_publisher(JointState, GOALS_TOPIC, 10)
        self.node.create_subscription(JointState, SIM_STATES_TOPIC, self.on_states, 10)
        self.node.create_timer(1.0 / GOAL_RATE, self.publish_goals)
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except ExternalShutdownException:
            pass

    def on_states(self, msg: JointState) -> None:
        """Keep the simulator's latest joint angles."""
        self.measured.update(zip(msg.name, msg.position))

    def publish_goals(self) -> None:
        """The servos' goals as joint angles, once every servo has been given one."""
        if len(self.goals) == len(self.calibration.joints):
            names = list(self.goals)
            self.publisher.publish(JointState(name=names, position=[self.goals[n] for n in names]))

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
