"""Test helper node: republishes every JointState from ``echo_in`` on ``echo_out``.

Started as a separate process by test_ros_smoke.py to exercise DDS between processes.
"""

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from sensor_msgs.msg import JointState


class JointStateEcho(Node):
    """Echo JointState messages from one topic to another."""

    def __init__(self) -> None:
        super().__init__("joint_state_echo")
        self.publisher = self.create_publisher(JointState, "echo_out", 10)
        self.create_subscription(JointState, "echo_in", self.publisher.publish, 10)
        self.get_logger().info("ready")


def main() -> None:
    """Spin the echo node until interrupted."""
    try:
        with rclpy.init():
            rclpy.spin(JointStateEcho())
    except (KeyboardInterrupt, ExternalShutdownException):
        pass


if __name__ == "__main__":
    main()
