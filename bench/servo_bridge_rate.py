"""The servo_bridge node's bus rate with commands arriving as in the demo, without MuJoCo.

Starts ``servo_bus_emulator`` (26 servos, 1 Mbit/s, on a pty) and the ``servo_bridge`` console
script against it, publishes ``joint_commands`` of all 26 joints at ``--commands`` Hz from this
process (the demo's ik_node sends 4 chains x 100 Hz), stops the bridge after ``--seconds`` and
prints its summary: mean cycle rate, the rate 99 % of the cycles reach (p1), overruns (cycles that
ended after the next one's deadline), dropped deadlines, the longest gap, errors; and the bridge's CPU time [s] per
second of the run (user + system, /proc), beside ``uptime``.

Run: ``python bench/servo_bridge_rate.py [--protocol feetech] [--seconds 20] [--commands 400]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rclpy
from sensor_msgs.msg import JointState

from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.emulator.client import EmulatorProcess
from ik_solvers.resources import package_share_path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
STOP_TIMEOUT = 10.0  # [s]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time [s] of ``pid`` and its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def publish_commands(names: list[str], rate: float, seconds: float) -> None:
    """A slow sway of every joint on ``joint_commands`` at ``rate`` [Hz] for ``seconds``."""
    node = rclpy.create_node("servo_bridge_rate_commands")
    publisher = node.create_publisher(JointState, "joint_commands", 10)
    start = time.monotonic()
    k = 0
    while (now := time.monotonic()) - start < seconds:
        angle = 0.2 * math.sin(now)
        publisher.publish(JointState(name=names, position=[angle] * len(names)))
        k += 1
        time.sleep(max(0.0, start + k / rate - time.monotonic()))
    node.destroy_node()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--protocol", choices=("dynamixel", "feetech"), default="dynamixel")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--commands", type=float, default=400.0, help="joint_commands per second")
    args = parser.parse_args()
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    calibration_file = package_share_path("config", "servos", f"humanoid_{args.protocol}.yaml")
    names = list(load_calibration(calibration_file).joint_names)
    folder = Path(tempfile.mkdtemp(prefix="servo_bridge_rate_"))
    stats = folder / "stats.json"
    print(subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip())
    emulator = EmulatorProcess(["--calibration", str(calibration_file), "--link", str(folder / "tty")])
    with emulator, open(folder / "servo_bridge.log", "wb") as log:
        bridge = subprocess.Popen(
            [sys.executable, "-m", "ik_solvers.hardware.servo_bridge_node", "--ros-args"]
            + ["-p", f"calibration:={calibration_file}", "-p", f"port:={emulator.port}"]
            + ["-p", f"stats_file:={stats}"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        rclpy.init()
        try:
            time.sleep(3.0)  # the bridge's start-up
            cpu_before, start = cpu_seconds(bridge.pid), time.monotonic()
            publish_commands(names, args.commands, args.seconds)
            cpu = (cpu_seconds(bridge.pid) - cpu_before) / (time.monotonic() - start)
        finally:
            bridge.send_signal(signal.SIGINT)
            bridge.wait(timeout=STOP_TIMEOUT)
            rclpy.shutdown()
    if not stats.is_file():
        print(f"servo_bridge wrote no summary; its log: {folder / 'servo_bridge.log'}")
        return 1
    summary = json.loads(stats.read_text())
    print(
        f"servo_bridge ({args.protocol}, {args.commands:g} commands/s, {args.seconds:g} s): "
        f"{summary['cycle_hz']:.1f} Hz mean, p1 {summary.get('cycle_hz_p1', math.nan):.1f} Hz, "
        f"{summary.get('overruns', '?')} overruns, {summary.get('dropped', '?')} dropped, longest gap {summary['longest_gap_s']} s, "
        f"{summary['errors']} errors {summary['errors_by_kind']}; CPU {cpu:.2f} s/s"
    )
    print(subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
