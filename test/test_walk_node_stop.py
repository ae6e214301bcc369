"""walk_node's dead-man timeout over real DDS: after the last cmd_vel, the walk has ended within
``cmd_vel_timeout`` + one step period, on simulated time (``/clock``) and on the wall clock (issue 22).

"Ended" (docs/node.md): from a target on, every target walk_node publishes is double support with
both soles at height 0 — measured from the stamps of the targets against the time the test sent its
last cmd_vel, and watched for ``WATCH`` seconds more. The node runs as its console script with the
packaged config/walk.yaml (timeout 0.5 s; one step 0.8 + 1.0 s for the packaged humanoid). On
simulated time the test's node publishes /clock itself, one walk period at a time, standing in for
the simulator, and stops sending late in a swing: the slowest stop there is (the swing lands as
planned, then the other sole closes). On the wall clock it stops sending just before a swing lifts.
"""

from __future__ import annotations

import time
from functools import partial
from itertools import pairwise

import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")

from geometry_msgs.msg import Twist
from rclpy.time import Time
from rosgraph_msgs.msg import Clock

from ik_solvers.model import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.whole_body import WalkingPatternGenerator
from ik_solvers_interfaces.msg import WholeBodyTarget

CONFIG = str(package_share_path("config", "walk.yaml"))
TIMEOUT = 0.5  # [s] config/walk.yaml's cmd_vel_timeout
SPEED = 0.06  # [m/s] forward
WATCH = 2.5  # [s] after the walk ended: longer than any double support while walking (1.0 s)
DOUBLE = WholeBodyTarget.SUPPORT_DOUBLE


@pytest.fixture(scope="module")
def timing():
    """The packaged humanoid's scaled timing: (walk period, swing, one step) [s]."""
    model = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    config = WalkingPatternGenerator(model, load_walk_config()).config
    return config.dt, config.single_support, config.step_period


def _forward() -> Twist:
    twist = Twist()
    twist.linear.x = SPEED
    return twist


def _record(rows: list, target: WholeBodyTarget) -> None:
    """(stamp [s], support, whether both soles are down) of a target."""
    down = target.left_sole.position.z == 0.0 and target.right_sole.position.z == 0.0
    rows.append((Time.from_msg(target.header.stamp).nanoseconds * 1e-9, target.support, down))


def _lifts(rows: list) -> list[float]:
    """Stamps [s] at which a swing began (double support, then single)."""
    return [now for (_, before, _), (now, support, _) in pairwise(rows) if before == DOUBLE != support]


def _answered(rows: list, now: float) -> bool:
    """A target stamped ``now`` [s] (or later) came."""
    return bool(rows) and rows[-1][0] >= now - 1e-6


def _publish_until_answered(clock, executor, rows: list, now: float) -> bool:
    """Publish /clock at ``now`` [s] until a target stamped then comes (a /clock message sent while
    the node's best-effort clock subscription was still matching is lost; the same time again
    starts no second tick)."""
    message = Clock(clock=Time(nanoseconds=round(now * 1e9)).to_msg())
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        clock.publish(message)
        if spin_until(executor, partial(_answered, rows, now), timeout=0.5):
            return True
    return False


def _ended(rows: list) -> float:
    """The stamp [s] from which every target is double support with both soles down."""
    last_moving = max(i for i, (_, support, down) in enumerate(rows) if support != DOUBLE or not down)
    return rows[last_moving + 1][0]


def _start(processes, make_node, executor, name: str, *arguments: str):
    process = processes.start_console_script("walk_node", "--ros-args", "--params-file", CONFIG, *arguments)
    node = make_node(name)
    rows: list = []
    targets = node.create_subscription(WholeBodyTarget, "whole_body/target", partial(_record, rows), 1000)
    commands = node.create_publisher(Twist, "cmd_vel", 10)
    matched = wait_for_matching(executor, commands) and wait_for_matching(executor, targets)
    assert matched, processes.output(process)
    return process, node, rows, commands


def test_walk_ends_within_timeout_and_one_step_of_the_last_cmd_vel_on_simulated_time(
    processes, make_node, executor, timing
):
    dt, swing, step = timing
    process, node, rows, commands = _start(
        processes, make_node, executor, "walk_stop_sim_test", "-p", "use_sim_time:=true"
    )
    clock = node.create_publisher(Clock, "/clock", 10)
    assert wait_for_matching(executor, commands) and wait_for_matching(executor, clock), processes.output(
        process
    )
    last_command, tick = None, 0
    while last_command is None or tick * dt < last_command + TIMEOUT + step + WATCH:
        tick += 1
        now = tick * dt
        assert _publish_until_answered(clock, executor, rows, now), (
            f"no target stamped {now:.2f} s\n{processes.output(process)}"
        )
        if last_command is None:
            commands.publish(_forward())
            lifts = _lifts(rows)
            if len(lifts) >= 2 and now >= lifts[1] + 0.125 * swing:  # the timeout comes late in it
                last_command = now
                spin_until(executor, lambda: False, timeout=0.2)  # received while the clock reads now
    ended = _ended(rows)
    assert ended - last_command <= TIMEOUT + step + 1e-6, (
        f"last cmd_vel at {last_command:.2f} s, walk ended at {ended:.2f} s of simulated time: "
        f"{ended - last_command:.2f} s > {TIMEOUT} + {step} s"
    )
    assert rows[-1][0] - ended >= WATCH - 1e-6
    # the stop says so: a walk that ended for want of cmd_vel is told from one that never began
    said = lambda: "no cmd_vel for" in processes.output(process)
    assert spin_until(executor, said, timeout=5.0), processes.output(process)


def test_walk_ends_within_timeout_and_one_step_of_the_last_cmd_vel_on_the_wall_clock(
    processes, make_node, executor, timing
):
    _, _, step = timing
    process, _, rows, commands = _start(processes, make_node, executor, "walk_stop_wall_test")
    assert spin_until(executor, lambda: len(rows) > 10), processes.output(process)
    while True:
        commands.publish(_forward())
        last_command = time.time()
        lifts = _lifts(rows)
        if len(lifts) >= 2 and last_command >= lifts[1] + step - 0.3:  # 0.3 s before the 3rd swing
            break
        spin_until(executor, lambda: False, timeout=0.05)
        assert last_command - rows[0][0] < 30.0, f"walk_node did not step\n{processes.output(process)}"
    spin_until(executor, lambda: False, timeout=TIMEOUT + step + WATCH)
    ended = _ended(rows)
    assert ended - last_command <= TIMEOUT + step, (
        f"walk ended {ended - last_command:.3f} s after the last cmd_vel > {TIMEOUT} + {step} s"
    )
    assert rows[-1][0] - ended >= WATCH - 0.1
