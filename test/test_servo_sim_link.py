"""``servo_bus_emulator --sim`` opens its port only once the simulator is connected both ways (its
first joint state heard, its subscription to the goals matched), as powered servos answer with
their real position from the first read; without a simulator it exits 1 saying what is missing.
Every new goal written goes out to the simulator, even right after the goals before.

Opened before, the servo-bus demo's first goals were lost while discovery matched the emulator and
sim_node: the bridge saw every servo at 0 rad ignore its goal (issue 21). sim_node's side is played
here by a plain node with sim_node's two topics, which is all the emulator sees of it; the real
sim_node behind the emulator is tested by ``test_demo_servo_bus.py``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("rclpy")

from ros_helpers import spin_until
from sensor_msgs.msg import JointState

from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.emulator.sim_link import GOALS_TOPIC, SIM_STATES_TOPIC, SimLink
from ik_solvers.resources import package_share_path

CALIBRATION = package_share_path("config", "servos", "humanoid_dynamixel.yaml")
CLOSED_FOR = 1.5  # [s] the port must stay closed while half of the connection is missing


def start_emulator(processes, link, timeout: float):
    """``servo_bus_emulator --sim`` for the packaged humanoid, its port at ``link``."""
    return processes.start_console_script(
        "servo_bus_emulator",
        *("--calibration", str(CALIBRATION), "--link", str(link)),
        *("--sim", "--sim-timeout", f"{timeout:g}"),
    )


def test_without_a_simulator_the_port_stays_closed_and_the_emulator_says_what_is_missing(processes, tmp_path):
    link = tmp_path / "tty"
    emulator = start_emulator(processes, link, timeout=1.0)
    assert emulator.wait(timeout=60) == 1
    assert not link.exists()
    assert (
        f"no simulator within 1 s (no joint state on {SIM_STATES_TOPIC}, no subscriber to {GOALS_TOPIC})"
        in processes.output(emulator)
    )


def test_the_port_opens_once_the_simulator_is_heard_and_takes_the_goals(
    processes, make_node, executor, tmp_path
):
    link = tmp_path / "tty"
    emulator = start_emulator(processes, link, timeout=60.0)
    simulator = make_node("sim_stand_in")
    goals: list[JointState] = []
    simulator.create_subscription(JointState, GOALS_TOPIC, goals.append, 10)
    assert not spin_until(executor, link.exists, timeout=CLOSED_FOR)  # goals taken, but no state heard
    assert emulator.poll() is None, processes.output(emulator)
    joints = [j.joint for j in load_calibration(CALIBRATION).joints]
    states = simulator.create_publisher(JointState, SIM_STATES_TOPIC, 10)
    simulator.create_timer(
        0.01, lambda: states.publish(JointState(name=joints, position=[0.0] * len(joints)))
    )
    assert spin_until(executor, link.exists, timeout=60.0), processes.output(emulator)


def test_a_cycles_new_goals_go_out_even_right_after_the_goals_before(make_node, executor):
    # The emulated servos publish their goals after each answered instruction: goals published
    # a moment before (a read of the cycle before) must not hold back a cycle's new ones. A plain
    # 200 Hz limit dropped those until the next cycle: in ik_demo --servo-bus every lock-stepped
    # period waited two bus cycles (real-time factor 0.50). Repeats stay limited.
    # (the publisher keeps only the latest: the goals before may be overwritten before delivery)
    calibration = load_calibration(CALIBRATION)
    link = SimLink(calibration)  # in this process: the goals are handed to it as the bus loop does
    try:
        simulator = make_node("sim_stand_in")
        goals: list[JointState] = []
        simulator.create_subscription(JointState, GOALS_TOPIC, goals.append, 10)
        assert spin_until(executor, lambda: link.publisher.get_subscription_count() > 0, timeout=30.0)
        for ticks in (2048, 2100, 2100):  # a read's answer, the next one's, a repeat at once
            for joint in calibration.joints:
                link.position_source(joint.servo_id, ticks)
            link.publish_goals()
        new = pytest.approx([j.to_angle(2100) for j in calibration.joints])
        carrying = lambda: [g for g in goals if list(g.position) == new]
        assert spin_until(executor, carrying, timeout=10.0), "the new goals never went out"
        spin_until(executor, lambda: len(carrying()) > 1, timeout=0.3)
        assert len(carrying()) == 1, "a repeat within 1/GOAL_RATE went out"
    finally:
        link.close()
