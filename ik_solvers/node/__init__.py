"""ik_node and its parts: parameters, message conversion, the SolveIK service, command outputs,
diagnostics. ROS (rclpy, *_msgs) is imported here; the logic between messages is in
:mod:`ik_solvers.control`."""
