"""ROS 2 glue of ik_solvers: the only part of the package that imports rclpy."""
