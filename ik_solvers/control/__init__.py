"""What the ik_node does between messages, without ROS: goals per chain and the solves behind them
(:mod:`.commander`), velocity-limited command shaping (:mod:`.command_filter`), per-chain counters
(:mod:`.statistics`). Nothing here imports rclpy or any *_msgs package (a test checks it)."""
