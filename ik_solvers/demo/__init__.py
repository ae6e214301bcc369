"""The demo's ROS-free parts: target trajectories, metrics of a run, figures, child processes."""
