"""The demo (``ik_demo``): the simulated humanoid driven by ik_node over real DDS.

- :mod:`.ik_demo`: the entry point (child processes, results table, figures).
- :mod:`.run`: the timeline; :mod:`.node`: the demo's rclpy node (targets out, recording in).
- ROS-free parts: :mod:`.trajectories` (targets), :mod:`.metrics` (the table), :mod:`.report`
  (figures), :mod:`.processes` (child processes).
"""
