"""walk_node: velocity commands → the walking pattern generator → whole-body targets for ik_node (ROS)."""
