"""How long after its last cmd_vel the walk ends: walk_node's dead-man timeout, three ways.

"Ended" (docs/node.md, "How soon the robot stops"): from then on every whole-body target is double
support with both soles at height 0 (no step planned any more). The bound is ``cmd_vel_timeout``
+ one step (``walk.single_support + walk.double_support``, as scaled for the robot), with
``config/walk.yaml`` on the packaged humanoid.

1. pattern, simulated time, no ROS: walk_node's logic in one loop at ``walk.dt`` — forward,
   sideways and turning at the largest speeds, the last cmd_vel at ``PHASES`` instants spread over
   a step period, the stop (:meth:`WalkingPatternGenerator.stop`) at the tick of the timeout;
2. walk_node over DDS on ``/clock`` (this script publishes it, one period at a time), forward,
   the timeout coming early and late in a swing and early and late in a double support;
3. the same on the wall clock (target stamps against the time the last cmd_vel was sent).

Run: ``python bench/walk_stop.py`` (``--pattern-only`` for part 1; sets the loopback-only discovery
range and a domain id of its own). Prints the load beside the figures.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from itertools import pairwise
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # before rclpy initialises, here and in children

from ik_solvers.node import domains

domains.hold_a_free_domain(domains.BENCH_DOMAINS)  # a domain of its own, held while it runs

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.whole_body import WalkingPatternGenerator

TIMEOUT = 0.5  # [s] config/walk.yaml's cmd_vel_timeout
KINDS = {"forward": (1.0, 0.0, 0.0), "sideways": (0.0, 1.0, 0.0), "turning": (0.0, 0.0, 1.0)}
PHASES = 36  # part 1: last cmd_vel instants per step period
WALK = 5.0  # [s] part 1: walking before the first of them
SPEED = 0.06  # [m/s] forward, parts 2 and 3
TIMEOUT_AT = {  # parts 2 and 3: when the timeout comes, after the second swing lifts [s]
    "early in a swing": lambda c: 0.25 * c.single_support,
    "late in a swing": lambda c: 0.75 * c.single_support,
    "early in a double support": lambda c: c.single_support + 0.1 * c.double_support,
    "late in a double support": lambda c: c.single_support + 0.9 * c.double_support,
}
WATCH = 2.5  # [s] parts 2 and 3: watched after the walk ended (no step may come)


def pattern_stops(model: RobotModel, kind: str) -> list[float]:
    """Part 1: [s] from the last cmd_vel to the end of the walk, per instant."""
    config = WalkingPatternGenerator(model, load_walk_config()).config
    ended_after = []
    for last in WALK + np.arange(PHASES) * config.step_period / PHASES:
        generator = WalkingPatternGenerator(model, load_walk_config())
        generator.set_command(*(np.array(KINDS[kind]) * generator.max_command))
        last = round(last / config.dt) * config.dt
        moving = last
        while generator.time < last + TIMEOUT + config.step_period + WATCH:
            if abs(generator.time - (last + TIMEOUT)) < 1e-9:
                generator.stop()
            tick = generator.step()
            if tick.support != "double" or tick.left_sole[2, 3] != 0.0 or tick.right_sole[2, 3] != 0.0:
                moving = tick.time + config.dt
        ended_after.append(max(moving - last, 0.0))  # 0: both soles were down then, no step came
    return ended_after


class StopBench:
    """walk_node as a console script and this script's node: cmd_vel out, targets in (and /clock)."""

    def __init__(self, simulated: bool, log_dir: Path) -> None:
        import rclpy
        from geometry_msgs.msg import Twist
        from rclpy.executors import SingleThreadedExecutor
        from rosgraph_msgs.msg import Clock

        from ik_solvers.demo.processes import Children
        from ik_solvers_interfaces.msg import WholeBodyTarget

        self.Twist, self.Clock, self.double = Twist, Clock, WholeBodyTarget.SUPPORT_DOUBLE
        arguments = ["--ros-args", "--params-file", str(package_share_path("config", "walk.yaml"))]
        self.children = Children(log_dir)
        self.children.start("walk_node", *arguments, *(["-p", "use_sim_time:=true"] if simulated else []))
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("walk_stop_bench", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.rows: list[tuple[float, int, bool]] = []  # (stamp [s], support, both soles down)
        self.targets = self.node.create_subscription(WholeBodyTarget, "whole_body/target", self.record, 1000)
        self.commands = self.node.create_publisher(Twist, "cmd_vel", 10)
        self.clock = self.node.create_publisher(Clock, "/clock", 10) if simulated else None
        self.ticks, self.now = 0, 0.0  # periods and [s] of simulated time published

    def record(self, target) -> None:
        down = target.left_sole.position.z == 0.0 and target.right_sole.position.z == 0.0
        stamp = target.header.stamp.sec + 1e-9 * target.header.stamp.nanosec
        self.rows.append((stamp, target.support, down))

    def spin(self, seconds: float, until=lambda: False) -> bool:
        deadline = time.monotonic() + seconds
        while not until() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.01)
        return until()

    def wait_ready(self) -> None:
        ready = self.spin(60.0, lambda: self.commands.get_subscription_count() > 0)
        ready = ready and self.spin(60.0, lambda: self.targets.get_publisher_count() > 0)
        if self.clock is not None:
            ready = ready and self.spin(60.0, lambda: self.clock.get_subscription_count() > 0)
        if not ready:
            raise RuntimeError("walk_node did not come up")

    def advance(self, dt: float) -> float:
        """One period: /clock on simulated time (waits for its target), else a short wall wait."""
        if self.clock is None:
            self.spin(0.05)
            return time.time()
        self.ticks += 1
        nanoseconds = round(self.ticks * dt * 1e9)
        stamp, self.now = self.Clock(), nanoseconds * 1e-9
        stamp.clock.sec, stamp.clock.nanosec = divmod(nanoseconds, 1_000_000_000)
        for _ in range(60):  # again until answered: one sent while the clock subscription matched is lost
            self.clock.publish(stamp)
            if self.spin(0.5, lambda: bool(self.rows) and self.rows[-1][0] >= self.now - 1e-6):
                return self.now
        raise RuntimeError(f"no target stamped {self.now:.2f} s")

    def walk_and_stop(self, config, timeout_at: float) -> tuple[float, float]:
        """Walk forward; stop sending so that the timeout comes ``timeout_at`` [s] after the second
        swing lifted; [s] from the last cmd_vel to the end of the walk, and the longest gap [s]
        between two targets meanwhile (walk_node stalled: a plan that slips past its catch-up)."""
        first, twist = len(self.rows), self.Twist()
        twist.linear.x = SPEED
        while True:
            now = self.advance(config.dt)
            self.commands.publish(twist)
            lifts = [b[0] for a, b in pairwise(self.rows[first:]) if a[1] == self.double != b[1]]
            if lifts and now >= lifts[0] + config.step_period + timeout_at - TIMEOUT:
                break
        last = now if self.clock is not None else time.time()
        self.spin(0.2)  # received while the clock still reads it
        while self.advance(config.dt) < last + TIMEOUT + config.step_period + WATCH:
            pass
        rows = self.rows[first:]
        moving = max(i for i, (_, support, down) in enumerate(rows) if support != self.double or not down)
        stamps = np.array([row[0] for row in rows[: moving + 2] if row[0] >= last])
        return rows[moving + 1][0] - last, float(np.diff(stamps).max(initial=0.0))

    def close(self) -> None:
        self.node.destroy_node()
        self.context.try_shutdown()
        self.children.stop_all()


def node_stops(simulated: bool, config) -> dict[str, tuple[float, float]]:
    """Parts 2 and 3, per TIMEOUT_AT case: :meth:`StopBench.walk_and_stop`'s figures."""
    with tempfile.TemporaryDirectory() as folder:
        bench = StopBench(simulated, Path(folder))
        try:
            bench.wait_ready()
            return {name: bench.walk_and_stop(config, at(config)) for name, at in TIMEOUT_AT.items()}
        finally:
            bench.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pattern-only", action="store_true", help="part 1 only (no ROS)")
    options = parser.parse_args()
    model = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    config = WalkingPatternGenerator(model, load_walk_config()).config
    bound = TIMEOUT + config.step_period
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"bound: cmd_vel_timeout {TIMEOUT} s + one step ({config.single_support:.2f} s swing + "
        f"{config.double_support:.2f} s transfer) = {bound:.2f} s after the last cmd_vel"
    )
    for kind in KINDS:
        after = pattern_stops(model, kind)
        print(
            f"pattern, simulated time, {kind} at the largest speed, {PHASES} instants over a step: "
            f"ended {min(after):.2f}-{max(after):.3f} s after the last cmd_vel (bound {bound:.2f} s)"
        )
    if options.pattern_only:
        return
    for simulated, clock in ((True, "simulated time (/clock)"), (False, "wall clock")):
        for name, (after, gap) in node_stops(simulated, config).items():
            print(
                f"walk_node over DDS, {clock}, timeout {name}: ended {after:.3f} s after the last "
                f"cmd_vel (bound {bound:.2f} s; longest gap between targets {gap:.3f} s)"
            )
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
