"""Real servo hardware: the servo bridge, its calibration and bus backends, and a bus emulator.

ROS-free apart from :mod:`ik_solvers.hardware.servo_bridge_node` (rclpy).
"""
