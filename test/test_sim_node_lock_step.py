"""sim_node in lock-step over real DDS: simulated time advances one control period per current command.

The commanding node here stands in for ik_node (the real one is exercised by the demo tests); it
stamps its commands with the simulated time it reads on /clock, as a node with use_sim_time does.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from ros_helpers import spin_until

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from rclpy.time import Time
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

PERIOD_NS = 10_000_000  # control_period 0.01 s (a whole number of the default 2 ms timesteps)
QUIET = 1.5  # [s] spun without commands: a free-running simulator would advance ~1.5 s meanwhile


def _nanoseconds(stamp) -> int:
    return Time.from_msg(stamp).nanoseconds


@pytest.fixture
def lock_stepped(processes, make_node, executor):
    """A lock-stepped sim_node that never advances on its own (timeout 1000 s); the test's node."""
    process = processes.start_console_script(
        "sim_node",
        "--ros-args",
        "-p",
        "lock_step:=true",
        "-p",
        "control_period:=0.01",
        "-p",
        "lock_step_timeout:=1000.0",
    )
    node = make_node("lock_step_test")
    clocks: list[int] = []
    states: list[JointState] = []
    node.create_subscription(Clock, "/clock", lambda m: clocks.append(_nanoseconds(m.clock)), 100)
    node.create_subscription(JointState, "/joint_states", states.append, 100)
    publisher = node.create_publisher(JointState, "joint_commands", 10)
    assert spin_until(executor, lambda: bool(clocks), timeout=20.0), processes.output(process)
    return process, publisher, clocks, states


def _command(stamp_ns: int) -> JointState:
    message = JointState()
    message.header.stamp = Time(nanoseconds=stamp_ns).to_msg()
    message.name, message.position = ["left_knee"], [0.2]
    return message


def test_simulated_time_waits_for_a_command_stamped_at_the_current_time(lock_stepped, executor):
    process, publisher, clocks, states = lock_stepped
    spin_until(executor, lambda: False, timeout=QUIET)
    assert set(clocks) == {0}, "simulated time advanced although nothing commanded"
    assert not states
    for period in (1, 2, 3):
        publisher.publish(_command((period - 1) * PERIOD_NS))  # current: stamped at the sim time
        now = period * PERIOD_NS
        assert spin_until(
            executor, lambda n=now, p=period: clocks[-1] == n and len(states) == p, timeout=20.0
        )
        assert _nanoseconds(states[-1].header.stamp) == now  # stamped with the simulated time
    publisher.publish(_command(PERIOD_NS))  # stale: stamped two periods before the sim time
    spin_until(executor, lambda: False, timeout=QUIET)
    assert max(clocks) == 3 * PERIOD_NS, "a stale command advanced the simulation"
    assert sorted(set(clocks)) == [p * PERIOD_NS for p in range(4)]  # one period per command
    assert process.poll() is None


def test_without_commands_the_simulation_advances_after_the_timeout(processes, make_node, executor):
    process = processes.start_console_script(
        "sim_node", "--ros-args", "-p", "lock_step:=true", "-p", "lock_step_timeout:=0.05"
    )
    node = make_node("lock_step_timeout_test")
    clocks: list[int] = []
    node.create_subscription(Clock, "/clock", lambda m: clocks.append(_nanoseconds(m.clock)), 100)
    advanced = spin_until(executor, lambda: len(set(clocks)) >= 4, timeout=30.0)  # 3 advances seen
    assert advanced, f"lock-step deadlocked without commands:\n{processes.output(process)}"
    steps = {b - a for a, b in pairwise(clocks) if b != a}
    assert steps == {PERIOD_NS}
