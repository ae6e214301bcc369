"""The open-loop walk on realistic servos: the demo's walking programme per servo model.

The offline walking loop (:class:`ik_solvers.walk.offline.OfflineWalker`, MuJoCo, no ROS) walks
the demo's programme (forward 1 m, turn 90°, sidestep 0.3 m, each then a stop) on the packaged
robot with each servo set-up below, and prints one row each: whether it fell and when, the
distance, the heading error, the smallest CoM margin, the largest tilt and sole slip (the demo's
figures). Servo models: ``config/servos/servo_models.yaml`` (Rhoban's BAM); ``p_gain`` is the
firmware's position gain (MX-106 default 32, at most 254), ``backlash`` the gears' play,
``latency`` the bus delay; "compensated": the leg targets carry the servos' expected deflection
(:mod:`ik_solvers.whole_body.servo_compliance`).

Run: ``python bench/servo_model_walk.py [--urdf FILE] [--only compensated|plain]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from ik_solvers.demo.walk_report import walk_metrics
from ik_solvers.demo.walk_run import WalkRun
from ik_solvers.demo.walk_timeline import walk_commands
from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.walk.walk_metrics import tilt_degrees

HUMANOID = str(package_share_path("config", "servos", "humanoid_servo_models.yaml"))
SETUPS = [  # (label, servo_model selection or YAML text, command latency [s], compensated)
    ("ideal", "ideal", 0.0, False),
    ("ideal, 6 ms latency", "ideal", 0.006, False),
    ("humanoid file (MX-106 legs, P 254)", HUMANOID, 0.006, False),
    ("MX-106 P 32", "default: {model: mx106}", 0.006, False),
    ("MX-106 P 64", "default: {model: mx106, p_gain: 64}", 0.006, False),
    ("MX-106 P 128", "default: {model: mx106, p_gain: 128}", 0.006, False),
    ("MX-106 P 254, half the play", "default: {model: mx106, p_gain: 254, backlash: 0.0029}", 0.006, False),
    ("MX-106 P 254, no play", "default: {model: mx106, p_gain: 254, backlash: 0}", 0.006, False),
    ("MX-106 P 128, no play", "default: {model: mx106, p_gain: 128, backlash: 0}", 0.006, False),
    ("humanoid file, compensated", HUMANOID, 0.006, True),
    ("MX-106 P 32, compensated", "default: {model: mx106}", 0.006, True),
    ("MX-106 P 64, compensated", "default: {model: mx106, p_gain: 64}", 0.006, True),
    ("MX-106 P 128, compensated", "default: {model: mx106, p_gain: 128}", 0.006, True),
    ("humanoid file, 16 ms, compensated", HUMANOID, 0.016, True),
]


def selection(value: str, folder: Path, index: int) -> str:
    """A model name or file as is; YAML text written to a file in ``folder``."""
    if "\n" in value or ":" in value and not Path(value).is_file():
        path = folder / f"setup{index}.yaml"
        path.write_text(value + "\n")
        return str(path)
    return value


def walk(urdf: str, servo: ServoConfig, compensate: bool) -> tuple[dict, float | None]:
    """The programme's walking figures and when the torso first tilted past 30° [s] (None: never)."""
    walker = OfflineWalker(urdf, load_walk_config(), servo, compensate=compensate)
    walker.settle(0.5)
    run = WalkRun(walker.log)
    for command in walk_commands(walker.generator):
        begin = walker.robot.time
        walker.run([(command.duration, command.command)])
        run.stretches.append((command.name, begin, walker.robot.time))
    run.real_time_factors.append(1.0)
    measured = walker.log.measured()
    tilted = tilt_degrees(measured["base"]) > 30.0
    fell_at = float(measured["times"][np.argmax(tilted)] - measured["times"][0]) if tilted.any() else None
    return walk_metrics(run), fell_at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urdf", type=Path, help="another humanoid (default: the packaged one)")
    parser.add_argument(
        "--only", choices=("compensated", "plain"), help="only the rows with (or without) compensation"
    )
    options = parser.parse_args()
    urdf = (options.urdf or package_share_path("urdf", "humanoid.urdf")).read_text()
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"{'servos':>36} {'fell [s]':>9} {'dist [m]':>9} {'heading [deg]':>14} {'CoM margin [mm]':>16} "
        f"{'tilt [deg]':>11} {'slip [mm]':>10}"
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for index, (label, value, latency, compensate) in enumerate(SETUPS):
            if options.only and compensate != (options.only == "compensated"):
                continue
            servo = ServoConfig(servo_model=selection(value, Path(folder), index), command_latency=latency)
            metrics, fell_at = walk(urdf, servo, compensate)
            fell = "no" if fell_at is None else f"{fell_at:.1f}"
            print(
                f"{label:>36} {fell:>9} {metrics.distance_m:9.3f} {metrics.heading_error_deg:14.1f} "
                f"{metrics.com_margin_min_mm:16.1f} "
                f"{metrics.torso_tilt_max_deg:11.1f} {metrics.foot_slip_max_mm:10.1f}",
                flush=True,
            )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
