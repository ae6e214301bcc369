"""Fall detection lead time: how long before the torso hits the floor each fall is detected.

The offline walking loop (:class:`ik_solvers.walk.offline.OfflineWalker`, MuJoCo, no ROS) on the
packaged robot and the factory variants of ``test/walking_robots.py``; the fall detector
(:class:`ik_solvers.sensors.FallDetector`, thresholds scaled to each robot's CoM height) reads the
simulated IMU (every sample, ``imu.rate`` 250 Hz) and, with ``--noise``, the IMU's noise and bias
with the orientation from the Fusion AHRS filter. Falls: a standing robot pushed
and a walking one pushed (a velocity change of the whole robot, forward, back, left, right;
``--push`` and ``--walking-push`` m/s). For each: when the fall was detected, when the body first
touched the floor (any part but the soles it stood on: torso, arms, knees; the torso itself lands
later, or never when an arm holds it up), the lead time between them (the issue's figure: at
least 0.2 s) and the torso's tilt at the end (a robot that stands again: no fall to detect); then the walking programme (forward, turn, sidestep) with the largest predicted
tilt seen against the threshold (a false alarm would be a detection there).

Run: ``python bench/fall_bench.py [--push 1.0] [--noise] [--robots packaged,long_legs_heavier]``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import mujoco
import numpy as np

from ik_solvers.resources import package_share_path
from ik_solvers.sensors import AttitudeFilter, FallDetector
from ik_solvers.sim.imu import ImuConfig, NoisyImu
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

PUSHES = {"forward": (1, 0), "back": (-1, 0), "left": (0, 1), "right": (0, -1)}
NOISE = ImuConfig(gyro_noise=0.005, gyro_bias=0.01, accel_noise=0.05, accel_bias=0.1, seed=1)
FALL_TIME = 3.0  # [s] watched after a push
STANDING = (0.0, 0.0, 0.0)


class Watcher:
    """Feeds a walker's IMU samples to a fall detector; finds the torso's first floor contact."""

    def __init__(self, walker: OfflineWalker, noise: bool) -> None:
        self.walker, self.robot = walker, walker.robot
        self.detector = FallDetector(walker.generator.geometry.com_height)
        self.imu = NoisyImu(NOISE if noise else ImuConfig())
        self.attitude = AttitudeFilter(NOISE.rate) if noise else None
        self.floor = self.robot.model.geom("floor").id
        self.soles = self._touching()  # standing: the soles' geoms; any other contact is the body's
        self.detected = self.impact = None
        self.largest = 0.0  # [rad] largest predicted tilt seen

    def tick(self, command=STANDING) -> None:
        self.walker.run([(self.walker.generator.config.dt, command)])
        for sample in self.robot.take_imu_samples():
            measured = self.imu.measure(sample)
            if self.attitude is not None:
                measured = measured._replace(
                    orientation=self.attitude.update(measured.gyro, measured.accelerometer)
                )
            state = self.detector.update(sample.time, measured.orientation, measured.gyro)
            self.largest = max(self.largest, state.predicted_tilt)
            if state.fallen and self.detected is None:
                self.detected = state.time
        if self.impact is None and self._touching() - self.soles:
            self.impact = self.robot.time

    def final_tilt(self) -> float:
        """[deg] the torso's tilt now."""
        from ik_solvers.sensors import tilt

        return math.degrees(tilt(self.robot.imu()[0]))

    def _touching(self) -> set[int]:
        """The robot's geoms touching the floor now."""
        data, touching = self.robot.data, set()
        for contact in data.contact[: data.ncon]:
            pair = {int(contact.geom1), int(contact.geom2)}
            if self.floor in pair:
                touching |= pair - {self.floor}
        return touching


def walker_for(urdf: str, noise: bool) -> Watcher:
    walker = OfflineWalker(urdf, load_walk_config())
    walker.settle(0.5)
    watcher = Watcher(walker, noise)
    for _ in range(100):  # 1 s standing: the attitude filter settles, no fall
        watcher.tick()
    return watcher


def push_trial(
    urdf: str, direction: tuple[int, int], speed: float, noise: bool, walking: bool
) -> tuple[float | None, float | None, float]:
    """(detected, body hits floor) [s] after the push and the final tilt [deg]: a push of ``speed``
    [m/s] in ``direction`` (world x, y) standing, or 4 s into a forward walk."""
    watcher = walker_for(urdf, noise)
    command = (0.9 * watcher.walker.generator.max_command[0], 0.0, 0.0) if walking else STANDING
    for _ in range(400 if walking else 0):
        watcher.tick(command)
    if watcher.detected is not None:
        return -1.0, None, 0.0  # a false alarm before the push
    start = watcher.robot.time
    watcher.robot.data.qvel[:2] += speed * np.asarray(direction, dtype=float)  # the whole robot
    mujoco.mj_forward(watcher.robot.model, watcher.robot.data)
    while watcher.robot.time - start < FALL_TIME and watcher.impact is None:
        watcher.tick(command)
    return _relative(watcher.detected, start), _relative(watcher.impact, start), watcher.final_tilt()


def walking_programme(urdf: str, noise: bool) -> tuple[float, float | None]:
    """(largest predicted tilt [rad], false alarm time [s] or None) over the demo's walk."""
    from ik_solvers.demo.walk_timeline import walk_commands

    watcher = walker_for(urdf, noise)
    for command in walk_commands(watcher.walker.generator):
        for _ in range(round(command.duration / watcher.walker.generator.config.dt)):
            watcher.tick(command.command)
    return watcher.largest, watcher.detected


def _relative(moment: float | None, start: float) -> float | None:
    return None if moment is None else moment - start


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.3f}"


def robots(names: list[str] | None) -> dict[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
    from walking_robots import WALKING_VARIANTS, variant_urdf

    chosen = {"packaged": package_share_path("urdf", "humanoid.urdf").read_text()}
    chosen.update({name: variant_urdf(name) for name in WALKING_VARIANTS})
    return {name: urdf for name, urdf in chosen.items() if names is None or name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--push", type=float, nargs="+", default=[1.0], help="velocity changes of the pushes [m/s]"
    )
    parser.add_argument(
        "--walking-push", type=float, nargs="+", default=[0.3], help="pushes while walking [m/s]"
    )
    parser.add_argument("--noise", action="store_true", help="IMU noise and bias, orientation from the AHRS")
    parser.add_argument("--robots", help="comma-separated names (default: all)")
    options = parser.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.1f}; IMU {'with noise, fused attitude' if options.noise else 'ideal'}"
    )
    print(
        f"{'robot':>20} {'push [m/s]':>18} {'detected [s]':>13} {'body hits [s]':>15} {'lead [s]':>9} {'tilt [deg]':>9}"
    )
    start = time.perf_counter()
    for name, urdf in robots(options.robots.split(",") if options.robots else None).items():
        trials = {
            f"{'walking' if walking else 'standing'} {d} {speed:g}": push_trial(
                urdf, v, speed, options.noise, walking
            )
            for walking, speeds in ((False, options.push), (True, options.walking_push))
            for speed in speeds
            for d, v in PUSHES.items()
        }
        for fall, (detected, impact, tilt) in trials.items():
            lead = None if detected is None or impact is None else impact - detected
            print(
                f"{name:>20} {fall:>18} {_seconds(detected):>13} {_seconds(impact):>15} {_seconds(lead):>9} "
                f"{tilt:>9.0f}"
            )
        largest, alarm = walking_programme(urdf, options.noise)
        threshold = FallDetector(1.0).thresholds.tilt
        print(
            f"{name:>20} walking programme: largest predicted tilt {math.degrees(largest):.1f} deg "
            f"(threshold {math.degrees(threshold):.1f}); false alarm: {_seconds(alarm)}",
            flush=True,
        )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
