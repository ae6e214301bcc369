"""What a flood of commands for unknown joints costs sim_node: log growth and memory growth.

Starts sim_node (its console script, the packaged humanoid, fixed base), then publishes
``joint_commands`` with ``--names`` new unknown joint names per message as fast as this process can,
for ``--seconds``. Prints the messages sent, the bytes sim_node wrote (stdout and stderr, what a
launch log collects) and its resident memory growth (VmRSS from /proc) from just before the flood to
after it. Loopback only; the process is stopped at the end.

Run: ``python bench/sim_node_flood.py [--seconds 10] [--names 50]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # before rclpy initialises

import rclpy
from sensor_msgs.msg import JointState

from ik_solvers.demo.processes import console_script

SETTLE = 2.0  # [s] after the flood: sim_node takes what is queued


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` [bytes]."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def spin_for(node, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)


def flood(node, seconds: float, names: int) -> int:
    """Publish commands with ``names`` new names each for ``seconds``; the number sent."""
    publisher = node.create_publisher(JointState, "joint_commands", 10)
    while publisher.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.05)
    sent, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = JointState()
        message.name = [f"unknown_{sent}_{k}" for k in range(names)]
        message.position = [0.0] * names
        publisher.publish(message)
        sent += 1
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--names", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log_path = Path(folder) / "sim_node.log"
        env = {**os.environ, "ROS_LOG_DIR": folder}
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [console_script("sim_node")], stdout=log, stderr=subprocess.STDOUT, env=env
            )
        try:
            with rclpy.init():
                node = rclpy.create_node("sim_node_flood")
                spin_for(node, 3.0)  # sim_node up and its memory settled
                log_before, rss_before = log_path.stat().st_size, rss_bytes(process.pid)
                sent = flood(node, options.seconds, options.names)
                spin_for(node, SETTLE)
                log_growth, rss_growth = (
                    log_path.stat().st_size - log_before,
                    rss_bytes(process.pid) - rss_before,
                )
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=10)
    print(
        f"{sent} messages ({sent / options.seconds:.0f}/s, {options.names} new names each) in {options.seconds:g} s: "
        f"sim_node's log grew {log_growth / 1e3:.1f} kB, its memory {rss_growth / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
